// Particles and scatter benchmark (docs/particles.md): prints tables, asserts nothing.
//   1. N particles simulated (ParticleEmitter), sorted back to front and uploaded per frame, on
//      one core, for 100,000 and N, staged, streaming and streaming with curves (32 bytes a
//      particle): ms per phase, each against memcpy of its bytes in the same run, and
//      PASS/MISS of the total against 16 ms.
//   2. N scatter blades (32 bytes) against the same field on 64-byte records: bytes per blade,
//      first-frame upload and frame time (llvmpipe draws on the CPU: compare, do not quote).
// Usage: myriad_particles_bench [particles=1000000] [blades=200000] [frames=10]
#include "BenchSupport.h"
#include "myriad/core/Camera.h"
#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Particles.h"
#include "myriad/core/Scatter.h"
#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/egl/HeadlessContext.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/Renderer.h"

#include <glm/gtc/matrix_transform.hpp>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

using namespace myriad;
using Clock = std::chrono::steady_clock;

namespace {
double msSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

/** The fastest of 5 memcpy's of @p bytes between two buffers already touched, milliseconds. */
double memcpyMs(std::size_t bytes) {
    std::vector<unsigned char> from(bytes, 1), to(bytes, 0);
    double best = 1e30;
    for (int k = 0; k < 5; ++k) {
        const auto start = Clock::now();
        std::memcpy(to.data(), from.data(), bytes);
        best = std::min(best, msSince(start));
    }
    return best > 0.0 ? best : 1e-6;
}
} // namespace

