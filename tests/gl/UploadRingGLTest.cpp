// The upload ring: no CPU write into ring bytes a GPU copy may still read, within a
// frame as across frames; a ring that grows (to a bound) to what a frame sends instead of
// waiting once per chunk, and frees what it leaves; a bounded mapping whatever the upload size.
//
// llvmpipe performs copies at once, so pixels cannot show a ring that overwrites bytes before
// their copy ran; a GPU that queues copies would. These tests read the order of GL calls instead
// (test::GlCallLog): every rewrite of a staging range must follow a fence issued after the
// range's earlier copy and a client wait that saw that fence signalled. And they read each
// batch's GPU buffer back byte for byte.
#include "support/GlCallLog.h"
#include "support/GlTest.h"

#include "gl/StagingRing.h"  // internal to myriad_gl: the unit tests below drive it directly

#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/gl/Buffer.h"
#include "myriad/gl/LiveObjects.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/Renderer.h"
#include "myriad/util/Error.h"

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

using namespace myriad;
using namespace myriad::test;

namespace {

constexpr std::size_t kRecordBytes = InstancedMeshNode::strideInBytes;
constexpr std::string_view kRingLabel = "myriad/Renderer.staging-ring";

/** Writes every drawn record of @p batch with values unique to (batch, round, index): small
 *  translations inside the view (so nothing is culled) and a colour from the same three. */
void fill(InstancedMeshNode& batch, int batchIndex, int round) {
    std::span<float> data = batch.instanceData();
    const std::size_t count = batch.count();
    for (std::size_t i = 0; i < count; ++i) {
        float* r = data.data() + i * InstancedMeshNode::floatsPerInstance;
        const float t = static_cast<float>(i) / static_cast<float>(count);
        const float row[16] = {1.0f, 0.0f, 0.0f, -0.9f + 1.8f * t,
                               0.0f, 1.0f, 0.0f, -0.9f + 0.3f * static_cast<float>(batchIndex) + 0.01f * static_cast<float>(round),
                               0.0f, 0.0f, 1.0f, 0.0f,
                               t, static_cast<float>(batchIndex) / 8.0f, static_cast<float>(round) / 8.0f, 1.0f};
        std::memcpy(r, row, sizeof(row));
    }
    batch.markInstancesChanged();
}

/** @p bytes of GL buffer @p buffer from byte @p offset. */
std::vector<std::byte> readBack(GLuint buffer, std::size_t bytes, std::size_t offset = 0) {
    std::vector<std::byte> out(bytes);
    glGetNamedBufferSubData(buffer, static_cast<GLintptr>(offset), static_cast<GLsizeiptr>(bytes), out.data());
    return out;
}

/** True when @p place (Renderer::instanceRecords) starts with exactly @p batch's drawn records. */
bool holdsRecords(const gl::InstanceBufferRange& place, const InstancedMeshNode& batch) {
    const std::span<const std::byte> expected = batch.instanceBytes();
    const std::vector<std::byte> actual = readBack(place.buffer, expected.size(), place.offsetBytes);
    return std::memcmp(actual.data(), expected.data(), expected.size()) == 0;
}

} // namespace

namespace {

/** The ring a Renderer made while @p log was alive: the buffer of the last persistent
 *  glNamedBufferStorage. */
GLuint ringMadeUnder(const GlCallLog& log) {
    GLuint ring = 0;
    for (const GlCall& call : log.callsTo("glNamedBufferStorage")) {
        if ((call.argument<GLbitfield>(3) & GL_MAP_PERSISTENT_BIT) != 0) {
            ring = call.argument<GLuint>(0);
        }
    }
    return ring;
}

} // namespace

