// KHR_draco_mesh_compression (issue 26). No Debian tool writes Draco glTF, so each input is
// made here: a mesh (a shared asset imported with myriad, or a myriad shape) is compressed with
// Draco's own encoder (TriangleSoupMeshBuilder + Encoder::EncodeMeshToBuffer) and wrapped in a
// hand-written .gltf whose accessors describe the decoded data (count, min/max), as the
// extension's implementation note asks of generators. The import is compared with the source
// within Draco's quantization step, order-independently (Draco reorders and deduplicates
// points): triangle count, surface area, bounds, every vertex near one of the other side.
// Then every broken input the importer must refuse, each by a message naming the primitive.
// Built only with MYRIAD_DRACO (tests/CMakeLists.txt).
#include "support/MeshCompare.h"
#include "gltf/TestFiles.h"

#include "myriad/core/Shapes.h"
#include "myriad/gltf/GltfImporter.h"
#include "myriad/util/Error.h"

#include <catch2/catch.hpp>

#include <draco/compression/decode.h>
#include <draco/compression/encode.h>
#include <draco/core/encoder_buffer.h>
#include <draco/mesh/triangle_soup_mesh_builder.h>

#include <glm/geometric.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

using namespace myriad;
using namespace myriad::gltf;
using namespace myriad::test::gltf;
using myriad::test::addMesh;
using myriad::test::compareMeshes;
using myriad::test::FlatMesh;
using myriad::test::largestExtent;
using myriad::test::largestUvExtent;
using myriad::test::MeshTolerance;
using myriad::test::MeshVertex;

