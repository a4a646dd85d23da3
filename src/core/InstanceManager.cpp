#include "myriad/core/InstanceManager.h"

#include "core/Validate.h"

#include "myriad/util/Error.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace myriad {
namespace {

constexpr std::uint32_t kNoSlot = UINT32_MAX;

/** floor(value / cell) as an integer, clamped so a huge value cannot overflow the cast (a NaN
 *  or Inf transform is refused later by the batch; any cell will do until then). */
std::int64_t cellCoordinate(float value, float cell) noexcept {
    const double scaled = std::floor(static_cast<double>(value) / static_cast<double>(cell));
    if (!(scaled > -9.0e18 && scaled < 9.0e18)) {
        return 0;
    }
    return static_cast<std::int64_t>(scaled);
}

} // namespace

std::size_t InstanceManager::CellHash::operator()(const CellKey& key) const noexcept {
    // Teschner et al., "Optimized Spatial Hashing for Collision Detection of Deformable Objects"
    // (2003): three large primes, xor-ed.
    return static_cast<std::size_t>((static_cast<std::uint64_t>(key.x) * 73856093u) ^
                                    (static_cast<std::uint64_t>(key.y) * 19349663u) ^
                                    (static_cast<std::uint64_t>(key.z) * 83492791u));
}

InstanceManager::InstanceManager(std::shared_ptr<const MeshGeometry> mesh, Material material,
                                 const InstanceManagerOptions& options, std::string name)
    : SceneNode(std::move(name)), m_mesh(std::move(mesh)), m_material(std::move(material)), m_options(options) {
    if (!m_mesh) {
        throw InvalidArgument("InstanceManager: mesh is null");
    }
    if (options.instancesPerBatch == 0 || options.instancesPerBatch > InstancedMeshNode::maxCapacity) {
        throw InvalidArgument("InstanceManager: instancesPerBatch " + std::to_string(options.instancesPerBatch) +
                              " is not in 1.." + std::to_string(InstancedMeshNode::maxCapacity));
    }
    if (!std::isfinite(options.cellSize) || options.cellSize < 0.0f) {
        throw InvalidArgument("InstanceManager: cellSize must be finite and >= 0");
    }
    if (options.laneCount > InstancedMeshNode::maxLaneCount) {
        throw InvalidArgument("InstanceManager: laneCount " + std::to_string(options.laneCount) + " is not in 0.." +
                              std::to_string(InstancedMeshNode::maxLaneCount));
    }
}

InstanceManager::CellKey InstanceManager::cellOf(const glm::mat4& transform) const noexcept {
    if (m_options.cellSize == 0.0f) {
        return {};
    }
    const float cell = m_options.cellSize;
    return {cellCoordinate(transform[3].x, cell), cellCoordinate(transform[3].y, cell),
            cellCoordinate(transform[3].z, cell)};
}

const InstanceManager::Slot& InstanceManager::liveSlot(ManagedInstance instance, const char* function) const {
    if (!isLive(instance)) {
        throw InvalidArgument(std::string(function) + ": the instance (slot " + std::to_string(instance.slot) +
                              ", generation " + std::to_string(instance.generation) + ") is " +
                              (instance.generation == 0 ? "null" : "released, stale or from another manager") +
                              " in '" + name() + "'");
    }
    return m_slots[instance.slot];
}

bool InstanceManager::isLive(ManagedInstance instance) const noexcept {
    return instance.generation != 0 && instance.slot < m_slots.size() && m_slots[instance.slot].live &&
           m_slots[instance.slot].generation == instance.generation;
}

std::pair<std::uint32_t, InstanceHandle> InstanceManager::place(const CellKey& cell, const InstanceDesc& desc) {
    Cell& entry = m_cells[cell];
    if (!entry.withRoom.empty()) {
        const std::uint32_t index = entry.withRoom.back();
        InstancedMeshNode& node = *m_batches[index].node;
        const InstanceHandle handle = node.acquire(desc);  // throws before anything changed
        if (node.count() == node.capacity()) {
            entry.withRoom.pop_back();
        }
        return {index, handle};
    }
    // Every step that can throw comes before the first change to the manager.
    if (m_batches.size() >= UINT32_MAX) {
        throw CapacityError("InstanceManager::acquire: '" + name() + "' has too many batches");
    }
    detail::reserveOneMore(m_batches);
    detail::reserveOneMore(entry.batches);
    if (entry.withRoom.capacity() < entry.batches.size() + 1) {
        entry.withRoom.reserve(entry.batches.capacity());  // release() then never allocates
    }
    auto node = std::make_unique<InstancedMeshNode>(
        m_mesh, m_material, m_options.instancesPerBatch, name() + "/" + std::to_string(m_batchesMade),
        InstancedMeshOptions{.growth = Growth::Fixed, .uploadMode = m_options.uploadMode, .laneCount = m_options.laneCount});
    const InstanceHandle handle = node->acquire(desc);
    InstancedMeshNode& added = add(std::move(node));  // may throw: the new batch is then gone
    const auto index = static_cast<std::uint32_t>(m_batches.size());
    m_batches.push_back({&added, cell});
    entry.batches.push_back(index);
    if (added.count() < added.capacity()) {
        entry.withRoom.push_back(index);
    }
    ++m_batchesMade;
    return {index, handle};
}

