#pragma once
/** @file
 *  One mesh drawn many times in one draw call. */
#include "myriad/core/AnimationSet.h"
#include "myriad/core/Bounds.h"
#include "myriad/core/InstanceRecord.h"
#include "myriad/core/InstanceStream.h"
#include "myriad/core/Lod.h"
#include "myriad/core/MeshNode.h"
#include "myriad/core/Visibility.h"

#include <glm/mat4x4.hpp>

#include <algorithm>
#include <array>
#include <memory>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace myriad {

/** Indices of an InstancedMeshNode's streams (InstancedMeshNode::streams()). */
namespace InstanceStreamId {
inline constexpr std::size_t Record = 0;        ///< streams::kRecord, always allocated
inline constexpr std::size_t MorphWeights = 1;  ///< streams::kMorphWeights, on first use
inline constexpr std::size_t Lanes = 2;         ///< streams::lanes(laneCount()), on first setLane()
inline constexpr std::size_t Animation = 3;     ///< streams::kAnimation, from setAnimationSet()
inline constexpr std::size_t LightChannels = 4; ///< streams::kLightChannels, on first setInstanceLightChannels()
inline constexpr std::size_t Count = 5;         ///< number of stream kinds (array size)
} // namespace InstanceStreamId

/** A stable name for an instance that comes and goes (a shot, a spark, an invader): it keeps
 *  finding its instance however often release() moves records around. Generational, like
 *  sokol's handles: a released handle's slot is reused with a new generation, so the old handle
 *  is detected as stale instead of reaching the new owner. Value type, 16 bytes. */
struct InstanceHandle {
    std::uint64_t batch = 0;       ///< id() of the InstancedMeshNode that issued it; 0 = none
    std::uint32_t slot = 0;        ///< index into the batch's handle table
    std::uint32_t generation = 0;  ///< bumped each time the slot is released
    /** True for a default-constructed handle, which names no instance (release() refuses it). */
    [[nodiscard]] bool isNull() const noexcept { return batch == 0; }
    /** Same batch, slot and generation: the same instance (or the same stale handle). */
    friend bool operator==(const InstanceHandle&, const InstanceHandle&) = default;
};

/** What acquire() writes into the new instance. Defaults: identity, white. */
struct InstanceDesc {
    glm::mat4 transform{1.0f};  ///< affine node-from-instance matrix
    glm::vec4 color{1.0f};      ///< linear RGBA
};

/** What a full batch does when asked for one more instance. */
enum class Growth : std::uint8_t {
    Fixed,   ///< throws CapacityError (the default: a fixed budget, no surprise reallocation)
    Double,  ///< ensureCapacity(max(16, 2 * capacity)): amortised O(1) per add
};

/** Options of an InstancedMeshNode. Defaults: Growth::Fixed, UploadMode::Staged. */
struct InstancedMeshOptions {
    Growth growth = Growth::Fixed;               ///< what a full batch does on one more add
    UploadMode uploadMode = UploadMode::Staged;  ///< how renderers send the records (setUploadMode())
    /** Shader-data lanes per instance, 0..InstancedMeshNode::maxLaneCount (setLaneCount()). */
    std::size_t laneCount = 4;
};

/** A batch: one mesh and material, and `capacity()` instance records of which the first
 *  `count()` are drawn, all in one glDrawElementsInstanced. Each record is 16 floats (64 bytes,
 *  see InstanceRecord): three rows of an affine node-from-instance matrix, then an RGBA colour
 *  that multiplies the vertex colour. An instance lands in the world at
 *  node world matrix * instance matrix, so moving the node moves every instance.
 *
 *  Like three.js InstancedMesh and Godot MultiMesh, the node holds CPU arrays and the renderer
 *  uploads what changed: every write records a dirty range, and the renderer copies only those
 *  ranges (merged when close).
 *
 *  Two ways to place instances, which mix in one batch:
 *  - by index: addInstance() appends and returns an index; setTransform(index) etc.
 *  - by handle: acquire() returns an InstanceHandle; release() swap-removes it (the last drawn
 *    record moves into the hole, with its colour, and count drops by one).
 *  The rule when mixing: a release moves the last record, whether it was placed by index or by
 *  handle, so indices are stable only until the next release() (or a smaller count). Handles
 *  stay valid across every move. Keep anything you must find again after a release as a handle.
 *
 *  Records past count() keep their values (clear() and a smaller count do not erase them); new
 *  records from construction or ensureCapacity() are the identity transform and white.
 *
 *  Ownership: owns its record buffer; shares the mesh. Thread safety: none; one writer at a
 *  time, and no writes while the renderer draws it. */
class InstancedMeshNode : public MeshNode {
public:
    static constexpr std::size_t floatsPerInstance = 16;  ///< floats in one record
    static constexpr std::size_t strideInBytes = 64;      ///< bytes from one record to the next
    static constexpr std::size_t maxCapacity = std::size_t{1} << 26;  ///< 64 Mi records (4 GiB)

