// Lamp shadows (docs/lighting.md, "Lamp shadows"): spot and point lamps draw depth tiles of one
// atlas, within Scene::lampShadows' budget; caster faces, shadowCasting modes and the static
// cache, against pixels worked out by hand.
//
// The layout every test uses, seen by orthoCamera() (down -Z onto the XY plane, x and y in
// [-1, 1] filling the 64 x 64 target): a white Lambert floor at z = 0, a lamp 1 m above the
// origin at (0, 0, 1), and a 0.2 x 0.2 caster quad halfway up at z = 0.5 centred on
// (0.3, 0): it covers x in [0.2, 0.4], y in [-0.1, 0.1], and its shadow, projected from the lamp
// onto the floor (twice as far from the lamp as the caster), covers x in [0.4, 0.8], y in
// [-0.2, 0.2]. Pixel column c has its centre at x = -1 + (c + 0.5) / 32, row r at
// y = 1 - (r + 0.5) / 32.
#include "support/GlCallLog.h"
#include "support/GlTest.h"
#include "support/LightingTest.h"

#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/LightNode.h"
#include "myriad/core/MeshNode.h"
#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/gl/FrameStats.h"
#include "myriad/gl/Renderer.h"
#include "myriad/util/Error.h"

#include <glm/gtc/constants.hpp>
#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/quaternion.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

using namespace myriad;
using namespace myriad::test;

namespace {

constexpr float kPi = glm::pi<float>();

/** Pixel columns and rows of the layout (see the file comment). */
constexpr std::uint32_t kShadowColumn = 51;    // x = 0.609: in the middle of the shadow
constexpr std::uint32_t kFarEdgeInside = 56;   // x = 0.766: 0.034 inside the shadow's far edge (0.8)
constexpr std::uint32_t kFarEdgeOutside = 58;  // x = 0.828: 0.028 beyond it
constexpr std::uint32_t kNearEdgeInside = 45;  // x = 0.422: 0.022 inside its near edge (0.4); the caster ends at 0.4
constexpr std::uint32_t kMirrorColumn = 12;    // x = -0.609: the other side of the lamp, never shadowed
constexpr std::uint32_t kCasterColumn = 41;    // x = 0.297: under the caster
constexpr std::uint32_t kMiddleRow = 32;       // y = -0.016
constexpr std::uint32_t kAboveEdgeRow = 24;    // y = 0.234: beyond the shadow's edge at y = 0.2
constexpr std::uint32_t kBelowEdgeRow = 26;    // y = 0.172: inside it

/** The layout in a group node turned by @p turn (lamp, floor and caster together), so a point
 *  lamp's floor can lie along any of its cube's six axes; the camera turns with it. */
struct Layout {
    Scene scene;
    SceneNode* group = nullptr;
    LightNode* lamp = nullptr;
    MeshNode* floor = nullptr;
    MeshNode* caster = nullptr;

    Layout(LightType type, const glm::quat& turn = glm::quat(1.0f, 0.0f, 0.0f, 0.0f)) {
        scene.light.intensity = 0.0f;  // lit by the lamp alone
        scene.ambient = glm::vec3(0.0f);
        group = &scene.root().emplace<SceneNode>("group");
        group->setRotation(turn);
        floor = &group->emplace<MeshNode>(MeshGeometry::create(shapes::quad(2.0f, 2.0f), "floor"), lambert(1.0f), "floor");
        caster = &group->emplace<MeshNode>(MeshGeometry::create(shapes::quad(0.2f, 0.2f), "caster"),
                                           unlit(glm::vec4(1.0f, 0.0f, 0.0f, 1.0f)), "caster");
        caster->setPosition({0.3, 0.0, 0.5});
        lamp = &group->emplace<LightNode>(type, "lamp");
        lamp->setPosition({0.0, 0.0, 1.0});
        lamp->setIntensity(1.0f);
        lamp->setRange(10.0f);
        if (type == LightType::Spot) {
            lamp->lookAt({0.0, 0.0, 0.0}, glm::vec3(0.0f, 1.0f, 0.0f));  // straight down (in the group)
            lamp->setConeAngles(glm::radians(50.0f), glm::radians(60.0f));
        }
        lamp->setCastsShadow(true);
        LightNode::LampShadow settings;
        settings.filterRadius = 0;  // one 2 x 2 compared tap: edges within a texel or two
        lamp->setShadow(settings);
    }