namespace {

constexpr int kPositionBits = 14;
constexpr int kNormalBits = 10;
constexpr int kUvBits = 12;

std::string asset(const std::string& relative) { return std::string(MYRIAD_ASSETS_DIR) + "/" + relative; }

std::vector<std::uint32_t> indicesOf(const MeshData& data) {
    std::vector<std::uint32_t> indices(data.indices32.begin(), data.indices32.end());
    indices.insert(indices.end(), data.indices16.begin(), data.indices16.end());
    return indices;
}

/** A Draco bitstream of @p source and what the glTF around it needs to say. */
struct Compressed {
    std::vector<std::uint8_t> bytes;
    int positionId = -1, normalId = -1, uvId = -1;  ///< Draco unique ids; -1: not encoded
    std::uint32_t points = 0;
    std::uint32_t faces = 0;
    glm::vec3 min{0.0f}, max{0.0f};  ///< of the decoded positions (the accessor's min/max)
};

Compressed compress(const MeshData& source, bool normals, bool uv, int method) {
    const std::vector<std::uint32_t> indices = indicesOf(source);
    const int faces = static_cast<int>(indices.size() / 3);
    draco::TriangleSoupMeshBuilder builder;
    builder.Start(faces);
    const int position = builder.AddAttribute(draco::GeometryAttribute::POSITION, 3, draco::DT_FLOAT32);
    const int normal = normals ? builder.AddAttribute(draco::GeometryAttribute::NORMAL, 3, draco::DT_FLOAT32) : -1;
    const int texcoord = uv ? builder.AddAttribute(draco::GeometryAttribute::TEX_COORD, 2, draco::DT_FLOAT32) : -1;
    for (int f = 0; f < faces; ++f) {
        const std::uint32_t a = indices[3 * f], b = indices[3 * f + 1], c = indices[3 * f + 2];
        const draco::FaceIndex face(static_cast<std::uint32_t>(f));
        builder.SetAttributeValuesForFace(position, face, &source.positions[a], &source.positions[b],
                                          &source.positions[c]);
        if (normals) {
            builder.SetAttributeValuesForFace(normal, face, &source.normals[a], &source.normals[b],
                                              &source.normals[c]);
        }
        if (uv) {
            builder.SetAttributeValuesForFace(texcoord, face, &source.uv0[a], &source.uv0[b], &source.uv0[c]);
        }
    }
    std::unique_ptr<draco::Mesh> mesh = builder.Finalize();
    REQUIRE(mesh != nullptr);

    draco::Encoder encoder;
    encoder.SetAttributeQuantization(draco::GeometryAttribute::POSITION, kPositionBits);
    encoder.SetAttributeQuantization(draco::GeometryAttribute::NORMAL, kNormalBits);
    encoder.SetAttributeQuantization(draco::GeometryAttribute::TEX_COORD, kUvBits);
    encoder.SetEncodingMethod(method);
    draco::EncoderBuffer buffer;
    const draco::Status status = encoder.EncodeMeshToBuffer(*mesh, &buffer);
    INFO(status.error_msg_string());
    REQUIRE(status.ok());

    Compressed out;
    out.bytes.assign(buffer.data(), buffer.data() + buffer.size());
    out.positionId = static_cast<int>(mesh->attribute(position)->unique_id());
    out.normalId = normals ? static_cast<int>(mesh->attribute(normal)->unique_id()) : -1;
    out.uvId = uv ? static_cast<int>(mesh->attribute(texcoord)->unique_id()) : -1;

    // The decoded counts and bounds, for the accessors (Draco may change the point count).
    draco::DecoderBuffer in;
    in.Init(reinterpret_cast<const char*>(out.bytes.data()), out.bytes.size());
    draco::Decoder decoder;
    auto decoded = decoder.DecodeMeshFromBuffer(&in);
    REQUIRE(decoded.ok());
    const std::unique_ptr<draco::Mesh> back = std::move(decoded).value();
    out.points = back->num_points();
    out.faces = back->num_faces();
    const draco::PointAttribute* p = back->GetAttributeByUniqueId(static_cast<std::uint32_t>(out.positionId));
    REQUIRE(p != nullptr);
    out.min = glm::vec3(1e30f);
    out.max = glm::vec3(-1e30f);
    for (std::uint32_t i = 0; i < out.points; ++i) {
        glm::vec3 v(0.0f);
        REQUIRE(p->ConvertValue<float>(p->mapped_index(draco::PointIndex(i)), 3, &v.x));
        out.min = glm::min(out.min, v);
        out.max = glm::max(out.max, v);
    }
    return out;
}

std::string vec3(const glm::vec3& v) {
    std::ostringstream out;
    out.precision(9);
    out << "[" << v.x << ", " << v.y << ", " << v.z << "]";
    return out.str();
}

/** The .gltf around @p c: accessors 0 POSITION, 1 NORMAL, 2 TEXCOORD_0 (those encoded), then
 *  the indices (u16 or u32), none with a bufferView; buffer view 0 is the Draco bitstream. */
Doc dracoDoc(const Compressed& c, int indexType = 5125) {
    Doc doc;
    doc.buffer.bytes = c.bytes;
    doc.extra = R"("extensionsUsed": ["KHR_draco_mesh_compression"], )"
                R"("extensionsRequired": ["KHR_draco_mesh_compression"], )";
    doc.bufferViews = R"([{"buffer": 0, "byteOffset": 0, "byteLength": )" +
                      std::to_string(c.bytes.size()) + "}]";
    const std::string count = std::to_string(c.points);
    std::string accessors = R"([{"componentType": 5126, "count": )" + count +
                            R"(, "type": "VEC3", "min": )" + vec3(c.min) + R"(, "max": )" + vec3(c.max) + "}";
    std::string attributes = R"("POSITION": 0)";
    std::string ids = R"("POSITION": )" + std::to_string(c.positionId);
    int next = 1;
    if (c.normalId >= 0) {
        accessors += R"(, {"componentType": 5126, "count": )" + count + R"(, "type": "VEC3"})";
        attributes += R"(, "NORMAL": )" + std::to_string(next++);
        ids += R"(, "NORMAL": )" + std::to_string(c.normalId);
    }
    if (c.uvId >= 0) {
        accessors += R"(, {"componentType": 5126, "count": )" + count + R"(, "type": "VEC2"})";
        attributes += R"(, "TEXCOORD_0": )" + std::to_string(next++);
        ids += R"(, "TEXCOORD_0": )" + std::to_string(c.uvId);
    }
    accessors += R"(, {"componentType": )" + std::to_string(indexType) + R"(, "count": )" +
                 std::to_string(c.faces * 3) + R"(, "type": "SCALAR"}])";
    doc.accessors = accessors;
    doc.meshes = R"([{"name": "packed", "primitives": [{"attributes": {)" + attributes +
                 R"(}, "indices": )" + std::to_string(next) +
                 R"(, "extensions": {"KHR_draco_mesh_compression": {"bufferView": 0, "attributes": {)" +
                 ids + "}}}}]}]";
    return doc;
}

/** One quantization step of each attribute: Draco quantizes positions over the largest extent
 *  of the bounding box (one step = extent / (2^bits - 1), error at most half of it), texture
 *  coordinates likewise, normals octahedrally (a step of about 2 / (2^bits - 1) per
 *  component, twice that in length after renormalisation). */
MeshTolerance steps(const FlatMesh& source) {
    return {largestExtent(source) / float((1 << kPositionBits) - 1) + 1e-6f, 4.0f / float((1 << kNormalBits) - 1),
            largestUvExtent(source) / float((1 << kUvBits) - 1) + 1e-6f};
}

FlatMesh flatten(const MeshData& data) {
    FlatMesh flat;
    addMesh(flat, data);
    return flat;
}

MeshData boxTextured() {
    const ImportedModel model = importModel(asset("BoxTextured/BoxTextured.gltf"));
    REQUIRE(model.primitives.size() == 1);
    return model.primitives[0].mesh->data();
}

/** Imports @p doc, expecting an ImportError whose message has each of @p parts. */
void refused(const std::string& name, const Doc& doc, std::initializer_list<std::string> parts,
             const ImportOptions& options = {}) {
    const std::string path = writeDoc(name, doc);
    try {
        (void)importModel(path, options);
        FAIL("imported " << name << " without an error");
    } catch (const ImportError& e) {
        const std::string message = e.what();
        INFO(message);
        CHECK(message.find(path) == 0);
        CHECK(message.find("mesh 'packed' primitive 0") != std::string::npos);
        for (const std::string& part : parts) {
            CHECK(message.find(part) != std::string::npos);
        }
    }
}

}  // namespace

