// Issue 20's image-based ambient (docs/lighting.md "Image-based ambient"): what an Environment
// costs once, when it is made (the SH projection, CPU) and on its first frame (the renderer's GGX
// prefilter of its map, GPU), and what it costs per frame afterwards, against the flat ambient.
//   myriad_environment_bench [--height H] [--frames F] [--out FILE.md]
#include "BenchSupport.h"

#include "myriad/core/Camera.h"
#include "myriad/core/Environment.h"
#include "myriad/core/MeshNode.h"
#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/egl/HeadlessContext.h"
#include "myriad/gl/Draw.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/Renderer.h"
#include "myriad/gl/View.h"

#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

using namespace myriad;
using namespace myriad::bench;

namespace {

/** A procedural sky: a bright gradient above, a warm ground below, a small hot sun. */
std::vector<float> skyImage(std::uint32_t width, std::uint32_t height) {
    std::vector<float> rgb;
    rgb.reserve(std::size_t{width} * height * 3);
    const glm::vec3 sun = glm::normalize(glm::vec3(0.3f, 0.6f, -0.7f));
    for (std::uint32_t j = 0; j < height; ++j) {
        for (std::uint32_t i = 0; i < width; ++i) {
            const glm::vec3 d = Environment::uvToDirection({(i + 0.5f) / width, (j + 0.5f) / height});
            glm::vec3 c = d.y > 0.0f ? glm::mix(glm::vec3(0.6f, 0.7f, 0.9f), glm::vec3(0.2f, 0.35f, 0.8f), d.y)
                                     : glm::vec3(0.25f, 0.2f, 0.15f);
            if (glm::dot(d, sun) > 0.999f) {
                c += glm::vec3(50.0f);
            }
            rgb.insert(rgb.end(), {c.r, c.g, c.b});
        }
    }
    return rgb;
}

} // namespace

int main(int argc, char** argv) try {
    const CountFramesOut options =
        parseCountFramesOut(argc, argv, "--height", {.count = 512, .frames = 10, .out = {}},
                            "usage: myriad_environment_bench [--height H] [--frames F] [--out FILE.md]\n"
                            "  --height  rows of the equirectangular image, its width twice that (default 512)\n"
                            "  --frames  timed steady frames per row, after 3 warm-up frames (default 10)\n"
                            "  --out     also write the report to this Markdown file (default none)\n");
    const auto height = static_cast<std::uint32_t>(options.count);
    egl::HeadlessContext context;
    Report report(options.out);
    report.line("# Image-based ambient: a %ux%u environment (issue 20)", 2 * height, height);
    report.blank();
    report.line("GL: %s. Target 512x512; a sphere of 64 x 32 segments, metallic-roughness, filling most of it.",
                driverLine(context).c_str());
    report.blank();
    std::vector<float> rgb = skyImage(2 * height, height);
    auto start = Clock::now();
    auto environment = std::make_shared<const Environment>(2 * height, height, std::move(rgb));
    const double shMs = millisecondsSince(start);

    Scene scene;
    Material metal;
    metal.shading = Shading::MetallicRoughness;
    metal.metallic = 1.0f;
    metal.roughness = 0.3f;
    scene.root().emplace<MeshNode>(MeshGeometry::create(shapes::uvSphere(1.0f, 64, 32)), metal, "sphere");
    gl::OffscreenTarget target(512, 512, "environment-bench-target");
    Camera camera;
    camera.setPerspective(glm::radians(50.0f), 1.0f, 0.1f, 100.0f);
    camera.lookAt(glm::dvec3(0.0, 0.0, 2.5), glm::dvec3(0.0));
    gl::Renderer renderer;
    const auto frame = [&] {
        const auto begin = Clock::now();
        renderer.render(scene, gl::View::of(camera, target));
        gl::finish();
        return millisecondsSince(begin);
    };
    const auto steady = [&] {
        std::vector<double> wall;
        for (int f = -3; f < options.frames; ++f) {
            const double ms = frame();
            if (f >= 0) {
                wall.push_back(ms);
            }
        }
        return median(wall);
    };
    const double flatMs = steady();  // flat ambient: programs compiled, nothing else new
    scene.environment = environment;
    scene.environmentIntensity = 1.0f;
    // The first frame with the environment builds its map (and compiles the prefilter and the
    // kImageAmbient variant); a second Environment of the same image then shows the build alone.
    const double firstMs = frame();
    const double environmentMs = steady();
    scene.environment = std::make_shared<const Environment>(
        2 * height, height, std::vector<float>(environment->pixels().begin(), environment->pixels().end()));
    const double rebuildMs = frame();
    report.line("| what | ms |");
    report.line("|---|---:|");
    report.line("| Environment made: SH projection (CPU, once) | %.1f |", shMs);
    report.line("| first frame with it: prefilter + compiles (wall, render + glFinish) | %.1f |", firstMs);
    report.line("| a new Environment's first frame: prefilter alone (wall) | %.1f |", rebuildMs);
    report.line("| steady frame, flat ambient (wall, median) | %.2f |", flatMs);
    report.line("| steady frame, image-based ambient (wall, median) | %.2f |", environmentMs);
    return 0;
} catch (const std::exception& e) {
    std::fprintf(stderr, "myriad_environment_bench: %s\n", e.what());
    return 1;
}
