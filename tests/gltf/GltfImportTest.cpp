// glTF import on the CPU: the shared sample models, small hand-made files for each feature, and
// one hostile file per error the importer promises to catch.
#include "gltf/TestFiles.h"
#include "myriad/gltf/GltfImporter.h"
#include "myriad/util/Error.h"
#include "myriad/util/Log.h"

#include <catch2/catch.hpp>

#include <glm/geometric.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <span>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using myriad::AlphaMode;
using myriad::ImportError;
using myriad::IndexType;
using myriad::gltf::ImportedModel;
using myriad::gltf::ImportOptions;
using myriad::gltf::importModel;
using namespace myriad::test::gltf;

namespace {

const fs::path kAssets{MYRIAD_ASSETS_DIR};

std::string asset(const char* relative) { return (kAssets / relative).string(); }

/** The ImportError message for @p path, or a note that none was thrown. Other exception types
 *  propagate and fail the test. */
std::string importError(const std::string& path, const ImportOptions& options = {}) {
    try {
        (void)importModel(path, options);
    } catch (const ImportError& e) {
        return e.what();
    }
    return "(no ImportError thrown)";
}

std::uint32_t totalTriangles(const ImportedModel& model) {
    std::uint32_t sum = 0;
    for (const auto& p : model.primitives) {
        sum += p.mesh->triangleCount();
    }
    return sum;
}

std::uint32_t totalVertices(const ImportedModel& model) {
    std::uint32_t sum = 0;
    for (const auto& p : model.primitives) {
        sum += p.mesh->vertexCount();
    }
    return sum;
}

std::uint32_t indexAt(const myriad::MeshGeometry& mesh, std::size_t i) {
    const auto& data = mesh.data();
    return mesh.indexType() == IndexType::UInt16 ? data.indices16.at(i) : data.indices32.at(i);
}

glm::vec3 size(const myriad::Aabb& box) { return box.max - box.min; }

bool near(const glm::vec3& a, const glm::vec3& b, float tolerance = 1e-5f) {
    return glm::all(glm::lessThanEqual(glm::abs(a - b), glm::vec3(tolerance)));
}

/** A 2x1 RGBA PNG: pixel 0 opaque red, pixel 1 green with alpha 128. */
constexpr const char* kTinyPng = "iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAYAAAD0In+KAAAAD0lEQVR4nGP4z8Dw"
                                 "HwgbABB5A359Y87XAAAAAElFTkSuQmCC";

} // namespace

// ---- The shared sample models ----

TEST_CASE("every shared sample model imports with triangles and bounds", "[gltf]") {
    std::vector<fs::path> files;
    for (const auto& entry : fs::recursive_directory_iterator(kAssets)) {
        const auto ext = entry.path().extension();
        if (entry.is_regular_file() && (ext == ".gltf" || ext == ".glb")) {
            files.push_back(entry.path());
        }
    }
    std::sort(files.begin(), files.end());
    REQUIRE(files.size() >= 13);  // the README lists 13 models

    for (const fs::path& file : files) {
        INFO(file.string());
        const ImportedModel model = importModel(file.string());
        CHECK(model.path == file.string());
        REQUIRE_FALSE(model.primitives.empty());
        CHECK_FALSE(model.bounds.empty());
        for (const auto& primitive : model.primitives) {
            REQUIRE(primitive.mesh != nullptr);
            CHECK(primitive.mesh->triangleCount() > 0);
            CHECK(model.bounds.contains(primitive.mesh->localBounds()));
            CHECK_FALSE(primitive.name.empty());
            for (const glm::vec3& n : primitive.mesh->data().normals) {
                CHECK(glm::length(n) == Approx(1.0f).margin(1e-4));
            }
        }
    }
}

TEST_CASE("vertex, triangle and primitive counts match the assets README", "[gltf]") {
    struct Expected {
        std::uint32_t vertices;
        std::uint32_t triangles;
        std::size_t primitives;
    };
    const std::map<std::string, Expected> table{
        {"AnimatedMorphCube/AnimatedMorphCube.gltf", {24, 12, 1}},
        {"AnimatedMorphSphere/AnimatedMorphSphere.gltf", {1876, 960, 1}},
        {"MorphPrimitivesTest/MorphPrimitivesTest.gltf", {30, 32, 2}},
        {"SimpleMorph/SimpleMorph.gltf", {3, 1, 1}},
        {"Box/Box.gltf", {24, 12, 1}},
        {"BoxVertexColors/BoxVertexColors.gltf", {24, 12, 1}},
        {"BoxTextured/BoxTextured.gltf", {24, 12, 1}},
        {"SimpleInstancing/simple-instancing.glb", {24, 12, 1}},
        {"KenneyPlatformerKit/grass.glb", {144, 72, 1}},
        {"KenneyPlatformerKit/grass-small.glb", {144, 72, 1}},
        {"KenneyPlatformerKit/coin.glb", {392, 252, 1}},
        {"KenneyPlatformerKit/character.glb", {1038, 550, 6}},
        {"Fox/Fox.glb", {1728, 576, 1}},
    };
    for (const auto& [file, expected] : table) {
        INFO(file);
        const ImportedModel model = importModel(asset(file.c_str()));
        CHECK(totalVertices(model) == expected.vertices);
        CHECK(totalTriangles(model) == expected.triangles);
        CHECK(model.primitives.size() == expected.primitives);
    }
}

