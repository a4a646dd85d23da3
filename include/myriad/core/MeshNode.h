#pragma once
/** @file
 *  A node that draws one mesh with one material. */
#include "myriad/core/Material.h"
#include "myriad/core/MeshData.h"
#include "myriad/core/SceneNode.h"
#include "myriad/core/Skeleton.h"

#include <glm/vec4.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace myriad {

class AnimationClip;
class AnimationSet;

/** A node's morph state at a glance: the mesh's targets and default weights, and the weights
 *  the node draws with now. Views into the mesh and the node; valid until either changes. */
struct MorphState {
    std::span<const MorphTarget> targets;     ///< the mesh's morph targets (model space)
    std::span<const float> defaultWeights;    ///< the mesh's default weights, one per target
    std::span<const float> weights;           ///< the node's current weights, one per target
};

/** One mesh drawn once, at the node's world transform: one draw command per primitive, many
 *  MeshNodes sharing one multi-draw call where they can (docs/architecture.md, "The
 *  table-driven draw path").
 *  Ownership: shares the mesh (std::shared_ptr), owns its copy of the material.
 *  Thread safety: as SceneNode. @see InstancedMeshNode for many copies in one draw. */
class MeshNode : public SceneNode {
public:
    /** @throws InvalidArgument if @p mesh is null. */
    MeshNode(std::shared_ptr<const MeshGeometry> mesh, Material material, std::string name = {});

    /** Primitive 0's mesh, shared (never null); other nodes may draw it too. */
    [[nodiscard]] const std::shared_ptr<const MeshGeometry>& mesh() const noexcept { return m_mesh; }
    /** Replaces primitive 0's mesh; the node's weights become its default weights.
     *  @throws InvalidArgument if @p mesh is null, or the node has more primitives and the new
     *  mesh's morph-target count differs from theirs (the old mesh stays). */
    void setMesh(std::shared_ptr<const MeshGeometry> mesh);
    /** Primitive 0's material (the node's own copy). */
    [[nodiscard]] const Material& material() const noexcept { return m_material; }
    /** Editable in place; the renderer reads it at each draw. */
    [[nodiscard]] Material& material() noexcept { return m_material; }

    // ---- several primitives (a glTF mesh with several materials) ---------------------------

    /** Adds a primitive: another mesh with its own material drawn with this node's transform,
     *  morph weights and (for an InstancedMeshNode) every instance — one draw command per
     *  primitive, all reading the same instance streams, so the instances are stored once. glTF 2.0 mesh
     *  primitives (section 3.7.2) map to this. Primitive 0 is mesh() / material().
     *  @throws InvalidArgument if @p mesh is null or its morph-target count differs from
     *  mesh()'s (glTF requires every primitive of a mesh to have the same targets); nothing
     *  changes then. */
    void addPrimitive(std::shared_ptr<const MeshGeometry> mesh, Material material);
    /** Primitives drawn by this node: 1 + those added. */
    [[nodiscard]] std::size_t primitiveCount() const noexcept { return 1 + m_extraPrimitives.size(); }
    /** The mesh of primitive @p index (0: mesh()). @throws OutOfRange if index >= primitiveCount(). */
    [[nodiscard]] const std::shared_ptr<const MeshGeometry>& primitiveMesh(std::size_t index) const;
    /** The material of primitive @p index (0: material()). @throws OutOfRange as primitiveMesh(). */
    [[nodiscard]] const Material& primitiveMaterial(std::size_t index) const;
    /** Editable material of primitive @p index. @throws OutOfRange as primitiveMesh(). */
    [[nodiscard]] Material& primitiveMaterial(std::size_t index);
    /** True when primitive @p index draws in the transparent pass (its material blends, or the
     *  node's tint alpha is below 1). @throws OutOfRange as primitiveMesh(). */
    [[nodiscard]] bool primitiveDrawsTransparent(std::size_t index) const {
        return primitiveMaterial(index).alphaMode == AlphaMode::Blend || tint().a < 1.0f;
    }

