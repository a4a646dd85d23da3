#version 450 core
// The GPU particle path's simulation (GpuParticleSystem, src/renderer/GpuParticlePass.cpp,
// docs/particles.md "GPU path"). One time step is three dispatches, each a kernel of this file
// picked by a #define:
//   MYRIAD_PARTICLE_INTEGRATE  one invocation per live particle of the source state (the
//       count and the dispatch size come from the GPU: glDispatchComputeIndirect): age, kill,
//       gravity, drag, wind, ground, spin, curves, flipbook; a survivor is appended to the
//       destination state (one atomicAdd per work group on the destination's live count).
//   MYRIAD_PARTICLE_SPAWN  one invocation per spawn of the step: spawn k = u_firstSpawn + t
//       takes row live + t of the destination, or is dropped past the capacity.
//   MYRIAD_PARTICLE_FINISH  one invocation: the destination's live count (spawns added, at
//       most the capacity), the source's reset to 0 for the next step, the indirect draw's
//       instance count and the next integrate's work groups.
// A state is a buffer of four planes of u_capacity vec4 rows, as particle.vert reads them
// (plane k of particle i at k * capacity + i): position + half-width, colour + alpha,
// velocity + spin, age + seed + frame + half-height. Two states ping-pong: a step reads one
// (binding SOURCE) and writes the other (binding TARGET), then the draw reads the one written. The formulas are ParticleEmitter's (src/core/ParticlePool.cpp),
// the randomness src/core/ParticleRandom.h's, mirrored below operation for operation.
#if defined(MYRIAD_PARTICLE_INTEGRATE)
layout(local_size_x = 256) in;
#elif defined(MYRIAD_PARTICLE_SPAWN)
layout(local_size_x = 64) in;
#else
layout(local_size_x = 1) in;
#endif

// The counters (GpuParticleCounters in GpuParticlePass.h): the indirect draw command at 0
// (GL's DrawArraysIndirectCommand: count 6, instance count = live particles, first 0, base
// instance 0), the integrate's DispatchIndirectCommand at 4, the live count of state 0 at 7
// and of state 1 at 8.
#define MYRIAD_COUNTER_DRAW_INSTANCES 1u
#define MYRIAD_COUNTER_DISPATCH 4u
#define MYRIAD_COUNTER_LIVE 7u
layout(std430, binding = MYRIAD_BINDING_PARTICLE_COUNTERS) coherent buffer MyriadParticleCounters { uint counters[]; };
layout(std430, binding = MYRIAD_BINDING_PARTICLE_SOURCE) readonly buffer MyriadParticleSource { vec4 source[]; };
layout(std430, binding = MYRIAD_BINDING_PARTICLE_TARGET) writeonly buffer MyriadParticleTarget { vec4 target[]; };

uniform uint u_capacity;     // rows per plane
uniform uint u_source;       // which state the step reads (0 or 1); it writes the other
uniform float u_seconds;     // the step's dt
uniform float u_lifetimeMin; // seconds
uniform float u_lifetimeMax;
// Integrate
uniform vec3 u_gravityStep;  // gravity * dt (as the CPU computes it)
uniform float u_dragFactor;  // exp(-drag * dt) (as the CPU computes it)
uniform float u_spinSpeed;   // radians/s
uniform float u_frameRate;   // cells per second of life; 0: the frame stays
uniform float u_frameCount;  // cells (>= 1)
uniform vec3 u_windVelocity; // the air's mean velocity, m/s
uniform float u_windShare;   // 1 - exp(-response * dt); 0: no wind
uniform float u_gustStrength;
uniform float u_gustPhase;   // 2 pi frequency * time at the step's start
uniform int u_ground;        // 1: the ground plane is on
uniform float u_groundHeight;
uniform float u_restitution;
uniform float u_friction;
// Curves over life: keys (value, time); counts 0 keep the value at spawn.
#define MYRIAD_MAX_CURVE_KEYS 8
uniform vec4 u_colorKeys[MYRIAD_MAX_CURVE_KEYS];  // rgb, time
uniform vec2 u_alphaKeys[MYRIAD_MAX_CURVE_KEYS];  // alpha, time
uniform vec2 u_sizeKeys[MYRIAD_MAX_CURVE_KEYS];   // half-width, time
uniform int u_colorKeyCount;
uniform int u_alphaKeyCount;
uniform int u_sizeKeyCount;
// Spawn
uniform uint u_seed;         // the emitter's seed
uniform uint u_firstSpawn;   // spawn index of invocation 0
uniform uint u_fromRate;     // invocations below it are rate spawns, born part-way through the step
uniform uint u_spawns;       // spawns this step (those past the capacity are dropped)
uniform vec3 u_position;     // the emitter's position for this step
uniform vec3 u_extent;       // half-size of the spawn box
uniform vec3 u_axis;         // the cone's unit axis, and two unit vectors across it (as the CPU)
uniform vec3 u_axisU;
uniform vec3 u_axisV;
uniform float u_oneMinusCosCone;  // 1 - cos(coneAngle)
uniform float u_speedMin;
uniform float u_speedMax;
uniform vec4 u_spawnColor;   // rgb, alpha when no curve
uniform float u_spawnSize;   // half-width when no curve
uniform float u_spawnHeight; // half-height
// Finish
uniform uint u_maxGroupsX;   // GL_MAX_COMPUTE_WORK_GROUP_COUNT[0]

