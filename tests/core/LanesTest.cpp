// Per-instance shader data (lanes) on the CPU: set, read, clear, by index and by handle; they
// follow swap-remove and growth, changed rows are logged; a MeshNode's shader data.
#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Shapes.h"
#include "myriad/util/Error.h"
#include "support/CoreTest.h"

#include <catch2/catch.hpp>

#include <glm/gtc/matrix_transform.hpp>

#include <cmath>

using namespace myriad;
using myriad::test::at;
using myriad::test::quadMesh;

TEST_CASE("lanes read zero until set, exactly what was set after, and clear back to zero", "[lanes]") {
    InstancedMeshNode batch(quadMesh(1.0f), Material{}, 4);
    batch.addInstance(at(0));
    batch.addInstance(at(1));
    CHECK_FALSE(batch.hasLanes());
    CHECK(batch.lane(1, 3) == glm::vec4(0.0f));
    CHECK(batch.streams()[InstanceStreamId::Lanes].capacity() == 0);  // nothing allocated
    const glm::vec4 value(0.1f, 16777215.0f, -3.5e-20f, 1.0e30f);
    batch.setLane(1, 2, value);
    CHECK(batch.hasLanes());
    CHECK(batch.lane(1, 2) == value);
    CHECK(batch.lane(1, 0) == glm::vec4(0.0f));
    CHECK(batch.lane(0, 2) == glm::vec4(0.0f));
    batch.clearLanes(1);
    CHECK(batch.lane(1, 2) == glm::vec4(0.0f));

    CHECK_THROWS_AS(batch.setLane(2, 0, value), OutOfRange);
    CHECK_THROWS_AS(batch.setLane(0, 4, value), OutOfRange);
    CHECK_THROWS_AS(batch.lane(0, 4), OutOfRange);
    const std::uint64_t version = batch.dataVersion();
    CHECK_THROWS_AS(batch.setLane(0, 0, glm::vec4(std::nanf(""))), InvalidArgument);
    CHECK(batch.dataVersion() == version);
    CHECK(batch.lane(0, 0) == glm::vec4(0.0f));
}

TEST_CASE("lanes follow swap-remove, by handle, and a new instance starts at zero", "[lanes]") {
    InstancedMeshNode batch(quadMesh(1.0f), Material{}, 8);
    const InstanceHandle a = batch.acquire({at(0)});
    const InstanceHandle b = batch.acquire({at(1)});
    const InstanceHandle c = batch.acquire({at(2)});
    batch.setLane(a, 0, glm::vec4(1, 0, 0, 0));
    batch.setLane(b, 1, glm::vec4(0, 2, 0, 0));
    batch.setLane(c, 3, glm::vec4(0, 0, 3, 4));
    batch.release(a);  // c moves into slot 0
    CHECK(batch.indexOf(c) == 0);
    CHECK(batch.lane(c, 3) == glm::vec4(0, 0, 3, 4));
    CHECK(batch.lane(0, 3) == glm::vec4(0, 0, 3, 4));
    CHECK(batch.lane(b, 1) == glm::vec4(0, 2, 0, 0));
    CHECK_THROWS_AS(batch.lane(a, 0), InvalidArgument);
    CHECK_THROWS_AS(batch.setLane(a, 0, glm::vec4(1)), InvalidArgument);
    // The vacated row went back to zero: a new instance there reads zero.
    const InstanceHandle d = batch.acquire({at(3)});
    CHECK(batch.indexOf(d) == 2);
    for (std::size_t lane = 0; lane < batch.laneCount(); ++lane) {
        CHECK(batch.lane(d, lane) == glm::vec4(0.0f));
    }
    batch.clearLanes(c);
    CHECK(batch.lane(c, 3) == glm::vec4(0.0f));
}

TEST_CASE("lanes survive growth and log only the changed rows", "[lanes]") {
    InstancedMeshNode batch(quadMesh(1.0f), Material{}, 2, "grow", {.growth = Growth::Double});
    batch.addInstance(at(0));
    batch.addInstance(at(1));
    batch.setLane(1, 0, glm::vec4(7, 8, 9, 10));
    for (int i = 0; i < 40; ++i) {
        batch.addInstance(at(static_cast<float>(i)));
    }
    CHECK(batch.capacity() >= 42);
    CHECK(batch.streams()[InstanceStreamId::Lanes].capacity() == batch.capacity());
    CHECK(batch.lane(1, 0) == glm::vec4(7, 8, 9, 10));
    CHECK(batch.lane(41, 0) == glm::vec4(0.0f));

    // Only the written row is pending once a consumer has seen the rest.
    InstanceStream& lanes = const_cast<InstanceStream&>(batch.streams()[InstanceStreamId::Lanes]);
    lanes.changes().acknowledge(1, lanes.version());
    batch.setLane(30, 2, glm::vec4(1));
    std::vector<IndexRange> ranges;
    REQUIRE(lanes.changes().collect(lanes.version() - 1, ranges));
    REQUIRE(ranges.size() == 1);
    CHECK(ranges[0] == IndexRange{30, 31});
}

