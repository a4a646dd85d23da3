// GPU per-instance culling (InstanceCulling::Gpu) on screen: it draws the same instances as
// the CPU path (same pixels, same index set), each with its own record, weights and lanes, and
// gives every view of a frame its own list.
#include "support/GlCallLog.h"
#include "support/GlTest.h"

#include <glad/gl.h>

#include "renderer/ViewPass.h"  // detail::Frustum, resolveCamera: the CPU path's planes, for the expected set
#include "myriad/core/InstanceCulling.h"
#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/core/SurfaceShader.h"
#include "myriad/gl/Buffer.h"
#include "myriad/gl/LiveObjects.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/Renderer.h"

#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/quaternion.hpp>

#include <algorithm>
#include <array>
#include <memory>
#include <vector>

using namespace myriad;
using namespace myriad::test;

namespace {

constexpr std::uint32_t kSize = RenderFixture::kSize;

/** The indices the CPU path draws for @p batch in @p view: its own functions on its own planes. */
std::vector<std::uint32_t> cpuDrawnSet(const InstancedMeshNode& batch, const gl::View& view) {
    const gl::detail::ViewCamera camera = gl::detail::resolveCamera(view);
    const gl::detail::Frustum frustum(camera.viewProjection, view.clipDepth);
    InstanceSpheres spheres;
    spheres.update(batch);
    std::vector<std::uint32_t> out;
    (void)cullInstanceSpheres(spheres, batch.drawnInstances(),
                              nodeSpacePlanes(std::to_array(frustum.planes), batch.worldLinear(),
                                              batch.worldTranslation(), camera.eye),
                              out);
    return out;
}

std::vector<std::uint32_t> sorted(std::vector<std::uint32_t> v) {
    std::sort(v.begin(), v.end());
    return v;
}

constexpr std::array<glm::vec4, 7> kPalette{{{1, 0, 0, 1}, {0, 1, 0, 1}, {0, 0, 1, 1}, {1, 1, 0, 1},
                                              {0, 1, 1, 1}, {1, 0, 1, 1}, {1, 1, 1, 1}}};

/** 15 x 15 boxes on a grid of spacing 1.2 in x and y (wider than the view below, so rows and
 *  columns straddle every side), each a different transform kind: mirrored, non-uniformly
 *  scaled, sheared, rotated, plain; under a rotated, non-uniformly scaled, moved node. */
InstancedMeshNode& buildField(Scene& scene) {
    auto& batch = scene.root().emplace<InstancedMeshNode>(MeshGeometry::create(shapes::box(0.5f), "box"), unlit(), 225,
                                                          "field");
    batch.setPosition(glm::dvec3(0.3, -0.2, 0.0));
    batch.setRotation(glm::angleAxis(glm::radians(12.0f), glm::vec3(0.0f, 0.0f, 1.0f)));
    batch.setScale(glm::vec3(1.1f, 0.9f, 1.0f));
    for (int i = 0; i < 225; ++i) {
        const float x = static_cast<float>(i % 15 - 7) * 1.2f;
        const float y = static_cast<float>(i / 15 - 7) * 1.2f;
        glm::mat4 m = glm::translate(glm::mat4(1.0f), glm::vec3(x, y, -0.01f * static_cast<float>(i % 7)));
        switch (i % 5) {
        case 0: m = glm::scale(m, glm::vec3(-1.0f, 1.0f, 1.0f)); break;               // mirrored
        case 1: m = glm::scale(m, glm::vec3(1.9f, 0.4f, 1.0f)); break;                // non-uniform
        case 2: m[1] = glm::vec4(0.6f, 1.0f, 0.0f, 0.0f); break;                       // sheared
        case 3: m = glm::rotate(m, glm::radians(35.0f), glm::vec3(0.3f, 0.4f, 1.0f)); break;
        default: break;
        }
        batch.addInstance(m, kPalette[static_cast<std::size_t>(i) % kPalette.size()]);
    }
    return batch;
}


/** Renders @p scene with @p batch culled on the CPU, then on the GPU, and checks the two give
 *  the same pixels and the same set of drawn indices. @return that set, sorted. */
std::vector<std::uint32_t> compareCpuAndGpu(RenderFixture& fixture, const Scene& scene, InstancedMeshNode& batch,
                                            const gl::View& view) {
    batch.setInstanceCulling(InstanceCulling::Cpu);
    const Image cpu = fixture.render(scene);
    const std::uint64_t cpuInstances = fixture.renderer.lastFrameStats().instances;
    CHECK_FALSE(fixture.renderer.readGpuCulledInstances(batch, 0).has_value());  // not GPU-culled
    batch.setInstanceCulling(InstanceCulling::Gpu);
    const Image gpu = fixture.render(scene);
    const gl::FrameStats stats = fixture.renderer.lastFrameStats();
    const std::uint64_t tested = batch.drawnInstances().end - batch.drawnInstances().begin;
    CHECK(stats.instancesTested == tested);
    CHECK(stats.instancesGpuCulled == tested);
    CHECK(stats.instances == tested);  // the upper bound: the drawn count stays on the GPU
    CHECK(stats.drawCalls == 1);
    const std::vector<std::uint32_t> expected = cpuDrawnSet(batch, view);
    CHECK(expected.size() == cpuInstances);
    const auto drawn = fixture.renderer.readGpuCulledInstances(batch, 0);
    REQUIRE(drawn.has_value());
    CHECK(sorted(*drawn) == expected);
    CHECK(sameImage(cpu, gpu));
    return expected;
}

/** A 0.4-wide quad with one morph target that lifts it by 0.5 in y. */
std::shared_ptr<const MeshGeometry> liftingQuad() {
    MeshData data = shapes::quad(0.4f, 0.4f);
    data.morphTargets.push_back({"lift", std::vector<glm::vec3>(data.positions.size(), glm::vec3(0.0f, 0.5f, 0.0f)), {}});
    return MeshGeometry::create(std::move(data), "lifting-quad");
}

} // namespace

