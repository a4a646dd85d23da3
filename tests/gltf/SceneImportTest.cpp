// importScene(): the glTF node tree as myriad nodes, EXT_mesh_gpu_instancing as batches, and the
// warnings and errors for what is not supported.
#include "gltf/TestFiles.h"
#include "myriad/core/InstancedMeshNode.h"
#include "myriad/gltf/GltfImporter.h"
#include "myriad/util/Error.h"

#include <catch2/catch.hpp>

#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/quaternion.hpp>

#include <array>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <string>
#include <vector>

using Catch::Matchers::Contains;
using myriad::ImportError;
using myriad::InstancedMeshNode;
using myriad::MeshNode;
using myriad::NodeKind;
using myriad::SceneNode;
using myriad::gltf::ImportedScene;
using myriad::gltf::ImportOptions;
using myriad::gltf::importModel;
using myriad::gltf::importScene;
using namespace myriad::test::gltf;

namespace {

std::string asset(const char* relative) {
    return (fs::path(MYRIAD_ASSETS_DIR) / relative).string();
}

bool nearMatrix(const glm::mat4& a, const glm::mat4& b, float tolerance = 1e-4f) {
    for (int c = 0; c < 4; ++c) {
        for (int r = 0; r < 4; ++r) {
            if (std::abs(a[c][r] - b[c][r]) > tolerance) {
                return false;
            }
        }
    }
    return true;
}

std::string importSceneError(const std::string& path, const ImportOptions& options = {}) {
    try {
        (void)importScene(path, options);
    } catch (const ImportError& e) {
        return e.what();
    }
    return "(no ImportError thrown)";
}

/** triangle() with more accessors, each on a buffer view of its own. */
struct Builder {
    Doc doc = triangle();
    int views = 2;
    int accessors = 2;

    template <class T>
    int accessor(std::initializer_list<T> values, int componentType, std::size_t count,
                 const char* type, bool normalized = false) {
        const std::size_t offset = doc.buffer.add<T>(values);
        doc.bufferViews.insert(doc.bufferViews.size() - 1,
                               R"(, {"buffer": 0, "byteOffset": )" + std::to_string(offset) +
                                   R"(, "byteLength": )" +
                                   std::to_string(values.size() * sizeof(T)) + "}");
        doc.accessors.insert(doc.accessors.size() - 1,
                             R"(, {"bufferView": )" + std::to_string(views) +
                                 R"(, "componentType": )" + std::to_string(componentType) +
                                 R"(, "count": )" + std::to_string(count) + R"(, "type": ")" +
                                 type + "\"" + (normalized ? R"(, "normalized": true)" : "") + "}");
        ++views;
        return accessors++;
    }
};

constexpr int kFloat = 5126;

/** Parent "parent" (TRS) -> child "batch" (TRS, the triangle) with EXT_mesh_gpu_instancing:
 *  three instances, TRANSLATION, ROTATION and SCALE. */
