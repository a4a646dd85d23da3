// GPU particle systems benchmark (docs/particles.md, "GPU path"): prints a table, asserts nothing.
// Per row: N live particles (one burst, lives longer than the run, so every frame integrates N),
// one 1/60 s step a frame, additive (not sorted) or alpha (sorted back to front on the GPU):
//   - CPU ms a frame of render()'s GPU particle work: the compute calls of the step and the
//     sort (FrameStats::gpuParticlesMs), against the goal of 0.1 ms; with the dispatch
//     count. On a GPU this is the calls alone. A software driver (llvmpipe) runs compute inside
//     glDispatchCompute, so there the number holds the simulation itself: compare rows, do not
//     quote it as the calls' cost (the 1,000-particle row is close to the calls alone).
//   - GPU ms of the whole frame (GL_TIME_ELAPSED around render(): steps, sort and the draw).
// Usage: myriad_gpu_particles_bench [particles=1000000] [frames=10]
#include "BenchSupport.h"
#include "myriad/core/Camera.h"
#include "myriad/core/GpuParticles.h"
#include "myriad/core/Scene.h"
#include "myriad/egl/HeadlessContext.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/Renderer.h"

#include <glad/gl.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

using namespace myriad;

int main(int argc, char** argv) {
    const std::size_t particles = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1'000'000;
    const int frames = argc > 2 ? std::max(1, std::atoi(argv[2])) : 10;
    egl::HeadlessContext context;
    std::printf("Driver: %s\n", bench::driverLine(context).c_str());
    gl::OffscreenTarget target(256, 256);
    Camera camera;
    camera.setPerspective(0.9f, 1.0f, 0.1f, 200.0f);
    camera.lookAt(glm::dvec3(0, 5, 30), glm::dvec3(0, 5, 0));
    std::printf("| particles | material | CPU ms/frame, compute calls (goal 0.1) | dispatches/frame | render() CPU ms | GPU ms/frame (GL_TIME_ELAPSED) |\n");
    std::printf("|---|---|---|---|---|---|\n");
    std::vector<std::size_t> counts{1'000, 100'000};
    if (particles > counts.back()) {
        counts.push_back(particles);
    }
    for (const std::size_t count : counts) {
        for (const bool sorted : {false, true}) {
            EmitterDesc desc = EmitterDesc::embers();
            desc.position = glm::vec3(0.0f, 2.0f, 0.0f);
            desc.spawnExtent = glm::vec3(6.0f, 2.0f, 6.0f);
            desc.rate = 0.0f;  // one burst of count, living past the run: count live every frame
            desc.lifetimeMin = desc.lifetimeMax = 1000.0f;
            desc.speedMin = 0.1f;
            desc.speedMax = 0.5f;
            Scene scene;
            auto& system = scene.root().emplace<GpuParticleSystem>(
                count, sorted ? ParticleMaterial::billboard() : ParticleMaterial::streak(0.06f), desc, 1, "bench");
            system.burst(count);
            gl::Renderer renderer;
            system.advance(1.0f / 60.0f);
            renderer.render(scene, camera, target);  // compiles, allocates, spawns
            glFinish();
            GLuint query = 0;
            glGenQueries(1, &query);
            double cpuMs = 0.0;
            double renderMs = 0.0;
            double gpuMs = 0.0;
            std::uint32_t dispatches = 0;
            for (int f = 0; f < frames; ++f) {
                system.advance(1.0f / 60.0f);
                glBeginQuery(GL_TIME_ELAPSED, query);
                renderer.render(scene, camera, target);
                glEndQuery(GL_TIME_ELAPSED);
                GLuint64 ns = 0;
                glGetQueryObjectui64v(query, GL_QUERY_RESULT, &ns);  // waits: outside render()
                const gl::FrameStats& stats = renderer.lastFrameStats();
                cpuMs += stats.gpuParticlesMs;
                renderMs += stats.frameMs;
                gpuMs += static_cast<double>(ns) / 1e6;
                dispatches = stats.gpuParticleDispatches;
            }
            glDeleteQueries(1, &query);
            const auto live = renderer.readGpuParticles(system);
            std::printf("| %zu | %s | %.3f | %u | %.2f | %.2f |\n", live ? live->size() : 0,
                        sorted ? "billboard (sorted)" : "streak (additive)", cpuMs / frames, dispatches,
                        renderMs / frames, gpuMs / frames);
        }
    }
    return 0;
}
