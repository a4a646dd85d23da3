#pragma once
/** @file
 *  The scene-graph node: hierarchy, TRS transform, cached world matrix, visibility. */
#include "myriad/core/Bounds.h"

#include <glm/gtc/quaternion.hpp>
#include <glm/mat3x3.hpp>
#include <glm/mat4x4.hpp>
#include <glm/vec3.hpp>
#include <glm/vec4.hpp>
#include <glm/ext/vector_double3.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace myriad {

class Scene;

/** How a node takes part in shadows (the design card's `shadowCasting`; Unity's
 *  ShadowCastingMode, Godot's GeometryInstance3D.cast_shadow): SceneNode::setShadowCasting(). */
enum class ShadowCasting : std::uint8_t {
    Off,          ///< drawn in colour views, never into a shadow map
    On,           ///< drawn in colour views and into shadow maps (the default)
    ShadowsOnly,  ///< drawn into shadow maps only: invisible in colour views, its shadow stays
};

/** What a node draws; lets the renderer dispatch without dynamic_cast or a virtual per node. */
enum class NodeKind : std::uint8_t {
    Group,          ///< draws nothing; a transform for its children
    Mesh,           ///< a MeshNode: one mesh, one draw
    InstancedMesh,  ///< an InstancedMeshNode: one mesh, many instances, one draw
    Particles,      ///< a ParticlePool (Particles.h): camera-facing quads, one draw; not a MeshNode
    Scatter,        ///< a ScatterNode (Scatter.h): compact foliage instances, one draw; not a MeshNode
    GpuParticles,   ///< a GpuParticleSystem (GpuParticles.h): simulated by compute, one indirect draw
    Light,          ///< a LightNode (LightNode.h): a sun or lamp; draws nothing
};

/** A node of the scene graph: a name, a local TRS transform, children, a visibility flag.
 *
 *  The local transform is translation * rotation * scale (column vectors, so scale applies
 *  first). The world matrix is parent world * local, computed on demand and cached: it is
 *  recomputed only when this node's local transform or an ancestor's world matrix changed, and
 *  each recomputation bumps worldVersion(), which caches keyed on it (the renderer's, users')
 *  compare instead of the matrix.
 *
 *  Ownership: a node owns its children (std::unique_ptr); add() and attach() return a non-owning
 *  reference that stays valid until the child is removed or its parent destroyed.
 *  Thread safety: none; one thread at a time for a whole tree, since reading the world matrix
 *  may update caches along the parent chain. */
class SceneNode {
public:
    /** A group node. @param name free text for findByName() and GL labels; may be empty. */
    explicit SceneNode(std::string name = {});
    virtual ~SceneNode();
    SceneNode(const SceneNode&) = delete;
    SceneNode& operator=(const SceneNode&) = delete;

    /** The free-text name given at construction or by setName(). */
    [[nodiscard]] const std::string& name() const noexcept { return m_name; }
    /** Renames the node; GL labels made before keep the old name. */
    void setName(std::string name) { m_name = std::move(name); }
    /** What this node is (group, mesh, batch), fixed at construction: lets the renderer
     *  sort nodes without a dynamic_cast per node. */
    [[nodiscard]] NodeKind kind() const noexcept { return m_kind; }
    /** A process-wide serial number, never reused, so caches keyed on it cannot mistake a new
     *  node for a destroyed one that had the same address. */
    [[nodiscard]] std::uint64_t id() const noexcept { return m_id; }
    /** Expires when this node is destroyed: lets a cache (the renderer's GPU copies of a batch)
     *  free what it made for the node at once instead of waiting for it to go unused. */
    [[nodiscard]] std::weak_ptr<const void> lifetime() const;

    // ---- hierarchy -----------------------------------------------------------------------

