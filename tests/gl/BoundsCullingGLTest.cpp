// Culling seen on screen: bounds that follow setMesh() and morph weights (fault 3),
// a culling sphere that holds a sheared box (fault 4), back faces of single-sided quads culled
// for ordinary and mirrored instances (a picture that changes with culling off), and blended
// nodes sorted back to front from both sides. Unlit colours with channels 0 or 1 only; the
// blending test compares channels, not mid-tone bytes.
#include "support/GlTest.h"

#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/Renderer.h"

#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/quaternion.hpp>

#include <vector>

using namespace myriad;
using namespace myriad::test;

namespace {

constexpr std::uint32_t kSize = RenderFixture::kSize;

/** A quad whose one morph target moves every vertex by (3, 0, 0): at weight -1 a quad placed at
 *  x = 3 is drawn at the origin. A negative weight, so bounds built from the sign-blind
 *  "weight * max delta" would miss it. */
std::shared_ptr<const MeshGeometry> slidingQuad(float size) {
    MeshData data = shapes::quad(size, size);
    data.morphTargets.push_back(
        {"slide", std::vector<glm::vec3>(data.positions.size(), glm::vec3(3.0f, 0.0f, 0.0f)), {}});
    return MeshGeometry::create(std::move(data), "sliding-quad");
}

} // namespace

TEST_CASE("a batch out of view whose mesh grows into view by setMesh is drawn (fault 3)", "[culling][bounds][pixels]") {
    RenderFixture f;
    Scene scene;
    auto tiny = MeshGeometry::create(shapes::quad(0.2f, 0.2f), "tiny");
    auto big = MeshGeometry::create(shapes::quad(8.0f, 8.0f), "big");
    auto& batch = scene.root().emplace<InstancedMeshNode>(tiny, unlit(glm::vec4(1, 0, 0, 1)), 1, "batch");
    batch.addInstance(at(3.0f, 0.0f));
    auto& node = scene.root().emplace<MeshNode>(tiny, unlit(glm::vec4(0, 1, 0, 1)), "node");
    node.setPosition(glm::dvec3(-3.0, 0.0, -1.0));  // behind the batch's quad
    Image image = f.render(scene);
    MYRIAD_CHECK_PIXEL(image, kSize / 2, kSize / 2, kBlack);
    CHECK(f.renderer.lastFrameStats().culledNodes == 2);
    // Through the base class, as code holding a MeshNode& would call it (not virtual).
    static_cast<MeshNode&>(batch).setMesh(big);
    image = f.render(scene);
    MYRIAD_CHECK_PIXEL(image, kSize / 2, kSize / 2, kRed);  // the 8 x 8 quad at x = 3 covers the view
    CHECK(f.renderer.lastFrameStats().culledNodes == 1);
    batch.setMesh(tiny);
    node.setMesh(big);
    image = f.render(scene);
    MYRIAD_CHECK_PIXEL(image, kSize / 2, kSize / 2, kGreen);
    CHECK(f.renderer.lastFrameStats().culledNodes == 1);
}

TEST_CASE("morph weights that move geometry into view, per node and per instance, negative too (fault 3)", "[culling][bounds][morph][pixels]") {
    RenderFixture f;
    Scene scene;
    auto mesh = slidingQuad(0.4f);
    auto& node = scene.root().emplace<MeshNode>(mesh, unlit(glm::vec4(0, 1, 0, 1)), "node");
    node.setPosition(glm::dvec3(3.5, 0.5, 0.0));  // morphed to (0.5, 0.5)
    auto& batch = scene.root().emplace<InstancedMeshNode>(mesh, unlit(glm::vec4(0, 0, 1, 1)), 2, "batch");
    batch.addInstance(at(2.5f, -0.5f));  // morphed to (-0.5, -0.5) by its own weight
    batch.addInstance(at(3.5f, -0.5f));  // morphed to (0.5, -0.5) by the node's weight
    Image image = f.render(scene);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), pixelY(0.5f, kSize), kBlack);
    CHECK(f.renderer.lastFrameStats().culledNodes == 2);

    const float slideLeft[] = {-1.0f};
    node.setMorphWeights(slideLeft);
    const float ownSlide[] = {-1.0f};
    batch.setMorphWeights(0, ownSlide);
    image = f.render(scene);
    CHECK(f.renderer.lastFrameStats().culledNodes == 0);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), pixelY(0.5f, kSize), kGreen);
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), pixelY(-0.5f, kSize), kBlue);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), pixelY(-0.5f, kSize), kBlack);  // instance 1: node weight 0

    // Only the node's weight now (through MeshNode&): instance 0 keeps its own.
    static_cast<MeshNode&>(batch).setMorphWeights(slideLeft);
    image = f.render(scene);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), pixelY(-0.5f, kSize), kBlue);
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), pixelY(-0.5f, kSize), kBlue);
}

