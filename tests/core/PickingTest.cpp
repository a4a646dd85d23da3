// Scene::pick() and pickAll(): MeshNodes by their boxes; batches per instance by default, each
// instance's triangles wherever it is now (moved, mirrored, non-uniformly scaled,
// morph-displaced), or as one box in PickMode::Bounds.
#include "myriad/core/Camera.h"
#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Picking.h"
#include "myriad/core/MeshNode.h"
#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/util/Error.h"
#include "support/CoreTest.h"

#include <catch2/catch.hpp>
#include <glm/gtc/matrix_transform.hpp>

#include <cmath>
#include <vector>

using namespace myriad;
using myriad::test::at;
using myriad::test::quadMesh;

namespace {


/** Straight down -Z from z = 10 through (x, y). */
Ray down(double x, double y) { return Ray{{x, y, 10.0}, {0.0, 0.0, -1.0}}; }


/** Three unit quads (in the XY plane, facing +Z) at x = -2, 0, 2, picked as the default does:
 *  per instance. */
InstancedMeshNode& threeQuads(Scene& scene) {
    auto& batch = scene.root().emplace<InstancedMeshNode>(quadMesh(1.0f), Material{}, 8, "quads");
    batch.addInstance(at(-2.0f, 0.0f));
    batch.addInstance(at(0.0f, 0.0f));
    batch.addInstance(at(2.0f, 0.0f));
    return batch;
}

} // namespace

TEST_CASE("pick: by default a batch names the instance hit, as three.js's instanceId", "[pick]") {
    Scene scene;
    InstancedMeshNode& batch = threeQuads(scene);  // no setPickMode(): the default
    CHECK(batch.visibility().pickMode == PickMode::Instances);
    const InstanceHandle handle = batch.acquire({at(0.0f, 3.0f)});  // instance 3, with a handle
    const auto hit = scene.pick(down(-1.8, 0.2));  // through instance 0 only
    REQUIRE(hit);
    CHECK(hit->node == &batch);
    REQUIRE(hit->instance);
    CHECK(*hit->instance == 0);
    CHECK(hit->handle.isNull());  // placed by index
    CHECK(hit->distance == Approx(10.0));
    const auto byHandle = scene.pick(down(0.1, 3.1));
    REQUIRE(byHandle);
    REQUIRE(byHandle->instance);
    CHECK(*byHandle->instance == 3);
    CHECK(byHandle->handle == handle);
    CHECK_FALSE(scene.pick(down(1.0, 0.0)));  // between instances, inside the node's box
}

TEST_CASE("pick: a MeshNode is hit at its box, nearest first", "[pick]") {
    Scene scene;
    auto& near = scene.root().emplace<MeshNode>(quadMesh(1.0f), Material{}, "near");
    near.setPosition({0.0, 0.0, 3.0});
    auto& far = scene.root().emplace<MeshNode>(quadMesh(1.0f), Material{}, "far");
    (void)far;
    const auto hit = scene.pick(down(0.1, 0.1));
    REQUIRE(hit);
    CHECK(hit->node == &near);
    CHECK_FALSE(hit->instance);
    CHECK(hit->distance == Approx(7.0));
    CHECK(hit->point.z == Approx(3.0));
    const std::vector<PickHit> all = scene.pickAll(down(0.1, 0.1));
    REQUIRE(all.size() == 2);
    CHECK(all[0].node == &near);
    CHECK(all[1].node == &far);
    CHECK(all[1].distance == Approx(10.0));
    CHECK_FALSE(scene.pick(down(3.0, 0.0)));
}

TEST_CASE("pick: a batch in Bounds mode (the opt-in) is one box, in Instances mode each instance", "[pick]") {
    Scene scene;
    InstancedMeshNode& batch = threeQuads(scene);
    // Between two instances: inside the node's box, on no instance.
    CHECK_FALSE(scene.pick(down(1.0, 0.0)));
    batch.setPickMode(PickMode::Bounds);
    const auto boxHit = scene.pick(down(1.0, 0.0));
    REQUIRE(boxHit);
    CHECK(boxHit->node == &batch);
    CHECK_FALSE(boxHit->instance);
    CHECK(boxHit->handle.isNull());
    batch.setPickMode(PickMode::Instances);

    const auto hit = scene.pick(down(2.2, 0.3));
    REQUIRE(hit);
    CHECK(hit->node == &batch);
    REQUIRE(hit->instance);
    CHECK(*hit->instance == 2);
    CHECK(hit->handle.isNull());
    CHECK(hit->distance == Approx(10.0));
    CHECK(hit->point.x == Approx(2.2));
}

