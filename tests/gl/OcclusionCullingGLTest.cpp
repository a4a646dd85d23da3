// Occlusion culling on the CPU (View::occlusionCulling), on screen: a wall in front of 10,000
// instances draws none of them, instances peeking over its top are drawn where predicted, an
// occluder mesh occludes in place of the node's, setOccluder(false) hides nothing, and a node
// behind the wall is left out whole. FrameStats counts frustum and occlusion apart.
#include "support/GlTest.h"

#include <glad/gl.h>

#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/Renderer.h"
#include "myriad/gl/View.h"
#include "myriad/util/Error.h"

#include <glm/gtc/matrix_transform.hpp>

#include <cmath>
#include <memory>

using namespace myriad;
using namespace myriad::test;

namespace {

constexpr std::uint32_t kSize = RenderFixture::kSize;

/** 60 degrees, square, from (0, 0, 10) towards the origin, near 0.1 and far 100 (the wall scene's depths). */
Camera wallCamera() {
    Camera camera;
    camera.setPerspective(glm::radians(60.0f), 1.0f, 0.1f, 100.0f);
    camera.lookAt(glm::dvec3(0.0, 0.0, 10.0), glm::dvec3(0.0));
    return camera;
}

/** The red wall: a unit box scaled to 6 x 4 x 0.2 at z = 2 (front face at 2.1, 7.9 from the
 *  eye: it spans NDC |x| < 0.66, |y| < 0.44, and its top edge is seen along y = 0.2532 d at
 *  distance d). */
MeshNode& addWall(Scene& scene) {
    auto& wall = scene.root().emplace<MeshNode>(MeshGeometry::create(shapes::box(1.0f), "wall-box"),
                                                unlit({1.0f, 0.0f, 0.0f, 1.0f}), "wall");
    wall.setPosition({0.0, 0.0, 2.0});
    wall.setScale({6.0f, 4.0f, 0.2f});
    return wall;
}

/** Green cubes, InstanceCulling::Cpu, in record order: 10,000 of size 0.03 on a 100 x 100 grid
 *  over x in [-2, 2], y in [-1.2, 1.2] at z = -2 (all well inside the wall's silhouette there,
 *  |x| < 4.56, |y| < 3.04); then 5 of size 1 at x = -2..2, y = 3.04, z = -2, half above the
 *  wall's top edge (3.04 at that distance) and so peeking over it; then 3 far out of view. */
InstancedMeshNode& addCrowd(Scene& scene) {
    auto& batch = scene.root().emplace<InstancedMeshNode>(MeshGeometry::create(shapes::box(1.0f), "cube"),
                                                          unlit({0.0f, 1.0f, 0.0f, 1.0f}), 10008, "crowd");
    for (int j = 0; j < 100; ++j) {
        for (int i = 0; i < 100; ++i) {
            const float x = -2.0f + 4.0f * static_cast<float>(i) / 99.0f;
            const float y = -1.2f + 2.4f * static_cast<float>(j) / 99.0f;
            batch.addInstance(glm::scale(at(x, y, -2.0f), glm::vec3(0.03f)));
        }
    }
    for (int i = 0; i < 5; ++i) {
        batch.addInstance(at(static_cast<float>(i - 2), 3.04f, -2.0f));
    }
    for (int i = 0; i < 3; ++i) {
        batch.addInstance(at(100.0f + static_cast<float>(i), 0.0f, -2.0f));
    }
    batch.setInstanceCulling(InstanceCulling::Cpu);
    return batch;
}

/** Pixel (column, row from the top) of a world point under @p camera on the kSize target. */
glm::ivec2 pixelOf(const Camera& camera, const glm::vec3& point) {
    const glm::vec4 clip = camera.viewProjection() * glm::vec4(point, 1.0f);
    const glm::vec2 ndc = glm::vec2(clip) / clip.w;
    return {static_cast<int>(std::floor((ndc.x + 1.0f) * 0.5f * kSize)),
            static_cast<int>(std::floor((1.0f - ndc.y) * 0.5f * kSize))};
}

std::size_t countPixels(const Image& image, const Rgba& colour) {
    std::size_t n = 0;
    for (std::uint32_t y = 0; y < image.height; ++y) {
        for (std::uint32_t x = 0; x < image.width; ++x) {
            n += near(pixelAt(image, x, y), colour) ? 1 : 0;
        }
    }
    return n;
}

struct OcclusionFixture {
    RenderFixture fixture;
    Scene scene;
    Camera camera = wallCamera();

    Image render(bool occlusion = true) {
        gl::View view = gl::View::of(camera, fixture.target);
        view.occlusionCulling = occlusion;
        fixture.renderer.render(scene, view);
        return fixture.target.readPixels();
    }
    const gl::FrameStats& stats() const { return fixture.renderer.lastFrameStats(); }
};

} // namespace

