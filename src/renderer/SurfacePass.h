#pragma once
// Internal to myriad_gl: the surface draws of one view pass. It decides which program variant
// each draw needs (featuresOf: the node's instancing, culling list, morphing, lanes, mirroring,
// its material's shading, the view's output and shadows), sets the per-program view uniforms
// once per view and the per-draw state, and issues the draws: the table-driven groups
// (DrawTable), the draws with a call of their own, the blended draws and the GPU populations.
// Renderer::Impl only orders the frame (views, clears and blend state, the passes in turn), as
// Filament's renderer orders passes whose decisions live with them.
#include "renderer/ViewPass.h"
#include "myriad/gl/FrameStats.h"

#include <glm/mat3x3.hpp>
#include <glm/mat4x4.hpp>
#include <glm/vec2.hpp>
#include <glm/vec3.hpp>
#include <glm/vec4.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace myriad {
class InstancedMeshNode;
class MeshGeometry;
class Scene;
struct Material;
} // namespace myriad

namespace myriad::gl::detail {

struct BatchGpu;
struct MaterialTextures;

class DrawTable;
class GpuCulling;
class GpuCullingCounts;
class GpuPopulations;
class GpuResources;
class InstanceVisibility;
class LightList;
class MaterialTable;
class ShaderLibrary;
class ShadowPass;
class LampShadowPass;
class SkinPalettePass;
struct Population;
struct SurfaceProgram;

class SurfacePass {
public:
    /** What the draws use, all the renderer's (they outlive this). @p countGpuCulled:
     *  RendererDesc::gpuCullingCounts (GPU-culled draws are noted for their counts). */
    struct Parts {
        FrameStats& stats;
        ShaderLibrary& shaders;
        GpuResources& resources;
        const MaterialTable& materials;
        const ShadowPass& shadow;
        DrawTable& table;
        GpuCulling& gpuCulling;
        InstanceVisibility& instanceVisibility;
        GpuCullingCounts& gpuCullingCounts;
        GpuPopulations& populations;
        const SkinPalettePass& skinPalettes;
        const LightList& lights;  ///< the frame's clustered light list (renderer/LightList.h)
        bool countGpuCulled = false;
        const LampShadowPass* lampShadow = nullptr;  ///< lamp shadows (renderer/LampShadowPass.h)
    };
    explicit SurfacePass(const Parts& parts) noexcept : m_parts(parts) {}

    /** The feature set (ShaderLibrary switches) @p item needs in @p pass (its view and fog). No GL. */
    [[nodiscard]] std::uint32_t featuresOf(const DrawItem& item, const ViewPass& pass) const;
    /** The feature set a population needs in @p pass (no morphing: it draws its mesh's base
     *  shape). No GL. */
    [[nodiscard]] std::uint32_t featuresOf(const Population& population, const ViewPass& pass) const;

    /** A new view: every program gets the view's camera and light again on first use, and
     *  the light list (pass @p passIndex's part) is bound. @p velocityView: the view's position in the list render() was given, for a view with
     *  View::velocity (its previous view-projection is kept under that position; SIZE_MAX for
     *  other views); @p frame the draw frame (FrameStats::frame); @p time Scene::time, seconds
     *  (vertex functions' u_time; the previous frame's is kept with the view-projection). */
    void beginView(const ViewPass& pass, std::size_t passIndex, std::size_t velocityView, std::uint64_t frame, float time);
    /** Forgets which program is current (another pass changed it: particles, the cull
     *  dispatch, the state restore). */
    void forgetProgram() noexcept { m_boundProgram = nullptr; }

