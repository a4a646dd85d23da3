// Fog (Scene::fog, docs/lighting.md "Fog") on screen, issue 20: each mode's factor on an unlit
// and a lit quad, height fog at two eye heights, the four ways surfaces blend (opaque, "over",
// premultiplied and additive particles) over a fogged background, scatter and GPU particle
// systems, and bad settings refused before anything is drawn. Then blended materials that
// write depth (Material::blendWritesDepth, docs/shaders.md). Every expected value is worked
// out here from the documented formulas, in linear light read back from a float target.
#include "support/GlTest.h"

#include <glad/gl.h>

#include "myriad/core/GpuParticles.h"
#include "myriad/core/InstanceRecord.h"
#include "myriad/core/Particles.h"
#include "myriad/core/Scatter.h"
#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/Renderer.h"
#include "myriad/util/Error.h"

#include <glm/common.hpp>
#include <glm/geometric.hpp>

#include <array>
#include <cmath>
#include <span>
#include <string>

using namespace myriad;
using namespace myriad::test;

namespace {

constexpr std::uint32_t kSize = 64;
constexpr float kTolerance = 2.0f / 255.0f;

/** A 64 x 64 RGBA16F target: linear light stored as is, read back as floats. */
struct FloatTarget {
    gl::OffscreenTarget target{kSize, kSize, "fog-target", gl::TargetFormat::Rgba16Float};

    /** Linear RGBA of pixel (x, y), y counted from the top row as readPixels() does. */
    [[nodiscard]] glm::vec4 at(std::uint32_t x, std::uint32_t y) const {
        std::array<float, 4> texel{};
        glBindFramebuffer(GL_READ_FRAMEBUFFER, target.framebufferId());
        glReadPixels(static_cast<GLint>(x), static_cast<GLint>(kSize - 1 - y), 1, 1, GL_RGBA, GL_FLOAT, texel.data());
        glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
        return {texel[0], texel[1], texel[2], texel[3]};
    }
};

/** World x, y of the centre of pixel (px, py) under a camera showing [-1, 1]^2 about
 *  (0, @p centreY). */
glm::vec2 pixelCentre(std::uint32_t px, std::uint32_t py, float centreY = 0.0f) {
    return {(static_cast<float>(px) + 0.5f) / 32.0f - 1.0f, centreY + 1.0f - (static_cast<float>(py) + 0.5f) / 32.0f};
}

/** An orthographic camera over [-1, 1]^2 about (0, y), its eye at (0, y, 10) looking down -z. */
Camera cameraAt(float y) {
    Camera camera;
    camera.setOrthographic(-1.0f, 1.0f, -1.0f, 1.0f, 0.1f, 20.0f);
    camera.lookAt(glm::vec3(0.0f, y, 10.0f), glm::vec3(0.0f, y, 0.0f));
    return camera;
}

/** The fraction of colour that remains at world point @p p seen from @p eye, from the formulas
 *  of docs/lighting.md. Height fog by numerical integration of its density along the ray
 *  (Simpson's rule, 2000 intervals), not by the closed form the shader uses. */
double fogFactor(const Fog& fog, const glm::dvec3& eye, const glm::dvec3& p) {
    const double d = glm::length(p - eye);
    switch (fog.mode) {
    case FogMode::None:
        return 1.0;
    case FogMode::Linear:
        return glm::clamp((fog.end - d) / (double{fog.end} - fog.start), 0.0, 1.0);
    case FogMode::Exponential:
        return std::exp(-fog.density * d);
    case FogMode::ExponentialSquared:
        return std::exp(-(fog.density * d) * (fog.density * d));
    case FogMode::Height: {
        constexpr int kSteps = 2000;
        auto density = [&](double t) {
            const double y = eye.y + (p.y - eye.y) * t;
            return fog.density * std::exp(-fog.heightFalloff * (y - fog.height));
        };
        double sum = density(0.0) + density(1.0);
        for (int i = 1; i < kSteps; ++i) {
            sum += density(static_cast<double>(i) / kSteps) * (i % 2 == 1 ? 4.0 : 2.0);
        }
        return std::exp(-(sum / (3.0 * kSteps)) * d);
    }
    }
    return 1.0;
}

glm::vec3 mixFog(const Fog& fog, const glm::vec3& rgb, double f) {
    return glm::mix(fog.color, rgb, static_cast<float>(f));
}

#define CHECK_LINEAR(actual, expected)                                                                \
    do {                                                                                              \
        const glm::vec3 a_ = glm::vec3(actual);                                                       \
        const glm::vec3 e_ = (expected);                                                              \
        INFO("read (" << a_.r << ", " << a_.g << ", " << a_.b << "), expected (" << e_.r << ", " << e_.g \
                      << ", " << e_.b << ")");                                                        \
        CHECK(std::abs(a_.r - e_.r) <= kTolerance);                                                   \
        CHECK(std::abs(a_.g - e_.g) <= kTolerance);                                                   \
        CHECK(std::abs(a_.b - e_.b) <= kTolerance);                                                   \
    } while (false)

const std::shared_ptr<const MeshGeometry>& unitQuad() {
    static const auto quad = MeshGeometry::create(shapes::quad(1.0f, 1.0f), "quad");
    return quad;
}

Fog fogOf(FogMode mode) {
    Fog fog;
    fog.mode = mode;
    fog.color = {0.7f, 0.5f, 0.3f};
    fog.start = 2.0f;  // d is about 10: f = 6 / 14, not one half (a ramp the wrong way would pass)
    fog.end = 16.0f;
    fog.density = mode == FogMode::ExponentialSquared ? 0.06f : mode == FogMode::Height ? 0.08f : 0.07f;
    fog.height = 0.0f;
    fog.heightFalloff = 1.5f;
    return fog;
}

/** A particle of half-width @p size at @p position. */
Particle particleAt(const glm::vec3& position, float size, const glm::vec3& color, float alpha) {
    Particle p;
    p.position = position;
    p.size = size;
    p.color = color;
    p.alpha = alpha;
    return p;
}

constexpr std::array<std::array<std::uint32_t, 2>, 4> kProbes{{{32, 32}, {5, 6}, {58, 12}, {20, 60}}};

} // namespace

