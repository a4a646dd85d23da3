// Fences and barriers that pixels cannot show: llvmpipe runs every command before the next
// frame starts, so memory rewritten too early, or shader writes read without a barrier, still
// look right here. A GPU that runs frames behind, or caches shader writes, would not. These
// tests read the order of GL calls instead (test::GlCallLog):
//  - every write into a persistently mapped region follows a signalled fence issued after the
//    region's last reader (a streaming batch drawn unchanged for frames between rewrites);
//  - every CPU access to a buffer a shader wrote (reset, copy, read back) follows
//    GL_BUFFER_UPDATE_BARRIER_BIT (OpenGL 4.5, "Shader Memory Access Synchronization").
#include "support/GlCallLog.h"
#include "support/GlTest.h"

#include "myriad/core/InstanceRecord.h"
#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Lod.h"
#include "myriad/core/MeshNode.h"
#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/gl/LiveObjects.h"
#include "myriad/gl/Renderer.h"

#include <cstring>
#include <string>
#include <vector>

using namespace myriad;
using namespace myriad::test;

namespace {

constexpr std::uint32_t kSize = RenderFixture::kSize;

/** Moves every instance of @p batch to x = @p x (all records change). */
void moveAll(InstancedMeshNode& batch, float x) {
    for (std::size_t i = 0; i < batch.count(); ++i) {
        batch.setTransform(i, at(x, 0.0f));
    }
}

constexpr const char* kShiftShader = R"(#version 450 core
layout(local_size_x = 64) in;
struct Record { vec4 row0; vec4 row1; vec4 row2; vec4 color; };
layout(std430, binding = 3) buffer Records { Record records[]; };
uniform float u_x;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= uint(records.length())) {
        return;
    }
    records[i].row0 = vec4(1.0, 0.0, 0.0, u_x);
    records[i].row1 = vec4(0.0, 1.0, 0.0, 0.0);
    records[i].row2 = vec4(0.0, 0.0, 1.0, 0.0);
    records[i].color = vec4(0.0, 1.0, 0.0, 1.0);
}
)";

} // namespace

TEST_CASE("a streaming batch rewritten every other frame never writes a part before a fence after the part's last draw", "[streaming][fences]") {
    // Read by the divisor-1 attributes (no culling), or by GPU culling's storage block and the
    // indirect draws' record texture.
    const InstanceCulling culling = GENERATE(InstanceCulling::Off, InstanceCulling::Gpu);
    INFO("culling " << (culling == InstanceCulling::Gpu ? "Gpu" : "Off"));
    RenderFixture f;
    Scene scene;
    auto& batch = addStreamingSwarm(scene);  // 4 records, UploadMode::Streaming
    batch.setInstanceCulling(culling);
    // A GPU three or more frames behind (headless, offscreen, vsync off): no fence is found
    // signalled by a poll, so only waits guard a rewrite.
    const LaggingGpu lagging;
    GlCallLog log;
    hookReadersAndBufferAccess(log);
    for (int frame = 0; frame < 10; ++frame) {
        if (frame % 2 == 0) {
            moveAll(batch, frame % 4 == 0 ? -0.5f : 0.5f);
        }
        (void)f.render(scene);
    }
    const GLuint streaming = f.renderer.instanceBuffer(batch);
    REQUIRE(streaming != 0);
    // Three parts of the capacity rounded up to 4 records (GpuResources::uploadStreaming).
    const std::uint64_t partBytes = (batch.capacity() + 3) / 4 * 4 * InstancedMeshNode::strideInBytes;
    // The ring came round: five writes into three parts, each part drawn unchanged a frame after
    // its write; the fourth write reuses part 0, last drawn in frame 1.
    std::size_t moves = 0;
    const char* mover = culling == InstanceCulling::Gpu ? "glTextureBufferRange" : "glVertexArrayVertexBuffer";
    for (const GlCall& call : log.callsTo(mover)) {
        moves += call.argument<GLuint>(2) == streaming ? 1 : 0;
    }
    CHECK(moves == 5);
    if (culling == InstanceCulling::Gpu) {
        CHECK(log.callsTo("glDispatchCompute").size() == 10);
    }
    const std::vector<std::string> unfenced = unfencedMappedRewrites(log, streaming, partBytes);
    INFO(joined(unfenced) << "log:\n" << log.dump(400));
    CHECK(unfenced.empty());
    // This frame's records, drawn: the last write put them at x = -0.5 (frame 8).
    const Image image = f.render(scene);
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), kSize / 2, kWhite);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), kSize / 2, kBlack);
}

