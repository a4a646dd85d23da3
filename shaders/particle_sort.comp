#version 450 core
// Back-to-front order of a GPU particle system for one view (GpuParticleSystem with an
// alpha-blended material; src/renderer/GpuParticlePass.cpp, docs/particles.md "GPU path"): a
// bitonic sort of (particle index, depth key) pairs over u_count = the capacity rounded up to
// a power of two (at least one block), ascending by key. Keys: the depth along the view's
// forward axis, negated and mapped to uint so uint order is float order: farthest first. Rows
// past the live count (read from the counters) get key 0xFFFFFFFF and sort to the end, where the
// draw, which draws only the live count, never reaches them. particle.vert reads the result as
// its order (an RG32UI buffer texture: .r is the index).
//
// Kernels, by #define; a block is 2 * local size pairs, sorted in shared memory:
//   MYRIAD_SORT_BLOCKS  keys from the positions, then every stage k <= block inside each block;
//   MYRIAD_SORT_GLOBAL  one compare-exchange pass (u_k, u_j) with j >= block, in the buffer;
//   MYRIAD_SORT_MERGE   the passes j < block of stage u_k inside each block.
// So a sort of n pairs is 1 + sum over stages k > block of (log2(k / block) + 1) dispatches:
// 55 for 2^20 pairs with blocks of 2048 (a pass per dispatch would be 210).
layout(local_size_x = 1024) in;
#define MYRIAD_SORT_BLOCK 2048u

#define MYRIAD_COUNTER_LIVE 7u
layout(std430, binding = MYRIAD_BINDING_PARTICLE_COUNTERS) readonly buffer MyriadParticleCounters { uint counters[]; };
layout(std430, binding = MYRIAD_BINDING_PARTICLE_SOURCE) readonly buffer MyriadParticleState { vec4 state[]; };
layout(std430, binding = MYRIAD_BINDING_PARTICLE_ORDER) buffer MyriadParticleOrder { uvec2 pairs[]; };

uniform uint u_state;    // which state's live count (0 or 1): the one drawn
uniform vec3 u_eye;      // world
uniform vec3 u_forward;  // world, unit: the view's depth axis
uniform uint u_k;        // the stage (bitonic sequence length)
uniform uint u_j;        // the pass (compare distance)

shared uvec2 s_pairs[MYRIAD_SORT_BLOCK];

uint orderedKey(float value) {
    uint bits = floatBitsToUint(value);
    return (bits & 0x80000000u) != 0u ? ~bits : bits | 0x80000000u;
}

// One compare-exchange of the pair at distance j from local slot i (i has bit j clear) in
// shared memory; k decides the direction from the global index.
void exchangeShared(uint i, uint j, uint k, uint blockFirst) {
    uint l = i + j;
    bool ascending = ((blockFirst + i) & k) == 0u;
    uvec2 a = s_pairs[i];
    uvec2 b = s_pairs[l];
    if ((a.y > b.y) == ascending) {
        s_pairs[i] = b;
        s_pairs[l] = a;
    }
}

// Local slot of the first element of invocation t's pair at distance j.
uint firstOf(uint t, uint j) { return 2u * j * (t / j) + (t % j); }

#if defined(MYRIAD_SORT_GLOBAL)
void main() {
    uint t = gl_GlobalInvocationID.x;
    uint i = firstOf(t, u_j);
    uint l = i + u_j;
    bool ascending = (i & u_k) == 0u;
    uvec2 a = pairs[i];
    uvec2 b = pairs[l];
    if ((a.y > b.y) == ascending) {
        pairs[i] = b;
        pairs[l] = a;
    }
}
#else
void main() {
    uint blockFirst = gl_WorkGroupID.x * MYRIAD_SORT_BLOCK;
    uint t = gl_LocalInvocationID.x;
#if defined(MYRIAD_SORT_BLOCKS)
    uint live = counters[MYRIAD_COUNTER_LIVE + u_state];
    for (uint h = 0u; h < 2u; ++h) {
        uint slot = t + h * gl_WorkGroupSize.x;
        uint index = blockFirst + slot;
        uint key = 0xFFFFFFFFu;
        if (index < live) {
            float depth = dot(state[index].xyz - u_eye, u_forward);
            key = min(orderedKey(-depth), 0xFFFFFFFEu);  // below every dead row's
        }
        s_pairs[slot] = uvec2(index, key);
    }
    memoryBarrierShared();  // shared writes visible, then the execution barrier
    barrier();
    for (uint k = 2u; k <= MYRIAD_SORT_BLOCK; k <<= 1u) {
        for (uint j = k >> 1u; j > 0u; j >>= 1u) {
            exchangeShared(firstOf(t, j), j, k, blockFirst);
            memoryBarrierShared();
            barrier();
        }
    }
#else
    for (uint h = 0u; h < 2u; ++h) {
        uint slot = t + h * gl_WorkGroupSize.x;
        s_pairs[slot] = pairs[blockFirst + slot];
    }
    memoryBarrierShared();
    barrier();
    for (uint j = MYRIAD_SORT_BLOCK >> 1u; j > 0u; j >>= 1u) {
        exchangeShared(firstOf(t, j), j, u_k, blockFirst);
        memoryBarrierShared();
        barrier();
    }
#endif
    for (uint h = 0u; h < 2u; ++h) {
        uint slot = t + h * gl_WorkGroupSize.x;
        pairs[blockFirst + slot] = s_pairs[slot];
    }
}
#endif
