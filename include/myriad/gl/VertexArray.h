#pragma once
/** @file
 *  Vertex layouts with per-binding divisors, as vertex array objects (VAOs).
 *
 *  The ANGLE_instanced_arrays / WebGL 2 model on OpenGL 4.5 DSA: each buffer binding has a
 *  stride and a divisor (0: advance per vertex; 1: per instance; n: every n instances), and each
 *  attribute reads from one binding (OpenGL 4.5 section 10.3.2, glVertexArrayBindingDivisor).
 *  One VAO per layout, so a divisor set for one draw can never leak into another.
 *  Divisors can also be changed per attribute afterwards, as ANGLE_instanced_arrays'
 *  vertexAttribDivisorANGLE does (VertexArray::vertexAttribDivisor, VertexArray::divisor). */
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
    UByte4Normalized,                ///< 4 unsigned bytes read as 0..1 floats (colours); UNorm8x4
    /** 8- and 16-bit integers read as floats, two or four to an attribute (Vulkan's VkFormat
     *  names; VertexStorage in myriad/core/MeshData.h says what each reads as): UNorm c / (2^b
     *  - 1), SNorm max(c / (2^(b-1) - 1), -1), UScaled and SScaled the value itself (OpenGL
     *  4.5 section 10.2.1, glVertexArrayAttribFormat with normalized GL_TRUE or GL_FALSE). */
    UNorm8x2, SNorm8x2, UScaled8x2, SScaled8x2,
    SNorm8x4, UScaled8x4, SScaled8x4,
    UNorm16x2, SNorm16x2, UScaled16x2, SScaled16x2,
    UNorm16x4, SNorm16x4, UScaled16x4, SScaled16x4,
    /** Two 32-bit unsigned integers read as integers (`in uvec2`; glVertexArrayAttribIFormat,
     *  GL 4.5 section 10.3.2), never converted to float: indices, such as the renderer's
     *  per-instance (draw row, instance) pair. */
    UInt2,
    /** Four 16-bit unsigned integers read as integers (`in uvec4`, glVertexArrayAttribIFormat):
     *  a skinned vertex's joint indices (glTF JOINTS_0). */
    UInt16x4,
    UNorm8x4 = UByte4Normalized,  ///< the same format under its VkFormat name
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
     *  a location or binding is >= 16, two attributes share a location, an attribute does not
     *  fit inside its binding's stride, or an attribute's offset or its binding's stride is not a
     *  multiple of its component size (4 bytes for float, 2 for 16-bit; GL 4.5 section 10.3).
     *  @throws GlError with no current context. */
    explicit VertexArray(const VertexLayoutDesc& desc);
    ~VertexArray();
    /** Takes over the GL object of @p other, which is left empty (destructible without a context). */
    VertexArray(VertexArray&& other) noexcept;
    /** Deletes this object's GL object, then takes over that of @p other, which is left empty. */
    VertexArray& operator=(VertexArray&& other) noexcept;
    VertexArray(const VertexArray&) = delete;
    VertexArray& operator=(const VertexArray&) = delete;

    /** Attaches @p buffer to @p binding, elements starting at @p offsetBytes. Attributes that
     *  vertexAttribDivisor() moved off @p binding to a binding of their own read the same
     *  buffer at the same offset: those bindings are attached too.
     *  @throws InvalidArgument if the binding is not one the layout declared, the buffer is
     *  empty, or @p offsetBytes is not a multiple of the largest component size among the
     *  attributes reading the binding (4 for float, 2 for 16-bit: GL 4.5 section 10.3's alignment
     *  rule, an error in WebGL too); OutOfRange if
     *  offsetBytes > buffer size. */
    void setVertexBuffer(std::uint32_t binding, const Buffer& buffer, std::size_t offsetBytes = 0);
    /** Attaches @p buffer as the index buffer. @p maxIndex is the largest index value it holds
     *  (the caller's promise: it is not checked against the data): draws then refuse to run
     *  when that index would read past a per-vertex buffer.
     *  @throws InvalidArgument if the buffer or the vertex array is empty, or @p maxIndex does
     *  not fit @p type (above 255 for UInt8, 65,535 for UInt16). */
    void setIndexBuffer(const Buffer& buffer, IndexType type, std::uint32_t maxIndex);

    /** Sets the divisor the attribute at shader location @p index reads with: 0 advances per
     *  vertex, n > 0 one element every n instances. ANGLE_instanced_arrays'
     *  vertexAttribDivisorANGLE(index, divisor) on this vertex array, on GL 4.5's model where a
     *  divisor belongs to a binding (OpenGL 4.5 section 10.3.2 defines glVertexAttribDivisor as
     *  glVertexArrayAttribBinding(index, index) + glVertexArrayBindingDivisor(index, divisor)).
     *  The attribute's binding neighbours keep their divisor:
     *  - alone on its binding, that binding's divisor changes;
     *  - sharing it, the attribute moves to a binding of its own (binding @p index when that
     *    slot is free, else the lowest free one) that reads the same buffer with the same
     *    offset and stride; setVertexBuffer() on the original binding attaches both;
     *  - when a binding split off the same original binding already has @p divisor, the
     *    attribute joins it (setting a divisor back undoes the split).
     *  vertexLimit(), instanceLimit() and canSupplyInstances() count from the new bindings, so a
     *  draw that would now read past a buffer's end is refused. A divisor equal to the current
     *  one changes nothing. A split re-attaches the buffer last given to setVertexBuffer() by
     *  its GL name, so that buffer must still exist (after replacing it, call setVertexBuffer()
     *  again first): a deleted name is a GL error, and a name GL has reused would attach another
     *  buffer. Unlike the extension, a layout whose every attribute is instanced (no divisor 0)
     *  is not refused: GL 4.5 draws it (each vertex reads nothing per vertex), and myriad's
     *  particle pass relies on that.
     *  GL calls: glVertexArrayAttribBinding, glVertexArrayBindingDivisor,
     *  glVertexArrayVertexBuffer (none when nothing changes).
     *  @throws OutOfRange if @p index >= 16 (GL_MAX_VERTEX_ATTRIBS as myriad uses it: the
     *  minimum GL 4.5 guarantees); InvalidArgument if no attribute of this layout is at
     *  location @p index, or the vertex array is empty; CapacityError if the attribute must
     *  move and all 16 bindings are taken. Nothing changes when it throws. */
    void vertexAttribDivisor(std::uint32_t index, std::uint32_t divisor);
    /** The divisor the attribute at shader location @p index reads with now: the layout's, or
     *  the last vertexAttribDivisor() given for it (ANGLE_instanced_arrays'
     *  getVertexAttrib(index, VERTEX_ATTRIB_ARRAY_DIVISOR_ANGLE); GL_VERTEX_ATTRIB_ARRAY_DIVISOR,
     *  OpenGL 4.5 section 10.5). Answered from this object's own record, no GL call.
     *  @throws OutOfRange if @p index >= 16; InvalidArgument if no attribute of this layout is
     *  at location @p index. */
    [[nodiscard]] std::uint32_t divisor(std::uint32_t index) const;
    /** The binding the attribute at shader location @p index reads from now: the layout's, or
     *  the one vertexAttribDivisor() moved it to. @throws as divisor(). */
    [[nodiscard]] std::uint32_t attributeBinding(std::uint32_t index) const;

    /** How many vertices the per-vertex bindings can supply (the smallest of them; UINT32_MAX
     *  when there is no per-vertex binding). A binding no attribute reads does not count. */
    [[nodiscard]] std::uint64_t vertexLimit() const noexcept;
    /** How many instances the per-instance bindings can supply, divisors included (UINT64_MAX
     *  when there is no per-instance binding). A binding no attribute reads does not count. */
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
        std::uint32_t elementBytes = 0;  ///< end of the last attribute within one element; 0: none reads it
        std::size_t availableBytes = 0;  ///< buffer size - offset; 0 while nothing is attached
        bool attached = false;
        std::uint32_t source = 0;  ///< the declared binding it was split from (itself if declared)
        std::uint32_t bufferId = 0;      ///< GL name of the attached buffer; 0: none
        std::size_t bufferOffset = 0;    ///< offset given to setVertexBuffer
        std::uint32_t offsetAlignment = 1;  ///< its attributes' largest component size: offsets a multiple
    };
    struct AttributeState {
        std::uint32_t location = 0;
        std::uint32_t offsetBytes = 0;
        std::uint32_t sizeBytes = 0;
        std::uint32_t binding = 0;  ///< the binding it reads now
    };
    [[nodiscard]] BindingState* findBinding(std::uint32_t binding) noexcept;
    [[nodiscard]] const AttributeState& attributeAt(std::uint32_t index, const char* function) const;
    friend void checkDrawable(const VertexArray&, const char*);

    std::uint32_t m_id = 0;
    std::string m_label;
    std::vector<BindingState> m_bindings;
    std::vector<AttributeState> m_attributes;
    std::size_t m_indexBufferBytes = 0;
    IndexType m_indexType = IndexType::UInt32;
    std::uint32_t m_maxIndex = 0;
};

} // namespace myriad::gl
