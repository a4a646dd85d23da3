#pragma once
// Internal to myriad_core: the counter-based randomness every particle path shares. Each random
// value of the k-th particle an emitter ever spawns is a hash of (emitter seed, spawn index k,
// which value), never a draw from a sequence, so a GPU invocation can compute particle k's
// values on its own and a CPU ParticleEmitter and a GpuParticleSystem with the same seed spawn
// the same particles (docs/particles.md, "GPU path").
//
// Mirrored exactly in shaders/particle_sim.comp (myriadParticleHash, myriadParticleRandom): the
// same 32-bit integer operations, and the float is built from 24 bits, so both sides give the
// same value bit for bit. tests/gl/GpuParticlesGLTest.cpp compares the two paths.
#include <cstdint>

namespace myriad::detail {

/** Which of a particle's random values (the third input of particleRandom()). The numbers are
 *  part of the GLSL mirror: change both or neither. */
namespace ParticleRandomValue {
inline constexpr std::uint32_t ConeCos = 0;  ///< cos of the angle off the cone's axis
inline constexpr std::uint32_t ConePhi = 1;  ///< angle around the axis
inline constexpr std::uint32_t Speed = 2;    ///< initial speed in [speedMin, speedMax]
inline constexpr std::uint32_t Seed = 3;     ///< the particle's seed (lifetime, spin sign)
inline constexpr std::uint32_t BoxX = 4;     ///< spawn box x (BoxY, BoxZ follow)
inline constexpr std::uint32_t BoxY = 5;     ///< spawn box y
inline constexpr std::uint32_t BoxZ = 6;     ///< spawn box z
inline constexpr std::uint32_t Spin = 7;     ///< initial roll
inline constexpr std::uint32_t BornAgo = 8;  ///< share of the step a rate spawn is born before its end
} // namespace ParticleRandomValue

/** Mark Jarzynski and Marc Olano's PCG hash ("Hash Functions for GPU Rendering", JCGT 2020):
 *  one LCG step and a PCG output permutation; cheap and well mixed on 32 bits. */
[[nodiscard]] constexpr std::uint32_t particleHash(std::uint32_t value) noexcept {
    const std::uint32_t state = value * 747796405u + 2891336453u;
    const std::uint32_t word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}

/** Random value @p which of spawn @p index of an emitter seeded @p seed, in [0, 1): the hash's
 *  top 24 bits over 2^24, exact in a float (no rounding differs between CPU and GPU). */
[[nodiscard]] constexpr float particleRandom(std::uint32_t seed, std::uint32_t index, std::uint32_t which) noexcept {
    const std::uint32_t h = particleHash(particleHash(particleHash(seed) + index) + which);
    return static_cast<float>(h >> 8u) * (1.0f / 16777216.0f);
}

} // namespace myriad::detail
