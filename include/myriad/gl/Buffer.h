#pragma once
/** @file
 *  GPU buffers with immutable storage (glNamedBufferStorage), created with DSA. */
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace myriad::gl {

/** How a buffer is written after creation. */
enum class BufferUsage : std::uint8_t {
    Static,   ///< written once, at creation (no GL_DYNAMIC_STORAGE_BIT)
    Dynamic,  ///< rewritten with update() (GL_DYNAMIC_STORAGE_BIT)
    /** Mapped once for writing, for the buffer's whole life (GL_MAP_WRITE_BIT |
     *  GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT, ARB_buffer_storage): the CPU writes through
     *  mapped() while the GPU may read other parts; the caller fences what the GPU reads
     *  before writing there again. */
    PersistentMapped,
};

/** Creation parameters; defaults in field order: size 0, no data, Static, label "buffer#<id>". */
struct BufferDesc {
    std::size_t sizeBytes = 0;                 ///< required unless initialData is non-empty
    /** Copied during construction; may be freed after. Bytes past it (or all of them, when
     *  empty) are undefined until written: GL does not zero new storage. */
    std::span<const std::byte> initialData{};
    BufferUsage usage = BufferUsage::Static;  ///< whether update() may rewrite it
    std::string_view label{};                  ///< glObjectLabel; copied
};

/** A GL buffer object of fixed size (immutable storage, OpenGL 4.5 section 6.2).
 *  GL calls: glCreateBuffers, glNamedBufferStorage, glNamedBufferSubData, glObjectLabel,
 *  glDeleteBuffers.
 *  Ownership: move-only RAII; a default-constructed or moved-from Buffer is empty and can be
 *  destroyed without a context. Thread safety: call only on the context's thread. */
class Buffer {
public:
    Buffer() noexcept = default;
    /** @throws InvalidArgument if the size is 0, or initialData is larger than sizeBytes.
     *  @throws GlError if no GL 4.5 context is current. */
    explicit Buffer(const BufferDesc& desc);
    ~Buffer();
    /** Takes over the GL object of @p other, which is left empty (destructible without a context). */
    Buffer(Buffer&& other) noexcept;
    /** Deletes this object's GL object, then takes over that of @p other, which is left empty. */
    Buffer& operator=(Buffer&& other) noexcept;
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;

    /** Copies @p data into the buffer at @p offsetBytes (glNamedBufferSubData).
     *  @throws InvalidArgument if the buffer is Static or empty.
     *  @throws OutOfRange if offsetBytes + data.size() > sizeBytes(); nothing is written. */
    void update(std::size_t offsetBytes, std::span<const std::byte> data);

    /** The GL name of the buffer; 0 when empty. */
    [[nodiscard]] std::uint32_t id() const noexcept { return m_id; }
    /** Fixed size in bytes (immutable storage). */
    [[nodiscard]] std::size_t sizeBytes() const noexcept { return m_size; }
    /** The whole buffer as mapped for writing (BufferUsage::PersistentMapped); empty for
     *  other usages. Write-only: reading it back is allowed but slow on many drivers. Valid
     *  while the buffer lives. */
    [[nodiscard]] std::span<std::byte> mapped() const noexcept { return {m_mapped, m_mapped ? m_size : 0}; }
    /** The usage given at creation. */
    [[nodiscard]] BufferUsage usage() const noexcept { return m_usage; }
    /** The label given to glObjectLabel. */
    [[nodiscard]] const std::string& label() const noexcept { return m_label; }
    /** True when the buffer holds a GL object (not default-constructed or moved from). */
    [[nodiscard]] explicit operator bool() const noexcept { return m_id != 0; }

private:
    std::uint32_t m_id = 0;
    std::size_t m_size = 0;
    std::byte* m_mapped = nullptr;
    BufferUsage m_usage = BufferUsage::Static;
    std::string m_label;
};

/** Views any trivially copyable span as bytes, for BufferDesc::initialData and update(). */
template <class T>
[[nodiscard]] std::span<const std::byte> asBytes(std::span<const T> values) noexcept {
    return std::as_bytes(values);
}

} // namespace myriad::gl
