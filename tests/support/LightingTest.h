#pragma once
// Helpers the lighting tests share (lights, lamp shadows, environment, material textures,
// shading stages, lightmaps): the sRGB byte a linear value becomes, a grey Lambert material, a
// scene with no light of its own, a pixel read as one grey, and the draw path a material takes.
#include "GlTest.h"  // same folder

#include "myriad/core/Material.h"
#include "myriad/core/Scene.h"
#include "myriad/gl/FrameStats.h"
#include "myriad/gl/Renderer.h"

#include <glm/vec3.hpp>
#include <glm/vec4.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>

namespace myriad::test {

/** The sRGB byte a linear value (clamped to 0..1) is stored as in an 8-bit sRGB target. */
inline int encoded(float linear) {
    return static_cast<int>(std::lround(linearToSrgb(std::clamp(linear, 0.0f, 1.0f)) * 255.0f));
}

/** A grey Lambert (Lit) material of albedo @p albedo. */
inline Material lambert(float albedo) {
    Material material;
    material.baseColor = glm::vec4(albedo, albedo, albedo, 1.0f);
    return material;
}

/** A scene lit by nothing but what a test adds: no sun, no ambient. */
inline void darken(Scene& scene) {
    scene.light.intensity = 0.0f;
    scene.ambient = glm::vec3(0.0f);
}

/** The two paths a material must work on: the table-driven multi-draw (opaque) and a draw call
 *  of its own with uniforms (a blended material with alpha 1 looks the same). */
inline void usePath(Material& material, bool tabled) {
    if (!tabled) {
        material.alphaMode = AlphaMode::Blend;
    }
}

/** Checks that the frame of one draw drew on the path asked for (usePath). */
inline void checkPath(const RenderFixture& fixture, bool tabled) {
    CHECK(fixture.renderer.lastFrameStats().multiDrawCalls == (tabled ? 1u : 0u));
}

/** The grey of pixel (x, y), checked to be grey (channels within 1 of each other). */
inline int grey(const Image& image, std::uint32_t x, std::uint32_t y) {
    const Rgba c = pixelAt(image, x, y);
    INFO("pixel (" << x << ", " << y << ") " << describe(c));
    CHECK(std::abs(c[0] - c[1]) <= 1);
    CHECK(std::abs(c[1] - c[2]) <= 1);
    return c[1];
}

} // namespace myriad::test
