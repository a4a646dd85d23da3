#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Shapes.h"
#include "myriad/util/Error.h"
#include "support/CoreTest.h"

#include <catch2/catch.hpp>
#include <glm/gtc/matrix_transform.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

using namespace myriad;
using myriad::test::at;

namespace {

std::shared_ptr<const MeshGeometry> box() {
    static auto mesh = MeshGeometry::create(shapes::box(1.0f), "box");
    return mesh;
}


} // namespace

TEST_CASE("handles keep finding their instance after any number of swap-removes", "[handles]") {
    InstancedMeshNode batch(box(), Material{}, 100, "batch");
    std::vector<InstanceHandle> handles;
    for (int i = 0; i < 100; ++i) {
        handles.push_back(batch.acquire({at(static_cast<float>(i)), glm::vec4(static_cast<float>(i))}));
    }
    CHECK(batch.count() == 100);
    CHECK(batch.liveHandleCount() == 100);
    for (int i = 0; i < 100; i += 2) {
        batch.release(handles[static_cast<std::size_t>(i)]);
    }
    CHECK(batch.count() == 50);
    for (int i = 1; i < 100; i += 2) {
        const InstanceHandle handle = handles[static_cast<std::size_t>(i)];
        REQUIRE(batch.isLive(handle));
        const std::size_t index = batch.indexOf(handle);
        INFO("instance " << i << " now at index " << index);
        CHECK(batch.readTransform(index)[3].x == static_cast<float>(i));  // its own transform
        CHECK(batch.readColor(index).r == static_cast<float>(i));          // and its own colour
    }
    CHECK_FALSE(batch.isLive(handles[0]));
}

TEST_CASE("release twice, a foreign or a stale handle throws and changes nothing", "[handles]") {
    InstancedMeshNode batch(box(), Material{}, 8, "a");
    InstancedMeshNode other(box(), Material{}, 8, "b");
    const InstanceHandle first = batch.acquire({at(1.0f)});
    const InstanceHandle second = batch.acquire({at(2.0f)});
    const InstanceHandle foreign = other.acquire({at(3.0f)});
    batch.release(first);
    const std::size_t count = batch.count();
    const std::uint64_t version = batch.dataVersion();
    CHECK_THROWS_AS(batch.release(first), InvalidArgument);    // twice
    CHECK_THROWS_AS(batch.release(foreign), InvalidArgument);  // another batch
    CHECK_THROWS_AS(batch.release(InstanceHandle{}), InvalidArgument);
    CHECK_THROWS_AS(batch.indexOf(first), InvalidArgument);
    CHECK(batch.count() == count);
    CHECK(batch.dataVersion() == version);
    // The released slot is reused with a new generation: the old handle stays stale.
    const InstanceHandle third = batch.acquire({at(4.0f)});
    CHECK(third.slot == first.slot);
    CHECK(third.generation != first.generation);
    CHECK_THROWS_AS(batch.release(first), InvalidArgument);
    CHECK(batch.readTransform(batch.indexOf(third))[3].x == 4.0f);
    CHECK(batch.readTransform(batch.indexOf(second))[3].x == 2.0f);
    // A smaller count makes the handles of dropped instances stale.
    batch.setCount(1);
    CHECK(batch.isLive(second) != batch.isLive(third));
    batch.clear();
    CHECK_FALSE(batch.isLive(second));
    CHECK_FALSE(batch.isLive(third));
    CHECK(batch.liveHandleCount() == 0);
}

TEST_CASE("instances placed by index and by handle mix in one batch", "[handles]") {
    InstancedMeshNode batch(box(), Material{}, 8, "mixed");
    batch.addInstance(at(0.0f));                      // index 0, no handle
    const InstanceHandle h = batch.acquire({at(1.0f)});  // index 1
    batch.addInstance(at(2.0f));                      // index 2, no handle
    const InstanceHandle last = batch.acquire({at(3.0f)});  // index 3
    batch.release(h);  // index 3 (a handle) moves into 1
    CHECK(batch.indexOf(last) == 1);
    CHECK(batch.readTransform(1)[3].x == 3.0f);
    CHECK(batch.readTransform(2)[3].x == 2.0f);  // the index-placed one did not move
    batch.release(last);  // index 2 (no handle) moves into 1
    CHECK(batch.count() == 2);
    CHECK(batch.readTransform(1)[3].x == 2.0f);
}

