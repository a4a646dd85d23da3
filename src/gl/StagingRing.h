#pragma once
// Internal to myriad_gl: a fixed-size, persistently mapped upload ring (the ARB_buffer_storage
// pattern, OpenGL 4.5 section 6.2 and section 4.1 for the fences).
//
// The CPU writes bytes into the mapped ring and the GPU copies them into the destination buffer
// (glCopyNamedBufferSubData), so no destination buffer is ever written by the CPU while the GPU
// may read it. The ring itself obeys the same rule: before the CPU writes into a ring range that
// a copy already issued may still read, the copies issued so far are fenced (glFenceSync) and the
// CPU waits for the fence (glClientWaitSync). That holds inside one frame too: a frame uploading
// more than the ring holds waits mid-frame rather than overwriting its own earlier bytes.
//
// The capacity is fixed at construction: the ring never grows or reallocates. An upload larger
// than chunkBytes() is split into chunks, so any upload size streams through a bounded mapping.
#include "gl/GlCommon.h"

#include <cstddef>
#include <cstdint>
#include <deque>

namespace myriad::gl::detail {

class StagingRing {
public:
    /** The renderer's ring: 4 MiB, four 1 MiB chunks. */
    static constexpr std::size_t kDefaultCapacity = std::size_t{4} << 20;
    /** Ring offsets are multiples of this (copy sources stay 16-byte aligned). */
    static constexpr std::size_t kAlignment = 16;
    /** Fences kept after endFrame(): beyond it the oldest is waited for. A frame this old is
     *  long done on any GPU, and the bound keeps sync objects few when frames upload a few bytes
     *  each (the ring would otherwise wrap only after thousands of frames). */
    static constexpr std::size_t kMaxFences = 16;

    /** Creates and maps a ring of @p capacityBytes (rounded up to kAlignment), which it keeps
     *  until destroyed. Needs a current GL 4.5 context.
     *  @throws InvalidArgument if @p capacityBytes < 4 * kAlignment;
     *  GlError if the buffer cannot be mapped. */
    explicit StagingRing(std::size_t capacityBytes = kDefaultCapacity);
    /** Deletes the fences and the buffer; copies still queued from it complete first (deletion
     *  of an object in use is deferred, OpenGL 4.5 section 5.1.3). */
    ~StagingRing();
    StagingRing(const StagingRing&) = delete;
    StagingRing& operator=(const StagingRing&) = delete;

    /** Copies @p bytes from CPU memory @p source into GL buffer @p destination at byte
     *  @p destinationOffset: memcpy into the ring, then glCopyNamedBufferSubData, in chunks of
     *  at most chunkBytes(). Waits for the GPU (counted in waits()) only when the ring range it
     *  is about to write may still be read by an earlier copy. @p source is read before it
     *  returns; the destination holds the bytes for every GL command issued after it.
     *  The caller guarantees [destinationOffset, destinationOffset + bytes) lies inside
     *  @p destination (GL reports GL_INVALID_VALUE otherwise). bytes == 0 does nothing.
     *  @throws InvalidArgument if @p source is null and bytes > 0 (nothing written);
     *  GlError if glClientWaitSync fails (the chunks before it were copied). */
    void copy(GLuint destination, std::size_t destinationOffset, const void* source, std::size_t bytes);

    /** Fences the copies issued since the last fence, forgets fences already signalled, and
     *  waits for the oldest while more than kMaxFences remain. */
    void endFrame();

    /** Bytes of the mapped ring: the capacity given at construction, for the ring's lifetime. */
    [[nodiscard]] std::size_t capacity() const noexcept { return m_capacity; }
    /** The largest piece one glCopyNamedBufferSubData moves: capacity() / 4, so several chunks
     *  are in flight while the CPU fills the next one. */
    [[nodiscard]] std::size_t chunkBytes() const noexcept { return m_chunkBytes; }
    /** The GL name of the ring buffer, the source of every copy (for tests). */
    [[nodiscard]] GLuint buffer() const noexcept { return m_buffer; }
    /** How many times copy() found the ring range it needed still in use and stalled for the
     *  GPU, in all (FrameStats::uploadWaits reads the difference per frame). */
    [[nodiscard]] std::uint64_t waits() const noexcept { return m_waits; }

private:
    // Positions count every byte ever placed in the ring (padding skipped at a wrap included);
    // a position p lives at ring offset p % capacity. 64 bits do not wrap in practice.
    struct Fence {
        GLsync sync;
        std::uint64_t end;  ///< every byte before this position was copied before the fence
    };
    void fence();
    void retireOldest();

    GLuint m_buffer = 0;
    std::byte* m_mapped = nullptr;
    std::size_t m_capacity = 0;
    std::size_t m_chunkBytes = 0;
    std::uint64_t m_head = 0;      ///< next position to write
    std::uint64_t m_fenced = 0;    ///< every position below it is covered by a fence
    std::uint64_t m_retired = 0;   ///< every position below it is known copied (fence signalled)
    std::deque<Fence> m_fences;    ///< unsignalled-as-far-as-known, oldest first
    std::uint64_t m_waits = 0;
};

} // namespace myriad::gl::detail
