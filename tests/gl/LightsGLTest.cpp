// Lights (docs/lighting.md): LightNode's KHR_lights_punctual units, the clustered light list,
// light channels and glTF's metallic-roughness BRDF, against values worked out by hand.
#include "support/GlTest.h"
#include "support/LightingTest.h"

#include "myriad/core/LightNode.h"
#include "myriad/core/MeshNode.h"
#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/gl/FrameStats.h"
#include "myriad/gl/Renderer.h"
#include "myriad/util/Error.h"

#include <glm/gtc/constants.hpp>

#include <cmath>
#include <random>

using namespace myriad;
using namespace myriad::test;

namespace {

constexpr std::uint32_t kSize = RenderFixture::kSize;
constexpr float kPi = glm::pi<float>();

/** World x of the centre of pixel column @p column under orthoCamera() (row: -y). */
float centreOf(std::uint32_t column) { return -1.0f + (static_cast<float>(column) + 0.5f) * 2.0f / kSize; }

} // namespace

TEST_CASE("a point lamp lights a sphere's nearest point with the inverse-square radiance", "[lights][pixels]") {
    RenderFixture fixture;
    Scene scene;
    darken(scene);
    // A unit sphere at the origin; the lamp 2 m in front of its nearest point (0, 0, 1), on the
    // ortho camera's axis, so the centre pixel sees that point, facing the lamp (n.l = 1).
    const auto sphere = MeshGeometry::create(shapes::uvSphere(1.0f, 96, 48), "sphere");
    auto& lamp = scene.root().emplace<LightNode>(LightType::Point, "bulb");
    lamp.setPosition({0.0, 0.0, 3.0});
    lamp.setIntensity(10.0f);  // candela
    lamp.setRange(20.0f);
    // KHR_lights_punctual: E = I / d^2 * clamp(1 - (d/R)^4, 0, 1)^2 = 10 / 4 * (1 - 1e-4)^2 lux.
    const float window = std::pow(1.0f - std::pow(2.0f / 20.0f, 4.0f), 2.0f);
    const float illuminance = 10.0f / 4.0f * window;

    SECTION("Lambert: albedo / pi * E") {
        scene.root().emplace<MeshNode>(sphere, lambert(0.5f), "ball");
        const Image image = fixture.render(scene);
        const float expected = 0.5f / kPi * illuminance;  // 0.3979
        CHECK(std::abs(grey(image, kSize / 2, kSize / 2) - encoded(expected)) <= 2);
    }
    SECTION("metallic-roughness, rough dielectric: (1 - F) c / pi + F D V at normal incidence") {
        Material material = lambert(0.5f);
        material.shading = Shading::MetallicRoughness;
        material.metallic = 0.0f;
        material.roughness = 1.0f;
        scene.root().emplace<MeshNode>(sphere, material, "ball");
        const Image image = fixture.render(scene);
        // n = l = v = h: F = f0 = 0.04; alpha = 1 so D = 1 / pi; V = 1 / ((1 + 1) (1 + 1)).
        const float specular = 0.04f * (1.0f / kPi) * 0.25f;
        const float diffuse = (1.0f - 0.04f) * 0.5f / kPi;
        const float expected = (diffuse + specular) * illuminance;  // 0.3899
        CHECK(std::abs(grey(image, kSize / 2, kSize / 2) - encoded(expected)) <= 2);
    }
    SECTION("twice as far, a quarter of the light") {
        lamp.setPosition({0.0, 0.0, 5.0});  // 4 m from the nearest point
        scene.root().emplace<MeshNode>(sphere, lambert(1.0f), "ball");
        const Image image = fixture.render(scene);
        const float farWindow = std::pow(1.0f - std::pow(4.0f / 20.0f, 4.0f), 2.0f);
        CHECK(std::abs(grey(image, kSize / 2, kSize / 2) - encoded(1.0f / kPi * 10.0f / 16.0f * farWindow)) <= 2);
    }
}

