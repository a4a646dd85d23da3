#pragma once
/** @file
 *  CPU mesh data (MeshData) and the validated, immutable mesh built from it (MeshGeometry). */
#include "myriad/core/Bounds.h"
#include "myriad/core/MorphTargets.h"

#include <glm/vec2.hpp>
#include <glm/vec3.hpp>
#include <glm/vec4.hpp>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace myriad {

/** Plain vertex and index arrays, in the mesh's own (model) space. Fill it, then build a
 *  MeshGeometry from it. Triangle lists only (three indices per triangle, counter-clockwise
 *  front faces, as glTF). */
struct MeshData {
    std::vector<glm::vec3> positions;  ///< model space, one per vertex; shader location 0
    std::vector<glm::vec3> normals;    ///< model space, unit length; empty: computed (smooth)
    std::vector<glm::vec2> uv0;        ///< texture coordinates, glTF convention (v down); empty: 0
    std::vector<glm::vec4> colors;     ///< linear RGBA vertex colours; empty: white
    std::vector<std::uint16_t> indices16;  ///< 16-bit indices; set this or indices32, not both
    std::vector<std::uint32_t> indices32;  ///< 32-bit indices
    std::vector<MorphTarget> morphTargets; ///< at most kMaxMorphTargets; empty: no morphing
    std::vector<float> morphWeights;       ///< default weight per target (glTF mesh.weights); 0 if short
};

/** Width of one index in the index buffer: 16-bit when MeshData::indices16 is set. A mesh holds
 *  16- or 32-bit indices; UInt8 (GL_UNSIGNED_BYTE, as WebGL's drawElements and
 *  ANGLE_instanced_arrays' drawElementsInstancedANGLE take) is for the low-level draws of
 *  myriad/gl/Draw.h only. */
enum class IndexType : std::uint8_t { UInt16, UInt32, UInt8 };

/** An immutable triangle mesh: validated MeshData plus its local AABB. Shared between nodes
 *  through std::shared_ptr<const MeshGeometry>; the renderer uploads it once per renderer and
 *  keeps the GPU copy while any node uses it.
 *  Ownership: shared. Thread safety: immutable after construction, so readable from any thread. */
class MeshGeometry {
public:
    /** Validates and takes @p data.
     *  Normals are computed (area-weighted smooth) when data.normals is empty.
     *  @throws InvalidArgument if there are no positions, no indices, both index arrays are set,
     *  the index count is not a multiple of 3, a per-vertex array's size is neither 0 nor the
     *  vertex count, a position or morph delta is NaN/Inf, there are more than kMaxMorphTargets
     *  targets, a target's deltas are not one per vertex, or there are more default weights
     *  than targets. Default weights shorter than the target list are padded with 0.
     *  @throws OutOfRange if an index is >= the vertex count. */
    explicit MeshGeometry(MeshData data, std::string name = {});

    /** Convenience: std::make_shared<const MeshGeometry>(std::move(data), name). */
    [[nodiscard]] static std::shared_ptr<const MeshGeometry> create(MeshData data,
                                                                   std::string name = {});

    /** The name given at construction (used in GL labels); may be empty. */
    [[nodiscard]] const std::string& name() const noexcept { return m_name; }
    /** Process-wide serial number, never reused. */
    [[nodiscard]] std::uint64_t id() const noexcept { return m_id; }
    /** The validated arrays, normals filled in; read-only for the mesh's lifetime. */
    [[nodiscard]] const MeshData& data() const noexcept { return m_data; }
    /** Number of vertices (positions). */
    [[nodiscard]] std::uint32_t vertexCount() const noexcept {
        return static_cast<std::uint32_t>(m_data.positions.size());
    }
    /** Number of indices, 16- or 32-bit: three per triangle. */
    [[nodiscard]] std::uint32_t indexCount() const noexcept;
    /** UInt16 when the data came with indices16, else UInt32. */
    [[nodiscard]] IndexType indexType() const noexcept {
        return m_data.indices16.empty() ? IndexType::UInt32 : IndexType::UInt16;
    }
    /** indexCount() / 3. */
    [[nodiscard]] std::uint32_t triangleCount() const noexcept { return indexCount() / 3; }
    /** True when the mesh has per-vertex colours (otherwise the shader reads white). */
    [[nodiscard]] bool hasColors() const noexcept { return !m_data.colors.empty(); }
    /** Number of morph targets, 0 to kMaxMorphTargets. */
    [[nodiscard]] std::size_t morphTargetCount() const noexcept { return m_data.morphTargets.size(); }
    /** The mesh's default weights, one per target (what a new MeshNode starts with). */
    [[nodiscard]] const std::vector<float>& defaultMorphWeights() const noexcept {
        return m_data.morphWeights;
    }
    /** Smallest box around every position, in model space, with no morph target applied.
     *  Never empty. @see morphedBounds() for the box that covers morphed vertices. */
    [[nodiscard]] const Aabb& localBounds() const noexcept { return m_bounds; }
    /** Per morph target, the per-axis minimum and maximum of its position deltas (model space),
     *  computed once at construction; one box per target, in target order. A target whose
     *  deltas are all zero has the box (0, 0, 0)..(0, 0, 0). */
    [[nodiscard]] std::span<const Aabb> morphTargetDeltaBounds() const noexcept {
        return m_morphDeltaBounds;
    }
    /** A box, in model space, that contains every vertex morphed with @p weights (vertex =
     *  position + sum over targets of weight * delta, as the shader computes it). Interval
     *  arithmetic per axis: localBounds() plus, for each target, its delta box scaled by the
     *  weight (the box's ends swap for a negative weight). Conservative, not tight: each term
     *  takes its extreme from whichever vertex reaches it. O(targets), no allocation.
     *  @p weights: one per target, missing trailing ones count as 0, extra ones are ignored;
     *  any finite value (negative or above 1 included). */
    [[nodiscard]] Aabb morphedBounds(std::span<const float> weights) const noexcept;
    /** As morphedBounds(weights), for every weight vector whose weight t lies anywhere in
     *  [@p lowWeights[t], @p highWeights[t]]: the box contains the vertices morphed by each of
     *  them (interval product of the weight range and the delta box, per target). Used for a
     *  batch whose instances carry different weights. Both spans: one per target, missing
     *  trailing ones count as 0; lowWeights[t] <= highWeights[t] is the caller's duty. */
    [[nodiscard]] Aabb morphedBounds(std::span<const float> lowWeights,
                                     std::span<const float> highWeights) const noexcept;

private:
    std::string m_name;
    std::uint64_t m_id = 0;
    MeshData m_data;
    Aabb m_bounds;
    std::vector<Aabb> m_morphDeltaBounds;  ///< one per morph target
};

} // namespace myriad
