#pragma once
/** @file
 *  Lamps and suns as scene nodes: KHR_lights_punctual's directional, point and spot lights,
 *  placed and aimed by the node's world transform (docs/lighting.md). */
#include "myriad/core/SceneNode.h"

#include <glm/vec3.hpp>

#include <cstdint>
#include <string>

namespace myriad {

/** The three kinds of KHR_lights_punctual (glTF extension, "Light Types"). */
enum class LightType : std::uint8_t {
    Directional,  ///< parallel rays along the node's -Z axis, from infinitely far (a sun)
    Point,        ///< from the node's origin in every direction (a bulb)
    Spot,         ///< from the node's origin in a cone around its -Z axis (a torch)
};

/** A light as a scene node (NodeKind::Light), in the units KHR_lights_punctual defines:
 *  a directional light's intensity is illuminance in lux (lm/m^2) on a surface facing it, a
 *  point or spot lamp's is luminous intensity in candela (lm/sr), so a surface facing a lamp at
 *  d metres receives intensity / d^2 lux. Outgoing radiance is the material's BRDF times that
 *  illuminance times cos(angle of incidence) (glTF 2.0 Appendix B; a white Lambert surface
 *  facing a 1 lux sun shows 1/pi).
 *
 *  Position is the node's world translation; direction (directional, spot) is the node's world
 *  -Z axis, as glTF places them (rotate the node to aim it; scale is ignored). A hidden node
 *  (its own or an ancestor's visible() false) lights nothing; layer masks do not apply to
 *  lights: light channels do (channels(), SceneNode::lightChannels()).
 *
 *  Point and spot lamps go into the renderer's clustered light list (docs/lighting.md), so a
 *  fragment pays for the lamps whose range reaches its cluster only; directional lights reach
 *  every fragment. Setters throw InvalidArgument on values KHR_lights_punctual forbids and
 *  leave the light as it was. Thread safety: as SceneNode.
 *
 *  Shadows: on a LightNode, SceneNode::setCastsShadow() means "this lamp draws a shadow map"
 *  and is false by default (a light draws no geometry). A point or spot lamp with it on gets
 *  tiles of the scene's lamp shadow atlas within Scene::lampShadows' budget (docs/lighting.md,
 *  "Lamp shadows"); a directional LightNode casts none (the sun's cascades are Scene::light's). */
class LightNode : public SceneNode {
public:
    /** A light of @p type named @p name: white, intensity 1, infinite range, channel 0, cone
     *  angles 0 and pi/4 (KHR_lights_punctual's defaults). */
    explicit LightNode(LightType type, std::string name = {});

    /** Which kind of light this is; fixed at construction. */
    [[nodiscard]] LightType type() const noexcept { return m_type; }

    /** Linear RGB, each channel >= 0 (glTF's `color`; multiplies intensity).
     *  @throws InvalidArgument if a channel is negative or not finite. */
    void setColor(const glm::vec3& color);
    /** The colour set by setColor(): linear RGB. */
    [[nodiscard]] const glm::vec3& color() const noexcept { return m_color; }
    /** Lux for a directional light, candela for a point or spot lamp (see the class comment),
     *  >= 0. @throws InvalidArgument if negative or not finite. */
    void setIntensity(float intensity);
    /** The intensity set by setIntensity(): lux (directional) or candela (point, spot). */
    [[nodiscard]] float intensity() const noexcept { return m_intensity; }

    /** How far a point or spot lamp reaches, metres (world units), > 0; 0 means infinite
     *  (glTF's undefined range). With a range R the inverse-square falloff is windowed by
     *  KHR_lights_punctual's recommended clamp(1 - (d/R)^4, 0, 1)^2, so the light is exactly 0
     *  at R and beyond; an infinite range is windowed the same way at effectiveRange().
     *  Ignored by directional lights.
     *  @throws InvalidArgument if negative or not finite. */
    void setRange(float range);
    /** The range set by setRange(): world units, 0 for infinite. */
    [[nodiscard]] float range() const noexcept { return m_range; }
    /** The range the renderer uses: range() when set, else the distance at which the lamp's
     *  brightest channel's illuminance falls to @p cutoffLux (sqrt(max(color) * intensity /
     *  cutoffLux); RendererDesc::lightCutoffIlluminance), within 1e-3 .. 1e9. World units. */
    [[nodiscard]] float effectiveRange(float cutoffLux) const noexcept;

