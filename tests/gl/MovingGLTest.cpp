// A streaming batch rewritten in bulk gets its frame's copy and its bounds from one pass before
// culling (GpuResources::streamAhead): culling must see this frame's bounds, never last frame's.
#include "support/GlTest.h"

#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/gl/Renderer.h"

#include <glad/gl.h>

#include <algorithm>
#include <array>

using namespace myriad;
using namespace myriad::test;

namespace {

constexpr std::uint32_t kSize = RenderFixture::kSize;

/** Writes instance i's translation (x, y, z) and colour through instanceData(), every instance. */
void rewrite(InstancedMeshNode& batch, const std::array<glm::vec3, 4>& places, const glm::vec4& colour) {
    float* data = batch.instanceData().data();
    for (std::size_t i = 0; i < places.size(); ++i) {
        float* record = data + i * 16;
        record[3] = places[i].x;
        record[7] = places[i].y;
        record[11] = places[i].z;
        std::copy(&colour[0], &colour[0] + 4, record + 12);
    }
    batch.markInstancesChanged();
}

} // namespace

TEST_CASE("a streaming batch moved in bulk is culled and drawn by this frame's bounds, with one copy a frame", "[streaming][bounds][pixels]") {
    RenderFixture f;
    Scene scene;
    auto& batch = addStreamingSwarm(scene);
    const std::array<glm::vec3, 4> inView{glm::vec3(-0.5f, 0.5f, 0.0f), glm::vec3(0.5f, 0.5f, 0.0f),
                                          glm::vec3(-0.5f, -0.5f, 0.0f), glm::vec3(0.5f, -0.5f, 0.0f)};
    rewrite(batch, inView, glm::vec4(1, 0, 0, 1));
    Image image = f.render(scene);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), pixelY(-0.5f, kSize), kRed);
    CHECK(f.renderer.lastFrameStats().drawCalls == 1);

    // Behind the camera (it sits at z = 10 looking down -z): last frame's bounds would still be
    // in view; this frame's are not, so the batch is culled whole.
    std::array<glm::vec3, 4> behind = inView;
    for (glm::vec3& p : behind) {
        p.z = 50.0f;
    }
    rewrite(batch, behind, glm::vec4(0, 1, 0, 1));
    REQUIRE(batch.derivedStale());
    image = f.render(scene);
    CHECK_FALSE(batch.derivedStale());
    CHECK(f.renderer.lastFrameStats().culledNodes == 1);
    CHECK(f.renderer.lastFrameStats().drawCalls == 0);
    CHECK(batch.localBounds().min.z == Approx(50.0f));
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), pixelY(-0.5f, kSize), kBlack);
    // The copy was made before culling knew (the batch was drawn last frame): one copy, no more.
    CHECK(f.renderer.lastFrameStats().bytesUploaded == 4 * 64);
    CHECK(f.renderer.lastFrameStats().bytesStreamedAhead == 4 * 64);

    // Back in view, shifted and blue: drawn from this frame's records.
    std::array<glm::vec3, 4> back = inView;
    for (glm::vec3& p : back) {
        p.x = p.x * 0.5f;
    }
    rewrite(batch, back, glm::vec4(0, 0, 1, 1));
    image = f.render(scene);
    CHECK(f.renderer.lastFrameStats().culledNodes == 0);
    CHECK(f.renderer.lastFrameStats().bytesUploaded == 4 * 64);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.25f, kSize), pixelY(0.5f, kSize), kBlue);
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.25f, kSize), pixelY(-0.5f, kSize), kBlue);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.75f, kSize), pixelY(0.5f, kSize), kBlack);

    // Rewritten again while drawn: culled by the new bounds before the upload of the same frame.
    for (glm::vec3& p : back) {
        p.x = -p.x;
    }
    rewrite(batch, back, glm::vec4(1, 0, 0, 1));
    image = f.render(scene);
    CHECK_FALSE(batch.derivedStale());
    CHECK(f.renderer.lastFrameStats().bytesUploaded == 4 * 64);
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.25f, kSize), pixelY(0.5f, kSize), kRed);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.25f, kSize), pixelY(-0.5f, kSize), kRed);
}