TEST_CASE("Occlusion culling: a wall in front of 10,000 instances draws none of them, those peeking over it are drawn",
          "[occlusion][pixels]") {
    OcclusionFixture f;
    addWall(f.scene);
    addCrowd(f.scene);
    // Where the picture must show the peeking cube at x = 0: its front face (z = -1.5) at
    // y = 3.3, above the wall's top edge seen at that distance (0.2532 * 11.5 = 2.91).
    const glm::ivec2 peek = pixelOf(f.camera, {0.0f, 3.3f, -1.5f});
    const glm::ivec2 wallTopCentre = pixelOf(f.camera, {0.0f, 1.9f, 2.1f});
    REQUIRE(peek.y < wallTopCentre.y);

    SECTION("occlusion off: every instance in view is drawn, the picture is the same") {
        const Image image = f.render(false);
        const gl::FrameStats& stats = f.stats();
        CHECK(stats.instances == 1 + 10005);
        CHECK(stats.instancesFrustumCulled == 3);
        CHECK(stats.instancesOcclusionCulled == 0);
        CHECK(stats.occluderTriangles == 0);
        MYRIAD_CHECK_PIXEL(image, static_cast<std::uint32_t>(peek.x), static_cast<std::uint32_t>(peek.y), kGreen);
        MYRIAD_CHECK_PIXEL(image, kSize / 2, kSize / 2, kRed);
    }
    SECTION("occlusion on: the 10,000 behind are culled, the 5 peeking drawn and seen") {
        const Image image = f.render();
        const gl::FrameStats& stats = f.stats();
        CHECK(stats.instancesTested == 10008);
        CHECK(stats.instancesFrustumCulled == 3);
        CHECK(stats.instancesOcclusionCulled == 10000);
        CHECK(stats.nodesOcclusionCulled == 0);
        CHECK(stats.instances == 1 + 5);  // the wall and the peeking five
        CHECK(stats.occluderTriangles == 12);  // the wall's box; the crowd (10,008 > 1,024) does not occlude
        CHECK(stats.culledNodes == 0);
        // The picture: the wall, and green only where the peeking cubes stick out above it.
        MYRIAD_CHECK_PIXEL(image, kSize / 2, kSize / 2, kRed);
        MYRIAD_CHECK_PIXEL(image, static_cast<std::uint32_t>(peek.x), static_cast<std::uint32_t>(peek.y), kGreen);
        for (std::uint32_t y = static_cast<std::uint32_t>(wallTopCentre.y); y < kSize; ++y) {
            for (std::uint32_t x = 0; x < kSize; ++x) {
                if (near(pixelAt(image, x, y), kGreen)) {
                    FAIL("green below the wall's top at (" << x << ", " << y << ")");
                }
            }
        }
        // The same with reversed-Z (0..1 clip depth, near at 1): the buffer orders depth the
        // view's way, so the same instances are culled.
        gl::View reversed;
        reversed.viewMatrix = f.camera.view();
        glm::mat4 projection = glm::perspectiveRH_ZO(glm::radians(60.0f), 1.0f, 0.1f, 100.0f);
        for (int c = 0; c < 4; ++c) {
            projection[c][2] = projection[c][3] - projection[c][2];
        }
        reversed.projectionMatrix = projection;
        reversed.clipDepth = gl::ClipDepth::ZeroToOne;
        reversed.reversedDepth = true;
        reversed.framebuffer = f.fixture.target.framebufferId();
        reversed.viewport = {0, 0, kSize, kSize};
        reversed.targetEncoding = gl::TargetEncoding::Srgb;
        reversed.occlusionCulling = true;
        f.fixture.renderer.render(f.scene, reversed);
        const Image reversedImage = f.fixture.target.readPixels();
        CHECK(f.stats().instancesOcclusionCulled == 10000);
        CHECK(f.stats().instances == 1 + 5);
        MYRIAD_CHECK_PIXEL(reversedImage, static_cast<std::uint32_t>(peek.x), static_cast<std::uint32_t>(peek.y), kGreen);
        MYRIAD_CHECK_PIXEL(reversedImage, kSize / 2, kSize / 2, kRed);
        // Exactly the picture occlusion culling off draws.
        const Image reference = f.render(false);
        CHECK(sameImage(image, reference));
        CHECK(countPixels(image, kGreen) > 0);
    }
}

