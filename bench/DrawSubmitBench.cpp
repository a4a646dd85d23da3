// Draw submission and upload: one InstancedMeshNode against N MeshNodes, and a full rewrite of
// the records against a plain memcpy of the same bytes. Prints a table; ratios are measured in
// the same run, since absolute times on a shared machine are noise.
//
// Usage: myriad_bench [--quick]
#include "myriad/core/Camera.h"
#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/egl/HeadlessContext.h"
#include "myriad/gl/Draw.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/Renderer.h"

#include <glm/gtc/matrix_transform.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

using namespace myriad;
using Clock = std::chrono::steady_clock;

namespace {

struct Timing {
    double cpuMs = 0.0;    ///< median time in Renderer::render (myriad's CPU work + GL calls)
    double totalMs = 0.0;  ///< median time including glFinish (the driver's work too)
};

// Median over `repetitions` frames of `frame`, after `warmup` frames.
Timing measure(int warmup, int repetitions, const std::function<void()>& frame) {
    for (int i = 0; i < warmup; ++i) {
        frame();
        gl::finish();
    }
    std::vector<double> cpu;
    std::vector<double> total;
    for (int i = 0; i < repetitions; ++i) {
        const auto start = Clock::now();
        frame();
        const auto submitted = Clock::now();
        gl::finish();
        const auto done = Clock::now();
        cpu.push_back(std::chrono::duration<double, std::milli>(submitted - start).count());
        total.push_back(std::chrono::duration<double, std::milli>(done - start).count());
    }
    std::nth_element(cpu.begin(), cpu.begin() + repetitions / 2, cpu.end());
    std::nth_element(total.begin(), total.begin() + repetitions / 2, total.end());
    return {cpu[static_cast<std::size_t>(repetitions / 2)], total[static_cast<std::size_t>(repetitions / 2)]};
}

glm::mat4 gridTransform(std::size_t i, std::size_t side) {
    const float x = static_cast<float>(i % side) * 2.0f;
    const float z = static_cast<float>(i / side) * 2.0f;
    return glm::translate(glm::mat4(1.0f), glm::vec3(x, 0.0f, z));
}

Camera cameraFor(std::size_t side) {
    const float extent = static_cast<float>(side) * 2.0f;
    Camera camera;
    camera.setPerspective(glm::radians(60.0f), 1.0f, 0.5f, extent * 4.0f);
    camera.lookAt(glm::vec3(extent * 0.5f, extent * 0.9f, extent * 1.2f),
                  glm::vec3(extent * 0.5f, 0.0f, extent * 0.5f));
    return camera;
}

} // namespace

int main(int argc, char** argv) {
    const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
    egl::HeadlessContext context;
    std::printf("myriad_bench on %s\n", context.description().c_str());
    gl::Renderer renderer;
    gl::OffscreenTarget target(64, 64, "bench-target");
    auto triangle = MeshGeometry::create(shapes::triangle(), "triangle");
    Material material;
    material.shading = Shading::Unlit;

    std::printf("\n## Draw submission, one-triangle mesh, 64x64, every instance in view\n\n");
    std::printf("| N | instanced CPU ms | per-node CPU ms | CPU ratio | instanced total ms | per-node total ms | draw calls (inst / per-node) |\n");
    std::printf("|---:|---:|---:|---:|---:|---:|---:|\n");
    const std::vector<std::size_t> counts = quick ? std::vector<std::size_t>{1000, 10000}
                                                  : std::vector<std::size_t>{1000, 10000, 100000};
    for (std::size_t n : counts) {
        const auto side = static_cast<std::size_t>(std::ceil(std::sqrt(static_cast<double>(n))));
        const Camera camera = cameraFor(side);
        Scene instancedScene;
        auto& batch = instancedScene.root().emplace<InstancedMeshNode>(triangle, material, n, "batch");
        for (std::size_t i = 0; i < n; ++i) {
            batch.addInstance(gridTransform(i, side));
        }
        Scene perNodeScene;
        for (std::size_t i = 0; i < n; ++i) {
            auto& node = perNodeScene.root().emplace<MeshNode>(triangle, material);
            node.setLocalMatrix(gridTransform(i, side));
        }
        const int repetitions = n >= 100000 ? 5 : 15;
        const Timing instanced = measure(2, repetitions, [&] { renderer.render(instancedScene, camera, target); });
        const std::uint32_t instancedDraws = renderer.lastFrameStats().drawCalls;
        const Timing perNode = measure(2, repetitions, [&] { renderer.render(perNodeScene, camera, target); });
        const std::uint32_t perNodeDraws = renderer.lastFrameStats().drawCalls;
        std::printf("| %zu | %.3f | %.3f | %.1fx | %.3f | %.3f | %u / %u |\n", n, instanced.cpuMs,
                    perNode.cpuMs, perNode.cpuMs / std::max(instanced.cpuMs, 1e-6), instanced.totalMs,
                    perNode.totalMs, instancedDraws, perNodeDraws);
    }

    std::printf("\n## Full rewrite of every record plus its upload, against memcpy of the same bytes\n\n");
    std::printf("| N | bytes | setTransform all + render ms | memcpy ms | ratio |\n|---:|---:|---:|---:|---:|\n");
    for (std::size_t n : counts) {
        const auto side = static_cast<std::size_t>(std::ceil(std::sqrt(static_cast<double>(n))));
        const Camera camera = cameraFor(side);
        Scene scene;
        auto& batch = scene.root().emplace<InstancedMeshNode>(triangle, material, n, "batch");
        for (std::size_t i = 0; i < n; ++i) {
            batch.addInstance(gridTransform(i, side));
        }
        float phase = 0.0f;
        const Timing rewrite = measure(2, 9, [&] {
            phase += 0.01f;
            for (std::size_t i = 0; i < n; ++i) {
                glm::mat4 m = gridTransform(i, side);
                m[3][1] = std::sin(phase + static_cast<float>(i));
                batch.setTransform(i, m);
            }
            renderer.render(scene, camera, target);
        });
        std::vector<std::byte> source(n * 64, std::byte{1});
        std::vector<std::byte> destination(n * 64);
        const Timing copy = measure(2, 9, [&] {
            source[0] = static_cast<std::byte>(static_cast<int>(source[0]) + 1);
            std::memcpy(destination.data(), source.data(), source.size());
        });
        std::printf("| %zu | %zu | %.3f | %.3f | %.1fx |\n", n, n * 64, rewrite.cpuMs, copy.cpuMs,
                    rewrite.cpuMs / std::max(copy.cpuMs, 1e-6));
    }
    return 0;
}
