// importScene() drawn: an EXT_mesh_gpu_instancing file is one batch and one draw call, with
// each box where the file's instance transforms put it.
#include "support/GlTest.h"
#include "gltf/TestFiles.h"

#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Scene.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/Renderer.h"
#include "myriad/gltf/GltfImporter.h"

#include <glm/common.hpp>

#include <algorithm>
#include <array>
#include <vector>

using namespace myriad;
using namespace myriad::test;

TEST_CASE("SimpleInstancing draws 125 boxes in one draw call, each where the file puts it",
          "[gltf][scene][pixels]") {
    context();
    const std::string path = std::string(MYRIAD_ASSETS_DIR) + "/SimpleInstancing/simple-instancing.glb";
    myriad::gltf::ImportedScene imported = myriad::gltf::importScene(path);
    REQUIRE(imported.instancing.size() == 1);
    REQUIRE(imported.instancing[0].batches.size() == 1);
    InstancedMeshNode& batch = *imported.instancing[0].batches[0];
    REQUIRE(batch.count() == 125);
    batch.material().shading = Shading::Unlit;  // white boxes on black: bytes 0 or 255

    Scene scene;
    scene.root().add(std::move(imported.root));
    // Looking down -Z at x, y in [-1, 13]: the translations span 0..10, boxes up to ~3.5 wide.
    constexpr std::uint32_t kSize = 128;
    constexpr float kLow = -1.0f;
    constexpr float kHigh = 13.0f;
    Camera camera;
    camera.setOrthographic(kLow, kHigh, kLow, kHigh, 1.0f, 100.0f);
    camera.lookAt(glm::vec3(0.0f, 0.0f, 50.0f), glm::vec3(0.0f));
    gl::Renderer renderer;
    gl::OffscreenTarget target(kSize, kSize, "instancing-target");
    renderer.render(scene, camera, target);
    CHECK(renderer.lastFrameStats().drawCalls == 1);
    const Image image = target.readPixels();

    auto column = [](float x) {
        return static_cast<int>((x - kLow) / (kHigh - kLow) * static_cast<float>(kSize));
    };
    auto row = [](float y) {
        return static_cast<int>((kHigh - y) / (kHigh - kLow) * static_cast<float>(kSize));
    };
    // Each box (the unit cube 0..1 placed by the file's own T * R * S, read from its bytes, not
    // from the importer; the node has no transform): its centre is covered, and its eight
    // corners bound the screen rectangle it may touch.
    const std::vector<std::uint8_t> bin = test::gltf::glbBinChunk(path);
    std::vector<std::uint8_t> mayBeCovered(kSize * kSize, 0);
    for (std::size_t i = 0; i < 125; ++i) {
        const glm::mat4 placement = test::gltf::simpleInstancingRecord(bin, i);
        const glm::vec3 centre = glm::vec3(placement * glm::vec4(0.5f, 0.5f, 0.5f, 1.0f));
        INFO("instance " << i << " centre (" << centre.x << ", " << centre.y << ")");
        MYRIAD_CHECK_PIXEL(image, static_cast<std::uint32_t>(column(centre.x)),
                           static_cast<std::uint32_t>(row(centre.y)), kWhite);
        glm::vec2 low(1e9f);
        glm::vec2 high(-1e9f);
        for (int corner = 0; corner < 8; ++corner) {
            const glm::vec4 p = placement * glm::vec4(corner & 1, (corner >> 1) & 1,
                                                      (corner >> 2) & 1, 1.0f);
            low = glm::min(low, glm::vec2(p));
            high = glm::max(high, glm::vec2(p));
        }
        for (int y = std::max(0, row(high.y) - 1); y <= std::min<int>(kSize - 1, row(low.y) + 1); ++y) {
            for (int x = std::max(0, column(low.x) - 1);
                 x <= std::min<int>(kSize - 1, column(high.x) + 1); ++x) {
                mayBeCovered[static_cast<std::size_t>(y) * kSize + static_cast<std::size_t>(x)] = 1;
            }
        }
    }
    // Everywhere no box can reach stays the clear colour.
    std::size_t outside = 0;
    std::size_t wrong = 0;
    for (std::uint32_t y = 0; y < kSize; ++y) {
        for (std::uint32_t x = 0; x < kSize; ++x) {
            if (mayBeCovered[y * kSize + x] == 0) {
                ++outside;
                wrong += near(pixelAt(image, x, y), kBlack) ? 0 : 1;
            }
        }
    }
    CHECK(outside > kSize * kSize / 20);  // the check below looks at a fair part of the image
    CHECK(wrong == 0);
}