    /** Takes ownership of @p child and appends it; its local transform is kept, so its world
     *  transform becomes this node's world * its local.
     *  @throws InvalidArgument if child is null, already has a parent, or is this node or one of
     *  its ancestors (a cycle); nothing changes then. */
    template <class T>
    T& add(std::unique_ptr<T> child) {
        T* raw = child.get();  // not dereferenced before addChild() has refused a null child
        addChild(std::unique_ptr<SceneNode>(std::move(child)), false);
        return *raw;
    }
    /** Constructs a T(args...) and adds it as a child. */
    template <class T, class... Args>
    T& emplace(Args&&... args) {
        return add(std::make_unique<T>(std::forward<Args>(args)...));
    }
    /** Like add(), but keeps the child's world transform: a parentless node's world is its
     *  local transform, and that is what it keeps under this node (its local transform is
     *  rewritten to inverse(this world) * its local; three.js Object3D.attach).
     *  @throws InvalidArgument as add(), or if this node's world matrix is singular. */
    template <class T>
    T& attach(std::unique_ptr<T> child) {
        T* raw = child.get();
        addChild(std::unique_ptr<SceneNode>(std::move(child)), true);
        return *raw;
    }
    /** Moves @p child, a node that has a parent (any, this one included), under this node and
     *  keeps its world transform.
     *  @throws InvalidArgument if @p child has no parent, is this node or an ancestor of it, or
     *  this node's world matrix is singular; nothing changes then. */
    void attach(SceneNode& child);
    /** Detaches @p child and hands it back; its world transform becomes its local one.
     *  @throws InvalidArgument if @p child is not a direct child of this node. */
    std::unique_ptr<SceneNode> remove(SceneNode& child);
    /** Detaches this node from its parent and hands ownership to the caller.
     *  @throws InvalidArgument if the node has no parent. */
    std::unique_ptr<SceneNode> removeFromParent();

    /** The parent, or null for a root or a detached node. Not owning. */
    [[nodiscard]] SceneNode* parent() const noexcept { return m_parent; }
    /** Number of direct children. */
    [[nodiscard]] std::size_t childCount() const noexcept { return m_children.size(); }
    /** @throws OutOfRange if index >= childCount(). */
    [[nodiscard]] SceneNode& child(std::size_t index) const;
    /** The children in order; the view is invalidated by add/remove on this node. */
    [[nodiscard]] std::span<const std::unique_ptr<SceneNode>> childrenView() const noexcept {
        return m_children;
    }

    /** Calls @p visit on this node and every descendant, depth first, parents before children.
     *  The callback must not add or remove nodes of this subtree. */
    void traverse(const std::function<void(SceneNode&)>& visit);
    /** Read-only traverse(): the same order, const nodes. */
    void traverse(const std::function<void(const SceneNode&)>& visit) const;
    /** First node in depth-first order (this node included) whose name equals @p name, or null.
     *  O(subtree size). */
    [[nodiscard]] SceneNode* findByName(std::string_view name) noexcept;

    // ---- local transform -----------------------------------------------------------------
    // Translations are kept in double precision (world translation too), so a node 10,000 km
    // from the origin keeps millimetres; the renderer subtracts the camera position in double
    // before anything becomes float (camera-relative rendering, as Ogre's option of that name).