TEST_CASE("GPU culling draws the same instances as CPU culling", "[visibility][gpu-culling][pixels]") {
    RenderFixture fixture;
    fixture.camera = perspectiveCamera();
    Scene scene;
    InstancedMeshNode& batch = buildField(scene);
    const gl::View view = gl::View::of(fixture.camera, fixture.target);
    auto compare = [&] { return compareCpuAndGpu(fixture, scene, batch, view); };
    SECTION("every instance") {
        const std::vector<std::uint32_t> expected = compare();
        // A real test: a good part in view, a good part out, and every transform kind among
        // those that straddle an edge.
        CHECK(expected.size() > 40);
        CHECK(expected.size() < 200);
    }
    SECTION("a draw range") {
        batch.setDrawRange(30, 120);
        const std::vector<std::uint32_t> expected = compare();
        CHECK(expected.front() >= 30);
        CHECK(expected.back() < 150);
    }
    SECTION("after moving instances and the camera") {
        (void)compare();
        for (std::size_t i = 0; i < batch.count(); i += 3) {
            batch.setTransform(i, glm::translate(glm::mat4(1.0f), glm::vec3(0.7f * static_cast<float>(i % 11) - 3.5f,
                                                                            0.5f * static_cast<float>(i % 13) - 3.0f,
                                                                            -0.05f * static_cast<float>(i % 17))));
        }
        fixture.camera.lookAt(glm::dvec3(2.0, 1.0, 9.0), glm::dvec3(2.5, 1.0, 0.0));
        (void)compare();
    }
    SECTION("far from the origin: the table path's planes from the row's high and low halves") {
        // 10,000 km out in x: a float translation would be off by up to 0.5 m there.
        batch.setPosition(glm::dvec3(1.0e7 + 0.3, -0.2, 0.0));
        fixture.camera.lookAt(glm::dvec3(1.0e7, 0.0, 10.0), glm::dvec3(1.0e7, 0.0, 0.0));
        const std::vector<std::uint32_t> expected = compare();
        CHECK(expected.size() > 40);
        CHECK(expected.size() < 200);
    }
    SECTION("a streaming batch: this frame's part of the streaming buffer") {
        const Image staged = fixture.render(scene);
        batch.setUploadMode(UploadMode::Streaming);
        CHECK(compare().size() > 40);
        batch.setInstanceCulling(InstanceCulling::Off);
        CHECK(sameImage(fixture.render(scene), staged));
        for (std::size_t i = 0; i < batch.count(); i += 2) {  // written into the next part
            batch.setColor(i, {1, 1, 1, 1});
        }
        const Image whiter = fixture.render(scene);  // not culled per instance: the plain path
        CHECK_FALSE(sameImage(whiter, staged));
        CHECK(sameImage(fixture.render(scene), whiter));
        (void)compare();  // CPU and GPU culling read the same, current part
        CHECK(sameImage(fixture.render(scene), whiter));
    }
}

