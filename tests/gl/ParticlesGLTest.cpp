// Particles and scatter on screen: alpha fades in linear light, sizes, heights and spin in
// pixels, flipbook cells and their blend, streak shape, back-to-front sorting from both sides,
// and wind that bends a blade's tip but not its root.
#include "support/GlTest.h"

#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Particles.h"
#include "myriad/core/Scatter.h"
#include "myriad/core/Scene.h"
#include "myriad/core/SurfaceShader.h"
#include "myriad/core/Shapes.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/Renderer.h"

#include <numbers>

using namespace myriad;
using namespace myriad::test;

namespace {

constexpr std::uint32_t kSize = 64;  // pixels; the camera below shows 4 x 4 metres: 16 px per metre

/** Looks down -Z (or +Z from behind) at x, y in [-2, 2]. */
Camera wideCamera(bool fromBehind = false) {
    Camera camera;
    camera.setOrthographic(-2.0f, 2.0f, -2.0f, 2.0f, 0.1f, 40.0f);
    camera.lookAt(glm::vec3(0.0f, 0.0f, fromBehind ? -10.0f : 10.0f), glm::vec3(0.0f));
    return camera;
}

Image draw(Scene& scene, const Camera& camera) {
    gl::Renderer renderer;
    gl::OffscreenTarget target(kSize, kSize);
    renderer.render(scene, camera, target);
    return target.readPixels();
}

/** Columns [first, last] of row @p y whose red channel is above half, or {-1, -1}. */
std::pair<int, int> litColumns(const Image& image, std::uint32_t y) {
    int first = -1;
    int last = -1;
    for (std::uint32_t x = 0; x < image.width; ++x) {
        if (pixelAt(image, x, y)[0] > 128) {
            first = first < 0 ? static_cast<int>(x) : first;
            last = static_cast<int>(x);
        }
    }
    return {first, last};
}

std::pair<int, int> litRows(const Image& image, std::uint32_t x) {
    int first = -1;
    int last = -1;
    for (std::uint32_t y = 0; y < image.height; ++y) {
        if (pixelAt(image, x, y)[0] > 128) {
            first = first < 0 ? static_cast<int>(y) : first;
            last = static_cast<int>(y);
        }
    }
    return {first, last};
}

int span(std::pair<int, int> range) { return range.first < 0 ? 0 : range.second - range.first + 1; }

Particle particleAt(const glm::vec3& position, float size, const glm::vec3& color = glm::vec3(1.0f), float alpha = 1.0f) {
    Particle p;
    p.position = position;
    p.size = size;
    p.color = color;
    p.alpha = alpha;
    return p;
}

} // namespace

TEST_CASE("a particle fades by its alpha in linear light and not by darkening", "[gl][particles]") {
    context();
    Scene scene;
    scene.clearColor = {0.0f, 0.0f, 0.0f, 1.0f};
    auto& pool = scene.root().emplace<ParticlePool>(4, ParticleMaterial::billboard(), "pool");
    pool.spawn(particleAt({0, 0, 0}, 0.5f, glm::vec3(1.0f), 0.5f));
    const Image half = draw(scene, wideCamera());
    // Linear 0.5 encodes to 188 in an sRGB target; a darkened opaque particle would read the
    // same only by accident of the encoding, so check alpha 0 too (background untouched).
    CHECK(near(pixelAt(half, 32, 32), Rgba{188, 188, 188, 255}, 3));
    CHECK(near(pixelAt(half, 2, 2), kBlack));

    pool.setParticle(0, particleAt({0, 0, 0}, 0.5f, glm::vec3(1.0f), 0.0f));
    const Image none = draw(scene, wideCamera());
    CHECK(near(pixelAt(none, 32, 32), kBlack, 0));

    // Additive: colour * alpha is added.
    pool.setMaterial(ParticleMaterial::additive());
    pool.setParticle(0, particleAt({0, 0, 0}, 0.5f, glm::vec3(1.0f), 0.5f));
    const Image added = draw(scene, wideCamera());
    CHECK(near(pixelAt(added, 32, 32), Rgba{188, 188, 188, 255}, 3));
}

