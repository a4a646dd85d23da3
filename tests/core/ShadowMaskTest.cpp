// The per-instance shadow mask on the CPU: default casting, set and read by index and by
// handle, refused writes change nothing, the mask follows swap-remove, growth, a smaller and a
// larger count, and new instances cast again.
#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Shapes.h"
#include "myriad/util/Error.h"
#include "support/CoreTest.h"

#include <catch2/catch.hpp>

#include <glm/gtc/matrix_transform.hpp>

using namespace myriad;
using myriad::test::at;
using myriad::test::quadMesh;

TEST_CASE("every instance casts until masked, and the mask is allocated on the first false", "[shadows]") {
    InstancedMeshNode batch(quadMesh(1.0f), Material{}, 4);
    batch.addInstance(at(0));
    batch.addInstance(at(1));
    CHECK(batch.castsShadow(1));
    batch.setCastsShadow(1, true);
    CHECK(batch.shadowMask().empty());  // nothing allocated for a true
    const std::uint64_t version = batch.dataVersion();
    batch.setCastsShadow(1, false);
    CHECK_FALSE(batch.castsShadow(1));
    CHECK(batch.castsShadow(0));
    CHECK(batch.shadowMask().size() == batch.capacity());
    CHECK(batch.shadowMaskedCount() == 1);
    CHECK(batch.dataVersion() > version);
    batch.setCastsShadow(1, false);  // twice counts once
    CHECK(batch.shadowMaskedCount() == 1);
    // The node's own flag is separate (and still reachable through the batch).
    CHECK(batch.castsShadow());
    batch.setCastsShadow(false);
    CHECK_FALSE(batch.castsShadow());
    CHECK(batch.castsShadow(0));
    batch.setCastsShadow(1, true);
    CHECK(batch.castsShadow(1));
    CHECK(batch.shadowMaskedCount() == 0);
}

TEST_CASE("shadow mask: bad index or handle is refused and changes nothing", "[shadows][errors]") {
    InstancedMeshNode batch(quadMesh(1.0f), Material{}, 4);
    batch.addInstance(at(0));
    const std::uint64_t version = batch.dataVersion();
    CHECK_THROWS_AS(batch.setCastsShadow(std::size_t{1}, false), OutOfRange);
    CHECK_THROWS_AS((void)batch.castsShadow(std::size_t{1}), OutOfRange);
    CHECK_THROWS_AS(batch.setCastsShadow(InstanceHandle{}, false), InvalidArgument);
    InstancedMeshNode other(quadMesh(1.0f), Material{}, 4);
    const InstanceHandle foreign = other.acquire();
    CHECK_THROWS_AS(batch.setCastsShadow(foreign, false), InvalidArgument);
    CHECK_THROWS_AS((void)batch.castsShadow(foreign), InvalidArgument);
    const InstanceHandle handle = batch.acquire();
    batch.release(handle);
    CHECK_THROWS_AS(batch.setCastsShadow(handle, false), InvalidArgument);
    CHECK(batch.shadowMask().empty());
    CHECK(batch.shadowMaskedCount() == 0);
    CHECK(batch.dataVersion() > version);  // only by the acquire and release
}

TEST_CASE("the shadow mask moves with its instance on release and survives growth", "[shadows]") {
    InstancedMeshNode batch(quadMesh(1.0f), Material{}, 2, "b", {.growth = Growth::Double});
    const InstanceHandle a = batch.acquire({.transform = at(0)});
    const InstanceHandle b = batch.acquire({.transform = at(1)});
    const InstanceHandle c = batch.acquire({.transform = at(2)});  // grows to 16
    REQUIRE(batch.capacity() >= 3);
    batch.setCastsShadow(c, false);
    CHECK(batch.shadowMask().size() == batch.capacity());
    // Releasing a moves c (the last) into index 0: its mask goes with it.
    batch.release(a);
    CHECK(batch.indexOf(c) == 0);
    CHECK_FALSE(batch.castsShadow(c));
    CHECK_FALSE(batch.castsShadow(std::size_t{0}));
    CHECK(batch.castsShadow(b));
    CHECK(batch.shadowMaskedCount() == 1);
    // Growth keeps it.
    batch.ensureCapacity(64);
    CHECK(batch.shadowMask().size() == 64);
    CHECK_FALSE(batch.castsShadow(c));
    // Releasing the masked instance takes its mark away; the vacated row casts again.
    batch.release(c);
    CHECK(batch.shadowMaskedCount() == 0);
    CHECK(batch.shadowMask()[1] == 0);
    // A new instance in a row that was masked casts.
    batch.setCastsShadow(b, false);
    const std::size_t row = batch.indexOf(b);
    batch.release(b);
    const std::size_t added = batch.addInstance(at(5));
    CHECK(added == row);
    CHECK(batch.castsShadow(added));
    CHECK(batch.shadowMaskedCount() == 0);
}

TEST_CASE("a smaller count drops masked instances from the count, a larger one brings them back", "[shadows]") {
    InstancedMeshNode batch(quadMesh(1.0f), Material{}, 4);
    batch.addInstance(at(0));
    batch.addInstance(at(1));
    batch.addInstance(at(2));
    batch.setCastsShadow(2, false);
    CHECK(batch.shadowMaskedCount() == 1);
    batch.setCount(2);
    CHECK(batch.shadowMaskedCount() == 0);
    batch.setCount(3);  // rows keep their values, as records do
    CHECK(batch.shadowMaskedCount() == 1);
    CHECK_FALSE(batch.castsShadow(2));
    batch.clear();
    CHECK(batch.shadowMaskedCount() == 0);
}
