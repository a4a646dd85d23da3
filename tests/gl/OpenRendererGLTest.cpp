// The open renderer: views into the game's framebuffer, the GL state contract, one upload for
// several views, linear-light blending, user surface functions, draw ranges, per-renderer
// upload cursors, sampler objects, exception safety, zero-size targets.
#include "support/GlCallLog.h"
#include "support/GlTest.h"

#include <glad/gl.h>

#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/core/SurfaceShader.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/Renderer.h"
#include "myriad/util/Error.h"

#include <glm/gtc/matrix_transform.hpp>

#include <limits>
#include <memory>
#include <vector>

using namespace myriad;
using namespace myriad::test;

namespace {

constexpr std::uint32_t kSize = 64;


/** A square of @p side with one morph target that lifts every vertex by 0.5 in y. */
std::shared_ptr<const MeshGeometry> liftingQuad(float side) {
    MeshData data = shapes::quad(side, side);
    MorphTarget lift;
    lift.name = "lift";
    lift.positionDeltas.assign(4, glm::vec3(0.0f, 0.5f, 0.0f));
    data.morphTargets.push_back(lift);
    return MeshGeometry::create(data, "lifting-quad");
}

/** Sets state a careless game might leave behind. */
struct HostileState {
    GLuint vertexArray = 0;
    GLuint sampler = 0;
    HostileState() {
        glEnable(GL_SCISSOR_TEST);
        glScissor(0, 0, 1, 1);
        glColorMask(GL_TRUE, GL_TRUE, GL_FALSE, GL_TRUE);  // blue masked off
        glCreateSamplers(1, &sampler);
        glSamplerParameteri(sampler, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glBindSampler(0, sampler);
        glPolygonMode(GL_FRONT_AND_BACK, GL_LINE);
        glPixelStorei(GL_PACK_ALIGNMENT, 1);
        glCreateVertexArrays(1, &vertexArray);
        glBindVertexArray(vertexArray);
        glEnable(GL_BLEND);
        glBlendFunc(GL_ONE, GL_ONE);
        glDepthFunc(GL_ALWAYS);
    }
    ~HostileState() {
        glDisable(GL_SCISSOR_TEST);
        glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
        glBindSampler(0, 0);
        glDeleteSamplers(1, &sampler);
        glPolygonMode(GL_FRONT_AND_BACK, GL_FILL);
        glPixelStorei(GL_PACK_ALIGNMENT, 4);
        glBindVertexArray(0);
        glDeleteVertexArrays(1, &vertexArray);
        glDisable(GL_BLEND);
        glBlendFunc(GL_ONE, GL_ZERO);
        glDepthFunc(GL_LESS);
    }
    HostileState(const HostileState&) = delete;
    HostileState& operator=(const HostileState&) = delete;
};

/** GL_POLYGON_MODE: Mesa returns two values (front, back) even in a core profile. */
GLint polygonMode() {
    GLint modes[2] = {};
    glGetIntegerv(GL_POLYGON_MODE, modes);
    return modes[0];
}

/** A scene whose picture uses every channel: a blue quad at the left, a white one at the
 *  right, both unlit, one of them instanced. */
void buildReference(Scene& scene) {
    scene.clearColor = {0.0f, 0.0f, 0.0f, 1.0f};
    auto& batch = scene.root().emplace<InstancedMeshNode>(quadMesh(), unlit(glm::vec4(0, 0, 1, 1)), 1, "blue");
    batch.addInstance(at(-0.5f, 0.0f));
    auto& single = scene.root().emplace<MeshNode>(quadMesh(), unlit(), "white");
    single.setPosition({0.5f, 0.0f, 0.0f});
}

void checkReference(const Image& image) {
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), pixelY(0.0f, kSize), kBlue);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), pixelY(0.0f, kSize), kWhite);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.0f, kSize), pixelY(0.0f, kSize), kBlack);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), pixelY(0.5f, kSize), kBlack);
}

} // namespace

TEST_CASE("hostile GL state left by the game does not change the picture", "[state][pixels]") {
    context();
    gl::Renderer renderer;
    gl::OffscreenTarget target(kSize, kSize);
    const Camera camera = orthoCamera();
    Scene scene;
    buildReference(scene);
    const HostileState hostile;
    renderer.render(scene, camera, target);
    checkReference(target.readPixels());  // readPixels sets its own pack state
}