TEST_CASE("Box: centred unit cube, the file's red base colour, no texture", "[gltf]") {
    const ImportedModel model = importModel(asset("Box/Box.gltf"));
    REQUIRE(model.primitives.size() == 1);
    const auto& box = model.primitives[0];
    CHECK(near(model.bounds.min, glm::vec3(-0.5f)));
    CHECK(near(model.bounds.max, glm::vec3(0.5f)));
    CHECK(box.mesh->vertexCount() == 24);
    CHECK(box.mesh->triangleCount() == 12);
    CHECK(box.mesh->indexType() == IndexType::UInt16);  // 5123 indices, 24 vertices
    CHECK(box.name == "node1/Mesh#0");                  // nodes are unnamed, the mesh is "Mesh"
    // materials[0].pbrMetallicRoughness.baseColorFactor = [0.800000011920929, 0, 0, 1]
    CHECK(box.material.baseColor.r == Approx(0.8f));
    CHECK(box.material.baseColor.g == 0.0f);
    CHECK(box.material.baseColor.b == 0.0f);
    CHECK(box.material.baseColor.a == 1.0f);
    CHECK(box.material.baseColorTexture == nullptr);
    CHECK(box.material.alphaMode == AlphaMode::Opaque);
    CHECK_FALSE(box.material.doubleSided);
    CHECK(box.material.name.empty());
    CHECK_FALSE(box.mesh->hasColors());
    // The root's matrix turns the file's Z-up cube Y-up (-90 degrees about X): normals stay
    // axis-aligned unit vectors, and each face's normal points away from the centre.
    const auto& data = box.mesh->data();
    for (std::size_t t = 0; t < box.mesh->indexCount(); t += 3) {
        const glm::vec3 a = data.positions[indexAt(*box.mesh, t)];
        const glm::vec3 b = data.positions[indexAt(*box.mesh, t + 1)];
        const glm::vec3 c = data.positions[indexAt(*box.mesh, t + 2)];
        const glm::vec3 n = data.normals[indexAt(*box.mesh, t)];
        CHECK(glm::dot(n, (a + b + c) / 3.0f) > 0.0f);        // outward
        CHECK(glm::dot(glm::cross(b - a, c - a), n) > 0.0f);  // counter-clockwise front
    }
}

TEST_CASE("BoxVertexColors: COLOR_0 equals the position (an RGB cube)", "[gltf]") {
    const ImportedModel model = importModel(asset("BoxVertexColors/BoxVertexColors.gltf"));
    REQUIRE(model.primitives.size() == 1);
    const auto& mesh = *model.primitives[0].mesh;
    REQUIRE(mesh.hasColors());
    const auto& data = mesh.data();
    REQUIRE(data.colors.size() == data.positions.size());
    for (std::size_t i = 0; i < data.colors.size(); ++i) {
        INFO("vertex " << i);
        CHECK(near(glm::vec3(data.colors[i]), data.positions[i], 1e-3f));
        CHECK(data.colors[i].a == Approx(1.0f));
    }
    CHECK(near(model.bounds.min, glm::vec3(0.0f)));
    CHECK(near(model.bounds.max, glm::vec3(1.0f)));
}

TEST_CASE("BoxTextured: embedded 256x256 PNG as the base colour texture", "[gltf]") {
    const ImportedModel model = importModel(asset("BoxTextured/BoxTextured.gltf"));
    REQUIRE(model.primitives.size() == 1);
    const auto& primitive = model.primitives[0];
    REQUIRE(primitive.material.baseColorTexture != nullptr);
    const myriad::Image& image = *primitive.material.baseColorTexture;
    CHECK(image.width == 256);
    CHECK(image.height == 256);
    CHECK(image.pixels.size() == 256u * 256u * 4u);
    CHECK(primitive.mesh->data().uv0.size() == primitive.mesh->vertexCount());
    CHECK(near(model.bounds.min, glm::vec3(-0.5f)));
    CHECK(near(model.bounds.max, glm::vec3(0.5f)));
}

TEST_CASE("Kenney grass: 0.5 x 0.3 x 0.5 on y = 0, external 512x512 colormap", "[gltf]") {
    const ImportedModel model = importModel(asset("KenneyPlatformerKit/grass.glb"));
    REQUIRE(model.primitives.size() == 1);
    CHECK(model.bounds.min.y == Approx(0.0f).margin(1e-5));
    const glm::vec3 extent = size(model.bounds);
    CHECK(extent.x == Approx(0.5f).margin(0.05));
    CHECK(extent.y == Approx(0.3f).margin(0.05));
    CHECK(extent.z == Approx(0.5f).margin(0.05));
    const auto& material = model.primitives[0].material;
    CHECK(material.name == "colormap");
    CHECK(material.doubleSided);  // "doubleSided": true
    REQUIRE(material.baseColorTexture != nullptr);
    CHECK(material.baseColorTexture->width == 512);
    CHECK(material.baseColorTexture->height == 512);
    // samplers[0] is {"minFilter": 9987}: no magFilter, so not NEAREST.
    CHECK_FALSE(material.nearestFilter);
    CHECK(model.primitives[0].name == "grass/grass#0");
}

