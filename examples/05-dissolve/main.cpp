// 05-dissolve: twenty subjects sharing one material, each dissolving at its own rate.
//
// Shows: per-instance shader data (lanes, docs/lanes.md). One InstancedMeshNode, one material,
// one surface function; lane 0.x of each instance is its dissolve progress (0 whole, 1 gone),
// lane 0.y its rate. The surface function discards fragments where a noise value falls below
// the progress, and glows at the edge. No material per entity. Headless, --time fixes the
// moment drawn, so the PNG shows the subjects at visibly different stages.
// Controls: Escape closes the window.
#include "common/ExampleRunner.h"

#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Shapes.h"
#include "myriad/core/SurfaceShader.h"
#include "myriad/util/Error.h"

#include <glm/gtc/matrix_transform.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

using namespace myriad;

namespace {

constexpr int kSubjects = 20;

constexpr const char* kDissolve = R"(
// Value noise on a world-space lattice: smooth blobs, the same on every frame.
float hash(vec3 p) { return fract(sin(dot(p, vec3(12.9898, 78.233, 37.719))) * 43758.5453); }
float noise(vec3 p) {
    vec3 i = floor(p);
    vec3 f = smoothstep(0.0, 1.0, fract(p));
    float x00 = mix(hash(i), hash(i + vec3(1, 0, 0)), f.x);
    float x10 = mix(hash(i + vec3(0, 1, 0)), hash(i + vec3(1, 1, 0)), f.x);
    float x01 = mix(hash(i + vec3(0, 0, 1)), hash(i + vec3(1, 0, 1)), f.x);
    float x11 = mix(hash(i + vec3(0, 1, 1)), hash(i + vec3(1, 1, 1)), f.x);
    return mix(mix(x00, x10, f.y), mix(x01, x11, f.y), f.z);
}
SurfaceOutput surface(SurfaceInput s) {
    float progress = s.lanes[0].x;                      // 0: whole, 1: gone
    float n = noise(s.worldPosition * 6.0 + float(s.instanceIndex) * 17.0);
    if (n < progress) {
        discard;
    }
    vec4 c = s.color * myriad_materialColor(s.uv);
    float edge = 1.0 - smoothstep(0.0, 0.06, n - progress);
    return SurfaceOutput(mix(c.rgb, vec3(4.0, 1.2, 0.2), edge * step(0.001, progress)), 1.0);
}
)";

} // namespace

int main(int argc, char** argv) try {
    // ---- Init ----
    const examples::ExampleSpec spec{
        .name = "05-dissolve",
        .summary = "twenty subjects sharing one material, each dissolving at its own rate through lane 0",
        .flags = {{"--time", "MS", "headless: the moment drawn, in milliseconds (each frame adds 16)", "1500",
                   examples::FlagKind::Number, {}, 0, 600000}},
        .controls = {},
        .unavailable = {},
        .width = 960,
        .height = 540,
        .cameraControls = false,
    };
    const examples::ExampleOptions options = examples::parseOptions(argc, argv, spec);
    examples::ExampleRunner runner(options, spec);
    const double startSeconds = static_cast<double>(options.number("--time")) / 1000.0;

    Scene scene;
    scene.clearColor = glm::vec4(0.02f, 0.02f, 0.03f, 1.0f);
    Material material;
    material.name = "dissolve";
    material.baseColor = glm::vec4(0.55f, 0.6f, 0.75f, 1.0f);
    material.doubleSided = true;  // the inside shows through the holes
    material.surface = SurfaceShader::fromSource("dissolve.glsl", kDissolve);
    auto sphere = MeshGeometry::create(shapes::uvSphere(0.4f, 32, 16), "subject");
    auto& subjects = scene.root().emplace<InstancedMeshNode>(sphere, material, kSubjects, "subjects");
    for (int i = 0; i < kSubjects; ++i) {
        const float x = static_cast<float>(i % 5) - 2.0f;
        const float y = 1.5f - static_cast<float>(i / 5);
        subjects.addInstance(glm::translate(glm::mat4(1.0f), glm::vec3(x * 1.1f, y * 1.0f, 0.0f)));
        // Rates from 0.1 to 0.6 per second: at any moment the twenty are at different stages.
        subjects.setLane(static_cast<std::size_t>(i), 0, glm::vec4(0.0f, 0.1f + 0.025f * static_cast<float>(i), 0, 0));
    }
    Camera camera;
    camera.setPerspective(glm::radians(45.0f), runner.aspect(), 0.1f, 100.0f);
    camera.lookAt(glm::vec3(0, 0, 7), glm::vec3(0, 0, 0));

    // ---- Update / Draw ----
    examples::FrameCallbacks callbacks;
    callbacks.update = [&](int frame, double seconds) {
        const double now = runner.windowed() ? seconds : startSeconds + 0.016 * frame;
        for (std::size_t i = 0; i < kSubjects; ++i) {
            const float rate = subjects.lane(i, 0).y;
            // Dissolve over 1 / rate seconds, hold gone for a moment, come back: a loop.
            const float phase = static_cast<float>(std::fmod(now * rate, 1.2));
            subjects.setLane(i, 0, glm::vec4(std::min(phase, 1.0f), rate, 0, 0));
        }
    };
    const int code = runner.run(scene, camera, callbacks);
    std::printf("05-dissolve: %d subjects, one material, one draw call; lane 0 = (progress, rate)\n", kSubjects);
    return code;
} catch (const myriad::Error& e) {
    std::fprintf(stderr, "05-dissolve: %s\n", e.what());
    return 1;
}
