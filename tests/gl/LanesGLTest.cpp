// Shader data on screen: per-instance lanes (exact, zero when unset, following swap-remove and
// growth, at the last instance of a 100,000-instance batch), a MeshNode's lanes, the material
// index two materials over one shader branch on, and the identity table's life cycle.
#include "support/GlTest.h"

#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/core/SurfaceShader.h"
#include "myriad/util/Error.h"

#include <memory>
#include <string>

using namespace myriad;
using namespace myriad::test;

namespace {

constexpr std::uint32_t kSize = RenderFixture::kSize;


/** Shows lanes[0].rgb as the colour (0 or 1 channels). */
Material laneColour() {
    Material material = unlit();
    material.name = "lane-colour";
    material.surface = SurfaceShader::fromSource("lane-colour.glsl",
                                                 "SurfaceOutput surface(SurfaceInput s) {\n"
                                                 "    return SurfaceOutput(s.lanes[0].rgb, 1.0);\n"
                                                 "}\n");
    return material;
}

/** Green where the four lanes hold exactly kExact, blue where all are exactly zero, red
 *  otherwise. */
Material exactCheck() {
    Material material = unlit();
    material.name = "exact";
    material.surface = SurfaceShader::fromSource(
        "exact.glsl",
        "SurfaceOutput surface(SurfaceInput s) {\n"
        "    bool exact = s.lanes[0] == vec4(0.1, 16777215.0, -3.5e-20, 1.0e30) &&\n"
        "                 s.lanes[1] == vec4(-1.0, 0.333333343, 8388609.0, 2.0) &&\n"
        "                 s.lanes[2] == vec4(0.0) && s.lanes[3] == vec4(123.456, -0.0, 1.0, 65504.0);\n"
        "    bool zero = s.lanes[0] == vec4(0.0) && s.lanes[1] == vec4(0.0) &&\n"
        "                s.lanes[2] == vec4(0.0) && s.lanes[3] == vec4(0.0);\n"
        "    return SurfaceOutput(exact ? vec3(0, 1, 0) : zero ? vec3(0, 0, 1) : vec3(1, 0, 0), 1.0);\n"
        "}\n");
    return material;
}

const glm::vec4 kExact[4] = {{0.1f, 16777215.0f, -3.5e-20f, 1.0e30f},
                             {-1.0f, 0.333333343f, 8388609.0f, 2.0f},
                             {0.0f, 0.0f, 0.0f, 0.0f},
                             {123.456f, -0.0f, 1.0f, 65504.0f}};

/** Lane k's test value: exact in float, distinct per lane, none zero. */
glm::vec4 laneValue(std::size_t k) {
    const auto f = static_cast<float>(k);
    return {f + 0.25f, -f - 1.0f, 1.0e20f, 3.0f * f + 1.0f};
}

/** How many leading lanes hold laneValue(k) exactly (the prefix), all eight read: green for 8,
 *  blue for 4, white for 1, yellow for 0, magenta for another count; red when a lane past the
 *  prefix is not exactly zero. */
Material prefixCheck() {
    Material material = unlit();
    material.name = "prefix";
    material.surface = SurfaceShader::fromSource(
        "prefix.glsl",
        "SurfaceOutput surface(SurfaceInput s) {\n"
        "    int prefix = 0;\n"
        "    while (prefix < 8 && s.lanes[prefix] == vec4(float(prefix) + 0.25, -float(prefix) - 1.0, 1.0e20,\n"
        "                                                 3.0 * float(prefix) + 1.0)) {\n"
        "        ++prefix;\n"
        "    }\n"
        "    for (int lane = prefix; lane < 8; ++lane) {\n"
        "        if (s.lanes[lane] != vec4(0.0)) {\n"
        "            return SurfaceOutput(vec3(1, 0, 0), 1.0);\n"
        "        }\n"
        "    }\n"
        "    vec3 colour = prefix == 8 ? vec3(0, 1, 0) : prefix == 4 ? vec3(0, 0, 1) : prefix == 1 ? vec3(1)\n"
        "                : prefix == 0 ? vec3(1, 1, 0) : vec3(1, 0, 1);\n"
        "    return SurfaceOutput(colour, 1.0);\n"
        "}\n");
    return material;
}

constexpr Rgba kYellow{255, 255, 0, 255};

} // namespace

