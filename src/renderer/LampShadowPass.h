#pragma once
// Internal to myriad_gl: the lamps' shadow maps (docs/lighting.md, "Lamp shadows"). Point and
// spot LightNodes with castsShadow() are chosen within Scene::lampShadows' budget (nearest to
// the first colour view's eye first) and get tiles of one square DEPTH_COMPONENT32F atlas: a
// spot one (a perspective view over its outer cone), a point lamp six (the faces of a cube,
// 90 degrees each: exact, and the same depth-only views as a spot's; a dual paraboloid would
// bend straight edges of low-polygon casters between vertices). Each tile is an ordinary
// depth-only ViewPass of the frame (the frame's one prepare() uploads for it), drawn before the
// colour views into its rectangle of the atlas.
//
// Static cache (LampShadowBudget::staticCache): each face is two passes, its static casters
// (SceneNode::shadowIsStatic()) into the same tile of a second atlas, then the rest into the
// frame's atlas over a copy of it (glCopyImageSubData). The static pass is drawn only when its
// signature changes: the lamp's placement and settings, the tile, and per static item drawn
// the node, its world version, its mesh bounds and pose versions, its instances' data version
// and drawn range. Otherwise the copy alone brings it in.
//
// Receivers: after the passes, the atlas is bound on kLampShadowAtlasUnit (compare mode on) and
// the lamps' records on kLampShadowRecordsUnit, a RGBA32F buffer texture with kRecordTexels
// texels per shadowed lamp (slot):
//   0      face count (1 spot, 6 point), bias, normal offset (texels), filter radius
//   1      1 / atlas size, world size of a texel per unit of distance (2 tan(half fov) / resolution), 0, 0
//   2+5f   face f's clip-from-lamp-relative-world matrix, 4 columns, then its tile:
//          (u, v of its lower left corner, its side in uv, 0)
// Point faces in cube-map order: +X, -X, +Y, -Y, +Z, -Z. The light list carries slot + 1 in
// texel 3's w of each shadowed lamp (0: none).
#include "gl/GlCommon.h"
#include "renderer/ViewPass.h"
#include "myriad/gl/Buffer.h"
#include "myriad/gl/FrameStats.h"
#include "myriad/gl/View.h"

#include <glm/mat4x4.hpp>
#include <glm/vec4.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <tuple>
#include <vector>

namespace myriad {
class LightNode;
class Scene;
class SceneNode;
} // namespace myriad

namespace myriad::gl::detail {

struct GlLimits;
class GpuResources;

class LampShadowPass {
public:
    static constexpr std::size_t kRecordTexels = 32;

    /** @param limits the renderer's (outlives this): GL_MAX_TEXTURE_SIZE bounds the atlas;
     *  @param cutoffLux RendererDesc::lightCutoffIlluminance (an infinite lamp's range). No GL. */
    LampShadowPass(const GlLimits& limits, float cutoffLux) noexcept : m_limits(limits), m_cutoffLux(cutoffLux) {}
    ~LampShadowPass();
    LampShadowPass(const LampShadowPass&) = delete;
    LampShadowPass& operator=(const LampShadowPass&) = delete;

    /** @throws InvalidArgument when some lamp casts and Scene::lampShadows is out of range. No GL. */
    void validate(const Scene& scene) const;
    /** Chooses this frame's shadowed lamps, fits their face views and makes the atlases (GL).
     *  @return the number of passes to build, each with view(i), camera(i), casterSet(i),
     *  after the sun's and before the colour views. */
    std::size_t begin(const Scene& scene, std::span<const View> views);
    [[nodiscard]] const View& view(std::size_t i) const noexcept { return m_passes[i].view; }
    [[nodiscard]] const ViewCamera& camera(std::size_t i) const noexcept { return m_passes[i].camera; }
    [[nodiscard]] ViewPass::CasterSet casterSet(std::size_t i) const noexcept { return m_passes[i].set; }
    /** After pass @p i is built: a static pass notes what it would draw (its signature). */
    void built(std::size_t i, const ViewPass& pass);
    /** Before pass @p i is drawn: false skips it (a static tile whose cache holds it already).
     *  A dynamic pass gets its cached static tile copied into the frame's atlas first. Counts
     *  static draws into @p stats. */
    bool beforeDraw(std::size_t i, FrameStats& stats);
    /** With the frame's uploads (before any draw): the records through the staging ring,
     *  when they changed. */
    void upload(GpuResources& resources);
    /** After the last lamp pass: binds atlas and records for the colour views. */
    void bind() const noexcept;
    /** kLampShadowReceive for a Lit colour draw of a receiving node (null: a population) while
     *  some lamp is shadowed this frame; else 0. */
    [[nodiscard]] std::uint32_t receiveFeatures(std::uint32_t features, const SceneNode* node,
                                                const View& view) const noexcept;
    /** This frame's shadowed lamps, slot order (the light list's slot + 1). */
    [[nodiscard]] std::span<const LightNode* const> shadowed() const noexcept { return m_shadowed; }
    /** Frees the atlases when the last frame shadowed no lamp (Renderer::trim()). */
    void trim() noexcept;

private:
    struct Pass {
        View view;
        ViewCamera camera;
        ViewPass::CasterSet set = ViewPass::CasterSet::All;
        glm::uvec4 tile{0u};        ///< x, y, side drawn (texels), tile index
        std::uint64_t signature = 0;  ///< a static pass's (built())
    };
    void ensureAtlases(std::uint32_t size, bool cache);
    void release() noexcept;

    const GlLimits& m_limits;
    float m_cutoffLux;
    std::vector<Pass> m_passes;
    std::vector<const LightNode*> m_shadowed;
    std::vector<std::tuple<float, float, std::size_t>> m_candidates;  // (to its sphere, to it, index in Scene::lights())
    std::vector<glm::vec4> m_records;
    std::vector<glm::vec4> m_uploaded;  // what the GPU copy holds
    std::vector<std::uint64_t> m_cachedSignatures;  ///< per tile index: what the cache atlas holds (0: nothing)
    bool m_active = false;
    bool m_cache = false;
    std::uint32_t m_atlasSize = 0;
    bool m_atlasHasCache = false;
    TextureHandle m_atlas;
    TextureHandle m_cacheAtlas;
    GLuint m_framebuffer = 0;
    GLuint m_cacheFramebuffer = 0;
    Buffer m_recordBuffer;
    TextureHandle m_recordTexture;
    std::size_t m_recordCapacity = 0;  // texels
};

} // namespace myriad::gl::detail