TEST_CASE("render() leaves the documented state, or the caller's with preserveState", "[state]") {
    context();
    const Camera camera = orthoCamera();
    Scene scene;
    buildReference(scene);
    gl::OffscreenTarget target(kSize, kSize);
    SECTION("documented exit state") {
        gl::Renderer renderer;
        const HostileState hostile;
        glActiveTexture(GL_TEXTURE3);
        renderer.render(scene, camera, target);
        CHECK(integer(GL_CURRENT_PROGRAM) == 0);
        CHECK(integer(GL_VERTEX_ARRAY_BINDING) == 0);
        CHECK(integer(GL_DRAW_FRAMEBUFFER_BINDING) == 0);
        CHECK(glIsEnabled(GL_BLEND) == GL_FALSE);
        CHECK(glIsEnabled(GL_DEPTH_TEST) == GL_FALSE);
        CHECK(glIsEnabled(GL_CULL_FACE) == GL_FALSE);
        CHECK(glIsEnabled(GL_SCISSOR_TEST) == GL_FALSE);
        CHECK(glIsEnabled(GL_FRAMEBUFFER_SRGB) == GL_FALSE);
        CHECK(polygonMode() == GL_FILL);
        CHECK(integer(GL_DEPTH_FUNC) == GL_LESS);
        CHECK(integer(GL_SAMPLER_BINDING) == 0);  // unit 3 is active: not one render() uses
        CHECK(integer(GL_ACTIVE_TEXTURE) == GL_TEXTURE3);
        glActiveTexture(GL_TEXTURE0);
        CHECK(integer(GL_SAMPLER_BINDING) == 0);
    }
    SECTION("preserveState puts back every value it changed") {
        gl::Renderer renderer({.preserveState = true});
        const HostileState hostile;
        renderer.render(scene, camera, target);
        CHECK(glIsEnabled(GL_SCISSOR_TEST) == GL_TRUE);
        GLboolean mask[4] = {};
        glGetBooleanv(GL_COLOR_WRITEMASK, mask);
        CHECK(mask[2] == GL_FALSE);
        CHECK(integer(GL_SAMPLER_BINDING) == static_cast<GLint>(hostile.sampler));
        CHECK(polygonMode() == GL_LINE);
        CHECK(integer(GL_VERTEX_ARRAY_BINDING) == static_cast<GLint>(hostile.vertexArray));
        CHECK(glIsEnabled(GL_BLEND) == GL_TRUE);
        CHECK(integer(GL_BLEND_DST_RGB) == GL_ONE);
        CHECK(integer(GL_DEPTH_FUNC) == GL_ALWAYS);
        CHECK(integer(GL_PACK_ALIGNMENT) == 1);
    }
}

