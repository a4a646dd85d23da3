// 03-crowd: Fox (../shared/assets, a skinned glTF character with Survey, Walk and Run clips)
// drawn --count times (default 10,000) on a plaza, walking and running, each at its own phase
// and speed, some cross-fading between walk and run, casting shadows: one draw, with every
// clip baked once into an animation texture and each fox's pose blended on the GPU, so a frame
// where only time passes writes nothing per fox (docs/skinning.md, "Crowds").
//
// Shows: importing a skin and its clips (gltf::importModel, ImportedSkin), AnimationSet::bake,
// InstancedMeshNode::setAnimationSet / setAnimations / setAnimationTime, cross-fades written
// only for the foxes that change, bytes uploaded per frame (0 once warm, but for the fades), the
// light's shadow map (--shadows on|off), in the evening with --lamps lantern posts (default 16).
// A --model with morph targets and no skin (e.g. AnimatedMorphSphere) gets the earlier crowd
// instead: per-instance morph weights sampled on the CPU at each copy's phase (docs/morph.md). A model animated by its nodes (Kenney's
// character.glb) is read as a rigid skin and walks like Fox.
// Controls: orbit / fly camera (see --help).
#include "common/CameraController.h"
#include "common/ExampleRunner.h"
#include "common/Lanterns.h"
#include "common/Sky.h"

#include "myriad/core/AnimationSet.h"
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