TEST_CASE("a directional LightNode gives its illuminance in lux, and Scene::light keeps its old meaning", "[lights][pixels]") {
    RenderFixture fixture;
    Scene scene;
    darken(scene);
    scene.root().emplace<MeshNode>(quadMesh(2.0f), lambert(1.0f), "wall");
    SECTION("a 1 lux sun on a white Lambert wall facing it: 1 / pi") {
        auto& sun = scene.root().emplace<LightNode>(LightType::Directional, "sun");
        sun.lookAt({0.0, 0.0, -1.0});  // travels along -Z, onto the wall's face
        const Image image = fixture.render(scene);
        CHECK(std::abs(grey(image, kSize / 2, kSize / 2) - encoded(1.0f / kPi)) <= 1);
        SECTION("tilted 60 degrees: half of it") {
            sun.setRotation(glm::angleAxis(glm::radians(60.0f), glm::vec3(0.0f, 1.0f, 0.0f)));
            CHECK(std::abs(grey(fixture.render(scene), kSize / 2, kSize / 2) - encoded(0.5f / kPi)) <= 1);
        }
    }
    SECTION("Scene::light of intensity 0.5 facing the wall: albedo * 0.5, plus ambient") {
        scene.light.intensity = 0.5f;
        scene.light.direction = {0.0f, 0.0f, -1.0f};
        scene.ambient = glm::vec3(0.1f);
        CHECK(std::abs(grey(fixture.render(scene), kSize / 2, kSize / 2) - encoded(0.6f)) <= 1);
    }
}

TEST_CASE("a spot lamp's inner and outer cone edges fall on the predicted pixels", "[lights][pixels]") {
    RenderFixture fixture;
    Scene scene;
    darken(scene);
    scene.root().emplace<MeshNode>(quadMesh(2.0f), lambert(1.0f), "floor");  // z = 0, facing the lamp
    auto& spot = scene.root().emplace<LightNode>(LightType::Spot, "torch");
    constexpr float kHeight = 2.0f;
    spot.setPosition({0.0, 0.0, kHeight});
    spot.lookAt({0.0, 0.0, 0.0});
    spot.setIntensity(4.0f);
    spot.setRange(50.0f);
    const std::uint32_t row = kSize / 2;
    // Lambert under the lamp at floor point x: E = I / d^2 * cos(incidence) * window * cone^2,
    // d^2 = h^2 + x^2, cos = h / d, cone = clamp((cos - cos outer) / (cos inner - cos outer)).
    auto radiance = [&](float x, float inner, float outer) {
        const float d2 = kHeight * kHeight + x * x;
        const float cosine = kHeight / std::sqrt(d2);
        const float window = std::pow(1.0f - std::pow(d2 / (50.0f * 50.0f), 2.0f), 2.0f);
        const float cone = std::clamp((cosine - std::cos(outer)) / (std::cos(inner) - std::cos(outer)), 0.0f, 1.0f);
        return 1.0f / kPi * 4.0f / d2 * cosine * window * cone * cone;
    };
    SECTION("a hard edge at 0.75 m: the last column inside is lit in full, the first outside is dark") {
        const float outer = std::atan(0.75f / kHeight);
        const float inner = std::atan(0.74f / kHeight);
        spot.setConeAngles(inner, outer);
        const Image image = fixture.render(scene);
        // Pixel centres: column 55 at x = 0.734 (inside the inner cone), 56 at 0.766 (outside).
        REQUIRE(centreOf(55) < 0.74f);
        REQUIRE(centreOf(56) > 0.75f);
        CHECK(std::abs(grey(image, 55, row) - encoded(radiance(centreOf(55), inner, outer))) <= 2);
        CHECK(grey(image, 56, row) == 0);
        // And on the left, mirrored.
        CHECK(std::abs(grey(image, 8, row) - encoded(radiance(centreOf(8), inner, outer))) <= 2);
        CHECK(grey(image, 7, row) == 0);
    }
    SECTION("a soft edge between 0.25 m and 0.75 m follows the squared smooth step") {
        const float outer = std::atan(0.75f / kHeight);
        const float inner = std::atan(0.25f / kHeight);
        spot.setConeAngles(inner, outer);
        const Image image = fixture.render(scene);
        for (std::uint32_t column : {36u, 40u, 44u, 48u, 52u, 55u}) {  // x = 0.11 .. 0.73
            INFO("column " << column << " at x = " << centreOf(column));
            CHECK(std::abs(grey(image, column, row) - encoded(radiance(centreOf(column), inner, outer))) <= 2);
        }
        CHECK(grey(image, 58, row) == 0);  // x = 0.83: outside
    }
}

