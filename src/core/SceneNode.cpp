#include "myriad/core/SceneNode.h"

#include "core/Validate.h"
#include "myriad/util/Error.h"

#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtx/matrix_decompose.hpp>

#include <algorithm>
#include <atomic>

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
    m_children.reserve(m_children.size() + 1);  // the only step that can throw is before linking
    child->m_parent = this;
    child->m_worldDirty = true;
    m_children.push_back(std::move(child));
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
    m_children.reserve(m_children.size() + 1);
    std::unique_ptr<SceneNode> owned = child.removeFromParent();
    owned->m_position = translation;
    owned->m_rotation = glm::normalize(rotation);
    owned->m_scale = scale;
    owned->localChanged();
    owned->m_parent = this;
    m_children.push_back(std::move(owned));
}

std::unique_ptr<SceneNode> SceneNode::remove(SceneNode& child) {
    auto it = std::find_if(m_children.begin(), m_children.end(),
                           [&](const std::unique_ptr<SceneNode>& c) { return c.get() == &child; });
    if (it == m_children.end()) {
        throw InvalidArgument("SceneNode::remove: node '" + child.m_name +
                              "' is not a child of '" + m_name + "'");
    }
    std::unique_ptr<SceneNode> owned = std::move(*it);
    m_children.erase(it);
    owned->m_parent = nullptr;
    owned->m_worldDirty = true;
    return owned;
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
}

void SceneNode::setPosition(const glm::vec3& position) {
    detail::requireFinite(position, "SceneNode::setPosition", "position");
    m_position = position;
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

void SceneNode::setScale(const glm::vec3& scale) {
    detail::requireFinite(scale, "SceneNode::setScale", "scale");
    m_scale = scale;
    localChanged();
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
    m_position = translation;
    m_rotation = glm::normalize(rotation);
    m_scale = scale;
    localChanged();
}

const glm::mat4& SceneNode::localMatrix() const noexcept {
    if (m_localMatrixDirty) {
        m_local = glm::translate(glm::mat4(1.0f), m_position) * glm::mat4_cast(m_rotation) *
                  glm::scale(glm::mat4(1.0f), m_scale);
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
        m_world = m_parent != nullptr ? m_parent->m_world * localMatrix() : localMatrix();
        m_parentVersionSeen = parentVersion;
        m_worldDirty = false;
        m_worldVersion = ++versionCounter;
    }
    return m_world;
}

std::uint64_t SceneNode::worldVersion() const {
    (void)worldMatrix();
    return m_worldVersion;
}

} // namespace myriad
