#include "renderer/ViewPass.h"

#include "renderer/GpuCulling.h"
#include "renderer/InstanceVisibility.h"

#include "myriad/core/Camera.h"
#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Particles.h"
#include "myriad/core/Scene.h"

#include <glm/geometric.hpp>
#include <glm/ext/matrix_double4x4.hpp>
#include <glm/mat3x3.hpp>

#include <algorithm>

namespace myriad::gl::detail {

Frustum::Frustum(const glm::mat4& m, ClipDepth clipDepth) {
    const glm::vec4 row0(m[0][0], m[1][0], m[2][0], m[3][0]);
    const glm::vec4 row1(m[0][1], m[1][1], m[2][1], m[3][1]);
    const glm::vec4 row2(m[0][2], m[1][2], m[2][2], m[3][2]);
    const glm::vec4 row3(m[0][3], m[1][3], m[2][3], m[3][3]);
    planes[0] = row3 + row0;
    planes[1] = row3 - row0;
    planes[2] = row3 + row1;
    planes[3] = row3 - row1;
    planes[4] = clipDepth == ClipDepth::ZeroToOne ? row2 : row3 + row2;
    planes[5] = row3 - row2;
    for (glm::vec4& plane : planes) {
        const float length = glm::length(glm::vec3(plane));
        plane = length > 0.0f ? plane / length : plane;
    }
}

bool Frustum::intersectsSphere(const glm::vec3& centre, float radius) const noexcept {
    for (const glm::vec4& plane : planes) {
        if (glm::dot(glm::vec3(plane), centre) + plane.w < -radius) {
            return false;
        }
    }
    return true;
}

glm::mat3 viewRotation(const View& view) {
    return view.camera != nullptr ? glm::mat3(view.camera->viewRotation()) : glm::mat3(view.viewMatrix);
}

ViewCamera resolveCamera(const View& view) {
    ViewCamera camera;
    if (view.camera != nullptr) {
        camera.eye = view.camera->positionDouble();
        camera.lodEye = camera.eye;
        camera.viewProjection = view.camera->projection() * view.camera->viewRotation();
        camera.layerMask = view.camera->layerMask() & view.layerMask;
        return camera;
    }
    // Raw matrices: view = [R | t] with the eye at -R^T t. Drawing subtracts the eye in double,
    // so the matrix applied to (world - eye) is the rotation alone.
    const glm::dmat4 viewMatrix(view.viewMatrix);
    const glm::dmat3 rotation(viewMatrix);
    camera.eye = -(glm::transpose(rotation) * glm::dvec3(viewMatrix[3]));
    camera.lodEye = camera.eye;
    glm::mat4 rotationOnly(glm::mat3(view.viewMatrix));
    camera.viewProjection = view.projectionMatrix * rotationOnly;
    camera.layerMask = view.layerMask;
    return camera;
}

void ViewPass::build(const Scene& scene, const View& view, FrameStats& stats) {
    m_view = &view;
    m_camera = m_shadowCamera != nullptr ? *m_shadowCamera : resolveCamera(view);
    m_opaque.clear();
    m_blended.clear();
    // View depth grows along -(row 2 of the view rotation), for per-instance sorting.
    const glm::mat3 rotation = viewRotation(view);
    m_depthAxis = -glm::vec3(rotation[0][2], rotation[1][2], rotation[2][2]);
    m_particleNodes.clear();
    m_blendedParticles.clear();
    collect(scene.root(), Frustum(m_camera.viewProjection, view.clipDepth), stats);
    std::stable_sort(m_blended.begin(), m_blended.end(),
                     [](const DrawItem& a, const DrawItem& b) { return a.distance > b.distance; });
    std::stable_sort(m_blendedParticles.begin(), m_blendedParticles.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
}

void ViewPass::collect(const SceneNode& node, const Frustum& frustum, FrameStats& stats) {
    if (!node.visible()) {
        return;
    }
    if (node.kind() == NodeKind::Particles || node.kind() == NodeKind::Scatter || node.kind() == NodeKind::GpuParticles) {
        // particles and scatter: not MeshNodes; ParticlePass draws them (GPU systems: GpuParticlePass)
        if ((node.layerMask() & m_camera.layerMask) != 0 && m_shadowCamera == nullptr) {
            const Aabb* box = node.kind() == NodeKind::Particles ? static_cast<const ParticlePool&>(node).drawBounds() : nullptr;
            if (box == nullptr) {
                m_particleNodes.push_back(&node);  // drawn after the blended meshes
            } else {
                const glm::vec3 centre(glm::dvec3(box->centre()) - m_camera.eye);
                if (!frustum.intersectsSphere(centre, glm::length(box->halfExtent()))) {
                    ++stats.culledNodes;
                } else {
                    m_particleNodes.push_back(&node);  // uploaded with the others, drawn among the blended
                    m_blendedParticles.emplace_back(static_cast<const ParticlePool*>(&node), glm::length(centre));
                }
            }
        }
    } else if (const MeshNode* asMesh = asMeshNode(node); asMesh != nullptr && (node.layerMask() & m_camera.layerMask) != 0 &&
               (m_shadowCamera == nullptr || node.castsShadow())) {
        const MeshNode& meshNode = *asMesh;
        DrawItem item{.node = &meshNode, .instanced = node.kind() == NodeKind::InstancedMesh};
        if (item.instanced) {
            const IndexRange drawn = static_cast<const InstancedMeshNode&>(node).drawnInstances();
            item.firstInstance = static_cast<std::uint32_t>(drawn.begin);
            item.instanceCount = static_cast<std::uint32_t>(drawn.end - drawn.begin);
        }
        if (item.instanceCount > 0) {
            // Per-instance selection sorts when the batch blends (its first primitive decides;
            // the list is shared by every primitive of the batch).
            const bool blendedBatch = meshNode.drawsTransparent();
            // Shadows: a batch with instances masked out of the shadow map draws into it through
            // a visible-index list without them.
            const bool shadowMasked = m_shadowCamera != nullptr && item.instanced &&
                                      static_cast<const InstancedMeshNode&>(node).shadowMaskedCount() > 0;
            // The whole batch is one sphere around every instance and primitive (never the
            // mesh's own sphere at the node origin), tested camera-relative in float.
            const glm::vec3 centre(meshNode.worldBoundsCentre() - m_camera.eye);
            // Culled on the GPU later in the frame (LOD chain included): never on the CPU too.
            // A shadow view of a batch with masked instances takes the CPU list, which leaves them out.
            const bool onGpu = item.instanced && !shadowMasked && m_gpuCulling != nullptr &&
                               GpuCulling::wants(static_cast<const InstancedMeshNode&>(node), blendedBatch);
            if (meshNode.frustumCulled() && !frustum.intersectsSphere(centre, meshNode.worldBoundsRadius())) {
                ++stats.culledNodes;
            } else if (item.instanced && !onGpu && m_instanceVisibility != nullptr &&
                       (InstanceVisibility::wants(static_cast<const InstancedMeshNode&>(node), blendedBatch) || shadowMasked) &&
                       !m_instanceVisibility->select(m_index, static_cast<const InstancedMeshNode&>(node), blendedBatch,
                                                     std::to_array(frustum.planes), m_camera, m_depthAxis, item, stats,
                                                     shadowMasked ? static_cast<const InstancedMeshNode&>(node).shadowMask()
                                                                  : std::span<const std::uint8_t>{})) {
                ++stats.culledNodes;  // every instance culled (or masked out of the shadow map)
            } else {
                std::size_t gpuLevels = 0;
                if (onGpu) {
                    // Culled on the GPU later in the frame: always queued, drawn indirect.
                    const auto& batch = static_cast<const InstancedMeshNode&>(node);
                    // Occlusion culling in two phases: an ordinary view with a depth texture to
                    // build the pyramid from, a batch without a LOD chain whose primitives are
                    // all opaque (phase 2 draws right after the opaque draws).
                    bool occlusion = m_shadowCamera == nullptr && m_view->occlusionCulling && m_view->depthTexture != 0 &&
                                     !batch.hasLodChain();
                    for (std::size_t p = 0; occlusion && p < meshNode.primitiveCount(); ++p) {
                        occlusion = !meshNode.primitiveDrawsTransparent(p);
                    }
                    m_gpuCulling->select(m_index, batch, std::to_array(frustum.planes), m_camera, item, stats, occlusion);
                    gpuLevels = batch.hasLodChain() ? batch.lodChain().levels.size() : 0;
                }
                item.distance = glm::length(centre);
                // Per-instance LOD (one primitive): one item per non-empty level, its own list.
                const std::span<VisibleList> levels =
                    item.visible != nullptr ? m_instanceVisibility->lodLevels(m_index, static_cast<const InstancedMeshNode&>(node))
                                            : std::span<VisibleList>{};
                for (std::size_t level = 0; level < levels.size(); ++level) {
                    if (!levels[level].indices.empty() && !(blendedBatch && m_view->depthOnly)) {
                        DrawItem levelItem = item;
                        levelItem.visible = &levels[level];
                        levelItem.instanceCount = static_cast<std::uint32_t>(levels[level].indices.size());
                        levelItem.lodLevel = static_cast<std::uint8_t>(level);
                        (blendedBatch ? m_blended : m_opaque).push_back(levelItem);
                    }
                }
                // LOD on the GPU: one item per level slot, every level (the counts stay on the
                // GPU; an empty level draws nothing). Only level 0's counts the tested
                // instances, so FrameStats::instances stays the one upper bound.
                for (std::size_t level = 0; level < gpuLevels && !(blendedBatch && m_view->depthOnly); ++level) {
                    DrawItem levelItem = item;
                    levelItem.lodLevel = static_cast<std::uint8_t>(level);
                    levelItem.firstInstance = GpuCulling::levelSlotFirst(*item.gpuCulled, level);
                    levelItem.instanceCount = level == 0 ? item.instanceCount : 0;
                    (blendedBatch ? m_blended : m_opaque).push_back(levelItem);
                }
                for (std::size_t p = 0; levels.empty() && gpuLevels == 0 && p < meshNode.primitiveCount(); ++p) {
                    item.primitive = static_cast<std::uint32_t>(p);
                    const bool blended = meshNode.primitiveDrawsTransparent(p);
                    // Depth-only views skip blended primitives: they write no depth.
                    if (!(blended && m_view->depthOnly)) {
                        (blended ? m_blended : m_opaque).push_back(item);
                    }
                }
            }
        }
    }
    for (const auto& child : node.childrenView()) {
        collect(*child, frustum, stats);
    }
}

} // namespace myriad::gl::detail