TEST_CASE("Kenney character: six parts placed by the node hierarchy, one shared image", "[gltf]") {
    const ImportedModel model = importModel(asset("KenneyPlatformerKit/character.glb"));
    REQUIRE(model.primitives.size() == 6);
    // README: 1.2 x 1.1 x 0.6, standing on y = 0. Only true once the parts' translations
    // (root -> torso -> arms, antenna) are multiplied down the hierarchy.
    CHECK(model.bounds.min.y == Approx(0.0f).margin(1e-4));
    const glm::vec3 extent = size(model.bounds);
    CHECK(extent.x == Approx(1.2f).margin(0.05));
    CHECK(extent.y == Approx(1.1f).margin(0.05));
    CHECK(extent.z == Approx(0.6f).margin(0.05));
    // The antenna sits on the torso (0.2 above the root) at 0.6: its base is at y = 0.75.
    const auto antenna = std::find_if(model.primitives.begin(), model.primitives.end(),
                                      [](const auto& p) { return p.name == "antenna/antenna#0"; });
    REQUIRE(antenna != model.primitives.end());
    CHECK(antenna->mesh->localBounds().min.y == Approx(0.75f).margin(1e-4));
    std::set<const myriad::Image*> images;
    for (const auto& p : model.primitives) {
        images.insert(p.material.baseColorTexture.get());
    }
    CHECK(images.size() == 1);
    CHECK(*images.begin() != nullptr);
}

TEST_CASE("Fox: non-indexed, no normals (flat ones computed), bind pose in centimetres", "[gltf]") {
    const ImportedModel model = importModel(asset("Fox/Fox.glb"));
    REQUIRE(model.primitives.size() == 1);
    const auto& mesh = *model.primitives[0].mesh;
    CHECK(mesh.triangleCount() == 576);
    CHECK(mesh.vertexCount() == 1728);
    const glm::vec3 extent = size(model.bounds);
    CHECK(extent.x == Approx(25.0f).margin(1.0));
    CHECK(extent.y == Approx(79.0f).margin(1.0));
    CHECK(extent.z == Approx(155.0f).margin(1.0));
    // 3.7.2.1: without NORMAL the normals must be flat: one per triangle, on all three corners.
    const auto& data = mesh.data();
    for (std::size_t t = 0; t < mesh.indexCount(); t += 3) {
        const glm::vec3 n = data.normals[indexAt(mesh, t)];
        CHECK(near(n, data.normals[indexAt(mesh, t + 1)]));
        CHECK(near(n, data.normals[indexAt(mesh, t + 2)]));
    }
    REQUIRE(model.primitives[0].material.baseColorTexture != nullptr);
    CHECK(model.primitives[0].material.baseColorTexture->width == 1024);
    CHECK(model.primitives[0].material.name == "fox_material");
}

TEST_CASE("AnimatedMorphCube: node scale 100 and rotation make it 2 units wide", "[gltf]") {
    const ImportedModel model = importModel(asset("AnimatedMorphCube/AnimatedMorphCube.gltf"));
    const glm::vec3 extent = size(model.bounds);
    CHECK(near(extent, glm::vec3(2.0f), 1e-3f));
}

// ---- Hand-made files: one feature each ----

TEST_CASE("TRS and matrix transforms multiply parent * child", "[gltf]") {
    Doc doc = triangle();
    // Parent: translate (10, 0, 0). Child: rotate 90 degrees about Z, then scale 2.
    doc.nodes = R"([{"name": "parent", "translation": [10, 0, 0], "children": [1]},
                    {"name": "child", "mesh": 0, "scale": [2, 2, 2],
                     "rotation": [0, 0, 0.70710678, 0.70710678]}])";
    const ImportedModel trs = importModel(writeDoc("trs.gltf", doc));
    REQUIRE(trs.primitives.size() == 1);
    CHECK(trs.primitives[0].name == "child/tri#0");
    const auto& p = trs.primitives[0].mesh->data().positions;
    // (1,0,0) -> scale (2,0,0) -> rotate (0,2,0) -> translate (10,2,0); (0,1,0) -> (8,0,0).
    CHECK(near(p[0], {10, 0, 0}));
    CHECK(near(p[1], {10, 2, 0}));
    CHECK(near(p[2], {8, 0, 0}));
    // No NORMAL: flat normals from the transformed, still counter-clockwise triangle: +Z.
    CHECK(near(trs.primitives[0].mesh->data().normals[0], {0, 0, 1}));

    // The same as one column-major matrix on the parent.
    doc.nodes = R"([{"matrix": [0, 2, 0, 0,  -2, 0, 0, 0,  0, 0, 2, 0,  10, 0, 0, 1],
                     "children": [1]},
                    {"mesh": 0}])";
    const ImportedModel matrix = importModel(writeDoc("matrix.gltf", doc));
    const auto& q = matrix.primitives[0].mesh->data().positions;
    CHECK(near(q[1], {10, 2, 0}));
    CHECK(near(q[2], {8, 0, 0}));
    CHECK(matrix.primitives[0].name == "node1/tri#0");
}