Builder instancedTriangle() {
    Builder b;
    const int t = b.accessor<float>({1, 0, 0, 0, 2, 0, 0, 0, 3}, kFloat, 3, "VEC3");
    // 90 degrees about Z for instance 1 (x y z w), identity for 0 and 2.
    const float h = std::sqrt(0.5f);
    const int r = b.accessor<float>({0, 0, 0, 1, 0, 0, h, h, 0, 0, 0, 1}, kFloat, 3, "VEC4");
    const int s = b.accessor<float>({1, 1, 1, 2, 2, 2, 1, 3, 1}, kFloat, 3, "VEC3");
    b.doc.nodes = R"([{"name": "parent", "children": [1], "translation": [10, 0, 0],
                       "rotation": [0, 0.7071068, 0, 0.7071068], "scale": [2, 2, 2]},
                      {"name": "batch", "mesh": 0, "translation": [0, 5, 0],
                       "extensions": {"EXT_mesh_gpu_instancing": {"attributes": {
                           "TRANSLATION": )" +
                     std::to_string(t) + R"(, "ROTATION": )" + std::to_string(r) +
                     R"(, "SCALE": )" + std::to_string(s) + "}}}}]";
    b.doc.extra = R"("extensionsUsed": ["EXT_mesh_gpu_instancing"], )";
    return b;
}

} // namespace

TEST_CASE("SimpleInstancing: one InstancedMeshNode of 125 instances placed by the file's TRS",
          "[gltf][scene][instancing]") {
    const std::string path = asset("SimpleInstancing/simple-instancing.glb");
    const ImportedScene scene = importScene(path);
    REQUIRE(scene.root != nullptr);
    // The file's tree: scene 0 = [node 0], node 0 = mesh 0 + the extension, no TRS, no children.
    REQUIRE(scene.root->childCount() == 1);
    SceneNode& node = scene.root->child(0);
    REQUIRE(node.kind() == NodeKind::InstancedMesh);
    const auto& batch = static_cast<const InstancedMeshNode&>(node);
    CHECK(batch.name() == "node0");
    CHECK(batch.count() == 125);
    CHECK(batch.mesh()->vertexCount() == 24);
    REQUIRE(scene.instancing.size() == 1);
    CHECK(scene.instancing[0].batches == std::vector<InstancedMeshNode*>{
                                             const_cast<InstancedMeshNode*>(&batch)});
    CHECK(scene.instancing[0].attributes.empty());

    // Expected placements straight from the file's bytes (the node has no TRS, no parent).
    const std::vector<std::uint8_t> bin = glbBinChunk(path);
    for (std::size_t i = 0; i < 125; ++i) {
        INFO("instance " << i);
        CHECK(nearMatrix(batch.worldMatrix() * batch.readTransform(i),
                         simpleInstancingRecord(bin, i)));
        CHECK(batch.readColor(i) == glm::vec4(1.0f));
    }
    // The file's accessor 3 min/max: translations span 0..10 on each axis.
    CHECK(batch.readTransform(0)[3] != batch.readTransform(124)[3]);
}

TEST_CASE("instances are placed under their node's transform and their parents'",
          "[gltf][scene][instancing]") {
    const Builder b = instancedTriangle();
    const ImportedScene scene = importScene(writeDoc("instanced-parent.gltf", b.doc));
    REQUIRE(scene.root->childCount() == 1);
    SceneNode& parent = scene.root->child(0);
    CHECK(parent.name() == "parent");
    CHECK(parent.kind() == NodeKind::Group);
    REQUIRE(parent.childCount() == 1);
    REQUIRE(parent.child(0).kind() == NodeKind::InstancedMesh);
    const auto& batch = static_cast<const InstancedMeshNode&>(parent.child(0));
    CHECK(batch.name() == "batch");
    REQUIRE(batch.count() == 3);

    // From the file: parent T(10,0,0) R(90 deg about Y) S(2); child T(0,5,0); instances below.
    const glm::mat4 parentMatrix =
        glm::translate(glm::mat4(1.0f), glm::vec3(10, 0, 0)) *
        glm::rotate(glm::mat4(1.0f), glm::radians(90.0f), glm::vec3(0, 1, 0)) *
        glm::scale(glm::mat4(1.0f), glm::vec3(2.0f));
    const glm::mat4 childMatrix = glm::translate(glm::mat4(1.0f), glm::vec3(0, 5, 0));
    const std::array<glm::mat4, 3> instances{
        glm::translate(glm::mat4(1.0f), glm::vec3(1, 0, 0)),
        glm::translate(glm::mat4(1.0f), glm::vec3(0, 2, 0)) *
            glm::rotate(glm::mat4(1.0f), glm::radians(90.0f), glm::vec3(0, 0, 1)) *
            glm::scale(glm::mat4(1.0f), glm::vec3(2.0f)),
        glm::translate(glm::mat4(1.0f), glm::vec3(0, 0, 3)) *
            glm::scale(glm::mat4(1.0f), glm::vec3(1, 3, 1)),
    };
    for (std::size_t i = 0; i < 3; ++i) {
        INFO("instance " << i);
        CHECK(nearMatrix(batch.readTransform(i), instances[i]));
        CHECK(nearMatrix(batch.worldMatrix() * batch.readTransform(i),
                         parentMatrix * childMatrix * instances[i]));
    }
    // One corner worked by hand: instance 0 puts vertex (1,0,0) at (2,0,0) in the child, (2,5,0)
    // in the parent, and the parent turns +X to -Z and doubles it: (10, 10, -4) in the world.
    const glm::vec4 corner = batch.worldMatrix() * batch.readTransform(0) * glm::vec4(1, 0, 0, 1);
    CHECK(corner.x == Approx(10.0f).margin(1e-4));
    CHECK(corner.y == Approx(10.0f).margin(1e-4));
    CHECK(corner.z == Approx(-4.0f).margin(1e-4));
}

TEST_CASE("_COLOR_0 colours the instances, custom attributes are kept in a table and logged",
          "[gltf][scene][instancing]") {
    Builder b;
    const int t = b.accessor<float>({0, 0, 0, 1, 0, 0}, kFloat, 2, "VEC3");
    const int color = b.accessor<std::uint8_t>({255, 0, 0, 255, 0, 255, 0, 51}, 5121, 2, "VEC4",
                                               true);
    const int id = b.accessor<std::uint32_t>({7, 4000000}, 5125, 2, "SCALAR");
    const int lane = b.accessor<float>({1, 2, 3, 4, 5, 6, 7, 8}, kFloat, 2, "VEC4");
    b.doc.nodes = R"([{"name": "tinted", "mesh": 0, "extensions": {"EXT_mesh_gpu_instancing":
        {"attributes": {"TRANSLATION": )" + std::to_string(t) + R"(, "_COLOR_0": )" +
                  std::to_string(color) + R"(, "_ID": )" + std::to_string(id) +
                  R"(, "_LANE0": )" + std::to_string(lane) + "}}}}]";
    LogCapture log;
    const ImportedScene scene = importScene(writeDoc("instance-attributes.gltf", b.doc));
    const auto& batch = static_cast<const InstancedMeshNode&>(scene.root->child(0));
    REQUIRE(batch.count() == 2);
    CHECK(batch.readColor(0) == glm::vec4(1, 0, 0, 1));
    CHECK(batch.readColor(1).g == 1.0f);
    CHECK(batch.readColor(1).a == Approx(0.2f));
    REQUIRE(scene.instancing.size() == 1);
    const auto& attributes = scene.instancing[0].attributes;
    REQUIRE(attributes.size() == 2);  // _COLOR_0 went into the records
    CHECK(attributes[0].name == "_ID");
    CHECK(attributes[0].components == 1);
    CHECK(attributes[0].values == std::vector<glm::vec4>{{7, 0, 0, 0}, {4000000, 0, 0, 0}});
    CHECK(attributes[1].name == "_LANE0");
    CHECK(attributes[1].components == 4);
    CHECK(attributes[1].values == std::vector<glm::vec4>{{1, 2, 3, 4}, {5, 6, 7, 8}});
    const auto infos = log.infos();
    REQUIRE(infos.size() == 1);
    CHECK_THAT(infos[0], Contains("_ID, _LANE0") && Contains("kept"));
}

TEST_CASE("instancing attributes are validated", "[gltf][scene][instancing][errors]") {
    SECTION("counts differ") {
        Builder b;
        const int t = b.accessor<float>({0, 0, 0, 1, 0, 0}, kFloat, 2, "VEC3");
        const int s = b.accessor<float>({1, 1, 1}, kFloat, 1, "VEC3");
        b.doc.nodes = R"([{"mesh": 0, "extensions": {"EXT_mesh_gpu_instancing": {"attributes":
            {"TRANSLATION": )" + std::to_string(t) + R"(, "SCALE": )" + std::to_string(s) + "}}}}]";
        const std::string path = writeDoc("instance-count.gltf", b.doc);
        CHECK_THAT(importSceneError(path), Contains(path) && Contains("TRANSLATION has 2 elements") &&
                                               Contains("SCALE has 1;"));
    }
    SECTION("a translation that is not float VEC3") {
        Builder b;
        const int t = b.accessor<std::uint16_t>({0, 0, 0, 1, 0, 0}, 5123, 2, "VEC3");
        b.doc.nodes = R"([{"mesh": 0, "extensions": {"EXT_mesh_gpu_instancing": {"attributes":
            {"TRANSLATION": )" + std::to_string(t) + "}}}}]";
        CHECK_THAT(importSceneError(writeDoc("instance-type.gltf", b.doc)),
                   Contains("TRANSLATION") && Contains("must be float VEC3"));
    }
    SECTION("a zero quaternion names the instance") {
        Builder b;
        const int r = b.accessor<float>({0, 0, 0, 1, 0, 0, 0, 0}, kFloat, 2, "VEC4");
        b.doc.nodes = R"([{"name": "n", "mesh": 0, "extensions": {"EXT_mesh_gpu_instancing":
            {"attributes": {"ROTATION": )" + std::to_string(r) + "}}}}]";
        CHECK_THAT(importSceneError(writeDoc("instance-quat.gltf", b.doc)),
                   Contains("node 0 ('n')") && Contains("instance 1") && Contains("ROTATION"));
    }
    SECTION("an attribute that is neither TRS nor custom") {
        Builder b;
        const int t = b.accessor<float>({0, 0, 0}, kFloat, 1, "VEC3");
        b.doc.nodes = R"([{"mesh": 0, "extensions": {"EXT_mesh_gpu_instancing": {"attributes":
            {"POSITION": )" + std::to_string(t) + "}}}}]";
        CHECK_THAT(importSceneError(writeDoc("instance-name.gltf", b.doc)),
                   Contains("'POSITION'"));
    }
    SECTION("no attributes") {
        Builder b;
        b.doc.nodes = R"([{"mesh": 0, "extensions": {"EXT_mesh_gpu_instancing": {}}}])";
        CHECK_THAT(importSceneError(writeDoc("instance-empty.gltf", b.doc)),
                   Contains("no attributes"));
    }
    SECTION("more instances than maxInstances") {
        const Builder b = instancedTriangle();
        ImportOptions options;
        options.maxInstances = 2;
        CHECK_THAT(importSceneError(writeDoc("instance-limit.gltf", b.doc), options),
                   Contains("maxInstances"));
    }
}

