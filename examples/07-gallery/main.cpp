// 07-gallery: any glTF model from the command line, its first primitive instanced N times on a
// grid (one draw call per level of detail), with the per-instance features of a batch: a LOD
// chain generated from the model, per-instance culling, picking (per instance by default),
// translucency sorted back to front.
//
// Shows: importing an arbitrary model, normalising its size, rebuilding a batch at a new count
// (clear + ensureCapacity + addInstance), generateLodChain() + setLodChain(),
// setInstanceCulling(), Scene::pick() with a ray through a pixel (a batch is picked per
// instance by default: the hit names the copy), setSortInstances() for a blended material.
// --model PATH (default: the glTF sample Fox), --count N (default 100), --lod on|off (default
// on), --culling off|batch|cpu|gpu (default batch), --pick X,Y (pick after the frames),
// --opacity P (default 100: opaque).
// Controls: + / - double or halve N, C cycles culling, a left click picks and tints a copy,
// orbit / fly camera (see --help).
#include "common/CameraController.h"
#include "common/ExampleRunner.h"

#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Picking.h"
#include "myriad/gltf/GltfImporter.h"
#include "myriad/lod/GenerateLod.h"
#include "myriad/util/Error.h"

#include <glm/gtc/matrix_transform.hpp>
#include <glm/matrix.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <new>
#include <optional>
#include <string>

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

// Level of detail. The model is scaled to 1 unit wide, so distances are in model widths. With the
// camera's 50 degree field of view, a copy 12 widths away is about 1/11 of the picture high
// (about 65 pixels at 720): past that a quarter of the triangles is hard to tell apart; past 30
// widths (about 25 pixels) a few percent of them is enough.
constexpr std::array<float, 2> kLodSwitchDistance = {12.0f, 30.0f};  // level 0 -> 1, level 1 -> 2
constexpr std::array<float, 2> kLodIndexRatio = {0.25f, 0.08f};     // of level 0's triangles
constexpr std::array<float, 2> kLodTargetError = {0.02f, 0.08f};    // of the model's extent
constexpr std::array<float, 2> kLodSloppyError = {0.08f, 0.15f};    // the sloppy simplifier's

/** A LOD chain for @p mesh: level 0 the mesh, then up to two simpler levels generated from it
 *  (kLodIndexRatio). A level the edge-collapse simplifier cannot bring below twice its target
 *  (flat-shaded or open meshes whose triangles share few vertices) is made with the sloppy one;
 *  a level with no fewer triangles than the one before it is left out. Prints each level.
 *  @return the chain, or nothing when no level could be simplified (a tiny mesh). */
std::optional<LodChain> makeLodChain(const std::shared_ptr<const MeshGeometry>& mesh) {
    LodChain chain;
    chain.levels.push_back({mesh, std::numeric_limits<float>::infinity()});
    std::string report = "level 0 " + std::to_string(mesh->triangleCount()) + " triangles";
    for (std::size_t i = 0; i < kLodIndexRatio.size(); ++i) {
        const std::uint32_t previous = chain.levels.back().mesh->triangleCount();
        const auto target = static_cast<double>(mesh->triangleCount()) * static_cast<double>(kLodIndexRatio[i]);
        std::shared_ptr<const MeshGeometry> level;
        bool sloppy = false;
        for (const bool useSloppy : {false, true}) {
            const LodTarget targets[] = {{.indexRatio = kLodIndexRatio[i],
                                          .targetError = useSloppy ? kLodSloppyError[i] : kLodTargetError[i],
                                          .switchDistance = std::numeric_limits<float>::infinity(),
                                          .sloppy = useSloppy}};
            try {
                level = generateLodChain(mesh, 1.0f, targets).levels[1].mesh;
            } catch (const InvalidArgument&) {
                level = nullptr;  // simplified to nothing: too small a mesh for this ratio
            }
            sloppy = useSloppy;
            if (level != nullptr && static_cast<double>(level->triangleCount()) <= 2.0 * target) {
                break;
            }
        }
        if (level == nullptr || level->triangleCount() >= previous) {
            continue;
        }
        chain.levels.back().switchDistance = kLodSwitchDistance[chain.levels.size() - 1];
        chain.levels.push_back({level, std::numeric_limits<float>::infinity()});
        char line[160];
        std::snprintf(line, sizeof line, ", level %zu %u triangles%s from %.0f", chain.levels.size() - 1,
                      level->triangleCount(), sloppy ? " (sloppy simplifier)" : "",
                      static_cast<double>(chain.levels[chain.levels.size() - 2].switchDistance));
        report += line;
    }
    if (chain.levels.size() < 2) {
        std::printf("07-gallery: LOD off: the model's %u triangles could not be simplified\n", mesh->triangleCount());
        return std::nullopt;
    }
    std::printf("07-gallery: LOD %s (distances in model widths)\n", report.c_str());
    return chain;
}