    /** orthoCamera() turned with the group. */
    [[nodiscard]] Camera camera(const glm::quat& turn) const {
        Camera camera = orthoCamera();
        camera.lookAt(glm::dvec3(turn * glm::vec3(0.0f, 0.0f, 10.0f)), glm::dvec3(0.0), turn * glm::vec3(0.0f, 1.0f, 0.0f));
        return camera;
    }
};

/** The lamp's radiance off the white floor at (x, y) in the layout, unshadowed: a point or a spot
 *  well inside its inner cone (every point of the floor the tests read is within 40 degrees). */
float floorRadiance(float x, float y) {
    const float d2 = 1.0f + x * x + y * y;
    const float cosine = 1.0f / std::sqrt(d2);
    const float window = std::pow(1.0f - std::pow(d2 / 100.0f, 2.0f), 2.0f);
    return 1.0f / kPi * (1.0f / d2) * cosine * window;
}

float centreX(std::uint32_t column) { return -1.0f + (static_cast<float>(column) + 0.5f) / 32.0f; }
float centreY(std::uint32_t row) { return 1.0f - (static_cast<float>(row) + 0.5f) / 32.0f; }

/** Pixel (column, row) of @p image is the lit floor there (within 2/255). */
void checkLit(const Image& image, std::uint32_t column, std::uint32_t row) {
    const Rgba c = pixelAt(image, column, row);
    INFO("pixel (" << column << ", " << row << ") " << describe(c) << ", lit floor "
                   << encoded(floorRadiance(centreX(column), centreY(row))));
    CHECK(std::abs(c[1] - encoded(floorRadiance(centreX(column), centreY(row)))) <= 2);
    CHECK(std::abs(c[0] - c[1]) <= 1);
}

/** Pixel (column, row) is in the lamp's shadow: black (no ambient, no other light). */
void checkShadowed(const Image& image, std::uint32_t column, std::uint32_t row) {
    const Rgba c = pixelAt(image, column, row);
    INFO("pixel (" << column << ", " << row << ") " << describe(c) << ", shadowed: black");
    CHECK(c[0] <= 2);
    CHECK(c[1] <= 2);
    CHECK(c[2] <= 2);
}

} // namespace

TEST_CASE("lamp shadow: a spot lamp's shadow edges fall on the predicted pixels", "[lampshadow][pixels]") {
    RenderFixture fixture;
    Layout layout(LightType::Spot);
    const Image image = fixture.render(layout.scene);
    CHECK(fixture.renderer.lastFrameStats().shadowedLamps == 1);
    checkShadowed(image, kShadowColumn, kMiddleRow);
    checkShadowed(image, kFarEdgeInside, kMiddleRow);
    checkLit(image, kFarEdgeOutside, kMiddleRow);
    checkShadowed(image, kNearEdgeInside, kMiddleRow);
    checkShadowed(image, kShadowColumn, kBelowEdgeRow);
    checkLit(image, kShadowColumn, kAboveEdgeRow);
    checkLit(image, kMirrorColumn, kMiddleRow);
    // The caster itself, unlit red, where it stands.
    CHECK(near(pixelAt(image, kCasterColumn, kMiddleRow), Rgba{255, 0, 0, 255}, 1));

    SECTION("the same lamp without setCastsShadow lights the floor there") {
        layout.lamp->setCastsShadow(false);
        const Image plain = fixture.render(layout.scene);
        CHECK(fixture.renderer.lastFrameStats().shadowedLamps == 0);
        checkLit(plain, kShadowColumn, kMiddleRow);
        checkLit(plain, kFarEdgeInside, kMiddleRow);
    }
    SECTION("a node that does not receive stays lit") {
        layout.floor->setReceivesShadow(false);
        checkLit(fixture.render(layout.scene), kShadowColumn, kMiddleRow);
    }
}