TEST_CASE("GPU culling's spheres are exact for sheared, mirrored and scaled instances at the edges",
          "[visibility][gpu-culling][pixels]") {
    RenderFixture fixture;  // orthographic: x and y in [-1, 1] are in view
    Scene scene;
    auto& batch = scene.root().emplace<InstancedMeshNode>(MeshGeometry::create(shapes::box(0.5f), "box"), unlit(), 8,
                                                          "edges");
    // x += -3 y: the box's widest corners are x - y and -x + y (radius 1.06, reach 1.0 in x),
    // not x + y + z (0.61). Its centre 0.8 outside the left edge: in view, its corner shows.
    glm::mat4 sheared(1.0f);
    sheared[1] = glm::vec4(-3.0f, 1.0f, 0.0f, 0.0f);
    glm::mat4 a = sheared;
    a[3] = glm::vec4(-1.8f, 0.0f, 0.0f, 1.0f);
    batch.addInstance(a, {1, 0, 0, 1});
    glm::mat4 b = sheared;  // 1.2 outside: out of view by its exact radius too
    b[3] = glm::vec4(-2.2f, 0.0f, 0.0f, 1.0f);
    batch.addInstance(b, {0, 1, 0, 1});
    // Mirrored and squashed, straddling the right edge; mirrored and sheared, the top edge.
    batch.addInstance(glm::scale(at(1.6f, 0.0f), glm::vec3(-3.0f, 0.2f, 1.0f)), {0, 0, 1, 1});
    glm::mat4 c = sheared;
    c[0] = glm::vec4(-1.0f, 0.0f, 0.0f, 0.0f);
    c[3] = glm::vec4(0.0f, 1.2f, 0.0f, 1.0f);
    batch.addInstance(c, {1, 1, 0, 1});
    batch.addInstance(glm::scale(at(0.0f, -1.9f), glm::vec3(-1.0f, 3.0f, 1.0f)), {1, 0, 1, 1});  // reaches y = -1.15
    const std::vector<std::uint32_t> expected =
        compareCpuAndGpu(fixture, scene, batch, gl::View::of(fixture.camera, fixture.target));
    CHECK(expected == std::vector<std::uint32_t>{0, 2, 3});
    MYRIAD_CHECK_PIXEL(fixture.render(scene), pixelX(-0.95f, kSize), pixelY(-0.24f, kSize), kRed);  // A's corner
}