TEST_CASE("five 1 MiB batches rewritten in one frame never overwrite staging bytes before their copy's fence signalled", "[ring][uploads]") {
    RenderFixture f;
    GlCallLog log;
    // A ring that may not grow (bound below the start): 5 MiB a frame wraps it within the frame.
    gl::Renderer renderer(gl::RendererDesc{.stagingBytes = std::size_t{4} << 20, .maxStagingBytes = 0});
    const GLuint ring = ringMadeUnder(log);
    REQUIRE(ring != 0);
    Scene scene;
    auto quad = MeshGeometry::create(shapes::quad(0.01f, 0.01f), "quad");
    constexpr std::size_t kInstances = 16'384;  // 1 MiB of records each: 5 MiB through 4 MiB
    std::vector<InstancedMeshNode*> batches;
    for (int b = 0; b < 5; ++b) {
        auto& batch = scene.root().emplace<InstancedMeshNode>(quad, unlit(), kInstances,
                                                              "batch" + std::to_string(b));
        batch.setCount(kInstances);
        fill(batch, b, 0);
        batches.push_back(&batch);
    }
    renderer.render(scene, f.camera, f.target);
    for (int b = 0; b < 5; ++b) {
        fill(*batches[static_cast<std::size_t>(b)], b, 1);  // every record changes, per batch
    }
    renderer.render(scene, f.camera, f.target);

    CHECK(renderer.lastFrameStats().stagingBytes == std::size_t{4} << 20);  // did not grow
    std::size_t stagedBytes = 0;
    for (const GlCall& call : log.callsTo("glCopyNamedBufferSubData")) {
        if (call.argument<GLuint>(0) == ring) {
            stagedBytes += static_cast<std::size_t>(call.argument<GLsizeiptr>(4));
        }
    }
    // Both frames' records went through the ring, and the first frame's setup of the table-driven
    // path: each batch's (draw row, instance) pairs (8 bytes a record) and draw-table row (224
    // bytes), the five commands (20 bytes each) and the quad's six 32-bit indices in the index
    // arena. The second frame's rows and commands were the first's: not sent again.
    CHECK(stagedBytes == 2 * 5 * kInstances * kRecordBytes + 5 * kInstances * 8 + 5 * 224 + 5 * 20 + 6 * 4);
    const std::vector<std::string> unguarded = unguardedStagingRewrites(log, ring);
    INFO(joined(unguarded) << "log:\n" << log.dump());
    CHECK(unguarded.empty());
    for (const InstancedMeshNode* batch : batches) {
        INFO(batch->name());
        const gl::InstanceBufferRange place = renderer.instanceRecords(*batch);
        REQUIRE(place.buffer != 0);
        CHECK(holdsRecords(place, *batch));
    }
}

namespace {

/** The staging ring's size in bytes (GL_BUFFER_SIZE; a test-time query). */
std::int64_t bufferBytes(GLuint buffer) {
    GLint64 bytes = 0;
    glGetNamedBufferParameteri64v(buffer, GL_BUFFER_SIZE, &bytes);
    return bytes;
}

/** Bytes copied out of @p ring, checking each copy stays in one chunk and inside the ring. */
std::size_t bytesCopiedOutOf(const GlCallLog& log, GLuint ring, std::size_t ringBytes) {
    std::size_t copied = 0;
    for (const GlCall& call : log.callsTo("glCopyNamedBufferSubData")) {
        if (call.argument<GLuint>(0) != ring) {
            continue;
        }
        INFO(call.text);
        const auto size = static_cast<std::size_t>(call.argument<GLsizeiptr>(4));
        CHECK(size <= ringBytes / 4);  // one chunk: a quarter of the ring
        CHECK(static_cast<std::size_t>(call.argument<GLintptr>(2)) + size <= ringBytes);
        copied += size;
    }
    return copied;
}

} // namespace

