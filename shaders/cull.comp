#version 450 core
// Per-instance frustum culling on the GPU (InstanceCulling::Gpu; src/renderer/GpuCulling.cpp,
// docs/visibility.md). One dispatch per (view pass, batch), one invocation per drawn instance:
// the instance's node-space bounding sphere (the CPU path's InstanceSpheres, computed here from
// the record instead of cached) is tested against the view's six node-space planes, and a
// visible instance appends its record index to the visible-index list of a level slot and bumps
// that slot's indirect draw commands (one per primitive of the batch), one atomic per work group. The surface shader's
// MYRIAD_INDEXED variant then reads the list as it reads the CPU path's.
//
// Level slots: the list of slot s starts at s * capacity and its commands at s * primitives.
// A batch without a LOD chain uses slot 0. A batch with
// one (u_lodLevelCount > 0, docs/visibility.md "Level of detail") picks a level per visible
// instance from its world distance to the eye, with the hysteresis of selectLodLevel()
// (src/core/Lod.cpp) against the level it drew last frame in this view (binding 5), and writes
// it into that level's slot; past the last switch distance it is not drawn.
//
// The table-driven path (src/renderer/DrawTable.h; u_pairRow >= 0): a batch drawn in one
// multi-draw call with others. Its command is command u_commandFirst of the table's shared
// buffer, and a visible instance writes the pair (u_pairRow, record index) from pair
// u_listFirst of the table's shared pair buffer, which the draw reads as a divisor-1 attribute
// selected by the command's base instance (no LOD chain, one primitive).
layout(local_size_x = 256) in;

// GL's DrawElementsIndirectCommand, 20 bytes, tightly packed (std430: stride 20).
struct DrawCommand {
    uint count;          // indices per instance (the primitive's index count)
    uint instanceCount;  // the visible instances: reset to 0 by the CPU, atomicAdd here
    uint firstIndex;
    int baseVertex;
    uint baseInstance;   // 0: the shader reads the list at gl_InstanceID + u_baseInstance
};

// The batch's record buffer: 64-byte records (docs/instance-record.md), three rows of the
// node-from-instance 3x4 matrix, then the colour.
layout(std430, binding = MYRIAD_BINDING_CULL_RECORDS) readonly buffer MyriadCullRecords { vec4 records[]; };
// Per-instance morph weights (MYRIAD_MAX_MORPH_TARGETS floats a row), read only when
// u_ownWeights is set; a first weight of -1e30 means "the node's weights".
layout(std430, binding = MYRIAD_BINDING_CULL_MORPH_WEIGHTS) readonly buffer MyriadCullWeights { float weights[]; };
// The visible-index list, or (table path) uvec2 pairs as two uints each.
layout(std430, binding = MYRIAD_BINDING_CULL_VISIBLE) writeonly buffer MyriadCullVisible { uint visibleIndices[]; };
layout(std430, binding = MYRIAD_BINDING_CULL_COMMANDS) buffer MyriadCullCommands { DrawCommand commands[]; };
// Per record, the LOD level drawn last frame in this (view, batch) (0xFF: none yet), read and
// rewritten for the visible instances only, as the CPU path's held bytes. Bound only with a chain.
layout(std430, binding = MYRIAD_BINDING_CULL_LOD_LEVELS) buffer MyriadCullLodLevels { uint heldLevels[]; };