TEST_CASE("streaming batches are fenced once a frame for all of them, with few fences alive", "[streaming][fences]") {
    RenderFixture f;
    Scene scene;
    std::vector<InstancedMeshNode*> batches;
    for (int b = 0; b < 6; ++b) {
        batches.push_back(&addStreamingSwarm(scene));
    }
    (void)f.render(scene);
    const std::int64_t syncsBefore = gl::liveObjectCounts().syncs;
    const LaggingGpu lagging;  // fences pile up unless bounded
    GlCallLog log;
    for (int frame = 0; frame < 40; ++frame) {
        for (InstancedMeshNode* batch : batches) {
            moveAll(*batch, frame % 2 == 0 ? -0.5f : 0.5f);
        }
        (void)f.render(scene);
        CHECK(gl::liveObjectCounts().syncs - syncsBefore <= 8);  // GpuResources::kMaxFrameFences
    }
    // One fence per frame for the six batches, not one per batch.
    CHECK(log.callsTo("glFenceSync").size() <= 40);
}

TEST_CASE("GPU culling's command reset, LOD-level copy and read back each follow a buffer-update barrier after the dispatch that wrote them", "[gpu-culling][barriers]") {
    RenderFixture f;
    Scene scene;
    auto& batch = scene.root().emplace<InstancedMeshNode>(MeshGeometry::create(shapes::quad(0.2f, 0.2f)), unlit(), 8);
    for (int i = 0; i < 4; ++i) {
        batch.addInstance(at(-0.6f + 0.4f * static_cast<float>(i), 0.0f), {1, 1, 1, 1});
    }
    // A LOD chain: the shader also writes each instance's level, which growth copies over.
    LodChain chain;
    chain.levels = {{nullptr, 50.0f}, {MeshGeometry::create(shapes::quad(0.1f, 0.1f), "lod1"), 100.0f}};
    batch.setLodChain(chain);
    batch.setInstanceCulling(InstanceCulling::Gpu);
    GlCallLog log;
    hookReadersAndBufferAccess(log);
    for (int frame = 0; frame < 4; ++frame) {
        batch.setTransform(0, at(-0.6f, 0.01f * static_cast<float>(frame)));
        (void)f.render(scene);
        const auto drawn = f.renderer.readGpuCulledInstances(batch, 0);  // glGetNamedBufferSubData
        REQUIRE(drawn.has_value());
        CHECK(drawn->size() == 4);
    }
    // The batch grows past its lists (64): new lists, the held levels copied from the old
    // buffer the shader wrote, the reset again, a read back again.
    batch.ensureCapacity(128);
    for (int i = 0; i < 100; ++i) {
        batch.addInstance(at(5.0f, 5.0f));
    }
    (void)f.render(scene);
    REQUIRE(f.renderer.readGpuCulledInstances(batch, 0).has_value());
    REQUIRE(log.callsTo("glDispatchCompute").size() == 5);
    const std::vector<std::string> found = unbarrieredBufferAccesses(log);
    INFO(joined(found) << "log:\n" << log.dump(400));
    CHECK(found.empty());
    // Write after read (a driver engineer's review): each dispatch rewrites lists and counts
    // into commands that the previous frame's draws read, so a storage barrier comes between
    // the last draw before it and the dispatch (OpenGL 4.5, "Shader Memory Access Synchronization").
    std::uint64_t lastDraw = 0;
    bool drawn = false;
    std::uint64_t lastStorageBarrier = 0;
    bool barrier = false;
    std::size_t dispatchesChecked = 0;
    for (const GlCall& call : log.calls()) {
        if (call.function == "glDrawElementsIndirect" || call.function == "glDrawElementsInstancedBaseInstance") {
            lastDraw = call.sequence;
            drawn = true;
        } else if (call.function == "glMemoryBarrier" &&
                   (call.argument<GLbitfield>(0) & GL_SHADER_STORAGE_BARRIER_BIT) != 0) {
            lastStorageBarrier = call.sequence;
            barrier = true;
        } else if (call.function == "glDispatchCompute" && drawn) {
            INFO("dispatch #" << call.sequence << " after draw #" << lastDraw);
            CHECK((barrier && lastStorageBarrier > lastDraw));
            ++dispatchesChecked;
        }
    }
    CHECK(dispatchesChecked == 4);  // every frame's dispatch after the first frame's draws
}

