// Skeletons, clips and baked animation sets (docs/skinning.md), without GL: every expected
// value below is worked out by hand from the glTF 2.0 formulas the headers cite.
#include "myriad/core/AnimationClip.h"
#include "myriad/core/AnimationSet.h"
#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Picking.h"
#include "myriad/core/Scene.h"
#include "myriad/core/MeshData.h"
#include "myriad/core/SceneNode.h"
#include "myriad/core/Skeleton.h"
#include "myriad/util/Error.h"

#include "support/CoreTest.h"

#include <catch2/catch.hpp>
#include <glm/gtc/quaternion.hpp>

#include <cmath>
#include <cstring>
#include <numbers>
#include <random>

using namespace myriad;
using myriad::test::skinnedPosition;

namespace {

constexpr float kQuarterTurn = std::numbers::pi_v<float> / 2.0f;

/** Two joints along +x: joint 0 at the origin, joint 1 at x = 1 (its child); inverse binds
 *  are the inverses of their rest placements. */
std::shared_ptr<const Skeleton> twoJointChain() {
    std::vector<Joint> joints(2);
    joints[0].name = "root";
    joints[1].name = "elbow";
    joints[1].parent = 0;
    joints[1].rest.translation = {1.0f, 0.0f, 0.0f};
    joints[1].inverseBind = glm::mat4(1.0f);
    joints[1].inverseBind[3] = glm::vec4(-1.0f, 0.0f, 0.0f, 1.0f);
    return Skeleton::create(std::move(joints), "chain");
}

/** A strip from x = 0 to x = 2, 0.2 high, in four quads; vertices with x <= 1 follow joint 0,
 *  those with x > 1 joint 1. */
MeshData strip() { return myriad::test::skinnedStrip(0.0f, 2.0f, 4, 1.0f, 0.0f, 0.2f); }

AnimationChannel rotationChannel(std::uint32_t target, std::vector<float> times, std::vector<glm::quat> rotations) {
    AnimationChannel channel;
    channel.target = target;
    channel.property = AnimatedProperty::Rotation;
    channel.times = std::move(times);
    for (const glm::quat& q : rotations) {
        channel.values.emplace_back(q.x, q.y, q.z, q.w);
    }
    return channel;
}

} // namespace

TEST_CASE("Skeleton: joint and skin matrices of a two-joint chain bent 90 degrees", "[skinning]") {
    const auto skeleton = twoJointChain();
    REQUIRE(skeleton->jointCount() == 2);
    CHECK(skeleton->findJoint("elbow") == 1);
    CHECK(skeleton->findJoint("knee") == -1);
    std::vector<JointTransform> pose = skeleton->restPose();
    pose[1].rotation = glm::angleAxis(kQuarterTurn, glm::vec3(0, 0, 1));  // elbow bends towards +y
    std::vector<glm::mat4> joints(2), skin(2);
    skeleton->jointMatrices(pose, joints);
    skeleton->skinMatrices(joints, skin);
    // The far end of the strip, (2, 0, 0), is 1 past the elbow: bent up, it lands at (1, 1, 0).
    const glm::vec4 tip = skin[1] * glm::vec4(2.0f, 0.0f, 0.0f, 1.0f);
    CHECK(tip.x == Approx(1.0f).margin(1e-6));
    CHECK(tip.y == Approx(1.0f).margin(1e-6));
    // The rest pose gives identity skin matrices (inverse binds are the rest placements' inverses).
    skeleton->jointMatrices(skeleton->restPose(), joints);
    skeleton->skinMatrices(joints, skin);
    CHECK(skin[1][3].x == Approx(0.0f).margin(1e-6));
    CHECK_THROWS_AS(skeleton->jointMatrices(std::span(pose).first(1), joints), InvalidArgument);
}

TEST_CASE("Skeleton refuses bad hierarchies and matrices and names the joint", "[skinning]") {
    CHECK_THROWS_AS(Skeleton({}), InvalidArgument);
    std::vector<Joint> cycle(2);
    cycle[0].parent = 1;
    cycle[1].parent = 0;
    CHECK_THROWS_WITH(Skeleton(cycle), Catch::Contains("cycle"));
    std::vector<Joint> pastEnd(1);
    pastEnd[0].parent = 3;
    CHECK_THROWS_WITH(Skeleton(pastEnd), Catch::Contains("joint 0"));
    std::vector<Joint> projective(1);
    projective[0].inverseBind[0][3] = 0.5f;
    CHECK_THROWS_WITH(Skeleton(projective), Catch::Contains("not affine"));
    std::vector<Joint> zero(1);
    zero[0].rest.rotation = glm::quat(0.0f, 0.0f, 0.0f, 0.0f);
    CHECK_THROWS_WITH(Skeleton(zero), Catch::Contains("zero quaternion"));
}

