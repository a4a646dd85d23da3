#include "myriad/core/InstancedMeshNode.h"

#include "core/Validate.h"
#include "myriad/util/Error.h"

#include <string>

namespace myriad {
namespace {

InstanceRecord packTransform(const glm::mat4& m, const glm::vec4& color) noexcept {
    // glm is column-major (m[column][row]); the record stores rows.
    return {glm::vec4(m[0][0], m[1][0], m[2][0], m[3][0]),
            glm::vec4(m[0][1], m[1][1], m[2][1], m[3][1]),
            glm::vec4(m[0][2], m[1][2], m[2][2], m[3][2]), color};
}

glm::mat4 unpackTransform(const InstanceRecord& r) noexcept {
    return {glm::vec4(r.row0.x, r.row1.x, r.row2.x, 0.0f),
            glm::vec4(r.row0.y, r.row1.y, r.row2.y, 0.0f),
            glm::vec4(r.row0.z, r.row1.z, r.row2.z, 0.0f),
            glm::vec4(r.row0.w, r.row1.w, r.row2.w, 1.0f)};
}

void checkTransform(const glm::mat4& transform, const char* function) {
    detail::requireFinite(transform, function, "transform");
    detail::requireAffine(transform, function);
}

void checkCapacity(std::size_t capacity, const char* function) {
    if (capacity > InstancedMeshNode::maxCapacity) {
        throw CapacityError(std::string(function) + ": capacity " + std::to_string(capacity) +
                            " > maxCapacity " + std::to_string(InstancedMeshNode::maxCapacity));
    }
}

bool touches(const Aabb& box, const Aabb& bounds) noexcept {
    for (int axis = 0; axis < 3; ++axis) {
        if (box.min[axis] <= bounds.min[axis] || box.max[axis] >= bounds.max[axis]) {
            return true;
        }
    }
    return false;
}

} // namespace

InstancedMeshNode::InstancedMeshNode(std::shared_ptr<const MeshGeometry> mesh, Material material,
                                     std::size_t capacity, std::string name)
    : MeshNode(std::move(mesh), std::move(material), std::move(name), NodeKind::InstancedMesh) {
    checkCapacity(capacity, "InstancedMeshNode");
    m_records.resize(capacity);
}

void InstancedMeshNode::checkIndex(std::size_t index, const char* function) const {
    if (index >= m_count) {
        throw OutOfRange(std::string(function) + ": index " + std::to_string(index) +
                         " >= count " + std::to_string(m_count));
    }
}

Aabb InstancedMeshNode::instanceBox(const InstanceRecord& record) const noexcept {
    return mesh()->localBounds().transformed(unpackTransform(record));
}

void InstancedMeshNode::setCount(std::size_t count) {
    if (count > m_records.size()) {
        throw CapacityError("InstancedMeshNode::setCount: count " + std::to_string(count) +
                            " > capacity " + std::to_string(m_records.size()) +
                            "; call ensureCapacity() first");
    }
    if (count > m_count && m_boundsValid) {
        for (std::size_t i = m_count; i < count; ++i) {
            m_bounds.extend(instanceBox(m_records[i]));
        }
    } else if (count < m_count) {
        m_boundsValid = false;
    }
    m_count = count;
    ++m_dataVersion;
}

void InstancedMeshNode::clear() noexcept {
    m_count = 0;
    m_bounds = Aabb{};
    m_boundsValid = true;
    ++m_dataVersion;
}

void InstancedMeshNode::ensureCapacity(std::size_t capacity) {
    checkCapacity(capacity, "InstancedMeshNode::ensureCapacity");
    if (capacity > m_records.size()) {
        m_records.resize(capacity);  // strong guarantee: std::vector keeps the old buffer on throw
    }
}

std::size_t InstancedMeshNode::addInstance(const glm::mat4& transform, const glm::vec4& color) {
    checkTransform(transform, "InstancedMeshNode::addInstance");
    detail::requireFinite(color, "InstancedMeshNode::addInstance", "color");
    if (m_count == m_records.size()) {
        throw CapacityError("InstancedMeshNode::addInstance: batch '" + name() + "' is full (" +
                            std::to_string(m_count) + " of capacity " +
                            std::to_string(m_records.size()) + "); call ensureCapacity() first");
    }
    const std::size_t index = m_count;
    m_records[index] = packTransform(transform, color);
    if (m_boundsValid) {
        m_bounds.extend(instanceBox(m_records[index]));
    }
    ++m_count;
    ++m_dataVersion;
    return index;
}

void InstancedMeshNode::noteMovedFrom(const Aabb& oldBox, const Aabb& newBox) noexcept {
    if (!m_boundsValid) {
        return;
    }
    // An instance that defined part of the boundary and now sits elsewhere may have been the
    // only one there: the bounds can only shrink by a full pass, done lazily on the next read.
    if (touches(oldBox, m_bounds) && !newBox.contains(oldBox)) {
        m_boundsValid = false;
        return;
    }
    m_bounds.extend(newBox);
}

void InstancedMeshNode::setTransform(std::size_t index, const glm::mat4& transform) {
    checkIndex(index, "InstancedMeshNode::setTransform");
    checkTransform(transform, "InstancedMeshNode::setTransform");
    InstanceRecord& record = m_records[index];
    const Aabb oldBox = m_boundsValid ? instanceBox(record) : Aabb{};
    record = packTransform(transform, record.color);
    if (m_boundsValid) {
        noteMovedFrom(oldBox, instanceBox(record));
    }
    ++m_dataVersion;
}

void InstancedMeshNode::setColor(std::size_t index, const glm::vec4& color) {
    checkIndex(index, "InstancedMeshNode::setColor");
    detail::requireFinite(color, "InstancedMeshNode::setColor", "color");
    m_records[index].color = color;
    ++m_dataVersion;
}

glm::mat4 InstancedMeshNode::readTransform(std::size_t index) const {
    checkIndex(index, "InstancedMeshNode::readTransform");
    return unpackTransform(m_records[index]);
}

glm::vec4 InstancedMeshNode::readColor(std::size_t index) const {
    checkIndex(index, "InstancedMeshNode::readColor");
    return m_records[index].color;
}

const InstanceRecord& InstancedMeshNode::record(std::size_t index) const {
    checkIndex(index, "InstancedMeshNode::record");
    return m_records[index];
}

std::span<float> InstancedMeshNode::instanceData() noexcept {
    return {reinterpret_cast<float*>(m_records.data()), m_records.size() * floatsPerInstance};
}

std::span<const float> InstancedMeshNode::instanceData() const noexcept {
    return {reinterpret_cast<const float*>(m_records.data()),
            m_records.size() * floatsPerInstance};
}

std::span<const std::byte> InstancedMeshNode::instanceBytes() const noexcept {
    return {reinterpret_cast<const std::byte*>(m_records.data()), m_count * strideInBytes};
}

void InstancedMeshNode::markInstancesChanged() noexcept {
    m_boundsValid = false;
    ++m_dataVersion;
}

const Aabb& InstancedMeshNode::localBounds() const {
    if (!m_boundsValid) {
        Aabb bounds;
        for (std::size_t i = 0; i < m_count; ++i) {
            bounds.extend(instanceBox(m_records[i]));
        }
        m_bounds = bounds;
        m_boundsValid = true;
    }
    return m_bounds;
}

} // namespace myriad
