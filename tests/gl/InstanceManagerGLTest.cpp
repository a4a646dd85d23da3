// InstanceManager on screen (issue 25): a population spread over batches of four by cells of
// 1 x 1 world units, each instance drawn at its place in its colour; releases and defragment()
// leave the others where they were; a camera that sees one cell culls the other cells' batches
// whole. Expected pixels are worked out by hand from the orthographic cameras below. Unlit
// colours with channels 0 or 1 only, so the bytes are exact in any colour encoding.
#include "support/GlTest.h"

#include "myriad/core/InstanceManager.h"
#include "myriad/core/Scene.h"
#include "myriad/gl/Renderer.h"

#include <array>
#include <cstdint>
#include <vector>

using namespace myriad;
using namespace myriad::test;

namespace {

// Four cells around the origin, cell (cx, cy) with cx, cy in {-1, 0}. Each holds six quads
// 0.1 wide on a 3 x 2 grid at cell-local x = 0.25, 0.5, 0.75 (i % 3) and y = 0.25, 0.75
// (i / 3), instance i of cell k = 2 (cy + 1) + (cx + 1) coloured kColours[(i + k) % 6], so no
// two cells look alike. With instancesPerBatch 4 a cell's first four go into one batch and the
// last two into a second: eight batches.
constexpr float kLocalX[] = {0.25f, 0.5f, 0.75f};
constexpr float kLocalY[] = {0.25f, 0.75f};
constexpr int kPerCell = 6;
const std::array<glm::vec4, kPerCell> kColours = {glm::vec4(1, 0, 0, 1), glm::vec4(0, 1, 0, 1),
                                                  glm::vec4(0, 0, 1, 1), glm::vec4(1, 1, 0, 1),
                                                  glm::vec4(0, 1, 1, 1), glm::vec4(1, 0, 1, 1)};
const std::array<Rgba, kPerCell> kBytes = {Rgba{255, 0, 0, 255},   Rgba{0, 255, 0, 255},
                                           Rgba{0, 0, 255, 255},   Rgba{255, 255, 0, 255},
                                           Rgba{0, 255, 255, 255}, Rgba{255, 0, 255, 255}};

// orthoCamera() on the 64 x 64 target: world x in [-1, 1] -> columns 0..64, column = (x + 1)
// * 32; y in [-1, 1] -> rows 64..0, row = (1 - y) * 32. A quad is 3.2 pixels wide around that
// point, so the pixel there (centre half a pixel off) is inside it.
//   cell x -1: x = -0.75, -0.5, -0.25 -> columns 8, 16, 24; cell x 0: 0.25, 0.5, 0.75 -> 40, 48, 56
//   cell y -1: y = -0.75, -0.25 -> rows 56, 40;            cell y 0: 0.25, 0.75 -> rows 24, 8
constexpr std::uint32_t kColumn[2][3] = {{8, 16, 24}, {40, 48, 56}};  // [cx + 1][i % 3]
constexpr std::uint32_t kRow[2][2] = {{56, 40}, {24, 8}};             // [cy + 1][i / 3]

/** Which of kColours instance @p i of cell (@p cx, @p cy) has. */
std::size_t colourOf(int cx, int cy, int i) {
    return static_cast<std::size_t>((i + 2 * (cy + 1) + (cx + 1)) % kPerCell);
}

struct Placed {
    ManagedInstance handle;
    int cx = 0, cy = 0, i = 0;
    [[nodiscard]] std::uint32_t column() const { return kColumn[cx + 1][i % 3]; }
    [[nodiscard]] std::uint32_t row() const { return kRow[cy + 1][i / 3]; }
};

struct Population {
    Scene scene;
    InstanceManager& manager = scene.root().emplace<InstanceManager>(
        quadMesh(0.1f), unlit(), InstanceManagerOptions{.instancesPerBatch = 4, .cellSize = 1.0f},
        "crowd");
    std::vector<Placed> placed;

    Population() {
        for (int cy = -1; cy <= 0; ++cy) {
            for (int cx = -1; cx <= 0; ++cx) {
                for (int i = 0; i < kPerCell; ++i) {
                    const float x = static_cast<float>(cx) + kLocalX[i % 3];
                    const float y = static_cast<float>(cy) + kLocalY[i / 3];
                    const InstanceDesc desc{.transform = at(x, y), .color = kColours[colourOf(cx, cy, i)]};
                    placed.push_back({manager.acquire(desc), cx, cy, i});
                }
            }
        }
    }
};

void checkDrawn(const Image& image, const Placed& p) {
    INFO("cell (" << p.cx << ", " << p.cy << ") instance " << p.i);
    MYRIAD_CHECK_PIXEL(image, p.column(), p.row(), kBytes[colourOf(p.cx, p.cy, p.i)]);
}

void checkGone(const Image& image, const Placed& p) {
    INFO("released: cell (" << p.cx << ", " << p.cy << ") instance " << p.i);
    MYRIAD_CHECK_PIXEL(image, p.column(), p.row(), kBlack);
}

} // namespace

