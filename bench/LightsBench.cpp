// Issue 20's lamp benchmark (docs/lighting.md, docs/performance.md#lamps): a field of instanced
// props on a ground lit by 0, 16 or 256 point and spot lamps in view, through the clustered light
// list; and 256 lamps with every fragment testing every lamp (RendererDesc::lightClusters
// {1, 1, 1}), the cost the clusters save; and the 256 lamps baked into the ground's lightmap
// (illuminance(), Material::lightmapTexture) and hidden, the cost a bake saves. It prints the
// lamps listed, the bytes the frame sent and the frame's cost.
//   myriad_lights_bench [--props N] [--frames F] [--out FILE.md]
#include "BenchSupport.h"

#include "myriad/core/Camera.h"
#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/LightEvaluation.h"
#include "myriad/core/Lightmap.h"
#include "myriad/core/LightNode.h"
#include "myriad/core/MeshNode.h"
#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/egl/HeadlessContext.h"
#include "myriad/gl/Draw.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/Renderer.h"
#include "myriad/gl/View.h"
#include "myriad/util/Error.h"

#include <glm/gtc/constants.hpp>
#include <glm/gtc/matrix_transform.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <cstdio>
#include <string>
#include <vector>

using namespace myriad;
using namespace myriad::bench;

namespace {

constexpr std::uint32_t kTargetWidth = 512;
constexpr std::uint32_t kTargetHeight = 256;
constexpr float kField = 60.0f;  // the field's side, metres


CountFramesOut parse(int argc, char** argv) {
    return parseCountFramesOut(argc, argv, "--props", {.count = 20000, .frames = 10, .out = {}},
                               "usage: myriad_lights_bench [--props N] [--frames F] [--out FILE.md]\n"
                               "  --props   instanced props on the field (default 20000)\n"
                               "  --frames  timed frames per row, after 3 warm-up frames (default 10)\n"
                               "  --out     also write the report to this Markdown file (default none)\n");
}

struct Row {
    const char* name;
    int lamps;
    bool everyLamp;      ///< lightClusters {1, 1, 1}
    bool baked = false;  ///< the 256 lamps baked into the ground's lightmap and hidden
};

/** The lamps' light on the ground (a plane of side @p side at y = 0, uv1 = its uv0), baked per
 *  texel as E / pi with illuminance() (docs/lighting.md, "Lightmaps"), plus @p ambient, into
 *  @p ground's lightmap (encodeLightmap()); returns its intensity. */
float bakeGround(const std::vector<LightNode*>& lamps, float side, const glm::vec3& ambient, std::uint32_t n,
                 Material& ground) {
    std::vector<glm::vec3> radiance(std::size_t{n} * n, ambient);
    for (std::uint32_t j = 0; j < n; ++j) {
        for (std::uint32_t i = 0; i < n; ++i) {
            const glm::dvec3 p(((i + 0.5) / n - 0.5) * side, 0.0, ((j + 0.5) / n - 0.5) * side);
            for (const LightNode* lamp : lamps) {
                radiance[std::size_t{j} * n + i] += illuminance(*lamp, p, glm::vec3(0.0f, 1.0f, 0.0f)) / glm::pi<float>();
            }
        }
    }
    const EncodedLightmap lightmap = encodeLightmap(n, n, radiance);
    ground.lightmapTexture.image = lightmap.image;
    ground.lightmapIntensity = lightmap.intensity;
    return lightmap.intensity;
}

} // namespace

