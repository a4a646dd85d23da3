// Lighting and fragment functions (SurfaceShader's lighting() and fragment(), docs/shaders.md
// "Lighting and fragment functions") on screen, against values worked out by hand: a toon
// lighting function's two bands either side of a sphere's terminator on every draw path, a
// lamp's radiance as KHR_lights_punctual's inverse-square law gives it, a fragment function
// showing the clustered light list's lamp count and redrawing myriad's own lighting exactly,
// errors naming the user's file and line, and what Unlit materials and particles do with them.
#include "support/GlTest.h"
#include "support/LightingTest.h"

#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/LightNode.h"
#include "myriad/core/MeshNode.h"
#include "myriad/core/Particles.h"
#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/core/SurfaceShader.h"
#include "myriad/gl/FrameStats.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/Renderer.h"
#include "myriad/util/Error.h"

#include <glm/gtc/constants.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>
#include <string>

using namespace myriad;
using namespace myriad::test;

namespace {

constexpr std::uint32_t kSize = RenderFixture::kSize;

/** A grey material of albedo @p albedo, lit (Lambert) unless told. */
Material grey(float albedo, Shading shading = Shading::Lit) {
    Material material;
    material.baseColor = glm::vec4(albedo, albedo, albedo, 1.0f);
    material.shading = shading;
    return material;
}

/** Channel @p c of the pixel at world (x, y). */
int channelAt(const Image& image, float x, float y, int c = 1) {
    return pixelAt(image, pixelX(x, kSize), pixelY(y, kSize))[static_cast<std::size_t>(c)];
}

// Two bands: a light the surface faces gives base colour * E / pi, one behind it a quarter of
// that (a lighting function sees lights from behind too).
constexpr const char* kToon = R"(
vec3 lighting(ShadedSurface s, LightSample l) {
    float band = dot(s.normal, l.direction) > 0.0 ? 1.0 : 0.25;
    return s.baseColor * l.radiance * (band / 3.14159265);
}
)";

} // namespace

TEST_CASE("a toon lighting function draws two bands either side of a sphere's terminator, on every path",
          "[shading-stages][pixels]") {
    RenderFixture f;
    Scene scene;
    darken(scene);
    // Scene::light from +x (travelling along -x) at intensity 0.5: E = pi * 0.5 on a surface
    // facing it, so the lit band is 0.8 * 0.5 = 0.4 and the far band 0.1, whatever n.l is; the
    // terminator is the sphere's x = 0 meridian. myriad's Lambert would give 0.4 * n.x.
    scene.light.direction = {-1.0f, 0.0f, 0.0f};
    scene.light.intensity = 0.5f;
    const auto sphere = MeshGeometry::create(shapes::uvSphere(0.9f, 96, 48), "sphere");
    const auto toon = SurfaceShader::lightingFromSource("toon.glsl", kToon);
    const std::string path = GENERATE("table", "uniforms", "metallic-roughness", "instanced-off", "instanced-cpu",
                                      "instanced-gpu");
    INFO(path);
    Material material = grey(0.8f, path == "metallic-roughness" ? Shading::MetallicRoughness : Shading::Lit);
    material.surface = toon;
    if (path == "uniforms") {
        material.alphaMode = AlphaMode::Blend;  // blended draws leave the table: uniforms
    }
    if (path.rfind("instanced", 0) == 0) {
        auto& batch = scene.root().emplace<InstancedMeshNode>(sphere, material, 1, "batch");
        batch.setInstanceCulling(path == "instanced-off"   ? InstanceCulling::Off
                                 : path == "instanced-cpu" ? InstanceCulling::Cpu
                                                           : InstanceCulling::Gpu);
        batch.addInstance(at(0.0f, 0.0f));
    } else {
        scene.root().emplace<MeshNode>(sphere, material, "ball");
    }
    const Image image = f.render(scene);
    for (const float x : {0.1f, 0.5f, 0.8f}) {
        INFO("x " << x);
        CHECK(std::abs(channelAt(image, x, 0.0f) - encoded(0.4f)) <= 1);
        CHECK(std::abs(channelAt(image, -x, 0.0f) - encoded(0.1f)) <= 1);
    }
    CHECK(channelAt(image, 0.95f, 0.0f) == 0);  // beside the sphere
    if (path == "table") {
        CHECK(f.renderer.lastFrameStats().multiDrawCalls > 0);
    }
}