TEST_CASE("a surface function written for meshes draws on a particle pool with zero lanes", "[gl][particles]") {
    // SurfaceInput is the same struct on particles (docs/particles.md): s.lanes and
    // s.materialIndex exist, a pool carries no shader data (zeros) and is in no identity table.
    context();
    Scene scene;
    scene.clearColor = {0.0f, 0.0f, 0.0f, 1.0f};
    ParticleMaterial material = ParticleMaterial::billboard();
    material.surface = SurfaceShader::fromSource("lanes.glsl", R"(
SurfaceOutput surface(SurfaceInput s) {
    bool none = s.lanes[0] == vec4(0.0) && s.lanes[3] == vec4(0.0) && s.materialIndex == 0;
    return SurfaceOutput(none ? vec3(0.0, 1.0, 0.0) : vec3(1.0, 0.0, 0.0), 1.0);
}
)");
    auto& pool = scene.root().emplace<ParticlePool>(4, material, "pool");
    pool.spawn(particleAt({0, 0, 0}, 0.5f));
    const Image image = draw(scene, wideCamera());
    CHECK(near(pixelAt(image, 32, 32), kGreen));
    CHECK(near(pixelAt(image, 2, 2), kBlack));
}

TEST_CASE("FrameStats counts particles in particles only, not in instances", "[gl][particles][stats]") {
    context();
    Scene scene;
    auto& pool = scene.root().emplace<ParticlePool>(4, ParticleMaterial::billboard(), "pool");
    pool.spawn(particleAt({-1, 0, 0}, 0.2f));
    pool.spawn(particleAt({1, 0, 0}, 0.2f));
    auto& batch = scene.root().emplace<InstancedMeshNode>(MeshGeometry::create(shapes::quad(0.2f, 0.2f)), unlit(), 3);
    for (int i = 0; i < 3; ++i) {
        batch.addInstance(at(static_cast<float>(i) * 0.5f, 1.0f));
    }
    gl::Renderer renderer;
    gl::OffscreenTarget target(kSize, kSize);
    renderer.render(scene, wideCamera(), target);
    const gl::FrameStats& stats = renderer.lastFrameStats();
    CHECK(stats.particles == 2);
    CHECK(stats.instances == 3);  // the batch's only: adding particles does not count them twice
    CHECK(stats.drawCalls == 2);
    CHECK(stats.triangles == 2 * 3 + 2 * 2);
}

TEST_CASE("a particle of size 1 spans 2 metres and heights and spin shape it", "[gl][particles]") {
    context();
    Scene scene;
    scene.clearColor = {0.0f, 0.0f, 0.0f, 1.0f};
    auto& pool = scene.root().emplace<ParticlePool>(4, ParticleMaterial::billboard(), "pool");
    pool.spawn(particleAt({0, 0, 0}, 1.0f, glm::vec3(1, 0, 0)));
    Image image = draw(scene, wideCamera());
    CHECK(span(litColumns(image, 32)) == 32);  // 2 m at 16 px per metre
    CHECK(span(litRows(image, 32)) == 32);

    Particle tall = particleAt({0, 0, 0}, 1.0f, glm::vec3(1, 0, 0));
    tall.height = 0.5f;  // half-height: 1 m tall
    pool.setParticle(0, tall);
    image = draw(scene, wideCamera());
    CHECK(span(litColumns(image, 32)) == 32);
    CHECK(span(litRows(image, 32)) == 16);

    tall.spin = std::numbers::pi_v<float> / 2.0f;  // on its side
    pool.setParticle(0, tall);
    image = draw(scene, wideCamera());
    CHECK(span(litColumns(image, 32)) == 16);
    CHECK(span(litRows(image, 32)) == 32);
}

TEST_CASE("a flipbook shows the frame's cell and blends toward the next", "[gl][particles]") {
    context();
    // A 4 x 4 atlas of 16-pixel cells: cell 5 (column 1, row 1) red, cell 6 green, the rest blue.
    auto atlas = std::make_shared<Image>();
    atlas->width = 64;
    atlas->height = 64;
    atlas->pixels.resize(64 * 64 * 4);
    for (std::uint32_t y = 0; y < 64; ++y) {
        for (std::uint32_t x = 0; x < 64; ++x) {
            const std::uint32_t cell = (y / 16) * 4 + x / 16;
            std::uint8_t* p = atlas->pixels.data() + (y * 64 + x) * 4;
            p[0] = cell == 5 ? 255 : 0;
            p[1] = cell == 6 ? 255 : 0;
            p[2] = cell != 5 && cell != 6 ? 255 : 0;
            p[3] = 255;
        }
    }
    Scene scene;
    scene.clearColor = {0.0f, 0.0f, 0.0f, 1.0f};
    auto& pool = scene.root().emplace<ParticlePool>(4, ParticleMaterial::sprite(atlas, 4, 4, true), "smoke");
    Particle p = particleAt({0, 0, 0}, 1.0f);
    p.frame = 5.0f;
    pool.spawn(p);
    Image image = draw(scene, wideCamera());
    CHECK(near(pixelAt(image, 32, 32), kRed));
    CHECK(near(pixelAt(image, 20, 20), kRed));  // the whole quad shows the one cell

    p.frame = 5.5f;
    pool.setParticle(0, p);
    image = draw(scene, wideCamera());
    CHECK(near(pixelAt(image, 32, 32), Rgba{188, 188, 0, 255}, 3));  // linear (0.5, 0.5, 0)
}