TEST_CASE("a sheared batch whose sphere was too small is drawn at the screen edge (fault 4)", "[culling][bounds][pixels]") {
    RenderFixture f;
    Scene scene;
    // The shape: a unit cube under a parent scaled (4, 1, 1), the child turned 45 degrees
    // about Z. Its x half extent is 2.828; the old sphere radius was 2.525. A frame turned 90
    // degrees about X stands the cube's z on screen y, so the tip is a strip a full unit tall.
    auto& frame = scene.root().emplace<SceneNode>("frame");
    frame.setRotation(glm::angleAxis(glm::radians(90.0f), glm::vec3(1.0f, 0.0f, 0.0f)));
    frame.setPosition(glm::dvec3(-3.6, 0.0, 0.0));  // 2.6 past the left plane (x = -1)
    auto& stretch = frame.emplace<SceneNode>("stretch");
    stretch.setScale(glm::vec3(4.0f, 1.0f, 1.0f));
    auto& batch = stretch.emplace<InstancedMeshNode>(MeshGeometry::create(shapes::box(1.0f)),
                                                     unlit(glm::vec4(1, 0, 0, 1)), 1, "cube");
    batch.setRotation(glm::angleAxis(glm::radians(45.0f), glm::vec3(0.0f, 0.0f, 1.0f)));
    batch.addInstance(glm::mat4(1.0f));
    const Image image = f.render(scene);
    CHECK(f.renderer.lastFrameStats().culledNodes == 0);
    // The tip reaches x = -3.6 + 2.828 = -0.77.
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.95f, kSize), pixelY(0.0f, kSize), kRed);
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.85f, kSize), pixelY(0.3f, kSize), kRed);
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.6f, kSize), pixelY(0.0f, kSize), kBlack);
}

