// ParticlePool and ParticleEmitter on the CPU: spawn, swap-remove kill, refusals that change
// nothing, change tracking, an emitter's lifetimes, gravity and curves, its neutral defaults and
// the embers, smoke and sparks presets.
#include "myriad/core/Particles.h"
#include "myriad/core/Scatter.h"
#include "myriad/core/Shapes.h"
#include "myriad/util/Error.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

using namespace myriad;

namespace {
Particle withX(float x) {
    Particle p;
    p.position = {x, 0.0f, 0.0f};
    return p;
}
} // namespace

TEST_CASE("ParticlePool spawns, kills by swap-remove and refuses bad input", "[particles]") {
    ParticlePool pool(3, ParticleMaterial::billboard(), "pool");
    CHECK(pool.spawn(withX(0)) == 0);
    CHECK(pool.spawn(withX(1)) == 1);
    CHECK(pool.spawn(withX(2)) == 2);
    CHECK_THROWS_AS(pool.spawn(withX(3)), CapacityError);
    CHECK(pool.count() == 3);

    pool.kill(0);  // the last moves into the hole
    REQUIRE(pool.count() == 2);
    CHECK(pool.particle(0).position.x == 2.0f);
    CHECK(pool.particle(1).position.x == 1.0f);
    CHECK_THROWS_AS(pool.kill(2), OutOfRange);

    Particle bad = withX(std::numeric_limits<float>::quiet_NaN());
    CHECK_THROWS_AS(pool.spawn(bad), InvalidArgument);
    Particle negative = withX(0);
    negative.size = -1.0f;
    CHECK_THROWS_AS(pool.setParticle(0, negative), InvalidArgument);
    CHECK(pool.count() == 2);
    CHECK(pool.particle(0).position.x == 2.0f);
    CHECK_THROWS_AS(ParticlePool(ParticlePool::maxCapacity + 1, ParticleMaterial::billboard()), CapacityError);
}

TEST_CASE("ParticlePool logs what changed in every stream", "[particles]") {
    ParticlePool pool(100, ParticleMaterial::additive());
    for (int i = 0; i < 50; ++i) {
        pool.spawn(withX(static_cast<float>(i)));
    }
    for (const InstanceStream& stream : pool.streams()) {
        REQUIRE(stream.changes().pendingRanges().size() == 1);
        CHECK(stream.changes().pendingRanges()[0] == IndexRange{0, 50});
    }
    const std::uint64_t before = pool.streams()[ParticleStreamId::ColorAlpha].version();
    pool.rows(ParticleStreamId::PositionSize)[7].x = 70.0f;
    pool.markStreamChanged(ParticleStreamId::PositionSize, 7, 1);
    CHECK(pool.streams()[ParticleStreamId::ColorAlpha].version() == before);  // others untouched
    CHECK(pool.particle(7).position.x == 70.0f);
    CHECK_THROWS_AS(pool.markChanged(90, 20), OutOfRange);
    CHECK_FALSE(ParticleMaterial::additive().sorted());
    CHECK(ParticleMaterial::billboard().sorted());
}

TEST_CASE("ParticleEmitter spawns at its rate, falls under gravity, applies curves and kills at end of life",
          "[particles]") {
    ParticlePool pool(1000, ParticleMaterial::billboard());
    EmitterDesc desc;
    desc.rate = 100.0f;
    desc.lifetimeMin = desc.lifetimeMax = 0.5f;
    desc.speedMin = desc.speedMax = 0.0f;
    desc.gravity = {0.0f, -10.0f, 0.0f};
    desc.alphaOverLife.keys = {{0.0f, 1.0f}, {1.0f, 0.0f}};
    ParticleEmitter emitter(desc, 7);
    emitter.update(pool, 0.1f);
    CHECK(pool.count() == 10);
    emitter.burst(5);
    emitter.update(pool, 0.1f);
    CHECK(pool.count() == 25);
    for (std::size_t i = 0; i < pool.count(); ++i) {
        const Particle p = pool.particle(i);
        CHECK(p.age >= 0.0f);
        CHECK(p.age < 1.0f);
        CHECK(p.alpha == Approx(1.0f - p.age).margin(1e-4));
        CHECK(p.position.y <= 0.0f);
    }
    // Nothing outlives 0.5 s: after 0.45 s more, only particles born in that time remain.
    for (int step = 0; step < 9; ++step) {
        emitter.update(pool, 0.05f);
    }
    CHECK(pool.count() <= 60);
    CHECK(pool.count() >= 40);
    CHECK_THROWS_AS(emitter.update(pool, -1.0f), InvalidArgument);
    desc.lifetimeMin = 0.0f;
    CHECK_THROWS_AS(ParticleEmitter(desc), InvalidArgument);
}

