// Morph targets, default weights and weight animations read from the shared glTF models.
#include "myriad/core/MorphAnimation.h"
#include "myriad/gltf/GltfImporter.h"
#include "myriad/util/Error.h"

#include <catch2/catch.hpp>

#include <vector>

using namespace myriad;

namespace {
std::string asset(const char* relative) { return std::string(MYRIAD_ASSETS_DIR) + "/" + relative; }
} // namespace

TEST_CASE("SimpleMorph: two position targets, default weights 0.5, a LINEAR weights animation", "[morph][gltf]") {
    const gltf::ImportedModel model = gltf::importModel(asset("SimpleMorph/SimpleMorph.gltf"));
    REQUIRE(model.primitives.size() == 1);
    const MeshGeometry& mesh = *model.primitives[0].mesh;
    REQUIRE(mesh.morphTargetCount() == 2);
    CHECK(mesh.defaultMorphWeights() == std::vector<float>{0.5f, 0.5f});
    // Accessor bounds from the file: target 0 spans x -1..0, y 0..1; target 1 x 0..1, y 0..1.
    float minX0 = 0, maxY0 = 0, maxX1 = 0;
    for (const glm::vec3& d : mesh.data().morphTargets[0].positionDeltas) {
        minX0 = std::min(minX0, d.x);
        maxY0 = std::max(maxY0, d.y);
    }
    for (const glm::vec3& d : mesh.data().morphTargets[1].positionDeltas) {
        maxX1 = std::max(maxX1, d.x);
    }
    CHECK(minX0 == -1.0f);
    CHECK(maxY0 == 1.0f);
    CHECK(maxX1 == 1.0f);
    CHECK(mesh.data().morphTargets[0].normalDeltas.empty());

    REQUIRE(model.morphAnimations.size() == 1);
    const MorphAnimation& animation = model.morphAnimations[0];
    CHECK(animation.targetCount == 2);
    CHECK(animation.times.size() == 5);
    CHECK(animation.duration() == 4.0f);
    CHECK(animation.primitives == std::vector<std::size_t>{0});
    float weights[2] = {};
    for (float t : {0.0f, 1.0f, 2.5f, 4.0f, 9.0f}) {
        animation.sample(t, weights);
        CHECK(weights[0] >= 0.0f);
        CHECK(weights[0] <= 1.0f);
    }
}

TEST_CASE("morphing models import with their targets", "[morph][gltf]") {
    const gltf::ImportedModel cube = gltf::importModel(asset("AnimatedMorphCube/AnimatedMorphCube.gltf"));
    REQUIRE(cube.primitives.size() == 1);
    CHECK(cube.primitives[0].mesh->morphTargetCount() == 2);
    CHECK_FALSE(cube.primitives[0].mesh->data().morphTargets[0].normalDeltas.empty());
    CHECK(cube.morphAnimations.size() == 1);

    const gltf::ImportedModel sphere = gltf::importModel(asset("AnimatedMorphSphere/AnimatedMorphSphere.gltf"));
    CHECK(sphere.primitives[0].mesh->morphTargetCount() == 2);
    CHECK(sphere.morphAnimations.size() == 1);

    const gltf::ImportedModel primitives = gltf::importModel(asset("MorphPrimitivesTest/MorphPrimitivesTest.gltf"));
    REQUIRE(primitives.primitives.size() == 2);
    for (const auto& primitive : primitives.primitives) {
        CHECK(primitive.mesh->morphTargetCount() == 1);
        CHECK(primitive.mesh->defaultMorphWeights() == std::vector<float>{0.5f});
    }
}

TEST_CASE("MorphAnimation samples LINEAR, STEP and CUBICSPLINE keyframes and clamps", "[morph]") {
    MorphAnimation linear;
    linear.times = {1.0f, 3.0f};
    linear.values = {0.0f, 1.0f, 1.0f, 0.0f};  // two targets
    linear.targetCount = 2;
    float w[2] = {};
    linear.sample(2.0f, w);
    CHECK(w[0] == Approx(0.5f));
    CHECK(w[1] == Approx(0.5f));
    linear.sample(0.0f, w);  // before the first keyframe: clamped
    CHECK(w[0] == 0.0f);
    linear.sample(10.0f, w);
    CHECK(w[0] == 1.0f);

    MorphAnimation step = linear;
    step.interpolation = Interpolation::Step;
    step.sample(2.9f, w);
    CHECK(w[0] == 0.0f);

    MorphAnimation cubic;
    cubic.targetCount = 1;
    cubic.interpolation = Interpolation::CubicSpline;
    cubic.times = {0.0f, 1.0f};
    cubic.values = {0.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f};  // (in, value, out) per key, flat tangents
    cubic.sample(0.5f, std::span<float>(w, 1));
    CHECK(w[0] == Approx(0.5f));  // smoothstep at the middle
    cubic.sample(0.25f, std::span<float>(w, 1));
    CHECK(w[0] == Approx(0.15625f));

    MorphAnimation broken;
    broken.targetCount = 2;
    broken.times = {0.0f};
    broken.values = {1.0f};
    CHECK_THROWS_AS(broken.sample(0.0f, w), InvalidArgument);
}
