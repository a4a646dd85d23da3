#include "renderer/ViewPass.h"

#include "renderer/GpuCulling.h"
#include "renderer/InstanceVisibility.h"
#include "renderer/PhaseTimer.h"

#include "myriad/core/Camera.h"
#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Particles.h"
#include "myriad/core/Scene.h"

#include <glm/geometric.hpp>
#include <glm/matrix.hpp>
#include <glm/ext/matrix_double4x4.hpp>
#include <glm/mat3x3.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

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
        camera.lodProjection = LodProjection::of(view.camera->projection(), static_cast<float>(view.viewport.height));
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
    camera.lodProjection = LodProjection::of(view.projectionMatrix, static_cast<float>(view.viewport.height));
    glm::mat4 rotationOnly(glm::mat3(view.viewMatrix));
    camera.viewProjection = view.projectionMatrix * rotationOnly;
    camera.layerMask = view.layerMask;
    return camera;
}

std::uint32_t ViewPass::casterCullFace(std::uint32_t colourCull, const SceneNode& node) const noexcept {
    constexpr std::uint32_t kBack = 0x0405;   // GL_BACK
    constexpr std::uint32_t kFront = 0x0404;  // GL_FRONT
    if (m_shadowCamera == nullptr || colourCull == 0) {
        return colourCull;
    }
    if (m_casterFaces == CasterFaces::Both || node.castsShadowFromEveryFace()) {
        return 0;
    }
    if (m_casterFaces == CasterFaces::Back) {
        return colourCull == kBack ? kFront : kBack;
    }
    return colourCull;
}