TEST_CASE("pick: the nearest instance wins, pickAll lists every instance hit by distance", "[pick]") {
    Scene scene;
    auto& batch = scene.root().emplace<InstancedMeshNode>(quadMesh(1.0f), Material{}, 8, "stack");
    batch.addInstance(at(0.0f, 0.0f, -1.0f));
    const InstanceHandle top = batch.acquire({at(0.0f, 0.0f, 2.0f)});
    batch.addInstance(at(0.0f, 0.0f, 1.0f));
    const auto hit = scene.pick(down(0.0, 0.0));
    REQUIRE(hit);
    CHECK(*hit->instance == 1);
    CHECK(hit->handle == top);
    CHECK(hit->distance == Approx(8.0));
    const std::vector<PickHit> all = scene.pickAll(down(0.0, 0.0));
    REQUIRE(all.size() == 3);
    CHECK(*all[0].instance == 1);
    CHECK(*all[1].instance == 2);
    CHECK(*all[2].instance == 0);
    CHECK(all[2].distance == Approx(11.0));
}

TEST_CASE("pick: a moved instance is hit at its new place right after setTransform", "[pick]") {
    Scene scene;
    InstancedMeshNode& batch = threeQuads(scene);
    REQUIRE(scene.pick(down(0.0, 0.0)));
    batch.setTransform(1, at(0.0f, 5.0f));
    CHECK_FALSE(scene.pick(down(0.0, 0.0)));
    const auto hit = scene.pick(down(0.0, 5.2));
    REQUIRE(hit);
    CHECK(*hit->instance == 1);
    // Through instanceData() and markInstancesChanged() too.
    batch.instanceData()[16 * 1 + 7] = 9.0f;  // row 1's translation: y = 9
    batch.markInstancesChanged(1, 1);
    const auto moved = scene.pick(down(0.0, 9.1));
    REQUIRE(moved);
    CHECK(*moved->instance == 1);
}

TEST_CASE("pick: mirrored, non-uniformly scaled instances under a moved, scaled node", "[pick]") {
    Scene scene;
    auto& batch = scene.root().emplace<InstancedMeshNode>(quadMesh(1.0f), Material{}, 4, "scaled");
    // 3 wide, mirrored in x, 0.2 high.
    batch.addInstance(glm::scale(glm::mat4(1.0f), glm::vec3(-3.0f, 0.2f, 1.0f)));
    batch.setPosition({10.0, 0.0, 0.0});
    batch.setScale({1.0f, 1.0f, 2.0f});
    CHECK(scene.pick(down(11.4, 0.05)));
    CHECK(scene.pick(down(8.6, -0.05)));
    CHECK_FALSE(scene.pick(down(11.6, 0.0)));
    CHECK_FALSE(scene.pick(down(10.0, 0.15)));
    // Tilted ray: distance measured along the normalised direction.
    const auto hit = scene.pick(Ray{{10.0, 0.0, 10.0}, {0.0, 0.0, -5.0}});
    REQUIRE(hit);
    CHECK(hit->distance == Approx(10.0));
}

TEST_CASE("pick: morph targets move the surface that is hit", "[pick]") {
    MeshData data = shapes::quad(1.0f, 1.0f);
    MorphTarget lift{"lift", std::vector<glm::vec3>(data.positions.size(), glm::vec3(0.0f, 0.0f, 4.0f)), {}};
    data.morphTargets.push_back(lift);
    Scene scene;
    auto& batch = scene.root().emplace<InstancedMeshNode>(MeshGeometry::create(std::move(data)), Material{}, 4);
    batch.addInstance(at(0.0f, 0.0f));
    batch.addInstance(at(2.0f, 0.0f));
    const float half[] = {0.5f};
    static_cast<MeshNode&>(batch).setMorphWeights(half);  // the node's weights: z = 2
    const float full[] = {1.0f};
    batch.setMorphWeights(1, std::span<const float>(full));  // instance 1's own: z = 4
    const auto node = scene.pick(down(0.0, 0.0));
    REQUIRE(node);
    CHECK(node->distance == Approx(8.0));
    const auto own = scene.pick(down(2.0, 0.0));
    REQUIRE(own);
    CHECK(own->distance == Approx(6.0));
}

