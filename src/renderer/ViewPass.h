#pragma once
// Internal to myriad_gl: one view's pass over the scene — which nodes it draws, culled against
// its frustum, opaque in tree order and blended back to front. No GL here: passes for every
// view of a frame are built first, so the frame can upload each batch once before any draw.
#include "myriad/core/Lod.h"
#include "myriad/core/MeshNode.h"
#include "myriad/core/OcclusionBuffer.h"
#include "myriad/core/Scene.h"  // Fog
#include "myriad/gl/FrameStats.h"
#include "myriad/gl/View.h"

#include <glm/ext/vector_double3.hpp>
#include <glm/mat3x3.hpp>
#include <glm/mat4x4.hpp>

#include <cstdint>
#include <utility>
#include <vector>

namespace myriad {
class ParticlePool;
} // namespace myriad

namespace myriad::gl::detail {

class InstanceVisibility;  // per-instance culling and sorting (renderer/InstanceVisibility.h)
struct VisibleList;
class GpuCulling;  // InstanceCulling::Gpu (renderer/GpuCulling.h)
struct GpuCullList;

/** The six planes of a clip matrix (Gribb and Hartmann, "Fast Extraction of Viewing Frustum
 *  Planes from the World-View-Projection Matrix", 2001), normalised so a plane's dot with
 *  (point, 1) is a signed distance. With a 0..1 clip depth the near plane is row 2 alone. */
struct Frustum {
    glm::vec4 planes[6];
    Frustum(const glm::mat4& clipFromWorld, ClipDepth clipDepth);
    [[nodiscard]] bool intersectsSphere(const glm::vec3& centre, float radius) const noexcept;
};

/** RendererDesc's occlusion settings (View::occlusionCulling), as a pass reads them. */
struct OcclusionSettings {
    std::uint32_t bufferHeight = 128;
    std::uint32_t triangleBudget = 8192;
    std::uint32_t maxOccluderInstances = 1024;
};

struct DrawItem {
    const MeshNode* node = nullptr;
    float distance = 0.0f;     ///< eye to the node's bounds centre, for back-to-front blending
    bool instanced = false;
    std::uint32_t primitive = 0;  ///< MeshNode::primitiveMesh() / primitiveMaterial() index
    std::uint32_t firstInstance = 0;
    std::uint32_t instanceCount = 1;
    VisibleList* visible = nullptr;  ///< drawn through this visible-index list (kIndexed)
    std::uint8_t lodLevel = 0xFF;    ///< LOD level drawn (its mesh: drawnMesh()); 0xFF: not a LOD draw
    /** A fading chain's level in a view that fades: its list entries carry fade codes, drawn by
     *  the kLodFade variant (LodChain::fadeBand). */
    bool lodFade = false;
    /** Drawn indirect through this GPU-written visible-index list (kIndexed; instanceCount is
     *  then the tested count, an upper bound). */
    GpuCullList* gpuCulled = nullptr;
    /** The slot of gpuCulled drawn when it has no LOD chain: 0, or 1 for occlusion culling's
     *  second phase (drawn after the depth pyramid; firstInstance is then the slot's start). */
    std::uint8_t cullSlot = 0;
};

/** Camera data of a view, camera-relative: the eye in double, the rest in float. */
struct ViewCamera {
    glm::dvec3 eye{0.0};
    /** Where LOD distances are measured from: the eye, except in a shadow view, whose eye sits
     *  far back along the light: there the first colour view's eye, so an instance casts the
     *  level it is drawn at. */
    glm::dvec3 lodEye{0.0};
    /** How LOD screen sizes are measured (LodMetric::ScreenHeight / ScreenPixels): the view's
     *  projection and viewport height; a shadow view takes the first colour view's, with no
     *  fade (one level drawn, docs/visibility.md "Level of detail"). */
    LodProjection lodProjection{};
    glm::mat4 viewProjection{1.0f};  ///< clip from (world - eye)
    std::uint32_t layerMask = 0xFFFFFFFFu;
};

/** Resolves a View's camera or raw matrices. */
[[nodiscard]] ViewCamera resolveCamera(const View& view);
/** The view's rotation (world to view, no translation), from its camera or its raw view
 *  matrix: rows are the screen's right, up and back directions in world space. */
[[nodiscard]] glm::mat3 viewRotation(const View& view);

class ViewPass {
public:
    /** Collects and culls @p scene for @p view; reuses its vectors (no per-frame allocation once
     *  warm). Counts culled nodes into @p stats. */
    void build(const Scene& scene, const View& view, FrameStats& stats);
    /** Issue 13: batches that opt into per-instance culling or sorting get their visible-index
     *  list from @p visibility (the renderer's), as pass number @p index. Null: none. */
    void setInstanceVisibility(InstanceVisibility* visibility, std::size_t index) noexcept {
        m_instanceVisibility = visibility;
        m_index = index;
    }
    /** Batches with InstanceCulling::Gpu are queued on @p culling (the renderer's) under the
     *  same pass number. Null: they draw whole. */
    void setGpuCulling(GpuCulling* culling) noexcept { m_gpuCulling = culling; }