    /** @param mesh the mesh every instance draws, shared (model space; never null).
     *  @param material copied into the node (primitive 0's material).
     *  @param capacity records to allocate (identity, white), capacity() * 64 bytes; count
     *  starts at 0.
     *  @param name free text for findByName() and GL labels; may be empty.
     *  @param options growth when full, upload mode, lanes per instance (defaults: Fixed,
     *  Staged, 4).
     *  @throws InvalidArgument if @p mesh is null. @throws CapacityError if capacity > maxCapacity.
     *  @throws OutOfRange if options.laneCount > maxLaneCount.
     *  @throws std::bad_alloc if the records cannot be allocated. */
    InstancedMeshNode(std::shared_ptr<const MeshGeometry> mesh, Material material,
                      std::size_t capacity, std::string name = {},
                      const InstancedMeshOptions& options = {});

    /** Records allocated (drawn or not); grows only through ensureCapacity() or Growth::Double. */
    [[nodiscard]] std::size_t capacity() const noexcept { return m_capacity; }
    /** Records drawn: indices [0, count()) (before setDrawRange() narrows it). */
    [[nodiscard]] std::size_t count() const noexcept { return m_count; }
    /** What an add to a full batch does (fixed at construction). */
    [[nodiscard]] Growth growth() const noexcept { return m_growth; }
    /** How renderers send the records (see UploadMode). */
    [[nodiscard]] UploadMode uploadMode() const noexcept { return m_uploadMode; }
    /** Changes how renderers send the records from the next frame on (see UploadMode). */
    void setUploadMode(UploadMode mode) noexcept { m_uploadMode = mode; }

    // ---- static batches (Ogre's InstanceBatch::setStaticAndUpdate) --------------------------

    /** Freezes (true) or thaws (false) the batch's instances. A static batch refuses every
     *  call that would change its instances, their streams or its capacity (addInstance,
     *  setTransform, setColor, acquire, release, setCount, clear, ensureCapacity, shrinkToFit,
     *  morph weights, lanes, shadow flags, instanceData() for writing, markInstancesChanged)
     *  with StateError, changing nothing. Freezing computes the node-space bounds once
     *  (O(count)). A renderer draws a frozen batch as any batch that did not change: nothing
     *  sent, one version compare per stream (Ogre needs the flag to stop its per-frame
     *  updates; myriad's change tracking already costs nothing then, so the flag is a
     *  guarantee, not a saving). The node itself stays editable (transform, mesh, materials,
     *  draw range, culling and upload settings), so a static batch can still be moved as a
     *  whole. Thawing allows writes again; freezing after writes is Ogre's
     *  setStaticAndUpdate(true): each renderer sends what changed once. Default: not static. */
    void setStatic(bool frozen);
    /** Whether setStatic(true) froze the batch. */
    [[nodiscard]] bool isStatic() const noexcept { return m_static; }
    /** Draws the first @p count records (whatever they hold). Handles of instances at or past
     *  the new count are released (they become stale).
     *  @throws CapacityError if count > capacity(); StateError if the batch is static
     *  (setStatic). Nothing changes then. */
    void setCount(std::size_t count);
    /** Draws nothing and releases every handle; keeps the buffer and its capacity.
     *  @throws StateError if the batch is static (setStatic). */
    void clear();
    /** Grows the buffer to at least @p capacity records, keeping every record and handle;
     *  never shrinks. O(capacity) when it grows. @throws CapacityError if capacity > maxCapacity;
     *  StateError if the batch is static (setStatic). Nothing changes then. */
    void ensureCapacity(std::size_t capacity);
    /** Gives capacity back after many releases (Ogre's InstanceBatch defragmenting, a
     *  std::vector's shrink_to_fit): capacity() becomes max(count(), @p minimumCapacity, 1), every
     *  record, lane, weight, shadow mask and handle is kept (records keep their indices, so
     *  handles keep finding them). O(count) when it shrinks, nothing when the capacity is
     *  already at most that. Every stream is marked changed: a renderer re-makes the batch's
     *  GPU buffers at the new size on its next frame (one full upload), so the records' and
     *  streams' GPU memory comes back too. Growth::Double then doubles from the new capacity.
     *  @throws StateError if the batch is static (setStatic); std::bad_alloc if the smaller
     *  arrays cannot be allocated. Nothing changes then. */
    void shrinkToFit(std::size_t minimumCapacity = 0);

    /** Appends an instance at index count() and returns that index.
     *  @param transform affine node-from-instance matrix. @param color linear RGBA.
     *  @throws CapacityError if the batch is full and its growth is Fixed (call
     *  ensureCapacity() first). @throws InvalidArgument on NaN/Inf or a non-affine matrix.
     *  @throws StateError if the batch is static (setStatic). Nothing changes then. */
    std::size_t addInstance(const glm::mat4& transform, const glm::vec4& color = glm::vec4(1.0f));
    /** Replaces the transform of instance @p index (< count()).
     *  @throws OutOfRange if index >= count(); InvalidArgument on NaN/Inf or a non-affine matrix;
     *  StateError if the batch is static (setStatic). */
    void setTransform(std::size_t index, const glm::mat4& transform);
    /** Replaces the colour of instance @p index (< count()), linear RGBA.
     *  @throws OutOfRange if index >= count(); InvalidArgument on NaN/Inf;
     *  StateError if the batch is static (setStatic). */
    void setColor(std::size_t index, const glm::vec4& color);
    /** The node-from-instance matrix of @p index (bottom row 0, 0, 0, 1).
     *  @throws OutOfRange if index >= count(). */
    [[nodiscard]] glm::mat4 readTransform(std::size_t index) const;
    /** @throws OutOfRange if index >= count(). */
    [[nodiscard]] glm::vec4 readColor(std::size_t index) const;
    /** The record of @p index as stored. @throws OutOfRange if index >= count(). */
    [[nodiscard]] const InstanceRecord& record(std::size_t index) const;