TEST_CASE("MeshGeometry: skin weights are normalised, bad ones refused by vertex", "[skinning]") {
    MeshData data = strip();
    data.weights[3] = glm::vec4(0.5f, 0.0f, 0.0f, 0.0f);  // sums to 0.5: divided by it
    const MeshGeometry mesh(data, "strip");
    CHECK(mesh.isSkinned());
    CHECK(mesh.skinJointCount() == 2);
    CHECK(mesh.data().weights[3].x == 1.0f);
    CHECK(mesh.vertexLayout().strideBytes == 72);
    CHECK(mesh.vertexLayout().joints.offsetBytes == 48);
    CHECK(mesh.vertexLayout().weights.offsetBytes == 56);
    const std::vector<std::byte> packed = mesh.packedVertices();
    std::uint16_t joint = 0;
    std::memcpy(&joint, packed.data() + 72 * 9 + 48, 2);  // the last vertex (x = 2) follows joint 1
    CHECK(joint == 1);

    MeshData zero = strip();
    zero.weights[4] = glm::vec4(0.0f);
    CHECK_THROWS_WITH(MeshGeometry(zero), Catch::Contains("vertex 4"));
    MeshData negative = strip();
    negative.weights[2].y = -0.1f;
    CHECK_THROWS_AS(MeshGeometry(negative), InvalidArgument);
    MeshData unpaired = strip();
    unpaired.weights.pop_back();
    CHECK_THROWS_AS(MeshGeometry(unpaired), InvalidArgument);
    // An unskinned mesh keeps the 48-byte float layout.
    MeshData plain = strip();
    plain.joints.clear();
    plain.weights.clear();
    CHECK(MeshGeometry(plain).vertexLayout().strideBytes == 48);
}

TEST_CASE("AnimationClip samples Linear, Step and CubicSpline as glTF's Appendix C", "[skinning]") {
    AnimationChannel move;
    move.target = 0;
    move.times = {0.0f, 2.0f};
    move.values = {glm::vec4(0.0f), glm::vec4(4.0f, 0.0f, 0.0f, 0.0f)};
    AnimationChannel step = move;
    step.target = 1;
    step.interpolation = Interpolation::Step;
    // A cubic spline from 0 to 1 over 1 s with zero tangents: p(t) = 3t^2 - 2t^3; 0.5 at 0.5, 0.15625 at 0.25.
    AnimationChannel cubic;
    cubic.target = 2;
    cubic.property = AnimatedProperty::Scale;
    cubic.interpolation = Interpolation::CubicSpline;
    cubic.times = {0.0f, 1.0f};
    cubic.values = {glm::vec4(0.0f), glm::vec4(0.0f), glm::vec4(0.0f), glm::vec4(0.0f), glm::vec4(1.0f), glm::vec4(0.0f)};
    const AnimationChannel turn =
        rotationChannel(3, {0.0f, 1.0f}, {glm::quat(1, 0, 0, 0), glm::angleAxis(kQuarterTurn, glm::vec3(0, 1, 0))});
    const AnimationClip clip("test", {move, step, cubic, turn});
    CHECK(clip.duration() == 2.0f);
    CHECK(clip.targetCount() == 4);
    std::vector<JointTransform> pose(4);
    clip.sample(0.5f, pose);
    CHECK(pose[0].translation.x == Approx(1.0f));
    CHECK(pose[1].translation.x == 0.0f);  // Step holds the first keyframe until the second
    CHECK(pose[2].scale.x == Approx(0.5f));
    clip.sample(0.25f, pose);
    CHECK(pose[2].scale.x == Approx(0.15625f));
    clip.sample(0.5f, pose);
    // Halfway through a quarter turn about y: 45 degrees.
    CHECK(glm::angle(pose[3].rotation) == Approx(kQuarterTurn / 2.0f));
    clip.sample(5.0f, pose);  // past the end: the last values
    CHECK(pose[0].translation.x == 4.0f);
    CHECK(pose[1].translation.x == 4.0f);
    clip.sample(-1.0f, pose);  // before the start: the first
    CHECK(pose[0].translation.x == 0.0f);
    CHECK(clip.loopTime(5.0) == Approx(1.0f));
    CHECK(clip.loopTime(-0.5) == Approx(1.5f));
    std::vector<JointTransform> tooSmall(2);
    CHECK_THROWS_WITH(clip.sample(0.0f, tooSmall), Catch::Contains("target 3"));
    CHECK_THROWS_AS(clip.sample(std::nanf(""), pose), InvalidArgument);
}

