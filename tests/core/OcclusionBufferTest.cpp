// The software occlusion buffer: depths at known pixels (perspective and orthographic, the
// conservative half-pixel slope), no cracks along a quad's diagonal, near-plane clipping,
// reversed-Z, and box/sphere tests: behind a quad hidden, beside or in front not, peeking over
// its edge by less than a pixel not.
#include "myriad/core/MeshNode.h"
#include "myriad/core/OcclusionBuffer.h"
#include "myriad/core/Shapes.h"
#include "myriad/util/Error.h"

#include <catch2/catch.hpp>
#include <glm/gtc/matrix_transform.hpp>

#include <cstdint>
#include <vector>

using namespace myriad;

namespace {

/** A quad in the plane z = @p z, x in [x0, x1], y in [y0, y1], two triangles sharing a diagonal. */
void drawQuad(OcclusionBuffer& buffer, float x0, float x1, float y0, float y1, float z) {
    const std::vector<glm::vec3> positions = {{x0, y0, z}, {x1, y0, z}, {x1, y1, z}, {x0, y1, z}};
    const std::vector<std::uint32_t> indices = {0, 1, 2, 0, 2, 3};
    REQUIRE(buffer.rasterise(positions, indices, glm::mat4(1.0f)) == 2);
}

float ndcDepth(const glm::mat4& projection, const glm::vec3& point) {
    const glm::vec4 clip = projection * glm::vec4(point, 1.0f);
    return clip.z / clip.w;
}

} // namespace

TEST_CASE("OcclusionBuffer: a facing quad covers exactly its pixels at its depth, with no crack", "[occlusion]") {
    // 90 degrees, square: at z = -5 the view spans [-5, 5], so [-2.5, 2.5] is NDC [-0.5, 0.5],
    // pixels [16, 48) of 64.
    const glm::mat4 projection = glm::perspective(glm::radians(90.0f), 1.0f, 0.1f, 100.0f);
    OcclusionBuffer buffer;
    buffer.reset(64, 64, projection, {});
    drawQuad(buffer, -2.5f, 2.5f, -2.5f, 2.5f, -5.0f);
    CHECK(buffer.coveredPixels() == 32 * 32);  // every centre inside once: no crack on the diagonal
    CHECK(buffer.covered(16, 16));
    CHECK(buffer.covered(47, 47));
    CHECK(buffer.covered(40, 20));  // below the diagonal
    CHECK(buffer.covered(20, 40));  // above it
    CHECK_FALSE(buffer.covered(15, 32));
    CHECK_FALSE(buffer.covered(48, 32));
    CHECK_FALSE(buffer.covered(32, 48));
    // Facing the eye, z/w is the same everywhere: no slope to add.
    const float expected = ndcDepth(projection, {0.0f, 0.0f, -5.0f});
    CHECK(buffer.depthAt(32, 32) == Approx(expected).margin(1e-6));
    CHECK(buffer.depthAt(16, 47) == Approx(expected).margin(1e-6));
    CHECK_THROWS_AS(buffer.depthAt(64, 0), OutOfRange);
}

TEST_CASE("OcclusionBuffer: a slanted triangle stores its farthest depth over each pixel (orthographic)", "[occlusion]") {
    // View depth 5 + x, so NDC z = (5 + x) / 5 - 1 = x / 5 for glm::ortho's near 0, far 10:
    // per pixel of 64 over x in [-1, 1], z rises by 1/160; a pixel stores its centre's value
    // plus half of that.
    const glm::mat4 projection = glm::ortho(-1.0f, 1.0f, -1.0f, 1.0f, 0.0f, 10.0f);
    OcclusionBuffer buffer;
    buffer.reset(64, 64, projection, {});
    const std::vector<glm::vec3> positions = {{-3.0f, -3.0f, -2.0f}, {3.0f, -3.0f, -8.0f}, {0.0f, 3.0f, -5.0f}};
    const std::vector<std::uint16_t> indices = {0, 1, 2};
    buffer.rasterise(positions, indices, glm::mat4(1.0f));
    for (const std::uint32_t px : {0u, 10u, 32u, 63u}) {
        const float x = (static_cast<float>(px) + 0.5f) / 32.0f - 1.0f;
        INFO("pixel " << px);
        REQUIRE(buffer.covered(px, 20));
        CHECK(buffer.depthAt(px, 20) == Approx(x / 5.0f + 0.5f / 160.0f).margin(1e-5));
    }
}