    // ---- instances that come and go --------------------------------------------------------

    /** Appends an instance like addInstance() and returns a handle that keeps finding it.
     *  @throws as addInstance(): CapacityError, InvalidArgument, and StateError if the batch
     *  is static (setStatic). */
    [[nodiscard]] InstanceHandle acquire(const InstanceDesc& desc = {});
    /** Removes the instance of @p handle: the last drawn record moves into its slot (transform
     *  and colour), the moved instance's handle follows it, count drops by one. O(1).
     *  @throws InvalidArgument if the handle is null, from another batch, already released or
     *  stale (its instance fell past a smaller count); StateError if the batch is static
     *  (setStatic). Nothing changes then. */
    void release(InstanceHandle handle);
    /** Releases every handle of @p handles, in order, as release() one by one, but fetching the
     *  handle slots and records of the next few ahead while removing one: at a million live
     *  instances a random release waits on memory, and this overlaps those waits (several
     *  times faster than a loop of release() there). Check-all-first: @throws InvalidArgument
     *  if any handle is invalid as for release(), or appears twice; StateError if the batch
     *  is static (setStatic). Nothing changes then. */
    void release(std::span<const InstanceHandle> handles);
    /** Current index of @p handle's instance. @throws InvalidArgument as release(). */
    [[nodiscard]] std::size_t indexOf(InstanceHandle handle) const;
    /** True when @p handle belongs to this batch and its instance is still there. */
    [[nodiscard]] bool isLive(InstanceHandle handle) const noexcept;
    /** Handles currently live. */
    [[nodiscard]] std::size_t liveHandleCount() const noexcept { return m_liveHandles; }

    // ---- per-instance morph weights ----------------------------------------------------------
    // Not in the record: the record's size is part of the vertex layout, and most batches never
    // morph. They live in a CPU array created by the first setMorphWeights() and uploaded as a
    // texture read by instance id; a batch that never calls it allocates nothing.

    /** Gives instance @p index weights of its own, one per morph target of the mesh (missing
     *  trailing ones are 0). Instances never given weights use the node's morphWeights().
     *  The weights move with the instance on release(), and survive growth.
     *  @throws OutOfRange if index >= count(); InvalidArgument if there are more weights than
     *  the mesh has morph targets (at most kMaxMorphTargets), or one is NaN/Inf;
     *  StateError if the batch is static (setStatic). */
    void setMorphWeights(std::size_t index, std::span<const float> weights);
    /** Bulk form of setMorphWeights(index, weights), for a crowd that animates every instance
     *  each frame: gives instances [@p first, @p first + n) weights of their own, where n =
     *  weights.size() / @p weightsPerInstance. @p weights holds n rows one after another,
     *  @p weightsPerInstance floats each (row k is instance first + k's weights, one per morph
     *  target; missing trailing ones are 0), as three.js's morphTexture holds one row per
     *  instance. Checks everything first, then writes; the range is logged as one change
     *  (one dirty range, one dataVersion() bump). Not kept: the span may go once the call
     *  returns. n = 0 with first <= count() does nothing.
     *  @throws InvalidArgument if weightsPerInstance is 0 or more than the mesh's morph targets,
     *  weights.size() is not a multiple of it, or a weight is NaN/Inf; OutOfRange if
     *  first + n > count(); StateError if the batch is static (setStatic); std::bad_alloc on
     *  the first per-instance weights. Nothing changes then. */
    void setMorphWeights(std::size_t first, std::span<const float> weights, std::size_t weightsPerInstance);
    /** Makes instance @p index use the node's weights again.
     *  @throws OutOfRange if index >= count(); StateError if the batch is static (setStatic). */
    void clearMorphWeights(std::size_t index);
    /** The weights instance @p index is drawn with: its own, or the node's. One per morph target.
     *  @throws OutOfRange if index >= count(). */
    [[nodiscard]] std::span<const float> morphWeightsOf(std::size_t index) const;
    /** True while at least one drawn instance has weights of its own. */
    [[nodiscard]] bool hasInstanceMorphWeights() const noexcept { return m_ownWeights > 0; }
    /** The per-instance weights stream (streams()[InstanceStreamId::MorphWeights]): empty
     *  until the first setMorphWeights(), then kMaxMorphTargets floats per row, capacity() rows;
     *  a row whose first float is kUseNodeMorphWeights stands for "the node's weights". */
    [[nodiscard]] std::span<const float> instanceMorphWeightData() const noexcept {
        return m_streams[InstanceStreamId::MorphWeights].data();
    }
    /** Sentinel in the first weight of a row: this instance uses the node's weights. */
    static constexpr float kUseNodeMorphWeights = -1.0e30f;

    // ---- per-instance shader data (lanes) ----------------------------------------------------
    // laneCount() vec4 per instance (4 unless told; 0 to 8, Ogre's setNumCustomParams) that a
    // surface function reads as s.lanes[0..laneCount-1] (docs/lanes.md); s.lanes[laneCount..7]
    // read zero. myriad gives them no meaning (a dissolve amount, a hit-flash time, an effect's
    // age...). Not in the record: they live in their own stream, allocated by the first
    // setLane(), so a batch that never uses them allocates and uploads nothing, and a batch
    // uses laneCount() * 16 bytes per instance, uploads included. They move with the instance on
    // release(), survive growth, and only changed rows are uploaded; a write shows in the next
    // frame. A lane never given (or cleared, or of a new instance) reads exactly (0, 0, 0, 0).