void ViewPass::build(const Scene& scene, const View& view, FrameStats& stats) {
    m_view = &view;
    m_camera = m_shadowCamera != nullptr ? *m_shadowCamera : resolveCamera(view);
    // Fog colours what a view shows; depth-only views (shadow maps among them) have none.
    m_fog = view.depthOnly || m_shadowCamera != nullptr ? Fog{} : scene.fog;
    m_opaque.clear();
    m_blended.clear();
    // View depth grows along -(row 2 of the view rotation), for per-instance sorting.
    const glm::mat3 rotation = viewRotation(view);
    m_depthAxis = -glm::vec3(rotation[0][2], rotation[1][2], rotation[2][2]);
    m_particleNodes.clear();
    m_blendedParticles.clear();
    const Frustum frustum(m_camera.viewProjection, view.clipDepth);
    m_occlusionActive = view.occlusionCulling && m_shadowCamera == nullptr;
    if (m_occlusionActive) {
        const PhaseTimer timer(stats.occlusionMs);
        buildOcclusion(scene, frustum, stats);
    }
    collect(scene.root(), frustum, stats);
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
               (m_shadowCamera == nullptr ? node.shadowCasting() != ShadowCasting::ShadowsOnly
                                          : node.castsShadow() &&
                                                (m_casterSet == CasterSet::All ||
                                                 node.shadowIsStatic() == (m_casterSet == CasterSet::StaticOnly)))) {
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
            const std::uint64_t occludedBefore = stats.instancesOcclusionCulled;
            if (meshNode.frustumCulled() && !frustum.intersectsSphere(centre, meshNode.worldBoundsRadius())) {
                ++stats.culledNodes;
                stats.instancesFrustumCulled += item.instanceCount;
            } else if (m_occlusionActive && meshNode.frustumCulled() && [&] {
                           const PhaseTimer timer(stats.occlusionMs);
                           return m_occlusion.sphereOccluded(centre, meshNode.worldBoundsRadius());
                       }()) {
                ++stats.nodesOcclusionCulled;  // hidden whole: its instances are not tested
                stats.instancesOcclusionCulled += item.instanceCount;
            } else if (item.instanced && !onGpu && m_instanceVisibility != nullptr &&
                       (InstanceVisibility::wants(static_cast<const InstancedMeshNode&>(node), blendedBatch) || shadowMasked) &&
                       !m_instanceVisibility->select(m_index, static_cast<const InstancedMeshNode&>(node), blendedBatch,
                                                     std::to_array(frustum.planes), m_camera, m_depthAxis, item, stats,
                                                     shadowMasked ? static_cast<const InstancedMeshNode&>(node).shadowMask()
                                                                  : std::span<const std::uint8_t>{},
                                                     occlusion())) {
                // Every instance culled (or masked out of the shadow map): by the frustum alone,
                // or with occlusion taking the rest.
                if (stats.instancesOcclusionCulled != occludedBefore) {
                    ++stats.nodesOcclusionCulled;
                } else {
                    ++stats.culledNodes;
                }
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
                // A fading chain's level draws decode fade codes (not in shadow views: one level there).
                item.lodFade = item.instanced && static_cast<const InstancedMeshNode&>(node).hasLodChain() &&
                               static_cast<const InstancedMeshNode&>(node).lodChain().fadeBand > 0.0f &&
                               m_camera.lodProjection.fade;
                // Per-instance LOD: one item per non-empty level and primitive, the level's own
                // list (shared by its primitives), each primitive's level mesh with its material.
                const std::span<VisibleList> levels =
                    item.visible != nullptr ? m_instanceVisibility->lodLevels(m_index, static_cast<const InstancedMeshNode&>(node))
                                            : std::span<VisibleList>{};
                const std::size_t lodPrimitives = levels.empty() && gpuLevels == 0 ? 0 : meshNode.primitiveCount();
                for (std::size_t level = 0; level < levels.size(); ++level) {
                    for (std::size_t p = 0; p < lodPrimitives && !levels[level].indices.empty(); ++p) {
                        const bool blended = lodPrimitives == 1 ? blendedBatch : meshNode.primitiveDrawsTransparent(p);
                        if (!(blended && m_view->depthOnly)) {
                            DrawItem levelItem = item;
                            levelItem.primitive = static_cast<std::uint32_t>(p);
                            levelItem.visible = &levels[level];
                            levelItem.instanceCount = static_cast<std::uint32_t>(levels[level].indices.size());
                            levelItem.lodLevel = static_cast<std::uint8_t>(level);
                            (blended ? m_blended : m_opaque).push_back(levelItem);
                        }
                    }
                }
                // LOD on the GPU: one item per level slot and primitive, every level (the counts
                // stay on the GPU; an empty level draws nothing). Only level 0's count the
                // tested instances, so FrameStats::instances stays the one upper bound per primitive.
                for (std::size_t level = 0; level < gpuLevels; ++level) {
                    for (std::size_t p = 0; p < lodPrimitives; ++p) {
                        const bool blended = lodPrimitives == 1 ? blendedBatch : meshNode.primitiveDrawsTransparent(p);
                        if (!(blended && m_view->depthOnly)) {
                            DrawItem levelItem = item;
                            levelItem.primitive = static_cast<std::uint32_t>(p);
                            levelItem.lodLevel = static_cast<std::uint8_t>(level);
                            levelItem.firstInstance = GpuCulling::levelSlotFirst(*item.gpuCulled, level);
                            levelItem.instanceCount = level == 0 ? item.instanceCount : 0;
                            (blended ? m_blended : m_opaque).push_back(levelItem);
                        }
                    }
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

namespace myriad::gl::detail {
namespace {

/** Occluders whose projected radius is below this many buffer pixels are skipped: they cover
 *  a handful of pixels, few of which a whole test rectangle (grown by a pixel each side) needs. */
constexpr float kMinOccluderPixels = 2.0f;

/** Camera-relative from a batch's node space: the node's linear part and its translation
 *  minus the eye (double until then). */
glm::mat4 relativeFromNode(const MeshNode& node, const glm::dvec3& eye) {
    glm::mat4 m(node.worldLinear());
    m[3] = glm::vec4(glm::vec3(node.worldTranslation() - eye), 1.0f);
    return m;
}

/** An instance's 3x4 record as a mat4 (node space from model space). */
glm::mat4 instanceMatrix(const InstanceRecord& record) {
    return glm::transpose(glm::mat4(record.row0, record.row1, record.row2, glm::vec4(0.0f, 0.0f, 0.0f, 1.0f)));
}

} // namespace

float ViewPass::projectedPixels(const glm::vec3& centre, float radius) const noexcept {
    const glm::mat4& m = m_camera.viewProjection;
    const glm::vec3 row1(m[0][1], m[1][1], m[2][1]);
    const glm::vec4 row3(m[0][3], m[1][3], m[2][3], m[3][3]);
    // The nearest w over the sphere (clip w is affine: its minimum is at the centre's minus
    // the radius times its gradient); w is the view depth for a perspective, 1 for an ortho.
    const float nearestW = glm::dot(glm::vec3(row3), centre) + row3.w - radius * glm::length(glm::vec3(row3));
    if (!(nearestW > 1e-6f)) {
        return std::numeric_limits<float>::infinity();  // reaches the eye: the largest there is
    }
    return radius * glm::length(row1) * 0.5f * static_cast<float>(m_occlusion.height()) / nearestW;
}

std::uint32_t ViewPass::occluderMeshes(const MeshNode& node) {
    m_occluderMeshes.clear();
    if (!node.occluder() || node.drawsTransparent()) {
        return 0;  // blended never occludes
    }
    if (const auto& stand = node.occluderMesh(); stand && node.occluderMeshFits(*stand)) {
        m_occluderMeshes.push_back(stand.get());
        return stand->triangleCount();
    }
    if (node.skeleton() != nullptr) {
        return 0;  // posed on the GPU: its stored triangles are not what is drawn
    }
    if (node.kind() == NodeKind::InstancedMesh && static_cast<const InstancedMeshNode&>(node).hasLodChain()) {
        return 0;  // a far level may cover less than level 0's triangles
    }
    std::uint32_t triangles = 0;
    for (std::size_t p = 0; p < node.primitiveCount(); ++p) {
        const MeshGeometry& mesh = *node.primitiveMesh(p);
        const Material& material = node.primitiveMaterial(p);
        // Alpha-tested and custom surfaces may discard: their triangles have holes.
        if (!node.primitiveDrawsTransparent(p) && material.alphaMode == AlphaMode::Opaque && !material.surface &&
            mesh.morphTargetCount() == 0 && !mesh.isSkinned()) {
            m_occluderMeshes.push_back(&mesh);
            triangles += mesh.triangleCount();
        }
    }
    return triangles;
}

void ViewPass::gatherOccluders(const SceneNode& node, const Frustum& frustum) {
    if (!node.visible()) {
        return;
    }
    if (const MeshNode* mesh = asMeshNode(node); mesh != nullptr && (node.layerMask() & m_camera.layerMask) != 0 &&
                                                 node.shadowCasting() != ShadowCasting::ShadowsOnly) {  // not drawn here
        const std::uint32_t triangles = occluderMeshes(*mesh);
        const glm::vec3 centre(mesh->worldBoundsCentre() - m_camera.eye);
        if (triangles != 0 && frustum.intersectsSphere(centre, mesh->worldBoundsRadius())) {
            if (node.kind() != NodeKind::InstancedMesh) {
                const float pixels = projectedPixels(centre, mesh->worldBoundsRadius());
                if (pixels >= kMinOccluderPixels) {
                    m_occluders.push_back({mesh, ~0u, triangles, pixels});
                }
            } else {
                const auto& batch = static_cast<const InstancedMeshNode&>(node);
                const IndexRange drawn = batch.drawnInstances();
                if (drawn.end - drawn.begin <= m_occlusionSettings.maxOccluderInstances) {
                    // Each instance's sphere as culling makes it, taken to camera-relative space
                    // with a radius bound (the Frobenius norm bounds the linear part's stretch).
                    const glm::mat3 linear = batch.worldLinear();
                    const glm::vec3 offset(batch.worldTranslation() - m_camera.eye);
                    const float stretch = std::sqrt(glm::dot(linear[0], linear[0]) + glm::dot(linear[1], linear[1]) +
                                                    glm::dot(linear[2], linear[2]));
                    const Aabb& box = batch.meshBounds();
                    for (std::size_t i = drawn.begin; i < drawn.end; ++i) {
                        const InstanceRecord& record = batch.record(i);
                        const glm::mat3 instanceLinear = glm::transpose(
                            glm::mat3(glm::vec3(record.row0), glm::vec3(record.row1), glm::vec3(record.row2)));
                        const glm::vec3 nodeCentre =
                            instanceLinear * box.centre() + glm::vec3(record.row0.w, record.row1.w, record.row2.w);
                        const glm::vec3 instanceCentre = linear * nodeCentre + offset;
                        const float radius = box.transformedRadius(instanceLinear) * stretch;
                        if (frustum.intersectsSphere(instanceCentre, radius)) {
                            const float pixels = projectedPixels(instanceCentre, radius);
                            if (pixels >= kMinOccluderPixels) {
                                m_occluders.push_back({mesh, static_cast<std::uint32_t>(i), triangles, pixels});
                            }
                        }
                    }
                }
            }
        }
    }
    for (const auto& child : node.childrenView()) {
        gatherOccluders(*child, frustum);
    }
}

void ViewPass::buildOcclusion(const Scene& scene, const Frustum& frustum, FrameStats& stats) {
    const Viewport& viewport = m_view->viewport;
    const std::uint32_t height = m_occlusionSettings.bufferHeight;
    const double width = std::round(static_cast<double>(height) * viewport.width / viewport.height);
    m_occlusion.reset(static_cast<std::uint32_t>(std::clamp(width, 1.0, 4096.0)), height, m_camera.viewProjection,
                      {.zeroToOne = m_view->clipDepth == ClipDepth::ZeroToOne, .reversed = m_view->reversedDepth});
    m_occluders.clear();
    gatherOccluders(scene.root(), frustum);
    // Largest on screen first (ties in tree order), within the triangle budget.
    std::stable_sort(m_occluders.begin(), m_occluders.end(),
                     [](const OccluderCandidate& a, const OccluderCandidate& b) { return a.pixels > b.pixels; });
    std::uint64_t budget = m_occlusionSettings.triangleBudget;
    for (const OccluderCandidate& candidate : m_occluders) {
        if (candidate.triangles > budget) {
            continue;  // too many for what is left: smaller ones may still fit
        }
        glm::mat4 transform = relativeFromNode(*candidate.node, m_camera.eye);
        if (candidate.instance != ~0u) {
            transform = transform *
                        instanceMatrix(static_cast<const InstancedMeshNode&>(*candidate.node).record(candidate.instance));
        }
        occluderMeshes(*candidate.node);
        for (const MeshGeometry* mesh : m_occluderMeshes) {
            m_occlusion.rasterise(*mesh, transform);
        }
        budget -= candidate.triangles;
        stats.occluderTriangles += candidate.triangles;
    }
}

} // namespace myriad::gl::detail