TEST_CASE("a compute-written population buffer is written, read back and drawn only after the barriers it needs", "[populations][barriers]") {
    RenderFixture f;
    Scene scene;
    constexpr std::size_t kCount = 64;
    gl::GpuBufferDesc desc;
    desc.name = "swarm";
    desc.elementType = gl::GpuElementType::InstanceRecord;
    desc.length = kCount;
    f.renderer.createBuffer(desc);
    gl::PopulationDesc population;
    population.transformBuffer = "swarm";
    population.instanceCount = kCount;
    population.material = unlit(glm::vec4(0, 1, 0, 1));
    population.material.name = "swarm-material";
    (void)f.renderer.drawInstanced(MeshGeometry::create(shapes::quad(0.2f, 0.2f)), population);
    const gl::ComputeProgram shift("shift.comp", kShiftShader);
    const gl::BufferBinding bindings[] = {{3, "swarm"}};
    // The material table bound for compute too: a dispatch may write it, and render() rewrites
    // it when a material changes.
    const gl::BufferBinding withTable[] = {{3, "swarm"}, {4, gl::Renderer::kMaterialTableBuffer}};
    (void)f.render(scene);

    GlCallLog log;
    hookReadersAndBufferAccess(log);
    shift.program().setUniform(shift.program().uniformLocation("u_x"), -0.5f);
    f.renderer.dispatch(shift, bindings, 1);
    const InstanceRecord one{glm::vec4(1, 0, 0, 0.5f), glm::vec4(0, 1, 0, 0), glm::vec4(0, 0, 1, 0), glm::vec4(1)};
    f.renderer.writeBuffer("swarm", 1, std::as_bytes(std::span(&one, 1)));
    f.renderer.dispatch(shift, withTable, 1);
    (void)f.renderer.readBuffer("swarm");
    f.renderer.dispatch(shift, withTable, 1);
    Material changed = population.material;
    changed.name = "node-material";  // a new row: the table is uploaded this frame
    changed.baseColor = glm::vec4(0, 0, 1, 1);
    auto& node = scene.root().emplace<MeshNode>(MeshGeometry::create(shapes::quad(0.1f, 0.1f)), changed, "node");
    node.setPosition(glm::dvec3(5.0, 5.0, 0.0));  // off screen: only the table changes
    (void)f.render(scene);
    // The accesses the rule is about were logged (a check over none would pass by itself).
    REQUIRE(log.callsTo("glDispatchCompute").size() == 3);
    REQUIRE(!log.callsTo("glGetNamedBufferSubData").empty());
    REQUIRE(!log.callsTo("glNamedBufferSubData").empty());
    const std::vector<std::string> found = unbarrieredBufferAccesses(log);
    INFO(joined(found) << "log:\n" << log.dump(400));
    CHECK(found.empty());
}
