#pragma once
/** @file
 *  The 64-byte per-instance record and the vertex-attribute locations shared with GLSL.
 *
 *  These constants are the one source of the layout: the GL backend builds its vertex arrays
 *  from them and injects them into every shader as `#define` lines (MYRIAD_LOCATION_*), so C++ and GLSL
 *  cannot drift apart. */
#include <glm/vec4.hpp>

#include <cstddef>
#include <cstdint>

namespace myriad {

/** One instance of an InstancedMeshNode, as the GPU reads it (divisor-1 vertex attributes).
 *  The node-from-instance transform is affine: its bottom row (0, 0, 0, 1) is implied, never
 *  stored. A point p of the mesh lands at node-space (dot(row0, p1), dot(row1, p1),
 *  dot(row2, p1)) with p1 = (p, 1). */
struct InstanceRecord {
    glm::vec4 row0{1.0f, 0.0f, 0.0f, 0.0f};  ///< row 0 of the 3x4 matrix (m00 m01 m02 tx); location 4
    glm::vec4 row1{0.0f, 1.0f, 0.0f, 0.0f};  ///< row 1 (m10 m11 m12 ty); location 5
    glm::vec4 row2{0.0f, 0.0f, 1.0f, 0.0f};  ///< row 2 (m20 m21 m22 tz); location 6
    glm::vec4 color{1.0f};  ///< linear RGBA, multiplies the vertex colour; default white; location 7
};
static_assert(sizeof(InstanceRecord) == 64, "the record is 16 floats, 64 bytes");
static_assert(offsetof(InstanceRecord, row0) == 0);
static_assert(offsetof(InstanceRecord, row1) == 16);
static_assert(offsetof(InstanceRecord, row2) == 32);
static_assert(offsetof(InstanceRecord, color) == 48);

/** Vertex-attribute locations used by myriad's shaders (and available to user shaders). */
namespace location {
inline constexpr std::uint32_t kPosition = 0;     ///< vec3, per vertex
inline constexpr std::uint32_t kNormal = 1;       ///< vec3, per vertex
inline constexpr std::uint32_t kUv0 = 2;          ///< vec2, per vertex
inline constexpr std::uint32_t kColor = 3;        ///< vec4, per vertex
inline constexpr std::uint32_t kInstanceRow0 = 4; ///< vec4, per instance (divisor 1)
inline constexpr std::uint32_t kInstanceRow1 = 5; ///< vec4, per instance
inline constexpr std::uint32_t kInstanceRow2 = 6; ///< vec4, per instance
inline constexpr std::uint32_t kInstanceColor = 7;///< vec4, per instance
inline constexpr std::uint32_t kJoints = 9;       ///< uvec4, per vertex: a skinned mesh's joint indices (8 is the draw table's pair)
inline constexpr std::uint32_t kWeights = 10;     ///< vec4, per vertex: a skinned mesh's joint weights
inline constexpr std::uint32_t kUv1 = 11;         ///< vec2, per vertex: the second texture coordinate set (MeshData::uv1)
inline constexpr std::uint32_t kTangent = 12;     ///< vec4, per vertex: tangent xyz, handedness w (MeshData::tangents)
} // namespace location

} // namespace myriad
