#include "myriad/core/SceneNode.h"

#include "core/Validate.h"
#include "myriad/core/MeshNode.h"
#include "myriad/util/Error.h"

#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtx/matrix_decompose.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>

namespace myriad {
namespace {

std::uint64_t nextSerial() noexcept {
    static std::atomic<std::uint64_t> counter{0};
    return ++counter;
}

} // namespace

SceneNode::SceneNode(std::string name) : SceneNode(std::move(name), NodeKind::Group) {}

SceneNode::SceneNode(std::string name, NodeKind kind)
    : m_name(std::move(name)), m_kind(kind), m_id(nextSerial()) {}

SceneNode::~SceneNode() = default;

std::weak_ptr<const void> SceneNode::lifetime() const {
    if (!m_lifetime) {
        m_lifetime = std::make_shared<const int>(0);
    }
    return m_lifetime;
}

void SceneNode::checkCanAdopt(const SceneNode* child, const char* function) const {
    if (child == nullptr) {
        throw InvalidArgument(std::string(function) + ": child is null");
    }
    for (const SceneNode* node = this; node != nullptr; node = node->m_parent) {
        if (node == child) {
            throw InvalidArgument(std::string(function) + ": node '" + child->m_name +
                                  "' is this node or one of its ancestors (a cycle)");
        }
    }
}

void SceneNode::addChild(std::unique_ptr<SceneNode> child, bool keepWorld) {
    const char* function = keepWorld ? "SceneNode::attach" : "SceneNode::add";
    checkCanAdopt(child.get(), function);
    if (child->m_parent != nullptr) {
        throw InvalidArgument(std::string(function) + ": node '" + child->m_name +
                              "' already has a parent; removeFromParent() first");
    }
    if (keepWorld) {
        const glm::mat4 local = detail::inverseAffineOrThrow(worldMatrix(), function) *
                                child->localMatrix();
        child->setLocalMatrix(local);  // may throw: nothing has changed yet
    }
    detail::reserveOneMore(m_children);  // the only step that can throw is before linking
    child->m_parent = this;
    child->m_worldDirty = true;
    SceneNode& linked = *child;
    m_children.push_back(std::move(child));
    subtreeChanged();
    linked.bindToScene(m_scene);  // hooks last: the node is in place when they run
}

void SceneNode::attach(SceneNode& child) {
    checkCanAdopt(&child, "SceneNode::attach");
    if (child.m_parent == nullptr) {
        throw InvalidArgument("SceneNode::attach: node '" + child.m_name +
                              "' has no parent; pass it as std::unique_ptr instead");
    }
    if (child.m_parent == this) {
        return;
    }
    const glm::mat4 local =
        detail::inverseAffineOrThrow(worldMatrix(), "SceneNode::attach") * child.worldMatrix();
    // Compute everything that can throw before anything moves.
    glm::vec3 scale, translation, skew;
    glm::vec4 perspective;
    glm::quat rotation;
    if (!glm::decompose(local, scale, rotation, translation, skew, perspective)) {
        throw InvalidArgument("SceneNode::attach: the kept world transform cannot be decomposed");
    }
    detail::reserveOneMore(m_children);
    // Within one scene a move calls no hooks; between scenes the subtree leaves the old one
    // while still under its old parent and enters the new one once in place.
    if (child.m_scene != m_scene) {
        child.bindToScene(nullptr);
    }
    std::unique_ptr<SceneNode> owned = child.m_parent->unlink(child);
    owned->m_position = glm::dvec3(translation);
    owned->m_rotation = glm::normalize(rotation);
    owned->m_scale = scale;
    owned->localChanged();
    owned->m_parent = this;
    SceneNode& linked = *owned;
    m_children.push_back(std::move(owned));
    subtreeChanged();
    linked.bindToScene(m_scene);  // nothing when it stayed in its scene
}

std::unique_ptr<SceneNode> SceneNode::remove(SceneNode& child) {
    auto it = std::find_if(m_children.begin(), m_children.end(),
                           [&](const std::unique_ptr<SceneNode>& c) { return c.get() == &child; });
    if (it == m_children.end()) {
        throw InvalidArgument("SceneNode::remove: node '" + child.m_name +
                              "' is not a child of '" + m_name + "'");
    }
    child.bindToScene(nullptr);  // its hooks run while it is still in place
    return unlink(child);
}

std::unique_ptr<SceneNode> SceneNode::unlink(SceneNode& child) noexcept {
    auto it = std::find_if(m_children.begin(), m_children.end(),
                           [&](const std::unique_ptr<SceneNode>& c) { return c.get() == &child; });
    std::unique_ptr<SceneNode> owned = std::move(*it);  // callers pass a child of this node
    m_children.erase(it);
    owned->m_parent = nullptr;
    owned->m_worldDirty = true;
    subtreeChanged();
    return owned;
}

void SceneNode::bindToScene(Scene* scene) noexcept {
    if (m_scene == scene) {
        return;  // a subtree shares its root's scene, so nothing below changes either
    }
    if (m_scene != nullptr) {
        Scene& old = *m_scene;
        for (const auto& c : m_children) {
            c->bindToScene(nullptr);  // children leave first
        }
        onDetachedFromScene(old);
        m_scene = nullptr;
    }
    if (scene != nullptr) {
        m_scene = scene;
        onAttachedToScene(*scene);  // parents enter first
        for (const auto& c : m_children) {
            c->bindToScene(scene);
        }
    }
}

std::unique_ptr<SceneNode> SceneNode::removeFromParent() {
    if (m_parent == nullptr) {
        throw InvalidArgument("SceneNode::removeFromParent: node '" + m_name + "' has no parent");
    }
    return m_parent->remove(*this);
}

SceneNode& SceneNode::child(std::size_t index) const {
    if (index >= m_children.size()) {
        throw OutOfRange("SceneNode::child: index " + std::to_string(index) +
                         " >= childCount " + std::to_string(m_children.size()));
    }
    return *m_children[index];
}

void SceneNode::traverse(const std::function<void(SceneNode&)>& visit) {
    visit(*this);
    for (const auto& c : m_children) {
        c->traverse(visit);
    }
}

void SceneNode::traverse(const std::function<void(const SceneNode&)>& visit) const {
    visit(*this);
    for (const auto& c : m_children) {
        static_cast<const SceneNode&>(*c).traverse(visit);
    }
}

SceneNode* SceneNode::findByName(std::string_view name) noexcept {
    if (m_name == name) {
        return this;
    }
    for (const auto& c : m_children) {
        if (SceneNode* found = c->findByName(name)) {
            return found;
        }
    }
    return nullptr;
}

void SceneNode::localChanged() noexcept {
    m_localMatrixDirty = true;
    m_worldDirty = true;
    subtreeChanged();
}

void SceneNode::setPosition(const glm::dvec3& position) {
    detail::requireFinite(position, "SceneNode::setPosition", "position");
    m_position = position;
    localChanged();
}

void SceneNode::translate(const glm::vec3& offset) {
    detail::requireFinite(offset, "SceneNode::translate", "offset");
    m_position += glm::dvec3(offset);
    localChanged();
}

void SceneNode::setRotation(const glm::quat& rotation) {
    const glm::vec4 asVector(rotation.x, rotation.y, rotation.z, rotation.w);
    detail::requireFinite(asVector, "SceneNode::setRotation", "rotation");
    const float length = glm::length(rotation);
    if (!(length > 1e-20f)) {
        throw InvalidArgument("SceneNode::setRotation: rotation is a zero quaternion");
    }
    m_rotation = rotation / length;
    localChanged();
}

void SceneNode::setRotationYawPitchRoll(float yawRadians, float pitchRadians, float rollRadians) {
    detail::requireFinite(glm::vec3(yawRadians, pitchRadians, rollRadians),
                          "SceneNode::setRotationYawPitchRoll", "angle");
    setRotation(glm::angleAxis(yawRadians, glm::vec3(0, 1, 0)) *
                glm::angleAxis(pitchRadians, glm::vec3(1, 0, 0)) *
                glm::angleAxis(rollRadians, glm::vec3(0, 0, 1)));
}

void SceneNode::setScale(const glm::vec3& scale) {
    detail::requireFinite(scale, "SceneNode::setScale", "scale");
    m_scale = scale;
    localChanged();
}

void SceneNode::setUniformScale(float scale) { setScale(glm::vec3(scale)); }

namespace {

// Rotation whose -Z axis points along @p direction with +Y towards @p up (OpenGL convention).
glm::quat rotationLookingAlong(const glm::vec3& direction, const glm::vec3& up, const char* function) {
    detail::requireFinite(direction, function, "direction");
    detail::requireFinite(up, function, "up");
    const float length = glm::length(direction);
    if (!(length > 0.0f)) {
        throw InvalidArgument(std::string(function) + ": the direction is zero (target at the node?)");
    }
    const glm::vec3 forward = direction / length;
    if (!(glm::length(up) > 0.0f) || glm::length(glm::cross(forward, glm::normalize(up))) < 1e-6f) {
        throw InvalidArgument(std::string(function) + ": up is zero or parallel to the direction");
    }
    return glm::quatLookAtRH(forward, glm::normalize(up));
}

} // namespace

void SceneNode::lookAt(const glm::dvec3& worldTarget, const glm::vec3& worldUp) {
    const glm::vec3 direction(worldTarget - worldTranslation());
    const glm::quat worldRotation = rotationLookingAlong(direction, worldUp, "SceneNode::lookAt");
    glm::quat parentRotation(1.0f, 0.0f, 0.0f, 0.0f);
    if (m_parent != nullptr) {
        // The parent's world rotation, with its scale divided out of each column.
        glm::mat3 linear = m_parent->worldLinear();
        for (int column = 0; column < 3; ++column) {
            const float length = glm::length(linear[column]);
            if (!(length > 0.0f)) {
                throw InvalidArgument("SceneNode::lookAt: the parent's world scale is zero");
            }
            linear[column] /= length;
        }
        parentRotation = glm::quat_cast(linear);
    }
    setRotation(glm::inverse(parentRotation) * worldRotation);
}

void SceneNode::setLocalForward(const glm::vec3& parentDirection, const glm::vec3& up) {
    setRotation(rotationLookingAlong(parentDirection, up, "SceneNode::setLocalForward"));
}

void SceneNode::setLocalMatrix(const glm::mat4& local) {
    detail::requireFinite(local, "SceneNode::setLocalMatrix", "matrix");
    detail::requireAffine(local, "SceneNode::setLocalMatrix");
    glm::vec3 scale, translation, skew;
    glm::vec4 perspective;
    glm::quat rotation;
    if (!glm::decompose(local, scale, rotation, translation, skew, perspective)) {
        throw InvalidArgument("SceneNode::setLocalMatrix: matrix cannot be decomposed into "
                              "translation, rotation and scale (singular?)");
    }
    const glm::vec4 rotationVector(rotation.x, rotation.y, rotation.z, rotation.w);
    if (!detail::allFinite(scale) || !detail::allFinite(rotationVector)) {
        throw InvalidArgument("SceneNode::setLocalMatrix: matrix decomposes to non-finite TRS");
    }
    m_position = glm::dvec3(translation);
    m_rotation = glm::normalize(rotation);
    m_scale = scale;
    localChanged();
}

const glm::mat4& SceneNode::localMatrix() const noexcept {
    if (m_localMatrixDirty) {
        m_local = glm::mat4(glm::mat3_cast(m_rotation) * glm::mat3(glm::scale(glm::mat4(1.0f), m_scale)));
        m_local[3] = glm::vec4(glm::vec3(m_position), 1.0f);
        m_localMatrixDirty = false;
    }
    return m_local;
}

const glm::mat4& SceneNode::worldMatrix() const {
    static std::atomic<std::uint64_t> versionCounter{0};
    std::uint64_t parentVersion = 0;
    if (m_parent != nullptr) {
        parentVersion = m_parent->worldVersion();
    }
    if (m_worldDirty || parentVersion != m_parentVersionSeen) {
        const glm::mat3 localLinear(localMatrix());
        if (m_parent != nullptr) {
            const glm::mat3 parentLinear(m_parent->m_world);
            m_world = glm::mat4(parentLinear * localLinear);
            // Double precision all the way: a 10,000 km offset keeps sub-millimetre steps.
            m_worldTranslation = m_parent->m_worldTranslation + glm::dmat3(parentLinear) * m_position;
        } else {
            m_world = glm::mat4(localLinear);
            m_worldTranslation = m_position;
        }
        m_world[3] = glm::vec4(glm::vec3(m_worldTranslation), 1.0f);
        m_parentVersionSeen = parentVersion;
        m_worldDirty = false;
        m_worldVersion = ++versionCounter;
    }
    return m_world;
}

glm::mat3 SceneNode::worldLinear() const { return glm::mat3(worldMatrix()); }

const glm::dvec3& SceneNode::worldTranslation() const {
    (void)worldMatrix();
    return m_worldTranslation;
}

void SceneNode::readWorldPosition(glm::dvec3& out) const { out = worldTranslation(); }

const glm::mat4& SceneNode::inverseWorldMatrix() const {
    const std::uint64_t version = worldVersion();
    if (m_inverseVersion != version) {
        m_inverseWorld = detail::inverseAffineOrThrow(m_world, "SceneNode::inverseWorldMatrix");
        m_inverseVersion = version;
    }
    return m_inverseWorld;
}

const glm::mat3& SceneNode::worldNormalMatrix() const {
    const std::uint64_t version = worldVersion();
    if (m_normalVersion != version) {
        const glm::mat3 linear(m_world);
        const float determinant = glm::determinant(linear);
        m_normalMatrix = std::abs(determinant) > 1e-30f ? glm::transpose(glm::inverse(linear))
                                                        : glm::mat3(0.0f);
        m_normalVersion = version;
    }
    return m_normalMatrix;
}

bool SceneNode::worldIsMirrored() const { return glm::determinant(worldLinear()) < 0.0f; }

std::uint64_t SceneNode::worldVersion() const {
    (void)worldMatrix();
    return m_worldVersion;
}

bool SceneNode::visibleInHierarchy() const noexcept {
    for (const SceneNode* node = this; node != nullptr; node = node->m_parent) {
        if (!node->m_visible) {
            return false;
        }
    }
    return true;
}

Aabb SceneNode::ownBounds() const { return {}; }

bool SceneNode::ownBoundsAreCullable() const {
    // Particles and scatter are drawn without a frustum test (their extent is not tracked).
    return m_kind != NodeKind::Particles && m_kind != NodeKind::Scatter && m_kind != NodeKind::GpuParticles;
}

void SceneNode::markSubtreeStale() const noexcept {
    // A stale node's ancestors are stale, so the walk stops at the first stale one.
    for (const SceneNode* node = this; node != nullptr && node->m_subtreeValid; node = node->m_parent) {
        node->m_subtreeValid = false;
    }
}

void SceneNode::refreshSubtree() const {
    // A move above this node changes every world box below it without marking anything stale:
    // the world version catches it, and then every child is recomputed through its own check.
    const std::uint64_t version = worldVersion();
    if (m_subtreeValid && m_subtreeWorldVersion == version) {
        return;
    }
    Aabb bounds = ownBounds();
    bool alwaysDrawn = !ownBoundsAreCullable();
    for (const auto& c : m_children) {
        c->refreshSubtree();
        bounds.extend(c->m_subtreeBounds);
        alwaysDrawn = alwaysDrawn || c->m_subtreeAlwaysDrawn;
    }
    m_subtreeBounds = bounds;
    m_subtreeAlwaysDrawn = alwaysDrawn;
    m_subtreeWorldVersion = version;
    m_subtreeValid = true;
}

const Aabb& SceneNode::subtreeBounds() const {
    refreshSubtree();
    return m_subtreeBounds;
}

bool SceneNode::subtreeAlwaysDrawn() const {
    refreshSubtree();
    return m_subtreeAlwaysDrawn;
}

void SceneNode::setTint(const glm::vec4& tint) {
    detail::requireFinite(tint, "SceneNode::setTint", "tint");
    if (tint.r < 0.0f || tint.g < 0.0f || tint.b < 0.0f || tint.a < 0.0f) {
        throw InvalidArgument("SceneNode::setTint: tint has a negative component");
    }
    m_tint = tint;
}

} // namespace myriad
