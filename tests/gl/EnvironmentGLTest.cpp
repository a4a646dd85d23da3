// Image-based ambient (docs/lighting.md, "Image-based ambient"): Scene::environment's irradiance
// and GGX-prefiltered specular map, Scene::hemisphere, and the flat Scene::ambient when neither
// is set, on screen against values worked out by hand.
#include "support/GlTest.h"
#include "support/LightingTest.h"

#include <glad/gl.h>

#include "myriad/core/Environment.h"
#include "myriad/core/MeshNode.h"
#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/gl/LiveObjects.h"
#include "myriad/gl/Renderer.h"
#include "myriad/image/ImageIO.h"
#include "myriad/util/Error.h"

#include <glm/geometric.hpp>
#include <glm/gtc/constants.hpp>

#include <cmath>
#include <filesystem>
#include <limits>
#include <memory>
#include <vector>

using namespace myriad;
using namespace myriad::test;

namespace {

constexpr std::uint32_t kSize = RenderFixture::kSize;
constexpr float kPi = glm::pi<float>();

/** Checks pixel (x, y) against linear @p expected, within @p tolerance sRGB steps per channel. */
void checkPixel(const Image& image, std::uint32_t x, std::uint32_t y, glm::vec3 expected, int tolerance = 2) {
    const Rgba c = pixelAt(image, x, y);
    INFO("pixel (" << x << ", " << y << ") " << describe(c) << ", expected linear (" << expected.r << ", " << expected.g
                   << ", " << expected.b << ") = sRGB (" << encoded(expected.r) << ", " << encoded(expected.g) << ", "
                   << encoded(expected.b) << ")");
    CHECK(std::abs(c[0] - encoded(expected.r)) <= tolerance);
    CHECK(std::abs(c[1] - encoded(expected.g)) <= tolerance);
    CHECK(std::abs(c[2] - encoded(expected.b)) <= tolerance);
}

/** A scene lit by its ambient alone (no sun). */
void noSun(Scene& scene) { scene.light.intensity = 0.0f; }

/** A width x height image of radiance @p fill(direction) at each texel centre. */
template <typename Fill>
std::vector<float> imageOf(std::uint32_t width, std::uint32_t height, Fill fill) {
    std::vector<float> pixels;
    for (std::uint32_t j = 0; j < height; ++j) {
        for (std::uint32_t i = 0; i < width; ++i) {
            const glm::vec3 d = Environment::uvToDirection({(i + 0.5f) / width, (j + 0.5f) / height});
            const glm::vec3 c = fill(d);
            pixels.insert(pixels.end(), {c.r, c.g, c.b});
        }
    }
    return pixels;
}

/** A distinct colour around each axis: the direction's largest component picks it. */
glm::vec3 axisColour(glm::vec3 d) {
    const glm::vec3 a = glm::abs(d);
    if (a.x >= a.y && a.x >= a.z) {
        return d.x > 0.0f ? glm::vec3(0.8f, 0.1f, 0.1f) : glm::vec3(0.1f, 0.8f, 0.1f);
    }
    if (a.y >= a.z) {
        return d.y > 0.0f ? glm::vec3(0.1f, 0.1f, 0.8f) : glm::vec3(0.4f, 0.3f, 0.1f);
    }
    return d.z > 0.0f ? glm::vec3(0.7f, 0.6f, 0.1f) : glm::vec3(0.1f, 0.6f, 0.7f);
}

/** A dim sky with a bright disc of 25 degrees' radius 35 degrees from +Z towards +X: how much of
 *  it a lobe around +Z takes in depends on the lobe's width. */
glm::vec3 spotColour(glm::vec3 d) {
    const glm::vec3 centre(std::sin(glm::radians(35.0f)), 0.0f, std::cos(glm::radians(35.0f)));
    return glm::dot(d, centre) > std::cos(glm::radians(25.0f)) ? glm::vec3(1.5f, 1.0f, 0.5f) : glm::vec3(0.05f, 0.1f, 0.2f);
}

/** Karis' analytic fit of the split sum's (scale, bias) ("Physically Based Shading on Mobile",
 *  2014), as surface.frag evaluates it. */
glm::vec2 splitSum(float roughness, float nDotV) {
    roughness = std::clamp(roughness, 0.045f, 1.0f);
    const glm::vec4 r = roughness * glm::vec4(-1.0f, -0.0275f, -0.572f, 0.022f) + glm::vec4(1.0f, 0.0425f, 1.04f, -0.04f);
    const float a004 = std::min(r.x * r.x, std::exp2(-9.28f * nDotV)) * r.x + r.y;
    return glm::vec2(-1.04f, 1.04f) * a004 + glm::vec2(r.z, r.w);
}

/** A white metal of @p roughness (f0 = 1: the specular share is scale + bias). */
Material whiteMetal(float roughness) {
    Material material;
    material.shading = Shading::MetallicRoughness;
    material.baseColor = glm::vec4(1.0f);
    material.metallic = 1.0f;
    material.roughness = roughness;
    return material;
}

/** The GGX-weighted mean radiance around @p n (n = v), roughness @p roughness: the prefiltered
 *  map's value there, worked out on the CPU from the full image (Karis 2013's weights n.l). */
glm::vec3 prefilteredReference(const Environment& environment, glm::vec3 n, float roughness) {
    const float a = roughness * roughness;
    const glm::vec3 up = std::abs(n.y) < 0.999f ? glm::vec3(0, 1, 0) : glm::vec3(1, 0, 0);
    const glm::vec3 tx = glm::normalize(glm::cross(up, n));
    const glm::vec3 ty = glm::cross(n, tx);
    glm::vec3 sum(0.0f);
    float weight = 0.0f;
    constexpr int kSamples = 64;
    for (int i = 0; i < kSamples; ++i) {
        for (int k = 0; k < kSamples; ++k) {
            const float u = (i + 0.5f) / kSamples;
            const float w = (k + 0.5f) / kSamples;
            const float phi = 2.0f * kPi * u;
            const float cosTheta = std::sqrt((1.0f - w) / (1.0f + (a * a - 1.0f) * w));
            const float sinTheta = std::sqrt(1.0f - cosTheta * cosTheta);
            const glm::vec3 h = tx * (sinTheta * std::cos(phi)) + ty * (sinTheta * std::sin(phi)) + n * cosTheta;
            const glm::vec3 l = 2.0f * glm::dot(n, h) * h - n;
            const float nDotL = glm::dot(n, l);
            if (nDotL > 0.0f) {
                sum += environment.radiance(l) * nDotL;
                weight += nDotL;
            }
        }
    }
    return sum / weight;
}

/** A white metal quad of @p roughness facing the ortho camera (+Z) under the axis-coloured sky,
 *  lit by nothing else: the mirror tests' scene. */
MeshNode& mirrorUnderAxisSky(Scene& scene, float roughness) {
    noSun(scene);
    scene.environment = std::make_shared<const Environment>(256, 128, imageOf(256, 128, axisColour));
    return scene.root().emplace<MeshNode>(MeshGeometry::create(shapes::quad(1.0f, 1.0f), "quad"), whiteMetal(roughness),
                                          "mirror");
}

} // namespace