TEST_CASE("GPU culling draws each instance with its own colour, weights and lanes", "[visibility][gpu-culling][pixels]") {
    RenderFixture fixture;
    Scene scene;
    Material material = unlit();
    material.name = "lane-colour";
    // Lane 0 is the colour; the record's colour multiplies it (white unless said).
    material.surface = SurfaceShader::fromSource("lane-times-colour.glsl",
                                                 "SurfaceOutput surface(SurfaceInput s) {\n"
                                                 "    return SurfaceOutput(s.lanes[0].rgb * s.color.rgb, 1.0);\n"
                                                 "}\n");
    auto& batch = scene.root().emplace<InstancedMeshNode>(liftingQuad(), material, 8, "row");
    // In record order: out, lane red at x = -0.5, out, out, lane green lifted from y = -0.5 to
    // y = 0 by its own weight, out below unless lifted (it is: into view at y = -0.85), out.
    batch.addInstance(at(3.0f, 0.0f));
    batch.addInstance(at(-0.5f, 0.0f));
    batch.addInstance(at(-4.0f, 0.0f));
    batch.addInstance(at(0.0f, 5.0f));
    batch.addInstance(at(0.5f, -0.5f));
    batch.addInstance(at(0.0f, -1.35f), {0, 0, 1, 1});  // blue record colour, white lane
    batch.addInstance(at(0.0f, 3.0f));
    batch.setLane(1, 0, {1, 0, 0, 1});
    batch.setLane(4, 0, {0, 1, 0, 1});
    batch.setLane(5, 0, {1, 1, 1, 1});
    const float lift[] = {1.0f};
    batch.setMorphWeights(4, std::span<const float>(lift));
    batch.setMorphWeights(5, std::span<const float>(lift));
    batch.setInstanceCulling(InstanceCulling::Gpu);
    const Image image = fixture.render(scene);
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), pixelY(0.0f, kSize), kRed);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), pixelY(0.0f, kSize), kGreen);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), pixelY(-0.5f, kSize), kBlack);  // lifted away
    MYRIAD_CHECK_PIXEL(image, pixelX(0.0f, kSize), pixelY(-0.88f, kSize), kBlue);  // in view only lifted
    MYRIAD_CHECK_PIXEL(image, pixelX(0.0f, kSize), pixelY(0.0f, kSize), kBlack);
    const auto drawn = fixture.renderer.readGpuCulledInstances(batch, 0);
    REQUIRE(drawn.has_value());
    CHECK(sorted(*drawn) == std::vector<std::uint32_t>{1, 4, 5});
    // Unlifted, instance 5 leaves the view: its own box, not the node's.
    batch.clearMorphWeights(5);
    (void)fixture.render(scene);
    CHECK(sorted(*fixture.renderer.readGpuCulledInstances(batch, 0)) == std::vector<std::uint32_t>{1, 4});
}

TEST_CASE("GPU culling gives each view of a frame its own list", "[visibility][gpu-culling][pixels]") {
    RenderFixture fixture;
    Scene scene;
    auto& batch = scene.root().emplace<InstancedMeshNode>(MeshGeometry::create(shapes::quad(0.4f, 0.4f)), unlit(), 4);
    batch.addInstance(at(-0.5f, 0.0f), {1, 0, 0, 1});  // in the left view only
    batch.addInstance(at(5.5f, 0.0f), {0, 1, 0, 1});   // in the right view only
    batch.addInstance(at(20.0f, 0.0f), {0, 0, 1, 1});  // in neither
    batch.setInstanceCulling(InstanceCulling::Gpu);
    gl::OffscreenTarget right(kSize, kSize, "right-target");
    Camera rightCamera = orthoCamera();
    rightCamera.lookAt(glm::vec3(6.0f, 0.0f, 10.0f), glm::vec3(6.0f, 0.0f, 0.0f));
    const gl::View views[] = {gl::View::of(fixture.camera, fixture.target), gl::View::of(rightCamera, right)};
    fixture.renderer.render(scene, views);
    CHECK(fixture.renderer.lastFrameStats().drawCalls == 2);
    CHECK(fixture.renderer.lastFrameStats().instancesGpuCulled == 6);
    CHECK(*fixture.renderer.readGpuCulledInstances(batch, 0) == std::vector<std::uint32_t>{0});
    CHECK(*fixture.renderer.readGpuCulledInstances(batch, 1) == std::vector<std::uint32_t>{1});
    const Image leftImage = fixture.target.readPixels();
    const Image rightImage = right.readPixels();
    MYRIAD_CHECK_PIXEL(leftImage, pixelX(-0.5f, kSize), pixelY(0.0f, kSize), kRed);
    MYRIAD_CHECK_PIXEL(leftImage, pixelX(0.5f, kSize), pixelY(0.0f, kSize), kBlack);
    MYRIAD_CHECK_PIXEL(rightImage, pixelX(-0.5f, kSize), pixelY(0.0f, kSize), kGreen);
    MYRIAD_CHECK_PIXEL(rightImage, pixelX(0.5f, kSize), pixelY(0.0f, kSize), kBlack);
}

