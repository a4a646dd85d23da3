// Material textures (docs/lighting.md, "Material textures"): glTF's metallic-roughness, normal,
// occlusion and emissive textures, the second texture coordinate set and KHR_texture_transform,
// on screen against values worked out by hand, on the table-driven path (opaque) and the
// uniform path (blended, drawn one by one).
#include "support/GlTest.h"
#include "support/LightingTest.h"

#include "myriad/core/MeshNode.h"
#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/core/Tangents.h"
#include "myriad/gl/FrameStats.h"
#include "myriad/gl/Renderer.h"

#include <glm/gtc/constants.hpp>

#include <cmath>
#include <memory>
#include <string>

using namespace myriad;
using namespace myriad::test;

namespace {

constexpr std::uint32_t kSize = RenderFixture::kSize;

/** A 1x1 image of one RGBA byte quadruple. */
std::shared_ptr<const Image> solid(std::uint8_t r, std::uint8_t g, std::uint8_t b, std::uint8_t a = 255) {
    return std::make_shared<const Image>(Image{1, 1, {r, g, b, a}});
}

/** The byte a unit normal component n is stored as in a normal map: round((n + 1) / 2 * 255). */
std::uint8_t normalByte(float n) { return static_cast<std::uint8_t>(std::lround((n + 1.0f) * 0.5f * 255.0f)); }

/** The unit normal the shader decodes from normal-map bytes (rgb * 2 - 1, normalised). */
glm::vec3 decodedNormal(std::uint8_t r, std::uint8_t g, std::uint8_t b) {
    return glm::normalize(glm::vec3(r, g, b) / 255.0f * 2.0f - 1.0f);
}

/** The 2 x 2 quad filling the ortho view, facing +z, glTF texture coordinates (u right, v
 *  down: the image's top-left at the view's top-left); with @p tangents generated. */
std::shared_ptr<const MeshGeometry> wall(bool tangents, bool mirrorU = false) {
    MeshData data = shapes::quad(2.0f, 2.0f);
    if (mirrorU) {
        for (glm::vec2& uv : data.uv0) {
            uv.x = 1.0f - uv.x;
        }
    }
    if (tangents) {
        generateTangents(data);
    }
    return MeshGeometry::create(std::move(data), "wall");
}

} // namespace