TEST_CASE("environment: a white Lambert quad under a constant sky shows its radiance", "[environment][pixels]") {
    RenderFixture fixture;
    Scene scene;
    noSun(scene);
    scene.ambient = glm::vec3(0.0f);  // not used once an environment is set
    const glm::vec3 radiance(0.6f, 0.35f, 0.15f);
    // Through a .hdr file, as a game loads one (stbi_write_hdr, then stbi_loadf): RGBE keeps
    // about 1% of each value, which the 2/255 tolerance holds.
    const auto folder = std::filesystem::temp_directory_path() / "myriad-environment-test";
    std::filesystem::create_directories(folder);
    const std::string path = (folder / "constant.hdr").string();
    const std::vector<float> pixels = imageOf(64, 32, [&](glm::vec3) { return radiance; });
    image::writeHdr(64, 32, pixels, path);
    scene.environment = std::make_shared<const Environment>(image::readEnvironmentFile(path));
    Material white;  // Lit (Lambert), white
    auto& quad = scene.root().emplace<MeshNode>(MeshGeometry::create(shapes::quad(1.0f, 1.0f), "quad"), white, "quad");
    SECTION("albedo * E / pi = albedo * L") {
        checkPixel(fixture.render(scene), kSize / 2, kSize / 2, radiance);
    }
    SECTION("facing up: the same") {
        quad.setRotation(glm::angleAxis(-kPi / 2.0f, glm::vec3(1, 0, 0)));  // +Z turned to +Y
        fixture.camera.lookAt(glm::dvec3(0.0, 10.0, 0.0), glm::dvec3(0.0), glm::vec3(0, 0, -1));
        checkPixel(fixture.render(scene), kSize / 2, kSize / 2, radiance);
    }
    SECTION("intensity multiplies") {
        scene.environmentIntensity = 0.5f;
        checkPixel(fixture.render(scene), kSize / 2, kSize / 2, radiance * 0.5f);
    }
    std::filesystem::remove_all(folder);
}

