#include "renderer/LodSelection.h"

#include "renderer/ViewPass.h"
#include "myriad/core/InstancedMeshNode.h"

#include <algorithm>

namespace myriad::gl::detail {

static_assert(std::tuple_size_v<decltype(FrameStats::lodInstances)> == kMaxLodLevels);

const std::shared_ptr<const MeshGeometry>& drawnMesh(const DrawItem& item) {
    if (item.lodLevel == 0 || item.lodLevel == kNoLodLevel) {
        return item.node->primitiveMesh(item.primitive);
    }
    return static_cast<const InstancedMeshNode&>(*item.node).lodChain().levels[item.lodLevel].meshes[item.primitive];
}

bool drawsAnimated(const DrawItem& item) {
    return item.instanced && static_cast<const InstancedMeshNode&>(*item.node).animationSet() != nullptr &&
           drawnMesh(item)->isSkinned();
}

bool drawsSkinned(const DrawItem& item) {
    return drawsAnimated(item) || (item.node->skeleton() != nullptr && drawnMesh(item)->isSkinned());
}

void LodSelection::endFrame() noexcept {
    std::erase_if(m_entries, [&](const auto& entry) {
        return entry.second.alive.expired() || entry.second.lastUsedFrame + kKeepFrames < m_frame;
    });
}

void LodSelection::trim() noexcept {
    std::erase_if(m_entries, [&](const auto& entry) { return entry.second.lastUsedFrame != m_frame; });
}

std::span<VisibleList> LodSelection::split(std::size_t pass, const InstancedMeshNode& batch,
                                           const InstanceSpheres& spheres, std::span<const std::uint32_t> indices,
                                           const ViewCamera& camera) {
    Entry& entry = m_entries[{pass, batch.id()}];
    if (entry.alive.expired()) {
        entry = Entry{};  // a new node (or one whose id outlived it): no level held yet
        entry.alive = batch.lifetime();
        for (VisibleList& list : entry.levels) {
            list.alive = batch.lifetime();
        }
    }
    entry.lastUsedFrame = m_frame;
    const LodChain& chain = batch.lodChain();
    entry.levelCount = chain.levels.size();
    // Rows past what was held start with no level; a row reused after release() keeps the
    // byte of the row that was there, which at worst keeps a level one band too long.
    if (entry.held.size() < batch.count()) {
        entry.held.resize(batch.count(), kNoLodLevel);
    }
    const glm::vec3 originFromEye(batch.worldTranslation() - camera.lodEye);
    selectLodLevels(chain, spheres, indices, batch.worldLinear(), originFromEye, entry.held,
                    std::span(entry.scratch.data(), entry.levelCount), camera.lodProjection);
    for (std::size_t level = 0; level < entry.levelCount; ++level) {
        entry.levels[level].indices.swap(entry.scratch[level]);  // capacities kept: no allocation once warm
        entry.levels[level].lastUsedFrame = m_frame;
    }
    return levels(pass, batch);
}

std::span<VisibleList> LodSelection::levels(std::size_t pass, const InstancedMeshNode& batch) {
    const auto found = m_entries.find({pass, batch.id()});
    if (found == m_entries.end()) {
        return {};
    }
    return std::span(found->second.levels.data(), found->second.levelCount);
}

} // namespace myriad::gl::detail
