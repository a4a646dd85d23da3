// The one pass over a batch's records (src/core/RecordPass.cpp): bounds and mirrored count
// bit-identical to the per-instance upkeep of addInstance(), and copyDrawnRecords()'s copy.
#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Shapes.h"
#include "myriad/util/Error.h"

#include <catch2/catch.hpp>
#include <glm/gtc/matrix_transform.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using namespace myriad;

namespace {

/** A box whose centre is off the origin, so the centre term of every instance box counts. */
std::shared_ptr<const MeshGeometry> offsetBox() {
    MeshData data = shapes::box(1.0f);
    for (glm::vec3& p : data.positions) {
        p = p * glm::vec3(0.5f, 2.0f, 1.25f) + glm::vec3(1.5f, -0.25f, 3.0f);
    }
    return MeshGeometry::create(data, "offset box");
}

/** Random affine matrices: rotation, per-axis scale of random sign (about half mirrored, some
 *  twice-mirrored), shear-free, translation up to +-1000. */
std::vector<glm::mat4> randomTransforms(std::size_t n, std::uint32_t seed) {
    std::mt19937 random(seed);
    std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
    std::vector<glm::mat4> out;
    for (std::size_t i = 0; i < n; ++i) {
        glm::vec3 axis(unit(random), unit(random), unit(random));
        if (glm::length(axis) < 1e-3f) {
            axis = glm::vec3(0.0f, 1.0f, 0.0f);
        }
        glm::mat4 m = glm::translate(glm::mat4(1.0f), 1000.0f * glm::vec3(unit(random), unit(random), unit(random)));
        m = glm::rotate(m, 3.14159f * unit(random), glm::normalize(axis));
        glm::vec3 scale(0.1f + std::abs(unit(random)) * 3.0f, 0.1f + std::abs(unit(random)) * 3.0f,
                        0.1f + std::abs(unit(random)) * 3.0f);
        for (int a = 0; a < 3; ++a) {
            if (unit(random) < 0.0f) {
                scale[a] = -scale[a];
            }
        }
        out.push_back(glm::scale(m, scale));
    }
    return out;
}

void checkSameBox(const Aabb& got, const Aabb& want) {
    for (int a = 0; a < 3; ++a) {
        CHECK(got.min[a] == want.min[a]);
        CHECK(got.max[a] == want.max[a]);
    }
}

} // namespace

TEST_CASE("copyDrawnRecords copies every drawn record and derives exactly the bounds and mirrored count of the per-instance upkeep", "[bounds][records]") {
    const auto mesh = offsetBox();
    // Counts around the four-record step of the SIMD pass, and a larger one.
    for (const std::size_t n : {std::size_t{1}, std::size_t{3}, std::size_t{4}, std::size_t{5}, std::size_t{17}, std::size_t{1003}}) {
        for (const std::size_t offset : {std::size_t{0}, std::size_t{4}}) {  // aligned and unaligned destination
            INFO("count " << n << ", destination offset " << offset);
            InstancedMeshNode batch(mesh, Material{}, n + 2);
            for (const glm::mat4& m : randomTransforms(n, static_cast<std::uint32_t>(n))) {
                batch.addInstance(m, glm::vec4(0.25f, 0.5f, 0.75f, 1.0f));
            }
            // addInstance() grew the bounds one instanceBox() at a time and counted mirroring
            // one determinant at a time: the reference.
            REQUIRE_FALSE(batch.derivedStale());
            const Aabb reference = batch.localBounds();
            const std::size_t mirrored = batch.mirroredCount();
            if (n >= 17) {  // both kinds present
                CHECK(mirrored > 0);
                CHECK(mirrored < n);
            }

            batch.markInstancesChanged();
            REQUIRE(batch.derivedStale());
            std::vector<std::byte> storage(n * InstancedMeshNode::strideInBytes + 64, std::byte{0x5A});
            const std::span<std::byte> destination(storage.data() + offset, n * InstancedMeshNode::strideInBytes);
            batch.copyDrawnRecords(destination);
            CHECK_FALSE(batch.derivedStale());
            checkSameBox(batch.localBounds(), reference);
            CHECK(batch.mirroredCount() == mirrored);
            CHECK(std::memcmp(destination.data(), batch.instanceBytes().data(), destination.size()) == 0);
            // Nothing written past the drawn records.
            for (std::size_t k = offset + destination.size(); k < storage.size(); ++k) {
                CHECK(storage[k] == std::byte{0x5A});
            }

            // The same pass without a copy, on a read of the bounds.
            batch.markInstancesChanged();
            checkSameBox(batch.localBounds(), reference);
            CHECK(batch.mirroredCount() == mirrored);
        }
    }
}

