// How particle pools reach the GPU (issue 24's CPU path): streaming pools write the live rows
// of each changed plane into the next of three fenced parts of a persistently mapped buffer,
// sort orders always stream, and a pool with curves (ParticlePool::setCurves) sends two planes
// and has colour, alpha and size over life evaluated in the vertex stage. Pixels show that each
// way draws what the staged, four-plane way draws; the fences are read from the GL call log,
// since llvmpipe never runs a frame behind.
#include "support/GlCallLog.h"
#include "support/GlTest.h"

#include "myriad/core/MeshNode.h"
#include "myriad/core/Particles.h"
#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/util/Error.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/Renderer.h"

#include <cstdlib>
#include <string>

using namespace myriad;
using namespace myriad::test;

namespace {

constexpr std::uint32_t kSize = RenderFixture::kSize;  // orthoCamera: x, y in [-1, 1], 32 px a metre

/** The largest difference of any channel of any pixel of two images of the same size. */
int largestDifference(const Image& a, const Image& b) {
    int largest = 0;
    for (std::size_t i = 0; i < a.pixels.size() && i < b.pixels.size(); ++i) {
        largest = std::max(largest, std::abs(static_cast<int>(a.pixels[i]) - static_cast<int>(b.pixels[i])));
    }
    return largest;
}

/** Pixels that are not black (some channel above 8). */
int litPixels(const Image& image) {
    int lit = 0;
    for (std::uint32_t y = 0; y < image.height; ++y) {
        for (std::uint32_t x = 0; x < image.width; ++x) {
            const Rgba p = pixelAt(image, x, y);
            lit += p[0] > 8 || p[1] > 8 || p[2] > 8 ? 1 : 0;
        }
    }
    return lit;
}

/** Sixteen particles on a 4 x 4 grid across the view, moved right by @p shift metres, in
 *  depth order -z so a sorted pool has something to sort. */
void layGrid(ParticlePool& pool, float shift) {
    pool.clear();
    for (int i = 0; i < 16; ++i) {
        Particle p;
        p.position = glm::vec3(-0.75f + 0.5f * static_cast<float>(i % 4) + shift, -0.75f + 0.5f * static_cast<float>(i / 4),
                               -0.1f * static_cast<float>(i));
        p.size = 0.1f;
        p.color = glm::vec3(1.0f, 0.5f, 0.25f);
        p.alpha = 0.75f;
        (void)pool.spawn(p);
    }
}

/** An emitter whose particles change colour, alpha and size over life, rising through the view. */
EmitterDesc fountain() {
    EmitterDesc d;
    d.position = glm::vec3(0.0f, -0.8f, 0.0f);
    d.spawnExtent = glm::vec3(0.6f, 0.1f, 0.0f);
    d.rate = 240.0f;
    d.lifetimeMin = 0.8f;
    d.lifetimeMax = 1.2f;
    d.speedMin = 1.0f;
    d.speedMax = 1.5f;
    d.size = 0.05f;
    d.colorOverLife.keys = {{0.0f, glm::vec3(1.0f, 0.9f, 0.2f)}, {0.5f, glm::vec3(0.9f, 0.3f, 0.1f)},
                            {1.0f, glm::vec3(0.2f, 0.1f, 0.6f)}};
    d.alphaOverLife.keys = {{0.0f, 0.2f}, {0.3f, 1.0f}, {1.0f, 0.0f}};
    d.sizeOverLife.keys = {{0.0f, 0.04f}, {1.0f, 0.12f}};
    return d;
}

} // namespace