TEST_CASE("a lighting function receives a lamp's radiance as KHR_lights_punctual's inverse square gives it",
          "[shading-stages][pixels]") {
    RenderFixture f;
    Scene scene;
    darken(scene);
    // A wall at z = 0 facing the ortho camera, a point lamp 2 m in front of its centre: the
    // centre pixel sees E = I / d^2 * clamp(1 - (d/R)^4, 0, 1)^2 = 0.1 / 4 * (1 - 1e-4)^2 lux.
    // The function writes 20 E (red), 2 * attenuation (green: 1 / d^2 * window, no colour) and
    // 1 for a point lamp (blue).
    Material material = grey(1.0f);
    material.surface = SurfaceShader::lightingFromSource("probe.glsl", R"(
vec3 lighting(ShadedSurface s, LightSample l) {
    if (l.kind != MYRIAD_LIGHT_POINT) {
        return vec3(0.0);  // Scene::light (intensity 0 here, but always called)
    }
    return vec3(20.0 * l.radiance.r, 2.0 * l.attenuation, 1.0);
}
)");
    scene.root().emplace<MeshNode>(quadMesh(2.0f), material, "wall");
    auto& lamp = scene.root().emplace<LightNode>(LightType::Point, "bulb");
    lamp.setPosition({0.0, 0.0, 2.0});
    lamp.setColor({0.5f, 1.0f, 1.0f});
    lamp.setIntensity(0.2f);  // red: 0.5 * 0.2 = 0.1 candela
    lamp.setRange(20.0f);
    const float window = std::pow(1.0f - std::pow(2.0f / 20.0f, 4.0f), 2.0f);
    const Image image = f.render(scene);
    const Rgba centre = pixelAt(image, kSize / 2, kSize / 2);
    INFO(describe(centre));
    CHECK(std::abs(centre[0] - encoded(20.0f * 0.1f / 4.0f * window)) <= 1);  // 0.49995
    CHECK(std::abs(centre[1] - encoded(2.0f * window / 4.0f)) <= 1);
    CHECK(centre[2] == 255);
}

TEST_CASE("a lighting function's ambient function replaces myriad's ambient", "[shading-stages][pixels]") {
    RenderFixture f;
    Scene scene;
    darken(scene);
    scene.ambient = glm::vec3(0.2f);
    Material material = grey(0.5f);
    material.emissive = glm::vec3(0.05f);  // still added after the lights
    material.surface = SurfaceShader::lightingFromSource("ambient.glsl", R"(
#define MYRIAD_AMBIENT_FUNCTION 1
vec3 ambient(ShadedSurface s) { return 2.0 * s.ambient; }  // twice myriad's (albedo * sky)
vec3 lighting(ShadedSurface s, LightSample l) { return vec3(0.0); }
)");
    scene.root().emplace<MeshNode>(quadMesh(2.0f), material, "wall");
    CHECK(std::abs(channelAt(f.render(scene), 0.0f, 0.0f) - encoded(2.0f * 0.5f * 0.2f + 0.05f)) <= 1);
}

TEST_CASE("a fragment function sees the surface's shading inputs", "[shading-stages][pixels]") {
    RenderFixture f;
    Scene scene;
    darken(scene);
    Material material = grey(1.0f, Shading::MetallicRoughness);
    material.metallic = 0.25f;
    material.roughness = 0.5f;
    material.emissive = glm::vec3(0.1f);
    material.surface = SurfaceShader::fragmentFromSource("fields.glsl", R"(
vec4 fragment(ShadedSurface s) {
    return vec4(s.metallic, s.roughness, s.occlusion - s.emission.b - 0.5, 1.0);
}
)");
    scene.root().emplace<MeshNode>(quadMesh(2.0f), material, "wall");
    const Rgba c = pixelAt(f.render(scene), kSize / 2, kSize / 2);
    INFO(describe(c));
    CHECK(std::abs(c[0] - encoded(0.25f)) <= 1);
    CHECK(std::abs(c[1] - encoded(0.5f)) <= 1);
    CHECK(std::abs(c[2] - encoded(0.4f)) <= 1);
}