TEST_CASE("each fog mode gives the predicted colour on an unlit quad, and after lighting on a lit one",
          "[gl][fog]") {
    context();
    const glm::vec3 albedo(0.9f, 0.2f, 0.1f);
    Scene scene;
    scene.clearColor = {0.0f, 0.0f, 0.0f, 1.0f};
    auto& quad = scene.root().emplace<MeshNode>(unitQuad(), unlit(glm::vec4(albedo, 1.0f)), "quad");
    quad.setScale({2.0f, 2.0f, 1.0f});  // fills the view
    gl::Renderer renderer;
    FloatTarget target;
    const Camera camera = cameraAt(0.0f);
    const glm::dvec3 eye(0.0, 0.0, 10.0);

    for (const FogMode mode : {FogMode::Linear, FogMode::Exponential, FogMode::ExponentialSquared, FogMode::Height}) {
        scene.fog = fogOf(mode);
        renderer.render(scene, camera, target.target);
        CHECK(renderer.lastFrameStats().multiDrawCalls == 1);  // the table-driven path drew it
        for (const auto& [px, py] : kProbes) {
            const glm::vec2 p = pixelCentre(px, py);
            const double f = fogFactor(scene.fog, eye, glm::dvec3(p.x, p.y, 0.0));
            INFO("mode " << static_cast<int>(mode) << " pixel (" << px << ", " << py << ") f = " << f);
            CHECK_LINEAR(target.at(px, py), mixFog(scene.fog, albedo, f));
        }
    }

    SECTION("lit: fog comes after lighting") {
        Material lit = unlit(glm::vec4(0.4f, 0.2f, 0.1f, 1.0f));
        lit.shading = Shading::Lit;
        quad.material() = lit;
        scene.light.direction = {0.0f, 0.0f, -1.0f};  // straight onto the quad: N.L = 1
        scene.ambient = glm::vec3(0.25f);
        scene.fog = fogOf(FogMode::Exponential);
        renderer.render(scene, camera, target.target);
        const glm::vec3 shaded = glm::vec3(0.4f, 0.2f, 0.1f) * 1.25f;  // albedo * (ambient + light)
        for (const auto& [px, py] : kProbes) {
            const glm::vec2 p = pixelCentre(px, py);
            const double f = fogFactor(scene.fog, eye, glm::dvec3(p.x, p.y, 0.0));
            CHECK_LINEAR(target.at(px, py), mixFog(scene.fog, shaded, f));
        }
    }
    SECTION("FogMode::None draws as without fog") {
        scene.fog.mode = FogMode::None;
        renderer.render(scene, camera, target.target);
        CHECK_LINEAR(target.at(32, 32), albedo);
    }
}

