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
    }
    return {4, GL_FLOAT, GL_FALSE};
}

} // namespace

std::uint32_t attributeSizeBytes(AttributeFormat format) noexcept {
    switch (format) {
    case AttributeFormat::Float1: return 4;
    case AttributeFormat::Float2: return 8;
    case AttributeFormat::Float3: return 12;
    case AttributeFormat::Float4: return 16;
    case AttributeFormat::UByte4Normalized: return 4;
    }
    return 16;
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
        for (const BindingState& existing : bindings) {
            if (existing.binding.binding == binding.binding) {
                throw InvalidArgument(where + ": binding " + std::to_string(binding.binding) +
                                      " is declared twice");
            }
        }
        bindings.push_back({binding, 0, 0, false});
    }
    std::uint32_t usedLocations = 0;
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
        const std::uint32_t end = attribute.offsetBytes + attributeSizeBytes(attribute.format);
        if (end > it->binding.strideBytes) {
            throw InvalidArgument(where + ": attribute at location " +
                                  std::to_string(attribute.location) + " ends at byte " +
                                  std::to_string(end) + ", past its binding's stride " +
                                  std::to_string(it->binding.strideBytes));
        }
        it->elementBytes = std::max(it->elementBytes, end);
    }
    requireCurrentContext("gl::VertexArray");

    glCreateVertexArrays(1, &m_id);
    detail::countObject(detail::ObjectKind::VertexArray, 1);
    for (const VertexAttribute& attribute : desc.attributes) {
        const FormatInfo info = formatInfo(attribute.format);
        glEnableVertexArrayAttrib(m_id, attribute.location);
        glVertexArrayAttribFormat(m_id, attribute.location, info.components, info.type,
                                  info.normalized, attribute.offsetBytes);
        glVertexArrayAttribBinding(m_id, attribute.location, attribute.binding);
    }
    for (const BindingState& state : bindings) {
        glVertexArrayBindingDivisor(m_id, state.binding.binding, state.binding.divisor);
    }
    m_bindings = std::move(bindings);
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
      m_bindings(std::move(other.m_bindings)),
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
    if (state == nullptr) {
        throw InvalidArgument("gl::VertexArray::setVertexBuffer: binding " +
                              std::to_string(binding) + " is not in layout '" + m_label + "'");
    }
    if (!buffer) {
        throw InvalidArgument("gl::VertexArray::setVertexBuffer: the buffer is empty");
    }
    if (offsetBytes > buffer.sizeBytes()) {
        throw OutOfRange("gl::VertexArray::setVertexBuffer: offset " + std::to_string(offsetBytes) +
                         " is past the end of buffer '" + buffer.label() + "' (" +
                         std::to_string(buffer.sizeBytes()) + " bytes)");
    }
    glVertexArrayVertexBuffer(m_id, binding, buffer.id(), static_cast<GLintptr>(offsetBytes),
                              static_cast<GLsizei>(state->binding.strideBytes));
    state->availableBytes = buffer.sizeBytes() - offsetBytes;
    state->attached = true;
}

void VertexArray::setIndexBuffer(const Buffer& buffer, IndexType type, std::uint32_t maxIndex) {
    if (!buffer) {
        throw InvalidArgument("gl::VertexArray::setIndexBuffer: the buffer is empty");
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
        if (state.binding.divisor == 0) {
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
        if (state.binding.divisor != 0) {
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
        if (state.binding.divisor == 0) {
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