    /** Parent-space translation, double precision (float vectors convert), for large worlds.
     *  @throws InvalidArgument on NaN or Inf (nothing changes). */
    void setPosition(const glm::dvec3& position);
    /** Adds @p offset (parent space) to the position. @throws InvalidArgument on NaN or Inf. */
    void translate(const glm::vec3& offset);
    /** Parent-space rotation; normalised on the way in.
     *  @throws InvalidArgument on NaN, Inf or a zero quaternion. */
    void setRotation(const glm::quat& rotation);
    /** Rotation from Euler angles in radians, applied as yaw about Y, then pitch about the
     *  turned X, then roll about the turned Z (R = Ry(yaw) * Rx(pitch) * Rz(roll)), the usual
     *  order for a Y-up camera or character. @throws InvalidArgument on NaN or Inf. */
    void setRotationYawPitchRoll(float yawRadians, float pitchRadians, float rollRadians);
    /** Per-axis scale; zero and negative (mirroring) are allowed.
     *  @throws InvalidArgument on NaN or Inf. */
    void setScale(const glm::vec3& scale);
    /** setScale(glm::vec3(scale)). */
    void setUniformScale(float scale);
    /** Turns the node so its local -Z axis points at @p worldTarget, with its local +Y as close
     *  to @p worldUp as possible (glm::quatLookAt; the OpenGL camera convention).
     *  Assumes the parent's world matrix has no shear (a non-uniform parent scale skews it).
     *  @throws InvalidArgument if the target is at the node's world position, @p worldUp is
     *  parallel to the direction, or a value is NaN/Inf. */
    void lookAt(const glm::dvec3& worldTarget, const glm::vec3& worldUp = glm::vec3(0, 1, 0));
    /** Turns the node so its local -Z axis points along @p parentDirection (parent space).
     *  @throws InvalidArgument on a zero or non-finite direction, or one parallel to @p up. */
    void setLocalForward(const glm::vec3& parentDirection, const glm::vec3& up = glm::vec3(0, 1, 0));

    /** Position in float (rounded from the double kept inside). */
    [[nodiscard]] glm::vec3 position() const noexcept { return glm::vec3(m_position); }
    /** Position in the parent's space, in the double precision kept inside (large worlds). */
    [[nodiscard]] const glm::dvec3& positionDouble() const noexcept { return m_position; }
    /** Rotation relative to the parent, a unit quaternion. */
    [[nodiscard]] const glm::quat& rotation() const noexcept { return m_rotation; }
    /** Scale along the local axes; a negative component mirrors. */
    [[nodiscard]] const glm::vec3& scale() const noexcept { return m_scale; }
    /** Copies into @p out: no allocation, no temporary (for hot loops over many nodes). */
    void readPosition(glm::vec3& out) const noexcept { out = glm::vec3(m_position); }
    /** Copies rotation() into @p out (no temporary, as readPosition()). */
    void readRotation(glm::quat& out) const noexcept { out = m_rotation; }
    /** Copies scale() into @p out (no temporary, as readPosition()). */
    void readScale(glm::vec3& out) const noexcept { out = m_scale; }
    /** World-space position (double precision). Brings the world transform up to date. */
    void readWorldPosition(glm::dvec3& out) const;

    /** Sets the local transform from a matrix, decomposed into TRS (glm::decompose). Shear
     *  cannot be represented by TRS and is dropped.
     *  @throws InvalidArgument if the matrix has NaN/Inf, a projective bottom row, or cannot be
     *  decomposed (singular); nothing changes then. */
    void setLocalMatrix(const glm::mat4& local);
    /** translation * rotation * scale. Cached; O(1) after the first call. */
    [[nodiscard]] const glm::mat4& localMatrix() const noexcept;

    /** Parent world * local in float, recomputed only when stale. O(depth) checks, O(1) when
     *  fresh. Far from the origin its translation loses precision: the renderer uses
     *  worldTranslation() and worldLinear() instead. */
    [[nodiscard]] const glm::mat4& worldMatrix() const;
    /** The 3x3 rotation-and-scale part of the world transform. */
    [[nodiscard]] glm::mat3 worldLinear() const;
    /** The world translation in double precision. */
    [[nodiscard]] const glm::dvec3& worldTranslation() const;
    /** inverse(worldMatrix()), cached on worldVersion(). @throws InvalidArgument if singular. */
    [[nodiscard]] const glm::mat4& inverseWorldMatrix() const;
    /** Transforms normals to world space: inverse transpose of the world 3x3, cached on
     *  worldVersion(). A singular 3x3 (a zero scale) gives the zero matrix. */
    [[nodiscard]] const glm::mat3& worldNormalMatrix() const;
    /** True when the world 3x3 has a negative determinant (an odd number of negative scales):
     *  front faces then wind clockwise on screen. */
    [[nodiscard]] bool worldIsMirrored() const;
    /** Bumped each time worldMatrix() is recomputed to a new value: a cache holding the version
     *  it last saw knows whether the world matrix moved. Brings the world matrix up to date. */
    [[nodiscard]] std::uint64_t worldVersion() const;

