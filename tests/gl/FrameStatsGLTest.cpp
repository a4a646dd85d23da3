// FrameStats: the printed form, and RendererDesc::gpuCullingCounts, the GPU-culled drawn counts
// read a frame late: equal to the instances inside the frustum (on screen), and read without a
// wait, a glGet or a glFinish in a steady frame (the call log).
#include "support/GlCallLog.h"
#include "support/GlTest.h"

#include <glad/gl.h>

#include <algorithm>

#include "myriad/core/InstanceCulling.h"
#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Lod.h"
#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/gl/Draw.h"
#include "myriad/gl/FrameStats.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/Renderer.h"

#include <cmath>
#include <sstream>
#include <vector>

using namespace myriad;
using namespace myriad::test;

namespace {

constexpr std::uint32_t kSize = RenderFixture::kSize;

/** Two GPU-culled batches under orthoCamera() (x, y in [-1, 1] seen): "row", ten red 0.2-wide
 *  quads along y = -0.5 at x = -2.25 + 0.5 i, of which i = 3..6 are inside the view (x = -0.75
 *  .. 0.75; the others' spheres are 0.1 or more past an edge); and "pairs", six instances of a
 *  two-primitive mesh (green quad, blue quad above it) at x = -1.75 + 0.75 i, y = 0.4, of
 *  which i = 1..3 are inside (x = -1.0 straddles the edge, -0.25, 0.5). */
struct TwoBatches {
    Scene scene;
    InstancedMeshNode* row = nullptr;
    InstancedMeshNode* pairs = nullptr;

    TwoBatches() {
        auto quad = MeshGeometry::create(shapes::quad(0.2f, 0.2f), "quad");
        row = &scene.root().emplace<InstancedMeshNode>(quad, unlit({1, 0, 0, 1}), 10, "row");
        for (int i = 0; i < 10; ++i) {
            row->addInstance(at(-2.25f + 0.5f * static_cast<float>(i), -0.5f));
        }
        pairs = &scene.root().emplace<InstancedMeshNode>(quad, unlit({0, 1, 0, 1}), 6, "pairs");
        MeshData upper = shapes::quad(0.2f, 0.2f);
        for (glm::vec3& p : upper.positions) {
            p.y += 0.25f;
        }
        pairs->addPrimitive(MeshGeometry::create(std::move(upper), "upper-quad"), unlit({0, 0, 1, 1}));
        for (int i = 0; i < 6; ++i) {
            pairs->addInstance(at(-1.75f + 0.75f * static_cast<float>(i), 0.4f));
        }
        row->setInstanceCulling(InstanceCulling::Gpu);
        pairs->setInstanceCulling(InstanceCulling::Gpu);
    }
};

/** A renderer with gpuCullingCounts on, a target and the two batches, for the count tests. */
struct CountsFixture {
    egl::HeadlessContext& context = test::context();
    gl::Renderer renderer{gl::RendererDesc{.gpuCullingCounts = true}};
    gl::OffscreenTarget target{kSize, kSize, "gpu-counts-target"};
    const Camera camera = orthoCamera();
    TwoBatches batches;
};

} // namespace

TEST_CASE("FrameStats prints on one line, through to_string and operator<<", "[stats]") {
    gl::FrameStats stats;
    stats.frame = 12;
    stats.views = 1;
    stats.drawCalls = 3;
    stats.instances = 2000;
    stats.particles = 50;
    stats.triangles = 24000;
    stats.batches = 3;
    stats.gpuCulled = {.frame = 11, .instances = 812, .upperBound = 2000};
    stats.programsCompiled = 2;
    stats.frameMs = 0.41;
    stats.submitMs = 0.3;
    stats.compileMs = 0.25;
    const std::string text = gl::to_string(stats);
    CHECK(text == "frame 12: 1 views, 3 draw calls, 2000 instances, 50 particles, 24000 triangles, 3 batches, "
                  "gpu-culled drawn 812 of 2000 (frame 11), 2 programs compiled, "
                  "frame 0.410 ms (cull 0.000, upload 0.000, submit 0.300, draw 0.000, sort 0.000, compile 0.250)");
    std::ostringstream out;
    out << stats;
    CHECK(out.str() == text);
    // Zero counters are left out, the frame, views, draws and instances never.
    CHECK(gl::to_string(gl::FrameStats{}) ==
          "frame 0: 0 views, 0 draw calls, 0 instances, "
          "frame 0.000 ms (cull 0.000, upload 0.000, submit 0.000, draw 0.000, sort 0.000, compile 0.000)");
}

