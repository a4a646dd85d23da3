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
// The ring grows (and shrinks back only on shrink(), Renderer::trim()) between its starting
// capacity and a bound, to what a frame
// really sends: a frame whose uploads would overwrite bytes it placed itself (a frame larger
// than the ring) moves to a new ring large enough for the rest of the upload instead of waiting
// once per chunk for copies queued behind the previous frame; and a frame that filled more than
// half the ring grows it at endFrame(), so steady frames of that size wrap onto frames the GPU
// finished rather than onto the one before. A new ring replaces the old one whole: the old
// buffer is unmapped and deleted (its queued copies still complete, OpenGL 4.5 section 5.1.3)
// and its fences deleted, since nothing writes the old memory again. At the bound the ring
// stays put and waits, as a fixed ring does. An upload larger than chunkBytes() is split into
// chunks, so any upload size streams through a bounded mapping.
#include "gl/GlCommon.h"

#include <cstddef>
#include <cstdint>
#include <deque>
#include <utility>

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

    /** Creates and maps a ring of @p capacityBytes (rounded up to kAlignment), which may grow
     *  up to @p maxCapacityBytes (rounded up likewise; a bound below capacityBytes, the default
     *  0 included, keeps the ring at capacityBytes). Needs a current GL 4.5 context.
     *  @throws InvalidArgument if @p capacityBytes < 4 * kAlignment;
     *  GlError if the buffer cannot be mapped. */
    explicit StagingRing(std::size_t capacityBytes = kDefaultCapacity, std::size_t maxCapacityBytes = 0);
    /** Deletes the fences and the buffer; copies still queued from it complete first (deletion
     *  of an object in use is deferred, OpenGL 4.5 section 5.1.3). */
    ~StagingRing();
    StagingRing(const StagingRing&) = delete;
    StagingRing& operator=(const StagingRing&) = delete;

    /** Copies @p bytes from CPU memory @p source into GL buffer @p destination at byte
     *  @p destinationOffset: memcpy into the ring, then glCopyNamedBufferSubData, in chunks of
     *  at most chunkBytes(). When the ring range it is about to write holds bytes of this
     *  frame, the ring grows first (up to maxCapacity()); otherwise, or at the bound, it waits
     *  for the GPU (counted in waits()) only when that range may still be read by an earlier
     *  copy. @p source is read before it
     *  returns; the destination holds the bytes for every GL command issued after it.
     *  The caller guarantees [destinationOffset, destinationOffset + bytes) lies inside
     *  @p destination (GL reports GL_INVALID_VALUE otherwise). bytes == 0 does nothing.
     *  @throws InvalidArgument if @p source is null and bytes > 0 (nothing written);
     *  GlError if glClientWaitSync fails (the chunks before it were copied). */
    void copy(GLuint destination, std::size_t destinationOffset, const void* source, std::size_t bytes);

    /** Fences the copies issued since the last fence, forgets fences already signalled, and
     *  waits for the oldest while more than kMaxFences remain. Then, if this frame placed more
     *  than half of capacity(), grows the ring (up to maxCapacity()) to four times what the
     *  frame placed, so a few such frames are in flight before a wrap. Never throws for a
     *  growth the driver refuses: the ring stays as it is and stops growing. */
    void endFrame();

    /** Moves back to a ring of the starting capacity if it grew (Renderer::trim()): frees
     *  the larger mapping and its fences, as growth does. Keeps the larger one if the driver
     *  refuses the new storage. */
    void shrink();

    /** Bytes of the mapped ring now: the starting capacity until it grows. */
    [[nodiscard]] std::size_t capacity() const noexcept { return m_capacity; }
    /** The bound growth stops at (never below the starting capacity). */
    [[nodiscard]] std::size_t maxCapacity() const noexcept { return m_maxCapacity; }
    /** How many times the ring moved to a larger buffer, in all. */
    [[nodiscard]] std::uint64_t growths() const noexcept { return m_growths; }
    /** The largest piece one glCopyNamedBufferSubData moves: capacity() / 4, so several chunks
     *  are in flight while the CPU fills the next one. */
    [[nodiscard]] std::size_t chunkBytes() const noexcept { return m_chunkBytes; }
    /** The GL name of the ring buffer, the source of every copy (for tests). */
    [[nodiscard]] GLuint buffer() const noexcept { return m_buffer; }
    /** How many times copy() found the ring range it needed still in use and stalled for the
     *  GPU, in all (FrameStats::uploadWaits reads the difference per frame). */
    [[nodiscard]] std::uint64_t waits() const noexcept { return m_waits; }
    /** Milliseconds copy() spent retiring fences (stalled or not), in all (FrameStats::gpuWaitMs
     *  reads the difference per frame). */
    [[nodiscard]] double copyWaitMs() const noexcept { return m_copyWaitMs; }

private:
    // Positions count every byte ever placed in the ring (padding skipped at a wrap included);
    // a position p lives at ring offset p % capacity. 64 bits do not wrap in practice.
    struct Fence {
        GLsync sync;
        std::uint64_t end;  ///< every byte before this position was copied before the fence
    };
    void fence();
    void retireOldest();
    /** Moves to a new ring of at least @p wantedBytes (a power of two, at least twice the
     *  current, at most maxCapacity()): frees the old buffer and its fences, starts empty.
     *  @return false, changing nothing, at the bound or if the driver refuses the storage. */
    bool grow(std::size_t wantedBytes);
    /** Replaces the ring by an empty one of @p capacity bytes (see grow()).
     *  @return false, changing nothing, if the driver refuses the storage. */
    bool moveTo(std::size_t capacity);
    /** Creates and maps a persistent ring of @p bytes; {0, null} if the driver refuses. */
    static std::pair<GLuint, std::byte*> createMapped(std::size_t bytes);

    GLuint m_buffer = 0;
    std::byte* m_mapped = nullptr;
    std::size_t m_capacity = 0;
    std::size_t m_maxCapacity = 0;
    std::size_t m_startCapacity = 0;
    std::uint64_t m_frameStart = 0;  ///< m_head when this frame began (the last endFrame())
    std::size_t m_frameBytes = 0;    ///< bytes placed this frame (padding included), across growths
    std::uint64_t m_growths = 0;
    std::size_t m_chunkBytes = 0;
    std::uint64_t m_head = 0;      ///< next position to write
    std::uint64_t m_fenced = 0;    ///< every position below it is covered by a fence
    std::uint64_t m_retired = 0;   ///< every position below it is known copied (fence signalled)
    std::deque<Fence> m_fences;    ///< unsignalled-as-far-as-known, oldest first
    std::uint64_t m_waits = 0;
    double m_copyWaitMs = 0.0;
};

} // namespace myriad::gl::detail
