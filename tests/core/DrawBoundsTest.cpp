// Draw bounds that stay current (setMesh, morph weights per node and per instance) and a
// culling sphere that holds the transformed box under any affine matrix (faults 3, 4).
#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/MeshNode.h"
#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/util/Error.h"

#include <catch2/catch.hpp>
#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/quaternion.hpp>

#include <random>
#include <vector>

using namespace myriad;

namespace {

glm::mat4 translation(float x, float y, float z = 0.0f) {
    return glm::translate(glm::mat4(1.0f), glm::vec3(x, y, z));
}

bool contains(const Aabb& box, const glm::vec3& p, float slack = 1e-4f) {
    for (int axis = 0; axis < 3; ++axis) {
        if (p[axis] < box.min[axis] - slack || p[axis] > box.max[axis] + slack) {
            return false;
        }
    }
    return true;
}

/** A 1 x 1 quad whose two morph targets push vertex 0 by (2, 0, 0) and vertex 2 by (0, -3, 1),
 *  so weights of either sign move different corners in different directions. */
std::shared_ptr<const MeshGeometry> morphQuad() {
    MeshData data = shapes::quad(1.0f, 1.0f);
    const std::size_t n = data.positions.size();
    MorphTarget a{"a", std::vector<glm::vec3>(n, glm::vec3(0.0f)), {}};
    a.positionDeltas[0] = glm::vec3(2.0f, 0.0f, 0.0f);
    MorphTarget b{"b", std::vector<glm::vec3>(n, glm::vec3(0.0f)), {}};
    b.positionDeltas[2] = glm::vec3(0.0f, -3.0f, 1.0f);
    data.morphTargets = {a, b};
    return MeshGeometry::create(std::move(data), "morph-quad");
}

/** Every vertex of @p mesh morphed by @p weights, as the vertex shader computes it. */
std::vector<glm::vec3> morphedVertices(const MeshGeometry& mesh, std::span<const float> weights) {
    std::vector<glm::vec3> out = mesh.data().positions;
    for (std::size_t t = 0; t < mesh.morphTargetCount() && t < weights.size(); ++t) {
        for (std::size_t v = 0; v < out.size(); ++v) {
            out[v] += weights[t] * mesh.data().morphTargets[t].positionDeltas[v];
        }
    }
    return out;
}

} // namespace

TEST_CASE("setMesh on a batch: localBounds follows the new mesh (fault 3)", "[bounds]") {
    auto tiny = MeshGeometry::create(shapes::quad(0.2f, 0.2f), "tiny");
    auto big = MeshGeometry::create(shapes::quad(8.0f, 8.0f), "big");
    InstancedMeshNode batch(tiny, Material{}, 1, "batch");
    batch.addInstance(translation(3.0f, 0.0f));
    CHECK(batch.localBounds().min.x == Approx(2.9f));
    CHECK(batch.localBounds().max.y == Approx(0.1f));
    // Through the base class, as a scene walk holding a MeshNode& would: setMesh is not virtual.
    static_cast<MeshNode&>(batch).setMesh(big);
    CHECK(batch.localBounds().min.x == Approx(-1.0f));
    CHECK(batch.localBounds().max.x == Approx(7.0f));
    CHECK(batch.localBounds().max.y == Approx(4.0f));
    CHECK(batch.drawBounds() == batch.localBounds());
    // And back, through the derived class, with writes in between that grow the cache in O(1).
    batch.setMesh(tiny);
    batch.setTransform(0, translation(3.0f, 1.0f));
    CHECK(batch.localBounds().min == glm::vec3(2.9f, 0.9f, 0.0f));
    CHECK(batch.localBounds().max.x == Approx(3.1f));
}

TEST_CASE("setMesh on a MeshNode: drawBounds and the culling sphere follow the new mesh", "[bounds]") {
    MeshNode node(MeshGeometry::create(shapes::quad(0.2f, 0.2f)), Material{}, "node");
    CHECK(node.worldBoundsRadius() == Approx(std::sqrt(0.02f)));
    node.setMesh(MeshGeometry::create(shapes::quad(8.0f, 8.0f)));
    CHECK(node.drawBounds().max.x == Approx(4.0f));
    CHECK(node.worldBoundsRadius() == Approx(std::sqrt(32.0f)));
}

