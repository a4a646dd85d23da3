// Out of memory inside the change log, after the node has changed its rows: the write must
// stand and the renderer must still learn of it (never a half-done write, never a lost row).
// Its own executable: it replaces the global operator new to fail one chosen allocation, which
// would disturb the other test binaries.
#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Shapes.h"
#include "support/CoreTest.h"

#include <catch2/catch.hpp>
#include <glm/gtc/matrix_transform.hpp>

#include <cstdlib>
#include <new>
#include <vector>

namespace {

// Allocations still allowed before the next one fails; negative: none fails.
thread_local long t_allocationsBeforeFailure = -1;
thread_local bool t_failed = false;

/** Fails the next allocation made on this thread (only that one). */
void failNextAllocation() noexcept {
    t_allocationsBeforeFailure = 0;
    t_failed = false;
}

/** True once the armed failure happened; disarms it either way. */
bool allocationFailed() noexcept {
    t_allocationsBeforeFailure = -1;
    return t_failed;
}

bool covers(const std::vector<myriad::IndexRange>& ranges, std::size_t row) {
    for (const myriad::IndexRange& range : ranges) {
        if (range.begin <= row && row < range.end) {
            return true;
        }
    }
    return false;
}

} // namespace

// Every non-aligned form is replaced, so that whatever allocates (this file, Catch2, the
// library, libstdc++) pairs with the matching release under AddressSanitizer too; the aligned
// forms keep the defaults, which pair with each other.
namespace {
void* allocate(std::size_t size) noexcept {
    if (t_allocationsBeforeFailure == 0) {
        t_allocationsBeforeFailure = -1;
        t_failed = true;
        return nullptr;
    }
    if (t_allocationsBeforeFailure > 0) {
        --t_allocationsBeforeFailure;
    }
    return std::malloc(size == 0 ? 1 : size);
}
void* allocateOrThrow(std::size_t size) {
    if (void* memory = allocate(size)) {
        return memory;
    }
    throw std::bad_alloc();
}
} // namespace

void* operator new(std::size_t size) { return allocateOrThrow(size); }
void* operator new[](std::size_t size) { return allocateOrThrow(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept { return allocate(size); }
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept { return allocate(size); }
void operator delete(void* memory) noexcept { std::free(memory); }
void operator delete[](void* memory) noexcept { std::free(memory); }
void operator delete(void* memory, std::size_t) noexcept { std::free(memory); }
void operator delete[](void* memory, std::size_t) noexcept { std::free(memory); }
void operator delete(void* memory, const std::nothrow_t&) noexcept { std::free(memory); }
void operator delete[](void* memory, const std::nothrow_t&) noexcept { std::free(memory); }

using namespace myriad;
using myriad::test::at;

TEST_CASE("out of memory for the first change-log entry: the add stands and every row is re-sent", "[instances][oom]") {
    InstancedMeshNode batch(MeshGeometry::create(shapes::box(1.0f), "box"), Material{}, 8, "oom");
    const ChangeLog& log = batch.streams()[InstanceStreamId::Record].changes();
    REQUIRE(log.size() == 0);
    failNextAllocation();  // the log's first push_back is the only allocation addInstance makes
    std::size_t index = 99;
    CHECK_NOTHROW(index = batch.addInstance(at(3.0f)));
    REQUIRE(allocationFailed());
    CHECK(index == 0);
    CHECK(batch.count() == 1);
    CHECK(batch.readTransform(0) == at(3.0f));
    // Nothing logged, so the log cannot answer for a consumer that had seen anything before
    // this write: collect() fails for it, and a renderer then sends every row.
    std::vector<IndexRange> ranges;
    CHECK_FALSE(log.collect(0, ranges));
}

TEST_CASE("out of memory for a change-log entry: the newest entry widens over the row", "[instances][oom]") {
    InstancedMeshNode batch(MeshGeometry::create(shapes::box(1.0f), "box"), Material{}, 4096, "oom");
    batch.setCount(4096);
    const InstanceStream& records = batch.streams()[InstanceStreamId::Record];
    ChangeLog& log = records.changes();
    log.acknowledge(1, records.version());  // a renderer uploaded everything: the log empties
    // Scattered writes, one entry each, until one of them needs the log's vector to grow: that
    // allocation fails.
    std::size_t failedRow = 0;
    for (std::size_t k = 1; k < 64 && failedRow == 0; ++k) {
        const std::size_t row = k * 60;
        failNextAllocation();
        CHECK_NOTHROW(batch.setTransform(row, at(static_cast<float>(k))));
        if (allocationFailed()) {
            failedRow = row;
        }
    }
    REQUIRE(failedRow != 0);
    CHECK(batch.readTransform(failedRow) == at(static_cast<float>(failedRow / 60)));
    const std::vector<IndexRange> pending = log.pendingRanges();
    CHECK(covers(pending, failedRow));
    CHECK(covers(pending, failedRow - 60));  // the entry it widened still covers its own row
}

TEST_CASE("out of memory in the log during release + acquire leaves a consistent batch", "[instances][oom]") {
    InstancedMeshNode batch(MeshGeometry::create(shapes::box(1.0f), "box"), Material{}, 1024, "oom");
    std::vector<InstanceHandle> handles;
    for (int i = 0; i < 1024; ++i) {
        handles.push_back(batch.acquire({at(static_cast<float>(i)), glm::vec4(1.0f)}));
    }
    const InstanceStream& records = batch.streams()[InstanceStreamId::Record];
    records.changes().acknowledge(1, records.version());  // uploaded: the log empties
    bool sawFailure = false;
    // Holes further apart than kDirtyRangeMergeGap, so each release logs an entry of its own.
    for (std::size_t k = 0; k < 1000; k += 37) {
        failNextAllocation();
        CHECK_NOTHROW(batch.release(handles[k]));
        sawFailure = allocationFailed() || sawFailure;
        failNextAllocation();
        CHECK_NOTHROW(handles[k] = batch.acquire({at(-static_cast<float>(k)), glm::vec4(1.0f)}));
        sawFailure = allocationFailed() || sawFailure;
    }
    CHECK(sawFailure);
    const std::vector<IndexRange> pending = records.changes().pendingRanges();
    for (std::size_t k = 0; k < 1000; k += 37) {
        INFO("hole " << k);
        CHECK(covers(pending, k));
    }
    CHECK(batch.count() == 1024);
    CHECK(batch.liveHandleCount() == 1024);
    for (std::size_t i = 0; i < handles.size(); ++i) {
        REQUIRE(batch.isLive(handles[i]));
        const float x = batch.readTransform(batch.indexOf(handles[i]))[3].x;
        CHECK(x == ((i % 37 == 0 && i < 1000) ? -static_cast<float>(i) : static_cast<float>(i)));
    }
}