TEST_CASE("a batch drawn into the game's own RGBA16F framebuffer after its opaque pass", "[views][pixels]") {
    context();
    // The game's target: RGBA16F colour + depth, with an opaque wall at z = 0 over the left half.
    GLuint framebuffer = 0;
    GLuint color = 0;
    GLuint depth = 0;
    glCreateFramebuffers(1, &framebuffer);
    glCreateRenderbuffers(1, &color);
    glCreateRenderbuffers(1, &depth);
    glNamedRenderbufferStorage(color, GL_RGBA16F, kSize, kSize);
    glNamedRenderbufferStorage(depth, GL_DEPTH_COMPONENT24, kSize, kSize);
    glNamedFramebufferRenderbuffer(framebuffer, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, color);
    glNamedFramebufferRenderbuffer(framebuffer, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, depth);
    REQUIRE(glCheckNamedFramebufferStatus(framebuffer, GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE);
    const float clearColor[] = {0.0f, 0.0f, 0.0f, 1.0f};
    glClearNamedFramebufferfv(framebuffer, GL_COLOR, 0, clearColor);
    glClearNamedFramebufferfi(framebuffer, GL_DEPTH_STENCIL, 0, 1.0f, 0);
    // "The wall": depth 0.5 (z = 0 under orthoCamera, near 0.1 far 20: window depth ~0.49) and
    // red in the left half, written with a scissored clear as a game's own pass might.
    glEnable(GL_SCISSOR_TEST);
    glScissor(0, 0, kSize / 2, kSize);
    const float red[] = {1.0f, 0.0f, 0.0f, 1.0f};
    glClearNamedFramebufferfv(framebuffer, GL_COLOR, 0, red);
    glClearNamedFramebufferfi(framebuffer, GL_DEPTH_STENCIL, 0, 0.3f, 0);
    glDisable(GL_SCISSOR_TEST);

    // Four green instances at z = -1 (behind the wall where it stands), two per half.
    Scene scene;
    auto& batch = scene.root().emplace<InstancedMeshNode>(quadMesh(0.3f), unlit(glm::vec4(0, 1, 0, 1)), 4, "grass");
    for (const float x : {-0.75f, -0.25f, 0.25f, 0.75f}) {
        batch.addInstance(at(x, 0.0f, -1.0f));
    }
    gl::Renderer renderer;
    const Camera camera = orthoCamera();
    gl::View view = gl::View::of(camera, kSize, kSize);
    view.framebuffer = framebuffer;
    view.clear = gl::ClearFlags::None;
    renderer.render(scene, view);
    CHECK(renderer.lastFrameStats().drawCalls == 1);

    std::vector<float> pixels(kSize * kSize * 4);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, framebuffer);
    glReadPixels(0, 0, kSize, kSize, GL_RGBA, GL_FLOAT, pixels.data());
    glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
    auto at = [&](float x) {  // GL rows run bottom-up: the middle row
        const std::size_t i = (std::size_t{kSize / 2} * kSize + pixelX(x, kSize)) * 4;
        return glm::vec3(pixels[i], pixels[i + 1], pixels[i + 2]);
    };
    CHECK(at(-0.75f) == glm::vec3(1, 0, 0));  // hidden behind the wall
    CHECK(at(-0.25f) == glm::vec3(1, 0, 0));
    CHECK(at(0.25f) == glm::vec3(0, 1, 0));   // drawn, linear 1.0 stored as is
    CHECK(at(0.75f) == glm::vec3(0, 1, 0));
    CHECK(at(0.5f) == glm::vec3(0, 0, 0));    // between instances: the game's clear, untouched
    glDeleteFramebuffers(1, &framebuffer);
    glDeleteRenderbuffers(1, &color);
    glDeleteRenderbuffers(1, &depth);
}

TEST_CASE("blending happens in linear light and the framebuffer encodes once", "[colour][pixels]") {
    RenderFixture fixture;
    Scene scene;
    Material material = unlit(glm::vec4(0, 1, 0, 0.25f));
    material.alphaMode = AlphaMode::Blend;
    auto& batch = scene.root().emplace<InstancedMeshNode>(quadMesh(1.0f), material, 1, "quarter-green");
    batch.addInstance(glm::mat4(1.0f));
    const Image image = fixture.render(scene);
    // 0.25 of linear 1.0 over black is linear 0.25: sRGB byte 137 (blending the encoded value
    // would give 64).
    MYRIAD_CHECK_PIXEL(image, kSize / 2, kSize / 2, Rgba{0, 137, 0, 255});

    SECTION("a float target stores linear light") {
        gl::OffscreenTarget linear(kSize, kSize, "float-target", gl::TargetFormat::Rgba16Float);
        fixture.renderer.render(scene, fixture.camera, linear);
        MYRIAD_CHECK_PIXEL(linear.readPixels(), kSize / 2, kSize / 2, Rgba{0, 137, 0, 255});
    }
    SECTION("the clear colour is linear too") {
        scene.clearColor = {0.5f, 0.5f, 0.5f, 1.0f};
        batch.clear();
        const Image cleared = fixture.render(scene);
        MYRIAD_CHECK_PIXEL(cleared, 1, 1, Rgba{188, 188, 188, 255});  // encode(0.5) = 188
    }
}

