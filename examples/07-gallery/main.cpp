// 07-gallery: any glTF model from the command line, its first primitive instanced N times on a
// grid in one draw call; keys change N and toggle frustum culling while it runs.
//
// Shows: importing an arbitrary model, normalising its size, rebuilding a batch at a new count
// (clear + ensureCapacity + addInstance), SceneNode::setFrustumCulled. --model PATH (default:
// the glTF sample Fox), --count N (default 100), --culling on|off (default on).
// Controls: + / - double or halve N, C toggles culling, orbit / fly camera (see --help).
#include "common/CameraController.h"
#include "common/ExampleRunner.h"

#include "myriad/core/InstancedMeshNode.h"
#include "myriad/gltf/GltfImporter.h"
#include "myriad/util/Error.h"

#include <glm/gtc/matrix_transform.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <new>

using namespace myriad;

namespace {

constexpr long long kMaxCount = 1'000'000;
constexpr float kSpacing = 1.25f;  // cell size in model widths (the model is scaled to 1 wide)

/** Fills @p batch with @p count copies on a square grid centred on the origin, row by row. */
void layOut(InstancedMeshNode& batch, std::size_t count, const Aabb& bounds, float scale) {
    batch.clear();
    batch.ensureCapacity(count);
    const auto side = static_cast<std::size_t>(std::ceil(std::sqrt(static_cast<double>(count))));
    const float half = static_cast<float>(side - 1) * kSpacing * 0.5f;
    // Stand each copy on y = 0, centred in its cell.
    const glm::vec3 centre = (bounds.min + bounds.max) * 0.5f;
    const glm::vec3 lift(-centre.x * scale, -bounds.min.y * scale, -centre.z * scale);
    for (std::size_t i = 0; i < count; ++i) {
        const glm::vec3 cell(static_cast<float>(i % side) * kSpacing - half, 0.0f,
                             static_cast<float>(i / side) * kSpacing - half);
        batch.addInstance(glm::translate(glm::mat4(1.0f), cell + lift) * glm::scale(glm::mat4(1.0f), glm::vec3(scale)));
    }
}

/** Aims the camera at the whole grid of @p count copies from the front, above. */
void frame(examples::CameraController& controller, std::size_t count) {
    const float side = std::ceil(std::sqrt(static_cast<float>(count)));
    const float extent = std::max(side * kSpacing, 2.0f);
    controller.lookAt(glm::vec3(0.0f, extent * 0.5f + 0.5f, extent * 0.75f + 1.0f), glm::vec3(0.0f, 0.0f, extent * 0.1f));
    controller.setFlySpeed(extent * 0.3f);
}

} // namespace

int main(int argc, char** argv) try {
    // ---- Init ----
    const examples::ExampleSpec spec{
        .name = "07-gallery",
        .summary = "any glTF model's first primitive instanced N times on a grid in one draw call; "
                   "keys change N and toggle culling",
        .flags = {{"--model", "PATH", "the .glb or .gltf to show (its first triangle primitive)",
                   std::string(MYRIAD_ASSETS_DIR) + "/Fox/Fox.glb", examples::FlagKind::Text, {}, 0, 0},
                  {"--count", "N", "copies at start", "100", examples::FlagKind::Number, {}, 1, kMaxCount},
                  {"--culling", "ON|OFF", "frustum culling of the batch (C toggles it)", "on",
                   examples::FlagKind::Choice, {"on", "off"}, 0, 0}},
        .controls = {"+ / -: double / halve the number of copies (1 to 1000000)",
                     "C: toggle frustum culling of the batch"},
        .unavailable = {"level of detail (LOD)", "sorting instances by distance",
                        "picking an instance with the mouse"},
        .width = 1280,
        .height = 720,
        .cameraControls = true,
    };
    const examples::ExampleOptions options = examples::parseOptions(argc, argv, spec);
    auto count = static_cast<std::size_t>(options.number("--count"));
    const std::string& modelPath = options.text("--model");
    examples::ExampleRunner runner(options, spec);

    const gltf::ImportedModel model = gltf::importModel(modelPath);
    if (model.primitives.empty()) {
        std::fprintf(stderr, "07-gallery: %s has no triangle primitive to draw\n", modelPath.c_str());
        return 1;
    }
    const gltf::ImportedPrimitive& primitive = model.primitives.front();
    const Aabb& bounds = primitive.mesh->localBounds();
    const glm::vec3 size = bounds.max - bounds.min;
    const float scale = 1.0f / std::max({size.x, size.y, size.z, 1e-6f});  // about 1 unit wide
    std::printf("07-gallery: %s, primitive '%s' of %zu, %zu copies\n", modelPath.c_str(), primitive.name.c_str(),
                model.primitives.size(), count);

    Scene scene;
    scene.clearColor = glm::vec4(0.45f, 0.65f, 0.9f, 1.0f);
    scene.ambient = glm::vec3(0.4f);
    scene.light.direction = glm::vec3(-0.5f, -1.0f, -0.35f);
    auto& batch = scene.root().emplace<InstancedMeshNode>(primitive.mesh, primitive.material, count, "gallery");
    batch.setFrustumCulled(options.text("--culling") == "on");
    layOut(batch, count, bounds, scale);

    Camera camera;
    examples::CameraController controller(camera, glm::radians(50.0f), 0.05f, 4000.0f);
    frame(controller, count);
    runner.setCameraController(&controller);

    // ---- Keys ----
    const auto resize = [&](std::size_t newCount) {
        newCount = std::clamp<std::size_t>(newCount, 1, kMaxCount);
        if (newCount == count) {
            return;
        }
        count = newCount;
        layOut(batch, count, bounds, scale);
        if (!controller.userTookOver()) {
            frame(controller, count);  // keep the whole grid in view until the user steers
        }
        std::printf("07-gallery: %zu copies\n", count);
    };
    runner.bindKey(U'+', [&] { resize(count * 2); });
    runner.bindKey(U'=', [&] { resize(count * 2); });  // '+' without Shift on a US keyboard
    runner.bindKey(U'-', [&] { resize(count / 2); });
    const auto toggleCulling = [&] {
        batch.setFrustumCulled(!batch.frustumCulled());
        std::printf("07-gallery: frustum culling %s\n", batch.frustumCulled() ? "on" : "off");
    };
    runner.bindKey(U'c', toggleCulling);
    runner.bindKey(U'C', toggleCulling);

    // ---- Draw / Shutdown ----
    return runner.run(scene, camera, {});
} catch (const myriad::Error& e) {
    std::fprintf(stderr, "07-gallery: %s\n", e.what());
    return 1;
} catch (const std::bad_alloc&) {
    std::fprintf(stderr, "07-gallery: out of memory; try a smaller --count\n");
    return 1;
}
