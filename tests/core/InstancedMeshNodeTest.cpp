#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Shapes.h"
#include "myriad/util/Error.h"

#include <catch2/catch.hpp>
#include <glm/gtc/matrix_transform.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

using namespace myriad;

namespace {

InstancedMeshNode makeBatch(std::size_t capacity) {
    return InstancedMeshNode(MeshGeometry::create(shapes::box(1.0f), "box"), Material{}, capacity,
                             "batch");
}

glm::mat4 translation(float x, float y, float z) {
    return glm::translate(glm::mat4(1.0f), glm::vec3(x, y, z));
}

} // namespace

TEST_CASE("record packing: rows at floats 4r..4r+3, colour at 12..15, bytes 0/16/32/48", "[instances]") {
    auto batch = makeBatch(2);
    glm::mat4 m(1.0f);
    // Distinct value per matrix element: m[column][row] = 10 * row + column + 1.
    for (int column = 0; column < 4; ++column) {
        for (int row = 0; row < 3; ++row) {
            m[column][row] = static_cast<float>(10 * row + column + 1);
        }
    }
    batch.addInstance(glm::mat4(1.0f));
    batch.addInstance(m, glm::vec4(0.1f, 0.2f, 0.3f, 0.4f));
    const std::span<const float> data = std::as_const(batch).instanceData();
    REQUIRE(data.size() == 2 * InstancedMeshNode::floatsPerInstance);
    const float* record = data.data() + InstancedMeshNode::floatsPerInstance;
    for (int row = 0; row < 3; ++row) {
        for (int column = 0; column < 4; ++column) {
            INFO("row " << row << " column " << column);
            CHECK(record[4 * row + column] == static_cast<float>(10 * row + column + 1));
        }
    }
    CHECK(record[12] == 0.1f);
    CHECK(record[13] == 0.2f);
    CHECK(record[14] == 0.3f);
    CHECK(record[15] == 0.4f);
    STATIC_REQUIRE(InstancedMeshNode::strideInBytes == 64);
    STATIC_REQUIRE(offsetof(InstanceRecord, row1) == 16);
    STATIC_REQUIRE(offsetof(InstanceRecord, row2) == 32);
    STATIC_REQUIRE(offsetof(InstanceRecord, color) == 48);
    CHECK(batch.instanceBytes().size() == 128);
}

TEST_CASE("readTransform round-trips setTransform", "[instances]") {
    auto batch = makeBatch(4);
    batch.addInstance(glm::mat4(1.0f));
    const glm::mat4 m = glm::translate(glm::mat4(1.0f), glm::vec3(1, 2, 3)) *
                        glm::rotate(glm::mat4(1.0f), 0.7f, glm::vec3(0, 1, 0)) *
                        glm::scale(glm::mat4(1.0f), glm::vec3(3, 1, 0.5f));
    batch.setTransform(0, m);
    const glm::mat4 back = batch.readTransform(0);
    for (int c = 0; c < 4; ++c) {
        for (int r = 0; r < 4; ++r) {
            CHECK(back[c][r] == m[c][r]);
        }
    }
    batch.setColor(0, glm::vec4(0.5f, 0.25f, 1.0f, 1.0f));
    CHECK(batch.readColor(0) == glm::vec4(0.5f, 0.25f, 1.0f, 1.0f));
    CHECK(batch.readTransform(0) == m);  // the colour write left the transform alone
}

TEST_CASE("dataVersion bumps on each write and not on a refused one", "[instances]") {
    auto batch = makeBatch(2);
    auto v = batch.dataVersion();
    batch.addInstance(translation(1, 0, 0));
    CHECK(batch.dataVersion() > v);
    v = batch.dataVersion();
    batch.setTransform(0, translation(2, 0, 0));
    CHECK(batch.dataVersion() > v);
    v = batch.dataVersion();
    batch.setColor(0, glm::vec4(1, 0, 0, 1));
    CHECK(batch.dataVersion() > v);
    v = batch.dataVersion();
    batch.markInstancesChanged();
    CHECK(batch.dataVersion() > v);

    v = batch.dataVersion();
    glm::mat4 bad = translation(5, 0, 0);
    bad[3][0] = std::numeric_limits<float>::quiet_NaN();
    CHECK_THROWS_AS(batch.setTransform(0, bad), InvalidArgument);
    CHECK_THROWS_AS(batch.setTransform(5, translation(0, 0, 0)), OutOfRange);
    CHECK_THROWS_AS(batch.setColor(0, glm::vec4(std::numeric_limits<float>::infinity())),
                    InvalidArgument);
    CHECK(batch.dataVersion() == v);
    CHECK(batch.readTransform(0) == translation(2, 0, 0));  // the record stayed as it was
}

