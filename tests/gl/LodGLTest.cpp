// Per-instance level of detail on screen: each instance draws the level its distance from the
// eye selects, keeps it inside the hysteresis band, switches past it; records, handles and
// streams stay put (each level list reads its instances' own colours); with CPU culling only
// the instances in view are bucketed. Level 0 is a 0.4-wide quad, level 1 a 0.2-wide one, both
// white: a pixel 0.15 from an instance's centre is its colour at level 0 and black at level 1.
#include "support/GlTest.h"

#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Lod.h"
#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/Renderer.h"

#include <limits>
#include <memory>

using namespace myriad;
using namespace myriad::test;

namespace {

constexpr std::uint32_t kSize = RenderFixture::kSize;
constexpr float kEdge = 0.15f;  // inside level 0's quad, outside level 1's

struct LodRow {
    InstancedMeshNode* batch = nullptr;
    InstanceHandle nearHandle, farHandle, probeHandle;
};

/** Near (red, x = -0.6, z = 5), far (green, x = 0.6, z = -5) and the probe (blue, x = 0, z = 0,
 *  at the eye's distance), switching at 10 world units with a band of 10 % (9 to 11). */
LodRow buildRow(Scene& scene) {
    LodRow row;
    row.batch = &scene.root().emplace<InstancedMeshNode>(MeshGeometry::create(shapes::quad(0.4f, 0.4f), "lod0"),
                                                           unlit(), 8, "lod-row");
    row.nearHandle = row.batch->acquire({at(-0.6f, 0.0f, 5.0f), {1, 0, 0, 1}});
    row.farHandle = row.batch->acquire({at(0.6f, 0.0f, -5.0f), {0, 1, 0, 1}});
    row.probeHandle = row.batch->acquire({at(0.0f, 0.0f, 0.0f), {0, 0, 1, 1}});
    LodChain chain;
    chain.levels = {{nullptr, 10.0f},
                    {MeshGeometry::create(shapes::quad(0.2f, 0.2f), "lod1"), std::numeric_limits<float>::infinity()}};
    chain.hysteresis = 0.1f;
    row.batch->setLodChain(chain);
    return row;
}

/** Renders with the eye at z = @p eyeZ (the probe's distance); the orthographic view keeps
 *  every instance at the same pixels whatever its depth. */
Image renderFrom(RenderFixture& fixture, const Scene& scene, float eyeZ) {
    fixture.camera.lookAt(glm::vec3(0.0f, 0.0f, eyeZ), glm::vec3(0.0f, 0.0f, eyeZ - 1.0f));
    return fixture.render(scene);
}

/** The instance at x shows @p color at its centre, and at its edge too when it drew level 0. */
void checkLevel(const Image& image, float x, const Rgba& color, int level) {
    MYRIAD_CHECK_PIXEL(image, pixelX(x, kSize), pixelY(0.0f, kSize), color);
    MYRIAD_CHECK_PIXEL(image, pixelX(x + kEdge, kSize), pixelY(0.0f, kSize), level == 0 ? color : kBlack);
}

} // namespace

TEST_CASE("LOD picks the level by distance and holds it inside the hysteresis band", "[lod][pixels]") {
    RenderFixture fixture;
    Scene scene;
    const LodRow row = buildRow(scene);
    InstancedMeshNode& batch = *row.batch;
    const std::size_t probeIndex = batch.indexOf(row.probeHandle);

    // Eye at 9.5: near (4.5) and probe at level 0, far (14.5) at level 1.
    Image image = renderFrom(fixture, scene, 9.5f);
    checkLevel(image, -0.6f, kRed, 0);
    checkLevel(image, 0.6f, kGreen, 1);
    checkLevel(image, 0.0f, kBlue, 0);
    const gl::FrameStats& stats = fixture.renderer.lastFrameStats();
    CHECK(stats.lodInstances[0] == 2);
    CHECK(stats.lodInstances[1] == 1);
    CHECK(stats.drawCalls == 2);  // one per non-empty level
    CHECK(stats.instances == 3);
    CHECK(stats.triangles == 6);  // both quads have two triangles

    // 10.5: past the switch distance but inside the band: the probe keeps level 0.
    image = renderFrom(fixture, scene, 10.5f);
    checkLevel(image, 0.0f, kBlue, 0);
    CHECK(fixture.renderer.lastFrameStats().lodInstances[0] == 2);

    // 11.5: past the band: level 1. Its handle still finds it where it was.
    image = renderFrom(fixture, scene, 11.5f);
    checkLevel(image, 0.0f, kBlue, 1);
    checkLevel(image, -0.6f, kRed, 0);
    CHECK(fixture.renderer.lastFrameStats().lodInstances[1] == 2);
    CHECK(batch.indexOf(row.probeHandle) == probeIndex);

    // Back to 10.5: inside the band again, now holding level 1.
    image = renderFrom(fixture, scene, 10.5f);
    checkLevel(image, 0.0f, kBlue, 1);

    // A write through the handle reaches the level-1 draw (streams read by record index).
    batch.setColor(batch.indexOf(row.probeHandle), {1, 1, 1, 1});
    image = renderFrom(fixture, scene, 10.5f);
    checkLevel(image, 0.0f, kWhite, 1);

    // 8.5: below the band: level 0.
    image = renderFrom(fixture, scene, 8.5f);
    checkLevel(image, 0.0f, kWhite, 0);
    checkLevel(image, 0.6f, kGreen, 1);

    SECTION("without the chain every instance draws level 0 in one draw") {
        batch.clearLodChain();
        image = renderFrom(fixture, scene, 9.5f);
        checkLevel(image, 0.6f, kGreen, 0);
        CHECK(fixture.renderer.lastFrameStats().drawCalls == 1);
        CHECK(fixture.renderer.lastFrameStats().lodInstances[0] == 0);
    }
}

