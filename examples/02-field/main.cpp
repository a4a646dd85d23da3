// 02-field: a glTF model drawn --count times (default 10,000) in one instanced draw per
// primitive, on a jittered grid with random yaw, scale and colour, under an orbiting camera.
//
// At dusk: a low sun, image-based ambient from an evening sky (or --sky PATH.hdr) and --lamps
// lantern posts (spot and point LightNodes, default 12).
// Shows: importing glTF, one InstancedMeshNode per primitive sharing the same transforms,
// per-frame statistics. --model PATH (default KenneyPlatformerKit/grass.glb), --count N.
// --mode churn: 10% of the blades come and go each frame (release + acquire by handle); the
// per-frame line shows the bytes uploaded, about 10% of the batch plus the moved records.
// --mode wind: the blades are a ScatterNode (32 bytes each, half the 64-byte record) swaying in
// a gusty wind bent in the vertex stage, one draw call per primitive.
// --lod on (the default): each blade batch is a two-level LOD chain, level 1 generated from the
// blade with meshoptimizer's simplifier (myriad::lod), drawn past the camera's orbit radius; the
// last lines say how many blades drew each level. --lod off: every blade draws the full mesh.
// Controls: the camera orbits by itself until the mouse or WASD takes over (see --help).
#include "common/CameraController.h"
#include "common/ExampleRunner.h"
#include "common/Lanterns.h"
#include "common/Sky.h"

#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Scatter.h"
#include "myriad/core/Shapes.h"
#include "myriad/gltf/GltfImporter.h"
#include "myriad/lod/GenerateLod.h"
#include "myriad/util/Error.h"

#include <glm/gtc/matrix_transform.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <new>
#include <random>
#include <vector>

using namespace myriad;

namespace {

struct Placement {
    glm::mat4 transform;
    glm::vec4 color;
};

// A jittered square grid, one cell per instance, cells `spacing` apart, centred on the origin.
std::vector<Placement> scatter(std::size_t count, float spacing, float baseScale, unsigned seed) {
    std::mt19937 random(seed);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    const auto side = static_cast<std::size_t>(std::ceil(std::sqrt(static_cast<double>(count))));
    const float half = static_cast<float>(side) * spacing * 0.5f;
    std::vector<Placement> placements;
    placements.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
        const float x = (static_cast<float>(i % side) + unit(random)) * spacing - half;
        const float z = (static_cast<float>(i / side) + unit(random)) * spacing - half;
        const float yaw = unit(random) * 6.2832f;
        const float scale = baseScale * (0.7f + 0.6f * unit(random));
        const glm::mat4 transform = glm::translate(glm::mat4(1.0f), glm::vec3(x, 0.0f, z)) *
                                    glm::rotate(glm::mat4(1.0f), yaw, glm::vec3(0, 1, 0)) *
                                    glm::scale(glm::mat4(1.0f), glm::vec3(scale));
        // Greens and yellows, a little variation per blade: multiplies the texture colour.
        const float tint = unit(random);
        const glm::vec4 color(0.85f + 0.3f * tint, 1.0f, 0.45f + 0.15f * unit(random), 1.0f);
        placements.push_back({transform, color});
    }
    return placements;
}

} // namespace