TEST_CASE("MeshGeometry keeps per-target delta bounds, morphedBounds is interval arithmetic", "[bounds][morph]") {
    const auto mesh = morphQuad();
    REQUIRE(mesh->morphTargetDeltaBounds().size() == 2);
    CHECK(mesh->morphTargetDeltaBounds()[0].min == glm::vec3(0.0f));
    CHECK(mesh->morphTargetDeltaBounds()[0].max == glm::vec3(2.0f, 0.0f, 0.0f));
    CHECK(mesh->morphTargetDeltaBounds()[1].min == glm::vec3(0.0f, -3.0f, 0.0f));
    CHECK(mesh->morphTargetDeltaBounds()[1].max == glm::vec3(0.0f, 0.0f, 1.0f));
    CHECK(mesh->morphedBounds({}) == mesh->localBounds());
    const float negative[] = {-1.5f, -2.0f};
    const Aabb box = mesh->morphedBounds(negative);
    CHECK(box.min == mesh->localBounds().min + glm::vec3(-3.0f, 0.0f, -2.0f));
    CHECK(box.max == mesh->localBounds().max + glm::vec3(0.0f, 6.0f, 0.0f));
    // A weight range spanning zero reaches both ways.
    const float low[] = {-1.0f, 0.0f};
    const float high[] = {1.0f, 0.0f};
    const Aabb range = mesh->morphedBounds(low, high);
    CHECK(range.min.x == mesh->localBounds().min.x - 2.0f);
    CHECK(range.max.x == mesh->localBounds().max.x + 2.0f);
}

TEST_CASE("a MeshNode's drawBounds contain the morphed vertices for any finite weights", "[bounds][morph]") {
    const auto mesh = morphQuad();
    MeshNode node(mesh, Material{}, "node");
    std::mt19937 random(9);
    std::uniform_real_distribution<float> weight(-3.0f, 3.0f);
    for (int trial = 0; trial < 200; ++trial) {
        const float weights[] = {weight(random), weight(random)};
        // Through the base-class reference every caller has.
        node.setMorphWeights(weights);
        INFO("weights " << weights[0] << ", " << weights[1]);
        for (const glm::vec3& v : morphedVertices(*mesh, weights)) {
            CHECK(contains(node.drawBounds(), v));
        }
    }
    // The fault-3 shape for morphs: a weight of 2 moves vertex 0 by (4, 0, 0).
    const float two[] = {2.0f, 0.0f};
    node.setMorphWeights(two);
    CHECK(node.drawBounds().max.x >= mesh->data().positions[0].x + 4.0f - 1e-5f);
    node.setMesh(mesh);  // back to the default weights (0): the plain mesh box
    CHECK(node.drawBounds() == mesh->localBounds());
}

TEST_CASE("a batch's localBounds contain every instance's morphed vertices, node and per-instance weights", "[bounds][morph]") {
    const auto mesh = morphQuad();
    InstancedMeshNode batch(mesh, Material{}, 16, "batch");
    std::mt19937 random(91);
    std::uniform_real_distribution<float> weight(-2.5f, 2.5f);
    std::uniform_real_distribution<float> place(-5.0f, 5.0f);
    for (int i = 0; i < 16; ++i) {
        batch.addInstance(translation(place(random), place(random), place(random)) *
                          glm::rotate(glm::mat4(1.0f), place(random), glm::vec3(0.2f, 1.0f, 0.4f)));
    }
    const auto check = [&] {
        for (std::size_t i = 0; i < batch.count(); ++i) {
            const glm::mat4 m = batch.readTransform(i);
            for (const glm::vec3& v : morphedVertices(*mesh, batch.morphWeightsOf(i))) {
                INFO("instance " << i);
                CHECK(contains(batch.localBounds(), glm::vec3(m * glm::vec4(v, 1.0f))));
            }
        }
    };
    for (int trial = 0; trial < 30; ++trial) {
        const float nodeWeights[] = {weight(random), weight(random)};
        static_cast<MeshNode&>(batch).setMorphWeights(nodeWeights);  // not virtual
        check();
        const std::size_t index = static_cast<std::size_t>(trial) % batch.count();
        const float own[] = {weight(random), weight(random)};
        batch.setMorphWeights(index, own);
        check();
        if (trial % 3 == 0) {
            batch.clearMorphWeights(index);
            check();
        }
    }
    // An instance given large weights of its own grows the bounds at once, with no call.
    const Aabb before = batch.localBounds();
    const float huge[] = {40.0f, 0.0f};
    batch.setMorphWeights(0, huge);
    CHECK(batch.localBounds().max.x > before.max.x + 10.0f);
    check();
    // Rows keep their weights past a smaller count; growing the count back draws them again,
    // weights and all, though the bounds were recomputed without them in between.
    const float deep[] = {0.0f, -40.0f};
    batch.setMorphWeights(5, deep);
    batch.setCount(1);
    (void)batch.localBounds();  // recomputed from instance 0 alone: a narrower weight range
    batch.setCount(16);
    check();
}

