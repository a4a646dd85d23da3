// KHR_mesh_quantization uploaded as it is (issue 26): shared models run through gltfpack at test
// time draw the same picture from their 8- and 16-bit vertex buffers as from the same values
// widened to float, on both draw paths (a batch of its own call, and the table-driven multi-draw
// whose arena holds float vertices), and the packed copy is smaller by exactly what the layout says.
//
// Without gltfpack a test exits 77 (skipped), or fails under CI (CI or MYRIAD_CI set), as the
// gltf.gltfpack tests do.
#include "support/GlTest.h"

#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Scene.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/Renderer.h"
#include "myriad/gltf/GltfImporter.h"

#include <glm/gtc/matrix_transform.hpp>

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

using namespace myriad;
using namespace myriad::test;

namespace {

/** Runs gltfpack (default settings: 14-bit positions, 8-bit normals, 12-bit uvs) on @p relative
 *  under the shared assets; returns the written file's path. */
std::string packed(const std::string& relative, const std::string& output) {
    const std::string gltfpack = MYRIAD_GLTFPACK;
    if (gltfpack.empty()) {
        if (std::getenv("CI") != nullptr || std::getenv("MYRIAD_CI") != nullptr) {
            FAIL("gltfpack not found under CI; install the Debian package gltfpack (scripts/install-deps.sh)");
        }
        std::cout << "SKIPPED: gltfpack not found (Debian package gltfpack)\n";
        std::exit(77);
    }
    const std::string out = std::string(MYRIAD_GLTFPACK_OUT) + "/" + output;
    const std::string command = "'" + gltfpack + "' -i '" + std::string(MYRIAD_ASSETS_DIR) + "/" + relative +
                                "' -o '" + out + "' > '" + out + ".log' 2>&1";
    INFO(command);
    REQUIRE(std::system(command.c_str()) == 0);
    return out;
}

struct Piece {
    std::shared_ptr<const MeshGeometry> mesh;
    Material material;
    glm::mat4 world;
};

/** Every primitive of importScene(@p path) with its node's world matrix. */
std::vector<Piece> pieces(const std::string& path) {
    gltf::ImportedScene imported = gltf::importScene(path);
    std::vector<Piece> out;
    std::vector<const SceneNode*> stack{imported.root.get()};
    while (!stack.empty()) {
        const SceneNode* node = stack.back();
        stack.pop_back();
        for (std::size_t i = 0; i < node->childCount(); ++i) {
            stack.push_back(&node->child(i));
        }
        if (const auto* mesh = dynamic_cast<const MeshNode*>(node)) {
            for (std::size_t p = 0; p < mesh->primitiveCount(); ++p) {
                out.push_back({mesh->primitiveMesh(p), mesh->primitiveMaterial(p), node->worldMatrix()});
            }
        }
    }
    return out;
}

/** @p mesh with the same (already dequantized) values, every attribute stored Float32. */
std::shared_ptr<const MeshGeometry> widened(const MeshGeometry& mesh) {
    MeshData data = mesh.data();
    data.encoding = VertexEncoding{};
    return MeshGeometry::create(std::move(data), mesh.name() + "-float");
}

/** Fills @p scene with one batch of one instance per piece (its world matrix as the record),
 *  @p culling each. */
void fill(Scene& scene, const std::vector<Piece>& parts, bool widen, InstanceCulling culling) {
    scene.ambient = glm::vec3(0.35f);
    for (const Piece& piece : parts) {
        auto& batch = scene.root().emplace<InstancedMeshNode>(widen ? widened(*piece.mesh) : piece.mesh,
                                                              piece.material, 1);
        batch.addInstance(piece.world);
        batch.setInstanceCulling(culling);
    }
}

Aabb boundsOf(const std::vector<Piece>& parts) {
    Aabb bounds;
    for (const Piece& piece : parts) {
        bounds.extend(piece.mesh->localBounds().transformed(piece.world));
    }
    return bounds;
}

Camera framing(const Aabb& bounds) {
    const glm::vec3 centre = bounds.centre();
    const float radius = glm::length(bounds.halfExtent());
    Camera camera;
    camera.setPerspective(glm::radians(50.0f), 1.0f, radius * 0.05f, radius * 20.0f);
    camera.lookAt(centre + glm::normalize(glm::vec3(1.0f, 0.8f, 1.5f)) * radius * 2.2f, centre);
    return camera;
}

struct Drawn {
    Image image;
    std::uint64_t firstFrameBytes = 0;
    std::uint32_t multiDrawCalls = 0;
};

Drawn draw(const std::vector<Piece>& parts, bool widen, InstanceCulling culling, const Camera& camera) {
    Scene scene;
    fill(scene, parts, widen, culling);
    gl::Renderer renderer;  // fresh: the first frame uploads every mesh
    gl::OffscreenTarget target(128, 128, "quantized-target");
    renderer.render(scene, camera, target);
    Drawn drawn{target.readPixels(), renderer.lastFrameStats().bytesUploaded,
                renderer.lastFrameStats().multiDrawCalls};
    return drawn;
}

/** Largest difference of any channel between two images of one size, and how many pixels
 *  show something (not the black clear colour). */
struct Difference {
    int largest = 0;
    std::size_t covered = 0;
};

Difference compare(const Image& a, const Image& b) {
    Difference result;
    REQUIRE(a.width == b.width);
    REQUIRE(a.height == b.height);
    for (std::uint32_t y = 0; y < a.height; ++y) {
        for (std::uint32_t x = 0; x < a.width; ++x) {
            const std::uint8_t* p = a.pixel(x, y);
            const std::uint8_t* q = b.pixel(x, y);
            for (int c = 0; c < 3; ++c) {
                result.largest = std::max(result.largest, std::abs(int(p[c]) - int(q[c])));
            }
            result.covered += (p[0] | p[1] | p[2]) != 0 ? 1 : 0;
        }
    }
    return result;
}

void checkModel(const std::string& relative, const std::string& output) {
    context();
    const std::vector<Piece> parts = pieces(packed(relative, output));
    REQUIRE_FALSE(parts.empty());
    std::uint64_t saved = 0;  // bytes the packed vertex buffers save over float ones
    for (const Piece& piece : parts) {
        INFO(piece.mesh->name());
        // gltfpack's defaults: positions as unsigned shorts (scaled), normals as normalized bytes
        CHECK(piece.mesh->encoding().position == VertexStorage::UScaled16);
        CHECK(piece.mesh->encoding().normal == VertexStorage::SNorm8);
        // Float: 36 bytes (12 + 12 + 8, absent colours 4); packed: 24 (8 + 4 + float uvs 8, as
        // gltfpack's texture transform is baked into them, + 4).
        const std::uint32_t floatStride = widened(*piece.mesh)->vertexLayout().strideBytes;
        CHECK(floatStride == 36);
        CHECK(piece.mesh->vertexLayout().strideBytes == 24);
        saved += std::uint64_t{piece.mesh->vertexCount()} * (floatStride - piece.mesh->vertexLayout().strideBytes);
    }
    const Camera camera = framing(boundsOf(parts));

    SECTION("drawn by its own call (CPU culling per instance): integer attributes as they are") {
        const Drawn packedDraw = draw(parts, false, InstanceCulling::Cpu, camera);
        const Drawn floatDraw = draw(parts, true, InstanceCulling::Cpu, camera);
        const Difference difference = compare(packedDraw.image, floatDraw.image);
        CHECK(difference.covered > 128 * 128 / 20);  // the model fills a good part of the picture
        CHECK(difference.largest <= 1);
        CHECK(floatDraw.firstFrameBytes - packedDraw.firstFrameBytes == saved);
    }
    SECTION("drawn by the table-driven multi-draw: widened into the float arena") {
        const Drawn packedDraw = draw(parts, false, InstanceCulling::Off, camera);
        const Drawn floatDraw = draw(parts, true, InstanceCulling::Off, camera);
        CHECK(packedDraw.multiDrawCalls >= 1);
        const Difference difference = compare(packedDraw.image, floatDraw.image);
        CHECK(difference.covered > 128 * 128 / 20);
        CHECK(difference.largest <= 1);
    }
}

} // namespace

TEST_CASE("gltfpack output draws from its packed vertices as from float ones (BoxTextured)",
          "[gltf][gltfpack][pixels]") {
    checkModel("BoxTextured/BoxTextured.gltf", "gl-box-textured.glb");
}

TEST_CASE("gltfpack output draws from its packed vertices as from float ones (Kenney grass)",
          "[gltf][gltfpack][pixels]") {
    checkModel("KenneyPlatformerKit/grass.glb", "gl-grass.glb");
}