TEST_CASE("a normal map tilts Lambert shading exactly as its normal says", "[textures][pixels]") {
    const bool tabled = GENERATE(true, false);
    const bool tangents = GENERATE(true, false);  // the mesh's tangents, or the derivative frame
    INFO((tabled ? "table-driven" : "uniform") << " path, " << (tangents ? "vertex tangents" : "derivative frame"));
    RenderFixture fixture;
    Scene scene;
    darken(scene);
    // Scene::light: a white Lambert surface facing it shows its colour, so the grey is
    // cos(angle between the mapped normal and the light).
    scene.light.intensity = 1.0f;
    const float a = glm::radians(60.0f);
    Material material;  // Lit (Lambert), white
    usePath(material, tabled);

    SECTION("a constant map normal (sin a, 0, cos a) under a light along -z: cos a") {
        const std::uint8_t r = normalByte(std::sin(a));
        const std::uint8_t b = normalByte(std::cos(a));
        material.normalTexture.image = solid(r, 128, b);
        scene.light.direction = {0.0f, 0.0f, -1.0f};
        scene.root().emplace<MeshNode>(wall(tangents), material, "wall");
        const Image image = fixture.render(scene);
        checkPath(fixture, tabled);
        const float expected = decodedNormal(r, 128, b).z;  // ~0.5: cos 60 degrees, as quantised
        CHECK(std::abs(grey(image, kSize / 2, kSize / 2) - encoded(expected)) <= 2);
    }
    SECTION("tilted towards +x: lit fully by a light from +x at a, dark from -x") {
        const std::uint8_t r = normalByte(std::sin(a));
        const std::uint8_t b = normalByte(std::cos(a));
        material.normalTexture.image = solid(r, 128, b);
        scene.root().emplace<MeshNode>(wall(tangents), material, "wall");
        scene.light.direction = -glm::vec3(std::sin(a), 0.0f, std::cos(a));
        const glm::vec3 n = decodedNormal(r, 128, b);
        CHECK(std::abs(grey(fixture.render(scene), kSize / 2, kSize / 2) - encoded(glm::dot(n, -scene.light.direction))) <= 2);
        scene.light.direction = -glm::vec3(-std::sin(a), 0.0f, std::cos(a));  // cos 120 degrees: unlit
        CHECK(grey(fixture.render(scene), kSize / 2, kSize / 2) == 0);
    }
    SECTION("the map's +Y is up the image: tilted towards +y") {
        const std::uint8_t g = normalByte(std::sin(a));
        const std::uint8_t b = normalByte(std::cos(a));
        material.normalTexture.image = solid(128, g, b);
        scene.root().emplace<MeshNode>(wall(tangents), material, "wall");
        scene.light.direction = -glm::vec3(0.0f, std::sin(a), std::cos(a));
        const glm::vec3 n = decodedNormal(128, g, b);
        CHECK(std::abs(grey(fixture.render(scene), kSize / 2, kSize / 2) - encoded(glm::dot(n, -scene.light.direction))) <= 2);
        scene.light.direction = -glm::vec3(0.0f, -std::sin(a), std::cos(a));
        CHECK(grey(fixture.render(scene), kSize / 2, kSize / 2) == 0);
    }
    SECTION("a mirrored UV island (handedness -1): x tilts to -x, y still up the image") {
        const std::uint8_t s = normalByte(std::sin(a));
        const std::uint8_t c = normalByte(std::cos(a));
        auto& node = scene.root().emplace<MeshNode>(wall(tangents, true), material, "wall");
        Material xTilt = material;
        xTilt.normalTexture.image = solid(s, 128, c);
        node.material() = xTilt;
        scene.light.direction = -glm::vec3(-std::sin(a), 0.0f, std::cos(a));  // from -x
        CHECK(std::abs(grey(fixture.render(scene), kSize / 2, kSize / 2) -
                       encoded(glm::dot(decodedNormal(s, 128, c), glm::vec3(std::sin(a), 0.0f, std::cos(a))))) <= 2);
        Material yTilt = material;
        yTilt.normalTexture.image = solid(128, s, c);
        node.material() = yTilt;
        scene.light.direction = -glm::vec3(0.0f, std::sin(a), std::cos(a));  // from +y
        CHECK(std::abs(grey(fixture.render(scene), kSize / 2, kSize / 2) -
                       encoded(glm::dot(decodedNormal(128, s, c), -scene.light.direction))) <= 2);
    }
    SECTION("a mirrored node (scale x -1): the map's +Y stays up the image") {
        const std::uint8_t g = normalByte(std::sin(a));
        const std::uint8_t b = normalByte(std::cos(a));
        material.normalTexture.image = solid(128, g, b);
        auto& node = scene.root().emplace<MeshNode>(wall(tangents), material, "wall");
        node.setScale({-1.0f, 1.0f, 1.0f});
        scene.light.direction = -glm::vec3(0.0f, std::sin(a), std::cos(a));  // from +y
        CHECK(std::abs(grey(fixture.render(scene), kSize / 2, kSize / 2) -
                       encoded(glm::dot(decodedNormal(128, g, b), -scene.light.direction))) <= 2);
    }
    SECTION("normalScale 0 flattens the map") {
        material.normalTexture.image = solid(normalByte(std::sin(a)), 128, normalByte(std::cos(a)));
        material.normalScale = 0.0f;
        scene.light.direction = {0.0f, 0.0f, -1.0f};
        scene.root().emplace<MeshNode>(wall(tangents), material, "wall");
        CHECK(grey(fixture.render(scene), kSize / 2, kSize / 2) == 255);
    }
}