TEST_CASE("a mirroring transform reverses the winding and turns normals", "[gltf]") {
    Doc doc = triangle();
    doc.buffer.add<float>({0, 0, 1, 0, 0, 1, 1, 0, 0});  // normals at byte 44: +Z, +Z, +X
    doc.bufferViews = R"([{"buffer": 0, "byteOffset": 0, "byteLength": 36},
                          {"buffer": 0, "byteOffset": 36, "byteLength": 6},
                          {"buffer": 0, "byteOffset": 44, "byteLength": 36}])";
    replaceOnce(doc.accessors, R"("type": "SCALAR"})",
                R"("type": "SCALAR"},
                   {"bufferView": 2, "componentType": 5126, "count": 3, "type": "VEC3"})");
    replaceOnce(doc.meshes, R"({"POSITION": 0})", R"({"POSITION": 0, "NORMAL": 2})");
    doc.nodes = R"([{"mesh": 0, "scale": [-1, 1, 1]}])";
    const ImportedModel model = importModel(writeDoc("mirror.gltf", doc));
    const auto& mesh = *model.primitives[0].mesh;
    const auto& data = mesh.data();
    CHECK(near(data.positions[1], {-1, 0, 0}));
    CHECK(indexAt(mesh, 0) == 0);
    CHECK(indexAt(mesh, 1) == 2);  // swapped: still counter-clockwise seen from +Z
    CHECK(indexAt(mesh, 2) == 1);
    const glm::vec3 a = data.positions[indexAt(mesh, 0)];
    const glm::vec3 b = data.positions[indexAt(mesh, 1)];
    const glm::vec3 c = data.positions[indexAt(mesh, 2)];
    CHECK(glm::cross(b - a, c - a).z > 0.0f);
    CHECK(near(data.normals[0], {0, 0, 1}));
    CHECK(near(data.normals[2], {-1, 0, 0}));  // +X mirrored
}

TEST_CASE("without NORMAL, shared vertices are split so the normals are flat", "[gltf]") {
    Doc doc;
    doc.buffer.add<float>({0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1});
    doc.buffer.add<std::uint16_t>({0, 1, 2, 0, 3, 1});  // share the edge 0-1 at a right angle
    doc.bufferViews = R"([{"buffer": 0, "byteOffset": 0, "byteLength": 48},
                          {"buffer": 0, "byteOffset": 48, "byteLength": 12}])";
    doc.accessors = R"([{"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3",
                         "min": [0, 0, 0], "max": [1, 1, 1]},
                        {"bufferView": 1, "componentType": 5123, "count": 6, "type": "SCALAR"}])";
    doc.meshes = R"([{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}])";
    const ImportedModel model = importModel(writeDoc("fold.gltf", doc));
    const auto& mesh = *model.primitives[0].mesh;
    CHECK(mesh.vertexCount() == 6);
    CHECK(mesh.triangleCount() == 2);
    for (std::size_t i = 0; i < 3; ++i) {
        CHECK(near(mesh.data().normals[indexAt(mesh, i)], {0, 0, 1}));
        CHECK(near(mesh.data().normals[indexAt(mesh, 3 + i)], {0, 1, 0}));
    }
    CHECK(near(mesh.data().positions[indexAt(mesh, 4)], {0, 0, 1}));  // vertex 3
}

TEST_CASE("indices: generated when absent, u32 kept 32-bit, u8 read", "[gltf]") {
    SECTION("absent") {
        Doc doc = triangle();
        replaceOnce(doc.meshes, R"(, "indices": 1)", "");
        const ImportedModel model = importModel(writeDoc("noindices.gltf", doc));
        const auto& mesh = *model.primitives[0].mesh;
        CHECK(mesh.indexType() == IndexType::UInt16);
        CHECK(mesh.indexCount() == 3);
        CHECK(indexAt(mesh, 0) == 0);
        CHECK(indexAt(mesh, 2) == 2);
    }
    SECTION("unsigned int") {
        Doc doc = triangle();
        doc.buffer.bytes.resize(36);
        doc.buffer.add<std::uint32_t>({2, 0, 1});
        replaceOnce(doc.bufferViews, R"("byteLength": 6)", R"("byteLength": 12)");
        replaceOnce(doc.accessors, R"("componentType": 5123)", R"("componentType": 5125)");
        const ImportedModel model = importModel(writeDoc("u32.gltf", doc));
        const auto& mesh = *model.primitives[0].mesh;
        CHECK(mesh.indexType() == IndexType::UInt32);
        // No NORMAL, so the primitive was de-indexed for flat normals: compare positions.
        CHECK(near(mesh.data().positions[indexAt(mesh, 0)], {0, 1, 0}));  // vertex 2
        CHECK(near(mesh.data().positions[indexAt(mesh, 1)], {0, 0, 0}));  // vertex 0
    }
    SECTION("unsigned byte") {
        Doc doc = triangle();
        doc.buffer.bytes.resize(36);
        doc.buffer.add<std::uint8_t>({1, 2, 0});
        replaceOnce(doc.bufferViews, R"("byteLength": 6)", R"("byteLength": 3)");
        replaceOnce(doc.accessors, R"("componentType": 5123)", R"("componentType": 5121)");
        const ImportedModel model = importModel(writeDoc("u8.gltf", doc));
        const auto& mesh = *model.primitives[0].mesh;
        CHECK(mesh.indexType() == IndexType::UInt16);
        CHECK(near(mesh.data().positions[indexAt(mesh, 0)], {1, 0, 0}));  // vertex 1
        CHECK(near(mesh.data().positions[indexAt(mesh, 1)], {0, 1, 0}));  // vertex 2
    }
}