TEST_CASE("NaN, Inf and projective transforms are refused and the record is unchanged", "[instances]") {
    auto batch = makeBatch(2);
    batch.addInstance(translation(1, 2, 3), glm::vec4(0.5f));
    const InstanceRecord before = batch.record(0);
    glm::mat4 inf = translation(0, 0, 0);
    inf[0][0] = std::numeric_limits<float>::infinity();
    glm::mat4 projective(1.0f);
    projective[0][3] = 0.5f;
    CHECK_THROWS_AS(batch.setTransform(0, inf), InvalidArgument);
    CHECK_THROWS_AS(batch.setTransform(0, projective), InvalidArgument);
    CHECK_THROWS_AS(batch.addInstance(inf), InvalidArgument);
    CHECK(batch.count() == 1);
    CHECK(std::memcmp(&batch.record(0), &before, sizeof before) == 0);
    // Type and message both checked, and the check fails when nothing throws (a try/catch
    // with no failure after the call would pass then).
    CHECK_THROWS_AS(batch.setTransform(0, inf), InvalidArgument);
    CHECK_THROWS_WITH(batch.setTransform(0, inf),
                      Catch::Contains("setTransform") && Catch::Contains("NaN or Inf"));
}

TEST_CASE("every element of a transform and a colour is checked, through every entry point", "[instances]") {
    // The accept path is a few SIMD operations over the four columns (checkTransform): each of
    // the 16 positions, with NaN, +Inf and -Inf, must still reach the refusal; the bottom row
    // is checked against requireAffine's tolerance (1e-5) in each of its four places.
    auto batch = makeBatch(4);
    batch.addInstance(translation(1, 2, 3), glm::vec4(0.5f));
    const InstanceHandle handle = batch.acquire({translation(4, 5, 6), glm::vec4(0.25f)});
    const InstanceRecord before0 = batch.record(0);
    const InstanceRecord before1 = batch.record(1);
    const std::uint64_t version = batch.dataVersion();
    const float bad[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                         -std::numeric_limits<float>::infinity()};
    for (int column = 0; column < 4; ++column) {
        for (int row = 0; row < 4; ++row) {
            for (const float value : bad) {
                glm::mat4 m = translation(7, 8, 9);
                m[column][row] = value;
                INFO("column " << column << ", row " << row << ", value " << value);
                CHECK_THROWS_AS(batch.setTransform(0, m), InvalidArgument);
                CHECK_THROWS_AS(batch.addInstance(m), InvalidArgument);
                CHECK_THROWS_AS((void)batch.acquire({m, glm::vec4(1.0f)}), InvalidArgument);
            }
        }
    }
    for (int k = 0; k < 4; ++k) {
        for (const float value : bad) {
            glm::vec4 color(1.0f);
            color[k] = value;
            INFO("colour component " << k << ", value " << value);
            CHECK_THROWS_AS(batch.setColor(0, color), InvalidArgument);
            CHECK_THROWS_AS(batch.addInstance(glm::mat4(1.0f), color), InvalidArgument);
            CHECK_THROWS_AS((void)batch.acquire({glm::mat4(1.0f), color}), InvalidArgument);
        }
    }
    for (int column = 0; column < 4; ++column) {
        const float identity = column == 3 ? 1.0f : 0.0f;
        glm::mat4 off = translation(7, 8, 9);
        off[column][3] = identity + 2.0e-5f;  // outside the tolerance: projective
        INFO("bottom row, column " << column);
        CHECK_THROWS_WITH(batch.setTransform(0, off), Catch::Contains("setTransform"));
        CHECK_THROWS_AS((void)batch.acquire({off, glm::vec4(1.0f)}), InvalidArgument);
        glm::mat4 near = translation(7, 8, 9);
        near[column][3] = identity - 5.0e-6f;  // inside it: accepted, stored as affine
        CHECK_NOTHROW(batch.setTransform(0, near));
        CHECK(batch.readTransform(0)[3] == glm::vec4(7, 8, 9, 1));
        batch.setTransform(0, translation(1, 2, 3));
    }
    CHECK(batch.count() == 2);
    CHECK(batch.liveHandleCount() == 1);
    CHECK(batch.isLive(handle));
    CHECK(std::memcmp(&batch.record(0), &before0, sizeof before0) == 0);
    CHECK(std::memcmp(&batch.record(1), &before1, sizeof before1) == 0);
    CHECK(batch.dataVersion() > version);  // only the accepted near-affine writes moved it
    // acquire() writes the rows as the matrix's rows, the colour after them.
    glm::mat4 general(1.0f);
    for (int column = 0; column < 4; ++column) {
        for (int row = 0; row < 3; ++row) {
            general[column][row] = static_cast<float>(column * 4 + row + 1);
        }
    }
    const InstanceHandle second = batch.acquire({general, glm::vec4(0.1f, 0.2f, 0.3f, 0.4f)});
    const InstanceRecord& stored = batch.record(batch.indexOf(second));
    CHECK(stored.row0 == glm::vec4(1, 5, 9, 13));
    CHECK(stored.row1 == glm::vec4(2, 6, 10, 14));
    CHECK(stored.row2 == glm::vec4(3, 7, 11, 15));
    CHECK(stored.color == glm::vec4(0.1f, 0.2f, 0.3f, 0.4f));
    CHECK(batch.readTransform(batch.indexOf(second)) == general);
}

