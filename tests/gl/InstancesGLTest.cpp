// Instances that come and go, culling, uploads of what changed, and pictures that other
// instancing renderers get wrong: non-uniform scale, mirrored instances, far-away batches.
#include "support/GlTest.h"

#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/Renderer.h"

#include <glm/gtc/matrix_transform.hpp>

#include <glad/gl.h>

#include <algorithm>
#include <array>
#include <map>
#include <span>
#include <vector>

using namespace myriad;
using namespace myriad::test;

namespace {

constexpr std::uint32_t kSize = 64;

using Fixture = RenderFixture;

int maxDifference(const Image& a, const Image& b) {
    int worst = 0;
    for (std::size_t i = 0; i < a.pixels.size(); ++i) {
        worst = std::max(worst, std::abs(int(a.pixels[i]) - int(b.pixels[i])));
    }
    return worst;
}

} // namespace

TEST_CASE("swap-remove keeps the right colour at the right place after releasing every other instance of 100", "[handles][pixels]") {
    Fixture f;
    Scene scene;
    auto quad = MeshGeometry::create(shapes::quad(0.12f, 0.12f), "quad");
    auto& batch = scene.root().emplace<InstancedMeshNode>(quad, unlit(), 100, "hundred");
    std::vector<InstanceHandle> handles;
    std::vector<glm::vec2> places;
    std::vector<Rgba> colours;
    for (int i = 0; i < 100; ++i) {
        const glm::vec2 place(-0.9f + 0.2f * static_cast<float>(i % 10), 0.9f - 0.2f * static_cast<float>(i / 10));
        // Each instance its own colour: red from the column, green from the row, blue odd/even.
        const glm::vec4 colour(static_cast<float>(i % 10) / 9.0f, static_cast<float>(i / 10) / 9.0f,
                               static_cast<float>(i % 2), 1.0f);
        handles.push_back(batch.acquire({at(place.x, place.y), colour}));
        places.push_back(place);
        auto encode = [](float v) {
            const float e = v <= 0.0031308f ? v * 12.92f : 1.055f * std::pow(v, 1.0f / 2.4f) - 0.055f;
            return static_cast<int>(std::lround(e * 255.0f));
        };
        colours.push_back({encode(colour.r), encode(colour.g), encode(colour.b), 255});
    }
    f.render(scene);
    for (int i = 0; i < 100; i += 2) {
        batch.release(handles[static_cast<std::size_t>(i)]);
    }
    const Image image = f.render(scene);
    CHECK(f.renderer.lastFrameStats().instances == 50);
    for (int i = 0; i < 100; ++i) {
        const auto x = pixelX(places[static_cast<std::size_t>(i)].x, kSize);
        const auto y = pixelY(places[static_cast<std::size_t>(i)].y, kSize);
        INFO("instance " << i);
        if (i % 2 == 0) {
            MYRIAD_CHECK_PIXEL(image, x, y, kBlack);
        } else {
            MYRIAD_CHECK_PIXEL(image, x, y, colours[static_cast<std::size_t>(i)]);
        }
    }
}

TEST_CASE("a batch whose node origin is out of view but whose instances are in view is drawn", "[culling][pixels]") {
    Fixture f;
    Scene scene;
    auto quad = MeshGeometry::create(shapes::quad(0.5f, 0.5f), "quad");
    auto& batch = scene.root().emplace<InstancedMeshNode>(quad, unlit(), 1, "offset");
    batch.setPosition(glm::dvec3(100.0, 0.0, 0.0));
    batch.addInstance(at(-100.0f, 0.0f), glm::vec4(1, 0, 0, 1));
    Image image = f.render(scene);
    MYRIAD_CHECK_PIXEL(image, kSize / 2, kSize / 2, kRed);
    CHECK(f.renderer.lastFrameStats().culledNodes == 0);
    CHECK(f.renderer.lastFrameStats().drawCalls == 1);

    // Moved wholly out of view: culled, no draw call.
    batch.setTransform(0, at(-90.0f, 0.0f));
    image = f.render(scene);
    CHECK(f.renderer.lastFrameStats().culledNodes == 1);
    CHECK(f.renderer.lastFrameStats().drawCalls == 0);
    // ...unless culling is switched off for it.
    batch.setFrustumCulled(false);
    f.render(scene);
    CHECK(f.renderer.lastFrameStats().drawCalls == 1);
    // Node scale grows the sphere: a big instance whose centre is out of view still shows.
    batch.setFrustumCulled(true);
    batch.setTransform(0, at(-101.5f, 0.0f) * glm::scale(glm::mat4(1.0f), glm::vec3(4.0f)));
    image = f.render(scene);
    CHECK(f.renderer.lastFrameStats().drawCalls == 1);
    MYRIAD_CHECK_PIXEL(image, 2, kSize / 2, kRed);
}

