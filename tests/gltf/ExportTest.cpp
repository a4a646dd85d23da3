// exportGltf(): a node tree and its batches written as glTF 2.0 and read back by importScene().
#include "gltf/TestFiles.h"
#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Shapes.h"
#include "myriad/gltf/GltfExporter.h"
#include "myriad/gltf/GltfImporter.h"
#include "myriad/util/Error.h"

#include <catch2/catch.hpp>

#include <glm/gtc/matrix_transform.hpp>

#include <fstream>
#include <iterator>
#include <string>

using Catch::Matchers::Contains;
using myriad::InstancedMeshNode;
using myriad::Material;
using myriad::MeshGeometry;
using myriad::MeshNode;
using myriad::NodeKind;
using myriad::SceneNode;
using myriad::gltf::exportGltf;
using myriad::gltf::ImportedScene;
using myriad::gltf::importScene;
using namespace myriad::test::gltf;

namespace {

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

std::string readText(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

/** A batch of five boxes: plain, turned and scaled non-uniformly, mirrored, flattened to a zero
 *  height, and far away; three of them coloured. Under a group with a transform of its own. */
std::unique_ptr<SceneNode> sampleTree(Material material = {}) {
    auto root = std::make_unique<SceneNode>("world");
    root->setPosition(glm::dvec3(1.0, 2.0, 3.0));
    root->setRotationYawPitchRoll(0.3f, 0.0f, 0.0f);
    auto mesh = MeshGeometry::create(myriad::shapes::box(1.0f), "box");
    material.name = "boxes";
    auto& batch = root->emplace<InstancedMeshNode>(mesh, material, 8, "crates");
    batch.setPosition(glm::dvec3(0.0, 0.5, 0.0));
    batch.setScale(glm::vec3(2.0f));
    batch.addInstance(glm::mat4(1.0f));
    batch.addInstance(glm::translate(glm::mat4(1.0f), glm::vec3(3, 0, 0)) *
                          glm::rotate(glm::mat4(1.0f), 1.0f, glm::normalize(glm::vec3(1, 2, 3))) *
                          glm::scale(glm::mat4(1.0f), glm::vec3(0.5f, 2.0f, 1.5f)),
                      glm::vec4(1, 0, 0, 1));
    batch.addInstance(glm::translate(glm::mat4(1.0f), glm::vec3(-3, 0, 0)) *
                          glm::scale(glm::mat4(1.0f), glm::vec3(-1.0f, 1.0f, 1.0f)),
                      glm::vec4(0, 1, 0, 0.5f));
    batch.addInstance(glm::translate(glm::mat4(1.0f), glm::vec3(0, 0, -3)) *
                      glm::rotate(glm::mat4(1.0f), 0.7f, glm::vec3(0, 1, 0)) *
                      glm::scale(glm::mat4(1.0f), glm::vec3(1.0f, 0.0f, 1.0f)));
    batch.addInstance(glm::translate(glm::mat4(1.0f), glm::vec3(1000, 0, 0)),
                      glm::vec4(0.25f, 0.5f, 0.75f, 1.0f));
    root->emplace<SceneNode>("empty-child").setPosition(glm::dvec3(0, 0, 7));
    return root;
}

void checkRoundTrip(const std::string& path) {
    const auto tree = sampleTree();
    const auto& original = static_cast<const InstancedMeshNode&>(tree->child(0));
    exportGltf(*tree, path);
    const ImportedScene scene = importScene(path);
    REQUIRE(scene.root->childCount() == 1);
    SceneNode& world = scene.root->child(0);
    CHECK(world.name() == "world");
    CHECK(nearMatrix(world.localMatrix(), tree->localMatrix()));
    REQUIRE(world.childCount() == 2);
    CHECK(world.child(1).name() == "empty-child");
    CHECK(world.child(1).position() == glm::vec3(0, 0, 7));
    REQUIRE(world.child(0).kind() == NodeKind::InstancedMesh);
    const auto& batch = static_cast<const InstancedMeshNode&>(world.child(0));
    CHECK(batch.name() == "crates");
    CHECK(nearMatrix(batch.localMatrix(), original.localMatrix()));
    REQUIRE(batch.count() == original.count());
    for (std::size_t i = 0; i < batch.count(); ++i) {
        INFO("instance " << i);
        CHECK(nearMatrix(batch.readTransform(i), original.readTransform(i)));
        CHECK(batch.readColor(i) == original.readColor(i));  // float VEC4: exact
    }
    CHECK(batch.mesh()->vertexCount() == original.mesh()->vertexCount());
    CHECK(batch.mesh()->indexCount() == original.mesh()->indexCount());
    CHECK(batch.mesh()->data().positions == original.mesh()->data().positions);
    CHECK(batch.mesh()->data().normals == original.mesh()->data().normals);
    CHECK(batch.mesh()->data().uv0 == original.mesh()->data().uv0);
    CHECK(batch.material().name == "boxes");
    REQUIRE(scene.instancing.size() == 1);
    CHECK(scene.instancing[0].batches.size() == 1);
}

} // namespace

TEST_CASE("export then import gives back the tree, the records and the colours",
          "[gltf][export]") {
    SECTION(".glb") { checkRoundTrip((tempDir() / "roundtrip.glb").string()); }
    SECTION(".gltf with a .bin") {
        const std::string path = (tempDir() / "roundtrip.gltf").string();
        checkRoundTrip(path);
        CHECK(fs::exists(tempDir() / "roundtrip.bin"));
        const std::string text = readText(path);
        CHECK_THAT(text, Contains("\"extensionsUsed\"") && Contains("EXT_mesh_gpu_instancing") &&
                             Contains("_COLOR_0"));
        CHECK(text.find("extensionsRequired") == std::string::npos);
    }
}

TEST_CASE("export: _COLOR_0 only when an instance colour is not white", "[gltf][export]") {
    SceneNode root("root");
    auto& batch = root.emplace<InstancedMeshNode>(MeshGeometry::create(myriad::shapes::triangle()),
                                                  Material{}, 2, "white");
    batch.addInstance(glm::mat4(1.0f));
    batch.addInstance(glm::translate(glm::mat4(1.0f), glm::vec3(2, 0, 0)));
    const std::string path = (tempDir() / "white.gltf").string();
    exportGltf(root, path);
    const std::string text = readText(path);
    CHECK_THAT(text, Contains("TRANSLATION") && Contains("ROTATION") && Contains("SCALE"));
    CHECK(text.find("_COLOR_0") == std::string::npos);
    const ImportedScene scene = importScene(path);
    const auto& back = static_cast<const InstancedMeshNode&>(scene.root->child(0).child(0));
    CHECK(back.readColor(1) == glm::vec4(1.0f));
    CHECK(back.readTransform(1)[3] == glm::vec4(2, 0, 0, 1));
}

TEST_CASE("export: a sheared instance is refused, naming it, and nothing is written",
          "[gltf][export][errors]") {
    SceneNode root("root");
    auto& batch = root.emplace<InstancedMeshNode>(MeshGeometry::create(myriad::shapes::triangle()),
                                                  Material{}, 2, "leaning");
    batch.addInstance(glm::mat4(1.0f));
    glm::mat4 shear(1.0f);
    shear[1][0] = 0.5f;  // x += 0.5 y
    batch.addInstance(shear);
    const std::string path = (tempDir() / "sheared.gltf").string();
    try {
        exportGltf(root, path);
        FAIL("a sheared instance was exported");
    } catch (const myriad::InvalidArgument& e) {
        CHECK_THAT(e.what(), Contains("'leaning'") && Contains("instance 1") && Contains("shear"));
    }
    CHECK_FALSE(fs::exists(path));
}

TEST_CASE("export: materials, shared meshes, plain mesh nodes and morph weights",
          "[gltf][export]") {
    SceneNode root("root");
    auto mesh = MeshGeometry::create(myriad::shapes::quad(), "quad");
    Material glass;
    glass.name = "glass";
    glass.baseColor = glm::vec4(0.2f, 0.4f, 0.6f, 0.5f);
    glass.alphaMode = myriad::AlphaMode::Blend;
    glass.doubleSided = true;
    glass.shading = myriad::Shading::Unlit;
    Material cutout;
    cutout.name = "cutout";
    cutout.alphaMode = myriad::AlphaMode::Mask;
    cutout.alphaCutoff = 0.25f;
    root.emplace<MeshNode>(mesh, glass, "a");
    root.emplace<MeshNode>(mesh, glass, "b").setPosition(glm::dvec3(2, 0, 0));
    root.emplace<MeshNode>(mesh, cutout, "c");
    auto& empty = root.emplace<InstancedMeshNode>(mesh, glass, 1, "no-instances");
    (void)empty;
    LogCapture log;
    const std::string path = (tempDir() / "materials.gltf").string();
    exportGltf(root, path);
    const auto warnings = log.warnings();
    REQUIRE(warnings.size() == 1);
    CHECK_THAT(warnings[0], Contains("'no-instances'") && Contains("without its mesh"));

    const ImportedScene scene = importScene(path);
    SceneNode& top = scene.root->child(0);
    REQUIRE(top.childCount() == 4);
    const auto& a = static_cast<const MeshNode&>(top.child(0));
    const auto& b = static_cast<const MeshNode&>(top.child(1));
    const auto& c = static_cast<const MeshNode&>(top.child(2));
    CHECK(a.mesh() == b.mesh());  // one glTF mesh for both
    CHECK(b.position() == glm::vec3(2, 0, 0));
    CHECK(a.material().name == "glass");
    CHECK(a.material().baseColor == glass.baseColor);
    CHECK(a.material().alphaMode == myriad::AlphaMode::Blend);
    CHECK(a.material().doubleSided);
    CHECK(a.material().shading == myriad::Shading::Unlit);
    CHECK(c.material().alphaMode == myriad::AlphaMode::Mask);
    CHECK(c.material().alphaCutoff == Approx(0.25f));
    // A Lambert (Lit) material goes out as a rough dielectric and comes back as glTF's model.
    CHECK(c.material().shading == myriad::Shading::MetallicRoughness);
    CHECK(c.material().metallic == 0.0f);
    CHECK(c.material().roughness == 1.0f);
    CHECK(top.child(3).kind() == NodeKind::Group);
}
