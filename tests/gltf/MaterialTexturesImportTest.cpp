// glTF material textures on import (docs/gltf.md): metallic-roughness, normal, occlusion and
// emissive textures with their samplers, texCoord and KHR_texture_transform (base colour
// included), TEXCOORD_1 and TANGENT, tangents generated for a normal map when the file has none.
#include "gltf/TestFiles.h"
#include "myriad/core/Material.h"
#include "myriad/gltf/GltfImporter.h"
#include "myriad/util/Error.h"

#include <catch2/catch.hpp>

#include <string>

using Catch::Matchers::Contains;
using myriad::MagFilter;
using myriad::Material;
using myriad::MinFilter;
using myriad::gltf::importModel;
using namespace myriad::test::gltf;

namespace {

/** A 2x1 RGBA PNG (red, green with alpha 128), as in GltfImportTest.cpp. */
constexpr const char* kTinyPng = "iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAYAAAD0In+KAAAAD0lEQVR4nGP4z8Dw"
                                 "HwgbABB5A359Y87XAAAAAElFTkSuQmCC";

/** triangle() with TEXCOORD_0 (accessor 2), TEXCOORD_1 (3) and TANGENT (4): primitive 0 has
 *  them all, primitive 1 only POSITION and TEXCOORD_0; both draw @p material (a JSON object),
 *  five textures on the one image, texture 1 through a NEAREST sampler. */
Doc texturedDoc(const std::string& material) {
    Doc doc = triangle();
    const std::size_t uv0 = doc.buffer.add<float>({0, 1, 1, 1, 0, 0});
    const std::size_t uv1 = doc.buffer.add<float>({0.5f, 0.5f, 0.25f, 0.5f, 0.5f, 0.25f});
    const std::size_t tangent = doc.buffer.add<float>({0, 1, 0, -1, 0, 1, 0, -1, 0, 1, 0, -1});
    doc.bufferViews = R"([{"buffer": 0, "byteOffset": 0, "byteLength": 36},
                          {"buffer": 0, "byteOffset": 36, "byteLength": 6},
                          {"buffer": 0, "byteOffset": )" + std::to_string(uv0) + R"(, "byteLength": 24},
                          {"buffer": 0, "byteOffset": )" + std::to_string(uv1) + R"(, "byteLength": 24},
                          {"buffer": 0, "byteOffset": )" + std::to_string(tangent) + R"(, "byteLength": 48}])";
    doc.accessors = R"([{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
                         "min": [0, 0, 0], "max": [1, 1, 0]},
                        {"bufferView": 1, "componentType": 5123, "count": 3, "type": "SCALAR"},
                        {"bufferView": 2, "componentType": 5126, "count": 3, "type": "VEC2"},
                        {"bufferView": 3, "componentType": 5126, "count": 3, "type": "VEC2"},
                        {"bufferView": 4, "componentType": 5126, "count": 3, "type": "VEC4"}])";
    doc.meshes = R"([{"name": "tri", "primitives": [
        {"attributes": {"POSITION": 0, "TEXCOORD_0": 2, "TEXCOORD_1": 3, "TANGENT": 4}, "indices": 1, "material": 0},
        {"attributes": {"POSITION": 0, "TEXCOORD_0": 2}, "indices": 1, "material": 0}]}])";
    doc.extra = R"("extensionsUsed": ["KHR_texture_transform"], "materials": [)" + material +
                R"(], "textures": [{"source": 0}, {"source": 0, "sampler": 0}, {"source": 0}, {"source": 0},
                   {"source": 0}], "samplers": [{"magFilter": 9728, "minFilter": 9728}],
                   "images": [{"uri": "data:image/png;base64,)" + kTinyPng + R"("}],)";
    return doc;
}

const std::string kFullMaterial = R"({"pbrMetallicRoughness": {
        "baseColorTexture": {"index": 0, "extensions": {"KHR_texture_transform":
            {"offset": [0.5, -0.25], "rotation": 0.75, "scale": [2, 3], "texCoord": 1}}},
        "metallicRoughnessTexture": {"index": 1}, "metallicFactor": 1.0, "roughnessFactor": 0.5},
    "normalTexture": {"index": 2, "scale": 0.5, "texCoord": 1},
    "occlusionTexture": {"index": 3, "strength": 0.25},
    "emissiveTexture": {"index": 4, "extensions": {"KHR_texture_transform": {"scale": [4, 4]}}},
    "emissiveFactor": [1, 0.5, 0]})";

} // namespace

