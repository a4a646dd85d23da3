// Tone mapping and exposure on screen (myriad/gl/ToneMapping.h, docs/lighting.md "Tone mapping
// and exposure"): known linear values are written into a float target's colour texture, the
// pass draws them into an 8-bit destination, and the bytes read back are compared with the
// published curves. Expected values come two ways: typed in by hand from the references (Khronos
// PBR Neutral: 0.18 -> 0.14, 1.0 -> 1 - 0.24^2 / 0.44; Hill's ACES fit: grey 1.0 -> 0.61912,
// 0.18 -> 0.10559), and from a small double-precision copy of each formula below for the rest.
#include "support/EveryFeatureScene.h"  // hookRoundTrips, roundTrips
#include "support/GlCallLog.h"
#include "support/GlTest.h"

#include "myriad/core/Image.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/ToneMapping.h"
#include "myriad/util/Error.h"

#include <glad/gl.h>
#include <glm/gtc/packing.hpp>
#include <glm/vec3.hpp>
#include <glm/vec4.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

using namespace myriad;
using namespace myriad::test;

namespace {

// ---- the references, in double precision ------------------------------------------------------

/** Khronos PBR Neutral (github.com/KhronosGroup/ToneMapping, PBR_Neutral/pbrNeutral.glsl). */
glm::dvec3 pbrNeutral(glm::dvec3 c) {
    const double startCompression = 0.8 - 0.04;
    const double desaturation = 0.15;
    const double x = std::min({c.r, c.g, c.b});
    const double offset = x < 0.08 ? x - 6.25 * x * x : 0.04;
    c -= offset;
    const double peak = std::max({c.r, c.g, c.b});
    if (peak < startCompression) {
        return c;
    }
    const double d = 1.0 - startCompression;
    const double newPeak = 1.0 - d * d / (peak + d - startCompression);
    c *= newPeak / peak;
    const double g = 1.0 - 1.0 / (desaturation * (peak - newPeak) + 1.0);
    return c * (1.0 - g) + glm::dvec3(newPeak) * g;
}

/** Stephen Hill's ACES fit (BakingLab ACES.hlsl, ACESFitted), rows as the HLSL writes them. */
glm::dvec3 acesFitted(const glm::dvec3& c) {
    const double in[3][3] = {{0.59719, 0.35458, 0.04823}, {0.07600, 0.90834, 0.01566}, {0.02840, 0.13383, 0.83777}};
    const double out[3][3] = {{1.60475, -0.53108, -0.07367}, {-0.10208, 1.10813, -0.00605}, {-0.00327, -0.07276, 1.07602}};
    glm::dvec3 v{};
    for (int i = 0; i < 3; ++i) {
        v[i] = in[i][0] * c.r + in[i][1] * c.g + in[i][2] * c.b;
    }
    glm::dvec3 fitted{};
    for (int i = 0; i < 3; ++i) {
        fitted[i] = (v[i] * (v[i] + 0.0245786) - 0.000090537) / (v[i] * (0.983729 * v[i] + 0.4329510) + 0.238081);
    }
    glm::dvec3 result{};
    for (int i = 0; i < 3; ++i) {
        result[i] = std::clamp(out[i][0] * fitted.r + out[i][1] * fitted.g + out[i][2] * fitted.b, 0.0, 1.0);
    }
    return result;
}

/** IEC 61966-2-1 encoding of a linear value to a byte. */
int srgbByte(double linear) {
    const double c = std::clamp(linear, 0.0, 1.0);
    const double encoded = c <= 0.0031308 ? 12.92 * c : 1.055 * std::pow(c, 1.0 / 2.4) - 0.055;
    return static_cast<int>(std::lround(encoded * 255.0));
}

/** What a GL_RGBA16F texel keeps of @p value. */
double half(float value) { return static_cast<double>(glm::unpackHalf1x16(glm::packHalf1x16(value))); }

/** The expected bytes of @p linear (as stored in half floats) through @p op after @p exposure. */
Rgba expected(gl::ToneMapOperator op, const glm::vec3& linear, double exposure = 1.0) {
    const glm::dvec3 exposed = glm::dvec3(half(linear.r), half(linear.g), half(linear.b)) * exposure;
    glm::dvec3 mapped = exposed;
    switch (op) {
    case gl::ToneMapOperator::Clamp: mapped = glm::clamp(exposed, 0.0, 1.0); break;
    case gl::ToneMapOperator::KhronosPbrNeutral: mapped = pbrNeutral(exposed); break;
    case gl::ToneMapOperator::Aces: mapped = acesFitted(exposed); break;
    }
    return {srgbByte(mapped.r), srgbByte(mapped.g), srgbByte(mapped.b), 255};
}

// ---- the scene: one row of known linear colours -----------------------------------------------

/** The source row, left to right: greys 0.18, 1, 4, 16, 0.05, 0, and two colours (a highlight
 *  that desaturates, a dark red below the compression knee). Alpha 1. */
const std::vector<glm::vec3>& sourceColours() {
    static const std::vector<glm::vec3> colours{
        glm::vec3(0.18f), glm::vec3(1.0f), glm::vec3(4.0f),  glm::vec3(16.0f),
        glm::vec3(0.05f), glm::vec3(0.0f), {4.0f, 1.0f, 0.18f}, {0.5f, 0.02f, 0.0f}};
    return colours;
}

/** A width x 1 float target holding @p colours (scaled by @p scale), written into its colour
 *  texture directly (glTextureSubImage2D: exact, half-float rounded). */
gl::OffscreenTarget floatSource(const std::vector<glm::vec3>& colours, float scale = 1.0f) {
    gl::OffscreenTarget target(static_cast<std::uint32_t>(colours.size()), 1, "tonemap-source",
                               gl::TargetFormat::Rgba16Float);
    std::vector<glm::vec4> texels;
    for (const glm::vec3& c : colours) {
        texels.emplace_back(c * scale, 1.0f);
    }
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glTextureSubImage2D(target.colorTextureId(), 0, 0, 0, static_cast<GLsizei>(colours.size()), 1, GL_RGBA, GL_FLOAT,
                        texels.data());
    return target;
}

/** @p pass drawn from @p source into a new destination of @p format the same size, read back. */
Image toneMapped(const gl::ToneMapPass& pass, const gl::OffscreenTarget& source,
                 gl::TargetFormat format = gl::TargetFormat::Srgb8Alpha8) {
    gl::OffscreenTarget destination(source.width(), source.height(), "tonemap-destination", format);
    pass.apply(source, gl::ToneMapDestination::of(destination));
    return destination.readPixels();
}

/** Every channel of @p actual within @p tolerance of @p expected (alpha too). */
bool within(const Rgba& actual, const Rgba& expectedBytes, int tolerance) {
    for (std::size_t i = 0; i < 4; ++i) {
        if (std::abs(actual[i] - expectedBytes[i]) > tolerance) {
            return false;
        }
    }
    return true;
}

#define CHECK_BYTES(image, x, expectedBytes, tolerance)                                                  \
    do {                                                                                                 \
        const Rgba actual_ = pixelAt((image), (x), 0);                                                   \
        const Rgba expected_ = (expectedBytes);                                                          \
        INFO("pixel " << (x) << " is " << describe(actual_) << ", expected " << describe(expected_));    \
        CHECK(within(actual_, expected_, (tolerance)));                                                  \
    } while (false)

} // namespace

