#pragma once
/** @file
 *  A skeleton for linear blend skinning (glTF 2.0 section 3.7.3, "Skins"): joints in a
 *  hierarchy, each with its rest transform and inverse bind matrix, and the maths that turns a
 *  pose (one local transform per joint) into the skin matrices a skinned mesh is drawn with.
 *  No GL. docs/skinning.md says how the pieces fit. */
#include "myriad/core/Bounds.h"

#include <glm/gtc/quaternion.hpp>
#include <glm/mat4x4.hpp>
#include <glm/vec3.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace myriad {

class MeshGeometry;

/** Most joints a Skeleton may have. glTF stores joint indices as 8- or 16-bit integers; 1024
 *  covers any character a game instances, and bounds a skinned node's matrices (48 KiB). */
inline constexpr std::size_t kMaxJoints = 1024;

/** A joint's transform relative to its parent joint (or, for a root joint, to the skeleton's
 *  space, which is the skinned node's space): translation, rotation and scale, applied as
 *  T * R * S (glTF 2.0 section 3.5.3). Units are the mesh's. Value type. */
struct JointTransform {
    glm::vec3 translation{0.0f};           ///< in the parent's units
    glm::quat rotation{1.0f, 0.0f, 0.0f, 0.0f};  ///< unit quaternion (w, x, y, z in glm's constructor)
    glm::vec3 scale{1.0f};                 ///< per axis
    /** T * R * S as a 4x4 matrix. The rotation is used as given (normalise it first). */
    [[nodiscard]] glm::mat4 matrix() const noexcept;
    /** Equal when every component is. */
    friend bool operator==(const JointTransform&, const JointTransform&) = default;
};

/** One joint of a Skeleton. */
struct Joint {
    std::string name;            ///< the glTF node's name (may be empty); used to find joints and bind clips
    std::int32_t parent = -1;    ///< index of the parent joint in the same Skeleton, -1 for a root
    JointTransform rest;         ///< local transform in the rest pose (the glTF node's TRS)
    /** Takes a vertex from the mesh's bind space into this joint's space (glTF
     *  inverseBindMatrices). Affine. Identity when the file gives none (glTF 3.7.3.1). */
    glm::mat4 inverseBind{1.0f};
};

/** An immutable joint hierarchy, shared by every node and animation that uses it
 *  (std::shared_ptr<const Skeleton>), like MeshGeometry.
 *
 *  Linear blend skinning (Magnenat-Thalmann et al. 1988; the glTF 2.0 skinning equation):
 *  a vertex v with joints j0..j3 and weights w0..w3 is drawn at
 *  sum_k w_k * skin[j_k] * v, where skin[j] = modelFromJoint[j] * inverseBind[j] and
 *  modelFromJoint[j] is the product of the local transforms from the root down to j. The
 *  result is in the skeleton's space, which myriad takes as the skinned node's own space (its
 *  world matrix places the skeleton; glTF's "skinned mesh node transform is ignored" is the
 *  importer's business, docs/skinning.md). Thread safety: immutable, readable from any thread. */
class Skeleton {
public:
    /** Validates and takes @p joints.
     *  @throws InvalidArgument if there are no joints or more than kMaxJoints, a parent index is
     *  not -1 and not another joint's index, the parents form a cycle, a transform or inverse
     *  bind matrix has NaN or Inf, a rotation is the zero quaternion (rotations are normalised),
     *  or an inverse bind matrix is not affine (bottom row 0, 0, 0, 1) or is singular. */
    explicit Skeleton(std::vector<Joint> joints, std::string name = {});
    /** Convenience: std::make_shared<const Skeleton>(...). @throws as the constructor. */
    [[nodiscard]] static std::shared_ptr<const Skeleton> create(std::vector<Joint> joints, std::string name = {});

