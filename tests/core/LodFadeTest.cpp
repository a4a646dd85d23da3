// Level of detail by projected size on screen and the dithered cross-fade, on the CPU: where a
// screen-size chain switches under two fields of view, two viewport heights and an orthographic
// view (the distances worked out by hand from 2r * (P[1][1] / 2) / d), the fade's coverage
// across a band and at its edges, that the two levels' dither patterns are complementary, the
// bulk bucketing's fade entries, and the chain's new checks.
#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Lod.h"
#include "myriad/core/Shapes.h"
#include "myriad/util/Error.h"

#include <catch2/catch.hpp>
#include <glm/gtc/matrix_transform.hpp>

#include <cmath>
#include <limits>
#include <memory>
#include <vector>

using namespace myriad;

namespace {

std::shared_ptr<const MeshGeometry> quadMesh(float size) { return MeshGeometry::create(shapes::quad(size, size)); }

/** A chain switching at screen sizes @p sizes (the last one's end: 0, drawn however small). */
LodChain screenChain(LodMetric metric, std::vector<float> sizes, float fadeBand = 0.0f) {
    LodChain chain;
    chain.metric = metric;
    chain.hysteresis = 0.0f;
    chain.fadeBand = fadeBand;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        LodLevel level{i == 0 ? nullptr : quadMesh(0.5f)};
        level.switchScreenSize = sizes[i];
        chain.levels.push_back(level);
    }
    return chain;
}

std::uint8_t levelAt(const LodChain& chain, const LodProjection& projection, float distance, float radius = 1.0f) {
    return pickLodLevel(chain, projection, distance, radius, kNoLodLevel).level;
}

} // namespace

TEST_CASE("LOD: a screen-height chain switches where the projected size crosses its thresholds, FOV honoured",
          "[lod][lod-screen]") {
    // Level 0 while the unit sphere covers at least half the viewport height, level 1 down to a
    // tenth, level 2 below. Projected diameter = r * P[1][1] / d.
    const LodChain chain = screenChain(LodMetric::ScreenHeight, {0.5f, 0.1f, 0.0f});
    // 90 degrees: P[1][1] = 1, so switches at d = 2 and d = 10.
    const LodProjection wide = LodProjection::of(glm::perspective(glm::radians(90.0f), 1.0f, 0.1f, 100.0f), 64.0f);
    CHECK(wide.yScale == Approx(1.0f));
    CHECK(lodScreenSize(LodMetric::ScreenHeight, wide, 1.0f, 4.0f) == Approx(0.25f));
    CHECK(levelAt(chain, wide, 1.99f) == 0);
    CHECK(levelAt(chain, wide, 2.01f) == 1);
    CHECK(levelAt(chain, wide, 9.99f) == 1);
    CHECK(levelAt(chain, wide, 10.01f) == 2);
    CHECK(levelAt(chain, wide, 1e6f) == 2);  // the last level has no end
    CHECK(levelAt(chain, wide, 3.9f, 2.0f) == 0);  // a sphere twice as big switches twice as far
    CHECK(levelAt(chain, wide, 4.1f, 2.0f) == 1);
    // 60 degrees: P[1][1] = cot(30) = 1.7320508, switches at d = 3.4641 and 17.3205.
    const LodProjection narrow = LodProjection::of(glm::perspective(glm::radians(60.0f), 1.0f, 0.1f, 100.0f), 64.0f);
    CHECK(levelAt(chain, narrow, 3.45f) == 0);
    CHECK(levelAt(chain, narrow, 3.48f) == 1);
    CHECK(levelAt(chain, narrow, 17.30f) == 1);
    CHECK(levelAt(chain, narrow, 17.34f) == 2);
    // ScreenHeight ignores the viewport's pixels.
    const LodProjection tall = LodProjection::of(glm::perspective(glm::radians(60.0f), 1.0f, 0.1f, 100.0f), 2048.0f);
    CHECK(levelAt(chain, tall, 3.45f) == 0);
    CHECK(levelAt(chain, tall, 3.48f) == 1);
}