TEST_CASE("growth from 8 to 1,000,000 keeps the first 8 records bit for bit and the handles", "[growth]") {
    InstancedMeshNode batch(box(), Material{}, 8, "grow", {.growth = Growth::Double});
    std::vector<InstanceHandle> handles;
    for (int i = 0; i < 8; ++i) {
        handles.push_back(batch.acquire({at(0.1f * static_cast<float>(i)), glm::vec4(0.3f)}));
    }
    const std::vector<float> before(batch.instanceData().begin(), batch.instanceData().begin() + 8 * 16);
    batch.ensureCapacity(1'000'000);
    CHECK(batch.capacity() == 1'000'000);
    CHECK(std::memcmp(before.data(), batch.instanceData().data(), 8 * sizeof(InstanceRecord)) == 0);
    for (int i = 0; i < 8; ++i) {
        CHECK(batch.indexOf(handles[static_cast<std::size_t>(i)]) == static_cast<std::size_t>(i));
    }
}

TEST_CASE("Growth::Double grows on demand, Fixed throws", "[growth]") {
    InstancedMeshNode growing(box(), Material{}, 2, "growing", {.growth = Growth::Double});
    for (int i = 0; i < 100; ++i) {
        growing.addInstance(at(static_cast<float>(i)));
    }
    CHECK(growing.count() == 100);
    CHECK(growing.capacity() >= 100);
    CHECK(growing.readTransform(57)[3].x == 57.0f);
    InstancedMeshNode fixed(box(), Material{}, 2, "fixed");
    (void)fixed.acquire();
    (void)fixed.acquire();
    CHECK_THROWS_AS(fixed.acquire(), CapacityError);
    CHECK(fixed.liveHandleCount() == 2);
}

namespace {
/** What a renderer (consumer 1) does after uploading every stream of @p batch. */
void uploadedEverything(const InstancedMeshNode& batch, std::uint64_t consumer = 1) {
    for (const InstanceStream& stream : batch.streams()) {
        stream.changes().acknowledge(consumer, stream.version());
    }
}
} // namespace

TEST_CASE("writes record dirty ranges, merged when close", "[dirty]") {
    InstancedMeshNode batch(box(), Material{}, 1000, "dirty");
    batch.setCount(1000);
    uploadedEverything(batch);
    CHECK(batch.dirtyRanges().empty());
    for (std::size_t i = 100; i < 110; ++i) {
        batch.setColor(i, glm::vec4(0.5f));
    }
    batch.setTransform(500, at(1.0f));
    REQUIRE(batch.dirtyRanges().size() == 2);
    CHECK(batch.dirtyRanges()[0] == IndexRange{100, 110});
    CHECK(batch.dirtyRanges()[1] == IndexRange{500, 501});
    uploadedEverything(batch);
    // Thousands of scattered writes stay a bounded list that covers every write.
    for (std::size_t i = 0; i < 1000; i += 7) {
        batch.setColor(i, glm::vec4(0.1f));
    }
    std::size_t covered = 0;
    for (const IndexRange& range : batch.dirtyRanges()) {
        covered += range.end - range.begin;
    }
    CHECK(covered >= 1000 / 7);
    CHECK(batch.dirtyRanges().front().begin == 0);
    CHECK(batch.dirtyRanges().back().end >= 995);
    CHECK_THROWS_AS(batch.markInstancesChanged(990, 20), OutOfRange);
}

