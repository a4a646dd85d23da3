#include "myriad/gl/Buffer.h"

#include "gl/GlCommon.h"
#include "myriad/gl/Loader.h"
#include "myriad/util/Error.h"

#include <utility>

namespace myriad::gl {

Buffer::Buffer(const BufferDesc& desc) {
    const std::size_t size = desc.sizeBytes != 0 ? desc.sizeBytes : desc.initialData.size();
    if (size == 0) {
        throw InvalidArgument("gl::Buffer: BufferDesc.sizeBytes is 0 and initialData is empty");
    }
    if (desc.initialData.size() > size) {
        throw InvalidArgument("gl::Buffer: BufferDesc.initialData (" +
                              std::to_string(desc.initialData.size()) +
                              " bytes) is larger than sizeBytes (" + std::to_string(size) + ")");
    }
    requireCurrentContext("gl::Buffer");
    glCreateBuffers(1, &m_id);
    detail::countObject(detail::ObjectKind::Buffer, 1);
    constexpr GLbitfield kPersistent = GL_MAP_WRITE_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT;
    const GLbitfield flags = desc.usage == BufferUsage::Dynamic            ? GL_DYNAMIC_STORAGE_BIT
                             : desc.usage == BufferUsage::PersistentMapped ? kPersistent
                                                                           : 0;
    if (desc.initialData.size() == size) {
        glNamedBufferStorage(m_id, static_cast<GLsizeiptr>(size), desc.initialData.data(), flags);
    } else {
        // Immutable storage must be filled at creation unless it is dynamic: allocate dynamic
        // storage and upload the prefix. The rest is undefined (OpenGL 4.5 section 6.2: storage
        // made from a null pointer has undefined contents; llvmpipe happens to zero it, drivers
        // need not): no caller reads bytes it did not write, and one that needs zeros writes
        // them (Renderer::createBuffer() passes zero-filled initial data; GPU culling clears its
        // LOD levels with glClearNamedBufferData).
        glNamedBufferStorage(m_id, static_cast<GLsizeiptr>(size), nullptr,
                             flags | GL_DYNAMIC_STORAGE_BIT);
        if (!desc.initialData.empty()) {
            glNamedBufferSubData(m_id, 0, static_cast<GLsizeiptr>(desc.initialData.size()),
                                 desc.initialData.data());
        }
    }
    if (desc.usage == BufferUsage::PersistentMapped) {
        m_mapped = static_cast<std::byte*>(glMapNamedBufferRange(m_id, 0, static_cast<GLsizeiptr>(size), kPersistent));
        if (m_mapped == nullptr) {
            glDeleteBuffers(1, &m_id);
            detail::countObject(detail::ObjectKind::Buffer, -1);
            m_id = 0;
            throw GlError("gl::Buffer: could not map a " + std::to_string(size) + "-byte persistent buffer");
        }
    }
    m_size = size;
    m_usage = desc.usage;
    m_label = detail::labelOrDefault(desc.label, "buffer", m_id);
    detail::setLabel(GL_BUFFER, m_id, m_label);
}

Buffer::~Buffer() {
    if (m_id != 0) {
        glDeleteBuffers(1, &m_id);
        detail::countObject(detail::ObjectKind::Buffer, -1);
    }
}

Buffer::Buffer(Buffer&& other) noexcept
    : m_id(std::exchange(other.m_id, 0)), m_size(std::exchange(other.m_size, 0)),
      m_mapped(std::exchange(other.m_mapped, nullptr)), m_usage(other.m_usage), m_label(std::move(other.m_label)) {}

Buffer& Buffer::operator=(Buffer&& other) noexcept {
    if (this != &other) {
        if (m_id != 0) {
            glDeleteBuffers(1, &m_id);
            detail::countObject(detail::ObjectKind::Buffer, -1);
        }
        m_id = std::exchange(other.m_id, 0);
        m_size = std::exchange(other.m_size, 0);
        m_mapped = std::exchange(other.m_mapped, nullptr);
        m_usage = other.m_usage;
        m_label = std::move(other.m_label);
    }
    return *this;
}

void Buffer::update(std::size_t offsetBytes, std::span<const std::byte> data) {
    if (m_id == 0) {
        throw InvalidArgument("gl::Buffer::update: the buffer is empty (moved from or default)");
    }
    if (m_usage != BufferUsage::Dynamic) {
        throw InvalidArgument("gl::Buffer::update: buffer '" + m_label +
                              "' is Static; create it with BufferUsage::Dynamic");
    }
    if (offsetBytes > m_size || data.size() > m_size - offsetBytes) {
        throw OutOfRange("gl::Buffer::update: " + std::to_string(data.size()) + " bytes at offset " +
                         std::to_string(offsetBytes) + " run past the end of buffer '" + m_label +
                         "' (" + std::to_string(m_size) + " bytes)");
    }
    if (!data.empty()) {
        glNamedBufferSubData(m_id, static_cast<GLintptr>(offsetBytes),
                             static_cast<GLsizeiptr>(data.size()), data.data());
    }
}

} // namespace myriad::gl
