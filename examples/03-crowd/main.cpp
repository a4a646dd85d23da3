// 03-crowd: a morphing glTF model drawn --count times (default 2,000) on a plaza, each copy
// with its own morph weights animated at its own phase and its own colour: a crowd with
// faces, not one face repeated.
//
// Shows: per-instance morph weights (InstancedMeshNode::setMorphWeights, every copy's weights
// in one call, a texture read by instance id), sampling a glTF weights animation
// (MorphAnimation::sample), bytes uploaded per frame, the light's shadow map (--shadows
// on|off, default on: every copy casts its own shadow on the plaza from the one instanced
// draw). --model PATH (default AnimatedMorphSphere; any model with morph targets).
// Controls: orbit / fly camera (see --help).
#include "common/CameraController.h"
#include "common/ExampleRunner.h"

#include "myriad/core/InstancedMeshNode.h"
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

int main(int argc, char** argv) try {
    // ---- Init ----
    const examples::ExampleSpec spec{
        .name = "03-crowd",
        .summary = "a morphing glTF model drawn many times, each copy with its own morph weights "
                   "(sampled from the model's animation at its own phase) and its own colour",
        .flags = {{"--model", "PATH", "a .gltf or .glb with morph targets",
                   std::string(MYRIAD_ASSETS_DIR) + "/AnimatedMorphSphere/AnimatedMorphSphere.gltf",
                   examples::FlagKind::Text, {}, 0, 0},
                  // Every copy's weights are sampled on the CPU each frame: past this it is a slideshow.
                  {"--count", "N", "copies in the crowd", "2000", examples::FlagKind::Number, {}, 1, 200'000},
                  {"--shadows", "on|off", "the light's shadow map (docs/shadows.md)", "on", examples::FlagKind::Choice,
                   {"on", "off"}, 0, 0}},
        .controls = {},
        .unavailable = {},
        .width = 1280,
        .height = 720,
        .cameraControls = true,
    };
    const examples::ExampleOptions options = examples::parseOptions(argc, argv, spec);
    const auto count = static_cast<std::size_t>(options.number("--count"));
    const std::string& modelPath = options.text("--model");
    examples::ExampleRunner runner(options, spec);

    const gltf::ImportedModel model = gltf::importModel(modelPath);
    std::size_t targets = 0;
    for (const auto& primitive : model.primitives) {
        targets = std::max(targets, primitive.mesh->morphTargetCount());
    }
    if (targets == 0) {
        std::fprintf(stderr, "03-crowd: %s has no morph targets\n", modelPath.c_str());
        return 1;
    }
    // The model's own weights animation when it has one; else a sine per target.
    const MorphAnimation* animation = model.morphAnimations.empty() ? nullptr : &model.morphAnimations[0];
    const float duration = animation != nullptr && animation->duration() > 0.0f ? animation->duration() : 4.0f;
    std::printf("03-crowd: %s, %zu primitive(s), %zu morph targets, %s, %zu copies\n", modelPath.c_str(),
                model.primitives.size(), targets,
                animation != nullptr ? ("animation '" + animation->name + "'").c_str() : "no animation (sines)",
                count);

    Scene scene;
    scene.clearColor = glm::vec4(0.55f, 0.6f, 0.7f, 1.0f);
    scene.ambient = glm::vec3(0.35f);
    // From the camera's left, low enough that each copy's shadow falls beside it, in view.
    scene.light.direction = glm::vec3(0.7f, -0.8f, -0.1f);
    scene.light.shadow.enabled = options.text("--shadows") == "on";
    const float size = std::max({model.bounds.max.x - model.bounds.min.x, model.bounds.max.z - model.bounds.min.z, 1e-3f});
    const float scale = 1.0f / size;  // each copy about 1 unit wide
    const auto side = static_cast<std::size_t>(std::ceil(std::sqrt(static_cast<double>(count))));
    const float spacing = 1.6f;
    const float half = static_cast<float>(side) * spacing * 0.5f;
    std::mt19937 random(2026u);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    std::vector<float> phases(count);
    std::vector<InstancedMeshNode*> batches;
    for (const auto& primitive : model.primitives) {
        batches.push_back(&scene.root().emplace<InstancedMeshNode>(primitive.mesh, primitive.material,
                                                                   count, "crowd/" + primitive.name));
    }
    for (std::size_t i = 0; i < count; ++i) {
        const float x = (static_cast<float>(i % side) + 0.5f) * spacing - half + (unit(random) - 0.5f) * 0.4f;
        const float z = (static_cast<float>(i / side) + 0.5f) * spacing - half + (unit(random) - 0.5f) * 0.4f;
        const glm::mat4 transform = glm::translate(glm::mat4(1.0f), glm::vec3(x, -model.bounds.min.y * scale, z)) *
                                    glm::rotate(glm::mat4(1.0f), unit(random) * 6.2832f, glm::vec3(0, 1, 0)) *
                                    glm::scale(glm::mat4(1.0f), glm::vec3(scale));
        const glm::vec4 colour(0.35f + 0.65f * unit(random), 0.35f + 0.65f * unit(random), 0.35f + 0.65f * unit(random), 1.0f);
        for (InstancedMeshNode* batch : batches) {
            batch->addInstance(transform, colour);
        }
        phases[i] = unit(random) * duration;
    }
    Material stone;
    stone.baseColor = glm::vec4(0.5f, 0.48f, 0.45f, 1.0f);
    auto& plaza = scene.root().emplace<MeshNode>(MeshGeometry::create(shapes::quad(2.0f * half + 2.0f, 2.0f * half + 2.0f), "plaza"),
                                                 stone, "plaza");
    plaza.setRotation(glm::angleAxis(glm::radians(-90.0f), glm::vec3(1, 0, 0)));

    // The map covers what the camera sees of the plaza (up to its far side from the start pose).
    scene.light.shadow.distance = half * 3.0f + 10.0f;
    scene.light.shadow.cascades = 3;  // sharp near the camera across a large plaza

    Camera camera;
    examples::CameraController controller(camera, glm::radians(50.0f), 0.1f, half * 8.0f + 20.0f);
    controller.lookAt(glm::vec3(half * 0.9f, half * 0.55f + 2.0f, half * 1.3f + 2.0f), glm::vec3(0.0f));
    runner.setCameraController(&controller);

    // ---- Update: every copy samples the animation at its own phase ----
    std::vector<float> weights(count * targets);  // row i: copy i's weights, targets floats
    examples::FrameCallbacks callbacks;
    callbacks.update = [&](int frame, double /*seconds*/) {
        const float t = static_cast<float>(frame) / 30.0f;  // 30 frames per animated second
        for (std::size_t i = 0; i < count; ++i) {
            const float local = std::fmod(t + phases[i], duration);
            const std::span<float> row(weights.data() + i * targets, targets);
            if (animation != nullptr) {
                animation->sample(local, row);
            } else {
                for (std::size_t k = 0; k < targets; ++k) {
                    row[k] = 0.5f + 0.5f * std::sin(6.2832f * local / duration + static_cast<float>(k));
                }
            }
        }
        for (InstancedMeshNode* batch : batches) {
            const std::size_t own = batch->mesh()->morphTargetCount();
            if (own == targets) {
                batch->setMorphWeights(0, weights, targets);  // every copy in one call: one change
            } else {  // a primitive with fewer targets takes the first ones of each row
                for (std::size_t i = 0; i < count; ++i) {
                    batch->setMorphWeights(i, std::span<const float>(weights.data() + i * targets, own));
                }
            }
        }
    };

    // ---- Draw / Shutdown ----
    return runner.run(scene, camera, callbacks);
} catch (const myriad::Error& e) {
    std::fprintf(stderr, "03-crowd: %s\n", e.what());
    return 1;
} catch (const std::bad_alloc&) {
    std::fprintf(stderr, "03-crowd: out of memory; try a smaller --count\n");
    return 1;
}