    // ---- visibility and drawing flags ----------------------------------------------------

    /** A hidden node hides its whole subtree from the renderer. Default true. */
    void setVisible(bool visible) noexcept { m_visible = visible; }
    /** This node's own flag; see visibleInHierarchy() for the effective one. */
    [[nodiscard]] bool visible() const noexcept { return m_visible; }
    /** visible() of this node and of every ancestor. O(depth). */
    [[nodiscard]] bool visibleInHierarchy() const noexcept;
    /** Drawn only by cameras whose layerMask shares a bit with it. Default 1 (layer 0). */
    void setLayerMask(std::uint32_t mask) noexcept { m_layerMask = mask; }
    /** The layer bits set by setLayerMask(). */
    [[nodiscard]] std::uint32_t layerMask() const noexcept { return m_layerMask; }
    /** Multiplies this node's colour and opacity (linear RGBA), not its children's.
     *  Default (1, 1, 1, 1). An alpha below 1 draws the node in the transparent pass.
     *  @throws InvalidArgument on NaN, Inf or a negative component. */
    void setTint(const glm::vec4& tint);
    /** The linear RGBA tint set by setTint(). */
    [[nodiscard]] const glm::vec4& tint() const noexcept { return m_tint; }
    /** True when tint() is not (1, 1, 1, 1): the renderer then sets the tint uniform. */
    [[nodiscard]] bool isTinted() const noexcept { return m_tint != glm::vec4(1.0f); }
    /** Union of ownBounds() over this subtree (this node included), world space, hidden nodes
     *  too; empty when nothing in it draws bounds (groups only, or particles and scatter, whose
     *  extent is not tracked: see subtreeAlwaysDrawn()).
     *  Cached: a change below this node (a transform, a mesh, a batch's instances or bounds
     *  override, an added or removed child, a frustum-culling flag) marks this node and its
     *  ancestors stale, O(1) per change once they are stale (the walk up stops at the first
     *  stale node); a call while nothing moved costs a worldVersion() check, O(depth), not
     *  O(subtree). A stale call recomputes only the stale branches (every branch when this
     *  node's own world transform moved). The reference is valid until the next call on this
     *  subtree. Not thread-safe, as the rest of the node. */
    [[nodiscard]] const Aabb& subtreeBounds() const;
    /** True when something in this subtree (this node included, hidden nodes too) is drawn
     *  without a frustum test, so a culler that trusts subtreeBounds() must not cull the subtree
     *  on it: a mesh node with setFrustumCulled(false), a ParticlePool or a ScatterNode. Cached
     *  with subtreeBounds(). */
    [[nodiscard]] bool subtreeAlwaysDrawn() const;
    /** What the bounds of any subtree holding this node must contain on its account, world
     *  space: for a MeshNode its worldBounds() (an InstancedMeshNode's covers every drawn
     *  instance); for a group, a ParticlePool and a ScatterNode an empty box. A subclass that
     *  overrides it calls subtreeChanged() whenever the value may change. */
    [[nodiscard]] virtual Aabb ownBounds() const;
    /** Whether a frustum test against ownBounds() may skip this node: a MeshNode's
     *  frustumCulled(); false for a ParticlePool and a ScatterNode (drawn without a frustum
     *  test, docs/particles.md); true for a group, which draws nothing. */
    [[nodiscard]] virtual bool ownBoundsAreCullable() const;

