#pragma once
/** @file
 *  What the last frame's shadow views were (docs/shadows.md): for tests, debugging and tools. */
#include <glm/ext/vector_double3.hpp>
#include <glm/mat4x4.hpp>
#include <glm/vec3.hpp>

#include <array>
#include <cstdint>

namespace myriad::gl {

/** One cascade of the shadow map: an orthographic box along the light, its eye at @ref eye,
 *  2 * @ref radius wide and high, @ref depth deep from the eye, covering the colour views from
 *  the previous cascade's viewDepthEnd (0 for the first) up to its own. */
struct ShadowCascadeInfo {
    glm::dvec3 eye{0.0};            ///< world position of the light view's eye, double precision
    glm::dvec3 centre{0.0};         ///< world centre of the fitted (texel-snapped) sphere
    float radius = 0.0f;            ///< half the side of the box, world units
    float depth = 0.0f;             ///< length of the box along the light from the eye, world units
    float texelWorldSize = 0.0f;    ///< 2 * radius / size: one texel's side in world units
    float viewDepthEnd = 0.0f;      ///< world units from the eye along a view's forward axis where it ends
    /** Light clip space (x, y in -1..1, depth 0..1: ClipDepth::ZeroToOne) from (world - eye),
     *  camera-relative like every matrix the renderer uses. */
    glm::mat4 clipFromEyeRelative{1.0f};
};

/** The directional light's shadow map as the last Renderer::render() drew it. All zero (and
 *  `drawn` false) before the first frame with ShadowSettings::enabled, or after a frame
 *  without shadows (the texture may then still exist until Renderer::trim()). */
struct ShadowMapInfo {
    /** GL name of the depth texture: a GL_TEXTURE_2D_ARRAY of GL_DEPTH_COMPONENT32F, size x size,
     *  one layer per cascade, one level, compare mode GL_COMPARE_REF_TO_TEXTURE with GL_LEQUAL,
     *  linear filtering, clamp to a border of depth 1; owned by the renderer; 0 when there is
     *  none. For debugging views. */
    std::uint32_t texture = 0;
    std::uint32_t size = 0;         ///< texels per side (ShadowSettings::mapSize)
    bool drawn = false;             ///< the last render() drew the shadow views
    glm::vec3 direction{0.0f, -1.0f, 0.0f};  ///< world direction the light travels, unit length
    std::uint32_t cascadeCount = 0;          ///< cascades drawn (ShadowSettings::cascades)
    std::array<ShadowCascadeInfo, 4> cascades{};  ///< the first cascadeCount are used
    std::uint32_t drawCalls = 0;    ///< draws into the map in the last frame, all cascades
    std::uint64_t instances = 0;    ///< instances drawn into the map in the last frame, all cascades
};

} // namespace myriad::gl
