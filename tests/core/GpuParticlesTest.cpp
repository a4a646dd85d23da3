// GpuParticleSystem on the CPU (no GL): advance() records the steps and spawn numbers the CPU
// emitter would use, bad input is refused with the documented exception, and steps every
// renderer ran are dropped.
#include "myriad/core/GpuParticles.h"
#include "myriad/util/Error.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>

using namespace myriad;

TEST_CASE("GpuParticleSystem::advance spawns what ParticleEmitter::update spawns, step by step", "[particles][gpu]") {
    EmitterDesc desc;
    desc.rate = 37.5f;  // fractions carry over
    ParticlePool pool(64, ParticleMaterial::additive());
    ParticleEmitter emitter(desc, 4);
    GpuParticleSystem system(64, ParticleMaterial::additive(), desc, 4);
    const float steps[] = {0.016f, 0.02f, 0.0f, 0.1f, 0.033f, 1.0f};
    std::uint64_t before = 0;
    for (std::size_t i = 0; i < std::size(steps); ++i) {
        if (i == 2 || i == 4) {
            emitter.burst(5);
            system.burst(5);
        }
        emitter.update(pool, steps[i]);
        system.advance(steps[i]);
        const GpuParticleStep& step = system.pendingSteps().back();
        CHECK(step.firstSpawn == before);
        CHECK(step.spawns == emitter.spawned() - before);
        CHECK(step.fromRate == step.spawns - ((i == 2 || i == 4) ? 5u : 0u));
        CHECK(step.seconds == steps[i]);
        before = emitter.spawned();
    }
    CHECK(system.spawned() == emitter.spawned());
    CHECK(system.pendingSteps().size() == std::size(steps));  // no renderer has run any
    CHECK(system.firstPendingStep() == 0);
    CHECK(system.stepsRecorded() == std::size(steps));
    CHECK(system.pendingSteps()[5].time == Approx(0.169f));
}

TEST_CASE("GpuParticleSystem records the emitter's position per step", "[particles][gpu]") {
    GpuParticleSystem system(8, ParticleMaterial::additive(), EmitterDesc{});
    system.advance(0.1f);
    EmitterDesc moved = system.desc();
    moved.position = glm::vec3(1.0f, 2.0f, 3.0f);
    system.setDesc(moved);
    system.advance(0.1f);
    CHECK(system.pendingSteps()[0].position == glm::vec3(0.0f));
    CHECK(system.pendingSteps()[1].position == glm::vec3(1.0f, 2.0f, 3.0f));
}

TEST_CASE("GpuParticleSystem drops the steps every renderer that draws it has run", "[particles][gpu]") {
    GpuParticleSystem system(8, ParticleMaterial::additive(), EmitterDesc{});
    system.advance(0.1f);
    system.advance(0.1f);
    system.acknowledgeSteps(1, 2);  // renderer 1 ran both
    system.acknowledgeSteps(2, 1);  // renderer 2 only the first
    system.advance(0.1f);
    CHECK(system.firstPendingStep() == 1);
    CHECK(system.pendingSteps().size() == 2);
    system.forgetConsumer(2);  // renderer 2 no longer draws it
    system.acknowledgeSteps(1, 3);
    system.advance(0.1f);
    CHECK(system.firstPendingStep() == 3);
    CHECK(system.pendingSteps().size() == 1);
    CHECK(system.stepsRecorded() == 4);
}

TEST_CASE("GpuParticleSystem refuses bad input and changes nothing", "[particles][gpu]") {
    const auto material = ParticleMaterial::additive();
    CHECK_THROWS_AS(GpuParticleSystem(0, material, EmitterDesc{}), CapacityError);
    CHECK_THROWS_AS(GpuParticleSystem(GpuParticleSystem::maxCapacity + 1, material, EmitterDesc{}), CapacityError);
    EmitterDesc bad;
    bad.lifetimeMin = 0.0f;
    CHECK_THROWS_AS(GpuParticleSystem(8, material, bad), InvalidArgument);
    GpuParticleSystem system(8, material, EmitterDesc{});
    EmitterDesc curves;
    for (int i = 0; i <= static_cast<int>(GpuParticleSystem::maxCurveKeys); ++i) {
        curves.alphaOverLife.keys.push_back({static_cast<float>(i) / 10.0f, 1.0f});
    }
    CHECK_THROWS_AS(system.setDesc(curves), InvalidArgument);
    EmitterDesc nan;
    nan.gravity.y = std::numeric_limits<float>::quiet_NaN();
    CHECK_THROWS_AS(system.setDesc(nan), InvalidArgument);
    EmitterDesc flipbook;
    flipbook.frameRate = 10.0f;
    flipbook.frameCount = 0.0f;
    CHECK_THROWS_AS(system.setDesc(flipbook), InvalidArgument);
    CHECK(system.desc().alphaOverLife.empty());  // unchanged
    CHECK_THROWS_AS(system.advance(-1.0f), InvalidArgument);
    CHECK_THROWS_AS(system.advance(std::numeric_limits<float>::infinity()), InvalidArgument);
    CHECK(system.stepsRecorded() == 0);
    ParticleMaterial streak = ParticleMaterial::streak(-1.0f);
    CHECK_THROWS_AS(system.setMaterial(streak), InvalidArgument);
}