TEST_CASE("a metallic-roughness texture sets metallic (blue) and roughness (green) per fragment", "[textures][pixels]") {
    const bool tabled = GENERATE(true, false);
    INFO((tabled ? "table-driven" : "uniform") << " path");
    RenderFixture fixture;
    Scene scene;
    darken(scene);
    scene.light.intensity = 1.0f;
    scene.light.direction = {0.0f, 0.0f, -1.0f};  // n = l = v = h at every pixel of the wall
    Material material;
    material.shading = Shading::MetallicRoughness;
    material.metallic = 1.0f;
    material.roughness = 1.0f;
    usePath(material, tabled);
    // At n = l = v = h: F = f0, D = 1 / (pi alpha^2), V = 1 / 4, so the radiance under
    // Scene::light (illuminance pi) is (1 - f0) c_diff + f0 / (4 alpha^2).
    SECTION("blue 0 cancels the metallic factor 1: a rough dielectric") {
        material.baseColor = glm::vec4(0.5f, 0.5f, 0.5f, 1.0f);
        material.metallicRoughnessTexture.image = solid(0, 255, 0);
        scene.root().emplace<MeshNode>(wall(false), material, "wall");
        const Image image = fixture.render(scene);
        checkPath(fixture, tabled);
        CHECK(std::abs(grey(image, kSize / 2, kSize / 2) - encoded(0.96f * 0.5f + 0.04f / 4.0f)) <= 2);
    }
    SECTION("green 128 makes a rough metal glossy: the highlight grows by 1 / roughness^4") {
        material.baseColor = glm::vec4(0.1f, 0.1f, 0.1f, 1.0f);
        auto& node = scene.root().emplace<MeshNode>(wall(false), material, "wall");
        CHECK(std::abs(grey(fixture.render(scene), kSize / 2, kSize / 2) - encoded(0.1f / 4.0f)) <= 2);  // no texture
        Material glossy = material;
        glossy.metallicRoughnessTexture.image = solid(0, 128, 255);
        node.material() = glossy;
        const float roughness = 128.0f / 255.0f;
        const float alpha = roughness * roughness;
        CHECK(std::abs(grey(fixture.render(scene), kSize / 2, kSize / 2) - encoded(0.1f / (4.0f * alpha * alpha))) <= 2);
    }
}

TEST_CASE("an occlusion texture darkens the ambient light only", "[textures][pixels]") {
    const bool tabled = GENERATE(true, false);
    INFO((tabled ? "table-driven" : "uniform") << " path");
    RenderFixture fixture;
    Scene scene;
    scene.ambient = glm::vec3(0.5f);
    scene.light.intensity = 0.5f;
    scene.light.direction = {0.0f, 0.0f, -1.0f};  // facing the wall
    Material material;
    material.baseColor = glm::vec4(0.5f, 0.5f, 0.5f, 1.0f);
    usePath(material, tabled);
    // Lambert: albedo * ambient * occlusion + albedo * light = 0.25 * occlusion + 0.25.
    auto& node = scene.root().emplace<MeshNode>(wall(false), material, "wall");
    CHECK(std::abs(grey(fixture.render(scene), kSize / 2, kSize / 2) - encoded(0.5f)) <= 2);
    SECTION("red 0: no ambient, the light stays") {
        material.occlusionTexture.image = solid(0, 255, 255);  // only red is read
        node.material() = material;
        const Image image = fixture.render(scene);
        checkPath(fixture, tabled);
        CHECK(std::abs(grey(image, kSize / 2, kSize / 2) - encoded(0.25f)) <= 2);
    }
    SECTION("red 128 at strength 0.5") {
        material.occlusionTexture.image = solid(128, 0, 0);
        material.occlusionStrength = 0.5f;
        node.material() = material;
        const float occlusion = 1.0f + 0.5f * (128.0f / 255.0f - 1.0f);
        CHECK(std::abs(grey(fixture.render(scene), kSize / 2, kSize / 2) - encoded(0.25f * occlusion + 0.25f)) <= 2);
    }
}

