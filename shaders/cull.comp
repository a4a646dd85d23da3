#version 450 core
// Per-instance frustum culling on the GPU (InstanceCulling::Gpu; src/renderer/GpuCulling.cpp,
// docs/visibility.md). One dispatch per (view pass, batch), one invocation per drawn instance:
// the instance's node-space bounding sphere (the CPU path's InstanceSpheres, computed here from
// the record instead of cached) is tested against the view's six node-space planes, and a
// visible instance appends its record index to the visible-index list of a level slot and bumps
// that slot's indirect draw commands (one per primitive of the batch), one atomic per work group
// (the table-driven path's job dispatch below: one per visible instance). The surface shader's
// MYRIAD_INDEXED variant then reads the list as it reads the CPU path's.
//
// Level slots: the list of slot s starts at s * capacity and its commands at s * primitives.
// A batch without a LOD chain uses slot 0. A batch with
// one (u_lodLevelCount > 0, docs/visibility.md "Level of detail") picks a level per visible
// instance from its world distance to the eye, with the hysteresis of selectLodLevel()
// (src/core/Lod.cpp) against the level it drew last frame in this view (binding 5), and writes
// it into that level's slot; past the last switch distance it is not drawn.
//
// The table-driven path (src/renderer/DrawTable.h; u_tableJobs = 1): one dispatch per view
// over every GPU-culled batch the path draws, one invocation per tested instance of any of
// them, so 10,000 batches of 16 instances are 160,000 invocations, not 10,000 work groups of
// 256. Each batch is a cull job (binding 6): its draw-table row, where its records start in the
// record arena (bound whole, binding 1), how many it tests, its command in the shared command
// buffer, its first pair in the shared pair buffer, and its first invocation (the jobs'
// counts summed in order), by which an invocation finds its job (a binary search). The planes are the view's, camera-relative (u_planes); each
// invocation takes them into the batch's node space from its row (the world 3x3, the
// translation as high and low floats against the eye's), as nodeSpacePlanes() does on the CPU.
// A visible instance takes its place with one atomicAdd on its command's instance count (a
// batch is small, at most 16,384 instances: no per-group compaction, so groups may mix jobs)
// and writes the pair (row, instance) there for the multi-draw, which reads it as a divisor-1
// attribute selected by the command's base instance (no LOD chain, one primitive).
//
// Occlusion culling (u_occlusionPhase != 0; View::occlusionCulling, docs/visibility.md "GPU
// occlusion culling: the depth pyramid and the two phases"), after Haar and Aaltonen,
// "GPU-Driven Rendering Pipelines" (SIGGRAPH 2015) and Kapoulkine's two-pass occlusion culling
// (niagara, "Two-Pass Occlusion Culling", 2023). Bit 31 of the record's history word
// (binding 5) says "visible last frame in this view". Phase 1 (this frame's dispatch before any
// draw) draws, from slot 0, the instances in the frustum that were visible last frame. After
// the view's opaque draws the depth pyramid is built (depth_pyramid.comp) and phase 2 tests
// every instance in the frustum against it (and the batch's sphere, once): the bit becomes
// "visible now", and those visible now that phase 1 did not draw go to slot 1, drawn next.
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
// The table-driven path's jobs, 64 bytes each (DrawTable::CullJob).
struct CullJob {
    uint row;            // the batch's draw-table row
    uint recordFirst;    // its first tested record's slot in the record arena
    uint count;          // instances tested
    uint command;        // its command in the shared command buffer
    uint pairFirst;      // its first pair in the shared pair buffer
    uint instanceFirst;  // the first tested instance's index in the batch
    uint invocationFirst;  // the jobs before it in the dispatch: their counts summed
    uint unused;
    vec4 boxMin;         // the node's mesh box (MeshNode::meshBounds()), model space
    vec4 boxMax;
};
layout(std430, binding = MYRIAD_BINDING_CULL_JOBS) readonly buffer MyriadCullJobs { CullJob jobs[]; };
layout(binding = MYRIAD_UNIT_DRAW_TABLE) uniform usamplerBuffer u_drawTable;
// The view's depth pyramid (depth_pyramid.comp), every level one after the other; phase 2 only.
layout(std430, binding = MYRIAD_BINDING_CULL_PYRAMID) readonly buffer MyriadCullPyramid { float pyramid[]; };

