#pragma once
// Internal to myriad_gl: the renderer's side of per-instance level of detail (docs/visibility.md,
// "Level of detail"). A batch with InstancedMeshNode::hasLodChain() always draws through
// visible-index lists (InstanceVisibility::wants() says so): InstanceVisibility::select() makes
// the (view pass, batch) list as for culling and sorting, and then LodSelection buckets it, one
// list per level, each drawn with its level's mesh through the kIndexed variant, with the
// batch's one record buffer. Per (view pass, batch) it keeps the level each instance drew last
// frame (one byte per instance) for the hysteresis.
//
// GPU culling (InstanceCulling::Gpu): a LOD batch culled on the GPU does not come here; the cull
// dispatch picks its levels with the same rule (renderer/GpuCulling.h, shaders/cull.comp).
#include "renderer/InstanceVisibility.h"
#include "myriad/core/Lod.h"

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

namespace myriad::gl::detail {

struct DrawItem;

/** The mesh @p item draws: its primitive's, or its LOD level's (levels above 0). */
[[nodiscard]] const std::shared_ptr<const MeshGeometry>& drawnMesh(const DrawItem& item);
/** True when @p item draws skinned (docs/skinning.md): its drawn mesh has a skin and the node
 *  has a skeleton, or is a batch playing an AnimationSet. A skinned mesh on a node with
 *  neither draws its bind pose, unskinned. */
[[nodiscard]] bool drawsSkinned(const DrawItem& item);
/** True when @p item is a batch whose instances play its AnimationSet (drawsSkinned() too). */
[[nodiscard]] bool drawsAnimated(const DrawItem& item);

class LodSelection {
public:
    void beginFrame() noexcept { ++m_frame; }
    /** Frees the state of destroyed batches, and that unused for kKeepFrames frames. */
    void endFrame() noexcept;
    /** Frees everything the last frame did not use. */
    void trim() noexcept;

    /** Buckets @p indices (the batch's list for @p pass, culled and sorted as asked) by level
     *  (selectLodLevels()), keeping each instance's level for the next frame. Counts the
     *  instances selected per level into @p stats only at draw time (Renderer::draw).
     *  @return one list per level of the batch's chain (empty ones included); valid until the
     *  next split() for the same (pass, batch). No GL. */
    std::span<VisibleList> split(std::size_t pass, const InstancedMeshNode& batch, const InstanceSpheres& spheres,
                                 std::span<const std::uint32_t> indices, const ViewCamera& camera);
    /** The lists split() made last for (@p pass, @p batch). */
    [[nodiscard]] std::span<VisibleList> levels(std::size_t pass, const InstancedMeshNode& batch);

private:
    static constexpr std::uint64_t kKeepFrames = 120;
    struct Entry {
        std::vector<std::uint8_t> held;  // per record: the level drawn last frame (kNoLodLevel: none)
        std::array<VisibleList, kMaxLodLevels> levels;
        std::array<std::vector<std::uint32_t>, kMaxLodLevels> scratch;  // swapped with levels' indices
        std::size_t levelCount = 0;
        std::weak_ptr<const void> alive;
        std::uint64_t lastUsedFrame = 0;
    };
    std::uint64_t m_frame = 0;
    std::unordered_map<PassNodeKey, Entry, PassNodeKeyHash> m_entries;
};

} // namespace myriad::gl::detail