TEST_CASE("interleaved normalized TEXCOORD_0 and COLOR_0, and an accessor without a view",
          "[gltf]") {
    Doc doc = triangle();
    // Per vertex 8 bytes: u16 u, u16 v, then u8 r, g, b, pad (byteStride 8).
    doc.buffer.add<std::uint16_t>({0, 65535, 0xFF00, 0, 65535, 65535, 0x00FF, 0, 32768, 0, 0, 0});
    doc.bufferViews = R"([{"buffer": 0, "byteOffset": 0, "byteLength": 36},
                          {"buffer": 0, "byteOffset": 36, "byteLength": 6},
                          {"buffer": 0, "byteOffset": 44, "byteLength": 24, "byteStride": 8}])";
    replaceOnce(doc.accessors, R"("type": "SCALAR"})",
                R"("type": "SCALAR"},
                   {"bufferView": 2, "componentType": 5123, "normalized": true,
                    "count": 3, "type": "VEC2"},
                   {"bufferView": 2, "byteOffset": 4, "componentType": 5121, "normalized": true,
                    "count": 3, "type": "VEC3"})");
    SECTION("read through the stride") {
        replaceOnce(doc.meshes, R"({"POSITION": 0})",
                    R"({"POSITION": 0, "TEXCOORD_0": 2, "COLOR_0": 3})");
        const ImportedModel model = importModel(writeDoc("interleaved.gltf", doc));
        const auto& data = model.primitives[0].mesh->data();
        CHECK(near(glm::vec3(data.uv0[0], 0), {0, 1, 0}));
        CHECK(near(glm::vec3(data.uv0[1], 0), {1, 1, 0}));
        CHECK(near(glm::vec3(data.colors[0]), {0, 1, 0}));  // bytes 00 FF 00
        CHECK(near(glm::vec3(data.colors[1]), {1, 0, 0}));  // bytes FF 00 00
        CHECK(data.colors[2].a == 1.0f);                    // VEC3: alpha 1
    }
    SECTION("no bufferView: zeros") {
        replaceOnce(doc.accessors, R"("bufferView": 2, "componentType": 5123)",
                    R"("componentType": 5123)");
        replaceOnce(doc.meshes, R"({"POSITION": 0})", R"({"POSITION": 0, "TEXCOORD_0": 2})");
        const ImportedModel model = importModel(writeDoc("zeros.gltf", doc));
        const auto& data = model.primitives[0].mesh->data();
        REQUIRE(data.uv0.size() == 3);
        CHECK(data.uv0[2] == glm::vec2(0.0f));
    }
}

TEST_CASE("a sparse accessor replaces the listed elements", "[gltf]") {
    Doc doc = triangle();
    doc.buffer.add<std::uint16_t>({2});      // sparse index at 44
    doc.buffer.add<float>({5, 5, 0});         // sparse value at 48
    doc.bufferViews = R"([{"buffer": 0, "byteOffset": 0, "byteLength": 36},
                          {"buffer": 0, "byteOffset": 36, "byteLength": 6},
                          {"buffer": 0, "byteOffset": 44, "byteLength": 2},
                          {"buffer": 0, "byteOffset": 48, "byteLength": 12}])";
    replaceOnce(doc.accessors, R"("max": [1, 1, 0]})",
                R"("max": [5, 5, 0], "sparse": {"count": 1,
                   "indices": {"bufferView": 2, "componentType": 5123},
                   "values": {"bufferView": 3}}})");
    const ImportedModel model = importModel(writeDoc("sparse.gltf", doc));
    const auto& p = model.primitives[0].mesh->data().positions;
    CHECK(near(p[1], {1, 0, 0}));
    CHECK(near(p[2], {5, 5, 0}));

    doc.buffer.bytes[44] = 7;  // the sparse index, now past the accessor count of 3
    const std::string path = writeDoc("sparse-bad.gltf", doc);
    CHECK_THAT(importError(path), Contains(path) && Contains("sparse index"));
}

