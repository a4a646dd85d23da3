// GPU particle systems (GpuParticles.h, docs/particles.md "GPU path") against the CPU path they
// mirror: the same EmitterDesc, seed and fixed steps give the same particles (read back, matched
// by seed: the GPU compacts survivors in any order) and the same pixels; a sorted alpha
// system's GPU order is back to front; spawns past the capacity are dropped as on the CPU; a
// steady frame reads nothing back; wind and the ground plane move particles as documented.
#include "support/EveryFeatureScene.h"
#include "support/GlTest.h"

#include "renderer/GlLimits.h"
#include "myriad/core/GpuParticles.h"
#include "myriad/core/Particles.h"
#include "myriad/core/Scene.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/Renderer.h"
#include "myriad/util/Error.h"

#include <glm/geometric.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

using namespace myriad;
using namespace myriad::test;

namespace {

constexpr std::uint32_t kSize = 64;  // pixels: the camera shows 4 x 4 metres, 16 px a metre
constexpr float kStep = 1.0f / 60.0f;

Camera frontCamera() {
    Camera camera;
    camera.setOrthographic(-2.0f, 2.0f, -2.0f, 2.0f, 0.1f, 40.0f);
    camera.lookAt(glm::vec3(0.0f, 0.0f, 10.0f), glm::vec3(0.0f));
    return camera;
}

/** Gravity, drag, spin, a rate and bursts, a spawn box, a cone, curves and a flipbook: every
 *  term the two paths share. Lives of 0.2 to 0.4 s, so 30 steps see many die. */
EmitterDesc testEmitter() {
    EmitterDesc d;
    d.position = glm::vec3(0.0f, -1.0f, 0.0f);
    d.spawnExtent = glm::vec3(0.5f, 0.1f, 0.5f);
    d.rate = 600.0f;
    d.lifetimeMin = 0.2f;
    d.lifetimeMax = 0.4f;
    d.direction = glm::vec3(0.2f, 1.0f, 0.1f);
    d.coneAngle = 0.5f;
    d.speedMin = 2.0f;
    d.speedMax = 4.0f;
    d.gravity = glm::vec3(0.5f, -9.81f, 0.0f);
    d.drag = 0.7f;
    d.spinSpeed = 2.0f;
    d.frameRate = 10.0f;
    d.frameCount = 4.0f;
    d.size = 0.08f;
    d.colorOverLife.keys = {{0.0f, glm::vec3(1.0f, 0.8f, 0.2f)}, {1.0f, glm::vec3(0.6f, 0.1f, 0.05f)}};
    d.alphaOverLife.keys = {{0.0f, 1.0f}, {0.5f, 0.9f}, {1.0f, 0.0f}};
    d.sizeOverLife.keys = {{0.0f, 0.05f}, {1.0f, 0.12f}};
    return d;
}

/** The CPU pool's live particles. */
std::vector<Particle> cpuParticles(const ParticlePool& pool) {
    std::vector<Particle> out;
    for (std::size_t i = 0; i < pool.count(); ++i) {
        out.push_back(pool.particle(i));
    }
    return out;
}

std::map<float, Particle> bySeed(const std::vector<Particle>& particles) {
    std::map<float, Particle> map;
    for (const Particle& p : particles) {
        map.emplace(p.seed, p);
    }
    return map;
}

float maxDifference(const Image& a, const Image& b) {
    int most = 0;
    for (std::size_t i = 0; i < a.pixels.size(); ++i) {
        most = std::max(most, std::abs(static_cast<int>(a.pixels[i]) - static_cast<int>(b.pixels[i])));
    }
    return static_cast<float>(most);
}

std::size_t litPixels(const Image& image) {
    std::size_t lit = 0;
    for (std::uint32_t y = 0; y < image.height; ++y) {
        for (std::uint32_t x = 0; x < image.width; ++x) {
            lit += pixelAt(image, x, y)[0] > 40 ? 1 : 0;
        }
    }
    return lit;
}

} // namespace

