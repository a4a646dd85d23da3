// Directional-light shadow maps on screen (docs/shadows.md): an instanced caster's shadow falls
// under each instance and not at the node origin (the three.js fault), an instance masked out
// of shadows casts none while still drawn, a flat ground lit at an angle shows no acne, the
// shadow view adds no upload, a node that casts no shadow casts none, per-instance culling
// works against the light's box, and bad settings are refused before anything is drawn.
#include "support/GlTest.h"

#include <glad/gl.h>

#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Lod.h"
#include "myriad/core/MeshNode.h"
#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/Renderer.h"
#include "myriad/util/Error.h"

#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/quaternion.hpp>

#include <cmath>
#include <limits>
#include <memory>
#include <numbers>
#include <vector>

using namespace myriad;
using namespace myriad::test;

namespace {

constexpr std::uint32_t kSize = 128;

/** A lit white ground: 12 x 12 world units in the XZ plane at y = 0, facing +Y. */
MeshNode& addGround(Scene& scene) {
    Material lit;
    lit.shading = Shading::Lit;
    lit.baseColor = glm::vec4(1.0f);
    auto& ground = scene.root().emplace<MeshNode>(MeshGeometry::create(shapes::quad(12.0f, 12.0f), "ground"), lit, "ground");
    ground.setRotation(glm::angleAxis(-std::numbers::pi_v<float> / 2.0f, glm::vec3(1.0f, 0.0f, 0.0f)));
    return ground;
}

/** Unlit boxes of side 1 centred at height 2.5 (so drawn red, never confused with the ground),
 *  at x = -3 and x = 3 and z = -3: none at the node origin (0, 0, 0). */
InstancedMeshNode& addBoxes(Scene& scene) {
    auto& boxes = scene.root().emplace<InstancedMeshNode>(MeshGeometry::create(shapes::box(1.0f), "box"),
                                                          unlit(glm::vec4(1.0f)), 8, "boxes");
    boxes.addInstance(at(-3.0f, 2.5f, 0.0f), {1, 0, 0, 1});
    boxes.addInstance(at(3.0f, 2.5f, 0.0f), {1, 0, 0, 1});
    boxes.addInstance(at(0.0f, 2.5f, -3.0f), {1, 0, 0, 1});
    return boxes;
}

/** Light straight down, a dim ambient: lit ground 0.2 + 0.6, shadowed ground 0.2 (linear). */
void lightFromAbove(Scene& scene) {
    scene.light.direction = glm::vec3(0.0f, -1.0f, 0.0f);
    scene.light.color = glm::vec3(1.0f);
    scene.light.intensity = 0.6f;
    scene.ambient = glm::vec3(0.2f);
    scene.light.shadow.enabled = true;
    scene.light.shadow.mapSize = 1024;
    scene.light.shadow.distance = 30.0f;
}

struct ShadowFixture {
    egl::HeadlessContext& context = test::context();
    gl::Renderer renderer;
    gl::OffscreenTarget target{kSize, kSize, "shadow-target"};
    Camera camera;