TEST_CASE("count above capacity throws, a full batch names ensureCapacity", "[instances]") {
    auto batch = makeBatch(3);
    CHECK_THROWS_AS(batch.setCount(4), CapacityError);
    CHECK(batch.count() == 0);
    batch.setCount(3);
    CHECK(batch.count() == 3);
    CHECK(batch.readTransform(2) == glm::mat4(1.0f));  // fresh records are identity and white
    CHECK(batch.readColor(2) == glm::vec4(1.0f));
    try {
        batch.addInstance(glm::mat4(1.0f));
        FAIL("a full batch accepted an instance");
    } catch (const CapacityError& e) {
        CHECK_THAT(e.what(), Catch::Contains("ensureCapacity"));
    }
    CHECK(batch.count() == 3);
    CHECK_THROWS_AS(makeBatch(InstancedMeshNode::maxCapacity + 1), CapacityError);
    CHECK_THROWS_AS(batch.ensureCapacity(std::numeric_limits<std::size_t>::max()), CapacityError);
    CHECK(batch.capacity() == 3);
}

TEST_CASE("index >= count throws for every accessor", "[instances]") {
    auto batch = makeBatch(4);
    batch.addInstance(glm::mat4(1.0f));
    CHECK_THROWS_AS(batch.readTransform(1), OutOfRange);
    CHECK_THROWS_AS(batch.readColor(1), OutOfRange);
    CHECK_THROWS_AS(batch.record(1), OutOfRange);
    CHECK_THROWS_AS(batch.setColor(1, glm::vec4(1.0f)), OutOfRange);
    CHECK_THROWS_MATCHES(batch.setTransform(12, glm::mat4(1.0f)), OutOfRange,
                         Catch::Matchers::Message("InstancedMeshNode::setTransform: index 12 >= count 1"));
}

TEST_CASE("ensureCapacity keeps every record, clear keeps the buffer", "[instances]") {
    auto batch = makeBatch(8);
    for (int i = 0; i < 8; ++i) {
        batch.addInstance(translation(static_cast<float>(i), 0, 0), glm::vec4(0.1f * static_cast<float>(i)));
    }
    const std::vector<float> before(batch.instanceData().begin(), batch.instanceData().end());
    batch.ensureCapacity(1000);
    CHECK(batch.capacity() == 1000);
    CHECK(batch.count() == 8);
    CHECK(std::memcmp(batch.instanceData().data(), before.data(), before.size() * sizeof(float)) == 0);
    batch.ensureCapacity(10);  // never shrinks
    CHECK(batch.capacity() == 1000);
    batch.clear();
    CHECK(batch.count() == 0);
    CHECK(batch.capacity() == 1000);
    CHECK(batch.localBounds().empty());
    batch.setCount(8);  // records past count keep their values
    CHECK(batch.readTransform(7) == translation(7, 0, 0));
}

TEST_CASE("localBounds is the union of instance boxes after moves, without a recompute call", "[bounds]") {
    auto batch = makeBatch(16);
    CHECK(batch.localBounds().empty());  // an empty batch has empty bounds
    batch.addInstance(translation(0, 0, 0));
    CHECK(batch.localBounds().min == glm::vec3(-0.5f));
    CHECK(batch.localBounds().max == glm::vec3(0.5f));
    batch.addInstance(translation(10, 0, 0));
    CHECK(batch.localBounds().max.x == 10.5f);
    // Moving the outermost instance inward shrinks the bounds.
    batch.setTransform(1, translation(2, 0, 0));
    CHECK(batch.localBounds().max.x == 2.5f);
    CHECK(batch.localBounds().min.x == -0.5f);
    // Scale and rotation count: a box scaled 4x along y.
    batch.setTransform(0, glm::scale(glm::mat4(1.0f), glm::vec3(1, 4, 1)));
    CHECK(batch.localBounds().max.y == 2.0f);
    CHECK(batch.localBounds().min.y == -2.0f);
    batch.setTransform(0, glm::mat4(1.0f));
    CHECK(batch.localBounds().max.y == 0.5f);
    // A smaller count drops instances from the bounds.
    batch.setCount(1);
    CHECK(batch.localBounds().max.x == 0.5f);
    // Bulk writes through instanceData, then markInstancesChanged.
    batch.setCount(2);
    batch.instanceData()[16 + 3] = -20.0f;  // instance 1, row 0 translation x
    batch.markInstancesChanged();
    CHECK(batch.localBounds().min.x == -20.5f);
}

