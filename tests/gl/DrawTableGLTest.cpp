// The table-driven draw path (src/renderer/DrawTable.h): small batches and MeshNodes drawn from
// shared arenas, one multi-draw call per group of draws that share a program variant, their
// per-draw constants in rows of one buffer texture written only when they change.
#include "support/GlCallLog.h"
#include "support/GlTest.h"

#include "gl/Bindings.h"  // kDrawRowTexels
#include "renderer/RangeAllocator.h"

#include "myriad/core/InstanceCulling.h"
#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/gl/Renderer.h"
#include "myriad/util/Error.h"

#include <glad/gl.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

using namespace myriad;
using namespace myriad::test;

namespace {
constexpr std::uint32_t kSize = RenderFixture::kSize;
constexpr std::size_t kRowBytes = gl::detail::kDrawRowTexels * 16;  // a draw-table row
} // namespace

TEST_CASE("batches and mesh nodes of different meshes, materials and tints draw in one multi-draw call", "[table][pixels]") {
    RenderFixture f;
    Scene scene;
    auto small = MeshGeometry::create(shapes::quad(0.2f, 0.2f), "small");
    auto large = MeshGeometry::create(shapes::quad(0.4f, 0.4f), "large");
    auto& red = scene.root().emplace<InstancedMeshNode>(small, unlit(glm::vec4(1, 0, 0, 1)), 2, "red");
    red.addInstance(at(-0.6f, 0.6f));
    red.addInstance(at(-0.6f, -0.6f));
    // Another mesh, its colour from the instance's record.
    auto& green = scene.root().emplace<InstancedMeshNode>(large, unlit(), 1, "green");
    green.addInstance(at(0.6f, 0.6f), glm::vec4(0, 1, 0, 1));
    // A MeshNode placed by its node transform, coloured by its tint.
    auto& blue = scene.root().emplace<MeshNode>(small, unlit(), "blue");
    blue.setPosition(glm::dvec3(0.6, -0.6, 0.0));
    blue.setTint(glm::vec4(0, 0, 1, 1));
    // A batch moved by its node: the node's row carries its world matrix.
    auto& moved = scene.root().emplace<InstancedMeshNode>(small, unlit(glm::vec4(1, 1, 1, 1)), 1, "moved");
    moved.setPosition(glm::dvec3(0.0, 0.3, 0.0));
    moved.addInstance(at(0.0f, -0.3f));

    const Image image = f.render(scene);
    const gl::FrameStats& stats = f.renderer.lastFrameStats();
    CHECK(stats.drawCalls == 1);
    CHECK(stats.multiDrawCalls == 1);
    CHECK(stats.drawCommands == 4);
    CHECK(stats.batches == 3);
    CHECK(stats.meshNodes == 1);
    CHECK(stats.instances == 5);
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.6f, kSize), pixelY(0.6f, kSize), kRed);
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.6f, kSize), pixelY(-0.6f, kSize), kRed);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.6f + 0.15f, kSize), pixelY(0.6f, kSize), kGreen);  // the larger quad
    MYRIAD_CHECK_PIXEL(image, pixelX(0.6f, kSize), pixelY(-0.6f, kSize), kBlue);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.0f, kSize), pixelY(0.0f, kSize), kWhite);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.0f, kSize), pixelY(0.6f, kSize), kBlack);
}

TEST_CASE("a still scene sends no row and no command after its first frame, a moved node only its row", "[table][uploads]") {
    RenderFixture f;
    Scene scene;
    auto quad = quadMesh(0.1f);
    std::vector<InstancedMeshNode*> batches;
    for (int b = 0; b < 50; ++b) {
        auto& batch = scene.root().emplace<InstancedMeshNode>(quad, unlit(glm::vec4(1, 0, 0, 1)), 4,
                                                              "batch" + std::to_string(b));
        batch.addInstance(at(-0.9f + 0.036f * static_cast<float>(b), -0.5f));
        batches.push_back(&batch);
    }
    (void)f.render(scene);
    CHECK(f.renderer.lastFrameStats().bytesUploaded > 0);
    {
        GlCallLog log;
        (void)f.render(scene);
        CHECK(f.renderer.lastFrameStats().bytesUploaded == 0);
        CHECK(log.callsTo("glCopyNamedBufferSubData").empty());
        CHECK(log.callsTo("glNamedBufferSubData").empty());
        CHECK(f.renderer.lastFrameStats().drawCalls == 1);
        CHECK(f.renderer.lastFrameStats().drawCommands == 50);
    }
    batches[7]->setPosition(glm::dvec3(0.0, 1.0, 0.0));
    const Image image = f.render(scene);
    CHECK(f.renderer.lastFrameStats().bytesUploaded == kRowBytes);  // its row; the commands are the same
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.9f + 0.036f * 7.0f, kSize), pixelY(0.5f, kSize), kRed);
}