TEST_CASE("tone mapping: each operator gives its published curve within 1/255", "[tonemap]") {
    context();
    const gl::OffscreenTarget source = floatSource(sourceColours());
    for (const gl::ToneMapOperator op :
         {gl::ToneMapOperator::Clamp, gl::ToneMapOperator::KhronosPbrNeutral, gl::ToneMapOperator::Aces}) {
        INFO("operator " << static_cast<int>(op));
        const gl::ToneMapPass pass({.toneOperator = op});
        const Image image = toneMapped(pass, source);
        for (std::uint32_t x = 0; x < sourceColours().size(); ++x) {
            CHECK_BYTES(image, x, expected(op, sourceColours()[x]), 1);
        }
    }
    // Typed in by hand from the references, not from the copies above.
    {
        const Image neutral = toneMapped(gl::ToneMapPass({.toneOperator = gl::ToneMapOperator::KhronosPbrNeutral}),
                                         source);
        // 0.18 - 0.04 = 0.14 (below the knee of 0.76 only the F90 offset is taken): sRGB 0.41006 -> 105.
        CHECK_BYTES(neutral, 0, (Rgba{105, 105, 105, 255}), 1);
        // 1.0: peak 0.96, compressed to 1 - 0.24^2 / (0.96 + 0.24 - 0.76) = 0.869091, grey stays grey -> 240.
        CHECK_BYTES(neutral, 1, (Rgba{240, 240, 240, 255}), 1);
        // 0.05 (< 0.08): 0.05 - (0.05 - 6.25 * 0.05^2) = 0.015625 -> 34.
        CHECK_BYTES(neutral, 4, (Rgba{34, 34, 34, 255}), 1);
        // A colour below the knee keeps its hue: (0.5, 0.02, 0) minus f(0) = 0, as is -> (188, 39, 0).
        CHECK_BYTES(neutral, 7, (Rgba{188, 39, 0, 255}), 1);
        const Image aces = toneMapped(gl::ToneMapPass({.toneOperator = gl::ToneMapOperator::Aces}), source);
        // Grey passes both matrices (rows sum to 1): (1.0245786 - 0.000090537) / 1.654761 = 0.619115 -> 206.
        CHECK_BYTES(aces, 1, (Rgba{206, 206, 206, 255}), 1);
        // 0.18: 0.0367336 / 0.3478850 = 0.105591 -> 91.
        CHECK_BYTES(aces, 0, (Rgba{91, 91, 91, 255}), 1);
        const Image clamp = toneMapped(gl::ToneMapPass({.toneOperator = gl::ToneMapOperator::Clamp}), source);
        CHECK_BYTES(clamp, 0, (Rgba{118, 118, 118, 255}), 1);  // 0.18 as is
        CHECK_BYTES(clamp, 2, (Rgba{255, 255, 255, 255}), 0);  // 4.0 clipped
    }
}

