// Models as games ship them (issue 26): shared assets run through gltfpack at test time, into
// the build folder, then imported and compared with the original within the quantization step.
// gltfpack reorders and deduplicates vertices, so the comparison is order-independent: every
// vertex of the packed model must lie near a vertex of the original (position, normal, uv and
// morph deltas together), every original vertex near a packed one, and the triangle count,
// surface area and bounds must agree.
//
// Without gltfpack a test is skipped, or fails under CI (support/Gltfpack.h).
#include "support/Gltfpack.h"
#include "support/MeshCompare.h"
#include "gltf/TestFiles.h"

#include "myriad/gltf/GltfImporter.h"
#include "myriad/util/Error.h"

#include <catch2/catch.hpp>

#include <glm/geometric.hpp>

#include <cstdio>
#include <fstream>
#include <iterator>
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

std::string asset(const std::string& relative) { return std::string(MYRIAD_ASSETS_DIR) + "/" + relative; }

/** gltfpack on @p input into the build folder (support/Gltfpack.h). */
std::string pack(const std::string& input, const std::string& output, const std::string& flags) {
    return myriad::test::gltfpack(input, output, flags);
}

/** importModel's primitives: already in model (world) space. */
FlatMesh flatModel(const std::string& path) {
    FlatMesh flat;
    for (const ImportedPrimitive& primitive : importModel(path).primitives) {
        addMesh(flat, primitive.mesh->data(), glm::mat4(1.0f), primitive.material.baseColorTransform);
    }
    return flat;
}

/** importScene's nodes with their world matrices applied; each instance of a batch too. */
FlatMesh flatScene(const std::string& path) {
    ImportedScene scene = importScene(path);
    FlatMesh flat;
    std::vector<const SceneNode*> stack{scene.root.get()};
    while (!stack.empty()) {
        const SceneNode* node = stack.back();
        stack.pop_back();
        for (std::size_t i = 0; i < node->childCount(); ++i) {
            stack.push_back(&node->child(i));
        }
        const auto* mesh = dynamic_cast<const MeshNode*>(node);
        if (mesh == nullptr) {
            continue;
        }
        const glm::mat4 world(node->worldMatrix());
        for (std::size_t p = 0; p < mesh->primitiveCount(); ++p) {
            const MeshData& data = mesh->primitiveMesh(p)->data();
            if (const auto* batch = dynamic_cast<const InstancedMeshNode*>(node)) {
                for (std::size_t i = 0; i < batch->count(); ++i) {
                    addMesh(flat, data, world * batch->readTransform(i), mesh->primitiveMaterial(p).baseColorTransform);
                }
            } else {
                addMesh(flat, data, world, mesh->primitiveMaterial(p).baseColorTransform);
            }
        }
    }
    return flat;
}

/** gltfpack's defaults: positions 14 bits over the largest extent (one scale for all axes),
 *  texture coordinates 12 bits over their extent, normals 8 bits. One step each, plus the
 *  float rounding of the arithmetic. */
MeshTolerance defaultSteps(const FlatMesh& original) {
    return {largestExtent(original) / 16383.0f + 1e-6f, 3.0f / 127.0f, largestUvExtent(original) / 4095.0f + 1e-5f};
}

/** A file with one small mesh (a tetrahedron) at ten nodes, each turned, moved and scaled
 *  (uniformly):
 *  what `gltfpack -mi` turns into one EXT_mesh_gpu_instancing node. */
std::string tenCopies() {
    Doc doc;
    doc.buffer.add<float>({0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1});
    doc.buffer.add<std::uint16_t>({0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3});
    doc.bufferViews = R"([{"buffer": 0, "byteOffset": 0, "byteLength": 48},
                          {"buffer": 0, "byteOffset": 48, "byteLength": 24}])";
    doc.accessors = R"([{"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3",
                         "min": [0, 0, 0], "max": [1, 1, 1]},
                        {"bufferView": 1, "componentType": 5123, "count": 12, "type": "SCALAR"}])";
    doc.meshes = R"([{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}])";
    std::string nodes = "[";
    std::string roots = "[";
    for (int i = 0; i < 10; ++i) {
        const double half = 0.15 * i;
        // Uniform scales: gltfpack 0.18 -mi folds a non-uniform scale under a rotation into
        // the instance's TRS with an error of several percent, which is not the importer's.
        const std::string scale = std::to_string(1.0 + 0.1 * i);
        nodes += std::string(i ? ", " : "") + "{\"mesh\": 0, \"translation\": [" + std::to_string(1.5 * i) +
                 ", " + std::to_string(0.25 * i) + ", " + std::to_string(-i) + "], \"rotation\": [0, " +
                 std::to_string(std::sin(half)) + ", 0, " + std::to_string(std::cos(half)) +
                 "], \"scale\": [" + scale + ", " + scale + ", " + scale + "]}";
        roots += std::string(i ? ", " : "") + std::to_string(i);
    }
    doc.nodes = nodes + "]";
    doc.scenes = "[{\"nodes\": " + roots + "]}]";
    return writeFile("ten-copies.gltf", doc.json());
}

}  // namespace