TEST_CASE("two views in one frame upload each batch once (split screen)", "[views][pixels]") {
    context();
    Scene scene;
    auto& batch = scene.root().emplace<InstancedMeshNode>(quadMesh(), unlit(glm::vec4(1, 0, 0, 1)), 100, "red");
    for (int i = 0; i < 100; ++i) {
        batch.addInstance(at(-0.5f, 0.0f));
    }
    gl::Renderer renderer;
    gl::OffscreenTarget target(2 * kSize, kSize);
    const Camera left = orthoCamera();
    Camera right = orthoCamera();
    right.lookAt(glm::vec3(-1.0f, 0.0f, 10.0f), glm::vec3(-1.0f, 0.0f, 0.0f));  // the quad drifts right
    gl::View views[2] = {gl::View::of(left, target), gl::View::of(right, target)};
    views[0].viewport = {0, 0, kSize, kSize};
    views[1].viewport = {kSize, 0, kSize, kSize};
    views[1].clearColor = glm::vec4(0, 0, 1, 1);
    renderer.render(scene, views);
    const gl::FrameStats& stats = renderer.lastFrameStats();
    CHECK(stats.views == 2);
    CHECK(stats.drawCalls == 2);
    CHECK(stats.drawCommands == 2);
    CHECK(stats.instances == 200);
    // Records (100 x 64 bytes) once with their 100 (draw row, instance) pairs of 8 bytes, plus
    // the mesh (4 vertices of 48 bytes, 6 16-bit indices) and its copy in the index arena (6
    // 32-bit indices; the vertices are copied on the GPU), plus the batch's one draw-table row
    // (224 bytes) for both views, one 20-byte command per view, and the material table's first
    // upload (row 0, 32 bytes).
    CHECK(stats.bytesUploaded == 100 * 64 + 100 * 8 + 4 * 48 + 6 * 2 + 6 * 4 + 224 + 2 * 20 + 32);
    const Image image = target.readPixels();
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), kSize / 2, kRed);                // left view
    MYRIAD_CHECK_PIXEL(image, kSize + pixelX(0.5f, kSize), kSize / 2, kRed);         // right view
    MYRIAD_CHECK_PIXEL(image, kSize + pixelX(-0.5f, kSize), kSize / 2, kBlue);       // its own clear
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), kSize / 2, kBlack);               // not erased

    batch.setColor(3, glm::vec4(0, 1, 0, 1));
    renderer.render(scene, views);
    CHECK(renderer.lastFrameStats().bytesUploaded == 64);  // one record, once for both views
}

TEST_CASE("a view from raw matrices (reversed-Z, 0..1 clip depth) draws like the camera", "[views][pixels]") {
    context();
    Scene scene;
    buildReference(scene);
    gl::Renderer renderer;
    gl::OffscreenTarget target(kSize, kSize);
    // Orthographic x, y in [-1, 1], eye at z = 10 looking down -Z, depth reversed: near -> 1.
    const float nearPlane = 0.1f;
    const float farPlane = 20.0f;
    glm::mat4 projection(1.0f);
    projection[2][2] = 1.0f / (farPlane - nearPlane);
    projection[3][2] = farPlane / (farPlane - nearPlane);
    gl::View view;
    view.viewMatrix = glm::lookAt(glm::vec3(0, 0, 10), glm::vec3(0), glm::vec3(0, 1, 0));
    view.projectionMatrix = projection;
    view.framebuffer = target.framebufferId();
    view.viewport = {0, 0, kSize, kSize};
    view.clipDepth = gl::ClipDepth::ZeroToOne;
    view.reversedDepth = true;
    renderer.render(scene, view);
    checkReference(target.readPixels());
    CHECK(renderer.lastFrameStats().culledNodes == 0);
}

TEST_CASE("a view from raw matrices with a NaN is refused before any GL call", "[views][errors]") {
    context();
    gl::Renderer renderer;
    Scene scene;
    buildReference(scene);
    gl::OffscreenTarget target(kSize, kSize);
    gl::View view;
    view.framebuffer = target.framebufferId();
    view.viewport = {0, 0, kSize, kSize};
    view.viewMatrix[3][0] = std::numeric_limits<float>::quiet_NaN();
    REQUIRE_THROWS_AS(renderer.render(scene, view), InvalidArgument);
    REQUIRE_THROWS_WITH(renderer.render(scene, view), Catch::Contains("view 0") && Catch::Contains("NaN"));
    view.viewMatrix = glm::mat4(1.0f);
    view.projectionMatrix[0][0] = std::numeric_limits<float>::infinity();
    CHECK_THROWS_AS(renderer.render(scene, view), InvalidArgument);
    view.projectionMatrix = glm::mat4(1.0f);
    CHECK_NOTHROW(renderer.render(scene, view));
}