TEST_CASE("materials: alpha modes, cutoff, nearest sampler, unlit, shared images", "[gltf]") {
    Doc doc = triangle();
    doc.meshes = R"([{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1, "material": 0},
                                     {"attributes": {"POSITION": 0}, "indices": 1, "material": 1},
                                     {"attributes": {"POSITION": 0}, "indices": 1, "material": 2},
                                     {"attributes": {"POSITION": 0}, "indices": 1}]}])";
    doc.extra = std::string(R"("extensionsUsed": ["KHR_materials_unlit"],
        "materials": [
          {"name": "cutout", "alphaMode": "MASK", "alphaCutoff": 0.25, "doubleSided": true,
           "pbrMetallicRoughness": {"baseColorFactor": [0.1, 0.2, 0.3, 0.4],
                                    "baseColorTexture": {"index": 0}}},
          {"name": "glass", "alphaMode": "BLEND",
           "pbrMetallicRoughness": {"baseColorTexture": {"index": 1}}},
          {"name": "flat", "extensions": {"KHR_materials_unlit": {}}}],
        "textures": [{"source": 0, "sampler": 0}, {"source": 0, "sampler": 1}],
        "samplers": [{"magFilter": 9728, "minFilter": 9728}, {"magFilter": 9729}],
        "images": [{"uri": "data:image/png;base64,)") +
                kTinyPng + R"("}],)";
    const ImportedModel model = importModel(writeDoc("materials.gltf", doc));
    REQUIRE(model.primitives.size() == 4);
    const auto& cutout = model.primitives[0].material;
    CHECK(cutout.name == "cutout");
    CHECK(cutout.alphaMode == AlphaMode::Mask);
    CHECK(cutout.alphaCutoff == Approx(0.25f));
    CHECK(cutout.doubleSided);
    CHECK(cutout.nearestFilter);  // magFilter 9728
    CHECK(near(glm::vec3(cutout.baseColor), {0.1f, 0.2f, 0.3f}));
    CHECK(cutout.baseColor.a == Approx(0.4f));
    REQUIRE(cutout.baseColorTexture != nullptr);
    CHECK(cutout.baseColorTexture->width == 2);
    CHECK(cutout.baseColorTexture->height == 1);
    CHECK(cutout.baseColorTexture->at(0, 0) == 0xFF0000FFu);
    CHECK(cutout.baseColorTexture->at(1, 0) == 0x00FF0080u);
    const auto& glass = model.primitives[1].material;
    CHECK(glass.alphaMode == AlphaMode::Blend);
    CHECK_FALSE(glass.nearestFilter);
    CHECK(glass.baseColorTexture.get() == cutout.baseColorTexture.get());  // same image 0
    CHECK(model.primitives[2].material.shading == myriad::Shading::Unlit);
    CHECK(model.primitives[0].material.shading == myriad::Shading::MetallicRoughness);  // glTF's model (3.9.2)
    const myriad::Material& fallback = model.primitives[3].material;  // no material: default
    CHECK(fallback.name.empty());
    CHECK(fallback.baseColor == glm::vec4(1.0f));
    CHECK(fallback.baseColorTexture == nullptr);

    SECTION("an image larger than maxImageSide is refused") {
        ImportOptions options;
        options.maxImageSide = 1;
        const std::string path = writeDoc("materials-limit.gltf", doc);
        CHECK_THAT(importError(path, options),
                   Contains(path) && Contains("2x1") && Contains("limit"));
    }
}

TEST_CASE("non-triangle primitives are skipped with a warning", "[gltf]") {
    Doc doc = triangle();
    doc.meshes = R"([{"name": "mixed", "primitives": [
                        {"attributes": {"POSITION": 0}, "mode": 1},
                        {"attributes": {"POSITION": 0}, "indices": 1}]}])";
    LogCapture log;
    const ImportedModel model = importModel(writeDoc("mixed.gltf", doc));
    CHECK(model.primitives.size() == 1);
    CHECK(model.primitives[0].name == "node0/mixed#1");
    const auto warnings = log.warnings();
    REQUIRE(warnings.size() == 1);
    CHECK_THAT(warnings[0], Contains("mesh 'mixed' primitive 0") && Contains("lines"));

    SECTION("a model with only points is an error") {
        Doc points = triangle();
        points.meshes = R"([{"primitives": [{"attributes": {"POSITION": 0}, "mode": 0}]}])";
        const std::string path = writeDoc("points.gltf", points);
        CHECK_THAT(importError(path), Contains(path) && Contains("no triangle primitive"));
    }
}

TEST_CASE("scene selection: default scene, and root nodes when there are no scenes", "[gltf]") {
    Doc doc = triangle();
    doc.nodes = R"([{"name": "a", "mesh": 0}, {"name": "b", "mesh": 0, "translation": [5, 0, 0]}])";
    doc.scenes = R"([{"nodes": [0]}, {"nodes": [1]}])";
    std::string text = doc.json();
    replaceOnce(text, R"("scene": 0)", R"("scene": 1)");
    const ImportedModel second = importModel(writeFile("scene1.gltf", text));
    REQUIRE(second.primitives.size() == 1);
    CHECK(second.primitives[0].name == "b/tri#0");
    CHECK(second.bounds.min.x == Approx(5.0f));

    replaceOnce(text, R"("scene": 1, "scenes": [{"nodes": [0]}, {"nodes": [1]}], )", "");
    const ImportedModel roots = importModel(writeFile("noscene.gltf", text));
    CHECK(roots.primitives.size() == 2);
}

// ---- Hostile and broken files: ImportError naming the file and the problem ----

TEST_CASE("a missing file", "[gltf][errors]") {
    const std::string path = (tempDir() / "does-not-exist.gltf").string();
    CHECK_THAT(importError(path), Contains(path) && Contains("not found"));
}