TEST_CASE("AnimationClip refuses malformed channels and names the channel", "[skinning]") {
    AnimationChannel unordered;
    unordered.times = {0.0f, 1.0f, 1.0f};
    unordered.values.assign(3, glm::vec4(0.0f));
    CHECK_THROWS_WITH(AnimationClip("walk", {unordered}), Catch::Contains("walk") && Catch::Contains("keyframe 2"));
    AnimationChannel wrongCount;
    wrongCount.interpolation = Interpolation::CubicSpline;
    wrongCount.times = {0.0f, 1.0f};
    wrongCount.values.assign(2, glm::vec4(0.0f));
    CHECK_THROWS_WITH(AnimationClip("run", {wrongCount}), Catch::Contains("3 per keyframe"));
    AnimationChannel pastNames;
    pastNames.target = 2;
    pastNames.times = {0.0f};
    pastNames.values = {glm::vec4(0.0f)};
    CHECK_THROWS_WITH(AnimationClip("idle", {pastNames}, {"a", "b"}), Catch::Contains("target names"));
}

TEST_CASE("SkinBounds: posed bounds hold every skinned vertex of random poses", "[skinning]") {
    const auto skeleton = twoJointChain();
    const MeshData data = strip();
    const MeshGeometry mesh(data, "strip");
    const SkinBounds bounds(mesh, *skeleton);
    std::mt19937 random(7);
    std::uniform_real_distribution<float> angle(-3.0f, 3.0f);
    std::vector<glm::mat4> joints(2), skin(2);
    for (int trial = 0; trial < 100; ++trial) {
        std::vector<JointTransform> pose = skeleton->restPose();
        pose[0].rotation = glm::angleAxis(angle(random), glm::normalize(glm::vec3(angle(random), angle(random), 1.0f)));
        pose[1].rotation = glm::angleAxis(angle(random), glm::vec3(0, 0, 1));
        pose[1].scale = glm::vec3(1.5f, 0.5f, 1.0f);
        skeleton->jointMatrices(pose, joints);
        skeleton->skinMatrices(joints, skin);
        const Aabb box = bounds.posedBounds(joints);
        for (std::size_t v = 0; v < data.positions.size(); ++v) {
            const glm::vec3 p = skinnedPosition(data, v, skin);
            Aabb point;
            point.extend(p);
            // A hair of slack for float rounding between the two routes.
            Aabb grown = box;
            grown.min -= glm::vec3(1e-5f);
            grown.max += glm::vec3(1e-5f);
            REQUIRE(grown.contains(point));
        }
        // skinReach spheres around the joints hold the strip too when the reach covers it.
        Aabb reach = bounds.reachBounds(joints, 1.6f);
        for (std::size_t v = 0; v < data.positions.size(); ++v) {
            Aabb point;
            point.extend(skinnedPosition(data, v, skin));
            REQUIRE(reach.contains(point));
        }
    }
    const Skeleton oneJoint(std::vector<Joint>(1));
    CHECK_THROWS_WITH(SkinBounds(mesh, oneJoint), Catch::Contains("joint 1"));
}