TEST_CASE("a light direction with a NaN is refused before any GL call", "[views][errors]") {
    context();
    gl::Renderer renderer;
    Scene scene;
    buildReference(scene);
    gl::OffscreenTarget target(kSize, kSize);
    const Camera camera = orthoCamera();
    scene.light.direction = glm::vec3(std::numeric_limits<float>::quiet_NaN(), -1.0f, 0.0f);
    REQUIRE_THROWS_AS(renderer.render(scene, camera, target), InvalidArgument);
    REQUIRE_THROWS_WITH(renderer.render(scene, camera, target), Catch::Contains("light direction"));
    scene.light.direction = glm::vec3(0.0f, -std::numeric_limits<float>::infinity(), 0.0f);
    CHECK_THROWS_AS(renderer.render(scene, camera, target), InvalidArgument);
    scene.light.direction = glm::vec3(0.0f);  // documented: straight down
    CHECK_NOTHROW(renderer.render(scene, camera, target));
}

TEST_CASE("a zero-size view draws nothing and does not throw", "[views]") {
    context();
    gl::Renderer renderer;
    Scene scene;
    buildReference(scene);
    const Camera camera = orthoCamera();
    CHECK_NOTHROW(renderer.render(scene, camera, 0, 0));
    CHECK(renderer.lastFrameStats().drawCalls == 0);
    CHECK(renderer.lastFrameStats().views == 0);
}

TEST_CASE("a culled batch keeps its GPU copy and sends nothing when it returns", "[uploads]") {
    RenderFixture fixture;
    Scene scene;
    auto& batch = scene.root().emplace<InstancedMeshNode>(quadMesh(), unlit(), 1000, "herd");
    for (int i = 0; i < 1000; ++i) {
        batch.addInstance(at(0.0f, 0.0f));
    }
    fixture.render(scene);
    const std::uint32_t buffer = fixture.renderer.instanceBuffer(batch);
    REQUIRE(buffer != 0);
    batch.setPosition({100.0f, 0.0f, 0.0f});  // out of view
    for (int frame = 0; frame < 200; ++frame) {
        fixture.renderer.render(scene, fixture.camera, fixture.target);
        REQUIRE(fixture.renderer.lastFrameStats().culledNodes == 1);
    }
    batch.setPosition({0.0f, 0.0f, 0.0f});
    fixture.render(scene);
    CHECK(fixture.renderer.lastFrameStats().culledNodes == 0);
    CHECK(fixture.renderer.lastFrameStats().bytesUploaded == 0);  // no 64 KB re-upload
    CHECK(fixture.renderer.instanceBuffer(batch) == buffer);
}

TEST_CASE("two renderers each send only what changed since their own upload", "[uploads]") {
    context();
    Scene scene;
    auto& batch = scene.root().emplace<InstancedMeshNode>(quadMesh(), unlit(), 1000, "shared");
    for (int i = 0; i < 1000; ++i) {
        batch.addInstance(at(0.0f, 0.0f));
    }
    gl::Renderer first;
    gl::Renderer second;
    gl::OffscreenTarget target(kSize, kSize);
    const Camera camera = orthoCamera();
    first.render(scene, camera, target);
    second.render(scene, camera, target);
    for (int frame = 0; frame < 3; ++frame) {
        batch.setColor(static_cast<std::size_t>(frame), glm::vec4(0.5f));
        first.render(scene, camera, target);
        CHECK(first.lastFrameStats().bytesUploaded == 64);
        second.render(scene, camera, target);
        CHECK(second.lastFrameStats().bytesUploaded == 64);
    }
}