TEST_CASE("GPU and CPU particles with the same seed, emitter and steps agree after 30 steps", "[particles][gpu]") {
    INFO("GL: " << context().description());
    const EmitterDesc desc = testEmitter();
    constexpr std::uint32_t kSeed = 7;
    ParticlePool pool(4096, ParticleMaterial::additive());
    ParticleEmitter emitter(desc, kSeed);
    Scene scene;
    auto& system = scene.root().emplace<GpuParticleSystem>(4096, ParticleMaterial::additive(), desc, kSeed, "sparks");
    gl::Renderer renderer;
    gl::OffscreenTarget target(kSize, kSize);
    const Camera camera = frontCamera();
    for (int step = 0; step < 30; ++step) {
        if (step == 0 || step == 17) {
            emitter.burst(40);
            system.burst(40);
        }
        emitter.update(pool, kStep);
        system.advance(kStep);
        // Steps reach the GPU in batches of different sizes: 1, then 4, then the rest.
        if (step == 0 || step == 4 || step == 29) {
            renderer.render(scene, camera, target);
        }
    }
    CHECK(system.spawned() == emitter.spawned());
    CHECK(renderer.lastFrameStats().gpuParticleSteps == 25);
    const std::vector<Particle> cpu = cpuParticles(pool);
    const std::optional<std::vector<Particle>> gpu = renderer.readGpuParticles(system);
    REQUIRE(gpu.has_value());
    REQUIRE(cpu.size() > 50);              // a rate, bursts and deaths: a real population
    REQUIRE(emitter.spawned() > cpu.size() + 50);  // many have died
    REQUIRE(gpu->size() == cpu.size());
    const std::map<float, Particle> cpuBySeed = bySeed(cpu);
    REQUIRE(cpuBySeed.size() == cpu.size());  // seeds tell particles apart (24 random bits each)
    float worstPosition = 0.0f;
    for (const Particle& g : *gpu) {
        const auto found = cpuBySeed.find(g.seed);
        REQUIRE(found != cpuBySeed.end());
        const Particle& c = found->second;
        worstPosition = std::max(worstPosition, glm::length(g.position - c.position));
        INFO("seed " << g.seed << " gpu (" << g.position.x << ", " << g.position.y << ", " << g.position.z << ") cpu ("
                     << c.position.x << ", " << c.position.y << ", " << c.position.z << ")");
        CHECK(glm::length(g.position - c.position) < 1e-3f);
        CHECK(glm::length(g.velocity - c.velocity) < 1e-3f);
        CHECK(std::abs(g.age - c.age) < 1e-4f);
        CHECK(std::abs(g.spin - c.spin) < 1e-3f);
        CHECK(std::abs(g.frame - c.frame) < 1e-3f);
        CHECK(std::abs(g.size - c.size) < 1e-4f);
        CHECK(std::abs(g.alpha - c.alpha) < 1e-4f);
        CHECK(glm::length(g.color - c.color) < 1e-4f);
        CHECK(g.height == c.height);
    }
    WARN("largest position difference " << worstPosition << " m over " << gpu->size() << " particles");
}

TEST_CASE("a GPU system draws the pixels a CPU pool with the same seed and steps draws", "[particles][gpu]") {
    INFO("GL: " << context().description());
    EmitterDesc desc = testEmitter();
    desc.position = glm::vec3(0.0f, -1.5f, 0.0f);
    desc.rate = 200.0f;
    ParticleMaterial material = ParticleMaterial::additive();
    material.round = true;
    Scene cpuScene;
    auto& pool = cpuScene.root().emplace<ParticlePool>(2048, material, "cpu");
    ParticleEmitter emitter(desc, 11);
    Scene gpuScene;
    auto& system = gpuScene.root().emplace<GpuParticleSystem>(2048, material, desc, 11, "gpu");
    emitter.burst(30);
    system.burst(30);
    for (int step = 0; step < 20; ++step) {
        emitter.update(pool, kStep);
        system.advance(kStep);
    }
    gl::Renderer renderer;
    gl::OffscreenTarget cpuTarget(kSize, kSize);
    gl::OffscreenTarget gpuTarget(kSize, kSize);
    renderer.render(cpuScene, frontCamera(), cpuTarget);
    // A compact pool (two planes and curves) drawn first leaves its program, the one the GPU
    // system draws with, set for two planes: the system's draw must say four.
    Scene compactScene;
    auto& compact = compactScene.root().emplace<ParticlePool>(2048, material, "compact");
    compact.setCurves(ParticleCurves::from(desc));
    ParticleEmitter compactEmitter(desc, 11);
    compactEmitter.update(compact, kStep);
    renderer.render(compactScene, frontCamera(), gpuTarget);
    renderer.render(gpuScene, frontCamera(), gpuTarget);
    const Image cpu = cpuTarget.readPixels();
    const Image gpu = gpuTarget.readPixels();
    CHECK(litPixels(cpu) > 40);
    CHECK(litPixels(gpu) == litPixels(cpu));
    WARN("largest channel difference " << maxDifference(cpu, gpu));
    CHECK(maxDifference(cpu, gpu) <= 2.0f);  // float rounding of positions and additive sums
    CHECK(renderer.lastFrameStats().drawCalls == 1);  // one indirect draw
}

