#include "myriad/core/MeshNode.h"

#include "myriad/core/InstancedMeshNode.h"
#include "myriad/util/Error.h"

#include <glm/geometric.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

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
    m_meshBounds = primitivesBounds(m_morphWeights, m_morphWeights);
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
    // Into a copy first: @p weights may be morphWeights() itself (node.setMorphWeights(
    // other.morphState().weights) with other == node), and the bounds may throw.
    std::vector<float> next(m_morphWeights.size(), 0.0f);
    std::copy(weights.begin(), weights.end(), next.begin());
    const Aabb bounds = primitivesBounds(next, next);
    m_morphWeights = std::move(next);
    m_meshBounds = bounds;
    ++m_meshBoundsVersion;
    subtreeChanged();
}

void MeshNode::setMorphState(const MorphState& state) {
    const MorphState own = morphState();
    const auto sameOrEmpty = [](auto given, auto mine) {
        return given.empty() || (given.data() == mine.data() && given.size() == mine.size());
    };
    if (!sameOrEmpty(state.targets, own.targets) || !sameOrEmpty(state.defaultWeights, own.defaultWeights)) {
        throw InvalidArgument("MeshNode::setMorphState: '" + name() +
                              "': the state's targets or default weights are not those of the node's mesh '" +
                              m_mesh->name() + "' (they live in the shared mesh: swap them with setMesh())");
    }
    setMorphWeights(state.weights);
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
    return m_meshBounds;
}

Aabb MeshNode::worldBounds() const { return drawBounds().transformed(worldMatrix()); }

Aabb MeshNode::ownBounds() const { return worldBounds(); }

bool MeshNode::ownBoundsAreCullable() const { return frustumCulled(); }

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
    if (!m_extraPrimitives.empty() && mesh->morphTargetCount() != m_mesh->morphTargetCount()) {
        throw InvalidArgument("MeshNode::setMesh: '" + mesh->name() + "' has " +
                              std::to_string(mesh->morphTargetCount()) + " morph targets, the node's other primitives " +
                              std::to_string(m_mesh->morphTargetCount()));
    }
    std::vector<float> weights = mesh->defaultMorphWeights();
    std::shared_ptr<const MeshGeometry> old = std::exchange(m_mesh, std::move(mesh));
    Aabb bounds;
    try {
        bounds = primitivesBounds(weights, weights);
    } catch (...) {
        m_mesh = std::move(old);
        throw;
    }
    m_morphWeights = std::move(weights);
    m_meshBounds = bounds;
    ++m_meshBoundsVersion;
    subtreeChanged();
}

void MeshNode::addPrimitive(std::shared_ptr<const MeshGeometry> mesh, Material material) {
    if (!mesh) {
        throw InvalidArgument("MeshNode::addPrimitive: mesh is null");
    }
    if (mesh->morphTargetCount() != m_mesh->morphTargetCount()) {
        throw InvalidArgument("MeshNode::addPrimitive: '" + mesh->name() + "' has " +
                              std::to_string(mesh->morphTargetCount()) + " morph targets, the node's mesh " +
                              std::to_string(m_mesh->morphTargetCount()));
    }
    Aabb bounds = m_meshBounds;
    bounds.extend(mesh->morphedBounds(m_morphWeights));
    m_extraPrimitives.push_back({std::move(mesh), std::move(material)});  // may throw: nothing changed
    m_meshBounds = bounds;
    ++m_meshBoundsVersion;
    subtreeChanged();
}

void MeshNode::checkPrimitive(std::size_t index, const char* function) const {
    if (index >= primitiveCount()) {
        throw OutOfRange(std::string(function) + ": primitive " + std::to_string(index) + " >= primitiveCount " +
                         std::to_string(primitiveCount()));
    }
}

const std::shared_ptr<const MeshGeometry>& MeshNode::primitiveMesh(std::size_t index) const {
    checkPrimitive(index, "MeshNode::primitiveMesh");
    return index == 0 ? m_mesh : m_extraPrimitives[index - 1].mesh;
}

const Material& MeshNode::primitiveMaterial(std::size_t index) const {
    checkPrimitive(index, "MeshNode::primitiveMaterial");
    return index == 0 ? m_material : m_extraPrimitives[index - 1].material;
}

Material& MeshNode::primitiveMaterial(std::size_t index) {
    checkPrimitive(index, "MeshNode::primitiveMaterial");
    return index == 0 ? m_material : m_extraPrimitives[index - 1].material;
}

Aabb MeshNode::primitivesBounds(std::span<const float> low, std::span<const float> high) const {
    Aabb bounds = m_mesh->morphedBounds(low, high);
    for (const Primitive& primitive : m_extraPrimitives) {
        bounds.extend(primitive.mesh->morphedBounds(low, high));
    }
    return bounds;
}

} // namespace myriad