TEST_CASE("a streak is longer along its velocity than across it", "[gl][particles]") {
    context();
    Scene scene;
    scene.clearColor = {0.0f, 0.0f, 0.0f, 1.0f};
    ParticleMaterial material = ParticleMaterial::streak(0.1f);
    auto& pool = scene.root().emplace<ParticlePool>(4, material, "sparks");
    Particle p = particleAt({0, 0, 0}, 0.25f, glm::vec3(1, 0, 0));
    p.velocity = {10.0f, 0.0f, 0.0f};  // half-length 0.25 + 0.5 m
    pool.spawn(p);
    Image image = draw(scene, wideCamera());
    CHECK(span(litColumns(image, 32)) == 24);  // 1.5 m
    CHECK(span(litRows(image, 32)) == 8);      // 0.5 m

    p.velocity = {0.0f, -10.0f, 0.0f};
    pool.setParticle(0, p);
    image = draw(scene, wideCamera());
    CHECK(span(litColumns(image, 32)) == 8);
    CHECK(span(litRows(image, 32)) == 24);
}

TEST_CASE("overlapping blended particles composite back to front from either side", "[gl][particles]") {
    context();
    Scene scene;
    scene.clearColor = {0.0f, 0.0f, 0.0f, 1.0f};
    auto& pool = scene.root().emplace<ParticlePool>(4, ParticleMaterial::billboard(), "pool");
    // Stream order: red first, nearer the +Z camera; green behind it.
    pool.spawn(particleAt({0, 0, 0.5f}, 0.5f, glm::vec3(1, 0, 0), 0.5f));
    pool.spawn(particleAt({0, 0, -0.5f}, 0.5f, glm::vec3(0, 1, 0), 0.5f));
    gl::Renderer renderer;
    gl::OffscreenTarget target(kSize, kSize);

    renderer.render(scene, wideCamera(false), target);
    Image image = target.readPixels();
    // The front one over the back one: front 0.5, back 0.25 (linear) = 188 and 137.
    CHECK(near(pixelAt(image, 32, 32), Rgba{188, 137, 0, 255}, 3));
    CHECK(renderer.lastFrameStats().particlesSorted == 2);

    renderer.render(scene, wideCamera(true), target);
    image = target.readPixels();
    CHECK(near(pixelAt(image, 32, 32), Rgba{137, 188, 0, 255}, 3));
}