int main(int argc, char** argv) try {
    // ---- Init ----
    const examples::ExampleSpec spec{
        .name = "02-field",
        .summary = "a glTF model drawn many times in one instanced draw per primitive, on a "
                   "jittered grid with random yaw, scale and colour, under an orbiting camera",
        .flags = {{"--model", "PATH", "the .glb or .gltf to scatter",
                   std::string(MYRIAD_ASSETS_DIR) + "/KenneyPlatformerKit/grass.glb", examples::FlagKind::Text, {}, 0, 0},
                  {"--count", "N", "copies of the model", "10000", examples::FlagKind::Number, {}, 1, 2'000'000},
                  {"--mode", "WHICH", "static: placed once; churn: 10% of the copies are released and acquired "
                   "again by handle each frame; wind: a ScatterNode swaying in the wind", "static", examples::FlagKind::Choice,
                   {"static", "churn", "wind"}, 0, 0},
                  {"--lod", "WHICH", "on: blades past the orbit radius draw a simplified level (meshoptimizer); "
                   "off: the full blade everywhere (not with --mode wind)", "on", examples::FlagKind::Choice,
                   {"on", "off"}, 0, 0},
                  {"--sky", "PATH", "an equirectangular .hdr image for the image-based ambient; empty: a generated "
                   "evening sky (docs/lighting.md)", "", examples::FlagKind::Text, {}, 0, 0},
                  {"--lamps", "N", "lantern posts standing in the field at dusk, every other one a spot lamp, "
                   "the rest point lamps (LightNodes, docs/lighting.md)", "12", examples::FlagKind::Number, {}, 0, 1024}},
        .controls = {"the camera orbits by itself until you move it"},
        .unavailable = {},
        .width = 1280,
        .height = 720,
        .cameraControls = true,
    };
    const examples::ExampleOptions options = examples::parseOptions(argc, argv, spec);
    const bool churn = options.text("--mode") == "churn";
    const bool windy = options.text("--mode") == "wind";
    const bool lod = options.text("--lod") == "on" && !windy;
    const auto count = static_cast<std::size_t>(options.number("--count"));
    const std::string& modelPath = options.text("--model");
    examples::ExampleRunner runner(options, spec);

    const gltf::ImportedModel model = gltf::importModel(modelPath);
    const glm::vec3 size = model.bounds.max - model.bounds.min;
    const float footprint = std::max({size.x, size.z, 1e-3f});
    // Models come in any unit: scale so one instance is about 0.5 wide, as the Kenney grass is.
    const float baseScale = 0.5f / footprint;
    const float spacing = 0.45f;
    const std::vector<Placement> placements = scatter(count, spacing, baseScale, 20261130u);
    std::printf("02-field: %s, %zu primitive(s), %zu instances\n", modelPath.c_str(),
                model.primitives.size(), placements.size());

    // Dusk: a low, warm sun and a cooler sky, so the lanterns' pools of light show.
    Scene scene;
    scene.clearColor = glm::vec4(0.12f, 0.15f, 0.28f, 1.0f);  // sky
    scene.light.direction = glm::vec3(-0.8f, -0.3f, -0.35f);
    scene.environment = examples::skyFor("02-field", options.text("--sky"), glm::normalize(scene.light.direction));
    scene.environmentIntensity = 0.55f;  // late dusk: the sky's light fading
    scene.light.color = glm::vec3(1.0f, 0.72f, 0.45f);
    scene.light.intensity = 0.6f;
    SceneNode& field = scene.root().emplace<SceneNode>("field");
    // One batch per primitive; blade k is handles[b][k] in batch b.
    std::vector<InstancedMeshNode*> batches;
    std::vector<std::vector<InstanceHandle>> handles;
    std::vector<ScatterNode*> meadows;
    for (const gltf::ImportedPrimitive& primitive : model.primitives) {
        if (windy) {
            // The same placements as yaw + uniform scale: 32 bytes a blade instead of 64.
            std::mt19937 random(20261130u);
            std::uniform_real_distribution<float> unit(0.0f, 1.0f);
            auto& meadow = field.emplace<ScatterNode>(primitive.mesh, primitive.material, placements.size(),
                                                      "field/" + primitive.name);
            meadow.setPosition(glm::dvec3(0.0, -model.bounds.min.y * baseScale, 0.0));
            for (const Placement& p : placements) {
                const glm::vec3 x(p.transform[0]);
                const float scale = glm::length(x);
                const float yaw = std::atan2(-p.transform[0][2], p.transform[0][0]);
                meadow.add({glm::vec3(p.transform[3]), yaw, scale, 0.6f + 0.8f * unit(random),
                            0.4f * (unit(random) - 0.5f), unit(random)});
            }
            meadow.wind.strength = 0.25f;
            meadows.push_back(&meadow);
            continue;
        }
        // The model's own origin offset moves with it: lift it so it stands on y = 0.
        auto& batch = field.emplace<InstancedMeshNode>(primitive.mesh, primitive.material,
                                                       placements.size(), "field/" + primitive.name);
        batch.setPosition(glm::dvec3(0.0, -model.bounds.min.y * baseScale, 0.0));
        handles.emplace_back();
        for (const Placement& p : placements) {
            if (churn) {
                handles.back().push_back(batch.acquire({p.transform, p.color}));
            } else {
                batch.addInstance(p.transform, p.color);
            }
        }
        batches.push_back(&batch);
    }
    // Churn: a second scatter over the same cells (other jitter, yaw and colour): a blade that
    // comes back grows in the cell of the one that went, so the field keeps its density.
    const std::vector<Placement> spares =
        churn ? scatter(count, spacing, baseScale, 7u) : std::vector<Placement>{};
    std::mt19937 churnRandom(7u);
    const float extent = std::sqrt(static_cast<float>(placements.size())) * spacing;
    Material soil;
    soil.baseColor = glm::vec4(0.28f, 0.2f, 0.12f, 1.0f);
    auto ground = MeshGeometry::create(shapes::quad(extent + 2.0f, extent + 2.0f), "ground");
    auto& groundNode = scene.root().emplace<MeshNode>(ground, soil, "ground");
    groundNode.setRotation(glm::angleAxis(glm::radians(-90.0f), glm::vec3(1, 0, 0)));

    // ---- Lantern posts: on a jittered grid over the field ----
    const auto lampCount = static_cast<std::size_t>(options.number("--lamps"));
    if (lampCount > 0) {
        std::mt19937 random(5u);
        std::uniform_real_distribution<float> unit(0.0f, 1.0f);
        const auto side = static_cast<std::size_t>(std::ceil(std::sqrt(static_cast<double>(lampCount))));
        const float cell = extent / static_cast<float>(side);
        std::vector<glm::vec3> feet;
        for (std::size_t i = 0; i < lampCount; ++i) {
            feet.emplace_back((static_cast<float>(i % side) + 0.25f + 0.5f * unit(random)) * cell - extent * 0.5f, 0.0f,
                              (static_cast<float>(i / side) + 0.25f + 0.5f * unit(random)) * cell - extent * 0.5f);
        }
        examples::LanternStyle style;
        style.height = std::clamp(extent * 0.08f, 1.2f, 2.5f);  // lamps the size of the field
        style.spotRange = style.height * 3.6f;
        style.pointRange = style.height * 2.8f;
        style.spotIntensity = 30.0f;  // candela: about 5 lux under a 2.5 m post, beside the low sun's 1.9
        style.pointIntensity = 14.0f;
        examples::addLanternPosts(scene, feet, style);
        std::printf("02-field: %zu lantern posts (%zu spot, %zu point lamps)\n", lampCount, (lampCount + 1) / 2,
                    lampCount / 2);
    }

    Camera camera;
    examples::CameraController controller(camera, glm::radians(55.0f), 0.1f, extent * 4.0f + 10.0f);
    {
        const float angle = 0.6f;
        const float radius = extent * 0.55f + 2.0f;
        controller.lookAt(glm::vec3(std::cos(angle) * radius, extent * 0.22f + 1.5f, std::sin(angle) * radius),
                          glm::vec3(0.0f));
        controller.setAutoOrbit(-0.6f);  // 0.02 radians a frame at 30 frames a second
        controller.setFlySpeed(std::max(extent * 0.25f, 2.0f));
    }
    runner.setCameraController(&controller);

    // ---- Level of detail: the far half of the field draws a simpler blade ----
    if (lod) {
        const float switchDistance = extent * 0.55f + 2.0f;  // the orbit radius
        for (InstancedMeshNode* batch : batches) {
            // A quarter of the clump's triangles, within 20 % of its size. The Kenney clump is
            // flat-shaded, thin open sheets: the topology-preserving simplifier keeps all 72
            // triangles, so the level is made with the sloppy one (holes do not show that far).
            const LodTarget targets[] = {{.indexRatio = 0.25f, .targetError = 0.2f,
                                          .switchDistance = std::numeric_limits<float>::infinity(),
                                          .sloppy = true}};
            const LodChain chain = generateLodChain(batch->mesh(), switchDistance, targets);
            batch->setLodChain(chain);
            std::printf("02-field: %s: level 0 %u triangles, level 1 %u triangles, switching at %.1f\n",
                        batch->name().c_str(), chain.levels[0].mesh->triangleCount(),
                        chain.levels[1].mesh->triangleCount(), static_cast<double>(switchDistance));
        }
    }

    // ---- Update: churn ----
    examples::FrameCallbacks callbacks;
    callbacks.update = [&](int frame, double /*seconds*/) {  // the controller moves the camera
        for (ScatterNode* meadow : meadows) {
            meadow->wind.time = static_cast<float>(frame) / 30.0f;
        }
        if (churn && !placements.empty()) {
            const std::size_t changes = std::max<std::size_t>(1, placements.size() / 10);
            std::uniform_int_distribution<std::size_t> pick(0, placements.size() - 1);
            for (std::size_t c = 0; c < changes; ++c) {
                const std::size_t blade = pick(churnRandom);
                const Placement& spare = (frame % 2 == 0 ? spares : placements)[blade];
                for (std::size_t b = 0; b < batches.size(); ++b) {
                    batches[b]->release(handles[b][blade]);  // the last blade moves into the hole
                    handles[b][blade] = batches[b]->acquire({spare.transform, spare.color});
                }
            }
        }
    };

    // ---- Draw / Shutdown ----
    const int status = runner.run(scene, camera, callbacks);
    if (lod) {
        const gl::FrameStats& stats = runner.renderer().lastFrameStats();
        std::printf("02-field: LOD in the last frame: level 0 %llu blades, level 1 %llu blades\n",
                    static_cast<unsigned long long>(stats.lodInstances[0]),
                    static_cast<unsigned long long>(stats.lodInstances[1]));
    }
    return status;
} catch (const myriad::Error& e) {
    std::fprintf(stderr, "02-field: %s\n", e.what());
    return 1;
} catch (const std::bad_alloc&) {
    std::fprintf(stderr, "02-field: out of memory; try a smaller --count\n");
    return 1;
}
