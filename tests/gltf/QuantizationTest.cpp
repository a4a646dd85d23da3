// KHR_mesh_quantization and KHR_texture_transform on hand-written files: every component type
// the extension allows, each with values worked out by hand from glTF 2.0's normalization
// rules (3.11: signed f = max(c / (2^(b-1) - 1), -1), unsigned f = c / (2^b - 1)).
#include "gltf/TestFiles.h"

#include "myriad/gltf/GltfImporter.h"
#include "myriad/util/Error.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <string>

using namespace myriad;
using namespace myriad::gltf;
using namespace myriad::test::gltf;
using Catch::Matchers::Contains;

namespace {

constexpr const char* kUsesQuantization = R"("extensionsUsed": ["KHR_mesh_quantization"], )"
                                          R"("extensionsRequired": ["KHR_mesh_quantization"], )";

/** A triangle whose POSITION is three VEC3 of type T (component type @p componentType,
 *  normalized or not) at a node with @p node's members (e.g. a scale), plus 16-bit indices. */
template <class T>
Doc quantizedTriangle(std::initializer_list<T> position, int componentType, bool normalized,
                      const std::string& node = "") {
    REQUIRE(position.size() == 9);
    Doc doc;
    doc.extra = kUsesQuantization;
    // 3.6.2.4: each vertex attribute element starts 4-byte aligned, so the stride is 4 or 8.
    const std::size_t stride = (3 * sizeof(T) + 3) / 4 * 4;
    doc.buffer.bytes.assign(3 * stride, 0);
    for (std::size_t i = 0; i < 3; ++i) {
        std::memcpy(doc.buffer.bytes.data() + i * stride, std::data(position) + 3 * i, 3 * sizeof(T));
    }
    const std::size_t indexOffset = doc.buffer.add<std::uint16_t>({0, 1, 2});
    doc.bufferViews = R"([{"buffer": 0, "byteOffset": 0, "byteLength": )" +
                      std::to_string(3 * stride) + R"(, "byteStride": )" + std::to_string(stride) +
                      R"(}, {"buffer": 0, "byteOffset": )" + std::to_string(indexOffset) +
                      R"(, "byteLength": 6}])";
    doc.accessors = R"([{"bufferView": 0, "componentType": )" + std::to_string(componentType) +
                    R"(, "normalized": )" + (normalized ? "true" : "false") +
                    R"(, "count": 3, "type": "VEC3"},
                        {"bufferView": 1, "componentType": 5123, "count": 3, "type": "SCALAR"}])";
    doc.meshes = R"([{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}])";
    doc.nodes = "[{\"mesh\": 0" + (node.empty() ? std::string() : ", " + node) + "}]";
    return doc;
}

std::vector<glm::vec3> positionsOf(const std::string& path) {
    const ImportedModel model = importModel(path);
    REQUIRE(model.primitives.size() == 1);
    return model.primitives[0].mesh->data().positions;
}

bool near(const glm::vec3& a, const glm::vec3& b, float eps = 1e-6f) {
    return glm::all(glm::lessThanEqual(glm::abs(a - b), glm::vec3(eps)));
}
bool near(const glm::vec2& a, const glm::vec2& b, float eps = 1e-6f) {
    return glm::all(glm::lessThanEqual(glm::abs(a - b), glm::vec2(eps)));
}

}  // namespace