TEST_CASE("lamp shadow: a point lamp shadows along each of its cube's six axes", "[lampshadow][pixels]") {
    // The floor below the lamp along -Z in the group; the group turned so that axis becomes each
    // world axis in turn: the shadow must land on the same pixels through each cube face.
    const std::pair<const char*, glm::vec3> axes[] = {
        {"+X", {1, 0, 0}}, {"-X", {-1, 0, 0}}, {"+Y", {0, 1, 0}}, {"-Y", {0, -1, 0}}, {"+Z", {0, 0, 1}}, {"-Z", {0, 0, -1}},
    };
    for (const auto& [name, axis] : axes) {
        DYNAMIC_SECTION("the floor along " << name) {
            // A turn taking -Z (lamp to floor) to the axis: a quarter turn about -Z x axis, a half
            // turn about X for +Z, none for -Z.
            const glm::vec3 from(0.0f, 0.0f, -1.0f);
            glm::quat turn(1.0f, 0.0f, 0.0f, 0.0f);
            if (axis.z > 0.5f) {
                turn = glm::angleAxis(kPi, glm::vec3(1.0f, 0.0f, 0.0f));
            } else if (axis.z > -0.5f) {
                turn = glm::angleAxis(0.5f * kPi, glm::normalize(glm::cross(from, axis)));
            }
            RenderFixture fixture;
            Layout layout(LightType::Point, turn);
            fixture.camera = layout.camera(turn);
            const Image image = fixture.render(layout.scene);
            CHECK(fixture.renderer.lastFrameStats().shadowedLamps == 1);
            checkShadowed(image, kShadowColumn, kMiddleRow);
            checkShadowed(image, kFarEdgeInside, kMiddleRow);
            checkLit(image, kFarEdgeOutside, kMiddleRow);
            checkShadowed(image, kShadowColumn, kBelowEdgeRow);
            checkLit(image, kShadowColumn, kAboveEdgeRow);
            checkLit(image, kMirrorColumn, kMiddleRow);
        }
    }
}

TEST_CASE("lamp shadow: ShadowsOnly casts but is not drawn, Off does not cast", "[lampshadow][pixels]") {
    RenderFixture fixture;
    Layout layout(LightType::Spot);
    SECTION("ShadowsOnly: the floor shows under the caster, the shadow stays") {
        layout.caster->setShadowCasting(ShadowCasting::ShadowsOnly);
        CHECK(layout.caster->castsShadow());
        const Image image = fixture.render(layout.scene);
        checkLit(image, kCasterColumn, kMiddleRow);  // the floor, not the red caster
        checkShadowed(image, kShadowColumn, kMiddleRow);
    }
    SECTION("Off (setCastsShadow(false)): drawn, no shadow") {
        layout.caster->setCastsShadow(false);
        CHECK(layout.caster->shadowCasting() == ShadowCasting::Off);
        const Image image = fixture.render(layout.scene);
        CHECK(near(pixelAt(image, kCasterColumn, kMiddleRow), Rgba{255, 0, 0, 255}, 1));
        checkLit(image, kShadowColumn, kMiddleRow);
    }
}

TEST_CASE("lamp shadow: casterFaces picks the faces that cast, castsShadowFromEveryFace overrides it", "[lampshadow][pixels]") {
    RenderFixture fixture;
    Layout layout(LightType::Spot);
    // The caster turned over: its front face looks down, away from the lamp, which sees its back.
    layout.caster->setRotation(glm::angleAxis(kPi, glm::vec3(1.0f, 0.0f, 0.0f)));
    SECTION("Front (the default): its back faces the lamp and is culled: no shadow") {
        checkLit(fixture.render(layout.scene), kShadowColumn, kMiddleRow);
        SECTION("castsShadowFromEveryFace: it casts anyway") {
            layout.caster->setCastsShadowFromEveryFace(true);
            checkShadowed(fixture.render(layout.scene), kShadowColumn, kMiddleRow);
        }
    }
    SECTION("Back: the face the lamp sees casts") {
        layout.scene.light.shadow.casterFaces = CasterFaces::Back;
        checkShadowed(fixture.render(layout.scene), kShadowColumn, kMiddleRow);
    }
    SECTION("Both: casts") {
        layout.scene.light.shadow.casterFaces = CasterFaces::Both;
        checkShadowed(fixture.render(layout.scene), kShadowColumn, kMiddleRow);
    }
    SECTION("the caster upright again under Back: its back faces away, nothing casts") {
        layout.caster->setRotation(glm::quat(1.0f, 0.0f, 0.0f, 0.0f));
        layout.scene.light.shadow.casterFaces = CasterFaces::Back;
        checkLit(fixture.render(layout.scene), kShadowColumn, kMiddleRow);
    }
}