TEST_CASE("single-sided quads seen from behind are culled, ordinary and mirrored instances alike", "[culling][pixels]") {
    // A closed box looks the same with back-face culling off (the depth test hides the back
    // faces); a lone quad does not: from behind it must vanish. Mirroring in Z turns a quad
    // round, so a mirrored instance is seen from behind exactly when an ordinary one is not.
    RenderFixture f;
    auto quad = MeshGeometry::create(shapes::quad(0.6f, 0.6f), "quad");
    const glm::mat4 flip = glm::scale(glm::mat4(1.0f), glm::vec3(1.0f, 1.0f, -1.0f));
    Scene scene;
    // Top row: one mixed batch (per-fragment back-face test).
    auto& mixed = scene.root().emplace<InstancedMeshNode>(quad, unlit(glm::vec4(1, 0, 0, 1)), 2, "mixed");
    mixed.addInstance(at(-0.5f, 0.5f));
    mixed.addInstance(at(0.5f, 0.5f) * flip);
    // Bottom row: an ordinary batch, an all-mirrored batch (GL_FRONT) and a mirrored MeshNode.
    scene.root().emplace<InstancedMeshNode>(quad, unlit(glm::vec4(0, 1, 0, 1)), 1, "ordinary")
        .addInstance(at(-0.6f, -0.5f));
    scene.root().emplace<InstancedMeshNode>(quad, unlit(glm::vec4(0, 0, 1, 1)), 1, "mirrored")
        .addInstance(at(0.0f, -0.5f) * flip);
    auto& node = scene.root().emplace<MeshNode>(quad, unlit(glm::vec4(1, 1, 0, 1)), "node");
    node.setPosition(glm::dvec3(0.6, -0.5, 0.0));
    node.setScale(glm::vec3(1.0f, 1.0f, -1.0f));
    const Rgba kYellow{255, 255, 0, 255};

    SECTION("from the front (+Z)") {
        const Image image = f.render(scene);
        MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), pixelY(0.5f, kSize), kRed);
        MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), pixelY(0.5f, kSize), kBlack);
        MYRIAD_CHECK_PIXEL(image, pixelX(-0.6f, kSize), pixelY(-0.5f, kSize), kGreen);
        MYRIAD_CHECK_PIXEL(image, pixelX(0.0f, kSize), pixelY(-0.5f, kSize), kBlack);
        MYRIAD_CHECK_PIXEL(image, pixelX(0.6f, kSize), pixelY(-0.5f, kSize), kBlack);
        CHECK(f.renderer.lastFrameStats().culledNodes == 0);  // back faces, not frustum culling
    }
    SECTION("from behind (-Z): world x is mirrored on screen") {
        f.camera.lookAt(glm::dvec3(0.0, 0.0, -10.0), glm::dvec3(0.0));
        const Image image = f.render(scene);
        MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), pixelY(0.5f, kSize), kBlack);   // world x -0.5
        MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), pixelY(0.5f, kSize), kRed);    // world x 0.5
        MYRIAD_CHECK_PIXEL(image, pixelX(0.6f, kSize), pixelY(-0.5f, kSize), kBlack);  // world x -0.6
        MYRIAD_CHECK_PIXEL(image, pixelX(0.0f, kSize), pixelY(-0.5f, kSize), kBlue);
        MYRIAD_CHECK_PIXEL(image, pixelX(-0.6f, kSize), pixelY(-0.5f, kSize), kYellow);
    }
    SECTION("double-sided materials show both") {
        mixed.material().doubleSided = true;
        node.material().doubleSided = true;
        const Image image = f.render(scene);
        MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), pixelY(0.5f, kSize), kRed);
        MYRIAD_CHECK_PIXEL(image, pixelX(0.6f, kSize), pixelY(-0.5f, kSize), kYellow);
    }
}

TEST_CASE("two overlapping blended nodes are drawn back to front, seen from either side", "[blending][pixels]") {
    // Red at z = 0, blue at z = 1, both alpha 0.5, added in the same order whichever side the
    // camera is on: only a sort by distance gets both pictures right. The nearer colour
    // dominates: in linear light 0.5 near against 0.25 far (sRGB bytes 188 / 137; 128 / 64
    // without the sRGB encoding), so "near channel > far channel + 30" holds for either.
    RenderFixture f;
    Scene scene;
    auto quad = MeshGeometry::create(shapes::quad(1.0f, 1.0f), "quad");
    Material glass = unlit();
    glass.alphaMode = AlphaMode::Blend;
    glass.doubleSided = true;
    auto& blue = scene.root().emplace<MeshNode>(quad, glass, "blue");
    blue.material().baseColor = glm::vec4(0, 0, 1, 0.5f);
    blue.setPosition(glm::dvec3(0, 0, 1));
    auto& red = scene.root().emplace<MeshNode>(quad, glass, "red");
    red.material().baseColor = glm::vec4(1, 0, 0, 0.5f);

    Image image = f.render(scene);  // from +Z: blue is nearer
    Rgba centre = pixelAt(image, kSize / 2, kSize / 2);
    INFO("from +Z, centre " << describe(centre));
    CHECK(centre[0] > 30);             // red shows through
    CHECK(centre[2] > centre[0] + 30);  // blue on top

    f.camera.lookAt(glm::dvec3(0.0, 0.0, -10.0), glm::dvec3(0.0));
    image = f.render(scene);  // from -Z: red is nearer
    centre = pixelAt(image, kSize / 2, kSize / 2);
    INFO("from -Z, centre " << describe(centre));
    CHECK(centre[2] > 30);
    CHECK(centre[0] > centre[2] + 30);  // red on top
}