TEST_CASE("mesh with bad data is refused", "[mesh]") {
    MeshData data = shapes::triangle();
    data.indices16 = {0, 1, 3};
    CHECK_THROWS_AS(MeshGeometry(data), OutOfRange);
}

TEST_CASE("a bounds override replaces the computed bounds until cleared", "[bounds]") {
    auto batch = makeBatch(16);
    batch.addInstance(translation(0, 0, 0));
    batch.addInstance(translation(10, 0, 0));
    const Aabb volume{glm::vec3(-50.0f), glm::vec3(50.0f)};
    batch.setBoundsOverride(volume);
    CHECK(batch.hasBoundsOverride());
    CHECK(batch.localBounds() == volume);
    CHECK(batch.worldBounds() == volume);  // what culling and picking read
    // Writes, bulk writes, releases and clear() leave the override in place.
    batch.setTransform(1, translation(200, 0, 0));
    batch.instanceData()[3] = -300.0f;
    batch.markInstancesChanged();
    CHECK(batch.localBounds() == volume);
    batch.clear();
    CHECK(batch.localBounds() == volume);
    // Cleared: computed again from the records (the writes made while overridden included).
    batch.addInstance(translation(0, 0, 0));
    batch.addInstance(translation(200, 0, 0));
    batch.clearBoundsOverride();
    CHECK_FALSE(batch.hasBoundsOverride());
    CHECK(batch.localBounds().max.x == 200.5f);
    CHECK(batch.localBounds().min.x == -0.5f);
    // Refused: empty or non-finite boxes, leaving the batch as it was.
    CHECK_THROWS_AS(batch.setBoundsOverride(Aabb{}), InvalidArgument);
    CHECK_THROWS_AS(batch.setBoundsOverride({glm::vec3(0.0f), glm::vec3(std::nanf(""))}), InvalidArgument);
    CHECK_FALSE(batch.hasBoundsOverride());
    CHECK(batch.localBounds().max.x == 200.5f);
}

TEST_CASE("after a bulk rewrite one recompute gives both the bounds and the mirrored count", "[bounds]") {
    auto batch = makeBatch(64);
    for (int i = 0; i < 40; ++i) {
        batch.addInstance(translation(static_cast<float>(i), 0, 0));
    }
    // Rewrite through instanceData: every 4th instance mirrored (x scale -2), one far away.
    float* data = batch.instanceData().data();
    for (std::size_t i = 0; i < 40; ++i) {
        data[i * 16 + 0] = i % 4 == 0 ? -2.0f : 1.0f;
        data[i * 16 + 7] = static_cast<float>(i);  // row 1 translation: y = i
    }
    data[17 * 16 + 11] = -7.0f;  // instance 17, z = -7
    batch.markInstancesChanged();
    CHECK(batch.mirroredCount() == 10);  // this read recomputes both
    const Aabb& bounds = batch.localBounds();
    CHECK(bounds.min.x == -1.0f);        // instance 0: x scale 2 about x = 0
    CHECK(bounds.max.x == 39.5f);
    CHECK(bounds.min.y == -0.5f);
    CHECK(bounds.max.y == 39.5f);
    CHECK(bounds.min.z == -7.5f);
    CHECK(bounds.max.z == 0.5f);
    // Matches the union of the instances' boxes, as the incremental path keeps it.
    Aabb expected;
    for (std::size_t i = 0; i < 40; ++i) {
        const glm::mat4 m = batch.readTransform(i);
        expected.extend(batch.mesh()->localBounds().transformed(m));
    }
    CHECK(bounds == expected);
}

