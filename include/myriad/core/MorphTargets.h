#pragma once
/** @file
 *  Morph targets (blend shapes): per-vertex offsets a mesh can blend in by weight.
 *
 *  A morphed vertex is base + sum over targets of weight[t] * delta[t] (glTF 2.0 section 3.7.2.2,
 *  "Morph Targets"), for positions and, where the target has them, normals. */
#include <glm/vec3.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace myriad {

/** The most morph targets a mesh may have, and the number of weights a node or an instance
 *  carries. One source for C++ and GLSL: gl::Program injects it into every shader as
 *  MYRIAD_MAX_MORPH_TARGETS (a test reads it back from the GPU). A multiple of 4, since the
 *  per-instance weights texture packs four weights per RGBA texel. */
inline constexpr std::size_t kMaxMorphTargets = 8;
static_assert(kMaxMorphTargets % 4 == 0);

/** One morph target of a mesh, in the mesh's model space. */
struct MorphTarget {
    std::string name;                       ///< free text (glTF mesh.extras.targetNames)
    std::vector<glm::vec3> positionDeltas;  ///< one per vertex, added at weight 1
    std::vector<glm::vec3> normalDeltas;    ///< one per vertex, or empty (normals unchanged)
};

} // namespace myriad
