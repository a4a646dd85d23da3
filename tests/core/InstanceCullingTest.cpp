// CPU per-instance culling and back-to-front ordering: exactly the instances whose
// spheres meet the frustum, spheres that follow writes in O(rows changed), node-space planes
// exact under non-uniform node scale, stable depth order.
#include "myriad/core/InstanceCulling.h"
#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Shapes.h"
#include "support/CoreTest.h"

#include <catch2/catch.hpp>
#include <glm/gtc/matrix_transform.hpp>

#include <memory>
#include <vector>

using namespace myriad;
using myriad::test::at;

namespace {


/** The box |x|, |y|, |z| <= 1 as six inward planes. */
FrustumPlanes unitBox() {
    return {glm::vec4(1, 0, 0, 1), glm::vec4(-1, 0, 0, 1), glm::vec4(0, 1, 0, 1),
            glm::vec4(0, -1, 0, 1), glm::vec4(0, 0, 1, 1), glm::vec4(0, 0, -1, 1)};
}

std::unique_ptr<InstancedMeshNode> makeRow(std::size_t count) {
    // Unit cubes (radius sqrt(3)/2) every 2 units along x from 0.
    auto batch = std::make_unique<InstancedMeshNode>(MeshGeometry::create(shapes::box(1.0f)), Material{}, count + 1);
    for (std::size_t i = 0; i < count; ++i) {
        batch->addInstance(at(2.0f * static_cast<float>(i), 0.0f));
    }
    return batch;
}

} // namespace

TEST_CASE("culling: exactly the instances whose spheres meet the frustum", "[culling]") {
    const auto holder = makeRow(600);
    InstancedMeshNode& batch = *holder;  // crosses several 256-instance blocks
    InstanceSpheres spheres;
    spheres.update(batch);
    REQUIRE(spheres.size() == 600);
    CHECK(spheres.radius()[0] == Approx(0.8660254f));
    // The box moved to x in [799, 801]: cube 400 (x 800) is inside; cube 399 (798, reaching
    // 798.866) is out, cube 401 (802, reaching 801.134) is out.
    FrustumPlanes planes = nodeSpacePlanes(unitBox(), glm::mat3(1.0f), glm::dvec3(0.0), glm::dvec3(800.0, 0.0, 0.0));
    std::vector<std::uint32_t> visible;
    CHECK(cullInstanceSpheres(spheres, {0, 600}, planes, visible) == 600);
    CHECK(visible == std::vector<std::uint32_t>{400});
    // Wider: x in [795, 805] catches 398..402 (797.134 > 795 for 398; 803 - 0.866 < 805 for 402).
    FrustumPlanes wide = unitBox();
    wide[0].w = wide[1].w = 5.0f;
    visible.clear();
    (void)cullInstanceSpheres(spheres, {0, 600},
                              nodeSpacePlanes(wide, glm::mat3(1.0f), glm::dvec3(0.0), glm::dvec3(800.0, 0.0, 0.0)),
                              visible);
    CHECK(visible == std::vector<std::uint32_t>{398, 399, 400, 401, 402});
    // A sub-range only tests what it covers.
    visible.clear();
    CHECK(cullInstanceSpheres(spheres, {0, 400}, planes, visible) == 400);
    CHECK(visible.empty());
}

TEST_CASE("culling: node scale is exact, instance scale and mirroring grow the sphere", "[culling]") {
    const auto holder = makeRow(3);
    InstancedMeshNode& batch = *holder;
    batch.setTransform(2, glm::scale(glm::mat4(1.0f), glm::vec3(-10.0f, 1.0f, 1.0f)));  // at the origin
    InstanceSpheres spheres;
    spheres.update(batch);
    std::vector<std::uint32_t> visible;
    // Node squashed 10x in x: instance 1 sits at world x = 0.2 and reaches 0.2 + 0.0866;
    // instance 2, mirrored and 10 wide at the origin, reaches 0.1 * |(5, 0.5, 0.5)| = 0.505.
    const glm::mat3 squash(glm::vec3(0.1f, 0, 0), glm::vec3(0, 1, 0), glm::vec3(0, 0, 1));
    FrustumPlanes right = unitBox();
    right[0] = glm::vec4(1, 0, 0, -0.3f);  // world x >= 0.3
    (void)cullInstanceSpheres(spheres, {0, 3}, nodeSpacePlanes(right, squash, glm::dvec3(0.0), glm::dvec3(0.0)),
                              visible);
    CHECK(visible == std::vector<std::uint32_t>{2});
}

TEST_CASE("culling: spheres follow writes, recomputing only the rows changed", "[culling]") {
    const auto holder = makeRow(1000);
    InstancedMeshNode& batch = *holder;
    InstanceSpheres spheres;
    spheres.update(batch);
    CHECK(spheres.recomputed() == 1000);
    spheres.update(batch);
    CHECK(spheres.recomputed() == 1000);  // nothing changed, nothing recomputed
    // A renderer uploads and acknowledges each frame; later writes start new log entries.
    const InstanceStream& records = batch.streams()[InstanceStreamId::Record];
    records.changes().acknowledge(1, records.version());
    batch.setTransform(500, at(0.0f, 50.0f));
    spheres.update(batch);
    CHECK(spheres.recomputed() <= 1000 + 16);
    CHECK(spheres.y()[500] == 50.0f);
    const InstanceHandle handle = batch.acquire({at(0.0f, -7.0f)});
    spheres.update(batch);
    REQUIRE(spheres.size() == 1001);
    CHECK(spheres.y()[1000] == -7.0f);
    batch.release(handle);
    spheres.update(batch);
    CHECK(spheres.size() == 1000);
}

TEST_CASE("sort: back to front along the depth axis, ties in record order", "[sort]") {
    InstancedMeshNode batch(MeshGeometry::create(shapes::quad()), Material{}, 5);
    for (float z : {1.0f, -3.0f, 2.0f, -3.0f, 0.0f}) {
        batch.addInstance(at(0.0f, 0.0f, z));
    }
    InstanceSpheres spheres;
    spheres.update(batch);
    std::vector<std::uint32_t> order{0, 1, 2, 3, 4};
    std::vector<std::uint64_t> scratch;
    // Looking down -Z: depth grows towards -Z.
    sortBackToFront(spheres, glm::vec3(0, 0, -1), order, scratch);
    CHECK(order == std::vector<std::uint32_t>{1, 3, 4, 0, 2});
    sortBackToFront(spheres, glm::vec3(0, 0, 1), order, scratch);
    CHECK(order == std::vector<std::uint32_t>{2, 0, 4, 1, 3});
}
