// Issue 25: InstanceManager, Ogre's InstanceManager with instancesPerBatch: one population over
// batches of N, each spatially compact, with handles that survive moves between batches.
#include "myriad/core/InstanceManager.h"
#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/util/Error.h"

#include "support/CoreTest.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

using namespace myriad;
using myriad::test::at;
using myriad::test::quadMesh;

namespace {

std::shared_ptr<const MeshGeometry> unitBox() { return MeshGeometry::create(shapes::box(1.0f), "box"); }

} // namespace

TEST_CASE("an InstanceManager fills batches of N and makes one more when all are full", "[instances][manager]") {
    Scene scene;
    auto& manager = scene.root().emplace<InstanceManager>(unitBox(), Material{},
                                                          InstanceManagerOptions{.instancesPerBatch = 100}, "crowd");
    std::vector<ManagedInstance> handles;
    for (int i = 0; i < 1050; ++i) {
        handles.push_back(manager.acquire({.transform = at(static_cast<float>(i))}));
    }
    CHECK(manager.count() == 1050);
    CHECK(manager.batchCount() == 11);  // ten full, one with 50
    CHECK(manager.childCount() == 11);  // the batches are its children, drawn as any batch
    CHECK(manager.batch(0).name() == "crowd/0");
    CHECK(manager.batch(0).capacity() == 100);
    CHECK(manager.batch(0).scene() == &scene);
    for (int i = 0; i < 1050; ++i) {
        REQUIRE(manager.isLive(handles[static_cast<std::size_t>(i)]));
        CHECK(manager.readTransform(handles[static_cast<std::size_t>(i)])[3].x == Approx(static_cast<float>(i)));
    }
    // A release makes room in a full batch, which the next acquire fills before any new batch.
    manager.release(handles[5]);
    CHECK_FALSE(manager.isLive(handles[5]));
    for (int i = 0; i < 51; ++i) {
        (void)manager.acquire({.transform = at(-1.0f)});
    }
    CHECK(manager.batchCount() == 11);
    CHECK(manager.count() == 1100);
    (void)manager.acquire({.transform = at(-2.0f)});
    CHECK(manager.batchCount() == 12);
}

TEST_CASE("with cells, every batch stays inside one cell and culls as one", "[instances][manager]") {
    SceneNode root("root");
    auto& manager = root.emplace<InstanceManager>(
        unitBox(), Material{}, InstanceManagerOptions{.instancesPerBatch = 64, .cellSize = 10.0f});
    std::mt19937 random(7);
    std::uniform_real_distribution<float> coordinate(0.0f, 100.0f);
    std::vector<ManagedInstance> handles;
    for (int i = 0; i < 5000; ++i) {
        handles.push_back(manager.acquire({.transform = at(coordinate(random), 0.0f, coordinate(random))}));
    }
    // 100 cells of about 50 each: at least one batch a cell, none spanning two cells.
    CHECK(manager.batchCount() >= 100);
    for (std::size_t b = 0; b < manager.batchCount(); ++b) {
        const Aabb bounds = manager.batch(b).localBounds();
        CHECK(bounds.max.x - bounds.min.x <= 10.0f + 1.0f);  // a cell plus the box
        CHECK(bounds.max.z - bounds.min.z <= 10.0f + 1.0f);
    }

    // Moving an instance to another cell moves it to a batch of that cell; its handle, colour
    // and lanes go with it.
    const ManagedInstance mover = handles[17];
    manager.setColor(mover, glm::vec4(0.25f, 0.5f, 0.75f, 1.0f));
    manager.setLane(mover, 1, glm::vec4(1.0f, 2.0f, 3.0f, 4.0f));
    InstancedMeshNode* before = &manager.batchOf(mover);
    manager.setTransform(mover, at(55.0f, 0.0f, 55.0f));
    InstancedMeshNode& after = manager.batchOf(mover);
    CHECK(&after != before);
    REQUIRE(manager.isLive(mover));
    CHECK(manager.readTransform(mover)[3].x == Approx(55.0f));
    CHECK(manager.readColor(mover) == glm::vec4(0.25f, 0.5f, 0.75f, 1.0f));
    CHECK(after.lane(manager.handleIn(mover), 1) == glm::vec4(1.0f, 2.0f, 3.0f, 4.0f));
    CHECK(manager.count() == 5000);
    // A move within the cell stays in the batch.
    manager.setTransform(mover, at(56.0f, 0.0f, 56.0f));
    CHECK(&manager.batchOf(mover) == &after);
    // The subtree bounds see all of them.
    CHECK(root.subtreeBounds().max.x <= 100.5f + 1e-3f);
}

