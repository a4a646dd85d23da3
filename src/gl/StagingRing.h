#pragma once
// Internal to myriad_gl: a persistently mapped upload ring (GL 4.4 ARB_buffer_storage style).
//
// The CPU writes into the mapped ring and the GPU copies from it into the destination buffers
// (glCopyNamedBufferSubData), so a batch's buffer is never written while the GPU may read it.
// Each frame's part of the ring is fenced at endFrame(); a later allocation that would overwrite
// a part the GPU has not finished copying waits for that fence first (counted in waits()), which
// with a ring several frames deep happens only when uploads outrun the GPU.
#include "gl/GlCommon.h"

#include <cstddef>
#include <cstdint>
#include <deque>

namespace myriad::gl::detail {

class StagingRing {
public:
    struct Allocation {
        GLuint buffer = 0;          ///< the ring buffer, the source of the GPU copy
        std::size_t offset = 0;     ///< where the bytes go in it
        std::byte* data = nullptr;  ///< mapped pointer to write them through
    };

    explicit StagingRing(std::size_t initialBytes);
    ~StagingRing();
    StagingRing(const StagingRing&) = delete;
    StagingRing& operator=(const StagingRing&) = delete;

    /** Room for @p bytes, 16-byte aligned; grows the ring when bytes > capacity / 4. */
    Allocation allocate(std::size_t bytes);
    /** Writes @p bytes from @p source into the ring and issues glCopyNamedBufferSubData into
     *  @p destination at @p destinationOffset. */
    void copy(GLuint destination, std::size_t destinationOffset, const void* source, std::size_t bytes);
    /** Fences everything allocated since the last endFrame(). */
    void endFrame();

    [[nodiscard]] std::size_t capacity() const noexcept { return m_capacity; }
    /** How many times allocate() had to wait for the GPU, in all. */
    [[nodiscard]] std::uint64_t waits() const noexcept { return m_waits; }

private:
    struct InFlight {
        std::size_t begin;
        std::size_t end;
        GLsync fence;
    };
    void create(std::size_t bytes);
    void destroy() noexcept;
    void waitFor(const InFlight& region);

    GLuint m_buffer = 0;
    std::byte* m_mapped = nullptr;
    std::size_t m_capacity = 0;
    std::size_t m_head = 0;         ///< next free byte
    std::size_t m_frameBegin = 0;   ///< first byte allocated this frame
    bool m_frameWrapped = false;    ///< this frame's allocations wrapped past the end
    std::deque<InFlight> m_inFlight;
    std::uint64_t m_waits = 0;
};

} // namespace myriad::gl::detail