TEST_CASE("a batch of eight lanes reads all eight exact, a one-lane batch zeros past its first", "[lanes][pixels]") {
    RenderFixture f;
    Scene scene;
    auto& wide = scene.root().emplace<InstancedMeshNode>(quadMesh(), prefixCheck(), 3, "wide",
                                                         InstancedMeshOptions{.laneCount = 8});
    wide.addInstance(at(-0.5f, 0.0f));
    wide.addInstance(at(0.0f, 0.0f));
    wide.addInstance(at(0.5f, 0.0f));
    for (std::size_t lane = 0; lane < 8; ++lane) {
        wide.setLane(0, lane, laneValue(lane));
    }
    for (std::size_t lane = 0; lane < 4; ++lane) {
        wide.setLane(1, lane, laneValue(lane));
    }
    wide.setLane(2, 0, laneValue(0));
    auto& narrow = scene.root().emplace<InstancedMeshNode>(quadMesh(), prefixCheck(), 1, "narrow",
                                                           InstancedMeshOptions{.laneCount = 1});
    narrow.addInstance(at(0.0f, 0.5f));
    narrow.setLane(0, 0, laneValue(0));
    CHECK_THROWS_AS(narrow.setLane(0, 1, laneValue(1)), OutOfRange);
    // A MeshNode's four lanes (the table-driven path's draw row), lanes 4..7 zero.
    auto& single = scene.root().emplace<MeshNode>(quadMesh(), prefixCheck(), "single");
    single.setPosition(glm::dvec3(0.0, -0.5, 0.0));
    for (std::size_t lane = 0; lane < 4; ++lane) {
        single.setShaderData(lane, laneValue(lane));
    }

    Image image = f.render(scene);
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), kSize / 2, kGreen);
    MYRIAD_CHECK_PIXEL(image, kSize / 2, kSize / 2, kBlue);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), kSize / 2, kWhite);
    MYRIAD_CHECK_PIXEL(image, kSize / 2, pixelY(0.5f, kSize), kWhite);
    MYRIAD_CHECK_PIXEL(image, kSize / 2, pixelY(-0.5f, kSize), kBlue);

    // One changed row is laneCount * 16 bytes on the wire: 128 for the wide batch, 16 for the
    // narrow one.
    wide.setLane(2, 7, laneValue(7));
    image = f.render(scene);
    CHECK(f.renderer.lastFrameStats().bytesUploaded == 128);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), kSize / 2, kRed);  // lane 7 set past a prefix of 1
    narrow.setLane(0, 0, laneValue(0));
    (void)f.render(scene);
    CHECK(f.renderer.lastFrameStats().bytesUploaded == 16);
}

TEST_CASE("changing a batch's lane count between frames keeps the lanes both counts have", "[lanes][pixels]") {
    RenderFixture f;
    Scene scene;
    auto& batch = scene.root().emplace<InstancedMeshNode>(quadMesh(), prefixCheck(), 3, "reshaped");
    REQUIRE(batch.laneCount() == 4);
    batch.addInstance(at(-0.5f, 0.0f));
    batch.addInstance(at(0.0f, 0.0f));
    batch.addInstance(at(0.5f, 0.0f));
    for (std::size_t lane = 0; lane < 4; ++lane) {
        batch.setLane(0, lane, laneValue(lane));
        batch.setLane(2, lane, laneValue(lane));
    }
    batch.setLane(1, 0, laneValue(0));
    Image image = f.render(scene);
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), kSize / 2, kBlue);
    MYRIAD_CHECK_PIXEL(image, kSize / 2, kSize / 2, kWhite);

    // Up to eight: the GPU copy must grow with the rows (128 bytes each, the same capacity),
    // every drawn row is sent again, and the new lanes read zero until set.
    batch.setLaneCount(8);
    for (std::size_t lane = 4; lane < 8; ++lane) {
        batch.setLane(0, lane, laneValue(lane));
    }
    image = f.render(scene);
    CHECK(f.renderer.lastFrameStats().bytesUploaded == 3 * 128);
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), kSize / 2, kGreen);
    MYRIAD_CHECK_PIXEL(image, kSize / 2, kSize / 2, kWhite);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), kSize / 2, kBlue);

    // Down to four: lanes 4..7 are gone; every drawn row is sent again at 64 bytes.
    batch.setLaneCount(4);
    image = f.render(scene);
    CHECK(f.renderer.lastFrameStats().bytesUploaded == 3 * 64);
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), kSize / 2, kBlue);
    MYRIAD_CHECK_PIXEL(image, kSize / 2, kSize / 2, kWhite);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), kSize / 2, kBlue);
    batch.setLaneCount(8);  // and back: what was dropped stays dropped
    image = f.render(scene);
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), kSize / 2, kBlue);

    // None: the stream is freed and every instance reads zeros. Lanes given again later start
    // from zeros in every row, on the GPU too (the old rows are not read back).
    batch.setLaneCount(0);
    CHECK_FALSE(batch.hasLanes());
    image = f.render(scene);
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), kSize / 2, kYellow);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), kSize / 2, kYellow);
    batch.setLaneCount(8);
    batch.setLane(1, 0, laneValue(0));
    image = f.render(scene);
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), kSize / 2, kYellow);
    MYRIAD_CHECK_PIXEL(image, kSize / 2, kSize / 2, kWhite);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), kSize / 2, kYellow);
}