TEST_CASE("an emissive texture (sRGB) multiplies the emission", "[textures][pixels]") {
    const bool tabled = GENERATE(true, false);
    INFO((tabled ? "table-driven" : "uniform") << " path");
    RenderFixture fixture;
    Scene scene;
    darken(scene);
    Material material;
    material.baseColor = glm::vec4(0.0f, 0.0f, 0.0f, 1.0f);
    material.emissive = glm::vec3(1.0f);
    material.emissiveStrength = 0.5f;
    material.emissiveTexture.image = solid(255, 0, 188);  // sRGB 188: linear 0.5029
    usePath(material, tabled);
    scene.root().emplace<MeshNode>(wall(false), material, "wall");
    const Image image = fixture.render(scene);
    checkPath(fixture, tabled);
    const Rgba c = pixelAt(image, kSize / 2, kSize / 2);
    INFO(describe(c));
    CHECK(std::abs(c[0] - encoded(0.5f)) <= 2);
    CHECK(c[1] == 0);
    CHECK(std::abs(c[2] - encoded(0.5f * 0.50289f)) <= 2);
}

TEST_CASE("a texture reads the second texture coordinate set when asked", "[textures][pixels]") {
    const bool tabled = GENERATE(true, false);
    INFO((tabled ? "table-driven" : "uniform") << " path");
    RenderFixture fixture;
    Scene scene;
    // A 2 x 1 image, red then green; uv0 reads red everywhere, uv1 green.
    MeshData data = shapes::quad(2.0f, 2.0f);
    data.uv0.assign(4, glm::vec2(0.25f, 0.5f));
    data.uv1.assign(4, glm::vec2(0.75f, 0.5f));
    auto mesh = MeshGeometry::create(std::move(data), "two-sets");
    Material material = unlit();
    material.baseColorTexture = std::make_shared<const Image>(Image{2, 1, {255, 0, 0, 255, 0, 255, 0, 255}});
    material.sampler = TextureSampler::nearest();
    usePath(material, tabled);
    auto& node = scene.root().emplace<MeshNode>(mesh, material, "wall");
    MYRIAD_CHECK_PIXEL(fixture.render(scene), kSize / 2, kSize / 2, kRed);
    material.baseColorUvSet = 1;
    node.material() = material;
    MYRIAD_CHECK_PIXEL(fixture.render(scene), kSize / 2, kSize / 2, kGreen);
    checkPath(fixture, tabled);
    SECTION("an emissive texture at uv1") {
        Material glow;
        glow.baseColor = glm::vec4(0.0f, 0.0f, 0.0f, 1.0f);
        glow.emissive = glm::vec3(1.0f);
        glow.emissiveTexture.image = material.baseColorTexture;
        glow.emissiveTexture.sampler = TextureSampler::nearest();
        glow.emissiveTexture.uvSet = 1;
        usePath(glow, tabled);
        scene.ambient = glm::vec3(0.0f);
        scene.light.intensity = 0.0f;
        node.material() = glow;
        MYRIAD_CHECK_PIXEL(fixture.render(scene), kSize / 2, kSize / 2, kGreen);
    }
}

