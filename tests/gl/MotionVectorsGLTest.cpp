// Motion vectors (View::velocity, docs/visibility.md "Motion vectors"): the velocity attachment
// holds, at each pixel a surface covers, its window position now minus in the previous frame,
// in pixels (+x right, +y up). Every expected value is worked out by hand from the projection:
// orthoCamera() maps world x, y in [-1, 1] onto the 64-pixel target, so a world unit is 32 px.
#include "support/GlCallLog.h"
#include "support/GlTest.h"

#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/Renderer.h"

#include <glad/gl.h>

#include <glm/trigonometric.hpp>

#include <array>
#include <cmath>
#include <string>

using namespace myriad;
using namespace myriad::test;

namespace {

constexpr std::uint32_t kSize = 64;
constexpr float kPixelsPerUnit = kSize / 2.0f;  // orthoCamera(): [-1, 1] onto 64 pixels

/** A renderer drawing into a 64 x 64 target with an RG32F velocity attachment. */
struct VelocityFixture {
    egl::HeadlessContext& context = test::context();
    gl::Renderer renderer;
    gl::OffscreenTarget target{kSize, kSize, "velocity-target", gl::TargetFormat::Srgb8Alpha8, gl::DepthFormat::Depth24,
                               gl::VelocityFormat::Rg32Float};
    Camera camera = orthoCamera();
    std::vector<float> velocity;

    void render(const Scene& scene) {
        renderer.render(scene, camera, target);  // View::of(): velocity on from the target
        velocity = target.readVelocity();
    }
    /** The velocity at world point (x, y) under orthoCamera(). */
    [[nodiscard]] glm::vec2 at(float x, float y) const { return pixel(pixelX(x, kSize), pixelY(y, kSize)); }
    [[nodiscard]] glm::vec2 pixel(std::uint32_t column, std::uint32_t row) const {
        const std::size_t i = (std::size_t{row} * kSize + column) * 2;
        return {velocity[i], velocity[i + 1]};
    }
};

std::string describe(const glm::vec2& v) { return "(" + std::to_string(v.x) + ", " + std::to_string(v.y) + ")"; }

bool near(const glm::vec2& actual, const glm::vec2& expected, float tolerance = 0.01f) {
    return std::abs(actual.x - expected.x) <= tolerance && std::abs(actual.y - expected.y) <= tolerance;
}

#define CHECK_VELOCITY(actual, expected)                                            \
    do {                                                                            \
        const glm::vec2 got = (actual);                                             \
        INFO("velocity " << describe(got) << ", expected " << describe(expected)); \
        CHECK(near(got, expected));                                                 \
    } while (false)

std::shared_ptr<const MeshGeometry> smallQuad() { return MeshGeometry::create(shapes::quad(0.4f, 0.4f), "quad"); }

} // namespace

TEST_CASE("motion vectors of a moved instance equal its screen displacement, a still one's are zero", "[velocity][pixels]") {
    VelocityFixture f;
    Scene scene;
    auto& batch = scene.root().emplace<InstancedMeshNode>(smallQuad(), unlit(), 4, "batch");
    batch.addInstance(at(-0.5f, 0.0f));
    batch.addInstance(at(0.5f, 0.5f));
    f.render(scene);
    // A first frame has nothing to compare with: zero everywhere.
    CHECK_VELOCITY(f.at(-0.5f, 0.0f), glm::vec2(0.0f));
    CHECK_VELOCITY(f.at(0.5f, 0.5f), glm::vec2(0.0f));

    // Instance 0 moves by (0.1, 0.1): 3.2 px right and 3.2 px up, at every pixel it covers.
    batch.setTransform(0, at(-0.4f, 0.1f));
    f.render(scene);
    const glm::vec2 moved(0.1f * kPixelsPerUnit, 0.1f * kPixelsPerUnit);
    CHECK_VELOCITY(f.at(-0.4f, 0.1f), moved);
    CHECK_VELOCITY(f.at(-0.55f, -0.05f), moved);
    CHECK_VELOCITY(f.at(-0.25f, 0.25f), moved);
    CHECK_VELOCITY(f.at(0.5f, 0.5f), glm::vec2(0.0f));  // the still instance
    CHECK_VELOCITY(f.at(0.0f, -0.8f), glm::vec2(0.0f));  // background: cleared to zero

    // A frame without change: zero again.
    f.render(scene);
    CHECK_VELOCITY(f.at(-0.4f, 0.1f), glm::vec2(0.0f));
}