TEST_CASE("a released instance's vacated morph row is re-sent when an instance takes it", "[morph][uploads][pixels]") {
    RenderFixture fixture;
    auto mesh = liftingQuad(0.4f);
    Scene scene;
    auto& batch = scene.root().emplace<InstancedMeshNode>(mesh, unlit(), 4, "lifted");
    const InstanceHandle a = batch.acquire({at(-0.5f, -0.25f)});
    (void)batch.acquire({at(0.5f, -0.25f)});
    const float lifted[] = {1.0f};
    batch.setMorphWeights(1, lifted);  // B is drawn 0.5 higher
    fixture.render(scene);
    batch.release(a);                  // B moves into slot 0; slot 1's row is reset on the CPU
    fixture.render(scene);
    batch.addInstance(at(-0.5f, -0.25f));  // takes slot 1: node weights (0), drawn low
    const Image image = fixture.render(scene);
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), pixelY(-0.25f, kSize), kWhite);
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), pixelY(0.25f, kSize), kBlack);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), pixelY(0.25f, kSize), kWhite);  // B, lifted
}

TEST_CASE("a draw range draws instances 5..9 of 10, each with its own colour and morph shape", "[streams][pixels]") {
    RenderFixture fixture;
    auto mesh = liftingQuad(0.15f);
    Scene scene;
    auto& batch = scene.root().emplace<InstancedMeshNode>(mesh, unlit(), 10, "range");
    const glm::vec4 colors[2] = {{1, 0, 0, 1}, {0, 0, 1, 1}};
    for (int i = 0; i < 10; ++i) {
        // Instances 0-4 and 5-9 share places: only the range decides which are seen.
        const float x = -0.8f + 0.4f * static_cast<float>(i % 5);
        batch.addInstance(at(x, -0.5f), colors[i / 5]);
    }
    const float up[] = {1.0f};
    batch.setMorphWeights(7, up);  // instance 7 (x = 0) lifted by 0.5
    batch.setDrawRange(5, 5);
    const Image image = fixture.render(scene);
    CHECK(fixture.renderer.lastFrameStats().instances == 5);
    for (int i = 5; i < 10; ++i) {
        const float x = -0.8f + 0.4f * static_cast<float>(i % 5);
        const bool lifted = i == 7;
        INFO("instance " << i);
        MYRIAD_CHECK_PIXEL(image, pixelX(x, kSize), pixelY(lifted ? 0.0f : -0.5f, kSize), kBlue);
        MYRIAD_CHECK_PIXEL(image, pixelX(x, kSize), pixelY(lifted ? -0.5f : 0.0f, kSize), kBlack);
    }
}

TEST_CASE("two materials sharing an image sample it with their own filtering", "[textures][pixels]") {
    RenderFixture fixture;
    // A 2 x 2 checker (black, white) stretched over the whole view: nearest keeps hard halves,
    // linear blends them at the middle of each half's edge.
    auto checker = std::make_shared<Image>();
    checker->width = 2;
    checker->height = 2;
    checker->pixels = {0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 255, 255, 0, 0, 0, 255};
    Scene scene;
    Material nearest = unlit();
    nearest.baseColorTexture = checker;
    nearest.nearestFilter = true;
    Material linear = nearest;
    linear.nearestFilter = false;
    auto& left = scene.root().emplace<MeshNode>(MeshGeometry::create(shapes::quad(1.0f, 2.0f), "half"), nearest, "nearest");
    left.setPosition({-0.5f, 0.0f, 0.0f});
    auto& right = scene.root().emplace<MeshNode>(MeshGeometry::create(shapes::quad(1.0f, 2.0f), "half"), linear, "linear");
    right.setPosition({0.5f, 0.0f, 0.0f});
    const Image image = fixture.render(scene);
    // Each quad spans u 0..1 across 32 pixels: texel centres at u 0.25 and 0.75. At u = 0.5
    // (the quad's middle column) nearest is black or white, linear is mid-grey.
    const Rgba n = pixelAt(image, pixelX(-0.5f, kSize), kSize / 4);
    const Rgba l = pixelAt(image, pixelX(0.5f, kSize), kSize / 4);
    INFO("nearest " << describe(n) << ", linear " << describe(l));
    CHECK((n[0] < 10 || n[0] > 245));
    CHECK((l[0] > 60 && l[0] < 230));
}