TEST_CASE("the record and mesh arenas grow while earlier batches keep their records", "[table][pixels]") {
    RenderFixture f;
    Scene scene;
    // 24 batches of 256 records, one more each frame, each its own mesh: the record arena
    // (1,024 records at first) and the vertex and index arenas each grow several times, and the
    // GPU copy of what they held must carry every earlier batch's records and vertices along.
    std::vector<InstancedMeshNode*> batches;
    GlCallLog log;  // every write of the path's buffers, growth copies included
    for (int b = 0; b < 24; ++b) {
        // 2,145 vertices and 12,288 indices each: the 16,384-vertex and 65,536-index arenas fill.
        auto mesh = MeshGeometry::create(shapes::uvSphere(0.03f, 64, 32), "sphere" + std::to_string(b));
        auto& batch = scene.root().emplace<InstancedMeshNode>(mesh, unlit(), 256, "batch" + std::to_string(b));
        const float x = -0.9f + 0.075f * static_cast<float>(b);
        for (int i = 0; i < 256; ++i) {
            batch.addInstance(at(x, -0.9f + 0.007f * static_cast<float>(i)),
                              glm::vec4(static_cast<float>(b % 2), 1.0f - static_cast<float>(b % 2), 0, 1));
        }
        batches.push_back(&batch);
        (void)f.render(scene);
    }
    // The CPU wrote nothing the GPU reads but the staging ring, and never ring bytes a copy had
    // not finished reading: records, (row, instance) pairs, rows, indices and commands all
    // arrive as fenced ring copies (or GPU copies between the path's own buffers on growth).
    CHECK(log.callsTo("glNamedBufferSubData").size() <= 1);  // the material table's first row
    CHECK(log.callsTo("glMapNamedBufferRange").empty());
    const std::vector<std::string> unguarded =
        unguardedStagingRewrites(log, bufferLabelled("myriad/Renderer.staging-ring"));
    INFO(joined(unguarded));
    CHECK(unguarded.empty());
    const Image image = f.render(scene);
    CHECK(f.renderer.lastFrameStats().drawCalls == 1);
    CHECK(f.renderer.lastFrameStats().drawCommands == 24);
    for (int b = 0; b < 24; ++b) {
        INFO("batch " << b);
        const float x = -0.9f + 0.075f * static_cast<float>(b);
        MYRIAD_CHECK_PIXEL(image, pixelX(x, kSize), pixelY(0.0f, kSize), b % 2 == 1 ? kRed : kGreen);
    }
}

TEST_CASE("draws that need something of their own keep their own call beside the multi-draw", "[table][pixels]") {
    RenderFixture f;
    Scene scene;
    auto quad = quadMesh(0.3f);
    auto& plain = scene.root().emplace<InstancedMeshNode>(quad, unlit(glm::vec4(1, 0, 0, 1)), 1, "plain");
    plain.addInstance(at(-0.5f, 0.0f));
    auto& other = scene.root().emplace<InstancedMeshNode>(quad, unlit(glm::vec4(1, 0, 0, 1)), 1, "other");
    other.addInstance(at(0.0f, 0.5f));
    // Lanes are a buffer texture of the batch's own: drawn by a call of its own.
    auto& laned = scene.root().emplace<InstancedMeshNode>(quad, unlit(glm::vec4(0, 0, 1, 1)), 1, "laned");
    laned.addInstance(at(0.5f, 0.0f));
    laned.setLane(0, 0, glm::vec4(1.0f));
    const Image image = f.render(scene);
    const gl::FrameStats& stats = f.renderer.lastFrameStats();
    CHECK(stats.drawCalls == 2);
    CHECK(stats.multiDrawCalls == 1);
    CHECK(stats.drawCommands == 3);
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), pixelY(0.0f, kSize), kRed);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.0f, kSize), pixelY(0.5f, kSize), kRed);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), pixelY(0.0f, kSize), kBlue);
}