TEST_CASE("wind bends a blade's tip and leaves its root in place", "[gl][scatter]") {
    context();
    // A blade: a quad 0.25 m wide from y = 0 (root) to y = 1.5 (tip), facing +Z.
    MeshData blade;
    blade.positions = {{-0.125f, 0.0f, 0.0f}, {0.125f, 0.0f, 0.0f}, {0.125f, 1.5f, 0.0f}, {-0.125f, 1.5f, 0.0f}};
    blade.normals = {{0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {0, 0, 1}};
    blade.indices16 = {0, 1, 2, 0, 2, 3};
    auto mesh = MeshGeometry::create(std::move(blade), "blade");
    Scene scene;
    scene.clearColor = {0.0f, 0.0f, 0.0f, 1.0f};
    auto& field = scene.root().emplace<ScatterNode>(mesh, unlit(glm::vec4(1, 0, 0, 1)), 4, "grass");
    field.add(ScatterInstance{{0.0f, -1.5f, 0.0f}});
    field.wind.strength = 0.0f;
    field.wind.gustStrength = 0.0f;
    const Image still = draw(scene, wideCamera());
    field.wind.strength = 0.5f;  // tip 0.5 * 1.5 = 0.75 m downwind
    const Image windy = draw(scene, wideCamera());

    const std::uint32_t rootRow = 55;  // y = -1.47 m: just above the root
    const std::uint32_t tipRow = 36;   // y = -0.28 m: near the tip (a bent blade is a little shorter)
    CHECK(litColumns(still, rootRow) == litColumns(windy, rootRow));
    const auto stillTip = litColumns(still, tipRow);
    const auto windyTip = litColumns(windy, tipRow);
    REQUIRE(stillTip.first >= 0);
    REQUIRE(windyTip.first >= 0);
    CHECK(windyTip.first - stillTip.first >= 8);  // moved at least 0.5 m downwind (+x)
}

TEST_CASE("a pool whose particles move under a still camera is sorted again", "[gl][particles]") {
    context();
    Scene scene;
    scene.clearColor = {0.0f, 0.0f, 0.0f, 1.0f};
    auto& pool = scene.root().emplace<ParticlePool>(4, ParticleMaterial::billboard(), "pool");
    pool.spawn(particleAt({0, 0, 0.5f}, 0.5f, glm::vec3(1, 0, 0), 0.5f));   // red in front
    pool.spawn(particleAt({0, 0, -0.5f}, 0.5f, glm::vec3(0, 1, 0), 0.5f));  // green behind
    gl::Renderer renderer;
    gl::OffscreenTarget target(kSize, kSize);
    const Camera camera = wideCamera();
    renderer.render(scene, camera, target);
    CHECK(near(pixelAt(target.readPixels(), 32, 32), Rgba{188, 137, 0, 255}, 3));

    // The two swap depths, the camera stays: the order of last frame would draw red first now.
    pool.setParticle(0, particleAt({0, 0, -0.5f}, 0.5f, glm::vec3(1, 0, 0), 0.5f));
    pool.setParticle(1, particleAt({0, 0, 0.5f}, 0.5f, glm::vec3(0, 1, 0), 0.5f));
    renderer.render(scene, camera, target);
    CHECK(near(pixelAt(target.readPixels(), 32, 32), Rgba{137, 188, 0, 255}, 3));
    CHECK(renderer.lastFrameStats().particlesSorted == 2);
}

TEST_CASE("a particle pool sorted for a view is not sorted again while neither it nor the view moves", "[gl][particles]") {
    context();
    Scene scene;
    scene.clearColor = {0.0f, 0.0f, 0.0f, 1.0f};
    auto& pool = scene.root().emplace<ParticlePool>(4, ParticleMaterial::billboard(), "pool");
    pool.spawn(particleAt({0, 0, -0.5f}, 0.5f, glm::vec3(0, 1, 0), 0.5f));  // green behind, first
    pool.spawn(particleAt({0, 0, 0.5f}, 0.5f, glm::vec3(1, 0, 0), 0.5f));
    gl::Renderer renderer;
    gl::OffscreenTarget target(kSize, kSize);
    renderer.render(scene, wideCamera(true), target);  // from behind: red is the far one
    CHECK(renderer.lastFrameStats().particlesSorted == 2);
    CHECK(near(pixelAt(target.readPixels(), 32, 32), Rgba{137, 188, 0, 255}, 3));
    renderer.render(scene, wideCamera(true), target);
    CHECK(renderer.lastFrameStats().particlesSorted == 0);
    // Drawn through last frame's order, not stream order (which would put red in front).
    CHECK(near(pixelAt(target.readPixels(), 32, 32), Rgba{137, 188, 0, 255}, 3));
    renderer.render(scene, wideCamera(false), target);  // the camera moved: sorted again
    CHECK(renderer.lastFrameStats().particlesSorted == 2);
    CHECK(near(pixelAt(target.readPixels(), 32, 32), Rgba{188, 137, 0, 255}, 3));
}

TEST_CASE("additive particle pools are never sorted, even when asked to be", "[gl][particles]") {
    context();
    Scene scene;
    scene.clearColor = {0.0f, 0.0f, 0.0f, 1.0f};
    ParticleMaterial material = ParticleMaterial::additive();
    material.sort = ParticleSort::BackToFront;
    CHECK_FALSE(material.sorted());
    CHECK_FALSE(ParticleMaterial::streak().sorted());
    auto& pool = scene.root().emplace<ParticlePool>(4, material, "glow");
    pool.spawn(particleAt({0, 0, 0.5f}, 0.5f, glm::vec3(1, 0, 0), 0.5f));
    pool.spawn(particleAt({0, 0, -0.5f}, 0.5f, glm::vec3(0, 1, 0), 0.5f));
    gl::Renderer renderer;
    gl::OffscreenTarget target(kSize, kSize);
    renderer.render(scene, wideCamera(), target);
    CHECK(renderer.lastFrameStats().particlesSorted == 0);
    CHECK(near(pixelAt(target.readPixels(), 32, 32), Rgba{188, 188, 0, 255}, 3));  // 0.5 of each, added
}
