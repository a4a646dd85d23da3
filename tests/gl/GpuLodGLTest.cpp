// Per-instance level of detail with GPU culling (InstanceCulling::Gpu and a LOD chain): cull.comp
// picks each visible instance's level with selectLodLevel()'s hysteresis against the level it
// drew last frame in that view. Checked against the CPU path (same pixels, frame by frame, with
// the camera moving through the bands) and against a reference model built on selectLodLevel()
// (the same index set per level), and per view within one frame.
#include "support/GlTest.h"

#include <glad/gl.h>

#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Lod.h"
#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/Renderer.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

using namespace myriad;
using namespace myriad::test;

namespace {

constexpr std::uint32_t kSize = RenderFixture::kSize;

std::vector<std::uint32_t> sortedCopy(std::vector<std::uint32_t> values) {
    std::sort(values.begin(), values.end());
    return values;
}

/** Level 0 a 0.14-wide quad, level 1 0.08, level 2 0.04, switching at 8, 14 and 20 world units
 *  (past 20 * 1.15 nothing is drawn), band 15 %. */
LodChain threeLevels() {
    LodChain chain;
    chain.levels = {{nullptr, 8.0f},
                    {MeshGeometry::create(shapes::quad(0.08f, 0.08f), "lod1"), 14.0f},
                    {MeshGeometry::create(shapes::quad(0.04f, 0.04f), "lod2"), 20.0f}};
    chain.hysteresis = 0.15f;
    return chain;
}

constexpr std::array<glm::vec4, 6> kColours{glm::vec4{1, 0, 0, 1}, {0, 1, 0, 1}, {0, 0, 1, 1},
                                            {1, 1, 0, 1},          {0, 1, 1, 1}, {1, 0, 1, 1}};

/** A 10 x 10 grid in view (0.19 apart) at depths 0 to -10, and four instances out of view. */
struct Layout {
    std::vector<glm::vec3> positions;
    std::vector<bool> inView;
    void add(const glm::vec3& p, bool visible) {
        positions.push_back(p);
        inView.push_back(visible);
    }
};

glm::vec3 gridPosition(std::size_t cell) {
    const auto column = static_cast<float>(cell % 10), row = static_cast<float>(cell / 10);
    const float z = -10.0f * static_cast<float>((cell * 37) % 100) / 100.0f;  // depths shuffled over the grid
    return {-0.855f + 0.19f * column, -0.855f + 0.19f * row, z};
}

InstancedMeshNode& addBatch(Scene& scene, InstanceCulling culling) {
    auto mesh = MeshGeometry::create(shapes::quad(0.14f, 0.14f), "lod0");
    auto& batch = scene.root().emplace<InstancedMeshNode>(mesh, unlit(), 128, "gpu-lod");
    batch.setLodChain(threeLevels());
    batch.setInstanceCulling(culling);
    return batch;
}

void place(RenderFixture& fixture, float eyeZ) {
    fixture.camera.setOrthographic(-1.0f, 1.0f, -1.0f, 1.0f, 0.1f, 100.0f);
    fixture.camera.lookAt(glm::vec3(0.0f, 0.0f, eyeZ), glm::vec3(0.0f, 0.0f, eyeZ - 1.0f));
}

} // namespace