    /** What each of the mesh's morph targets is worth now, one weight per target (usually
     *  0..1; any finite value blends linearly). Starts as the mesh's default weights. For an
     *  InstancedMeshNode these are the weights of every instance not given its own. */
    [[nodiscard]] std::span<const float> morphWeights() const noexcept { return m_morphWeights; }
    /** The mesh's targets and default weights with the node's weights. */
    [[nodiscard]] MorphState morphState() const noexcept {
        return {m_mesh->data().morphTargets, m_mesh->defaultMorphWeights(), m_morphWeights};
    }
    /** Copies @p weights; missing trailing weights become 0.
     *  @throws InvalidArgument if there are more weights than the mesh has targets (or than
     *  kMaxMorphTargets), or one is NaN/Inf; nothing changes then. */
    void setMorphWeights(std::span<const float> weights);
    /** Swaps the node's morph state whole (the design card's settable `morph`): @p state's
     *  weights become the node's, as setMorphWeights(), so a state read from another node of
     *  the same mesh (`a.setMorphState(b.morphState())`) copies its pose. The targets and default
     *  weights belong to the shared, immutable mesh, so they are not swapped here: the state's
     *  must be this mesh's own (as morphState() gives them) or empty; setMesh() swaps targets.
     *  @throws InvalidArgument if they are another mesh's, or as setMorphWeights(); nothing
     *  changes then. */
    void setMorphState(const MorphState& state);

    /** Sets lane @p lane (0..3) of this node's shader data: four vec4 a surface function reads
     *  as s.lanes[0..3] (docs/lanes.md), exactly as given; myriad gives them no meaning. They
     *  are uniforms of the node's one draw, visible in the next frame. Lanes never given read
     *  (0, 0, 0, 0). On an InstancedMeshNode each instance has lanes of its own
     *  (InstancedMeshNode::setLane), and this throws.
     *  @throws OutOfRange if lane >= 4; InvalidArgument if a component is NaN or Inf, or the
     *  node is an InstancedMeshNode. Nothing changes then. */
    void setShaderData(std::size_t lane, const glm::vec4& value);
    /** Lane @p lane of the node's shader data. @throws OutOfRange if lane >= 4. */
    [[nodiscard]] glm::vec4 shaderData(std::size_t lane) const;
    /** All four lanes, as the draw sends them. */
    [[nodiscard]] const std::array<glm::vec4, 4>& shaderDataLanes() const noexcept { return m_shaderData; }
    /** Puts every lane back to (0, 0, 0, 0). */
    void clearShaderData() noexcept { m_shaderData.fill(glm::vec4(0.0f)); }

    // ---- skinning (docs/skinning.md) -------------------------------------------------------

