#include "myriad/core/MeshNode.h"

#include "myriad/core/InstancedMeshNode.h"
#include "myriad/util/Error.h"

#include <glm/geometric.hpp>

#include <algorithm>

namespace myriad {

MeshNode::MeshNode(std::shared_ptr<const MeshGeometry> mesh, Material material, std::string name)
    : MeshNode(std::move(mesh), std::move(material), std::move(name), NodeKind::Mesh) {}

MeshNode::MeshNode(std::shared_ptr<const MeshGeometry> mesh, Material material, std::string name,
                   NodeKind kind)
    : SceneNode(std::move(name), kind), m_mesh(std::move(mesh)), m_material(std::move(material)) {
    if (!m_mesh) {
        throw InvalidArgument("MeshNode('" + this->name() + "'): mesh is null");
    }
}

const Aabb& MeshNode::drawBounds() const {
    if (kind() == NodeKind::InstancedMesh) {
        return static_cast<const InstancedMeshNode&>(*this).localBounds();
    }
    return m_mesh->localBounds();
}

Aabb MeshNode::worldBounds() const { return drawBounds().transformed(worldMatrix()); }

glm::dvec3 MeshNode::worldBoundsCentre() const {
    const Aabb& local = drawBounds();
    if (local.empty()) {
        return worldTranslation();
    }
    return worldTranslation() + glm::dvec3(worldLinear() * local.centre());
}

float MeshNode::worldBoundsRadius() const {
    const Aabb& local = drawBounds();
    if (local.empty()) {
        return 0.0f;
    }
    const glm::mat3 linear = worldLinear();
    const float maxScale = std::max({glm::length(linear[0]), glm::length(linear[1]),
                                     glm::length(linear[2])});
    return glm::length(local.halfExtent()) * maxScale;
}

void MeshNode::setMesh(std::shared_ptr<const MeshGeometry> mesh) {
    if (!mesh) {
        throw InvalidArgument("MeshNode::setMesh: mesh is null");
    }
    m_mesh = std::move(mesh);
}

} // namespace myriad