    /** Most lanes an instance can have (SurfaceInput::lanes has this many). */
    static constexpr std::size_t maxLaneCount = 8;
    /** Lanes per instance unless InstancedMeshOptions::laneCount says otherwise (and, always,
     *  per MeshNode, MeshNode::setShaderData). */
    static constexpr std::size_t defaultLaneCount = 4;
    /** Lanes each instance of this batch has (0..maxLaneCount). */
    [[nodiscard]] std::size_t laneCount() const noexcept { return m_laneCount; }
    /** Gives every instance @p count lanes (0..maxLaneCount), like Ogre's
     *  InstanceBatch::setNumCustomParams, but at any time: lanes below both the old and the new
     *  count keep their values, new lanes read (0, 0, 0, 0), dropped ones are gone. An
     *  allocated stream is rebuilt at the new width (capacity() * count * 16 bytes) and sent in
     *  full on the next frame; 0 frees it, so hasLanes() is false until a later count and
     *  setLane(). Costs: the lane stream's upload and storage scale with @p count.
     *  @throws OutOfRange if count > maxLaneCount; StateError on a static batch (setStatic);
     *  std::bad_alloc. Nothing changes then. */
    void setLaneCount(std::size_t count);
    /** Sets lane @p lane (0..laneCount()-1) of instance @p index to @p value (any finite floats;
     *  the shader reads them bit-exact). Allocates the lane stream (capacity() * laneCount() * 16
     *  bytes) on first use.
     *  @throws OutOfRange if index >= count() or lane >= laneCount(); InvalidArgument if a
     *  component is NaN or Inf; StateError if the batch is static (setStatic); std::bad_alloc
     *  on the first call. Nothing changes then. */
    void setLane(std::size_t index, std::size_t lane, const glm::vec4& value);
    /** Lane @p lane of instance @p index ((0, 0, 0, 0) if never given).
     *  @throws OutOfRange if index >= count() or lane >= laneCount(). */
    [[nodiscard]] glm::vec4 lane(std::size_t index, std::size_t lane) const;
    /** Puts every lane of instance @p index back to zero.
     *  @throws OutOfRange if index >= count(); StateError if the batch is static (setStatic). */
    void clearLanes(std::size_t index);
    /** The same by handle. @throws InvalidArgument for a null, foreign, released or stale
     *  handle; StateError if the batch is static (setStatic); as above otherwise. */
    void setLane(InstanceHandle handle, std::size_t lane, const glm::vec4& value);
    /** @throws as setLane(handle, ...). */
    [[nodiscard]] glm::vec4 lane(InstanceHandle handle, std::size_t lane) const;
    /** clearLanes() by handle. @throws InvalidArgument for a null, foreign, released or stale
     *  handle; StateError if the batch is static (setStatic); as above otherwise. */
    void clearLanes(InstanceHandle handle);
    /** True once any lane was set (the lane stream is allocated; it stays so until
     *  setLaneCount(0)). */
    [[nodiscard]] bool hasLanes() const noexcept { return m_streams[InstanceStreamId::Lanes].allocated(); }

    // ---- per-instance light channels (docs/lighting.md, "Light channels") ------------------
    // A light reaches an instance's fragments only where its channel mask meets the node's
    // SceneNode::lightChannels() AND the instance's own mask. The masks live in their own
    // stream (streams::kLightChannels, 16 bytes an instance, not in the 64-byte record),
    // allocated by the first setInstanceLightChannels(): a batch that never calls it
    // allocates, uploads and binds nothing, and its instances accept every channel. They move
    // with their instance on swap-remove. A batch with them is drawn by the uniform path (not
    // the table-driven one), on every culling mode, as a batch with lanes is.

    /** Sets the light channels instance @p index accepts (bits; default every channel): the
     *  fragment's channels are the node's lightChannels() & @p mask. Allocates the stream
     *  (capacity() * 16 bytes) on first use.
     *  @throws OutOfRange if index >= count(); StateError if the batch is static (setStatic);
     *  std::bad_alloc on the first call. Nothing changes then. */
    void setInstanceLightChannels(std::size_t index, std::uint32_t mask);
    /** The same by handle. @throws InvalidArgument for a null, foreign, released or stale
     *  handle; as above otherwise. */
    void setInstanceLightChannels(InstanceHandle handle, std::uint32_t mask);
    /** The channels instance @p index accepts (0xFFFFFFFF if never given).
     *  @throws OutOfRange if index >= count(). */
    [[nodiscard]] std::uint32_t instanceLightChannels(std::size_t index) const;
    /** True once any instance's channels were set (the stream is allocated). */
    [[nodiscard]] bool hasInstanceLightChannels() const noexcept {
        return m_streams[InstanceStreamId::LightChannels].allocated();
    }