TEST_CASE("KHR_texture_transform's offset, rotation and scale move a checker as predicted", "[textures][pixels]") {
    const bool tabled = GENERATE(true, false);
    INFO((tabled ? "table-driven" : "uniform") << " path");
    RenderFixture fixture;
    Scene scene;
    // A 2 x 2 checker, nearest: texel (0, 0) red (the image's top-left), (1, 0) green, (0, 1)
    // blue, (1, 1) white. Screen point (u, v) of the wall is at x = 2u - 1, y = 1 - 2v.
    Material material = unlit();
    material.baseColorTexture = std::make_shared<const Image>(
        Image{2, 2, {255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255}});
    material.sampler = TextureSampler::nearest();
    usePath(material, tabled);
    auto& node = scene.root().emplace<MeshNode>(wall(false), material, "wall");
    auto probe = [&](float u, float v) { return pixelAt(fixture.render(scene), pixelX(2.0f * u - 1.0f, kSize), pixelY(1.0f - 2.0f * v, kSize)); };
    auto check = [&](float u, float v, const Rgba& expected) {
        const Rgba actual = probe(u, v);
        INFO("(u, v) = (" << u << ", " << v << "): " << describe(actual) << ", expected " << describe(expected));
        CHECK(near(actual, expected));
    };
    check(0.25f, 0.25f, kRed);  // untransformed
    check(0.75f, 0.25f, kGreen);
    check(0.25f, 0.75f, kBlue);
    SECTION("offset (0.5, 0): u + 0.5, repeating") {
        material.baseColorTransform.offset = {0.5f, 0.0f};
        node.material() = material;
        check(0.25f, 0.25f, kGreen);
        check(0.75f, 0.25f, kRed);
        check(0.25f, 0.75f, kWhite);
        checkPath(fixture, tabled);
    }
    SECTION("rotation pi / 2: (u, v) -> (v, -u)") {
        material.baseColorTransform.rotation = glm::half_pi<float>();
        node.material() = material;
        check(0.25f, 0.25f, kBlue);    // (0.25, -0.25 -> 0.75)
        check(0.75f, 0.25f, kRed);     // (0.25, -0.75 -> 0.25)
        check(0.25f, 0.75f, kWhite);   // (0.75, -0.25 -> 0.75)
        check(0.75f, 0.75f, kGreen);   // (0.75, -0.75 -> 0.25)
    }
    SECTION("scale (2, 2): the checker twice across") {
        material.baseColorTransform.scale = {2.0f, 2.0f};
        node.material() = material;
        check(0.125f, 0.125f, kRed);    // (0.25, 0.25)
        check(0.375f, 0.125f, kGreen);  // (0.75, 0.25)
        check(0.625f, 0.125f, kRed);    // (1.25 -> 0.25, 0.25)
        check(0.125f, 0.375f, kBlue);   // (0.25, 0.75)
    }
    SECTION("a transformed occlusion texture, offset onto its dark texel") {
        Material lit;
        lit.baseColor = glm::vec4(1.0f);
        lit.occlusionTexture.image = std::make_shared<const Image>(Image{2, 1, {255, 0, 0, 255, 0, 0, 0, 255}});
        lit.occlusionTexture.sampler = TextureSampler::nearest();
        usePath(lit, tabled);
        scene.ambient = glm::vec3(0.5f);
        scene.light.intensity = 0.0f;
        node.material() = lit;
        check(0.25f, 0.5f, Rgba{encoded(0.5f), encoded(0.5f), encoded(0.5f), 255});  // red 255: no occlusion
        lit.occlusionTexture.transform.offset = {0.5f, 0.0f};
        node.material() = lit;
        check(0.25f, 0.5f, kBlack);  // now on red 0
    }
}

TEST_CASE("two materials that differ only in their texture transform draw as two groups", "[textures][pixels][table]") {
    RenderFixture fixture;
    Scene scene;
    // The left and right halves, one material each: the same image and sampler, offsets 0 and
    // 0.5 along u, so the same point of the texture shows red on one and green on the other.
    Material left = unlit();
    left.baseColorTexture = std::make_shared<const Image>(Image{2, 1, {255, 0, 0, 255, 0, 255, 0, 255}});
    left.sampler = TextureSampler::nearest();
    left.baseColorTransform.scale = {1.0f, 1.0f};
    left.baseColorTransform.offset = {0.0f, 0.0f};
    left.baseColorTransform.rotation = 1.0e-30f;  // not the identity: the material-textures variant
    Material right = left;
    right.baseColorTransform.offset = {0.5f, 0.0f};
    MeshData data = shapes::quad(1.0f, 2.0f);
    data.uv0.assign(4, glm::vec2(0.25f, 0.5f));
    auto half = MeshGeometry::create(std::move(data), "half");
    scene.root().emplace<MeshNode>(half, left, "left").setPosition({-0.5, 0.0, 0.0});
    scene.root().emplace<MeshNode>(half, right, "right").setPosition({0.5, 0.0, 0.0});
    const Image image = fixture.render(scene);
    CHECK(fixture.renderer.lastFrameStats().multiDrawCalls == 2);
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), kSize / 2, kRed);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), kSize / 2, kGreen);
}
