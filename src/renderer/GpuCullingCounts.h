#pragma once
// Internal to myriad_gl: RendererDesc::gpuCullingCounts, the drawn counts of GPU-culled batches
// read back a frame (or more) late, never waiting. After a frame's draws, copy() copies the
// instanceCount of every indirect command a draw used (GpuCulling's commands, written by
// cull.comp's atomics) into a small persistently mapped buffer, one of kSlots, and fences it.
// collect(), at the start of a later frame, polls the oldest fences with a zero timeout and
// reads the copies whose fence has signalled from the mapping. A frame whose slot is still
// pending (the GPU kSlots frames behind) is not copied: its counts are skipped, not waited for.
#include "gl/GlCommon.h"
#include "myriad/gl/FrameStats.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace myriad::gl::detail {

struct GpuCullList;

class GpuCullingCounts {
public:
    static constexpr std::size_t kSlots = 3;

    GpuCullingCounts() = default;
    ~GpuCullingCounts();  ///< needs the context current when anything was copied
    GpuCullingCounts(const GpuCullingCounts&) = delete;
    GpuCullingCounts& operator=(const GpuCullingCounts&) = delete;

    /** Starts frame @p frame (FrameStats::frame): forgets the draws noted so far. No GL. */
    void beginFrame(std::uint64_t frame) noexcept;
    /** Notes one indirect draw of @p list: command (@p slot, @p primitive), @p triangles per
     *  instance drawn, and @p upperBound, what FrameStats::instances counted for it. No GL. */
    void noteDraw(const GpuCullList& list, std::size_t primitive, std::size_t slot, std::uint64_t triangles,
                  std::uint32_t upperBound);
    /** noteDraw() for a command of the table-driven path: command @p command of the shared
     *  command buffer @p commands (DrawTable). */
    void noteCommand(GLuint commands, std::size_t command, std::uint64_t triangles, std::uint32_t upperBound);
    /** Occlusion culling: notes @p list's counters (GpuCulling::countersCommand(), written by
     *  its second phase) for GpuCulledCounts::frustumCulled and occlusionCulled. No GL. */
    void noteCounters(const GpuCullList& list);
    /** After the frame's last draw: one barrier, one 4-byte copy per noted draw into a free
     *  slot, one fence. Nothing when no draw was noted or every slot is still pending. */
    void copy();
    /** Reads every pending slot whose fence has signalled (zero-timeout polls, oldest first)
     *  and gives the newest reading so far to @p out. Never waits. */
    void collect(GpuCulledCounts& out);

private:
    /** What a copied count is. */
    enum class Kind : std::uint8_t { Drawn, FrustumCulled, OcclusionCulled };
    struct Noted {
        GLuint commands = 0;
        GLintptr offset = 0;  ///< of the command's instanceCount (or a counter)
        std::uint64_t triangles = 0;
        Kind kind = Kind::Drawn;
    };
    struct Slot {
        GLuint buffer = 0;
        const std::uint32_t* mapped = nullptr;  ///< GL_MAP_READ_BIT | PERSISTENT | COHERENT
        std::size_t capacity = 0;               ///< counts the buffer holds
        GLsync fence = nullptr;                 ///< set while pending
        std::uint64_t frame = 0;
        std::vector<std::uint64_t> triangles;   ///< per copied count
        std::vector<Kind> kinds;                ///< per copied count
        std::uint64_t upperBound = 0;
        std::uint64_t trianglesUpperBound = 0;
    };

    void reserve(Slot& slot, std::size_t counts);

    std::array<Slot, kSlots> m_slots{};
    std::size_t m_next = 0;  ///< the slot the next copy goes to; the oldest pending one when pending
    std::uint64_t m_frame = 0;
    std::vector<Noted> m_draws;
    std::uint64_t m_upperBound = 0;
    std::uint64_t m_trianglesUpperBound = 0;
    GpuCulledCounts m_latest;
};

} // namespace myriad::gl::detail
