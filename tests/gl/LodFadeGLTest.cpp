// Level of detail that fades and switches by projected size, on screen. A fading chain draws
// an instance inside a band with both levels, the farther over k/64 of its pixels by an 8x8
// Bayer threshold and the nearer over the rest: on the 64x64 target (64 whole 8x8 tiles) the
// counts are exact, k * 64 pixels for the farther level. Level 0 is red and level 1 green by
// their vertex colours (one white unlit material), a quad wider than the view, so every pixel
// shows one of them: a pixel of neither (background) is a hole. A pixel drawn twice hides
// behind the depth test in an opaque draw (the second draw at the same depth loses), so a
// blended version at half alpha checks that: a pixel both levels drew holds red and green.
#include "support/GlTest.h"

#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Lod.h"
#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/Renderer.h"

#include <glm/gtc/matrix_transform.hpp>

#include <cmath>
#include <limits>
#include <memory>

using namespace myriad;
using namespace myriad::test;

namespace {

constexpr std::uint32_t kSize = RenderFixture::kSize;

std::shared_ptr<const MeshGeometry> colouredQuad(float size, const glm::vec4& color, const char* name) {
    MeshData data = shapes::quad(size, size);
    data.colors.assign(data.positions.size(), color);
    return MeshGeometry::create(std::move(data), name);
}

struct Counts {
    std::size_t red = 0, green = 0, other = 0;
};

Counts count(const Image& image) {
    Counts counts;
    for (std::uint32_t y = 0; y < image.height; ++y) {
        for (std::uint32_t x = 0; x < image.width; ++x) {
            const Rgba pixel = pixelAt(image, x, y);
            if (near(pixel, kRed)) {
                ++counts.red;
            } else if (near(pixel, kGreen)) {
                ++counts.green;
            } else {
                ++counts.other;
            }
        }
    }
    return counts;
}

/** One instance at the origin, a red quad (level 0) wider than the view and a green one
 *  (level 1, smaller but still covering it), switching at 10 with a fade band of 0.2: [9, 11). */
InstancedMeshNode& addFadingQuad(Scene& scene, InstanceCulling culling) {
    auto& batch = scene.root().emplace<InstancedMeshNode>(colouredQuad(3.0f, {1, 0, 0, 1}, "lod0-red"), unlit(), 4, "fading");
    (void)batch.addInstance(at(0.0f, 0.0f, 0.0f));
    LodChain chain;
    chain.levels = {{nullptr, 10.0f}, {colouredQuad(2.5f, {0, 1, 0, 1}, "lod1-green"), std::numeric_limits<float>::infinity()}};
    chain.fadeBand = 0.2f;
    batch.setLodChain(chain);
    batch.setInstanceCulling(culling);
    return batch;
}

Image renderAt(RenderFixture& fixture, const Scene& scene, float eyeZ) {
    fixture.camera.lookAt(glm::vec3(0.0f, 0.0f, eyeZ), glm::vec3(0.0f, 0.0f, eyeZ - 1.0f));
    return fixture.render(scene);
}

} // namespace

TEST_CASE("LOD cross-fade coverage at the band's middle is half, each pixel drawn by one level",
          "[lod][lod-fade][pixels]") {
    for (const InstanceCulling culling : {InstanceCulling::Off, InstanceCulling::Cpu}) {
        INFO("culling " << static_cast<int>(culling));
        RenderFixture fixture;
        Scene scene;
        addFadingQuad(scene, culling);
        // The band's middle (distance 10): 32 of 64 steps, exactly half of the 4096 pixels.
        Counts middle = count(renderAt(fixture, scene, 10.0f));
        CHECK(middle.other == 0);  // no hole
        CHECK(middle.red == kSize * kSize / 2);
        CHECK(middle.green == kSize * kSize / 2);
        CHECK(fixture.renderer.lastFrameStats().lodInstances[0] == 1);  // drawn by both levels
        CHECK(fixture.renderer.lastFrameStats().lodInstances[1] == 1);
        // A quarter into the band (9.5): t = 0.25, 16 steps, a quarter green.
        const Counts quarter = count(renderAt(fixture, scene, 9.5f));
        CHECK(quarter.other == 0);
        CHECK(quarter.green == kSize * kSize / 4);
        CHECK(quarter.red == kSize * kSize * 3 / 4);
        // Outside the band: one level whole.
        const Counts nearer = count(renderAt(fixture, scene, 8.9f));
        CHECK((nearer.red == kSize * kSize && nearer.green == 0));
        const Counts farther = count(renderAt(fixture, scene, 11.1f));
        CHECK((farther.green == kSize * kSize && farther.red == 0));
        // Every 8x8 tile is half and half at the middle (the pattern, not only the total).
        const Image image = renderAt(fixture, scene, 10.0f);
        std::size_t tileRed = 0;
        for (std::uint32_t y = 16; y < 24; ++y) {
            for (std::uint32_t x = 40; x < 48; ++x) {
                tileRed += near(pixelAt(image, x, y), kRed) ? 1 : 0;
            }
        }
        CHECK(tileRed == 32);
    }
}