uint invocation() {
    return (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
}

float lifetimeOf(float seed) { return u_lifetimeMin + (u_lifetimeMax - u_lifetimeMin) * seed; }

// LifeCurve::at (Particles.h).
vec3 colorAt(float time) {
    if (time <= u_colorKeys[0].w) {
        return u_colorKeys[0].xyz;
    }
    for (int i = 1; i < u_colorKeyCount; ++i) {
        if (time <= u_colorKeys[i].w) {
            float span = u_colorKeys[i].w - u_colorKeys[i - 1].w;
            float t = span > 0.0 ? (time - u_colorKeys[i - 1].w) / span : 1.0;
            return u_colorKeys[i - 1].xyz + (u_colorKeys[i].xyz - u_colorKeys[i - 1].xyz) * t;
        }
    }
    return u_colorKeys[u_colorKeyCount - 1].xyz;
}

float scalarAt(vec2 keys[MYRIAD_MAX_CURVE_KEYS], int count, float time) {
    if (time <= keys[0].y) {
        return keys[0].x;
    }
    for (int i = 1; i < count; ++i) {
        if (time <= keys[i].y) {
            float span = keys[i].y - keys[i - 1].y;
            float t = span > 0.0 ? (time - keys[i - 1].y) / span : 1.0;
            return keys[i - 1].x + (keys[i].x - keys[i - 1].x) * t;
        }
    }
    return keys[count - 1].x;
}

#if defined(MYRIAD_PARTICLE_INTEGRATE)
shared uint s_survivors;
shared uint s_base;

void main() {
    uint i = invocation();
    uint live = counters[MYRIAD_COUNTER_LIVE + u_source];
    bool alive = false;
    vec4 ps = vec4(0.0), ca = vec4(0.0), vs = vec4(0.0), life = vec4(0.0);
    if (gl_LocalInvocationID.x == 0u) {
        s_survivors = 0u;
    }
    if (i < live) {
        ps = source[i];
        ca = source[u_capacity + i];
        vs = source[2u * u_capacity + i];
        life = source[3u * u_capacity + i];
        float seed = life.y;
        float age = life.x + u_seconds / lifetimeOf(seed);
        alive = !(age >= 1.0);  // as the CPU: a NaN age lives
        vec3 velocity = (vs.xyz + u_gravityStep) * u_dragFactor;
        if (u_windShare > 0.0) {
            float gust = 1.0 + u_gustStrength * sin(u_gustPhase + 0.37 * ps.x + 0.23 * ps.z);
            velocity += (u_windVelocity * gust - velocity) * u_windShare;
        }
        vec3 position = ps.xyz + velocity * u_seconds;
        if (u_ground != 0 && position.y < u_groundHeight) {
            position.y = u_groundHeight;
            if (velocity.y < 0.0) {
                velocity.y = -velocity.y * u_restitution;
            }
            velocity.xz *= 1.0 - u_friction;
        }
        float spin = vs.w + (seed < 0.5 ? -1.0 : 1.0) * u_spinSpeed * u_seconds;
        float size = u_sizeKeyCount == 0 ? ps.w : scalarAt(u_sizeKeys, u_sizeKeyCount, age);
        vec3 color = u_colorKeyCount == 0 ? ca.rgb : colorAt(age);
        float alpha = u_alphaKeyCount == 0 ? ca.a : scalarAt(u_alphaKeys, u_alphaKeyCount, age);
        float frame = life.z;
        if (u_frameRate > 0.0) {
            frame = mod(age * lifetimeOf(seed) * u_frameRate, max(u_frameCount, 1.0));
        }
        ps = vec4(position, size);
        ca = vec4(color, alpha);
        vs = vec4(velocity, spin);
        life = vec4(age, seed, frame, life.w);
    }
    memoryBarrierShared();  // shared writes visible, then the execution barrier
    barrier();
    uint slot = alive ? atomicAdd(s_survivors, 1u) : 0u;
    memoryBarrierShared();
    barrier();
    if (gl_LocalInvocationID.x == 0u && s_survivors > 0u) {
        s_base = atomicAdd(counters[MYRIAD_COUNTER_LIVE + (1u - u_source)], s_survivors);
    }
    memoryBarrierShared();
    barrier();
    if (alive) {
        uint dst = s_base + slot;
        target[dst] = ps;
        target[dst + u_capacity] = ca;
        target[dst + 2u * u_capacity] = vs;
        target[dst + 3u * u_capacity] = life;
    }
}
#elif defined(MYRIAD_PARTICLE_SPAWN)
// src/core/ParticleRandom.h, the same integer operations: particleHash, particleRandom.
uint myriadParticleHash(uint value) {
    uint state = value * 747796405u + 2891336453u;
    uint word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}

float myriadParticleRandom(uint index, uint which) {
    uint h = myriadParticleHash(myriadParticleHash(myriadParticleHash(u_seed) + index) + which);
    return float(h >> 8u) * (1.0 / 16777216.0);
}

// ParticleRandomValue (ParticleRandom.h).
#define MYRIAD_RANDOM_CONE_COS 0u
#define MYRIAD_RANDOM_CONE_PHI 1u
#define MYRIAD_RANDOM_SPEED 2u
#define MYRIAD_RANDOM_SEED 3u
#define MYRIAD_RANDOM_BOX_X 4u
#define MYRIAD_RANDOM_BOX_Y 5u
#define MYRIAD_RANDOM_BOX_Z 6u
#define MYRIAD_RANDOM_SPIN 7u
#define MYRIAD_RANDOM_BORN_AGO 8u

void main() {
    uint t = invocation();
    uint dstState = 1u - u_source;
    uint row = counters[MYRIAD_COUNTER_LIVE + dstState] + t;
    if (t >= u_spawns || row >= u_capacity) {
        return;  // past the step's spawns, or dropped: the pool is full
    }
    uint index = u_firstSpawn + t;
    const float kPi = 3.14159265358979323846;
    float bornAgo = t < u_fromRate ? u_seconds * myriadParticleRandom(index, MYRIAD_RANDOM_BORN_AGO) : 0.0;
    // ParticleEmitter::spawnOne.
    float cosAngle = 1.0 - myriadParticleRandom(index, MYRIAD_RANDOM_CONE_COS) * u_oneMinusCosCone;
    float sinAngle = sqrt(max(0.0, 1.0 - cosAngle * cosAngle));
    float phi = 2.0 * kPi * myriadParticleRandom(index, MYRIAD_RANDOM_CONE_PHI);
    vec3 direction = u_axis * cosAngle + (u_axisU * cos(phi) + u_axisV * sin(phi)) * sinAngle;
    float speed = u_speedMin + (u_speedMax - u_speedMin) * myriadParticleRandom(index, MYRIAD_RANDOM_SPEED);
    float seed = myriadParticleRandom(index, MYRIAD_RANDOM_SEED);
    vec3 position = u_position + u_extent * vec3(2.0 * myriadParticleRandom(index, MYRIAD_RANDOM_BOX_X) - 1.0,
                                                 2.0 * myriadParticleRandom(index, MYRIAD_RANDOM_BOX_Y) - 1.0,
                                                 2.0 * myriadParticleRandom(index, MYRIAD_RANDOM_BOX_Z) - 1.0);
    vec3 velocity = direction * speed;
    float spin = 2.0 * kPi * myriadParticleRandom(index, MYRIAD_RANDOM_SPIN);
    position += velocity * bornAgo;
    float age = bornAgo / lifetimeOf(seed);
    // Curves apply from birth.
    vec3 color = u_colorKeyCount == 0 ? u_spawnColor.rgb : colorAt(age);
    float alpha = u_alphaKeyCount == 0 ? u_spawnColor.a : scalarAt(u_alphaKeys, u_alphaKeyCount, age);
    float size = u_sizeKeyCount == 0 ? u_spawnSize : scalarAt(u_sizeKeys, u_sizeKeyCount, age);
    uint dst = row;
    target[dst] = vec4(position, size);
    target[dst + u_capacity] = vec4(color, alpha);
    target[dst + 2u * u_capacity] = vec4(velocity, spin);
    target[dst + 3u * u_capacity] = vec4(age, seed, 0.0, u_spawnHeight);
}
#else
void main() {
    uint dstState = 1u - u_source;
    uint live = min(counters[MYRIAD_COUNTER_LIVE + dstState] + u_spawns, u_capacity);
    counters[MYRIAD_COUNTER_LIVE + dstState] = live;
    counters[MYRIAD_COUNTER_LIVE + u_source] = 0u;  // the next step appends into it
    counters[MYRIAD_COUNTER_DRAW_INSTANCES] = live;
    uint groups = (live + 255u) / 256u;
    uint x = min(groups, u_maxGroupsX);
    counters[MYRIAD_COUNTER_DISPATCH] = x;
    counters[MYRIAD_COUNTER_DISPATCH + 1u] = x == 0u ? 1u : (groups + x - 1u) / x;
    counters[MYRIAD_COUNTER_DISPATCH + 2u] = 1u;
}
#endif
