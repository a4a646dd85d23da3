// Lightmaps (docs/lighting.md, "Lightmaps"; the design card's `lightmapped`): a material's
// baked lightmap replaces the diffuse ambient light, read at uv1 (or uv0) through the slot's
// transform, or at the vertex colour's red and green (the card's convention), times its
// intensity. On screen against values worked out by hand, on the table-driven path (opaque)
// and the uniform path (blended, drawn one by one), for MeshNodes and instanced batches.
#include "support/CoreTest.h"
#include "support/GlTest.h"
#include "support/LightingTest.h"

#include "myriad/core/Environment.h"
#include "myriad/core/InstanceRecord.h"
#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/LightEvaluation.h"
#include "myriad/core/LightNode.h"
#include "myriad/core/Lightmap.h"
#include "myriad/core/MeshNode.h"
#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/gl/FrameStats.h"
#include "myriad/gl/Renderer.h"

#include <glad/gl.h>

#include <glm/gtc/constants.hpp>
#include <glm/gtc/matrix_transform.hpp>

#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

using namespace myriad;
using namespace myriad::test;

namespace {

constexpr std::uint32_t kSize = RenderFixture::kSize;

/** The linear value of an sRGB-encoded byte (what the GPU's sRGB texture decode gives). */
float linearOf(int byte) { return linearOfSrgbByte(byte); }

// A 2 x 2 grey lightmap, unfiltered and clamped, its texels (rows top to bottom, as an Image):
// top-left 64, top-right 188, bottom-left 128, bottom-right 255 (sRGB bytes).
constexpr int kTopLeft = 64;
constexpr int kTopRight = 188;
constexpr int kBottomLeft = 128;
constexpr int kBottomRight = 255;

std::shared_ptr<const Image> quadrantLightmap() {
    std::vector<std::uint8_t> pixels;
    for (const int byte : {kTopLeft, kTopRight, kBottomLeft, kBottomRight}) {
        const auto b = static_cast<std::uint8_t>(byte);
        pixels.insert(pixels.end(), {b, b, b, 255});
    }
    return std::make_shared<const Image>(Image{2, 2, std::move(pixels)});
}

/** A Lit material of albedo @p albedo with the quadrant lightmap, read unfiltered at uv1. */
Material lightmapped(float albedo) {
    Material material = lambert(albedo);
    material.lightmapTexture.image = quadrantLightmap();
    material.lightmapTexture.sampler = TextureSampler::nearest(TextureWrap::ClampToEdge, TextureWrap::ClampToEdge);
    return material;
}

/** The 2 x 2 quad filling the ortho view, facing +z, with uv0 at the lightmap's top-left texel
 *  and uv1 at its top-right one everywhere (or, with @p spreadUv1, uv1 = the quad's own
 *  coordinates: u right, v down, the image's top-left at the view's top-left). */
std::shared_ptr<const MeshGeometry> wall(bool withUv1 = true, bool spreadUv1 = false) {
    MeshData data = shapes::quad(2.0f, 2.0f);
    const std::vector<glm::vec2> quadUv = data.uv0;
    data.uv0.assign(data.positions.size(), glm::vec2(0.25f, 0.25f));
    if (withUv1) {
        data.uv1 = spreadUv1 ? quadUv : std::vector<glm::vec2>(data.positions.size(), glm::vec2(0.75f, 0.25f));
    }
    return MeshGeometry::create(std::move(data), "wall");
}

/** The grey at the centre of each quarter of the view, top-left, top-right, bottom-left,
 *  bottom-right. */
std::array<int, 4> quarters(const Image& image) {
    return {grey(image, pixelX(-0.5f, kSize), pixelY(0.5f, kSize)), grey(image, pixelX(0.5f, kSize), pixelY(0.5f, kSize)),
            grey(image, pixelX(-0.5f, kSize), pixelY(-0.5f, kSize)), grey(image, pixelX(0.5f, kSize), pixelY(-0.5f, kSize))};
}

/** Checks each quarter shows albedo times its own texel. */
void checkQuarters(const Image& image, float albedo) {
    const std::array<int, 4> seen = quarters(image);
    const std::array<int, 4> texels{kTopLeft, kTopRight, kBottomLeft, kBottomRight};
    for (std::size_t k = 0; k < 4; ++k) {
        INFO("quarter " << k << " (top-left, top-right, bottom-left, bottom-right)");
        CHECK(std::abs(seen[k] - encoded(albedo * linearOf(texels[k]))) <= 2);
    }
}

} // namespace

