#pragma once
/** @file
 *  A light's illuminance at a point, on the CPU, by the formula myriad's shaders use: for
 *  baking lightmaps (Material::lightmapTexture), light probes, or game logic that asks how
 *  brightly a spot is lit. */
#include "myriad/core/LightNode.h"

#include <glm/vec2.hpp>
#include <glm/vec3.hpp>
#include <glm/ext/vector_double3.hpp>

namespace myriad {

/** A spot lamp's cone as KHR_lights_punctual's attenuation uses it: (scale, offset) such that
 *  the cone factor is clamp(cos(a) * scale + offset, 0, 1), squared where it attenuates, a the
 *  angle from the spot's axis; scale = 1 / max(0.001, cos inner - cos outer) (kept from 0 for
 *  equal angles), offset = -cos outer * scale. (0, 1) for other lights: 1 at every angle. What
 *  illuminance() and the renderer's light list use. */
[[nodiscard]] glm::vec2 spotConeScaleOffset(const LightNode& light) noexcept;

/** The illuminance, lux per linear RGB channel, that @p light casts on a surface at @p point
 *  (world space, world units as metres) facing @p normal (world space, unit length): what
 *  KHR_lights_punctual and docs/lighting.md ("Lights and their units") define and surface.frag
 *  computes per fragment:
 *  - Directional: colour * intensity * cos(incidence);
 *  - Point: colour * intensity / d^2 * cos(incidence) * clamp(1 - (d/R)^4, 0, 1)^2, with R the
 *    lamp's LightNode::effectiveRange(@p cutoffLux) (its range, or where an infinite lamp's
 *    brightest channel falls to the cutoff);
 *  - Spot: as Point, times cone^2, cone = clamp((cos a - cos outer) / (cos inner - cos outer),
 *    0, 1), a the angle between the spot's axis and the direction from the lamp to the point.
 *  cos(incidence) is dot(normal, direction to the light), 0 where it is negative (the surface
 *  faces away). A white Lambert surface there shows E / pi (and in the units of Scene::ambient
 *  and a lightmap's texels, that is what a baked texel holds).
 *
 *  The light is taken as it is: its visibility, its channels and any shadow are not
 *  considered (a baker decides which lights and surfaces it bakes). Uses the light's world
 *  position and direction (LightNode::worldPosition(), worldDirection()), through its
 *  parents as drawn. A point at the lamp's own position gets
 *  none (there is no direction to the lamp).
 *  @param light the light, as it is placed in its scene (not owned; only read)
 *  @param point where the surface is, world space
 *  @param normal which way the surface faces, world space, unit length
 *  @param cutoffLux RendererDesc::lightCutoffIlluminance of the renderer to match (default
 *  0.01 lux, its default); used only for lamps of infinite range.
 *  @return lux per linear RGB channel, >= 0 */
[[nodiscard]] glm::vec3 illuminance(const LightNode& light, const glm::dvec3& point, const glm::vec3& normal,
                                    float cutoffLux = 0.01f);

} // namespace myriad
