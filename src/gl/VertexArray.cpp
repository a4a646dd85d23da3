#include "myriad/gl/VertexArray.h"

#include "gl/GlCommon.h"
#include "myriad/gl/Buffer.h"
#include "myriad/gl/Loader.h"
#include "myriad/util/Error.h"

#include <algorithm>
#include <limits>
#include <utility>

namespace myriad::gl {
namespace {

constexpr std::uint32_t kMaxSlots = 16;  // GL_MAX_VERTEX_ATTRIBS and bindings are at least 16
constexpr std::uint32_t kMaxStrideBytes = 2048;          // GL_MAX_VERTEX_ATTRIB_STRIDE's minimum (GL 4.4+)
constexpr std::uint32_t kMaxRelativeOffsetBytes = 2047;  // GL_MAX_VERTEX_ATTRIB_RELATIVE_OFFSET's minimum

struct FormatInfo {
    GLint components;
    GLenum type;
    GLboolean normalized;
};

FormatInfo formatInfo(AttributeFormat format) noexcept {
    switch (format) {
    case AttributeFormat::Float1: return {1, GL_FLOAT, GL_FALSE};
    case AttributeFormat::Float2: return {2, GL_FLOAT, GL_FALSE};
    case AttributeFormat::Float3: return {3, GL_FLOAT, GL_FALSE};
    case AttributeFormat::Float4: return {4, GL_FLOAT, GL_FALSE};
    case AttributeFormat::UByte4Normalized: return {4, GL_UNSIGNED_BYTE, GL_TRUE};
    case AttributeFormat::UInt2: return {2, GL_UNSIGNED_INT, GL_FALSE};
    case AttributeFormat::UInt16x4: return {4, GL_UNSIGNED_SHORT, GL_FALSE};
    case AttributeFormat::UNorm8x2: return {2, GL_UNSIGNED_BYTE, GL_TRUE};
    case AttributeFormat::SNorm8x2: return {2, GL_BYTE, GL_TRUE};
    case AttributeFormat::UScaled8x2: return {2, GL_UNSIGNED_BYTE, GL_FALSE};
    case AttributeFormat::SScaled8x2: return {2, GL_BYTE, GL_FALSE};
    case AttributeFormat::SNorm8x4: return {4, GL_BYTE, GL_TRUE};
    case AttributeFormat::UScaled8x4: return {4, GL_UNSIGNED_BYTE, GL_FALSE};
    case AttributeFormat::SScaled8x4: return {4, GL_BYTE, GL_FALSE};
    case AttributeFormat::UNorm16x2: return {2, GL_UNSIGNED_SHORT, GL_TRUE};
    case AttributeFormat::SNorm16x2: return {2, GL_SHORT, GL_TRUE};
    case AttributeFormat::UScaled16x2: return {2, GL_UNSIGNED_SHORT, GL_FALSE};
    case AttributeFormat::SScaled16x2: return {2, GL_SHORT, GL_FALSE};
    case AttributeFormat::UNorm16x4: return {4, GL_UNSIGNED_SHORT, GL_TRUE};
    case AttributeFormat::SNorm16x4: return {4, GL_SHORT, GL_TRUE};
    case AttributeFormat::UScaled16x4: return {4, GL_UNSIGNED_SHORT, GL_FALSE};
    case AttributeFormat::SScaled16x4: return {4, GL_SHORT, GL_FALSE};
    }
    return {4, GL_FLOAT, GL_FALSE};
}

/** Bytes of one component of @p format: 4 (float, 32-bit integer), 2 or 1. */
std::uint32_t componentBytes(AttributeFormat format) noexcept {
    const FormatInfo info = formatInfo(format);
    switch (info.type) {
    case GL_BYTE:
    case GL_UNSIGNED_BYTE: return 1;
    case GL_SHORT:
    case GL_UNSIGNED_SHORT: return 2;
    default: return 4;
    }
}

} // namespace

std::uint32_t attributeSizeBytes(AttributeFormat format) noexcept {
    return static_cast<std::uint32_t>(formatInfo(format).components) * componentBytes(format);
}

VertexArray::VertexArray(const VertexLayoutDesc& desc) {
    const std::string where = "gl::VertexArray('" + std::string(desc.label) + "')";
    std::vector<BindingState> bindings;
    for (const VertexBinding& binding : desc.bindings) {
        if (binding.binding >= kMaxSlots) {
            throw InvalidArgument(where + ": binding " + std::to_string(binding.binding) + " >= 16");
        }
        if (binding.strideBytes == 0) {
            throw InvalidArgument(where + ": binding " + std::to_string(binding.binding) +
                                  " has strideBytes 0");
        }
        // GL_MAX_VERTEX_ATTRIB_STRIDE is at least 2048 (GL 4.5 table 23.55); past it GL refuses
        // the binding and would leave it empty while this object believed it attached.
        if (binding.strideBytes > kMaxStrideBytes) {
            throw InvalidArgument(where + ": binding " + std::to_string(binding.binding) + " has strideBytes " +
                                  std::to_string(binding.strideBytes) + ", above " +
                                  std::to_string(kMaxStrideBytes) + " (GL_MAX_VERTEX_ATTRIB_STRIDE's minimum)");
        }
        for (const BindingState& existing : bindings) {
            if (existing.binding.binding == binding.binding) {
                throw InvalidArgument(where + ": binding " + std::to_string(binding.binding) +
                                      " is declared twice");
            }
        }
        bindings.push_back({binding, 0, 0, false, binding.binding, 0, 0});
    }
    std::uint32_t usedLocations = 0;
    std::vector<AttributeState> attributes;
    attributes.reserve(desc.attributes.size());
    for (const VertexAttribute& attribute : desc.attributes) {
        if (attribute.location >= kMaxSlots) {
            throw InvalidArgument(where + ": location " + std::to_string(attribute.location) +
                                  " >= 16");
        }
        if ((usedLocations & (1u << attribute.location)) != 0) {
            throw InvalidArgument(where + ": location " + std::to_string(attribute.location) +
                                  " is used twice");
        }
        usedLocations |= 1u << attribute.location;
        auto it = std::find_if(bindings.begin(), bindings.end(), [&](const BindingState& b) {
            return b.binding.binding == attribute.binding;
        });
        if (it == bindings.end()) {
            throw InvalidArgument(where + ": attribute at location " +
                                  std::to_string(attribute.location) + " reads binding " +
                                  std::to_string(attribute.binding) + ", which is not declared");
        }
        if (attribute.offsetBytes > kMaxRelativeOffsetBytes) {
            throw InvalidArgument(where + ": attribute at location " + std::to_string(attribute.location) +
                                  " has offsetBytes " + std::to_string(attribute.offsetBytes) + ", above " +
                                  std::to_string(kMaxRelativeOffsetBytes) +
                                  " (GL_MAX_VERTEX_ATTRIB_RELATIVE_OFFSET's minimum)");
        }
        // GL 4.5 section 10.3: a datum of N basic machine units must start at a multiple of N,
        // so float attributes need 4-byte offsets and strides, 16-bit ones 2-byte (WebGL makes
        // it an error too).
        const std::uint32_t component = componentBytes(attribute.format);
        if (attribute.offsetBytes % component != 0 || it->binding.strideBytes % component != 0) {
            throw InvalidArgument(where + ": attribute at location " + std::to_string(attribute.location) +
                                  " has " + std::to_string(component) + "-byte components, but offsetBytes " +
                                  std::to_string(attribute.offsetBytes) + " or its binding strideBytes " +
                                  std::to_string(it->binding.strideBytes) + " is not a multiple of " +
                                  std::to_string(component));
        }
        it->offsetAlignment = std::max(it->offsetAlignment, component);
        const std::uint32_t end = attribute.offsetBytes + attributeSizeBytes(attribute.format);  // <= 2047 + 16
        if (end > it->binding.strideBytes) {
            throw InvalidArgument(where + ": attribute at location " +
                                  std::to_string(attribute.location) + " ends at byte " +
                                  std::to_string(end) + ", past its binding's stride " +
                                  std::to_string(it->binding.strideBytes));
        }
        it->elementBytes = std::max(it->elementBytes, end);
        attributes.push_back({attribute.location, attribute.offsetBytes,
                              attributeSizeBytes(attribute.format), attribute.binding});
    }
    requireCurrentContext("gl::VertexArray");

    glCreateVertexArrays(1, &m_id);
    detail::countObject(detail::ObjectKind::VertexArray, 1);
    for (const VertexAttribute& attribute : desc.attributes) {
        const FormatInfo info = formatInfo(attribute.format);
        glEnableVertexArrayAttrib(m_id, attribute.location);
        if (attribute.format == AttributeFormat::UInt2 || attribute.format == AttributeFormat::UInt16x4) {
            // Integer inputs take the I variant: the plain one would convert them to float.
            glVertexArrayAttribIFormat(m_id, attribute.location, info.components, info.type, attribute.offsetBytes);
        } else {
            glVertexArrayAttribFormat(m_id, attribute.location, info.components, info.type,
                                      info.normalized, attribute.offsetBytes);
        }
        glVertexArrayAttribBinding(m_id, attribute.location, attribute.binding);
    }
    for (const BindingState& state : bindings) {
        glVertexArrayBindingDivisor(m_id, state.binding.binding, state.binding.divisor);
    }
    m_bindings = std::move(bindings);
    m_attributes = std::move(attributes);
    m_label = detail::labelOrDefault(desc.label, "vertex-array", m_id);
    detail::setLabel(GL_VERTEX_ARRAY, m_id, m_label);
}

VertexArray::~VertexArray() {
    if (m_id != 0) {
        glDeleteVertexArrays(1, &m_id);
        detail::countObject(detail::ObjectKind::VertexArray, -1);
    }
}

VertexArray::VertexArray(VertexArray&& other) noexcept
    : m_id(std::exchange(other.m_id, 0)), m_label(std::move(other.m_label)),
      m_bindings(std::move(other.m_bindings)), m_attributes(std::move(other.m_attributes)),
      m_indexBufferBytes(std::exchange(other.m_indexBufferBytes, 0)),
      m_indexType(other.m_indexType), m_maxIndex(other.m_maxIndex) {}

VertexArray& VertexArray::operator=(VertexArray&& other) noexcept {
    if (this != &other) {
        if (m_id != 0) {
            glDeleteVertexArrays(1, &m_id);
            detail::countObject(detail::ObjectKind::VertexArray, -1);
        }
        m_id = std::exchange(other.m_id, 0);
        m_label = std::move(other.m_label);
        m_bindings = std::move(other.m_bindings);
        m_attributes = std::move(other.m_attributes);
        m_indexBufferBytes = std::exchange(other.m_indexBufferBytes, 0);
        m_indexType = other.m_indexType;
        m_maxIndex = other.m_maxIndex;
    }
    return *this;
}

VertexArray::BindingState* VertexArray::findBinding(std::uint32_t binding) noexcept {
    for (BindingState& state : m_bindings) {
        if (state.binding.binding == binding) {
            return &state;
        }
    }
    return nullptr;
}

void VertexArray::setVertexBuffer(std::uint32_t binding, const Buffer& buffer,
                                  std::size_t offsetBytes) {
    BindingState* state = findBinding(binding);
    if (state == nullptr || state->source != binding) {
        throw InvalidArgument("gl::VertexArray::setVertexBuffer: binding " +
                              std::to_string(binding) + " is not in layout '" + m_label + "'" +
                              (state != nullptr ? " (it holds attributes vertexAttribDivisor moved off "
                                                  "binding " + std::to_string(state->source) + ")"
                                                : std::string()));
    }
    if (!buffer) {
        throw InvalidArgument("gl::VertexArray::setVertexBuffer: the buffer is empty");
    }
    if (offsetBytes > buffer.sizeBytes()) {
        throw OutOfRange("gl::VertexArray::setVertexBuffer: offset " + std::to_string(offsetBytes) +
                         " is past the end of buffer '" + buffer.label() + "' (" +
                         std::to_string(buffer.sizeBytes()) + " bytes)");
    }
    if (offsetBytes % state->offsetAlignment != 0) {
        throw InvalidArgument("gl::VertexArray::setVertexBuffer: offset " + std::to_string(offsetBytes) +
                              " of binding " + std::to_string(binding) + " is not a multiple of " +
                              std::to_string(state->offsetAlignment) + ", the size of its attributes' largest "
                              "component (GL 4.5 section 10.3)");
    }
    // The declared binding and every binding split off it read the same buffer and offset.
    for (BindingState& each : m_bindings) {
        if (each.source != binding) {
            continue;
        }
        glVertexArrayVertexBuffer(m_id, each.binding.binding, buffer.id(),
                                  static_cast<GLintptr>(offsetBytes),
                                  static_cast<GLsizei>(each.binding.strideBytes));
        each.availableBytes = buffer.sizeBytes() - offsetBytes;
        each.attached = true;
        each.bufferId = buffer.id();
        each.bufferOffset = offsetBytes;
    }
}

const VertexArray::AttributeState& VertexArray::attributeAt(std::uint32_t index,
                                                            const char* function) const {
    if (index >= kMaxSlots) {
        throw OutOfRange(std::string(function) + ": attribute index " + std::to_string(index) +
                         " >= 16 (GL_MAX_VERTEX_ATTRIBS as myriad uses it)");
    }
    for (const AttributeState& attribute : m_attributes) {
        if (attribute.location == index) {
            return attribute;
        }
    }
    throw InvalidArgument(std::string(function) + ": layout '" + m_label +
                          "' has no attribute at location " + std::to_string(index));
}

std::uint32_t VertexArray::divisor(std::uint32_t index) const {
    const AttributeState& attribute = attributeAt(index, "gl::VertexArray::divisor");
    for (const BindingState& state : m_bindings) {
        if (state.binding.binding == attribute.binding) {
            return state.binding.divisor;
        }
    }
    return 0;  // not reached: every attribute reads a binding of the layout
}

std::uint32_t VertexArray::attributeBinding(std::uint32_t index) const {
    return attributeAt(index, "gl::VertexArray::attributeBinding").binding;
}

void VertexArray::vertexAttribDivisor(std::uint32_t index, std::uint32_t divisor) {
    constexpr const char* kFunction = "gl::VertexArray::vertexAttribDivisor";
    if (m_id == 0) {
        throw InvalidArgument(std::string(kFunction) + ": the vertex array is empty");
    }
    const AttributeState& current = attributeAt(index, kFunction);
    const auto bindingIndex = [&](std::uint32_t binding) {
        std::size_t i = 0;
        while (m_bindings[i].binding.binding != binding) {
            ++i;
        }
        return i;
    };
    const std::size_t from = bindingIndex(current.binding);
    if (m_bindings[from].binding.divisor == divisor) {
        return;
    }
    const std::uint32_t source = m_bindings[from].source;
    std::size_t readers = 0;
    for (const AttributeState& attribute : m_attributes) {
        readers += attribute.binding == current.binding ? 1 : 0;
    }

    // Work on copies and swap them in at the end: nothing changes if anything throws.
    std::vector<BindingState> bindings = m_bindings;
    std::vector<AttributeState> attributes = m_attributes;
    AttributeState& moving = *std::find_if(attributes.begin(), attributes.end(),
                                           [&](const AttributeState& a) { return a.location == index; });
    std::size_t to = bindings.size();
    for (std::size_t i = 0; i < bindings.size(); ++i) {
        if (bindings[i].source == source && bindings[i].binding.divisor == divisor) {
            to = i;  // a binding of the same family already reads at this divisor: join it
            break;
        }
    }
    bool changeInPlace = false;
    bool newBinding = false;
    if (to == bindings.size()) {
        if (readers == 1) {
            changeInPlace = true;
            to = from;
        } else {
            std::uint32_t used = 0;
            for (const BindingState& state : bindings) {
                used |= 1u << state.binding.binding;
            }
            std::uint32_t slot = index;  // glVertexAttribDivisor's own choice, when free
            if ((used & (1u << slot)) != 0) {
                slot = 0;
                while (slot < kMaxSlots && (used & (1u << slot)) != 0) {
                    ++slot;
                }
            }
            if (slot >= kMaxSlots) {
                throw CapacityError(std::string(kFunction) + ": attribute " + std::to_string(index) +
                                    " of '" + m_label + "' needs a binding of its own for divisor " +
                                    std::to_string(divisor) + ", and all 16 bindings are taken");
            }
            BindingState split = bindings[from];
            split.binding.binding = slot;
            split.binding.divisor = divisor;
            bindings.push_back(split);
            newBinding = true;
        }
    }
    if (changeInPlace) {
        bindings[from].binding.divisor = divisor;
    } else {
        moving.binding = bindings[to].binding.binding;
    }
    // Element sizes follow the attributes; a split binding left with none is dropped.
    for (BindingState& state : bindings) {
        state.elementBytes = 0;
        for (const AttributeState& attribute : attributes) {
            if (attribute.binding == state.binding.binding) {
                state.elementBytes = std::max(state.elementBytes, attribute.offsetBytes + attribute.sizeBytes);
            }
        }
    }
    const std::uint32_t left = bindings[from].binding.binding;
    const bool dropLeft = !changeInPlace && bindings[from].elementBytes == 0 && bindings[from].source != left;
    if (dropLeft) {
        bindings.erase(bindings.begin() + static_cast<std::ptrdiff_t>(from));
    }

    // GL: allocations are done; from here nothing throws.
    const BindingState& target = *std::find_if(bindings.begin(), bindings.end(), [&](const BindingState& b) {
        return b.binding.binding == (changeInPlace ? left : moving.binding);
    });
    if (newBinding && target.attached) {
        glVertexArrayVertexBuffer(m_id, target.binding.binding, target.bufferId,
                                  static_cast<GLintptr>(target.bufferOffset),
                                  static_cast<GLsizei>(target.binding.strideBytes));
    }
    if (changeInPlace || newBinding) {
        glVertexArrayBindingDivisor(m_id, target.binding.binding, divisor);
    }
    if (!changeInPlace) {
        glVertexArrayAttribBinding(m_id, index, target.binding.binding);
    }
    if (dropLeft) {
        glVertexArrayVertexBuffer(m_id, left, 0, 0, 0);  // nothing reads it any more
    }
    m_bindings = std::move(bindings);
    m_attributes = std::move(attributes);
}

void VertexArray::setIndexBuffer(const Buffer& buffer, IndexType type, std::uint32_t maxIndex) {
    if (!buffer) {
        throw InvalidArgument("gl::VertexArray::setIndexBuffer: the buffer is empty");
    }
    if (m_id == 0) {
        throw InvalidArgument("gl::VertexArray::setIndexBuffer: the vertex array is empty");
    }
    const std::uint32_t largest = type == IndexType::UInt8 ? 0xFFu : (type == IndexType::UInt16 ? 0xFFFFu : 0xFFFFFFFFu);
    if (maxIndex > largest) {
        throw InvalidArgument("gl::VertexArray::setIndexBuffer: maxIndex " + std::to_string(maxIndex) +
                              " does not fit the index type (largest " + std::to_string(largest) + ")");
    }
    glVertexArrayElementBuffer(m_id, buffer.id());
    m_indexBufferBytes = buffer.sizeBytes();
    m_indexType = type;
    m_maxIndex = maxIndex;
}

namespace {

// Elements a binding can supply: the last one must fit whole (its attributes end at
// elementBytes), the others take a full stride each.
std::uint64_t elementsAvailable(std::size_t availableBytes, std::uint32_t elementBytes,
                                std::uint32_t stride) noexcept {
    if (availableBytes < elementBytes || elementBytes == 0) {
        return elementBytes == 0 ? std::numeric_limits<std::uint64_t>::max() : 0;
    }
    return (availableBytes - elementBytes) / stride + 1;
}

} // namespace

std::uint64_t VertexArray::vertexLimit() const noexcept {
    std::uint64_t limit = std::numeric_limits<std::uint32_t>::max();
    for (const BindingState& state : m_bindings) {
        if (state.binding.divisor == 0 && state.elementBytes > 0) {
            limit = std::min(limit, state.attached ? elementsAvailable(state.availableBytes,
                                                                       state.elementBytes,
                                                                       state.binding.strideBytes)
                                                   : 0);
        }
    }
    return limit;
}

std::uint64_t VertexArray::instanceLimit() const noexcept {
    std::uint64_t limit = std::numeric_limits<std::uint64_t>::max();
    for (const BindingState& state : m_bindings) {
        if (state.binding.divisor != 0 && state.elementBytes > 0) {
            const std::uint64_t elements =
                state.attached ? elementsAvailable(state.availableBytes, state.elementBytes,
                                                   state.binding.strideBytes)
                               : 0;
            const std::uint64_t instances =
                elements > std::numeric_limits<std::uint64_t>::max() / state.binding.divisor
                    ? std::numeric_limits<std::uint64_t>::max()
                    : elements * state.binding.divisor;
            limit = std::min(limit, instances);
        }
    }
    return limit;
}

bool VertexArray::canSupplyInstances(std::uint32_t instanceCount,
                                     std::uint32_t baseInstance) const noexcept {
    if (instanceCount == 0) {
        return true;
    }
    for (const BindingState& state : m_bindings) {
        if (state.binding.divisor == 0 || state.elementBytes == 0) {
            continue;
        }
        const std::uint64_t elements =
            state.attached
                ? elementsAvailable(state.availableBytes, state.elementBytes, state.binding.strideBytes)
                : 0;
        const std::uint64_t divisor = state.binding.divisor;
        const std::uint64_t needed = std::uint64_t{baseInstance} + (instanceCount + divisor - 1) / divisor;
        if (needed > elements) {
            return false;
        }
    }
    return true;
}

void checkDrawable(const VertexArray& vertexArray, const char* function) {
    if (vertexArray.m_id == 0) {
        throw InvalidArgument(std::string(function) + ": the vertex array is empty");
    }
    for (const VertexArray::BindingState& state : vertexArray.m_bindings) {
        if (!state.attached && state.elementBytes > 0) {
            throw InvalidArgument(std::string(function) + ": binding " +
                                  std::to_string(state.binding.binding) + " of '" +
                                  vertexArray.m_label + "' has no buffer attached");
        }
    }
}

} // namespace myriad::gl