TEST_CASE("gltfpack: KHR_mesh_quantization and KHR_texture_transform", "[gltf][gltfpack]") {
    SECTION("BoxTextured: normalized byte normals, unsigned short positions, uvs with a transform") {
        const std::string in = asset("BoxTextured/BoxTextured.gltf");
        const FlatMesh original = flatModel(in);
        compareMeshes(original, flatModel(pack(in, "BoxTextured-q.glb", "")), defaultSteps(original));
        compareMeshes(original, flatScene(pack(in, "BoxTextured-q.gltf", "")), defaultSteps(original));
    }
    SECTION("Kenney grass: double sided, a texture transform with a zero scale") {
        const std::string in = asset("KenneyPlatformerKit/grass.glb");
        const FlatMesh original = flatModel(in);
        compareMeshes(original, flatModel(pack(in, "grass-q.glb", "")), defaultSteps(original));
    }
    SECTION("AnimatedMorphCube: quantized morph deltas (short positions, byte normals)") {
        const std::string in = asset("AnimatedMorphCube/AnimatedMorphCube.gltf");
        const FlatMesh original = flatModel(in);
        compareMeshes(original, flatModel(pack(in, "AnimatedMorphCube-q.glb", "")), defaultSteps(original));
        compareMeshes(original, flatScene(pack(in, "AnimatedMorphCube-q.gltf", "")), defaultSteps(original));
    }
    SECTION("positions at 16 bits, normalized (-vpn), normals at 16 bits") {
        const std::string in = asset("BoxTextured/BoxTextured.gltf");
        const FlatMesh original = flatModel(in);
        MeshTolerance t = defaultSteps(original);
        t.normal = 3.0f / 32767.0f + 1e-5f;
        compareMeshes(original, flatModel(pack(in, "BoxTextured-q16.glb", "-vp 16 -vpn -vn 16")), t);
    }
}

TEST_CASE("gltfpack -mi: EXT_mesh_gpu_instancing over quantized positions", "[gltf][gltfpack]") {
    const std::string in = tenCopies();
    const FlatMesh original = flatModel(in);
    const std::string packed = pack(in, "ten-copies-mi.gltf", "-mi");
    const ImportedScene scene = importScene(packed);
    REQUIRE(scene.instancing.size() == 1);
    CHECK(scene.instancing[0].batches.at(0)->count() == 10);
    MeshTolerance t = defaultSteps(original);
    t.position *= 4.0f;  // the instance scale (up to 1.9) and the 16-bit rotations widen it
    compareMeshes(original, flatScene(packed), t);
}

TEST_CASE("gltfpack -cc: EXT_meshopt_compression", "[gltf][gltfpack][meshopt]") {
    SECTION("Kenney grass .glb: ATTRIBUTES, OCTAHEDRAL normals, TRIANGLES, a fallback buffer") {
        const std::string in = asset("KenneyPlatformerKit/grass.glb");
        const FlatMesh original = flatModel(in);
        compareMeshes(original, flatModel(pack(in, "grass-cc.glb", "-cc")), defaultSteps(original));
    }
    SECTION("AnimatedMorphCube .gltf: compressed morph deltas and animation data") {
        const std::string in = asset("AnimatedMorphCube/AnimatedMorphCube.gltf");
        const FlatMesh original = flatModel(in);
        const std::string packed = pack(in, "AnimatedMorphCube-cc.gltf", "-cc");
        compareMeshes(original, flatModel(packed), defaultSteps(original));
        CHECK(importModel(packed).morphAnimations.size() == importModel(in).morphAnimations.size());
    }
    SECTION("BoxTextured with -cf: the fallback buffer has data; the decoded views are used") {
        const std::string in = asset("BoxTextured/BoxTextured.gltf");
        const FlatMesh original = flatModel(in);
        compareMeshes(original, flatScene(pack(in, "BoxTextured-cf.gltf", "-cf")), defaultSteps(original));
    }
    SECTION("-mi -cc: QUATERNION rotations and EXPONENTIAL translations and scales") {
        const std::string in = tenCopies();
        const FlatMesh original = flatModel(in);
        MeshTolerance t = defaultSteps(original);
        t.position *= 4.0f;
        compareMeshes(original, flatScene(pack(in, "ten-copies-mi-cc.gltf", "-mi -cc")), t);
    }
}

