#include "gl/StagingRing.h"

#include "myriad/util/Error.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace myriad::gl::detail {
namespace {

constexpr std::uint64_t kWaitTimeoutNs = 1'000'000'000;

constexpr std::size_t alignUp(std::size_t value) noexcept {
    return (value + StagingRing::kAlignment - 1) & ~(StagingRing::kAlignment - 1);
}

bool signalled(GLenum status) noexcept {
    return status == GL_ALREADY_SIGNALED || status == GL_CONDITION_SATISFIED;
}

} // namespace

StagingRing::StagingRing(std::size_t capacityBytes) {
    if (capacityBytes < 4 * kAlignment) {
        throw InvalidArgument("gl::StagingRing: capacity " + std::to_string(capacityBytes) +
                              " bytes is below the minimum of " + std::to_string(4 * kAlignment));
    }
    const std::size_t capacity = alignUp(capacityBytes);
    glCreateBuffers(1, &m_buffer);
    countObject(ObjectKind::Buffer, 1);
    const GLbitfield flags = GL_MAP_WRITE_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT;
    glNamedBufferStorage(m_buffer, static_cast<GLsizeiptr>(capacity), nullptr, flags);
    m_mapped = static_cast<std::byte*>(
        glMapNamedBufferRange(m_buffer, 0, static_cast<GLsizeiptr>(capacity), flags));
    if (m_mapped == nullptr) {
        glDeleteBuffers(1, &m_buffer);
        countObject(ObjectKind::Buffer, -1);
        throw GlError("gl::Renderer: could not map a " + std::to_string(capacity) +
                      "-byte persistent upload buffer");
    }
    setLabel(GL_BUFFER, m_buffer, "myriad/Renderer.staging-ring");
    m_capacity = capacity;
    m_chunkBytes = std::max(kAlignment, (capacity / 4) & ~(kAlignment - 1));
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
        if (m_retired < mustBeRetired) {
            m_head = begin;
            if (m_fenced < mustBeRetired) {
                fence();  // copies of this frame not yet fenced: fence them to have something to wait on
            }
            while (m_retired < mustBeRetired) {
                retireOldest();
            }
        }
        const std::size_t offset = static_cast<std::size_t>(begin % m_capacity);
        std::memcpy(m_mapped + offset, from + done, piece);
        // Coherent mapping: the write is visible to commands issued after it, no flush or barrier
        // needed (OpenGL 4.5 section 6.2, MAP_COHERENT_BIT).
        glCopyNamedBufferSubData(m_buffer, destination, static_cast<GLintptr>(offset),
                                 static_cast<GLintptr>(destinationOffset + done),
                                 static_cast<GLsizeiptr>(piece));
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
}

} // namespace myriad::gl::detail
