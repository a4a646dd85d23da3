#include "myriad/gl/ToneMapping.h"

#include "gl/Bindings.h"
#include "gl/GlCommon.h"
#include "myriad/gl/Loader.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/util/Error.h"
#include "renderer/ShaderLibrary.h"  // kEncodeSrgbGlsl
#include "renderer/ToneMapProgram.h"

#include <cmath>
#include <string>
#include <utility>

namespace myriad::gl {
namespace detail {

std::array<ShaderSource, 2> toneMapProgramSources() {
    return {ShaderSource{ShaderStage::Vertex, "tonemap.vert", embeddedShaderText("tonemap.vert")},
            ShaderSource{ShaderStage::Fragment, "tonemap.frag", embeddedShaderText("tonemap.frag"), kEncodeSrgbGlsl}};
}

} // namespace detail

namespace {

/** ToneMapOperator as tonemap.frag's u_operator numbers it. */
int operatorCode(ToneMapOperator op) noexcept { return static_cast<int>(op); }

void checkSettings(const ToneMapSettings& settings, const char* function) {
    if (!std::isfinite(settings.exposure) || !(settings.exposure > 0.0f)) {
        throw InvalidArgument(std::string(function) + ": exposure " + std::to_string(settings.exposure) +
                              " is not a finite number above 0 (a linear multiplier; 1 leaves the picture as "
                              "rendered, ToneMapSettings::exposureFromStops converts EV stops)");
    }
    switch (settings.toneOperator) {
    case ToneMapOperator::Clamp:
    case ToneMapOperator::KhronosPbrNeutral:
    case ToneMapOperator::Aces: return;
    }
    throw InvalidArgument(std::string(function) + ": toneOperator " +
                          std::to_string(static_cast<int>(settings.toneOperator)) + " is not a ToneMapOperator");
}

} // namespace

float ToneMapSettings::exposureFromStops(float stops) noexcept { return std::exp2(stops); }

ToneMapDestination ToneMapDestination::of(const OffscreenTarget& target) noexcept {
    ToneMapDestination destination;
    destination.framebuffer = target.framebufferId();
    destination.viewport = {0, 0, target.width(), target.height()};
    switch (target.format()) {
    case TargetFormat::Srgb8Alpha8: destination.encoding = TargetEncoding::Srgb; break;
    case TargetFormat::Rgba8: destination.encoding = TargetEncoding::Linear; break;
    case TargetFormat::Rgba16Float: destination.encoding = TargetEncoding::Float; break;
    }
    return destination;
}

ToneMapDestination ToneMapDestination::window(std::uint32_t width, std::uint32_t height,
                                              TargetEncoding encoding) noexcept {
    return {.framebuffer = 0, .viewport = {0, 0, width, height}, .encoding = encoding};
}

ToneMapPass::ToneMapPass(const ToneMapSettings& settings) {
    checkSettings(settings, "gl::ToneMapPass");
    requireCurrentContext("gl::ToneMapPass");
    const auto stages = detail::toneMapProgramSources();
    Program program(stages, "myriad/tonemap");  // throws ShaderError: nothing else made yet
    // The one limit apply() checks, read here once: a larger viewport GL would silently clamp.
    GLint maxViewport[2] = {0, 0};
    glGetIntegerv(GL_MAX_VIEWPORT_DIMS, maxViewport);
    m_maxViewport[0] = maxViewport[0];
    m_maxViewport[1] = maxViewport[1];
    m_locationOperator = program.uniformLocation("u_operator");
    m_locationExposure = program.uniformLocation("u_exposure");
    m_locationEncode = program.uniformLocation("u_encodeSrgb");
    m_program = std::move(program);
    // No attributes: the triangle comes from gl_VertexID, but a core context draws only with a
    // vertex array bound.
    glCreateVertexArrays(1, &m_vertexArray);
    detail::countObject(detail::ObjectKind::VertexArray, 1);
    detail::setLabel(GL_VERTEX_ARRAY, m_vertexArray, "myriad/tonemap.vao");
    // The pass's own sampling state, whatever the source texture's: one level read, nearest
    // (the source's texel at each pixel centre when the sizes match), clamped at the edges.
    glCreateSamplers(1, &m_sampler);
    detail::countObject(detail::ObjectKind::Sampler, 1);
    glSamplerParameteri(m_sampler, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glSamplerParameteri(m_sampler, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glSamplerParameteri(m_sampler, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glSamplerParameteri(m_sampler, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glSamplerParameteri(m_sampler, GL_TEXTURE_COMPARE_MODE, GL_NONE);
    detail::setLabel(GL_SAMPLER, m_sampler, "myriad/tonemap.sampler");
    m_settings = settings;
    glProgramUniform1i(m_program.id(), m_locationOperator, operatorCode(settings.toneOperator));
    glProgramUniform1f(m_program.id(), m_locationExposure, settings.exposure);
}

void ToneMapPass::destroy() noexcept {
    if (m_vertexArray != 0) {
        glDeleteVertexArrays(1, &m_vertexArray);
        detail::countObject(detail::ObjectKind::VertexArray, -1);
    }
    if (m_sampler != 0) {
        glDeleteSamplers(1, &m_sampler);
        detail::countObject(detail::ObjectKind::Sampler, -1);
    }
    m_vertexArray = m_sampler = 0;
    m_program = Program();
}

ToneMapPass::~ToneMapPass() { destroy(); }

ToneMapPass::ToneMapPass(ToneMapPass&& other) noexcept
    : m_settings(other.m_settings), m_program(std::move(other.m_program)),
      m_vertexArray(std::exchange(other.m_vertexArray, 0)), m_sampler(std::exchange(other.m_sampler, 0)),
      m_locationOperator(other.m_locationOperator), m_locationExposure(other.m_locationExposure),
      m_locationEncode(other.m_locationEncode), m_maxViewport{other.m_maxViewport[0], other.m_maxViewport[1]} {}

ToneMapPass& ToneMapPass::operator=(ToneMapPass&& other) noexcept {
    if (this != &other) {
        destroy();
        m_settings = other.m_settings;
        m_program = std::move(other.m_program);
        m_vertexArray = std::exchange(other.m_vertexArray, 0);
        m_sampler = std::exchange(other.m_sampler, 0);
        m_locationOperator = other.m_locationOperator;
        m_locationExposure = other.m_locationExposure;
        m_locationEncode = other.m_locationEncode;
        m_maxViewport[0] = other.m_maxViewport[0];
        m_maxViewport[1] = other.m_maxViewport[1];
    }
    return *this;
}

void ToneMapPass::setSettings(const ToneMapSettings& settings) {
    if (m_program.id() == 0) {
        throw StateError("gl::ToneMapPass::setSettings: the pass was moved from");
    }
    checkSettings(settings, "gl::ToneMapPass::setSettings");
    requireCurrentContext("gl::ToneMapPass::setSettings");
    glProgramUniform1i(m_program.id(), m_locationOperator, operatorCode(settings.toneOperator));
    glProgramUniform1f(m_program.id(), m_locationExposure, settings.exposure);
    m_settings = settings;
}

void ToneMapPass::apply(const OffscreenTarget& source, const ToneMapDestination& destination) const {
    constexpr const char* kFunction = "gl::ToneMapPass::apply";
    if (source.framebufferId() == 0) {
        throw InvalidArgument(std::string(kFunction) + ": the source target is empty");
    }
    if (source.format() == TargetFormat::Rgba8) {
        throw InvalidArgument(std::string(kFunction) +
                              ": the source is an Rgba8 target, which holds display-encoded bytes after a "
                              "ColorOutput::Display view, not linear light; render into an Rgba16Float target");
    }
    if (destination.framebuffer == source.framebufferId()) {
        throw InvalidArgument(std::string(kFunction) + ": the destination is the source's own framebuffer " +
                              std::to_string(destination.framebuffer) +
                              " (reading and writing one texture in a draw is a feedback loop)");
    }
    draw(source.colorTextureId(), destination, kFunction);
}

void ToneMapPass::apply(std::uint32_t sourceTexture, const ToneMapDestination& destination) const {
    constexpr const char* kFunction = "gl::ToneMapPass::apply";
    if (sourceTexture == 0) {
        throw InvalidArgument(std::string(kFunction) + ": the source texture is 0");
    }
    draw(sourceTexture, destination, kFunction);
}

void ToneMapPass::draw(std::uint32_t sourceTexture, const ToneMapDestination& destination,
                       const char* function) const {
    if (m_program.id() == 0) {
        throw StateError(std::string(function) + ": the pass was moved from");
    }
    const TargetEncoding encoding = destination.encoding;
    if (encoding != TargetEncoding::Srgb && encoding != TargetEncoding::Linear && encoding != TargetEncoding::Float) {
        throw InvalidArgument(std::string(function) +
                              ": the destination's encoding must be stated (Srgb, Linear or Float); the pass "
                              "asks GL nothing, so TargetEncoding::Query is refused");
    }
    const Viewport& viewport = destination.viewport;
    if (static_cast<std::int64_t>(viewport.width) > m_maxViewport[0] ||
        static_cast<std::int64_t>(viewport.height) > m_maxViewport[1]) {
        throw CapacityError(std::string(function) + ": viewport " + std::to_string(viewport.width) + "x" +
                            std::to_string(viewport.height) + " is larger than GL_MAX_VIEWPORT_DIMS (" +
                            std::to_string(m_maxViewport[0]) + "x" + std::to_string(m_maxViewport[1]) +
                            " on this driver)");
    }
    if (viewport.width == 0 || viewport.height == 0) {
        return;  // a minimised window: nothing to draw, no GL call
    }
    requireCurrentContext(function);
    // Everything the draw depends on, set (docs/gl-state.md, "The tone-mapping pass").
    glBindFramebuffer(GL_FRAMEBUFFER, destination.framebuffer);
    glViewport(viewport.x, viewport.y, static_cast<GLsizei>(viewport.width), static_cast<GLsizei>(viewport.height));
    // Encoded once: by GL into an sRGB destination, by the shader into a linear 8-bit one,
    // not at all into a float one (GL_FRAMEBUFFER_SRGB off, so a driver that encodes a window
    // reporting GL_LINEAR cannot encode a second time).
    if (encoding == TargetEncoding::Srgb) {
        glEnable(GL_FRAMEBUFFER_SRGB);
    } else {
        glDisable(GL_FRAMEBUFFER_SRGB);
    }
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_STENCIL_TEST);
    glDisable(GL_SCISSOR_TEST);
    glDisable(GL_BLEND);
    glDisable(GL_CULL_FACE);
    glDisable(GL_RASTERIZER_DISCARD);
    glDisable(GL_COLOR_LOGIC_OP);
    glDisable(GL_SAMPLE_ALPHA_TO_COVERAGE);
    glDisable(GL_SAMPLE_MASK);
    // tonemap.vert writes no gl_ClipDistance: an enabled one would clip by an undefined value.
    for (GLenum plane = 0; plane < 8; ++plane) {
        glDisable(GL_CLIP_DISTANCE0 + plane);
    }
    glPolygonMode(GL_FRONT_AND_BACK, GL_FILL);
    // Draw buffer 0 only: the shader writes no output 1-7, which would leave those attachments
    // undefined (OpenGL 4.5 section 17.4.1; a velocity target's attachment 1). GL 4.5 has at
    // least 8 draw buffers, so no limit query.
    glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
    for (GLuint buffer = 1; buffer < 8; ++buffer) {
        glColorMaski(buffer, GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);
    }
    glProgramUniform1i(m_program.id(), m_locationEncode, encoding == TargetEncoding::Linear ? 1 : 0);
    glUseProgram(m_program.id());
    glBindVertexArray(m_vertexArray);
    glBindTextureUnit(detail::kToneMapSourceUnit, sourceTexture);
    glBindSampler(detail::kToneMapSourceUnit, m_sampler);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    // What it leaves: GL's initial values (the renderer's default exit state), the viewport
    // excepted. No glGet: the caller's values are not read, so not put back.
    glBindTextureUnit(detail::kToneMapSourceUnit, 0);
    glBindSampler(detail::kToneMapSourceUnit, 0);
    glBindVertexArray(0);
    glUseProgram(0);
    glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
    glDisable(GL_FRAMEBUFFER_SRGB);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

} // namespace myriad::gl