int main(int argc, char** argv) try {
    const CountFramesOut options = parse(argc, argv);
    egl::HeadlessContext context;
    Report report(options.out);
    report.line("# Lamps: %zu props under 0, 16 and 256 lamps (issue 20)", options.count);
    report.blank();
    report.line("GL: %s. Target %ux%u; a %.0f m field of props (boxes of 0.5 m, metallic-roughness) on a ground, the "
                "camera 14 m up looking across it, turning a little each frame; lamps 1.5 m above the field, every "
                "third a spot, ranges 4-8 m, all in view. Medians of %d frames after 3 warm-up frames.",
                driverLine(context).c_str(), kTargetWidth, kTargetHeight, static_cast<double>(kField), options.frames);
    report.blank();
    Scene scene;
    scene.light.intensity = 0.05f;  // a dim moon: the lamps make the picture
    scene.ambient = glm::vec3(0.02f);
    Material ground;
    ground.shading = Shading::MetallicRoughness;
    ground.baseColor = glm::vec4(0.3f, 0.35f, 0.3f, 1.0f);
    MeshData groundData = shapes::plane(kField * 1.5f, kField * 1.5f);
    groundData.uv1 = groundData.uv0;  // where the last row's lightmap lies
    auto& groundNode = scene.root().emplace<MeshNode>(MeshGeometry::create(std::move(groundData)), ground, "ground");
    Material prop;
    prop.shading = Shading::MetallicRoughness;
    prop.baseColor = glm::vec4(0.8f, 0.6f, 0.3f, 1.0f);
    prop.roughness = 0.5f;
    auto& props = scene.root().emplace<InstancedMeshNode>(MeshGeometry::create(shapes::box(0.5f)), prop, options.count, "props");
    for (std::size_t i = 0; i < options.count; ++i) {
        const auto seed = static_cast<std::uint32_t>(i);
        props.addInstance(glm::translate(glm::mat4(1.0f), glm::vec3((hash01(2 * seed) - 0.5f) * kField, 0.25f,
                                                                    (hash01(2 * seed + 1) - 0.5f) * kField)));
    }
    std::vector<LightNode*> lamps;
    for (int i = 0; i < 256; ++i) {
        const auto seed = static_cast<std::uint32_t>(1000 + i);
        auto& lamp = scene.root().emplace<LightNode>(i % 3 == 0 ? LightType::Spot : LightType::Point, "lamp");
        lamp.setPosition({(hash01(2 * seed) - 0.5f) * kField * 0.8f, 1.5, (hash01(2 * seed + 1) - 0.5f) * kField * 0.8f});
        lamp.lookAt(lamp.worldPosition() + glm::dvec3(0.0, -1.0, 0.3));
        lamp.setConeAngles(0.4f, 0.7f);
        lamp.setColor({1.0f, 0.6f + 0.4f * hash01(seed), 0.3f + 0.5f * hash01(seed * 3)});
        lamp.setIntensity(20.0f);
        lamp.setRange(4.0f + 4.0f * hash01(seed * 7));
        lamps.push_back(&lamp);
    }
    gl::OffscreenTarget target(kTargetWidth, kTargetHeight, "lights-bench-target");
    Camera camera;
    camera.setPerspective(glm::radians(70.0f), static_cast<float>(kTargetWidth) / kTargetHeight, 0.3f, 500.0f);
    const Row rows[] = {
        {"0 lamps", 0, false},
        {"16 lamps", 16, false},
        {"256 lamps", 256, false},
        {"256 lamps, every lamp per fragment (lightClusters {1, 1, 1})", 256, true},
        {"256 lamps baked into the ground's 512x512 lightmap, lamps hidden (the props get none)", 0, false, true},
    };
    report.line("| lamps | lamps listed | render() ms | myriad CPU ms | upload ms | bytes uploaded | wall ms (render + glFinish) |");
    report.line("|---|---:|---:|---:|---:|---:|---:|");
    double bakeMs = 0.0;
    float bakedIntensity = 1.0f;
    for (const Row& row : rows) {
        std::fprintf(stderr, "%s ", row.name);
        for (std::size_t i = 0; i < lamps.size(); ++i) {
            lamps[i]->setVisible(static_cast<int>(i) < row.lamps);
        }
        if (row.baked) {
            const auto start = Clock::now();
            bakedIntensity = bakeGround(lamps, kField * 1.5f, scene.ambient, 512, groundNode.material());
            bakeMs = millisecondsSince(start);
        }
        gl::RendererDesc desc;
        if (row.everyLamp) {
            desc.lightClusters = {1, 1, 1};
        }
        gl::Renderer renderer(desc);
        std::vector<double> frameMs, myriadMs, uploadMs, wallMs;
        std::uint64_t listed = 0;
        std::uint64_t bytes = 0;
        for (int f = -3; f < options.frames; ++f) {
            const float angle = 0.01f * static_cast<float>(f + 3);
            const glm::vec3 eye(0.0f, 14.0f, 0.55f * kField);
            camera.lookAt(eye, glm::vec3(std::sin(angle) * 10.0f, 0.0f, 0.0f));
            const auto start = Clock::now();
            renderer.render(scene, gl::View::of(camera, target));
            gl::finish();
            const double wall = millisecondsSince(start);
            const gl::FrameStats& stats = renderer.lastFrameStats();
            if (f >= 0) {
                frameMs.push_back(stats.frameMs);
                myriadMs.push_back(stats.myriadMs());
                uploadMs.push_back(stats.uploadMs);
                wallMs.push_back(wall);
            }
            listed = stats.lampsListed;
            bytes = stats.bytesUploaded;
            std::fprintf(stderr, ".");
        }
        std::fprintf(stderr, "\n");
        report.line("| %s | %llu | %.2f | %.3f | %.3f | %llu | %.1f |", row.name, static_cast<unsigned long long>(listed),
                    median(frameMs), median(myriadMs), median(uploadMs), static_cast<unsigned long long>(bytes),
                    median(wallMs));
    }
    report.blank();
    report.line("The bake (the last row's, once, on the CPU: 512 x 512 texels x 256 lamps through illuminance()) took "
                "%.0f ms; its lightmap intensity %.2f.", bakeMs, static_cast<double>(bakedIntensity));
    return 0;
} catch (const std::exception& e) {
    std::fprintf(stderr, "myriad_lights_bench: %s\n", e.what());
    return 1;
}