    /** Skins the node's meshes with @p skeleton (the design card's `skeleton`): each vertex is
     *  drawn where linear blend skinning with the node's pose puts it (Skeleton's class
     *  comment), on the GPU, in the node's space (the skeleton's space is the node's). The pose
     *  starts as the skeleton's rest pose. Null: no skeleton; a skinned mesh then draws in its
     *  bind pose, as stored. Every primitive's mesh must be skinned (MeshGeometry::isSkinned)
     *  with joints the skeleton has, and have no morph targets (morphing a skinned mesh is not
     *  supported, docs/limitations.md). Bounds follow the pose (drawBounds(), setSkinReach()).
     *  On an InstancedMeshNode every instance draws the node's pose, unless the batch plays an
     *  AnimationSet (InstancedMeshNode::setAnimationSet), whose skeleton it then uses.
     *  @throws InvalidArgument naming the primitive if one is not skinned, uses a joint past
     *  the skeleton's joints or has morph targets; nothing changes then. */
    void setSkeleton(std::shared_ptr<const Skeleton> skeleton);
    /** The skeleton set, or null. */
    [[nodiscard]] const std::shared_ptr<const Skeleton>& skeleton() const noexcept;
    /** Sets the pose: one local transform per joint (JointTransform, relative to the parent
     *  joint; rotations normalised), as a clip sample or a game's own IK writes it. Computes
     *  jointMatrices(), skinMatrices() and the bounds, O(joints + primitives x joints); the
     *  renderer sends the jointCount() x 48 bytes of matrices in the next frame it draws.
     *  @throws InvalidArgument if there is no skeleton, @p local's size is not its
     *  jointCount(), or a value is NaN or Inf; nothing changes then. */
    void setPose(std::span<const JointTransform> local);
    /** setPose() of the skeleton's rest pose with @p clip sampled at @p seconds over it
     *  (AnimationClip::sample: clamped to the clip; use clip.loopTime() to loop). Allocates
     *  one pose. @throws InvalidArgument as setPose(), or if the clip drives a joint the
     *  skeleton lacks or @p seconds is NaN; nothing changes then. */
    void setPose(const AnimationClip& clip, float seconds);
    /** Each joint's matrix in the node's space for the current pose (Skeleton::jointMatrices):
     *  where to attach a sword to a hand. Empty without a skeleton. */
    [[nodiscard]] std::span<const glm::mat4> jointMatrices() const noexcept;
    /** The matrices the GPU blends, jointMatrices()[j] * inverseBind[j]. Empty without a skeleton. */
    [[nodiscard]] std::span<const glm::mat4> skinMatrices() const noexcept;
    /** Bumped by every setPose() and setSkeleton(): a renderer re-sends the matrices when it differs. */
    [[nodiscard]] std::uint64_t poseVersion() const noexcept;
    /** The card's `skinReach`: how far, in the mesh's units, the surface reaches from its
     *  joints. 0 (the default): the bounds are the exact union of each joint's box of vertices
     *  under its matrix (SkinBounds::posedBounds). Above 0: a sphere of that radius around each
     *  joint that moves a vertex (SkinBounds::reachBounds), cheaper for many joints and
     *  looser; too small a reach makes a posed surface leave its bounds and be culled.
     *  @throws InvalidArgument if @p reach is negative, NaN or Inf; nothing changes then. */
    void setSkinReach(float reach);
    /** The reach set, 0 by default. */
    [[nodiscard]] float skinReach() const noexcept;

    /** Godot's `extra_cull_margin`: how far, in the mesh's units (its model space, before the
     *  node's transform and, in a batch, before each instance's), a vertex function
     *  (SurfaceShader, docs/shaders.md "Vertex functions") may move the surface away from its
     *  stored box. Every primitive's box grows by it on each side, so meshBounds(),
     *  drawBounds(), each instance's culling sphere (CPU and GPU), shadow casting and picking's
     *  first test all cover the displaced surface. 0 (the default): displaced geometry outside
     *  the box is culled with it. A world-space displacement of d needs d divided by the
     *  smallest scale of the node (and instance) transform.
     *  @throws InvalidArgument if @p margin is negative, NaN or Inf; nothing changes then. */
    void setCullMargin(float margin);
    /** The margin set, 0 by default. */
    [[nodiscard]] float cullMargin() const noexcept { return m_cullMargin; }

    /** What this node draws, in node space: for a MeshNode meshBounds(), for an
     *  InstancedMeshNode the union of its instances (InstancedMeshNode::localBounds()).
     *  Always current, with no call to make: setMesh() and setMorphWeights() (the node's, and
     *  an InstancedMeshNode's per-instance ones) update it, whichever class they are called
     *  through. Covers the morphed geometry (MeshGeometry::morphedBounds()). */
    [[nodiscard]] const Aabb& drawBounds() const;
    /** The mesh's box with the node's morph weights applied (MeshGeometry::morphedBounds() of
     *  morphWeights()), united over every primitive, in the mesh's model space; kept by
     *  setMesh(), addPrimitive() and setMorphWeights(), O(primitives x morph targets) each.
     *  Never empty. */
    [[nodiscard]] const Aabb& meshBounds() const noexcept { return m_meshBounds; }
    /** drawBounds() in world space (Arvo's transformed box; float, so far from the origin it
     *  is coarse: use worldBoundsCentre() and worldBoundsRadius() there). Empty if nothing is
     *  drawn. */
    [[nodiscard]] Aabb worldBounds() const;
    /** worldBounds(): what a subtree's bounds hold on this node's account (SceneNode::ownBounds). */
    [[nodiscard]] Aabb ownBounds() const override;
    /** frustumCulled() (SceneNode::ownBoundsAreCullable). */
    [[nodiscard]] bool ownBoundsAreCullable() const override;
    /** Centre of the sphere around drawBounds(), world space, double precision: the world
     *  matrix applied to the box's centre. */
    [[nodiscard]] glm::dvec3 worldBoundsCentre() const;
    /** Radius of that sphere, world units: the exact distance from worldBoundsCentre() to the
     *  farthest corner of drawBounds() under the world matrix (Aabb::transformedRadius()), so
     *  the sphere holds the transformed box for any affine matrix, shear and non-uniform
     *  scale included. 0 when empty. */
    [[nodiscard]] float worldBoundsRadius() const;
    /** True when the node would be drawn in the transparent pass: its material blends, or its
     *  tint alpha is below 1. */
    [[nodiscard]] bool drawsTransparent() const noexcept {
        return m_material.alphaMode == AlphaMode::Blend || tint().a < 1.0f;
    }