TEST_CASE("height fog is thick low down and thin high up, from two eye heights", "[gl][fog]") {
    context();
    const glm::vec3 albedo(0.1f, 0.3f, 0.9f);
    Scene scene;
    auto& quad = scene.root().emplace<MeshNode>(unitQuad(), unlit(glm::vec4(albedo, 1.0f)), "quad");
    quad.setScale({2.0f, 2.0f, 1.0f});
    scene.fog = fogOf(FogMode::Height);
    scene.fog.height = 0.5f;
    scene.fog.heightFalloff = 1.2f;
    scene.fog.density = 0.1f;
    gl::Renderer renderer;
    FloatTarget target;
    for (const float eyeHeight : {0.0f, 2.5f}) {
        quad.setPosition({0.0f, eyeHeight, 0.0f});
        renderer.render(scene, cameraAt(eyeHeight), target.target);
        const glm::dvec3 eye(0.0, eyeHeight, 10.0);
        double top = 0.0;
        double bottom = 0.0;
        for (const std::uint32_t py : {2u, 61u}) {
            const glm::vec2 p = pixelCentre(32, py, eyeHeight);
            const double f = fogFactor(scene.fog, eye, glm::dvec3(p.x, p.y, 0.0));
            (py == 2u ? top : bottom) = f;
            INFO("eye height " << eyeHeight << ", point height " << p.y << ", f = " << f);
            CHECK_LINEAR(target.at(32, py), mixFog(scene.fog, albedo, f));
        }
        CHECK(top > bottom + 0.05);  // the formula itself: less fog higher up
    }
}

