// Skins (glTF 2.0 3.7.3) as Skeleton, animations (3.11) as AnimationClip: the Fox's 24 joints and
// bind pose, the Kenney character's node animations, and small hand-made files for each check.
#include "gltf/TestFiles.h"
#include "myriad/core/AnimationClip.h"
#include "myriad/core/AnimationSet.h"
#include "myriad/core/MeshNode.h"
#include "myriad/core/Skeleton.h"
#include "myriad/gltf/GltfImporter.h"
#include "myriad/util/Error.h"

#include <catch2/catch.hpp>

#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/quaternion.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

using Catch::Matchers::Contains;
using myriad::AnimationClip;
using myriad::ImportError;
using myriad::JointTransform;
using myriad::MeshNode;
using myriad::SceneNode;
using myriad::Skeleton;
using myriad::gltf::ImportedModel;
using myriad::gltf::ImportedScene;
using myriad::gltf::importModel;
using myriad::gltf::importScene;
using namespace myriad::test::gltf;

namespace {

std::string asset(const char* relative) {
    return (fs::path(MYRIAD_ASSETS_DIR) / relative).string();
}

float maxAbs(const glm::mat4& m) {
    float out = 0.0f;
    for (int c = 0; c < 4; ++c) {
        for (int r = 0; r < 4; ++r) {
            out = std::max(out, std::abs(m[c][r]));
        }
    }
    return out;
}

/** Skin matrices of @p pose (Skeleton::jointMatrices, then skinMatrices). */
std::vector<glm::mat4> skinMatrices(const Skeleton& skeleton, const std::vector<JointTransform>& pose) {
    std::vector<glm::mat4> model(skeleton.jointCount());
    std::vector<glm::mat4> skin(skeleton.jointCount());
    skeleton.jointMatrices(pose, model);
    skeleton.skinMatrices(model, skin);
    return skin;
}

glm::vec3 skinned(const myriad::MeshData& data, const std::vector<glm::mat4>& skin, std::size_t v) {
    glm::vec4 out(0.0f);
    for (int k = 0; k < 4; ++k) {
        out += data.weights[v][k] * (skin[data.joints[v][k]] * glm::vec4(data.positions[v], 1.0f));
    }
    return glm::vec3(out);
}

std::string importError(const std::string& path, bool scene = false) {
    try {
        if (scene) {
            (void)importScene(path);
        } else {
            (void)importModel(path);
        }
    } catch (const ImportError& e) {
        return e.what();
    }
    return "(no ImportError thrown)";
}

/** A glTF document with a skinned triangle, built from parts the tests change.
 *  Nodes: 0 "skinned" (mesh 0, skin 0), 1 "armature" (translation 0, 0, 5) with child 2 "hip"
 *  (joint 0) with child 3 "knee" (joint 1, translation 1, 0, 0). Scene 0: nodes 0 and 1. */
struct SkinDoc {
    std::vector<std::uint8_t> joints{0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0};  ///< u8 VEC4 x 3
    std::vector<float> weights{1, 0, 0, 0, 1, 0, 0, 0, 0.5f, 0.25f, 0, 0};  ///< float VEC4 x 3
    int inverseBindCount = 2;  ///< 0: no inverseBindMatrices
    std::string animations;    ///< the "animations" array, or empty
    std::vector<float> keyData;  ///< floats the animations' accessors read (bufferView 5)
    std::string keyAccessors;    ///< more accessors (from index 5), each starting with ", "
    std::string extraNodes;      ///< more nodes, each starting with ", "
    std::string extraScenes;     ///< more scenes, each starting with ", "