    // ---- skinned crowds (docs/skinning.md, "Crowds") -------------------------------------
    // Each instance plays a clip of an AnimationSet at its own start time and speed, with an
    // optional cross-fade from another clip, in a per-instance stream of myriad's own (not the
    // lanes): 32 bytes an instance, written only when an instance changes what it plays. The
    // batch's clock (setAnimationTime) is a uniform: a crowd where only time passes writes
    // nothing per instance and uploads nothing per frame.

    /** Plays @p set's clips on this batch: the mesh (every primitive) is skinned by
     *  set->skeleton() with each instance's skin matrices blended from the set's animation
     *  texture on the GPU once a frame (docs/skinning.md, "Crowds"; the node's own skeleton and pose, if any, are not used while a set
     *  is on). Every instance starts playing clip 0 from batch time 0 at speed 1 (the default
     *  InstanceAnimation); instances keep what they were given when the set is replaced by one
     *  with as many clips or more, and start over otherwise. Bounds (culling, drawBounds())
     *  become the box of every baked pose (AnimationSet::boundsFor). Null: stop (the stream
     *  is freed; the mesh draws as setSkeleton() says).
     *  @throws InvalidArgument naming the primitive if a mesh is not skinned, uses a joint the
     *  set's skeleton lacks or has morph targets; StateError if the batch is static. Nothing
     *  changes then. */
    void setAnimationSet(std::shared_ptr<const AnimationSet> set);
    /** The set playing, or null. */
    [[nodiscard]] const std::shared_ptr<const AnimationSet>& animationSet() const noexcept { return m_animationSet; }
    /** What instance @p index plays (InstanceAnimation has the formulas).
     *  @throws OutOfRange if index >= count(); InvalidArgument if no set plays, a clip index is
     *  not below the set's clip count (fadeFromClip may also be kNoFade), or a time, speed or
     *  duration is NaN or Inf; StateError if the batch is static. Nothing changes then. */
    void setAnimation(std::size_t index, const InstanceAnimation& animation);
    /** The same by handle. @throws InvalidArgument for a null, foreign, released or stale
     *  handle; as above otherwise. */
    void setAnimation(InstanceHandle handle, const InstanceAnimation& animation);
    /** Bulk form: instances first .. first + animations.size() - 1, checked whole first.
     *  @throws as setAnimation(); OutOfRange if the range passes count(). */
    void setAnimations(std::size_t first, std::span<const InstanceAnimation> animations);
    /** What instance @p index plays (the default InstanceAnimation until set).
     *  @throws OutOfRange if index >= count(); InvalidArgument if no set plays. */
    [[nodiscard]] InstanceAnimation animation(std::size_t index) const;
    /** The batch clock, seconds (any finite value): the T of InstanceAnimation's formulas.
     *  Advance it once per frame; nothing per instance is written. Float: restart it (and the
     *  instances' start times) before it passes a few hours, where a float second loses
     *  millisecond steps. @throws InvalidArgument if @p seconds is NaN or Inf. */
    void setAnimationTime(float seconds);
    /** The batch clock, seconds (0 until set). */
    [[nodiscard]] float animationTime() const noexcept { return m_animationTime; }

    // ---- per-instance shadow casting (docs/shadows.md) ------------------------------------
    // A mask of instances that are drawn but cast no shadow. Not in the record (records stay 64
    // bytes) and never uploaded: one byte per instance on the CPU, allocated by the first
    // setCastsShadow(index, false), read when the renderer builds the shadow view's list of
    // instances to draw. It moves with the instance on release(), survives growth, and a new
    // instance casts. SceneNode::setCastsShadow(false) on the batch overrides it (none casts).

    using SceneNode::castsShadow;
    using SceneNode::setCastsShadow;
    /** Whether instance @p index (< count()) draws into the shadow map (default true); the
     *  instance is drawn in colour views either way. Allocates the mask (capacity() bytes) on
     *  the first false. @throws OutOfRange if index >= count(); StateError if the batch is
     *  static (setStatic); std::bad_alloc on the first false. Nothing changes then. */
    void setCastsShadow(std::size_t index, bool casts);
    /** The flag of instance @p index set by setCastsShadow(index, ...).
     *  @throws OutOfRange if index >= count(). */
    [[nodiscard]] bool castsShadow(std::size_t index) const;
    /** The same by handle. @throws InvalidArgument for a null, foreign, released or stale
     *  handle; StateError if the batch is static (setStatic); as above otherwise. */
    void setCastsShadow(InstanceHandle handle, bool casts);
    /** @throws as setCastsShadow(handle, ...). */
    [[nodiscard]] bool castsShadow(InstanceHandle handle) const;
    /** Drawn instances (in [0, count())) that cast no shadow: 0 means every instance casts. */
    [[nodiscard]] std::size_t shadowMaskedCount() const noexcept { return m_shadowMasked; }
    /** One byte per record, capacity() of them, 1 where the instance casts no shadow; empty
     *  until the first setCastsShadow(index, false). For the renderer and tools. */
    [[nodiscard]] std::span<const std::uint8_t> shadowMask() const noexcept { return m_shadowMask; }

    // ---- bulk access and change tracking ---------------------------------------------------