TEST_CASE("lamp shadow: lamps beyond the budget light unshadowed, the nearest are chosen", "[lampshadow][pixels]") {
    RenderFixture fixture;
    Layout layout(LightType::Spot);
    // A second shadowed spot that lights nothing the tests read (its range ends far from the
    // floor), either nearer the eye (0, 0, 10) than the layout's lamp or farther. The eye is
    // inside both spheres at first (0.2 m from this one, 9 m from the layout's, range 10): the
    // distance to the lamp decides.
    auto& other = layout.scene.root().emplace<LightNode>(LightType::Spot, "other");
    other.setPosition({0.0, 0.0, 9.8});
    other.lookAt({0.0, 0.0, 20.0});
    other.setRange(0.5f);
    other.setCastsShadow(true);
    layout.scene.lampShadows.maxLamps = 1;
    SECTION("the other lamp is nearer the eye: it takes the one slot, the floor is unshadowed") {
        checkLit(fixture.render(layout.scene), kShadowColumn, kMiddleRow);
        CHECK(fixture.renderer.lastFrameStats().shadowedLamps == 1);
    }
    SECTION("moved farther: the layout's lamp is shadowed, frame after frame") {
        other.setPosition({0.0, 0.0, -8.0});  // 17.5 m from the eye to its sphere
        for (int frame = 0; frame < 2; ++frame) {
            checkShadowed(fixture.render(layout.scene), kShadowColumn, kMiddleRow);
        }
    }
    SECTION("maxLamps 2: both") {
        layout.scene.lampShadows.maxLamps = 2;
        checkShadowed(fixture.render(layout.scene), kShadowColumn, kMiddleRow);
        CHECK(fixture.renderer.lastFrameStats().shadowedLamps == 2);
    }
}

TEST_CASE("lamp shadow: a point lamp needs six tiles", "[lampshadow][pixels]") {
    RenderFixture fixture;
    Layout layout(LightType::Point);
    layout.scene.lampShadows.atlasSize = 1024;
    SECTION("four tiles of 512: it does not fit, unshadowed") {
        layout.scene.lampShadows.tileSize = 512;
        checkLit(fixture.render(layout.scene), kShadowColumn, kMiddleRow);
        CHECK(fixture.renderer.lastFrameStats().shadowedLamps == 0);
    }
    SECTION("sixteen tiles of 256: shadowed") {
        layout.scene.lampShadows.tileSize = 256;
        checkShadowed(fixture.render(layout.scene), kShadowColumn, kMiddleRow);
    }
}

TEST_CASE("lamp shadow: bad budgets and settings throw", "[lampshadow]") {
    RenderFixture fixture;
    Layout layout(LightType::Spot);
    SECTION("a tile that does not divide the atlas") {
        layout.scene.lampShadows.tileSize = 300;
        CHECK_THROWS_AS(fixture.render(layout.scene), InvalidArgument);
    }
    SECTION("an atlas past GL_MAX_TEXTURE_SIZE and 16384") {
        layout.scene.lampShadows.atlasSize = 32768;
        CHECK_THROWS_AS(fixture.render(layout.scene), InvalidArgument);
    }
    SECTION("LightNode::setShadow") {
        LightNode::LampShadow settings;
        settings.filterRadius = 5;
        CHECK_THROWS_AS(layout.lamp->setShadow(settings), InvalidArgument);
        CHECK(layout.lamp->shadow().filterRadius == 0);  // as it was
        settings = {};
        settings.nearPlane = 0.0f;
        CHECK_THROWS_AS(layout.lamp->setShadow(settings), InvalidArgument);
    }
    SECTION("a light's castsShadow is off until asked") {
        const LightNode light(LightType::Point);
        CHECK_FALSE(light.castsShadow());
    }
}

