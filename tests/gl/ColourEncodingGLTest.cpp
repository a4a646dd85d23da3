// What a view stores in each kind of colour target (issue 19, fault 2): GL encodes an sRGB
// target, the shaders encode a linear 8-bit one (ColorOutput::Display), a float one keeps linear
// light; the target's encoding is asked of GL once per framebuffer name, never in a steady
// frame, and asked again after Renderer::forgetFramebuffer().
#include "support/GlCallLog.h"
#include "support/GlTest.h"

#include <glad/gl.h>

#include "myriad/core/Particles.h"
#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/Renderer.h"

#include <array>
#include <cmath>
#include <vector>

using namespace myriad;
using namespace myriad::test;

namespace {

constexpr std::uint32_t kSize = 64;

/** A game's framebuffer: one colour renderbuffer of @p format plus DEPTH24, nothing stated. */
struct RawTarget {
    GLuint framebuffer = 0;
    GLuint color = 0;
    GLuint depth = 0;
    explicit RawTarget(GLenum format) {
        glCreateFramebuffers(1, &framebuffer);
        glCreateRenderbuffers(1, &color);
        glCreateRenderbuffers(1, &depth);
        glNamedRenderbufferStorage(color, format, kSize, kSize);
        glNamedRenderbufferStorage(depth, GL_DEPTH_COMPONENT24, kSize, kSize);
        glNamedFramebufferRenderbuffer(framebuffer, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, color);
        glNamedFramebufferRenderbuffer(framebuffer, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, depth);
        REQUIRE(glCheckNamedFramebufferStatus(framebuffer, GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE);
    }
    ~RawTarget() {
        glDeleteFramebuffers(1, &framebuffer);
        glDeleteRenderbuffers(1, &color);
        glDeleteRenderbuffers(1, &depth);
    }
    RawTarget(const RawTarget&) = delete;
    RawTarget& operator=(const RawTarget&) = delete;

    /** Linear RGB of pixel (x, y) in GL's bottom-up rows, read as floats (an 8-bit target's
     *  bytes / 255, no decoding: GL_FRAMEBUFFER_SRGB is off after render()). */
    [[nodiscard]] glm::vec3 read(std::uint32_t x, std::uint32_t y) const {
        std::array<float, 4> texel{};
        glBindFramebuffer(GL_READ_FRAMEBUFFER, framebuffer);
        glReadPixels(static_cast<GLint>(x), static_cast<GLint>(y), 1, 1, GL_RGBA, GL_FLOAT, texel.data());
        glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
        return {texel[0], texel[1], texel[2]};
    }
};

gl::View viewInto(const Camera& camera, GLuint framebuffer) {
    gl::View view = gl::View::of(camera, kSize, kSize);
    view.framebuffer = framebuffer;  // encoding left to the query
    return view;
}

/** Three unlit quads in a row (linear 0.5 grey, 0.2 red, 0.002 blue: below the OETF's linear
 *  segment) over a linear 0.02 clear. */
void buildScene(Scene& scene) {
    scene.clearColor = {0.02f, 0.02f, 0.02f, 1.0f};
    const auto quad = MeshGeometry::create(shapes::quad(0.5f, 0.5f), "quad");
    scene.root().emplace<MeshNode>(quad, unlit(glm::vec4(0.5f, 0.5f, 0.5f, 1)), "grey").setPosition({-0.6f, 0, 0});
    scene.root().emplace<MeshNode>(quad, unlit(glm::vec4(0.2f, 0, 0, 1)), "red").setPosition({0.0f, 0, 0});
    scene.root().emplace<MeshNode>(quad, unlit(glm::vec4(0, 0, 0.002f, 1)), "blue").setPosition({0.6f, 0, 0});
}

/** The places (GL rows, bottom-up) and their linear and encoded values. The encoded ones by
 *  hand from IEC 61966-2-1: 1.055 * 0.5^(1/2.4) - 0.055 = 0.7354 (187.5 / 255);
 *  1.055 * 0.2^(1/2.4) - 0.055 = 0.4845 (123.6); 12.92 * 0.002 = 0.0258 (6.6);
 *  1.055 * 0.02^(1/2.4) - 0.055 = 0.1517 (38.7). */
struct Probe {
    float x;
    glm::vec3 linear;
    glm::vec3 encoded;
};
constexpr std::array<Probe, 4> kProbes{{
    {-0.6f, {0.5f, 0.5f, 0.5f}, {0.7354f, 0.7354f, 0.7354f}},
    {0.0f, {0.2f, 0.0f, 0.0f}, {0.4845f, 0.0f, 0.0f}},
    {0.6f, {0.0f, 0.0f, 0.002f}, {0.0f, 0.0f, 0.0258f}},
    {-0.95f, {0.02f, 0.02f, 0.02f}, {0.1517f, 0.1517f, 0.1517f}},  // the clear colour
}};

void checkNear(const glm::vec3& actual, const glm::vec3& expected) {
    INFO("(" << actual.r << ", " << actual.g << ", " << actual.b << "), expected (" << expected.r << ", "
             << expected.g << ", " << expected.b << ")");
    for (int c = 0; c < 3; ++c) {
        CHECK(std::abs(actual[c] - expected[c]) <= 1.0f / 255.0f + 1e-4f);
    }
}

} // namespace

TEST_CASE("a linear RGBA8, an SRGB8_ALPHA8 and an RGBA16F target store the same scene alike", "[colour][pixels]") {
    context();
    Scene scene;
    buildScene(scene);
    const Camera camera = orthoCamera();
    gl::Renderer renderer;
    const RawTarget linear8(GL_RGBA8);
    const RawTarget srgb8(GL_SRGB8_ALPHA8);
    const RawTarget float16(GL_RGBA16F);
    const std::array<gl::View, 3> views{viewInto(camera, linear8.framebuffer), viewInto(camera, srgb8.framebuffer),
                                        viewInto(camera, float16.framebuffer)};
    renderer.render(scene, views);
    for (const Probe& probe : kProbes) {
        INFO("at x = " << probe.x);
        const std::uint32_t x = pixelX(probe.x, kSize);
        const std::uint32_t y = kSize / 2;
        {
            INFO("linear RGBA8: encoded by the shader");
            checkNear(linear8.read(x, y), probe.encoded);
        }
        {
            INFO("SRGB8_ALPHA8: encoded by GL");
            checkNear(srgb8.read(x, y), probe.encoded);
        }
        {
            INFO("RGBA16F: linear light");
            checkNear(float16.read(x, y), probe.linear);
        }
    }

    SECTION("ColorOutput::Linear stores linear values in the RGBA8 target") {
        gl::View view = viewInto(camera, linear8.framebuffer);
        view.output = gl::ColorOutput::Linear;
        renderer.render(scene, view);
        for (const Probe& probe : kProbes) {
            INFO("at x = " << probe.x);
            checkNear(linear8.read(pixelX(probe.x, kSize), kSize / 2), probe.linear);
        }
    }
    SECTION("an OffscreenTarget of each format states its encoding and reads back the same bytes") {
        for (const gl::TargetFormat format :
             {gl::TargetFormat::Rgba8, gl::TargetFormat::Srgb8Alpha8, gl::TargetFormat::Rgba16Float}) {
            gl::OffscreenTarget target(kSize, kSize, "encoding-target", format);
            renderer.render(scene, camera, target);
            const Image image = target.readPixels();
            for (const Probe& probe : kProbes) {
                INFO("format " << static_cast<int>(format) << " at x = " << probe.x);
                const Rgba expected{static_cast<int>(std::lround(probe.encoded.r * 255.0f)),
                                    static_cast<int>(std::lround(probe.encoded.g * 255.0f)),
                                    static_cast<int>(std::lround(probe.encoded.b * 255.0f)), 255};
                const Rgba actual = pixelAt(image, pixelX(probe.x, kSize), kSize / 2);
                INFO(describe(actual) << ", expected " << describe(expected));
                CHECK(near(actual, expected, 1));
            }
        }
    }
}

TEST_CASE("a blended draw into a linear RGBA8 target blends encoded values (documented)", "[colour][pixels]") {
    context();
    Scene scene;
    scene.clearColor = {0, 0, 0, 1};
    Material material = unlit(glm::vec4(0, 1, 0, 0.25f));
    material.alphaMode = AlphaMode::Blend;
    scene.root().emplace<MeshNode>(MeshGeometry::create(shapes::quad(1.0f, 1.0f), "quad"), material, "quarter-green");
    gl::Renderer renderer;
    gl::OffscreenTarget srgb(kSize, kSize, "srgb", gl::TargetFormat::Srgb8Alpha8);
    gl::OffscreenTarget linear(kSize, kSize, "rgba8", gl::TargetFormat::Rgba8);
    const Camera camera = orthoCamera();
    renderer.render(scene, camera, srgb);
    renderer.render(scene, camera, linear);
    // Linear light: encode(0.25 * 1) = 137. Encoded space: 0.25 * encode(1) = 0.25 -> 64.
    MYRIAD_CHECK_PIXEL(srgb.readPixels(), kSize / 2, kSize / 2, Rgba{0, 137, 0, 255});
    MYRIAD_CHECK_PIXEL(linear.readPixels(), kSize / 2, kSize / 2, Rgba{0, 64, 0, 255});
}

TEST_CASE("a target's encoding is queried once per framebuffer, again after forgetFramebuffer()", "[colour][state]") {
    context();
    Scene scene;
    buildScene(scene);
    const Camera camera = orthoCamera();
    gl::Renderer renderer;
    const RawTarget target(GL_RGBA8);
    const gl::View view = viewInto(camera, target.framebuffer);
    GlCallLog log;
    MYRIAD_GL_CALL_LOG_HOOK(log, glGetNamedFramebufferAttachmentParameteriv);
    renderer.render(scene, view);
    // Object type, colour encoding, component type of colour attachment 0.
    CHECK(log.callsTo("glGetNamedFramebufferAttachmentParameteriv").size() == 3);
    log.clear();
    renderer.render(scene, view);
    CHECK(log.callsTo("glGetNamedFramebufferAttachmentParameteriv").empty());  // a steady frame asks nothing

    // The game attaches sRGB storage to the same framebuffer: without forgetting, the renderer
    // would still encode (twice, with GL's); after forgetFramebuffer() it asks again.
    GLuint srgbColor = 0;
    glCreateRenderbuffers(1, &srgbColor);
    glNamedRenderbufferStorage(srgbColor, GL_SRGB8_ALPHA8, kSize, kSize);
    glNamedFramebufferRenderbuffer(target.framebuffer, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, srgbColor);
    renderer.forgetFramebuffer(target.framebuffer);
    renderer.render(scene, view);
    CHECK(log.callsTo("glGetNamedFramebufferAttachmentParameteriv").size() == 3);
    checkNear(target.read(pixelX(-0.6f, kSize), kSize / 2), kProbes[0].encoded);  // encoded once
    log.clear();

    // A stated encoding (View::of an OffscreenTarget states its own) is never queried.
    gl::OffscreenTarget offscreen(kSize, kSize, "stated", gl::TargetFormat::Rgba8);
    renderer.render(scene, camera, offscreen);
    CHECK(log.callsTo("glGetNamedFramebufferAttachmentParameteriv").empty());
    glNamedFramebufferRenderbuffer(target.framebuffer, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, target.color);
    glDeleteRenderbuffers(1, &srgbColor);
}

TEST_CASE("a view whose shaders encode draws with GL_FRAMEBUFFER_SRGB off, others with it on", "[colour][state]") {
    // Some drivers encode a default framebuffer that reports GL_LINEAR when GL_FRAMEBUFFER_SRGB
    // is on: with the shaders encoding too, the picture would be encoded twice. Pixels cannot
    // show it on a driver that follows the specification: the calls can.
    context();
    Scene scene;
    buildScene(scene);
    const Camera camera = orthoCamera();
    gl::Renderer renderer;
    gl::OffscreenTarget linear(kSize, kSize, "rgba8", gl::TargetFormat::Rgba8);
    gl::OffscreenTarget srgb(kSize, kSize, "srgb", gl::TargetFormat::Srgb8Alpha8);
    const std::array<gl::View, 2> views{gl::View::of(camera, linear), gl::View::of(camera, srgb)};
    GlCallLog log;
    MYRIAD_GL_CALL_LOG_HOOK(log, glEnable);
    MYRIAD_GL_CALL_LOG_HOOK(log, glDisable);
    renderer.render(scene, views);
    // GL_FRAMEBUFFER_SRGB's setting at each draw, in order: three quads per view (a multi-draw
    // call counts each of its commands).
    std::vector<bool> srgbAtDraw;
    bool on = false;
    for (const GlCall& call : log.calls()) {
        if ((call.function == "glEnable" || call.function == "glDisable") && call.argument<GLenum>(0) == GL_FRAMEBUFFER_SRGB) {
            on = call.function == "glEnable";
        } else if (call.function == "glDrawElementsInstancedBaseInstance") {
            srgbAtDraw.push_back(on);
        } else if (call.function == "glMultiDrawElementsIndirect") {
            srgbAtDraw.insert(srgbAtDraw.end(), static_cast<std::size_t>(call.argument<GLsizei>(3)), on);
        }
    }
    CHECK(srgbAtDraw == std::vector<bool>{false, false, false, true, true, true});
}

TEST_CASE("particles are encoded for a linear RGBA8 target like for an sRGB one", "[colour][particles][pixels]") {
    // particle.frag encodes before its alpha weighting: an opaque particle's centre matches.
    context();
    Scene scene;
    scene.clearColor = {0, 0, 0, 1};
    auto& pool = scene.root().emplace<ParticlePool>(1, ParticleMaterial::billboard(), "pool");
    Particle particle;
    particle.size = 1.5f;
    particle.color = {0.2f, 0.5f, 0.0f};
    particle.alpha = 1.0f;
    pool.spawn(particle);
    gl::Renderer renderer;
    const Camera camera = orthoCamera();
    for (const gl::TargetFormat format : {gl::TargetFormat::Rgba8, gl::TargetFormat::Srgb8Alpha8}) {
        gl::OffscreenTarget target(kSize, kSize, "particles", format);
        renderer.render(scene, camera, target);
        INFO("format " << static_cast<int>(format));
        MYRIAD_CHECK_PIXEL(target.readPixels(), kSize / 2, kSize / 2, Rgba{124, 188, 0, 255});  // encode(0.2), encode(0.5)
    }
}

TEST_CASE("framebuffer 0's encoding is asked once, and not of a default framebuffer that does not exist", "[colour][state]") {
    // A surfaceless context has no default framebuffer (GL_FRAMEBUFFER_UNDEFINED): nothing is
    // encoded for it and no attachment is asked about (that would be GL_INVALID_OPERATION); a
    // pbuffer or window has GL_BACK_LEFT (or GL_FRONT_LEFT) to ask.
    context();
    Scene scene;
    buildScene(scene);
    gl::Renderer renderer;
    GlCallLog log;
    MYRIAD_GL_CALL_LOG_HOOK(log, glCheckNamedFramebufferStatus);
    MYRIAD_GL_CALL_LOG_HOOK(log, glGetNamedFramebufferAttachmentParameteriv);
    renderer.render(scene, orthoCamera(), kSize, kSize);
    const auto status = log.callsTo("glCheckNamedFramebufferStatus");
    REQUIRE(status.size() == 1);
    const auto asked = log.callsTo("glGetNamedFramebufferAttachmentParameteriv");
    if (status.front().resultAs<GLenum>() == GL_FRAMEBUFFER_UNDEFINED) {
        CHECK(asked.empty());
    } else {
        CHECK(asked.size() >= 3);
        for (const GlCall& call : asked) {
            CHECK(call.argument<GLuint>(0) == 0);
            CHECK((call.argument<GLenum>(1) == GL_BACK_LEFT || call.argument<GLenum>(1) == GL_FRONT_LEFT));
        }
    }
    log.clear();
    renderer.render(scene, orthoCamera(), kSize, kSize);
    CHECK(log.callsTo("glCheckNamedFramebufferStatus").empty());  // remembered
    CHECK(log.callsTo("glGetNamedFramebufferAttachmentParameteriv").empty());
}

TEST_CASE("a view into framebuffer 0 of a context without one is skipped, with no GL error", "[state]") {
    // Clearing or drawing into an incomplete framebuffer raises GL_INVALID_FRAMEBUFFER_OPERATION
    // (GL 4.5 section 9.4.4) and keeps nothing: the renderer skips such a view.
    context();
    if (glCheckNamedFramebufferStatus(0, GL_DRAW_FRAMEBUFFER) != GL_FRAMEBUFFER_UNDEFINED) {
        WARN("this context has a default framebuffer: nothing to check");  // Catch2 2.13 has no SKIP
        return;
    }
    Scene scene;
    buildScene(scene);
    gl::Renderer renderer;
    while (glGetError() != GL_NO_ERROR) {
    }
    renderer.render(scene, orthoCamera(), kSize, kSize);
    CHECK(glGetError() == GL_NO_ERROR);
    CHECK(renderer.lastFrameStats().drawCalls == 0);
    CHECK(renderer.lastFrameStats().views == 0);
}