TEST_CASE("AnimationSet: baked frames give the clip's pose, and time, loops and fades work as documented", "[skinning]") {
    const auto skeleton = twoJointChain();
    const MeshGeometry mesh(strip(), "strip");
    // 'bend' turns the elbow from 0 to 90 degrees over 1 s; 'wave' turns the root about y.
    const auto bend = AnimationClip::create(
        "bend", {rotationChannel(1, {0.0f, 1.0f}, {glm::quat(1, 0, 0, 0), glm::angleAxis(kQuarterTurn, glm::vec3(0, 0, 1))})});
    const auto wave = AnimationClip::create(
        "wave", {rotationChannel(0, {0.0f, 2.0f}, {glm::quat(1, 0, 0, 0), glm::angleAxis(kQuarterTurn, glm::vec3(0, 1, 0))})});
    const std::shared_ptr<const AnimationClip> clips[] = {bend, wave};
    AnimationBakeOptions options;
    options.framesPerSecond = 10.0f;
    options.playOnce = {"wave"};
    const auto set = AnimationSet::bake(skeleton, clips, mesh, options);
    REQUIRE(set->clips().size() == 2);
    CHECK(set->clips()[0].frameCount == 11);
    CHECK(set->clips()[1].firstFrame == 11);
    CHECK(set->clips()[1].frameCount == 21);
    CHECK(set->frameCount() == 32);
    CHECK(set->byteSize() == 32 * 2 * 48);
    CHECK(set->findClip("wave") == 1);

    // At a baked frame's time the matrices are the clip's exactly (to float rounding).
    std::vector<glm::mat4> baked(2), joints(2), exact(2);
    InstanceAnimation play;
    play.clip = 0;
    play.startTime = 10.0f;
    set->skinMatricesAt(play, 10.5f, baked);  // clip time 0.5: frame 5
    std::vector<JointTransform> pose = skeleton->restPose();
    bend->sample(0.5f, pose);
    skeleton->jointMatrices(pose, joints);
    skeleton->skinMatrices(joints, exact);
    for (int column = 0; column < 4; ++column) {
        for (int row = 0; row < 4; ++row) {
            CHECK(baked[1][column][row] == Approx(exact[1][column][row]).margin(1e-5));
        }
    }
    // Looping: 'bend' at batch time 12.25 plays 0.25 (2.25 wrapped); play-once 'wave' holds its end.
    CHECK(set->clipTime(0, 12.25f, 10.0f, 1.0f) == Approx(0.25f));
    CHECK(set->clipTime(1, 15.0f, 10.0f, 1.0f) == 2.0f);
    CHECK(set->clipTime(0, 11.0f, 10.0f, 0.5f) == Approx(0.5f));  // half speed
    // A fade's midpoint: the average of the two clips' matrices.
    InstanceAnimation fade;
    fade.clip = 1;
    fade.fadeFromClip = 0;
    fade.fadeStart = 1.0f;
    fade.fadeDuration = 2.0f;
    std::vector<glm::mat4> from(2), to(2), middle(2);
    set->skinMatricesAt({.clip = 0}, 2.0f, from);
    set->skinMatricesAt({.clip = 1}, 2.0f, to);
    set->skinMatricesAt(fade, 2.0f, middle);
    CHECK(middle[1][3].x == Approx(0.5f * (from[1][3].x + to[1][3].x)));
    CHECK(middle[0][0].z == Approx(0.5f * (from[0][0].z + to[0][0].z)));
    // The bounds hold the bent strip: its far end reaches y = 1 at the end of 'bend'.
    CHECK(set->bounds().max.y >= 1.0f - 1e-5f);
    CHECK(set->clips()[0].bounds.max.y >= 1.0f - 1e-5f);

    CHECK_THROWS_WITH(AnimationSet(skeleton, std::span(clips).first(1), mesh, AnimationBakeOptions{.framesPerSecond = 0.0f, .playOnce = {}}),
                      Catch::Contains("framesPerSecond"));
    const std::shared_ptr<const AnimationClip> twice[] = {bend, bend};
    CHECK_THROWS_WITH(AnimationSet(skeleton, twice, mesh), Catch::Contains("two clips"));
    const auto farJoint = AnimationClip::create(
        "far", {rotationChannel(5, {0.0f}, {glm::quat(1, 0, 0, 0)})});
    const std::shared_ptr<const AnimationClip> far[] = {farJoint};
    CHECK_THROWS_WITH(AnimationSet(skeleton, far, mesh), Catch::Contains("'far'") && Catch::Contains("joint 5"));
    CHECK_THROWS_AS(set->skinMatricesAt({.clip = 7}, 0.0f, baked), InvalidArgument);
}

TEST_CASE("applyClip plays node (TRS) animations on scene nodes found by name", "[skinning]") {
    SceneNode root("character");
    SceneNode& arm = root.emplace<SceneNode>("arm");
    SceneNode& leg = root.emplace<SceneNode>("leg");
    AnimationChannel lift;
    lift.target = 1;
    lift.times = {0.0f, 1.0f};
    lift.values = {glm::vec4(0.0f), glm::vec4(0.0f, 2.0f, 0.0f, 0.0f)};
    const AnimationClip clip("lift", {lift}, {"arm", "leg"});
    const std::vector<SceneNode*> targets = bindClipToNodes(clip, root);
    REQUIRE(targets.size() == 2);
    CHECK(targets[0] == &arm);
    applyClip(clip, 0.25f, targets);
    CHECK(leg.position().y == Approx(0.5));
    CHECK(arm.position().y == 0.0);  // no channel drives it
    const AnimationClip missing("lift", {lift}, {"arm", "tail"});
    CHECK_THROWS_WITH(bindClipToNodes(missing, root), Catch::Contains("'tail'"));
    CHECK_THROWS_AS(applyClip(clip, 0.0f, std::span(targets).first(1)), InvalidArgument);
}