TEST_CASE("environment: a hemisphere ambient gives sky above, ground below, their mean at the side",
          "[environment][pixels]") {
    RenderFixture fixture;
    Scene scene;
    noSun(scene);
    scene.hemisphere = HemisphereAmbient{.sky = {0.2f, 0.4f, 0.8f}, .ground = {0.5f, 0.3f, 0.1f}};
    Material white;
    white.doubleSided = true;  // its back face, seen from below, faces down
    auto& plane = scene.root().emplace<MeshNode>(MeshGeometry::create(shapes::plane(1.0f, 1.0f), "plane"), white, "plane");
    SECTION("from above: the sky") {
        fixture.camera.lookAt(glm::dvec3(0.0, 10.0, 0.0), glm::dvec3(0.0), glm::vec3(0, 0, -1));
        checkPixel(fixture.render(scene), kSize / 2, kSize / 2, scene.hemisphere->sky);
    }
    SECTION("from below: the ground") {
        fixture.camera.lookAt(glm::dvec3(0.0, -10.0, 0.0), glm::dvec3(0.0), glm::vec3(0, 0, -1));
        checkPixel(fixture.render(scene), kSize / 2, kSize / 2, scene.hemisphere->ground);
    }
    SECTION("standing (facing +Z): the mean") {
        plane.setRotation(glm::angleAxis(kPi / 2.0f, glm::vec3(1, 0, 0)));  // +Y turned to +Z
        checkPixel(fixture.render(scene), kSize / 2, kSize / 2, (scene.hemisphere->sky + scene.hemisphere->ground) * 0.5f);
    }
    SECTION("an environment takes over from it") {
        scene.environment = std::make_shared<const Environment>(
            32, 16, imageOf(32, 16, [](glm::vec3) { return glm::vec3(0.25f); }));
        fixture.camera.lookAt(glm::dvec3(0.0, 10.0, 0.0), glm::dvec3(0.0), glm::vec3(0, 0, -1));
        checkPixel(fixture.render(scene), kSize / 2, kSize / 2, glm::vec3(0.25f));
    }
}

TEST_CASE("environment: a mirror-like metal reflects the colour of the reflected direction", "[environment][pixels]") {
    RenderFixture fixture;
    Scene scene;
    // v = n = +Z, so r = +Z; f0 = 1.
    auto& mirror = mirrorUnderAxisSky(scene, 0.05f);
    const glm::vec2 sb = splitSum(0.05f, 1.0f);
    SECTION("along +Z") {
        checkPixel(fixture.render(scene), kSize / 2, kSize / 2, axisColour({0, 0, 1}) * (sb.x + sb.y));
    }
    SECTION("turned a quarter about +Y: what the image holds along -X") {
        // Rotating the environment by +90 degrees (counter-clockwise from above) brings its -X
        // to +Z.
        scene.environmentRotation = kPi / 2.0f;
        checkPixel(fixture.render(scene), kSize / 2, kSize / 2, axisColour({-1, 0, 0}) * (sb.x + sb.y));
    }
    SECTION("a tilted mirror reflects up into the blue") {
        // Normal tilted 30 degrees up from +Z, towards +Y: r = reflect(-v, n) leaves the plane at
        // 60 degrees above the horizon, in the +Y region.
        mirror.setRotation(glm::angleAxis(-kPi / 6.0f, glm::vec3(1, 0, 0)));
        const float nDotV = std::cos(kPi / 6.0f);
        const glm::vec2 tilted = splitSum(0.05f, nDotV);
        checkPixel(fixture.render(scene), kSize / 2, kSize / 2, axisColour({0, 1, 0}) * (tilted.x + tilted.y), 3);
    }
}