uniform vec4 u_planes[6];       // node space, camera-relative (nodeSpacePlanes()): world distance
uniform float u_planeScale[6];  // |xyz| of each plane: a sphere of radius r is out below -r * scale
uniform uint u_first;           // the draw range: instances [u_first, u_first + u_count)
uniform uint u_count;
uniform vec3 u_boxMin;          // the node's mesh box (MeshNode::meshBounds()), model space
uniform vec3 u_boxMax;
uniform int u_ownWeights;       // 1: some instance has weights of its own (binding 2 is bound)
uniform vec3 u_localMin;        // the mesh's unmorphed box (MeshGeometry::localBounds())
uniform vec3 u_localMax;
uniform int u_morphTargetCount;
uniform vec3 u_deltaMin[MYRIAD_MAX_MORPH_TARGETS];  // per target, its delta box
uniform vec3 u_deltaMax[MYRIAD_MAX_MORPH_TARGETS];
uniform uint u_primitiveCount;
// Level of detail (0 levels: off). Squared world distances, as selectLodLevel()'s bands: the
// distance alone selects the number of the first u_lodSwitchCount switch distances it reaches
// (an infinite last one is left out); a held level p (0..levels) is kept while
// u_lodLower[p] <= d^2 < u_lodUpper[p] (upper of p = levels is infinite, never read).
uniform uint u_lodLevelCount;
uniform uint u_lodSwitchCount;
uniform float u_lodSwitch[8];
uniform float u_lodLower[9];
uniform float u_lodUpper[8];
uniform mat3 u_lodLinear;         // the node's world 3x3
uniform vec3 u_lodOriginFromEye;  // the node's world translation minus the eye
uniform uint u_listCapacity;      // entries per level slot of the list
uniform uint u_commandFirst;      // the batch's first command in the bound command buffer
uniform int u_pairRow;            // >= 0: the table path, the batch's draw-table row
uniform uint u_listFirst;         // the table path: the batch's first pair

// Per work group: each invocation's visible flag, then their inclusive prefix sum; the group's
// first place in the list. With LOD: per level, the group's count and first place.
shared uint s_prefix[256];
shared uint s_base;
shared uint s_levelCount[8];
shared uint s_levelBase[8];

void groupBarrier() {
    memoryBarrierShared();
    barrier();
}

/** selectLodLevel() on squared distances: 0..levels-1, or levels (not drawn). */
uint selectLevel(float distanceSquared, uint held) {
    if (held <= u_lodLevelCount && distanceSquared >= u_lodLower[held] &&
        (held == u_lodLevelCount || distanceSquared < u_lodUpper[held])) {
        return held;
    }
    uint level = 0u;
    for (uint i = 0u; i < u_lodSwitchCount; ++i) {
        level += distanceSquared >= u_lodSwitch[i] ? 1u : 0u;
    }
    return level;
}

/** The LOD form of main()'s compaction: each visible instance takes a place in its level's
 *  group run by a shared atomic (order inside a run is not kept: nothing reads it), then one
 *  global atomic per level and group reserves the runs. */
void compactByLevel(uint index, bool visible, vec3 centre) {
    uint lane = gl_LocalInvocationIndex;
    if (lane < 8u) {
        s_levelCount[lane] = 0u;
    }
    groupBarrier();
    uint level = u_lodLevelCount;
    if (visible) {
        vec3 fromEye = u_lodLinear * centre + u_lodOriginFromEye;
        level = selectLevel(dot(fromEye, fromEye), heldLevels[index]);
        heldLevels[index] = level;
    }
    bool drawn = level < u_lodLevelCount;
    uint place = drawn ? atomicAdd(s_levelCount[level], 1u) : 0u;
    groupBarrier();
    if (lane < u_lodLevelCount) {
        uint total = s_levelCount[lane];
        s_levelBase[lane] = total != 0u ? atomicAdd(commands[u_commandFirst + lane * u_primitiveCount].instanceCount, total) : 0u;
    }
    groupBarrier();
    if (drawn) {
        visibleIndices[level * u_listCapacity + s_levelBase[level] + place] = index;
    }
}