    [[nodiscard]] std::string write(const std::string& name) const {
        Blob blob;
        const std::size_t positions = blob.add<float>({0, 0, 0, 1, 0, 0, 0, 1, 0});
        const std::size_t indices = blob.add<std::uint16_t>({0, 1, 2});
        blob.add<std::uint16_t>({0});  // pad
        const std::size_t jointsAt = blob.bytes.size();
        blob.bytes.insert(blob.bytes.end(), joints.begin(), joints.end());
        while (blob.bytes.size() % 4 != 0) {
            blob.bytes.push_back(0);
        }
        const std::size_t weightsAt = blob.bytes.size();
        blob.bytes.resize(weightsAt + weights.size() * 4);
        std::memcpy(blob.bytes.data() + weightsAt, weights.data(), weights.size() * 4);
        // Inverse binds: joint 0 at the armature origin, joint 1 at x = 1 (inverse: -1).
        const std::size_t ibmAt = blob.bytes.size();
        for (int i = 0; i < inverseBindCount; ++i) {
            glm::mat4 m(1.0f);
            if (i == 1) {
                m = glm::translate(glm::mat4(1.0f), glm::vec3(-1, 0, 0));
            }
            const std::size_t at = blob.bytes.size();
            blob.bytes.resize(at + 64);
            std::memcpy(blob.bytes.data() + at, &m, 64);
        }
        const std::size_t keysAt = blob.bytes.size();
        blob.bytes.resize(keysAt + keyData.size() * 4);
        if (!keyData.empty()) {
            std::memcpy(blob.bytes.data() + keysAt, keyData.data(), keyData.size() * 4);
        }
        auto view = [](std::size_t offset, std::size_t length) {
            return R"({"buffer": 0, "byteOffset": )" + std::to_string(offset) +
                   R"(, "byteLength": )" + std::to_string(std::max<std::size_t>(length, 4)) + "}";
        };
        Doc doc;
        doc.buffer = blob;
        doc.bufferViews = "[" + view(positions, 36) + ", " + view(indices, 6) + ", " +
                          view(jointsAt, joints.size()) + ", " + view(weightsAt, weights.size() * 4) +
                          ", " + view(ibmAt, 64 * static_cast<std::size_t>(inverseBindCount)) + ", " +
                          view(keysAt, keyData.size() * 4) + "]";
        doc.accessors = R"([{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
                             "min": [0, 0, 0], "max": [1, 1, 0]},
                            {"bufferView": 1, "componentType": 5123, "count": 3, "type": "SCALAR"},
                            {"bufferView": 2, "componentType": 5121, "count": )" +
                        std::to_string(joints.size() / 4) + R"(, "type": "VEC4"},
                            {"bufferView": 3, "componentType": 5126, "count": )" +
                        std::to_string(weights.size() / 4) + R"(, "type": "VEC4"},
                            {"bufferView": 4, "componentType": 5126, "count": )" +
                        std::to_string(std::max(inverseBindCount, 1)) + R"(, "type": "MAT4"})" +
                        keyAccessors + "]";
        doc.meshes = R"([{"name": "tri", "primitives": [{"attributes": {"POSITION": 0,
                          "JOINTS_0": 2, "WEIGHTS_0": 3}, "indices": 1}]}])";
        doc.nodes = R"([{"name": "skinned", "mesh": 0, "skin": 0, "translation": [100, 0, 0]},
                        {"name": "armature", "translation": [0, 0, 5], "children": [2]},
                        {"name": "hip", "children": [3]},
                        {"name": "knee", "translation": [1, 0, 0]})" +
                    extraNodes + "]";
        doc.scenes = R"([{"nodes": [0, 1]})" + extraScenes + "]";
        doc.extra = R"("skins": [{"name": "legs", "joints": [2, 3])" +
                    std::string(inverseBindCount > 0 ? R"(, "inverseBindMatrices": 4)" : "") + "}], " +
                    (animations.empty() ? "" : R"("animations": )" + animations + ", ");
        return writeDoc(name, doc);
    }
};

} // namespace