TEST_CASE("opaque, blended, premultiplied and additive surfaces each fog the way their blend needs", "[gl][fog]") {
    context();
    Scene scene;
    scene.clearColor = {0.0f, 0.0f, 0.0f, 1.0f};
    scene.fog.mode = FogMode::Linear;
    scene.fog.color = {0.7f, 0.5f, 0.3f};
    scene.fog.start = 0.0f;
    scene.fog.end = 24.0f;  // f = 14 / 24 in front, 10 / 24 behind: a reversed ramp would swap them
    const glm::vec3 back(0.1f, 0.2f, 0.6f);
    const glm::vec3 front(0.9f, 0.1f, 0.2f);
    constexpr float kAlpha = 0.5f;
    constexpr float kBackZ = -4.0f;
    // An opaque background 14 units from the eye, and in front of it (10 units away) one of
    // each in a quadrant: opaque mesh (top left), "over"-blended mesh (top right),
    // premultiplied particle (bottom left), additive particle (bottom right).
    auto& background = scene.root().emplace<MeshNode>(unitQuad(), unlit(glm::vec4(back, 1.0f)), "background");
    background.setScale({2.0f, 2.0f, 1.0f});
    background.setPosition({0.0f, 0.0f, kBackZ});
    auto& opaque = scene.root().emplace<MeshNode>(unitQuad(), unlit(glm::vec4(front, 1.0f)), "opaque");
    opaque.setScale({0.6f, 0.6f, 1.0f});
    opaque.setPosition({-0.5f, 0.5f, 0.0f});
    Material blendedMaterial = unlit(glm::vec4(front, kAlpha));
    blendedMaterial.alphaMode = AlphaMode::Blend;
    auto& blended = scene.root().emplace<MeshNode>(unitQuad(), blendedMaterial, "blended");
    blended.setScale({0.6f, 0.6f, 1.0f});
    blended.setPosition({0.5f, 0.5f, 0.0f});
    auto& over = scene.root().emplace<ParticlePool>(1, ParticleMaterial::billboard(), "premultiplied");
    over.spawn(particleAt({-0.5f, -0.5f, 0.0f}, 0.3f, front, kAlpha));
    auto& additive = scene.root().emplace<ParticlePool>(1, ParticleMaterial::additive(), "additive");
    additive.spawn(particleAt({0.5f, -0.5f, 0.0f}, 0.3f, front, kAlpha));

    gl::Renderer renderer;
    FloatTarget target;
    renderer.render(scene, cameraAt(0.0f), target.target);
    const Fog& fog = scene.fog;
    const glm::dvec3 eye(0.0, 0.0, 10.0);
    auto factors = [&](std::uint32_t px, std::uint32_t py) {
        const glm::vec2 p = pixelCentre(px, py);
        return std::pair(static_cast<float>(fogFactor(fog, eye, {p.x, p.y, 0.0})),
                         static_cast<float>(fogFactor(fog, eye, {p.x, p.y, kBackZ})));
    };
    const std::uint32_t left = pixelX(-0.5f, kSize);
    const std::uint32_t right = pixelX(0.5f, kSize);
    const std::uint32_t top = pixelY(0.5f, kSize);
    const std::uint32_t bottom = pixelY(-0.5f, kSize);
    {
        // The background alone (centre): mix(fog, back, f) at 14 units.
        const auto [near, far] = factors(32, 32);
        (void)near;
        CHECK_LINEAR(target.at(32, 32), glm::mix(fog.color, back, far));
    }
    {
        // Opaque: mix(fog, rgb, f).
        const auto [near, far] = factors(left, top);
        (void)far;
        INFO("opaque, f = " << near);
        CHECK_LINEAR(target.at(left, top), glm::mix(fog.color, front, near));
    }
    {
        // "Over" (SRC_ALPHA, ONE_MINUS_SRC_ALPHA): alpha * its fogged colour over the fogged
        // background.
        const auto [near, far] = factors(right, top);
        INFO("blended, f = " << near << ", background f = " << far);
        CHECK_LINEAR(target.at(right, top),
                     kAlpha * glm::mix(fog.color, front, near) + (1.0f - kAlpha) * glm::mix(fog.color, back, far));
    }
    {
        // Premultiplied (ONE, ONE_MINUS_SRC_ALPHA of rgb * alpha): rgb * alpha * f +
        // fog * alpha * (1 - f), plus (1 - alpha) of the fogged background.
        const auto [near, far] = factors(left, bottom);
        INFO("premultiplied, f = " << near << ", background f = " << far);
        CHECK_LINEAR(target.at(left, bottom), front * kAlpha * near + fog.color * kAlpha * (1.0f - near) +
                                                  (1.0f - kAlpha) * glm::mix(fog.color, back, far));
    }
    {
        // Additive (ONE, ONE of rgb * alpha): the added light times f, no fog colour added.
        const auto [near, far] = factors(right, bottom);
        INFO("additive, f = " << near << ", background f = " << far);
        CHECK_LINEAR(target.at(right, bottom), front * kAlpha * near + glm::mix(fog.color, back, far));
    }
}