/** True when instance @p index's bounding sphere meets all six planes (the CPU path's test). */
bool instanceInView(uint index, out vec3 centre) {
    vec3 boxMin = u_boxMin;
    vec3 boxMax = u_boxMax;
    if (u_ownWeights != 0) {
        uint row = index * uint(MYRIAD_MAX_MORPH_TARGETS);
        if (weights[row] != -1.0e30) {
            // MeshGeometry::morphedBounds(weights): the interval sum, term by term in target
            // order like the CPU, so both paths build the same box.
            boxMin = u_localMin;
            boxMax = u_localMax;
            for (int t = 0; t < u_morphTargetCount; ++t) {
                float w = weights[row + uint(t)];
                if (w != 0.0) {
                    vec3 a = w * u_deltaMin[t];
                    vec3 b = w * u_deltaMax[t];
                    boxMin += min(a, b);
                    boxMax += max(a, b);
                }
            }
        }
    }
    vec4 row0 = records[index * 4u + 0u];
    vec4 row1 = records[index * 4u + 1u];
    vec4 row2 = records[index * 4u + 2u];
    // Aabb::centre(), halfExtent() and transformedRadius(): the box's corners under the 3x3
    // part, exact for mirrored, sheared and non-uniformly scaled instances.
    vec3 boxCentre = (boxMin + boxMax) * 0.5;
    vec3 e = (boxMax - boxMin) * 0.5;
    vec3 column0 = vec3(row0.x, row1.x, row2.x);
    vec3 column1 = vec3(row0.y, row1.y, row2.y);
    vec3 column2 = vec3(row0.z, row1.z, row2.z);
    centre = column0 * boxCentre.x + column1 * boxCentre.y + column2 * boxCentre.z + vec3(row0.w, row1.w, row2.w);
    vec3 x = column0 * e.x;
    vec3 y = column1 * e.y;
    vec3 z = column2 * e.z;
    vec3 c0 = x + y + z;
    vec3 c1 = x + y - z;
    vec3 c2 = x - y + z;
    vec3 c3 = -x + y + z;
    float squared = max(max(dot(c0, c0), dot(c1, c1)), max(dot(c2, c2), dot(c3, c3)));
    bool empty = boxMax.x < boxMin.x || boxMax.y < boxMin.y || boxMax.z < boxMin.z;
    float radius = empty ? 0.0 : sqrt(squared);
    bool inside = true;
    for (int p = 0; p < 6; ++p) {
        float distance = dot(u_planes[p].xyz, centre) + u_planes[p].w;
        inside = inside && distance >= -radius * u_planeScale[p];
    }
    return inside;
}

void main() {
    // Two-dimensional grid when one row of work groups is not enough (65535 groups a row).
    uint local = gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x + gl_GlobalInvocationID.x;
    uint index = u_first + local;
    // No early return: every invocation takes part in the group's barriers.
    vec3 centre = vec3(0.0);
    bool visible = local < u_count && instanceInView(index, centre);
    if (u_lodLevelCount != 0u) {  // uniform: the whole dispatch takes this branch, barriers included
        compactByLevel(index, visible, centre);
        return;
    }
    // Compaction per work group: an inclusive prefix sum of the visible flags (Hillis and
    // Steele, 1986; log2(256) = 8 steps) gives each visible invocation its place in record
    // order, and one atomicAdd per group (not per instance) reserves the group's run in the
    // list. Groups land in whatever order the atomics give; inside a run, record order holds.
    uint lane = gl_LocalInvocationIndex;
    s_prefix[lane] = visible ? 1u : 0u;
    groupBarrier();
    for (uint offset = 1u; offset < gl_WorkGroupSize.x; offset <<= 1u) {
        uint add = lane >= offset ? s_prefix[lane - offset] : 0u;
        groupBarrier();
        s_prefix[lane] += add;
        groupBarrier();
    }
    if (lane == gl_WorkGroupSize.x - 1u) {
        uint total = s_prefix[lane];
        uint base = 0u;
        if (total != 0u) {
            // Every primitive's command counts the group's instances; the first one's old
            // count is the group's place.
            base = atomicAdd(commands[u_commandFirst].instanceCount, total);
            for (uint p = 1u; p < u_primitiveCount; ++p) {
                atomicAdd(commands[u_commandFirst + p].instanceCount, total);
            }
        }
        s_base = base;
    }
    groupBarrier();
    if (visible) {
        uint place = s_base + s_prefix[lane] - 1u;
        if (u_pairRow >= 0) {
            visibleIndices[2u * (u_listFirst + place)] = uint(u_pairRow);
            visibleIndices[2u * (u_listFirst + place) + 1u] = index;
        } else {
            visibleIndices[place] = index;
        }
    }
}