    /** The whole buffer, capacity() * 16 floats, for bulk writes. After writing through it call
     *  markInstancesChanged(), or the renderer will not see the change. The span is invalidated
     *  by ensureCapacity() and by growth. No checks are made on what is written through it.
     *  Read through the const overload (std::as_const) on a static batch.
     *  @throws StateError if the batch is static (setStatic). */
    [[nodiscard]] std::span<float> instanceData();
    /** The whole buffer read-only, capacity() * 16 floats, records one after another (node
     *  space, as InstanceRecord). Invalidated by ensureCapacity() and by growth. */
    [[nodiscard]] std::span<const float> instanceData() const noexcept;
    /** The drawn records as bytes: count() * strideInBytes. */
    [[nodiscard]] std::span<const std::byte> instanceBytes() const noexcept;
    /** Tells the batch that records [first, first + count) were written through instanceData()
     *  (all drawn records by default): bumps dataVersion(), records the dirty range and makes
     *  localBounds() recompute on its next read (O(count) once).
     *  @throws OutOfRange if the range runs past capacity(); StateError if the batch is static
     *  (setStatic). Nothing changes then. */
    void markInstancesChanged(std::size_t first = 0, std::size_t count = SIZE_MAX);
    /** Bumped by every successful write (add, set, acquire, release, count change, clear,
     *  markInstancesChanged, morph weights, shadow mask); a refused write leaves it alone. */
    [[nodiscard]] std::uint64_t dataVersion() const noexcept { return m_dataVersion; }

    // ---- instance streams and what is drawn -------------------------------------------------

    /** Every per-instance stream of the batch, indexed by InstanceStreamId; streams never used
     *  are unallocated (capacity 0). Each keeps its own change log with one cursor per
     *  renderer: a renderer uploads only the rows changed since its own last upload.
     *  Rows in [0, count()) are what is drawn; every row that enters that range (append,
     *  release's swap-remove, setCount) is marked changed in every allocated stream. */
    [[nodiscard]] std::span<const InstanceStream> streams() const noexcept { return m_streams; }
    /** Where rows went since a consumer last looked (release()'s swap-remove moves, new rows):
     *  what a renderer's previous transforms follow for motion vectors (MoveLog;
     *  docs/visibility.md, "Motion vectors"). Mutable: a renderer acknowledges through a const
     *  scene. Records nothing until a renderer draws the batch into a velocity view. */
    [[nodiscard]] MoveLog& moves() const noexcept { return m_moves; }
    /** Rows of the record stream changed and not yet uploaded by every renderer that drew the
     *  batch (merged within kDirtyRangeMergeGap); for tests and tools. */
    [[nodiscard]] std::vector<IndexRange> dirtyRanges() const {
        return m_streams[InstanceStreamId::Record].changes().pendingRanges();
    }

    /** Draws only instances [first, first + count) of [0, count()) (like three.js's
     *  geometry.drawRange for instances): one draw with first as its base instance, every
     *  stream read at the right instance. Default: everything (0, SIZE_MAX). The range is
     *  clipped to count() at draw time, so it may be set before instances exist. */
    void setDrawRange(std::size_t first, std::size_t count = SIZE_MAX) noexcept {
        m_drawFirst = first;
        m_drawCount = count;
    }
    /** The instances drawn now: the draw range clipped to [0, count()). */
    [[nodiscard]] IndexRange drawnInstances() const noexcept {
        const std::size_t first = std::min(m_drawFirst, m_count);
        const std::size_t available = m_count - first;
        return {first, first + std::min(m_drawCount, available)};
    }

    // ---- visibility opt-ins (docs/visibility.md) --------------------------------------

    /** Per-instance frustum culling (default Off: the batch is culled as one). */
    void setInstanceCulling(InstanceCulling culling) noexcept { m_visibility.culling = culling; }
    /** Back-to-front sort of the instances of a blended batch (default off: record order). */
    void setSortInstances(bool sort) noexcept { m_visibility.sortBackToFront = sort; }
    /** What Scene::pick() tests (default PickMode::Instances: each drawn instance's box, then
     *  its triangles, and the hit names the instance; PickMode::Bounds: the node's box only,
     *  cheaper for a large batch where which instance does not matter). */
    void setPickMode(PickMode mode) noexcept { m_visibility.pickMode = mode; }
    /** The batch's visibility settings as the three setters above left them. */
    [[nodiscard]] const InstanceVisibility& visibility() const noexcept { return m_visibility; }
    /** The handle that finds instance @p index, or a null handle when it was placed by index.
     *  @throws OutOfRange if index >= count(). (Defined in src/core/Picking.cpp.) */
    [[nodiscard]] InstanceHandle handleAt(std::size_t index) const;

    // ---- level of detail (docs/visibility.md, "Level of detail") -----------------------------