TEST_CASE("a sorted alpha GPU system is drawn back to front, sorted on the GPU", "[particles][gpu][sort]") {
    INFO("GL: " << context().description());
    EmitterDesc desc;
    desc.spawnExtent = glm::vec3(1.5f, 1.5f, 3.0f);
    desc.rate = 0.0f;
    desc.lifetimeMin = desc.lifetimeMax = 10.0f;
    desc.speedMin = desc.speedMax = 0.5f;
    desc.coneAngle = 3.0f;
    Scene scene;
    // 5,000 live in a capacity of 6,000: sorted over 8,192 pairs, 4 blocks, so the sort runs
    // the passes across blocks as well as those inside them.
    auto& system = scene.root().emplace<GpuParticleSystem>(6000, ParticleMaterial::billboard(), desc, 3, "puffs");
    system.burst(5000);
    system.advance(kStep);
    system.advance(kStep);
    gl::Renderer renderer;
    gl::OffscreenTarget target(kSize, kSize);
    Camera camera = frontCamera();
    camera.lookAt(glm::vec3(3.0f, 2.0f, 10.0f), glm::vec3(0.0f));  // not along an axis
    renderer.render(scene, camera, target);
    CHECK(renderer.lastFrameStats().gpuParticleDispatches > 3);
    const auto particles = renderer.readGpuParticles(system);
    const auto order = renderer.readGpuParticleOrder(system, 0);
    REQUIRE(particles.has_value());
    REQUIRE(order.has_value());
    REQUIRE(particles->size() == 5000);
    REQUIRE(order->size() == particles->size());
    std::vector<std::uint32_t> sorted = *order;
    std::ranges::sort(sorted);
    for (std::uint32_t i = 0; i < sorted.size(); ++i) {
        REQUIRE(sorted[i] == i);  // a permutation of the live particles
    }
    const glm::vec3 eye(3.0f, 2.0f, 10.0f);
    const glm::vec3 forward = glm::normalize(-eye);
    std::size_t outOfOrder = 0;
    for (std::size_t i = 1; i < order->size(); ++i) {
        const float before = glm::dot((*particles)[(*order)[i - 1]].position - eye, forward);
        const float after = glm::dot((*particles)[(*order)[i]].position - eye, forward);
        // Farther first: depth never grows, within float rounding. The GPU's depths (its eye
        // and forward, its dot) may differ from these by an ulp, and particles whose GPU keys
        // tie come in whatever order compaction left them (it varies from run to run).
        outOfOrder += after > before + 1e-5f ? 1 : 0;
    }
    CHECK(outOfOrder == 0);
    // Neither the camera nor a particle moved: the last order holds, no dispatch.
    renderer.render(scene, camera, target);
    CHECK(renderer.lastFrameStats().gpuParticleDispatches == 0);
    CHECK(renderer.readGpuParticleOrder(system, 0) == order);
    system.advance(kStep);  // particles move: sorted again
    renderer.render(scene, camera, target);
    CHECK(renderer.lastFrameStats().gpuParticleDispatches > 3);
    // Additive systems are never sorted.
    system.setMaterial(ParticleMaterial::additive());
    renderer.render(scene, camera, target);
    CHECK_FALSE(renderer.readGpuParticleOrder(system, 0).has_value());
}

