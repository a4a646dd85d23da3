#pragma once
// Internal to myriad_gl: the renderer's side of the per-instance visibility opt-ins (see
// docs/visibility.md). A batch with InstanceCulling::Cpu, or a blended batch with
// sortBackToFront, is drawn through a visible-index list: per (view pass, batch) a uint list of
// the record indices to draw, in draw order. The vertex stage (feature kIndexed) reads it as an
// R32UI buffer texture, myriad_instanceIndex() = list[gl_InstanceID], and reads the record
// stream by that index from an RGBA32F view of the record buffer instead of divisor-1
// attributes, so every stream is read at the instance drawn while records and handles stay
// where they are. Batches that opt into nothing never come here: their draw is unchanged.
#include "gl/Bindings.h"
#include "gl/GlCommon.h"
#include "renderer/GlLimits.h"
#include "myriad/core/InstanceCulling.h"
#include "myriad/core/OcclusionBuffer.h"
#include "myriad/gl/Buffer.h"
#include "myriad/gl/FrameStats.h"

#include <cstdint>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

namespace myriad {
class InstancedMeshNode;
} // namespace myriad

namespace myriad::gl::detail {

struct BatchGpu;
struct DrawItem;
class LodSelection;  // per-instance level of detail (renderer/LodSelection.h)
struct ViewCamera;

// Its texture units, kIndexedRecordUnit and kVisibleIndexUnit, are gl/Bindings.h's.

/** One visible-index list: the CPU list of this frame and its GPU copy. */
struct VisibleList {
    std::vector<std::uint32_t> indices;   ///< this frame's, in draw order
    std::vector<std::uint32_t> uploaded;  ///< what the GPU copy holds
    Buffer buffer;                        ///< capacity * 4 bytes, dynamic
    TextureHandle texture;                ///< R32UI view of buffer
    std::size_t capacity = 0;
    std::weak_ptr<const void> alive;      ///< the batch's lifetime
    std::uint64_t lastUsedFrame = 0;
};

class InstanceVisibility {
public:
    /** @param limits the renderer's (outlives this): a list's buffer texture is never made
     *  longer than GL_MAX_TEXTURE_BUFFER_SIZE (the renderer refuses a longer list in prepare). */
    explicit InstanceVisibility(const GlLimits& limits);
    ~InstanceVisibility();
    InstanceVisibility(const InstanceVisibility&) = delete;
    InstanceVisibility& operator=(const InstanceVisibility&) = delete;

    /** True when @p batch draws through a visible-index list in a pass (culling on, a
     *  blended batch sorted per instance, or a LOD chain). The one place that routes a batch:
     *  ViewPass asks GpuCulling::wants() first: a LOD batch culled on the GPU picks its levels
     *  there (renderer/GpuCulling.h). */
    [[nodiscard]] static bool wants(const InstancedMeshNode& batch, bool blended) noexcept;

    void beginFrame() noexcept;
    /** Frees lists and spheres of destroyed batches, and those unused for kKeepFrames frames. */
    void endFrame() noexcept;
    /** Frees everything the last frame did not use. */
    void trim() noexcept;

    /** Fills the list of (@p pass, @p batch) with the batch's drawn instances that meet
     *  @p planes (camera-relative world space), sorted back to front when asked, and points
     *  @p item at it (first instance 0, instance count the list's size). Records whose byte in
     *  @p leaveOut is non-zero are left out (shadows: InstancedMeshNode::shadowMask() in a
     *  shadow-caster pass; empty: none). No GL.
     *  A batch with a LOD chain: the list is then split by level (lodLevels()), and @p item
     *  is left for the caller to copy once per level.
     *  With @p occlusion (the pass's buffer, View::occlusionCulling) each instance left by the
     *  frustum test of a culled batch is tested against it too (its sphere's world box), and
     *  the hidden ones left out (FrameStats::instancesOcclusionCulled).
     *  @return false when no instance is left (the item is not drawn). */
    bool select(std::size_t pass, const InstancedMeshNode& batch, bool blended, const FrustumPlanes& planes,
                const ViewCamera& camera, const glm::vec3& depthAxis, DrawItem& item, FrameStats& stats,
                std::span<const std::uint8_t> leaveOut = {}, OcclusionBuffer* occlusion = nullptr);

    /** Uploads @p list if it changed since its last upload, and binds it and an RGBA32F view of
     *  @p gpu's record buffer on kVisibleIndexUnit and kIndexedRecordUnit. */
    void bind(VisibleList& list, const InstancedMeshNode& batch, BatchGpu& gpu, FrameStats& stats);

    /** The per-level lists select() made for (@p pass, @p batch) this frame; empty for a batch
     *  without a LOD chain. */
    [[nodiscard]] std::span<VisibleList> lodLevels(std::size_t pass, const InstancedMeshNode& batch);

private:
    static constexpr std::uint64_t kKeepFrames = 120;
    struct SpheresEntry {
        InstanceSpheres spheres;
        std::weak_ptr<const void> alive;
        std::uint64_t lastUsedFrame = 0;
        std::uint64_t updatedFrame = 0;
    };

    const GlLimits& m_limits;
    std::uint64_t m_frame = 0;
    std::unordered_map<PassNodeKey, VisibleList, PassNodeKeyHash> m_lists;
    std::unordered_map<std::uint64_t, SpheresEntry> m_spheres;
    std::vector<std::uint64_t> m_sortScratch;
    std::unique_ptr<LodSelection> m_lod;
};

} // namespace myriad::gl::detail