TEST_CASE("the culling sphere holds the box under shear: the issue's example (fault 4)", "[bounds]") {
    Scene scene;
    auto& parent = scene.root().emplace<SceneNode>("parent");
    parent.setScale(glm::vec3(4.0f, 1.0f, 1.0f));
    auto& batch = parent.emplace<InstancedMeshNode>(MeshGeometry::create(shapes::box(1.0f)),
                                                    Material{}, 1, "cube");
    batch.setRotation(glm::angleAxis(glm::radians(45.0f), glm::vec3(0.0f, 0.0f, 1.0f)));
    batch.addInstance(glm::mat4(1.0f));
    const glm::dvec3 centre = batch.worldBoundsCentre();
    float farthest = 0.0f;
    for (int i = 0; i < 8; ++i) {
        const glm::vec3 corner((i & 1) ? 0.5f : -0.5f, (i & 2) ? 0.5f : -0.5f, (i & 4) ? 0.5f : -0.5f);
        const glm::dvec3 world = glm::dvec3(batch.worldMatrix() * glm::vec4(corner, 1.0f));
        farthest = std::max(farthest, static_cast<float>(glm::length(world - centre)));
    }
    // The corner at (2.828, 0, 0.5): sqrt(8 + 0.25) = 2.872. The old radius (half diagonal
    // times the longest column) was 0.866 * 2.915 = 2.525.
    CHECK(farthest == Approx(2.8723f).margin(1e-3));
    CHECK(batch.worldBoundsRadius() == Approx(farthest).margin(1e-4));
    CHECK(batch.worldBoundsRadius() >= farthest - 1e-5f);
    // And with no shear (uniform scale 2, rotated) the radius is the plain half diagonal * 2.
    parent.setScale(glm::vec3(2.0f));
    CHECK(batch.worldBoundsRadius() == Approx(2.0f * std::sqrt(0.75f)));
}

TEST_CASE("the culling sphere holds every transformed corner for random affine matrices", "[bounds]") {
    std::mt19937 random(20240909);
    std::uniform_real_distribution<float> entry(-3.0f, 3.0f);
    std::uniform_real_distribution<float> extent(0.01f, 2.0f);
    for (int trial = 0; trial < 2000; ++trial) {
        // Raw matrices: every entry random, so shear, mirroring and near-singular maps all occur.
        glm::mat3 linear;
        for (int c = 0; c < 3; ++c) {
            for (int r = 0; r < 3; ++r) {
                linear[c][r] = entry(random);
            }
        }
        const glm::vec3 centre(entry(random), entry(random), entry(random));
        const glm::vec3 half(extent(random), extent(random), extent(random));
        const Aabb box{centre - half, centre + half};
        const float radius = box.transformedRadius(linear);
        const glm::vec3 mappedCentre = linear * centre;
        float farthest = 0.0f;
        for (int i = 0; i < 8; ++i) {
            const glm::vec3 corner((i & 1) ? box.max.x : box.min.x, (i & 2) ? box.max.y : box.min.y,
                                   (i & 4) ? box.max.z : box.min.z);
            farthest = std::max(farthest, glm::length(linear * corner - mappedCentre));
        }
        INFO("trial " << trial);
        CHECK(radius >= farthest * (1.0f - 1e-5f) - 1e-5f);
        CHECK(radius <= farthest * (1.0f + 1e-5f) + 1e-5f);  // exact, not merely safe
    }
    // The same through the scene graph: three levels of random rotation and non-uniform (also
    // negative) scale reach every affine matrix (a singular value decomposition is R * S * R).
    std::uniform_real_distribution<float> scale(0.2f, 3.0f);
    std::uniform_real_distribution<float> angle(-3.1f, 3.1f);
    const auto randomAxis = [&] {
        return glm::normalize(glm::vec3(entry(random), entry(random), entry(random)) + glm::vec3(0.01f));
    };
    const auto mesh = MeshGeometry::create(shapes::box(1.0f));
    for (int trial = 0; trial < 300; ++trial) {
        Scene scene;
        SceneNode* parent = &scene.root();
        for (int level = 0; level < 2; ++level) {
            auto& node = parent->emplace<SceneNode>("level");
            node.setRotation(glm::angleAxis(angle(random), randomAxis()));
            node.setScale(glm::vec3(scale(random), (trial % 2 ? -1.0f : 1.0f) * scale(random), scale(random)));
            node.setPosition(glm::dvec3(entry(random), entry(random), entry(random)));
            parent = &node;
        }
        auto& batch = parent->emplace<InstancedMeshNode>(mesh, Material{}, 2, "batch");
        batch.setRotation(glm::angleAxis(angle(random), randomAxis()));
        batch.addInstance(translation(entry(random), entry(random), entry(random)));
        batch.addInstance(glm::scale(translation(entry(random), 0.0f), glm::vec3(scale(random), 1.0f, scale(random))));
        const glm::dvec3 centre = batch.worldBoundsCentre();
        const double radius = batch.worldBoundsRadius();
        for (std::size_t i = 0; i < batch.count(); ++i) {
            const glm::mat4 m = batch.worldMatrix() * batch.readTransform(i);
            for (const glm::vec3& v : mesh->data().positions) {
                const glm::dvec3 world(m * glm::vec4(v, 1.0f));
                INFO("trial " << trial << " instance " << i);
                CHECK(glm::length(world - centre) <= radius * (1.0 + 1e-5) + 1e-4);
            }
        }
    }
}