TEST_CASE("LOD cross-fade draws no pixel twice: blended at half alpha, a pixel drawn twice would mix",
          "[lod][lod-fade][pixels]") {
    // Blended (no depth write), each level at alpha 0.5 over black: a pixel one level drew is
    // half red or half green alone; one both drew would hold some of each.
    RenderFixture fixture;
    Scene scene;
    Material glass = unlit({1, 1, 1, 0.5f});
    glass.alphaMode = AlphaMode::Blend;
    auto& batch = scene.root().emplace<InstancedMeshNode>(colouredQuad(3.0f, {1, 0, 0, 1}, "lod0-red"), glass, 4, "glass");
    (void)batch.addInstance(at(0.0f, 0.0f, 0.0f));
    LodChain chain;
    chain.levels = {{nullptr, 10.0f}, {colouredQuad(2.5f, {0, 1, 0, 1}, "lod1-green"), std::numeric_limits<float>::infinity()}};
    chain.fadeBand = 0.2f;
    batch.setLodChain(chain);
    for (const float eyeZ : {10.0f, 9.5f}) {
        const Image image = renderAt(fixture, scene, eyeZ);
        std::size_t red = 0, green = 0, mixed = 0, neither = 0;
        for (std::uint32_t y = 0; y < kSize; ++y) {
            for (std::uint32_t x = 0; x < kSize; ++x) {
                const Rgba pixel = pixelAt(image, x, y);
                const bool r = pixel[0] > 40, g = pixel[1] > 40;
                red += r && !g ? 1 : 0;
                green += g && !r ? 1 : 0;
                mixed += r && g ? 1 : 0;
                neither += !r && !g ? 1 : 0;
            }
        }
        INFO("eye at " << eyeZ);
        CHECK(mixed == 0);
        CHECK(neither == 0);
        CHECK(green == (eyeZ == 10.0f ? kSize * kSize / 2 : kSize * kSize / 4));
        CHECK(red + green == kSize * kSize);
    }
}

TEST_CASE("LOD cross-fade on the GPU path gives the CPU path's picture", "[lod][lod-fade][gpu-culling][pixels]") {
    RenderFixture cpuFixture, gpuFixture;
    Scene cpuScene, gpuScene;
    addFadingQuad(cpuScene, InstanceCulling::Cpu);
    auto& gpuBatch = addFadingQuad(gpuScene, InstanceCulling::Gpu);
    for (const float eyeZ : {10.0f, 9.5f, 10.7f, 8.5f, 11.5f}) {
        INFO("eye at " << eyeZ);
        const Image cpu = renderAt(cpuFixture, cpuScene, eyeZ);
        const Image gpu = renderAt(gpuFixture, gpuScene, eyeZ);
        CHECK(count(gpu).other == 0);
        std::size_t differing = 0;
        for (std::uint32_t y = 0; y < kSize; ++y) {
            for (std::uint32_t x = 0; x < kSize; ++x) {
                differing += near(pixelAt(cpu, x, y), pixelAt(gpu, x, y)) ? 0 : 1;
            }
        }
        CHECK(differing == 0);
    }
    // The middle of the band: the instance is in both level slots with complementary codes.
    (void)renderAt(gpuFixture, gpuScene, 10.0f);
    CHECK(*gpuFixture.renderer.readGpuCulledInstances(gpuBatch, 0, 0) == std::vector<std::uint32_t>{lodFadeEntry(0, 32, false)});
    CHECK(*gpuFixture.renderer.readGpuCulledInstances(gpuBatch, 0, 1) == std::vector<std::uint32_t>{lodFadeEntry(0, 32, true)});
    const Counts middle = count(gpuFixture.target.readPixels());
    CHECK((middle.red == kSize * kSize / 2 && middle.green == kSize * kSize / 2));
}