TEST_CASE("environment: a rough metal reflects the GGX-blurred mean", "[environment][pixels]") {
    RenderFixture fixture;
    Scene scene;
    noSun(scene);
    const auto environment = std::make_shared<const Environment>(256, 128, imageOf(256, 128, spotColour));
    scene.environment = environment;
    // Roughness 1 reads the map's last level, 0.5 its middle one (5 levels for 128 rows).
    const float roughness = GENERATE(1.0f, 0.5f);
    INFO("roughness " << roughness);
    scene.root().emplace<MeshNode>(MeshGeometry::create(shapes::quad(1.0f, 1.0f), "quad"), whiteMetal(roughness), "rough");
    const glm::vec2 sb = splitSum(roughness, 1.0f);
    const glm::vec3 blurred = prefilteredReference(*environment, {0, 0, 1}, roughness);
    // The lobe's mean is not the mirror's colour along +Z (the dim sky's).
    REQUIRE(glm::length(blurred - spotColour({0, 0, 1})) > 0.05f);
    // Within 6/255: the map reads each sample from a coarser source level (mip-filtered
    // importance sampling blurs the disc's edge by a few degrees) and is itself read between
    // texel centres of a 64 x 32 (0.5) or 16 x 8 (1) level; on llvmpipe it lands 3-5 steps
    // below the full-resolution reference. A lobe half as wide (l = h instead of reflecting v
    // about h) lands 13 below at roughness 0.5.
    checkPixel(fixture.render(scene), kSize / 2, kSize / 2, blurred * (sb.x + sb.y), 6);
}

TEST_CASE("environment: without one, the flat ambient draws as before", "[environment][pixels]") {
    RenderFixture fixture;
    Scene scene;
    noSun(scene);
    scene.ambient = glm::vec3(0.3f, 0.5f, 0.7f);
    Material grey;
    grey.baseColor = glm::vec4(0.5f, 0.5f, 0.5f, 1.0f);
    scene.root().emplace<MeshNode>(MeshGeometry::create(shapes::quad(1.0f, 1.0f), "quad"), grey, "quad");
    const Image before = fixture.render(scene);
    checkPixel(before, kSize / 2, kSize / 2, 0.5f * scene.ambient);
    // An environment for a frame, then none again: the flat ambient is back, bit for bit.
    scene.environment = std::make_shared<const Environment>(32, 16, imageOf(32, 16, [](glm::vec3) { return glm::vec3(1.0f); }));
    checkPixel(fixture.render(scene), kSize / 2, kSize / 2, glm::vec3(0.5f));
    scene.environment.reset();
    CHECK(sameImage(fixture.render(scene), before));
}

TEST_CASE("environment: bad ambient settings throw before drawing", "[environment][errors]") {
    RenderFixture fixture;
    Scene scene;
    scene.environment = std::make_shared<const Environment>(32, 16, imageOf(32, 16, [](glm::vec3) { return glm::vec3(1.0f); }));
    SECTION("intensity") {
        scene.environmentIntensity = -1.0f;
        CHECK_THROWS_AS(fixture.render(scene), InvalidArgument);
        scene.environmentIntensity = std::numeric_limits<float>::quiet_NaN();
        CHECK_THROWS_AS(fixture.render(scene), InvalidArgument);
    }
    SECTION("rotation") {
        scene.environmentRotation = std::numeric_limits<float>::infinity();
        CHECK_THROWS_AS(fixture.render(scene), InvalidArgument);
    }
    SECTION("hemisphere") {
        scene.environment.reset();
        scene.hemisphere = HemisphereAmbient{.sky = {-1.0f, 0.0f, 0.0f}};
        CHECK_THROWS_AS(fixture.render(scene), InvalidArgument);
    }
    SECTION("a file that is no .hdr") {
        const auto folder = std::filesystem::temp_directory_path() / "myriad-environment-bad";
        std::filesystem::create_directories(folder);
        Image png;
        png.width = 2;
        png.height = 1;
        png.pixels.assign(8, 255);
        image::writePng(png, (folder / "sky.png").string());
        CHECK_THROWS_AS(image::readEnvironmentFile((folder / "sky.png").string()), ImportError);
        CHECK_THROWS_AS(image::readEnvironmentFile((folder / "missing.hdr").string()), ImportError);
        // A .hdr of the wrong shape: the Environment's InvalidArgument, naming the file.
        const std::vector<float> square(16 * 16 * 3, 1.0f);
        image::writeHdr(16, 16, square, (folder / "square.hdr").string());
        CHECK_THROWS_AS(image::readEnvironmentFile((folder / "square.hdr").string()), InvalidArgument);
        std::filesystem::remove_all(folder);
    }
}