TEST_CASE("a streaming particle pool and its sort order never write a part before a fence after the part's last draw",
          "[gl][particles][streaming][fences]") {
    // The CPU's writes are not GL calls: they show as the next bind of another part's texture
    // (unfencedRegionSwitches), so each case has one writer only, or another writer's wait
    // would hide a missing one. "streams": an additive pool (no order) moved every other
    // frame. "order": a sorted pool standing still under a camera that moves every other frame
    // (the order is sorted and written again; the streams are not).
    const bool order = GENERATE(false, true);
    INFO((order ? "order" : "streams"));
    RenderFixture f;
    Scene scene;
    auto& pool = scene.root().emplace<ParticlePool>(
        64, order ? ParticleMaterial::billboard() : ParticleMaterial::additive(), "swarm");
    pool.setUploadMode(UploadMode::Streaming);
    layGrid(pool, 0.0f);
    const LaggingGpu lagging;  // a GPU frames behind: polls never find a fence signalled
    GlCallLog log;  // from the first frame: the parts' buffer textures are made there
    hookReadersAndBufferAccess(log);
    MYRIAD_GL_CALL_LOG_HOOK(log, glBindTextureUnit);
    MYRIAD_GL_CALL_LOG_HOOK(log, glDrawArraysInstanced);
    (void)f.render(scene);
    for (int frame = 0; frame < 10; ++frame) {
        if (frame % 2 == 0) {  // every other frame: parts drawn unchanged between writes
            const float shift = frame % 4 == 0 ? 0.05f : -0.05f;
            if (order) {
                f.camera.lookAt(glm::vec3(shift, 0.0f, 10.0f), glm::vec3(shift, 0.0f, 0.0f) + glm::vec3(0.01f, 0.0f, 0.0f));
            } else {
                layGrid(pool, shift);
            }
        }
        (void)f.render(scene);
    }
    const GLuint mapped = bufferLabelled(order ? "swarm/ParticlePool.order-0" : "swarm/ParticlePool.streams-streaming");
    REQUIRE(mapped != 0);
    // Six writes came round the three parts: the first frame's part, then five switches,
    // none on a frame without a change.
    const GLuint unit = order ? 1 : 2;
    std::size_t switches = 0;
    GLuint previous = 0;
    for (const GlCall& call : log.callsTo("glBindTextureUnit")) {
        const auto texture = call.argument<GLuint>(1);  // render() empties the unit on exit: skip 0
        if (call.argument<GLuint>(0) == unit && texture != 0 && texture != previous) {
            switches += previous != 0 ? 1 : 0;
            previous = texture;
        }
    }
    CHECK(switches == 5);
    const std::vector<std::string> unfenced = unfencedRegionSwitches(log, mapped);
    INFO(joined(unfenced) << "log:\n" << log.dump(300));
    CHECK(unfenced.empty());
    CHECK(log.callsTo("glCopyNamedBufferSubData").empty());  // no staging copy
}

TEST_CASE("a streaming particle pool draws what a staged one draws, frame after frame", "[gl][particles][streaming]") {
    const ParticleMaterial material = GENERATE(ParticleMaterial::billboard(), ParticleMaterial::additive());
    RenderFixture staged;
    RenderFixture streaming;
    Scene stagedScene;
    Scene streamingScene;
    auto& stagedPool = stagedScene.root().emplace<ParticlePool>(64, material);
    auto& streamingPool = streamingScene.root().emplace<ParticlePool>(64, material);
    stagedPool.setUploadMode(UploadMode::Staged);
    streamingPool.setUploadMode(UploadMode::Streaming);
    for (int frame = 0; frame < 6; ++frame) {
        INFO("frame " << frame);
        if (frame != 3) {  // frame 3 changes nothing: the streaming pool draws its part again
            layGrid(stagedPool, 0.04f * static_cast<float>(frame));
            layGrid(streamingPool, 0.04f * static_cast<float>(frame));
        }
        const Image a = staged.render(stagedScene);
        const Image b = streaming.render(streamingScene);
        CHECK(litPixels(a) > 100);
        CHECK(largestDifference(a, b) == 0);
        if (frame == 3) {
            CHECK(streaming.renderer.lastFrameStats().bytesUploaded == 0);
        }
    }
    // The streaming pool's first frame wrote its four planes' live rows straight into a part.
    CHECK(streaming.renderer.lastFrameStats().uploadRanges >= 4);
}

TEST_CASE("a pool whose every row changes every frame streams after three frames under UploadMode::Automatic",
          "[gl][particles][streaming]") {
    RenderFixture f;
    Scene scene;
    auto& pool = scene.root().emplace<ParticlePool>(64, ParticleMaterial::additive(), "automatic");
    CHECK(pool.uploadMode() == UploadMode::Automatic);
    for (int frame = 0; frame < 3; ++frame) {
        layGrid(pool, 0.01f * static_cast<float>(frame));
        (void)f.render(scene);
        CHECK(bufferLabelled("automatic/ParticlePool.streams-streaming") == 0);
        CHECK(f.renderer.lastFrameStats().bytesStreamed == 0);
    }
    layGrid(pool, 0.05f);
    const Image image = f.render(scene);
    CHECK(bufferLabelled("automatic/ParticlePool.streams-streaming") != 0);
    CHECK(f.renderer.lastFrameStats().bytesStreamed == 16 * 64);  // every live row of four planes
    CHECK(f.renderer.lastFrameStats().bytesStreamed == f.renderer.lastFrameStats().bytesUploaded);
    // Still drawn: the first particle (1, 0.5, 0.25) * 0.75 added to black, sRGB-encoded.
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.75f + 0.05f, kSize), pixelY(-0.75f, kSize), Rgba{225, 165, 120, 255});
}