TEST_CASE("Fox imports with 24 joints and its bind pose", "[gltf][skin]") {
    const ImportedModel model = importModel(asset("Fox/Fox.glb"));
    REQUIRE(model.skins.size() == 1);
    const auto& skin = model.skins[0];
    REQUIRE(skin.skeleton != nullptr);
    const Skeleton& skeleton = *skin.skeleton;
    REQUIRE(skeleton.jointCount() == 24);
    // skins[0].joints is nodes 2..25, in that order; node 2 "_rootJoint" is the root joint.
    CHECK(skeleton.joints()[0].name == "_rootJoint");
    CHECK(skeleton.joints()[0].parent == -1);
    CHECK(skeleton.joints()[1].name == "b_Root_00");
    CHECK(skeleton.joints()[1].parent == 0);
    CHECK(skeleton.joints()[2].name == "b_Hip_01");
    CHECK(skeleton.joints()[2].parent == 1);
    CHECK(skeleton.joints()[13].name == "b_Tail01_012");
    CHECK(skeleton.joints()[13].parent == 2);  // a child of the hip (node 4's children 5, 15, 18, 22)
    CHECK(skeleton.joints()[23].name == "b_RightFoot02_022");
    CHECK(skeleton.findJoint("b_Head_05") == 6);
    // Node 2's parent, node 0 "root", has no transform: the skeleton's space is the model's.
    CHECK(maxAbs(skin.placement - glm::mat4(1.0f)) < 1e-6f);
    CHECK(glm::vec3(skeleton.joints()[2].rest.translation) ==
          glm::vec3(0.0f, 26.748403549194336f, 42.93817138671875f));

    // Clips: the file's three animations; durations are the max of their input accessors
    // (every sampler of an animation shares it): 3.4166667, 0.7083333, 1.1583333 seconds.
    REQUIRE(skin.clips.size() == 3);
    CHECK(skin.clips[0]->name() == "Survey");
    CHECK(skin.clips[1]->name() == "Walk");
    CHECK(skin.clips[2]->name() == "Run");
    CHECK(skin.clips[0]->duration() == Approx(3.4166667461395264));
    CHECK(skin.clips[1]->duration() == Approx(0.7083333134651184));
    CHECK(skin.clips[2]->duration() == Approx(1.1583333015441895));
    CHECK(skin.clips[1]->channels().size() == 21);
    CHECK(skin.clips[1]->targetNames().size() == 24);

    // The mesh: skinned, in bind space, joints inside the palette, weights summing to 1.
    REQUIRE(model.primitives.size() == 1);
    CHECK(model.primitives[0].skin == 0);
    const auto& mesh = *model.primitives[0].mesh;
    REQUIRE(mesh.isSkinned());
    CHECK(mesh.vertexCount() == 1728);
    CHECK(mesh.skinJointCount() <= 24);
    const auto& data = mesh.data();
    REQUIRE(data.joints.size() == 1728);
    for (std::size_t v = 0; v < data.joints.size(); ++v) {
        const glm::vec4& w = data.weights[v];
        REQUIRE(w.x + w.y + w.z + w.w == Approx(1.0f).margin(1e-5));
        for (int k = 0; k < 4; ++k) {
            REQUIRE(data.joints[v][k] < 24);
        }
    }

    // Bind pose: in the rest pose, inverseBind x the joint's rest placement is the identity,
    // so skinning gives every position back (within 1e-3 of the model's size).
    const std::vector<glm::mat4> rest = skinMatrices(skeleton, skeleton.restPose());
    for (std::size_t j = 0; j < rest.size(); ++j) {
        INFO("joint " << j);
        // Relative: the translation column is in centimetres, compared against the model size.
        const glm::mat4 error = rest[j] - glm::mat4(1.0f);
        CHECK(maxAbs(glm::mat4(glm::mat3(error)) - glm::mat4(glm::mat3(0.0f))) < 1e-3f);  // 3x3 part
        CHECK(glm::length(glm::vec3(error[3])) < 1e-3f * 155.0f);
    }
    float worst = 0.0f;
    for (std::size_t v = 0; v < data.positions.size(); ++v) {
        worst = std::max(worst, glm::length(skinned(data, rest, v) - data.positions[v]));
    }
    CHECK(worst < 1e-3f * 155.0f);

    // Walk at 0.3 s moves the fox: some vertex is far from its bind position.
    std::vector<JointTransform> pose = skeleton.restPose();
    skin.clips[1]->sample(0.3f, pose);
    const std::vector<glm::mat4> walking = skinMatrices(skeleton, pose);
    float moved = 0.0f;
    for (std::size_t v = 0; v < data.positions.size(); ++v) {
        moved = std::max(moved, glm::length(skinned(data, walking, v) - data.positions[v]));
    }
    CHECK(moved > 5.0f);  // centimetres
}