/** The --culling values, in the order C cycles through them. */
constexpr std::array<const char*, 4> kCullingNames = {"off", "batch", "cpu", "gpu"};

/** Applies culling mode @p which (index into kCullingNames): off draws every copy whatever the
 *  view; batch culls the grid as one sphere; cpu / gpu test each copy's sphere. */
void setCulling(InstancedMeshNode& batch, std::size_t which) {
    batch.setFrustumCulled(which != 0);
    batch.setInstanceCulling(which == 2 ? InstanceCulling::Cpu
                             : which == 3 ? InstanceCulling::Gpu
                                          : InstanceCulling::Off);
}

/** Picks what is under pixel (@p x, @p y) and prints it.
 *  @return the instance hit, or nothing. */
std::optional<std::size_t> pickAndPrint(const Scene& scene, const Camera& camera, double x, double y,
                                        std::uint32_t width, std::uint32_t height) {
    const std::optional<PickHit> hit = scene.pick(rayThroughPixel(camera, x, y, width, height));
    if (!hit) {
        std::printf("07-gallery: pick at pixel (%.0f, %.0f): nothing\n", x, y);
        return std::nullopt;
    }
    std::printf("07-gallery: pick at pixel (%.0f, %.0f): node '%s', instance %s, distance %.3f, "
                "world point (%.3f, %.3f, %.3f)\n",
                x, y, hit->node->name().c_str(),
                hit->instance ? std::to_string(*hit->instance).c_str() : "none", hit->distance, hit->point.x,
                hit->point.y, hit->point.z);
    return hit->instance;
}

/** Reads --pick "X,Y" (whole pixels inside the picture). @return nothing when malformed. */
std::optional<std::array<long, 2>> parsePixel(const std::string& text, std::uint32_t width, std::uint32_t height) {
    char* end = nullptr;
    const long x = std::strtol(text.c_str(), &end, 10);
    if (end == text.c_str() || *end != ',') {
        return std::nullopt;
    }
    const char* yText = end + 1;
    const long y = std::strtol(yText, &end, 10);
    if (end == yText || *end != '\0' || x < 0 || y < 0 || x >= static_cast<long>(width) ||
        y >= static_cast<long>(height)) {
        return std::nullopt;
    }
    return std::array<long, 2>{x, y};
}

} // namespace