    // ---- occlusion (docs/visibility.md, "Occlusion culling") --------------------------------

    /** The design card's `occluder`: whether this node hides what is behind it from the
     *  occlusion test of views with View::occlusionCulling. Default true: every opaque mesh
     *  occludes. A node that draws transparent (drawsTransparent(): its first material blends
     *  or its tint alpha is below 1) never occludes, whatever this says; nor do primitives
     *  that blend. Whether the node is itself tested is not affected (frustumCulled() says). */
    void setOccluder(bool occluder) noexcept { m_occluder = occluder; }
    /** The flag set, true by default. */
    [[nodiscard]] bool occluder() const noexcept { return m_occluder; }
    /** The design card's `occluderMesh`: the triangles to occlude with in place of the node's
     *  own (a box standing in for a building, a room's walls without its furniture), in the
     *  mesh's model space, drawn into the occlusion buffer with the node's world transform
     *  (and each instance's, for an InstancedMeshNode). Null (the default): the node's own
     *  primitives whose material is AlphaMode::Opaque with no SurfaceShader (alpha-tested and
     *  custom surfaces may discard, leaving holes; a vertex function moves the triangles), except meshes with morph targets or a skin
     *  (their drawn shape is not their stored one) and batches with a LOD chain (a far level
     *  may cover less): those occlude only through an occluder mesh. Only its positions and indices are read: it is
     *  never drawn, and its morph targets and skin are ignored. It must lie inside what the node
     *  draws: an occluder larger than the mesh would hide things the mesh does not.
     *  @throws InvalidArgument if @p mesh's box (MeshGeometry::localBounds()) is not inside
     *  meshBounds() (occluderMeshFits()); nothing changes then. After a later setMesh() or setMorphWeights() that
     *  shrinks meshBounds() below it, the renderer ignores it (the node then occludes with its
     *  own primitives) until it fits again. Shared: the node keeps a reference. */
    void setOccluderMesh(std::shared_ptr<const MeshGeometry> mesh);
    /** The occluder mesh set, or null. */
    [[nodiscard]] const std::shared_ptr<const MeshGeometry>& occluderMesh() const noexcept { return m_occluderMesh; }
    /** True when @p mesh's box lies inside meshBounds() (touching counts, with a margin of
     *  1e-4 of the node's largest half extent for rounding): what setOccluderMesh() checks and
     *  the renderer checks again each frame. */
    [[nodiscard]] bool occluderMeshFits(const MeshGeometry& mesh) const noexcept;

protected:
    /** For subclasses: as the public constructor, with the NodeKind the subclass reports
     *  (InstancedMeshNode passes NodeKind::InstancedMesh). @throws InvalidArgument if @p mesh
     *  is null. */
    MeshNode(std::shared_ptr<const MeshGeometry> mesh, Material material, std::string name,
             NodeKind kind);
    /** Bumped whenever meshBounds() may have changed (setMesh, setMorphWeights). setMesh() and
     *  setMorphWeights() are not virtual, so a subclass that caches something built from
     *  meshBounds() compares this number instead of relying on being told. */
    [[nodiscard]] std::uint64_t meshBoundsVersion() const noexcept { return m_meshBoundsVersion; }