TEST_CASE("draco: BoxTextured compressed (edgebreaker) imports as the original within a quantization step",
          "[gltf][draco]") {
    const MeshData source = boxTextured();
    const Compressed c = compress(source, true, true, draco::MESH_EDGEBREAKER_ENCODING);
    const ImportedModel model = importModel(writeDoc("box-draco.gltf", dracoDoc(c, 5123)));
    REQUIRE(model.primitives.size() == 1);
    const MeshData& data = model.primitives[0].mesh->data();
    CHECK(data.positions.size() == c.points);
    CHECK(!data.indices16.empty());  // u16 indices accessor: 16-bit indices, as uncompressed
    const FlatMesh original = flatten(source);
    compareMeshes(original, flatten(data), steps(original));
}

TEST_CASE("draco: a uvSphere without normals (sequential, u32 indices) gets flat normals as an "
          "uncompressed one", "[gltf][draco]") {
    const MeshData source = shapes::uvSphere(2.0f, 24, 12);
    const Compressed c = compress(source, false, true, draco::MESH_SEQUENTIAL_ENCODING);
    const ImportedModel model = importModel(writeDoc("sphere-draco.gltf", dracoDoc(c)));
    REQUIRE(model.primitives.size() == 1);
    const MeshData& data = model.primitives[0].mesh->data();
    // No NORMAL: de-indexed, one flat normal per triangle (glTF 3.7.2.1), as without Draco.
    CHECK(data.positions.size() == c.faces * 3);
    FlatMesh original = flatten(source);
    FlatMesh imported = flatten(data);
    const MeshTolerance t = steps(original);
    for (MeshVertex& v : original.vertices) v.normal = glm::vec3(0.0f);
    for (MeshVertex& v : imported.vertices) v.normal = glm::vec3(0.0f);
    compareMeshes(original, imported, t);
    CHECK(model.bounds.min.x == Approx(-2.0f).margin(t.position));
    CHECK(model.bounds.max.y == Approx(2.0f).margin(t.position));

    const ImportedScene scene = importScene(writeDoc("sphere-draco-scene.gltf", dracoDoc(c)));
    CHECK(scene.root != nullptr);
}

