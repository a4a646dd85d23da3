#include "myriad/core/MeshNode.h"

#include "myriad/util/Error.h"

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

void MeshNode::setMesh(std::shared_ptr<const MeshGeometry> mesh) {
    if (!mesh) {
        throw InvalidArgument("MeshNode::setMesh: mesh is null");
    }
    m_mesh = std::move(mesh);
}

} // namespace myriad