TEST_CASE("ScatterNode stores 32 bytes per plant and refuses bad input", "[scatter]") {
    auto mesh = MeshGeometry::create(shapes::quad(0.1f, 1.0f), "blade");
    ScatterNode field(mesh, Material{}, 2, "grass");
    CHECK(field.stream().desc().floatsPerInstance * sizeof(float) == ScatterNode::bytesPerInstance);
    field.add({{1.0f, 0.0f, 2.0f}, 0.5f, 2.0f, 0.3f, -0.2f, 0.9f});
    CHECK(field.at(0).position.z == 2.0f);
    CHECK(field.at(0).scale == 2.0f);
    ScatterInstance zero;
    zero.scale = 0.0f;
    CHECK_THROWS_AS(field.add(zero), InvalidArgument);
    CHECK(field.count() == 1);
    Material blended;
    blended.alphaMode = AlphaMode::Blend;
    CHECK_THROWS_AS(ScatterNode(mesh, blended, 1), InvalidArgument);
}

namespace {
/** Runs @p desc for @p seconds in 1/30 s steps into a pool large enough for all of it, and
 *  returns the live particles. */
std::vector<Particle> simulate(const EmitterDesc& desc, float seconds, std::uint32_t seed = 3) {
    ParticlePool pool(20000, ParticleMaterial::additive());
    ParticleEmitter emitter(desc, seed);
    for (int step = 0; step < static_cast<int>(seconds * 30.0f); ++step) {
        emitter.update(pool, 1.0f / 30.0f);
    }
    REQUIRE(emitter.dropped() == 0);
    std::vector<Particle> live;
    for (std::size_t i = 0; i < pool.count(); ++i) {
        live.push_back(pool.particle(i));
    }
    return live;
}
float lifetimeOf(const EmitterDesc& desc, const Particle& p) {
    return desc.lifetimeMin + (desc.lifetimeMax - desc.lifetimeMin) * p.seed;
}
} // namespace

TEST_CASE("EmitterDesc defaults are neutral: straight lines at the spawn speed, nothing over life",
          "[particles]") {
    const EmitterDesc desc;
    CHECK(desc.gravity == glm::vec3(0.0f));  // no falling default for rising effects to undo
    CHECK(desc.drag == 0.0f);
    CHECK(desc.colorOverLife.empty());
    CHECK(desc.alphaOverLife.empty());
    CHECK(desc.sizeOverLife.empty());
    const std::vector<Particle> particles = simulate(desc, 0.9f);
    REQUIRE_FALSE(particles.empty());
    for (const Particle& p : particles) {
        CHECK(glm::length(p.velocity) == Approx(1.0f));  // speedMin = speedMax = 1, unchanged
        CHECK(p.velocity.y > 0.9f);                      // still rising: cos(0.3) = 0.955
        CHECK(p.color == glm::vec3(1.0f));
        CHECK(p.alpha == 1.0f);
        CHECK(p.size == 0.1f);
    }
}

TEST_CASE("EmitterDesc::embers() rises, cools from yellow-white to red and fades out", "[particles]") {
    const EmitterDesc desc = EmitterDesc::embers();
    REQUIRE_NOTHROW(ParticleEmitter(desc));
    const std::vector<Particle> particles = simulate(desc, 3.0f);
    REQUIRE(particles.size() > 200);
    std::size_t young = 0, old = 0;
    for (const Particle& p : particles) {
        CHECK(p.velocity.y > 0.0f);  // buoyant: never falls
        CHECK(p.position.y >= -0.05f);
        CHECK(p.size == 0.02f);
        if (p.age < 0.1f) {
            ++young;
            CHECK(p.color.r > 3.0f);  // yellow-white, brighter than 1: additive glow
            CHECK(p.color.g > 1.5f);
            CHECK(p.alpha > 0.9f);
        } else if (p.age > 0.95f) {
            ++old;
            CHECK(p.color.r < 1.0f);  // dull red
            CHECK(p.color.g < 0.2f * p.color.r + 0.05f);
            CHECK(p.alpha < 0.15f);  // fading out
        }
        if (p.age > 0.9f) {
            CHECK(p.position.y > 0.5f);  // risen well above the source
        }
    }
    CHECK(young > 0);
    CHECK(old > 0);
}

TEST_CASE("EmitterDesc::smoke() rises slowly, grows and fades in then out", "[particles]") {
    const EmitterDesc desc = EmitterDesc::smoke();
    REQUIRE_NOTHROW(ParticleEmitter(desc));
    const std::vector<Particle> particles = simulate(desc, 8.0f);
    REQUIRE(particles.size() > 100);
    bool sawYoung = false, sawMiddle = false, sawOld = false;
    for (const Particle& p : particles) {
        CHECK(p.velocity.y > 0.0f);
        CHECK(glm::length(p.velocity) < 1.5f);  // slow
        if (p.age < 0.03f) {
            sawYoung = true;
            CHECK(p.alpha < 0.15f);  // fading in
            CHECK(p.size < 0.35f);
        } else if (p.age > 0.12f && p.age < 0.2f) {
            sawMiddle = true;
            CHECK(p.alpha > 0.45f);
        } else if (p.age > 0.9f) {
            sawOld = true;
            CHECK(p.alpha < 0.1f);  // fading out
            CHECK(p.size > 1.4f);   // grown
            CHECK(p.position.y > 2.0f);
        }
    }
    CHECK(sawYoung);
    CHECK(sawMiddle);
    CHECK(sawOld);
}