TEST_CASE("a GPU system drops spawns past its capacity as the CPU pool does", "[particles][gpu]") {
    INFO("GL: " << context().description());
    EmitterDesc desc = testEmitter();
    desc.lifetimeMin = desc.lifetimeMax = 5.0f;
    ParticlePool pool(100, ParticleMaterial::additive());
    ParticleEmitter emitter(desc, 5);
    Scene scene;
    auto& system = scene.root().emplace<GpuParticleSystem>(100, ParticleMaterial::additive(), desc, 5);
    emitter.burst(500);
    system.burst(500);
    for (int step = 0; step < 3; ++step) {
        emitter.update(pool, kStep);
        system.advance(kStep);
    }
    gl::Renderer renderer;
    gl::OffscreenTarget target(kSize, kSize);
    renderer.render(scene, frontCamera(), target);
    const auto gpu = renderer.readGpuParticles(system);
    REQUIRE(gpu.has_value());
    CHECK(pool.count() == 100);
    CHECK(gpu->size() == 100);
    // The same 100 survive: the first spawns, in spawn order, on both paths.
    const auto cpuBySeed = bySeed(cpuParticles(pool));
    for (const Particle& g : *gpu) {
        CHECK(cpuBySeed.contains(g.seed));
    }
}

TEST_CASE("a steady frame of a GPU system reads nothing back and issues the same calls", "[particles][gpu][steady]") {
    INFO("GL: " << context().description());
    Scene scene;
    auto& additive = scene.root().emplace<GpuParticleSystem>(5000, ParticleMaterial::additive(), testEmitter(), 1);
    auto& sorted = scene.root().emplace<GpuParticleSystem>(5000, ParticleMaterial::billboard(), testEmitter(), 2);
    gl::Renderer renderer;
    gl::OffscreenTarget target(kSize, kSize);
    additive.advance(kStep);
    sorted.advance(kStep);
    renderer.render(scene, frontCamera(), target);  // frame 1: compiles, allocates, labels
    const std::size_t programs = renderer.programCount();
    GlCallLog log(GlCallLog::NoFunctions{});
    hookRoundTrips(log);
    std::uint32_t dispatches = 0;
    for (int frame = 2; frame <= 10; ++frame) {
        additive.advance(kStep);
        sorted.advance(kStep);
        renderer.render(scene, frontCamera(), target);
        if (frame == 2) {
            dispatches = renderer.lastFrameStats().gpuParticleDispatches;
        }
        CHECK(renderer.lastFrameStats().gpuParticleDispatches == dispatches);  // whatever lives
    }
    INFO(log.dump(40));
    CHECK(roundTrips(log) == 0);
    CHECK(renderer.programCount() == programs);
    CHECK(renderer.lastFrameStats().gpuParticleSteps == 2);
    CHECK(renderer.lastFrameStats().drawCalls == 2);
    // Steps every drawing renderer ran are dropped at the next advance().
    additive.advance(kStep);
    CHECK(additive.pendingSteps().size() == 1);
}

TEST_CASE("GPU particles bounce on the ground plane and drift with the wind", "[particles][gpu]") {
    INFO("GL: " << context().description());
    EmitterDesc desc;
    desc.position = glm::vec3(0.0f, 1.0f, 0.0f);
    desc.rate = 0.0f;
    desc.lifetimeMin = desc.lifetimeMax = 10.0f;
    desc.gravity = glm::vec3(0.0f, -9.81f, 0.0f);
    desc.speedMin = desc.speedMax = 0.0f;
    Scene scene;
    auto& system = scene.root().emplace<GpuParticleSystem>(256, ParticleMaterial::additive(), desc, 9);
    system.ground.enabled = true;
    system.ground.height = -0.5f;
    system.ground.friction = 0.0f;  // friction acts every step in contact: none, so the wind shows
    system.wind.velocity = glm::vec3(2.0f, 0.0f, 0.0f);
    system.wind.response = 3.0f;
    system.burst(200);
    for (int step = 0; step < 90; ++step) {
        system.advance(kStep);
    }
    gl::Renderer renderer;
    gl::OffscreenTarget target(kSize, kSize);
    renderer.render(scene, frontCamera(), target);
    const auto gpu = renderer.readGpuParticles(system);
    REQUIRE(gpu.has_value());
    REQUIRE(gpu->size() == 200);
    for (const Particle& p : *gpu) {
        CHECK(p.position.y >= -0.5f);  // fell 1.5 s from 1.5 m above it: on it now
        CHECK(p.position.y < -0.3f);
        CHECK(p.position.x > 1.0f);    // carried downwind, toward 2 m/s
        CHECK(p.velocity.x > 1.0f);
    }
}