TEST_CASE("draco: broken inputs are refused naming the primitive", "[gltf][draco]") {
    const MeshData source = boxTextured();
    const Compressed c = compress(source, true, true, draco::MESH_EDGEBREAKER_ENCODING);
    const std::string size = std::to_string(c.bytes.size());

    SECTION("the extension's bufferView out of range") {
        Doc doc = dracoDoc(c);
        replaceOnce(doc.meshes, R"("bufferView": 0)", R"("bufferView": 5)");
        refused("bad-view.gltf", doc, {"KHR_draco_mesh_compression", "buffer view 5 is out of range"});
    }
    SECTION("no bufferView") {
        Doc doc = dracoDoc(c);
        replaceOnce(doc.meshes, R"("bufferView": 0, )", "");
        refused("no-view.gltf", doc, {"KHR_draco_mesh_compression", "has no bufferView"});
    }
    SECTION("the compressed range past its buffer") {
        Doc doc = dracoDoc(c);
        replaceOnce(doc.bufferViews, R"("byteLength": )" + size, R"("byteLength": )" + size + "0");
        refused("past-buffer.gltf", doc, {"runs past its buffer"});
    }
    SECTION("corrupt or truncated bytes: the decoder fails") {
        Doc doc = dracoDoc(c);
        doc.buffer.bytes[0] = 'X';  // "DRACO" magic
        refused("bad-magic.gltf", doc, {"KHR_draco_mesh_compression", "Draco decoder failed"});
        Doc truncated = dracoDoc(c);
        replaceOnce(truncated.bufferViews, R"("byteLength": )" + size,
                    R"("byteLength": )" + std::to_string(c.bytes.size() / 2));
        refused("truncated.gltf", truncated, {"Draco decoder failed"});
    }
    SECTION("an attribute id that is not in the compressed data") {
        Doc doc = dracoDoc(c);
        replaceOnce(doc.meshes, R"("TEXCOORD_0": )" + std::to_string(c.uvId) + "}}",
                    R"("TEXCOORD_0": 9}})");
        refused("missing-id.gltf", doc, {"TEXCOORD_0 (Draco attribute 9) is not in the compressed data"});
    }
    SECTION("an extension attribute the primitive does not have") {
        Doc doc = dracoDoc(c);
        replaceOnce(doc.meshes, R"("bufferView": 0, "attributes": {"POSITION")",
                    R"("bufferView": 0, "attributes": {"COLOR_0": 7, "POSITION")");
        refused("extra-attribute.gltf", doc, {"COLOR_0 is not among the primitive's attributes"});
    }
    SECTION("component count not matching the accessor's type") {
        Doc doc = dracoDoc(c);
        replaceOnce(doc.accessors, R"("type": "VEC2")", R"("type": "VEC3")");
        refused("components.gltf", doc, {"TEXCOORD_0", "has 2 components, accessor 2 has 3"});
    }
    SECTION("point count not matching the accessor's count") {
        Doc doc = dracoDoc(c);
        replaceOnce(doc.accessors, R"("count": )" + std::to_string(c.points) + R"(, "type": "VEC3", "min")",
                    R"("count": )" + std::to_string(c.points + 1) + R"(, "type": "VEC3", "min")");
        refused("points.gltf", doc, {"POSITION", "points, accessor 0 has count " + std::to_string(c.points + 1)});
    }
    SECTION("triangle count not matching the indices accessor") {
        Doc doc = dracoDoc(c);
        replaceOnce(doc.accessors, R"("count": )" + std::to_string(c.faces * 3) + R"(, "type": "SCALAR")",
                    R"("count": )" + std::to_string(c.faces * 3 + 3) + R"(, "type": "SCALAR")");
        refused("faces.gltf", doc, {"triangles", "indices accessor 3 has count"});
    }
    SECTION("morph targets") {
        Doc doc = dracoDoc(c);
        replaceOnce(doc.meshes, R"("indices": 3)", R"("indices": 3, "targets": [{"POSITION": 0}])");
        refused("targets.gltf", doc, {"morph target", "not supported on a Draco-compressed primitive"});
    }
    SECTION("no indices accessor") {
        Doc doc = dracoDoc(c);
        replaceOnce(doc.meshes, R"(, "indices": 3)", "");
        refused("no-indices.gltf", doc, {"has no indices accessor"});
    }
    SECTION("no attributes object") {
        Doc doc = dracoDoc(c);
        replaceOnce(doc.meshes, R"("bufferView": 0, "attributes")", R"("bufferView": 0, "attributez")");
        refused("no-attributes.gltf", doc, {"has no attributes object"});
    }
    SECTION("more points than ImportOptions::maxVertices, refused before decoding") {
        ImportOptions options;
        options.maxVertices = c.points - 1;
        refused("limit.gltf", dracoDoc(c), {"ImportOptions::maxVertices"}, options);
    }
}

TEST_CASE("draco: a face index the indices' component type cannot hold is refused",
          "[gltf][draco]") {
    // 24 x 12 segments: more than 256 points, declared with unsigned byte indices.
    const Compressed c = compress(shapes::uvSphere(1.0f, 24, 12), false, false,
                                  draco::MESH_EDGEBREAKER_ENCODING);
    REQUIRE(c.points > 256);
    Doc doc = dracoDoc(c, 5121);
    refused("u8.gltf", doc, {"8-bit components cannot hold"});
}