TEST_CASE("KHR_mesh_quantization: positions of every component type", "[gltf][quantization]") {
    SECTION("normalized short: 32767 -> 1, -32768 and -32767 -> -1, 16384 -> 16384/32767") {
        const auto p = positionsOf(writeDoc("q-short-norm.gltf",
            quantizedTriangle<std::int16_t>({32767, 0, 0, 0, -32768, 0, -32767, 0, 16384}, 5122, true)));
        CHECK(near(p[0], {1, 0, 0}));
        CHECK(near(p[1], {0, -1, 0}));
        CHECK(near(p[2], {-1, 0, 16384.0f / 32767.0f}));
    }
    SECTION("normalized unsigned short with the node scale: 65535 -> 1 x 4") {
        const auto p = positionsOf(writeDoc("q-ushort-norm.gltf",
            quantizedTriangle<std::uint16_t>({65535, 0, 0, 0, 65535, 0, 0, 0, 32768}, 5123, true,
                                             R"("scale": [4, 4, 4])")));
        CHECK(near(p[0], {4, 0, 0}));
        CHECK(near(p[1], {0, 4, 0}));
        CHECK(near(p[2], {0, 0, 4.0f * 32768.0f / 65535.0f}));
    }
    SECTION("unsigned short, not normalized: 1000 -> 1000, times the node scale 0.001") {
        const auto p = positionsOf(writeDoc("q-ushort.gltf",
            quantizedTriangle<std::uint16_t>({1000, 0, 0, 0, 1000, 0, 0, 0, 65535}, 5123, false,
                                             R"("scale": [0.001, 0.001, 0.001], "translation": [1, 2, 3])")));
        CHECK(near(p[0], {2, 2, 3}, 1e-5f));
        CHECK(near(p[1], {1, 3, 3}, 1e-5f));
        CHECK(near(p[2], {1, 2, 3 + 65.535f}, 1e-4f));
    }
    SECTION("short, not normalized: -32768 -> -32768") {
        const auto p = positionsOf(writeDoc("q-short.gltf",
            quantizedTriangle<std::int16_t>({-32768, 0, 0, 0, 32767, 0, 0, 0, 7}, 5122, false)));
        CHECK(near(p[0], {-32768, 0, 0}));
        CHECK(near(p[1], {0, 32767, 0}));
        CHECK(near(p[2], {0, 0, 7}));
    }
    SECTION("normalized unsigned byte: 255 -> 1, 51 -> 0.2") {
        const auto p = positionsOf(writeDoc("q-ubyte-norm.gltf",
            quantizedTriangle<std::uint8_t>({255, 0, 0, 0, 51, 0, 0, 0, 255}, 5121, true)));
        CHECK(near(p[0], {1, 0, 0}));
        CHECK(near(p[1], {0, 0.2f, 0}));
        CHECK(near(p[2], {0, 0, 1}));
    }
    SECTION("unsigned byte, not normalized: 200 -> 200") {
        const auto p = positionsOf(writeDoc("q-ubyte.gltf",
            quantizedTriangle<std::uint8_t>({200, 0, 0, 0, 1, 0, 0, 0, 255}, 5121, false)));
        CHECK(near(p[0], {200, 0, 0}));
        CHECK(near(p[2], {0, 0, 255}));
    }
    SECTION("normalized byte: 127 -> 1, -128 and -127 -> -1, 64 -> 64/127") {
        const auto p = positionsOf(writeDoc("q-byte-norm.gltf",
            quantizedTriangle<std::int8_t>({127, 0, 0, 0, -128, 0, -127, 0, 64}, 5120, true)));
        CHECK(near(p[0], {1, 0, 0}));
        CHECK(near(p[1], {0, -1, 0}));
        CHECK(near(p[2], {-1, 0, 64.0f / 127.0f}));
    }
    SECTION("byte, not normalized: -128 -> -128") {
        const auto p = positionsOf(writeDoc("q-byte.gltf",
            quantizedTriangle<std::int8_t>({-128, 0, 0, 0, 127, 0, 0, 0, 1}, 5120, false)));
        CHECK(near(p[0], {-128, 0, 0}));
        CHECK(near(p[1], {0, 127, 0}));
    }
    SECTION("bounds come from the dequantized values") {
        const ImportedModel model = importModel(writeDoc("q-bounds.gltf",
            quantizedTriangle<std::uint16_t>({1000, 0, 0, 0, 500, 0, 0, 0, 250}, 5123, false,
                                             R"("scale": [0.002, 0.002, 0.002])")));
        CHECK(near(model.bounds.min, {0, 0, 0}, 1e-6f));
        CHECK(near(model.bounds.max, {2, 1, 0.5f}, 1e-5f));
    }
    SECTION("importScene keeps the integers in mesh space and the scale on the node") {
        const ImportedScene scene = importScene(writeDoc("q-scene.gltf",
            quantizedTriangle<std::uint16_t>({1000, 0, 0, 0, 1000, 0, 0, 0, 1000}, 5123, false,
                                             R"("scale": [0.001, 0.001, 0.001])")));
        const auto* node = dynamic_cast<const MeshNode*>(&scene.root->child(0));
        REQUIRE(node != nullptr);
        CHECK(near(node->mesh()->data().positions[0], {1000, 0, 0}));
        const glm::vec4 world = node->worldMatrix() * glm::vec4(node->mesh()->data().positions[0], 1.0f);
        CHECK(near(glm::vec3(world), {1, 0, 0}, 1e-6f));
    }
}