TEST_CASE("LOD with CPU culling buckets only the instances in view", "[lod][visibility][pixels]") {
    RenderFixture fixture;
    Scene scene;
    const LodRow row = buildRow(scene);
    InstancedMeshNode& batch = *row.batch;
    batch.setInstanceCulling(InstanceCulling::Cpu);
    (void)batch.acquire({at(3.0f, 0.0f, 0.0f), {1, 1, 0, 1}});  // out of view
    (void)batch.acquire({at(-3.0f, 0.0f, -5.0f), {1, 1, 0, 1}});  // out of view, far
    Image image = renderFrom(fixture, scene, 9.5f);
    checkLevel(image, -0.6f, kRed, 0);
    checkLevel(image, 0.6f, kGreen, 1);
    checkLevel(image, 0.0f, kBlue, 0);
    const gl::FrameStats& stats = fixture.renderer.lastFrameStats();
    CHECK(stats.instancesTested == 5);
    CHECK(stats.instances == 3);
    CHECK(stats.lodInstances[0] == 2);
    CHECK(stats.lodInstances[1] == 1);
    // The hysteresis holds under culling too.
    image = renderFrom(fixture, scene, 10.5f);
    checkLevel(image, 0.0f, kBlue, 0);
    image = renderFrom(fixture, scene, 11.5f);
    checkLevel(image, 0.0f, kBlue, 1);
    // A finite last switch distance is a draw distance.
    LodChain limited = batch.lodChain();
    limited.levels[1].switchDistance = 15.0f;
    batch.setLodChain(limited);
    image = renderFrom(fixture, scene, 12.0f);  // far is 17.01 away: past the band (16.5), not drawn
    CHECK(fixture.renderer.lastFrameStats().instances == 2);
    CHECK(fixture.renderer.lastFrameStats().lodInstances[1] == 1);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.6f, kSize), pixelY(0.0f, kSize), kBlack);
}

TEST_CASE("LOD selects per view: two views of one frame see their own levels", "[lod][pixels]") {
    RenderFixture fixture;
    Scene scene;
    (void)buildRow(scene);
    gl::OffscreenTarget second{kSize, kSize, "second-view"};
    Camera nearCamera = orthoCamera();
    nearCamera.lookAt(glm::vec3(0.0f, 0.0f, 9.5f), glm::vec3(0.0f, 0.0f, 8.5f));
    Camera farCamera = orthoCamera();
    farCamera.lookAt(glm::vec3(0.0f, 0.0f, 12.0f), glm::vec3(0.0f, 0.0f, 11.0f));
    const gl::View views[] = {gl::View::of(nearCamera, fixture.target), gl::View::of(farCamera, second)};
    fixture.renderer.render(scene, views);
    checkLevel(fixture.target.readPixels(), 0.0f, kBlue, 0);
    checkLevel(second.readPixels(), 0.0f, kBlue, 1);
    CHECK(fixture.renderer.lastFrameStats().lodInstances[0] == 3);  // near, probe; near again
    CHECK(fixture.renderer.lastFrameStats().lodInstances[1] == 3);  // far; far, probe
    CHECK(fixture.renderer.lastFrameStats().drawCalls == 4);
}

TEST_CASE("LOD on a streaming batch reads this frame's part of the streaming buffer", "[lod][pixels]") {
    RenderFixture fixture;
    Scene scene;
    const LodRow row = buildRow(scene);
    row.batch->setUploadMode(UploadMode::Streaming);
    Image image = renderFrom(fixture, scene, 9.5f);
    checkLevel(image, -0.6f, kRed, 0);
    checkLevel(image, 0.6f, kGreen, 1);
    row.batch->setColor(row.batch->indexOf(row.probeHandle), {1, 1, 1, 1});  // the next part
    image = renderFrom(fixture, scene, 9.5f);
    checkLevel(image, 0.0f, kWhite, 0);
    checkLevel(image, 0.6f, kGreen, 1);
}
