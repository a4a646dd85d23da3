#pragma once
// Shared helpers for GL tests: one headless context per test process, pixel probes.
#include "myriad/core/Image.h"
#include "myriad/egl/HeadlessContext.h"
#include "CoreTest.h"  // same folder

#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

namespace myriad::test {

/** The process's GL context, created on first use; its renderer is printed once then (so a
 *  log shows whether a run was on a GPU or on llvmpipe). A test that cannot get one fails with
 *  the reason (GlError), never skips. */
inline egl::HeadlessContext& context() {
    static egl::HeadlessContext instance;
    static const bool printed = [] {
        std::printf("GL renderer: %s / %s / %s (%s platform%s)\n", instance.vendor().c_str(),
                    instance.renderer().c_str(), instance.version().c_str(), instance.platform().c_str(),
                    instance.isSoftware() ? ", software" : "");
        std::fflush(stdout);
        return true;
    }();
    (void)printed;
    instance.makeCurrent();
    return instance;
}

using Rgba = std::array<int, 4>;

inline Rgba pixelAt(const Image& image, std::uint32_t x, std::uint32_t y) {
    const std::uint8_t* p = image.pixel(x, y);
    return {p[0], p[1], p[2], p[3]};
}

inline std::string describe(const Rgba& c) {
    std::ostringstream out;
    out << "(" << c[0] << ", " << c[1] << ", " << c[2] << ", " << c[3] << ")";
    return out.str();
}

/** True when every channel of @p actual is within @p tolerance of @p expected (alpha ignored). */
inline bool near(const Rgba& actual, const Rgba& expected, int tolerance = 3) {
    for (int i = 0; i < 3; ++i) {
        if (std::abs(actual[static_cast<std::size_t>(i)] - expected[static_cast<std::size_t>(i)]) >
            tolerance) {
            return false;
        }
    }
    return true;
}

#define MYRIAD_CHECK_PIXEL(image, x, y, ...)                                                     \
    do {                                                                                         \
        const ::myriad::test::Rgba actual_ = ::myriad::test::pixelAt((image), (x), (y));          \
        const ::myriad::test::Rgba expected_ = __VA_ARGS__;                                      \
        INFO("pixel (" << (x) << ", " << (y) << ") is " << ::myriad::test::describe(actual_)     \
                       << ", expected " << ::myriad::test::describe(expected_));                 \
        CHECK(::myriad::test::near(actual_, expected_));                                         \
    } while (false)

inline constexpr Rgba kBlack{0, 0, 0, 255};
inline constexpr Rgba kRed{255, 0, 0, 255};
inline constexpr Rgba kGreen{0, 255, 0, 255};
inline constexpr Rgba kBlue{0, 0, 255, 255};
inline constexpr Rgba kWhite{255, 255, 255, 255};

} // namespace myriad::test

#include "myriad/core/Bounds.h"
#include "myriad/core/Camera.h"

#include <glm/geometric.hpp>
#include <glm/trigonometric.hpp>

namespace myriad::test {

/** Looks down -Z at the XY plane; world x, y in [-1, 1] fill the target. */
inline Camera orthoCamera() {
    Camera camera;
    camera.setOrthographic(-1.0f, 1.0f, -1.0f, 1.0f, 0.1f, 20.0f);
    camera.lookAt(glm::vec3(0.0f, 0.0f, 10.0f), glm::vec3(0.0f));
    return camera;
}

/** A square perspective camera of 60 degrees (near 0.5, far 50) at (0, 0, 10) looking down -z
 *  at the origin: the GPU culling and occlusion tests' view. */
inline Camera perspectiveCamera() {
    Camera camera;
    camera.setPerspective(glm::radians(60.0f), 1.0f, 0.5f, 50.0f);
    camera.lookAt(glm::dvec3(0.0, 0.0, 10.0), glm::dvec3(0.0));
    return camera;
}

/** True when two read-backs are the same size and byte for byte equal. */
inline bool sameImage(const Image& a, const Image& b) {
    return a.width == b.width && a.height == b.height && a.pixels == b.pixels;
}

/** A square perspective camera (50 degrees) framing @p bounds from the front-right-top, at
 *  @p radii times the box's half diagonal from its centre. */
inline Camera framing(const Aabb& bounds, float radii = 3.0f) {
    const glm::vec3 centre = bounds.centre();
    const float radius = glm::length(bounds.halfExtent());
    Camera camera;
    camera.setPerspective(glm::radians(50.0f), 1.0f, radius * 0.05f, radius * 20.0f);
    camera.lookAt(centre + glm::normalize(glm::vec3(1.0f, 0.8f, 1.5f)) * radius * radii, centre);
    return camera;
}

/** Pixel column / row (top row 0) of world point (x, y) under orthoCamera() on a size^2 target. */
inline std::uint32_t pixelX(float x, std::uint32_t size) {
    return static_cast<std::uint32_t>((x + 1.0f) * 0.5f * static_cast<float>(size));
}
inline std::uint32_t pixelY(float y, std::uint32_t size) {
    return static_cast<std::uint32_t>((1.0f - y) * 0.5f * static_cast<float>(size));
}

} // namespace myriad::test

#include "myriad/core/Material.h"

#include <glm/gtc/matrix_transform.hpp>

namespace myriad::test {

/** An unlit material of @p color (linear RGBA): pixels then show the colour as is (sRGB-encoded). */
inline Material unlit(const glm::vec4& color = glm::vec4(1.0f)) {
    Material material;
    material.shading = Shading::Unlit;
    material.baseColor = color;
    return material;
}

} // namespace myriad::test

#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/Renderer.h"

namespace myriad::test {

/** "swarm": a batch of four white 0.4-wide unlit quads at the origin in UploadMode::Streaming,
 *  for the tests that rewrite every record each frame. */
inline InstancedMeshNode& addStreamingSwarm(Scene& scene) {
    auto& batch = scene.root().emplace<InstancedMeshNode>(MeshGeometry::create(shapes::quad(0.4f, 0.4f), "quad"),
                                                          unlit(), 4, "swarm",
                                                          InstancedMeshOptions{.uploadMode = UploadMode::Streaming});
    for (int i = 0; i < 4; ++i) {
        batch.addInstance(at(0.0f, 0.0f));
    }
    return batch;
}

/** A renderer drawing into a size x size target through orthoCamera(). */
struct RenderFixture {
    static constexpr std::uint32_t kSize = 64;
    egl::HeadlessContext& context = test::context();
    gl::Renderer renderer;
    gl::OffscreenTarget target{kSize, kSize, "test-target"};
    Camera camera = orthoCamera();

    Image render(const Scene& scene) {
        renderer.render(scene, camera, target);
        return target.readPixels();
    }
};

} // namespace myriad::test