TEST_CASE("GPU culling reuses its buffers, frees them with the batch and leaves no binding", "[visibility][gpu-culling]") {
    RenderFixture fixture;
    Scene scene;
    (void)fixture.render(scene);  // the renderer's own objects first
    const gl::LiveObjectCounts before = gl::liveObjectCounts();
    // More than the record arena takes (16,384): records, list and commands of its own.
    auto& batch = scene.root().emplace<InstancedMeshNode>(MeshGeometry::create(shapes::quad(0.4f, 0.4f)), unlit(), 20000);
    batch.addInstance(at(-0.5f, 0.0f), {1, 0, 0, 1});
    batch.setInstanceCulling(InstanceCulling::Gpu);
    (void)fixture.render(scene);
    const gl::LiveObjectCounts warm = gl::liveObjectCounts();
    {
        GlCallLog log;
        MYRIAD_GL_CALL_LOG_HOOK(log, glCreateTextures);
        (void)fixture.render(scene);
        CHECK(log.callsTo("glNamedBufferStorage").empty());  // no per-frame allocation once warm
        CHECK(log.callsTo("glCreateTextures").empty());
    }
    CHECK(gl::liveObjectCounts().buffers == warm.buffers);
    CHECK(gl::liveObjectCounts().textures == warm.textures);
    GLint indirect = -1;
    glGetIntegerv(GL_DRAW_INDIRECT_BUFFER_BINDING, &indirect);
    CHECK(indirect == 0);
    for (GLuint binding = 1; binding <= 4; ++binding) {
        GLint storage = -1;
        glGetIntegeri_v(GL_SHADER_STORAGE_BUFFER_BINDING, binding, &storage);
        CHECK(storage == 0);
    }
    (void)scene.root().remove(batch);
    (void)fixture.render(scene);
    CHECK(gl::liveObjectCounts().buffers == before.buffers);
    CHECK(gl::liveObjectCounts().textures == before.textures);
}

TEST_CASE("GPU culling dispatches every view's culling, then one barrier, then the draws", "[visibility][gpu-culling]") {
    RenderFixture fixture;
    Scene scene;
    auto& batch = scene.root().emplace<InstancedMeshNode>(MeshGeometry::create(shapes::quad(0.4f, 0.4f)), unlit(), 4);
    batch.addInstance(at(-0.5f, 0.0f), {1, 0, 0, 1});
    batch.addInstance(at(0.5f, 0.0f), {0, 1, 0, 1});
    batch.setInstanceCulling(InstanceCulling::Gpu);
    gl::OffscreenTarget second(kSize, kSize, "second-target");
    const gl::View views[] = {gl::View::of(fixture.camera, fixture.target), gl::View::of(fixture.camera, second)};
    fixture.renderer.render(scene, views);  // warm: programs compiled, buffers made
    GlCallLog log;
    MYRIAD_GL_CALL_LOG_HOOK(log, glDispatchCompute);
    MYRIAD_GL_CALL_LOG_HOOK(log, glMultiDrawElementsIndirect);
    fixture.renderer.render(scene, views);
    const std::vector<GlCall> dispatches = log.callsTo("glDispatchCompute");
    // A small batch of one primitive: drawn by the table path, one multi-draw per view.
    const std::vector<GlCall> draws = log.callsTo("glMultiDrawElementsIndirect");
    REQUIRE(dispatches.size() == 2);
    REQUIRE(draws.size() == 2);
    CHECK(dispatches.back().sequence < draws.front().sequence);
    // The draws read the (row, instance) pairs (vertex attributes), the commands (indirect)
    // and storage; the ordinary path's lists by texel fetch: one barrier with all four bits
    // between the last dispatch and the first draw.
    constexpr GLbitfield kNeeded = GL_SHADER_STORAGE_BARRIER_BIT | GL_COMMAND_BARRIER_BIT | GL_TEXTURE_FETCH_BARRIER_BIT |
                                   GL_VERTEX_ATTRIB_ARRAY_BARRIER_BIT;
    GLbitfield issued = 0;
    for (const GlCall& barrier : log.callsTo("glMemoryBarrier")) {
        if (barrier.sequence > dispatches.back().sequence && barrier.sequence < draws.front().sequence) {
            issued |= barrier.argument<GLbitfield>(0);
        }
    }
    CHECK((issued & kNeeded) == kNeeded);
    // Pixels too, for good measure.
    MYRIAD_CHECK_PIXEL(second.readPixels(), pixelX(0.5f, kSize), pixelY(0.0f, kSize), kGreen);
}