TEST_CASE("lamp shadow: a moving dynamic caster does not redraw the static map", "[lampshadow][pixels][calllog]") {
    RenderFixture fixture;
    Layout layout(LightType::Spot);
    layout.caster->setShadowIsStatic(true);
    // A dynamic caster on the other side, mirrored: x in [-0.4, -0.2], shadow x in [-0.8, -0.4].
    auto& mover = layout.group->emplace<MeshNode>(MeshGeometry::create(shapes::quad(0.2f, 0.2f), "mover"),
                                                  unlit(glm::vec4(0.0f, 0.0f, 1.0f, 1.0f)), "mover");
    mover.setPosition({-0.3, 0.0, 0.5});
    const std::uint32_t moverShadow = 63 - kShadowColumn;  // x = -0.609

    Image image = fixture.render(layout.scene);
    CHECK(fixture.renderer.lastFrameStats().lampShadowStaticDraws == 1);
    checkShadowed(image, kShadowColumn, kMiddleRow);
    checkShadowed(image, moverShadow, kMiddleRow);

    // Which framebuffer is the cache's: its label.
    const auto labelOf = [](GLuint framebuffer) {
        char label[128] = {};
        GLsizei length = 0;
        glGetObjectLabel(GL_FRAMEBUFFER, framebuffer, sizeof(label), &length, label);
        return std::string(label, static_cast<std::size_t>(length));
    };
    // Draws issued while the cache's framebuffer was bound, in the logged calls.
    const auto cacheDraws = [&](const GlCallLog& log) {
        bool inCache = false;
        int draws = 0;
        for (const GlCall& call : log.calls()) {
            if (call.function == "glBindFramebuffer") {
                inCache = labelOf(call.argument<GLuint>(1)) == "myriad/Renderer.lamp-shadow-cache-framebuffer";
            } else if (inCache && (call.function.starts_with("glDraw") || call.function.starts_with("glMultiDraw"))) {
                ++draws;
            }
        }
        return draws;
    };

    SECTION("the dynamic caster moves: the static tile is copied, not drawn") {
        mover.setPosition({-0.3, 0.3, 0.5});  // shadow now y in [0.4, 0.8] (rows 6..19), x as before
        GlCallLog log;
        MYRIAD_GL_CALL_LOG_HOOK(log, glBindFramebuffer);
        MYRIAD_GL_CALL_LOG_HOOK(log, glCopyImageSubData);
        image = fixture.render(layout.scene);
        CHECK(cacheDraws(log) == 0);
        CHECK(log.callsTo("glCopyImageSubData").size() == 1);
        CHECK(fixture.renderer.lastFrameStats().lampShadowStaticDraws == 0);
        checkShadowed(image, kShadowColumn, kMiddleRow);  // the static caster's shadow, from the cache
        checkLit(image, moverShadow, kMiddleRow);         // the mover's old shadow is gone
        checkShadowed(image, moverShadow, 13);            // and at its new place (y = 0.578)
    }
    SECTION("the static caster moves: the static tile is drawn again") {
        layout.caster->setPosition({0.3, -0.3, 0.5});  // shadow y in [-0.8, -0.4] (rows 44..57)
        GlCallLog log;
        MYRIAD_GL_CALL_LOG_HOOK(log, glBindFramebuffer);
        image = fixture.render(layout.scene);
        CHECK(cacheDraws(log) >= 1);
        CHECK(fixture.renderer.lastFrameStats().lampShadowStaticDraws == 1);
        checkLit(image, kShadowColumn, kMiddleRow);
        checkShadowed(image, kShadowColumn, 51);  // y = -0.609
    }
    SECTION("the lamp moves: drawn again") {
        layout.lamp->setPosition({0.0, 0.0, 1.0001});
        GlCallLog log;
        MYRIAD_GL_CALL_LOG_HOOK(log, glBindFramebuffer);
        (void)fixture.render(layout.scene);
        CHECK(cacheDraws(log) >= 1);
    }
    SECTION("nothing moves: nothing drawn into the cache") {
        GlCallLog log;
        MYRIAD_GL_CALL_LOG_HOOK(log, glBindFramebuffer);
        (void)fixture.render(layout.scene);
        CHECK(cacheDraws(log) == 0);
    }
    SECTION("without the cache: every caster every frame, the same picture") {
        layout.scene.lampShadows.staticCache = false;
        mover.setPosition({-0.3, 0.3, 0.5});
        GlCallLog log;
        MYRIAD_GL_CALL_LOG_HOOK(log, glCopyImageSubData);
        image = fixture.render(layout.scene);
        CHECK(log.callsTo("glCopyImageSubData").empty());
        checkShadowed(image, kShadowColumn, kMiddleRow);
        checkShadowed(image, moverShadow, 13);
    }
}