TEST_CASE("1% of instances changed uploads 1% of the bytes", "[uploads]") {
    Fixture f;
    Scene scene;
    // A 100 x 100 grid of cells 0.02 wide tiling [-1, 1]^2; instance 0 at the bottom left.
    auto tiny = MeshGeometry::create(shapes::quad(0.02f, 0.02f), "tiny");
    auto& batch = scene.root().emplace<InstancedMeshNode>(tiny, unlit(), 10000, "many");
    for (int i = 0; i < 10000; ++i) {
        batch.addInstance(at(-0.99f + 0.02f * static_cast<float>(i % 100),
                             -0.99f + 0.02f * static_cast<float>(i / 100)));
    }
    f.render(scene);
    const std::uint64_t full = f.renderer.lastFrameStats().bytesUploaded;
    CHECK(full >= 10000 * 64);
    // 1% contiguous.
    for (std::size_t i = 2000; i < 2100; ++i) {
        batch.setColor(i, glm::vec4(1, 0, 0, 1));
    }
    f.render(scene);
    CHECK(f.renderer.lastFrameStats().bytesUploaded == 100 * 64);
    CHECK(f.renderer.lastFrameStats().uploadRanges == 1);
    // 1% scattered: every 100th instance.
    for (std::size_t i = 0; i < 10000; i += 100) {
        batch.setColor(i, glm::vec4(0, 1, 0, 1));
    }
    const Image image = f.render(scene);
    CHECK(f.renderer.lastFrameStats().bytesUploaded == 100 * 64);
    // And what was uploaded is what the CPU holds: instance 0 (bottom-left) is green.
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.99f, kSize), pixelY(-0.99f, kSize), kGreen);
    // Nothing changed: nothing sent.
    f.render(scene);
    CHECK(f.renderer.lastFrameStats().bytesUploaded == 0);
}

TEST_CASE("streamed uploads over many frames always show the latest state", "[uploads][pixels]") {
    Fixture f;
    Scene scene;
    auto quad = MeshGeometry::create(shapes::quad(0.4f, 0.4f), "quad");
    auto& batch = scene.root().emplace<InstancedMeshNode>(quad, unlit(), 4, "stream");
    batch.addInstance(at(-0.5f, 0.5f));
    batch.addInstance(at(0.5f, 0.5f));
    const Rgba palette[3] = {kRed, kGreen, kBlue};
    const glm::vec4 linear[3] = {{1, 0, 0, 1}, {0, 1, 0, 1}, {0, 0, 1, 1}};
    for (int frame = 0; frame < 30; ++frame) {
        batch.setColor(static_cast<std::size_t>(frame % 2), linear[frame % 3]);
        const Image image = f.render(scene);
        const float x = frame % 2 == 0 ? -0.5f : 0.5f;
        INFO("frame " << frame);
        MYRIAD_CHECK_PIXEL(image, pixelX(x, kSize), pixelY(0.5f, kSize), palette[frame % 3]);
    }
}

TEST_CASE("non-uniform instance scale is lit exactly as a MeshNode with the same transform", "[pixels][lighting]") {
    Fixture f;
    f.camera.setOrthographic(-2.0f, 2.0f, -2.0f, 2.0f, 0.1f, 20.0f);
    auto sphere = MeshGeometry::create(shapes::uvSphere(0.5f, 48, 24), "sphere");
    Material lit;
    lit.baseColor = glm::vec4(0.9f, 0.8f, 0.7f, 1.0f);
    const glm::mat4 transform = glm::rotate(glm::mat4(1.0f), 0.4f, glm::vec3(0, 0, 1)) *
                                glm::scale(glm::mat4(1.0f), glm::vec3(3.0f, 1.0f, 1.0f));
    auto light = [](Scene& scene) {
        scene.light.direction = glm::vec3(-0.6f, -0.5f, -0.6f);
        scene.ambient = glm::vec3(0.1f);
    };
    Scene instanced;
    light(instanced);
    instanced.root().emplace<InstancedMeshNode>(sphere, lit, 1, "instanced").addInstance(transform);
    Scene single;
    light(single);
    single.root().emplace<MeshNode>(sphere, lit, "single").setLocalMatrix(transform);
    const Image a = f.render(instanced);
    const Image b = f.render(single);
    CHECK(maxDifference(a, b) <= 2);
    // The light travels towards -X, so the ellipsoid's +X end (top right after the 0.4 rad
    // turn) is lit and its -X end (bottom left) is in shade.
    const Rgba litSide = pixelAt(a, 50, 24);
    const Rgba darkSide = pixelAt(a, 14, 40);
    INFO("lit " << describe(litSide) << " dark " << describe(darkSide));
    CHECK(litSide[0] > darkSide[0]);
}