TEST_CASE("a GPU system past a GL limit is refused with CapacityError before anything is drawn", "[particles][gpu][limits]") {
    INFO("GL: " << context().description());
    gl::detail::GlLimits ceiling;
    ceiling.maxShaderStorageBlockBytes = 64 * 1000;  // one state block holds 1,000 particles
    gl::detail::lowerGlLimitsForTesting(ceiling);
    gl::Renderer renderer;  // reads the lowered limits once, here
    gl::detail::resetGlLimitsForTesting();
    Scene scene;
    auto& fits = scene.root().emplace<GpuParticleSystem>(1000, ParticleMaterial::additive(), testEmitter(), 1, "fits");
    fits.advance(kStep);
    gl::OffscreenTarget target(kSize, kSize);
    renderer.render(scene, frontCamera(), target);
    CHECK(renderer.readGpuParticles(fits).has_value());
    auto& tooBig = scene.root().emplace<GpuParticleSystem>(1001, ParticleMaterial::additive(), testEmitter(), 1, "too-big");
    tooBig.advance(kStep);
    try {
        renderer.render(scene, frontCamera(), target);
        FAIL("no CapacityError");
    } catch (const CapacityError& error) {
        const std::string message = error.what();
        INFO(message);
        CHECK(message.find("too-big") != std::string::npos);
        CHECK(message.find("GL_MAX_SHADER_STORAGE_BLOCK_SIZE") != std::string::npos);
    }
    CHECK_FALSE(renderer.readGpuParticles(tooBig).has_value());  // nothing made for it
}

TEST_CASE("a frame's first GPU particle dispatch follows a storage barrier issued after the last frame's draws",
          "[particles][gpu][barriers]") {
    // Write after read: frame N's draw fetches the order pairs as a texture; frame N+1 may
    // only re-sort them (the camera moved, no step ran), and the sort's first dispatch writes
    // them through a storage block. Storage writes wait for earlier texture fetches only
    // behind a GL_SHADER_STORAGE_BARRIER_BIT barrier (OpenGL 4.5 section 7.12.2); llvmpipe
    // runs everything in order, so only the call log can show it.
    INFO("GL: " << context().description());
    Scene scene;
    auto& system = scene.root().emplace<GpuParticleSystem>(5000, ParticleMaterial::billboard(), testEmitter(), 4);
    system.burst(500);
    system.advance(kStep);
    gl::Renderer renderer;
    gl::OffscreenTarget target(kSize, kSize);
    Camera camera = frontCamera();
    renderer.render(scene, camera, target);
    GlCallLog log(GlCallLog::NoFunctions{});
    MYRIAD_GL_CALL_LOG_HOOK(log, glMemoryBarrier);
    MYRIAD_GL_CALL_LOG_HOOK(log, glDispatchCompute);
    MYRIAD_GL_CALL_LOG_HOOK(log, glDispatchComputeIndirect);
    MYRIAD_GL_CALL_LOG_HOOK(log, glDrawArraysIndirect);
    for (int frame = 0; frame < 4; ++frame) {
        camera.lookAt(glm::vec3(0.5f * static_cast<float>(frame + 1), 0.0f, 10.0f), glm::vec3(0.0f));  // sorted again
        if (frame == 2) {
            system.advance(kStep);  // one frame with a step too
        }
        renderer.render(scene, camera, target);
    }
    std::size_t firstDispatches = 0;
    bool drawnSince = true;  // the frame before the log drew
    bool barrierSinceDraw = false;
    for (const GlCall& call : log.calls()) {
        if (call.function == "glDrawArraysIndirect") {
            drawnSince = true;
            barrierSinceDraw = false;
        } else if (call.function == "glMemoryBarrier") {
            barrierSinceDraw = barrierSinceDraw || (call.argument<GLbitfield>(0) & GL_SHADER_STORAGE_BARRIER_BIT) != 0;
        } else if (drawnSince) {  // a dispatch, the first since a draw
            INFO(log.dump(60));
            CHECK(barrierSinceDraw);
            ++firstDispatches;
            drawnSince = false;
        }
    }
    CHECK(firstDispatches == 4);  // every frame re-sorted
}