TEST_CASE("Fox's baked clips: no pose of any clip leaves the bounds, and posed nodes stay in theirs", "[gltf][skin]") {
    const ImportedModel fox = importModel(asset("Fox/Fox.glb"));
    const myriad::gltf::ImportedSkin& skin = fox.skins.at(0);
    const myriad::MeshGeometry& mesh = *fox.primitives.at(0).mesh;
    const auto set = myriad::AnimationSet::bake(skin.skeleton, skin.clips, mesh);
    const myriad::MeshData& data = mesh.data();
    const std::size_t joints = skin.skeleton->jointCount();
    std::vector<glm::mat4> matrices(joints), jointMatrices(joints);
    // A hair of slack for float rounding: the box is made by another route (Arvo's boxes).
    auto inside = [](const myriad::Aabb& box, const glm::vec3& p) {
        const float slack = 1e-3f * (1.0f + glm::length(box.halfExtent()));
        return glm::all(glm::greaterThanEqual(p, box.min - slack)) && glm::all(glm::lessThanEqual(p, box.max + slack));
    };
    auto skinned = [&](std::size_t v, std::span<const glm::mat4> skinMatrices) {
        glm::vec4 sum(0.0f);
        for (int k = 0; k < 4; ++k) {
            sum += data.weights[v][k] * (skinMatrices[data.joints[v][k]] * glm::vec4(data.positions[v], 1.0f));
        }
        return glm::vec3(sum);
    };
    // Every clip at times between its baked frames (what the vertex stage blends), and a fade.
    for (std::uint32_t clip = 0; clip < set->clips().size(); ++clip) {
        for (float t = 0.0f; t < set->clips()[clip].duration; t += 0.0437f) {
            set->skinMatricesAt({.clip = clip, .startTime = -t}, 0.0f, matrices);
            for (std::size_t v = 0; v < data.positions.size(); ++v) {
                INFO("clip " << clip << " at " << t << " s, vertex " << v);
                REQUIRE(inside(set->bounds(), skinned(v, matrices)));
            }
        }
    }
    set->skinMatricesAt({.clip = 2, .fadeFromClip = 1, .fadeStart = -0.5f, .fadeDuration = 1.0f}, 0.0f, matrices);
    for (std::size_t v = 0; v < data.positions.size(); ++v) {
        REQUIRE(inside(set->bounds(), skinned(v, matrices)));
    }
    // A skinned MeshNode posed by each clip: its drawBounds() hold its vertices.
    MeshNode node(fox.primitives.at(0).mesh, fox.primitives.at(0).material, "fox");
    node.setSkeleton(skin.skeleton);
    for (const auto& clip : skin.clips) {
        for (float t = 0.0f; t < clip->duration(); t += 0.1f) {
            node.setPose(*clip, t);
            for (std::size_t v = 0; v < data.positions.size(); ++v) {
                REQUIRE(inside(node.drawBounds(), skinned(v, node.skinMatrices())));
            }
        }
    }
}

TEST_CASE("Fox as a scene: the skinned MeshNode plays its clips", "[gltf][skin][scene]") {
    const ImportedScene scene = importScene(asset("Fox/Fox.glb"));
    REQUIRE(scene.skins.size() == 1);
    CHECK(scene.nodeAnimations.empty());  // every channel moves a joint
    auto* fox = dynamic_cast<MeshNode*>(scene.root->findByName("fox"));
    REQUIRE(fox != nullptr);
    REQUIRE(fox->skeleton() == scene.skins[0].skeleton);
    const auto before = fox->drawBounds();
    fox->setPose(*scene.skins[0].clips[2], 0.5f);  // Run
    CHECK_FALSE(fox->drawBounds().min == before.min);
}

TEST_CASE("Kenney character: importScene gives its node animations", "[gltf][skin][scene]") {
    const ImportedScene scene = importScene(asset("KenneyPlatformerKit/character.glb"));
    CHECK(scene.skins.empty());
    REQUIRE(scene.nodeAnimations.size() == 4);
    CHECK(scene.nodeAnimations[0].clip->name() == "static");
    CHECK(scene.nodeAnimations[1].clip->name() == "idle");
    CHECK(scene.nodeAnimations[3].clip->name() == "jump");
    const auto& walk = scene.nodeAnimations[2];
    CHECK(walk.clip->name() == "walk");
    CHECK(walk.clip->duration() == Approx(0.4333333373069763));
    // The file's walk channels target nodes 1, 2, 2, 3, 3, 5, 6, 4, 7: first seen order.
    const std::vector<std::string> expected{"root", "leg-left", "leg-right", "arm-left",
                                            "arm-right", "torso", "antenna"};
    REQUIRE(walk.targets.size() == expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        CHECK(walk.targets[i] == scene.root->findByName(expected[i]));
        CHECK(walk.clip->targetNames()[i] == expected[i]);
    }
    CHECK(myriad::bindClipToNodes(*walk.clip, *scene.root) == walk.targets);
    SceneNode* leg = scene.root->findByName("leg-left");
    const glm::mat4 rest = leg->localMatrix();
    myriad::applyClip(*walk.clip, 0.2f, walk.targets);
    CHECK(maxAbs(leg->localMatrix() - rest) > 1e-3f);
}