TEST_CASE("a required extension that is not understood is an ImportError naming it",
          "[gltf][scene][errors]") {
    Doc doc = triangle();
    doc.extra = R"("extensionsUsed": ["KHR_materials_variants"],
                   "extensionsRequired": ["KHR_materials_variants"], )";
    const std::string path = writeDoc("required-variants.gltf", doc);
    CHECK_THAT(importSceneError(path), Contains(path) && Contains("KHR_materials_variants"));

    SECTION("EXT_mesh_gpu_instancing as required: importScene reads it, importModel refuses") {
        Builder b = instancedTriangle();
        b.doc.extra = R"("extensionsUsed": ["EXT_mesh_gpu_instancing"],
                         "extensionsRequired": ["EXT_mesh_gpu_instancing"], )";
        const std::string required = writeDoc("required-instancing.gltf", b.doc);
        CHECK(importScene(required).instancing.size() == 1);
        try {
            (void)importModel(required);
            FAIL("importModel accepted a file that requires EXT_mesh_gpu_instancing");
        } catch (const ImportError& e) {
            CHECK_THAT(e.what(), Contains("EXT_mesh_gpu_instancing") && Contains("importScene"));
        }
    }
}

TEST_CASE("skins, node animations and unknown extensions are warned about",
          "[gltf][scene][warnings]") {
    SECTION("Fox: a skin and three TRS animations are read, not warned about") {
        LogCapture log;
        const ImportedScene scene = importScene(asset("Fox/Fox.glb"));
        CHECK(log.warnings().empty());  // no "skins ignored", no "animation ... not imported"
        // Node 1 "fox" (mesh 0, skin 0) is childless: its MeshNode goes under the root joint's
        // parent, node 0 "root", at identity (3.7.3.2: its own transform is ignored).
        SceneNode* fox = scene.root->findByName("fox");
        REQUIRE(fox != nullptr);
        CHECK(fox->kind() == NodeKind::Mesh);
        REQUIRE(fox->parent() != nullptr);
        CHECK(fox->parent()->name() == "root");
        CHECK(nearMatrix(fox->worldMatrix(), glm::mat4(1.0f)));
        REQUIRE(static_cast<MeshNode*>(fox)->skeleton() != nullptr);
        CHECK(static_cast<MeshNode*>(fox)->skeleton() == scene.skins.at(0).skeleton);
        // The joints stay a tree of groups: node 0 "root" -> "_rootJoint" -> ...
        SceneNode* joint = scene.root->findByName("_rootJoint");
        REQUIRE(joint != nullptr);
        CHECK(joint->parent()->name() == "root");
    }
    SECTION("Kenney character: importModel says node animations need importScene; "
            "KHR_texture_transform is read, not warned about") {
        LogCapture log;
        (void)importModel(asset("KenneyPlatformerKit/character.glb"));
        const auto warnings = log.warnings();
        CHECK(std::none_of(warnings.begin(), warnings.end(), [](const std::string& w) {
            return w.find("KHR_texture_transform") != std::string::npos;
        }));
        CHECK(std::count_if(warnings.begin(), warnings.end(), [](const std::string& w) {
                  return w.find("animation ") != std::string::npos &&
                         w.find("importScene()") != std::string::npos;
              }) == 4);  // static, idle, walk, jump
        LogCapture sceneLog;
        (void)importScene(asset("KenneyPlatformerKit/character.glb"));
        CHECK(sceneLog.warnings().empty());  // importScene plays them: nothing to say
    }
    SECTION("importModel says that it draws one copy of an instanced node") {
        LogCapture log;
        (void)importModel(asset("SimpleInstancing/simple-instancing.glb"));
        const auto warnings = log.warnings();
        REQUIRE(warnings.size() == 1);
        CHECK_THAT(warnings[0], Contains("EXT_mesh_gpu_instancing") && Contains("importScene"));
    }
    SECTION("files with nothing unsupported import without a warning") {
        LogCapture log;
        (void)importScene(asset("Box/Box.gltf"));
        (void)importScene(asset("AnimatedMorphCube/AnimatedMorphCube.gltf"));
        CHECK(log.warnings().empty());
    }
}