namespace {

/** Evening light for both crowds: a low warm sun, image-based ambient from an evening sky (or
 *  the .hdr at @p sky), and @p lamps lantern posts on a jittered grid over the middle of the
 *  plaza (at most 24 m either way of its centre, what the camera sees), standing in the lanes
 *  between the copies (@p spacing apart, @p half wide). */
void lightTheEvening(Scene& scene, const std::string& sky, std::size_t lamps, float spacing, float half) {
    scene.clearColor = glm::vec4(0.3f, 0.36f, 0.5f, 1.0f);
    scene.environment = examples::skyFor("03-crowd", sky, glm::normalize(scene.light.direction));
    scene.light.color = glm::vec3(1.0f, 0.75f, 0.5f);
    scene.light.intensity = 0.8f;
    if (lamps == 0) {
        return;
    }
    const float reach = std::min(half, 24.0f);
    const auto side = static_cast<std::size_t>(std::ceil(std::sqrt(static_cast<double>(lamps))));
    const float cell = 2.0f * reach / static_cast<float>(side);
    std::mt19937 random(17u);
    std::uniform_int_distribution<int> jitter(-1, 1);
    std::vector<glm::vec3> feet;
    for (std::size_t i = 0; i < lamps; ++i) {
        // The cell's centre, snapped to the lanes between copies (copies stand at (k + 0.5) * spacing - half).
        auto lane = [&](std::size_t index) {
            const float centre = (static_cast<float>(index) + 0.5f) * cell - reach;
            return (std::round((centre + half) / spacing) + static_cast<float>(jitter(random))) * spacing - half;
        };
        feet.emplace_back(lane(i % side), 0.0f, lane(i / side));
    }
    examples::LanternStyle style;
    style.spotIntensity = 40.0f;  // candela: 6.4 lux under a 2.5 m post
    style.pointIntensity = 18.0f;
    examples::addLanternPosts(scene, feet, style);
    std::printf("03-crowd: %zu lantern posts (%zu spot, %zu point lamps)\n", lamps, (lamps + 1) / 2, lamps / 2);
}

/** The skinned crowd: every fox one instance of one batch per primitive, playing the skin's
 *  clips baked into one AnimationSet. */
int skinnedCrowd(const gltf::ImportedModel& model, std::size_t count, const std::string& sky, std::size_t lamps,
                 bool shadows, examples::ExampleRunner& runner) {
    const gltf::ImportedSkin& skin = model.skins.at(static_cast<std::size_t>(model.primitives.front().skin));
    const auto set = AnimationSet::bake(skin.skeleton, skin.clips, *model.primitives.front().mesh);
    // Walk and Run when the file names them (Fox: "Walk", "Run"; Kenney's character: "walk",
    // no run), else its first clips.
    auto clipNamed = [&](const char* upper, const char* lower, std::int32_t otherwise) {
        const std::int32_t found = set->findClip(upper);
        return found >= 0 ? found : set->findClip(lower) >= 0 ? set->findClip(lower) : otherwise;
    };
    const std::int32_t walk = clipNamed("Walk", "walk", 0);
    const std::int32_t run = clipNamed("Run", "run", set->clips().size() > 1 && walk == 0 ? 1 : 0);
    std::printf("03-crowd: skin '%s', %zu joints, clips", skin.name.c_str(), set->jointCount());
    for (const BakedClip& clip : set->clips()) {
        std::printf(" '%s' (%.2f s)", clip.name.c_str(), static_cast<double>(clip.duration));
    }
    std::printf("; baked at %.0f frames/s into %zu bytes; %zu copies\n", static_cast<double>(set->framesPerSecond()),
                set->byteSize(), count);

    Scene scene;
    scene.light.direction = glm::vec3(0.6f, -0.45f, -0.25f);
    scene.light.shadow.enabled = shadows;
    // The posed fox's size in its own units (every baked pose), scaled to about 1.4 m long.
    const Aabb box = set->bounds();
    const float length = std::max({box.max.x - box.min.x, box.max.z - box.min.z, 1e-3f});
    const float scale = 1.4f / length;
    const auto side = static_cast<std::size_t>(std::ceil(std::sqrt(static_cast<double>(count))));
    const float spacing = 2.0f;
    const float half = static_cast<float>(side) * spacing * 0.5f;
    std::vector<InstancedMeshNode*> batches;
    for (const auto& primitive : model.primitives) {
        auto& batch = scene.root().emplace<InstancedMeshNode>(primitive.mesh, primitive.material, count,
                                                              "crowd/" + primitive.name);
        batch.setLocalMatrix(glm::scale(glm::mat4(1.0f), glm::vec3(scale)) * skin.placement);
        batch.setAnimationSet(set);
        batches.push_back(&batch);
    }
    std::mt19937 random(2026u);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    std::vector<InstanceAnimation> plays(count);
    const glm::mat4 fromWorld = glm::inverse(batches.front()->localMatrix());
    for (std::size_t i = 0; i < count; ++i) {
        const float x = (static_cast<float>(i % side) + 0.5f) * spacing - half + (unit(random) - 0.5f) * 0.8f;
        const float z = (static_cast<float>(i / side) + 0.5f) * spacing - half + (unit(random) - 0.5f) * 0.8f;
        // Placed in world units, stored in the batch's (scaled) space.
        const glm::mat4 world = glm::rotate(glm::translate(glm::mat4(1.0f), glm::vec3(x, -box.min.y * scale, z)),
                                            unit(random) * 6.2832f, glm::vec3(0, 1, 0)) *
                                glm::scale(glm::mat4(1.0f), glm::vec3(scale));
        const glm::vec4 colour(0.8f + 0.2f * unit(random), 0.8f + 0.2f * unit(random), 0.8f + 0.2f * unit(random), 1.0f);
        for (InstancedMeshNode* batch : batches) {
            batch->addInstance(fromWorld * world, colour);
        }
        const bool running = unit(random) < 0.35f;
        plays[i] = {.clip = static_cast<std::uint32_t>(running ? run : walk), .startTime = -unit(random) * 3.0f,
                    .speed = 0.8f + 0.4f * unit(random)};
    }
    for (InstancedMeshNode* batch : batches) {
        batch->setAnimations(0, plays);
    }
    Material ground;
    ground.baseColor = glm::vec4(0.36f, 0.45f, 0.28f, 1.0f);
    auto& plaza = scene.root().emplace<MeshNode>(
        MeshGeometry::create(shapes::quad(2.0f * half + 4.0f, 2.0f * half + 4.0f), "meadow"), ground, "meadow");
    plaza.setRotation(glm::angleAxis(glm::radians(-90.0f), glm::vec3(1, 0, 0)));
    scene.light.shadow.distance = std::min(half * 2.0f + 10.0f, 120.0f);
    scene.light.shadow.cascades = 3;
    lightTheEvening(scene, sky, lamps, spacing, half);

    Camera camera;
    examples::CameraController controller(camera, glm::radians(50.0f), 0.1f, half * 8.0f + 40.0f);
    const float viewDistance = std::min(half, 30.0f);
    controller.lookAt(glm::vec3(viewDistance * 0.35f, viewDistance * 0.3f + 1.5f, viewDistance * 0.6f + 3.0f),
                      glm::vec3(0.0f, 0.4f, 0.0f));
    runner.setCameraController(&controller);

    // ---- Update: the clock, and a few foxes a second switching between walk and run ----
    std::size_t nextSwitch = 0;
    double lastSwitch = 0.0;
    examples::FrameCallbacks callbacks;
    callbacks.update = [&, walk, run](int frame, double /*seconds*/) {
        const float t = static_cast<float>(frame) / 30.0f;  // 30 frames per animated second
        for (InstancedMeshNode* batch : batches) {
            batch->setAnimationTime(t);
        }
        if (t - lastSwitch >= 0.5) {  // every half second, 2 % of them change gait over 0.6 s
            lastSwitch = t;
            const std::size_t switches = std::max<std::size_t>(count / 50, 1);
            for (std::size_t k = 0; k < switches; ++k) {
                const std::size_t i = (nextSwitch++ * 7919) % count;
                InstanceAnimation& play = plays[i];
                const bool running = play.clip == static_cast<std::uint32_t>(run);
                play = {.clip = static_cast<std::uint32_t>(running ? walk : run), .startTime = t, .speed = play.speed,
                        .fadeFromClip = play.clip, .fadeFromStartTime = play.startTime, .fadeFromSpeed = play.speed,
                        .fadeStart = t, .fadeDuration = 0.6f};
                for (InstancedMeshNode* batch : batches) {
                    batch->setAnimation(i, play);
                }
            }
        }
    };
    return runner.run(scene, camera, callbacks);
}

} // namespace