TEST_CASE("eight lanes reach the surface of a CPU-culled batch by the drawn instance's index", "[lanes][pixels]") {
    RenderFixture f;
    Scene scene;
    auto& batch = scene.root().emplace<InstancedMeshNode>(quadMesh(), prefixCheck(), 3, "culled",
                                                          InstancedMeshOptions{.laneCount = 8});
    batch.setInstanceCulling(InstanceCulling::Cpu);
    batch.addInstance(at(50.0f, 0.0f));  // culled: the drawn list starts at instance 1
    batch.addInstance(at(-0.5f, 0.0f));
    batch.addInstance(at(0.5f, 0.0f));
    for (std::size_t lane = 0; lane < 8; ++lane) {
        batch.setLane(0, lane, laneValue(lane));  // would show as green if read in place of 1
        batch.setLane(2, lane, laneValue(lane));
    }
    batch.setLane(1, 0, laneValue(0));
    const Image image = f.render(scene);
    CHECK(f.renderer.lastFrameStats().instances == 2);
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), kSize / 2, kWhite);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), kSize / 2, kGreen);
}

TEST_CASE("lanes are exact at the last instance of a 100,000-instance batch and zero when unset", "[lanes][pixels]") {
    RenderFixture f;
    Scene scene;
    constexpr std::size_t kCount = 100000;
    auto& batch = scene.root().emplace<InstancedMeshNode>(quadMesh(), exactCheck(), kCount, "many");
    for (std::size_t i = 0; i < kCount - 2; ++i) {
        batch.addInstance(at(50.0f, 0.0f));  // off screen
    }
    batch.addInstance(at(-0.5f, 0.0f));  // kCount - 2: no lanes given
    batch.addInstance(at(0.5f, 0.0f));   // the last
    for (std::size_t lane = 0; lane < 4; ++lane) {
        batch.setLane(kCount - 1, lane, kExact[lane]);
    }
    // A batch that never set a lane (no stream at all) reads zero too, as does a MeshNode.
    auto& plain = scene.root().emplace<InstancedMeshNode>(quadMesh(), exactCheck(), 1, "plain");
    plain.addInstance(at(0.0f, 0.5f));
    auto& single = scene.root().emplace<MeshNode>(quadMesh(), exactCheck(), "single");
    single.setPosition(glm::dvec3(0.0, -0.5, 0.0));

    Image image = f.render(scene);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), kSize / 2, kGreen);
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), kSize / 2, kBlue);
    MYRIAD_CHECK_PIXEL(image, kSize / 2, pixelY(0.5f, kSize), kBlue);
    MYRIAD_CHECK_PIXEL(image, kSize / 2, pixelY(-0.5f, kSize), kBlue);

    // The next frame sends only the changed row: 64 bytes of lanes.
    batch.setLane(kCount - 2, 0, glm::vec4(1.0f));
    image = f.render(scene);
    CHECK(f.renderer.lastFrameStats().bytesUploaded == 64);
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), kSize / 2, kRed);
    batch.clearLanes(kCount - 2);
    image = f.render(scene);
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), kSize / 2, kBlue);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), kSize / 2, kGreen);
}