TEST_CASE("A crowd's animations stay with their instances through release, growth and a new set", "[skinning]") {
    const auto skeleton = twoJointChain();
    const auto mesh = MeshGeometry::create(strip(), "strip");
    const auto bend = AnimationClip::create(
        "bend", {rotationChannel(1, {0.0f, 1.0f}, {glm::quat(1, 0, 0, 0), glm::angleAxis(kQuarterTurn, glm::vec3(0, 0, 1))})});
    const auto wave = AnimationClip::create(
        "wave", {rotationChannel(0, {0.0f, 2.0f}, {glm::quat(1, 0, 0, 0), glm::angleAxis(kQuarterTurn, glm::vec3(0, 1, 0))})});
    const std::shared_ptr<const AnimationClip> clips[] = {bend, wave};
    const auto set = AnimationSet::bake(skeleton, clips, *mesh);
    InstancedMeshNode crowd(mesh, Material{}, 2, "crowd", InstancedMeshOptions{.growth = Growth::Double});
    const InstanceHandle a = crowd.acquire();
    const InstanceHandle b = crowd.acquire();
    crowd.setAnimationSet(set);
    CHECK(crowd.animation(0) == InstanceAnimation{});  // the default: clip 0 from 0 at speed 1
    crowd.setAnimation(b, {.clip = 1, .startTime = 2.5f, .speed = 0.5f});
    // Growth keeps what each plays; new rows start at the default.
    const InstanceHandle c = crowd.acquire();
    REQUIRE(crowd.capacity() > 2);
    CHECK(crowd.animation(crowd.indexOf(b)).startTime == 2.5f);
    CHECK(crowd.animation(crowd.indexOf(c)) == InstanceAnimation{});
    // release(a) moves the last record (c) into a's row, and its animation with it; b keeps its own.
    crowd.setAnimation(c, {.clip = 1, .startTime = 7.0f});
    crowd.release(a);
    CHECK(crowd.animation(crowd.indexOf(c)).startTime == 7.0f);
    CHECK(crowd.animation(crowd.indexOf(b)).speed == 0.5f);
    // A set with as many clips keeps every instance's choice; none frees the stream.
    crowd.setAnimationSet(AnimationSet::bake(skeleton, clips, *mesh, {.framesPerSecond = 60.0f, .playOnce = {}}));
    CHECK(crowd.animation(crowd.indexOf(b)).clip == 1);
    crowd.setAnimationSet(nullptr);
    CHECK(crowd.streams()[InstanceStreamId::Animation].capacity() == 0);
    CHECK_THROWS_AS(crowd.animation(0), InvalidArgument);
}

TEST_CASE("An instance of a crowd is picked by the box of every pose it may take", "[skinning]") {
    const auto skeleton = twoJointChain();
    const auto mesh = MeshGeometry::create(strip(), "strip");
    // 'bend' lifts the strip's far half to x in [0.9, 1.1], y up to 1: outside the bind-pose
    // strip (y in [0, 0.2]), inside the baked bounds.
    const auto bend = AnimationClip::create(
        "bend", {rotationChannel(1, {0.0f, 1.0f}, {glm::quat(1, 0, 0, 0), glm::angleAxis(kQuarterTurn, glm::vec3(0, 0, 1))})});
    const std::shared_ptr<const AnimationClip> clips[] = {bend};
    Scene scene;
    auto& crowd = scene.root().emplace<InstancedMeshNode>(mesh, Material{}, 2, "crowd");
    crowd.addInstance(glm::mat4(1.0f));
    crowd.addInstance(glm::translate(glm::mat4(1.0f), glm::vec3(10.0f, 0.0f, 0.0f)));
    const Ray down{{1.0, 0.8, 5.0}, {0.0, 0.0, -1.0}};  // through the bent forearm of instance 0
    CHECK_FALSE(scene.pick(down).has_value());        // unskinned: the bind-pose triangles miss
    crowd.setAnimationSet(AnimationSet::bake(skeleton, clips, *mesh));
    const std::optional<PickHit> hit = scene.pick(down);
    REQUIRE(hit.has_value());
    CHECK(hit->instance == std::optional<std::size_t>(0));
}
