#pragma once
/** @file
 *  InstanceManager: one large population of a mesh spread over batches of N instances, each
 *  batch a spatially compact InstancedMeshNode that culls as one (Ogre's InstanceManager and
 *  its instancesPerBatch), with handles that find their instance across batches. */
#include "myriad/core/InstancedMeshNode.h"

#include <glm/vec3.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace myriad {

/** How an InstanceManager spreads its instances. */
struct InstanceManagerOptions {
    /** Records per batch (each batch's fixed capacity), 1..InstancedMeshNode::maxCapacity.
     *  Smaller batches cull finer and cost a draw each; Ogre's default is 80, myriad's 1024 (a
     *  draw costs myriad a few microseconds, docs/performance.md). */
    std::size_t instancesPerBatch = 1024;
    /** Edge of the cubic cells (the manager's node space, world units) that decide which batch
     *  an instance joins: instances in one cell share batches, so every batch's bounds stay
     *  within about one cell plus the mesh and cull as one. Moving an instance to another cell
     *  moves it to a batch of that cell. 0: no cells, batches fill in order of acquire (what
     *  Ogre does before defragmentBatches). Finite, >= 0. */
    float cellSize = 0.0f;
    /** Options of every batch made (upload mode, lanes; growth is always Fixed). */
    UploadMode uploadMode = UploadMode::Staged;
    /** Shader-data lanes of every batch made, 0..InstancedMeshNode::maxLaneCount
     *  (InstancedMeshNode::setLaneCount()). */
    std::size_t laneCount = InstancedMeshNode::defaultLaneCount;
};

/** A handle to an instance of an InstanceManager: stable while the instance lives, whichever
 *  batch it is in (a move between cells or a defragment() changes the batch, not the handle). */
struct ManagedInstance {
    std::uint32_t slot = 0;        ///< index into the manager's handle table
    std::uint32_t generation = 0;  ///< 0 = null; bumped when the slot is reused
    /** Equal when both name the same slot and generation. */
    friend bool operator==(const ManagedInstance&, const ManagedInstance&) = default;
};

/** A group node whose children are the batches of one population (Ogre's InstanceManager with
 *  instancesPerBatch): acquire() puts an instance in a batch of its cell with room, making a
 *  batch when none has room; release() frees its record (swap-remove in its batch);
 *  defragment() packs each cell's instances into as few batches as hold them and removes the
 *  empty ones. Every batch is an ordinary InstancedMeshNode child: drawn, culled, picked and
 *  shadowed as any batch, one draw call each.
 *
 *  Add it to a scene as any node (`scene.root().emplace<InstanceManager>(mesh, material,
 *  options)`). Its children are its own: adding or removing children of it by hand is not
 *  supported. Ownership: owns its batches (as children); shares the mesh. Thread safety: as
 *  SceneNode. */
class InstanceManager : public SceneNode {
public:
    /** @throws InvalidArgument if @p mesh is null, instancesPerBatch is 0 or above
     *  InstancedMeshNode::maxCapacity, cellSize is negative, NaN or Inf, or laneCount is above
     *  InstancedMeshNode::maxLaneCount. */
    InstanceManager(std::shared_ptr<const MeshGeometry> mesh, Material material,
                    const InstanceManagerOptions& options = {}, std::string name = {});

    /** Adds an instance (node-from-instance transform in the manager's space, linear RGBA) to a
     *  batch of the cell its translation falls in, making a batch (named "<name>/<n>") when
     *  every batch of that cell is full. O(1) (a hash lookup of the cell).
     *  @throws InvalidArgument as InstancedMeshNode::acquire() (a NaN, Inf or projective
     *  transform, a colour out of range); nothing changes then. */
    [[nodiscard]] ManagedInstance acquire(const InstanceDesc& desc = {});
    /** Removes the instance; its batch stays (empty batches go in defragment()).
     *  @throws InvalidArgument if @p instance is null, stale or already released. */
    void release(ManagedInstance instance);
    /** True while @p instance names a live instance of this manager. */
    [[nodiscard]] bool isLive(ManagedInstance instance) const noexcept;