TEST_CASE("mirrored instances keep front faces and lighting, mixed with ordinary ones", "[pixels][culling]") {
    Fixture f;
    f.camera.setPerspective(glm::radians(60.0f), 1.0f, 0.1f, 50.0f);
    f.camera.lookAt(glm::dvec3(0, 1.5, 4), glm::dvec3(0, 0, 0));
    // A box that is not symmetric: mirroring it in X shows a mirror image, not the same box.
    auto box = MeshGeometry::create(shapes::box(0.8f), "box");
    Material lit;  // single-sided: back faces culled
    auto scene = [&](bool mirroredRight, bool oneBatch) {
        auto s = std::make_unique<Scene>();
        s->light.direction = glm::vec3(-0.3f, -1.0f, -0.6f);
        s->ambient = glm::vec3(0.15f);
        const glm::mat4 left = at(-0.8f, 0.0f);
        glm::mat4 right = at(0.8f, 0.0f);
        if (mirroredRight) {
            right = right * glm::scale(glm::mat4(1.0f), glm::vec3(-1.0f, 1.0f, 1.0f));
        }
        if (oneBatch) {
            auto& batch = s->root().emplace<InstancedMeshNode>(box, lit, 2, "mixed");
            batch.addInstance(left);
            batch.addInstance(right);
        } else {
            s->root().emplace<InstancedMeshNode>(box, lit, 1, "l").addInstance(left);
            s->root().emplace<InstancedMeshNode>(box, lit, 1, "r").addInstance(right);
        }
        return s;
    };
    // A box mirrored in X is the same box: the picture must not change.
    const Image ordinary = f.render(*scene(false, true));
    const Image mixed = f.render(*scene(true, true));
    CHECK(maxDifference(ordinary, mixed) <= 2);
    const Image separate = f.render(*scene(true, false));  // an all-mirrored batch (GL_FRONT)
    CHECK(maxDifference(ordinary, separate) <= 2);
    // A mirrored node (not instance) too.
    Scene nodeMirrored;
    nodeMirrored.light.direction = glm::vec3(-0.3f, -1.0f, -0.6f);
    nodeMirrored.ambient = glm::vec3(0.15f);
    nodeMirrored.root().emplace<InstancedMeshNode>(box, lit, 1, "l").addInstance(at(-0.8f, 0.0f));
    auto& flipped = nodeMirrored.root().emplace<MeshNode>(box, lit, "r");
    flipped.setPosition(glm::dvec3(0.8, 0.0, 0.0));
    flipped.setScale(glm::vec3(-1.0f, 1.0f, 1.0f));
    CHECK(maxDifference(ordinary, f.render(nodeMirrored)) <= 2);
}

TEST_CASE("a batch 10,000 km from the origin renders as the same batch at the origin", "[pixels][precision]") {
    Fixture f;
    auto quad = MeshGeometry::create(shapes::quad(0.02f, 0.02f), "speck");
    auto build = [&](Scene& scene, double offset) {
        auto& batch = scene.root().emplace<InstancedMeshNode>(quad, unlit(), 25, "far");
        batch.setPosition(glm::dvec3(offset, 0.0, 0.0));
        for (int i = 0; i < 25; ++i) {
            // Instances a few millimetres apart: float world positions at 1e7 m would merge them.
            batch.addInstance(at(-0.6f + 0.05f * static_cast<float>(i), 0.3f * std::sin(static_cast<float>(i))),
                              glm::vec4(1, 1, 0, 1));
        }
    };
    Scene home;
    build(home, 0.0);
    Scene far;
    const double offset = 1.0e7 + 0.37;  // float steps are 1 m out there: 0.37 m would be lost
    build(far, offset);
    f.camera.lookAt(glm::dvec3(0, 0, 10), glm::dvec3(0, 0, 0));
    const Image a = f.render(home);
    f.camera.lookAt(glm::dvec3(offset, 0, 10), glm::dvec3(offset, 0, 0));
    const Image b = f.render(far);
    CHECK(f.renderer.lastFrameStats().culledNodes == 0);
    CHECK(maxDifference(a, b) == 0);
}