TEST_CASE("bounds stay right after release and growth, mirrored instances are counted", "[bounds]") {
    InstancedMeshNode batch(box(), Material{}, 4, "b", {.growth = Growth::Double});
    (void)batch.acquire({at(0.0f)});
    const InstanceHandle far = batch.acquire({at(10.0f)});
    CHECK(batch.localBounds().max.x == 10.5f);
    batch.release(far);
    CHECK(batch.localBounds().max.x == 0.5f);
    for (int i = 0; i < 10; ++i) {
        batch.addInstance(at(-static_cast<float>(i)));
    }
    CHECK(batch.localBounds().min.x == -9.5f);
    CHECK(batch.mirroredCount() == 0);
    const std::size_t mirrored = batch.addInstance(glm::scale(glm::mat4(1.0f), glm::vec3(-1, 1, 1)));
    CHECK(batch.mirroredCount() == 1);
    batch.setTransform(mirrored, at(0.0f));
    CHECK(batch.mirroredCount() == 0);
}

TEST_CASE("world bounds: sphere around every instance, scaled by the node", "[bounds]") {
    SceneNode root("root");
    auto& batch = root.emplace<InstancedMeshNode>(box(), Material{}, 4, "b");
    batch.addInstance(at(10.0f));
    batch.addInstance(at(12.0f));
    batch.setScale(glm::vec3(2.0f));
    batch.setPosition(glm::dvec3(0, 5, 0));
    const glm::dvec3 centre = batch.worldBoundsCentre();
    CHECK(centre.x == Approx(22.0));  // local centre 11, scaled by 2
    CHECK(centre.y == Approx(5.0));
    // Local box: x 9.5..12.5, y and z -0.5..0.5: half diagonal sqrt(1.5^2 + 0.5^2 + 0.5^2).
    CHECK(batch.worldBoundsRadius() == Approx(2.0f * std::sqrt(2.25f + 0.25f + 0.25f)));
    CHECK(root.subtreeBounds().max.x == Approx(25.0f));
    CHECK(batch.drawsTransparent() == false);
    batch.setTint(glm::vec4(1, 1, 1, 0.5f));
    CHECK(batch.drawsTransparent());
}

namespace {

std::shared_ptr<const MeshGeometry> morphingTriangle(std::size_t targets) {
    MeshData data = shapes::triangle();
    for (std::size_t t = 0; t < targets; ++t) {
        MorphTarget target;
        target.positionDeltas.assign(3, glm::vec3(0.0f, static_cast<float>(t + 1), 0.0f));
        data.morphTargets.push_back(target);
    }
    data.morphWeights = {0.25f};
    return MeshGeometry::create(data, "morphing");
}

} // namespace

TEST_CASE("morph weights: node defaults, per-instance weights, limits", "[morph]") {
    auto mesh = morphingTriangle(2);
    CHECK(mesh->defaultMorphWeights() == std::vector<float>{0.25f, 0.0f});  // padded
    InstancedMeshNode batch(mesh, Material{}, 4, "crowd");
    batch.addInstance(at(0.0f));
    batch.addInstance(at(1.0f));
    CHECK_FALSE(batch.hasInstanceMorphWeights());
    CHECK(batch.instanceMorphWeightData().empty());  // nothing allocated yet
    CHECK(batch.morphWeightsOf(0)[0] == 0.25f);      // the node's (mesh default) weights

    const float own[] = {1.0f, 0.5f};
    batch.setMorphWeights(1, own);
    CHECK(batch.hasInstanceMorphWeights());
    CHECK(batch.morphWeightsOf(1)[0] == 1.0f);
    CHECK(batch.morphWeightsOf(1)[1] == 0.5f);
    CHECK(batch.morphWeightsOf(0)[0] == 0.25f);
    const float nodeWeights[] = {0.75f};
    batch.MeshNode::setMorphWeights(nodeWeights);
    CHECK(batch.morphWeightsOf(0)[0] == 0.75f);  // instances without their own follow the node

    const std::uint64_t version = batch.dataVersion();
    const float tooMany[kMaxMorphTargets + 1] = {};
    CHECK_THROWS_AS(batch.setMorphWeights(0, tooMany), InvalidArgument);
    const float three[] = {0.0f, 0.0f, 0.0f};  // the mesh has 2 targets
    CHECK_THROWS_AS(batch.setMorphWeights(0, three), InvalidArgument);
    const float nan[] = {std::numeric_limits<float>::quiet_NaN()};
    CHECK_THROWS_AS(batch.setMorphWeights(0, nan), InvalidArgument);
    CHECK_THROWS_AS(batch.setMorphWeights(5, own), OutOfRange);
    CHECK(batch.dataVersion() == version);
    CHECK_THROWS_AS(MeshGeometry(shapes::triangle()).defaultMorphWeights().at(0), std::out_of_range);
    MeshData tooManyTargets = shapes::triangle();
    tooManyTargets.morphTargets.resize(kMaxMorphTargets + 1);
    CHECK_THROWS_AS(MeshGeometry(tooManyTargets), InvalidArgument);
}