TEST_CASE("a pool with curves draws what the CPU's curves draw and sends 32 bytes a particle",
          "[gl][particles][curves]") {
    const ParticleMaterial material = GENERATE(ParticleMaterial::additive(), ParticleMaterial::billboard());
    const UploadMode mode = GENERATE(UploadMode::Staged, UploadMode::Streaming);
    INFO("blend " << (material.blend == ParticleBlend::Additive ? "additive" : "alpha") << ", mode "
                  << (mode == UploadMode::Staged ? "staged" : "streaming"));
    RenderFixture cpu;
    RenderFixture gpu;
    Scene cpuScene;
    Scene gpuScene;
    auto& cpuPool = cpuScene.root().emplace<ParticlePool>(512, material);
    auto& gpuPool = gpuScene.root().emplace<ParticlePool>(512, material);
    cpuPool.setUploadMode(mode);
    gpuPool.setUploadMode(mode);
    ParticleEmitter cpuEmitter(fountain(), 7);
    ParticleEmitter gpuEmitter(fountain(), 7);
    gpuPool.setCurves(ParticleCurves::from(gpuEmitter.desc()));
    for (int step = 0; step < 40; ++step) {
        cpuEmitter.update(cpuPool, 1.0f / 60.0f);
        gpuEmitter.update(gpuPool, 1.0f / 60.0f);
    }
    REQUIRE(cpuPool.count() == gpuPool.count());
    REQUIRE(cpuPool.count() > 100);
    // Same particles, same places: only colour, alpha and size differ in where they are worked out.
    for (std::size_t i = 0; i < cpuPool.count(); ++i) {
        REQUIRE(cpuPool.rows(ParticleStreamId::PositionSize)[i].x == gpuPool.rows(ParticleStreamId::PositionSize)[i].x);
    }
    const Image a = cpu.render(cpuScene);
    const Image b = gpu.render(gpuScene);
    CHECK(litPixels(a) > 200);
    // The texture samples life 256 times: between samples a kink of a curve is cut by at most
    // 1/255 of its change, a few steps of 8-bit colour at most.
    CHECK(largestDifference(a, b) <= 4);
    // Frame 1 sends every live row: two planes of 16 bytes against four.
    const std::uint64_t live = gpuPool.count();
    CHECK(cpu.renderer.lastFrameStats().bytesUploaded >= live * 64);
    CHECK(gpu.renderer.lastFrameStats().bytesUploaded < live * 64);
    cpuEmitter.update(cpuPool, 1.0f / 60.0f);
    gpuEmitter.update(gpuPool, 1.0f / 60.0f);
    (void)cpu.render(cpuScene);
    (void)gpu.render(gpuScene);
    const std::uint64_t order = material.sorted() ? gpuPool.count() * 4 : 0;
    CHECK(gpu.renderer.lastFrameStats().bytesUploaded == gpuPool.count() * 32 + order);
    CHECK(cpu.renderer.lastFrameStats().bytesUploaded == cpuPool.count() * 64 + order);
    // Back to four planes: the emitter's next update evaluates the curves for every live
    // particle again, and the pool draws as the CPU pool does, every plane sent.
    gpuPool.clearCurves();
    cpuEmitter.update(cpuPool, 1.0f / 60.0f);
    gpuEmitter.update(gpuPool, 1.0f / 60.0f);
    const Image c = cpu.render(cpuScene);
    const Image d = gpu.render(gpuScene);
    CHECK(litPixels(d) > 200);
    CHECK(largestDifference(c, d) == 0);
    CHECK(gpu.renderer.lastFrameStats().bytesUploaded == gpuPool.count() * (64 + (material.sorted() ? 4 : 0)));
}

