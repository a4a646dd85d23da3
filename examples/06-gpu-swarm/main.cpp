// 06-gpu-swarm: 100,000 particles on a force field, moved by a compute shader every frame.
//
// Shows: GPU-driven populations (docs/lanes.md). The particles' 64-byte records live in a named
// GPU buffer; a compute shader (myriad's ComputeProgram + Renderer::dispatch) moves them each
// frame; Renderer::drawInstanced draws them from that buffer, with the barrier between the two
// issued by myriad. Transforms never touch the CPU: after setup, 0 bytes are uploaded per frame.
// Prints ms per frame and bytes uploaded. --count up to 1,000,000.
// Controls: Escape closes the window.
#include "common/ExampleRunner.h"

#include "myriad/core/InstanceRecord.h"
#include "myriad/core/Shapes.h"
#include "myriad/gl/Renderer.h"
#include "myriad/util/Error.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

using namespace myriad;

namespace {

constexpr const char* kStep = R"(#version 450 core
layout(local_size_x = 256) in;
struct Record { vec4 row0; vec4 row1; vec4 row2; vec4 color; };
layout(std430, binding = 0) buffer Records { Record records[]; };
layout(std430, binding = 1) buffer Velocities { vec4 velocities[]; };
uniform float u_dt;
uniform float u_time;
uniform int u_count;
void main() {
    int i = int(gl_GlobalInvocationID.x);
    if (i >= u_count) {
        return;
    }
    vec3 p = vec3(records[i].row0.w, records[i].row1.w, records[i].row2.w);
    vec3 v = velocities[i].xyz;
    // A swirl around z, a pull towards a breathing ring of radius ~2, a pull to z = 0.
    float r = length(p.xy) + 1.0e-4;
    vec3 tangent = vec3(-p.y, p.x, 0.0) / r;
    vec3 radial = vec3(p.xy / r, 0.0);
    float ring = 2.0 + 0.4 * sin(u_time + 3.0 * atan(p.y, p.x));
    vec3 force = tangent * 1.5 - radial * (r - ring) * 3.0 - vec3(0.0, 0.0, p.z) * 2.0;
    v = v * 0.995 + force * u_dt;
    p += v * u_dt;
    records[i].row0.w = p.x;
    records[i].row1.w = p.y;
    records[i].row2.w = p.z;
    records[i].color = vec4(0.35 + 0.65 * abs(normalize(v + 1.0e-6)), 1.0);
    velocities[i] = vec4(v, 0.0);
}
)";

} // namespace

int main(int argc, char** argv) try {
    // ---- Init ----
    const examples::ExampleSpec spec{
        .name = "06-gpu-swarm",
        .summary = "particles on a force field moved by a compute shader each frame; transforms never touch the CPU",
        .flags = {{"--count", "N", "particles", "100000", examples::FlagKind::Number, {}, 1, 1000000}},
        .controls = {},
        .unavailable = {},
        .width = 960,
        .height = 540,
        .cameraControls = false,
    };
    const examples::ExampleOptions options = examples::parseOptions(argc, argv, spec);
    examples::ExampleRunner runner(options, spec);
    gl::Renderer& renderer = runner.renderer();
    const auto count = static_cast<std::size_t>(options.number("--count"));

    // Setup: the only upload of particle data.
    std::mt19937 random(7);
    std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
    std::vector<InstanceRecord> records(count);
    std::vector<glm::vec4> velocities(count, glm::vec4(0.0f));
    constexpr float kScale = 0.02f;
    for (InstanceRecord& record : records) {
        const glm::vec3 p(unit(random) * 3.0f, unit(random) * 3.0f, unit(random) * 0.5f);
        record = {glm::vec4(kScale, 0, 0, p.x), glm::vec4(0, kScale, 0, p.y), glm::vec4(0, 0, kScale, p.z),
                  glm::vec4(1.0f)};
    }
    gl::GpuBufferDesc recordDesc;
    recordDesc.name = "swarm.records";
    recordDesc.elementType = gl::GpuElementType::InstanceRecord;
    recordDesc.length = count;
    recordDesc.initialData = std::as_bytes(std::span(records));
    renderer.createBuffer(recordDesc);
    gl::GpuBufferDesc velocityDesc;
    velocityDesc.name = "swarm.velocities";
    velocityDesc.elementType = gl::GpuElementType::Vec4;
    velocityDesc.length = count;
    velocityDesc.initialData = std::as_bytes(std::span(velocities));
    renderer.createBuffer(velocityDesc);
    const std::uint64_t setupBytes = records.size() * sizeof(InstanceRecord) + velocities.size() * sizeof(glm::vec4);
    records = {};
    velocities = {};

    gl::PopulationDesc swarm;
    swarm.name = "swarm";
    swarm.transformBuffer = "swarm.records";
    swarm.instanceCount = count;
    swarm.material.name = "particle";
    swarm.material.shading = Shading::Unlit;
    swarm.material.doubleSided = true;
    (void)renderer.drawInstanced(MeshGeometry::create(shapes::box(1.0f), "particle"), swarm);
    const gl::ComputeProgram step("swarm.comp", kStep);
    const gl::Program& program = step.program();
    const int dt = program.uniformLocation("u_dt");
    const int time = program.uniformLocation("u_time");
    program.setUniform(program.uniformLocation("u_count"), static_cast<int>(count));
    const gl::BufferBinding bindings[] = {{0, "swarm.records"}, {1, "swarm.velocities"}};

    Scene scene;
    scene.clearColor = glm::vec4(0.01f, 0.01f, 0.02f, 1.0f);
    Camera camera;
    camera.setPerspective(glm::radians(45.0f), runner.aspect(), 0.1f, 100.0f);
    camera.lookAt(glm::vec3(0, -4, 6), glm::vec3(0, 0, 0));

    // ---- Update / Draw ----
    std::uint64_t bytesAfterSetup = 0;
    int frames = 0;
    auto last = std::chrono::steady_clock::now();
    double totalMs = 0.0;
    examples::FrameCallbacks callbacks;
    callbacks.update = [&](int frame, double) {
        const auto now = std::chrono::steady_clock::now();
        if (frame > 1) {  // frames 0-1 include setup and first compiles
            totalMs += std::chrono::duration<double, std::milli>(now - last).count();
            bytesAfterSetup += renderer.lastFrameStats().bytesUploaded;
            ++frames;
        }
        last = now;
        program.setUniform(dt, 1.0f / 60.0f);
        program.setUniform(time, static_cast<float>(frame) / 60.0f);
        renderer.dispatch(step, bindings, static_cast<std::uint32_t>((count + 255) / 256));
    };
    const int code = runner.run(scene, camera, callbacks);
    std::printf("06-gpu-swarm: %zu particles, one dispatch and one draw per frame; setup uploaded %llu bytes\n",
                count, static_cast<unsigned long long>(setupBytes));
    if (frames > 0) {
        std::printf("06-gpu-swarm: %.2f ms per frame over %d frames; %llu bytes uploaded after setup\n",
                    totalMs / frames, frames, static_cast<unsigned long long>(bytesAfterSetup));
    }
    return code;
} catch (const myriad::Error& e) {
    std::fprintf(stderr, "06-gpu-swarm: %s\n", e.what());
    return 1;
}