uniform vec4 u_planes[6];       // node space, camera-relative (nodeSpacePlanes()): world distance;
                                // table jobs: the view's, camera-relative world space
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
// Screen-size metrics and the dithered fade (core/LodBands.h): every band edge E is compared as
// key >= E * scale, key = d^2 (1 under an orthographic view with a screen metric: u_lodPerspectiveKey
// 0), scale = r^2 with a screen metric (u_lodScreen), 1 by distance. With u_lodFade the held
// level is not used: an instance inside switch i's band [u_lodFadeLow[i], u_lodFadeHigh[i]) is
// drawn by level i and i + 1, the farther one over round(64 t) 64ths of its pixels, t =
// (sqrt(key / scale) - u_lodFadeStart[i]) * u_lodFadeInvWidth[i]; list entries carry that in
// their top byte (lodFadeEntry(), myriad/core/Lod.h).
uniform uint u_lodFade;
uniform uint u_lodScreen;
uniform uint u_lodPerspectiveKey;
uniform float u_lodFadeLow[8];
uniform float u_lodFadeHigh[8];
uniform float u_lodFadeStart[8];
uniform float u_lodFadeInvWidth[8];
uniform uint u_listCapacity;      // entries per level slot of the list
uniform uint u_tableJobs;         // 1: the table-driven path's dispatch over jobs
uniform uint u_jobFirst;          // the dispatch's first job
uniform uint u_jobCount;          // its jobs
uniform uint u_invocationCount;   // the instances all of them test
uniform vec3 u_eyeHigh;           // the eye as two floats, as the surface stage gets it
uniform vec3 u_eyeLow;
// Occlusion culling (0: off; 1: phase 1; 2: phase 2) and the slot this dispatch writes.
uniform uint u_occlusionPhase;
uniform uint u_outputSlot;
uniform mat4 u_clipFromNode;     // phase 2: the view-projection from node space (camera-relative)
uniform mat4 u_clipFromWorld;    // phase 2: the view-projection from camera-relative world space
uniform vec4 u_batchSphere;      // phase 2: the batch's sphere, camera-relative world space
uniform ivec2 u_viewportSize;    // level 0's texels: the viewport's pixels
uniform int u_pyramidLevels;
uniform uint u_levelOffset[16];  // each level's first value in the pyramid buffer
uniform ivec2 u_levelSize[16];
uniform int u_reversedDepth;     // 1: nearer is larger depth; the pyramid holds minima
uniform int u_clipZeroToOne;     // ClipDepth::ZeroToOne: window depth is NDC z
// Phase 2: the command after the list's last, whose count and instanceCount count the
// instances the frustum and the pyramid left out (RendererDesc::gpuCullingCounts reads them).
uniform uint u_countersCommand;

// Per work group: each invocation's visible flag, then their inclusive prefix sum; the group's
// first place in the list. With LOD: per level, the group's count and first place.
shared uint s_prefix[256];
shared uint s_base;
shared uint s_levelCount[8];
shared uint s_levelBase[8];
shared uint s_batchHidden;  // occlusion phase 2: 1 when the batch's sphere is hidden
shared uint s_culled[2];  // occlusion phase 2: the group's frustum- and occlusion-culled instances

void groupBarrier() {
    memoryBarrierShared();
    barrier();
}

/** LodBands::select(): 0..levels-1, or levels (not drawn). */
uint selectLevel(float key, float scale, uint held) {
    if (held <= u_lodLevelCount && key >= u_lodLower[held] * scale &&
        (held == u_lodLevelCount || key < u_lodUpper[held] * scale)) {
        return held;
    }
    uint level = 0u;
    for (uint i = 0u; i < u_lodSwitchCount; ++i) {
        level += key >= u_lodSwitch[i] * scale ? 1u : 0u;
    }
    return level;
}

/** LodBands::pick(): the level, and in @p steps the farther level's coverage in 64ths (0: none). */
uint pickLevel(float key, float scale, out uint steps) {
    steps = 0u;
    uint level = 0u;
    for (uint i = 0u; i < u_lodSwitchCount; ++i) {
        level += key >= u_lodFadeHigh[i] * scale ? 1u : 0u;
    }
    if (level < u_lodSwitchCount && key >= u_lodFadeLow[level] * scale) {
        float t = (sqrt(key / scale) - u_lodFadeStart[level]) * u_lodFadeInvWidth[level];
        float k = floor(t * 64.0 + 0.5);
        if (k >= 64.0) {
            return level + 1u;
        }
        if (k >= 1.0) {
            steps = uint(k);
        }
    }
    return level;
}