TEST_CASE("with shadows on, a streaming batch moved in bulk is still copied ahead of culling", "[streaming][bounds][shadows]") {
    // The shadow fit reads every batch's bounds; run before the copy ahead, it made a bounds
    // pass of its own and left prepare a second, plain copy (the records read twice a frame).
    RenderFixture f;
    Scene scene;
    auto& batch = addStreamingSwarm(scene);
    scene.light.shadow.enabled = true;
    const std::array<glm::vec3, 4> inView{glm::vec3(-0.5f, 0.5f, 0.0f), glm::vec3(0.5f, 0.5f, 0.0f),
                                          glm::vec3(-0.5f, -0.5f, 0.0f), glm::vec3(0.5f, -0.5f, 0.0f)};
    rewrite(batch, inView, glm::vec4(1, 0, 0, 1));
    (void)f.render(scene);  // first frame: not drawn before, so prepare copies
    CHECK(f.renderer.lastFrameStats().bytesStreamedAhead == 0);
    std::array<glm::vec3, 4> shifted = inView;
    for (glm::vec3& p : shifted) {
        p.x *= 0.5f;
    }
    rewrite(batch, shifted, glm::vec4(0, 0, 1, 1));
    REQUIRE(batch.derivedStale());
    const Image image = f.render(scene);
    CHECK(f.renderer.shadowMap().drawn);
    CHECK(f.renderer.lastFrameStats().bytesStreamedAhead == 4 * 64);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.25f, kSize), pixelY(0.5f, kSize), kBlue);
}

TEST_CASE("shrinkToFit gives the GPU copy back too and draws the kept instances where they were", "[instances][handles][pixels]") {
    for (const UploadMode mode : {UploadMode::Staged, UploadMode::Streaming}) {
        INFO((mode == UploadMode::Staged ? "Staged" : "Streaming"));
        RenderFixture f;
        Scene scene;
        auto& batch = scene.root().emplace<InstancedMeshNode>(MeshGeometry::create(shapes::quad(0.4f, 0.4f), "quad"),
                                                              unlit(), 400, "shrinking",
                                                              InstancedMeshOptions{.uploadMode = mode});
        std::vector<InstanceHandle> handles;
        for (int i = 0; i < 400; ++i) {
            // All at the left, except the two kept ones, red at the upper right, green at the lower right.
            handles.push_back(batch.acquire({.transform = at(-0.5f, 0.0f)}));
        }
        batch.setTransform(batch.indexOf(handles[100]), at(0.5f, 0.5f));
        batch.setColor(batch.indexOf(handles[100]), glm::vec4(1, 0, 0, 1));
        batch.setTransform(batch.indexOf(handles[300]), at(0.5f, -0.5f));
        batch.setColor(batch.indexOf(handles[300]), glm::vec4(0, 1, 0, 1));
        (void)f.render(scene);
        // Staged: the batch's place in the renderer's record arena; Streaming: its own buffer.
        auto heldBytes = [&] {
            GLint64 bytes = static_cast<GLint64>(f.renderer.instanceRecords(batch).sizeBytes);
            if (mode != UploadMode::Staged) {
                glGetNamedBufferParameteri64v(f.renderer.instanceBuffer(batch), GL_BUFFER_SIZE, &bytes);
            }
            return bytes;
        };
        const GLint64 before = heldBytes();

        for (int i = 0; i < 400; ++i) {
            if (i != 100 && i != 300) {
                batch.release(handles[static_cast<std::size_t>(i)]);
            }
        }
        batch.shrinkToFit();
        REQUIRE(batch.capacity() == 2);
        const Image image = f.render(scene);
        const GLint64 after = heldBytes();
        // Staged: a place of 4 records (the arena's unit); Streaming: three parts of a multiple
        // of 4 rows.
        const GLint64 rowsPerCopy = mode == UploadMode::Staged ? 4 : 3 * 4;
        CHECK(after == rowsPerCopy * 64);
        CHECK(after < before);
        MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), pixelY(0.5f, kSize), kRed);
        MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), pixelY(-0.5f, kSize), kGreen);
        MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), pixelY(0.0f, kSize), kBlack);
        CHECK(f.renderer.lastFrameStats().instances == 2);
    }
}