TEST_CASE("scatter nodes, GPU populations and GPU particle systems get fog", "[gl][fog]") {
    context();
    const glm::vec3 color(0.2f, 0.8f, 0.4f);
    Scene scene;
    scene.clearColor = {0.0f, 0.0f, 0.0f, 1.0f};
    scene.fog = fogOf(FogMode::Exponential);
    scene.fog.density = 0.09f;
    const glm::dvec3 eye(0.0, 0.0, 10.0);
    gl::Renderer renderer;
    FloatTarget target;

    SECTION("scatter") {
        auto& field = scene.root().emplace<ScatterNode>(unitQuad(), unlit(glm::vec4(color, 1.0f)), 2, "grass");
        field.wind.strength = 0.0f;
        field.wind.gustStrength = 0.0f;
        field.add(ScatterInstance{.position = {0.0f, 0.0f, 0.0f}, .scale = 1.5f});  // centred quad 1.5 wide
        renderer.render(scene, cameraAt(0.0f), target.target);
        for (const std::uint32_t px : {26u, 32u, 40u}) {
            const glm::vec2 p = pixelCentre(px, 32);
            const double f = fogFactor(scene.fog, eye, {p.x, p.y, 0.0});
            CHECK_LINEAR(target.at(px, 32), mixFog(scene.fog, color, f));
        }
    }
    SECTION("a GPU population") {
        // One member, the unit quad scaled 1.5 at the origin (rows of a 3 x 4 matrix, colour).
        const std::array<InstanceRecord, 1> records{InstanceRecord{
            glm::vec4(1.5f, 0, 0, 0), glm::vec4(0, 1.5f, 0, 0), glm::vec4(0, 0, 1, 0), glm::vec4(1.0f)}};
        gl::GpuBufferDesc buffer;
        buffer.name = "members";
        buffer.elementType = gl::GpuElementType::InstanceRecord;
        buffer.length = 1;
        buffer.initialData = std::as_bytes(std::span(records));
        renderer.createBuffer(buffer);
        gl::PopulationDesc population;
        population.name = "population";
        population.transformBuffer = "members";
        population.instanceCount = 1;
        population.material = unlit(glm::vec4(color, 1.0f));
        (void)renderer.drawInstanced(unitQuad(), population);
        renderer.render(scene, cameraAt(0.0f), target.target);
        for (const std::uint32_t px : {26u, 32u, 40u}) {
            const glm::vec2 p = pixelCentre(px, 32);
            const double f = fogFactor(scene.fog, eye, {p.x, p.y, 0.0});
            CHECK_LINEAR(target.at(px, 32), mixFog(scene.fog, color, f));
        }
    }
    SECTION("GPU particle systems, alpha and additive") {
        EmitterDesc desc;
        desc.rate = 0.0f;
        desc.speedMin = desc.speedMax = 0.0f;
        desc.lifetimeMin = desc.lifetimeMax = 100.0f;
        desc.size = 0.4f;
        desc.color = color;
        desc.alpha = 0.5f;
        for (const bool isAdditive : {false, true}) {
            Scene gpuScene;
            gpuScene.clearColor = {0.0f, 0.0f, 0.0f, 1.0f};
            gpuScene.fog = scene.fog;
            auto& system = gpuScene.root().emplace<GpuParticleSystem>(
                4, isAdditive ? ParticleMaterial::additive() : ParticleMaterial::billboard(), desc, 3, "gpu");
            system.burst(1);
            system.advance(0.001f);
            renderer.render(gpuScene, cameraAt(0.0f), target.target);
            const glm::vec2 p = pixelCentre(32, 32);
            const auto f = static_cast<float>(fogFactor(scene.fog, eye, {p.x, p.y, 0.0}));
            INFO((isAdditive ? "additive" : "alpha") << ", f = " << f);
            // Over black: premultiplied rgb * a * f + fog * a * (1 - f); additive rgb * a * f.
            const glm::vec3 expected = isAdditive ? color * 0.5f * f : (color * f + scene.fog.color * (1.0f - f)) * 0.5f;
            CHECK_LINEAR(target.at(32, 32), expected);
        }
    }
}

TEST_CASE("a bad fog setting throws InvalidArgument and draws nothing", "[gl][fog]") {
    context();
    Scene scene;
    scene.clearColor = {0.2f, 0.4f, 0.6f, 1.0f};
    scene.root().emplace<MeshNode>(unitQuad(), unlit(glm::vec4(1.0f)), "quad");
    gl::Renderer renderer;
    FloatTarget target;
    renderer.render(scene, cameraAt(0.0f), target.target);
    const glm::vec4 corner = target.at(1, 1);
    const glm::vec4 centre = target.at(32, 32);
    scene.clearColor = {1.0f, 0.0f, 0.0f, 1.0f};  // anything drawn would show it
    struct Bad {
        const char* what;
        void (*spoil)(Fog&);
    };
    const Bad cases[] = {
        {"end == start", [](Fog& f) { f.mode = FogMode::Linear; f.start = 5.0f; f.end = 5.0f; }},
        {"end < start", [](Fog& f) { f.mode = FogMode::Linear; f.start = 5.0f; f.end = 2.0f; }},
        {"negative start", [](Fog& f) { f.mode = FogMode::Linear; f.start = -1.0f; }},
        {"negative density", [](Fog& f) { f.mode = FogMode::Exponential; f.density = -0.1f; }},
        {"NaN density", [](Fog& f) { f.mode = FogMode::ExponentialSquared; f.density = std::nanf(""); }},
        {"Inf end", [](Fog& f) { f.mode = FogMode::Linear; f.end = INFINITY; }},
        {"NaN colour", [](Fog& f) { f.mode = FogMode::Exponential; f.color.g = std::nanf(""); }},
        {"negative colour", [](Fog& f) { f.mode = FogMode::Exponential; f.color.b = -0.5f; }},
        {"negative falloff", [](Fog& f) { f.mode = FogMode::Height; f.heightFalloff = -1.0f; }},
        {"NaN height", [](Fog& f) { f.mode = FogMode::Height; f.height = std::nanf(""); }},
        {"not a mode", [](Fog& f) { f.mode = static_cast<FogMode>(9); }},
    };
    for (const Bad& bad : cases) {
        INFO(bad.what);
        scene.fog = Fog{};
        bad.spoil(scene.fog);
        CHECK_THROWS_AS(renderer.render(scene, cameraAt(0.0f), target.target), InvalidArgument);
        CHECK(target.at(1, 1) == corner);
        CHECK(target.at(32, 32) == centre);
    }
    // A bad value under FogMode::None is never read: no throw.
    scene.fog = Fog{};
    scene.fog.density = -1.0f;
    CHECK_NOTHROW(renderer.render(scene, cameraAt(0.0f), target.target));
}