    /** Moves the instance. With cells, a transform whose translation leaves the instance's cell
     *  moves it to a batch of the new cell (its colour and lanes go with it).
     *  @throws InvalidArgument as InstancedMeshNode::setTransform(), or if @p instance is not
     *  live; nothing changes then. */
    void setTransform(ManagedInstance instance, const glm::mat4& transform);
    /** @throws InvalidArgument as InstancedMeshNode::setColor(), or if @p instance is not live. */
    void setColor(ManagedInstance instance, const glm::vec4& color);
    /** Lane @p lane (0..options().laneCount - 1) of the instance (InstancedMeshNode::setLane).
     *  @throws OutOfRange if lane >= options().laneCount; InvalidArgument as setColor(). */
    void setLane(ManagedInstance instance, std::size_t lane, const glm::vec4& value);
    /** @throws InvalidArgument if @p instance is not live. */
    [[nodiscard]] glm::mat4 readTransform(ManagedInstance instance) const;
    /** @throws InvalidArgument if @p instance is not live. */
    [[nodiscard]] glm::vec4 readColor(ManagedInstance instance) const;
    /** The batch holding the instance now and its handle there (valid until the instance is
     *  moved between batches or released). @throws InvalidArgument if @p instance is not live. */
    [[nodiscard]] InstancedMeshNode& batchOf(ManagedInstance instance) const;
    /** The instance's handle inside batchOf(). @throws InvalidArgument if it is not live. */
    [[nodiscard]] InstanceHandle handleIn(ManagedInstance instance) const;

    /** Packs the instances of each cell into as few batches as hold them (the fullest batches
     *  take the records of the emptiest), removes batches left empty, so a population that
     *  shrank draws in fewer calls. Handles stay valid. O(instances moved + live handles).
     *  @throws std::bad_alloc only; the instances moved before it stay moved and valid. */
    void defragment();

    /** Live instances over every batch. */
    [[nodiscard]] std::size_t count() const noexcept { return m_live; }
    /** Batches made and not removed by defragment(). */
    [[nodiscard]] std::size_t batchCount() const noexcept { return m_batches.size(); }
    /** Batch @p index (0..batchCount() - 1), in the order they were made. @throws OutOfRange. */
    [[nodiscard]] InstancedMeshNode& batch(std::size_t index) const;
    /** The options given at construction. */
    [[nodiscard]] const InstanceManagerOptions& options() const noexcept { return m_options; }

private:
    struct CellKey {
        std::int64_t x = 0, y = 0, z = 0;
        friend bool operator==(const CellKey&, const CellKey&) = default;
    };
    struct CellHash {
        std::size_t operator()(const CellKey& key) const noexcept;
    };
    struct Batch {
        InstancedMeshNode* node = nullptr;
        CellKey cell;
    };
    struct Slot {
        std::uint32_t batch = 0;  ///< index into m_batches while live; next free slot while free
        InstanceHandle handle;
        std::uint32_t generation = 1;
        bool live = false;
    };

    [[nodiscard]] CellKey cellOf(const glm::mat4& transform) const noexcept;
    [[nodiscard]] const Slot& liveSlot(ManagedInstance instance, const char* function) const;
    /** Puts @p desc into a batch of @p cell; returns (batch index, handle). Strong guarantee. */
    std::pair<std::uint32_t, InstanceHandle> place(const CellKey& cell, const InstanceDesc& desc);
    /** Releases @p handle from batch @p batchIndex; a batch that was full goes back on its
     *  cell's list of batches with room (whose room was reserved when the batch was made). */
    void releaseFrom(std::uint32_t batchIndex, InstanceHandle handle);
    /** Copies what an instance carries besides its record (lanes, own morph weights, shadow
     *  mask) to its new copy in another batch. May throw std::bad_alloc (a first lane row). */
    void copyInstanceData(const InstancedMeshNode& from, InstanceHandle fromHandle, InstancedMeshNode& to,
                          InstanceHandle toHandle);

    std::shared_ptr<const MeshGeometry> m_mesh;
    Material m_material;
    InstanceManagerOptions m_options;
    std::vector<Batch> m_batches;
    struct Cell {
        std::vector<std::uint32_t> batches;   ///< indices into m_batches
        std::vector<std::uint32_t> withRoom;  ///< those not full; acquire takes the last
    };
    std::unordered_map<CellKey, Cell, CellHash> m_cells;
    std::vector<Slot> m_slots;
    std::uint32_t m_freeSlot = UINT32_MAX;
    std::size_t m_live = 0;
    std::size_t m_batchesMade = 0;
};

} // namespace myriad
