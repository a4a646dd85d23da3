// Real glTF models from ../shared/assets, imported and drawn.
#include "support/GlTest.h"

#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Scene.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/Renderer.h"
#include "myriad/gltf/GltfImporter.h"

#include <glm/gtc/matrix_transform.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>

using namespace myriad;
using namespace myriad::test;

namespace {

std::string asset(const char* relative) { return std::string(MYRIAD_ASSETS_DIR) + "/" + relative; }

std::size_t coveredPixels(const Image& image) {
    std::size_t covered = 0;
    for (std::uint32_t y = 0; y < image.height; ++y) {
        for (std::uint32_t x = 0; x < image.width; ++x) {
            const std::uint8_t* p = image.pixel(x, y);
            covered += (p[0] != 0 || p[1] != 0 || p[2] != 0) ? 1 : 0;
        }
    }
    return covered;
}

} // namespace

TEST_CASE("every model in the shared assets imports and renders non-empty", "[gltf][pixels]") {
    context();
    gl::Renderer renderer;
    gl::OffscreenTarget target(64, 64, "gltf-target");
    std::size_t models = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(MYRIAD_ASSETS_DIR)) {
        const std::string extension = entry.path().extension().string();
        if (extension != ".gltf" && extension != ".glb") {
            continue;
        }
        const std::string path = entry.path().string();
        INFO(path);
        const gltf::ImportedModel model = gltf::importModel(path);
        REQUIRE_FALSE(model.primitives.empty());
        Scene scene;
        scene.ambient = glm::vec3(0.5f);
        for (const gltf::ImportedPrimitive& primitive : model.primitives) {
            auto& batch = scene.root().emplace<InstancedMeshNode>(primitive.mesh,
                                                                  primitive.material, 2);
            batch.addInstance(glm::mat4(1.0f));
        }
        renderer.render(scene, framing(model.bounds), target);
        const std::size_t covered = coveredPixels(target.readPixels());
        CHECK(covered > 64 * 64 / 50);  // at least 2% of the image shows the model
        CHECK(renderer.lastFrameStats().drawCommands == model.primitives.size());
        ++models;
    }
    CHECK(models >= 10);
}

TEST_CASE("instance colour multiplies vertex colour (BoxVertexColors)", "[gltf][pixels]") {
    context();
    const gltf::ImportedModel model = gltf::importModel(asset("BoxVertexColors/BoxVertexColors.gltf"));
    REQUIRE(model.primitives.size() == 1);
    REQUIRE(model.primitives[0].mesh->hasColors());
    Material material = model.primitives[0].material;
    material.shading = Shading::Unlit;
    gl::Renderer renderer;
    gl::OffscreenTarget target(64, 64);
    Scene scene;
    // The cube spans 0..1 with COLOR_0 = position; its +Z face, centred on the view axis, has
    // colour (0.5, 0.5, 1) at its centre.
    auto& batch = scene.root().emplace<InstancedMeshNode>(model.primitives[0].mesh, material, 2);
    batch.addInstance(glm::translate(glm::mat4(1.0f), glm::vec3(-1.5f, -0.5f, 0.0f)));
    batch.addInstance(glm::translate(glm::mat4(1.0f), glm::vec3(0.5f, -0.5f, 0.0f)),
                      glm::vec4(1.0f, 0.0f, 1.0f, 1.0f));
    Camera camera;
    camera.setOrthographic(-2.0f, 2.0f, -2.0f, 2.0f, 0.1f, 20.0f);
    camera.lookAt(glm::vec3(0, 0, 10), glm::vec3(0));
    renderer.render(scene, camera, target);
    const Image image = target.readPixels();
    // Near the centres of the two +Z faces (x = -1 and x = +1 in world, y = 0), the vertex
    // colour is the cube-local position of the pixel centre, sRGB-encoded on output.
    auto expected = [](std::uint32_t px, std::uint32_t py, float faceLeft, glm::vec3 tint) {
        const float x = (static_cast<float>(px) + 0.5f) / 64.0f * 4.0f - 2.0f;
        const float y = 2.0f - (static_cast<float>(py) + 0.5f) / 64.0f * 4.0f;
        const glm::vec3 local(x - faceLeft, y + 0.5f, 1.0f);
        const glm::vec3 c = local * tint;
        auto encode = [](float v) {
            v = std::clamp(v, 0.0f, 1.0f);
            const float e = v <= 0.0031308f ? v * 12.92f : 1.055f * std::pow(v, 1.0f / 2.4f) - 0.055f;
            return static_cast<int>(std::lround(e * 255.0f));
        };
        return Rgba{encode(c.r), encode(c.g), encode(c.b), 255};
    };
    MYRIAD_CHECK_PIXEL(image, 16, 32, expected(16, 32, -1.5f, glm::vec3(1.0f)));
    MYRIAD_CHECK_PIXEL(image, 20, 26, expected(20, 26, -1.5f, glm::vec3(1.0f)));
    MYRIAD_CHECK_PIXEL(image, 48, 32, expected(48, 32, 0.5f, glm::vec3(1.0f, 0.0f, 1.0f)));
    MYRIAD_CHECK_PIXEL(image, 44, 38, expected(44, 38, 0.5f, glm::vec3(1.0f, 0.0f, 1.0f)));
}