TEST_CASE("Kenney character: the node tree with names and translations",
          "[gltf][scene][hierarchy]") {
    const ImportedScene scene = importScene(asset("KenneyPlatformerKit/character.glb"));
    CHECK(scene.root->name() == "character");  // scenes[0].name
    REQUIRE(scene.root->childCount() == 1);
    SceneNode& character = scene.root->child(0);
    CHECK(character.name() == "character");
    CHECK(character.kind() == NodeKind::Group);
    REQUIRE(character.childCount() == 1);
    SceneNode& root = character.child(0);
    CHECK(root.name() == "root");
    REQUIRE(root.childCount() == 3);
    CHECK(root.child(0).name() == "leg-left");
    CHECK(root.child(1).name() == "leg-right");
    SceneNode& torso = root.child(2);
    CHECK(torso.name() == "torso");
    CHECK(torso.kind() == NodeKind::Mesh);  // a mesh and children
    REQUIRE(torso.childCount() == 3);
    CHECK(torso.child(0).name() == "arm-left");
    CHECK(torso.child(1).name() == "arm-right");
    SceneNode& antenna = torso.child(2);
    CHECK(antenna.name() == "antenna");
    // The file's translations: root (0, 0.02375, ~0), torso (~0, 0.17625, -0.02375),
    // antenna (0, 0.6, 0).
    CHECK(antenna.position().y == Approx(0.6f));
    CHECK(torso.position().z == Approx(-0.02375f));
    const glm::dvec3 world = antenna.worldTranslation();
    CHECK(world.x == Approx(0.0).margin(1e-6));
    CHECK(world.y == Approx(0.02375 + 0.17625 + 0.6));
    CHECK(world.z == Approx(-0.02375));
    // The mesh stays in mesh space; its world box is where importModel's flattened copy is.
    const auto& antennaMesh = static_cast<const MeshNode&>(antenna);
    CHECK(antennaMesh.worldBounds().min.y == Approx(0.75f).margin(1e-4));
    CHECK(antennaMesh.mesh()->name() == "antenna#0");
    // Every mesh node of the model: six, as the flat import has six primitives.
    std::size_t meshes = 0;
    scene.root->traverse([&](const SceneNode& n) { meshes += n.kind() == NodeKind::Mesh; });
    CHECK(meshes == 6);
}