TEST_CASE("OcclusionBuffer: triangles are clipped at the near plane", "[occlusion]") {
    const glm::mat4 projection = glm::perspective(glm::radians(90.0f), 1.0f, 0.5f, 100.0f);
    OcclusionBuffer buffer;
    buffer.reset(64, 64, projection, {});
    // A floor at y = -1 from behind the eye (z = +4) to z = -50: below the horizon only.
    const std::vector<glm::vec3> floor = {{-50.0f, -1.0f, 4.0f}, {50.0f, -1.0f, 4.0f}, {50.0f, -1.0f, -50.0f},
                                          {-50.0f, -1.0f, -50.0f}};
    const std::vector<std::uint32_t> quad = {0, 1, 2, 0, 2, 3};
    buffer.rasterise(floor, quad, glm::mat4(1.0f));
    std::size_t below = 0;
    for (std::uint32_t y = 0; y < 64; ++y) {
        for (std::uint32_t x = 0; x < 64; ++x) {
            if (y >= 32) {
                CHECK_FALSE(buffer.covered(x, y));  // above the horizon: nothing (unclipped, the
                                                    // vertices behind the eye would flip up here)
            } else if (buffer.covered(x, y)) {
                ++below;
                CHECK(buffer.depthAt(x, y) >= -1.0f);  // nothing nearer than the near plane
                CHECK(buffer.depthAt(x, y) <= 1.0f);
            }
        }
    }
    // Row r's centre sees the floor at depth 1 / -ndcY(r), within the floor's 50 for rows 0..30.
    CHECK(below == 64 * 31);
    CHECK(buffer.covered(0, 0));
    // A triangle from nearer than the near plane (0.2 from the eye, in front of it and on
    // screen) to 3 away: only the part beyond the near plane is kept, so no pixel holds a
    // depth nearer than the near plane's -1 (unclipped, those near 0.2 would be about -4).
    OcclusionBuffer crossing;
    crossing.reset(64, 64, projection, {});
    const std::vector<glm::vec3> spike = {{-0.1f, -0.1f, -0.2f}, {0.1f, -0.1f, -0.2f}, {0.0f, 0.1f, -3.0f}};
    const std::vector<std::uint32_t> tri = {0, 1, 2};
    crossing.rasterise(spike, tri, glm::mat4(1.0f));
    REQUIRE(crossing.coveredPixels() > 0);
    for (std::uint32_t y = 0; y < 64; ++y) {
        for (std::uint32_t x = 0; x < 64; ++x) {
            if (crossing.covered(x, y) && crossing.depthAt(x, y) < -1.0f - 1e-5f) {
                FAIL("pixel (" << x << ", " << y << ") holds " << crossing.depthAt(x, y) << ", nearer than the near plane");
            }
        }
    }
    // A triangle wholly behind the eye covers nothing.
    OcclusionBuffer behind;
    behind.reset(64, 64, projection, {});
    const std::vector<glm::vec3> back = {{-1.0f, -1.0f, 3.0f}, {1.0f, -1.0f, 3.0f}, {0.0f, 1.0f, 3.0f}};
    const std::vector<std::uint32_t> one = {0, 1, 2};
    behind.rasterise(back, one, glm::mat4(1.0f));
    CHECK(behind.coveredPixels() == 0);
}

TEST_CASE("OcclusionBuffer: spheres behind a quad are hidden, beside or in front not", "[occlusion]") {
    const glm::mat4 projection = glm::perspective(glm::radians(90.0f), 1.0f, 0.1f, 100.0f);
    for (const bool reversed : {false, true}) {
        INFO("reversed " << reversed);
        glm::mat4 clip = projection;
        OcclusionDepth depth{};
        if (reversed) {
            // Reversed-Z, 0..1: z' = w - z' of glm's 0..1 projection (near 1, far 0).
            clip = glm::perspectiveRH_ZO(glm::radians(90.0f), 1.0f, 0.1f, 100.0f);
            for (int c = 0; c < 4; ++c) {
                clip[c][2] = clip[c][3] - clip[c][2];
            }
            depth = {.zeroToOne = true, .reversed = true};
        }
        OcclusionBuffer buffer;
        buffer.reset(128, 128, clip, depth);
        drawQuad(buffer, -2.5f, 2.5f, -2.5f, 2.5f, -5.0f);
        CHECK(buffer.sphereOccluded({0.0f, 0.0f, -10.0f}, 0.5f));         // behind
        CHECK(buffer.sphereOccluded({3.0f, 3.0f, -20.0f}, 1.0f));         // behind, off-centre
        CHECK_FALSE(buffer.sphereOccluded({0.0f, 0.0f, -3.0f}, 0.5f));    // in front
        CHECK_FALSE(buffer.sphereOccluded({0.0f, 0.0f, -5.2f}, 0.5f));    // through the quad
        CHECK_FALSE(buffer.sphereOccluded({7.0f, 0.0f, -10.0f}, 0.5f));   // beside
        CHECK_FALSE(buffer.sphereOccluded({0.0f, 0.0f, 0.0f}, 0.5f));     // around the eye: crosses the near plane
        CHECK_FALSE(buffer.sphereOccluded({0.0f, 4.8f, -10.0f}, 0.5f));   // peeking over the top
        CHECK_FALSE(buffer.boxOccluded({0.0f, 0.0f, -10.0f}, {8.0f, 0.5f, 0.5f}));  // wider than it
        CHECK(buffer.boxOccluded({0.0f, 0.0f, -10.0f}, {3.0f, 0.5f, 0.5f}));
    }
}

