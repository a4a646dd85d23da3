#include "support/GlTest.h"

#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/Renderer.h"

#include <glm/gtc/matrix_transform.hpp>

using namespace myriad;
using namespace myriad::test;

namespace {

constexpr std::uint32_t kSize = 64;

// Adds a scene and a quad to the shared fixture.
struct Fixture : RenderFixture {
    Scene scene;
    std::shared_ptr<const MeshGeometry> quad = MeshGeometry::create(shapes::quad(0.5f, 0.5f), "quad");

    Image render() { return RenderFixture::render(scene); }
};

} // namespace

TEST_CASE("one red instance is red where it is and clear colour elsewhere", "[pixels]") {
    Fixture f;
    auto& batch = f.scene.root().emplace<InstancedMeshNode>(f.quad, unlit(), 4, "reds");
    batch.addInstance(at(0.5f, 0.5f), glm::vec4(1, 0, 0, 1));
    const Image image = f.render();
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), pixelY(0.5f, kSize), kRed);
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), pixelY(-0.5f, kSize), kBlack);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), pixelY(-0.5f, kSize), kBlack);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.0f, kSize) - 4, pixelY(0.0f, kSize) + 4, kBlack);
    // Edges: the quad spans x in [0.25, 0.75].
    MYRIAD_CHECK_PIXEL(image, pixelX(0.3f, kSize), pixelY(0.5f, kSize), kRed);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.2f, kSize), pixelY(0.5f, kSize), kBlack);
    const gl::FrameStats& stats = f.renderer.lastFrameStats();
    CHECK(stats.drawCalls == 1);
    CHECK(stats.instances == 1);
    CHECK(stats.triangles == 2);
}

TEST_CASE("count below capacity draws only count instances", "[pixels]") {
    Fixture f;
    auto& batch = f.scene.root().emplace<InstancedMeshNode>(f.quad, unlit(), 3, "batch");
    batch.addInstance(at(-0.5f, 0.5f), glm::vec4(1, 0, 0, 1));
    batch.addInstance(at(0.5f, 0.5f), glm::vec4(0, 1, 0, 1));
    batch.addInstance(at(0.5f, -0.5f), glm::vec4(0, 0, 1, 1));
    batch.setCount(2);
    Image image = f.render();
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), pixelY(0.5f, kSize), kRed);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), pixelY(0.5f, kSize), kGreen);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), pixelY(-0.5f, kSize), kBlack);
    CHECK(f.renderer.lastFrameStats().instances == 2);
    batch.setCount(3);
    image = f.render();
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), pixelY(-0.5f, kSize), kBlue);
    batch.clear();
    image = f.render();
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), pixelY(0.5f, kSize), kBlack);
    CHECK(f.renderer.lastFrameStats().drawCalls == 0);
}

TEST_CASE("moving the node moves every instance", "[pixels]") {
    Fixture f;
    auto& batch = f.scene.root().emplace<InstancedMeshNode>(f.quad, unlit(), 2, "batch");
    batch.addInstance(at(-0.5f, 0.5f), glm::vec4(1, 0, 0, 1));
    batch.addInstance(at(-0.5f, -0.5f), glm::vec4(0, 1, 0, 1));
    Image image = f.render();
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), pixelY(0.5f, kSize), kRed);
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), pixelY(-0.5f, kSize), kGreen);
    const auto uploaded = f.renderer.lastFrameStats().bytesUploaded;
    CHECK(uploaded >= 2 * 64);

    batch.setPosition(glm::vec3(1.0f, 0.0f, 0.0f));
    image = f.render();
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), pixelY(0.5f, kSize), kBlack);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), pixelY(0.5f, kSize), kRed);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), pixelY(-0.5f, kSize), kGreen);
    // Only the node moved: no instance data was sent again, only the batch's draw-table row
    // (224 bytes: its world matrix, tint, material, light channels and shading factors,
    // renderer/DrawTable.h).
    CHECK(f.renderer.lastFrameStats().bytesUploaded == 224);
}

TEST_CASE("node x instance order: the node rotation applies after the instance translation", "[pixels]") {
    Fixture f;
    auto& batch = f.scene.root().emplace<InstancedMeshNode>(f.quad, unlit(), 1, "batch");
    batch.addInstance(at(0.5f, 0.0f), glm::vec4(1, 0, 0, 1));
    // A 90 degree turn about +Z takes the instance at +X to +Y; the reverse order would leave
    // it at +X (turning the quad in place).
    batch.setRotation(glm::angleAxis(glm::radians(90.0f), glm::vec3(0, 0, 1)));
    const Image image = f.render();
    MYRIAD_CHECK_PIXEL(image, pixelX(0.0f, kSize) + 1, pixelY(0.5f, kSize), kRed);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), pixelY(0.0f, kSize) - 1, kBlack);
}

TEST_CASE("1000 instances are one draw call, and each lands where it was put", "[pixels]") {
    Fixture f;
    auto tiny = MeshGeometry::create(shapes::quad(0.05f, 0.05f), "tiny");
    auto& batch = f.scene.root().emplace<InstancedMeshNode>(tiny, unlit(), 1000, "many");
    for (int i = 0; i < 1000; ++i) {
        const float x = -0.95f + 0.0625f * static_cast<float>(i % 32);
        const float y = 0.95f - 0.0625f * static_cast<float>(i / 32);
        batch.addInstance(at(x, y), i % 2 == 0 ? glm::vec4(1, 0, 0, 1) : glm::vec4(0, 1, 0, 1));
    }
    const Image image = f.render();
    const gl::FrameStats& stats = f.renderer.lastFrameStats();
    CHECK(stats.drawCalls == 1);
    CHECK(stats.instances == 1000);
    CHECK(stats.batches == 1);
    CHECK(stats.bytesUploaded >= 1000 * 64);
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.95f, kSize), pixelY(0.95f, kSize), kRed);
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.95f + 0.0625f, kSize), pixelY(0.95f, kSize), kGreen);
    // An unchanged batch is not uploaded again.
    f.render();
    CHECK(f.renderer.lastFrameStats().bytesUploaded == 0);
    batch.setColor(999, glm::vec4(0, 0, 1, 1));
    f.render();
    CHECK(f.renderer.lastFrameStats().bytesUploaded == 64);  // the one changed record only
}