TEST_CASE("a fragment function counts the lights of its cluster", "[shading-stages][pixels]") {
    context();
    // Two small lamps over a wall, far apart: with the clustered list a fragment beside one
    // lists that one only (Scene::light is light 0, always listed); with a 1 x 1 x 1 grid every
    // fragment lists both. The function shows (count - 1) / 4 in green.
    Scene scene;
    darken(scene);
    Material material = grey(1.0f);
    material.surface = SurfaceShader::fragmentFromSource("count.glsl", R"(
vec4 fragment(ShadedSurface s) {
    return vec4(0.0, float(myriad_lightCount(s) - 1) / 4.0, 0.0, 1.0);
}
)");
    scene.root().emplace<MeshNode>(quadMesh(2.0f), material, "wall");
    for (const double x : {-0.75, 0.75}) {
        auto& lamp = scene.root().emplace<LightNode>(LightType::Point);
        lamp.setPosition({x, 0.0, 0.05});
        lamp.setRange(0.15f);
    }
    gl::OffscreenTarget target(kSize, kSize, "count");
    const Camera camera = orthoCamera();
    gl::Renderer clustered;
    clustered.render(scene, camera, target);
    const Image a = target.readPixels();
    CHECK(std::abs(channelAt(a, -0.75f, 0.0f) - encoded(0.25f)) <= 1);
    CHECK(std::abs(channelAt(a, 0.75f, 0.0f) - encoded(0.25f)) <= 1);
    CHECK(channelAt(a, 0.0f, 0.0f) == 0);
    CHECK(channelAt(a, -0.75f, 0.8f) == 0);
    gl::RendererDesc one;
    one.lightClusters = {1, 1, 1};
    gl::Renderer every(one);
    every.render(scene, camera, target);
    const Image b = target.readPixels();
    CHECK(std::abs(channelAt(b, 0.0f, 0.0f) - encoded(0.5f)) <= 1);
    CHECK(std::abs(channelAt(b, -0.75f, 0.8f) - encoded(0.5f)) <= 1);
}