TEST_CASE("bulk morph weights: many instances in one call, one change, all-or-nothing", "[morph]") {
    auto mesh = morphingTriangle(3);
    InstancedMeshNode batch(mesh, Material{}, 16, "crowd");
    for (int i = 0; i < 10; ++i) {
        batch.addInstance(at(static_cast<float>(i)));
    }
    const float before[] = {0.5f, 0.0f, 0.0f};
    batch.setMorphWeights(2, before);  // instance 2 already has weights of its own
    const std::uint64_t version = batch.dataVersion();
    const std::uint64_t streamVersion = batch.streams()[InstanceStreamId::MorphWeights].version();
    const float localTop = batch.localBounds().max.y;

    // Instances 2..5, two weights each (target 2 left at 0).
    const float rows[] = {0.1f, 0.2f, 0.3f, 0.4f, 2.0f, 0.6f, 0.7f, 0.8f};
    batch.setMorphWeights(2, rows, 2);
    for (std::size_t k = 0; k < 4; ++k) {
        const std::span<const float> w = batch.morphWeightsOf(2 + k);
        REQUIRE(w.size() == 3);
        CHECK(w[0] == rows[2 * k]);
        CHECK(w[1] == rows[2 * k + 1]);
        CHECK(w[2] == 0.0f);
    }
    CHECK(batch.morphWeightsOf(1)[0] == 0.25f);  // outside the range: the node's weights
    CHECK(batch.morphWeightsOf(6)[0] == 0.25f);
    CHECK(batch.dataVersion() == version + 1);  // one write
    const InstanceStream& stream = batch.streams()[InstanceStreamId::MorphWeights];
    CHECK(stream.version() == streamVersion + 1);  // one change-log entry for the range
    const std::vector<IndexRange> pending = stream.changes().pendingRanges();
    REQUIRE_FALSE(pending.empty());
    CHECK(pending.back() == IndexRange{2, 6});
    // The box covers the widest weights per target (2.0 on target 0, 0.8 on target 1): outside
    // the old range, so it grew.
    CHECK(localTop == Approx(0.5f + 0.5f * 1.0f));
    CHECK(batch.localBounds().max.y == Approx(0.5f + 2.0f * 1.0f + 0.8f * 2.0f));
    batch.clear();
    CHECK_FALSE(batch.hasInstanceMorphWeights());  // every own row counted once (2 was already own)
    for (int i = 0; i < 10; ++i) {
        batch.addInstance(at(static_cast<float>(i)));
    }

    // Refusals change nothing: not the weights, the versions, the count of own rows.
    batch.setMorphWeights(0, rows, 2);
    const std::vector<float> data(batch.instanceMorphWeightData().begin(), batch.instanceMorphWeightData().end());
    const std::uint64_t refusedVersion = batch.dataVersion();
    const std::uint64_t refusedStream = stream.version();
    float lastNaN[] = {0.9f, 0.9f, 0.9f, 0.9f, 0.9f, 0.9f};
    lastNaN[5] = std::numeric_limits<float>::quiet_NaN();  // the last row: nothing before it is written
    CHECK_THROWS_AS(batch.setMorphWeights(0, lastNaN, 3), InvalidArgument);
    lastNaN[5] = std::numeric_limits<float>::infinity();
    CHECK_THROWS_AS(batch.setMorphWeights(0, lastNaN, 3), InvalidArgument);
    CHECK_THROWS_AS(batch.setMorphWeights(8, rows, 2), OutOfRange);  // 4 rows from 8 of count 10
    CHECK_THROWS_AS(batch.setMorphWeights(11, std::span<const float>(), 2), OutOfRange);
    CHECK_THROWS_AS(batch.setMorphWeights(SIZE_MAX, rows, 2), OutOfRange);  // no wrap-around
    CHECK_THROWS_AS(batch.setMorphWeights(0, rows, 0), InvalidArgument);
    CHECK_THROWS_AS(batch.setMorphWeights(0, rows, 4), InvalidArgument);  // the mesh has 3 targets
    CHECK_THROWS_AS(batch.setMorphWeights(0, std::span<const float>(rows, 7), 2), InvalidArgument);  // 3.5 rows
    CHECK_THROWS_WITH(batch.setMorphWeights(0, lastNaN, 3), Catch::Contains("instance 1"));
    CHECK(std::vector<float>(batch.instanceMorphWeightData().begin(), batch.instanceMorphWeightData().end()) == data);
    CHECK(batch.dataVersion() == refusedVersion);
    CHECK(stream.version() == refusedStream);
    batch.setMorphWeights(10, std::span<const float>(), 2);  // empty at the end: nothing to do
    CHECK(batch.dataVersion() == refusedVersion);

    // A batch with no own weights yet allocates the stream on the first bulk call.
    InstancedMeshNode fresh(mesh, Material{}, 4, "fresh");
    fresh.addInstance(at(0.0f));
    fresh.addInstance(at(1.0f));
    CHECK_THROWS_AS(fresh.setMorphWeights(0, rows, 2), OutOfRange);
    CHECK(fresh.instanceMorphWeightData().empty());
    fresh.setMorphWeights(0, std::span<const float>(rows, 4), 2);
    CHECK(fresh.hasInstanceMorphWeights());
    CHECK(fresh.morphWeightsOf(1)[1] == 0.4f);
    CHECK(fresh.streams()[InstanceStreamId::MorphWeights].changes().pendingRanges() == std::vector<IndexRange>{{0, 2}});
}