TEST_CASE("translucent nodes are sorted back to front, tint and layer masks apply", "[pixels]") {
    Fixture f;
    auto quad = MeshGeometry::create(shapes::quad(1.0f, 1.0f), "quad");
    Material glass = unlit();
    glass.alphaMode = AlphaMode::Blend;
    Scene scene;
    // Added near-first: the renderer must still draw the far red one first.
    auto& nearBlue = scene.root().emplace<MeshNode>(quad, glass, "near");
    nearBlue.material().baseColor = glm::vec4(0, 0, 1, 0.5f);
    nearBlue.setPosition(glm::dvec3(0, 0, 2));
    auto& farRed = scene.root().emplace<MeshNode>(quad, glass, "far");
    farRed.material().baseColor = glm::vec4(1, 0, 0, 0.5f);
    Image image = f.render(scene);
    Rgba centre = pixelAt(image, kSize / 2, kSize / 2);
    INFO("centre " << describe(centre));
    CHECK(centre[2] > centre[0] + 30);  // blue on top

    // Tint: multiplies colour; tint alpha < 1 makes an opaque material translucent.
    Scene tinted;
    auto& white = tinted.root().emplace<MeshNode>(quad, unlit(), "white");
    white.setTint(glm::vec4(1, 0, 0, 1));
    image = f.render(tinted);
    MYRIAD_CHECK_PIXEL(image, kSize / 2, kSize / 2, kRed);
    white.setTint(glm::vec4(1, 1, 1, 0.5f));
    image = f.render(tinted);
    centre = pixelAt(image, kSize / 2, kSize / 2);
    // Half of white over black, blended in linear light: 0.5, sRGB byte 188 (not 128).
    MYRIAD_CHECK_PIXEL(image, kSize / 2, kSize / 2, Rgba{188, 188, 188, 255});

    // Layer masks: a node on layer 2 is invisible to a camera that sees layer 1 only.
    white.setTint(glm::vec4(1.0f));
    white.setLayerMask(0b10);
    f.camera.setLayerMask(0b01);
    image = f.render(tinted);
    MYRIAD_CHECK_PIXEL(image, kSize / 2, kSize / 2, kBlack);
    CHECK(f.renderer.lastFrameStats().drawCalls == 0);
    f.camera.setLayerMask(0b11);
    image = f.render(tinted);
    MYRIAD_CHECK_PIXEL(image, kSize / 2, kSize / 2, kWhite);
}

TEST_CASE("a bounds override decides culling: the batch is culled or drawn by the given box", "[culling][pixels]") {
    Fixture f;
    Scene scene;
    auto quad = MeshGeometry::create(shapes::quad(0.5f, 0.5f), "quad");
    auto& batch = scene.root().emplace<InstancedMeshNode>(quad, unlit(), 1, "swarm");
    batch.addInstance(at(0.0f, 0.0f), glm::vec4(1, 0, 0, 1));
    // The game promises a volume far out of view: the batch is culled although its instance
    // is in view (the promise is the caller's to keep).
    batch.setBoundsOverride({glm::vec3(90.0f, -1.0f, -1.0f), glm::vec3(92.0f, 1.0f, 1.0f)});
    Image image = f.render(scene);
    CHECK(f.renderer.lastFrameStats().culledNodes == 1);
    CHECK(f.renderer.lastFrameStats().drawCalls == 0);
    MYRIAD_CHECK_PIXEL(image, kSize / 2, kSize / 2, kBlack);
    // Cleared: the computed bounds are in view again.
    batch.clearBoundsOverride();
    image = f.render(scene);
    CHECK(f.renderer.lastFrameStats().culledNodes == 0);
    MYRIAD_CHECK_PIXEL(image, kSize / 2, kSize / 2, kRed);
    // A volume around the view keeps it drawn wherever the instance is inside it.
    batch.setBoundsOverride({glm::vec3(-2.0f), glm::vec3(2.0f)});
    batch.setTransform(0, at(0.5f, 0.0f));
    image = f.render(scene);
    CHECK(f.renderer.lastFrameStats().drawCalls == 1);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), kSize / 2, kRed);
}

namespace {

// A minimal interception of glad's sync entry points: fences are logged, and a wait on a fence
// reports "not yet" twice before asking the driver, as a GPU that is behind would. While it
// says "not yet", the streaming buffer must not change.
struct SyncSpy {
    static inline PFNGLFENCESYNCPROC realFence = nullptr;
    static inline PFNGLCLIENTWAITSYNCPROC realWait = nullptr;
    static inline std::map<GLsync, int> notYet;  // fence -> "not yet" answers given
    static inline int fences = 0;
    static inline int waitsUntilSignalled = 0;
    static inline GLuint buffer = 0;
    static inline std::size_t bytes = 0;
    static inline std::vector<std::byte> snapshot;
    static inline bool changedWhileWaiting = false;