TEST_CASE("a pool with a size curve draws each particle the curve's size at its age", "[gl][particles][curves]") {
    RenderFixture f;
    Scene scene;
    auto& pool = scene.root().emplace<ParticlePool>(4, ParticleMaterial::additive());
    ParticleCurves curves;
    curves.color = glm::vec3(1.0f);
    curves.sizeOverLife.keys = {{0.0f, 0.1f}, {1.0f, 0.5f}};
    pool.setCurves(curves);
    Particle young;  // age 0: half-width 0.1 m, 6.4 px
    young.position = glm::vec3(-0.5f, 0.0f, 0.0f);
    young.size = 0.9f;  // ignored: the curve decides
    Particle old = young;  // age 0.5: half-width 0.3 m, 19.2 px
    old.position = glm::vec3(0.5f, 0.0f, 0.0f);
    old.age = 0.5f;
    (void)pool.spawn(young);
    (void)pool.spawn(old);
    const Image image = f.render(scene);
    const std::uint32_t row = pixelY(0.0f, kSize);
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f + 0.08f, kSize), row, kWhite);
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f + 0.12f, kSize), row, kBlack);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f + 0.28f, kSize), row, kWhite);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f - 0.28f, kSize), row, kWhite);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f + 0.32f, kSize), row, kBlack);
}

TEST_CASE("a pool with draw bounds is drawn among blended meshes by distance, and culled outside the view",
          "[gl][particles][blending]") {
    // A red glass pane (alpha 0.5, non-premultiplied "over") at z = 0 and a white opaque
    // billboard particle at z = -3 (behind it from the camera at z = +10) or z = +3 (in
    // front). Worked out in linear light over black:
    //   particle, then pane: red 0.5 * 1 + 0.5 * 1 = 1, green and blue 0.5 * 1 = 0.5
    //                        -> sRGB (255, 188, 188)
    //   pane, then particle: the opaque particle covers it -> white (255, 255, 255)
    // Without bounds a pool draws after every blended mesh: white wherever it is.
    RenderFixture f;
    Scene scene;
    auto quad = MeshGeometry::create(shapes::quad(2.0f, 2.0f), "pane");
    Material glass = unlit();
    glass.alphaMode = AlphaMode::Blend;
    glass.doubleSided = true;
    auto& pane = scene.root().emplace<MeshNode>(quad, glass, "pane");
    pane.material().baseColor = glm::vec4(1.0f, 0.0f, 0.0f, 0.5f);
    auto& pool = scene.root().emplace<ParticlePool>(4, ParticleMaterial::billboard(), "pool");
    Particle p;
    p.size = 0.25f;
    const float z = GENERATE(-3.0f, 3.0f);
    p.position = glm::vec3(0.0f, 0.0f, z);
    (void)pool.spawn(p);
    const Rgba behindPane{255, 188, 188, 255};
    const std::uint32_t centre = kSize / 2;
    INFO("particle at z = " << z);

    Image image = f.render(scene);  // no bounds: after the pane
    MYRIAD_CHECK_PIXEL(image, centre, centre, kWhite);

    Aabb box;
    box.extend(glm::vec3(-0.5f, -0.5f, z - 0.5f));
    box.extend(glm::vec3(0.5f, 0.5f, z + 0.5f));
    pool.setDrawBounds(box);
    image = f.render(scene);
    MYRIAD_CHECK_PIXEL(image, centre, centre, z < 0.0f ? behindPane : kWhite);
    CHECK(f.renderer.lastFrameStats().particles == 1);

    // A box outside the view: the pool is culled (the pane alone: red 0.5 -> 188).
    Aabb away;
    away.extend(glm::vec3(20.0f, 0.0f, 0.0f));
    away.extend(glm::vec3(21.0f, 1.0f, 1.0f));
    pool.setDrawBounds(away);
    image = f.render(scene);
    MYRIAD_CHECK_PIXEL(image, centre, centre, Rgba{188, 0, 0, 255});
    CHECK(f.renderer.lastFrameStats().particles == 0);
    CHECK(f.renderer.lastFrameStats().culledNodes == 1);
    CHECK_THROWS_AS(pool.setDrawBounds(Aabb{}), InvalidArgument);
    CHECK_THROWS_WITH(pool.setDrawBounds(Aabb{}), Catch::Contains("empty"));  // not "not finite"
    pool.clearDrawBounds();
    CHECK(pool.drawBounds() == nullptr);
}
