#pragma once
/** @file
 *  Per-instance level of detail (LOD) for an InstancedMeshNode (docs/visibility.md, "Level of
 *  detail"): a chain of meshes, each drawn by the instances whose distance from the camera
 *  selects it, with hysteresis so an instance near a switch distance does not flicker between
 *  two levels. No GL: the renderer buckets each (view, batch) list of instances by level with
 *  selectLodLevels() and draws every non-empty level with that level's mesh. Generating the
 *  simpler levels from level 0 is myriad::lod (myriad/lod/GenerateLod.h, meshoptimizer). */
#include "myriad/core/InstanceCulling.h"

#include <glm/mat3x3.hpp>
#include <glm/vec3.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <vector>

namespace myriad {

class MeshGeometry;

/** Most levels a chain may have (level numbers fit a byte, with room for "not drawn"). */
inline constexpr std::size_t kMaxLodLevels = 8;

/** A held level that means "none yet": the instance takes the level its distance selects,
 *  with no hysteresis (its first frame in a view). */
inline constexpr std::uint8_t kNoLodLevel = 0xFF;

/** One level of a LodChain. */
struct LodLevel {
    /** What the level draws, in the node's mesh space. Level 0: the node's own mesh
     *  (MeshNode::mesh(); null here means "the node's mesh"). Shared, never copied. */
    std::shared_ptr<const MeshGeometry> mesh;
    /** World units, from the camera's eye to the instance's bounding-sphere centre: the level
     *  is drawn while that distance is below this and at least the previous level's
     *  switchDistance (0 for level 0), give or take the chain's hysteresis. Past the last
     *  level's switchDistance an instance is not drawn at all; +infinity (the default) draws it
     *  at any distance. */
    float switchDistance = std::numeric_limits<float>::infinity();
};

/** A chain of levels, nearest (level 0, the full mesh) first. A value type, copied into the
 *  node by InstancedMeshNode::setLodChain(), which states what makes a chain valid. */
struct LodChain {
    std::vector<LodLevel> levels;  ///< 1 to kMaxLodLevels levels, switch distances increasing
    /** Width of the band around each switch distance s where an instance keeps the level it
     *  drew last frame, as a fraction of s: it moves to a farther level only once its distance
     *  is at least s * (1 + hysteresis), and back to a nearer one only once it is below
     *  s * (1 - hysteresis). In [0, 1); 0 switches exactly at s. */
    float hysteresis = 0.1f;
};

/** The level an instance at @p distance (world units, eye to sphere centre) draws, given the
 *  level it drew last frame (@p held; kNoLodLevel for none). With levels 0..n-1, switch
 *  distances s_0 < ... < s_(n-1) and hysteresis h: the distance alone selects r(d) = the number
 *  of i with d >= s_i (n: not drawn). The held level p (0..n) is kept while
 *  lower(p) <= d < upper(p), where lower(0) = 0, lower(p) = s_(p-1) * (1 - h), upper(n) =
 *  infinity and upper(p) = s_p * (1 + h); otherwise the result is r(d). A NaN distance
 *  selects level 0. @p chain is assumed valid (InstancedMeshNode::setLodChain() checked it).
 *  @return 0..n-1, or n (levels.size()) when the instance is past the last switch distance. */
[[nodiscard]] std::uint8_t selectLodLevel(const LodChain& chain, float distance, std::uint8_t held) noexcept;

/** Buckets @p indices (record indices of one batch, in draw order) by level: the bulk form of
 *  selectLodLevel(), one pass, squared distances, no allocation once the lists have grown.
 *  Each instance's distance is |worldLinear * centre + nodeOriginFromEye| with centre its
 *  node-space sphere centre in @p spheres, @p worldLinear the node's world 3x3 and
 *  @p nodeOriginFromEye the node's world translation minus the eye (camera-relative, float).
 *  @p heldLevels: one byte per record (size at least spheres.size()), read as last frame's
 *  level and overwritten with this frame's; kNoLodLevel (or any value above levels.size())
 *  counts as none. @p levelLists: at least chain.levels.size() lists; each is cleared, then
 *  receives the indices that draw that level, in their order in @p indices (so a list sorted
 *  back to front stays sorted within each level). Instances past the last switch distance go
 *  in no list.
 *  @throws InvalidArgument if the chain is empty, @p levelLists is too short, or an index is
 *  not below both spheres.size() and heldLevels.size() (nothing is written then). */
void selectLodLevels(const LodChain& chain, const InstanceSpheres& spheres, std::span<const std::uint32_t> indices,
                     const glm::mat3& worldLinear, const glm::vec3& nodeOriginFromEye,
                     std::span<std::uint8_t> heldLevels, std::span<std::vector<std::uint32_t>> levelLists);

} // namespace myriad