TEST_CASE("arena ranges: first fit, neighbours merge when freed, growth adds a free range", "[table][arena]") {
    gl::detail::RangeAllocator ranges;
    CHECK(ranges.allocate(4) == gl::detail::RangeAllocator::npos);  // nothing yet
    ranges.grow(16);
    const std::size_t a = ranges.allocate(4);
    const std::size_t b = ranges.allocate(4);
    const std::size_t c = ranges.allocate(8);
    CHECK(a == 0);
    CHECK(b == 4);
    CHECK(c == 8);
    CHECK(ranges.allocate(1) == gl::detail::RangeAllocator::npos);  // full
    ranges.release(a, 4);
    ranges.release(b, 4);              // merges with a's range: 8 free at 0
    CHECK(ranges.allocate(8) == 0);
    ranges.grow(32);
    CHECK(ranges.allocate(16) == 16);  // the grown part
    CHECK(ranges.used() == 32);
    ranges.release(c, 8);
    ranges.release(0, 8);
    ranges.release(16, 16);
    CHECK(ranges.used() == 0);
    CHECK(ranges.allocate(32) == 0);  // all merged back into one range
}

TEST_CASE("groups of one program are drawn next to each other, textures bound once per change", "[table][state]") {
    RenderFixture f;
    Scene scene;
    auto quad = quadMesh(0.3f);
    auto image = [](std::uint8_t red) {
        auto made = std::make_shared<Image>();
        made->width = made->height = 1;
        made->pixels = {red, 0, 0, 255};
        return made;
    };
    Material first = unlit();
    first.baseColorTexture = image(255);
    Material second = unlit();
    second.baseColorTexture = image(128);
    Material lit;  // another program variant, between the two textured groups in tree order
    lit.shading = Shading::Lit;
    scene.root().emplace<InstancedMeshNode>(quad, first, 1, "first").addInstance(at(-0.5f, 0.0f));
    scene.root().emplace<InstancedMeshNode>(quad, lit, 1, "lit").addInstance(at(0.0f, 0.5f));
    scene.root().emplace<InstancedMeshNode>(quad, second, 1, "second").addInstance(at(0.5f, 0.0f));
    const Image frame = f.render(scene);
    const gl::FrameStats& stats = f.renderer.lastFrameStats();
    CHECK(stats.multiDrawCalls == 3);  // three groups: two textures, one other program
    CHECK(stats.programBinds == 2);    // the textured groups share their program: adjacent
    MYRIAD_CHECK_PIXEL(frame, pixelX(-0.5f, kSize), pixelY(0.0f, kSize), kRed);
    // An sRGB texel of 128 is decoded to linear light and encoded back by the target: 128.
    MYRIAD_CHECK_PIXEL(frame, pixelX(0.5f, kSize), pixelY(0.0f, kSize), Rgba{128, 0, 0, 255});
}

namespace {

/** A plain batch, then three GPU-culled ones of four instances (1 and 3 on screen, 0 and 2
 *  far off it), so the culled batches' records sit at later arena places than the first. */
struct CulledBatches {
    Scene scene;
    std::vector<InstancedMeshNode*> culled;
    static constexpr float kX[3] = {-0.6f, 0.0f, 0.6f};
    CulledBatches() {
        auto quad = quadMesh(0.2f);
        auto& plain = scene.root().emplace<InstancedMeshNode>(quad, unlit(), 4, "plain");
        plain.addInstance(at(0.0f, -0.6f), glm::vec4(1, 1, 0, 1));
        const glm::vec4 colours[3] = {{1, 0, 0, 1}, {0, 1, 0, 1}, {0, 0, 1, 1}};
        for (int b = 0; b < 3; ++b) {
            auto& batch = scene.root().emplace<InstancedMeshNode>(quad, unlit(), 8, "culled" + std::to_string(b));
            batch.addInstance(at(5.0f, 0.0f), glm::vec4(1));
            batch.addInstance(at(kX[b], 0.3f), colours[b]);
            batch.addInstance(at(0.0f, 5.0f), glm::vec4(1));
            batch.addInstance(at(kX[b], 0.7f), colours[b]);
            batch.setInstanceCulling(InstanceCulling::Gpu);
            culled.push_back(&batch);
        }
    }
};

} // namespace