TEST_CASE("a metal sphere's highlight sits where the half vector says", "[lights][pixels]") {
    RenderFixture fixture;
    Scene scene;
    darken(scene);
    // The ortho camera looks down -Z: v = +Z everywhere. Light towards (sin 40, 0, cos 40): the
    // half vector, hence the highlight's normal, is (sin 20, 0, cos 20), seen at x = sin 20.
    auto& sun = scene.root().emplace<LightNode>(LightType::Directional, "sun");
    sun.setRotation(glm::angleAxis(glm::radians(40.0f), glm::vec3(0.0f, 1.0f, 0.0f)));
    sun.setIntensity(0.01f);  // the GGX peak of roughness 0.2 is about 56 / sr: keep it below 1
    Material metal = lambert(1.0f);
    metal.shading = Shading::MetallicRoughness;
    metal.metallic = 1.0f;
    metal.roughness = 0.2f;
    scene.root().emplace<MeshNode>(MeshGeometry::create(shapes::uvSphere(1.0f, 128, 64), "sphere"), metal, "ball");
    const Image image = fixture.render(scene);
    std::uint32_t brightestX = 0;
    std::uint32_t brightestY = 0;
    int brightest = -1;
    for (std::uint32_t y = 0; y < kSize; ++y) {
        for (std::uint32_t x = 0; x < kSize; ++x) {
            if (pixelAt(image, x, y)[1] > brightest) {
                brightest = pixelAt(image, x, y)[1];
                brightestX = x;
                brightestY = y;
            }
        }
    }
    INFO("brightest " << brightest << " at (" << brightestX << ", " << brightestY << ")");
    CHECK(brightest < 255);  // not clipped: the peak is where it is, not a plateau
    // x = sin 20 = 0.342 lies between the centres of columns 42 (0.328) and 43 (0.359).
    CHECK(brightestX >= 42);
    CHECK(brightestX <= 43);
    CHECK((brightestY == kSize / 2 - 1 || brightestY == kSize / 2));
    // Lambert would peak where n = l, at x = sin 40 = 0.643 (column 52): not there.
    CHECK(pixelAt(image, 52, kSize / 2)[1] < brightest / 2);
}

TEST_CASE("light channels leave exactly the masked nodes unlit", "[lights][pixels]") {
    RenderFixture fixture;
    Scene scene;
    darken(scene);
    scene.ambient = glm::vec3(0.05f);
    auto& left = scene.root().emplace<MeshNode>(quadMesh(1.0f), lambert(1.0f), "left");
    left.setPosition({-0.5, 0.0, 0.0});
    auto& right = scene.root().emplace<MeshNode>(quadMesh(1.0f), lambert(1.0f), "right");
    right.setPosition({0.5, 0.0, 0.0});
    auto& sun = scene.root().emplace<LightNode>(LightType::Directional, "sun");
    sun.lookAt({0.0, 0.0, -1.0});
    sun.setIntensity(1.0f);
    auto& lamp = scene.root().emplace<LightNode>(LightType::Point, "lamp");
    lamp.setPosition({0.0, 0.0, 1.0});
    lamp.setRange(10.0f);
    const std::uint32_t row = kSize / 2;
    const std::uint32_t leftX = pixelX(-0.5f, kSize);
    const std::uint32_t rightX = pixelX(0.5f, kSize);
    const float ambientOnly = 0.05f;
    const float sunOnly = ambientOnly + 1.0f / kPi;

    SECTION("by default every light reaches every node") {
        const Image image = fixture.render(scene);
        CHECK(grey(image, leftX, row) > encoded(sunOnly) + 5);
        CHECK(grey(image, rightX, row) > encoded(sunOnly) + 5);
    }
    SECTION("the sun and lamp on channel 1, only the left node accepting it") {
        sun.setChannels(0b10);
        lamp.setChannels(0b10);
        left.setLightChannels(0b11);
        const Image image = fixture.render(scene);
        CHECK(grey(image, leftX, row) > encoded(sunOnly) + 5);
        CHECK(std::abs(grey(image, rightX, row) - encoded(ambientOnly)) <= 1);  // ambient stays
    }
    SECTION("the same through uniforms: blended nodes leave the table path") {
        for (MeshNode* node : {&left, &right}) {
            Material see = lambert(1.0f);
            see.alphaMode = AlphaMode::Blend;
            node->primitiveMaterial(0) = see;
        }
        sun.setChannels(0b10);
        lamp.setChannels(0b10);
        left.setLightChannels(0b11);
        const Image image = fixture.render(scene);
        CHECK(grey(image, leftX, row) > encoded(sunOnly) + 5);
        CHECK(std::abs(grey(image, rightX, row) - encoded(ambientOnly)) <= 1);
    }
    SECTION("a node accepting no channel gets ambient and emission only, Scene::light included") {
        scene.light.intensity = 1.0f;
        scene.light.direction = {0.0f, 0.0f, -1.0f};
        right.setLightChannels(0);
        Material glowing = lambert(1.0f);
        glowing.emissive = glm::vec3(0.1f);
        glowing.emissiveStrength = 2.0f;
        right.primitiveMaterial(0) = glowing;
        const Image image = fixture.render(scene);
        CHECK(std::abs(grey(image, rightX, row) - encoded(ambientOnly + 0.2f)) <= 1);
        SECTION("Scene::light's own channels") {
            scene.light.channels = 0b100;
            scene.light.intensity = 0.5f;
            right.setLightChannels(0b100);  // Scene::light alone: ambient + emission + albedo * 0.5
            CHECK(std::abs(grey(fixture.render(scene), rightX, row) - encoded(ambientOnly + 0.2f + 0.5f)) <= 1);
        }
    }
}

