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
#include "myriad/gl/Buffer.h"
#include "myriad/gl/Draw.h"
#include "myriad/gl/Program.h"
#include "myriad/gl/VertexArray.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/Renderer.h"

#include <glm/gtc/matrix_transform.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
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

    std::printf("\n## Updates (CPU only): calls per second\n\n| operation | N | ms | million per second |\n|---|---:|---:|---:|\n");
    {
        const std::size_t n = quick ? 100000 : 1000000;
        const auto side = static_cast<std::size_t>(std::ceil(std::sqrt(static_cast<double>(n))));
        InstancedMeshNode batch(triangle, material, n, "updates");
        std::vector<InstanceHandle> handles;
        handles.reserve(n);
        for (std::size_t i = 0; i < n; ++i) {
            handles.push_back(batch.acquire({gridTransform(i, side), glm::vec4(1.0f)}));
        }
        auto row = [&](const char* name, const std::function<void()>& work) {
            const auto start = Clock::now();
            work();
            const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
            std::printf("| %s | %zu | %.2f | %.1f |\n", name, n, ms, static_cast<double>(n) / ms / 1000.0);
        };
        row("setTransform", [&] {
            for (std::size_t i = 0; i < n; ++i) {
                batch.setTransform(i, gridTransform(n - 1 - i, side));
            }
        });
        row("setColor", [&] {
            for (std::size_t i = 0; i < n; ++i) {
                batch.setColor(i, glm::vec4(0.5f));
            }
        });
        std::mt19937 random(1u);
        row("release + acquire", [&] {
            for (std::size_t i = 0; i < n; ++i) {
                const std::size_t k = random() % n;
                batch.release(handles[k]);
                handles[k] = batch.acquire({gridTransform(k, side), glm::vec4(1.0f)});
            }
        });
    }

    std::printf("\n## Morph weights: setMorphWeights rate, and bytes per frame for 2,000 animated copies\n\n");
    {
        MeshData data = shapes::uvSphere(0.5f, 24, 12);
        for (int t = 0; t < 2; ++t) {
            MorphTarget lift;
            lift.positionDeltas.assign(data.positions.size(), glm::vec3(0.0f, 0.1f * static_cast<float>(t + 1), 0.0f));
            data.morphTargets.push_back(lift);
        }
        auto morphing = MeshGeometry::create(data, "morphing-sphere");
        const std::size_t n = quick ? 100000 : 1000000;
        InstancedMeshNode batch(morphing, material, n, "weights");
        batch.setCount(n);
        std::vector<float> weights = {0.3f, 0.7f};
        const auto start = Clock::now();
        for (std::size_t i = 0; i < n; ++i) {
            weights[0] = static_cast<float>(i & 255) / 255.0f;
            batch.setMorphWeights(i, weights);
        }
        const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
        std::printf("| operation | N | ms | million per second |\n|---|---:|---:|---:|\n");
        std::printf("| setMorphWeights (2 weights) | %zu | %.2f | %.1f |\n\n", n, ms, static_cast<double>(n) / ms / 1000.0);

        Scene scene;
        const std::size_t crowd = 2000;
        auto& copies = scene.root().emplace<InstancedMeshNode>(morphing, material, crowd, "crowd");
        for (std::size_t i = 0; i < crowd; ++i) {
            copies.addInstance(gridTransform(i, 45));
        }
        const Camera camera = cameraFor(45);
        std::uint64_t bytes = 0;
        const int frames = 5;
        for (int frame = 0; frame <= frames; ++frame) {
            for (std::size_t i = 0; i < crowd; ++i) {
                weights[0] = 0.5f + 0.5f * std::sin(static_cast<float>(frame) * 0.2f + static_cast<float>(i));
                copies.setMorphWeights(i, weights);
            }
            renderer.render(scene, camera, target);
            if (frame > 0) {  // frame 0 also uploads the mesh and the records
                bytes += renderer.lastFrameStats().bytesUploaded;
            }
        }
        gl::finish();
        std::printf("| animated copies | bytes uploaded per frame | of which instance records | bytes per copy |\n|---:|---:|---:|---:|\n");
        std::printf("| %zu | %llu | 0 | %.1f |\n", crowd, static_cast<unsigned long long>(bytes / frames),
                    static_cast<double>(bytes / frames) / static_cast<double>(crowd));
    }

    std::printf("\n## Partial updates at N = 100000: bytes uploaded and CPU ms of the frame\n\n");
    std::printf("| changed | pattern | bytes uploaded | share of full | GPU copies | render CPU ms |\n|---:|---|---:|---:|---:|---:|\n");
    {
        const std::size_t n = 100000;
        const auto side = static_cast<std::size_t>(std::ceil(std::sqrt(static_cast<double>(n))));
        Scene scene;
        auto& batch = scene.root().emplace<InstancedMeshNode>(triangle, material, n, "partial");
        for (std::size_t i = 0; i < n; ++i) {
            batch.addInstance(gridTransform(i, side));
        }
        const Camera camera = cameraFor(side);
        renderer.render(scene, camera, target);
        gl::finish();
        for (const double share : {0.01, 0.10, 1.0}) {
            for (const bool scattered : {false, true}) {
                const auto changed = static_cast<std::size_t>(static_cast<double>(n) * share);
                const std::size_t stride = scattered ? n / changed : 1;
                for (std::size_t k = 0; k < changed; ++k) {
                    batch.setColor(k * stride, glm::vec4(0.9f));
                }
                const auto start = Clock::now();
                renderer.render(scene, camera, target);
                const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
                gl::finish();
                const gl::FrameStats& stats = renderer.lastFrameStats();
                std::printf("| %.0f%% | %s | %llu | %.1f%% | %u | %.3f |\n", share * 100.0,
                            scattered ? "every Nth" : "contiguous",
                            static_cast<unsigned long long>(stats.bytesUploaded),
                            100.0 * static_cast<double>(stats.bytesUploaded) / static_cast<double>(n * 64),
                            stats.uploadRanges, ms);
            }
        }
    }

    std::printf("\n## Normals under non-uniform scale: cofactor against plain mat3 (vertex cost)\n\n");
    {
        // The library's instanced vertex shader, and the same with the usual shortcut
        // (normal * mat3, right only for uniform scale), drawn through the low-level layer.
        const std::string exact(gl::embeddedShaderText("instanced_mesh.vert"));
        std::string shortcut = exact;
        const std::string body = "mat3 cofactor = mat3(cross(m[1], m[2]), cross(m[2], m[0]), cross(m[0], m[1]));\n"
                                 "    return cofactor * n * sign(determinant(m));";
        const std::size_t at = shortcut.find(body);
        if (at == std::string::npos) {
            std::printf("(instanced_mesh.vert changed; cofactor row skipped)\n");
            return 0;
        }
        shortcut.replace(at, body.size(), "return m * n;");
        const std::string fragment(gl::embeddedShaderText("mesh.frag"));
        const gl::ShaderSource exactStages[] = {{gl::ShaderStage::Vertex, "instanced_mesh.vert", exact},
                                                {gl::ShaderStage::Fragment, "mesh.frag", fragment}};
        const gl::ShaderSource shortcutStages[] = {{gl::ShaderStage::Vertex, "shortcut.vert", shortcut},
                                                   {gl::ShaderStage::Fragment, "mesh.frag", fragment}};
        gl::Program exactProgram(exactStages, "bench.cofactor");
        gl::Program shortcutProgram(shortcutStages, "bench.shortcut");
        const MeshGeometry sphere(shapes::uvSphere(0.5f, 24, 12), "sphere");
        struct Vertex {
            glm::vec3 position, normal;
            glm::vec2 uv;
            glm::vec4 color;
        };
        std::vector<Vertex> vertices;
        for (std::size_t i = 0; i < sphere.vertexCount(); ++i) {
            vertices.push_back({sphere.data().positions[i], sphere.data().normals[i], glm::vec2(0.0f), glm::vec4(1.0f)});
        }
        const std::size_t n = quick ? 2000 : 20000;
        std::vector<InstanceRecord> records(n);
        for (std::size_t i = 0; i < n; ++i) {
            records[i].row0 = glm::vec4(0.003f, 0.0f, 0.0f, 0.0f);
            records[i].row1 = glm::vec4(0.0f, 0.001f, 0.0f, 0.0f);
            records[i].row2 = glm::vec4(0.0f, 0.0f, 0.001f, -0.5f);
        }
        gl::Buffer vertexBuffer({.initialData = std::as_bytes(std::span(vertices))});
        gl::Buffer indexBuffer({.initialData = std::as_bytes(std::span(sphere.data().indices32))});
        gl::Buffer instanceBuffer({.initialData = std::as_bytes(std::span(records))});
        gl::VertexArray layout({.attributes = {{location::kPosition, gl::AttributeFormat::Float3, 0, 0},
                                               {location::kNormal, gl::AttributeFormat::Float3, 12, 0},
                                               {location::kUv0, gl::AttributeFormat::Float2, 24, 0},
                                               {location::kColor, gl::AttributeFormat::Float4, 32, 0},
                                               {location::kInstanceRow0, gl::AttributeFormat::Float4, 0, 1},
                                               {location::kInstanceRow1, gl::AttributeFormat::Float4, 16, 1},
                                               {location::kInstanceRow2, gl::AttributeFormat::Float4, 32, 1},
                                               {location::kInstanceColor, gl::AttributeFormat::Float4, 48, 1}},
                                .bindings = {{0, sizeof(Vertex), 0}, {1, sizeof(InstanceRecord), 1}},
                                .label = "bench.spheres"});
        layout.setVertexBuffer(0, vertexBuffer);
        layout.setVertexBuffer(1, instanceBuffer);
        layout.setIndexBuffer(indexBuffer, IndexType::UInt32, sphere.vertexCount() - 1);
        gl::bindDrawTarget(target.framebufferId(), 0, 0, target.width(), target.height());
        auto drawWith = [&](const gl::Program& program) {
            program.use();
            program.setUniform(program.uniformLocation("u_viewProjection"), glm::mat4(1.0f));
            program.setUniform(program.uniformLocation("u_model"), glm::mat4(1.0f));
            program.setUniform(program.uniformLocation("u_baseColor"), glm::vec4(1.0f));
            program.setUniform(program.uniformLocation("u_tint"), glm::vec4(1.0f));
            program.setUniform(program.uniformLocation("u_lit"), 1);
            gl::drawElementsInstanced(layout, gl::PrimitiveMode::Triangles, sphere.indexCount(),
                                      IndexType::UInt32, 0, static_cast<std::uint32_t>(n));
        };
        const Timing withCofactor = measure(2, 9, [&] { drawWith(exactProgram); });
        const Timing withShortcut = measure(2, 9, [&] { drawWith(shortcutProgram); });
        gl::bindDrawTarget(0, 0, 0, target.width(), target.height());
        std::printf("| instances x vertices | cofactor ms | mat3 shortcut ms | ratio |\n|---:|---:|---:|---:|\n");
        std::printf("| %zu x %u | %.3f | %.3f | %.2fx |\n", n, sphere.vertexCount(), withCofactor.totalMs,
                    withShortcut.totalMs, withCofactor.totalMs / std::max(withShortcut.totalMs, 1e-6));
    }
    return 0;
}