TEST_CASE("a blended material with blendWritesDepth hides the blended surfaces drawn after it behind it",
          "[gl][blend]") {
    context();
    // Blended draws go back to front by the distance from the eye to their bounds' centre. The
    // green strip (z = 0, 12 wide, centred at x = 5: 11.2 from the eye) is drawn before the
    // red card (z = -0.5, centred: 10.5 from the eye) though it is in front of it at the centre.
    Scene scene;
    scene.clearColor = {0.0f, 0.0f, 0.0f, 1.0f};
    Material greenMaterial = unlit(glm::vec4(0.0f, 1.0f, 0.0f, 0.5f));
    greenMaterial.alphaMode = AlphaMode::Blend;
    Material redMaterial = unlit(glm::vec4(1.0f, 0.0f, 0.0f, 0.5f));
    redMaterial.alphaMode = AlphaMode::Blend;
    auto& green = scene.root().emplace<MeshNode>(unitQuad(), greenMaterial, "green-strip");
    green.setScale({12.0f, 0.5f, 1.0f});
    green.setPosition({5.0f, 0.0f, 0.0f});
    auto& red = scene.root().emplace<MeshNode>(unitQuad(), redMaterial, "red-card");
    red.setScale({0.5f, 1.5f, 1.0f});
    red.setPosition({0.0f, 0.0f, -0.5f});
    gl::Renderer renderer;
    FloatTarget target;
    const std::uint32_t redAlone = pixelY(0.6f, kSize);  // above the strip

    SECTION("without it the red card shows through the green strip") {
        renderer.render(scene, cameraAt(0.0f), target.target);
        CHECK_LINEAR(target.at(32, 32), glm::vec3(0.5f, 0.25f, 0.0f));  // red over (green over black)
        CHECK_LINEAR(target.at(32, redAlone), glm::vec3(0.5f, 0.0f, 0.0f));
    }
    SECTION("with it the strip's depth hides the card behind it; the card still shows elsewhere") {
        green.material().blendWritesDepth = true;
        renderer.render(scene, cameraAt(0.0f), target.target);
        CHECK_LINEAR(target.at(32, 32), glm::vec3(0.0f, 0.5f, 0.0f));
        CHECK_LINEAR(target.at(32, redAlone), glm::vec3(0.5f, 0.0f, 0.0f));
        CHECK_LINEAR(target.at(pixelX(0.6f, kSize), 32), glm::vec3(0.0f, 0.5f, 0.0f));  // the strip alone
        // The card written after the strip blends as ever: its own depth write would hide
        // nothing more, and the mask is back on for the next frame's opaque draws.
        red.material().blendWritesDepth = true;
        renderer.render(scene, cameraAt(0.0f), target.target);
        CHECK_LINEAR(target.at(32, 32), glm::vec3(0.0f, 0.5f, 0.0f));
        CHECK_LINEAR(target.at(32, redAlone), glm::vec3(0.5f, 0.0f, 0.0f));
        GLboolean mask = GL_FALSE;
        glGetBooleanv(GL_DEPTH_WRITEMASK, &mask);
        CHECK(mask == GL_TRUE);  // the documented exit state
    }
}