TEST_CASE("malformed JSON", "[gltf][errors]") {
    const std::string path =
        writeFile("malformed.gltf", R"({"asset": {"version": "2.0"}, "meshes": [)");
    // tinygltf's own reason (nlohmann's parse error) is passed on.
    CHECK_THAT(importError(path),
               Contains(path) && Contains("malformed JSON") && Contains("parse error"));
    const std::string glb = writeFile("truncated.glb", "glTF\x02");
    CHECK_THAT(importError(glb), Contains(glb) && Contains("cannot load the .glb"));
}

TEST_CASE("a primitive without POSITION", "[gltf][errors]") {
    Doc doc = triangle();
    replaceOnce(doc.meshes, R"({"POSITION": 0})", R"({"NORMAL": 0})");
    const std::string path = writeDoc("noposition.gltf", doc);
    CHECK_THAT(importError(path), Contains(path) && Contains("mesh 'tri' primitive 0") &&
                                      Contains("no POSITION"));
}

TEST_CASE("an index past the vertex count", "[gltf][errors]") {
    Doc doc = triangle();
    doc.buffer.bytes.resize(36);
    doc.buffer.add<std::uint16_t>({0, 1, 3});
    const std::string path = writeDoc("badindex.gltf", doc);
    CHECK_THAT(importError(path), Contains(path) && Contains("mesh 'tri' primitive 0") &&
                                      Contains("index 2 is 3, past the vertex count 3"));
}

TEST_CASE("accessors that run past their buffer view or buffer", "[gltf][errors]") {
    SECTION("count too large for the view") {
        Doc doc = triangle();
        replaceOnce(doc.accessors, R"("count": 3, "type": "VEC3")",
                    R"("count": 4, "type": "VEC3")");
        const std::string path = writeDoc("pastview.gltf", doc);
        CHECK_THAT(importError(path),
                   Contains(path) && Contains("accessor 0 (POSITION) runs past its buffer view") &&
                       Contains("needs 48 bytes, view has 36"));
    }
    SECTION("byteOffset pushes the last element out") {
        Doc doc = triangle();
        replaceOnce(doc.accessors, R"({"bufferView": 0, )",
                    R"({"bufferView": 0, "byteOffset": 4, )");
        const std::string path = writeDoc("pastoffset.gltf", doc);
        CHECK_THAT(importError(path), Contains(path) && Contains("runs past its buffer view"));
    }
    SECTION("a stride that walks off the view") {
        Doc doc = triangle();
        replaceOnce(doc.bufferViews, R"("byteLength": 36})",
                    R"("byteLength": 36, "byteStride": 16})");
        const std::string path = writeDoc("paststride.gltf", doc);
        CHECK_THAT(importError(path), Contains(path) && Contains("needs 44 bytes, view has 36"));
    }
    SECTION("the view itself runs past the buffer") {
        Doc doc = triangle();
        replaceOnce(doc.bufferViews, R"("byteOffset": 36, "byteLength": 6)",
                    R"("byteOffset": 40, "byteLength": 6)");
        const std::string path = writeDoc("pastbuffer.gltf", doc);
        CHECK_THAT(importError(path), Contains(path) && Contains("runs past its buffer 0"));
    }
    SECTION("a view index out of range") {
        Doc doc = triangle();
        replaceOnce(doc.accessors, R"({"bufferView": 1, )", R"({"bufferView": 9, )");
        const std::string path = writeDoc("badview.gltf", doc);
        // tinygltf itself rejects an index accessor with a bad view; either way, an ImportError.
        CHECK_THAT(importError(path), Contains(path));
    }
}

TEST_CASE("component types the spec does not allow", "[gltf][errors]") {
    SECTION("POSITION as unsigned short") {
        Doc doc = triangle();
        replaceOnce(doc.accessors, R"("componentType": 5126, "count": 3, "type": "VEC3")",
                    R"("componentType": 5123, "count": 3, "type": "VEC3")");
        const std::string path = writeDoc("posushort.gltf", doc);
        CHECK_THAT(importError(path), Contains(path) && Contains("(POSITION)") &&
                                          Contains("component type unsigned short (5123)"));
    }
    SECTION("indices as float") {
        Doc doc = triangle();
        replaceOnce(doc.accessors, R"("componentType": 5123)", R"("componentType": 5126)");
        const std::string path = writeDoc("indexfloat.gltf", doc);
        CHECK_THAT(importError(path), Contains(path) && Contains("(indices)") &&
                                          Contains("component type float (5126)"));
    }
    SECTION("TEXCOORD_0 as unsigned byte that is not normalized") {
        Doc doc = triangle();
        replaceOnce(doc.meshes, R"({"POSITION": 0})", R"({"POSITION": 0, "TEXCOORD_0": 2})");
        replaceOnce(doc.accessors, R"("type": "SCALAR"})",
                    R"("type": "SCALAR"}, {"componentType": 5121, "count": 3, "type": "VEC2"})");
        const std::string path = writeDoc("uvbyte.gltf", doc);
        CHECK_THAT(importError(path), Contains(path) && Contains("(TEXCOORD_0)") &&
                                          Contains("unsigned byte (5121)"));
    }
}