    static std::span<const std::byte> contents() {
        void* pointer = nullptr;
        glGetNamedBufferPointerv(buffer, GL_BUFFER_MAP_POINTER, &pointer);
        return {static_cast<const std::byte*>(pointer), pointer != nullptr ? bytes : 0};
    }
    static GLsync fence(GLenum condition, GLbitfield flags) {
        ++fences;
        return realFence(condition, flags);
    }
    static GLenum wait(GLsync sync, GLbitfield flags, GLuint64 timeout) {
        int& given = notYet[sync];
        const std::span<const std::byte> now = buffer != 0 ? contents() : std::span<const std::byte>{};
        if (given == 0) {
            snapshot.assign(now.begin(), now.end());
        } else if (!std::equal(now.begin(), now.end(), snapshot.begin(), snapshot.end())) {
            changedWhileWaiting = true;
        }
        if (given < 2) {
            ++given;
            return GL_TIMEOUT_EXPIRED;
        }
        ++waitsUntilSignalled;
        return realWait(sync, flags, timeout);
    }
};

} // namespace

TEST_CASE("a streaming batch rewritten every frame draws each frame's records and never writes a part before its fence", "[streaming][pixels]") {
    Fixture f;
    Scene scene;
    auto& batch = addStreamingSwarm(scene);
    const std::array<glm::vec2, 4> places{glm::vec2(-0.5f, 0.5f), glm::vec2(0.5f, 0.5f), glm::vec2(-0.5f, -0.5f),
                                          glm::vec2(0.5f, -0.5f)};
    const std::array<glm::vec4, 3> colours{glm::vec4(1, 0, 0, 1), glm::vec4(0, 1, 0, 1), glm::vec4(0, 0, 1, 1)};
    const std::array<Rgba, 3> expected{kRed, kGreen, kBlue};
    SyncSpy::realFence = glad_glFenceSync;
    SyncSpy::realWait = glad_glClientWaitSync;
    glad_glFenceSync = &SyncSpy::fence;
    glad_glClientWaitSync = &SyncSpy::wait;
    for (int frame = 0; frame < 8; ++frame) {
        // Every record rewritten in bulk: instance i goes to place (i + frame) % 4 with a colour
        // that changes every frame.
        float* data = batch.instanceData().data();
        for (std::size_t i = 0; i < 4; ++i) {
            const glm::vec2 place = places[(i + static_cast<std::size_t>(frame)) % 4];
            const glm::vec4 colour = colours[(i + static_cast<std::size_t>(frame)) % 3];
            float* record = data + i * 16;
            record[3] = place.x;
            record[7] = place.y;
            std::copy(&colour[0], &colour[0] + 4, record + 12);
        }
        batch.markInstancesChanged();
        const Image image = f.render(scene);
        if (frame == 0) {
            SyncSpy::buffer = f.renderer.instanceBuffer(batch);
            SyncSpy::bytes = 3 * 4 * 64;
        }
        INFO("frame " << frame);
        if (frame > 0) {  // the first frame also uploads the mesh
            CHECK(f.renderer.lastFrameStats().bytesUploaded == 4 * 64);
        }
        for (std::size_t i = 0; i < 4; ++i) {
            const glm::vec2 place = places[(i + static_cast<std::size_t>(frame)) % 4];
            MYRIAD_CHECK_PIXEL(image, pixelX(place.x, kSize), pixelY(place.y, kSize),
                               expected[(i + static_cast<std::size_t>(frame)) % 3]);
        }
    }
    glad_glFenceSync = SyncSpy::realFence;
    glad_glClientWaitSync = SyncSpy::realWait;
    // One fence per frame that wrote a part; from the fourth frame on, each write first waited
    // (through the "not yet" answers) for the fence of the frame three back.
    CHECK(SyncSpy::fences >= 8);
    CHECK(SyncSpy::waitsUntilSignalled >= 5);
    CHECK_FALSE(SyncSpy::changedWhileWaiting);
    // A frame without a change sends nothing and keeps drawing the last part.
    const Image still = f.render(scene);
    CHECK(f.renderer.lastFrameStats().bytesUploaded == 0);
    MYRIAD_CHECK_PIXEL(still, pixelX(places[3].x, kSize), pixelY(places[3].y, kSize), expected[(0 + 7) % 3]);
}
