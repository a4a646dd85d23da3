// 09-night: a meadow at night lit by --lamps lamps (default 200): lantern posts with warm
// spot and point lamps, and fireflies, small green point lamps drifting over the grass, all
// through the clustered light list; instanced grass, gold coins and rocks under a dim moon.
//
// Shows: LightNode (point and spot lamps in KHR_lights_punctual units: candela, metres,
// cone angles), many lamps a frame with each fragment paying only for its cluster's
// (RendererDesc::lightClusters), light channels (the fireflies reach the grass and the ground
// but not the coins, --channels off lets them), glTF metallic-roughness (the coins are metal),
// emission (the lantern globes). Each firefly is a lamp and a small unlit sphere that follows
// it. The per-frame line counts the lamps listed.
// Controls: the camera orbits by itself until the mouse or WASD takes over (see --help).
#include "common/CameraController.h"
#include "common/ExampleRunner.h"
#include "common/Lanterns.h"

#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/LightNode.h"
#include "myriad/core/MeshNode.h"
#include "myriad/core/Shapes.h"
#include "myriad/gltf/GltfImporter.h"
#include "myriad/util/Error.h"

#include <glm/gtc/matrix_transform.hpp>

#include <cmath>
#include <cstdio>
#include <new>
#include <random>
#include <vector>

using namespace myriad;

namespace {

constexpr float kMeadow = 40.0f;       // the meadow's side, metres
constexpr std::uint32_t kFireflyChannel = 0b10;  // channel 1: fireflies only

struct Firefly {
    LightNode* light;
    glm::vec3 centre;
    float phase;
    float speed;
};

/** One instanced batch per primitive of @p model, @p count copies scattered over the meadow. */
void scatterModel(Scene& scene, const gltf::ImportedModel& model, std::size_t count, float width, unsigned seed,
                  const char* name, std::uint32_t lightChannels) {
    std::mt19937 random(seed);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    const glm::vec3 size = model.bounds.max - model.bounds.min;
    const float scale = width / std::max({size.x, size.z, 1e-3f});
    std::vector<glm::mat4> placements;
    for (std::size_t i = 0; i < count; ++i) {
        const glm::vec3 at((unit(random) - 0.5f) * kMeadow, -model.bounds.min.y * scale, (unit(random) - 0.5f) * kMeadow);
        placements.push_back(glm::translate(glm::mat4(1.0f), at) *
                             glm::rotate(glm::mat4(1.0f), unit(random) * 6.2832f, glm::vec3(0, 1, 0)) *
                             glm::scale(glm::mat4(1.0f), glm::vec3(scale * (0.7f + 0.6f * unit(random)))));
    }
    for (const gltf::ImportedPrimitive& primitive : model.primitives) {
        auto& batch = scene.root().emplace<InstancedMeshNode>(primitive.mesh, primitive.material, count,
                                                              std::string(name) + "/" + primitive.name);
        batch.setLightChannels(lightChannels);
        for (const glm::mat4& p : placements) {
            batch.addInstance(p);
        }
    }
}

} // namespace