TEST_CASE("glTF material textures: every texture, its set, transform and sampler", "[gltf][textures]") {
    LogCapture log;
    const std::string path = writeDoc("material-textures.gltf", texturedDoc(kFullMaterial));
    const auto model = importModel(path);
    REQUIRE(model.primitives.size() == 2);
    const Material& m = model.primitives[0].material;
    REQUIRE(m.baseColorTexture != nullptr);
    CHECK(m.baseColorUvSet == 1);  // KHR_texture_transform's texCoord overrides the textureInfo's
    CHECK(m.baseColorTransform.offset == glm::vec2(0.5f, -0.25f));
    CHECK(m.baseColorTransform.rotation == 0.75f);
    CHECK(m.baseColorTransform.scale == glm::vec2(2.0f, 3.0f));
    REQUIRE(m.metallicRoughnessTexture);
    CHECK(m.metallicRoughnessTexture.image == m.baseColorTexture);  // one decoded image, shared
    CHECK(m.metallicRoughnessTexture.sampler.magFilter == MagFilter::Nearest);
    CHECK(m.metallicRoughnessTexture.sampler.minFilter == MinFilter::Nearest);
    CHECK(m.metallic == 1.0f);  // the file's factor: the texture is read now
    CHECK(m.roughness == 0.5f);
    REQUIRE(m.normalTexture);
    CHECK(m.normalTexture.uvSet == 1);
    CHECK(m.normalScale == 0.5f);
    REQUIRE(m.occlusionTexture);
    CHECK(m.occlusionTexture.uvSet == 0);
    CHECK(m.occlusionStrength == 0.25f);
    REQUIRE(m.emissiveTexture);
    CHECK(m.emissiveTexture.transform.scale == glm::vec2(4.0f));
    CHECK(m.emissiveTexture.transform.offset == glm::vec2(0.0f));
    CHECK(m.emissive == glm::vec3(1.0f, 0.5f, 0.0f));
    CHECK(m.hasMaterialTextures());
    for (const std::string& warning : log.warnings()) {
        CHECK_THAT(warning, !Contains("metallicRoughnessTexture") && !Contains("KHR_texture_transform"));
    }

    const myriad::MeshData& full = model.primitives[0].mesh->data();
    REQUIRE(full.uv1.size() == 3);
    CHECK(full.uv1[1] == glm::vec2(0.25f, 0.5f));
    CHECK(full.uv0[0] == glm::vec2(0.0f, 1.0f));  // the transform stays on the material
    REQUIRE(full.tangents.size() == 3);
    CHECK(full.tangents[0] == glm::vec4(0.0f, 1.0f, 0.0f, -1.0f));  // the file's, as given
    CHECK(model.primitives[0].mesh->vertexLayout().strideBytes == 48 + 8 + 16);

    // No TANGENT, a normal map: generated from uv0 (u grows along +x; v is 0 at (0, 1, 0), so
    // up the image is +y).
    const myriad::MeshData& generated = model.primitives[1].mesh->data();
    CHECK(generated.uv1.empty());
    REQUIRE(generated.tangents.size() == generated.positions.size());
    for (const glm::vec4& t : generated.tangents) {
        CHECK(t.x == Approx(1.0f));
        CHECK(t.y == Approx(0.0f).margin(1e-6));
        // Normal +z: cross(n, t) = +y, up the image, so the handedness is +1.
        CHECK(t.w == 1.0f);
    }
}

TEST_CASE("glTF material textures: a set past 1 is warned and read at 0, a bad transform names the slot", "[gltf][textures]") {
    SECTION("texCoord 2") {
        LogCapture log;
        const auto model = importModel(writeDoc("texcoord2.gltf", texturedDoc(
            R"({"occlusionTexture": {"index": 3, "texCoord": 2}})")));
        CHECK(model.primitives[0].material.occlusionTexture.uvSet == 0);
        bool warned = false;
        for (const std::string& warning : log.warnings()) {
            warned = warned || (warning.find("occlusionTexture") != std::string::npos &&
                                warning.find("TEXCOORD_2") != std::string::npos);
        }
        CHECK(warned);
    }
    SECTION("a rotation that is not a number") {
        const std::string path = writeDoc("bad-transform.gltf", texturedDoc(
            R"({"normalTexture": {"index": 2, "extensions": {"KHR_texture_transform": {"rotation": "x"}}}})"));
        CHECK_THROWS_WITH(importModel(path), Contains("material 0: KHR_texture_transform (normalTexture)") &&
                                                 Contains("rotation"));
    }
}