TEST_CASE("counts above the import limits", "[gltf][errors]") {
    SECTION("an absurd accessor count") {
        Doc doc = triangle();
        replaceOnce(doc.accessors, R"("count": 3, "type": "VEC3")",
                    R"("count": 4000000000, "type": "VEC3")");
        const std::string path = writeDoc("absurd.gltf", doc);
        CHECK_THAT(importError(path), Contains(path) && Contains("4000000000") &&
                                          Contains("above the limit"));
    }
    SECTION("a count whose byte size overflows 64 bits is caught, not wrapped") {
        ImportOptions options;
        options.maxVertices = ~std::uint64_t{0};
        Doc doc = triangle();
        replaceOnce(doc.accessors, R"("count": 3, "type": "VEC3")",
                    R"("count": 2000000000000000000, "type": "VEC3")");
        const std::string path = writeDoc("overflow.gltf", doc);
        CHECK_THAT(importError(path, options),
                   Contains(path) && Contains("runs past its buffer view") &&
                       Contains("more than 2^64"));
    }
    SECTION("options.maxIndices") {
        ImportOptions options;
        options.maxIndices = 2;
        const std::string path = writeDoc("maxindices.gltf", triangle());
        CHECK_THAT(importError(path, options), Contains(path) && Contains("maxIndices"));
    }
}

TEST_CASE("other structural errors", "[gltf][errors]") {
    SECTION("a node cycle") {
        Doc doc = triangle();
        doc.nodes = R"([{"mesh": 0, "children": [1]}, {"children": [0]}])";
        const std::string path = writeDoc("cycle.gltf", doc);
        CHECK_THAT(importError(path), Contains(path) && Contains("reached twice"));
    }
    SECTION("a material index out of range") {
        Doc doc = triangle();
        replaceOnce(doc.meshes, R"("indices": 1)", R"("indices": 1, "material": 4)");
        const std::string path = writeDoc("badmaterial.gltf", doc);
        CHECK_THAT(importError(path), Contains(path) && Contains("material 4 is out of range"));
    }
    SECTION("an unsupported required extension") {
        Doc doc = triangle();
        doc.extra = R"("extensionsUsed": ["KHR_materials_variants"],
                       "extensionsRequired": ["KHR_materials_variants"], )";
        const std::string path = writeDoc("required.gltf", doc);
        CHECK_THAT(importError(path), Contains(path) && Contains("KHR_materials_variants"));
    }
#if !MYRIAD_TEST_DRACO
    SECTION("KHR_draco_mesh_compression required, in a build without Draco (MYRIAD_DRACO OFF)") {
        Doc doc = triangle();
        doc.extra = R"("extensionsUsed": ["KHR_draco_mesh_compression"],
                       "extensionsRequired": ["KHR_draco_mesh_compression"], )";
        const std::string path = writeDoc("required-draco.gltf", doc);
        CHECK_THAT(importError(path), Contains(path) && Contains("KHR_draco_mesh_compression"));
    }
#endif
    SECTION("a missing external image") {
        Doc doc = triangle();
        replaceOnce(doc.meshes, R"("indices": 1)", R"("indices": 1, "material": 0)");
        doc.extra = R"("materials": [{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}],
                       "textures": [{"source": 0}], "images": [{"uri": "nowhere.png"}], )";
        LogCapture quiet;  // tinygltf's own warning about the file goes to the log
        const std::string path = writeDoc("noimage.gltf", doc);
        CHECK_THAT(importError(path),
                   Contains(path) && Contains("nowhere.png") && Contains("missing"));
    }
    SECTION("a corrupt embedded image") {
        Doc doc = triangle();
        replaceOnce(doc.meshes, R"("indices": 1)", R"("indices": 1, "material": 0)");
        doc.extra = R"("materials": [{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}],
                       "textures": [{"source": 0}],
                       "images": [{"uri": "data:image/png;base64,iVBORw0KGgoAAAAAAAAA"}], )";
        const std::string path = writeDoc("corruptimage.gltf", doc);
        CHECK_THAT(importError(path), Contains(path) && Contains("image 0"));
    }
    SECTION("attribute counts that differ") {
        Doc doc = triangle();
        replaceOnce(doc.meshes, R"({"POSITION": 0})", R"({"POSITION": 0, "NORMAL": 2})");
        replaceOnce(doc.accessors, R"("type": "SCALAR"})",
                    R"("type": "SCALAR"},
                       {"bufferView": 0, "componentType": 5126, "count": 2, "type": "VEC3"})");
        const std::string path = writeDoc("counts.gltf", doc);
        CHECK_THAT(importError(path), Contains(path) && Contains("(NORMAL) has 2 elements"));
    }
    SECTION("a NaN position (caught by MeshGeometry, rethrown as ImportError)") {
        Doc doc = triangle();
        const float nan = std::nanf("");
        std::memcpy(doc.buffer.bytes.data() + 12, &nan, sizeof nan);
        const std::string path = writeDoc("nan.gltf", doc);
        CHECK_THAT(importError(path), Contains(path) && Contains("NaN"));
    }
}