TEST_CASE("Box: a matrix node becomes TRS with the same world matrix", "[gltf][scene][hierarchy]") {
    const ImportedScene scene = importScene(asset("Box/Box.gltf"));
    // nodes[0].matrix = [1,0,0,0, 0,0,-1,0, 0,1,0,0, 0,0,0,1] (column-major): -90 deg about X.
    REQUIRE(scene.root->childCount() == 1);
    SceneNode& group = scene.root->child(0);
    CHECK(group.name() == "node0");
    const glm::mat4 expected(1, 0, 0, 0, 0, 0, -1, 0, 0, 1, 0, 0, 0, 0, 0, 1);
    CHECK(nearMatrix(group.worldMatrix(), expected, 1e-6f));
    REQUIRE(group.childCount() == 1);
    CHECK(group.child(0).name() == "node1");
    CHECK(group.child(0).kind() == NodeKind::Mesh);
    CHECK(nearMatrix(group.child(0).worldMatrix(), expected, 1e-6f));
}

TEST_CASE("several primitives: one node drawing each, instances stored once",
          "[gltf][scene][hierarchy]") {
    SECTION("MorphPrimitivesTest: node 'mesh' holds mesh 'mesh' with two primitives") {
        const ImportedScene scene = importScene(asset("MorphPrimitivesTest/MorphPrimitivesTest.gltf"));
        SceneNode* node = scene.root->findByName("mesh");
        REQUIRE(node != nullptr);
        REQUIRE(node->kind() == NodeKind::Mesh);
        CHECK(node->childCount() == 0);
        const auto& mesh = static_cast<const MeshNode&>(*node);
        REQUIRE(mesh.primitiveCount() == 2);
        CHECK(mesh.primitiveMesh(0) != mesh.primitiveMesh(1));
        CHECK(mesh.primitiveMesh(1)->morphTargetCount() == mesh.mesh()->morphTargetCount());
    }
    SECTION("instanced: one batch whose two primitives share its records") {
        Builder b = instancedTriangle();
        replaceOnce(b.doc.meshes, R"("indices": 1}])", R"("indices": 1}, {"attributes": {"POSITION": 0}}])");
        const ImportedScene scene = importScene(writeDoc("instanced-two.gltf", b.doc));
        SceneNode* node = scene.root->findByName("batch");
        REQUIRE(node != nullptr);
        REQUIRE(node->kind() == NodeKind::InstancedMesh);
        REQUIRE(scene.instancing.size() == 1);
        REQUIRE(scene.instancing[0].batches.size() == 1);
        const InstancedMeshNode& batch = *scene.instancing[0].batches[0];
        CHECK(&batch == node);
        CHECK(batch.primitiveCount() == 2);
        CHECK(batch.count() == 3);
    }
}