TEST_CASE("gltfpack -cc: broken EXT_meshopt_compression views are refused by name",
          "[gltf][gltfpack][meshopt][errors]") {
    const std::string packed = pack(asset("KenneyPlatformerKit/grass.glb"), "grass-cc.gltf", "-cc");
    std::ifstream file(packed);
    const std::string json((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    // Copies the .gltf (its .bin beside it keeps its name) with one edit.
    auto broken = [&](const std::string& name, const std::string& from, const std::string& to) {
        std::string text = json;
        const std::size_t at = text.find(from);
        REQUIRE(at != std::string::npos);
        text.replace(at, from.size(), to);
        const std::string path = std::string(MYRIAD_GLTFPACK_OUT) + "/" + name;
        std::ofstream(path) << text;
        return path;
    };
    auto error = [](const std::string& path) {
        try {
            (void)importModel(path);
        } catch (const ImportError& e) {
            return std::string(e.what());
        }
        return std::string("imported");
    };
    using Catch::Matchers::Contains;
    // gltfpack writes the first vertex view as {"buffer":1,"byteOffset":0,"byteLength":384,
    // "byteStride":8, ... "EXT_meshopt_compression":{"buffer":0,"byteOffset":0,
    // "byteLength":N,"byteStride":8,"mode":"ATTRIBUTES","count":48}}.
    const std::string stride = R"("byteStride":8,"mode":"ATTRIBUTES","count":48)";
    REQUIRE(json.find(stride) != std::string::npos);
    CHECK_THAT(error(broken("cc-stride.gltf", stride, R"("byteStride":12,"mode":"ATTRIBUTES","count":48)")),
               Contains("buffer view 0 (EXT_meshopt_compression): byteStride 12 differs"));
    CHECK_THAT(error(broken("cc-count.gltf", stride, R"("byteStride":8,"mode":"ATTRIBUTES","count":1073741823)")),
               Contains("buffer view 0 (EXT_meshopt_compression): count 1073741823 x byteStride 8"));
    CHECK_THAT(error(broken("cc-mode.gltf", stride, R"("byteStride":8,"mode":"TRIANGLES","count":48)")),
               Contains("byteStride 8 is not 2 or 4 (mode TRIANGLES)"));
    CHECK_THAT(error(broken("cc-filter.gltf", stride, R"("byteStride":8,"mode":"ATTRIBUTES","filter":"CUBIC","count":48)")),
               Contains("filter 'CUBIC' is not"));
    const std::string source = R"("EXT_meshopt_compression":{"buffer":0,"byteOffset":0,)";
    REQUIRE(json.find(source) != std::string::npos);
    CHECK_THAT(error(broken("cc-past.gltf", source, R"("EXT_meshopt_compression":{"buffer":0,"byteOffset":1000000,)")),
               Contains("buffer view 0 (EXT_meshopt_compression): the compressed range") &&
                   Contains("runs past buffer 0"));
    CHECK_THAT(error(broken("cc-placeholder.gltf", source, R"("EXT_meshopt_compression":{"buffer":1,"byteOffset":0,)")),
               Contains("buffer 1 has no data"));
    // Start the compressed bytes one byte late: the header byte is wrong, the decoder refuses.
    CHECK_THAT(error(broken("cc-corrupt.gltf", source, R"("EXT_meshopt_compression":{"buffer":0,"byteOffset":1,)")),
               Contains("buffer view 0 (EXT_meshopt_compression): meshopt_decodeVertexBuffer failed"));
}