    // ---- scene membership ----------------------------------------------------------------
    /** The scene whose tree holds this node (through its root), or null for a node in a tree
     *  that no Scene owns. O(1): kept up to date as subtrees are added and removed. */
    [[nodiscard]] Scene* scene() const noexcept { return m_scene; }
    /** Whether this node draws into the shadow map when the scene's light has shadows on
     *  (ShadowSettings, docs/shadows.md): false leaves all of it out (every instance of a
     *  batch), this node only, not its children. Default true. */
    void setCastsShadow(bool casts) noexcept { m_shadowCasting = casts ? ShadowCasting::On : ShadowCasting::Off; }
    /** True unless shadowCasting() is ShadowCasting::Off. On a LightNode: whether the lamp
     *  draws a shadow map (LightNode's class comment). */
    [[nodiscard]] bool castsShadow() const noexcept { return m_shadowCasting != ShadowCasting::Off; }
    /** The card's `shadowCasting` mode: Off (never into a shadow map), On (the default), or
     *  ShadowsOnly (into every shadow map, the sun's cascades and the lamps' tiles, but left out
     *  of every colour view: a stand-in that casts for something drawn another way).
     *  setCastsShadow(true / false) is setShadowCasting(On / Off). This node only. */
    void setShadowCasting(ShadowCasting mode) noexcept { m_shadowCasting = mode; }
    /** The mode set by setShadowCasting() or setCastsShadow(). */
    [[nodiscard]] ShadowCasting shadowCasting() const noexcept { return m_shadowCasting; }
    /** The card's `shadowIsStatic`: this node does not move, so a lamp's shadow tile may keep
     *  it in a cached static map drawn only when a static caster (its transform, mesh,
     *  instances or visibility) or the lamp changes, with the moving casters drawn over a copy
     *  of it each frame (docs/lighting.md, "Lamp shadows"). Moving a static node is allowed:
     *  it redraws the cache that frame. Default false. This node only. */
    void setShadowIsStatic(bool isStatic) noexcept { m_shadowIsStatic = isStatic; }
    /** The flag set by setShadowIsStatic(). */
    [[nodiscard]] bool shadowIsStatic() const noexcept { return m_shadowIsStatic; }
    /** The card's `castsShadowFromEveryFace`: this node casts with both faces into every
     *  shadow map whatever ShadowSettings::casterFaces / directionalCasterFaces say (thin
     *  foliage cards, single-sided walls). Default false. This node only. */
    void setCastsShadowFromEveryFace(bool everyFace) noexcept { m_castsShadowFromEveryFace = everyFace; }
    /** The flag set by setCastsShadowFromEveryFace(). */
    [[nodiscard]] bool castsShadowFromEveryFace() const noexcept { return m_castsShadowFromEveryFace; }
    /** Whether this node's Lit materials are darkened by the shadow map (docs/shadows.md);
     *  false draws them lit as without shadows. This node only. Default true. */
    void setReceivesShadow(bool receives) noexcept { m_receivesShadow = receives; }
    /** The flag set by setReceivesShadow(). */
    [[nodiscard]] bool receivesShadow() const noexcept { return m_receivesShadow; }
    /** The light channels this node's surfaces accept, one bit each (32 channels): a light
     *  (LightNode::channels(), DirectionalLight::channels) reaches them only where the two
     *  masks share a bit; the rest light it as if that light were not there (ambient and
     *  emission stay). This node only, not its children; a whole batch (every instance).
     *  Default 1 (channel 0: every LightNode's default; Scene::light is on every channel); 0
     *  leaves the node lit by ambient and its emission alone.
     *  docs/lighting.md, "Light channels". */
    void setLightChannels(std::uint32_t channels) noexcept { m_lightChannels = channels; }
    /** The mask set by setLightChannels(). */
    [[nodiscard]] std::uint32_t lightChannels() const noexcept { return m_lightChannels; }
    /** false: always drawn, even outside the view frustum. Default true. */
    void setFrustumCulled(bool culled) noexcept {
        if (culled != m_frustumCulled) {
            m_frustumCulled = culled;
            subtreeChanged();
        }
    }
    /** The flag set by setFrustumCulled(). */
    [[nodiscard]] bool frustumCulled() const noexcept { return m_frustumCulled; }

protected:
    /** For MeshNode and InstancedMeshNode: a node of @p kind named @p name. */
    SceneNode(std::string name, NodeKind kind);

