// 04-embers: sparks rising from a fire (additive streaks) under a column of smoke (a sprite
// flipbook with real alpha, sorted back to front), both from the CPU ParticleEmitter.
//
// Shows: ParticlePool, ParticleEmitter from the EmitterDesc::embers() and smoke() presets
// (rate, lifetime, velocity cone, gravity, drag, curves over life) with a few fields changed,
// the streak and sprite materials, alpha that fades instead of darkening.
// --atlas PATH: a flipbook image (stb_image: PNG, JPEG, ...) of --cells x --cells smoke puffs;
// default: one drawn here, 4 x 4 soft puffs. The simulation starts 3 seconds in, so frame 1
// (and a headless --out picture) already shows sparks and smoke.
#include "common/CameraController.h"
#include "common/ExampleRunner.h"

#include "myriad/core/MeshNode.h"
#include "myriad/core/Particles.h"
#include "myriad/core/Shapes.h"
#include "myriad/image/ImageIO.h"
#include "myriad/util/Error.h"

#include <glm/gtc/quaternion.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

using namespace myriad;

namespace {

/** A cells x cells atlas of soft round puffs, each a little bigger and lumpier than the last. */
std::shared_ptr<Image> smokeAtlas(std::uint32_t cells, std::uint32_t cellPixels) {
    auto image = std::make_shared<Image>();
    image->width = image->height = cells * cellPixels;
    image->pixels.resize(std::size_t{image->width} * image->height * 4);
    for (std::uint32_t y = 0; y < image->height; ++y) {
        for (std::uint32_t x = 0; x < image->width; ++x) {
            const std::uint32_t cell = (y / cellPixels) * cells + x / cellPixels;
            const float share = static_cast<float>(cell) / static_cast<float>(cells * cells);
            const float u = (static_cast<float>(x % cellPixels) + 0.5f) / static_cast<float>(cellPixels) * 2.0f - 1.0f;
            const float v = (static_cast<float>(y % cellPixels) + 0.5f) / static_cast<float>(cellPixels) * 2.0f - 1.0f;
            const float angle = std::atan2(v, u);
            const float lump = 0.12f * std::sin(5.0f * angle + 7.0f * share) + 0.08f * std::sin(9.0f * angle - 3.0f * share);
            const float radius = std::sqrt(u * u + v * v) / (0.55f + 0.35f * share + lump);
            const float alpha = std::clamp(1.0f - radius, 0.0f, 1.0f);
            std::uint8_t* p = image->pixels.data() + (std::size_t{y} * image->width + x) * 4;
            p[0] = p[1] = p[2] = 200;
            p[3] = static_cast<std::uint8_t>(255.0f * alpha * alpha);
        }
    }
    return image;
}

} // namespace