TEST_CASE("lanes on screen follow swap-remove and growth", "[lanes][pixels]") {
    RenderFixture f;
    Scene scene;
    auto& batch = scene.root().emplace<InstancedMeshNode>(quadMesh(), laneColour(), 2, "grow",
                                                          InstancedMeshOptions{.growth = Growth::Double});
    const InstanceHandle left = batch.acquire({at(-0.5f, 0.0f)});
    const InstanceHandle middle = batch.acquire({at(0.0f, 0.0f)});
    batch.setLane(left, 0, glm::vec4(1, 0, 0, 0));
    batch.setLane(middle, 0, glm::vec4(0, 1, 0, 0));
    Image image = f.render(scene);
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), kSize / 2, kRed);
    MYRIAD_CHECK_PIXEL(image, kSize / 2, kSize / 2, kGreen);

    // Growth (capacity 2 -> 4): the third instance's lanes, and the first two keep theirs.
    const InstanceHandle right = batch.acquire({at(0.5f, 0.0f)});
    batch.setLane(right, 0, glm::vec4(0, 0, 1, 0));
    REQUIRE(batch.capacity() > 2);
    image = f.render(scene);
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), kSize / 2, kRed);
    MYRIAD_CHECK_PIXEL(image, kSize / 2, kSize / 2, kGreen);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), kSize / 2, kBlue);

    // Swap-remove: the right instance moves into the left's row, with its lanes.
    batch.release(left);
    image = f.render(scene);
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), kSize / 2, kBlack);
    MYRIAD_CHECK_PIXEL(image, kSize / 2, kSize / 2, kGreen);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), kSize / 2, kBlue);
    // A new instance takes the vacated row: it reads zero (black), not the released lanes.
    (void)batch.acquire({at(-0.5f, 0.0f)});
    batch.setLane(middle, 0, glm::vec4(1, 1, 1, 0));
    image = f.render(scene);
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), kSize / 2, kBlack);
    MYRIAD_CHECK_PIXEL(image, kSize / 2, kSize / 2, kWhite);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), kSize / 2, kBlue);
}

TEST_CASE("a MeshNode's lanes reach its surface function, and clear to zero", "[lanes][pixels]") {
    RenderFixture f;
    Scene scene;
    Material material = unlit();
    material.surface = SurfaceShader::fromSource("lane2.glsl",
                                                 "SurfaceOutput surface(SurfaceInput s) {\n"
                                                 "    return SurfaceOutput(s.lanes[2].rgb + s.lanes[3].rgb, 1.0);\n"
                                                 "}\n");
    auto& a = scene.root().emplace<MeshNode>(quadMesh(), material, "a");
    a.setPosition(glm::dvec3(-0.5, 0.0, 0.0));
    auto& b = scene.root().emplace<MeshNode>(quadMesh(), material, "b");
    b.setPosition(glm::dvec3(0.5, 0.0, 0.0));
    a.setShaderData(2, glm::vec4(0, 1, 0, 0));
    b.setShaderData(3, glm::vec4(1, 0, 1, 0));
    Image image = f.render(scene);
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), kSize / 2, kGreen);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), kSize / 2, (Rgba{255, 0, 255, 255}));
    a.clearShaderData();
    image = f.render(scene);
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), kSize / 2, kBlack);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), kSize / 2, (Rgba{255, 0, 255, 255}));
}

TEST_CASE("two materials over one shader branch on the material index in every covered pixel", "[materials][pixels]") {
    RenderFixture f;
    Scene scene;
    auto shader = SurfaceShader::fromSource("which.glsl",
                                            "SurfaceOutput surface(SurfaceInput s) {\n"
                                            "    if (s.materialIndex == 1) return SurfaceOutput(vec3(1, 0, 0), 1.0);\n"
                                            "    if (s.materialIndex == 2) return SurfaceOutput(vec3(0, 1, 0), 1.0);\n"
                                            "    return SurfaceOutput(vec3(0, 0, 1), 1.0);\n"
                                            "}\n");
    Material first = unlit();
    first.name = "first";
    first.surface = shader;
    Material second = first;
    second.name = "second";
    // Big quads so many pixels are covered; instanced and single alike.
    auto& left = scene.root().emplace<InstancedMeshNode>(quadMesh(0.9f), first, 1, "left");
    left.addInstance(at(-0.5f, 0.0f));
    auto& right = scene.root().emplace<MeshNode>(quadMesh(0.9f), second, "right");
    right.setPosition(glm::dvec3(0.5, 0.0, 0.0));
    const Image image = f.render(scene);
    CHECK(f.renderer.materialIndex("first") == 1u);
    CHECK(f.renderer.materialIndex("second") == 2u);
    std::size_t red = 0;
    std::size_t green = 0;
    std::size_t other = 0;
    for (std::uint32_t y = 0; y < kSize; ++y) {
        for (std::uint32_t x = 0; x < kSize; ++x) {
            const Rgba c = pixelAt(image, x, y);
            if (c == Rgba{0, 0, 0, 255}) {
                continue;
            }
            const bool isRed = c == kRed;
            const bool isGreen = c == kGreen;
            red += isRed && x < kSize / 2 ? 1 : 0;
            green += isGreen && x >= kSize / 2 ? 1 : 0;
            other += (isRed && x < kSize / 2) || (isGreen && x >= kSize / 2) ? 0 : 1;
        }
    }
    CHECK(red > 400);
    CHECK(green > 400);
    CHECK(other == 0);
}