TEST_CASE("OcclusionBuffer: a sphere peeking past an edge by less than a pixel is visible", "[occlusion]") {
    // Orthographic over [-4, 4]: pixel = (y + 4) * 8 of 64. The quad's top edge is at pixel
    // 48.75, so pixel row 48 (centre 48.5) is covered; a sphere reaching pixel 48.9 sticks out
    // inside that row's top quarter: only the one-pixel growth sees the uncovered row 49.
    const glm::mat4 projection = glm::ortho(-4.0f, 4.0f, -4.0f, 4.0f, 0.0f, 100.0f);
    OcclusionBuffer buffer;
    buffer.reset(64, 64, projection, {});
    drawQuad(buffer, -2.0f, 2.0f, -2.0f, 48.75f / 8.0f - 4.0f, -5.0f);
    REQUIRE(buffer.covered(32, 48));
    REQUIRE_FALSE(buffer.covered(32, 49));
    const float radius = 0.25f;
    CHECK_FALSE(buffer.sphereOccluded({0.0f, 48.9f / 8.0f - 4.0f - radius, -10.0f}, radius));  // peeks
    CHECK(buffer.sphereOccluded({0.0f, 1.0f, -10.0f}, radius));                                 // wholly below the edge
    CHECK_FALSE(buffer.sphereOccluded({0.0f, 1.0f, -4.0f}, radius));                            // in front
}

TEST_CASE("OcclusionBuffer: a mesh, the pyramid after more triangles, and bad input", "[occlusion]") {
    const glm::mat4 projection = glm::perspective(glm::radians(90.0f), 2.0f, 0.1f, 100.0f);
    OcclusionBuffer buffer;
    buffer.reset(256, 128, projection, {});
    CHECK_FALSE(buffer.sphereOccluded({0.0f, 0.0f, -10.0f}, 0.5f));  // nothing drawn yet
    // A box 4 wide, 2 high and 1 deep at z = -5 (shapes::box is centred on the origin).
    const auto box = MeshGeometry::create(shapes::box(1.0f));
    const glm::mat4 model = glm::scale(glm::translate(glm::mat4(1.0f), {0.0f, 0.0f, -5.0f}), {4.0f, 2.0f, 1.0f});
    CHECK(buffer.rasterise(*box, model) == box->triangleCount());
    CHECK(buffer.sphereOccluded({0.0f, 0.0f, -10.0f}, 0.5f));  // tested after a rasterise: pyramid rebuilt
    CHECK_FALSE(buffer.sphereOccluded({0.0f, 3.0f, -10.0f}, 0.5f));
    const std::vector<glm::vec3> positions = {{0, 0, -1}, {1, 0, -1}, {0, 1, -1}};
    const std::vector<std::uint32_t> bad = {0, 1, 3};
    const std::vector<std::uint32_t> short2 = {0, 1};
    CHECK_THROWS_AS(buffer.rasterise(positions, bad, glm::mat4(1.0f)), InvalidArgument);
    CHECK_THROWS_AS(buffer.rasterise(positions, short2, glm::mat4(1.0f)), InvalidArgument);
    CHECK_THROWS_AS(buffer.reset(0, 10, projection, {}), InvalidArgument);
    CHECK_THROWS_AS(buffer.reset(5000, 10, projection, {}), InvalidArgument);
    CHECK(buffer.width() == 256);  // a throwing reset left it as it was
    CHECK(buffer.sphereOccluded({0.0f, 0.0f, -10.0f}, 0.5f));
}

TEST_CASE("MeshNode's occluder members: defaults, and an occluder mesh must lie inside the node's box", "[occlusion]") {
    const auto box = MeshGeometry::create(shapes::box(2.0f), "box");
    MeshNode node(box, Material{}, "building");
    CHECK(node.occluder());
    CHECK(node.occluderMesh() == nullptr);
    node.setOccluder(false);
    CHECK_FALSE(node.occluder());
    const auto inside = MeshGeometry::create(shapes::box(1.0f), "inside");
    node.setOccluderMesh(inside);
    CHECK(node.occluderMesh() == inside);
    // The same box fits (touching counts); a larger one throws and the node keeps its own.
    node.setOccluderMesh(box);
    CHECK(node.occluderMesh() == box);
    CHECK_THROWS_AS(node.setOccluderMesh(MeshGeometry::create(shapes::box(2.1f))), InvalidArgument);
    CHECK(node.occluderMesh() == box);
    node.setOccluderMesh(nullptr);
    CHECK(node.occluderMesh() == nullptr);
    // Fit is checked against meshBounds(), which the renderer re-checks after setMesh().
    node.setOccluderMesh(box);
    node.setMesh(inside);
    CHECK_FALSE(node.occluderMeshFits(*box));
    CHECK(node.occluderMeshFits(*inside));
}
