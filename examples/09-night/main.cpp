// 09-night: a meadow at night lit by --lamps lamps (default 200): lantern posts with warm
// spot and point lamps, and fireflies, small green point lamps drifting over the grass, all
// through the clustered light list; instanced grass, gold coins and rocks under a dim moon.
//
// Shows: LightNode (point and spot lamps in KHR_lights_punctual units: candela, metres,
// cone angles), many lamps a frame with each fragment paying only for its cluster's
// (RendererDesc::lightClusters), light channels (the fireflies reach the grass and the ground
// but not the coins, --channels off lets them), glTF metallic-roughness (the coins are metal),
// emission (the lantern globes), a baked lightmap (--ground-light baked, the default: the
// lantern posts' light on the ground is worked out once on the CPU into the ground's
// Material::lightmapTexture, and the ground takes only the moon and the fireflies live, through
// its light channels). Each firefly is a lamp and a small unlit sphere that follows it. The
// per-frame line counts the lamps listed.
// Controls: the camera orbits by itself until the mouse or WASD takes over (see --help).
#include "common/CameraController.h"
#include "common/ExampleRunner.h"
#include "common/Lanterns.h"

#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/LightEvaluation.h"
#include "myriad/core/Lightmap.h"
#include "myriad/core/LightNode.h"
#include "myriad/core/MeshNode.h"
#include "myriad/core/Shapes.h"
#include "myriad/gltf/GltfImporter.h"
#include "myriad/util/Error.h"

#include <glm/gtc/constants.hpp>
#include <glm/gtc/matrix_transform.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <new>
#include <random>
#include <span>
#include <vector>

using namespace myriad;

namespace {

constexpr float kMeadow = 40.0f;       // the meadow's side, metres
constexpr std::uint32_t kFireflyChannel = 0b10;   // channel 1: fireflies only
constexpr std::uint32_t kLanternChannel = 0b100;  // channel 2: the lantern posts' lamps
constexpr std::uint32_t kLightmapSize = 512;      // texels along each side of the ground's lightmap

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

/** Bakes @p lamps' light on a flat ground of side @p side (metres) centred on the origin at
 *  y = 0, facing up, plus the sky's @p ambient: per texel the radiance a white Lambert surface
 *  shows there, ambient + E / pi, with E each lamp's illuminance() (myriad/core/LightEvaluation.h:
 *  the formula myriad's shader uses), encoded by encodeLightmap(). Texel (i, j) lies at uv
 *  ((i + 0.5) / n, (j + 0.5) / n), where shapes::plane puts uv (u, v) at x = (u - 0.5) * side,
 *  z = (v - 0.5) * side. Direct light only, no shadows: what a lightmapper would add (bounces,
 *  occlusion) goes into the same texels. */
EncodedLightmap bakeGround(std::span<LightNode* const> lamps, float side, const glm::vec3& ambient, std::uint32_t n) {
    std::vector<glm::vec3> radiance(std::size_t{n} * n, ambient);
    for (std::uint32_t j = 0; j < n; ++j) {
        for (std::uint32_t i = 0; i < n; ++i) {
            const glm::dvec3 p(((i + 0.5) / n - 0.5) * side, 0.0, ((j + 0.5) / n - 0.5) * side);
            for (const LightNode* lamp : lamps) {
                radiance[std::size_t{j} * n + i] += illuminance(*lamp, p, glm::vec3(0.0f, 1.0f, 0.0f)) / glm::pi<float>();
            }
        }
    }
    return encodeLightmap(n, n, radiance);
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
                   "off: everything", "on", examples::FlagKind::Choice, {"on", "off"}, 0, 0},
                  {"--ground-light", "HOW", "baked: the lantern posts' light on the ground is a lightmap worked out "
                   "once (Material::lightmapTexture), the ground lit live by the moon and fireflies only; live: "
                   "every lamp lights the ground each frame", "baked", examples::FlagKind::Choice, {"baked", "live"}, 0, 0}},
        .controls = {"the camera orbits by itself until you move it"},
        .unavailable = {},
        .width = 1280,
        .height = 720,
        .cameraControls = true,
    };
    const examples::ExampleOptions options = examples::parseOptions(argc, argv, spec);
    const auto lampCount = static_cast<int>(options.number("--lamps"));
    const bool channels = options.text("--channels") == "on";
    const bool bakedGround = options.text("--ground-light") == "baked";
    examples::ExampleRunner runner(options, spec);

    Scene scene;
    scene.clearColor = glm::vec4(0.004f, 0.006f, 0.015f, 1.0f);  // night sky
    scene.ambient = glm::vec3(0.008f, 0.01f, 0.02f);
    scene.light.direction = glm::vec3(0.4f, -1.0f, 0.25f);  // the moon
    scene.light.color = glm::vec3(0.35f, 0.45f, 0.7f);
    scene.light.intensity = 0.06f;

    // Ground and props. Grass and ground accept the fireflies' channel; coins and rocks do not
    // (with --channels on). Everything but a baked ground accepts the lantern posts' channel.
    const std::uint32_t everyLight = 1u | kFireflyChannel | kLanternChannel;
    const std::uint32_t propChannels = channels ? 1u | kLanternChannel : everyLight;
    Material soil;
    soil.shading = Shading::MetallicRoughness;
    soil.baseColor = glm::vec4(0.16f, 0.12f, 0.08f, 1.0f);
    soil.roughness = 0.9f;
    MeshData groundData = shapes::plane(kMeadow + 10.0f, kMeadow + 10.0f);
    groundData.uv1 = groundData.uv0;  // the lightmap's coordinates: the whole map over the whole ground
    auto& ground = scene.root().emplace<MeshNode>(MeshGeometry::create(std::move(groundData), "ground"), soil, "ground");
    ground.setLightChannels(bakedGround ? 1u | kFireflyChannel : everyLight);
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
    examples::LanternStyle lanternStyle;
    lanternStyle.channels = kLanternChannel;
    const examples::LanternPosts lanterns = examples::addLanternPosts(scene, feet, lanternStyle);
    if (bakedGround) {
        const auto start = std::chrono::steady_clock::now();
        const EncodedLightmap baked = bakeGround(lanterns.lamps, kMeadow + 10.0f, scene.ambient, kLightmapSize);
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        ground.material().lightmapTexture.image = baked.image;
        ground.material().lightmapTexture.sampler.wrapS = TextureWrap::ClampToEdge;
        ground.material().lightmapTexture.sampler.wrapT = TextureWrap::ClampToEdge;
        ground.material().lightmapIntensity = baked.intensity;
        std::printf("09-night: baked %zu lantern lamps into the ground's %ux%u lightmap in %.0f ms (intensity %.2f)\n",
                    lanterns.lamps.size(), kLightmapSize, kLightmapSize, ms, baked.intensity);
    }
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