TEST_CASE("environment: its map is built once and freed after the Environment", "[environment]") {
    RenderFixture fixture;
    Scene scene;
    const auto constant = [](float value) {
        return std::make_shared<const Environment>(32, 16, imageOf(32, 16, [=](glm::vec3) { return glm::vec3(value); }));
    };
    fixture.render(scene);  // the renderer's own objects, made
    const std::int64_t before = gl::liveObjectCounts().textures;
    auto first = constant(0.5f);
    scene.environment = first;
    fixture.render(scene);
    const std::int64_t withMap = gl::liveObjectCounts().textures;
    CHECK(withMap == before + 1);  // the map (the source image is deleted once it is drawn)
    const Image image = fixture.render(scene);
    CHECK(gl::liveObjectCounts().textures == withMap);  // the same map, not a new one
    // A second Environment object gets its own map while the first still lives ...
    scene.environment = constant(0.5f);
    CHECK(sameImage(fixture.render(scene), image));
    CHECK(gl::liveObjectCounts().textures == withMap + 1);
    // ... and the first's is freed on the first frame after it is destroyed.
    first.reset();
    fixture.render(scene);
    CHECK(gl::liveObjectCounts().textures == withMap);
    scene.environment.reset();
    fixture.render(scene);
    CHECK(gl::liveObjectCounts().textures == before);
}

TEST_CASE("environment: an image of two rows gets its map (its level count does not wrap)", "[environment][pixels]") {
    // 1 to 3 rows: bit_width(height) - 3 is not positive; unsigned, it wrapped and was clamped to
    // 6 levels, which a 4 x 2 texture cannot have: no storage, an incomplete map, black specular.
    RenderFixture fixture;
    Scene scene;
    noSun(scene);
    scene.environment = std::make_shared<const Environment>(4, 2, std::vector<float>(4 * 2 * 3, 0.5f));
    scene.root().emplace<MeshNode>(MeshGeometry::create(shapes::quad(1.0f, 1.0f), "quad"), whiteMetal(1.0f), "metal");
    const glm::vec2 sb = splitSum(1.0f, 1.0f);  // a constant sky prefilters to itself at any roughness
    checkPixel(fixture.render(scene), kSize / 2, kSize / 2, glm::vec3(0.5f) * (sb.x + sb.y), 3);
}

TEST_CASE("environment: the map is built right side up under the caller's upper-left clip control",
          "[environment][pixels][state]") {
    // The prefilter draws before the views set clip control; under GL_UPPER_LEFT window y runs
    // down (OpenGL 4.5 section 13.5) and the map came out upside down: sky and ground swapped.
    RenderFixture fixture;
    Scene scene;
    auto& mirror = mirrorUnderAxisSky(scene, 0.05f);
    mirror.setRotation(glm::angleAxis(-kPi / 6.0f, glm::vec3(1, 0, 0)));  // reflects 60 degrees up
    glClipControl(GL_UPPER_LEFT, GL_NEGATIVE_ONE_TO_ONE);
    const Image image = fixture.render(scene);
    glClipControl(GL_LOWER_LEFT, GL_NEGATIVE_ONE_TO_ONE);
    const glm::vec2 tilted = splitSum(0.05f, std::cos(kPi / 6.0f));
    checkPixel(image, kSize / 2, kSize / 2, axisColour({0, 1, 0}) * (tilted.x + tilted.y), 3);
}