TEST_CASE("bad input to an InstanceManager is refused with nothing changed", "[instances][manager]") {
    CHECK_THROWS_AS(InstanceManager(nullptr, Material{}), InvalidArgument);
    CHECK_THROWS_AS(InstanceManager(unitBox(), Material{}, {.instancesPerBatch = 0}), InvalidArgument);
    CHECK_THROWS_AS(InstanceManager(unitBox(), Material{}, {.cellSize = -1.0f}), InvalidArgument);
    CHECK_THROWS_AS(InstanceManager(unitBox(), Material{}, {.cellSize = std::numeric_limits<float>::infinity()}),
                    InvalidArgument);

    InstanceManager manager(unitBox(), Material{}, {.instancesPerBatch = 2, .cellSize = 5.0f});
    const ManagedInstance kept = manager.acquire({.transform = at(1.0f)});
    glm::mat4 bad = at(1.0f);
    bad[3].y = std::numeric_limits<float>::quiet_NaN();
    // Into a new cell (a batch would be made) and into an existing one: both refused, no batch made.
    glm::mat4 badFar = at(100.0f);
    badFar[0].x = std::numeric_limits<float>::infinity();
    CHECK_THROWS_AS(manager.acquire({.transform = bad}), InvalidArgument);
    CHECK_THROWS_AS(manager.acquire({.transform = badFar}), InvalidArgument);
    CHECK(manager.batchCount() == 1);
    CHECK(manager.count() == 1);
    CHECK_THROWS_AS(manager.setTransform(kept, badFar), InvalidArgument);
    CHECK(manager.readTransform(kept)[3].x == Approx(1.0f));
    CHECK(manager.batchCount() == 1);

    CHECK_THROWS_AS(manager.release(ManagedInstance{}), InvalidArgument);  // null
    manager.release(kept);
    CHECK_THROWS_AS(manager.release(kept), InvalidArgument);  // twice
    CHECK_THROWS_AS(manager.readTransform(kept), InvalidArgument);
    // A reused slot gets a new generation: the old handle stays dead.
    const ManagedInstance reused = manager.acquire({.transform = at(2.0f)});
    CHECK(reused.slot == kept.slot);
    CHECK_FALSE(manager.isLive(kept));
    CHECK(manager.isLive(reused));
    CHECK_THROWS_AS(manager.batch(5), OutOfRange);
}

TEST_CASE("defragment packs a shrunken population into as few batches as hold it, handles kept", "[instances][manager]") {
    Scene scene;
    auto& manager = scene.root().emplace<InstanceManager>(unitBox(), Material{},
                                                          InstanceManagerOptions{.instancesPerBatch = 50});
    std::vector<ManagedInstance> handles;
    for (int i = 0; i < 1000; ++i) {
        handles.push_back(manager.acquire({.transform = at(static_cast<float>(i)), .color = glm::vec4(1.0f)}));
    }
    REQUIRE(manager.batchCount() == 20);
    std::mt19937 random(3);
    std::vector<ManagedInstance> kept;
    std::vector<float> keptX;
    for (std::size_t i = 0; i < handles.size(); ++i) {
        const ManagedInstance handle = handles[i];
        if (random() % 10 == 0) {
            kept.push_back(handle);
            keptX.push_back(static_cast<float>(i));
        } else {
            manager.release(handle);
        }
    }
    manager.setLane(kept.front(), 3, glm::vec4(9.0f));
    REQUIRE(manager.batchCount() == 20);
    manager.defragment();
    const std::size_t expected = (kept.size() + 49) / 50;
    CHECK(manager.batchCount() == expected);
    CHECK(manager.childCount() == expected);
    CHECK(manager.count() == kept.size());
    std::size_t records = 0;
    for (std::size_t b = 0; b < manager.batchCount(); ++b) {
        records += manager.batch(b).count();
    }
    CHECK(records == kept.size());
    for (std::size_t k = 0; k < kept.size(); ++k) {
        REQUIRE(manager.isLive(kept[k]));
        CHECK(manager.readTransform(kept[k])[3].x == keptX[k]);  // the transform it was given
    }
    CHECK(manager.batchOf(kept.front()).lane(manager.handleIn(kept.front()), 3) == glm::vec4(9.0f));
    // And it keeps working: acquires fill the room left before making batches.
    for (std::size_t i = 0; i < expected * 50 - kept.size(); ++i) {
        (void)manager.acquire({});
    }
    CHECK(manager.batchCount() == expected);
}

TEST_CASE("an InstanceManager gives every batch its lane count and moves all of them between cells", "[instances][manager][lanes]") {
    Scene scene;
    auto& manager = scene.root().emplace<InstanceManager>(
        quadMesh(1.0f), Material{}, InstanceManagerOptions{.instancesPerBatch = 2, .cellSize = 10.0f, .laneCount = 7});
    const ManagedInstance instance = manager.acquire({at(0.0f)});
    CHECK(manager.batchOf(instance).laneCount() == 7);
    manager.setLane(instance, 6, glm::vec4(6.0f));
    manager.setLane(instance, 0, glm::vec4(1.0f));
    CHECK_THROWS_AS(manager.setLane(instance, 7, glm::vec4(1.0f)), OutOfRange);
    manager.setTransform(instance, at(35.0f));  // another cell: another batch
    CHECK(manager.batchCount() == 2);
    InstancedMeshNode& moved = manager.batchOf(instance);
    CHECK(moved.laneCount() == 7);
    CHECK(moved.lane(manager.handleIn(instance), 6) == glm::vec4(6.0f));
    CHECK(moved.lane(manager.handleIn(instance), 0) == glm::vec4(1.0f));
    CHECK_THROWS_AS(InstanceManager(quadMesh(1.0f), Material{}, InstanceManagerOptions{.laneCount = 9}), InvalidArgument);
}