    ShadowFixture() {
        camera.setPerspective(glm::radians(60.0f), 1.0f, 0.5f, 100.0f);
        camera.lookAt(glm::dvec3(0.0, 9.0, 9.0), glm::dvec3(0.0, 0.0, 0.0));
    }
    Image render(const Scene& scene) {
        renderer.render(scene, camera, target);
        return target.readPixels();
    }
    /** Pixel (column, row from the top) where world point @p p lands. */
    [[nodiscard]] std::array<std::uint32_t, 2> pixelOf(const glm::vec3& p) const {
        const glm::vec4 clip = camera.viewProjection() * glm::vec4(p, 1.0f);
        const glm::vec2 ndc = glm::vec2(clip) / clip.w;
        return {static_cast<std::uint32_t>((ndc.x * 0.5f + 0.5f) * kSize),
                static_cast<std::uint32_t>((0.5f - ndc.y * 0.5f) * kSize)};
    }
    [[nodiscard]] Rgba at(const Image& image, const glm::vec3& p) const {
        const auto pixel = pixelOf(p);
        REQUIRE(pixel[0] < kSize);  // on screen (a point behind would wrap to a huge value)
        REQUIRE(pixel[1] < kSize);
        return pixelAt(image, pixel[0], pixel[1]);
    }
};

/** Grey levels of the two cases, from a frame rendered without casters above the ground. */
bool isShadowed(const Rgba& c) { return c[0] < 160 && c[0] == c[1] && c[1] == c[2]; }
bool isLit(const Rgba& c) { return c[0] > 210 && c[0] == c[1] && c[1] == c[2]; }
bool isRed(const Rgba& c) { return c[0] > 200 && c[1] < 40 && c[2] < 40; }

#define CHECK_COLOUR(predicate, colour)                                                      \
    do {                                                                                     \
        const Rgba colour_ = (colour);                                                       \
        INFO(#colour " is " << describe(colour_));                                           \
        CHECK(predicate(colour_));                                                           \
    } while (false)

} // namespace

TEST_CASE("an instanced caster's shadow falls under each instance, not at the node origin", "[shadows][pixels]") {
    ShadowFixture fixture;
    Scene scene;
    addGround(scene);
    InstancedMeshNode& boxes = addBoxes(scene);
    lightFromAbove(scene);
    const Image image = fixture.render(scene);
    CHECK_COLOUR(isShadowed, fixture.at(image, {-3.0f, 0.0f, 0.0f}));
    CHECK_COLOUR(isShadowed, fixture.at(image, {3.0f, 0.0f, 0.0f}));
    CHECK_COLOUR(isShadowed, fixture.at(image, {0.0f, 0.0f, -3.0f}));
    // Between the instances, and under the node origin where no instance is: lit.
    CHECK_COLOUR(isLit, fixture.at(image, {0.0f, 0.0f, 0.0f}));
    CHECK_COLOUR(isLit, fixture.at(image, {-1.5f, 0.0f, 1.5f}));
    CHECK_COLOUR(isLit, fixture.at(image, {1.5f, 0.0f, 1.5f}));
    // The boxes themselves are drawn.
    CHECK_COLOUR(isRed, fixture.at(image, {3.0f, 3.0f, 0.0f}));
    // The shadow view: one more view, the batch in one draw with every instance.
    const gl::FrameStats& stats = fixture.renderer.lastFrameStats();
    CHECK(stats.views == 2);
    const gl::ShadowMapInfo& map = fixture.renderer.shadowMap();
    CHECK(map.drawn);
    CHECK(map.size == 1024);
    CHECK(map.texture != 0);
    CHECK(map.drawCalls == 1);   // the ground and the batch, in one multi-draw call
    CHECK(map.instances == 1 + boxes.count());
    CHECK(map.direction.y == Approx(-1.0f));
    CHECK(map.cascadeCount == 1);
    CHECK(map.cascades[0].texelWorldSize == Approx(2.0f * map.cascades[0].radius / 1024.0f));
    CHECK(map.cascades[0].viewDepthEnd == Approx(30.0f));
    // Moving the node moves every shadow with it.
    boxes.setPosition(glm::dvec3(0.0, 0.0, 3.0));
    const Image moved = fixture.render(scene);
    CHECK_COLOUR(isShadowed, fixture.at(moved, {-3.0f, 0.0f, 3.0f}));
    CHECK_COLOUR(isShadowed, fixture.at(moved, {3.0f, 0.0f, 3.0f}));
    CHECK_COLOUR(isShadowed, fixture.at(moved, {0.0f, 0.0f, 0.0f}));
    CHECK_COLOUR(isLit, fixture.at(moved, {-3.0f, 0.0f, 0.0f}));
}

TEST_CASE("an instance masked out of shadows casts none and is still drawn", "[shadows][pixels]") {
    ShadowFixture fixture;
    Scene scene;
    addGround(scene);
    InstancedMeshNode& boxes = addBoxes(scene);
    lightFromAbove(scene);
    boxes.setCastsShadow(1, false);
    const Image image = fixture.render(scene);
    CHECK_COLOUR(isLit, fixture.at(image, {3.0f, 0.0f, 0.0f}));
    CHECK_COLOUR(isRed, fixture.at(image, {3.0f, 3.0f, 0.0f}));  // still drawn in the colour view
    CHECK_COLOUR(isShadowed, fixture.at(image, {-3.0f, 0.0f, 0.0f}));
    CHECK_COLOUR(isShadowed, fixture.at(image, {0.0f, 0.0f, -3.0f}));
    CHECK(fixture.renderer.shadowMap().instances == 1 + 2);
    CHECK(fixture.renderer.lastFrameStats().drawCalls == 2 + 2);  // one draw per batch and view
    SECTION("the mask follows its instance when a release moves it") {
        // Two more by handle; the masked one is last and moves into the first one's slot.
        const InstanceHandle gone = boxes.acquire({.transform = at(0.0f, 2.5f, 3.0f), .color = {1, 0, 0, 1}});
        const InstanceHandle moving = boxes.acquire({.transform = at(3.0f, 2.5f, 3.0f), .color = {1, 0, 0, 1}});
        boxes.setCastsShadow(moving, false);
        boxes.release(gone);
        REQUIRE(boxes.indexOf(moving) == 3);
        const Image after = fixture.render(scene);
        CHECK_COLOUR(isLit, fixture.at(after, {3.0f, 0.0f, 3.0f}));
        CHECK_COLOUR(isRed, fixture.at(after, {3.0f, 3.0f, 3.0f}));
        CHECK_COLOUR(isLit, fixture.at(after, {0.0f, 0.0f, 3.0f}));
        CHECK_COLOUR(isShadowed, fixture.at(after, {-3.0f, 0.0f, 0.0f}));
    }
    SECTION("unmasked again, it casts again") {
        boxes.setCastsShadow(1, true);
        const Image after = fixture.render(scene);
        CHECK_COLOUR(isShadowed, fixture.at(after, {3.0f, 0.0f, 0.0f}));
    }
}

TEST_CASE("a GPU-culled batch casts in place, and its masked instance casts none", "[shadows][gpu-culling][pixels]") {
    ShadowFixture fixture;
    Scene scene;
    addGround(scene);
    InstancedMeshNode& boxes = addBoxes(scene);
    lightFromAbove(scene);
    boxes.setInstanceCulling(InstanceCulling::Gpu);
    const Image image = fixture.render(scene);
    CHECK_COLOUR(isShadowed, fixture.at(image, {-3.0f, 0.0f, 0.0f}));
    CHECK_COLOUR(isShadowed, fixture.at(image, {3.0f, 0.0f, 0.0f}));
    CHECK_COLOUR(isShadowed, fixture.at(image, {0.0f, 0.0f, -3.0f}));
    CHECK_COLOUR(isLit, fixture.at(image, {0.0f, 0.0f, 0.0f}));
    CHECK_COLOUR(isRed, fixture.at(image, {3.0f, 3.0f, 0.0f}));
    // The light's view culls on the GPU too: its list holds the three boxes.
    const auto inMap = fixture.renderer.readGpuCulledInstances(boxes, 0);
    REQUIRE(inMap.has_value());
    CHECK(inMap->size() == 3);
    SECTION("masked: the light's view takes the CPU list, which leaves it out") {
        boxes.setCastsShadow(1, false);
        const Image after = fixture.render(scene);
        CHECK_COLOUR(isLit, fixture.at(after, {3.0f, 0.0f, 0.0f}));
        CHECK_COLOUR(isRed, fixture.at(after, {3.0f, 3.0f, 0.0f}));
        CHECK_COLOUR(isShadowed, fixture.at(after, {-3.0f, 0.0f, 0.0f}));
    }
}

TEST_CASE("a LOD batch casts the level drawn, with distances from the camera, not the light", "[shadows][lod][pixels]") {
    ShadowFixture fixture;
    Scene scene;
    addGround(scene);
    InstancedMeshNode& boxes = addBoxes(scene);
    lightFromAbove(scene);
    // One level, drawn up to 25 units from the eye: the camera (about 13 units away) sees every
    // box; the light's eye, far back along the light, is beyond that.
    LodChain chain;
    chain.levels.push_back({nullptr, 25.0f});
    boxes.setLodChain(chain);
    SECTION("levels chosen on the CPU") {}
    SECTION("levels chosen on the GPU") { boxes.setInstanceCulling(InstanceCulling::Gpu); }
    const Image image = fixture.render(scene);
    CHECK_COLOUR(isRed, fixture.at(image, {3.0f, 3.0f, 0.0f}));
    CHECK_COLOUR(isShadowed, fixture.at(image, {-3.0f, 0.0f, 0.0f}));
    CHECK_COLOUR(isShadowed, fixture.at(image, {3.0f, 0.0f, 0.0f}));
    CHECK_COLOUR(isShadowed, fixture.at(image, {0.0f, 0.0f, -3.0f}));
    if (boxes.visibility().culling != InstanceCulling::Gpu) {
        CHECK(fixture.renderer.shadowMap().instances == 1 + 3);  // the GPU's count is an upper bound
    }
}

TEST_CASE("a fading LOD batch casts one level, undithered: a whole shadow or none", "[shadows][lod][lod-fade][pixels]") {
    ShadowFixture fixture;
    Scene scene;
    addGround(scene);
    InstancedMeshNode& boxes = addBoxes(scene);
    lightFromAbove(scene);
    // One level drawn up to 12.5 from the eye (0, 9, 9), fading out over [9.375, 15.625)
    // (fadeBand 0.5): the boxes at x = -3 and 3 are 11.5 away (t = 0.34: the view keeps 42 of
    // 64 pixels), the one at z = -3 13.65 (t = 0.68: 20 of 64). The shadow map draws one level
    // without dither, switching at 12.5: the first two cast whole shadows, the third none.
    LodChain chain;
    chain.levels = {{nullptr, 12.5f}};
    chain.fadeBand = 0.5f;
    boxes.setLodChain(chain);
    SECTION("levels chosen on the CPU") {}
    SECTION("levels chosen on the GPU") { boxes.setInstanceCulling(InstanceCulling::Gpu); }
    const Image image = fixture.render(scene);
    CHECK_COLOUR(isShadowed, fixture.at(image, {-3.0f, 0.0f, 0.0f}));
    CHECK_COLOUR(isShadowed, fixture.at(image, {3.0f, 0.0f, 0.0f}));
    CHECK_COLOUR(isLit, fixture.at(image, {0.0f, 0.0f, -3.0f}));
    if (boxes.visibility().culling != InstanceCulling::Gpu) {
        CHECK(fixture.renderer.shadowMap().instances == 1 + 2);  // the ground and two boxes, once each
    }
}

TEST_CASE("a node that casts no shadow casts none, and one that receives none stays lit", "[shadows][pixels]") {
    ShadowFixture fixture;
    Scene scene;
    MeshNode& ground = addGround(scene);
    InstancedMeshNode& boxes = addBoxes(scene);
    lightFromAbove(scene);
    SECTION("castsShadow(false) on the batch") {
        boxes.setCastsShadow(false);
        const Image image = fixture.render(scene);
        CHECK_COLOUR(isLit, fixture.at(image, {-3.0f, 0.0f, 0.0f}));
        CHECK_COLOUR(isLit, fixture.at(image, {3.0f, 0.0f, 0.0f}));
        CHECK_COLOUR(isRed, fixture.at(image, {3.0f, 3.0f, 0.0f}));
        CHECK(fixture.renderer.shadowMap().drawCalls == 1);  // the ground alone
    }
    SECTION("receivesShadow(false) on the ground") {
        ground.setReceivesShadow(false);
        const Image image = fixture.render(scene);
        CHECK_COLOUR(isLit, fixture.at(image, {-3.0f, 0.0f, 0.0f}));
        CHECK_COLOUR(isLit, fixture.at(image, {3.0f, 0.0f, 0.0f}));
    }
    SECTION("shadows off: the frame is one view, as before") {
        scene.light.shadow.enabled = false;
        const Image image = fixture.render(scene);
        CHECK_COLOUR(isLit, fixture.at(image, {-3.0f, 0.0f, 0.0f}));
        CHECK(fixture.renderer.lastFrameStats().views == 1);
        CHECK_FALSE(fixture.renderer.shadowMap().drawn);
    }
}

TEST_CASE("a flat ground lit at an angle shows no shadow acne", "[shadows][pixels]") {
    ShadowFixture fixture;
    Scene scene;
    addGround(scene);
    scene.ambient = glm::vec3(0.2f);
    scene.light.intensity = 0.6f;
    scene.light.shadow.enabled = true;
    scene.light.shadow.mapSize = 512;
    scene.light.shadow.distance = 30.0f;
    // Several angles from the vertical, the steepest 70 degrees; the ground casts on itself;
    // one map, then three cascades (each biased by its own texel size).
    for (const std::uint32_t cascades : {1u, 3u})
    for (const float degrees : {20.0f, 45.0f, 70.0f}) {
        scene.light.shadow.cascades = cascades;
        const float angle = glm::radians(degrees);
        scene.light.direction = glm::vec3(std::sin(angle) * 0.8f, -std::cos(angle), std::sin(angle) * 0.6f);
        const Image image = fixture.render(scene);
        // Every ground pixel on screen equal: a grid over the ground's visible part.
        const Rgba reference = fixture.at(image, {0.0f, 0.0f, 0.0f});
        INFO("light " << degrees << " degrees from the vertical, " << cascades << " cascade(s); reference "
                      << describe(reference));
        CHECK(reference[0] > 100);  // lit (0.2 + 0.6 cos), not black
        int differing = 0;
        for (float x = -5.0f; x <= 5.0f; x += 0.25f) {
            for (float z = -5.0f; z <= 5.0f; z += 0.25f) {
                const Rgba c = fixture.at(image, {x, 0.0f, z});
                differing += near(c, reference, 1) ? 0 : 1;
            }
        }
        CHECK(differing == 0);
    }
}

TEST_CASE("the shadow view sends no second upload", "[shadows][uploads]") {
    ShadowFixture fixture;
    Scene scene;
    addGround(scene);
    InstancedMeshNode& boxes = addBoxes(scene);
    lightFromAbove(scene);
    boxes.setInstanceCulling(InstanceCulling::Cpu);  // visible-index lists in both views
    boxes.setCastsShadow(2, false);
    auto framesUpload = [&](bool shadows) {
        scene.light.shadow.enabled = shadows;
        for (int frame = 0; frame < 3; ++frame) {
            (void)fixture.render(scene);  // warm up: copies, lists, programs
        }
        const std::uint64_t still = fixture.renderer.lastFrameStats().bytesUploaded;
        boxes.setColor(0, {1, 0, 0, 1});  // one record changes
        (void)fixture.render(scene);
        return std::array<std::uint64_t, 2>{still, fixture.renderer.lastFrameStats().bytesUploaded};
    };
    const auto without = framesUpload(false);
    const auto with = framesUpload(true);
    CHECK(without[0] == 0);
    CHECK(with[0] == 0);
    CHECK(with[1] == without[1]);
    CHECK(with[1] >= 64);
    CHECK(fixture.renderer.lastFrameStats().views == 2);
}

TEST_CASE("per-instance culling tests instances against the light's box too", "[shadows][visibility]") {
    ShadowFixture fixture;
    Scene scene;
    addGround(scene);
    InstancedMeshNode& boxes = addBoxes(scene);
    boxes.addInstance(at(400.0f, 2.5f, 0.0f), {1, 0, 0, 1});  // far outside every view and the map
    lightFromAbove(scene);
    boxes.setInstanceCulling(InstanceCulling::Cpu);
    const Image image = fixture.render(scene);
    CHECK(fixture.renderer.shadowMap().instances == 1 + 3);
    CHECK(fixture.renderer.lastFrameStats().instancesTested == 2 * 4);
    CHECK_COLOUR(isShadowed, fixture.at(image, {-3.0f, 0.0f, 0.0f}));
    CHECK_COLOUR(isShadowed, fixture.at(image, {0.0f, 0.0f, -3.0f}));
    CHECK_COLOUR(isLit, fixture.at(image, {0.0f, 0.0f, 0.0f}));
}

TEST_CASE("bad shadow settings are refused before anything is drawn", "[shadows][errors]") {
    ShadowFixture fixture;
    Scene scene;
    addGround(scene);
    lightFromAbove(scene);
    // A frame without shadows clears to blue; the refused frames would clear to red.
    scene.light.shadow.enabled = false;
    scene.clearColor = glm::vec4(0.0f, 0.0f, 1.0f, 1.0f);
    fixture.renderer.render(scene, fixture.camera, fixture.target);
    scene.light.shadow.enabled = true;
    scene.clearColor = glm::vec4(1.0f, 0.0f, 0.0f, 1.0f);
    auto refused = [&](auto change) {
        const ShadowSettings saved = scene.light.shadow;
        change(scene.light.shadow);
        CHECK_THROWS_AS(fixture.renderer.render(scene, fixture.camera, fixture.target), InvalidArgument);
        scene.light.shadow = saved;
    };
    refused([](ShadowSettings& s) { s.mapSize = 0; });
    refused([](ShadowSettings& s) { s.mapSize = 100000; });
    refused([](ShadowSettings& s) { s.distance = std::nanf(""); });
    refused([](ShadowSettings& s) { s.distance = 0.0f; });
    refused([](ShadowSettings& s) { s.bias = -1.0f; });
    refused([](ShadowSettings& s) { s.slopeBias = INFINITY; });
    refused([](ShadowSettings& s) { s.normalOffset = -0.5f; });
    refused([](ShadowSettings& s) { s.filterRadius = 5; });
    refused([](ShadowSettings& s) { s.cascades = 0; });
    refused([](ShadowSettings& s) { s.cascades = 5; });
    refused([](ShadowSettings& s) { s.cascadeSplit = 1.5f; });
    refused([](ShadowSettings& s) { s.cascadeSplit = std::nanf(""); });
    // Nothing was drawn: the corner (no ground there) is still the blue of the last frame.
    MYRIAD_CHECK_PIXEL(fixture.target.readPixels(), 0, 0, kBlue);
    // Disabled settings are not checked.
    scene.light.shadow.enabled = false;
    scene.light.shadow.mapSize = 0;
    CHECK_NOTHROW(fixture.renderer.render(scene, fixture.camera, fixture.target));
}

TEST_CASE("render() leaves the shadow map's unit unbound", "[shadows][state]") {
    ShadowFixture fixture;
    Scene scene;
    addGround(scene);
    addBoxes(scene);
    lightFromAbove(scene);
    (void)fixture.render(scene);
    GLint active = 0;
    glGetIntegerv(GL_ACTIVE_TEXTURE, &active);
    glActiveTexture(GL_TEXTURE8);
    GLint texture = -1;
    GLint sampler = -1;
    glGetIntegerv(GL_TEXTURE_BINDING_2D, &texture);
    glGetIntegerv(GL_SAMPLER_BINDING, &sampler);
    glActiveTexture(static_cast<GLenum>(active));
    CHECK(texture == 0);
    CHECK(sampler == 0);
    // trim() after a frame without shadows frees the map.
    scene.light.shadow.enabled = false;
    (void)fixture.render(scene);
    fixture.renderer.trim();
    CHECK(fixture.renderer.shadowMap().texture == 0);
}

TEST_CASE("the light's box moves in whole texels and keeps its size as the camera turns", "[shadows]") {
    ShadowFixture fixture;
    Scene scene;
    addGround(scene);
    lightFromAbove(scene);
    scene.light.direction = glm::vec3(-0.3f, -1.0f, -0.2f);
    scene.light.shadow.cascades = 3;  // every cascade alike
    std::array<float, 3> firstRadius{};
    for (int step = 0; step < 12; ++step) {
        // Small moves (a fraction of a texel each) and turns of the camera.
        const double t = step * 0.013;
        const double yaw = step * 0.5;
        const glm::dvec3 eye(0.3 + t, 9.0, 9.0 - t);
        fixture.camera.lookAt(eye, eye + glm::dvec3(std::sin(yaw), -1.0, -std::cos(yaw)));
        (void)fixture.render(scene);
        const gl::ShadowMapInfo& map = fixture.renderer.shadowMap();
        REQUIRE(map.drawn);
        REQUIRE(map.cascadeCount == 3);
        for (std::size_t c = 0; c < 3; ++c) {
            const gl::ShadowCascadeInfo& cascade = map.cascades[c];
            if (step == 0) {
                firstRadius[c] = cascade.radius;
            }
            CHECK(cascade.radius == firstRadius[c]);  // same texel size whichever way the camera looks
            // The world origin's light-space x and y, in texels: whole numbers when the box
            // moves in whole texels.
            const glm::vec4 clip = cascade.clipFromEyeRelative * glm::vec4(glm::vec3(-cascade.eye), 1.0f);
            const double texelsX = clip.x * map.size / 2.0;
            const double texelsY = clip.y * map.size / 2.0;
            INFO("step " << step << ", cascade " << c << ": origin at " << texelsX << ", " << texelsY << " texels");
            CHECK(std::abs(texelsX - std::round(texelsX)) < 0.02);
            CHECK(std::abs(texelsY - std::round(texelsY)) < 0.02);
        }
        CHECK(map.cascades[0].radius < map.cascades[1].radius);  // near cascades are finer
        CHECK(map.cascades[1].radius < map.cascades[2].radius);
    }
}

TEST_CASE("shadows land in place a hundred million units from the origin", "[shadows][pixels]") {
    // Float world coordinates there are 8 units apart: any step of the shadow path done in
    // world-space float (the fit, the light's eye, the receiver's matrix) would move or smear
    // the shadows by a box's width.
    constexpr double kFar = 1.0e8;
    ShadowFixture fixture;
    Scene scene;
    SceneNode& far = scene.root().emplace<SceneNode>("far");
    far.setPosition(glm::dvec3(kFar, 0.0, kFar));
    Material lit;
    auto& ground = far.emplace<MeshNode>(MeshGeometry::create(shapes::quad(12.0f, 12.0f), "ground"), lit, "ground");
    ground.setRotation(glm::angleAxis(-std::numbers::pi_v<float> / 2.0f, glm::vec3(1.0f, 0.0f, 0.0f)));
    auto& boxes = far.emplace<InstancedMeshNode>(MeshGeometry::create(shapes::box(1.0f), "box"), unlit(), 8, "boxes");
    boxes.addInstance(at(-3.0f, 2.5f, 0.0f), {1, 0, 0, 1});
    boxes.addInstance(at(3.0f, 2.5f, 0.0f), {1, 0, 0, 1});
    lightFromAbove(scene);
    fixture.camera.lookAt(glm::dvec3(kFar, 9.0, kFar + 9.0), glm::dvec3(kFar, 0.0, kFar));
    const Image image = fixture.render(scene);
    // Seen from the same place relative to the scene: pixels found as for the scene at the origin.
    fixture.camera.lookAt(glm::dvec3(0.0, 9.0, 9.0), glm::dvec3(0.0));
    CHECK_COLOUR(isShadowed, fixture.at(image, {-3.0f, 0.0f, 0.0f}));
    CHECK_COLOUR(isShadowed, fixture.at(image, {3.0f, 0.0f, 0.0f}));
    CHECK_COLOUR(isLit, fixture.at(image, {0.0f, 0.0f, 0.0f}));
    CHECK_COLOUR(isLit, fixture.at(image, {-3.0f, 0.0f, 1.5f}));
    CHECK_COLOUR(isRed, fixture.at(image, {3.0f, 3.0f, 0.0f}));
}

TEST_CASE("the bias does not lift a shadow off its caster's foot", "[shadows][pixels]") {
    // Peter-panning: too much bias lets light in between a caster and its shadow. A box
    // standing on the ground, light at 45 degrees along +x: the shadow runs from the box's side
    // (x = 0.5) to x = 1.5 on the ground, right up to the box.
    ShadowFixture fixture;
    Scene scene;
    addGround(scene);
    auto& box = scene.root().emplace<MeshNode>(MeshGeometry::create(shapes::box(1.0f), "box"), unlit(glm::vec4(1, 0, 0, 1)), "box");
    box.setPosition(glm::dvec3(0.0, 0.5, 0.0));
    lightFromAbove(scene);
    scene.light.direction = glm::vec3(1.0f, -1.0f, 0.0f);
    const Image image = fixture.render(scene);
    CHECK_COLOUR(isShadowed, fixture.at(image, {0.62f, 0.0f, 0.0f}));  // an eighth of a unit from the box
    CHECK_COLOUR(isShadowed, fixture.at(image, {1.3f, 0.0f, 0.0f}));
    // Lit beyond the shadow: as bright as the ground on the light's side (0.2 + 0.6 cos 45).
    const Rgba lit = fixture.at(image, {-2.0f, 0.0f, 0.0f});
    INFO("lit ground " << describe(lit));
    CHECK(lit[0] > 180);
    CHECK(near(fixture.at(image, {1.8f, 0.0f, 0.0f}), lit, 1));
    CHECK_COLOUR(isRed, fixture.at(image, {0.0f, 1.0f, 0.0f}));
}

TEST_CASE("cascades: each slice of the view has its own box, and shadows land the same", "[shadows][pixels]") {
    ShadowFixture fixture;
    Scene scene;
    addGround(scene);
    InstancedMeshNode& boxes = addBoxes(scene);
    boxes.addInstance(at(0.0f, 2.5f, 4.5f), {1, 0, 0, 1});  // nearer the eye: another cascade
    lightFromAbove(scene);
    scene.light.shadow.distance = 20.0f;
    for (const std::uint32_t cascades : {2u, 3u, 4u}) {
        scene.light.shadow.cascades = cascades;
        const Image image = fixture.render(scene);
        INFO(cascades << " cascades");
        CHECK_COLOUR(isShadowed, fixture.at(image, {-3.0f, 0.0f, 0.0f}));
        CHECK_COLOUR(isShadowed, fixture.at(image, {3.0f, 0.0f, 0.0f}));
        CHECK_COLOUR(isShadowed, fixture.at(image, {0.0f, 0.0f, -3.0f}));
        CHECK_COLOUR(isShadowed, fixture.at(image, {0.0f, 0.0f, 4.5f}));
        CHECK_COLOUR(isLit, fixture.at(image, {0.0f, 0.0f, 0.0f}));
        CHECK_COLOUR(isLit, fixture.at(image, {1.5f, 0.0f, 1.5f}));
        CHECK_COLOUR(isLit, fixture.at(image, {-2.0f, 0.0f, 3.5f}));
        const gl::ShadowMapInfo& map = fixture.renderer.shadowMap();
        CHECK(fixture.renderer.lastFrameStats().views == 1 + cascades);
        CHECK(map.cascadeCount == cascades);
        for (std::uint32_t c = 1; c < cascades; ++c) {
            CHECK(map.cascades[c - 1].viewDepthEnd < map.cascades[c].viewDepthEnd);
            CHECK(map.cascades[c - 1].texelWorldSize < map.cascades[c].texelWorldSize);
        }
        CHECK(map.cascades[cascades - 1].viewDepthEnd == Approx(20.0f));
        // Each cascade draws the batch in one draw (or none when out of its box).
        CHECK(map.drawCalls <= 2 * cascades);
    }
}