TEST_CASE("pick: hidden subtrees, draw ranges and bad rays", "[pick]") {
    Scene scene;
    InstancedMeshNode& batch = threeQuads(scene);
    batch.setDrawRange(0, 2);  // instance 2 is not drawn
    CHECK_FALSE(scene.pick(down(2.0, 0.0)));
    batch.setDrawRange(0);
    batch.setVisible(false);
    CHECK_FALSE(scene.pick(down(2.0, 0.0)));
    CHECK_THROWS_AS(scene.pick(Ray{{0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}}), InvalidArgument);
    CHECK_THROWS_AS(scene.pickAll(Ray{{std::nan(""), 0.0, 0.0}, {0.0, 0.0, 1.0}}), InvalidArgument);
}

TEST_CASE("rayThroughPixel: the ray under a pixel, perspective and orthographic", "[pick]") {
    Camera camera;
    camera.setPerspective(glm::radians(90.0f), 2.0f, 0.5f, 100.0f);
    camera.lookAt(glm::dvec3(1.0e7, 2.0, 5.0), glm::dvec3(1.0e7, 2.0, 0.0));  // looks down -Z, far from 0
    // The centre of a 200 x 100 picture: straight ahead, from the near plane.
    Ray ray = rayThroughPixel(camera, 99.5, 49.5, 200, 100);
    CHECK(ray.origin.x == Approx(1.0e7).epsilon(1e-12));
    CHECK(ray.origin.y == Approx(2.0));
    CHECK(ray.origin.z == Approx(4.5));
    const glm::dvec3 ahead = glm::normalize(ray.direction);
    CHECK(ahead.x == Approx(0.0).margin(1e-6));
    CHECK(ahead.y == Approx(0.0).margin(1e-6));
    CHECK(ahead.z == Approx(-1.0));
    // The top-left corner: up and left at the half-angles (45 degrees up, atan(2) left).
    ray = rayThroughPixel(camera, -0.5, -0.5, 200, 100);
    CHECK(ray.direction.y / -ray.direction.z == Approx(1.0));
    CHECK(ray.direction.x / -ray.direction.z == Approx(-2.0));
    // What is under a pixel is what pick() finds along its ray.
    Scene scene;
    auto& box = scene.root().emplace<MeshNode>(MeshGeometry::create(shapes::box(1.0f), "box"), Material{}, "box");
    box.setPosition(glm::dvec3(1.0e7 + 2.0, 2.0, 0.0));  // right of centre
    CHECK_FALSE(scene.pick(rayThroughPixel(camera, 99.5, 49.5, 200, 100)).has_value());
    const glm::vec4 clip = camera.projection() * camera.viewRotation() * glm::vec4(2.0f, 0.0f, -5.0f, 1.0f);  // eye-relative
    const double column = (clip.x / clip.w * 0.5 + 0.5) * 200.0 - 0.5;
    const std::optional<PickHit> hit = scene.pick(rayThroughPixel(camera, column, 49.5, 200, 100));
    REQUIRE(hit.has_value());
    CHECK(hit->node == &box);
    // From the near plane (z = -0.5 from the eye) to the face at z = -4.5, along a ray 2 across
    // for 5 deep.
    CHECK(hit->distance == Approx(4.0 * std::sqrt(29.0) / 5.0).epsilon(1e-4));

    Camera ortho;
    ortho.setOrthographic(-4.0f, 4.0f, -2.0f, 2.0f, 0.1f, 50.0f);
    ortho.lookAt(glm::dvec3(0.0, 0.0, 10.0), glm::dvec3(0.0));
    ray = rayThroughPixel(ortho, 0.0, 0.0, 8, 4);  // the top-left pixel's centre: (-3.5, 1.5)
    CHECK(ray.origin.x == Approx(-3.5));
    CHECK(ray.origin.y == Approx(1.5));
    CHECK(ray.origin.z == Approx(9.9));
    CHECK(glm::normalize(ray.direction).z == Approx(-1.0));

    CHECK_THROWS_AS(rayThroughPixel(camera, 1.0, 1.0, 0, 100), InvalidArgument);
    CHECK_THROWS_AS(rayThroughPixel(camera, std::nan(""), 1.0, 200, 100), InvalidArgument);
}