TEST_CASE("KHR_mesh_quantization: integer types are refused without the extension",
          "[gltf][quantization][errors]") {
    Doc doc = quantizedTriangle<std::int16_t>({1, 0, 0, 0, 1, 0, 0, 0, 1}, 5122, true);
    doc.extra.clear();
    const std::string path = writeDoc("q-unlisted.gltf", doc);
    try {
        (void)importModel(path);
        FAIL("imported");
    } catch (const ImportError& e) {
        CHECK_THAT(e.what(), Contains(path) && Contains("(POSITION)") &&
                                 Contains("normalized short (5122)") &&
                                 Contains("KHR_mesh_quantization allows more integer types, but the "
                                          "file does not list it"));
    }
}

namespace {

/** A triangle with float POSITION (accessor 0), indices (1), and the attributes given as
 *  accessors 2..: NORMAL and TEXCOORD_0 of the given types, with a material whose base colour
 *  texture carries @p textureTransform (a JSON object, or empty for none). */
struct AttributeDoc {
    Doc doc = triangle();
    std::string attributes;
    int next = 2;

    template <class T>
    void add(const char* semantic, std::initializer_list<T> values, int componentType,
             bool normalized, const char* type, int components) {
        const std::size_t stride = (components * sizeof(T) + 3) / 4 * 4;
        std::vector<std::uint8_t> packed(3 * stride, 0);
        const T* v = std::data(values);
        for (int i = 0; i < 3; ++i) {
            std::memcpy(packed.data() + i * stride, v + i * components, components * sizeof(T));
        }
        while (doc.buffer.bytes.size() % 4 != 0) {
            doc.buffer.bytes.push_back(0);
        }
        const std::size_t offset = doc.buffer.bytes.size();
        doc.buffer.bytes.insert(doc.buffer.bytes.end(), packed.begin(), packed.end());
        doc.bufferViews.pop_back();
        doc.bufferViews += R"(, {"buffer": 0, "byteOffset": )" + std::to_string(offset) +
                           R"(, "byteLength": )" + std::to_string(packed.size()) +
                           R"(, "byteStride": )" + std::to_string(stride) + "}]";
        doc.accessors.pop_back();
        doc.accessors += R"(, {"bufferView": )" + std::to_string(next) +
                         R"(, "componentType": )" + std::to_string(componentType) +
                         R"(, "normalized": )" + (normalized ? "true" : "false") +
                         R"(, "count": 3, "type": ")" + type + "\"}]";
        attributes += std::string(", \"") + semantic + "\": " + std::to_string(next);
        ++next;
    }

    std::string write(const std::string& name, const std::string& textureTransform = "") {
        doc.extra = std::string(R"("extensionsUsed": ["KHR_mesh_quantization", "KHR_texture_transform"], )") +
                    R"("materials": [{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0)" +
                    (textureTransform.empty() ? std::string()
                                              : R"(, "extensions": {"KHR_texture_transform": )" +
                                                    textureTransform + "}") +
                    R"(}}}], "textures": [{}], )";
        doc.meshes = R"([{"primitives": [{"attributes": {"POSITION": 0)" + attributes +
                     R"(}, "indices": 1, "material": 0}]}])";
        return writeDoc(name, doc);
    }
};

MeshData importedData(const std::string& path) {
    LogCapture log;  // the texture without a source warns; not what is tested here
    const ImportedModel model = importModel(path);
    REQUIRE(model.primitives.size() == 1);
    return model.primitives[0].mesh->data();
}

}  // namespace