TEST_CASE("an InstanceManager draws each instance at its place and colour, after releases and defragment too",
          "[manager][pixels]") {
    RenderFixture f;
    Population population;
    InstanceManager& manager = population.manager;
    CHECK(manager.count() == 24);
    CHECK(manager.batchCount() == 8);  // per cell a full batch of four and one of two

    Image image = f.render(population.scene);
    {
        const gl::FrameStats& stats = f.renderer.lastFrameStats();
        CHECK(stats.batches == 8);
        CHECK(stats.instances == 24);
        CHECK(stats.culledNodes == 0);
    }
    for (const Placed& p : population.placed) {
        checkDrawn(image, p);
    }
    MYRIAD_CHECK_PIXEL(image, 32, 32, kBlack);  // the cells' common corner, between quads
    MYRIAD_CHECK_PIXEL(image, 12, 56, kBlack);  // between instances 0 and 1 of cell (-1, -1)

    // Instances 0, 2 and 4 of every cell but (0, 0) go: three cells keep three instances each
    // (instances 1 and 3 in their first batch, 5 in their second), cell (0, 0) all six.
    std::vector<Placed> kept;
    std::vector<Placed> released;
    for (const Placed& p : population.placed) {
        const bool goes = !(p.cx == 0 && p.cy == 0) && p.i % 2 == 0;
        if (goes) {
            manager.release(p.handle);
        }
        (goes ? released : kept).push_back(p);
    }
    REQUIRE(released.size() == 9);
    CHECK(manager.count() == 15);
    CHECK(manager.batchCount() == 8);  // emptier, none removed before defragment()
    image = f.render(population.scene);
    CHECK(f.renderer.lastFrameStats().instances == 15);
    for (const Placed& p : kept) {
        checkDrawn(image, p);
    }
    for (const Placed& p : released) {
        checkGone(image, p);
    }

    // defragment(): each of the three thinned cells packs its three into one batch, cell (0, 0)
    // keeps its four and two. Every kept instance still draws where it was, in its colour.
    manager.defragment();
    CHECK(manager.batchCount() == 5);
    CHECK(manager.count() == 15);
    image = f.render(population.scene);
    {
        const gl::FrameStats& stats = f.renderer.lastFrameStats();
        CHECK(stats.batches == 5);
        CHECK(stats.instances == 15);
    }
    for (const Placed& p : kept) {
        REQUIRE(manager.isLive(p.handle));
        checkDrawn(image, p);
    }
    for (const Placed& p : released) {
        CHECK_FALSE(manager.isLive(p.handle));
        checkGone(image, p);
    }
}

TEST_CASE("an InstanceManager seen by a camera on one cell draws that cell's batches, culls the others whole",
          "[manager][pixels][culling]") {
    RenderFixture f;
    Population population;
    // A camera that sees exactly cell (0, 0): world x, y in [0, 1] fill the target, so
    // column = x * 64 and row = (1 - y) * 64. The cell's instances at x = 0.25, 0.5, 0.75 and
    // y = 0.25, 0.75 land on columns 16, 32, 48 and rows 48, 16, 6.4 pixels wide. Every other
    // cell's batches lie at least 0.2 outside it (their instances stop 0.2 from the cell's edge).
    f.camera.setOrthographic(-0.5f, 0.5f, -0.5f, 0.5f, 0.1f, 20.0f);
    f.camera.lookAt(glm::dvec3(0.5, 0.5, 10.0), glm::dvec3(0.5, 0.5, 0.0));
    constexpr std::uint32_t kOwnColumn[] = {16, 32, 48};
    constexpr std::uint32_t kOwnRow[] = {48, 16};

    const Image image = f.render(population.scene);
    const gl::FrameStats& stats = f.renderer.lastFrameStats();
    CHECK(stats.culledNodes == 6);  // the other three cells' two batches each
    CHECK(stats.batches == 2);      // cell (0, 0)'s batch of four and its batch of two
    CHECK(stats.instances == 6);
    for (int i = 0; i < kPerCell; ++i) {
        INFO("cell (0, 0) instance " << i);
        MYRIAD_CHECK_PIXEL(image, kOwnColumn[i % 3], kOwnRow[i / 3], kBytes[colourOf(0, 0, i)]);
    }
    MYRIAD_CHECK_PIXEL(image, 24, 48, kBlack);  // between instances 0 and 1
    MYRIAD_CHECK_PIXEL(image, 32, 32, kBlack);  // between the rows
}
