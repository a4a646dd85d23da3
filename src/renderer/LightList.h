#pragma once
// Internal to myriad_gl: the clustered forward light list (docs/lighting.md, "How many lamps a
// fragment pays for"). Once per frame, for every colour view, the lights of the scene that
// reach the view are packed with the clusters they touch: the view's viewport split into
// grid.x by grid.y tiles and its depth range into grid.z slices, exponentially (each slice a
// fixed ratio deeper than the last), after Olsson, Billeter and Assarsson, "Clustered
// Deferred and Forward Shading" (HPG 2012), and Filament's froxels, built on the CPU. A
// fragment finds its cluster from gl_FragCoord and its view depth, and loops over that
// cluster's lamps only (directional lights: every fragment).
//
// Every view's part lies in one RGBA32UI buffer texture on kLightListUnit, each 32-bit word
// as written (floats as their bits, read back with uintBitsToFloat). A view's part, from its
// base texel:
//   lights    4 texels each, directional ones first:
//             0  camera-relative position xyz (float), range (0 for a directional light)
//             1  colour * intensity (lux or candela), type (0 directional, 1 point, 2 spot)
//             2  direction the light travels xyz (world, unit), channel mask (uint)
//             3  spot angle scale, spot angle offset (KHR_lights_punctual), 1 / range^2,
//                lamp shadow slot + 1 (float; 0: unshadowed, renderer/LampShadowPass.h)
//   clusters  one texel each, x fastest, then y, then slice: (first index, count, 0, 0)
//   indices   the clusters' lamp indices (0 = the first point or spot lamp), 4 per texel
// The whole texture is written through the staging ring (fenced copies) once per frame, only
// when it differs from what the GPU holds.
#include "gl/GlCommon.h"
#include "myriad/gl/Buffer.h"
#include "renderer/EnvironmentMap.h"
#include "myriad/gl/View.h"

#include <glm/mat3x3.hpp>
#include <glm/mat4x4.hpp>
#include <glm/vec3.hpp>
#include <glm/vec4.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace myriad {
class LightNode;
class Scene;
} // namespace myriad

namespace myriad::gl::detail {

struct GlLimits;
struct SurfaceProgram;
class GpuResources;
class ViewPass;

/** One view's part of the list and how its fragments find their cluster (the uniforms). */
struct ViewLights {
    std::int32_t base = 0;         ///< u_lightBase: the part's first texel
    std::int32_t directional = 0;  ///< directional lights (first in the part)
    std::int32_t lamps = 0;        ///< point and spot lamps after them
    glm::ivec4 grid{1, 1, 1, 0};   ///< tiles across, tiles up, slices; texel of the first index, from base
    glm::vec4 viewport{0.0f};      ///< viewport x, y (pixels), tiles per pixel across and up
    glm::vec4 forward{0.0f};       ///< the view's forward axis (world, unit), nearest lamp depth
    glm::vec2 slices{1.0f, 0.0f};  ///< depth offset delta (world units), slices per log2 unit
    glm::vec4 viewAxis{0.0f};      ///< towards the eye along the view axis (world), 1 if orthographic (u_viewAxis)
};

/** buildViewLights()'s working vectors, kept by the caller so a steady frame allocates nothing. */
struct LightScratch {
    struct Lamp {
        const LightNode* light = nullptr;
        glm::vec3 relative{0.0f};  ///< position minus the eye
        float range = 0.0f;        ///< effective range, world units
        float depth = 0.0f;        ///< along the view's forward axis
    };
    struct Box {
        glm::uvec3 low{0u}, high{0u};  ///< the clusters a lamp covers, inclusive
    };
    std::vector<Lamp> lamps;
    std::vector<Box> boxes;
    std::vector<std::uint32_t> counts;  ///< per cluster
};

/** The CPU half, no GL: one view's part of the list. Appends its texels to @p texels and
 *  returns where its clusters are (ViewLights::base is texels.size() on entry). Only lights
 *  that are in the scene's tree, visible in the hierarchy, with a channel, a positive
 *  intensity and colour are taken; lamps whose sphere (effective range) misses the frustum
 *  are left out; a view with no lamp gets no clusters. @p grid: tiles across, up, slices
 *  (each >= 1). @p orthographic: the view's rays are parallel (depths may be negative). */
ViewLights buildViewLights(std::span<LightNode* const> lights, const glm::dvec3& eye, const glm::mat4& viewProjection,
                           const glm::mat3& rotation, bool orthographic, ClipDepth clipDepth,
                           const Viewport& viewport, const glm::uvec3& grid, float cutoffLux,
                           std::vector<glm::uvec4>& texels, LightScratch& scratch,
                           std::span<const LightNode* const> shadowed = {});

class LightList {
public:
    /** @param grid the cluster grid (RendererDesc::lightClusters), @param cutoffLux where an
     *  infinite lamp's range ends (RendererDesc::lightCutoffIlluminance). */
    LightList(const glm::uvec3& grid, float cutoffLux);
    ~LightList();
    LightList(const LightList&) = delete;
    LightList& operator=(const LightList&) = delete;

    /** Builds every colour view's part and uploads the texture if it changed (a depth-only view
     *  gets an empty part). @throws CapacityError when the list needs more texels than
     *  GL_MAX_TEXTURE_BUFFER_SIZE (nothing uploaded). */
    void prepare(const Scene& scene, std::span<const ViewPass> passes, GpuResources& resources, const GlLimits& limits,
                 std::span<const LightNode* const> shadowed = {});
    /** Binds the texture on kLightListUnit and the ambient's map on kEnvironmentUnit (once per
     *  view: every lit draw reads them). */
    void bind() const noexcept;
    /** Pass @p passIndex's part (prepare() made it). */
    [[nodiscard]] const ViewLights& view(std::size_t passIndex) const noexcept { return m_views[passIndex]; }
    /** The view's uniforms of a lit program: the scene's sun and ambient, the list's. */
    void setViewUniforms(const SurfaceProgram& program, std::size_t passIndex, const Scene& scene) const;
    /** The frame's ambient (Scene::environment or hemisphere; renderer/EnvironmentMap.h), set
     *  by render() after prepare(): bind() binds its map, setViewUniforms() sets its uniforms. */
    void setAmbient(const FrameAmbient& ambient) noexcept { m_ambient = ambient; }
    [[nodiscard]] const FrameAmbient& ambient() const noexcept { return m_ambient; }
    /** Frees the buffer (Renderer::trim()); the next prepare() makes one again if needed. */
    void trim() noexcept;
    /** Lamps in the frame's list (summed over views). */
    [[nodiscard]] std::uint64_t lampsListed() const noexcept { return m_lampsListed; }
    /** Bytes sent this frame (0 when nothing changed). */
    [[nodiscard]] std::size_t bytesUploaded() const noexcept { return m_bytesUploaded; }

private:
    glm::uvec3 m_grid;
    float m_cutoffLux;
    std::vector<ViewLights> m_views;
    std::vector<glm::uvec4> m_texels;    // this frame's
    std::vector<glm::uvec4> m_uploaded;  // what the GPU copy holds
    LightScratch m_scratch;
    Buffer m_buffer;
    TextureHandle m_texture;
    std::size_t m_capacityTexels = 0;
    std::uint64_t m_lampsListed = 0;
    std::size_t m_bytesUploaded = 0;
    FrameAmbient m_ambient;
};

} // namespace myriad::gl::detail
