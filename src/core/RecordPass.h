#pragma once
// Internal to myriad_core: the one pass over a batch's instance records that derives its bounds
// and mirrored count, and (for a renderer streaming the batch) copies the records on in the
// same pass, while each record is in registers. No GL here: the destination is any memory.
#include <glm/vec3.hpp>

#include <cstddef>

namespace myriad::detail {

/** What recordPass() found. */
struct RecordPassResult {
    glm::vec3 min{0.0f};    ///< smallest corner of the union of the instance boxes (if bounds)
    glm::vec3 max{0.0f};    ///< largest corner (if bounds); with count 0: +inf / -inf
    std::size_t mirrored = 0;  ///< records whose 3x3 part has a negative determinant (if mirrored)
};

/** One pass over @p count records of 16 floats at @p records (InstanceRecord: three rows of an
 *  affine matrix, then a colour).
 *  - bounds: the union of Arvo's box of the mesh box (@p centre, @p halfExtent, node space) through
 *    each record, exactly as InstancedMeshNode::instanceBox() and Aabb::extend() compute it (same
 *    float operations in the same order, no fused multiply-add), so the result is bit-identical to
 *    a per-instance loop; a NaN component of a record is skipped as std::min / std::max skip it.
 *  - mirrored: the count of records with det(3x3) = row0 . (row1 x row2) < 0.
 *  - @p destination (may be null): receives a copy of the @p count * 64 bytes, written once
 *    with plain stores, any alignment.
 *  SSE2 on x86-64 (four records a step, transposed to one lane per record); a plain loop
 *  elsewhere. @p destination must not overlap @p records. */
void recordPass(const float* records, std::size_t count, bool bounds, bool mirrored, const glm::vec3& centre,
                const glm::vec3& halfExtent, void* destination, RecordPassResult& result) noexcept;

} // namespace myriad::detail