TEST_CASE("GPU culling puts back the caller's storage and indirect bindings with preserveState", "[visibility][gpu-culling]") {
    egl::HeadlessContext& context = test::context();
    (void)context;
    gl::Renderer renderer(gl::RendererDesc{.preserveState = true});
    gl::OffscreenTarget target(kSize, kSize, "preserve-target");
    Scene scene;
    auto& batch = scene.root().emplace<InstancedMeshNode>(MeshGeometry::create(shapes::quad(0.4f, 0.4f)), unlit(), 4);
    batch.addInstance(at(-0.5f, 0.0f), {1, 0, 0, 1});
    batch.setInstanceCulling(InstanceCulling::Gpu);
    const gl::Buffer mine({.sizeBytes = 1024, .label = "caller's buffer"});
    glBindBufferRange(GL_SHADER_STORAGE_BUFFER, 3, mine.id(), 256, 512);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, mine.id());
    glBindBuffer(GL_DRAW_INDIRECT_BUFFER, mine.id());
    renderer.render(scene, orthoCamera(), target);
    MYRIAD_CHECK_PIXEL(target.readPixels(), pixelX(-0.5f, kSize), pixelY(0.0f, kSize), kRed);
    GLint bound = 0;
    GLint64 start = 0, size = 0;
    glGetIntegeri_v(GL_SHADER_STORAGE_BUFFER_BINDING, 3, &bound);
    glGetInteger64i_v(GL_SHADER_STORAGE_BUFFER_START, 3, &start);
    glGetInteger64i_v(GL_SHADER_STORAGE_BUFFER_SIZE, 3, &size);
    CHECK(static_cast<GLuint>(bound) == mine.id());
    CHECK(start == 256);
    CHECK(size == 512);
    glGetIntegeri_v(GL_SHADER_STORAGE_BUFFER_BINDING, 1, &bound);
    CHECK(static_cast<GLuint>(bound) == mine.id());
    glGetIntegeri_v(GL_SHADER_STORAGE_BUFFER_BINDING, 4, &bound);
    CHECK(bound == 0);
    glGetIntegerv(GL_DRAW_INDIRECT_BUFFER_BINDING, &bound);
    CHECK(static_cast<GLuint>(bound) == mine.id());
    for (GLuint binding : {1u, 3u}) {
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, binding, 0);
    }
    glBindBuffer(GL_DRAW_INDIRECT_BUFFER, 0);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
}

TEST_CASE("a blended batch sorted back to front is culled on the CPU even with GPU culling", "[visibility][gpu-culling]") {
    RenderFixture fixture;
    Scene scene;
    Material glass = unlit();
    glass.alphaMode = AlphaMode::Blend;
    auto& batch = scene.root().emplace<InstancedMeshNode>(MeshGeometry::create(shapes::quad(0.4f, 0.4f)), glass, 4);
    batch.addInstance(at(-0.5f, 0.0f), {1, 0, 0, 0.5f});
    batch.addInstance(at(5.0f, 0.0f), {0, 1, 0, 0.5f});  // out of view
    batch.addInstance(at(0.5f, 0.0f), {0, 0, 1, 0.5f});
    batch.setInstanceCulling(InstanceCulling::Gpu);
    batch.setSortInstances(true);
    (void)fixture.render(scene);
    const gl::FrameStats& stats = fixture.renderer.lastFrameStats();
    CHECK(stats.instancesGpuCulled == 0);
    CHECK(stats.instancesTested == 3);
    CHECK(stats.instances == 2);  // culled on the CPU: the exact count
    CHECK_FALSE(fixture.renderer.readGpuCulledInstances(batch, 0).has_value());
    batch.setSortInstances(false);  // unsorted: the GPU culls it
    (void)fixture.render(scene);
    CHECK(fixture.renderer.lastFrameStats().instancesGpuCulled == 3);
    CHECK(sorted(*fixture.renderer.readGpuCulledInstances(batch, 0)) == std::vector<std::uint32_t>{0, 2});
}