TEST_CASE("tone mapping: doubling the exposure equals doubling the light", "[tonemap]") {
    context();
    CHECK(gl::ToneMapSettings::exposureFromStops(1.0f) == 2.0f);
    CHECK(gl::ToneMapSettings::exposureFromStops(-2.0f) == 0.25f);
    CHECK(gl::ToneMapSettings::exposureFromStops(0.0f) == 1.0f);
    const gl::OffscreenTarget halfLight = floatSource(sourceColours(), 0.5f);
    const gl::OffscreenTarget fullLight = floatSource(sourceColours());
    for (const gl::ToneMapOperator op :
         {gl::ToneMapOperator::Clamp, gl::ToneMapOperator::KhronosPbrNeutral, gl::ToneMapOperator::Aces}) {
        INFO("operator " << static_cast<int>(op));
        gl::ToneMapPass pass({.toneOperator = op});
        const Image asRendered = toneMapped(pass, fullLight);
        pass.setSettings({.toneOperator = op, .exposure = gl::ToneMapSettings::exposureFromStops(1.0f)});
        const Image oneStopUp = toneMapped(pass, halfLight);
        for (std::uint32_t x = 0; x < sourceColours().size(); ++x) {
            CHECK_BYTES(oneStopUp, x, pixelAt(asRendered, x, 0), 1);
            CHECK_BYTES(oneStopUp, x, expected(op, sourceColours()[x] * 0.5f, 2.0), 1);
        }
    }
    // By hand: Clamp at exposure 2 of 0.09 is 0.18 (byte 118); PBR Neutral at exposure 4 of 0.25 is 1.0 (240).
    const gl::OffscreenTarget quarter = floatSource({glm::vec3(0.09f), glm::vec3(0.25f)});
    CHECK_BYTES(toneMapped(gl::ToneMapPass({.toneOperator = gl::ToneMapOperator::Clamp, .exposure = 2.0f}), quarter),
                0, (Rgba{118, 118, 118, 255}), 1);
    CHECK_BYTES(toneMapped(gl::ToneMapPass({.toneOperator = gl::ToneMapOperator::KhronosPbrNeutral, .exposure = 4.0f}),
                           quarter),
                1, (Rgba{240, 240, 240, 255}), 1);
}