TEST_CASE("hidden nodes, MeshNodes and lit shading", "[pixels]") {
    Fixture f;
    auto& hidden = f.scene.root().emplace<InstancedMeshNode>(f.quad, unlit(), 1, "hidden");
    hidden.addInstance(at(-0.5f, 0.5f), glm::vec4(1, 0, 0, 1));
    hidden.setVisible(false);
    auto& single = f.scene.root().emplace<MeshNode>(f.quad, unlit(glm::vec4(0, 0, 1, 1)), "single");
    single.setPosition(glm::vec3(0.5f, -0.5f, 0.0f));
    Material lit;
    lit.baseColor = glm::vec4(1, 1, 1, 1);
    auto& litNode = f.scene.root().emplace<MeshNode>(f.quad, lit, "lit");
    litNode.setPosition(glm::vec3(-0.5f, -0.5f, 0.0f));
    f.scene.light.direction = glm::vec3(0, 0, -1);  // straight onto the +Z-facing quad
    f.scene.light.color = glm::vec3(0.5f);
    f.scene.ambient = glm::vec3(0.0f);
    const Image image = f.render();
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), pixelY(0.5f, kSize), kBlack);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), pixelY(-0.5f, kSize), kBlue);
    // Linear 0.5 is sRGB-encoded as 188.
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), pixelY(-0.5f, kSize), Rgba{188, 188, 188, 255});
    CHECK(f.renderer.lastFrameStats().drawCalls == 2);
    CHECK(f.renderer.lastFrameStats().meshNodes == 2);
    // Camera and light are set once per program per frame: a change shows in the next frame.
    f.scene.light.color = glm::vec3(1.0f);
    const Image brighter = f.render();
    MYRIAD_CHECK_PIXEL(brighter, pixelX(-0.5f, kSize), pixelY(-0.5f, kSize), kWhite);
}

TEST_CASE("alpha-blend nodes draw after opaque ones, back to front", "[pixels]") {
    Fixture f;
    Material glass = unlit(glm::vec4(0, 0, 1, 0.5f));
    glass.alphaMode = AlphaMode::Blend;
    // The translucent quad is added first and sits in front; the opaque red one is behind it.
    auto& front = f.scene.root().emplace<MeshNode>(f.quad, glass, "glass");
    front.setPosition(glm::vec3(0.0f, 0.0f, 1.0f));
    f.scene.root().emplace<MeshNode>(f.quad, unlit(glm::vec4(1, 0, 0, 1)), "red");
    const Image image = f.render();
    const Rgba centre = pixelAt(image, kSize / 2, kSize / 2);
    INFO("centre " << describe(centre));
    CHECK(centre[0] > 100);  // red shows through
    CHECK(centre[2] > 100);  // and blue is blended over it
}

TEST_CASE("shapes::plane is a floor: lit seen from above, back-face culled from below", "[pixels][shapes]") {
    Fixture f;
    Material lit;  // single-sided
    lit.baseColor = glm::vec4(1, 1, 1, 1);
    f.scene.root().emplace<MeshNode>(MeshGeometry::create(shapes::plane(1.0f, 1.0f, 3, 2), "floor"), lit, "floor");
    f.scene.light.direction = glm::vec3(0, -1, 0);  // straight down onto the +Y-facing plane
    f.scene.light.color = glm::vec3(1.0f);
    f.scene.ambient = glm::vec3(0.0f);
    // From above, -Z up the picture: the plane spans [-0.5, 0.5] in x and z.
    f.camera.lookAt(glm::dvec3(0.0, 10.0, 0.0), glm::dvec3(0.0), glm::dvec3(0.0, 0.0, -1.0));
    const Image above = f.render();
    MYRIAD_CHECK_PIXEL(above, pixelX(0.0f, kSize), pixelY(0.0f, kSize), kWhite);
    MYRIAD_CHECK_PIXEL(above, pixelX(0.4f, kSize), pixelY(0.4f, kSize), kWhite);
    MYRIAD_CHECK_PIXEL(above, pixelX(-0.4f, kSize), pixelY(-0.4f, kSize), kWhite);
    MYRIAD_CHECK_PIXEL(above, pixelX(0.7f, kSize), pixelY(0.0f, kSize), kBlack);
    // From below it shows its back: culled, the clear colour everywhere.
    f.camera.lookAt(glm::dvec3(0.0, -10.0, 0.0), glm::dvec3(0.0), glm::dvec3(0.0, 0.0, -1.0));
    const Image below = f.render();
    MYRIAD_CHECK_PIXEL(below, pixelX(0.0f, kSize), pixelY(0.0f, kSize), kBlack);
    MYRIAD_CHECK_PIXEL(below, pixelX(0.4f, kSize), pixelY(0.4f, kSize), kBlack);
    CHECK(f.renderer.lastFrameStats().culledNodes == 0);  // drawn and back-face culled, not frustum culled
}