TEST_CASE("batches culled on the GPU join a multi-draw: their dispatch writes pairs and counts into the shared commands",
          "[table][gpu-culling][pixels]") {
    RenderFixture f;
    CulledBatches batches;
    Image image;
    for (int frame = 0; frame < 3; ++frame) {  // the counts start from 0 every frame, not from the last
        image = f.render(batches.scene);
        INFO("frame " << frame);
        const gl::FrameStats& stats = f.renderer.lastFrameStats();
        CHECK(stats.drawCalls == 2);  // the plain group and the GPU-culled group
        CHECK(stats.multiDrawCalls == 2);
        CHECK(stats.drawCommands == 4);
        CHECK(stats.instancesGpuCulled == 12);
        for (InstancedMeshNode* batch : batches.culled) {
            INFO(batch->name());
            std::optional<std::vector<std::uint32_t>> visible = f.renderer.readGpuCulledInstances(*batch, 0);
            REQUIRE(visible.has_value());
            std::sort(visible->begin(), visible->end());
            CHECK(*visible == std::vector<std::uint32_t>{1, 3});
        }
    }
    // Each visible instance at its own place in its own colour: the records were fetched from
    // the batch's arena place (its row's first slot) plus the instance the pair names.
    const Rgba colours[3] = {kRed, kGreen, kBlue};
    for (int b = 0; b < 3; ++b) {
        MYRIAD_CHECK_PIXEL(image, pixelX(CulledBatches::kX[b], kSize), pixelY(0.3f, kSize), colours[b]);
        MYRIAD_CHECK_PIXEL(image, pixelX(CulledBatches::kX[b], kSize), pixelY(0.7f, kSize), colours[b]);
    }
    MYRIAD_CHECK_PIXEL(image, pixelX(0.0f, kSize), pixelY(-0.6f, kSize), (Rgba{255, 255, 0, 255}));
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.3f, kSize), pixelY(0.3f, kSize), kBlack);
}

TEST_CASE("one dispatch per view culls every table-driven batch, after the GPU copy that resets the shared commands",
          "[table][gpu-culling][barriers]") {
    RenderFixture f;
    CulledBatches batches;
    (void)f.render(batches.scene);  // warm: programs, arenas, buffers
    const GLuint live = bufferLabelled("myriad/Renderer.draw-commands");
    const GLuint sent = bufferLabelled("myriad/Renderer.draw-commands-template");
    REQUIRE(live != 0);
    REQUIRE(sent != 0);
    GlCallLog log;
    hookReadersAndBufferAccess(log);
    MYRIAD_GL_CALL_LOG_HOOK(log, glMultiDrawElementsIndirect);
    for (int frame = 0; frame < 4; ++frame) {
        (void)f.render(batches.scene);
    }
    // Every frame: the template copied over the live commands, then one dispatch for the view's
    // three GPU-culled batches, an invocation per instance tested.
    std::vector<GlCall> resets;
    for (const GlCall& copy : log.callsTo("glCopyNamedBufferSubData")) {
        if (copy.argument<GLuint>(0) == sent && copy.argument<GLuint>(1) == live) {
            resets.push_back(copy);
        }
    }
    const std::vector<GlCall> dispatches = log.callsTo("glDispatchCompute");
    REQUIRE(resets.size() == 4);
    REQUIRE(dispatches.size() == 4);
    for (std::size_t frame = 0; frame < 4; ++frame) {
        CHECK(resets[frame].sequence < dispatches[frame].sequence);
        CHECK(dispatches[frame].argument<GLuint>(0) == 1);  // 3 x 4 instances: one work group of 256
        CHECK(dispatches[frame].argument<GLuint>(1) == 1);
    }
    // The live commands hold shader writes (the counts); the CPU's copy into them waits behind
    // GL_BUFFER_UPDATE_BARRIER_BIT, and the static template is never sent again.
    const std::vector<std::string> found = unbarrieredBufferAccesses(log);
    INFO(joined(found) << "log:\n" << log.dump(200));
    CHECK(found.empty());
    CHECK(f.renderer.lastFrameStats().bytesUploaded == 0);
}