TEST_CASE("tone mapping: sRGB and linear 8-bit and float destinations give the same encoded bytes", "[tonemap]") {
    context();
    const gl::OffscreenTarget source = floatSource(sourceColours());
    for (const gl::ToneMapOperator op :
         {gl::ToneMapOperator::Clamp, gl::ToneMapOperator::KhronosPbrNeutral, gl::ToneMapOperator::Aces}) {
        INFO("operator " << static_cast<int>(op));
        const gl::ToneMapPass pass({.toneOperator = op});
        const Image srgb = toneMapped(pass, source, gl::TargetFormat::Srgb8Alpha8);     // GL encodes
        const Image linear = toneMapped(pass, source, gl::TargetFormat::Rgba8);         // the shader encodes
        const Image floating = toneMapped(pass, source, gl::TargetFormat::Rgba16Float);  // readPixels encodes
        for (std::uint32_t x = 0; x < sourceColours().size(); ++x) {
            // Once, not twice and not never: each within 1 of the formula's bytes (GL's encoder
            // and the shader's OETF round differently, hence not exactly equal).
            CHECK_BYTES(srgb, x, expected(op, sourceColours()[x]), 1);
            CHECK_BYTES(linear, x, expected(op, sourceColours()[x]), 1);
            CHECK_BYTES(linear, x, pixelAt(srgb, x, 0), 1);
            CHECK_BYTES(floating, x, expected(op, sourceColours()[x]), 1);
        }
    }
}

TEST_CASE("tone mapping: bad settings and arguments throw and leave the pass as it was", "[tonemap]") {
    context();
    const gl::OffscreenTarget source = floatSource(sourceColours());
    const gl::ToneMapSettings good{.toneOperator = gl::ToneMapOperator::Aces, .exposure = 1.5f};
    gl::ToneMapPass pass(good);
    const Image before = toneMapped(pass, source);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    for (const float exposure : {0.0f, -1.0f, nan, inf, -inf, -0.0f}) {
        INFO("exposure " << exposure);
        CHECK_THROWS_AS(pass.setSettings({.toneOperator = gl::ToneMapOperator::Clamp, .exposure = exposure}),
                        InvalidArgument);
        CHECK_THROWS_AS(gl::ToneMapPass({.exposure = exposure}), InvalidArgument);
    }
    CHECK_THROWS_AS(pass.setSettings({.toneOperator = static_cast<gl::ToneMapOperator>(7)}), InvalidArgument);
    CHECK(pass.settings().toneOperator == good.toneOperator);
    CHECK(pass.settings().exposure == good.exposure);
    CHECK(sameImage(toneMapped(pass, source), before));  // the program's uniforms too

    // Arguments apply() refuses, before any GL call.
    gl::OffscreenTarget destination(source.width(), 1, "tonemap-destination");
    gl::ToneMapDestination query = gl::ToneMapDestination::of(destination);
    query.encoding = gl::TargetEncoding::Query;
    CHECK_THROWS_AS(pass.apply(source, query), InvalidArgument);
    gl::ToneMapDestination self = gl::ToneMapDestination::of(source);  // a feedback loop
    CHECK_THROWS_AS(pass.apply(source, self), InvalidArgument);
    const gl::OffscreenTarget encoded(4, 1, "tonemap-rgba8", gl::TargetFormat::Rgba8);
    CHECK_THROWS_AS(pass.apply(encoded, gl::ToneMapDestination::of(destination)), InvalidArgument);
    CHECK_THROWS_AS(pass.apply(gl::OffscreenTarget(), gl::ToneMapDestination::of(destination)), InvalidArgument);
    CHECK_THROWS_AS(pass.apply(0u, gl::ToneMapDestination::of(destination)), InvalidArgument);
    gl::ToneMapDestination huge = gl::ToneMapDestination::of(destination);
    GLint maxViewport[2] = {};
    glGetIntegerv(GL_MAX_VIEWPORT_DIMS, maxViewport);
    huge.viewport.width = static_cast<std::uint32_t>(maxViewport[0]) + 1;
    CHECK_THROWS_AS(pass.apply(source, huge), CapacityError);
    // An empty viewport draws nothing and is no error.
    gl::ToneMapDestination empty = gl::ToneMapDestination::of(destination);
    empty.viewport.width = 0;
    CHECK_NOTHROW(pass.apply(source, empty));

    gl::ToneMapPass moved = std::move(pass);
    CHECK_THROWS_AS(pass.apply(source, gl::ToneMapDestination::of(destination)), StateError);  // NOLINT: moved from on purpose
    CHECK_THROWS_AS(pass.setSettings(good), StateError);
    CHECK(sameImage(toneMapped(moved, source), before));
}

