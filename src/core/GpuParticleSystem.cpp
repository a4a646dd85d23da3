#include "myriad/core/GpuParticles.h"

#include "core/ParticleRules.h"
#include "core/Validate.h"
#include "myriad/util/Error.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace myriad {

GpuParticleSystem::GpuParticleSystem(std::size_t capacity, ParticleMaterial material, EmitterDesc desc,
                                     std::uint32_t seed, std::string name)
    : SceneNode(std::move(name), NodeKind::GpuParticles), m_seed(seed) {
    if (capacity == 0 || capacity > maxCapacity) {
        throw CapacityError("GpuParticleSystem: capacity " + std::to_string(capacity) + " is 0 or above maxCapacity " +
                            std::to_string(maxCapacity));
    }
    setMaterial(std::move(material));
    setDesc(std::move(desc));
    m_capacity = capacity;
}

void GpuParticleSystem::setMaterial(ParticleMaterial material) {
    detail::checkParticleMaterial(material, "GpuParticleSystem::setMaterial");  // as ParticlePool's: the draw is the same
    m_material = std::move(material);
}

void GpuParticleSystem::setDesc(EmitterDesc desc) {
    // ParticleEmitter's checks, plus the GPU's limit on curve keys.
    const char* function = "GpuParticleSystem::setDesc";
    const EmitterDesc& d = desc;
    detail::checkEmitterDesc(d, function);
    const std::size_t keys[] = {d.colorOverLife.keys.size(), d.alphaOverLife.keys.size(), d.sizeOverLife.keys.size()};
    if (std::ranges::max(keys) > maxCurveKeys) {
        throw InvalidArgument(std::string(function) + ": a curve over life has more than " +
                              std::to_string(maxCurveKeys) + " keys (the GPU's limit)");
    }
    m_desc = std::move(desc);
}

void GpuParticleSystem::advance(float seconds) {
    if (!std::isfinite(seconds) || seconds < 0.0f) {
        throw InvalidArgument("GpuParticleSystem::advance: seconds must be finite and >= 0");
    }
    // Steps every renderer drawing the system has run are dropped first.
    if (!m_acknowledged.empty()) {
        std::uint64_t done = std::numeric_limits<std::uint64_t>::max();
        for (const auto& [consumer, next] : m_acknowledged) {
            done = std::min(done, next);
        }
        if (done > m_firstStep) {
            const auto drop = static_cast<std::size_t>(std::min<std::uint64_t>(done - m_firstStep, m_steps.size()));
            m_steps.erase(m_steps.begin(), m_steps.begin() + static_cast<std::ptrdiff_t>(drop));
            m_firstStep += drop;
        }
    }
    // As ParticleEmitter::update: the rate's share of the step in double, then the bursts.
    m_carry += static_cast<double>(m_desc.rate) * seconds;
    const auto fromRate = static_cast<std::size_t>(m_carry);
    m_carry -= static_cast<double>(fromRate);
    const std::size_t spawns = fromRate + m_pendingBurst;
    m_pendingBurst = 0;
    GpuParticleStep step;
    step.seconds = seconds;
    step.firstSpawn = static_cast<std::uint32_t>(m_spawned);
    // A step spawns at most capacity particles that live (the rest are dropped): counts past
    // 2^32 are clamped, every one of them would be dropped anyway.
    step.fromRate = static_cast<std::uint32_t>(std::min<std::size_t>(fromRate, std::numeric_limits<std::uint32_t>::max()));
    step.spawns = static_cast<std::uint32_t>(std::min<std::size_t>(spawns, std::numeric_limits<std::uint32_t>::max()));
    step.position = m_desc.position;
    step.time = static_cast<float>(m_time);
    m_steps.push_back(step);
    m_spawned += spawns;
    m_time += seconds;
}

void GpuParticleSystem::acknowledgeSteps(std::uint64_t consumer, std::uint64_t next) const {
    m_acknowledged[consumer] = next;
}

void GpuParticleSystem::forgetConsumer(std::uint64_t consumer) const noexcept { m_acknowledged.erase(consumer); }

} // namespace myriad