TEST_CASE("added primitives widen the bounds and refuse a mesh with other morph targets", "[bounds][primitives]") {
    MeshData far = shapes::quad(1.0f, 1.0f);
    for (glm::vec3& p : far.positions) {
        p.x += 10.0f;
    }
    MeshNode node(MeshGeometry::create(shapes::quad(1.0f, 1.0f), "near"), Material{}, "two");
    CHECK(node.meshBounds().max.x == Approx(0.5f));
    node.addPrimitive(MeshGeometry::create(far, "far"), Material{});
    CHECK(node.primitiveCount() == 2);
    CHECK(node.drawBounds().max.x == Approx(10.5f));
    CHECK(node.drawBounds().min.x == Approx(-0.5f));

    MeshData morphing = shapes::quad(1.0f, 1.0f);
    morphing.morphTargets.push_back({"lift", std::vector<glm::vec3>(4, glm::vec3(0, 1, 0)), {}});
    CHECK_THROWS_AS(node.addPrimitive(MeshGeometry::create(morphing, "morphing"), Material{}), InvalidArgument);
    CHECK_THROWS_AS(node.addPrimitive(nullptr, Material{}), InvalidArgument);
    CHECK_THROWS_AS(node.setMesh(MeshGeometry::create(morphing, "morphing")), InvalidArgument);
    CHECK(node.primitiveCount() == 2);  // refused calls changed nothing
    CHECK_THROWS_AS(node.primitiveMesh(2), OutOfRange);

    InstancedMeshNode batch(MeshGeometry::create(shapes::quad(1.0f, 1.0f), "near"), Material{}, 4, "batch");
    batch.addInstance(glm::mat4(1.0f));
    CHECK(batch.localBounds().max.x == Approx(0.5f));
    batch.addPrimitive(MeshGeometry::create(far, "far"), Material{});
    CHECK(batch.localBounds().max.x == Approx(10.5f));  // current with no recompute call
}

TEST_CASE("setMorphState swaps the pose whole, and a node's own weights passed back are kept", "[bounds][morph]") {
    const auto mesh = morphQuad();
    MeshNode a(mesh, Material{}, "a");
    MeshNode b(mesh, Material{}, "b");
    const float pose[] = {0.75f, -0.5f};
    a.setMorphWeights(pose);
    b.setMorphState(a.morphState());  // another node of the same mesh: its pose copied
    REQUIRE(b.morphWeights().size() == 2);
    CHECK(b.morphWeights()[0] == 0.75f);
    CHECK(b.morphWeights()[1] == -0.5f);
    CHECK(b.drawBounds() == a.drawBounds());

    // The node's own weights handed back (they alias its storage): kept, not zeroed. This is
    // the bug the copy in setMorphWeights fixed: it filled with 0 before copying its input.
    a.setMorphWeights(a.morphWeights());
    CHECK(a.morphWeights()[0] == 0.75f);
    CHECK(a.morphWeights()[1] == -0.5f);
    a.setMorphState(a.morphState());
    CHECK(a.morphWeights()[0] == 0.75f);

    // A state of another mesh (its own targets) is refused, nothing changed.
    MeshNode other(morphQuad(), Material{}, "other");
    CHECK_THROWS_AS(a.setMorphState(other.morphState()), InvalidArgument);
    CHECK(a.morphWeights()[0] == 0.75f);
    // Weights only (targets left empty) are taken as setMorphWeights takes them.
    const float only[] = {0.25f};
    a.setMorphState(MorphState{.targets = {}, .defaultWeights = {}, .weights = only});
    CHECK(a.morphWeights()[0] == 0.25f);
    CHECK(a.morphWeights()[1] == 0.0f);
}