TEST_CASE("EmitterDesc::sparks() are thrown up and fall back under gravity", "[particles]") {
    const EmitterDesc desc = EmitterDesc::sparks();
    REQUIRE_NOTHROW(ParticleEmitter(desc));
    const std::vector<Particle> particles = simulate(desc, 2.0f);
    REQUIRE(particles.size() > 100);
    std::size_t falling = 0;
    for (const Particle& p : particles) {
        if (p.age * lifetimeOf(desc, p) > 0.5f) {
            CHECK(p.velocity.y < 0.0f);  // older than 0.5 s: falling
            ++falling;
        }
        if (p.age > 0.97f) {
            CHECK(p.alpha < 0.1f);
        }
    }
    CHECK(falling > 0);
}

TEST_CASE("ParticlePool::setCurves refuses streaks and bad keys, changing nothing", "[particles][curves]") {
    ParticlePool pool(8, ParticleMaterial::billboard(), "pool");
    CHECK(pool.curves() == nullptr);
    CHECK(pool.uploadBytesPerParticle() == 64);
    CHECK(pool.uploadMode() == UploadMode::Automatic);
    ParticleCurves bad;
    bad.alphaOverLife.keys = {{0.5f, 1.0f}, {0.2f, 0.0f}};  // out of order
    CHECK_THROWS_AS(pool.setCurves(bad), InvalidArgument);
    bad.alphaOverLife.keys = {{0.0f, 1.0f}, {1.5f, 0.0f}};  // past the end of life
    CHECK_THROWS_AS(pool.setCurves(bad), InvalidArgument);
    bad.alphaOverLife.keys = {{0.0f, -1.0f}};  // negative opacity
    CHECK_THROWS_AS(pool.setCurves(bad), InvalidArgument);
    bad.alphaOverLife.keys.clear();
    bad.colorOverLife.keys = {{0.0f, glm::vec3(std::numeric_limits<float>::quiet_NaN())}};
    CHECK_THROWS_AS(pool.setCurves(bad), InvalidArgument);
    CHECK(pool.curves() == nullptr);
    CHECK(pool.curvesVersion() == 0);

    const std::uint64_t version = pool.curvesVersion();
    pool.setCurves(ParticleCurves::from(EmitterDesc::smoke()));
    REQUIRE(pool.curves() != nullptr);
    CHECK(pool.curvesVersion() == version + 1);
    CHECK(pool.uploadBytesPerParticle() == 32);
    CHECK(pool.curves()->sizeOverLife.keys.size() == 2);
    // A streak needs the velocity a compact upload does not send, either way round.
    CHECK_THROWS_AS(pool.setMaterial(ParticleMaterial::streak(0.1f)), InvalidArgument);
    CHECK(pool.material().shape == ParticleShape::Billboard);
    pool.clearCurves();
    CHECK(pool.curves() == nullptr);
    CHECK(pool.curvesVersion() == version + 2);
    pool.setMaterial(ParticleMaterial::streak(0.1f));
    CHECK_THROWS_AS(pool.setCurves(ParticleCurves{}), InvalidArgument);
    CHECK(pool.curves() == nullptr);
}

TEST_CASE("an emitter over a pool with curves leaves colour to the GPU and marks three streams", "[particles][curves]") {
    EmitterDesc desc = EmitterDesc::embers();
    ParticlePool pool(4096, ParticleMaterial::additive());
    ParticlePool reference(4096, ParticleMaterial::additive());
    pool.setCurves(ParticleCurves::from(desc));
    ParticleEmitter emitter(desc, 3);
    ParticleEmitter referenceEmitter(desc, 3);
    emitter.update(pool, 0.1f);
    referenceEmitter.update(reference, 0.1f);
    // No spawns this step (a spawn writes all four streams of its row): only motion.
    emitter.desc().rate = 0.0f;
    referenceEmitter.desc().rate = 0.0f;
    const std::uint64_t colorVersion = pool.streams()[ParticleStreamId::ColorAlpha].version();
    const std::uint64_t positionVersion = pool.streams()[ParticleStreamId::PositionSize].version();
    emitter.update(pool, 0.5f);
    referenceEmitter.update(reference, 0.5f);
    REQUIRE(pool.count() == reference.count());
    REQUIRE(pool.count() > 10);
    CHECK(pool.streams()[ParticleStreamId::ColorAlpha].version() == colorVersion);
    CHECK(pool.streams()[ParticleStreamId::PositionSize].version() > positionVersion);
    for (std::size_t i = 0; i < pool.count(); ++i) {
        const Particle p = pool.particle(i);
        const Particle r = reference.particle(i);
        REQUIRE(p.position == r.position);  // the same motion
        REQUIRE(p.age == r.age);
        CHECK(p.color == desc.color);       // as spawned: the curve is the GPU's to apply
        CHECK(p.size == desc.size);
        CHECK(r.color == desc.colorOverLife.at(r.age));
    }
}
