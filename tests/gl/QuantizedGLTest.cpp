// KHR_mesh_quantization uploaded as it is (issue 26): shared models run through gltfpack at test
// time draw the same picture from their 8- and 16-bit vertex buffers as from the same values
// widened to float, on both draw paths (a batch of its own call, and the table-driven multi-draw
// from a vertex arena of the packed layout), and the packed copy is smaller by exactly what the
// layout says. Every VertexStorage of every attribute draws as its values say.
//
// Without gltfpack a test is skipped, or fails under CI (support/Gltfpack.h).
#include "support/GlTest.h"
#include "support/Gltfpack.h"

#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/Renderer.h"
#include "myriad/gltf/GltfImporter.h"

#include <glm/gtc/matrix_transform.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

using namespace myriad;
using namespace myriad::test;

namespace {

/** gltfpack (default: 14-bit positions, 8-bit normals, 12-bit uvs; or @p flags) on @p relative
 *  under the shared assets, into the build folder (support/Gltfpack.h). */
std::string packed(const std::string& relative, const std::string& output, const std::string& flags = "") {
    return gltfpack(std::string(MYRIAD_ASSETS_DIR) + "/" + relative, output, flags);
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
    std::size_t apart = 0;  ///< pixels with a channel more than 1 apart
};

Difference compare(const Image& a, const Image& b) {
    Difference result;
    REQUIRE(a.width == b.width);
    REQUIRE(a.height == b.height);
    for (std::uint32_t y = 0; y < a.height; ++y) {
        for (std::uint32_t x = 0; x < a.width; ++x) {
            const std::uint8_t* p = a.pixel(x, y);
            const std::uint8_t* q = b.pixel(x, y);
            int largest = 0;
            for (int c = 0; c < 3; ++c) {
                largest = std::max(largest, std::abs(int(p[c]) - int(q[c])));
            }
            result.largest = std::max(result.largest, largest);
            result.apart += largest > 1 ? 1 : 0;
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
        // Float: 48 bytes (12 + 12 + 8 + 16, absent colours as float white); packed: 20 (8 + 4 +
        // uvs as unsigned shorts 4, gltfpack's texture transform staying on the material, +
        // white in 4 bytes).
        const std::uint32_t floatStride = widened(*piece.mesh)->vertexLayout().strideBytes;
        CHECK(floatStride == 48);
        CHECK(piece.mesh->vertexLayout().strideBytes == 20);
        saved += std::uint64_t{piece.mesh->vertexCount()} * (floatStride - piece.mesh->vertexLayout().strideBytes);
    }
    const Camera camera = framing(boundsOf(parts), 2.2f);

    SECTION("drawn by its own call (CPU culling per instance): integer attributes as they are") {
        const Drawn packedDraw = draw(parts, false, InstanceCulling::Cpu, camera);
        const Drawn floatDraw = draw(parts, true, InstanceCulling::Cpu, camera);
        const Difference difference = compare(packedDraw.image, floatDraw.image);
        CHECK(difference.covered > 128 * 128 / 20);  // the model fills a good part of the picture
        CHECK(difference.largest <= 1);
        CHECK(floatDraw.firstFrameBytes - packedDraw.firstFrameBytes == saved);
    }
    SECTION("drawn by the table-driven multi-draw: from a vertex arena of the packed layout") {
        const Drawn packedDraw = draw(parts, false, InstanceCulling::Off, camera);
        const Drawn floatDraw = draw(parts, true, InstanceCulling::Off, camera);
        CHECK(packedDraw.multiDrawCalls >= 1);
        // The arena gets a GPU copy of the mesh's own buffer: nothing more is sent for it.
        CHECK(floatDraw.firstFrameBytes - packedDraw.firstFrameBytes == saved);
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

/** importScene of the original @p relative and of its gltfpack output (@p flags) drawn from
 *  one camera. */
Difference againstOriginal(const std::string& relative, const std::string& output, const std::string& flags) {
    const std::vector<Piece> original = pieces(std::string(MYRIAD_ASSETS_DIR) + "/" + relative);
    const std::vector<Piece> quantized = pieces(packed(relative, output, flags));
    REQUIRE(quantized.front().mesh->encoding().position == VertexStorage::UScaled16);
    const Camera camera = framing(boundsOf(original), 2.2f);
    return compare(draw(original, false, InstanceCulling::Off, camera).image,
                   draw(quantized, false, InstanceCulling::Off, camera).image);
}

TEST_CASE("gltfpack output draws the original's picture within one step where quantization loses nothing",
          "[gltf][gltfpack][pixels]") {
    context();
    SECTION("BoxVertexColors: corners on the 14-bit grid, axis-aligned normals, 8-bit colours") {
        const Difference difference =
            againstOriginal("BoxVertexColors/BoxVertexColors.gltf", "gl-box-colors-original.glb", "");
        INFO(difference.apart << " pixels apart of " << difference.covered);
        CHECK(difference.covered > 128 * 128 / 10);
        CHECK(difference.largest <= 1);
    }
    SECTION("BoxTextured: 16-bit texture coordinates; a texel edge may still fall on the other side") {
        // 12 bits (gltfpack's default) put 49 of about 9,000 pixels on the other side of a
        // texel edge of this texture, 16 bits 7: the coordinates move by up to half a step.
        const Difference difference =
            againstOriginal("BoxTextured/BoxTextured.gltf", "gl-box-original.glb", "-vt 16");
        INFO(difference.apart << " pixels apart of " << difference.covered);
        CHECK(difference.covered > 128 * 128 / 10);
        CHECK(difference.apart * 500 <= difference.covered);  // at most 0.2%
    }
}

TEST_CASE("gltfpack output draws from its packed vertices as from float ones (Kenney grass)",
          "[gltf][gltfpack][pixels]") {
    checkModel("KenneyPlatformerKit/grass.glb", "gl-grass.glb");
}

namespace {

/** A 0..1 quad's corner t (0..1 per axis) mapped into the middle half of @p storage's values:
 *  lo + (0.25 + 0.5 t) (hi - lo), an integer for a scaled storage. */
float intoStorage(float t, VertexStorage storage) {
    struct Range {
        float lo, hi;
        bool scaled;
    };
    const Range range = [&]() -> Range {
        switch (storage) {
        case VertexStorage::UNorm8:
        case VertexStorage::UNorm16: return {0.0f, 1.0f, false};
        case VertexStorage::SNorm8:
        case VertexStorage::SNorm16: return {-1.0f, 1.0f, false};
        case VertexStorage::UScaled8: return {0.0f, 255.0f, true};
        case VertexStorage::SScaled8: return {-128.0f, 127.0f, true};
        case VertexStorage::UScaled16: return {0.0f, 65535.0f, true};
        case VertexStorage::SScaled16: return {-32768.0f, 32767.0f, true};
        case VertexStorage::Float32: break;
        }
        return {-1.0f, 1.0f, false};
    }();
    const float value = range.lo + (0.25f + 0.5f * t) * (range.hi - range.lo);
    return range.scaled ? std::round(value) : value;
}

constexpr VertexStorage kEveryStorage[] = {
    VertexStorage::UNorm8,   VertexStorage::SNorm8,   VertexStorage::UNorm16,   VertexStorage::SNorm16,
    VertexStorage::UScaled8, VertexStorage::SScaled8, VertexStorage::UScaled16, VertexStorage::SScaled16,
};

/** A quad whose attribute @p which ("position", "normal", "uv0", "color") is stored as
 *  @p storage, its values spread over the storage's range (negative ones for signed storages);
 *  the record places it over x, y in [-0.5, 0.5] of orthoCamera(). */
struct PackedQuad {
    std::shared_ptr<const MeshGeometry> mesh;
    glm::mat4 record{1.0f};
};

PackedQuad packedQuad(const std::string& which, VertexStorage storage) {
    MeshData data;
    const glm::vec2 corners[4] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
    data.indices16 = {0, 1, 2, 0, 2, 3};
    // Normals that differ per corner and lean every way, so a wrong sign changes the light.
    data.normals = {glm::normalize(glm::vec3(-0.6f, -0.3f, 0.74f)), glm::normalize(glm::vec3(0.5f, -0.5f, 0.7f)),
                    glm::normalize(glm::vec3(-0.2f, 0.6f, 0.77f)), glm::normalize(glm::vec3(0.3f, 0.3f, 0.9f))};
    data.colors = {{1.0f, 0.2f, 0.1f, 1.0f}, {0.1f, 0.9f, 0.3f, 1.0f}, {0.2f, 0.3f, 1.0f, 1.0f}, {0.9f, 0.8f, 0.1f, 1.0f}};
    PackedQuad quad;
    for (const glm::vec2& t : corners) {
        data.positions.emplace_back(t - 0.5f, 0.0f);
        data.uv0.push_back(t);
    }
    if (which == "position") {
        data.encoding.position = storage;
        const float lo = intoStorage(0.0f, storage);
        const float hi = intoStorage(1.0f, storage);
        const float middle = intoStorage(0.5f, storage);
        for (std::size_t i = 0; i < 4; ++i) {
            data.positions[i] = glm::vec3(intoStorage(corners[i].x, storage), intoStorage(corners[i].y, storage), middle);
        }
        // [lo, hi] -> [-0.5, 0.5] on x and y, the middle value -> z = 0
        const float scale = 1.0f / (hi - lo);
        quad.record = glm::scale(glm::translate(glm::mat4(1.0f), glm::vec3(-0.5f - lo * scale, -0.5f - lo * scale,
                                                                             -middle * scale)),
                                 glm::vec3(scale));
    } else if (which == "normal") {
        data.encoding.normal = storage;
    } else if (which == "uv0") {
        data.encoding.uv0 = storage;
        for (std::size_t i = 0; i < 4; ++i) {
            data.uv0[i] = glm::vec2(intoStorage(corners[i].x, storage), intoStorage(corners[i].y, storage));
        }
    } else {
        data.encoding.color = storage;
    }
    quad.mesh = MeshGeometry::create(std::move(data), which + "-" + toString(storage));
    return quad;
}

/** An 8 x 8 checker of four colours, sampled nearest with repeat: any change of texture
 *  coordinate by a texel shows. */
std::shared_ptr<const Image> checker() {
    auto image = std::make_shared<Image>();
    image->width = 8;
    image->height = 8;
    for (std::uint32_t y = 0; y < 8; ++y) {
        for (std::uint32_t x = 0; x < 8; ++x) {
            const std::uint8_t r = (x * 37 + y * 11) % 256;
            const std::uint8_t g = (x * 90 + y * 53) % 256;
            image->pixels.insert(image->pixels.end(), {r, g, static_cast<std::uint8_t>((x ^ y) * 30), 255});
        }
    }
    return image;
}

Image drawQuad(const std::shared_ptr<const MeshGeometry>& mesh, const glm::mat4& record, const Material& material) {
    RenderFixture fixture;
    Scene scene;
    scene.ambient = glm::vec3(0.15f);
    scene.light.direction = glm::vec3(0.8f, 0.3f, -0.5f);
    auto& batch = scene.root().emplace<InstancedMeshNode>(mesh, material, 1);
    batch.addInstance(record);
    batch.setInstanceCulling(InstanceCulling::Cpu);  // its own vertex array: the packed buffer
    return fixture.render(scene);
}

} // namespace

TEST_CASE("every vertex storage draws as its values say: packed and float quads give one picture",
          "[gltf][pixels][encoding]") {
    // A wrong type, sign or normalized flag in the vertex format moves the quad (positions),
    // turns its light (normals: signs), samples other texels (uvs) or shifts its colours.
    context();
    Material textured;
    textured.baseColorTexture = checker();
    textured.sampler = TextureSampler::nearest();
    for (const std::string which : {"position", "normal", "uv0", "color"}) {
        for (VertexStorage storage : kEveryStorage) {
            if ((which == "normal" && storage != VertexStorage::SNorm8 && storage != VertexStorage::SNorm16) ||
                (which == "color" && storage != VertexStorage::UNorm8 && storage != VertexStorage::UNorm16)) {
                continue;
            }
            INFO(which << " stored " << toString(storage));
            const PackedQuad quad = packedQuad(which, storage);
            REQUIRE(quad.mesh->vertexLayout().strideBytes < 48);
            const Material& material = which == "uv0" ? textured : Material{};
            const Image packedImage = drawQuad(quad.mesh, quad.record, material);
            const Image floatImage = drawQuad(widened(*quad.mesh), quad.record, material);
            const Difference difference = compare(packedImage, floatImage);
            CHECK(difference.largest <= 1);
            CHECK(difference.covered >= 30 * 30);  // the quad covers the middle (32 x 32 pixels)
            CHECK(difference.covered <= 34 * 34);
        }
    }
}

TEST_CASE("a packed mesh and a float one on the table-driven path: one vertex arena each, both drawn",
          "[gltf][pixels][encoding]") {
    context();
    RenderFixture fixture;
    Scene scene;
    scene.ambient = glm::vec3(1.0f);
    const Material white = unlit(glm::vec4(1.0f));
    // Left: a float quad over x in [-0.9, -0.1]; right: one of UScaled16 positions over [0.1, 0.9].
    MeshData floatData = shapes::quad(0.8f, 0.8f);
    auto& left = scene.root().emplace<InstancedMeshNode>(MeshGeometry::create(floatData, "float-quad"), white, 1);
    left.addInstance(glm::translate(glm::mat4(1.0f), glm::vec3(-0.5f, 0.0f, 0.0f)));
    const PackedQuad packed = packedQuad("position", VertexStorage::UScaled16);
    auto& right = scene.root().emplace<InstancedMeshNode>(packed.mesh, white, 1);
    right.addInstance(glm::translate(glm::mat4(1.0f), glm::vec3(0.5f, 0.0f, 0.0f)) *
                      glm::scale(glm::mat4(1.0f), glm::vec3(0.8f, 0.8f, 1.0f)) * packed.record);
    const Image image = fixture.render(scene);
    const gl::FrameStats& stats = fixture.renderer.lastFrameStats();
    CHECK(stats.multiDrawCalls == 2);  // one group per vertex arena
    CHECK(stats.drawCalls == 2);
    constexpr std::uint32_t size = RenderFixture::kSize;
    CHECK(near(pixelAt(image, pixelX(-0.5f, size), pixelY(0.0f, size)), kWhite));
    CHECK_FALSE(near(pixelAt(image, pixelX(0.5f, size), pixelY(0.0f, size)), kBlack));  // its vertex colours
    CHECK(near(pixelAt(image, pixelX(0.5f, size), pixelY(0.7f, size)), kBlack));   // above the right quad
    CHECK(near(pixelAt(image, pixelX(-0.95f, size), pixelY(0.0f, size)), kBlack));  // left of the left one
    // A second frame: nothing to re-place, the arenas' vertex arrays switched once each.
    fixture.render(scene);
    CHECK(fixture.renderer.lastFrameStats().bytesUploaded == 0);
}