TEST_CASE("a lightmap replaces the diffuse ambient light: albedo times the texel's linear value", "[lightmap][pixels]") {
    const bool tabled = GENERATE(true, false);
    INFO((tabled ? "table-driven" : "uniform") << " path");
    RenderFixture fixture;
    Scene scene;
    darken(scene);
    scene.ambient = glm::vec3(0.8f);  // replaced wherever a lightmap is read
    const float albedo = 0.5f;
    Material material = lightmapped(albedo);
    usePath(material, tabled);
    auto& node = scene.root().emplace<MeshNode>(wall(), material, "wall");
    const std::uint32_t c = kSize / 2;

    SECTION("Lambert, at uv1 (the slot's default set): the top-right texel, not the flat sky") {
        CHECK(std::abs(grey(fixture.render(scene), c, c) - encoded(albedo * linearOf(kTopRight))) <= 2);
        checkPath(fixture, tabled);
        node.material().lightmapTexture.image = nullptr;  // the same material without: the sky's 0.8
        CHECK(std::abs(grey(fixture.render(scene), c, c) - encoded(albedo * 0.8f)) <= 2);
    }
    SECTION("at uv0 when the slot says so: the top-left texel") {
        node.material().lightmapTexture.uvSet = 0;
        CHECK(std::abs(grey(fixture.render(scene), c, c) - encoded(albedo * linearOf(kTopLeft))) <= 2);
    }
    SECTION("times lightmapIntensity; NaN draws as 1, a negative intensity as 0") {
        node.material().lightmapIntensity = 1.6f;
        CHECK(std::abs(grey(fixture.render(scene), c, c) - encoded(1.6f * albedo * linearOf(kTopRight))) <= 2);
        node.material().lightmapIntensity = std::numeric_limits<float>::quiet_NaN();
        CHECK(std::abs(grey(fixture.render(scene), c, c) - encoded(albedo * linearOf(kTopRight))) <= 2);
        node.material().lightmapIntensity = -1.0f;
        CHECK(grey(fixture.render(scene), c, c) == 0);
    }
    SECTION("metallic-roughness: the diffuse part is the lightmap's, the split-sum specular stays the sky's") {
        node.material().shading = Shading::MetallicRoughness;  // metallic 0, roughness 1
        // Karis' fit at roughness 1 and n.v = 1: r = c0 + c1 = (0, 0.015, 0.468, -0.018),
        // a004 = 0.015, (A, B) = (-1.04, 1.04) * 0.015 + (0.468, -0.018) = (0.4524, -0.0024);
        // the specular ambient (F0 * A + B) * sky with F0 = 0.04.
        const float specular = (0.04f * 0.4524f - 0.0024f) * 0.8f;
        CHECK(std::abs(grey(fixture.render(scene), c, c) - encoded(albedo * linearOf(kTopRight) + specular)) <= 2);
    }
    SECTION("Unlit reads no lightmap") {
        node.material().shading = Shading::Unlit;
        CHECK(std::abs(grey(fixture.render(scene), c, c) - encoded(albedo)) <= 1);
    }
}

TEST_CASE("a lightmap's coordinates follow uv1 across the mesh and its transform picks an atlas island", "[lightmap][pixels]") {
    const bool tabled = GENERATE(true, false);
    INFO((tabled ? "table-driven" : "uniform") << " path");
    RenderFixture fixture;
    Scene scene;
    darken(scene);
    Material material = lightmapped(1.0f);
    usePath(material, tabled);
    auto& node = scene.root().emplace<MeshNode>(wall(true, true), material, "wall");
    SECTION("uv1 spans the map: each quarter of the wall shows its own texel (v down the image)") {
        checkQuarters(fixture.render(scene), 1.0f);
        checkPath(fixture, tabled);
    }
    SECTION("scale 1/2 and offset (1/2, 1/2): the whole wall reads the bottom-right island") {
        node.material().lightmapTexture.transform.scale = glm::vec2(0.5f);
        node.material().lightmapTexture.transform.offset = glm::vec2(0.5f);
        for (const int value : quarters(fixture.render(scene))) {
            CHECK(value == encoded(linearOf(kBottomRight)));
        }
    }
}

