// Per-instance visibility on screen: CPU culling draws exactly the instances in view,
// each with its own record and streams; an unchanged visible set uploads nothing; blended
// instances sorted back to front blend in depth order from either side.
#include "support/GlTest.h"

#include <glad/gl.h>

#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/Renderer.h"

#include <glm/gtc/matrix_transform.hpp>

#include <memory>
#include <vector>

using namespace myriad;
using namespace myriad::test;

namespace {

constexpr std::uint32_t kSize = RenderFixture::kSize;

/** A 0.4-wide quad with one morph target that lifts it by 0.5 in y. */
std::shared_ptr<const MeshGeometry> liftingQuad() {
    MeshData data = shapes::quad(0.4f, 0.4f);
    data.morphTargets.push_back({"lift", std::vector<glm::vec3>(data.positions.size(), glm::vec3(0.0f, 0.5f, 0.0f)), {}});
    return MeshGeometry::create(std::move(data), "lifting-quad");
}

/** Five instances, in record order: out of view, red at x = -0.5, out, out, green at x = 0.5
 *  lifted to y = 0.5 by its own morph weight. If the draw read records or weights by draw
 *  position rather than through the visible list, colours and places would be wrong. */
InstancedMeshNode& buildRow(Scene& scene) {
    auto& batch = scene.root().emplace<InstancedMeshNode>(liftingQuad(), unlit(), 8, "row");
    batch.addInstance(at(3.0f, 0.0f), {0, 0, 1, 1});
    batch.addInstance(at(-0.5f, 0.0f), {1, 0, 0, 1});
    batch.addInstance(at(-4.0f, 0.0f), {0, 0, 1, 1});
    batch.addInstance(at(0.0f, 5.0f), {0, 0, 1, 1});
    batch.addInstance(at(0.5f, 0.0f), {0, 1, 0, 1});
    const float lift[] = {1.0f};
    batch.setMorphWeights(4, std::span<const float>(lift));
    return batch;
}

void checkRow(const Image& image) {
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), pixelY(0.0f, kSize), kRed);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), pixelY(0.5f, kSize), kGreen);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), pixelY(0.0f, kSize), kBlack);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.0f, kSize), pixelY(0.0f, kSize), kBlack);
}

} // namespace

TEST_CASE("CPU culling draws exactly the instances in view, each with its own streams", "[visibility][pixels]") {
    RenderFixture fixture;
    Scene scene;
    InstancedMeshNode& batch = buildRow(scene);
    SECTION("culling off: every instance is drawn") {
        checkRow(fixture.render(scene));
        CHECK(fixture.renderer.lastFrameStats().instances == 5);
        CHECK(fixture.renderer.lastFrameStats().instancesTested == 0);
    }
    SECTION("culling on: the two in view") {
        batch.setInstanceCulling(InstanceCulling::Cpu);
        checkRow(fixture.render(scene));
        const gl::FrameStats& stats = fixture.renderer.lastFrameStats();
        CHECK(stats.instances == 2);
        CHECK(stats.instancesTested == 5);
        CHECK(stats.drawCalls == 1);
        // Moving an instance into view shows it right away, in its own colour.
        batch.setTransform(3, at(0.0f, -0.5f));
        const Image moved = fixture.render(scene);
        checkRow(moved);
        MYRIAD_CHECK_PIXEL(moved, pixelX(0.0f, kSize), pixelY(-0.5f, kSize), kBlue);
        CHECK(fixture.renderer.lastFrameStats().instances == 3);
        // A draw range limits what is tested.
        batch.setDrawRange(2);
        const Image ranged = fixture.render(scene);
        CHECK(fixture.renderer.lastFrameStats().instancesTested == 3);
        CHECK(fixture.renderer.lastFrameStats().instances == 2);
        MYRIAD_CHECK_PIXEL(ranged, pixelX(-0.5f, kSize), pixelY(0.0f, kSize), kBlack);
        MYRIAD_CHECK_PIXEL(ranged, pixelX(0.5f, kSize), pixelY(0.5f, kSize), kGreen);
    }
    SECTION("nothing in view: the node's sphere is, no instance is: no draw") {
        batch.setInstanceCulling(InstanceCulling::Cpu);
        for (std::size_t i = 0; i < batch.count(); ++i) {
            batch.setTransform(i, at(i % 2 == 0 ? -3.0f : 3.0f, 0.0f));
        }
        (void)fixture.render(scene);
        CHECK(fixture.renderer.lastFrameStats().instances == 0);
        CHECK(fixture.renderer.lastFrameStats().drawCalls == 0);
        CHECK(fixture.renderer.lastFrameStats().instancesTested == 5);
    }
}

TEST_CASE("CPU culling uploads the visible list only when the visible set changes", "[visibility]") {
    RenderFixture fixture;
    Scene scene;
    InstancedMeshNode& batch = buildRow(scene);
    batch.setInstanceCulling(InstanceCulling::Cpu);
    (void)fixture.render(scene);
    (void)fixture.render(scene);
    CHECK(fixture.renderer.lastFrameStats().bytesUploaded == 0);  // same camera, same instances
    fixture.camera.lookAt(glm::vec3(1.2f, 0.0f, 10.0f), glm::vec3(1.2f, 0.0f, 0.0f));  // red leaves the view
    const Image shifted = fixture.render(scene);
    CHECK(fixture.renderer.lastFrameStats().instances == 1);
    CHECK(fixture.renderer.lastFrameStats().bytesUploaded == 4);  // one index
    MYRIAD_CHECK_PIXEL(shifted, pixelX(0.5f - 1.2f, kSize), pixelY(0.5f, kSize), kGreen);
}

TEST_CASE("sorted translucent instances blend back to front from either side", "[visibility][pixels]") {
    RenderFixture fixture;
    Scene scene;
    Material glass = unlit();
    glass.alphaMode = AlphaMode::Blend;
    glass.doubleSided = true;
    auto& batch = scene.root().emplace<InstancedMeshNode>(MeshGeometry::create(shapes::quad(0.8f, 0.8f)), glass, 2);
    batch.addInstance(at(0.0f, 0.0f, 1.0f), {0, 0, 1, 0.5f});   // blue, nearer the +Z side
    batch.addInstance(at(0.0f, 0.0f, -1.0f), {1, 0, 0, 0.5f});  // red, nearer the -Z side
    const auto centre = [&](const Image& image) { return pixelAt(image, kSize / 2, kSize / 2); };
    auto fromBehind = [&] {
        Camera camera = orthoCamera();
        camera.lookAt(glm::vec3(0.0f, 0.0f, -10.0f), glm::vec3(0.0f));
        fixture.renderer.render(scene, camera, fixture.target);
        return fixture.target.readPixels();
    };
    batch.setSortInstances(true);
    // From +Z the blue one is in front: drawn last, it dominates (0.25 red, 0.5 blue linear).
    const Rgba front = centre(fixture.render(scene));
    INFO("from +Z: " << describe(front));
    CHECK(front[2] > front[0] + 20);
    CHECK(front[0] > 20);
    // From -Z the red one is in front.
    const Rgba back = centre(fromBehind());
    INFO("from -Z: " << describe(back));
    CHECK(back[0] > back[2] + 20);
    CHECK(back[2] > 20);
    // Unsorted (the default), record order: red over blue from either side.
    batch.setSortInstances(false);
    const Rgba unsorted = centre(fixture.render(scene));
    INFO("unsorted from +Z: " << describe(unsorted));
    CHECK(unsorted[0] > unsorted[2] + 20);
}
