#pragma once
/** @file
 *  A particle system simulated on the GPU (Godot's GPUParticles3D beside CPUParticles3D,
 *  Babylon's GPUParticleSystem): its particles live in the renderer's GPU buffers, spawned,
 *  moved, killed and (for alpha-blended materials) sorted by compute passes, drawn with an
 *  indirect draw whose count never comes back to the CPU. The node itself holds no particle:
 *  only the capacity, the material, the emitter description, the seed and the time steps the
 *  game has asked for since the renderer last ran them. docs/particles.md, "GPU path". */
#include "myriad/core/Particles.h"
#include "myriad/core/SceneNode.h"

#include <glm/vec3.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace myriad {

/** Air a GpuParticleSystem's particles are carried by: each step a particle's velocity moves
 *  toward the air's by the share 1 - exp(-response * dt). The air's velocity is
 *  @c velocity * (1 + gustStrength * sin(2 pi gustFrequency t + 0.37 x + 0.23 z)) at time t
 *  (seconds of steps so far) and world position (x, z): gusts that travel over the ground.
 *  Off by default (response 0): the CPU ParticleEmitter has no wind. */
struct GpuParticleWind {
    glm::vec3 velocity{0.0f};   ///< m/s, world space: the air's mean velocity
    float response = 0.0f;      ///< 1/s: how fast a particle takes the air's velocity (0: no wind)
    float gustStrength = 0.0f;  ///< share of velocity the gusts add and take away (0..1 sensible)
    float gustFrequency = 0.5f; ///< Hz: how often a gust passes a point
};

/** A horizontal ground plane particles bounce on: a particle that ends a step below @c height
 *  (world y, metres) is put on it; its downward velocity is reflected and scaled by
 *  @c restitution, its horizontal velocity scaled by 1 - friction. A particle resting on the
 *  plane (gravity pulls it under every step) is in contact every step, so friction acts every
 *  step then: sliding stops. Off by default. */
struct GpuParticleGround {
    bool enabled = false;      ///< off: particles fall through
    float height = 0.0f;       ///< world y of the plane, metres
    float restitution = 0.3f;  ///< share of the downward speed kept, upward, after a bounce (0..1)
    float friction = 0.2f;     ///< share of the horizontal speed lost per step in contact (0..1)
};

/** One time step recorded by GpuParticleSystem::advance(), run on the GPU by each renderer that
 *  draws the system: integrate every live particle by @c seconds, then spawn particles
 *  [firstSpawn, firstSpawn + spawns), the first @c fromRate of them from the rate (born
 *  part-way through the step), the rest from bursts (born at its end). */
struct GpuParticleStep {
    float seconds = 0.0f;         ///< the step's length, seconds (>= 0)
    std::uint32_t firstSpawn = 0; ///< spawn index of the step's first spawn (wraps after 2^32)
    std::uint32_t fromRate = 0;   ///< spawns from the rate
    std::uint32_t spawns = 0;     ///< spawns in all (rate + bursts); those past capacity are dropped
    glm::vec3 position{0.0f};     ///< EmitterDesc::position when the step was recorded (world)
    float time = 0.0f;            ///< seconds of steps before this one (the wind's gusts)
};

/** A particle system whose particles live on the GPU: one node, one set of buffers per renderer
 *  that draws it, spawn, integrate, kill and sort in compute passes, one indirect draw.
 *
 *  Simulation: the same formulas as ParticleEmitter (docs/particles.md "CPU simulation"):
 *  lifetime from the seed, gravity, drag, spin, flipbook, colour/alpha/size curves over life,
 *  and the same counter-based randomness, so with the same EmitterDesc, seed and steps the two
 *  spawn the same particles and agree on them within float rounding (the GPU keeps them in
 *  another order). On top: a wind field and a ground plane (off by default). advance() only
 *  records the step and how many particles it spawns (rate carry and bursts, computed as the
 *  CPU emitter computes them); the next render() runs every recorded step on the GPU, in
 *  order, before drawing. Live particles are never counted on the CPU: count() does not exist;
 *  gl::Renderer::readGpuParticles() reads them back for tests and tools.
 *
 *  Drawing: as a ParticlePool with the same material (ParticleMaterial), after the view's
 *  blended meshes and CPU pools, depth-tested without writing depth; alpha-blended materials
 *  are sorted back to front per view on the GPU (a bitonic sort), additive ones never.
 *  Positions are world space (the node's transform does not move particles); the node's
 *  visibility, tint and layer mask apply; it is not frustum-culled.
 *
 *  Steps are kept until every renderer that draws the system has run them (each renderer
 *  acknowledges its own; a system no renderer draws keeps every step, 32 bytes each): call
 *  advance() and render() in step. A renderer that first draws the system starts from an empty
 *  system and runs the steps still kept.
 *  Ownership: a value type's copies of material and desc. Thread safety: as SceneNode. */