TEST_CASE("Kenney character as a rigid skin: the baked joints move as importScene's nodes do", "[gltf][skin]") {
    const ImportedModel model =
        importModel(asset("KenneyPlatformerKit/character.glb"), {.nodeAnimationsAsSkin = true});
    REQUIRE(model.skins.size() == 1);
    const myriad::gltf::ImportedSkin& skin = model.skins[0];
    CHECK(skin.name == "nodes");
    CHECK(skin.skeleton->jointCount() == 8);  // every node of the scene
    REQUIRE(skin.clips.size() == 4);
    CHECK(skin.clips[2]->name() == "walk");
    const Skeleton& skeleton = *skin.skeleton;
    std::vector<glm::mat4> joints(skeleton.jointCount()), matrices(skeleton.jointCount());
    // The bind pose is the model as importModel flattens it: every skin matrix the identity.
    skeleton.jointMatrices(skeleton.restPose(), joints);
    skeleton.skinMatrices(joints, matrices);
    for (const glm::mat4& m : matrices) {
        CHECK(maxAbs(m - glm::mat4(1.0f)) < 1e-5f);
    }
    for (const myriad::gltf::ImportedPrimitive& primitive : model.primitives) {
        INFO(primitive.name);
        CHECK(primitive.skin == 0);
        CHECK(primitive.mesh->isSkinned());
    }
    // The walk at 0.2 s: each joint's matrix equals the world matrix importScene's node of the
    // same name takes under applyClip (two routes: the skeleton's maths, the scene graph's).
    const ImportedScene scene = importScene(asset("KenneyPlatformerKit/character.glb"));
    const auto& walk = scene.nodeAnimations[2];
    myriad::applyClip(*walk.clip, 0.2f, walk.targets);
    std::vector<JointTransform> pose = skeleton.restPose();
    skin.clips[2]->sample(0.2f, pose);
    skeleton.jointMatrices(pose, joints);
    for (std::size_t j = 0; j < skeleton.jointCount(); ++j) {
        const SceneNode* node = scene.root->findByName(skeleton.joints()[j].name);
        REQUIRE(node != nullptr);
        INFO(node->name());
        CHECK(maxAbs(joints[j] - node->worldMatrix()) < 1e-4f);
    }
    // Off by default: no skin, the node channels warned about.
    CHECK(importModel(asset("KenneyPlatformerKit/character.glb")).skins.empty());
}

TEST_CASE("hand-made skins: placement, missing inverse binds, normalised weights",
          "[gltf][skin]") {
    SkinDoc doc;
    SECTION("the skeleton sits in the root joint's parent; the skinned node's transform is ignored") {
        const std::string path = doc.write("skin-basic.gltf");
        const ImportedModel model = importModel(path);
        REQUIRE(model.skins.size() == 1);
        CHECK(model.skins[0].name == "legs");
        CHECK(maxAbs(model.skins[0].placement -
                     glm::translate(glm::mat4(1.0f), glm::vec3(0, 0, 5))) < 1e-6f);
        CHECK(model.primitives[0].skin == 0);
        // Bind space: the node's translation (100, 0, 0) is not applied.
        CHECK(model.primitives[0].mesh->data().positions[1] == glm::vec3(1, 0, 0));
        CHECK(model.skins[0].skeleton->joints()[1].parent == 0);
        CHECK(model.skins[0].skeleton->joints()[1].inverseBind[3].x == Approx(-1.0f));
        // Documented normalisation: (0.5, 0.25) becomes (2/3, 1/3).
        CHECK(model.primitives[0].mesh->data().weights[2].x == Approx(2.0f / 3.0f));
        CHECK(model.primitives[0].mesh->data().weights[2].y == Approx(1.0f / 3.0f));

        const ImportedScene scene = importScene(path);
        auto* skinned = dynamic_cast<MeshNode*>(scene.root->findByName("skinned"));
        REQUIRE(skinned != nullptr);
        CHECK(skinned->parent()->name() == "armature");
        CHECK(maxAbs(skinned->worldMatrix() - glm::translate(glm::mat4(1.0f), glm::vec3(0, 0, 5))) < 1e-6f);
        CHECK(skinned->skeleton() == scene.skins.at(0).skeleton);
    }
    SECTION("no inverseBindMatrices: identity for each joint (3.7.3.1)") {
        doc.inverseBindCount = 0;
        const ImportedModel model = importModel(doc.write("skin-no-ibm.gltf"));
        for (const auto& joint : model.skins.at(0).skeleton->joints()) {
            CHECK(joint.inverseBind == glm::mat4(1.0f));
        }
    }
}