TEST_CASE("lamp shadow: directionalCasterFaces picks the faces that cast into the sun's cascades", "[lampshadow][shadows][pixels]") {
    RenderFixture fixture;
    Layout layout(LightType::Spot);
    layout.lamp->setVisible(false);  // the sun alone
    layout.scene.light.intensity = 1.0f;
    layout.scene.light.direction = {0.0f, 0.0f, -1.0f};  // straight down: the shadow right under the caster
    layout.scene.light.shadow.enabled = true;
    layout.scene.light.shadow.distance = 20.0f;
    // Turned over: its front face looks down, so the camera (and a sun drawing front faces) culls it.
    layout.caster->setRotation(glm::angleAxis(kPi, glm::vec3(1.0f, 0.0f, 0.0f)));
    // The floor under the caster, x = 0.297: white Lambert facing a sun of intensity 1 shows 1.
    SECTION("Front: nothing casts, the floor is lit") {
        CHECK(pixelAt(fixture.render(layout.scene), kCasterColumn, kMiddleRow)[1] >= 253);
    }
    SECTION("Back: the face the sun sees casts") {
        layout.scene.light.shadow.directionalCasterFaces = CasterFaces::Back;
        CHECK(pixelAt(fixture.render(layout.scene), kCasterColumn, kMiddleRow)[1] <= 2);
    }
    SECTION("castsShadowFromEveryFace: casts under Front") {
        layout.caster->setCastsShadowFromEveryFace(true);
        CHECK(pixelAt(fixture.render(layout.scene), kCasterColumn, kMiddleRow)[1] <= 2);
    }
}

TEST_CASE("readGpuCulledInstances numbers passes: the shadow passes, then the views given", "[lampshadow][gpu-culling]") {
    RenderFixture fixture;
    Scene scene;
    darken(scene);
    auto& lamp = scene.root().emplace<LightNode>(LightType::Point, "bulb");
    lamp.setPosition({0.0, 0.0, 2.0});
    lamp.setRange(10.0f);
    auto& batch = scene.root().emplace<InstancedMeshNode>(MeshGeometry::create(shapes::quad(0.3f, 0.3f), "tile"),
                                                          lambert(1.0f), 2, "tiles");
    batch.setInstanceCulling(InstanceCulling::Gpu);
    batch.addInstance(glm::translate(glm::mat4(1.0f), glm::vec3(-0.4f, 0.0f, 0.0f)));
    batch.addInstance(glm::translate(glm::mat4(1.0f), glm::vec3(0.4f, 0.0f, 0.0f)));
    auto viewList = [&] {
        const auto list = fixture.renderer.readGpuCulledInstances(batch, fixture.renderer.shadowPassCount());
        REQUIRE(list.has_value());
        std::vector<std::uint32_t> sorted = *list;
        std::sort(sorted.begin(), sorted.end());
        return sorted;
    };
    (void)fixture.render(scene);
    CHECK(fixture.renderer.shadowPassCount() == 0u);  // no shadows: pass k is view k
    CHECK(viewList() == std::vector<std::uint32_t>{0u, 1u});
    lamp.setCastsShadow(true);  // a cube of six tiles
    for (int frame = 0; frame < 2; ++frame) {
        (void)fixture.render(scene);
        INFO("frame " << frame << ": " << fixture.renderer.shadowPassCount() << " shadow passes");
        REQUIRE(fixture.renderer.lastFrameStats().shadowedLamps == 1u);
        CHECK(fixture.renderer.shadowPassCount() >= 6u);
        CHECK(viewList() == std::vector<std::uint32_t>{0u, 1u});
        // The tile facing the batch (-Z, towards the wall) culled it too: some shadow pass has a list.
        bool aShadowPassCulledIt = false;
        for (std::size_t p = 0; p < fixture.renderer.shadowPassCount(); ++p) {
            aShadowPassCulledIt = aShadowPassCulledIt || fixture.renderer.readGpuCulledInstances(batch, p).has_value();
        }
        CHECK(aShadowPassCulledIt);
        CHECK_FALSE(fixture.renderer.readGpuCulledInstances(batch, fixture.renderer.shadowPassCount() + 1).has_value());
    }
}