TEST_CASE("LOD with GPU culling draws what LOD with CPU culling draws, frame by frame through the bands",
          "[lod][gpu-culling][pixels]") {
    RenderFixture cpu, gpu;
    Scene cpuScene, gpuScene;
    InstancedMeshNode& cpuBatch = addBatch(cpuScene, InstanceCulling::Cpu);
    InstancedMeshNode& gpuBatch = addBatch(gpuScene, InstanceCulling::Gpu);
    Layout layout;
    auto add = [&](const glm::vec3& p, bool visible) {
        const glm::vec4 colour = kColours[layout.positions.size() % kColours.size()];
        (void)cpuBatch.addInstance(at(p.x, p.y, p.z), colour);
        (void)gpuBatch.addInstance(at(p.x, p.y, p.z), colour);
        layout.add(p, visible);
    };
    for (std::size_t cell = 0; cell < 60; ++cell) {
        add(gridPosition(cell), true);
    }
    for (const float x : {3.0f, -3.0f, 3.5f, -4.0f}) {
        add({x, 0.0f, -2.0f * x}, false);  // out of view: culled, their held level untouched
    }
    const LodChain& chain = gpuBatch.lodChain();
    std::vector<std::uint8_t> held(128, kNoLodLevel);  // the reference model's, per record
    std::size_t heldInBand = 0;  // frames x instances where the held level differed from the fresh one
    std::array<std::size_t, 4> everDrawn{};

    const float eyes[] = {5.0f, 8.0f, 8.9f, 11.0f, 14.0f, 15.5f, 17.0f, 20.0f, 23.0f, 25.0f,
                          21.5f, 19.0f, 16.5f, 13.0f, 10.2f, 7.3f, 12.0f, 17.5f, 22.0f, 9.0f};
    for (std::size_t frame = 0; frame < std::size(eyes); ++frame) {
        if (frame == 14) {
            // Growth past the held buffer's 64 records: the levels held so far are kept.
            for (std::size_t cell = 60; cell < 100; ++cell) {
                add(gridPosition(cell), true);
            }
        }
        const float eyeZ = eyes[frame];
        INFO("frame " << frame << ", eye at z = " << eyeZ);
        std::array<std::vector<std::uint32_t>, 3> expected;
        for (std::size_t i = 0; i < layout.positions.size(); ++i) {
            if (!layout.inView[i]) {
                continue;
            }
            const glm::vec3 fromEye = layout.positions[i] - glm::vec3(0.0f, 0.0f, eyeZ);
            const float distance = std::sqrt(glm::dot(fromEye, fromEye));
            const std::uint8_t level = selectLodLevel(chain, distance, held[i]);
            heldInBand += level != selectLodLevel(chain, distance, kNoLodLevel) ? 1 : 0;
            held[i] = level;
            if (level < 3) {
                expected[level].push_back(static_cast<std::uint32_t>(i));
            }
            ++everDrawn[level];
        }
        place(cpu, eyeZ);
        place(gpu, eyeZ);
        const Image cpuImage = cpu.render(cpuScene);
        const Image gpuImage = gpu.render(gpuScene);
        CHECK(gpuImage.pixels == cpuImage.pixels);
        for (std::size_t level = 0; level < 3; ++level) {
            INFO("level " << level);
            CHECK(cpu.renderer.lastFrameStats().lodInstances[level] == expected[level].size());
            const auto drawn = gpu.renderer.readGpuCulledInstances(gpuBatch, 0, level);
            REQUIRE(drawn.has_value());
            CHECK(sortedCopy(*drawn) == expected[level]);
        }
        CHECK_FALSE(gpu.renderer.readGpuCulledInstances(gpuBatch, 0, 3).has_value());  // no fourth level
        // Counts stay on the GPU: nothing per level, the tested instances once.
        const gl::FrameStats& stats = gpu.renderer.lastFrameStats();
        CHECK(stats.lodInstances == std::array<std::uint64_t, 8>{});
        CHECK(stats.instances == layout.positions.size());
        CHECK(stats.instancesGpuCulled == layout.positions.size());
        CHECK(stats.drawCalls == 3);  // one per level, empty ones too
    }
    // The sequence did what it is for: instances held inside a band, every level and "not drawn".
    CHECK(heldInBand >= 10);
    for (const std::size_t count : everDrawn) {
        CHECK(count > 0);
    }
    // A valid image, not two equally empty ones.
    place(gpu, 5.0f);
    const Image image = gpu.render(gpuScene);
    const glm::vec3 first = layout.positions[0];
    MYRIAD_CHECK_PIXEL(image, pixelX(first.x, kSize), pixelY(first.y, kSize), kRed);
}