    /** The union over every primitive of its mesh's box morphed by weights in [@p low, @p high]
     *  per target (MeshGeometry::morphedBounds()), model space; for a skinned node the box of
     *  its pose, and for a batch playing an AnimationSet the box of every baked pose. */
    [[nodiscard]] Aabb primitivesBounds(std::span<const float> low, std::span<const float> high) const;
    /** @p box grown by cullMargin() on each side (unchanged when empty). */
    [[nodiscard]] Aabb withCullMargin(Aabb box) const noexcept;
    /** For InstancedMeshNode::setAnimationSet: the set whose baked poses bound every
     *  primitive (null: none), after checking each primitive's mesh can play it.
     *  @throws InvalidArgument as setSkeleton() for the set's skeleton; nothing changes then. */
    void setAnimationBounds(std::shared_ptr<const AnimationSet> animations);
    /** The set given to setAnimationBounds(), or null. */
    [[nodiscard]] const std::shared_ptr<const AnimationSet>& animationBounds() const noexcept;

private:
    struct Primitive {
        std::shared_ptr<const MeshGeometry> mesh;
        Material material;
    };
    void checkPrimitive(std::size_t index, const char* function) const;
    /** Checks @p mesh can be skinned by @p skeleton (primitive @p index, for the message). */
    static void checkSkinnable(const MeshGeometry& mesh, const Skeleton& skeleton, std::size_t index,
                               const char* function);
    /** The skeleton that skins the node's meshes: the batch's AnimationSet's, else
     *  setSkeleton()'s, else null. */
    [[nodiscard]] const Skeleton* skinningSkeleton() const noexcept;
    /** m_meshBounds from primitivesBounds() of the node's weights, version bumped. */
    void refreshMeshBounds();

    /** A skinned node's state; null until setSkeleton() or setAnimationBounds(). */
    struct SkinState {
        std::shared_ptr<const Skeleton> skeleton;
        std::vector<SkinBounds> bounds;  ///< one per primitive (with a skeleton)
        std::vector<glm::mat4> joints;   ///< jointMatrices()
        std::vector<glm::mat4> skin;     ///< skinMatrices()
        float reach = 0.0f;
        std::uint64_t poseVersion = 1;
        std::shared_ptr<const AnimationSet> animations;  ///< a batch's baked clips
        std::vector<Aabb> animatedBounds;                ///< per primitive, every baked pose
        // Spares setPose() computes into and swaps with joints and skin, and the pose
        // setPose(clip, seconds) samples into: no allocation per pose once warm.
        std::vector<glm::mat4> nextJoints;
        std::vector<glm::mat4> nextSkin;
        std::vector<JointTransform> pose;
    };
    /** The skin state, made on first use; kept once made (an unskinned state costs nothing
     *  but its allocation: every check goes through skinningSkeleton()). */
    SkinState& skinState();

    std::vector<Primitive> m_extraPrimitives;  ///< primitives 1..n
    std::shared_ptr<const MeshGeometry> m_mesh;
    Material m_material;
    std::vector<float> m_morphWeights;  ///< one per morph target of m_mesh
    Aabb m_meshBounds;                  ///< m_mesh->morphedBounds(m_morphWeights)
    std::uint64_t m_meshBoundsVersion = 1;
    std::array<glm::vec4, 4> m_shaderData{};  ///< lanes of a plain MeshNode's one draw
    std::unique_ptr<SkinState> m_skin;        ///< null until skinning is first asked for
    std::shared_ptr<const MeshGeometry> m_occluderMesh;  ///< null: the node's own primitives
    bool m_occluder = true;
    float m_cullMargin = 0.0f;  ///< setCullMargin(): grows every primitive's box
};

/** @p node as a MeshNode (a MeshNode or an InstancedMeshNode), or null for a group, a
 *  particle pool or a scatter node: the one place that knows which kinds draw meshes. */
[[nodiscard]] inline const MeshNode* asMeshNode(const SceneNode& node) noexcept {
    return node.kind() == NodeKind::Mesh || node.kind() == NodeKind::InstancedMesh
               ? static_cast<const MeshNode*>(&node)
               : nullptr;
}

} // namespace myriad