    /** The name given at construction (for labels and messages); may be empty. */
    [[nodiscard]] const std::string& name() const noexcept { return m_name; }
    /** Process-wide serial number, never reused. */
    [[nodiscard]] std::uint64_t id() const noexcept { return m_id; }
    /** Number of joints, 1 to kMaxJoints. */
    [[nodiscard]] std::size_t jointCount() const noexcept { return m_joints.size(); }
    /** The joints, in the order skin joint indices (MeshData::joints) refer to them. */
    [[nodiscard]] std::span<const Joint> joints() const noexcept { return m_joints; }
    /** Index of the first joint named @p name, or -1 when none is. */
    [[nodiscard]] std::int32_t findJoint(std::string_view name) const noexcept;
    /** Joint indices with every parent before its children: the order poses are evaluated in. */
    [[nodiscard]] std::span<const std::uint32_t> evaluationOrder() const noexcept { return m_order; }
    /** Every joint's rest transform, in joint order: a pose to start from. */
    [[nodiscard]] std::vector<JointTransform> restPose() const;

    /** Fills @p modelFromJoint[j] with joint j's transform in the skeleton's space for the pose
     *  @p local (one local transform per joint, as JointTransform; rotations are normalised
     *  here). No allocation.
     *  @throws InvalidArgument if either span's size is not jointCount() (nothing is written). */
    void jointMatrices(std::span<const JointTransform> local, std::span<glm::mat4> modelFromJoint) const;
    /** Fills @p skin[j] = modelFromJoint[j] * inverseBind[j]: the matrices the skinning equation
     *  (class comment) blends. @p modelFromJoint as jointMatrices() writes it.
     *  @throws InvalidArgument if a span's size is not jointCount() (nothing is written). */
    void skinMatrices(std::span<const glm::mat4> modelFromJoint, std::span<glm::mat4> skin) const;

private:
    std::string m_name;
    std::uint64_t m_id = 0;
    std::vector<Joint> m_joints;
    std::vector<std::uint32_t> m_order;
};

/** The bounds of a skinned mesh, per joint: for each joint, the box (in that joint's bind
 *  space, inverseBind * position) around the vertices that joint moves (a weight above 0).
 *  A joint that moves no vertex has an empty box. Computed once per (mesh, skeleton), O(vertices).
 *
 *  Why per joint: skin[j] * v of every vertex v that j moves lies in skin[j]'s image of j's
 *  box, and a skinned vertex is a convex combination of those points, so the union of the
 *  joints' transformed boxes holds every skinned vertex of any pose (posedBounds()), tight
 *  enough to cull by, with no pass over the vertices per pose. */
class SkinBounds {
public:
    /** @throws InvalidArgument if @p mesh is not skinned (MeshData::joints empty) or a joint
     *  index with a non-zero weight is not below skeleton.jointCount(). */
    SkinBounds(const MeshGeometry& mesh, const Skeleton& skeleton);
    /** One box per joint, in the joint's bind space; empty for a joint that moves no vertex. */
    [[nodiscard]] std::span<const Aabb> jointBoxes() const noexcept { return m_boxes; }
    /** The box, in the skeleton's space, that holds every vertex skinned in the pose whose
     *  joint matrices are @p modelFromJoint (Skeleton::jointMatrices(), one per joint): the
     *  union of modelFromJoint[j] applied to joint j's box (Arvo's transformed box; skin[j] * v
     *  = modelFromJoint[j] * (inverseBind[j] * v), and the box holds the latter). O(joints).
     *  Empty only if no joint moves a vertex.
     *  @throws InvalidArgument if @p modelFromJoint has fewer matrices than there are joint boxes. */
    [[nodiscard]] Aabb posedBounds(std::span<const glm::mat4> modelFromJoint) const;
    /** The box around spheres of radius @p reach (the card's `skinReach`, mesh units) centred
     *  on each joint that moves a vertex, at its place in @p modelFromJoint: cheaper and looser
     *  than posedBounds(), for a game that knows how far its surface reaches from its joints.
     *  @throws InvalidArgument as posedBounds(). */
    [[nodiscard]] Aabb reachBounds(std::span<const glm::mat4> modelFromJoint, float reach) const;

private:
    std::vector<Aabb> m_boxes;
};

} // namespace myriad