TEST_CASE("motion vectors under a perspective projection equal the displacement worked out from it", "[velocity][pixels]") {
    VelocityFixture f;
    // 60 degrees: f = 1 / tan(30 deg) = 1.7320508; a point at distance 5 moved by dx on the plane
    // z = 0 (parallel to the image) moves dx * f / 5 in NDC, times 32 in pixels.
    f.camera.setPerspective(glm::radians(60.0f), 1.0f, 0.5f, 50.0f);
    f.camera.lookAt(glm::dvec3(0.0, 0.0, 5.0), glm::dvec3(0.0));
    Scene scene;
    auto& batch = scene.root().emplace<InstancedMeshNode>(MeshGeometry::create(shapes::quad(1.0f, 1.0f), "quad"), unlit(), 2,
                                                          "batch");
    batch.addInstance(at(0.0f, 0.0f));
    f.render(scene);
    batch.setTransform(0, at(0.2f, 0.0f));
    f.render(scene);
    const float expected = 0.2f * 1.7320508f / 5.0f * kPixelsPerUnit;  // 2.2170 px
    CHECK_VELOCITY(f.pixel(kSize / 2 + 2, kSize / 2), glm::vec2(expected, 0.0f));
    CHECK_VELOCITY(f.pixel(kSize / 2 + 6, kSize / 2 - 3), glm::vec2(expected, 0.0f));
}

TEST_CASE("after release() swap-removes an instance, the moved one's motion vectors are still right", "[velocity][handles][pixels]") {
    for (const UploadMode mode : {UploadMode::Staged, UploadMode::Streaming}) {
        DYNAMIC_SECTION((mode == UploadMode::Staged ? "staged" : "streaming")) {
            VelocityFixture f;
            Scene scene;
            auto& batch = scene.root().emplace<InstancedMeshNode>(smallQuad(), unlit(), 8, "batch",
                                                                  InstancedMeshOptions{.uploadMode = mode});
            const InstanceHandle a = batch.acquire({.transform = at(-0.5f, -0.5f)});
            const InstanceHandle b = batch.acquire({.transform = at(0.5f, -0.5f)});
            const InstanceHandle c = batch.acquire({.transform = at(0.5f, 0.5f)});
            f.render(scene);
            // c (the last row) moves onto a's row; then c moves by (-0.1, 0): -3.2 px. Without
            // following the move, its previous record would be a's, far away.
            batch.release(a);
            REQUIRE(batch.indexOf(c) == 0);
            batch.setTransform(batch.indexOf(c), at(0.4f, 0.5f));
            f.render(scene);
            CHECK_VELOCITY(f.at(0.4f, 0.5f), glm::vec2(-0.1f * kPixelsPerUnit, 0.0f));
            CHECK_VELOCITY(f.at(0.5f, -0.5f), glm::vec2(0.0f));  // b stayed
            CHECK_VELOCITY(f.at(-0.5f, -0.5f), glm::vec2(0.0f));  // a is gone: background

            // A new instance in the same frame as a move: previous = current (zero), the moved
            // one still right; then a third frame moving b.
            batch.setTransform(batch.indexOf(c), at(0.4f, 0.4f));
            const InstanceHandle d = batch.acquire({.transform = at(-0.5f, 0.5f)});
            f.render(scene);
            CHECK_VELOCITY(f.at(0.4f, 0.4f), glm::vec2(0.0f, -0.1f * kPixelsPerUnit));
            CHECK_VELOCITY(f.at(-0.5f, 0.5f), glm::vec2(0.0f));  // d, new
            batch.release(c);  // d (last) moves onto c's row 0
            batch.setTransform(batch.indexOf(d), at(-0.6f, 0.5f));
            batch.setTransform(batch.indexOf(b), at(0.5f, -0.4f));
            f.render(scene);
            CHECK_VELOCITY(f.at(-0.6f, 0.5f), glm::vec2(-0.1f * kPixelsPerUnit, 0.0f));
            CHECK_VELOCITY(f.at(0.5f, -0.4f), glm::vec2(0.0f, 0.1f * kPixelsPerUnit));
        }
    }
}