TEST_CASE("morph weights stay with their instance through release, adds and growth", "[morph]") {
    auto mesh = morphingTriangle(2);
    InstancedMeshNode batch(mesh, Material{}, 4, "crowd", {.growth = Growth::Double});
    std::vector<InstanceHandle> handles;
    for (int i = 0; i < 4; ++i) {
        handles.push_back(batch.acquire({at(static_cast<float>(i))}));
        const float w[] = {0.1f * static_cast<float>(i + 1), 0.0f};
        batch.setMorphWeights(batch.indexOf(handles.back()), w);
    }
    batch.release(handles[1]);  // the last instance (weights 0.4) moves into index 1
    CHECK(batch.morphWeightsOf(batch.indexOf(handles[3]))[0] == Approx(0.4f));
    CHECK(batch.morphWeightsOf(batch.indexOf(handles[0]))[0] == Approx(0.1f));
    const InstanceHandle fresh = batch.acquire({at(9.0f)});  // reuses the freed row: node weights
    CHECK(batch.morphWeightsOf(batch.indexOf(fresh))[0] == 0.25f);
    for (int i = 0; i < 40; ++i) {  // growth past the first capacity
        (void)batch.acquire({at(10.0f + static_cast<float>(i))});
    }
    CHECK(batch.capacity() >= 44);
    CHECK(batch.morphWeightsOf(batch.indexOf(handles[2]))[0] == Approx(0.3f));
    CHECK(batch.morphWeightsOf(batch.indexOf(handles[3]))[0] == Approx(0.4f));
    batch.clear();
    CHECK_FALSE(batch.hasInstanceMorphWeights());
}

TEST_CASE("mergeIndexRanges sorts and joins ranges closer than the gap", "[dirty]") {
    std::vector<IndexRange> ranges = {{50, 60}, {0, 4}, {10, 12}, {58, 70}, {200, 201}};
    mergeIndexRanges(ranges, 6);
    CHECK(ranges == std::vector<IndexRange>{{0, 12}, {50, 70}, {200, 201}});
    std::vector<IndexRange> none;
    mergeIndexRanges(none, 16);
    CHECK(none.empty());
}