class GpuParticleSystem : public SceneNode {
public:
    /** The most particles one system may hold (as ParticlePool::maxCapacity); the renderer
     *  refuses less where the GL limits are lower (CapacityError at render()). */
    static constexpr std::size_t maxCapacity = ParticlePool::maxCapacity;
    /** Keys a curve over life may have on the GPU (EmitterDesc::colorOverLife, alphaOverLife,
     *  sizeOverLife). */
    static constexpr std::size_t maxCurveKeys = 8;

    /** A system of at most @p capacity live particles.
     *  @throws CapacityError if capacity is 0 or above maxCapacity; InvalidArgument as
     *  setMaterial() and setDesc(). */
    GpuParticleSystem(std::size_t capacity, ParticleMaterial material, EmitterDesc desc, std::uint32_t seed = 1,
                      std::string name = {});

    /** The most particles alive at once, fixed at construction. */
    [[nodiscard]] std::size_t capacity() const noexcept { return m_capacity; }
    /** The seed every random value is hashed with (fixed at construction). */
    [[nodiscard]] std::uint32_t seed() const noexcept { return m_seed; }
    /** The system's own copy of its material. */
    [[nodiscard]] const ParticleMaterial& material() const noexcept { return m_material; }
    /** @throws InvalidArgument as ParticlePool::setMaterial(); nothing changes then. */
    void setMaterial(ParticleMaterial material);
    /** The emitter description; the steps a render() runs use the one current then, except
     *  the position, recorded per step. */
    [[nodiscard]] const EmitterDesc& desc() const noexcept { return m_desc; }
    /** @throws InvalidArgument as ParticleEmitter's constructor, or if a curve has more than
     *  maxCurveKeys keys or frameCount is below 1 while frameRate is above 0; nothing changes
     *  then. */
    void setDesc(EmitterDesc desc);

    /** Wind (off by default). Applied by the steps of the next render(). */
    GpuParticleWind wind;
    /** Ground plane (off by default). Applied by the steps of the next render(). */
    GpuParticleGround ground;

    /** Spawns @p count particles at the next advance() (on top of the rate). */
    void burst(std::size_t count) noexcept { m_pendingBurst += count; }
    /** Records a step of @p seconds (>= 0): the rate's share of it (fractions carry over, in
     *  double, as ParticleEmitter) plus pending bursts, numbered from spawned(). Touches no GL;
     *  the next render() runs it.
     *  @throws InvalidArgument if seconds is negative or not finite (nothing recorded). */
    void advance(float seconds);
    /** Spawns recorded so far (dropped ones included): the spawn index of the next particle. */
    [[nodiscard]] std::uint64_t spawned() const noexcept { return m_spawned; }

    /** Steps recorded and not yet run by every renderer drawing the system, oldest first:
     *  step firstPendingStep() + i is element i. */
    [[nodiscard]] std::span<const GpuParticleStep> pendingSteps() const noexcept { return m_steps; }
    /** The serial number of pendingSteps()[0] (steps are numbered from 0 by advance()). */
    [[nodiscard]] std::uint64_t firstPendingStep() const noexcept { return m_firstStep; }
    /** Steps recorded since construction: the serial number the next advance() gets. */
    [[nodiscard]] std::uint64_t stepsRecorded() const noexcept { return m_firstStep + m_steps.size(); }
    /** For renderers: @p consumer (a renderer's id) has run every step before @p next; steps
     *  every consumer has run are dropped at the next advance(). Const: bookkeeping of the
     *  renderers, not the system's state (as a stream's change log cursors). */
    void acknowledgeSteps(std::uint64_t consumer, std::uint64_t next) const;
    /** For renderers: @p consumer no longer draws the system; its acknowledgement is forgotten. */
    void forgetConsumer(std::uint64_t consumer) const noexcept;

private:
    std::size_t m_capacity = 0;
    std::uint32_t m_seed = 1;
    ParticleMaterial m_material;
    EmitterDesc m_desc;
    double m_carry = 0.0;
    double m_time = 0.0;
    std::size_t m_pendingBurst = 0;
    std::uint64_t m_spawned = 0;
    std::vector<GpuParticleStep> m_steps;
    std::uint64_t m_firstStep = 0;
    mutable std::unordered_map<std::uint64_t, std::uint64_t> m_acknowledged;  // consumer -> next step
};

} // namespace myriad
