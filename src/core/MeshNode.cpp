#include "myriad/core/MeshNode.h"

#include "core/Validate.h"
#include "myriad/core/AnimationClip.h"
#include "myriad/core/AnimationSet.h"
#include "myriad/core/InstancedMeshNode.h"
#include "myriad/util/Error.h"

#include <glm/geometric.hpp>

#include <algorithm>
#include <optional>
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

void MeshNode::setOccluderMesh(std::shared_ptr<const MeshGeometry> mesh) {
    if (mesh && !occluderMeshFits(*mesh)) {
        const auto text = [](const Aabb& box) {
            return "(" + std::to_string(box.min.x) + ", " + std::to_string(box.min.y) + ", " + std::to_string(box.min.z) +
                   ")..(" + std::to_string(box.max.x) + ", " + std::to_string(box.max.y) + ", " +
                   std::to_string(box.max.z) + ")";
        };
        throw InvalidArgument("MeshNode::setOccluderMesh: the occluder mesh '" + mesh->name() + "' (box " +
                              text(mesh->localBounds()) + ") is not inside node '" + name() + "''s mesh bounds " +
                              text(m_meshBounds) + "; both are in the mesh's model space, before the node's transform");
    }
    m_occluderMesh = std::move(mesh);
}

bool MeshNode::occluderMeshFits(const MeshGeometry& mesh) const noexcept {
    // Touching counts as inside, with a margin of 1e-4 of the node's box for rounding.
    Aabb grown = m_meshBounds;
    const glm::vec3 half = grown.halfExtent();
    const float margin = 1e-4f * std::max({half.x, half.y, half.z});
    grown.min -= glm::vec3(margin);
    grown.max += glm::vec3(margin);
    return grown.contains(mesh.localBounds());
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
    // Everything that may throw first (the skin's boxes for the new mesh), then the swap.
    const Skeleton* skeleton = skinningSkeleton();
    std::optional<SkinBounds> skinBounds;
    std::optional<Aabb> animated;
    if (skeleton != nullptr) {
        checkSkinnable(*mesh, *skeleton, 0, "MeshNode::setMesh");
        if (m_skin->skeleton) {
            checkSkinnable(*mesh, *m_skin->skeleton, 0, "MeshNode::setMesh");
            skinBounds.emplace(*mesh, *m_skin->skeleton);
        }
        if (m_skin->animations) {
            animated = m_skin->animations->boundsFor(*mesh);
        }
    }
    std::vector<float> weights = mesh->defaultMorphWeights();
    m_mesh = std::move(mesh);
    if (skinBounds) {
        m_skin->bounds.front() = std::move(*skinBounds);
    }
    if (animated) {
        m_skin->animatedBounds.front() = *animated;
    }
    const Aabb bounds = primitivesBounds(weights, weights);  // no throw once the parts are in
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
    if (const Skeleton* skinning = skinningSkeleton(); skinning != nullptr) {
        // A skinned node's primitives are all skinned by its skeleton (or its batch's clips).
        const Skeleton& skeleton = *skinning;
        checkSkinnable(*mesh, skeleton, primitiveCount(), "MeshNode::addPrimitive");
        std::optional<SkinBounds> skinBounds;
        if (m_skin->skeleton) {
            checkSkinnable(*mesh, *m_skin->skeleton, primitiveCount(), "MeshNode::addPrimitive");
            skinBounds.emplace(*mesh, *m_skin->skeleton);
        }
        Aabb animated;
        if (m_skin->animations) {
            animated = m_skin->animations->boundsFor(*mesh);
            bounds.extend(withCullMargin(animated));
        } else if (m_skin->skeleton) {
            bounds.extend(withCullMargin(m_skin->reach > 0.0f ? skinBounds->reachBounds(m_skin->joints, m_skin->reach)
                                                              : skinBounds->posedBounds(m_skin->joints)));
        }
        m_skin->bounds.reserve(m_skin->bounds.size() + 1);
        m_skin->animatedBounds.reserve(m_skin->animatedBounds.size() + 1);
        m_extraPrimitives.push_back({std::move(mesh), std::move(material)});  // may throw: nothing changed
        if (skinBounds) {
            m_skin->bounds.push_back(std::move(*skinBounds));
        }
        if (m_skin->animations) {
            m_skin->animatedBounds.push_back(animated);
        }
    } else {
        bounds.extend(withCullMargin(mesh->morphedBounds(m_morphWeights)));
        m_extraPrimitives.push_back({std::move(mesh), std::move(material)});  // may throw: nothing changed
    }
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

const Skeleton* MeshNode::skinningSkeleton() const noexcept {
    if (m_skin == nullptr) {
        return nullptr;
    }
    return m_skin->animations ? m_skin->animations->skeleton().get() : m_skin->skeleton.get();
}

Aabb MeshNode::primitivesBounds(std::span<const float> low, std::span<const float> high) const {
    if (skinningSkeleton() != nullptr) {
        Aabb bounds;
        if (m_skin->animations) {  // a batch playing baked clips: every baked pose
            for (const Aabb& box : m_skin->animatedBounds) {
                bounds.extend(box);
            }
        } else {
            for (const SkinBounds& skinBounds : m_skin->bounds) {
                bounds.extend(m_skin->reach > 0.0f ? skinBounds.reachBounds(m_skin->joints, m_skin->reach)
                                                   : skinBounds.posedBounds(m_skin->joints));
            }
        }
        return withCullMargin(bounds);
    }
    Aabb bounds = m_mesh->morphedBounds(low, high);
    for (const Primitive& primitive : m_extraPrimitives) {
        bounds.extend(primitive.mesh->morphedBounds(low, high));
    }
    return withCullMargin(bounds);
}

Aabb MeshNode::withCullMargin(Aabb box) const noexcept {
    if (m_cullMargin > 0.0f && !box.empty()) {
        box.min -= glm::vec3(m_cullMargin);
        box.max += glm::vec3(m_cullMargin);
    }
    return box;
}

void MeshNode::setCullMargin(float margin) {
    if (!std::isfinite(margin) || margin < 0.0f) {
        throw InvalidArgument("MeshNode::setCullMargin: '" + name() + "': margin " + std::to_string(margin) +
                              " must be finite and >= 0");
    }
    m_cullMargin = margin;
    refreshMeshBounds();
}

// ---- skinning ------------------------------------------------------------------------------

void MeshNode::checkSkinnable(const MeshGeometry& mesh, const Skeleton& skeleton, std::size_t index,
                              const char* function) {
    const std::string which = std::string(function) + ": primitive " + std::to_string(index) + " ('" + mesh.name() + "')";
    if (!mesh.isSkinned()) {
        throw InvalidArgument(which + " is not skinned (its MeshData has no joints and weights)");
    }
    if (mesh.morphTargetCount() != 0) {
        throw InvalidArgument(which + " has morph targets; a skinned mesh with morph targets is not supported");
    }
    if (mesh.skinJointCount() > skeleton.jointCount()) {
        throw InvalidArgument(which + " uses joint " + std::to_string(mesh.skinJointCount() - 1) + ", past skeleton '" +
                              skeleton.name() + "''s " + std::to_string(skeleton.jointCount()) + " joints");
    }
}

void MeshNode::refreshMeshBounds() {
    m_meshBounds = primitivesBounds(m_morphWeights, m_morphWeights);
    ++m_meshBoundsVersion;
    subtreeChanged();
}

MeshNode::SkinState& MeshNode::skinState() {
    if (m_skin == nullptr) {
        m_skin = std::make_unique<SkinState>();
    }
    return *m_skin;
}

void MeshNode::setSkeleton(std::shared_ptr<const Skeleton> skeleton) {
    // The new boxes and rest-pose matrices first (the checks and allocations may throw), then
    // swapped in: a refused skeleton changes nothing.
    std::vector<SkinBounds> bounds;
    std::vector<glm::mat4> joints;
    std::vector<glm::mat4> skin;
    if (skeleton != nullptr) {
        for (std::size_t p = 0; p < primitiveCount(); ++p) {
            const MeshGeometry& mesh = *primitiveMesh(p);
            checkSkinnable(mesh, *skeleton, p, "MeshNode::setSkeleton");
            bounds.emplace_back(mesh, *skeleton);
        }
        joints.resize(skeleton->jointCount());
        skin.resize(skeleton->jointCount());
        skeleton->jointMatrices(skeleton->restPose(), joints);
        skeleton->skinMatrices(joints, skin);
    }
    SkinState& state = skinState();
    state.skeleton = std::move(skeleton);
    state.bounds = std::move(bounds);
    state.joints = std::move(joints);
    state.skin = std::move(skin);
    ++state.poseVersion;
    refreshMeshBounds();
}

const std::shared_ptr<const Skeleton>& MeshNode::skeleton() const noexcept {
    static const std::shared_ptr<const Skeleton> none;
    return m_skin != nullptr ? m_skin->skeleton : none;
}

void MeshNode::setPose(std::span<const JointTransform> local) {
    if (m_skin == nullptr || m_skin->skeleton == nullptr) {
        throw InvalidArgument("MeshNode::setPose: '" + name() + "' has no skeleton (setSkeleton first)");
    }
    const Skeleton& skeleton = *m_skin->skeleton;
    if (local.size() != skeleton.jointCount()) {
        throw InvalidArgument("MeshNode::setPose: '" + name() + "': " + std::to_string(local.size()) +
                              " transforms for skeleton '" + skeleton.name() + "''s " +
                              std::to_string(skeleton.jointCount()) + " joints");
    }
    for (std::size_t j = 0; j < local.size(); ++j) {
        const JointTransform& t = local[j];
        if (!detail::allFinite(t.translation) || !detail::allFinite(t.scale) ||
            !detail::allFinite(glm::vec4(t.rotation.x, t.rotation.y, t.rotation.z, t.rotation.w))) {
            throw InvalidArgument("MeshNode::setPose: '" + name() + "': joint " + std::to_string(j) +
                                  " has NaN or Inf");
        }
    }
    // Into the state's spare matrices, swapped in once they are known to be finite: no
    // allocation per pose once warm (a crowd of MeshNodes poses every node every frame).
    SkinState& state = *m_skin;
    state.nextJoints.resize(local.size());
    state.nextSkin.resize(local.size());
    skeleton.jointMatrices(local, state.nextJoints);
    skeleton.skinMatrices(state.nextJoints, state.nextSkin);
    for (const glm::mat4& matrix : state.nextSkin) {
        if (!detail::allFinite(matrix)) {
            throw InvalidArgument("MeshNode::setPose: '" + name() + "': the pose overflows to NaN or Inf");
        }
    }
    std::swap(state.joints, state.nextJoints);
    std::swap(state.skin, state.nextSkin);
    ++m_skin->poseVersion;
    refreshMeshBounds();
}

void MeshNode::setPose(const AnimationClip& clip, float seconds) {
    if (m_skin == nullptr || m_skin->skeleton == nullptr) {
        throw InvalidArgument("MeshNode::setPose: '" + name() + "' has no skeleton (setSkeleton first)");
    }
    // The rest pose into the state's spare pose (no allocation once warm), the clip over it.
    std::vector<JointTransform>& pose = m_skin->pose;
    pose.clear();
    for (const Joint& joint : m_skin->skeleton->joints()) {
        pose.push_back(joint.rest);
    }
    clip.sample(seconds, pose);
    setPose(pose);
}

std::span<const glm::mat4> MeshNode::jointMatrices() const noexcept {
    return m_skin != nullptr ? std::span<const glm::mat4>(m_skin->joints) : std::span<const glm::mat4>();
}

std::span<const glm::mat4> MeshNode::skinMatrices() const noexcept {
    return m_skin != nullptr ? std::span<const glm::mat4>(m_skin->skin) : std::span<const glm::mat4>();
}

std::uint64_t MeshNode::poseVersion() const noexcept { return m_skin != nullptr ? m_skin->poseVersion : 0; }

void MeshNode::setSkinReach(float reach) {
    if (!std::isfinite(reach) || reach < 0.0f) {
        throw InvalidArgument("MeshNode::setSkinReach: '" + name() + "': reach " + std::to_string(reach) +
                              " must be finite and >= 0");
    }
    skinState().reach = reach;
    refreshMeshBounds();
}

float MeshNode::skinReach() const noexcept { return m_skin != nullptr ? m_skin->reach : 0.0f; }

void MeshNode::setAnimationBounds(std::shared_ptr<const AnimationSet> animations) {
    std::vector<Aabb> animated;
    if (animations != nullptr) {
        for (std::size_t p = 0; p < primitiveCount(); ++p) {
            const MeshGeometry& mesh = *primitiveMesh(p);
            checkSkinnable(mesh, *animations->skeleton(), p, "InstancedMeshNode::setAnimationSet");
            animated.push_back(animations->boundsFor(mesh));
        }
    }
    SkinState& state = skinState();
    state.animations = std::move(animations);
    state.animatedBounds = std::move(animated);
    refreshMeshBounds();
}

const std::shared_ptr<const AnimationSet>& MeshNode::animationBounds() const noexcept {
    static const std::shared_ptr<const AnimationSet> none;
    return m_skin != nullptr ? m_skin->animations : none;
}

} // namespace myriad
