#pragma once
/** @file One mesh drawn many times in one draw call. */
#include "myriad/core/Bounds.h"
#include "myriad/core/InstanceRecord.h"
#include "myriad/core/MeshNode.h"

#include <glm/mat4x4.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace myriad {

/** A batch: one mesh and material, and `capacity()` instance records of which the first
 *  `count()` are drawn, all in one glDrawElementsInstanced. Each record is 16 floats (64 bytes,
 *  see InstanceRecord): three rows of an affine node-from-instance matrix, then an RGBA colour
 *  that multiplies the vertex colour. An instance lands in the world at
 *  node world matrix * instance matrix, so moving the node moves every instance.
 *
 *  Like three.js InstancedMesh and Godot MultiMesh: the node holds CPU arrays, the renderer
 *  uploads them when dataVersion() changed (only the drawn instances).
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

    /** @param capacity records to allocate (identity, white); count starts at 0.
     *  @throws InvalidArgument if @p mesh is null. @throws CapacityError if capacity > maxCapacity. */
    InstancedMeshNode(std::shared_ptr<const MeshGeometry> mesh, Material material,
                      std::size_t capacity, std::string name = {});

    [[nodiscard]] std::size_t capacity() const noexcept { return m_records.size(); }
    [[nodiscard]] std::size_t count() const noexcept { return m_count; }
    /** Draws the first @p count records (whatever they hold). @throws CapacityError if
     *  count > capacity(). */
    void setCount(std::size_t count);
    /** Draws nothing; keeps the buffer and its capacity. */
    void clear() noexcept;
    /** Grows the buffer to at least @p capacity records, keeping every record; never shrinks.
     *  O(capacity) when it grows. @throws CapacityError if capacity > maxCapacity. */
    void ensureCapacity(std::size_t capacity);

    /** Appends an instance at index count() and returns that index.
     *  @param transform affine node-from-instance matrix. @param color linear RGBA.
     *  @throws CapacityError if count() == capacity() (call ensureCapacity() first).
     *  @throws InvalidArgument on NaN/Inf or a non-affine matrix; nothing changes then. */
    std::size_t addInstance(const glm::mat4& transform, const glm::vec4& color = glm::vec4(1.0f));
    /** Replaces the transform of instance @p index (< count()).
     *  @throws OutOfRange if index >= count(); InvalidArgument on NaN/Inf or a non-affine matrix. */
    void setTransform(std::size_t index, const glm::mat4& transform);
    /** @throws OutOfRange if index >= count(); InvalidArgument on NaN/Inf. */
    void setColor(std::size_t index, const glm::vec4& color);
    /** The node-from-instance matrix of @p index (bottom row 0, 0, 0, 1).
     *  @throws OutOfRange if index >= count(). */
    [[nodiscard]] glm::mat4 readTransform(std::size_t index) const;
    /** @throws OutOfRange if index >= count(). */
    [[nodiscard]] glm::vec4 readColor(std::size_t index) const;
    /** The record of @p index as stored. @throws OutOfRange if index >= count(). */
    [[nodiscard]] const InstanceRecord& record(std::size_t index) const;

    /** The whole buffer, capacity() * 16 floats, for bulk writes. After writing through it call
     *  markInstancesChanged(), or the renderer will not see the change. The span is invalidated
     *  by ensureCapacity(). No checks are made on what is written through it. */
    [[nodiscard]] std::span<float> instanceData() noexcept;
    [[nodiscard]] std::span<const float> instanceData() const noexcept;
    /** The drawn records as bytes: count() * strideInBytes. What the renderer uploads. */
    [[nodiscard]] std::span<const std::byte> instanceBytes() const noexcept;
    /** Tells the batch its records were written through instanceData(): bumps dataVersion()
     *  and makes localBounds() recompute on its next read (O(count) once). */
    void markInstancesChanged() noexcept;
    /** Bumped by every successful write (add, set, count change, clear, markInstancesChanged);
     *  a refused write leaves it alone. */
    [[nodiscard]] std::uint64_t dataVersion() const noexcept { return m_dataVersion; }

    /** Union of every drawn instance's transformed mesh AABB, in node space; empty when
     *  count() == 0. Always current: writes grow it in O(1); a write that moves an instance
     *  touching the boundary inward, a smaller count or markInstancesChanged() mark it stale,
     *  and the next read recomputes it in O(count). */
    [[nodiscard]] const Aabb& localBounds() const;

private:
    [[nodiscard]] Aabb instanceBox(const InstanceRecord& record) const noexcept;
    void checkIndex(std::size_t index, const char* function) const;
    void noteMovedFrom(const Aabb& oldBox, const Aabb& newBox) noexcept;

    std::vector<InstanceRecord> m_records;
    std::size_t m_count = 0;
    std::uint64_t m_dataVersion = 1;
    mutable Aabb m_bounds;
    mutable bool m_boundsValid = true;
};

} // namespace myriad
