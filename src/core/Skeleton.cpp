#include "myriad/core/Skeleton.h"

#include "core/Validate.h"
#include "myriad/core/MeshData.h"
#include "myriad/util/Error.h"

#include <glm/gtc/quaternion.hpp>
#include <glm/mat3x3.hpp>

#include <atomic>
#include <cmath>
#include <string>

namespace myriad {
namespace {

std::uint64_t nextSkeletonSerial() noexcept {
    static std::atomic<std::uint64_t> serial{0};
    return ++serial;
}

bool finiteQuat(const glm::quat& q) noexcept {
    return std::isfinite(q.x) && std::isfinite(q.y) && std::isfinite(q.z) && std::isfinite(q.w);
}

} // namespace

glm::mat4 JointTransform::matrix() const noexcept {
    const glm::mat3 r = glm::mat3_cast(rotation);
    glm::mat4 m(1.0f);
    m[0] = glm::vec4(r[0] * scale.x, 0.0f);
    m[1] = glm::vec4(r[1] * scale.y, 0.0f);
    m[2] = glm::vec4(r[2] * scale.z, 0.0f);
    m[3] = glm::vec4(translation, 1.0f);
    return m;
}

Skeleton::Skeleton(std::vector<Joint> joints, std::string name) : m_name(std::move(name)), m_id(nextSkeletonSerial()) {
    const std::string where = "Skeleton('" + m_name + "')";
    if (joints.empty()) {
        throw InvalidArgument(where + ": no joints");
    }
    if (joints.size() > kMaxJoints) {
        throw InvalidArgument(where + ": " + std::to_string(joints.size()) + " joints, more than kMaxJoints (" +
                              std::to_string(kMaxJoints) + ")");
    }
    const auto count = static_cast<std::int32_t>(joints.size());
    for (std::int32_t j = 0; j < count; ++j) {
        Joint& joint = joints[static_cast<std::size_t>(j)];
        const std::string which = where + ": joint " + std::to_string(j) + " ('" + joint.name + "')";
        if (joint.parent < -1 || joint.parent >= count || joint.parent == j) {
            throw InvalidArgument(which + " has parent " + std::to_string(joint.parent) + "; a parent is -1 or another of the " +
                                  std::to_string(count) + " joints");
        }
        if (!detail::allFinite(joint.rest.translation) || !detail::allFinite(joint.rest.scale) ||
            !finiteQuat(joint.rest.rotation)) {
            throw InvalidArgument(which + ": its rest transform has NaN or Inf");
        }
        const float length = glm::length(joint.rest.rotation);
        if (!(length > 0.0f)) {
            throw InvalidArgument(which + ": its rest rotation is the zero quaternion");
        }
        joint.rest.rotation /= length;
        if (!detail::allFinite(joint.inverseBind)) {
            throw InvalidArgument(which + ": its inverse bind matrix has NaN or Inf");
        }
        if (!detail::isAffine(joint.inverseBind)) {
            throw InvalidArgument(which + ": its inverse bind matrix is not affine (bottom row must be 0, 0, 0, 1)");
        }
        if (!(std::abs(glm::determinant(glm::mat3(joint.inverseBind))) > 0.0f)) {
            throw InvalidArgument(which + ": its inverse bind matrix is singular (determinant 0)");
        }
    }
    // Parents before children: repeated passes place each joint once its parent is placed;
    // a pass that places nothing while joints remain means a cycle.
    std::vector<std::uint8_t> placed(joints.size(), 0);
    m_order.reserve(joints.size());
    while (m_order.size() < joints.size()) {
        const std::size_t before = m_order.size();
        for (std::int32_t j = 0; j < count; ++j) {
            const std::int32_t parent = joints[static_cast<std::size_t>(j)].parent;
            if (placed[static_cast<std::size_t>(j)] == 0 && (parent < 0 || placed[static_cast<std::size_t>(parent)] != 0)) {
                placed[static_cast<std::size_t>(j)] = 1;
                m_order.push_back(static_cast<std::uint32_t>(j));
            }
        }
        if (m_order.size() == before) {
            for (std::int32_t j = 0; j < count; ++j) {
                if (placed[static_cast<std::size_t>(j)] == 0) {
                    throw InvalidArgument(where + ": joint " + std::to_string(j) + " ('" +
                                          joints[static_cast<std::size_t>(j)].name + "') is its own ancestor (the parents form a cycle)");
                }
            }
        }
    }
    m_joints = std::move(joints);
}

std::shared_ptr<const Skeleton> Skeleton::create(std::vector<Joint> joints, std::string name) {
    return std::make_shared<const Skeleton>(std::move(joints), std::move(name));
}

std::int32_t Skeleton::findJoint(std::string_view name) const noexcept {
    for (std::size_t j = 0; j < m_joints.size(); ++j) {
        if (m_joints[j].name == name) {
            return static_cast<std::int32_t>(j);
        }
    }
    return -1;
}

std::vector<JointTransform> Skeleton::restPose() const {
    std::vector<JointTransform> pose;
    pose.reserve(m_joints.size());
    for (const Joint& joint : m_joints) {
        pose.push_back(joint.rest);
    }
    return pose;
}

void Skeleton::jointMatrices(std::span<const JointTransform> local, std::span<glm::mat4> modelFromJoint) const {
    if (local.size() != m_joints.size() || modelFromJoint.size() != m_joints.size()) {
        throw InvalidArgument("Skeleton::jointMatrices: " + std::to_string(local.size()) + " local transforms and " +
                              std::to_string(modelFromJoint.size()) + " matrices for " +
                              std::to_string(m_joints.size()) + " joints");
    }
    for (const std::uint32_t j : m_order) {
        JointTransform transform = local[j];
        const float length = glm::length(transform.rotation);
        transform.rotation = length > 0.0f ? transform.rotation / length : glm::quat(1.0f, 0.0f, 0.0f, 0.0f);
        const glm::mat4 own = transform.matrix();
        const std::int32_t parent = m_joints[j].parent;
        modelFromJoint[j] = parent < 0 ? own : modelFromJoint[static_cast<std::size_t>(parent)] * own;
    }
}

void Skeleton::skinMatrices(std::span<const glm::mat4> modelFromJoint, std::span<glm::mat4> skin) const {
    if (modelFromJoint.size() != m_joints.size() || skin.size() != m_joints.size()) {
        throw InvalidArgument("Skeleton::skinMatrices: " + std::to_string(modelFromJoint.size()) + " joint matrices and " +
                              std::to_string(skin.size()) + " skin matrices for " + std::to_string(m_joints.size()) +
                              " joints");
    }
    for (std::size_t j = 0; j < m_joints.size(); ++j) {
        skin[j] = modelFromJoint[j] * m_joints[j].inverseBind;
    }
}

SkinBounds::SkinBounds(const MeshGeometry& mesh, const Skeleton& skeleton) {
    const MeshData& data = mesh.data();
    if (data.joints.empty()) {
        throw InvalidArgument("SkinBounds: mesh '" + mesh.name() + "' is not skinned (no joints per vertex)");
    }
    const std::span<const Joint> joints = skeleton.joints();
    m_boxes.assign(joints.size(), Aabb{});
    for (std::size_t v = 0; v < data.positions.size(); ++v) {
        const glm::vec4 position(data.positions[v], 1.0f);
        for (glm::length_t k = 0; k < 4; ++k) {
            if (data.weights[v][k] <= 0.0f) {
                continue;
            }
            const std::size_t joint = data.joints[v][k];
            if (joint >= joints.size()) {
                throw InvalidArgument("SkinBounds: mesh '" + mesh.name() + "' vertex " + std::to_string(v) +
                                      " uses joint " + std::to_string(joint) + ", past skeleton '" + skeleton.name() +
                                      "''s " + std::to_string(joints.size()) + " joints");
            }
            m_boxes[joint].extend(glm::vec3(joints[joint].inverseBind * position));
        }
    }
}

Aabb SkinBounds::posedBounds(std::span<const glm::mat4> modelFromJoint) const {
    if (modelFromJoint.size() < m_boxes.size()) {
        throw InvalidArgument("SkinBounds::posedBounds: " + std::to_string(modelFromJoint.size()) +
                              " joint matrices for " + std::to_string(m_boxes.size()) + " joints");
    }
    Aabb bounds;
    for (std::size_t j = 0; j < m_boxes.size(); ++j) {
        bounds.extend(m_boxes[j].transformed(modelFromJoint[j]));
    }
    return bounds;
}

Aabb SkinBounds::reachBounds(std::span<const glm::mat4> modelFromJoint, float reach) const {
    if (modelFromJoint.size() < m_boxes.size()) {
        throw InvalidArgument("SkinBounds::reachBounds: " + std::to_string(modelFromJoint.size()) +
                              " joint matrices for " + std::to_string(m_boxes.size()) + " joints");
    }
    Aabb bounds;
    const glm::vec3 r(std::abs(reach));
    for (std::size_t j = 0; j < m_boxes.size(); ++j) {
        if (!m_boxes[j].empty()) {
            const glm::vec3 centre(modelFromJoint[j][3]);
            bounds.extend(centre - r);
            bounds.extend(centre + r);
        }
    }
    return bounds;
}

} // namespace myriad
