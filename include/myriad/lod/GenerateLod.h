#pragma once
/** @file
 *  Simpler levels of a mesh for an InstancedMeshNode's LOD chain, made with meshoptimizer's
 *  simplifier (Arseny Kapoulkine, https://github.com/zeux/meshoptimizer; edge collapses ordered
 *  by a quadric error metric, Garland and Heckbert 1997). Part myriad::lod (CMake option
 *  MYRIAD_WITH_MESHOPTIMIZER, Debian package libmeshoptimizer-dev); no GL. */
#include "myriad/core/Lod.h"
#include "myriad/core/MeshData.h"

#include <limits>
#include <memory>
#include <span>

namespace myriad {

/** How one generated level is made, and where it starts. */
struct LodTarget {
    /** Fraction of level 0's index count the level aims for, in (0, 1]. The simplifier stops
     *  earlier when going further would exceed targetError, so a mesh with few triangles (or
     *  whose every edge matters) may keep more. */
    float indexRatio = 0.5f;
    /** Largest deviation the simplifier may introduce, as a fraction of level 0's extent
     *  (meshopt_simplify's relative error; meshopt_simplifyScale() is the extent), >= 0. */
    float targetError = 0.01f;
    /** The level's LodLevel::switchDistance: world units, eye to instance sphere centre; the
     *  level is drawn up to it. Must be above the previous level's (generateLodChain() throws
     *  InvalidArgument otherwise). Default +infinity: drawn at any distance past the previous
     *  level's. */
    float switchDistance = std::numeric_limits<float>::infinity();
    /** Use meshoptimizer's sloppy simplifier (meshopt_simplifySloppy(), marked experimental
     *  by meshoptimizer): it merges vertices on a grid whatever the topology, so it reduces
     *  meshes the default edge-collapse simplifier cannot touch (flat-shaded low-poly models
     *  whose triangles share no vertex, thin open sheets), at the cost of holes and shifted
     *  shapes; a kept triangle's corners keep their own attributes. Default off. */
    bool sloppy = false;
};

/** A chain whose level 0 is @p lod0 (drawn up to @p lod0SwitchDistance) and whose level i + 1
 *  is @p lod0 simplified as @p targets[i] says (each level from level 0, not from the previous
 *  one). A generated level keeps level 0's vertex arrays and morph targets as they are (so its
 *  box and morphing match level 0's exactly) and only has fewer triangles; its indices are
 *  32-bit, its name is lod0's followed by "#lod<i>". Only base positions guide the simplifier:
 *  seams in normals, UVs or colours may shift. Cost: O(index count log) per level, at load
 *  time; memory: each level's GPU copy holds the full vertex buffer again.
 *  Give the result to InstancedMeshNode::setLodChain() of a node whose mesh is @p lod0.
 *  @throws InvalidArgument if @p lod0 is null, there are more than kMaxLodLevels - 1 targets,
 *  a ratio is outside (0, 1] or NaN, a target error is negative or not finite, or a level
 *  came out with no triangle. Switch distances are checked by setLodChain(), not here. */
[[nodiscard]] LodChain generateLodChain(std::shared_ptr<const MeshGeometry> lod0, float lod0SwitchDistance,
                                        std::span<const LodTarget> targets, float hysteresis = 0.1f);

} // namespace myriad
