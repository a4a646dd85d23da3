#pragma once
// Internal to myriad: what the CPU particle path (ParticlePool, ParticleEmitter) and the GPU
// path (GpuParticleSystem, renderer/GpuParticlePass) must agree on, written once: the checks of
// an emitter description and a particle material, and the basis of the emitter's velocity cone
// (shaders/particle_sim.comp receives the same basis as uniforms).
#include "myriad/core/Particles.h"

#include <glm/vec3.hpp>

namespace myriad::detail {

/** Checks @p desc as ParticleEmitter and GpuParticleSystem take it. @p function names the
 *  caller in the message. @throws InvalidArgument if a value is not finite, a lifetime is not
 *  positive or min > max, the rate, size or height is negative, or frameCount < 1 with a
 *  frame rate. */
void checkEmitterDesc(const EmitterDesc& desc, const char* function);

/** Checks @p material as ParticlePool and GpuParticleSystem take it. @throws InvalidArgument if
 *  the atlas grid has a side of 0 cells or streakSeconds is negative or not finite. */
void checkParticleMaterial(const ParticleMaterial& material, const char* function);

/** The unit axis of an emitter's velocity cone and two unit vectors across it (u, v; axis, u,
 *  v right-handed): a direction at angle a off the axis and phi around it is
 *  axis cos a + (u cos phi + v sin phi) sin a. A zero direction means +Y. */
struct ConeBasis {
    glm::vec3 axis;  ///< unit
    glm::vec3 u;     ///< unit, across the axis
    glm::vec3 v;     ///< unit, axis x u
};
[[nodiscard]] ConeBasis coneBasis(const glm::vec3& direction) noexcept;

} // namespace myriad::detail
