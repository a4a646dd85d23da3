#include "gl/StagingRing.h"

#include "myriad/util/Error.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <string>

namespace myriad::gl::detail {
namespace {

constexpr std::size_t kAlignment = 16;

std::size_t alignUp(std::size_t value) noexcept {
    return (value + kAlignment - 1) & ~(kAlignment - 1);
}

bool overlaps(std::size_t begin, std::size_t end, std::size_t otherBegin, std::size_t otherEnd) noexcept {
    return begin < otherEnd && otherBegin < end;
}

} // namespace

StagingRing::StagingRing(std::size_t initialBytes) { create(std::bit_ceil(std::max<std::size_t>(initialBytes, 1u << 16))); }

StagingRing::~StagingRing() { destroy(); }

void StagingRing::create(std::size_t bytes) {
    glCreateBuffers(1, &m_buffer);
    countObject(ObjectKind::Buffer, 1);
    const GLbitfield flags = GL_MAP_WRITE_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT;
    glNamedBufferStorage(m_buffer, static_cast<GLsizeiptr>(bytes), nullptr, flags);
    m_mapped = static_cast<std::byte*>(
        glMapNamedBufferRange(m_buffer, 0, static_cast<GLsizeiptr>(bytes), flags));
    if (m_mapped == nullptr) {
        glDeleteBuffers(1, &m_buffer);
        countObject(ObjectKind::Buffer, -1);
        m_buffer = 0;
        throw GlError("gl::Renderer: could not map a " + std::to_string(bytes) +
                      "-byte persistent upload buffer");
    }
    setLabel(GL_BUFFER, m_buffer, "myriad/Renderer.staging-ring");
    m_capacity = bytes;
    m_head = 0;
    m_frameBegin = 0;
    m_frameWrapped = false;
}

void StagingRing::destroy() noexcept {
    for (const InFlight& region : m_inFlight) {
        glDeleteSync(region.fence);
        countObject(ObjectKind::Sync, -1);
    }
    m_inFlight.clear();
    if (m_buffer != 0) {
        glUnmapNamedBuffer(m_buffer);
        // Copies still queued from this buffer keep it alive until they ran (deletion of an
        // object in use is deferred, OpenGL 4.5 section 5.1.3).
        glDeleteBuffers(1, &m_buffer);
        countObject(ObjectKind::Buffer, -1);
        m_buffer = 0;
        m_mapped = nullptr;
    }
}

void StagingRing::waitFor(const InFlight& region) {
    ++m_waits;
    while (true) {
        const GLenum result = glClientWaitSync(region.fence, GL_SYNC_FLUSH_COMMANDS_BIT, 1'000'000'000);
        if (result == GL_ALREADY_SIGNALED || result == GL_CONDITION_SATISFIED) {
            return;
        }
        if (result == GL_WAIT_FAILED) {
            throw GlError("gl::Renderer: glClientWaitSync failed on the upload ring");
        }
    }
}

StagingRing::Allocation StagingRing::allocate(std::size_t bytes) {
    bytes = alignUp(std::max<std::size_t>(bytes, 1));
    if (bytes > m_capacity / 4) {
        // Too big to keep several frames in flight: a new, larger ring. The old one's pending
        // copies still complete (deferred deletion).
        destroy();
        create(std::bit_ceil(bytes * 4));
    }
    std::size_t begin = m_head;
    if (begin + bytes > m_capacity) {
        begin = 0;
        m_frameWrapped = true;
    }
    const std::size_t end = begin + bytes;
    // Regions are fenced in ring order: wait (oldest first) until none overlaps [begin, end).
    while (!m_inFlight.empty()) {
        const auto conflict = std::find_if(m_inFlight.begin(), m_inFlight.end(), [&](const InFlight& r) {
            return overlaps(begin, end, r.begin, r.end);
        });
        if (conflict == m_inFlight.end()) {
            break;
        }
        const InFlight region = m_inFlight.front();
        const GLenum status = glClientWaitSync(region.fence, 0, 0);
        if (status != GL_ALREADY_SIGNALED && status != GL_CONDITION_SATISFIED) {
            waitFor(region);
        }
        glDeleteSync(region.fence);
        countObject(ObjectKind::Sync, -1);
        m_inFlight.pop_front();
    }
    m_head = end;
    return {m_buffer, begin, m_mapped + begin};
}

void StagingRing::copy(GLuint destination, std::size_t destinationOffset, const void* source,
                       std::size_t bytes) {
    if (bytes == 0) {
        return;
    }
    const Allocation staging = allocate(bytes);
    std::memcpy(staging.data, source, bytes);
    glCopyNamedBufferSubData(staging.buffer, destination, static_cast<GLintptr>(staging.offset),
                             static_cast<GLintptr>(destinationOffset), static_cast<GLsizeiptr>(bytes));
}

void StagingRing::endFrame() {
    if (m_head == m_frameBegin && !m_frameWrapped) {
        return;  // nothing uploaded this frame
    }
    const GLsync fence = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    countObject(ObjectKind::Sync, 1);
    if (m_frameWrapped) {
        // [frameBegin, capacity) and [0, head): two regions guarded by fences of the same point.
        m_inFlight.push_back({m_frameBegin, m_capacity, fence});
        m_inFlight.push_back({0, m_head, glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0)});
        countObject(ObjectKind::Sync, 1);
    } else {
        m_inFlight.push_back({m_frameBegin, m_head, fence});
    }
    m_frameBegin = m_head;
    m_frameWrapped = false;
}

} // namespace myriad::gl::detail