TEST_CASE("LOD: a screen-pixels chain honours the viewport height, an orthographic view ignores the distance",
          "[lod][lod-screen]") {
    // Level 0 down to 100 pixels: diameter in pixels = r * P[1][1] * H / d, switch at d = P11 H / 100.
    const LodChain chain = screenChain(LodMetric::ScreenPixels, {100.0f, 0.0f});
    const glm::mat4 ninety = glm::perspective(glm::radians(90.0f), 1.0f, 0.1f, 100.0f);
    const LodProjection small = LodProjection::of(ninety, 400.0f);  // switch at 4
    const LodProjection large = LodProjection::of(ninety, 800.0f);  // switch at 8
    CHECK(lodScreenSize(LodMetric::ScreenPixels, small, 1.0f, 4.0f) == Approx(100.0f));
    CHECK(levelAt(chain, small, 3.99f) == 0);
    CHECK(levelAt(chain, small, 4.01f) == 1);
    CHECK(levelAt(chain, large, 7.99f) == 0);
    CHECK(levelAt(chain, large, 8.01f) == 1);
    // Orthographic over a height of 4: P[1][1] = 0.5; a unit sphere covers 0.5 of the height at
    // any distance. Against a 0.5 threshold: radius 1.2 is level 0, 0.8 level 1, near or far.
    const LodChain half = screenChain(LodMetric::ScreenHeight, {0.5f, 0.0f});
    const LodProjection ortho = LodProjection::of(glm::ortho(-2.0f, 2.0f, -2.0f, 2.0f, 0.1f, 100.0f), 64.0f);
    CHECK(ortho.orthographic);
    CHECK_FALSE(small.orthographic);
    for (const float distance : {0.5f, 50.0f, 5000.0f}) {
        CHECK(levelAt(half, ortho, distance, 1.2f) == 0);
        CHECK(levelAt(half, ortho, distance, 0.8f) == 1);
    }
}

TEST_CASE("LOD: the fade's coverage rises linearly across the band, half at its middle", "[lod][lod-fade]") {
    // Switch at 10, band 0.2: [9, 11). t = (d - 9) / 2, steps = round(64 t).
    LodChain chain;
    chain.levels = {{nullptr, 10.0f}, {quadMesh(0.5f), 20.0f}};
    chain.fadeBand = 0.2f;
    const LodProjection view{};
    const auto pick = [&](float d) { return pickLodLevel(chain, view, d, 1.0f, kNoLodLevel); };
    CHECK(pick(10.0f).level == 0);
    CHECK(pick(10.0f).fadeSteps == 32);  // the band's middle: half
    CHECK(pick(9.5f).fadeSteps == 16);   // a quarter
    CHECK(pick(10.5f).fadeSteps == 48);
    CHECK((pick(8.99f).level == 0 && pick(8.99f).fadeSteps == 0));  // before the band: level 0 whole
    CHECK((pick(9.0f).level == 0 && pick(9.0f).fadeSteps == 0));    // its first edge: t = 0
    CHECK((pick(10.99f).level == 1 && pick(10.99f).fadeSteps == 0));  // 63.7 steps rounds to whole
    CHECK((pick(11.0f).level == 1 && pick(11.0f).fadeSteps == 0));  // past it: level 1 whole
    CHECK((pick(15.0f).level == 1 && pick(15.0f).fadeSteps == 0));
    // The last switch fades out: at 20, level 1 keeps half its pixels and level 2 (none) the rest.
    CHECK((pick(20.0f).level == 1 && pick(20.0f).fadeSteps == 32));
    CHECK(pick(22.5f).level == 2);  // past the band [18, 22)
    // The held level is ignored with a fade (no hysteresis); a view without fade switches at s.
    CHECK(pickLodLevel(chain, view, 10.5f, 1.0f, 0).fadeSteps == 48);
    LodProjection shadow{};
    shadow.fade = false;
    CHECK((pickLodLevel(chain, shadow, 9.99f, 1.0f, kNoLodLevel).level == 0 &&
           pickLodLevel(chain, shadow, 10.01f, 1.0f, 1).level == 1 &&
           pickLodLevel(chain, shadow, 9.99f, 1.0f, 1).level == 0));  // held 1, no hysteresis
    // Screen metric: the band is a fraction of the switch distance D = r P11 / f = 4 (90 degrees,
    // f = 0.5, r = 2), so [3.6, 4.4) with band 0.2, half at 4.
    LodChain bySize = screenChain(LodMetric::ScreenHeight, {0.5f, 0.0f}, 0.2f);
    const LodProjection ninety = LodProjection::of(glm::perspective(glm::radians(90.0f), 1.0f, 0.1f, 100.0f), 64.0f);
    CHECK(pickLodLevel(bySize, ninety, 4.0f, 2.0f, kNoLodLevel).fadeSteps == 32);
    CHECK(pickLodLevel(bySize, ninety, 3.8f, 2.0f, kNoLodLevel).fadeSteps == 16);
    CHECK(pickLodLevel(bySize, ninety, 3.59f, 2.0f, kNoLodLevel).fadeSteps == 0);
}