    /** Draws each instance with the level of @p chain its distance from the camera, or its
     *  projected size (LodChain::metric), selects, or two levels dithered across a fade band
     *  (LodChain::fadeBand; see LodChain, pickLodLevel()); records, handles and streams do not
     *  move when an instance changes level. Level 0 is the node's mesh: chain.levels[0].mesh
     *  must be null or mesh() (with several primitives, levels[0].meshes empty or the node's
     *  primitive meshes in order), and is stored as such. A node with several primitives gives
     *  each other level one mesh per primitive (LodLevel::meshes), each drawn with its
     *  primitive's material. The node's bounds stay those of level 0, so every other level's
     *  mesh must fit inside level 0's mesh of the same primitive. A chain belongs to the meshes
     *  it was made for: after setMesh() to another mesh, or addPrimitive() (the new primitive
     *  has no level meshes), it is inactive (hasLodChain() false, every instance draws the
     *  node's meshes) until a chain for the new meshes is set. Picking (Scene::pick()) always
     *  tests level 0.
     *  @throws InvalidArgument (the node keeps its previous chain) if the chain has no level or
     *  more than kMaxLodLevels; level 0's mesh (or meshes) is not the node's; another level of a
     *  one-primitive node has a null mesh, or of a several-primitive node not primitiveCount()
     *  meshes, a null one, or a mesh other than meshes[0]; a level's mesh has a different morph
     *  target count or skinning from level 0's of its primitive, or its box (or a morph
     *  target's delta box) is not inside it; a switch distance (LodMetric::Distance) is NaN, not
     *  above 0, not above the previous one, or infinite before the last level; a switch screen
     *  size (the screen metrics) is NaN, negative, infinite, not below the previous one, or 0
     *  before the last level; hysteresis is NaN or outside [0, 1); fadeBand is NaN or outside
     *  [0, 1], or two switches' fade bands overlap. */
    void setLodChain(LodChain chain);
    /** Drops the chain: every instance draws the node's mesh again. */
    void clearLodChain() noexcept { m_lodChain = LodChain{}; }
    /** The chain setLodChain() stored (no levels when none was set). */
    [[nodiscard]] const LodChain& lodChain() const noexcept { return m_lodChain; }
    /** True when the renderer draws by level: a chain is set and the node's primitive meshes
     *  are still the ones it was set for (as many, the same). O(primitives). */
    [[nodiscard]] bool hasLodChain() const noexcept {
        if (m_lodChain.levels.empty() || m_lodChain.levels[0].meshes.size() != primitiveCount()) {
            return false;
        }
        for (std::size_t p = 0; p < primitiveCount(); ++p) {
            if (m_lodChain.levels[0].meshes[p] != primitiveMesh(p)) {
                return false;
            }
        }
        return true;
    }

    // ---- bounds -----------------------------------------------------------------------------

    /** Union of every drawn instance's transformed mesh box, in node space; empty when
     *  count() == 0. The mesh box covers morphing: it is MeshGeometry::morphedBounds() over,
     *  per target, the range from the smallest to the largest weight among the node's
     *  morphWeights() and the drawn instances' own weights. That is conservative (every
     *  instance gets the box of the widest weights, not of its own) and keeps writes O(1).
     *  Always current, with no call to make: writes grow it in O(1); a write that moves an
     *  instance touching the boundary inward, a release, a smaller count, instance weights
     *  outside the current range, markInstancesChanged(), setMesh() or the node's
     *  setMorphWeights() mark it stale, and the next read recomputes it in one pass over the
     *  records, O(count * targets) (which also recounts mirroredCount() if that is stale too).
     *  With a bounds override set, returns the override instead and computes nothing. */
    [[nodiscard]] const Aabb& localBounds() const;

    /** Supplies the batch's bounds instead of having them computed: a swarm that stays inside
     *  a known volume pays no bounds pass however much it moves (three.js lets a
     *  `boundingSphere` be set the same way). @p bounds is in node space, like localBounds();
     *  it is what culling (MeshNode::worldBounds(), worldBoundsCentre(), worldBoundsRadius())
     *  and picking see. Instances outside it may be culled while visible: keeping them inside
     *  is the caller's promise. @throws InvalidArgument if @p bounds is empty or has NaN/Inf
     *  (nothing changes then). */
    void setBoundsOverride(const Aabb& bounds);
    /** Back to computed bounds (recomputed on the next read). */
    void clearBoundsOverride() noexcept;
    /** True while setBoundsOverride() is in effect. */
    [[nodiscard]] bool hasBoundsOverride() const noexcept { return m_hasBoundsOverride; }
    /** Number of drawn instances whose matrix has a negative determinant (mirrored). */
    [[nodiscard]] std::size_t mirroredCount() const;
    /** Copies the drawn records, count() * strideInBytes bytes (InstanceRecord layout, node
     *  space), into @p destination, and in the same pass over the records brings localBounds()
     *  and mirroredCount() up to date if they are stale: each record is read once, while it is
     *  in registers, instead of once by a bounds pass and again by a copy. For a renderer that
     *  sends every drawn record each frame (UploadMode::Streaming). The derived values equal
     *  bit for bit what localBounds() and mirroredCount() compute on their own. @p destination
     *  is written once and not read, any alignment, and must not overlap instanceData(). Ownership: the caller's.
     *  @throws InvalidArgument if @p destination is smaller than count() * strideInBytes;
     *  nothing is written then. */
    void copyDrawnRecords(std::span<std::byte> destination) const;
    /** True when the next localBounds() (not overridden) or mirroredCount() would run a pass
     *  over the records: what copyDrawnRecords() would derive on the way. */
    [[nodiscard]] bool derivedStale() const noexcept {
        return !m_mirroredValid || boundsStale();
    }

private:
    /** Writes @p rows rows of morph weights from instance @p first, @p weightsPerInstance each
     *  from @p weights (the rest of a row 0), after the caller's checks: one change-log range,
     *  one dataVersion() bump, bounds marked stale when a weight leaves the covered range. May
     *  throw std::bad_alloc only before anything changed (the stream's first allocation). */
    void writeMorphRows(std::size_t first, std::size_t rows, std::span<const float> weights,
                        std::size_t weightsPerInstance);
    /** The union of instance boxes needs a pass: no override, and a write or a change of the
     *  mesh box (meshBoundsVersion() moves with setMesh(), addPrimitive() and the node's
     *  setMorphWeights(), which are not virtual: comparing it catches them however called). */
    [[nodiscard]] bool boundsStale() const noexcept {
        return !m_hasBoundsOverride && (!m_boundsValid || m_instanceMeshBoxVersion != meshBoundsVersion());
    }
    [[nodiscard]] Aabb instanceBox(const InstanceRecord& record) const noexcept;
    void refreshInstanceMeshBox() const noexcept;
    void checkIndex(std::size_t index, const char* function) const;
    void checkAnimation(const InstanceAnimation& animation, const char* function) const;
    void checkLane(std::size_t lane, const char* function) const;
    /** Throws StateError naming @p function when the batch is static. */
    void refuseIfStatic(const char* function) const {
        if (m_static) {
            refuseStatic(function);
        }
    }
    [[noreturn]] void refuseStatic(const char* function) const;
    void checkHandle(InstanceHandle handle, const char* function) const;
    [[noreturn]] void refuseHandle(InstanceHandle handle, const char* function) const;
    [[nodiscard]] bool hasSideRows() const noexcept;
    void prepareAppend(const char* function);
    void noteMovedFrom(const Aabb& oldBox, const Aabb& newBox) noexcept;
    void dropHandlesFrom(std::size_t index) noexcept;
    void enterDrawn(std::size_t begin, std::size_t end);
    void appendUnchecked(const glm::mat4& transform, const glm::vec4& color, std::uint32_t handleSlot);
    void refreshDerived(std::byte* destination) const noexcept;
    [[nodiscard]] InstanceRecord* records() noexcept {
        return reinterpret_cast<InstanceRecord*>(m_streams[InstanceStreamId::Record].data().data());
    }
    [[nodiscard]] const InstanceRecord* records() const noexcept {
        return reinterpret_cast<const InstanceRecord*>(m_streams[InstanceStreamId::Record].data().data());
    }
    [[nodiscard]] bool hasOwnWeights(std::size_t index) const noexcept {
        const InstanceStream& weights = m_streams[InstanceStreamId::MorphWeights];
        return weights.allocated() && weights.row(index)[0] != kUseNodeMorphWeights;
    }

