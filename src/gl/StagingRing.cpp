#include "gl/StagingRing.h"

#include "myriad/util/Error.h"

#include <chrono>
#include <algorithm>
#include <bit>
#include <cstring>
#include <string>
#include <tuple>

namespace myriad::gl::detail {
namespace {

constexpr std::uint64_t kWaitTimeoutNs = 1'000'000'000;

constexpr std::size_t alignUp(std::size_t value) noexcept {
    return (value + StagingRing::kAlignment - 1) & ~(StagingRing::kAlignment - 1);
}

} // namespace

std::pair<GLuint, std::byte*> StagingRing::createMapped(std::size_t bytes) {
    GLuint buffer = 0;
    glCreateBuffers(1, &buffer);
    const GLbitfield flags = GL_MAP_WRITE_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT;
    glNamedBufferStorage(buffer, static_cast<GLsizeiptr>(bytes), nullptr, flags);
    auto* mapped =
        static_cast<std::byte*>(glMapNamedBufferRange(buffer, 0, static_cast<GLsizeiptr>(bytes), flags));
    if (mapped == nullptr) {
        // Storage refused (GL_OUT_OF_MEMORY, left for the caller's glGetError or debug output)
        // or not mappable: nothing is kept.
        glDeleteBuffers(1, &buffer);
        return {0, nullptr};
    }
    countObject(ObjectKind::Buffer, 1);
    setLabel(GL_BUFFER, buffer, "myriad/Renderer.staging-ring");
    return {buffer, mapped};
}

StagingRing::StagingRing(std::size_t capacityBytes, std::size_t maxCapacityBytes) {
    if (capacityBytes < 4 * kAlignment) {
        throw InvalidArgument("gl::StagingRing: capacity " + std::to_string(capacityBytes) +
                              " bytes is below the minimum of " + std::to_string(4 * kAlignment));
    }
    const std::size_t capacity = alignUp(capacityBytes);
    std::tie(m_buffer, m_mapped) = createMapped(capacity);
    if (m_mapped == nullptr) {
        throw GlError("gl::Renderer: could not map a " + std::to_string(capacity) +
                      "-byte persistent upload buffer");
    }
    m_capacity = capacity;
    m_startCapacity = capacity;
    // GLsizeiptr is signed: no ring of half the address space or more.
    constexpr std::size_t kLargest = std::size_t{1} << (sizeof(GLsizeiptr) * 8 - 2);
    m_maxCapacity = std::max(capacity, alignUp(std::min(maxCapacityBytes, kLargest)));
    m_chunkBytes = std::max(kAlignment, (capacity / 4) & ~(kAlignment - 1));
}

bool StagingRing::grow(std::size_t wantedBytes) {
    if (m_capacity >= m_maxCapacity) {
        return false;
    }
    // Clamped first: bit_ceil of a size past the largest power of two is undefined.
    const std::size_t wanted =
        std::max(std::bit_ceil(std::clamp(wantedBytes, kAlignment, m_maxCapacity)), 2 * m_capacity);
    if (!moveTo(std::min(wanted, m_maxCapacity))) {
        m_maxCapacity = m_capacity;  // the driver's limit: stay, and stop asking
        return false;
    }
    ++m_growths;
    return true;
}

void StagingRing::shrink() {
    if (m_capacity > m_startCapacity) {
        (void)moveTo(m_startCapacity);  // refused: keep the larger one
    }
}

bool StagingRing::moveTo(std::size_t capacity) {
    const auto [buffer, mapped] = createMapped(capacity);
    if (mapped == nullptr) {
        return false;
    }
    // The old ring is never written again, so no copy out of it needs waiting for: its fences
    // go unwaited, and the buffer's deletion waits for its queued copies (section 5.1.3).
    for (const Fence& entry : m_fences) {
        glDeleteSync(entry.sync);
        countObject(ObjectKind::Sync, -1);
    }
    m_fences.clear();
    glUnmapNamedBuffer(m_buffer);
    glDeleteBuffers(1, &m_buffer);
    countObject(ObjectKind::Buffer, -1);
    m_buffer = buffer;
    m_mapped = mapped;
    m_capacity = capacity;
    m_chunkBytes = std::max(kAlignment, (capacity / 4) & ~(kAlignment - 1));
    m_head = m_fenced = m_retired = m_frameStart = 0;  // an empty ring, all of it this frame's
    return true;
}

StagingRing::~StagingRing() {
    for (const Fence& entry : m_fences) {
        glDeleteSync(entry.sync);
        countObject(ObjectKind::Sync, -1);
    }
    glUnmapNamedBuffer(m_buffer);
    glDeleteBuffers(1, &m_buffer);
    countObject(ObjectKind::Buffer, -1);
}

void StagingRing::fence() {
    const GLsync sync = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    countObject(ObjectKind::Sync, 1);
    m_fences.push_back({sync, m_head});
    m_fenced = m_head;
}

void StagingRing::retireOldest() {
    const Fence& oldest = m_fences.front();
    // The flush bit: an unflushed fence might never signal (OpenGL 4.5 section 4.1.2).
    GLenum status = glClientWaitSync(oldest.sync, GL_SYNC_FLUSH_COMMANDS_BIT, 0);
    if (!signalled(status)) {
        ++m_waits;
        do {
            if (status == GL_WAIT_FAILED) {
                throw GlError("gl::Renderer: glClientWaitSync failed on the upload ring");
            }
            status = glClientWaitSync(oldest.sync, GL_SYNC_FLUSH_COMMANDS_BIT, kWaitTimeoutNs);
        } while (!signalled(status));
    }
    m_retired = oldest.end;
    glDeleteSync(oldest.sync);
    countObject(ObjectKind::Sync, -1);
    m_fences.pop_front();
}

void StagingRing::copy(GLuint destination, std::size_t destinationOffset, const void* source,
                       std::size_t bytes) {
    if (bytes == 0) {
        return;
    }
    if (source == nullptr) {
        throw InvalidArgument("gl::StagingRing::copy: source is null for " + std::to_string(bytes) +
                              " bytes");
    }
    const auto* from = static_cast<const std::byte*>(source);
    for (std::size_t done = 0; done < bytes;) {
        const std::size_t piece = std::min(m_chunkBytes, bytes - done);
        const std::size_t span = alignUp(piece);
        std::uint64_t begin = m_head;
        if (begin % m_capacity + span > m_capacity) {
            begin += m_capacity - begin % m_capacity;  // skip the tail: a copy source is contiguous
        }
        // Writing [begin, begin + span) at these ring offsets overwrites what positions
        // [begin - capacity, begin + span - capacity) held: all of those must be copied already.
        const std::uint64_t mustBeRetired = begin + span > m_capacity ? begin + span - m_capacity : 0;
        if (m_retired < mustBeRetired && mustBeRetired > m_frameStart &&
            grow(4 * (m_frameBytes + (bytes - done) + kAlignment))) {
            // This frame's own bytes were about to be overwritten: the ring is smaller than the
            // frame. The rest of this upload (and what the frame placed so far) fits the new one,
            // sized as endFrame() sizes for such a frame (four of them), so endFrame() does not
            // grow it a second time.
            continue;
        }
        if (m_retired < mustBeRetired) {
            m_head = begin;
            if (m_fenced < mustBeRetired) {
                fence();  // copies of this frame not yet fenced: fence them to have something to wait on
            }
            while (m_retired < mustBeRetired) {
                const auto start = std::chrono::steady_clock::now();
                retireOldest();
                m_copyWaitMs += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
            }
        }
        const std::size_t offset = static_cast<std::size_t>(begin % m_capacity);
        std::memcpy(m_mapped + offset, from + done, piece);
        // Coherent mapping: the write is visible to commands issued after it, no flush or barrier
        // needed (OpenGL 4.5 section 6.2, MAP_COHERENT_BIT).
        glCopyNamedBufferSubData(m_buffer, destination, static_cast<GLintptr>(offset),
                                 static_cast<GLintptr>(destinationOffset + done),
                                 static_cast<GLsizeiptr>(piece));
        m_frameBytes += begin + span - m_head;
        m_head = begin + span;
        done += piece;
        if (m_head - m_fenced >= m_chunkBytes) {
            // A fence per chunk of bytes: a wrap then waits for the oldest chunk only, not for
            // everything in flight.
            fence();
        }
    }
}

void StagingRing::endFrame() {
    if (m_head != m_fenced) {
        fence();
    }
    // Forget fences the GPU has passed, so a long run of small frames keeps few sync objects.
    while (!m_fences.empty() && signalled(glClientWaitSync(m_fences.front().sync, 0, 0))) {
        m_retired = m_fences.front().end;
        glDeleteSync(m_fences.front().sync);
        countObject(ObjectKind::Sync, -1);
        m_fences.pop_front();
    }
    while (m_fences.size() > kMaxFences) {
        retireOldest();
    }
    // A frame that filled more than half the ring: room for four such frames, so a steady run
    // of them wraps onto bytes the GPU copied frames ago, not onto the previous frame's.
    if (m_frameBytes > m_capacity / 2) {
        grow(4 * m_frameBytes);
    }
    m_frameBytes = 0;
    m_frameStart = m_head;
}

} // namespace myriad::gl::detail