TEST_CASE("KHR_mesh_quantization: normals and texture coordinates", "[gltf][quantization]") {
    SECTION("NORMAL as normalized byte: 127 -> 1, -128 -> -1") {
        AttributeDoc a;
        a.add<std::int8_t>("NORMAL", {127, 0, 0, 0, -128, 0, 0, 0, 127}, 5120, true, "VEC3", 3);
        const MeshData data = importedData(a.write("q-normal-byte.gltf"));
        CHECK(near(data.normals[0], {1, 0, 0}));
        CHECK(near(data.normals[1], {0, -1, 0}));
        CHECK(near(data.normals[2], {0, 0, 1}));
    }
    SECTION("NORMAL as normalized short: -32767 -> -1") {
        AttributeDoc a;
        a.add<std::int16_t>("NORMAL", {0, 0, -32767, 32767, 0, 0, 0, 32767, 0}, 5122, true, "VEC3", 3);
        const MeshData data = importedData(a.write("q-normal-short.gltf"));
        CHECK(near(data.normals[0], {0, 0, -1}));
        CHECK(near(data.normals[1], {1, 0, 0}));
    }
    SECTION("NORMAL as a plain (not normalized) byte is refused: the extension allows none") {
        AttributeDoc a;
        a.add<std::int8_t>("NORMAL", {1, 0, 0, 0, 1, 0, 0, 0, 1}, 5120, false, "VEC3", 3);
        const std::string path = a.write("q-normal-plain.gltf");
        CHECK_THROWS_WITH(importModel(path), Contains("(NORMAL)") && Contains("normalized byte"));
    }
    SECTION("TEXCOORD_0 of each integer type, without a transform") {
        AttributeDoc a;
        a.add<std::uint16_t>("TEXCOORD_0", {65535, 0, 32768, 65535, 0, 1}, 5123, true, "VEC2", 2);
        CHECK(near(importedData(a.write("q-uv-ushort-norm.gltf")).uv0[0], {1, 0}));
        AttributeDoc b;
        b.add<std::uint8_t>("TEXCOORD_0", {3, 255, 0, 0, 0, 0}, 5121, false, "VEC2", 2);
        CHECK(near(importedData(b.write("q-uv-ubyte.gltf")).uv0[0], {3, 255}));
        AttributeDoc c;
        c.add<std::int16_t>("TEXCOORD_0", {-32768, 16384, 0, 0, 0, 0}, 5122, true, "VEC2", 2);
        CHECK(near(importedData(c.write("q-uv-short-norm.gltf")).uv0[0], {-1, 16384.0f / 32767.0f}));
        AttributeDoc d;
        d.add<std::int8_t>("TEXCOORD_0", {-5, 7, 0, 0, 0, 0}, 5120, false, "VEC2", 2);
        CHECK(near(importedData(d.write("q-uv-byte.gltf")).uv0[0], {-5, 7}));
    }
    SECTION("KHR_texture_transform: offset and scale, as gltfpack writes them, stay on the material") {
        // The coordinates keep their storage (UNorm16: 2 bytes a component, not float); the
        // shader applies the transform (Material::baseColorTransform, docs/gltf.md).
        AttributeDoc a;
        a.add<std::uint16_t>("TEXCOORD_0", {65535, 0, 0, 65535, 4095, 4095}, 5123, true, "VEC2", 2);
        LogCapture log;
        const ImportedModel model =
            importModel(a.write("q-uv-transform.gltf", R"({"offset": [0.5, 0.25], "scale": [2, 16]})"));
        const MeshData& data = model.primitives[0].mesh->data();
        CHECK(near(data.uv0[0], {1, 0}));
        CHECK(near(data.uv0[2], {4095.0f / 65535.0f, 4095.0f / 65535.0f}, 1e-5f));
        CHECK(data.encoding.uv0 == myriad::VertexStorage::UNorm16);
        const myriad::TextureTransform& transform = model.primitives[0].material.baseColorTransform;
        CHECK(transform.offset == glm::vec2(0.5f, 0.25f));
        CHECK(transform.scale == glm::vec2(2.0f, 16.0f));
        CHECK(transform.rotation == 0.0f);
    }
    SECTION("KHR_texture_transform: rotation read in radians") {
        AttributeDoc a;
        a.add<float>("TEXCOORD_0", {1, 0, 0, 1, 2, 3}, 5126, false, "VEC2", 2);
        LogCapture log;
        const ImportedModel model = importModel(a.write(
            "q-uv-rotation.gltf", R"({"offset": [10, 20], "rotation": 1.5707963267948966, "scale": [1, 2]})"));
        CHECK(near(model.primitives[0].mesh->data().uv0[0], {1, 0}));  // as stored
        const myriad::TextureTransform& transform = model.primitives[0].material.baseColorTransform;
        CHECK(transform.rotation == Approx(1.5707963267948966));
        CHECK(transform.offset == glm::vec2(10.0f, 20.0f));
        CHECK(transform.scale == glm::vec2(1.0f, 2.0f));
    }
    SECTION("KHR_texture_transform with a bad scale names the material") {
        AttributeDoc a;
        a.add<float>("TEXCOORD_0", {1, 0, 0, 1, 2, 3}, 5126, false, "VEC2", 2);
        const std::string path = a.write("q-uv-bad.gltf", R"({"scale": [1]})");
        CHECK_THROWS_WITH(importModel(path), Contains(path) && Contains("material 0: KHR_texture_transform") &&
                                                 Contains("scale is not an array of two numbers"));
    }
}