TEST_CASE("LOD: the two levels' dither patterns cover each pixel once, k of 64 for the farther", "[lod][lod-fade]") {
    // Bayer thresholds: each of 0..63 once per 8x8 tile, the same on every tile.
    std::vector<int> seen(64, 0);
    for (std::uint32_t y = 0; y < 8; ++y) {
        for (std::uint32_t x = 0; x < 8; ++x) {
            ++seen[lodBayer8(x, y)];
            CHECK(lodBayer8(x + 8, y + 16) == lodBayer8(x, y));
        }
    }
    CHECK(std::count(seen.begin(), seen.end(), 1) == 64);
    CHECK(lodBayer8(0, 0) == 0);
    for (std::uint32_t k = 1; k < kLodFadeSteps; ++k) {
        const std::uint32_t nearEntry = lodFadeEntry(7, k, false), farEntry = lodFadeEntry(7, k, true);
        CHECK((nearEntry & kLodFadeIndexMask) == 7);
        std::uint32_t farCovered = 0, both = 0, neither = 0;
        for (std::uint32_t y = 0; y < 8; ++y) {
            for (std::uint32_t x = 0; x < 8; ++x) {
                const bool n = lodFadeCovers(nearEntry, x, y), f = lodFadeCovers(farEntry, x, y);
                farCovered += f ? 1 : 0;
                both += n && f ? 1 : 0;
                neither += !n && !f ? 1 : 0;
            }
        }
        CHECK(farCovered == k);
        CHECK(both == 0);
        CHECK(neither == 0);
    }
    CHECK(lodFadeEntry(7, 0, true) == 7);  // no fade: the bare index
    CHECK(lodFadeEntry(7, 64, false) == 7);
    CHECK(lodFadeCovers(7, 3, 5));
}

TEST_CASE("LOD: selectLodLevels puts a fading instance in both levels' lists with its codes", "[lod][lod-fade]") {
    // Unit quads along -z at 5, 10 (the middle of the band [9, 11)), 9.5 and 15.
    auto batch = std::make_unique<InstancedMeshNode>(quadMesh(1.0f), Material{}, 8);
    for (const float distance : {5.0f, 10.0f, 9.5f, 15.0f}) {
        batch->addInstance(glm::translate(glm::mat4(1.0f), glm::vec3(0.0f, 0.0f, -distance)));
    }
    InstanceSpheres spheres;
    spheres.update(*batch);
    LodChain chain;
    chain.levels = {{nullptr, 10.0f}, {quadMesh(0.5f), std::numeric_limits<float>::infinity()}};
    chain.fadeBand = 0.2f;
    std::vector<std::uint8_t> held(batch->count(), kNoLodLevel);
    std::vector<std::vector<std::uint32_t>> lists(2);
    const std::vector<std::uint32_t> order = {3, 2, 1, 0};
    selectLodLevels(chain, spheres, order, glm::mat3(1.0f), glm::vec3(0.0f), held, lists);
    CHECK(lists[0] == std::vector<std::uint32_t>{lodFadeEntry(2, 16, false), lodFadeEntry(1, 32, false), 0});
    CHECK(lists[1] == std::vector<std::uint32_t>{3, lodFadeEntry(2, 16, true), lodFadeEntry(1, 32, true)});
    // A view that does not fade (shadow maps): one level each, bare indices, split at 10.
    LodProjection shadow{};
    shadow.fade = false;
    selectLodLevels(chain, spheres, order, glm::mat3(1.0f), glm::vec3(0.0f), held, lists, shadow);
    CHECK(lists[0] == std::vector<std::uint32_t>{2, 0});
    CHECK(lists[1] == std::vector<std::uint32_t>{3, 1});
}

TEST_CASE("LOD: setLodChain refuses bad screen sizes, fade bands and overlapping bands", "[lod][lod-fade]") {
    InstancedMeshNode node(quadMesh(1.0f), Material{}, 4);
    const auto refused = [&](const LodChain& chain) {
        CHECK_THROWS_AS(node.setLodChain(chain), InvalidArgument);
        CHECK_FALSE(node.hasLodChain());
    };
    refused(screenChain(LodMetric::ScreenHeight, {0.1f, 0.5f}));          // not decreasing
    refused(screenChain(LodMetric::ScreenHeight, {0.0f, 0.0f}));          // 0 before the last
    refused(screenChain(LodMetric::ScreenHeight, {-1.0f}));
    refused(screenChain(LodMetric::ScreenHeight, {std::nanf("")}));
    refused(screenChain(LodMetric::ScreenHeight, {0.5f, 0.0f}, 1.5f));    // band above 1
    refused(screenChain(LodMetric::ScreenHeight, {0.5f, 0.0f}, -0.1f));
    // Switches at 1/0.5 = 2 and 1/0.4 = 2.5 (as distances): band 0.25 gives 2.25 > 2.1875.
    refused(screenChain(LodMetric::ScreenHeight, {0.5f, 0.4f, 0.0f}, 0.25f));
    node.setLodChain(screenChain(LodMetric::ScreenHeight, {0.5f, 0.4f, 0.0f}, 0.2f));  // 2.2 <= 2.25
    CHECK(node.hasLodChain());
    LodChain distance;
    distance.levels = {{nullptr, 10.0f}, {quadMesh(0.5f), 12.0f}};
    distance.fadeBand = 0.2f;  // 11 > 10.8
    CHECK_THROWS_AS(node.setLodChain(distance), InvalidArgument);
    CHECK(node.lodChain().metric == LodMetric::ScreenHeight);  // kept what it had
}
