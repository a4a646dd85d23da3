// MoveLog (include/myriad/core/InstanceStream.h): where a batch's rows went, for a renderer's
// previous transforms (motion vectors, docs/visibility.md "Motion vectors").
#include "support/CoreTest.h"

#include <catch2/catch.hpp>

#include "myriad/core/InstanceStream.h"
#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Shapes.h"

#include <vector>

using namespace myriad;
using namespace myriad::test;

namespace {
constexpr std::uint64_t kRenderer = 7;

std::vector<MoveLog::Entry> entriesSince(const MoveLog& log, std::uint64_t version) {
    std::vector<MoveLog::Entry> out;
    REQUIRE(log.since(version, out));
    return out;
}
} // namespace

TEST_CASE("a batch's move log records nothing until a consumer follows it", "[moves]") {
    InstancedMeshNode batch(MeshGeometry::create(shapes::quad(), "quad"), Material{}, 8, "batch");
    const InstanceHandle a = batch.acquire({});
    (void)batch.acquire({});
    batch.release(a);
    CHECK(batch.moves().size() == 0);
    CHECK(batch.moves().version() == 0);
}

TEST_CASE("a batch's move log lists release()'s moves and new rows in order", "[moves]") {
    InstancedMeshNode batch(MeshGeometry::create(shapes::quad(), "quad"), Material{}, 8, "batch");
    const InstanceHandle a = batch.acquire({});
    const InstanceHandle b = batch.acquire({});
    const InstanceHandle c = batch.acquire({});
    MoveLog& log = batch.moves();
    log.acknowledge(kRenderer, log.version());  // a renderer starts following
    const std::uint64_t seen = log.version();

    batch.release(a);          // c: row 2 -> row 0
    (void)batch.acquire({});   // d: new row 2
    (void)batch.acquire({});   // e: new row 3, joins d's range
    batch.release(b);          // e: row 3 -> row 1
    batch.setCount(5);         // rows 3 and 4 new (joins nothing: a move came between)
    const std::vector<MoveLog::Entry> entries = entriesSince(log, seen);
    REQUIRE(entries.size() == 4);
    CHECK((entries[0].from == 2 && entries[0].to == 0 && entries[0].count == 1));
    CHECK((entries[1].from == MoveLog::kNew && entries[1].to == 2 && entries[1].count == 2));
    CHECK((entries[2].from == 3 && entries[2].to == 1 && entries[2].count == 1));
    CHECK((entries[3].from == MoveLog::kNew && entries[3].to == 3 && entries[3].count == 2));
    CHECK(entries[3].version == log.version());
    CHECK(batch.indexOf(c) == 0);

    // Acknowledged: dropped. A new range the renderer has seen is not extended (it would mark
    // rows it already followed as new again).
    log.acknowledge(kRenderer, log.version());
    CHECK(log.size() == 0);
    (void)batch.acquire({});
    log.acknowledge(kRenderer, log.version());
    (void)batch.acquire({});
    const std::vector<MoveLog::Entry> after = entriesSince(log, log.version() - 1);
    REQUIRE(after.size() == 1);
    CHECK((after[0].to == 6 && after[0].count == 1));
}

TEST_CASE("a move log past its bound tells a consumer behind to start again", "[moves]") {
    MoveLog log;
    log.acknowledge(kRenderer, 0);
    for (std::size_t i = 0; i < MoveLog::kMaxEntries + 1; ++i) {
        log.move(i + 1, i);
    }
    std::vector<MoveLog::Entry> out;
    CHECK_FALSE(log.since(0, out));
    CHECK(log.size() <= MoveLog::kMaxEntries);
    CHECK(log.since(log.version() - 1, out));
    // Forgotten by its only consumer: the log stops recording.
    log.forget(kRenderer);
    log.move(1, 0);
    CHECK(log.size() == 0);
}