/** lodFadeEntry(): record @p index, and a fade's coverage byte when @p steps is 1..63. */
uint fadeEntry(uint index, uint steps, bool farSide) {
    return steps == 0u ? index : index | ((0x80u | (farSide ? 0x40u : 0u) | steps) << 24u);
}

/** The LOD form of main()'s compaction: each visible instance takes a place in its level's
 *  group run by a shared atomic (order inside a run is not kept: nothing reads it), then one
 *  global atomic per level and group reserves the runs. */
void compactByLevel(uint index, bool visible, vec3 centre, float radius) {
    uint lane = gl_LocalInvocationIndex;
    if (lane < 8u) {
        s_levelCount[lane] = 0u;
    }
    groupBarrier();
    uint level = u_lodLevelCount;
    uint steps = 0u;  // a fade: level + 1 drawn too, over steps 64ths (1..63)
    if (visible) {
        vec3 fromEye = u_lodLinear * centre + u_lodOriginFromEye;
        float key = u_lodPerspectiveKey != 0u ? dot(fromEye, fromEye) : 1.0;
        float scale = u_lodScreen != 0u ? radius * radius : 1.0;
        level = u_lodFade != 0u ? pickLevel(key, scale, steps) : selectLevel(key, scale, heldLevels[index]);
        heldLevels[index] = level;
    }
    bool drawn = level < u_lodLevelCount;
    bool farToo = steps != 0u && level + 1u < u_lodLevelCount;  // an instance in a band writes into both slots
    uint place = drawn ? atomicAdd(s_levelCount[level], 1u) : 0u;
    uint farPlace = farToo ? atomicAdd(s_levelCount[level + 1u], 1u) : 0u;
    groupBarrier();
    if (lane < u_lodLevelCount) {
        uint total = s_levelCount[lane];
        s_levelBase[lane] = total != 0u ? atomicAdd(commands[lane * u_primitiveCount].instanceCount, total) : 0u;
        // Every primitive's command of the level counts the same instances (a chain on a node
        // with several primitives: one level mesh per primitive).
        for (uint p = 1u; p < u_primitiveCount && total != 0u; ++p) {
            atomicAdd(commands[lane * u_primitiveCount + p].instanceCount, total);
        }
    }
    groupBarrier();
    if (drawn) {
        visibleIndices[level * u_listCapacity + s_levelBase[level] + place] = fadeEntry(index, steps, false);
    }
    if (farToo) {
        visibleIndices[(level + 1u) * u_listCapacity + s_levelBase[level + 1u] + farPlace] = fadeEntry(index, steps, true);
    }
}

/** True when the bounding sphere of box (@p boxMin, @p boxMax) under the instance matrix of rows
 *  @p row0..2 meets all six @p planes (the CPU path's test; @p scale: each plane's |xyz|). */
bool sphereInView(vec4 row0, vec4 row1, vec4 row2, vec3 boxMin, vec3 boxMax, vec4 planes[6], float scale[6],
                  out vec3 centre, out float radius) {
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
    radius = empty ? 0.0 : sqrt(squared);
    bool inside = true;
    for (int p = 0; p < 6; ++p) {
        float distance = dot(planes[p].xyz, centre) + planes[p].w;
        inside = inside && distance >= -radius * scale[p];
    }
    return inside;
}

/** True when instance @p index's bounding sphere meets all six planes (the CPU path's test). */
bool instanceInView(uint index, out vec3 centre, out float radius) {
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
    return sphereInView(records[index * 4u + 0u], records[index * 4u + 1u], records[index * 4u + 2u], boxMin, boxMax,
                        u_planes, u_planeScale, centre, radius);
}

/** The level-@p level pyramid texel covering pixel @p p (clamped: the last texel covers the
 *  remainder of an odd-sized level's source). */
float pyramidAt(int level, ivec2 p) {
    ivec2 size = u_levelSize[level];
    ivec2 t = min(p >> level, size - 1);
    return pyramid[u_levelOffset[level] + uint(t.y * size.x + t.x)];
}

/** True when the sphere (@p centre, @p radius) under @p clipFrom is behind the depth the view
 *  holds everywhere it could cover: its bounding cube's eight corners projected, a rectangle of
 *  level-0 pixels around them grown by one pixel, the pyramid level where it spans at most 2x2
 *  texels, and the sphere's nearest depth beyond the farthest of those four. A corner behind
 *  the eye or in front of the near plane: not occluded. */