    /** Called once each time this node enters a Scene's tree: when it, or a subtree holding
     *  it, is added under a node that is in a scene, or moved there from another scene. Parents
     *  are called before their children (as Godot's _enter_tree); scene() is already @p scene.
     *  The place for a subclass to register itself in the scene's flat registries. noexcept
     *  because it runs inside add(), remove() and Scene's destructor, which have no way left to
     *  report a failure once the tree has changed. Moving a node within its scene (attach())
     *  calls neither hook. Default: nothing. */
    virtual void onAttachedToScene(Scene& scene) noexcept { (void)scene; }
    /** Called once each time this node leaves @p scene's tree: removed (itself or an ancestor),
     *  moved to another scene, or the scene destroyed. Children are called before their parents
     *  (as Godot's _exit_tree); scene() is still @p scene during the call and null after it.
     *  Default: nothing. */
    virtual void onDetachedFromScene(Scene& scene) noexcept { (void)scene; }

    /** Marks subtreeBounds() of this node and its ancestors stale: O(1) when this node already
     *  is. A subclass calls it whenever ownBounds() or ownBoundsAreCullable() may change. */
    void subtreeChanged() const noexcept {
        if (m_subtreeValid) {
            markSubtreeStale();
        }
    }

private:
    friend class Scene;
    /** The library's side of the hooks: sets scene() over this subtree and calls
     *  onAttachedToScene / onDetachedFromScene (a null @p scene detaches). */
    void bindToScene(Scene* scene) noexcept;
    void markSubtreeStale() const noexcept;
    void refreshSubtree() const;
    std::unique_ptr<SceneNode> unlink(SceneNode& child) noexcept;
    void addChild(std::unique_ptr<SceneNode> child, bool keepWorld);
    void checkCanAdopt(const SceneNode* child, const char* function) const;
    void localChanged() noexcept;

    std::string m_name;
    NodeKind m_kind = NodeKind::Group;
    std::uint64_t m_id = 0;
    SceneNode* m_parent = nullptr;
    std::vector<std::unique_ptr<SceneNode>> m_children;

    glm::dvec3 m_position{0.0};
    glm::quat m_rotation{1.0f, 0.0f, 0.0f, 0.0f};
    glm::vec3 m_scale{1.0f};
    glm::vec4 m_tint{1.0f};
    std::uint32_t m_layerMask = 1;
    std::uint32_t m_lightChannels = 1;
    bool m_visible = true;
    ShadowCasting m_shadowCasting = ShadowCasting::On;
    bool m_shadowIsStatic = false;
    bool m_castsShadowFromEveryFace = false;
    bool m_receivesShadow = true;
    bool m_frustumCulled = true;

    // World cache: valid when m_localDirty is false and the parent's worldVersion equals
    // m_parentVersionSeen. Versions come from one process-wide counter, so a node moved under a
    // new parent cannot mistake that parent's version for its old one's.
    mutable glm::mat4 m_local{1.0f};
    mutable glm::mat4 m_world{1.0f};
    mutable glm::dvec3 m_worldTranslation{0.0};
    mutable glm::mat4 m_inverseWorld{1.0f};
    mutable glm::mat3 m_normalMatrix{1.0f};
    mutable std::uint64_t m_inverseVersion = 0;  ///< worldVersion the inverse was made from
    mutable std::uint64_t m_normalVersion = 0;
    mutable bool m_localMatrixDirty = false;
    mutable bool m_worldDirty = true;
    mutable std::uint64_t m_parentVersionSeen = 0;
    mutable std::uint64_t m_worldVersion = 0;
    mutable std::shared_ptr<const int> m_lifetime;  ///< made on the first lifetime() call
    Scene* m_scene = nullptr;
    // subtreeBounds() cache: valid when m_subtreeValid and the world version it was made at is
    // still worldVersion(). Invariant: a stale node's ancestors are all stale.
    mutable Aabb m_subtreeBounds;
    mutable std::uint64_t m_subtreeWorldVersion = 0;
    mutable bool m_subtreeValid = false;
    mutable bool m_subtreeAlwaysDrawn = false;
};

} // namespace myriad