    /** Pass @p passIndex's opaque draws: its table-driven groups (one multi-draw each), then
     *  the draws with a call of their own (DrawTable::rest), in the depth and blend state the
     *  caller set. */
    void drawOpaque(std::size_t passIndex, const ViewPass& pass, const Scene& scene);
    /** Occlusion culling's second phase: every occlusion-culled draw of pass @p passIndex
     *  again, from slot 1 of its list (the instances that became visible: GpuCulling's
     *  dispatchOcclusion() wrote it), in the same state as drawOpaque(). */
    void drawOcclusionPhase2(std::size_t passIndex, const ViewPass& pass, const Scene& scene);
    /** @p pass's blended draws, back to front, with its blended particle pools
     *  (ViewPass::blendedParticles) among them: @p drawPool(pool) draws one where its distance
     *  falls (farther first; a pool and a mesh at the same distance: the mesh first), and must
     *  put back the blend function the meshes use (SRC_ALPHA, ONE_MINUS_SRC_ALPHA). Called with
     *  the depth mask off; a draw whose material has Material::blendWritesDepth turns it on for
     *  itself (a pool draws with it off), and it is off again on return. */
    template <class DrawPool>
    void drawBlended(const ViewPass& pass, const Scene& scene, DrawPool&& drawPool) {
        const auto& pools = pass.blendedParticles();
        std::size_t next = 0;
        m_blendDepthWrite = false;
        for (const DrawItem& item : pass.blended()) {
            for (; next < pools.size() && pools[next].second > item.distance; ++next) {
                drawPool(*pools[next].first);
                m_boundProgram = nullptr;  // the pool bound its own
                m_blendDepthWrite = false;  // and drew with the depth mask off
            }
            setBlendDepthWrite(item.node->primitiveMaterial(item.primitive).blendWritesDepth);
            draw(item, pass, scene);
        }
        setBlendDepthWrite(false);
        for (; next < pools.size(); ++next) {
            drawPool(*pools[next].first);
            m_boundProgram = nullptr;
        }
    }
    /** The GPU populations whose blending is @p blended, culled as a whole against the view
     *  (blended: called with the depth mask off, as drawBlended(), and leaves it off). */
    void drawPopulations(const ViewPass& pass, const Scene& scene, bool blended);

private:
    static constexpr std::array<glm::vec4, 4> kZeroLanes{};

    /** The switches a material and view decide (alpha mode, lighting, blending, depth-only,
     *  sRGB encoding), shared by nodes and populations. */
    static std::uint32_t shadingFeatures(const Material& material, bool blended, const View& view);
    static std::uint32_t materialTextureFeatures(const Material& material, const MeshGeometry& mesh, const View& view);
    void useProgram(const SurfaceProgram& program);
    /** The depth mask of a blended draw: on for Material::blendWritesDepth (glDepthMask only
     *  when it changes within drawBlended / drawPopulations). */
    void setBlendDepthWrite(bool writes);
    static void setFaceCulling(const DrawItem& item, std::uint32_t features, const ViewPass& pass);
    void useForView(SurfaceProgram& chosen, const ViewPass& pass, const Scene& scene);
    void setMaterial(const SurfaceProgram& chosen, const Material& material, const MeshGeometry& mesh);
    /** The material's metallic-roughness factors and emission (non-table draws). */
    static void setShadingUniforms(const SurfaceProgram& chosen, const Material& material);
    static void bindMaterialTextures(const SurfaceProgram& chosen, const MaterialTextures& textures);
    static void setUniformLanes(const SurfaceProgram& chosen, const std::array<glm::vec4, 4>& lanes);
    void bindAnimation(const SurfaceProgram& chosen, const InstancedMeshNode& batchNode);
    void draw(const DrawItem& item, const ViewPass& pass, const Scene& scene);
    void drawTableGroups(std::size_t passIndex, const ViewPass& pass, const Scene& scene);
    void drawPopulation(Population& population, const ViewPass& pass, const Scene& scene);
    /** u_prevModel for @p node: its world matrix as the previous frame drew it (this frame's
     *  the first time), minus the view's previous eye. */
    [[nodiscard]] glm::mat4 previousModel(const MeshNode& node);

    /** Motion vectors: what a view or node was last frame and is this frame, rolled forward on
     *  the first use of each frame (a gap of a frame or more starts again: previous = current). */
    struct ViewHistory {
        glm::mat4 previous{1.0f}, current{1.0f};  ///< camera-relative view-projections
        glm::dvec3 previousEye{0.0}, currentEye{0.0};
        float previousTime = 0.0f, currentTime = 0.0f;  ///< Scene::time (vertex functions)
        std::uint64_t frame = 0;
    };
    struct NodeHistory {
        glm::mat3 previousLinear{1.0f}, currentLinear{1.0f};
        glm::dvec3 previousTranslation{0.0}, currentTranslation{0.0};
        std::uint64_t frame = 0;
    };

    Parts m_parts;
    std::uint64_t m_viewSerial = 0;
    std::size_t m_passIndex = 0;  // beginView()'s: which part of the light list
    std::uint64_t m_frame = 0;                        ///< the draw frame (beginView)
    std::vector<ViewHistory> m_viewHistory;           ///< by position in render()'s list of views
    std::unordered_map<std::uint64_t, NodeHistory> m_nodeHistory;  ///< by SceneNode::id()
    glm::mat4 m_previousViewProjection{1.0f};         ///< the current velocity view's
    glm::dvec3 m_previousEye{0.0};
    float m_time = 0.0f;          ///< Scene::time of the frame (beginView)
    float m_previousTime = 0.0f;  ///< of the previous frame, in a velocity view
    glm::vec2 m_viewportSize{0.0f};
    const SurfaceProgram* m_boundProgram = nullptr;
    bool m_blendDepthWrite = false;  ///< the depth mask the blended draws last set
};

} // namespace myriad::gl::detail