    /** Shadows (renderer/ShadowPass.h): non-null makes this a shadow-caster pass seen from
     *  @p camera (which must outlive build()): only nodes with castsShadow(), no particles or
     *  scatter, masked instances left out. Null (the default): an ordinary pass. */
    void setShadowCaster(const ViewCamera* camera) noexcept {
        m_shadowCamera = camera;
        m_casterSet = CasterSet::All;
        m_casterFaces = CasterFaces::Front;
    }
    /** Which casters a shadow pass collects: every one, or only those with
     *  SceneNode::shadowIsStatic() (a lamp's cached static tile), or only the others (drawn
     *  over a copy of it). */
    enum class CasterSet : std::uint8_t { All, StaticOnly, DynamicOnly };
    /** A shadow-caster pass (as setShadowCaster(camera)) collecting @p set, drawing the faces
     *  @p faces says (ShadowSettings::casterFaces or directionalCasterFaces). */
    void setShadowCaster(const ViewCamera* camera, CasterSet set, CasterFaces faces) noexcept {
        m_shadowCamera = camera;
        m_casterSet = set;
        m_casterFaces = faces;
    }
    /** Whether this is a shadow-caster pass. */
    [[nodiscard]] bool shadowCaster() const noexcept { return m_shadowCamera != nullptr; }
    /** The face culling a draw of @p node uses in this pass, given the one it would use in a
     *  colour view (GL_BACK, GL_FRONT for a mirrored node, 0 = GL_NONE for none): in a shadow
     *  pass CasterFaces::Back swaps the two, Both and SceneNode::castsShadowFromEveryFace()
     *  cull nothing. */
    [[nodiscard]] std::uint32_t casterCullFace(std::uint32_t colourCull, const SceneNode& node) const noexcept;
    /** Occlusion culling's settings for the views that ask for it (View::occlusionCulling;
     *  never a shadow pass). */
    void setOcclusion(const OcclusionSettings& settings) noexcept { m_occlusionSettings = settings; }
    /** This frame's occlusion buffer, or null when the pass does not cull by occlusion. */
    [[nodiscard]] OcclusionBuffer* occlusion() noexcept { return m_occlusionActive ? &m_occlusion : nullptr; }

    [[nodiscard]] const View& view() const noexcept { return *m_view; }
    /** The fog this pass's colour draws apply (Scene::fog as build() found it; FogMode::None
     *  in a depth-only or shadow pass): decides kFog and the u_fog* uniforms. */
    [[nodiscard]] const Fog& fog() const noexcept { return m_fog; }
    /** World direction of increasing view depth: -(row 2 of viewRotation()). */
    [[nodiscard]] const glm::vec3& depthAxis() const noexcept { return m_depthAxis; }
    [[nodiscard]] const ViewCamera& camera() const noexcept { return m_camera; }
    [[nodiscard]] const std::vector<DrawItem>& opaque() const noexcept { return m_opaque; }
    [[nodiscard]] const std::vector<DrawItem>& blended() const noexcept { return m_blended; }
    /** Particle pools with draw bounds (ParticlePool::setDrawBounds) inside the frustum, with
     *  the distance from the eye to their box's centre, farthest first: drawn among blended(). */
    [[nodiscard]] const std::vector<std::pair<const ParticlePool*, float>>& blendedParticles() const noexcept {
        return m_blendedParticles;
    }
    /** Visible ParticlePool and ScatterNode nodes in tree order (not culled; drawn by
     *  ParticlePass). */
    [[nodiscard]] const std::vector<const SceneNode*>& particleNodes() const noexcept { return m_particleNodes; }

private:
    void collect(const SceneNode& node, const Frustum& frustum, FrameStats& stats);
    /** One thing that may occlude: a MeshNode, or one instance of a batch. */
    struct OccluderCandidate {
        const MeshNode* node = nullptr;
        std::uint32_t instance = ~0u;  ///< ~0u: the node itself
        std::uint32_t triangles = 0;
        float pixels = 0.0f;           ///< projected radius in buffer pixels (ranking)
    };
    /** Ranks the view's occluders and rasterises them into m_occlusion (docs/visibility.md). */
    void buildOcclusion(const Scene& scene, const Frustum& frustum, FrameStats& stats);
    void gatherOccluders(const SceneNode& node, const Frustum& frustum);
    /** Projected radius in buffer pixels of a camera-relative sphere (infinite near the eye). */
    [[nodiscard]] float projectedPixels(const glm::vec3& centre, float radius) const noexcept;
    /** The meshes @p node occludes with into m_occluderMeshes, and their triangles. */
    std::uint32_t occluderMeshes(const MeshNode& node);

    const View* m_view = nullptr;
    ViewCamera m_camera;
    Fog m_fog;  // the scene's, or none (fog())
    std::vector<DrawItem> m_opaque;
    std::vector<DrawItem> m_blended;
    std::vector<std::pair<const ParticlePool*, float>> m_blendedParticles;
    InstanceVisibility* m_instanceVisibility = nullptr;
    std::size_t m_index = 0;
    GpuCulling* m_gpuCulling = nullptr;
    glm::vec3 m_depthAxis{0.0f, 0.0f, -1.0f};  // world direction of increasing view depth
    std::vector<const SceneNode*> m_particleNodes;  // particles and scatter
    const ViewCamera* m_shadowCamera = nullptr;     // shadows: a shadow-caster pass
    CasterSet m_casterSet = CasterSet::All;         // lamp shadows: static, dynamic or every caster
    CasterFaces m_casterFaces = CasterFaces::Front;  // the faces that cast
    // Occlusion culling (View::occlusionCulling): the buffer and scratch, kept between frames.
    OcclusionSettings m_occlusionSettings{};
    OcclusionBuffer m_occlusion;
    bool m_occlusionActive = false;
    std::vector<OccluderCandidate> m_occluders;
    std::vector<const MeshGeometry*> m_occluderMeshes;
};

} // namespace myriad::gl::detail