TEST_CASE("the clustered light list draws what testing every lamp per fragment draws", "[lights][pixels]") {
    context();
    // 96 small lamps scattered over a floor seen in perspective, some far off screen.
    auto build = [](Scene& scene) {
        darken(scene);
        auto& floor = scene.root().emplace<MeshNode>(MeshGeometry::create(shapes::plane(40.0f, 40.0f, 8, 8), "floor"),
                                                     lambert(0.8f), "floor");
        (void)floor;
        std::mt19937 random(7);
        std::uniform_real_distribution<float> across(-25.0f, 25.0f);
        std::uniform_real_distribution<float> up(0.2f, 2.0f);
        for (int i = 0; i < 96; ++i) {
            auto& lamp = scene.root().emplace<LightNode>(i % 3 == 0 ? LightType::Spot : LightType::Point);
            lamp.setPosition({across(random), up(random), across(random)});
            lamp.lookAt(lamp.worldPosition() + glm::dvec3(0.3, -1.0, 0.2));
            lamp.setColor({0.2f + 0.8f * static_cast<float>(i % 2), 0.5f, 1.0f - 0.5f * static_cast<float>(i % 4 == 0)});
            lamp.setIntensity(3.0f);
            lamp.setRange(1.5f + static_cast<float>(i % 5));
        }
    };
    Scene scene;
    build(scene);
    Camera camera;
    camera.setPerspective(glm::radians(60.0f), 2.0f, 0.3f, 100.0f);
    camera.lookAt(glm::dvec3(0.0, 6.0, 16.0), glm::dvec3(0.0, 0.0, 0.0));
    gl::OffscreenTarget clusteredTarget(128, 64, "clustered");
    gl::OffscreenTarget everyTarget(128, 64, "every-lamp");
    gl::Renderer clustered;
    gl::RendererDesc reference;
    reference.lightClusters = {1, 1, 1};
    gl::Renderer every(reference);
    clustered.render(scene, camera, clusteredTarget);
    const std::uint32_t listed = clustered.lastFrameStats().lampsListed;
    every.render(scene, camera, everyTarget);
    const Image a = clusteredTarget.readPixels();
    const Image b = everyTarget.readPixels();
    CHECK(listed > 10);
    CHECK(listed < 96);  // the ones behind the camera or beside the view are left out
    int lit = 0;
    for (std::uint32_t y = 0; y < 64; ++y) {
        for (std::uint32_t x = 0; x < 128; ++x) {
            lit += pixelAt(a, x, y)[2] > 0 ? 1 : 0;
        }
    }
    CHECK(lit > 500);  // the lamps light a good part of the floor
    CHECK(sameImage(a, b));
    SECTION("and an orthographic view, whose depths run through the eye's plane") {
        Camera ortho;
        ortho.setOrthographic(-20.0f, 20.0f, -10.0f, 10.0f, -30.0f, 30.0f);
        ortho.lookAt(glm::dvec3(0.0, 10.0, 0.5), glm::dvec3(0.0, 0.0, 0.0));
        clustered.render(scene, ortho, clusteredTarget);
        every.render(scene, ortho, everyTarget);
        CHECK(sameImage(clusteredTarget.readPixels(), everyTarget.readPixels()));
    }
}

TEST_CASE("hidden and dark lights light nothing and are not listed", "[lights][pixels]") {
    RenderFixture fixture;
    Scene scene;
    darken(scene);
    scene.root().emplace<MeshNode>(quadMesh(2.0f), lambert(1.0f), "wall");
    auto& group = scene.root().emplace<SceneNode>("lamps");
    auto& lamp = group.emplace<LightNode>(LightType::Point, "lamp");
    lamp.setPosition({0.0, 0.0, 1.0});
    CHECK(grey(fixture.render(scene), kSize / 2, kSize / 2) > 50);
    CHECK(fixture.renderer.lastFrameStats().lampsListed == 1);
    group.setVisible(false);
    CHECK(grey(fixture.render(scene), kSize / 2, kSize / 2) == 0);
    CHECK(fixture.renderer.lastFrameStats().lampsListed == 0);
    group.setVisible(true);
    lamp.setIntensity(0.0f);
    CHECK(grey(fixture.render(scene), kSize / 2, kSize / 2) == 0);
    CHECK(fixture.renderer.lastFrameStats().lampsListed == 0);
    lamp.setIntensity(1.0f);
    group.remove(lamp);
    CHECK(scene.lights().empty());
    CHECK(grey(fixture.render(scene), kSize / 2, kSize / 2) == 0);
}