TEST_CASE("a streaming batch's motion vectors follow every frame's step", "[velocity][streaming][pixels]") {
    VelocityFixture f;
    Scene scene;
    auto& batch = addStreamingSwarm(scene);  // four instances at the origin, streaming
    batch.setCount(1);
    f.render(scene);
    // Each frame writes the next third of the ring; the previous records come from last frame's.
    for (int step = 1; step <= 4; ++step) {
        const float x = 0.05f * static_cast<float>(step * (step + 1) / 2);  // steps of 0.05, 0.10, 0.15, 0.20
        batch.setTransform(0, at(x, 0.0f));
        f.render(scene);
        INFO("step " << step);
        CHECK_VELOCITY(f.at(x, 0.0f), glm::vec2(0.05f * static_cast<float>(step) * kPixelsPerUnit, 0.0f));
    }
}

TEST_CASE("a moved node and a moved camera give their screen displacement", "[velocity][pixels]") {
    VelocityFixture f;
    Scene scene;
    auto& node = scene.root().emplace<MeshNode>(smallQuad(), unlit(), "node");
    node.setPosition({-0.5, 0.0, 0.0});
    auto& batch = scene.root().emplace<InstancedMeshNode>(smallQuad(), unlit(), 2, "batch");
    batch.addInstance(at(0.0f, 0.0f));
    batch.setPosition({0.5, 0.5, 0.0});
    f.render(scene);

    // The MeshNode by (0.1, -0.1); the batch's node (its instances still) by (0, -0.2).
    node.setPosition({-0.4, -0.1, 0.0});
    batch.setPosition({0.5, 0.3, 0.0});
    f.render(scene);
    CHECK_VELOCITY(f.at(-0.4f, -0.1f), glm::vec2(0.1f * kPixelsPerUnit, -0.1f * kPixelsPerUnit));
    CHECK_VELOCITY(f.at(0.5f, 0.3f), glm::vec2(0.0f, -0.2f * kPixelsPerUnit));

    // The camera by +0.1 in x: still geometry moves 3.2 px left on screen.
    f.render(scene);
    f.camera.lookAt(glm::dvec3(0.1, 0.0, 10.0), glm::dvec3(0.1, 0.0, 0.0));
    f.render(scene);
    CHECK_VELOCITY(f.at(-0.5f, -0.1f), glm::vec2(-0.1f * kPixelsPerUnit, 0.0f));
    CHECK_VELOCITY(f.at(0.4f, 0.3f), glm::vec2(-0.1f * kPixelsPerUnit, 0.0f));
}

TEST_CASE("a blended draw over a moving one leaves its motion vectors as they are", "[velocity][pixels]") {
    VelocityFixture f;
    Scene scene;
    auto& batch = scene.root().emplace<InstancedMeshNode>(MeshGeometry::create(shapes::quad(1.0f, 1.0f), "quad"), unlit(), 2,
                                                          "batch");
    batch.addInstance(at(0.0f, 0.0f));
    Material glass = unlit(glm::vec4(0.0f, 1.0f, 0.0f, 0.5f));
    glass.alphaMode = AlphaMode::Blend;
    auto& pane = scene.root().emplace<MeshNode>(MeshGeometry::create(shapes::quad(0.6f, 0.6f), "pane"), glass, "pane");
    pane.setPosition({0.0, 0.4, 1.0});
    f.render(scene);
    // The batch (x in [-0.5, 0.5] -> [-0.4, 0.6], y in [-0.5, 0.5]) by 0.1 to the right; the pane
    // (0.6 wide, y from 0.2 to 0.8 after its move) moves too, but writes no velocity (masked).
    batch.setTransform(0, at(0.1f, 0.0f));
    pane.setPosition({0.0, 0.5, 1.0});
    f.render(scene);
    const Image colour = f.target.readPixels();
    REQUIRE(pixelAt(colour, pixelX(0.0f, kSize), pixelY(0.7f, kSize))[1] > 150);  // the pane is drawn there
    CHECK_VELOCITY(f.at(0.0f, 0.35f), glm::vec2(0.1f * kPixelsPerUnit, 0.0f));  // the batch's, under the pane
    CHECK_VELOCITY(f.at(0.0f, 0.7f), glm::vec2(0.0f));                          // the pane over background
}