TEST_CASE("the card's convention: the vertex colour's red and green are the lightmap coordinates and no longer tint", "[lightmap][pixels]") {
    const bool tabled = GENERATE(true, false);
    INFO((tabled ? "table-driven" : "uniform") << " path");
    RenderFixture fixture;
    Scene scene;
    darken(scene);
    scene.ambient = glm::vec3(0.8f);
    // Vertex colours (u, v, 0, 1) of the quad's own coordinates, and no uv1: the wall reads the
    // map as test above did with uv1, and shows grey, not the colours' reds and greens.
    MeshData data = shapes::quad(2.0f, 2.0f);
    for (const glm::vec2& uv : data.uv0) {
        data.colors.emplace_back(uv.x, uv.y, 0.0f, 1.0f);
    }
    const auto mesh = MeshGeometry::create(std::move(data), "coloured wall");
    Material material = lightmapped(1.0f);
    material.lightmapCoordinates = LightmapCoordinates::VertexColor;
    usePath(material, tabled);
    SECTION("a MeshNode") {
        scene.root().emplace<MeshNode>(mesh, material, "wall");
        checkQuarters(fixture.render(scene), 1.0f);  // grey() checks the channels agree
        checkPath(fixture, tabled);
    }
    SECTION("an instanced batch: the instance's colour still tints") {
        auto& batch = scene.root().emplace<InstancedMeshNode>(mesh, material, 1, "walls");
        batch.addInstance(glm::mat4(1.0f), glm::vec4(1.0f, 0.5f, 0.25f, 1.0f));
        const Image image = fixture.render(scene);
        const Rgba seen = pixelAt(image, pixelX(0.5f, kSize), pixelY(0.5f, kSize));  // top-right texel
        INFO(describe(seen));
        const float texel = linearOf(kTopRight);
        CHECK(std::abs(seen[0] - encoded(texel)) <= 2);
        CHECK(std::abs(seen[1] - encoded(0.5f * texel)) <= 2);
        CHECK(std::abs(seen[2] - encoded(0.25f * texel)) <= 2);
    }
}

TEST_CASE("a texture read at uv1 on a mesh without uv1 reads (0, 0), whatever the context's current attribute value", "[lightmap][textures][pixels]") {
    const bool tabled = GENERATE(true, false);
    INFO((tabled ? "table-driven" : "uniform") << " path");
    RenderFixture fixture;
    Scene scene;
    darken(scene);
    Material material = lightmapped(1.0f);
    usePath(material, tabled);
    scene.root().emplace<MeshNode>(wall(false), material, "wall");
    // A game may leave any value in a disabled attribute's slot; GL reads it there (GL 4.5
    // core, 10.2 "Current Vertex Attribute Values"). myriad must not.
    glVertexAttrib4f(location::kUv1, 0.75f, 0.75f, 0.0f, 1.0f);
    const Image image = fixture.render(scene);
    checkPath(fixture, tabled);
    for (const int value : quarters(image)) {
        CHECK(value == encoded(linearOf(kTopLeft)));  // (0, 0): the top-left texel
    }
    glVertexAttrib4f(location::kUv1, 0.0f, 0.0f, 0.0f, 1.0f);
}

TEST_CASE("a lightmap replaces image-based ambient too, and sun, occlusion and instances behave", "[lightmap][pixels]") {
    RenderFixture fixture;
    Scene scene;
    darken(scene);
    const float albedo = 0.5f;
    const float texel = linearOf(kTopRight);
    const std::uint32_t c = kSize / 2;
    SECTION("an environment of constant radiance 0.8: its irradiance is replaced") {
        scene.environment = std::make_shared<const Environment>(32, 16, std::vector<float>(32 * 16 * 3, 0.8f));
        auto& node = scene.root().emplace<MeshNode>(wall(), lightmapped(albedo), "wall");
        CHECK(std::abs(grey(fixture.render(scene), c, c) - encoded(albedo * texel)) <= 2);
        node.material().lightmapTexture.image = nullptr;
        CHECK(std::abs(grey(fixture.render(scene), c, c) - encoded(albedo * 0.8f)) <= 2);
    }
    SECTION("the sun adds to it; occlusion scales the lightmap, not the sun") {
        // Scene::light: a white Lambert surface facing it shows its colour.
        scene.light.intensity = 1.0f;
        scene.light.direction = {0.0f, 0.0f, -1.0f};
        scene.light.color = glm::vec3(0.25f);
        auto& node = scene.root().emplace<MeshNode>(wall(), lightmapped(albedo), "wall");
        CHECK(std::abs(grey(fixture.render(scene), c, c) - encoded(albedo * (texel + 0.25f))) <= 2);
        node.material().occlusionTexture.image = std::make_shared<const Image>(Image{1, 1, {0, 0, 0, 255}});
        CHECK(std::abs(grey(fixture.render(scene), c, c) - encoded(albedo * 0.25f)) <= 2);
    }
    SECTION("every instance of a batch, whatever its culling") {
        const InstanceCulling culling = GENERATE(InstanceCulling::Off, InstanceCulling::Cpu, InstanceCulling::Gpu);
        INFO("culling " << static_cast<int>(culling));
        MeshData small = shapes::quad(0.8f, 0.8f);
        small.uv1.assign(small.positions.size(), glm::vec2(0.75f, 0.25f));
        auto& batch = scene.root().emplace<InstancedMeshNode>(MeshGeometry::create(std::move(small), "tile"),
                                                              lightmapped(albedo), 2, "tiles");
        batch.setInstanceCulling(culling);
        batch.addInstance(glm::translate(glm::mat4(1.0f), glm::vec3(-0.5f, 0.0f, 0.0f)));
        batch.addInstance(glm::translate(glm::mat4(1.0f), glm::vec3(0.5f, 0.0f, 0.0f)));
        const Image image = fixture.render(scene);
        CHECK(std::abs(grey(image, pixelX(-0.5f, kSize), c) - encoded(albedo * texel)) <= 2);
        CHECK(std::abs(grey(image, pixelX(0.5f, kSize), c) - encoded(albedo * texel)) <= 2);
    }
}