TEST_CASE("LightNode and RendererDesc refuse what KHR_lights_punctual forbids and keep their values", "[lights]") {
    LightNode spot(LightType::Spot, "spot");
    spot.setConeAngles(0.1f, 0.5f);
    CHECK_THROWS_AS(spot.setConeAngles(0.5f, 0.5f), InvalidArgument);
    CHECK_THROWS_AS(spot.setConeAngles(-0.1f, 0.5f), InvalidArgument);
    CHECK_THROWS_AS(spot.setConeAngles(0.1f, 2.0f), InvalidArgument);
    CHECK(spot.innerConeAngle() == 0.1f);
    CHECK(spot.outerConeAngle() == 0.5f);
    CHECK_THROWS_AS(spot.setIntensity(-1.0f), InvalidArgument);
    CHECK_THROWS_AS(spot.setIntensity(NAN), InvalidArgument);
    CHECK_THROWS_AS(spot.setRange(-2.0f), InvalidArgument);
    CHECK_THROWS_AS(spot.setColor({1.0f, -0.5f, 0.0f}), InvalidArgument);
    CHECK_THROWS_AS(spot.setColor({NAN, 0.5f, 0.0f}), InvalidArgument);
    CHECK_THROWS_AS(spot.setRange(INFINITY), InvalidArgument);
    CHECK(spot.intensity() == 1.0f);
    CHECK(spot.range() == 0.0f);
    CHECK(spot.color() == glm::vec3(1.0f));
    // Infinite range: where 100 cd falls to 0.01 lux, sqrt(100 / 0.01) = 100 m.
    spot.setIntensity(100.0f);
    CHECK(spot.effectiveRange(0.01f) == Approx(100.0f));
    spot.setRange(5.0f);
    CHECK(spot.effectiveRange(0.01f) == 5.0f);
    context();
    gl::RendererDesc desc;
    desc.lightClusters = {0, 9, 24};
    CHECK_THROWS_AS(gl::Renderer(desc), InvalidArgument);
    desc.lightClusters = {128, 128, 2};  // each in range, 32768 clusters in all
    CHECK_THROWS_AS(gl::Renderer(desc), InvalidArgument);
    desc.lightClusters = {16, 9, 24};
    desc.lightCutoffIlluminance = 0.0f;
    CHECK_THROWS_AS(gl::Renderer(desc), InvalidArgument);
}

TEST_CASE("a lamp at the eye lights a metallic-roughness wall head-on, without NaN", "[lights][pixels]") {
    RenderFixture fixture;
    Scene scene;
    darken(scene);
    // The ortho camera sits at (0, 0, 10) looking down -Z; the lamp is there too (a head lamp),
    // so l = v = h = n at the wall's centre and v.h rounds to about 1, where (1 - v.h)^5 must
    // not take a negative base.
    Material material = lambert(0.5f);
    material.shading = Shading::MetallicRoughness;
    material.metallic = 0.5f;
    material.roughness = 0.5f;
    scene.root().emplace<MeshNode>(quadMesh(2.0f), material, "wall");
    auto& lamp = scene.root().emplace<LightNode>(LightType::Point, "head lamp");
    lamp.setPosition({0.0, 0.0, 10.0});
    lamp.setIntensity(100.0f);
    lamp.setRange(1000.0f);
    // f0 = mix(0.04, 0.5, 0.5) = 0.27, c_diff = 0.25, alpha = 0.25: D = 1 / (pi alpha^2),
    // V = 1 / 4; E = 100 / 10^2 lux.
    const float f0 = 0.27f;
    const float brdf = (1.0f - f0) * 0.25f / kPi + f0 / (kPi * 0.0625f) * 0.25f;
    const float window = std::pow(1.0f - std::pow(10.0f / 1000.0f, 4.0f), 2.0f);
    CHECK(std::abs(grey(fixture.render(scene), kSize / 2, kSize / 2) - encoded(brdf * 1.0f * window)) <= 2);
}