TEST_CASE("the material identity table: assign, stable, destroy, reuse, fixed size under churn", "[materials]") {
    RenderFixture f;
    Scene scene;
    Material red = unlit(glm::vec4(1, 0, 0, 1));
    red.name = "red";
    Material green = unlit(glm::vec4(0, 1, 0, 1));
    green.name = "green";
    auto& a = scene.root().emplace<MeshNode>(quadMesh(), red, "a");
    auto& b = scene.root().emplace<InstancedMeshNode>(quadMesh(), green, 100, "b");
    for (int i = 0; i < 100; ++i) {
        b.addInstance(at(0.0f, 0.0f));
    }
    auto& none = scene.root().emplace<MeshNode>(quadMesh(), unlit(), "none");  // no name: index 0
    auto& offscreen = scene.root().emplace<MeshNode>(quadMesh(), green, "far");
    offscreen.setPosition(glm::dvec3(100, 0, 0));  // culled, still holds "green"
    (void)f.render(scene);

    // Assign: first drawn first. One row per renderable, a batch of 100 is one row.
    CHECK(f.renderer.materialIndex("red") == 1u);
    CHECK(f.renderer.materialIndex("green") == 2u);
    CHECK(f.renderer.materialIndex("") == 0u);
    CHECK_FALSE(f.renderer.materialIndex("blue").has_value());
    const gl::MaterialIdentity& identity = f.renderer.materialIdentity();
    REQUIRE(identity.rows.size() == 4);
    CHECK(identity.rows[0].renderable == "a");
    CHECK(identity.rows[0].nodeId == a.id());
    CHECK(identity.rows[0].index == 1);
    CHECK(identity.rows[0].material == "red");
    CHECK(identity.rows[1].renderable == "b");
    CHECK(identity.rows[1].index == 2);
    CHECK(identity.rows[2].nodeId == none.id());
    CHECK(identity.rows[2].index == 0);
    CHECK(identity.rows[3].index == 2);
    REQUIRE(identity.slots.size() == 2);
    CHECK(identity.slots[0].name == "red");
    CHECK(identity.slots[1].name == "green");

    // Stable: more frames, the culled holder keeps "green", a new node with "red" changes nothing.
    auto& a2 = scene.root().emplace<MeshNode>(quadMesh(), red, "a2");
    for (int frame = 0; frame < 3; ++frame) {
        (void)f.render(scene);
    }
    CHECK(f.renderer.materialIndex("red") == 1u);
    CHECK(f.renderer.materialIndex("green") == 2u);

    // Destroy: nothing draws "red" any more -> it leaves; the next new material takes index 1.
    (void)a.removeFromParent();
    (void)a2.removeFromParent();
    Material blue = unlit(glm::vec4(0, 0, 1, 1));
    blue.name = "blue";
    auto& c = scene.root().emplace<MeshNode>(quadMesh(), blue, "c");
    (void)f.render(scene);
    CHECK_FALSE(f.renderer.materialIndex("red").has_value());
    CHECK(f.renderer.materialIndex("blue") == 1u);
    CHECK(f.renderer.materialIndex("green") == 2u);
    CHECK(f.renderer.materialIdentity().slots.size() == 2);

    // A renderable still naming a material keeps its row until it stops drawing with it.
    c.material().name = "blue-2";
    (void)f.render(scene);
    CHECK_FALSE(f.renderer.materialIndex("blue").has_value());
    CHECK(f.renderer.materialIndex("blue-2") == 1u);

    // Churn: fresh names made and dropped every frame keep the table the same size.
    const std::size_t before = f.renderer.materialIdentity().slots.size();
    for (int i = 0; i < 50; ++i) {
        c.material().name = "fresh-" + std::to_string(i);
        (void)f.render(scene);
        CHECK(f.renderer.materialIdentity().slots.size() == before);
        CHECK(f.renderer.materialIndex(c.material().name) == 1u);
    }
}