TEST_CASE("LOD with GPU culling keeps each view's level state apart within a frame", "[lod][gpu-culling][pixels]") {
    RenderFixture fixture;
    Scene scene;
    auto& batch = scene.root().emplace<InstancedMeshNode>(MeshGeometry::create(shapes::quad(0.4f, 0.4f), "lod0"),
                                                          unlit(), 4, "two-views");
    (void)batch.addInstance(at(0.0f, 0.0f, 0.0f), {0, 0, 1, 1});
    (void)batch.addInstance(at(5.0f, 0.0f, 0.0f), {1, 0, 0, 1});  // out of view
    LodChain chain;
    chain.levels = {{nullptr, 10.0f},
                    {MeshGeometry::create(shapes::quad(0.2f, 0.2f), "lod1"), std::numeric_limits<float>::infinity()}};
    chain.hysteresis = 0.1f;  // band 9 to 11
    batch.setLodChain(chain);
    batch.setInstanceCulling(InstanceCulling::Gpu);
    gl::OffscreenTarget second{kSize, kSize, "second-view"};
    Camera a = orthoCamera(), b = orthoCamera();
    auto frame = [&](float eyeA, float eyeB) {
        a.lookAt(glm::vec3(0.0f, 0.0f, eyeA), glm::vec3(0.0f, 0.0f, eyeA - 1.0f));
        b.lookAt(glm::vec3(0.0f, 0.0f, eyeB), glm::vec3(0.0f, 0.0f, eyeB - 1.0f));
        const gl::View views[] = {gl::View::of(a, fixture.target), gl::View::of(b, second)};
        fixture.renderer.render(scene, views);
    };
    const std::uint32_t centre = pixelX(0.0f, kSize), edge = pixelX(0.15f, kSize), row = pixelY(0.0f, kSize);
    const std::vector<std::uint32_t> probe{0}, none{};
    frame(8.5f, 12.0f);  // view 0 selects level 0, view 1 level 1
    CHECK(*fixture.renderer.readGpuCulledInstances(batch, 0, 0) == probe);
    CHECK(*fixture.renderer.readGpuCulledInstances(batch, 1, 1) == probe);
    // Both inside the band now: each view keeps its own level.
    for (int repeat = 0; repeat < 2; ++repeat) {
        frame(10.5f, 10.5f);
        CHECK(*fixture.renderer.readGpuCulledInstances(batch, 0, 0) == probe);
        CHECK(*fixture.renderer.readGpuCulledInstances(batch, 0, 1) == none);
        CHECK(*fixture.renderer.readGpuCulledInstances(batch, 1, 0) == none);
        CHECK(*fixture.renderer.readGpuCulledInstances(batch, 1, 1) == probe);
        const Image near = fixture.target.readPixels(), far = second.readPixels();
        MYRIAD_CHECK_PIXEL(near, centre, row, kBlue);
        MYRIAD_CHECK_PIXEL(near, edge, row, kBlue);  // level 0: 0.4 wide
        MYRIAD_CHECK_PIXEL(far, centre, row, kBlue);
        MYRIAD_CHECK_PIXEL(far, edge, row, kBlack);  // level 1: 0.2 wide
    }
    GLint held = -1;
    glGetIntegeri_v(GL_SHADER_STORAGE_BUFFER_BINDING, 5, &held);  // the held levels' binding, emptied on exit
    CHECK(held == 0);
}

TEST_CASE("a blended LOD batch sorted back to front stays on the CPU with GPU culling", "[lod][gpu-culling]") {
    RenderFixture fixture;
    Scene scene;
    Material glass = unlit();
    glass.alphaMode = AlphaMode::Blend;
    auto& batch = scene.root().emplace<InstancedMeshNode>(MeshGeometry::create(shapes::quad(0.4f, 0.4f), "lod0"),
                                                          glass, 4, "glass");
    (void)batch.addInstance(at(-0.5f, 0.0f, 0.0f), {1, 0, 0, 0.5f});
    (void)batch.addInstance(at(0.5f, 0.0f, -5.0f), {0, 1, 0, 0.5f});
    (void)batch.addInstance(at(5.0f, 0.0f, 0.0f), {0, 0, 1, 0.5f});  // out of view
    LodChain chain;
    chain.levels = {{nullptr, 12.0f},
                    {MeshGeometry::create(shapes::quad(0.2f, 0.2f), "lod1"), std::numeric_limits<float>::infinity()}};
    batch.setLodChain(chain);
    batch.setInstanceCulling(InstanceCulling::Gpu);
    batch.setSortInstances(true);
    (void)fixture.render(scene);  // eye at z = 10: the first at 10 (level 0), the second at 15 (level 1)
    const gl::FrameStats& stats = fixture.renderer.lastFrameStats();
    CHECK_FALSE(fixture.renderer.readGpuCulledInstances(batch, 0).has_value());
    CHECK(stats.instancesGpuCulled == 0);
    CHECK(stats.lodInstances[0] == 1);
    CHECK(stats.lodInstances[1] == 1);
    batch.setSortInstances(false);  // unsorted: the GPU culls it and picks the levels
    (void)fixture.render(scene);
    CHECK(fixture.renderer.lastFrameStats().instancesGpuCulled == 3);
    CHECK(*fixture.renderer.readGpuCulledInstances(batch, 0, 0) == std::vector<std::uint32_t>{0});
    CHECK(*fixture.renderer.readGpuCulledInstances(batch, 0, 1) == std::vector<std::uint32_t>{1});
}