TEST_CASE("a fragment function calling myriad's helpers draws what myriad's lighting draws", "[shading-stages][pixels]") {
    context();
    // 48 lamps of every kind over a metallic-roughness floor in perspective, a sun with
    // channels and ambient: the fragment function sums myriad_shadeLight() over the listed
    // lights plus ambient and emission, which is what main() does.
    auto build = [](Scene& scene, const std::shared_ptr<const SurfaceShader>& shader) {
        scene.ambient = glm::vec3(0.05f);
        scene.light.intensity = 0.3f;
        Material material = grey(0.7f, Shading::MetallicRoughness);
        material.metallic = 0.3f;
        material.roughness = 0.6f;
        material.emissive = glm::vec3(0.02f, 0.0f, 0.0f);
        material.surface = shader;
        scene.root().emplace<MeshNode>(MeshGeometry::create(shapes::plane(40.0f, 40.0f, 8, 8), "floor"), material, "floor");
        std::mt19937 random(11);
        std::uniform_real_distribution<float> across(-20.0f, 20.0f);
        std::uniform_real_distribution<float> up(0.2f, 2.0f);
        for (int i = 0; i < 48; ++i) {
            auto& lamp = scene.root().emplace<LightNode>(i % 3 == 0 ? LightType::Spot : LightType::Point);
            lamp.setPosition({across(random), up(random), across(random)});
            lamp.lookAt(lamp.worldPosition() + glm::dvec3(0.3, -1.0, 0.2));
            lamp.setColor({0.2f + 0.8f * static_cast<float>(i % 2), 0.5f, 1.0f});
            lamp.setIntensity(3.0f);
            lamp.setRange(1.5f + static_cast<float>(i % 5));
        }
        auto& sun = scene.root().emplace<LightNode>(LightType::Directional, "sun");
        sun.lookAt({0.2, -1.0, -0.3});
        sun.setIntensity(0.5f);
    };
    Scene builtIn;
    build(builtIn, nullptr);
    Scene user;
    build(user, SurfaceShader::fragmentFromSource("again.glsl", R"(
vec4 fragment(ShadedSurface s) {
    vec3 c = s.ambient;
    for (int i = 0; i < myriad_lightCount(s); ++i) {
        c += myriad_shadeLight(s, myriad_light(s, i));
    }
    return vec4(c + s.emission, s.alpha);
}
)"));
    Camera camera;
    camera.setPerspective(glm::radians(60.0f), 2.0f, 0.3f, 100.0f);
    camera.lookAt(glm::dvec3(0.0, 6.0, 16.0), glm::dvec3(0.0, 0.0, 0.0));
    gl::OffscreenTarget target(128, 64, "again");
    gl::Renderer renderer;
    renderer.render(builtIn, camera, target);
    const Image a = target.readPixels();
    renderer.render(user, camera, target);
    const Image b = target.readPixels();
    int lit = 0;
    int worst = 0;
    for (std::uint32_t y = 0; y < 64; ++y) {
        for (std::uint32_t x = 0; x < 128; ++x) {
            lit += pixelAt(a, x, y)[2] > 40 ? 1 : 0;
            for (std::size_t c = 0; c < 3; ++c) {
                worst = std::max(worst, std::abs(pixelAt(a, x, y)[c] - pixelAt(b, x, y)[c]));
            }
        }
    }
    CHECK(lit > 300);
    CHECK(worst <= 1);  // the same sums, perhaps in another order
}

TEST_CASE("lighting and fragment functions that do not compile name their file and line", "[shading-stages][errors]") {
    RenderFixture f;
    auto fails = [&](const std::shared_ptr<const SurfaceShader>& shader, const std::string& where) {
        Scene scene;
        Material material = grey(1.0f);
        material.surface = shader;
        scene.root().emplace<MeshNode>(quadMesh(), material, "broken");
        try {
            f.renderer.render(scene, f.camera, f.target);
            FAIL("compiled");
        } catch (const ShaderError& error) {
            const std::string message = error.what();
            INFO(message);
            CHECK(message.find(where) != std::string::npos);
            // No error is put on surface.frag (a warning about its own code may be).
            std::istringstream lines(message);
            for (std::string line; std::getline(lines, line);) {
                CHECK_FALSE((line.rfind("surface.frag:", 0) == 0 && line.find("error") != std::string::npos));
            }
        }
    };
    // An error in line 3 of a lighting file names that file and line 3.
    fails(SurfaceShader::lightingFromSource("toon.glsl", "// toon\n"
                                                         "vec3 lighting(ShadedSurface s, LightSample l) {\n"
                                                         "    return s.baseColor * undefinedBand;\n"
                                                         "}\n"),
          "toon.glsl:3");
    fails(SurfaceShader::fragmentFromSource("debug.glsl", "vec4 fragment(ShadedSurface s) {\n"
                                                          "    return vec4(s.nope, 1.0);\n"
                                                          "}\n"),
          "debug.glsl:2");
    // An error on the text's last line, found with the token after it: still the user's line.
    fails(SurfaceShader::lightingFromSource("tail.glsl", "vec3 lighting(ShadedSurface s, LightSample l) {\n"
                                                         "    return l.radiance;\n"
                                                         "}\n"
                                                         "float oops() { return l.kind; }\n"),
          "tail.glsl:4");
    // A surface and a lighting function in one stage: each error names its own text.
    SurfaceShaderDesc desc;
    desc.name = "look.glsl";
    desc.surfaceSource = "SurfaceOutput surface(SurfaceInput s) { return SurfaceOutput(vec3(1.0), 1.0); }\n";
    desc.lightingName = "band.glsl";
    desc.lightingSource = "// a comment\n// another\nvec3 lighting(ShadedSurface s, LightSample l) { return nope; }\n";
    fails(SurfaceShader::create(desc), "band.glsl:3");
    desc.surfaceSource = "SurfaceOutput surface(SurfaceInput s) {\n    return wrong;\n}\n";
    desc.lightingSource = "vec3 lighting(ShadedSurface s, LightSample l) { return l.radiance; }\n";
    fails(SurfaceShader::create(desc), "look.glsl:2");
    // A missing lighting() is an error too (no line of the user's to name).
    Scene missing;
    Material material = grey(1.0f);
    material.surface = SurfaceShader::lightingFromSource("none.glsl", "float unrelated() { return 1.0; }\n");
    missing.root().emplace<MeshNode>(quadMesh(), material, "none");
    CHECK_THROWS_AS(f.render(missing), ShaderError);
}

TEST_CASE("SurfaceShader refuses empty and doubled stages, Unlit ignores them and particles refuse them", "[shading-stages][errors]") {
    CHECK_THROWS_AS(SurfaceShader::lightingFromSource("empty", ""), InvalidArgument);
    CHECK_THROWS_AS(SurfaceShader::fragmentFromSource("empty", ""), InvalidArgument);
    CHECK_THROWS_AS(SurfaceShader::lightingFromFile("/no/such/file.glsl"), InvalidArgument);
    SurfaceShaderDesc both;
    both.name = "both";
    both.lightingSource = "vec3 lighting(ShadedSurface s, LightSample l) { return vec3(0.0); }\n";
    both.fragmentSource = "vec4 fragment(ShadedSurface s) { return vec4(1.0); }\n";
    CHECK_THROWS_AS(SurfaceShader::create(both), InvalidArgument);
    const auto red = SurfaceShader::lightingFromSource("red.glsl", "vec3 lighting(ShadedSurface s, LightSample l) { return vec3(1.0, 0.0, 0.0); }\n");
    CHECK(red->hasLighting());
    CHECK_FALSE(red->hasFragment());
    CHECK(red->lightingName() == "red.glsl");

    RenderFixture f;
    {
        Scene scene;
        ParticleMaterial material = ParticleMaterial::billboard();
        material.surface = red;
        Particle particle;
        particle.size = 0.5f;
        scene.root().emplace<ParticlePool>(4, material, "pool").spawn(particle);
        CHECK_THROWS_AS(f.render(scene), InvalidArgument);
    }
    // An Unlit material draws its base colour: the lighting function is not called. A Lit one
    // beside it with the same shader is red; the two are two programs.
    Scene scene;
    darken(scene);
    Material white = grey(1.0f, Shading::Unlit);
    white.surface = red;
    scene.root().emplace<MeshNode>(quadMesh(0.8f), white, "unlit").setPosition({-0.5, 0.0, 0.0});
    Material lit = grey(1.0f);
    lit.surface = red;
    scene.root().emplace<MeshNode>(quadMesh(0.8f), lit, "lit").setPosition({0.5, 0.0, 0.0});
    const Image image = f.render(scene);
    CHECK(near(pixelAt(image, pixelX(-0.5f, kSize), pixelY(0.0f, kSize)), kWhite));
    CHECK(near(pixelAt(image, pixelX(0.5f, kSize), pixelY(0.0f, kSize)), kRed));
    CHECK(f.renderer.lastFrameStats().programsUsed == 2);
}

TEST_CASE("per-instance light channels leave exactly the masked instance unlit, and follow it on swap-remove",
          "[lights][light-channels][pixels]") {
    const InstanceCulling culling = GENERATE(InstanceCulling::Off, InstanceCulling::Cpu, InstanceCulling::Gpu);
    INFO("culling " << static_cast<int>(culling));
    RenderFixture f;
    Scene scene;
    darken(scene);
    scene.ambient = glm::vec3(0.05f);
    // One lamp on channel 2, in front of the row; three white Lambert quads of one batch: X (to
    // be released), B accepting every channel, A accepting channel 1 only.
    auto& lamp = scene.root().emplace<LightNode>(LightType::Point, "lamp");
    lamp.setPosition({0.0, 0.0, 1.0});
    lamp.setRange(10.0f);
    lamp.setChannels(1u << 2u);
    auto& batch = scene.root().emplace<InstancedMeshNode>(quadMesh(0.5f), grey(1.0f), 3, "row");
    batch.setInstanceCulling(culling);
    batch.setLightChannels(0xFFFFFFFFu);  // the node accepts every channel (default: channel 0)
    const InstanceHandle x = batch.acquire(InstanceDesc{at(0.0f, 0.6f)});
    const InstanceHandle b = batch.acquire(InstanceDesc{at(0.5f, 0.0f)});
    const InstanceHandle a = batch.acquire(InstanceDesc{at(-0.5f, 0.0f)});
    CHECK_FALSE(batch.hasInstanceLightChannels());
    CHECK(batch.instanceLightChannels(0) == 0xFFFFFFFFu);
    batch.setInstanceLightChannels(a, 1u << 1u);
    CHECK(batch.hasInstanceLightChannels());
    CHECK(batch.instanceLightChannels(batch.indexOf(a)) == (1u << 1u));
    CHECK(batch.instanceLightChannels(batch.indexOf(b)) == 0xFFFFFFFFu);
    // Lit: ambient + 1 / pi * E * cos at (0.5, 0): d^2 = 1.25, cos = 1 / sqrt(1.25), about 0.28.
    const float litValue = 0.05f + 1.0f / glm::pi<float>() * (1.0f / 1.25f) / std::sqrt(1.25f);
    auto check = [&](const Image& image) {
        CHECK(std::abs(channelAt(image, 0.5f, 0.0f) - encoded(litValue)) <= 2);
        CHECK(channelAt(image, -0.5f, 0.0f) == encoded(0.05f));  // ambient only, exactly
        CHECK(channelAt(image, -0.3f, 0.2f) == encoded(0.05f));  // the whole quad
    };
    check(f.render(scene));
    CHECK(channelAt(f.render(scene), 0.0f, 0.6f) > encoded(0.05f) + 5);  // X is lit
    // Release X: A, the last, moves into index 0 with its mask.
    batch.release(x);
    CHECK(batch.indexOf(a) == 0);
    CHECK(batch.instanceLightChannels(0) == (1u << 1u));
    const Image after = f.render(scene);
    check(after);
    CHECK(channelAt(after, 0.0f, 0.6f) == 0);  // X is gone
    // The node's mask meets the instance's: B accepting all but the node channel 1 only: dark.
    batch.setLightChannels(1u << 1u);
    CHECK(channelAt(f.render(scene), 0.5f, 0.0f) == encoded(0.05f));
}
