#include "myriad/core/MeshNode.h"

#include "myriad/core/InstancedMeshNode.h"
#include "myriad/util/Error.h"

#include <glm/geometric.hpp>

#include <algorithm>
#include <cmath>
#include <string>

namespace myriad {

MeshNode::MeshNode(std::shared_ptr<const MeshGeometry> mesh, Material material, std::string name)
    : MeshNode(std::move(mesh), std::move(material), std::move(name), NodeKind::Mesh) {}

MeshNode::MeshNode(std::shared_ptr<const MeshGeometry> mesh, Material material, std::string name,
                   NodeKind kind)
    : SceneNode(std::move(name), kind), m_mesh(std::move(mesh)), m_material(std::move(material)) {
    if (!m_mesh) {
        throw InvalidArgument("MeshNode('" + this->name() + "'): mesh is null");
    }
    m_morphWeights = m_mesh->defaultMorphWeights();
    m_meshBounds = m_mesh->morphedBounds(m_morphWeights);
}

void MeshNode::setMorphWeights(std::span<const float> weights) {
    if (weights.size() > m_mesh->morphTargetCount()) {
        throw InvalidArgument("MeshNode::setMorphWeights: " + std::to_string(weights.size()) +
                              " weights for a mesh with " +
                              std::to_string(m_mesh->morphTargetCount()) +
                              " morph targets (kMaxMorphTargets is " +
                              std::to_string(kMaxMorphTargets) + ")");
    }
    for (float w : weights) {
        if (!std::isfinite(w)) {
            throw InvalidArgument("MeshNode::setMorphWeights: a weight is NaN or Inf");
        }
    }
    std::fill(m_morphWeights.begin(), m_morphWeights.end(), 0.0f);
    std::copy(weights.begin(), weights.end(), m_morphWeights.begin());
    m_meshBounds = m_mesh->morphedBounds(m_morphWeights);
    ++m_meshBoundsVersion;
}

const Aabb& MeshNode::drawBounds() const {
    if (kind() == NodeKind::InstancedMesh) {
        return static_cast<const InstancedMeshNode&>(*this).localBounds();
    }
    return m_meshBounds;
}

Aabb MeshNode::worldBounds() const { return drawBounds().transformed(worldMatrix()); }

glm::dvec3 MeshNode::worldBoundsCentre() const {
    const Aabb& local = drawBounds();
    if (local.empty()) {
        return worldTranslation();
    }
    return worldTranslation() + glm::dvec3(worldLinear() * local.centre());
}

float MeshNode::worldBoundsRadius() const { return drawBounds().transformedRadius(worldLinear()); }

void MeshNode::setMesh(std::shared_ptr<const MeshGeometry> mesh) {
    if (!mesh) {
        throw InvalidArgument("MeshNode::setMesh: mesh is null");
    }
    std::vector<float> weights = mesh->defaultMorphWeights();
    const Aabb bounds = mesh->morphedBounds(weights);
    m_mesh = std::move(mesh);
    m_morphWeights = std::move(weights);
    m_meshBounds = bounds;
    ++m_meshBoundsVersion;
}

} // namespace myriad