TEST_CASE_METHOD(CountsFixture, "gpuCullingCounts: a frame late, the GPU-culled counts are the instances inside the frustum",
          "[stats][gpu-culling][pixels]") {

    renderer.render(batches.scene, camera, target);
    const gl::FrameStats first = renderer.lastFrameStats();
    CHECK(first.frame == 1);
    CHECK(first.gpuCulled.frame == 0);  // nothing read yet: the GPU counts come later
    CHECK(first.instances == 10 + 6 * 2);  // the upper bound: every tested instance, per draw
    CHECK(first.instancesGpuCulled == 10 + 6);
    const Image image = target.readPixels();
    // On screen: the four quads of the row inside the view, nothing between them.
    for (int i = 3; i <= 6; ++i) {
        MYRIAD_CHECK_PIXEL(image, pixelX(-2.25f + 0.5f * static_cast<float>(i), kSize), pixelY(-0.5f, kSize), kRed);
    }
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), pixelY(-0.5f, kSize), kBlack);
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.25f, kSize), pixelY(0.4f, kSize), kGreen);
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.25f, kSize), pixelY(0.65f, kSize), kBlue);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), pixelY(0.4f, kSize), kGreen);

    gl::finish();  // the test's own wait, so the next frame finds frame 1's fence signalled
    renderer.render(batches.scene, camera, target);
    const gl::FrameStats second = renderer.lastFrameStats();
    CHECK(second.frame == 2);
    REQUIRE(second.gpuCulled.frame == 1);
    // Row: 4 inside. Pairs: 3 inside (one straddles the left edge), drawn by each of its two
    // primitives' draws.
    CHECK(second.gpuCulled.instances == 4 + 3 * 2);
    CHECK(second.gpuCulled.upperBound == first.instances);
    CHECK(second.gpuCulled.triangles == 2 * (4 + 3 * 2));
    CHECK(second.gpuCulled.trianglesUpperBound == first.triangles);

    // The CPU path's exact count of the same frame agrees.
    batches.row->setInstanceCulling(InstanceCulling::Cpu);
    batches.pairs->setInstanceCulling(InstanceCulling::Cpu);
    renderer.render(batches.scene, camera, target);
    CHECK(renderer.lastFrameStats().instances == second.gpuCulled.instances);

    // Move one row instance out of view: the count of the frame after follows.
    batches.row->setInstanceCulling(InstanceCulling::Gpu);
    batches.pairs->setInstanceCulling(InstanceCulling::Gpu);
    batches.row->setTransform(3, at(5.0f, -0.5f));
    renderer.render(batches.scene, camera, target);
    const std::uint64_t movedFrame = renderer.lastFrameStats().frame;
    gl::finish();
    renderer.render(batches.scene, camera, target);
    const gl::FrameStats after = renderer.lastFrameStats();
    REQUIRE(after.gpuCulled.frame == movedFrame);
    CHECK(after.gpuCulled.instances == 3 + 3 * 2);
}

TEST_CASE_METHOD(CountsFixture, "gpuCullingCounts: a LOD chain on the GPU counts each visible instance once, over its levels",
          "[stats][gpu-culling][lod]") {
    // The eye is at z = 10: with quad 6 moved to x = 0.3, three visible quads (x = -0.25, 0.25,
    // 0.3) are nearer than 10.03 and one (x = -0.75) farther: three at level 0, one at level 1
    // (unequal, so reading one level's count for the other shows).
    batches.row->setTransform(6, at(0.3f, -0.5f));
    LodChain chain;
    chain.levels = {{nullptr, 10.03f}, {MeshGeometry::create(shapes::quad(0.2f, 0.2f), "far-quad"), INFINITY}};
    chain.hysteresis = 0.0f;
    batches.row->setLodChain(chain);
    renderer.render(batches.scene, camera, target);
    CHECK(renderer.lastFrameStats().drawCalls == 2 + 2);  // the row's two levels, the pair's two primitives
    const Image image = target.readPixels();
    for (int i = 3; i <= 5; ++i) {
        MYRIAD_CHECK_PIXEL(image, pixelX(-2.25f + 0.5f * static_cast<float>(i), kSize), pixelY(-0.5f, kSize), kRed);
    }
    MYRIAD_CHECK_PIXEL(image, pixelX(0.75f, kSize), pixelY(-0.5f, kSize), kBlack);
    gl::finish();
    renderer.render(batches.scene, camera, target);
    const gl::FrameStats stats = renderer.lastFrameStats();
    REQUIRE(stats.gpuCulled.frame == 1);
    CHECK(stats.gpuCulled.instances == 4 + 3 * 2);
    CHECK(stats.gpuCulled.upperBound == 10 + 6 * 2);  // level 0's item counts the tested ones
}