TEST_CASE("a MeshNode carries four lanes of shader data, a batch refuses node lanes", "[lanes]") {
    MeshNode node(quadMesh(1.0f), Material{}, "single");
    CHECK(node.shaderData(3) == glm::vec4(0.0f));
    node.setShaderData(3, glm::vec4(1, 2, 3, 4));
    CHECK(node.shaderData(3) == glm::vec4(1, 2, 3, 4));
    CHECK(node.shaderDataLanes()[3] == glm::vec4(1, 2, 3, 4));
    CHECK_THROWS_AS(node.setShaderData(4, glm::vec4(1)), OutOfRange);
    CHECK_THROWS_AS(node.setShaderData(0, glm::vec4(INFINITY)), InvalidArgument);
    CHECK(node.shaderData(0) == glm::vec4(0.0f));
    node.clearShaderData();
    CHECK(node.shaderData(3) == glm::vec4(0.0f));

    InstancedMeshNode batch(quadMesh(1.0f), Material{}, 1, "batch");
    CHECK_THROWS_AS(batch.setShaderData(0, glm::vec4(1)), InvalidArgument);
}

TEST_CASE("setLaneCount keeps the lanes both counts have, zeros new ones, and 0 frees the stream", "[lanes]") {
    InstancedMeshNode batch(quadMesh(1.0f), Material{}, 3, "counts", {.laneCount = 8});
    CHECK(batch.laneCount() == 8);
    const InstanceHandle first = batch.acquire({at(0)});
    (void)batch.acquire({at(1)});
    for (std::size_t lane = 0; lane < 8; ++lane) {
        batch.setLane(1, lane, glm::vec4(static_cast<float>(lane) + 1.0f));
    }
    CHECK(batch.streams()[InstanceStreamId::Lanes].desc().floatsPerInstance == 32);
    CHECK(batch.streams()[InstanceStreamId::Lanes].data().size() == 3 * 32);

    const std::uint64_t before = batch.streams()[InstanceStreamId::Lanes].version();
    batch.setLaneCount(2);
    CHECK(batch.laneCount() == 2);
    CHECK(batch.streams()[InstanceStreamId::Lanes].version() > before);  // renderers re-send it
    CHECK(batch.streams()[InstanceStreamId::Lanes].data().size() == 3 * 8);
    CHECK(batch.lane(1, 0) == glm::vec4(1.0f));
    CHECK(batch.lane(1, 1) == glm::vec4(2.0f));
    CHECK_THROWS_AS(batch.lane(1, 2), OutOfRange);
    CHECK_THROWS_AS(batch.setLane(1, 2, glm::vec4(1.0f)), OutOfRange);

    batch.setLaneCount(5);
    CHECK(batch.lane(1, 1) == glm::vec4(2.0f));
    CHECK(batch.lane(1, 4) == glm::vec4(0.0f));  // dropped at 2, so zero now
    // Swap-remove and growth move and keep rows of the new width.
    batch.setLane(first, 4, glm::vec4(9.0f));
    const InstanceHandle last = batch.acquire({at(2)});
    batch.setLane(last, 3, glm::vec4(6.0f));
    batch.release(first);  // the last moves into row 0, its five lanes with it
    CHECK(batch.indexOf(last) == 0);
    CHECK(batch.lane(0, 3) == glm::vec4(6.0f));
    CHECK(batch.lane(0, 4) == glm::vec4(0.0f));
    CHECK(batch.lane(1, 1) == glm::vec4(2.0f));
    batch.ensureCapacity(40);  // growth at width 5
    CHECK(batch.streams()[InstanceStreamId::Lanes].data().size() == batch.capacity() * 20);
    CHECK(batch.lane(0, 3) == glm::vec4(6.0f));

    batch.setLaneCount(0);
    CHECK(batch.laneCount() == 0);
    CHECK_FALSE(batch.hasLanes());
    CHECK(batch.streams()[InstanceStreamId::Lanes].capacity() == 0);  // freed
    CHECK_THROWS_AS(batch.setLane(0, 0, glm::vec4(1.0f)), OutOfRange);
    batch.setLaneCount(1);
    CHECK_FALSE(batch.hasLanes());  // still nothing allocated until a lane is set
    CHECK(batch.lane(1, 0) == glm::vec4(0.0f));
    batch.setLane(1, 0, glm::vec4(3.0f));
    CHECK(batch.lane(1, 0) == glm::vec4(3.0f));
    CHECK(batch.lane(0, 0) == glm::vec4(0.0f));
}

TEST_CASE("a lane count out of range or on a static batch is refused with nothing changed", "[lanes]") {
    CHECK_THROWS_AS(InstancedMeshNode(quadMesh(1.0f), Material{}, 1, "nine", {.laneCount = 9}), OutOfRange);
    InstancedMeshNode batch(quadMesh(1.0f), Material{}, 2, "refused");
    CHECK(batch.laneCount() == InstancedMeshNode::defaultLaneCount);
    batch.addInstance(at(0));
    batch.setLane(0, 3, glm::vec4(4.0f));
    const std::uint64_t version = batch.dataVersion();
    CHECK_THROWS_AS(batch.setLaneCount(InstancedMeshNode::maxLaneCount + 1), OutOfRange);
    batch.setStatic(true);
    CHECK_THROWS_AS(batch.setLaneCount(2), StateError);
    batch.setStatic(false);
    CHECK(batch.laneCount() == 4);
    CHECK(batch.dataVersion() == version);
    CHECK(batch.lane(0, 3) == glm::vec4(4.0f));
    CHECK_THROWS_AS(streams::lanes(0), OutOfRange);
    CHECK_THROWS_AS(streams::lanes(9), OutOfRange);
    CHECK(&streams::lanes(4) == &streams::kLanes);
}
