#include "myriad/core/Scatter.h"

#include "core/Validate.h"
#include "myriad/core/InstanceRecord.h"
#include "myriad/util/Error.h"

#include <algorithm>
#include <glm/ext/vector_float1.hpp>
#include <string>

namespace myriad {

namespace streams {
const InstanceStreamDesc kScatter{
    "scatter", 8, StreamBinding::VertexAttributes, location::kInstanceRow0, 0,
    {0, 0, 0, 0, 1, 1, 0, 0},
    "position xyz (node space), yaw; uniform scale, bend, colour variation, seed"};
} // namespace streams

ScatterNode::ScatterNode(std::shared_ptr<const MeshGeometry> mesh, Material material, std::size_t capacity,
                         std::string name)
    : SceneNode(std::move(name), NodeKind::Scatter), m_mesh(std::move(mesh)), m_material(std::move(material)) {
    if (!m_mesh) {
        throw InvalidArgument("ScatterNode: the mesh is null");
    }
    if (m_material.alphaMode == AlphaMode::Blend) {
        throw InvalidArgument("ScatterNode: scatter is opaque or alpha-masked, not blended");
    }
    if (capacity > maxCapacity) {
        throw CapacityError("ScatterNode: capacity " + std::to_string(capacity) + " is above maxCapacity");
    }
    m_stream.allocate(capacity);
}

namespace {
void checkInstance(const ScatterInstance& s, const char* function) {
    detail::requireFinite(s.position, function, "position");
    detail::requireFinite(glm::vec4(s.yaw, s.scale, s.bend, s.colorVariation), function,
                          "yaw, scale, bend or colour variation");
    detail::requireFinite(glm::vec1(s.seed), function, "seed");
    if (s.scale <= 0.0f) {
        throw InvalidArgument(std::string(function) + ": scale must be > 0");
    }
}
} // namespace

std::size_t ScatterNode::add(const ScatterInstance& instance) {
    checkInstance(instance, "ScatterNode::add");
    if (m_count == capacity()) {
        throw CapacityError("ScatterNode::add: '" + name() + "' is full (" + std::to_string(capacity()) + ")");
    }
    const std::size_t index = m_count++;
    set(index, instance);
    return index;
}

void ScatterNode::set(std::size_t index, const ScatterInstance& s) {
    if (index >= m_count) {
        throw OutOfRange("ScatterNode::set: index " + std::to_string(index) + " >= count " + std::to_string(m_count));
    }
    checkInstance(s, "ScatterNode::set");
    const std::span<float> row = m_stream.row(index);
    const float values[8] = {s.position.x, s.position.y, s.position.z, s.yaw, s.scale, s.bend, s.colorVariation, s.seed};
    std::copy(std::begin(values), std::end(values), row.begin());
    m_stream.markChanged(index, index + 1);
}

ScatterInstance ScatterNode::at(std::size_t index) const {
    if (index >= m_count) {
        throw OutOfRange("ScatterNode::at: index " + std::to_string(index) + " >= count " + std::to_string(m_count));
    }
    const std::span<const float> r = m_stream.row(index);
    return ScatterInstance{{r[0], r[1], r[2]}, r[3], r[4], r[5], r[6], r[7]};
}

void ScatterNode::setCount(std::size_t count) {
    if (count > capacity()) {
        throw CapacityError("ScatterNode::setCount: " + std::to_string(count) + " > capacity " +
                            std::to_string(capacity()));
    }
    m_count = count;
    if (count > 0) {
        m_stream.markChanged(0, count);
    }
}

void ScatterNode::markChanged(std::size_t first, std::size_t count) {
    if (count == SIZE_MAX) {
        count = first <= m_count ? m_count - first : 0;
    }
    if (first > capacity() || count > capacity() - first) {
        throw OutOfRange("ScatterNode::markChanged: the range runs past capacity");
    }
    if (count > 0) {
        m_stream.markChanged(first, first + count);
    }
}

} // namespace myriad