TEST_CASE("a 1M-record first upload grows the 4 MiB ring once to 64 MiB and sends the rest without waiting per chunk", "[ring][uploads]") {
    RenderFixture f;  // RendererDesc defaults: 4 MiB, bound 64 MiB
    Scene scene;
    auto quad = MeshGeometry::create(shapes::quad(0.001f, 0.001f), "quad");
    constexpr std::size_t kInstances = std::size_t{1} << 20;  // 64 MiB of records
    auto& batch = scene.root().emplace<InstancedMeshNode>(quad, unlit(), kInstances, "million");
    batch.setCount(kInstances);
    fill(batch, 0, 0);
    const GLuint firstRing = bufferLabelled(kRingLabel);
    REQUIRE(firstRing != 0);
    REQUIRE(bufferBytes(firstRing) == std::int64_t{4} << 20);

    GlCallLog log;
    f.renderer.render(scene, f.camera, f.target);

    // One new persistent mapping, the grown ring; the first ring is gone, not kept beside it.
    CHECK(log.callsTo("glMapNamedBufferRange").size() == 1);
    CHECK(glIsBuffer(firstRing) == GL_FALSE);
    const GLuint ring = bufferLabelled(kRingLabel);
    REQUIRE(ring != 0);
    CHECK(bufferBytes(ring) == std::int64_t{64} << 20);
    // The first ring took 4 MiB (up to its wrap), the grown one the other 60 MiB.
    const std::size_t first = bytesCopiedOutOf(log, firstRing, std::size_t{4} << 20);
    const std::size_t second = bytesCopiedOutOf(log, ring, std::size_t{64} << 20);
    CHECK(first == std::size_t{4} << 20);
    CHECK(first + second == kInstances * kRecordBytes);
    // The fault this guards against: a 4 MiB ring waits on the copy four chunks back before
    // each of the 60 chunks past its first wrap (a glClientWaitSync each, at least, and a real
    // stall on a GPU with copies queued). Grown, no chunk overwrites anything: the only fence
    // queries are endFrame()'s polls of the fences still alive.
    const std::size_t queries = log.callsTo("glClientWaitSync").size();
    INFO("glClientWaitSync calls: " << queries);
    CHECK(queries <= gl::detail::StagingRing::kMaxFences);
    CHECK(f.renderer.lastFrameStats().uploadWaits == 0);
    INFO(joined(unguardedStagingRewrites(log, ring)));
    CHECK(unguardedStagingRewrites(log, ring).empty());
    CHECK(holdsRecords(f.renderer.instanceRecords(batch), batch));

    // Steady frames after it: a few records each, no growth, no new mapping.
    log.clear();
    for (int frame = 1; frame <= 5; ++frame) {
        batch.setTransform(static_cast<std::size_t>(frame) * 1000, at(0.0f, 0.0f));
        f.renderer.render(scene, f.camera, f.target);
        CHECK(f.renderer.lastFrameStats().uploadWaits == 0);
    }
    CHECK(log.callsTo("glMapNamedBufferRange").empty());
    CHECK(bufferLabelled(kRingLabel) == ring);
    CHECK(holdsRecords(f.renderer.instanceRecords(batch), batch));

    // trim() gives the 64 MiB back: a 4 MiB ring again, the grown one deleted.
    f.renderer.trim();
    CHECK(glIsBuffer(ring) == GL_FALSE);
    const GLuint trimmed = bufferLabelled(kRingLabel);
    REQUIRE(trimmed != 0);
    CHECK(bufferBytes(trimmed) == std::int64_t{4} << 20);
    batch.setTransform(7, at(0.0f, 0.0f));
    f.renderer.render(scene, f.camera, f.target);
    CHECK(f.renderer.lastFrameStats().stagingBytes == std::size_t{4} << 20);
    CHECK(holdsRecords(f.renderer.instanceRecords(batch), batch));
}

TEST_CASE("a ring bounded below the upload grows to its bound, then streams the rest in chunks and lands whole", "[ring][uploads]") {
    egl::HeadlessContext& context = test::context();
    (void)context;
    gl::Renderer renderer(gl::RendererDesc{.stagingBytes = std::size_t{4} << 20, .maxStagingBytes = std::size_t{8} << 20});
    gl::OffscreenTarget target(RenderFixture::kSize, RenderFixture::kSize, "bounded-target");
    Scene scene;
    auto quad = MeshGeometry::create(shapes::quad(0.001f, 0.001f), "quad");
    constexpr std::size_t kInstances = std::size_t{1} << 20;  // 64 MiB through an 8 MiB bound
    auto& batch = scene.root().emplace<InstancedMeshNode>(quad, unlit(), kInstances, "million");
    batch.setCount(kInstances);
    fill(batch, 0, 0);

    GlCallLog log;
    renderer.render(scene, orthoCamera(), target);
    CHECK(log.callsTo("glMapNamedBufferRange").size() == 1);  // 4 -> 8 MiB, then no further
    const GLuint ring = bufferLabelled(kRingLabel);
    REQUIRE(ring != 0);
    CHECK(bufferBytes(ring) == std::int64_t{8} << 20);
    const std::size_t copied = bytesCopiedOutOf(log, ring, std::size_t{8} << 20);
    CHECK(copied == kInstances * kRecordBytes - (std::size_t{4} << 20));
    const std::vector<std::string> unguarded = unguardedStagingRewrites(log, ring);
    INFO(joined(unguarded));
    CHECK(unguarded.empty());
    CHECK(holdsRecords(renderer.instanceRecords(batch), batch));
}