int main(int argc, char** argv) try {
    // ---- Init ----
    const examples::ExampleSpec spec{
        .name = "04-embers",
        .summary = "sparks (additive streaks) rising from a fire under smoke (a sprite flipbook with real alpha)",
        .flags = {{"--atlas", "PATH", "a smoke flipbook image (empty: one drawn here)", "", examples::FlagKind::Text, {}, 0, 0},
                  {"--cells", "N", "cells across and down the atlas", "4", examples::FlagKind::Number, {}, 1, 16},
                  {"--sparks", "N", "spark pool capacity", "4000", examples::FlagKind::Number, {}, 1, 1'000'000}},
        .controls = {"the camera orbits by itself until you move it"},
        .unavailable = {},
        .width = 960,
        .height = 720,
        .cameraControls = true,
    };
    const examples::ExampleOptions options = examples::parseOptions(argc, argv, spec);
    examples::ExampleRunner runner(options, spec);
    const auto cells = static_cast<std::uint32_t>(options.number("--cells"));
    const std::shared_ptr<const Image> atlas =
        options.text("--atlas").empty() ? smokeAtlas(cells, 64)
                                        : std::make_shared<Image>(image::readImageFile(options.text("--atlas")));

    Scene scene;
    scene.clearColor = glm::vec4(0.02f, 0.02f, 0.035f, 1.0f);  // night
    scene.ambient = glm::vec3(0.15f);
    scene.light.direction = glm::vec3(0.3f, -1.0f, 0.2f);
    scene.light.color = glm::vec3(1.0f, 0.55f, 0.25f);

    // The ground and a ring of stones around the fire.
    Material soil;
    soil.baseColor = glm::vec4(0.12f, 0.09f, 0.07f, 1.0f);
    scene.root().emplace<MeshNode>(MeshGeometry::create(shapes::plane(20.0f, 20.0f), "ground"), soil, "ground");
    Material stone;
    stone.baseColor = glm::vec4(0.35f, 0.33f, 0.3f, 1.0f);
    auto stoneMesh = MeshGeometry::create(shapes::box(0.35f), "stone");
    for (int i = 0; i < 9; ++i) {
        const float angle = static_cast<float>(i) / 9.0f * 6.2832f;
        auto& s = scene.root().emplace<MeshNode>(stoneMesh, stone, "stone");
        s.setPosition(glm::dvec3(std::cos(angle) * 0.9, 0.12, std::sin(angle) * 0.9));
        s.setRotation(glm::angleAxis(angle, glm::vec3(0, 1, 0)));
    }

    // Smoke: soft sprites, sorted back to front, fading in then out as they grow.
    ParticleMaterial smokeLook = ParticleMaterial::sprite(atlas, cells, cells, true);
    smokeLook.name = "smoke";
    auto& smoke = scene.root().emplace<ParticlePool>(600, smokeLook, "smoke");
    EmitterDesc smokeDesc = EmitterDesc::smoke();  // buoyant, growing, fading in and out
    smokeDesc.position = glm::vec3(0.0f, 0.8f, 0.0f);
    smokeDesc.gravity.x = 0.25f;  // drifting with a light breeze
    smokeDesc.frameRate = 3.0f;   // through the flipbook
    smokeDesc.frameCount = static_cast<float>(cells * cells);
    ParticleEmitter smokeEmitter(smokeDesc, 11);

    // Sparks: hot streaks, added light, fading by alpha as they cool.
    ParticleMaterial sparkLook = ParticleMaterial::streak(0.06f);
    sparkLook.name = "sparks";
    sparkLook.round = true;
    auto& sparks = scene.root().emplace<ParticlePool>(static_cast<std::size_t>(options.number("--sparks")), sparkLook, "sparks");
    EmitterDesc sparkDesc = EmitterDesc::embers();  // carried up by the hot air, cooling
    sparkDesc.position = glm::vec3(0.0f, 0.3f, 0.0f);
    ParticleEmitter sparkEmitter(sparkDesc, 5);

    // Start 3 seconds in: the smoke column has risen.
    for (int step = 0; step < 90; ++step) {
        smokeEmitter.update(smoke, 1.0f / 30.0f);
        sparkEmitter.update(sparks, 1.0f / 30.0f);
    }

    Camera camera;
    examples::CameraController controller(camera, glm::radians(50.0f), 0.1f, 100.0f);
    controller.lookAt(glm::vec3(4.5f, 2.2f, 4.5f), glm::vec3(0.0f, 1.8f, 0.0f));
    controller.setAutoOrbit(-0.2f);
    runner.setCameraController(&controller);

    // ---- Update: one simulation step per frame ----
    examples::FrameCallbacks callbacks;
    callbacks.update = [&](int /*frame*/, double /*seconds*/) {
        smokeEmitter.update(smoke, 1.0f / 30.0f);
        sparkEmitter.update(sparks, 1.0f / 30.0f);
    };

    // ---- Draw / Shutdown ----
    return runner.run(scene, camera, callbacks);
} catch (const myriad::Error& e) {
    std::fprintf(stderr, "04-embers: %s\n", e.what());
    return 1;
}