int main(int argc, char** argv) try {
    // ---- Init ----
    const examples::ExampleSpec spec{
        .name = "07-gallery",
        .summary = "any glTF model's first primitive instanced N times on a grid (one draw call per level of "
                   "detail), with generated levels of detail, per-instance culling, picking and sorted translucency",
        .flags = {{"--model", "PATH", "the .glb or .gltf to show (its first triangle primitive)",
                   std::string(MYRIAD_ASSETS_DIR) + "/Fox/Fox.glb", examples::FlagKind::Text, {}, 0, 0},
                  {"--count", "N", "copies at start", "100", examples::FlagKind::Number, {}, 1, kMaxCount},
                  {"--lod", "ON|OFF",
                   "on: up to two simpler levels generated from the model (meshoptimizer), drawn past 12 and 30 "
                   "model widths; the summary says how many copies drew each level",
                   "on", examples::FlagKind::Choice, {"on", "off"}, 0, 0},
                  {"--culling", "MODE",
                   "frustum culling: off (draw every copy), batch (the grid as one sphere), cpu or gpu (each "
                   "copy's sphere, tested on the CPU or in a compute pass); on = batch; C cycles",
                   "batch", examples::FlagKind::Choice, {"off", "batch", "cpu", "gpu", "on"}, 0, 0},
                  {"--pick", "X,Y",
                   "after the frames, pick the copy under pixel X,Y of the --width x --height picture (from "
                   "its top-left corner) and print it, or 'nothing'",
                   "", examples::FlagKind::Text, {}, 0, 0},
                  {"--opacity", "P",
                   "percent; below 100 the material is blended (alpha P/100) and the copies are drawn back "
                   "to front", "100", examples::FlagKind::Number, {}, 1, 100}},
        .controls = {"+ / -: double / halve the number of copies (1 to 1000000)",
                     "C: cycle frustum culling: off, batch, cpu, gpu",
                     "left click (without dragging): pick the copy under the cursor, tint it red and print it"},
        .unavailable = {},
        .width = 1280,
        .height = 720,
        .cameraControls = true,
    };
    const examples::ExampleOptions options = examples::parseOptions(argc, argv, spec);
    auto count = static_cast<std::size_t>(options.number("--count"));
    const std::string& modelPath = options.text("--model");
    std::optional<std::array<long, 2>> pickPixel;
    if (!options.text("--pick").empty()) {
        pickPixel = parsePixel(options.text("--pick"), options.width, options.height);
        if (!pickPixel) {
            std::fprintf(stderr, "07-gallery: --pick: '%s' is not X,Y with 0 <= X < %u and 0 <= Y < %u "
                                 "(see 07-gallery --help)\n",
                         options.text("--pick").c_str(), options.width, options.height);
            return 2;
        }
    }
    const std::string& cullingText = options.text("--culling");
    std::size_t culling = 1;  // "batch", and "on" as before --culling had more modes
    for (std::size_t i = 0; i < kCullingNames.size(); ++i) {
        if (cullingText == kCullingNames[i]) {
            culling = i;
        }
    }
    const auto opacity = static_cast<float>(options.number("--opacity")) / 100.0f;
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
    Material material = primitive.material;
    if (opacity < 1.0f) {
        material.alphaMode = AlphaMode::Blend;
        material.baseColor.a *= opacity;
    }
    auto& batch = scene.root().emplace<InstancedMeshNode>(primitive.mesh, material, count, "gallery");
    setCulling(batch, culling);
    batch.setSortInstances(true);  // only a blended material (--opacity, or the model's own) sorts
    layOut(batch, count, bounds, scale);
    std::optional<LodChain> lodChain;
    if (options.text("--lod") == "on") {
        lodChain = makeLodChain(primitive.mesh);
        if (lodChain) {
            batch.setLodChain(*lodChain);
        }
    }

    Camera camera;
    examples::CameraController controller(camera, glm::radians(50.0f), 0.05f, 4000.0f);
    frame(controller, count);
    runner.setCameraController(&controller);

    // ---- Keys and clicks ----
    std::optional<std::size_t> picked;  // the tinted copy
    const auto resize = [&](std::size_t newCount) {
        newCount = std::clamp<std::size_t>(newCount, 1, kMaxCount);
        if (newCount == count) {
            return;
        }
        count = newCount;
        layOut(batch, count, bounds, scale);
        picked.reset();  // the layout made every copy white again
        if (!controller.userTookOver()) {
            frame(controller, count);  // keep the whole grid in view until the user steers
        }
        std::printf("07-gallery: %zu copies\n", count);
    };
    runner.bindKey(U'+', [&] { resize(count * 2); });
    runner.bindKey(U'=', [&] { resize(count * 2); });  // '+' without Shift on a US keyboard
    runner.bindKey(U'-', [&] { resize(count / 2); });
    const auto cycleCulling = [&] {
        culling = (culling + 1) % kCullingNames.size();
        setCulling(batch, culling);
        std::printf("07-gallery: culling %s\n", kCullingNames[culling]);
    };
    runner.bindKey(U'c', cycleCulling);
    runner.bindKey(U'C', cycleCulling);
    runner.onClick([&](double x, double y, std::uint32_t width, std::uint32_t height) {
        const std::optional<std::size_t> hit = pickAndPrint(scene, camera, x, y, width, height);
        if (picked && *picked < batch.count()) {
            batch.setColor(*picked, glm::vec4(1.0f));
        }
        picked = hit;
        if (picked) {
            batch.setColor(*picked, glm::vec4(1.0f, 0.25f, 0.2f, 1.0f));
        }
    });

    // ---- Draw / Shutdown ----
    const int status = runner.run(scene, camera, {});
    if (lodChain) {
        const gl::FrameStats& stats = runner.renderer().lastFrameStats();
        std::string levels;
        for (std::size_t i = 0; i < lodChain->levels.size(); ++i) {
            levels += (i == 0 ? "" : ", ") + std::string("level ") + std::to_string(i) + " " +
                      std::to_string(stats.lodInstances[i]);
        }
        std::printf("07-gallery: LOD in the last frame: %s copies\n", levels.c_str());
    }
    if (pickPixel) {
        // The camera as the last frame drew it (the picture's size: --width x --height).
        (void)pickAndPrint(scene, camera, static_cast<double>((*pickPixel)[0]), static_cast<double>((*pickPixel)[1]),
                           options.width, options.height);
    }
    return status;
} catch (const myriad::Error& e) {
    std::fprintf(stderr, "07-gallery: %s\n", e.what());
    return 1;
} catch (const std::bad_alloc&) {
    std::fprintf(stderr, "07-gallery: out of memory; try a smaller --count\n");
    return 1;
}