bool sphereOccluded(mat4 clipFrom, vec3 centre, float radius) {
    vec2 low = vec2(1.0e30);
    vec2 high = vec2(-1.0e30);
    float nearest = u_reversedDepth != 0 ? -1.0e30 : 1.0e30;
    for (int i = 0; i < 8; ++i) {
        vec3 corner = centre + radius * vec3((i & 1) != 0 ? 1.0 : -1.0, (i & 2) != 0 ? 1.0 : -1.0,
                                             (i & 4) != 0 ? 1.0 : -1.0);
        vec4 clip = clipFrom * vec4(corner, 1.0);
        if (clip.w <= 1.0e-6) {
            return false;
        }
        vec3 ndc = clip.xyz / clip.w;
        float depth = u_clipZeroToOne != 0 ? ndc.z : ndc.z * 0.5 + 0.5;
        if (u_reversedDepth != 0 ? depth > 1.0 : depth < 0.0) {
            return false;  // crosses the near plane
        }
        nearest = u_reversedDepth != 0 ? max(nearest, depth) : min(nearest, depth);
        vec2 pixel = (ndc.xy * 0.5 + 0.5) * vec2(u_viewportSize);
        low = min(low, pixel);
        high = max(high, pixel);
    }
    if (high.x < 0.0 || high.y < 0.0 || low.x > float(u_viewportSize.x) || low.y > float(u_viewportSize.y)) {
        return false;  // off the viewport (the frustum test keeps such a sphere only by a hair)
    }
    // Clamped as floats first: a corner near w = 0 projects past any int, and converting such a
    // float to int is undefined (GLSL 4.50 section 5.4.1).
    vec2 lastPixel = vec2(u_viewportSize - 1);
    ivec2 first = ivec2(clamp(floor(low) - 1.0, vec2(0.0), lastPixel));
    ivec2 last = ivec2(clamp(floor(high) + 1.0, vec2(0.0), lastPixel));
    int level = 0;
    for (; level < u_pyramidLevels - 1; ++level) {
        ivec2 size = u_levelSize[level];
        ivec2 span = min(last >> level, size - 1) - min(first >> level, size - 1);
        if (span.x <= 1 && span.y <= 1) {
            break;
        }
    }
    float a = pyramidAt(level, first);
    float b = pyramidAt(level, ivec2(last.x, first.y));
    float c = pyramidAt(level, ivec2(first.x, last.y));
    float d = pyramidAt(level, last);
    if (u_reversedDepth != 0) {
        return nearest < min(min(a, b), min(c, d));
    }
    return nearest > max(max(a, b), max(c, d));
}

/** Compaction per work group: an inclusive prefix sum of the visible flags (Hillis and
 *  Steele, 1986; log2(256) = 8 steps) gives each visible invocation its place in record
 *  order, and one atomicAdd per group (not per instance) reserves the group's run on
 *  commands[@p command] (and the next u_primitiveCount - 1 commands, which count the same).
 *  Groups land in whatever order the atomics give; inside a run, record order holds.
 *  @return the invocation's place (meaningful when @p visible). */
uint compactInGroup(bool visible, uint command, uint primitives) {
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
            base = atomicAdd(commands[command].instanceCount, total);
            for (uint p = 1u; p < primitives; ++p) {
                atomicAdd(commands[command + p].instanceCount, total);
            }
        }
        s_base = base;
    }
    groupBarrier();
    return s_base + s_prefix[lane] - 1u;
}

vec4 tableTexel(uint row, int texel) {
    return uintBitsToFloat(texelFetch(u_drawTable, int(row) * MYRIAD_DRAW_ROW_TEXELS + texel));
}

/** The table-driven path's dispatch: invocation g tests instance g - invocationFirst of the
 *  last job whose invocationFirst is at most g. */