ManagedInstance InstanceManager::acquire(const InstanceDesc& desc) {
    if (m_freeSlot == kNoSlot) {
        if (m_slots.size() >= kNoSlot) {
            throw CapacityError("InstanceManager::acquire: '" + name() + "' has 2^32 - 1 handles in use");
        }
        detail::reserveOneMore(m_slots);
    }
    const auto [batchIndex, handle] = place(cellOf(desc.transform), desc);
    std::uint32_t slotIndex = m_freeSlot;
    if (slotIndex != kNoSlot) {
        m_freeSlot = m_slots[slotIndex].batch;
    } else {
        slotIndex = static_cast<std::uint32_t>(m_slots.size());
        m_slots.emplace_back();
    }
    Slot& slot = m_slots[slotIndex];
    slot.batch = batchIndex;
    slot.handle = handle;
    slot.live = true;
    ++m_live;
    return {slotIndex, slot.generation};
}

void InstanceManager::releaseFrom(std::uint32_t batchIndex, InstanceHandle handle) {
    Batch& batch = m_batches[batchIndex];
    const bool wasFull = batch.node->count() == batch.node->capacity();
    batch.node->release(handle);
    if (wasFull) {
        m_cells[batch.cell].withRoom.push_back(batchIndex);  // reserved when the batch was made
    }
}

void InstanceManager::release(ManagedInstance instance) {
    const Slot& live = liveSlot(instance, "InstanceManager::release");
    releaseFrom(live.batch, live.handle);
    Slot& slot = m_slots[instance.slot];
    slot.live = false;
    slot.handle = {};
    ++slot.generation;
    if (slot.generation == 0) {
        slot.generation = 1;  // 0 is the null handle
    }
    slot.batch = m_freeSlot;
    m_freeSlot = instance.slot;
    --m_live;
}

void InstanceManager::copyInstanceData(const InstancedMeshNode& from, InstanceHandle fromHandle,
                                       InstancedMeshNode& to, InstanceHandle toHandle) {
    const std::size_t fromIndex = from.indexOf(fromHandle);
    if (from.hasLanes()) {
        for (std::size_t lane = 0; lane < from.laneCount(); ++lane) {
            to.setLane(toHandle, lane, from.lane(fromIndex, lane));
        }
    }
    if (from.hasInstanceMorphWeights()) {
        const std::span<const float> weights = from.morphWeightsOf(fromIndex);
        if (!weights.empty() && weights[0] != InstancedMeshNode::kUseNodeMorphWeights) {
            to.setMorphWeights(to.indexOf(toHandle), weights.first(std::min(weights.size(), m_mesh->morphTargetCount())));
        }
    }
    if (!from.castsShadow(fromIndex)) {
        to.setCastsShadow(toHandle, false);
    }
}

void InstanceManager::setTransform(ManagedInstance instance, const glm::mat4& transform) {
    const Slot& slot = liveSlot(instance, "InstanceManager::setTransform");
    const std::uint32_t fromIndex = slot.batch;
    const CellKey cell = cellOf(transform);
    if (cell == m_batches[fromIndex].cell) {
        InstancedMeshNode& node = *m_batches[fromIndex].node;
        node.setTransform(node.indexOf(slot.handle), transform);
        return;
    }
    // Another cell: into a batch of it (which validates the transform), with what the instance
    // carries; then out of the old batch. A failure on the way takes the new copy back out.
    const InstanceHandle fromHandle = slot.handle;
    const glm::vec4 color = m_batches[fromIndex].node->readColor(m_batches[fromIndex].node->indexOf(fromHandle));
    const auto [toIndex, toHandle] = place(cell, InstanceDesc{.transform = transform, .color = color});
    try {
        copyInstanceData(*m_batches[fromIndex].node, fromHandle, *m_batches[toIndex].node, toHandle);
    } catch (...) {
        releaseFrom(toIndex, toHandle);
        throw;
    }
    releaseFrom(fromIndex, fromHandle);
    Slot& moved = m_slots[instance.slot];
    moved.batch = toIndex;
    moved.handle = toHandle;
}

void InstanceManager::setColor(ManagedInstance instance, const glm::vec4& color) {
    const Slot& slot = liveSlot(instance, "InstanceManager::setColor");
    InstancedMeshNode& node = *m_batches[slot.batch].node;
    node.setColor(node.indexOf(slot.handle), color);
}