TEST_CASE("with a bounds override, copyDrawnRecords still recounts the mirrored instances", "[bounds][records]") {
    const auto mesh = offsetBox();
    InstancedMeshNode batch(mesh, Material{}, 64);
    for (const glm::mat4& m : randomTransforms(50, 7u)) {
        batch.addInstance(m);
    }
    const Aabb reference = batch.localBounds();
    const std::size_t mirrored = batch.mirroredCount();
    const Aabb promised{glm::vec3(-5000.0f), glm::vec3(5000.0f)};
    batch.setBoundsOverride(promised);
    batch.markInstancesChanged();
    REQUIRE(batch.derivedStale());
    std::vector<std::byte> destination(50 * InstancedMeshNode::strideInBytes);
    batch.copyDrawnRecords(destination);
    CHECK_FALSE(batch.derivedStale());
    CHECK(batch.mirroredCount() == mirrored);
    checkSameBox(batch.localBounds(), promised);
    batch.clearBoundsOverride();
    checkSameBox(batch.localBounds(), reference);
}

TEST_CASE("records with NaN written through instanceData() are left out of the bounds, as before", "[bounds][records]") {
    const auto mesh = offsetBox();
    // NaN in a record of the first four-record step and in every record of the last one (the
    // running minima and maxima must not take the NaN in any lane).
    const std::vector<glm::mat4> transforms = randomTransforms(12, 11u);
    auto poisoned = [](std::size_t i) { return i == 2 || i >= 8; };
    InstancedMeshNode withoutNaN(mesh, Material{}, 12);
    for (std::size_t i = 0; i < transforms.size(); ++i) {
        if (!poisoned(i)) {
            withoutNaN.addInstance(transforms[i]);
        }
    }
    InstancedMeshNode batch(mesh, Material{}, 12);
    for (std::size_t i = 0; i < transforms.size(); ++i) {
        batch.addInstance(transforms[i]);
        if (poisoned(i)) {
            for (const std::size_t k : {std::size_t{3}, std::size_t{7}, std::size_t{11}}) {  // the translation
                batch.instanceData()[i * 16 + k] = std::numeric_limits<float>::quiet_NaN();
            }
        }
    }
    batch.markInstancesChanged();
    std::vector<std::byte> destination(12 * InstancedMeshNode::strideInBytes);
    batch.copyDrawnRecords(destination);
    checkSameBox(batch.localBounds(), withoutNaN.localBounds());
}

TEST_CASE("copyDrawnRecords refuses a destination smaller than the drawn records and writes nothing", "[records][errors]") {
    InstancedMeshNode batch(offsetBox(), Material{}, 8);
    for (const glm::mat4& m : randomTransforms(8, 3u)) {
        batch.addInstance(m);
    }
    batch.markInstancesChanged();
    std::vector<std::byte> destination(8 * InstancedMeshNode::strideInBytes - 1, std::byte{0x11});
    CHECK_THROWS_AS(batch.copyDrawnRecords(destination), InvalidArgument);
    for (const std::byte b : destination) {
        CHECK(b == std::byte{0x11});
    }
    CHECK(batch.derivedStale());
    // An empty batch needs no room at all.
    InstancedMeshNode empty(offsetBox(), Material{}, 4);
    CHECK_NOTHROW(empty.copyDrawnRecords({}));
    CHECK(empty.localBounds().empty());
}

TEST_CASE("instance records start on a 64-byte boundary: one record, one cache line", "[records]") {
    for (const std::size_t capacity : {std::size_t{1}, std::size_t{1000}, std::size_t{100000}}) {
        InstancedMeshNode batch(offsetBox(), Material{}, capacity);
        CHECK(reinterpret_cast<std::uintptr_t>(batch.instanceData().data()) % 64 == 0);
        batch.ensureCapacity(capacity * 2 + 1);
        CHECK(reinterpret_cast<std::uintptr_t>(batch.instanceData().data()) % 64 == 0);
    }
}