TEST_CASE("tone mapping: draws in any state then leaves the documented state and asks GL nothing",
          "[tonemap][state]") {
    context();
    const gl::OffscreenTarget source = floatSource(sourceColours());
    const gl::ToneMapPass pass({.toneOperator = gl::ToneMapOperator::KhronosPbrNeutral});
    gl::OffscreenTarget destination(source.width(), 1, "tonemap-destination", gl::TargetFormat::Srgb8Alpha8);
    const float black[4] = {0.0f, 0.0f, 0.0f, 1.0f};
    glClearNamedFramebufferfv(destination.framebufferId(), GL_COLOR, 0, black);

    // Hostile state: each would spoil or block the draw if the pass left it as found.
    GLuint otherVao = 0;
    glCreateVertexArrays(1, &otherVao);
    glBindVertexArray(otherVao);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_NEVER);
    glEnable(GL_BLEND);
    glBlendFunc(GL_ZERO, GL_ZERO);
    glEnable(GL_SCISSOR_TEST);
    glScissor(0, 0, 1, 1);
    glEnable(GL_CULL_FACE);
    glCullFace(GL_FRONT_AND_BACK);
    glColorMask(GL_FALSE, GL_TRUE, GL_FALSE, GL_TRUE);
    glPolygonMode(GL_FRONT_AND_BACK, GL_LINE);
    glEnable(GL_RASTERIZER_DISCARD);
    glViewport(0, 0, 1, 1);

    GlCallLog log(GlCallLog::NoFunctions{});
    hookRoundTrips(log);
    pass.apply(source, gl::ToneMapDestination::of(destination));
    pass.apply(source, gl::ToneMapDestination::of(destination));
    INFO(log.dump(20));
    CHECK(roundTrips(log) == 0);  // no glGet, glIsEnabled, location lookup or framebuffer check

    // The documented exit state (docs/gl-state.md, "The tone-mapping pass").
    CHECK(integer(GL_DRAW_FRAMEBUFFER_BINDING) == 0);
    CHECK(integer(GL_READ_FRAMEBUFFER_BINDING) == 0);
    CHECK(integer(GL_CURRENT_PROGRAM) == 0);
    CHECK(integer(GL_VERTEX_ARRAY_BINDING) == 0);
    CHECK(integer(GL_ACTIVE_TEXTURE) == GL_TEXTURE0);
    GLint texture = -1;
    glGetIntegeri_v(GL_TEXTURE_BINDING_2D, 0, &texture);
    CHECK(texture == 0);
    GLint sampler = -1;
    glGetIntegeri_v(GL_SAMPLER_BINDING, 0, &sampler);
    CHECK(sampler == 0);
    CHECK_FALSE(glIsEnabled(GL_FRAMEBUFFER_SRGB));
    CHECK_FALSE(glIsEnabled(GL_DEPTH_TEST));
    CHECK_FALSE(glIsEnabled(GL_BLEND));
    CHECK_FALSE(glIsEnabled(GL_SCISSOR_TEST));
    CHECK_FALSE(glIsEnabled(GL_CULL_FACE));
    CHECK_FALSE(glIsEnabled(GL_RASTERIZER_DISCARD));
    GLboolean mask[4] = {};
    glGetBooleani_v(GL_COLOR_WRITEMASK, 1, mask);
    CHECK((mask[0] && mask[1] && mask[2] && mask[3]));
    glGetBooleanv(GL_COLOR_WRITEMASK, mask);
    CHECK((mask[0] && mask[1] && mask[2] && mask[3]));
    GLint polygonMode[2] = {};
    glGetIntegerv(GL_POLYGON_MODE, polygonMode);
    CHECK(polygonMode[0] == GL_FILL);
    GLint viewport[4] = {};
    glGetIntegerv(GL_VIEWPORT, viewport);
    CHECK(viewport[0] == 0);
    CHECK(viewport[2] == static_cast<GLint>(source.width()));  // the destination's, kept
    CHECK(viewport[3] == 1);
    // Labels on its objects.
    char label[64] = {};
    GLsizei length = 0;
    glGetObjectLabel(GL_PROGRAM, pass.programId(), sizeof label, &length, label);
    CHECK(std::string(label, static_cast<std::size_t>(length)) == "myriad/tonemap");
    glDeleteVertexArrays(1, &otherVao);
    glDepthFunc(GL_LESS);
    glBlendFunc(GL_ONE, GL_ZERO);
    glCullFace(GL_BACK);

    // And the picture is right in spite of the state it was called in.
    const Image image = destination.readPixels();
    for (std::uint32_t x = 0; x < sourceColours().size(); ++x) {
        CHECK_BYTES(image, x, expected(gl::ToneMapOperator::KhronosPbrNeutral, sourceColours()[x]), 1);
    }
}