TEST_CASE("hand-made skins: bad input is refused with a clear message", "[gltf][skin][errors]") {
    SkinDoc doc;
    SECTION("a joint index past the skin's joints, naming the primitive") {
        doc.joints[8] = 2;  // vertex 2, weight 0.5: the skin has joints 0 and 1
        const std::string error = importError(doc.write("skin-joint-past.gltf"));
        CHECK_THAT(error, Contains("mesh 'tri' primitive 0") && Contains("vertex 2") &&
                              Contains("joint 2") && Contains("2 joints of skin 'legs'"));
        CHECK_THAT(importError(doc.write("skin-joint-past.gltf"), true), Contains("mesh 'tri' primitive 0"));
    }
    SECTION("a joint past the palette with weight 0 is never read: set to 0") {
        doc.joints[11] = 7;  // vertex 2, fourth influence, weight 0
        const ImportedModel model = importModel(doc.write("skin-joint-zero.gltf"));
        CHECK(model.primitives[0].mesh->data().joints[2][3] == 0);
    }
    SECTION("inverseBindMatrices count other than the joint count") {
        doc.inverseBindCount = 1;
        CHECK_THAT(importError(doc.write("skin-ibm-count.gltf")),
                   Contains("skin 0 ('legs')") && Contains("inverseBindMatrices") &&
                       Contains("1 matrices for 2 joints"));
    }
    SECTION("a vertex whose weights are all 0") {
        doc.weights[4] = 0.0f;  // vertex 1
        CHECK_THAT(importError(doc.write("skin-zero-weights.gltf")),
                   Contains("mesh 'tri' primitive 0") && Contains("vertex 1") && Contains("not all 0"));
    }
}

namespace {
/** Channels on the knee (node 3, joint 1) and the armature (node 1, no joint). Floats: times
 *  [0, 1, 2] at 0, STEP translations at 3, times [0, 1] at 12, CUBICSPLINE translations at 14
 *  (in, value, out per key), LINEAR armature translations at 32 on times [0, 1]. */
void addAnimation(SkinDoc& doc) {
    doc.keyData = {0, 1, 2,                                // 0: times
                   1, 0, 0, 2, 0, 0, 3, 0, 0,              // 3: STEP values
                   0, 1,                                   // 12: times
                   100, 100, 100, 0, 0, 0, 2, 0, 0,        // 14: key 0 in-tangent, value, out-tangent
                   0, 0, 0, 1, 0, 0, 100, 100, 100,        // 23: key 1 in-tangent, value, out-tangent
                   0, 0, 0, 0, 4, 0};                      // 32: armature LINEAR values
    doc.keyAccessors = R"(, {"bufferView": 5, "componentType": 5126, "count": 3, "type": "SCALAR", "min": [0], "max": [2]},
        {"bufferView": 5, "byteOffset": 12, "componentType": 5126, "count": 3, "type": "VEC3"},
        {"bufferView": 5, "byteOffset": 48, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0], "max": [1]},
        {"bufferView": 5, "byteOffset": 56, "componentType": 5126, "count": 6, "type": "VEC3"},
        {"bufferView": 5, "byteOffset": 128, "componentType": 5126, "count": 2, "type": "VEC3"})";
    doc.animations = R"([{"name": "move", "samplers": [
            {"input": 5, "output": 6, "interpolation": "STEP"},
            {"input": 7, "output": 8, "interpolation": "CUBICSPLINE"},
            {"input": 7, "output": 9}],
        "channels": [{"sampler": 0, "target": {"node": 3, "path": "translation"}},
                     {"sampler": 1, "target": {"node": 2, "path": "translation"}},
                     {"sampler": 2, "target": {"node": 1, "path": "translation"}}]}])";
}
} // namespace