void InstanceManager::setLane(ManagedInstance instance, std::size_t lane, const glm::vec4& value) {
    const Slot& slot = liveSlot(instance, "InstanceManager::setLane");
    m_batches[slot.batch].node->setLane(slot.handle, lane, value);
}

glm::mat4 InstanceManager::readTransform(ManagedInstance instance) const {
    const Slot& slot = liveSlot(instance, "InstanceManager::readTransform");
    const InstancedMeshNode& node = *m_batches[slot.batch].node;
    return node.readTransform(node.indexOf(slot.handle));
}

glm::vec4 InstanceManager::readColor(ManagedInstance instance) const {
    const Slot& slot = liveSlot(instance, "InstanceManager::readColor");
    const InstancedMeshNode& node = *m_batches[slot.batch].node;
    return node.readColor(node.indexOf(slot.handle));
}

InstancedMeshNode& InstanceManager::batchOf(ManagedInstance instance) const {
    return *m_batches[liveSlot(instance, "InstanceManager::batchOf").batch].node;
}

InstanceHandle InstanceManager::handleIn(ManagedInstance instance) const {
    return liveSlot(instance, "InstanceManager::handleIn").handle;
}

InstancedMeshNode& InstanceManager::batch(std::size_t index) const {
    if (index >= m_batches.size()) {
        throw OutOfRange("InstanceManager::batch: index " + std::to_string(index) + " >= batchCount " +
                         std::to_string(m_batches.size()));
    }
    return *m_batches[index].node;
}

void InstanceManager::defragment() {
    // The live slots of each batch, so a moved record's slot is found without a search.
    std::vector<std::vector<std::uint32_t>> slotsOf(m_batches.size());
    for (std::uint32_t s = 0; s < m_slots.size(); ++s) {
        if (m_slots[s].live) {
            slotsOf[m_slots[s].batch].push_back(s);
        }
    }
    for (auto& [key, cell] : m_cells) {
        // Fullest first: the emptiest batches (at the back) give their records to the fullest
        // ones with room (at the front), so the fewest records move.
        std::vector<std::uint32_t> order = cell.batches;
        std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
            return m_batches[a].node->count() > m_batches[b].node->count();
        });
        std::size_t receiver = 0;
        std::size_t donor = order.size();
        while (donor > 0 && receiver < donor - 1) {
            InstancedMeshNode& to = *m_batches[order[receiver]].node;
            if (to.count() == to.capacity()) {
                ++receiver;
                continue;
            }
            const std::uint32_t fromIndex = order[donor - 1];
            InstancedMeshNode& from = *m_batches[fromIndex].node;
            std::vector<std::uint32_t>& donorSlots = slotsOf[fromIndex];
            if (donorSlots.empty()) {
                --donor;
                continue;
            }
            const std::uint32_t s = donorSlots.back();
            const InstanceHandle fromHandle = m_slots[s].handle;
            const std::size_t index = from.indexOf(fromHandle);
            const InstanceHandle toHandle =
                to.acquire(InstanceDesc{.transform = from.readTransform(index), .color = from.readColor(index)});
            copyInstanceData(from, fromHandle, to, toHandle);
            from.release(fromHandle);
            m_slots[s].batch = order[receiver];
            m_slots[s].handle = toHandle;
            slotsOf[order[receiver]].push_back(s);
            donorSlots.pop_back();
        }
    }
    // Empty batches go: the last batch takes each one's index (its slots follow it).
    for (std::uint32_t index = static_cast<std::uint32_t>(m_batches.size()); index-- > 0;) {
        if (m_batches[index].node->count() != 0) {
            continue;
        }
        const auto last = static_cast<std::uint32_t>(m_batches.size() - 1);
        (void)remove(*m_batches[index].node);  // destroys the batch (a child of this node)
        if (index != last) {
            m_batches[index] = m_batches[last];
            for (const std::uint32_t s : slotsOf[last]) {
                m_slots[s].batch = index;
            }
            slotsOf[index] = std::move(slotsOf[last]);
        }
        m_batches.pop_back();
        slotsOf.pop_back();
    }
    // Each cell's lists again (they only shrank: no allocation).
    for (auto& [key, cell] : m_cells) {
        cell.batches.clear();
        cell.withRoom.clear();
    }
    for (std::uint32_t index = 0; index < m_batches.size(); ++index) {
        Cell& cell = m_cells[m_batches[index].cell];
        cell.batches.push_back(index);
        const InstancedMeshNode& node = *m_batches[index].node;
        if (node.count() < node.capacity()) {
            cell.withRoom.push_back(index);
        }
    }
    std::erase_if(m_cells, [](const auto& entry) { return entry.second.batches.empty(); });
}

} // namespace myriad