TEST_CASE("tone mapping: the source fills the destination's viewport and nothing else", "[tonemap]") {
    context();
    // A 2x1 source (0.18 grey, 16 grey) into the middle 4x2 of an 8x4 destination: each source
    // texel covers a 2x2 block (nearest), the border keeps its clear colour.
    const gl::OffscreenTarget source = floatSource({glm::vec3(0.18f), glm::vec3(16.0f)});
    gl::OffscreenTarget destination(8, 4, "tonemap-destination", gl::TargetFormat::Rgba8);
    const float blue[4] = {0.0f, 0.0f, 1.0f, 1.0f};
    glClearNamedFramebufferfv(destination.framebufferId(), GL_COLOR, 0, blue);
    const gl::ToneMapPass pass({.toneOperator = gl::ToneMapOperator::Clamp});
    pass.apply(source, {.framebuffer = destination.framebufferId(),
                        .viewport = {2, 1, 4, 2},
                        .encoding = gl::TargetEncoding::Linear});
    const Image image = destination.readPixels();  // rows top to bottom: GL rows 1-2 are image rows 1-2
    for (std::uint32_t y = 0; y < 4; ++y) {
        for (std::uint32_t x = 0; x < 8; ++x) {
            const bool inside = x >= 2 && x < 6 && y >= 1 && y < 3;
            const Rgba want = !inside ? kBlue : x < 4 ? Rgba{118, 118, 118, 255} : kWhite;
            const Rgba actual = pixelAt(image, x, y);
            INFO("pixel (" << x << ", " << y << ") is " << describe(actual) << ", expected " << describe(want));
            CHECK(within(actual, want, 1));
        }
    }
}