TEST_CASE("gpuCullingCounts: copies after the draws behind one barrier, a fence, and no wait or glGet",
          "[stats][gpu-culling]") {
    egl::HeadlessContext& context = test::context();
    (void)context;
    gl::OffscreenTarget target(kSize, kSize, "gpu-counts-target");
    const Camera camera = orthoCamera();
    TwoBatches batches;
    // The renderer's own glGet calls in a steady frame without the option: the option adds none.
    std::size_t getsWithout = 0;
    {
        gl::Renderer plain;
        plain.render(batches.scene, camera, target);
        plain.render(batches.scene, camera, target);
        GlCallLog log;
        MYRIAD_GL_CALL_LOG_HOOK(log, glGetIntegerv);
        MYRIAD_GL_CALL_LOG_HOOK(log, glGetInteger64v);
        plain.render(batches.scene, camera, target);
        getsWithout = log.callsTo("glGetIntegerv").size() + log.callsTo("glGetInteger64v").size();
    }
    gl::Renderer renderer(gl::RendererDesc{.gpuCullingCounts = true});
    renderer.render(batches.scene, camera, target);  // warm: programs, lists, the count buffers
    renderer.render(batches.scene, camera, target);

    GlCallLog log;
    MYRIAD_GL_CALL_LOG_HOOK(log, glDrawElementsIndirect);
    MYRIAD_GL_CALL_LOG_HOOK(log, glMultiDrawElementsIndirect);
    MYRIAD_GL_CALL_LOG_HOOK(log, glFinish);
    MYRIAD_GL_CALL_LOG_HOOK(log, glGetNamedBufferSubData);
    MYRIAD_GL_CALL_LOG_HOOK(log, glGetBufferSubData);
    MYRIAD_GL_CALL_LOG_HOOK(log, glGetSynciv);
    MYRIAD_GL_CALL_LOG_HOOK(log, glGetIntegerv);
    MYRIAD_GL_CALL_LOG_HOOK(log, glGetInteger64v);
    MYRIAD_GL_CALL_LOG_HOOK(log, glMapNamedBufferRange);
    constexpr int kFrames = 6;
    std::uint64_t lastRead = 0;
    for (int frame = 0; frame < kFrames; ++frame) {
        log.clear();
        renderer.render(batches.scene, camera, target);
        INFO("steady frame " << frame << ":\n" << log.dump(400));
        CHECK(log.callsTo("glFinish").empty());
        CHECK(log.callsTo("glGetNamedBufferSubData").empty());
        CHECK(log.callsTo("glGetBufferSubData").empty());
        CHECK(log.callsTo("glGetSynciv").empty());
        CHECK(log.callsTo("glGetIntegerv").size() + log.callsTo("glGetInteger64v").size() == getsWithout);
        CHECK(log.callsTo("glMapNamedBufferRange").empty());  // mapped once, persistently
        for (const GlCall& wait : log.callsTo("glClientWaitSync")) {
            CHECK(wait.argument<GLuint64>(2) == 0);  // polls only: a zero timeout
        }
        // row: one command of the table path's multi-draw (one primitive); the pair's two
        // primitives: an indirect draw each. One 4-byte copy per command counted on the GPU.
        std::vector<GlCall> draws = log.callsTo("glDrawElementsIndirect");
        REQUIRE(draws.size() == 2);
        REQUIRE(log.callsTo("glMultiDrawElementsIndirect").size() == 1);
        draws.push_back(log.callsTo("glMultiDrawElementsIndirect").front());
        std::sort(draws.begin(), draws.end(), [](const GlCall& a, const GlCall& b) { return a.sequence < b.sequence; });
        std::vector<GlCall> copies;
        for (const GlCall& copy : log.callsTo("glCopyNamedBufferSubData")) {
            if (copy.argument<GLsizeiptr>(4) == 4) {  // one instanceCount
                copies.push_back(copy);
            }
        }
        REQUIRE(copies.size() == draws.size());
        CHECK(copies.front().sequence > draws.back().sequence);
        // The copies read what cull.comp's atomics wrote: a buffer-update barrier between the
        // last draw and the first copy.
        bool barrier = false;
        for (const GlCall& call : log.callsTo("glMemoryBarrier")) {
            barrier = barrier || (call.sequence > draws.back().sequence && call.sequence < copies.front().sequence &&
                                  (call.argument<GLbitfield>(0) & GL_BUFFER_UPDATE_BARRIER_BIT) != 0);
        }
        CHECK(barrier);
        bool fenced = false;
        for (const GlCall& fence : log.callsTo("glFenceSync")) {
            fenced = fenced || fence.sequence > copies.back().sequence;
        }
        CHECK(fenced);
        lastRead = renderer.lastFrameStats().gpuCulled.frame;
        CHECK(lastRead < renderer.lastFrameStats().frame);
    }
    CHECK(lastRead > 0);  // readings came, from the mapping alone
}

TEST_CASE("gpuCullingCounts off: nothing is copied and gpuCulled stays zero", "[stats][gpu-culling]") {
    RenderFixture fixture;
    TwoBatches batches;
    (void)fixture.render(batches.scene);
    GlCallLog log;
    gl::finish();
    (void)fixture.render(batches.scene);
    for (const GlCall& copy : log.callsTo("glCopyNamedBufferSubData")) {
        CHECK(copy.argument<GLsizeiptr>(4) != 4);
    }
    CHECK(fixture.renderer.lastFrameStats().gpuCulled.frame == 0);
    CHECK(fixture.renderer.lastFrameStats().gpuCulled.instances == 0);
}