TEST_CASE("a surface function that does not compile throws before anything is drawn", "[shaders][state]") {
    context();
    gl::Renderer renderer;
    gl::OffscreenTarget target(kSize, kSize);
    const Camera camera = orthoCamera();
    Scene scene;
    Material broken = unlit();
    broken.surface = SurfaceShader::fromSource("stripes.glsl",
                                               "SurfaceOutput surface(SurfaceInput s) {\n"
                                               "    vec3 c = s.color.rgb;\n"
                                               "    return SurfaceOutput(c, undefinedThing);\n"
                                               "}\n");
    auto& node = scene.root().emplace<MeshNode>(quadMesh(), broken, "broken");
    REQUIRE_THROWS_WITH(renderer.render(scene, camera, target),
                        Catch::Contains("stripes.glsl:3:") && Catch::Contains("undefinedThing"));
    // Nothing drawn and the documented exit state, not half a frame's.
    CHECK(integer(GL_CURRENT_PROGRAM) == 0);
    CHECK(integer(GL_DRAW_FRAMEBUFFER_BINDING) == 0);
    CHECK(glIsEnabled(GL_DEPTH_TEST) == GL_FALSE);
    CHECK(glIsEnabled(GL_BLEND) == GL_FALSE);
    CHECK(glIsEnabled(GL_CULL_FACE) == GL_FALSE);
    // Fixed, the same renderer draws.
    node.material().surface.reset();
    renderer.render(scene, camera, target);
    MYRIAD_CHECK_PIXEL(target.readPixels(), kSize / 2, kSize / 2, kWhite);
}

TEST_CASE("a user surface function paints stripes by world position and instance index", "[shaders][pixels]") {
    RenderFixture fixture;
    Material striped = unlit();
    striped.surface = SurfaceShader::fromSource(
        "stripes.glsl",
        "// Even instances: vertical stripes 0.25 wide by world x; odd instances: solid blue.\n"
        "SurfaceOutput surface(SurfaceInput s) {\n"
        "    if (s.instanceIndex % 2 == 1) {\n"
        "        return SurfaceOutput(vec3(0.0, 0.0, 1.0), 1.0);\n"
        "    }\n"
        "    bool dark = mod(floor(s.worldPosition.x / 0.25), 2.0) == 1.0;\n"
        "    return SurfaceOutput(dark ? vec3(0.0) : s.color.rgb * myriad_materialColor(s.uv).rgb, 1.0);\n"
        "}\n");
    Scene scene;
    auto& batch = scene.root().emplace<InstancedMeshNode>(MeshGeometry::create(shapes::quad(1.0f, 0.5f), "strip"),
                                                          striped, 2, "striped");
    batch.addInstance(at(0.5f, 0.5f));   // instance 0: stripes over x 0..1
    batch.addInstance(at(0.5f, -0.5f));  // instance 1: blue
    auto& single = scene.root().emplace<MeshNode>(MeshGeometry::create(shapes::quad(1.0f, 0.5f), "strip"), striped, "single");
    single.setPosition({-0.5f, 0.5f, 0.0f});  // a MeshNode is instance 0: stripes over x -1..0
    const Image image = fixture.render(scene);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.125f, kSize), pixelY(0.5f, kSize), kWhite);  // x in [0, 0.25)
    MYRIAD_CHECK_PIXEL(image, pixelX(0.375f, kSize), pixelY(0.5f, kSize), kBlack);  // [0.25, 0.5)
    MYRIAD_CHECK_PIXEL(image, pixelX(0.625f, kSize), pixelY(0.5f, kSize), kWhite);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), pixelY(-0.5f, kSize), kBlue);
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.375f, kSize), pixelY(0.5f, kSize), kWhite);  // [-0.5, -0.25): floor = -2
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.125f, kSize), pixelY(0.5f, kSize), kBlack);  // [-0.25, 0): floor = -1
    CHECK(fixture.renderer.programCount() >= 3);  // two built-in variants + the striped ones
}