TEST_CASE("a refused transform names the batch and the element with its value", "[instances][errors]") {
    // Found by a new user: "transform has NaN or Inf" said neither which batch nor where.
    auto batch = makeBatch(4);
    glm::mat4 bad = translation(1.0f, 2.0f, 3.0f);
    bad[3][0] = std::numeric_limits<float>::quiet_NaN();
    CHECK_THROWS_WITH(batch.addInstance(bad), Catch::Contains("InstancedMeshNode::addInstance") &&
                                                  Catch::Contains("batch 'batch'") &&
                                                  Catch::Contains("column 3, row 0 is nan"));
    batch.addInstance(glm::mat4(1.0f));
    glm::mat4 projective(1.0f);
    projective[2][3] = -1.0f;
    CHECK_THROWS_WITH(batch.setTransform(0, projective),
                      Catch::Contains("batch 'batch'") && Catch::Contains("not affine") && Catch::Contains("-1.0"));
    CHECK_THROWS_WITH(batch.acquire({.transform = bad}), Catch::Contains("InstancedMeshNode::acquire"));
    CHECK(batch.count() == 1);
}

TEST_CASE("a static batch refuses every write to its instances and changes nothing, and thaws", "[instances][static]") {
    auto batch = makeBatch(4);
    batch.addInstance(translation(1, 0, 0));
    const InstanceHandle handle = batch.acquire({translation(-1, 0, 0), glm::vec4(1.0f)});
    const Aabb before = batch.localBounds();
    batch.setStatic(true);
    CHECK(batch.isStatic());
    const std::uint64_t version = batch.dataVersion();
    const std::vector<float> records(std::as_const(batch).instanceData().begin(),
                                     std::as_const(batch).instanceData().end());
    const glm::vec4 lane(1.0f);
    const float weights[] = {0.5f};
    const InstanceHandle handles[] = {handle};
    CHECK_THROWS_AS(batch.addInstance(translation(0, 0, 0)), StateError);
    CHECK_THROWS_AS(batch.setTransform(0, translation(5, 0, 0)), StateError);
    CHECK_THROWS_AS(batch.setColor(0, glm::vec4(0.5f)), StateError);
    CHECK_THROWS_AS((void)batch.acquire(), StateError);
    CHECK_THROWS_AS(batch.release(handle), StateError);
    CHECK_THROWS_AS(batch.release(std::span<const InstanceHandle>(handles)), StateError);
    CHECK_THROWS_AS(batch.setCount(1), StateError);
    CHECK_THROWS_AS(batch.clear(), StateError);
    CHECK_THROWS_AS(batch.ensureCapacity(64), StateError);
    CHECK_THROWS_AS(batch.shrinkToFit(), StateError);
    CHECK_THROWS_AS(batch.setMorphWeights(0, weights), StateError);
    CHECK_THROWS_AS(batch.setMorphWeights(0, weights, 1), StateError);
    CHECK_THROWS_AS(batch.clearMorphWeights(0), StateError);
    CHECK_THROWS_AS(batch.setLane(0, 0, lane), StateError);
    CHECK_THROWS_AS(batch.setLane(handle, 0, lane), StateError);
    CHECK_THROWS_AS(batch.clearLanes(0), StateError);
    CHECK_THROWS_AS(batch.clearLanes(handle), StateError);
    CHECK_THROWS_AS(batch.setCastsShadow(0, false), StateError);
    CHECK_THROWS_AS(batch.setCastsShadow(handle, false), StateError);
    CHECK_THROWS_AS((void)batch.instanceData(), StateError);
    CHECK_THROWS_AS(batch.markInstancesChanged(), StateError);
    // Nothing changed: the records, count, capacity, version, handle and bounds are as they were.
    CHECK(batch.dataVersion() == version);
    CHECK(batch.count() == 2);
    CHECK(batch.capacity() == 4);
    CHECK(batch.isLive(handle));
    CHECK(std::equal(records.begin(), records.end(), std::as_const(batch).instanceData().begin()));
    CHECK(batch.localBounds().min == before.min);
    CHECK(batch.localBounds().max == before.max);
    // The message names the call and the batch.
    try {
        batch.setTransform(0, translation(5, 0, 0));
    } catch (const StateError& error) {
        CHECK(std::string(error.what()).find("InstancedMeshNode::setTransform") != std::string::npos);
        CHECK(std::string(error.what()).find("'batch' is static") != std::string::npos);
    }
    // The node itself stays editable.
    batch.setPosition(glm::dvec3(3.0, 0.0, 0.0));
    batch.setDrawRange(1);
    // Thawed: writes work again, and count.
    batch.setStatic(false);
    CHECK_FALSE(batch.isStatic());
    batch.setTransform(0, translation(5, 0, 0));
    CHECK(batch.dataVersion() > version);
    CHECK(batch.localBounds().max.x > before.max.x);
}