TEST_CASE("KHR_mesh_quantization: morph deltas and instance transforms", "[gltf][quantization]") {
    SECTION("POSITION deltas as plain bytes and NORMAL deltas as normalized shorts") {
        AttributeDoc a;
        a.add<std::int8_t>("POSITION", {5, 0, 0, 0, -3, 0, 0, 0, 127}, 5120, false, "VEC3", 3);
        a.add<std::int16_t>("NORMAL", {32767, 0, 0, 0, -32767, 0, 0, 0, 0}, 5122, true, "VEC3", 3);
        // Move the two accessors from the primitive's attributes to a morph target.
        const std::string target = "{" + a.attributes.substr(2) + "}";
        a.attributes.clear();
        (void)a.write("q-morph.gltf");
        Doc doc = a.doc;
        replaceOnce(doc.meshes, R"("indices": 1,)", R"("targets": [)" + target + R"(], "indices": 1,)");
        replaceOnce(doc.nodes, R"({"mesh": 0})", R"({"mesh": 0, "scale": [0.5, 0.5, 0.5]})");
        const std::string path = writeDoc("q-morph.gltf", doc);
        const MeshData data = importedData(path);
        REQUIRE(data.morphTargets.size() == 1);
        CHECK(near(data.morphTargets[0].positionDeltas[0], {2.5f, 0, 0}));
        CHECK(near(data.morphTargets[0].positionDeltas[1], {0, -1.5f, 0}));
        CHECK(near(data.morphTargets[0].positionDeltas[2], {0, 0, 63.5f}));
        CHECK(near(data.morphTargets[0].normalDeltas[0], {1, 0, 0}, 1e-5f));
        CHECK(near(data.morphTargets[0].normalDeltas[1], {0, -1, 0}, 1e-5f));
    }
    SECTION("EXT_mesh_gpu_instancing TRANSLATION as normalized short, SCALE as plain byte") {
        Doc doc = triangle();
        const std::size_t t = doc.buffer.add<std::int16_t>({32767, 0, -32768, 0, 0, 16384, 0, 0});
        const std::size_t s = doc.buffer.add<std::int8_t>({2, 2, 2, 0, 3, 1, 1, 0});
        doc.bufferViews = R"([{"buffer": 0, "byteOffset": 0, "byteLength": 36},
                              {"buffer": 0, "byteOffset": 36, "byteLength": 6},
                              {"buffer": 0, "byteOffset": )" + std::to_string(t) +
                          R"(, "byteLength": 16, "byteStride": 8},
                              {"buffer": 0, "byteOffset": )" + std::to_string(s) +
                          R"(, "byteLength": 8, "byteStride": 4}])";
        replaceOnce(doc.accessors, R"("type": "SCALAR"})",
                    R"("type": "SCALAR"},
                       {"bufferView": 2, "componentType": 5122, "normalized": true, "count": 2, "type": "VEC3"},
                       {"bufferView": 3, "componentType": 5120, "count": 2, "type": "VEC3"})");
        doc.nodes = R"([{"mesh": 0, "extensions": {"EXT_mesh_gpu_instancing": {"attributes":
                        {"TRANSLATION": 2, "SCALE": 3}}}}])";
        doc.extra = R"("extensionsUsed": ["KHR_mesh_quantization", "EXT_mesh_gpu_instancing"], )";
        const ImportedScene scene = importScene(writeDoc("q-instances.gltf", doc));
        REQUIRE(scene.instancing.size() == 1);
        const InstancedMeshNode& batch = *scene.instancing[0].batches.at(0);
        REQUIRE(batch.count() == 2);
        const glm::mat4 first = batch.readTransform(0);
        const glm::mat4 second = batch.readTransform(1);
        CHECK(near(glm::vec3(first[3]), {1, 0, -1}));
        CHECK(near(glm::vec3(first[0][0], first[1][1], first[2][2]), {2, 2, 2}));
        CHECK(near(glm::vec3(second[3]), {0, 16384.0f / 32767.0f, 0}));
        CHECK(near(glm::vec3(second[0][0], second[1][1], second[2][2]), {3, 1, 1}));
    }
}
