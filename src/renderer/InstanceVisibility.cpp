#include "renderer/InstanceVisibility.h"

#include "renderer/GpuResources.h"
#include "renderer/LodSelection.h"
#include "renderer/PhaseTimer.h"
#include "renderer/ViewPass.h"
#include "myriad/core/InstancedMeshNode.h"

#include <glm/geometric.hpp>
#include <glm/matrix.hpp>

#include <algorithm>
#include <bit>
#include <string>

namespace myriad::gl::detail {

InstanceVisibility::InstanceVisibility(const GlLimits& limits)
    : m_limits(limits), m_lod(std::make_unique<LodSelection>()) {}

InstanceVisibility::~InstanceVisibility() = default;

bool InstanceVisibility::wants(const InstancedMeshNode& batch, bool blended) noexcept {
    const myriad::InstanceVisibility& v = batch.visibility();
    return v.culling == InstanceCulling::Cpu || (blended && v.sortBackToFront) || batch.hasLodChain();
}

void InstanceVisibility::beginFrame() noexcept {
    ++m_frame;
    m_lod->beginFrame();
}

std::span<VisibleList> InstanceVisibility::lodLevels(std::size_t pass, const InstancedMeshNode& batch) {
    return batch.hasLodChain() ? m_lod->levels(pass, batch) : std::span<VisibleList>{};
}

void InstanceVisibility::endFrame() noexcept {
    auto stale = [&](const auto& entry) {
        return entry.second.alive.expired() || entry.second.lastUsedFrame + kKeepFrames < m_frame;
    };
    std::erase_if(m_lists, stale);
    std::erase_if(m_spheres, stale);
    m_lod->endFrame();
}

void InstanceVisibility::trim() noexcept {
    auto unused = [&](const auto& entry) { return entry.second.lastUsedFrame != m_frame; };
    std::erase_if(m_lists, unused);
    std::erase_if(m_spheres, unused);
    m_lod->trim();
}

bool InstanceVisibility::select(std::size_t pass, const InstancedMeshNode& batch, bool blended,
                                const FrustumPlanes& planes, const ViewCamera& camera, const glm::vec3& depthAxis,
                                DrawItem& item, FrameStats& stats, std::span<const std::uint8_t> leaveOut,
                                OcclusionBuffer* occlusion) {
    SpheresEntry& spheres = m_spheres[batch.id()];
    if (spheres.alive.expired()) {
        spheres = SpheresEntry{};  // a new node (or one whose id outlived it): start clean
        spheres.alive = batch.lifetime();
    }
    spheres.lastUsedFrame = m_frame;
    if (spheres.updatedFrame != m_frame) {  // once per frame, however many views
        spheres.spheres.update(batch);
        spheres.updatedFrame = m_frame;
    }
    VisibleList& list = m_lists[{pass, batch.id()}];
    if (list.alive.expired()) {
        list = VisibleList{};
        list.alive = batch.lifetime();
    }
    list.lastUsedFrame = m_frame;
    list.indices.clear();
    const IndexRange drawn = batch.drawnInstances();
    if (batch.visibility().culling != InstanceCulling::Off) {  // Gpu here: sorted, so culled on the CPU
        const FrustumPlanes nodePlanes =
            nodeSpacePlanes(planes, batch.worldLinear(), batch.worldTranslation(), camera.eye);
        const std::size_t tested = cullInstanceSpheres(spheres.spheres, drawn, nodePlanes, list.indices);
        stats.instancesTested += tested;
        stats.instancesFrustumCulled += tested - list.indices.size();
        if (occlusion != nullptr && !list.indices.empty()) {
            // The same node-space spheres, taken to camera-relative space: a sphere of radius r
            // becomes an ellipsoid whose world box has half extent r |row i of L| on axis i.
            const PhaseTimer timer(stats.occlusionMs);
            const glm::mat3 linear = batch.worldLinear();
            const glm::vec3 offset(batch.worldTranslation() - camera.eye);
            const glm::vec3 rowLength(glm::length(glm::vec3(linear[0][0], linear[1][0], linear[2][0])),
                                      glm::length(glm::vec3(linear[0][1], linear[1][1], linear[2][1])),
                                      glm::length(glm::vec3(linear[0][2], linear[1][2], linear[2][2])));
            const InstanceSpheres& s = spheres.spheres;
            const std::size_t before = list.indices.size();
            std::erase_if(list.indices, [&](std::uint32_t i) {
                const glm::vec3 centre = linear * glm::vec3(s.x()[i], s.y()[i], s.z()[i]) + offset;
                return occlusion->boxOccluded(centre, s.radius()[i] * rowLength);
            });
            stats.instancesOcclusionCulled += before - list.indices.size();
        }
    } else {
        for (std::size_t i = drawn.begin; i < drawn.end; ++i) {
            list.indices.push_back(static_cast<std::uint32_t>(i));
        }
    }
    if (!leaveOut.empty()) {  // shadows: instances masked out of the shadow map
        std::erase_if(list.indices, [&](std::uint32_t index) { return leaveOut[index] != 0; });
    }
    if (blended && batch.visibility().sortBackToFront) {
        sortBackToFront(spheres.spheres, glm::transpose(batch.worldLinear()) * depthAxis, list.indices, m_sortScratch);
    }
    item.visible = &list;
    item.firstInstance = 0;
    item.instanceCount = static_cast<std::uint32_t>(list.indices.size());
    if (batch.hasLodChain()) {  // per-instance LOD: the list, culled and sorted, split by level
        std::size_t selected = 0;
        for (const VisibleList& level : m_lod->split(pass, batch, spheres.spheres, list.indices, camera)) {
            selected += level.indices.size();
        }
        return selected != 0;
    }
    return !list.indices.empty();
}

void InstanceVisibility::bind(VisibleList& list, const InstancedMeshNode& batch, BatchGpu& gpu, FrameStats& stats) {
    if (list.capacity < list.indices.size()) {
        // Never past GL_MAX_TEXTURE_BUFFER_SIZE texels for a list that fits (the renderer
        // refuses longer ones before drawing).
        const std::size_t capacity =
            grownCapacity(list.indices.size(), static_cast<std::size_t>(m_limits.maxTextureBufferTexels));
        list.buffer = Buffer({.sizeBytes = capacity * sizeof(std::uint32_t), .usage = BufferUsage::Dynamic,
                              .label = labelFor(batch, "InstancedMeshNode.visible-instances")});
        list.texture = TextureHandle(GL_TEXTURE_BUFFER);
        glTextureBuffer(list.texture.id(), GL_R32UI, list.buffer.id());
        setLabel(GL_TEXTURE, list.texture.id(), labelFor(batch, "InstancedMeshNode.visible-instances-texture"));
        list.capacity = capacity;
        list.uploaded.clear();
        list.uploaded.push_back(~0u);  // never equal to a list: forces the upload below
    }
    // No upload when the visible set (and its order) did not change: a still camera over still
    // instances sends nothing.
    if (list.indices != list.uploaded) {
        list.buffer.update(0, std::as_bytes(std::span(list.indices)));
        list.uploaded = list.indices;  // capacity kept: no allocation once warm
        stats.bytesUploaded += list.indices.size() * sizeof(std::uint32_t);
    }
    bindRecordTexture(gpu, kIndexedRecordUnit);
    glBindTextureUnit(kVisibleIndexUnit, list.texture.id());
}

} // namespace myriad::gl::detail