TEST_CASE("each consumer of a stream gets the changes since its own upload", "[dirty][streams]") {
    // Two renderers drawing one batch: each sends only what changed since it last uploaded,
    // and neither one's upload hides a change from the other (the log is trimmed only past the
    // slowest cursor).
    InstancedMeshNode batch(box(), Material{}, 100, "two-consumers");
    batch.setCount(100);
    const InstanceStream& records = batch.streams()[InstanceStreamId::Record];
    records.changes().acknowledge(1, records.version());
    records.changes().acknowledge(2, records.version());
    const std::uint64_t bothSaw = records.version();

    batch.setColor(10, glm::vec4(0.5f));
    std::vector<IndexRange> ranges;
    REQUIRE(records.changes().collect(bothSaw, ranges));
    CHECK(ranges == std::vector<IndexRange>{{10, 11}});
    records.changes().acknowledge(1, records.version());  // renderer 1 uploads
    const std::uint64_t oneSaw = records.version();

    batch.setColor(50, glm::vec4(0.25f));
    ranges.clear();
    REQUIRE(records.changes().collect(bothSaw, ranges));  // renderer 2 still needs both
    CHECK(ranges == std::vector<IndexRange>{{10, 11}, {50, 51}});
    ranges.clear();
    REQUIRE(records.changes().collect(oneSaw, ranges));   // renderer 1 only the new one
    CHECK(ranges == std::vector<IndexRange>{{50, 51}});

    // A consumer the log no longer reaches back to (evicted, or new) is told to send all.
    for (std::uint64_t consumer = 3; consumer < 3 + ChangeLog::kMaxConsumers; ++consumer) {
        records.changes().acknowledge(consumer, records.version());
    }
    ranges.clear();
    CHECK_FALSE(records.changes().collect(bothSaw, ranges));
}

TEST_CASE("a row vacated by release reaches the GPU again when an instance takes it",
          "[morph][streams]") {
    // Issue input: A (node weights) and B (its own weight lifts it). release(A) moves B into
    // slot 0; addInstance() takes slot 1, whose weights row was reset on the CPU only. Every
    // row entering the drawn range must be logged as changed in every stream.
    auto mesh = std::make_shared<const MeshGeometry>([] {
        MeshData data = shapes::triangle();
        data.morphTargets.push_back({"lift", std::vector<glm::vec3>(3, glm::vec3(0, 1, 0)), {}});
        return data;
    }());
    InstancedMeshNode batch(mesh, Material{}, 4, "stale-rows");
    const InstanceHandle a = batch.acquire();
    (void)batch.acquire();
    const float lift[] = {1.0f};
    batch.setMorphWeights(1, lift);
    uploadedEverything(batch);
    batch.release(a);
    uploadedEverything(batch);
    const std::size_t added = batch.addInstance(glm::mat4(1.0f));
    REQUIRE(added == 1);
    const InstanceStream& weights = batch.streams()[InstanceStreamId::MorphWeights];
    const auto pending = weights.changes().pendingRanges();
    REQUIRE(pending.size() == 1);
    CHECK(pending[0].begin <= 1);
    CHECK(pending[0].end >= 2);
    CHECK(weights.row(1)[0] == InstancedMeshNode::kUseNodeMorphWeights);
    CHECK(batch.morphWeightsOf(1)[0] == 0.0f);  // node weights: the mesh default
}