    /** A spot's cone, radians from its axis: full intensity inside @p inner, none outside
     *  @p outer, smoothly between (KHR_lights_punctual's spot attenuation: (cos angle -
     *  cos outer) / (cos inner - cos outer), clamped to 0..1, squared). Ignored by other types.
     *  @throws InvalidArgument unless 0 <= inner < outer <= pi/2 (glTF's rule). */
    void setConeAngles(float inner, float outer);
    /** The inner cone angle, radians. */
    [[nodiscard]] float innerConeAngle() const noexcept { return m_innerCone; }
    /** The outer cone angle, radians. */
    [[nodiscard]] float outerConeAngle() const noexcept { return m_outerCone; }

    /** The light channels this light belongs to, one bit each (32 channels): it reaches a
     *  surface only where this mask and the surface's SceneNode::lightChannels() share a bit
     *  (Unreal's lighting channels, Godot's light cull mask). Default 1 (channel 0); 0 lights
     *  nothing. */
    void setChannels(std::uint32_t channels) noexcept { m_channels = channels; }
    /** The mask set by setChannels(). */
    [[nodiscard]] std::uint32_t channels() const noexcept { return m_channels; }

    /** A point or spot lamp's own shadow settings (docs/lighting.md, "Lamp shadows"); the
     *  faces that cast and the atlas are the scene's (ShadowSettings::casterFaces,
     *  Scene::lampShadows). Biases are in texels of the lamp's tile at the receiver's distance
     *  (one texel there spans 2 d tan(half field of view) / resolution world units), so they
     *  follow the resolution without retuning. */
    struct LampShadow {
        float bias = 1.5f;          ///< the looked-up point moves this far towards the lamp: texels, finite, >= 0
        float normalOffset = 1.0f;  ///< and this far along the surface's normal: texels, finite, >= 0
        /** Percentage-closer filtering: (2r + 1)^2 hardware-compared taps one texel apart
         *  (sampler2DShadow, as the sun's), 0..4. */
        std::uint32_t filterRadius = 1;
        /** Texels per side this lamp draws of each of its tiles, 0 = the whole tile
         *  (LampShadowBudget::tileSize); above the tile size it is the tile size. A hint: lower
         *  costs fewer texels, never more tiles. */
        std::uint32_t resolution = 0;
        /** The shadow views' near plane, world units from the lamp, finite, > 0; casters nearer
         *  the lamp than this cast nothing. Default 0.05. */
        float nearPlane = 0.05f;
    };
    /** Replaces this lamp's shadow settings. Whether it casts at all is setCastsShadow().
     *  @throws InvalidArgument when a value is outside its range (LampShadow); the light is
     *  left as it was. */
    void setShadow(const LampShadow& shadow);
    /** The settings set by setShadow(). */
    [[nodiscard]] const LampShadow& shadow() const noexcept { return m_shadow; }

    /** World position (the node's world translation), world units. */
    [[nodiscard]] glm::dvec3 worldPosition() const;
    /** World direction the light travels (the node's world -Z axis, normalised); (0, 0, -1)
     *  where the node's world matrix has a zero axis. */
    [[nodiscard]] glm::vec3 worldDirection() const;

protected:
    /** Registers this light in @p scene's lights(). */
    void onAttachedToScene(Scene& scene) noexcept override;
    /** Leaves @p scene's lights(). */
    void onDetachedFromScene(Scene& scene) noexcept override;

private:
    LightType m_type;
    glm::vec3 m_color{1.0f};
    float m_intensity = 1.0f;
    float m_range = 0.0f;
    float m_innerCone = 0.0f;
    float m_outerCone = 0.7853981634f;
    std::uint32_t m_channels = 1;
    LampShadow m_shadow;
};

} // namespace myriad