int main(int argc, char** argv) try {
    // ---- Init ----
    const examples::ExampleSpec spec{
        .name = "09-night",
        .summary = "a meadow at night: instanced grass, coins and rocks under lantern posts and fireflies, "
                   "every lamp a LightNode through the clustered light list",
        .flags = {{"--lamps", "N", "lamps in all: a fifth lantern posts (spot and point), the rest fireflies", "200",
                   examples::FlagKind::Number, {}, 0, 4096},
                  {"--grass", "N", "grass clumps", "20000", examples::FlagKind::Number, {}, 1, 1'000'000},
                  {"--channels", "WHICH", "on: fireflies light the grass and ground only (light channel 1); "
                   "off: everything", "on", examples::FlagKind::Choice, {"on", "off"}, 0, 0}},
        .controls = {"the camera orbits by itself until you move it"},
        .unavailable = {"lamp shadows, image-based ambient, fog and tone mapping (later parts of issue 20)"},
        .width = 1280,
        .height = 720,
        .cameraControls = true,
    };
    const examples::ExampleOptions options = examples::parseOptions(argc, argv, spec);
    const auto lampCount = static_cast<int>(options.number("--lamps"));
    const bool channels = options.text("--channels") == "on";
    examples::ExampleRunner runner(options, spec);

    Scene scene;
    scene.clearColor = glm::vec4(0.004f, 0.006f, 0.015f, 1.0f);  // night sky
    scene.ambient = glm::vec3(0.008f, 0.01f, 0.02f);
    scene.light.direction = glm::vec3(0.4f, -1.0f, 0.25f);  // the moon
    scene.light.color = glm::vec3(0.35f, 0.45f, 0.7f);
    scene.light.intensity = 0.06f;

    // Ground and props. Grass and ground accept the fireflies' channel; coins and rocks do not
    // (with --channels on).
    const std::uint32_t everyLight = 1u | kFireflyChannel;
    const std::uint32_t propChannels = channels ? 1u : everyLight;
    Material soil;
    soil.shading = Shading::MetallicRoughness;
    soil.baseColor = glm::vec4(0.16f, 0.12f, 0.08f, 1.0f);
    soil.roughness = 0.9f;
    auto& ground = scene.root().emplace<MeshNode>(MeshGeometry::create(shapes::plane(kMeadow + 10.0f, kMeadow + 10.0f), "ground"),
                                                  soil, "ground");
    ground.setLightChannels(everyLight);
    const std::string kit = std::string(MYRIAD_ASSETS_DIR) + "/KenneyPlatformerKit/";
    scatterModel(scene, gltf::importModel(kit + "grass.glb"), static_cast<std::size_t>(options.number("--grass")), 0.5f,
                 20261206u, "grass", everyLight);
    gltf::ImportedModel coin = gltf::importModel(kit + "coin.glb");
    for (gltf::ImportedPrimitive& primitive : coin.primitives) {  // gold: a polished metal
        primitive.material.metallic = 1.0f;
        primitive.material.roughness = 0.3f;
    }
    scatterModel(scene, coin, 400, 0.35f, 7u, "coins", propChannels);
    Material stone;
    stone.shading = Shading::MetallicRoughness;
    stone.baseColor = glm::vec4(0.4f, 0.38f, 0.35f, 1.0f);
    stone.roughness = 0.8f;
    auto& rocks = scene.root().emplace<InstancedMeshNode>(MeshGeometry::create(shapes::box(0.5f), "rock"), stone, 300, "rocks");
    rocks.setLightChannels(propChannels);
    {
        std::mt19937 random(3u);
        std::uniform_real_distribution<float> unit(0.0f, 1.0f);
        for (int i = 0; i < 300; ++i) {
            const glm::vec3 at((unit(random) - 0.5f) * kMeadow, 0.1f, (unit(random) - 0.5f) * kMeadow);
            rocks.addInstance(glm::translate(glm::mat4(1.0f), at) *
                              glm::rotate(glm::mat4(1.0f), unit(random) * 6.2832f, glm::normalize(glm::vec3(unit(random), 1.0f, unit(random)))) *
                              glm::scale(glm::mat4(1.0f), glm::vec3(0.4f + unit(random), 0.3f + 0.5f * unit(random), 0.5f + unit(random))));
        }
    }

    // Lantern posts: a pole, a glowing globe (emission), and a lamp: every other one a spot
    // pointing down, the others bare bulbs.
    const int posts = lampCount / 5;
    const int fireflies = lampCount - posts;
    std::mt19937 random(11u);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    std::vector<glm::vec3> feet;
    for (int i = 0; i < posts; ++i) {
        feet.emplace_back((unit(random) - 0.5f) * kMeadow * 0.9f, 0.0f, (unit(random) - 0.5f) * kMeadow * 0.9f);
    }
    examples::addLanternPosts(scene, feet);
    std::vector<Firefly> swarm;
    // Each firefly's glow: a small unlit sphere where its lamp is (its colour as is).
    Material glow;
    glow.shading = Shading::Unlit;
    glow.baseColor = glm::vec4(0.8f, 1.0f, 0.45f, 1.0f);
    auto& glows = scene.root().emplace<InstancedMeshNode>(MeshGeometry::create(shapes::uvSphere(0.035f, 8, 5), "glow"), glow,
                                                          static_cast<std::size_t>(std::max(fireflies, 1)), "firefly glows");
    for (int i = 0; i < fireflies; ++i) {
        auto& light = scene.root().emplace<LightNode>(LightType::Point, "firefly");
        light.setColor({0.55f, 1.0f, 0.3f});
        light.setIntensity(0.6f + 0.6f * unit(random));
        light.setRange(2.5f);
        light.setChannels(kFireflyChannel);
        swarm.push_back({&light,
                         glm::vec3((unit(random) - 0.5f) * kMeadow * 0.9f, 0.4f + 0.8f * unit(random),
                                   (unit(random) - 0.5f) * kMeadow * 0.9f),
                         unit(random) * 6.2832f, 0.5f + unit(random)});
        glows.addInstance(glm::translate(glm::mat4(1.0f), swarm.back().centre));
    }
    std::printf("09-night: %d lantern posts, %d fireflies (%d lamps), %lld grass clumps, 400 coins, 300 rocks\n", posts,
                fireflies, lampCount, static_cast<long long>(options.number("--grass")));

    Camera camera;
    examples::CameraController controller(camera, glm::radians(55.0f), 0.1f, 200.0f);
    controller.lookAt(glm::vec3(14.0f, 6.0f, 14.0f), glm::vec3(0.0f, 0.5f, 0.0f));
    controller.setAutoOrbit(-0.15f);
    controller.setFlySpeed(8.0f);
    runner.setCameraController(&controller);

    // ---- Update: the fireflies drift on small loops ----
    examples::FrameCallbacks callbacks;
    callbacks.update = [&](int /*frame*/, double seconds) {
        const auto t = static_cast<float>(seconds);
        for (const Firefly& f : swarm) {
            const float a = f.phase + f.speed * t;
            const glm::vec3 at = f.centre + glm::vec3(std::cos(a) * 0.8f, 0.25f * std::sin(2.3f * a), std::sin(1.3f * a) * 0.8f);
            f.light->setPosition(glm::dvec3(at));
            glows.setTransform(static_cast<std::size_t>(&f - swarm.data()), glm::translate(glm::mat4(1.0f), at));
        }
    };

    // ---- Draw / Shutdown ----
    const int status = runner.run(scene, camera, callbacks);
    std::printf("09-night: last frame listed %u lamps\n", runner.renderer().lastFrameStats().lampsListed);
    return status;
} catch (const myriad::Error& e) {
    std::fprintf(stderr, "09-night: %s\n", e.what());
    return 1;
} catch (const std::bad_alloc&) {
    std::fprintf(stderr, "09-night: out of memory; try a smaller --grass\n");
    return 1;
}