TEST_CASE("nodes that use one mesh share one MeshGeometry", "[gltf][scene]") {
    Doc doc = triangle();
    doc.nodes = R"([{"name": "a", "mesh": 0}, {"name": "b", "mesh": 0, "translation": [5, 0, 0]}])";
    doc.scenes = R"([{"nodes": [0, 1]}])";
    const ImportedScene scene = importScene(writeDoc("shared-mesh.gltf", doc));
    REQUIRE(scene.root->childCount() == 2);
    const auto& a = static_cast<const MeshNode&>(scene.root->child(0));
    const auto& b = static_cast<const MeshNode&>(scene.root->child(1));
    CHECK(a.mesh() == b.mesh());
    CHECK(b.position() == glm::vec3(5, 0, 0));
    CHECK(a.mesh()->localBounds().min == glm::vec3(0.0f));  // not moved by node b
}

TEST_CASE("morph-weight animations name the nodes they drive", "[gltf][scene]") {
    const ImportedScene scene = importScene(asset("AnimatedMorphCube/AnimatedMorphCube.gltf"));
    REQUIRE(scene.morphAnimations.size() == 1);
    const auto& animation = scene.morphAnimations[0];
    CHECK(animation.animation.name == "Square");
    CHECK(animation.animation.targetCount == 2);
    REQUIRE(animation.nodes.size() == 1);
    CHECK(animation.nodes[0]->mesh()->morphTargetCount() == 2);
}