TEST_CASE("a batch with two primitives draws both at every instance from one record stream", "[primitives][pixels]") {
    RenderFixture fixture;
    // Primitive 0: a red quad left of the instance origin; primitive 1: a blue one right of it.
    MeshData left = shapes::quad(0.2f, 0.2f);
    MeshData right = shapes::quad(0.2f, 0.2f);
    for (glm::vec3& p : left.positions) {
        p.x -= 0.15f;
    }
    for (glm::vec3& p : right.positions) {
        p.x += 0.15f;
    }
    Scene scene;
    auto& batch = scene.root().emplace<InstancedMeshNode>(MeshGeometry::create(left, "left"),
                                                          unlit(glm::vec4(1, 0, 0, 1)), 2, "two-part");
    batch.addPrimitive(MeshGeometry::create(right, "right"), unlit(glm::vec4(0, 0, 1, 1)));
    batch.addInstance(at(-0.5f, 0.5f));
    batch.addInstance(at(0.5f, -0.5f));
    const Image image = fixture.render(scene);
    const gl::FrameStats& stats = fixture.renderer.lastFrameStats();
    // The table-driven path: primitive 0 reads its records as attributes, primitive 1 (its own
    // row and (row, instance) pairs) fetches them: two variants, a multi-draw each.
    CHECK(stats.drawCalls == 2);
    CHECK(stats.multiDrawCalls == 2);
    CHECK(stats.instances == 4);
    // Records once; two places' four (draw row, instance) pairs each (the arena hands out places
    // of 4 records: the node's, and primitive 1's, whose records are never written); two meshes,
    // and their indices widened to 32 bits for the index arena (the vertices are copied there on
    // the GPU); a 224-byte row per primitive; a 20-byte command per primitive; the material
    // table's one 32-byte row (both materials are unnamed: index 0).
    CHECK(stats.bytesUploaded == 2 * 64 + 2 * 4 * 8 + 2 * (4 * 48 + 6 * 2) + 2 * 6 * 4 + 2 * 224 + 2 * 20 + 32);
    for (const glm::vec2 origin : {glm::vec2(-0.5f, 0.5f), glm::vec2(0.5f, -0.5f)}) {
        MYRIAD_CHECK_PIXEL(image, pixelX(origin.x - 0.15f, kSize), pixelY(origin.y, kSize), kRed);
        MYRIAD_CHECK_PIXEL(image, pixelX(origin.x + 0.15f, kSize), pixelY(origin.y, kSize), kBlue);
    }
    // Bounds cover both primitives: the batch is kept when only the right quad is in view.
    batch.setPosition({-1.6f, 0.0f, 0.0f});
    batch.setTransform(0, at(1.0f, 0.0f));
    batch.setTransform(1, at(1.0f, 0.0f));
    const Image shifted = fixture.render(scene);
    CHECK(fixture.renderer.lastFrameStats().culledNodes == 0);
    MYRIAD_CHECK_PIXEL(shifted, pixelX(-0.45f, kSize), pixelY(0.0f, kSize), kBlue);
}

namespace {
struct GameDebugLog {
    int messages = 0;
    GLuint lastId = 0;
};
void GLAD_API_PTR gameCallback(GLenum, GLenum, GLuint id, GLenum, GLsizei, const GLchar*, const void* user) {
    auto* log = static_cast<GameDebugLog*>(const_cast<void*>(user));
    ++log->messages;
    log->lastId = id;
}
} // namespace

TEST_CASE("debug output is off unless asked, and chains the game's own callback", "[state][debug]") {
    context();
    GameDebugLog game;
    glEnable(GL_DEBUG_OUTPUT);
    glDebugMessageCallback(gameCallback, &game);
    auto insert = [](GLuint id) {
        glDebugMessageInsert(GL_DEBUG_SOURCE_APPLICATION, GL_DEBUG_TYPE_MARKER, id,
                             GL_DEBUG_SEVERITY_NOTIFICATION, -1, "from the game");
    };
    {
        gl::Renderer quiet;  // default: the game's callback stays installed, untouched
        insert(1);
        CHECK(game.lastId == 1);
    }
    {
        gl::Renderer chained({.debugOutput = true});
        void* installed = nullptr;
        glGetPointerv(GL_DEBUG_CALLBACK_FUNCTION, &installed);
        CHECK(installed != reinterpret_cast<void*>(&gameCallback));  // myriad's is in front
        insert(2);
        CHECK(game.lastId == 2);  // and forwards every message to the game's
    }
    void* restored = nullptr;
    glGetPointerv(GL_DEBUG_CALLBACK_FUNCTION, &restored);
    CHECK(restored == reinterpret_cast<void*>(&gameCallback));  // put back on destruction
    insert(3);
    CHECK(game.lastId == 3);
    CHECK(game.messages >= 3);
    glDebugMessageCallback(nullptr, nullptr);
    glDisable(GL_DEBUG_OUTPUT);
}