TEST_CASE("many small uploads over many frames keep every batch's buffer right and few fences alive", "[ring][uploads]") {
    RenderFixture f;
    Scene scene;
    auto quad = MeshGeometry::create(shapes::quad(0.01f, 0.01f), "quad");
    std::vector<InstancedMeshNode*> batches;
    for (int b = 0; b < 3; ++b) {
        auto& batch = scene.root().emplace<InstancedMeshNode>(quad, unlit(), 2'000,
                                                              "small" + std::to_string(b));
        batch.setCount(2'000);
        fill(batch, b, 0);
        batches.push_back(&batch);
    }
    std::mt19937 random(9);
    GlCallLog log;
    const std::int64_t syncsBefore = gl::liveObjectCounts().syncs;
    std::int64_t mostSyncs = 0;
    for (int frame = 0; frame < 300; ++frame) {
        for (InstancedMeshNode* batch : batches) {
            // A few scattered records per batch per frame: each its own small copy.
            for (int k = 0; k < 4; ++k) {
                const std::size_t index = random() % batch->count();
                const float x = static_cast<float>(random() % 1000) / 1000.0f - 0.5f;
                batch->setTransform(index, at(x, static_cast<float>(frame % 10) / 20.0f));
                batch->setColor(index, glm::vec4(x + 0.5f, 0.0f, static_cast<float>(frame) / 300.0f, 1.0f));
            }
        }
        f.renderer.render(scene, f.camera, f.target);
        mostSyncs = std::max(mostSyncs, gl::liveObjectCounts().syncs - syncsBefore);
    }
    for (const InstancedMeshNode* batch : batches) {
        INFO(batch->name());
        CHECK(holdsRecords(f.renderer.instanceRecords(*batch), *batch));
    }
    const std::vector<std::string> unguarded = unguardedStagingRewrites(log, bufferLabelled(kRingLabel));
    INFO(joined(unguarded));
    CHECK(unguarded.empty());
    // A few hundred bytes a frame must not pile up one sync object per frame until the ring
    // wraps (4 MiB / ~1 KiB would be thousands): endFrame() keeps at most kMaxFences.
    CHECK(mostSyncs <= static_cast<std::int64_t>(gl::detail::StagingRing::kMaxFences));
}

TEST_CASE("StagingRing: random copies through a 4 KiB ring, larger than the ring included, arrive exactly and never rewrite unfenced bytes", "[ring][uploads]") {
    (void)context();
    gl::detail::StagingRing ring(4096);
    CHECK(ring.capacity() == 4096);
    CHECK(ring.chunkBytes() == 1024);
    constexpr std::size_t kDestinationBytes = 64 * 1024;
    gl::Buffer destination({.sizeBytes = kDestinationBytes, .label = "test/ring-destination"});
    std::vector<std::byte> expected(kDestinationBytes, std::byte{0});
    glClearNamedBufferData(destination.id(), GL_R8UI, GL_RED_INTEGER, GL_UNSIGNED_BYTE, nullptr);
    std::mt19937 random(42);
    std::vector<std::byte> source;

    GlCallLog log;
    for (int frame = 0; frame < 200; ++frame) {
        const int copies = 1 + static_cast<int>(random() % 6);
        for (int c = 0; c < copies; ++c) {
            // Mostly small, sometimes past a chunk, sometimes past the whole ring (10 KiB).
            const std::size_t bytes = random() % 8 == 0 ? 1 + random() % 10'240 : 1 + random() % 900;
            const std::size_t offset = random() % (kDestinationBytes - bytes);
            source.resize(bytes);
            for (std::byte& value : source) {
                value = static_cast<std::byte>(random());
            }
            ring.copy(destination.id(), offset, source.data(), bytes);
            std::memcpy(expected.data() + offset, source.data(), bytes);
            // The caller may reuse its memory at once: scribble over it.
            std::memset(source.data(), 0xEE, bytes);
        }
        ring.endFrame();
    }
    CHECK(ring.capacity() == 4096);
    const std::vector<std::string> unguarded = unguardedStagingRewrites(log, ring.buffer());
    INFO(joined(unguarded));
    CHECK(unguarded.empty());
    for (const GlCall& call : log.callsTo("glCopyNamedBufferSubData")) {
        INFO(call.text);
        CHECK(static_cast<std::size_t>(call.argument<GLsizeiptr>(4)) <= ring.chunkBytes());
        CHECK(static_cast<std::size_t>(call.argument<GLintptr>(2) + call.argument<GLsizeiptr>(4)) <=
              ring.capacity());
    }
    for (const GlCall& call : log.callsTo("glClientWaitSync")) {
        CHECK(call.resultAs<GLenum>() != GL_WAIT_FAILED);
    }
    const std::vector<std::byte> actual = readBack(destination.id(), kDestinationBytes);
    CHECK(std::memcmp(actual.data(), expected.data(), kDestinationBytes) == 0);
}

TEST_CASE("StagingRing: grows to its bound for large frames, at endFrame for steady ones, frees what it leaves, and copies exactly", "[ring][uploads]") {
    (void)context();
    const gl::LiveObjectCounts before = gl::liveObjectCounts();
    constexpr std::size_t kDestinationBytes = 256 * 1024;
    gl::Buffer destination({.sizeBytes = kDestinationBytes, .label = "test/ring-destination"});
    std::vector<std::byte> expected(kDestinationBytes, std::byte{0});
    glClearNamedBufferData(destination.id(), GL_R8UI, GL_RED_INTEGER, GL_UNSIGNED_BYTE, nullptr);
    std::mt19937 random(7);
    std::vector<std::byte> source;
    std::vector<GLuint> rings;
    GlCallLog log;
    {
        gl::detail::StagingRing ring(4096, 64 * 1024);
        CHECK(ring.maxCapacity() == 64 * 1024);
        auto send = [&](std::size_t bytes) {
            const std::size_t offset = random() % (kDestinationBytes - bytes);
            source.resize(bytes);
            for (std::byte& value : source) {
                value = static_cast<std::byte>(random());
            }
            ring.copy(destination.id(), offset, source.data(), bytes);
            std::memcpy(expected.data() + offset, source.data(), bytes);
            if (std::find(rings.begin(), rings.end(), ring.buffer()) == rings.end()) {
                rings.push_back(ring.buffer());
            }
        };
        // Steady frames of 3 KiB: more than half the 4 KiB ring, so endFrame() grows it to
        // room for four (16 KiB); then they wrap onto old frames, never growing again.
        for (int frame = 0; frame < 20; ++frame) {
            send(3 * 1024);
            ring.endFrame();
            if (frame == 0) {
                CHECK(ring.capacity() == 16 * 1024);
            }
        }
        CHECK(ring.capacity() == 16 * 1024);
        CHECK(ring.growths() == 1);
        // A 40 KiB frame outgrows it mid-frame: one move to the 64 KiB bound, the rest
        // without a wrap. Then 200 KiB at the bound: it stays, wraps and waits as it must.
        send(40 * 1024);
        CHECK(ring.capacity() == 64 * 1024);
        CHECK(ring.growths() == 2);
        ring.endFrame();
        send(200 * 1024);
        ring.endFrame();
        CHECK(ring.capacity() == 64 * 1024);
        CHECK(ring.growths() == 2);
        for (int frame = 0; frame < 50; ++frame) {
            send(1 + random() % 2000);
            ring.endFrame();
        }
        CHECK(ring.capacity() == 64 * 1024);
        // What it left behind is freed at once: one ring buffer, a bounded number of fences.
        CHECK(gl::liveObjectCounts().buffers == before.buffers + 2);  // the ring and destination
        CHECK(gl::liveObjectCounts().syncs - before.syncs <= static_cast<std::int64_t>(gl::detail::StagingRing::kMaxFences));
        // shrink() goes back to the start, its fences gone with the 64 KiB ring.
        ring.shrink();
        CHECK(ring.capacity() == 4096);
        CHECK(gl::liveObjectCounts().buffers == before.buffers + 2);
        CHECK(gl::liveObjectCounts().syncs == before.syncs);
        send(3000);
        ring.endFrame();
    }
    CHECK(rings.size() == 4);  // 4, 16 and 64 KiB, then 4 KiB again
    for (const GLuint ring : rings) {
        const std::vector<std::string> unguarded = unguardedStagingRewrites(log, ring);
        INFO(joined(unguarded));
        CHECK(unguarded.empty());
    }
    for (const GlCall& call : log.callsTo("glClientWaitSync")) {
        CHECK(call.resultAs<GLenum>() != GL_WAIT_FAILED);
    }
    const std::vector<std::byte> actual = readBack(destination.id(), kDestinationBytes);
    CHECK(std::memcmp(actual.data(), expected.data(), kDestinationBytes) == 0);
    CHECK(gl::liveObjectCounts().buffers == before.buffers + 1);  // the destination
    CHECK(gl::liveObjectCounts().syncs == before.syncs);
}

TEST_CASE("StagingRing: refuses a null source and a ring too small to chunk", "[ring][errors]") {
    (void)context();
    CHECK_THROWS_AS(gl::detail::StagingRing(32), InvalidArgument);
    gl::detail::StagingRing ring(1024);
    gl::Buffer destination({.sizeBytes = 256, .label = "test/ring-destination"});
    CHECK_THROWS_AS(ring.copy(destination.id(), 0, nullptr, 16), InvalidArgument);
    ring.copy(destination.id(), 0, nullptr, 0);  // nothing to copy: no source needed
    CHECK(ring.waits() == 0);
}

TEST_CASE("GlCallLog forwards, logs in order, refuses a second log and restores glad's pointers", "[calllog]") {
    (void)context();
    const PFNGLFENCESYNCPROC original = glad_glFenceSync;
    std::uint64_t firstSequence = 0;
    {
        GlCallLog log;
        CHECK(glad_glFenceSync != original);
        CHECK_THROWS_AS(GlCallLog(), std::logic_error);
        const GLsync sync = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
        const GLenum status = glClientWaitSync(sync, GL_SYNC_FLUSH_COMMANDS_BIT, 1'000'000'000);
        glDeleteSync(sync);
        REQUIRE(log.calls().size() == 3);
        const GlCall& fence = log.calls()[0];
        const GlCall& wait = log.calls()[1];
        CHECK(fence.function == "glFenceSync");
        CHECK(fence.argument<GLenum>(0) == GL_SYNC_GPU_COMMANDS_COMPLETE);
        CHECK(fence.resultAs<GLsync>() == sync);
        CHECK(wait.function == "glClientWaitSync");
        CHECK(wait.argument<GLsync>(0) == sync);
        CHECK(wait.argument<GLbitfield>(1) == GL_SYNC_FLUSH_COMMANDS_BIT);
        CHECK(wait.argument<GLuint64>(2) == 1'000'000'000u);
        CHECK(wait.resultAs<GLenum>() == status);
        CHECK(log.calls()[2].function == "glDeleteSync");
        CHECK_FALSE(log.calls()[2].result.has_value());
        CHECK(wait.sequence == fence.sequence + 1);
        firstSequence = fence.sequence;
    }
    CHECK(glad_glFenceSync == original);
    GlCallLog again(GlCallLog::NoFunctions{});  // a new log once the first is gone; hooks on demand
    MYRIAD_GL_CALL_LOG_HOOK(again, glFenceSync);
    glDeleteSync(glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0));
    REQUIRE(again.calls().size() == 1);  // glDeleteSync not hooked in this one
    CHECK(again.calls()[0].sequence == 0);
    CHECK(firstSequence == 0);
}

TEST_CASE("StagingRing: a frame that outgrows the ring mid-frame grows it once, not again at endFrame", "[ring][uploads]") {
    // Found in review: the mid-frame growth sized the ring to the frame, which left it more than
    // half full, so endFrame() grew it again (a buffer mapped and dropped within one frame).
    (void)context();
    gl::Buffer destination({.sizeBytes = 64 * 1024, .label = "test/ring-destination"});
    std::vector<std::byte> source(12 * 1024, std::byte{7});
    gl::detail::StagingRing ring(4096, 1024 * 1024);
    ring.copy(destination.id(), 0, source.data(), source.size());
    CHECK(ring.growths() == 1);
    const std::size_t grown = ring.capacity();
    ring.endFrame();
    CHECK(ring.growths() == 1);
    CHECK(ring.capacity() == grown);
    CHECK(grown >= 4 * source.size());  // room for four such frames, as endFrame() gives
}
