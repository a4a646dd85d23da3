#include "renderer/GpuCullingCounts.h"

#include "renderer/GpuCulling.h"  // GpuCullList, DrawElementsIndirectCommand
#include "myriad/util/Error.h"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <string>

namespace myriad::gl::detail {
namespace {

constexpr GLbitfield kMapFlags = GL_MAP_READ_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT;

void release(GLuint& buffer, GLsync& fence) noexcept {
    if (fence != nullptr) {
        glDeleteSync(fence);
        countObject(ObjectKind::Sync, -1);
        fence = nullptr;
    }
    if (buffer != 0) {
        glUnmapNamedBuffer(buffer);
        glDeleteBuffers(1, &buffer);
        countObject(ObjectKind::Buffer, -1);
        buffer = 0;
    }
}

} // namespace

GpuCullingCounts::~GpuCullingCounts() {
    for (Slot& slot : m_slots) {
        release(slot.buffer, slot.fence);
    }
}

void GpuCullingCounts::beginFrame(std::uint64_t frame) noexcept {
    m_frame = frame;
    m_draws.clear();
    m_upperBound = 0;
    m_trianglesUpperBound = 0;
}

void GpuCullingCounts::noteDraw(const GpuCullList& list, std::size_t primitive, std::size_t slot,
                                std::uint64_t triangles, std::uint32_t upperBound) {
    noteCommand(list.commands.id(), slot * list.primitives + primitive, triangles, upperBound);  // as GpuCulling::draw()
}

void GpuCullingCounts::noteCommand(GLuint commands, std::size_t command, std::uint64_t triangles,
                                   std::uint32_t upperBound) {
    m_draws.push_back({commands,
                       static_cast<GLintptr>(command * sizeof(DrawElementsIndirectCommand) +
                                             offsetof(DrawElementsIndirectCommand, instanceCount)),
                       triangles});
    m_upperBound += upperBound;
    m_trianglesUpperBound += triangles * upperBound;
}

void GpuCullingCounts::noteCounters(const GpuCullList& list) {
    const auto at = static_cast<GLintptr>(GpuCulling::countersCommand(list) * sizeof(DrawElementsIndirectCommand));
    m_draws.push_back({list.commands.id(), at + static_cast<GLintptr>(offsetof(DrawElementsIndirectCommand, count)), 0,
                       Kind::FrustumCulled});
    m_draws.push_back({list.commands.id(), at + static_cast<GLintptr>(offsetof(DrawElementsIndirectCommand, instanceCount)),
                       0, Kind::OcclusionCulled});
}

void GpuCullingCounts::reserve(Slot& slot, std::size_t counts) {
    if (slot.capacity >= counts) {
        return;
    }
    GLsync none = nullptr;
    release(slot.buffer, none);  // not pending: copy() only reuses a slot collect() has read
    const std::size_t capacity = std::bit_ceil(std::max<std::size_t>(counts, 64));
    glCreateBuffers(1, &slot.buffer);
    countObject(ObjectKind::Buffer, 1);
    const auto bytes = static_cast<GLsizeiptr>(capacity * sizeof(std::uint32_t));
    glNamedBufferStorage(slot.buffer, bytes, nullptr, kMapFlags);
    slot.mapped = static_cast<const std::uint32_t*>(glMapNamedBufferRange(slot.buffer, 0, bytes, kMapFlags));
    if (slot.mapped == nullptr) {
        release(slot.buffer, none);
        slot.capacity = 0;
        throw GlError("gl::Renderer: could not map a " + std::to_string(bytes) +
                      "-byte buffer for RendererDesc::gpuCullingCounts");
    }
    setLabel(GL_BUFFER, slot.buffer, "myriad/Renderer.gpu-culled-counts");
    slot.capacity = capacity;
}

void GpuCullingCounts::copy() {
    Slot& slot = m_slots[m_next];
    if (m_draws.empty() || slot.fence != nullptr) {
        return;  // nothing GPU-culled drawn, or the GPU is kSlots frames behind: skip, never wait
    }
    if (slot.capacity < m_draws.size()) {
        // Every free slot at once, so the frames after this one allocate nothing.
        for (Slot& free : m_slots) {
            if (free.fence == nullptr) {
                reserve(free, m_draws.size());
            }
        }
    }
    // The commands' instance counts were written by cull.comp's atomics (shader storage): a copy
    // reads them only after GL_BUFFER_UPDATE_BARRIER_BIT (OpenGL 4.5, "Shader Memory Access Synchronization"). What the
    // copies write reaches the CPU through the coherent mapping once the fence below has
    // signalled (section 6.2); the client-mapped bit covers shader writes to mapped memory,
    // which these are not, and is set so a later change that writes the slot from a shader
    // stays correct.
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT | GL_CLIENT_MAPPED_BUFFER_BARRIER_BIT);
    for (std::size_t i = 0; i < m_draws.size(); ++i) {
        glCopyNamedBufferSubData(m_draws[i].commands, slot.buffer, m_draws[i].offset,
                                 static_cast<GLintptr>(i * sizeof(std::uint32_t)), sizeof(std::uint32_t));
    }
    slot.fence = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    countObject(ObjectKind::Sync, 1);
    slot.frame = m_frame;
    slot.triangles.resize(m_draws.size());
    slot.kinds.resize(m_draws.size());
    for (std::size_t i = 0; i < m_draws.size(); ++i) {
        slot.triangles[i] = m_draws[i].triangles;
        slot.kinds[i] = m_draws[i].kind;
    }
    slot.upperBound = m_upperBound;
    slot.trianglesUpperBound = m_trianglesUpperBound;
    m_next = (m_next + 1) % kSlots;
}

void GpuCullingCounts::collect(GpuCulledCounts& out) {
    // Oldest first: the slot after the newest copy, round the ring. Fences signal in order, so
    // the first one not signalled ends the walk.
    for (std::size_t k = 0; k < kSlots; ++k) {
        Slot& slot = m_slots[(m_next + k) % kSlots];
        if (slot.fence == nullptr) {
            continue;
        }
        // A zero timeout is a poll; the flush bit makes sure the fence reaches the GPU at all
        // (an unflushed fence might never signal, OpenGL 4.5 section 4.1.2).
        if (!signalled(glClientWaitSync(slot.fence, GL_SYNC_FLUSH_COMMANDS_BIT, 0))) {
            break;
        }
        glDeleteSync(slot.fence);
        countObject(ObjectKind::Sync, -1);
        slot.fence = nullptr;
        GpuCulledCounts read{.frame = slot.frame, .upperBound = slot.upperBound,
                             .trianglesUpperBound = slot.trianglesUpperBound};
        for (std::size_t i = 0; i < slot.triangles.size(); ++i) {
            const std::uint64_t count = slot.mapped[i];
            switch (slot.kinds[i]) {
            case Kind::Drawn:
                read.instances += count;
                read.triangles += count * slot.triangles[i];
                break;
            case Kind::FrustumCulled: read.frustumCulled += count; break;
            case Kind::OcclusionCulled: read.occlusionCulled += count; break;
            }
        }
        if (read.frame > m_latest.frame) {
            m_latest = read;
        }
    }
    out = m_latest;
}

} // namespace myriad::gl::detail