TEST_CASE("Occlusion culling: an occluder mesh occludes in place of the node's own, setOccluder(false) hides nothing",
          "[occlusion][pixels]") {
    OcclusionFixture f;
    MeshNode& wall = addWall(f.scene);
    addCrowd(f.scene);
    SECTION("occluderMesh: only the wall's left half occludes") {
        // The left half of the unit box: x in [-0.5, 0], i.e. the wall's x in [-3, 0].
        MeshData half = shapes::box(1.0f);
        for (glm::vec3& p : half.positions) {
            p.x = p.x * 0.5f - 0.25f;
        }
        wall.setOccluderMesh(MeshGeometry::create(std::move(half), "wall-left-half"));
        const Image image = f.render();
        const gl::FrameStats& stats = f.stats();
        // The 5,000 of x > 0 are not behind the occluder; of the 5,000 of x < 0, those within
        // about a buffer pixel of x = 0 are kept (conservative): 100 rows of 40 to 50 columns.
        CHECK(stats.instancesOcclusionCulled >= 4000);
        CHECK(stats.instancesOcclusionCulled <= 5000);
        CHECK(stats.instances == 1 + 10005 - stats.instancesOcclusionCulled);
        CHECK(stats.occluderTriangles == 12);
        // The wall still draws its own mesh, whole.
        MYRIAD_CHECK_PIXEL(image, kSize / 2 + 10, kSize / 2, kRed);
        MYRIAD_CHECK_PIXEL(image, kSize / 2 - 10, kSize / 2, kRed);
        // A stand-in larger than the mesh would hide what the mesh does not: refused.
        CHECK_THROWS_AS(wall.setOccluderMesh(MeshGeometry::create(shapes::box(2.0f))), InvalidArgument);
        CHECK(wall.occluderMesh() != nullptr);
        CHECK(wall.occluderMesh()->name() == "wall-left-half");
        wall.setOccluderMesh(nullptr);
        f.render();
        CHECK(f.stats().instancesOcclusionCulled == 10000);
    }
    SECTION("setOccluder(false): the wall hides nothing from the test (it is still drawn, and still hides by depth)") {
        CHECK(wall.occluder());
        wall.setOccluder(false);
        const Image image = f.render();
        const gl::FrameStats& stats = f.stats();
        CHECK(stats.instancesOcclusionCulled == 0);
        CHECK(stats.occluderTriangles == 0);
        CHECK(stats.instances == 1 + 10005);
        MYRIAD_CHECK_PIXEL(image, kSize / 2, kSize / 2, kRed);
        wall.setOccluder(true);
        f.render();
        CHECK(f.stats().instancesOcclusionCulled == 10000);
    }
    SECTION("an alpha-tested wall occludes only through an occluder mesh (its triangles may have holes)") {
        wall.material().alphaMode = AlphaMode::Mask;
        f.render();
        CHECK(f.stats().instancesOcclusionCulled == 0);
        CHECK(f.stats().occluderTriangles == 0);
        wall.setOccluderMesh(wall.mesh());  // the game says the wall is solid
        f.render();
        CHECK(f.stats().instancesOcclusionCulled == 10000);
    }
    SECTION("a blended wall never occludes") {
        wall.material().alphaMode = AlphaMode::Blend;
        wall.material().baseColor.a = 0.5f;
        f.render();
        CHECK(f.stats().instancesOcclusionCulled == 0);
        CHECK(f.stats().occluderTriangles == 0);
    }
}

TEST_CASE("Occlusion culling: a MeshNode and a batch behind the wall are left out whole", "[occlusion][pixels]") {
    OcclusionFixture f;
    addWall(f.scene);
    auto& hidden = f.scene.root().emplace<MeshNode>(MeshGeometry::create(shapes::box(1.0f)),
                                                    unlit({0.0f, 0.0f, 1.0f, 1.0f}), "behind");
    hidden.setPosition({0.0, 0.0, -2.0});
    // A batch without per-instance culling: tested as one sphere.
    auto& group = f.scene.root().emplace<InstancedMeshNode>(MeshGeometry::create(shapes::box(0.2f)),
                                                            unlit({0.0f, 1.0f, 0.0f, 1.0f}), 50, "group");
    for (int i = 0; i < 50; ++i) {
        group.addInstance(at(-1.0f + 0.04f * static_cast<float>(i), -0.5f, -1.0f));
    }
    Image image = f.render();
    CHECK(f.stats().nodesOcclusionCulled == 2);
    CHECK(f.stats().instancesOcclusionCulled == 1 + 50);
    CHECK(f.stats().meshNodes == 1);  // the wall's draw only
    CHECK(f.stats().batches == 0);
    CHECK(f.stats().instances == 1);
    CHECK(f.stats().culledNodes == 0);
    MYRIAD_CHECK_PIXEL(image, kSize / 2, kSize / 2, kRed);
    // Raised above the wall, the box is drawn and seen.
    hidden.setPosition({0.0, 6.0, -2.0});
    image = f.render();
    CHECK(f.stats().nodesOcclusionCulled == 1);
    CHECK(f.stats().meshNodes == 2);
    const glm::ivec2 top = pixelOf(f.camera, {0.0f, 6.0f, -1.5f});
    MYRIAD_CHECK_PIXEL(image, static_cast<std::uint32_t>(top.x), static_cast<std::uint32_t>(top.y), kBlue);
    // Frustum culling is counted apart: out of view, the box counts one instance there.
    hidden.setPosition({100.0, 0.0, -2.0});
    f.render();
    CHECK(f.stats().culledNodes == 1);
    CHECK(f.stats().instancesFrustumCulled == 1);
    CHECK(f.stats().nodesOcclusionCulled == 1);
    CHECK(f.stats().instancesOcclusionCulled == 50);
}