TEST_CASE("LOD by screen size switches at the distance the field of view and viewport height predict",
          "[lod][lod-screen][pixels]") {
    // A 0.4-wide quad: bounding sphere radius 0.2 sqrt(2) = 0.28284. Level 0 red while it covers
    // at least half the viewport height: r P11 / d >= 0.5, so d <= 2 r P11.
    const float radius = 0.2f * std::sqrt(2.0f);
    for (const InstanceCulling culling : {InstanceCulling::Cpu, InstanceCulling::Gpu}) {
        for (const float fovDegrees : {90.0f, 60.0f}) {
            INFO("culling " << static_cast<int>(culling) << ", fov " << fovDegrees);
            RenderFixture fixture;
            Scene scene;
            auto& batch = scene.root().emplace<InstancedMeshNode>(colouredQuad(0.4f, {1, 0, 0, 1}, "lod0-red"), unlit(), 4,
                                                                  "by-size");
            (void)batch.addInstance(at(0.0f, 0.0f, 0.0f));
            LodChain chain;
            chain.metric = LodMetric::ScreenHeight;
            chain.hysteresis = 0.0f;
            chain.levels = {{nullptr}, {colouredQuad(0.4f, {0, 1, 0, 1}, "lod1-green")}};
            chain.levels[0].switchScreenSize = 0.5f;
            batch.setLodChain(chain);
            batch.setInstanceCulling(culling);
            const float p11 = 1.0f / std::tan(glm::radians(fovDegrees) * 0.5f);
            const float switchAt = 2.0f * radius * p11;  // 0.5657 at 90 degrees, 0.9798 at 60
            fixture.camera.setPerspective(glm::radians(fovDegrees), 1.0f, 0.01f, 100.0f);
            const auto centreAt = [&](float distance) {
                fixture.camera.lookAt(glm::vec3(0.0f, 0.0f, distance), glm::vec3(0.0f));
                return pixelAt(fixture.render(scene), kSize / 2, kSize / 2);
            };
            CHECK(near(centreAt(switchAt * 0.98f), kRed));
            CHECK(near(centreAt(switchAt * 1.02f), kGreen));
            // Pixels: level 0 down to 32 pixels, so d <= r P11 H / 32: twice as far on a 128-high target.
            chain.metric = LodMetric::ScreenPixels;
            chain.levels[0].switchScreenSize = 32.0f;
            batch.setLodChain(chain);
            const float pixelsAt = radius * p11 * 64.0f / 32.0f;
            CHECK(near(centreAt(pixelsAt * 0.98f), kRed));
            CHECK(near(centreAt(pixelsAt * 1.02f), kGreen));
            gl::OffscreenTarget tall{128, 128, "tall"};
            const auto tallCentreAt = [&](float distance) {
                fixture.camera.lookAt(glm::vec3(0.0f, 0.0f, distance), glm::vec3(0.0f));
                fixture.renderer.render(scene, fixture.camera, tall);
                return pixelAt(tall.readPixels(), 64, 64);
            };
            CHECK(near(tallCentreAt(2.0f * pixelsAt * 0.98f), kRed));
            CHECK(near(tallCentreAt(2.0f * pixelsAt * 1.02f), kGreen));
        }
    }
}

namespace {

/** A @p size wide quad centred at (@p x, 0). */
std::shared_ptr<const MeshGeometry> quadAt(float x, float size, const char* name) {
    MeshData data = shapes::quad(size, size);
    for (glm::vec3& position : data.positions) {
        position.x += x;
    }
    return MeshGeometry::create(std::move(data), name);
}

} // namespace

TEST_CASE("LOD on a node with several primitives draws each primitive's level mesh with its own material",
          "[lod][pixels]") {
    // Primitive 0: a red 0.6-wide quad at x = -0.5; primitive 1: a blue one at x = +0.5. Level 1
    // replaces them by 0.2-wide quads at the same places: 0.2 from a centre shows the material
    // at level 0 and the background at level 1.
    for (const InstanceCulling culling : {InstanceCulling::Off, InstanceCulling::Cpu, InstanceCulling::Gpu}) {
        INFO("culling " << static_cast<int>(culling));
        RenderFixture fixture;
        Scene scene;
        auto& batch = scene.root().emplace<InstancedMeshNode>(quadAt(-0.5f, 0.6f, "left0"), unlit({1, 0, 0, 1}), 4, "two-part");
        batch.addPrimitive(quadAt(0.5f, 0.6f, "right0"), unlit({0, 0, 1, 1}));
        (void)batch.addInstance(at(0.0f, 0.0f, 0.0f));
        LodChain chain;
        chain.hysteresis = 0.0f;
        chain.levels = {{nullptr, 10.0f}, {nullptr, std::numeric_limits<float>::infinity()}};
        chain.levels[1].meshes = {quadAt(-0.5f, 0.2f, "left1"), quadAt(0.5f, 0.2f, "right1")};
        batch.setLodChain(chain);
        batch.setInstanceCulling(culling);
        const std::uint32_t row = pixelY(0.0f, kSize);
        const std::uint32_t leftCentre = pixelX(-0.5f, kSize), leftEdge = pixelX(-0.5f + 0.2f, kSize);
        const std::uint32_t rightCentre = pixelX(0.5f, kSize), rightEdge = pixelX(0.5f - 0.2f, kSize);
        const Image near = renderAt(fixture, scene, 9.0f);  // level 0
        MYRIAD_CHECK_PIXEL(near, leftCentre, row, kRed);
        MYRIAD_CHECK_PIXEL(near, leftEdge, row, kRed);
        MYRIAD_CHECK_PIXEL(near, rightCentre, row, kBlue);
        MYRIAD_CHECK_PIXEL(near, rightEdge, row, kBlue);
        const Image far = renderAt(fixture, scene, 11.0f);  // level 1
        MYRIAD_CHECK_PIXEL(far, leftCentre, row, kRed);
        MYRIAD_CHECK_PIXEL(far, leftEdge, row, kBlack);
        MYRIAD_CHECK_PIXEL(far, rightCentre, row, kBlue);
        MYRIAD_CHECK_PIXEL(far, rightEdge, row, kBlack);
        if (culling != InstanceCulling::Gpu) {
            CHECK(fixture.renderer.lastFrameStats().lodInstances[1] == 1);  // once, not per primitive
            CHECK(fixture.renderer.lastFrameStats().drawCalls == 2);        // one per primitive
        }
    }
}
