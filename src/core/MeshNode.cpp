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
}

void MeshNode::setShaderData(std::size_t lane, const glm::vec4& value) {
    if (lane >= m_shaderData.size()) {
        throw OutOfRange("MeshNode::setShaderData: lane " + std::to_string(lane) + " >= 4");
    }
    for (int k = 0; k < 4; ++k) {
        if (!std::isfinite(value[k])) {
            throw InvalidArgument("MeshNode::setShaderData: a component of lane " + std::to_string(lane) +
                                  " is NaN or Inf");
        }
    }
    if (kind() == NodeKind::InstancedMesh) {
        throw InvalidArgument("MeshNode::setShaderData: '" + name() +
                              "' is an InstancedMeshNode; its instances have lanes of their own "
                              "(InstancedMeshNode::setLane)");
    }
    m_shaderData[lane] = value;
}

glm::vec4 MeshNode::shaderData(std::size_t lane) const {
    if (lane >= m_shaderData.size()) {
        throw OutOfRange("MeshNode::shaderData: lane " + std::to_string(lane) + " >= 4");
    }
    return m_shaderData[lane];
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
    std::vector<float> weights = mesh->defaultMorphWeights();
    m_mesh = std::move(mesh);
    m_morphWeights = std::move(weights);
}

} // namespace myriad