void cullJob() {
    uint g = gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x + gl_GlobalInvocationID.x;
    if (g >= u_invocationCount) {
        return;  // no barrier on this path: an early return is fine
    }
    uint low = 0u;
    uint high = u_jobCount - 1u;
    while (low < high) {
        uint middle = (low + high + 1u) >> 1u;
        if (jobs[u_jobFirst + middle].invocationFirst <= g) {
            low = middle;
        } else {
            high = middle - 1u;
        }
    }
    CullJob job = jobs[u_jobFirst + low];
    uint local = g - job.invocationFirst;
    // The view's planes into the node's space: (L^T n, d + n . (T - eye)), with T - eye made
    // from the high and low halves apart (precise: no reassociation), as the surface stage
    // makes its translation.
    vec4 r0 = tableTexel(job.row, 0);
    vec4 r1 = tableTexel(job.row, 1);
    vec4 r2 = tableTexel(job.row, 2);
    precise vec3 highPart = vec3(r0.w, r1.w, r2.w) - u_eyeHigh;
    precise vec3 lowPart = tableTexel(job.row, 3).xyz - u_eyeLow;
    precise vec3 originFromEye = highPart + lowPart;
    vec4 planes[6];
    float scale[6];
    for (int p = 0; p < 6; ++p) {
        vec3 n = u_planes[p].xyz;
        vec3 nodeNormal = n.x * r0.xyz + n.y * r1.xyz + n.z * r2.xyz;  // L^T n: L's rows are r0..2
        planes[p] = vec4(nodeNormal, u_planes[p].w + dot(n, originFromEye));
        scale[p] = length(nodeNormal);
    }
    uint slot = job.recordFirst + local;
    vec3 centre;
    float radius;
    if (sphereInView(records[slot * 4u + 0u], records[slot * 4u + 1u], records[slot * 4u + 2u], job.boxMin.xyz,
                     job.boxMax.xyz, planes, scale, centre, radius)) {
        uint place = atomicAdd(commands[job.command].instanceCount, 1u);
        visibleIndices[2u * (job.pairFirst + place)] = job.row;
        visibleIndices[2u * (job.pairFirst + place) + 1u] = job.instanceFirst + local;
    }
}

void main() {
    if (u_tableJobs != 0u) {
        cullJob();
        return;
    }
    // Two-dimensional grid when one row of work groups is not enough (65535 groups a row).
    uint local = gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x + gl_GlobalInvocationID.x;
    uint index = u_first + local;
    // No early return: every invocation takes part in the group's barriers.
    vec3 centre = vec3(0.0);
    float radius = 0.0;
    bool visible = local < u_count && instanceInView(index, centre, radius);
    bool frustumCulled = false;
    bool occlusionCulled = false;
    bool batchHidden = false;
    if (u_occlusionPhase == 2u) {  // uniform: the whole dispatch takes this branch, barriers included
        // The batch's sphere, the same for every invocation: tested once per work group.
        if (gl_LocalInvocationIndex == 0u) {
            s_batchHidden = sphereOccluded(u_clipFromWorld, u_batchSphere.xyz, u_batchSphere.w) ? 1u : 0u;
        }
        groupBarrier();
        batchHidden = s_batchHidden != 0u;
    }
    if (u_occlusionPhase != 0u && local < u_count) {
        uint history = heldLevels[index];
        bool wasVisible = (history & 0x80000000u) != 0u;
        if (u_occlusionPhase == 1u) {
            visible = visible && wasVisible;  // drawn before the pyramid exists
        } else {
            // The batch's sphere first (the group's one test), then the instance's.
            bool now = visible && !batchHidden && !sphereOccluded(u_clipFromNode, centre, radius);
            heldLevels[index] = (history & 0x7FFFFFFFu) | (now ? 0x80000000u : 0u);
            frustumCulled = !visible;
            occlusionCulled = visible && !now;
            visible = now && !wasVisible;  // what phase 1 drew is not drawn twice
        }
    }
    if (u_occlusionPhase == 2u) {  // uniform: the whole dispatch takes this branch, barriers included
        uint lane = gl_LocalInvocationIndex;
        if (lane < 2u) {
            s_culled[lane] = 0u;
        }
        groupBarrier();
        if (frustumCulled) {
            atomicAdd(s_culled[0], 1u);
        }
        if (occlusionCulled) {
            atomicAdd(s_culled[1], 1u);
        }
        groupBarrier();
        if (lane == 0u && s_culled[0] != 0u) {
            atomicAdd(commands[u_countersCommand].count, s_culled[0]);
        }
        if (lane == 1u && s_culled[1] != 0u) {
            atomicAdd(commands[u_countersCommand].instanceCount, s_culled[1]);
        }
    }
    if (u_lodLevelCount != 0u) {  // uniform: the whole dispatch takes this branch, barriers included
        compactByLevel(index, visible, centre, radius);
        return;
    }
    uint place = compactInGroup(visible, u_outputSlot * u_primitiveCount, u_primitiveCount);
    if (visible) {
        visibleIndices[u_outputSlot * u_listCapacity + place] = index;
    }
}
