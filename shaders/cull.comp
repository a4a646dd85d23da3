#version 450 core
// Per-instance frustum culling on the GPU (InstanceCulling::Gpu; src/gl/GpuCulling.cpp,
// docs/visibility.md). One dispatch per (view pass, batch), one invocation per drawn instance:
// the instance's node-space bounding sphere (the CPU path's InstanceSpheres, computed here from
// the record instead of cached) is tested against the view's six node-space planes, and a
// visible instance appends its record index to the visible-index list of a level slot and bumps
// that slot's indirect draw commands (one per primitive of the batch), one atomic per work group. The surface shader's
// MYRIAD_INDEXED variant then reads the list as it reads the CPU path's.
//
// Level slots: the list of slot s starts at u_listOffset (s * capacity) and its commands at
// u_commandOffset (s * primitives); only slot 0 is used today. Per-instance level of detail can
// pick the slot per instance without changing anything else here.
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
layout(std430, binding = 1) readonly buffer MyriadCullRecords { vec4 records[]; };
// Per-instance morph weights (MYRIAD_MAX_MORPH_TARGETS floats a row), read only when
// u_ownWeights is set; a first weight of -1e30 means "the node's weights".
layout(std430, binding = 2) readonly buffer MyriadCullWeights { float weights[]; };
layout(std430, binding = 3) writeonly buffer MyriadCullVisible { uint visibleIndices[]; };
layout(std430, binding = 4) buffer MyriadCullCommands { DrawCommand commands[]; };

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
uniform uint u_listOffset;      // level slot * list capacity
uniform uint u_commandOffset;   // level slot * primitive count
uniform uint u_primitiveCount;

// Per work group: each invocation's visible flag, then their inclusive prefix sum; the group's
// first place in the list.
shared uint s_prefix[256];
shared uint s_base;

/** True when instance @p index's bounding sphere meets all six planes (the CPU path's test). */
bool instanceInView(uint index) {
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
    vec3 centre = column0 * boxCentre.x + column1 * boxCentre.y + column2 * boxCentre.z + vec3(row0.w, row1.w, row2.w);
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

void groupBarrier() {
    memoryBarrierShared();
    barrier();
}

void main() {
    // Two-dimensional grid when one row of work groups is not enough (65535 groups a row).
    uint local = gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x + gl_GlobalInvocationID.x;
    uint index = u_first + local;
    // No early return: every invocation takes part in the group's barriers.
    bool visible = local < u_count && instanceInView(index);
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
            base = atomicAdd(commands[u_commandOffset].instanceCount, total);
            for (uint p = 1u; p < u_primitiveCount; ++p) {
                atomicAdd(commands[u_commandOffset + p].instanceCount, total);
            }
        }
        s_base = base;
    }
    groupBarrier();
    if (visible) {
        visibleIndices[u_listOffset + s_base + s_prefix[lane] - 1u] = index;
    }
}