TEST_CASE("nodes in islands of one lightmap atlas are a multi-draw each in colour, one in a shadow view", "[lightmap][table]") {
    RenderFixture fixture;
    Scene scene;
    darken(scene);
    scene.light.direction = {0.0f, 0.0f, -1.0f};
    scene.light.shadow.enabled = true;  // one cascade: one depth-only view before the colour view
    scene.light.shadow.cascades = 1;
    MeshData data = shapes::quad(0.8f, 0.8f);
    data.uv1 = data.uv0;
    const auto tile = MeshGeometry::create(std::move(data), "tile");
    Material material = lightmapped(1.0f);
    material.lightmapTexture.transform.scale = glm::vec2(0.5f);
    auto& left = scene.root().emplace<MeshNode>(tile, material, "left");  // the top-left island
    left.setPosition({-0.5f, 0.0f, 0.0f});
    material.lightmapTexture.transform.offset = glm::vec2(0.5f, 0.5f);     // the bottom-right island
    auto& right = scene.root().emplace<MeshNode>(tile, material, "right");
    right.setPosition({0.5f, 0.0f, 0.0f});
    const Image image = fixture.render(scene);
    // The depth-only program reads no material textures: both nodes in its one multi-draw.
    CHECK(fixture.renderer.lastFrameStats().multiDrawCalls == 3u);
    CHECK(grey(image, pixelX(-0.5f, kSize), pixelY(0.15f, kSize)) == encoded(linearOf(kTopLeft)));
    CHECK(grey(image, pixelX(0.5f, kSize), pixelY(0.15f, kSize)) == encoded(linearOf(kBottomRight)));
}

TEST_CASE("a lightmap baked with illuminance() draws what the live lamp draws", "[lightmap][lights][pixels]") {
    // The wall fills the 64 x 64 view with uv1 over the whole map: pixel (i, j)'s centre reads
    // texel (i, j)'s centre of a 64 x 64 map, so each pixel shows its own baked texel.
    RenderFixture fixture;
    Scene scene;
    darken(scene);
    auto& spot = scene.root().emplace<LightNode>(LightType::Spot, "torch");
    spot.setPosition({0.3, -0.2, 1.2});
    spot.lookAt({0.1, 0.0, 0.0});
    spot.setIntensity(2.5f);
    spot.setRange(3.0f);
    spot.setConeAngles(0.2f, 0.45f);
    const float albedo = 0.8f;
    auto& node = scene.root().emplace<MeshNode>(wall(true, true), lambert(albedo), "wall");
    const Image live = fixture.render(scene);

    // Bake: per texel E / pi of the lamp at the texel's point of the wall (x = 2u - 1,
    // y = 1 - 2v, z = 0, facing +z), encoded by encodeLightmap(); the lamp then lights nothing.
    const std::uint32_t n = kSize;
    std::vector<glm::vec3> radiance;
    for (std::uint32_t j = 0; j < n; ++j) {
        for (std::uint32_t i = 0; i < n; ++i) {
            const double u = (i + 0.5) / n;
            const double v = (j + 0.5) / n;
            radiance.push_back(illuminance(spot, {2.0 * u - 1.0, 1.0 - 2.0 * v, 0.0}, {0.0f, 0.0f, 1.0f}) /
                               glm::pi<float>());
        }
    }
    const EncodedLightmap lightmap = encodeLightmap(n, n, radiance);
    Material baked = lambert(albedo);
    baked.lightmapTexture.image = lightmap.image;
    baked.lightmapIntensity = lightmap.intensity;
    baked.lightmapTexture.sampler = TextureSampler::nearest(TextureWrap::ClampToEdge, TextureWrap::ClampToEdge);
    node.material() = baked;
    spot.setVisible(false);
    const Image fromMap = fixture.render(scene);
    int lit = 0;
    for (std::uint32_t y = 0; y < n; y += 3) {
        for (std::uint32_t x = 0; x < n; x += 3) {
            const int a = grey(live, x, y);
            const int b = grey(fromMap, x, y);
            INFO("pixel (" << x << ", " << y << "): live " << a << ", baked " << b);
            CHECK(std::abs(a - b) <= 2);
            lit += a > 20 ? 1 : 0;
        }
    }
    CHECK(lit > 40);  // the cone lights a good part of the wall, and not all of it:
    CHECK(lit < 400);  // its edge is in the picture
}