TEST_CASE("release(span) removes every handle as one-by-one release does, and refuses a bad list whole", "[handles]") {
    auto mesh = MeshGeometry::create(shapes::box(1.0f), "box");
    InstancedMeshNode one(mesh, Material{}, 64, "one");
    InstancedMeshNode many(mesh, Material{}, 64, "many");
    std::vector<InstanceHandle> a, b;
    for (int i = 0; i < 40; ++i) {
        const InstanceDesc desc{glm::translate(glm::mat4(1.0f), glm::vec3(static_cast<float>(i), 0, 0)), glm::vec4(1.0f)};
        a.push_back(one.acquire(desc));
        b.push_back(many.acquire(desc));
    }
    const std::vector<std::size_t> gone = {3, 39, 0, 17, 22, 5, 38, 11, 12, 30};
    std::vector<InstanceHandle> list;
    for (const std::size_t k : gone) {
        one.release(a[k]);
        list.push_back(b[k]);
    }
    // A list with a stale handle, or one handle twice, changes nothing.
    std::vector<InstanceHandle> twice = {b[1], b[2], b[1]};
    const std::uint64_t version = many.dataVersion();
    CHECK_THROWS_AS(many.release(twice), InvalidArgument);
    CHECK(many.count() == 40);
    CHECK(many.isLive(b[1]));
    CHECK(many.isLive(b[2]));
    CHECK(many.dataVersion() == version);
    many.release(list);
    REQUIRE(many.count() == one.count());
    for (std::size_t i = 0; i < many.count(); ++i) {
        CHECK(many.readTransform(i) == one.readTransform(i));
    }
    for (std::size_t k = 0; k < 40; ++k) {
        CHECK(many.isLive(b[k]) == one.isLive(a[k]));
        if (one.isLive(a[k])) {
            CHECK(many.indexOf(b[k]) == one.indexOf(a[k]));
        }
    }
    CHECK_THROWS_AS(many.release(list), InvalidArgument);  // all released already
}

TEST_CASE("shrinkToFit gives capacity back and keeps every record, lane, mask and handle", "[instances][handles]") {
    auto mesh = MeshGeometry::create(shapes::box(1.0f), "box");
    InstancedMeshNode batch(mesh, Material{}, 1000, "shrinking");
    std::vector<InstanceHandle> handles;
    for (int i = 0; i < 1000; ++i) {
        handles.push_back(batch.acquire({.transform = at(static_cast<float>(i)), .color = glm::vec4(1.0f)}));
    }
    batch.setLane(handles[999], 2, glm::vec4(7.0f, 8.0f, 9.0f, 10.0f));
    batch.setCastsShadow(handles[989], false);
    // Release all but every tenth; the survivors are swap-moved around.
    for (int i = 0; i < 1000; ++i) {
        if (i % 10 != 9) {
            batch.release(handles[static_cast<std::size_t>(i)]);
        }
    }
    REQUIRE(batch.count() == 100);
    const std::uint64_t version = batch.dataVersion();
    batch.shrinkToFit();
    CHECK(batch.capacity() == 100);
    CHECK(batch.count() == 100);
    CHECK(batch.dataVersion() > version);
    for (int i = 9; i < 1000; i += 10) {
        const InstanceHandle handle = handles[static_cast<std::size_t>(i)];
        REQUIRE(batch.isLive(handle));
        CHECK(batch.readTransform(batch.indexOf(handle))[3].x == Approx(static_cast<float>(i)));
    }
    CHECK(batch.lane(handles[999], 2) == glm::vec4(7.0f, 8.0f, 9.0f, 10.0f));
    CHECK_FALSE(batch.castsShadow(batch.indexOf(handles[989])));
    CHECK(batch.shadowMask().size() == 100);
    // Every stream is marked changed over the new capacity: a renderer re-sends it whole.
    for (const InstanceStream& stream : batch.streams()) {
        if (stream.allocated()) {
            CHECK(stream.capacity() == 100);
            const std::vector<IndexRange> pending = stream.changes().pendingRanges();
            const bool covered = std::any_of(pending.begin(), pending.end(),
                                             [](const IndexRange& r) { return r.begin == 0 && r.end >= 100; });
            CHECK(covered);
        }
    }

    // A minimum keeps room; a minimum above the capacity changes nothing; at least one row stays.
    batch.shrinkToFit(150);
    CHECK(batch.capacity() == 100);
    batch.setCount(0);
    batch.shrinkToFit(40);
    CHECK(batch.capacity() == 40);
    batch.shrinkToFit();
    CHECK(batch.capacity() == 1);
    // Growth works from the new capacity, and new handles are good.
    batch.ensureCapacity(8);
    for (int i = 0; i < 8; ++i) {
        CHECK(batch.isLive(batch.acquire({.transform = at(1.0f)})));
    }
    CHECK(batch.count() == 8);
}