TEST_CASE("nodes of several primitives are table-driven too: each later primitive has its own row and pairs",
          "[table][primitives][pixels]") {
    RenderFixture f;
    Scene scene;
    // Primitive 0 left of the origin, primitive 1 right of it, primitive 2 above it.
    auto shifted = [](float dx, float dy, const char* name) {
        MeshData data = shapes::quad(0.12f, 0.12f);
        for (glm::vec3& p : data.positions) {
            p.x += dx;
            p.y += dy;
        }
        return MeshGeometry::create(std::move(data), name);
    };
    auto left = shifted(-0.1f, 0.0f, "left");
    auto right = shifted(0.1f, 0.0f, "right");
    auto up = shifted(0.0f, 0.15f, "up");
    // A one-primitive batch first, so the three-primitive one sits at a later arena place.
    auto& single = scene.root().emplace<InstancedMeshNode>(left, unlit(glm::vec4(1, 1, 1, 1)), 2, "single");
    single.addInstance(at(0.0f, -0.7f));
    auto& batch = scene.root().emplace<InstancedMeshNode>(left, unlit(glm::vec4(1, 0, 0, 1)), 3, "three-part");
    batch.addPrimitive(right, unlit(glm::vec4(0, 1, 0, 1)));
    batch.addPrimitive(up, unlit(glm::vec4(0, 0, 1, 1)));
    const glm::vec2 origins[] = {{-0.5f, 0.4f}, {0.5f, 0.4f}, {0.0f, -0.2f}};
    for (const glm::vec2 origin : origins) {
        batch.addInstance(at(origin.x, origin.y));
    }
    // A MeshNode of two primitives, placed and tinted by its node.
    auto& node = scene.root().emplace<MeshNode>(left, unlit(glm::vec4(1, 0, 0, 1)), "two-part");
    node.addPrimitive(right, unlit(glm::vec4(0, 0, 1, 1)));
    node.setPosition(glm::dvec3(0.6, -0.7, 0.0));
    const Image image = f.render(scene);
    const gl::FrameStats& stats = f.renderer.lastFrameStats();
    // Primitive 0 of each (records as attributes) in one call, the later primitives (their
    // records fetched) in another: 1 + 3 + 2 commands.
    CHECK(stats.drawCalls == 2);
    CHECK(stats.multiDrawCalls == 2);
    CHECK(stats.drawCommands == 6);
    for (const glm::vec2 origin : origins) {
        INFO("instance at " << origin.x << ", " << origin.y);
        MYRIAD_CHECK_PIXEL(image, pixelX(origin.x - 0.1f, kSize), pixelY(origin.y, kSize), kRed);
        MYRIAD_CHECK_PIXEL(image, pixelX(origin.x + 0.1f, kSize), pixelY(origin.y, kSize), kGreen);
        MYRIAD_CHECK_PIXEL(image, pixelX(origin.x, kSize), pixelY(origin.y + 0.15f, kSize), kBlue);
    }
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.1f, kSize), pixelY(-0.7f, kSize), kWhite);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), pixelY(-0.7f, kSize), kRed);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.7f, kSize), pixelY(-0.7f, kSize), kBlue);
}

TEST_CASE("a static batch draws what it froze, what a thaw and a new freeze changed, and follows its node",
          "[table][static][pixels]") {
    RenderFixture f;
    Scene scene;
    auto& batch = scene.root().emplace<InstancedMeshNode>(quadMesh(0.2f), unlit(), 4, "frozen");
    batch.addInstance(at(-0.5f, 0.0f), glm::vec4(1, 0, 0, 1));
    batch.addInstance(at(0.5f, 0.0f), glm::vec4(0, 1, 0, 1));
    batch.setStatic(true);
    Image image = f.render(scene);
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), pixelY(0.0f, kSize), kRed);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), pixelY(0.0f, kSize), kGreen);
    (void)f.render(scene);
    CHECK(f.renderer.lastFrameStats().bytesUploaded == 0);
    // Ogre's setStaticAndUpdate: thaw, write, freeze again; the renderer sends the change once.
    batch.setStatic(false);
    batch.setColor(0, glm::vec4(0, 0, 1, 1));
    batch.setStatic(true);
    image = f.render(scene);
    CHECK(f.renderer.lastFrameStats().bytesUploaded > 0);
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), pixelY(0.0f, kSize), kBlue);
    (void)f.render(scene);
    CHECK(f.renderer.lastFrameStats().bytesUploaded == 0);
    // The node moves it as a whole, and its draw range still applies.
    batch.setPosition(glm::dvec3(0.0, 0.5, 0.0));
    batch.setDrawRange(1);
    image = f.render(scene);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), pixelY(0.5f, kSize), kGreen);
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), pixelY(0.5f, kSize), kBlack);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), pixelY(0.0f, kSize), kBlack);
    CHECK_THROWS_AS(batch.setTransform(1, at(0.0f, 0.0f)), StateError);
}
