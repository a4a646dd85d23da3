#pragma once
/** @file
 *  Vertex layouts with per-binding divisors, as vertex array objects (VAOs).
 *
 *  The ANGLE_instanced_arrays / WebGL 2 model on OpenGL 4.5 DSA: each buffer binding has a
 *  stride and a divisor (0: advance per vertex; 1: per instance; n: every n instances), and each
 *  attribute reads from one binding (OpenGL 4.5 section 10.3.2, glVertexArrayBindingDivisor).
 *  One VAO per layout, so a divisor set for one draw can never leak into another. */
#include "myriad/core/MeshData.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace myriad::gl {

class Buffer;

/** Component type and count of one attribute as stored in its buffer. */
enum class AttributeFormat : std::uint8_t {
    Float1, Float2, Float3, Float4,  ///< 32-bit floats
    UByte4Normalized,                ///< 4 unsigned bytes read as 0..1 floats (colours)
};

/** Size in bytes of one attribute of @p format. */
[[nodiscard]] std::uint32_t attributeSizeBytes(AttributeFormat format) noexcept;

/** One shader input: `layout(location = location) in vecN`, read from @p binding. */
struct VertexAttribute {
    std::uint32_t location = 0;      ///< shader location, < 16
    AttributeFormat format = AttributeFormat::Float4;  ///< type and component count as stored in the buffer
    std::uint32_t offsetBytes = 0;   ///< from the start of one element of the binding
    std::uint32_t binding = 0;       ///< which VertexBinding feeds it
};

/** One buffer slot of a layout. */
struct VertexBinding {
    std::uint32_t binding = 0;      ///< slot number, < 16
    std::uint32_t strideBytes = 0;  ///< bytes between consecutive elements, > 0
    std::uint32_t divisor = 0;      ///< 0: per vertex; n > 0: next element every n instances
};

/** A whole layout. Defaults: no attributes, no bindings, label "vertex-array#<id>". */
struct VertexLayoutDesc {
    std::vector<VertexAttribute> attributes;  ///< shader inputs; locations unique
    std::vector<VertexBinding> bindings;  ///< buffer slots the attributes read from
    std::string_view label{};  ///< glObjectLabel; copied; empty: "vertex-array#<id>"
};

/** A VAO built from a VertexLayoutDesc, with buffers attached per binding.
 *  Remembers each attached buffer's size so draws can refuse to read past an end.
 *  GL calls: glCreateVertexArrays, glEnableVertexArrayAttrib, glVertexArrayAttribFormat,
 *  glVertexArrayAttribBinding, glVertexArrayBindingDivisor, glVertexArrayVertexBuffer,
 *  glVertexArrayElementBuffer, glObjectLabel.
 *  Ownership: move-only RAII; does not own the buffers attached to it, which must outlive the
 *  draws that use it. Thread safety: call only on the context's thread. */
class VertexArray {
public:
    VertexArray() noexcept = default;
    /** @throws InvalidArgument if an attribute names a binding not in the layout, a stride is 0,
     *  a location or binding is >= 16, two attributes share a location, or an attribute does not
     *  fit inside its binding's stride. @throws GlError with no current context. */
    explicit VertexArray(const VertexLayoutDesc& desc);
    ~VertexArray();
    /** Takes over the GL object of @p other, which is left empty (destructible without a context). */
    VertexArray(VertexArray&& other) noexcept;
    /** Deletes this object's GL object, then takes over that of @p other, which is left empty. */
    VertexArray& operator=(VertexArray&& other) noexcept;
    VertexArray(const VertexArray&) = delete;
    VertexArray& operator=(const VertexArray&) = delete;

    /** Attaches @p buffer to @p binding, elements starting at @p offsetBytes.
     *  @throws InvalidArgument if the binding is not in the layout or the buffer is empty;
     *  OutOfRange if offsetBytes > buffer size. */
    void setVertexBuffer(std::uint32_t binding, const Buffer& buffer, std::size_t offsetBytes = 0);
    /** Attaches @p buffer as the index buffer. @p maxIndex is the largest index value it holds:
     *  draws then refuse to run when that index would read past a per-vertex buffer.
     *  @throws InvalidArgument if the buffer is empty. */
    void setIndexBuffer(const Buffer& buffer, IndexType type, std::uint32_t maxIndex);

    /** How many vertices the per-vertex bindings can supply (the smallest of them; UINT32_MAX
     *  when there is no per-vertex binding). */
    [[nodiscard]] std::uint64_t vertexLimit() const noexcept;
    /** How many instances the per-instance bindings can supply, divisors included (UINT64_MAX
     *  when there is no per-instance binding). */
    [[nodiscard]] std::uint64_t instanceLimit() const noexcept;
    /** True when instances [0, instanceCount) drawn from @p baseInstance read only elements
     *  that exist. GL reads element floor(instance / divisor) + baseInstance of each
     *  per-instance binding (OpenGL 4.5 section 10.4): the base is added after the division. */
    [[nodiscard]] bool canSupplyInstances(std::uint32_t instanceCount,
                                          std::uint32_t baseInstance) const noexcept;

    /** The GL name of the VAO; 0 when empty. */
    [[nodiscard]] std::uint32_t id() const noexcept { return m_id; }
    /** The label given to glObjectLabel. */
    [[nodiscard]] const std::string& label() const noexcept { return m_label; }
    /** True once an index (element) buffer is attached. */
    [[nodiscard]] bool hasIndexBuffer() const noexcept { return m_indexBufferBytes > 0; }
    /** The index width given when the index buffer was attached. */
    [[nodiscard]] IndexType indexType() const noexcept { return m_indexType; }
    /** Size in bytes of the attached index buffer; 0 when none. */
    [[nodiscard]] std::size_t indexBufferBytes() const noexcept { return m_indexBufferBytes; }
    /** The largest index value in the attached index buffer, as given to setIndexBuffer(): draws
     *  refuse per-vertex buffers too short for it. */
    [[nodiscard]] std::uint32_t maxIndex() const noexcept { return m_maxIndex; }

private:
    struct BindingState {
        VertexBinding binding;
        std::uint32_t elementBytes = 0;  ///< end of the last attribute within one element
        std::size_t availableBytes = 0;  ///< buffer size - offset; 0 while nothing is attached
        bool attached = false;
    };
    [[nodiscard]] BindingState* findBinding(std::uint32_t binding) noexcept;
    friend void checkDrawable(const VertexArray&, const char*);

    std::uint32_t m_id = 0;
    std::string m_label;
    std::vector<BindingState> m_bindings;
    std::size_t m_indexBufferBytes = 0;
    IndexType m_indexType = IndexType::UInt32;
    std::uint32_t m_maxIndex = 0;
};

} // namespace myriad::gl