TEST_CASE("previous records are written by GPU copies only, before the frame's draws", "[velocity][calls]") {
    // The previous records are written only by glCopyNamedBufferSubData from buffers written by
    // copies or the CPU (never by a shader), so no glMemoryBarrier is needed; what must hold is
    // their order: every copy into them before the first draw that reads them.
    VelocityFixture f;
    Scene scene;
    auto& batch = scene.root().emplace<InstancedMeshNode>(smallQuad(), unlit(), 8, "batch");
    const InstanceHandle a = batch.acquire({.transform = at(-0.5f, 0.0f)});
    (void)batch.acquire({.transform = at(0.5f, 0.0f)});
    f.render(scene);
    batch.release(a);
    GlCallLog log;
    f.render(scene);
    std::uint64_t lastCopy = 0;
    std::uint64_t firstDraw = ~0ull;
    std::size_t copies = 0;
    for (const GlCall& call : log.calls()) {
        if (call.function == "glCopyNamedBufferSubData") {
            lastCopy = call.sequence;
            ++copies;
        } else if (call.function == "glDrawElementsInstancedBaseInstance" && firstDraw == ~0ull) {
            firstDraw = call.sequence;
        } else if (call.function == "glMemoryBarrier") {
            FAIL("a barrier in a frame with no shader writes: " << call.text);
        }
    }
    CHECK(copies >= 2);  // last frame's rows, and the moved row
    CHECK(lastCopy < firstDraw);
    CHECK_VELOCITY(f.at(0.5f, 0.0f), glm::vec2(0.0f));  // the moved row's instance sits still
}

TEST_CASE("a view without velocity into a velocity target leaves the velocity as it found it", "[velocity][state][pixels]") {
    // An overlay view (velocity off) after the main view, into the same target in the same
    // frame: its colour clear and its draws (shaders without output 1) must not reach
    // attachment 1, which keeps the main view's motion vectors.
    VelocityFixture f;
    Scene scene;
    auto& batch = scene.root().emplace<InstancedMeshNode>(smallQuad(), unlit(), 4, "batch");
    batch.addInstance(at(-0.5f, 0.0f));
    const gl::View main = gl::View::of(f.camera, f.target);
    REQUIRE(main.velocity);
    gl::View overlay = main;
    overlay.velocity = false;
    overlay.clear = gl::ClearFlags::Color;
    overlay.clearColor = glm::vec4(0.25f, 0.5f, 0.75f, 1.0f);
    const std::array<gl::View, 2> views{main, overlay};
    f.renderer.render(scene, views);
    batch.setTransform(0, at(-0.4f, 0.1f));
    f.renderer.render(scene, views);
    f.velocity = f.target.readVelocity();
    const glm::vec2 moved(0.1f * kPixelsPerUnit, 0.1f * kPixelsPerUnit);
    CHECK_VELOCITY(f.at(-0.4f, 0.1f), moved);             // drawn over by the overlay too
    CHECK_VELOCITY(f.at(0.0f, -0.8f), glm::vec2(0.0f));  // background: the overlay's clear did not reach it
}

TEST_CASE("an instance acquired onto a row another instance drew last frame reads zero motion", "[velocity][handles][pixels]") {
    // The new row is inside last frame's drawn rows (a release freed it in between), so only
    // the move log's "new rows" entry tells the renderer not to take that row's old record.
    VelocityFixture f;
    Scene scene;
    auto& batch = scene.root().emplace<InstancedMeshNode>(smallQuad(), unlit(), 8, "batch");
    const InstanceHandle a = batch.acquire({.transform = at(-0.5f, -0.5f)});
    (void)batch.acquire({.transform = at(0.5f, -0.5f)});
    const InstanceHandle c = batch.acquire({.transform = at(0.5f, 0.5f)});
    f.render(scene);
    batch.release(a);  // c moves from row 2 onto row 0
    const InstanceHandle e = batch.acquire({.transform = at(-0.5f, 0.5f)});
    REQUIRE(batch.indexOf(e) == 2);  // the row c was drawn from last frame
    REQUIRE(batch.indexOf(c) == 0);
    f.render(scene);
    CHECK_VELOCITY(f.at(-0.5f, 0.5f), glm::vec2(0.0f));  // new: not c's old place 1 unit right
    CHECK_VELOCITY(f.at(0.5f, 0.5f), glm::vec2(0.0f));   // c, on another row, did not move
}