TEST_CASE("hand-made skins: STEP and CUBICSPLINE samplers, node animations", "[gltf][skin][animation]") {
    SkinDoc doc;
    addAnimation(doc);
    SECTION("sampled values, by hand") {
        const ImportedModel model = importModel(doc.write("skin-anim.gltf"));
        const auto& skin = model.skins.at(0);
        REQUIRE(skin.clips.size() == 1);
        const AnimationClip& clip = *skin.clips[0];
        CHECK(clip.name() == "move");
        REQUIRE(clip.channels().size() == 2);  // the armature's channel is not the skin's
        CHECK(clip.channels()[0].target == 1);  // knee
        CHECK(clip.channels()[1].target == 0);  // hip
        std::vector<JointTransform> pose = skin.skeleton->restPose();
        // STEP holds a keyframe's value until the next.
        clip.sample(0.5f, pose);
        CHECK(pose[1].translation == glm::vec3(1, 0, 0));
        clip.sample(1.99f, pose);
        CHECK(pose[1].translation == glm::vec3(2, 0, 0));
        clip.sample(2.0f, pose);
        CHECK(pose[1].translation == glm::vec3(3, 0, 0));
        // CUBICSPLINE, keys at 0 and 1 (dt = 1): p0 = 0, out-tangent b0 = (2, 0, 0), p1 = (1, 0, 0),
        // in-tangent a1 = 0. At t = 0.5: (t^3 - 2t^2 + t) * 2 + (-2t^3 + 3t^2) * 1 = 0.25 + 0.5.
        // The 100s are key 0's in-tangent and key 1's out-tangent, which are never used.
        clip.sample(0.5f, pose);
        CHECK(pose[0].translation.x == Approx(0.75f));
        CHECK(pose[0].translation.y == Approx(0.0f).margin(1e-6));
        clip.sample(1.0f, pose);
        CHECK(pose[0].translation == glm::vec3(1, 0, 0));
    }
    SECTION("importScene: the armature's channel is a node animation") {
        const ImportedScene scene = importScene(doc.write("skin-anim-scene.gltf"));
        REQUIRE(scene.nodeAnimations.size() == 1);
        const auto& animation = scene.nodeAnimations[0];
        REQUIRE(animation.targets.size() == 1);
        CHECK(animation.targets[0] == scene.root->findByName("armature"));
        myriad::applyClip(*animation.clip, 0.5f, animation.targets);
        CHECK(glm::vec3(animation.targets[0]->position()) == glm::vec3(0, 2, 0));
    }
    SECTION("a channel on a node outside the scene is dropped with a warning") {
        doc.extraNodes = R"(, {"name": "elsewhere"})";
        doc.extraScenes = R"(, {"nodes": [4]})";
        replaceOnce(doc.animations, R"("target": {"node": 1,)", R"("target": {"node": 4,)");
        LogCapture log;
        const ImportedScene scene = importScene(doc.write("skin-anim-elsewhere.gltf"));
        CHECK(scene.nodeAnimations.empty());
        const auto warnings = log.warnings();
        REQUIRE(warnings.size() == 1);
        CHECK_THAT(warnings[0], Contains("animation 0 ('move')") && Contains("node 4 ('elsewhere')") &&
                                    Contains("not in the imported scene"));
        CHECK(scene.skins.at(0).clips.size() == 1);  // the joints' channels are still read
    }
    SECTION("a channel's node out of range") {
        replaceOnce(doc.animations, R"("target": {"node": 1,)", R"("target": {"node": 9,)");
        CHECK_THAT(importError(doc.write("skin-anim-node-range.gltf"), true),
                   Contains("animation 0 ('move') channel 2") && Contains("node 9 is out of range"));
    }
    SECTION("times that are not strictly increasing") {
        doc.keyData[1] = 0.0f;
        CHECK_THAT(importError(doc.write("skin-anim-times.gltf")),
                   Contains("animation 0 ('move') sampler 0") && Contains("strictly increasing"));
    }
    SECTION("an output count that does not match the keyframes") {
        replaceOnce(doc.animations, R"("interpolation": "CUBICSPLINE")", R"("interpolation": "LINEAR")");
        CHECK_THAT(importError(doc.write("skin-anim-count.gltf")),
                   Contains("animation 0 ('move') sampler 1") && Contains("6 values for 2 keyframes"));
    }
}
