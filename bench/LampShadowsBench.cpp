// Issue 20's lamp shadow benchmark (docs/lighting.md "Lamp shadows", docs/performance.md#lamp-shadows):
// a yard of static props (an instanced batch of boxes and some separate mesh nodes, all
// SceneNode::setShadowIsStatic) and one box that moves every frame, under a spot lamp and a
// point lamp that cast shadows; frame cost with LampShadowBudget::staticCache on (static casters
// drawn once into the cache, copied into the atlas each frame, the mover drawn over it) and off
// (every caster into every tile every frame).
//   myriad_lamp_shadows_bench [--props N] [--frames F] [--out FILE.md]
#include "BenchSupport.h"

#include "myriad/core/Camera.h"
#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/LightNode.h"
#include "myriad/core/MeshNode.h"
#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/egl/HeadlessContext.h"
#include "myriad/gl/Draw.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/Renderer.h"
#include "myriad/gl/View.h"

#include <glm/gtc/matrix_transform.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

using namespace myriad;
using namespace myriad::bench;

namespace {

constexpr std::uint32_t kTargetSide = 256;
constexpr float kYard = 16.0f;  // the yard's side, metres
constexpr int kSeparateNodes = 200;

CountFramesOut parse(int argc, char** argv) {
    return parseCountFramesOut(argc, argv, "--props", {.count = 20000, .frames = 10, .out = {}},
                               "usage: myriad_lamp_shadows_bench [--props N] [--frames F] [--out FILE.md]\n"
                               "  --props   static instanced props in the yard (default 20000)\n"
                               "  --frames  timed frames per row, after 3 warm-up frames (default 10)\n"
                               "  --out     also write the report to this Markdown file (default none)\n");
}

} // namespace

int main(int argc, char** argv) try {
    const CountFramesOut options = parse(argc, argv);
    egl::HeadlessContext context;
    Report report(options.out);
    report.line("# Lamp shadows: %zu static props and one moving box under a shadowed spot and point lamp (issue 20)",
                options.count);
    report.blank();
    report.line("GL: %s. Target %ux%u; a %.0f m yard: %zu boxes of 0.2 m in one instanced batch and %d separate "
                "mesh nodes, all static casters, one 0.5 m box moving every frame; a spot lamp (one tile) and a "
                "point lamp (six tiles) casting, tiles of 512 texels. Medians of %d frames after 3 warm-up frames.",
                driverLine(context).c_str(), kTargetSide, kTargetSide, static_cast<double>(kYard), options.count,
                kSeparateNodes, options.frames);
    report.blank();
    Scene scene;
    scene.light.intensity = 0.0f;
    scene.ambient = glm::vec3(0.05f);
    scene.root().emplace<MeshNode>(MeshGeometry::create(shapes::plane(kYard * 1.5f, kYard * 1.5f)), Material{}, "ground")
        .setShadowIsStatic(true);
    Material prop;
    prop.baseColor = glm::vec4(0.8f, 0.6f, 0.3f, 1.0f);
    auto& props = scene.root().emplace<InstancedMeshNode>(MeshGeometry::create(shapes::box(0.2f)), prop, options.count, "props");
    props.setShadowIsStatic(true);
    for (std::size_t i = 0; i < options.count; ++i) {
        const auto seed = static_cast<std::uint32_t>(i);
        props.addInstance(glm::translate(glm::mat4(1.0f), glm::vec3((hash01(2 * seed) - 0.5f) * kYard, 0.1f,
                                                                    (hash01(2 * seed + 1) - 0.5f) * kYard)));
    }
    const auto pillar = MeshGeometry::create(shapes::box(0.3f));
    for (int i = 0; i < kSeparateNodes; ++i) {
        const auto seed = static_cast<std::uint32_t>(5000 + i);
        auto& node = scene.root().emplace<MeshNode>(pillar, prop, "pillar");
        node.setPosition({(hash01(2 * seed) - 0.5f) * kYard, 0.15, (hash01(2 * seed + 1) - 0.5f) * kYard});
        node.setShadowIsStatic(true);
    }
    auto& mover = scene.root().emplace<MeshNode>(MeshGeometry::create(shapes::box(0.5f)), prop, "mover");
    auto& spot = scene.root().emplace<LightNode>(LightType::Spot, "spot");
    spot.setPosition({-3.0, 5.0, 0.0});
    spot.lookAt({-3.0, 0.0, 0.0}, glm::vec3(0.0f, 0.0f, -1.0f));
    spot.setConeAngles(0.6f, 0.9f);
    spot.setIntensity(40.0f);
    spot.setRange(20.0f);
    spot.setCastsShadow(true);
    auto& bulb = scene.root().emplace<LightNode>(LightType::Point, "bulb");
    bulb.setPosition({3.0, 3.0, 0.0});
    bulb.setIntensity(20.0f);
    bulb.setRange(20.0f);
    bulb.setCastsShadow(true);
    gl::OffscreenTarget target(kTargetSide, kTargetSide, "lamp-shadows-bench-target");
    Camera camera;
    camera.setPerspective(glm::radians(60.0f), 1.0f, 0.3f, 100.0f);
    camera.lookAt(glm::dvec3(0.0, 14.0, 14.0), glm::dvec3(0.0));
    report.line("| static cache | static tiles drawn per frame | draw calls | render() ms | myriad CPU ms | wall ms (render + glFinish) |");
    report.line("|---|---:|---:|---:|---:|---:|");
    for (const bool cache : {false, true}) {
        std::fprintf(stderr, "%s ", cache ? "cached" : "uncached");
        scene.lampShadows.staticCache = cache;
        gl::Renderer renderer;
        std::vector<double> frameMs, myriadMs, wallMs;
        double staticDraws = 0.0;
        std::uint64_t drawCalls = 0;
        for (int f = -3; f < options.frames; ++f) {
            const float t = 0.1f * static_cast<float>(f + 3);
            mover.setPosition({std::sin(t) * 4.0, 0.25, std::cos(t) * 4.0});
            const auto start = Clock::now();
            renderer.render(scene, gl::View::of(camera, target));
            gl::finish();
            const double wall = millisecondsSince(start);
            const gl::FrameStats& stats = renderer.lastFrameStats();
            if (f >= 0) {
                frameMs.push_back(stats.frameMs);
                myriadMs.push_back(stats.myriadMs());
                wallMs.push_back(wall);
                staticDraws += stats.lampShadowStaticDraws;
                drawCalls = stats.drawCalls;
            }
            std::fprintf(stderr, ".");
        }
        std::fprintf(stderr, "\n");
        report.line("| %s | %.1f | %llu | %.2f | %.3f | %.1f |", cache ? "on" : "off",
                    staticDraws / static_cast<double>(options.frames), static_cast<unsigned long long>(drawCalls),
                    median(frameMs), median(myriadMs), median(wallMs));
    }
    return 0;
} catch (const std::exception& e) {
    std::fprintf(stderr, "myriad_lamp_shadows_bench: %s\n", e.what());
    return 1;
}