int main(int argc, char** argv) {
    const std::size_t particles = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1'000'000;
    const std::size_t blades = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 200'000;
    const int frames = argc > 3 ? std::atoi(argv[3]) : 10;
    egl::HeadlessContext context;
    std::printf("Driver: %s\n", bench::driverLine(context).c_str());
    gl::OffscreenTarget target(256, 256);
    Camera camera;
    camera.lookAt(glm::dvec3(0, 5, 30), glm::dvec3(0, 5, 0));

    // ---- 1. particles ----
    // Each phase against memcpy of the bytes it handles, timed in the same run (the machine is
    // shared: the ratio is what to compare): simulate the 64 bytes of every live particle, sort
    // the 16-byte positions it reads, upload what the renderer sent. Three ways of sending:
    // staged (the ring, then a GPU copy), streaming (straight into a fenced third of a mapped
    // buffer) and streaming with curves (32 bytes a particle; colour, alpha and size over life
    // in the vertex stage, none of them evaluated by the emitter). One untimed frame first.
    // Upload excludes FrameStats::gpuWaitMs (waiting for the GPU to finish reading a part about
    // to be rewritten: here llvmpipe still drawing an earlier frame's million quads on these
    // same cores), printed apart; the total is simulate + sort + upload.
    std::printf("| particles | upload | simulate ms (x memcpy) | sort ms (x memcpy) | upload ms (x memcpy) | total ms | GPU wait ms | MB uploaded/frame | target 16 ms |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|\n");
    struct Way {
        const char* name;
        UploadMode mode;
        bool curves;
    };
    const Way ways[] = {{"staged, 64 B", UploadMode::Staged, false},
                        {"streaming, 64 B", UploadMode::Streaming, false},
                        {"streaming + curves, 32 B", UploadMode::Streaming, true}};
    for (const std::size_t n : {std::size_t{100'000}, particles}) {
        if (n != particles && n >= particles) {  // the 100k row only below a larger N
            continue;
        }
        for (const Way& way : ways) {
            Scene scene;
            auto& pool = scene.root().emplace<ParticlePool>(n, ParticleMaterial::billboard(), "pool");
            pool.setUploadMode(way.mode);
            EmitterDesc desc;
            desc.rate = static_cast<float>(n) / 2.5f;  // 2-3 s lives: the pool stays nearly full
            desc.lifetimeMin = 2.0f;
            desc.lifetimeMax = 3.0f;
            desc.spawnExtent = glm::vec3(10.0f);
            desc.gravity = glm::vec3(0.0f, -1.0f, 0.0f);
            desc.alphaOverLife.keys = {{0.0f, 1.0f}, {1.0f, 0.0f}};
            desc.sizeOverLife.keys = {{0.0f, 0.1f}, {1.0f, 0.3f}};
            if (way.curves) {
                pool.setCurves(ParticleCurves::from(desc));
            }
            ParticleEmitter emitter(desc);
            emitter.burst(n);
            emitter.update(pool, 0.0f);
            gl::Renderer renderer;
            renderer.render(scene, camera, target);  // programs, buffers: not timed
            double simulate = 0.0, sort = 0.0, upload = 0.0, wait = 0.0;
            std::uint64_t bytes = 0;
            for (int f = 0; f < frames; ++f) {
                const auto start = Clock::now();
                emitter.update(pool, 1.0f / 60.0f);
                simulate += msSince(start);
                renderer.render(scene, camera, target);
                sort += renderer.lastFrameStats().sortMs;
                const gl::FrameStats& stats = renderer.lastFrameStats();
                upload += stats.uploadMs - stats.sortMs - stats.gpuWaitMs;
                wait += stats.gpuWaitMs;
                bytes += renderer.lastFrameStats().bytesUploaded;
            }
            const double total = (simulate + sort + upload) / frames;
            const double all = memcpyMs(pool.count() * ParticlePool::bytesPerParticle);
            const double positions = memcpyMs(pool.count() * 16);
            const double uploaded = memcpyMs(static_cast<std::size_t>(bytes / static_cast<std::uint64_t>(frames)));
            std::printf("| %zu | %s | %.2f (%.1fx) | %.2f (%.1fx) | %.2f (%.1fx) | %.2f | %.2f | %.1f | %s |\n", pool.count(),
                        way.name, simulate / frames, simulate / frames / all, sort / frames, sort / frames / positions,
                        upload / frames, upload / frames / uploaded, total, wait / frames,
                        static_cast<double>(bytes) / frames / 1e6, total <= 16.0 ? "PASS" : "MISS");
            std::fflush(stdout);
        }
    }
    std::printf("\n");

    // ---- 2. scatter against records ----
    {
        auto mesh = MeshGeometry::create(shapes::quad(0.05f, 0.5f), "blade");
        std::mt19937 random(3);
        std::uniform_real_distribution<float> unit(0.0f, 1.0f);
        Scene scatterScene;
        Scene recordScene;
        Material grass;
        grass.doubleSided = true;
        auto& scatter = scatterScene.root().emplace<ScatterNode>(mesh, grass, blades, "scatter");
        auto& records = recordScene.root().emplace<InstancedMeshNode>(mesh, grass, blades, "records");
        for (std::size_t i = 0; i < blades; ++i) {
            const glm::vec3 p(unit(random) * 40.0f - 20.0f, 0.0f, unit(random) * 40.0f - 20.0f);
            const float yaw = unit(random) * 6.28f;
            scatter.add({p, yaw, 1.0f, 1.0f, 0.0f, unit(random)});
            records.addInstance(glm::rotate(glm::translate(glm::mat4(1.0f), p), yaw, glm::vec3(0, 1, 0)));
        }
        std::printf("| stream | bytes/blade | first-frame upload MB | frame ms (mean of %d, wind moving) |\n", frames);
        std::printf("|---|---|---|---|\n");
        for (int which = 0; which < 2; ++which) {
            gl::Renderer renderer;
            Scene& scene = which == 0 ? scatterScene : recordScene;
            renderer.render(scene, camera, target);
            const double firstMb = static_cast<double>(renderer.lastFrameStats().bytesUploaded) / 1e6;
            double ms = 0.0;
            for (int f = 0; f < frames; ++f) {
                scatter.wind.time = static_cast<float>(f) / 60.0f;
                renderer.render(scene, camera, target);
                ms += renderer.lastFrameStats().frameMs;
            }
            std::printf("| %s | %d | %.1f | %.2f |\n", which == 0 ? "scatter" : "64-byte records", which == 0 ? 32 : 64,
                        firstMb, ms / frames);
        }
    }
    return 0;
}
