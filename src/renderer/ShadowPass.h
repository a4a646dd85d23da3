#pragma once
// Internal to myriad_gl: the directional light's shadow map (docs/shadows.md). When the scene's
// light has shadows on, the frame gets one more view pass per cascade, first: depth-only,
// orthographic along the light, fitted around the colour views' frusta over the cascade's
// slice of ShadowSettings::distance and snapped to whole texels, drawn into its layer of a
// 32-bit float depth array texture. Each is an ordinary ViewPass (the frame's one prepare() uploads for it too) marked as a shadow-caster pass
// (ViewPass::setShadowCaster): only nodes with castsShadow() are collected, particles and
// scatter are not, and a batch with instances masked out of shadows draws through a
// visible-index list that leaves them out. After it is drawn the map is bound on
// kShadowMapUnit, and Lit materials of receiving nodes use the kShadowReceive variant, which
// compares against it with hardware PCF.
#include "gl/Bindings.h"
#include "gl/GlCommon.h"
#include "renderer/GlLimits.h"
#include "renderer/ViewPass.h"
#include "myriad/core/Scene.h"
#include "myriad/gl/FrameStats.h"
#include "myriad/gl/ShadowMap.h"
#include "myriad/gl/View.h"

#include <array>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace myriad {
class SceneNode;
} // namespace myriad

namespace myriad::gl::detail {

struct SurfaceProgram;

/** The eight corners of @p view's frustum, camera-relative (eye at the origin), near then far
 *  (an infinite far plane becomes the ray through each near corner), and its forward axis.
 *  False for a degenerate projection. */
struct Frustum8 {
    std::array<glm::dvec3, 4> nearCorners{};
    std::array<glm::dvec3, 4> farCorners{};
    glm::dvec3 forward{0.0, 0.0, -1.0};
    double nearDepth = 0.0;  ///< the nearest corner's depth along forward
};

// The shadow map's texture unit, kShadowMapUnit, is gl/Bindings.h's.

class ShadowPass {
public:
    /** @param limits the renderer's (outlives this): GL_MAX_TEXTURE_SIZE bounds mapSize. No GL. */
    explicit ShadowPass(const GlLimits& limits) noexcept : m_limits(limits) {}
    ~ShadowPass();
    ShadowPass(const ShadowPass&) = delete;
    ShadowPass& operator=(const ShadowPass&) = delete;

    /** @throws InvalidArgument when @p settings are enabled and a value is out of its range
     *  (ShadowSettings). No GL call. */
    void validate(const ShadowSettings& settings) const;

    /** Decides whether this frame draws shadow views (shadows on and at least one drawable
     *  colour view) and fits one per cascade to @p views; makes or resizes the depth texture.
     *  Call after validate(), before the view passes are built.
     *  @return the number of shadow views (0: none): build a ViewPass of view(c) with
     *  setShadowCaster(&camera(c)) for each, and draw them before the others. */
    std::size_t begin(const Scene& scene, std::span<const View> views);
    /** Cascade @p c's view: depth-only, raw matrices, its layer's framebuffer, 0..1 clip depth. */
    [[nodiscard]] const View& view(std::size_t c) const noexcept { return m_views[c]; }
    /** Cascade @p c's camera (eye in double, clip from (world - eye)). */
    [[nodiscard]] const ViewCamera& camera(std::size_t c) const noexcept { return m_cameras[c]; }

    /** kShadowReceive when a draw with @p features (already decided) of @p node (null: a
     *  population) in @p view samples the map: shadows active, a Lit colour view, the node
     *  receives. Else 0. */
    [[nodiscard]] std::uint32_t receiveFeatures(std::uint32_t features, const SceneNode* node,
                                                const View& view) const noexcept;
    /** Gives @p program (a kShadowReceive variant; others are left alone) the map's matrix for
     *  @p pass's eye and the bias and filter constants. Once per program and view. */
    void setReceiverUniforms(const SurfaceProgram& program, const ViewPass& pass) const;
    /** After a pass is drawn: if it was a shadow pass, records what it drew (@p before: the
     *  stats before the pass); after the last one, binds the map on kShadowMapUnit for the
     *  passes that follow. */
    void afterDraw(const ViewPass& pass, const FrameStats& before, const FrameStats& after);
    /** Frees the map when the last frame did not draw it. */
    void trim() noexcept;

    /** What the last frame drew (Renderer::shadowMap()). */
    [[nodiscard]] const ShadowMapInfo& info() const noexcept { return m_info; }

private:
    void ensureTexture(std::uint32_t size, std::uint32_t layers);
    void release() noexcept;

    static constexpr std::size_t kMaxCascades = 4;
    const GlLimits& m_limits;
    bool m_active = false;
    ShadowSettings m_settings;
    std::array<View, kMaxCascades> m_views{};
    std::array<ViewCamera, kMaxCascades> m_cameras{};
    std::size_t m_drawnCascades = 0;  ///< shadow passes drawn so far this frame
    ShadowMapInfo m_info;
    TextureHandle m_texture;
    std::array<GLuint, kMaxCascades> m_framebuffers{};
    std::uint32_t m_textureSize = 0;
    std::vector<std::pair<Frustum8, glm::dvec3>> m_frusta;  ///< this frame's colour views (begin())
    LodProjection m_lodProjection{};  ///< the first colour view's, fade off: the casters' LOD levels
    std::uint32_t m_textureLayers = 0;
};

} // namespace myriad::gl::detail