    static constexpr std::uint32_t kNoHandle = 0xFFFFFFFFu;
    struct HandleSlot {
        std::uint32_t index = 0;       ///< record index while live; next free slot while free
        std::uint32_t generation = 1;  ///< starts at 1 so a zeroed handle is never valid
        bool live = false;
    };

    std::array<InstanceStream, InstanceStreamId::Count> m_streams{
        InstanceStream(streams::kRecord), InstanceStream(streams::kMorphWeights),
    InstanceStream(streams::kLanes), InstanceStream(streams::kAnimation), InstanceStream(streams::kLightChannels)};
    mutable MoveLog m_moves;  ///< swap-remove moves and new rows, for previous transforms (moves())
    std::shared_ptr<const AnimationSet> m_animationSet;  ///< baked clips the instances play, or null
    float m_animationTime = 0.0f;                        ///< the batch clock, seconds
    std::size_t m_capacity = 0;
    std::size_t m_count = 0;
    std::size_t m_drawFirst = 0;
    std::size_t m_drawCount = SIZE_MAX;
    Growth m_growth = Growth::Fixed;
    UploadMode m_uploadMode = UploadMode::Staged;
    bool m_static = false;
    std::size_t m_laneCount = defaultLaneCount;
    std::uint64_t m_dataVersion = 1;
    mutable Aabb m_bounds;
    mutable bool m_boundsValid = true;
    // The mesh box every instance box is built from (see localBounds()), the weight range it
    // covers, and the meshBoundsVersion() it was built at.
    mutable Aabb m_instanceMeshBox;
    mutable std::array<float, kMaxMorphTargets> m_morphWeightLow{};
    mutable std::array<float, kMaxMorphTargets> m_morphWeightHigh{};
    mutable std::uint64_t m_instanceMeshBoxVersion = 0;
    bool m_hasBoundsOverride = false;
    Aabb m_boundsOverride;
    // Handles: slot table, free list, and per record the slot that names it (or kNoHandle).
    std::vector<HandleSlot, detail::LargeArrayAllocator<HandleSlot>> m_handleSlots;
    std::vector<std::uint32_t, detail::LargeArrayAllocator<std::uint32_t>> m_handleOfRecord;
    std::uint32_t m_freeSlot = kNoHandle;
    std::size_t m_liveHandles = 0;
    // Drawn instances with a negative determinant, kept by each write from the old and new
    // records; recounted lazily after bulk writes.
    mutable std::size_t m_mirroredCount = 0;
    std::size_t m_ownWeights = 0;  ///< drawn instances with weights of their own
    std::vector<std::uint8_t> m_shadowMask;  ///< 1: casts no shadow; empty until first used
    std::size_t m_shadowMasked = 0;          ///< drawn instances with a 1 in m_shadowMask
    mutable bool m_mirroredValid = true;
    InstanceVisibility m_visibility;  ///< culling, sorting and picking settings (see InstanceVisibility)
    LodChain m_lodChain;              ///< levels of detail; none by default (src/core/Lod.cpp)
};

} // namespace myriad