int main(int argc, char** argv) try {
    // ---- Init ----
    const examples::ExampleSpec spec{
        .name = "03-crowd",
        .summary = "a skinned glTF character (default Fox) drawn many times, walking and running, each copy at "
                   "its own phase and speed, some cross-fading, in one draw with time advanced in the shader "
                   "(a morph-only model: a crowd of per-instance morph weights instead)",
        .flags = {{"--model", "PATH", "a .gltf or .glb with a skin and clips (or morph targets)",
                   std::string(MYRIAD_ASSETS_DIR) + "/Fox/Fox.glb", examples::FlagKind::Text, {}, 0, 0},
                  // A morph-only model's weights are sampled on the CPU each frame: past this it is a slideshow.
                  {"--count", "N", "copies in the crowd", "10000", examples::FlagKind::Number, {}, 1, 200'000},
                  {"--shadows", "on|off", "the light's shadow map (docs/shadows.md)", "on", examples::FlagKind::Choice,
                   {"on", "off"}, 0, 0},
                  {"--sky", "PATH", "an equirectangular .hdr image for the image-based ambient; empty: a generated "
                   "evening sky (docs/lighting.md)", "", examples::FlagKind::Text, {}, 0, 0},
                  {"--lamps", "N", "lantern posts among the crowd in the evening light, every other one a spot lamp, "
                   "the rest point lamps (LightNodes, docs/lighting.md)", "16", examples::FlagKind::Number, {}, 0, 1024}},
        .controls = {},
        .unavailable = {},
        .width = 1280,
        .height = 720,
        .cameraControls = true,
    };
    const examples::ExampleOptions options = examples::parseOptions(argc, argv, spec);
    const auto count = static_cast<std::size_t>(options.number("--count"));
    const auto lamps = static_cast<std::size_t>(options.number("--lamps"));
    const std::string& modelPath = options.text("--model");
    const std::string& sky = options.text("--sky");
    examples::ExampleRunner runner(options, spec);

    // A model animated by its nodes (Kenney's character) is read as a rigid skin, so it bakes
    // and plays like a skinned one (docs/skinning.md, "Models without a skeleton").
    const gltf::ImportedModel model = gltf::importModel(modelPath, {.nodeAnimationsAsSkin = true});
    if (!model.primitives.empty() && model.primitives.front().skin >= 0 &&
        !model.skins.at(static_cast<std::size_t>(model.primitives.front().skin)).clips.empty()) {
        return skinnedCrowd(model, count, sky, lamps, options.text("--shadows") == "on", runner);
    }
    std::size_t targets = 0;
    for (const auto& primitive : model.primitives) {
        targets = std::max(targets, primitive.mesh->morphTargetCount());
    }
    if (targets == 0) {
        std::fprintf(stderr, "03-crowd: %s has neither a skin with clips nor morph targets\n", modelPath.c_str());
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
    // From the camera's left, low enough that each copy's shadow falls beside it, in view.
    scene.light.direction = glm::vec3(0.7f, -0.6f, -0.1f);
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
    lightTheEvening(scene, sky, lamps, spacing, half);

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
