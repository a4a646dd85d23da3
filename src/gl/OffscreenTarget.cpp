#include "myriad/gl/OffscreenTarget.h"

#include "gl/GlCommon.h"
#include "myriad/gl/Loader.h"
#include "myriad/util/Error.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>
#include <utility>

namespace myriad::gl {
namespace {

/** IEC 61966-2-1 sRGB encoding of a linear value, to a byte. */
std::uint8_t encodeSrgb(float linear) {
    return static_cast<std::uint8_t>(std::lround(linearToSrgb(linear) * 255.0f));
}

Image readFramebuffer(GLuint framebuffer, std::uint32_t width, std::uint32_t height, bool linearFloat) {
    Image image;
    image.width = width;
    image.height = height;
    image.pixels.resize(std::size_t{width} * height * 4);
    // Whatever pack state the game left (alignment 1, a row length, a pack buffer) must not
    // change what is read: set it, and put it back after.
    GLint previous[5] = {};
    glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &previous[0]);
    glGetIntegerv(GL_PACK_ALIGNMENT, &previous[1]);
    glGetIntegerv(GL_PACK_ROW_LENGTH, &previous[2]);
    glGetIntegerv(GL_PIXEL_PACK_BUFFER_BINDING, &previous[3]);
    glGetIntegerv(GL_PACK_SKIP_ROWS, &previous[4]);
    GLint skipPixels = 0;
    glGetIntegerv(GL_PACK_SKIP_PIXELS, &skipPixels);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, framebuffer);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glPixelStorei(GL_PACK_ROW_LENGTH, 0);
    glPixelStorei(GL_PACK_SKIP_ROWS, 0);
    glPixelStorei(GL_PACK_SKIP_PIXELS, 0);
    if (linearFloat) {
        // A float target holds linear light: encode it once here, as an sRGB target would have.
        std::vector<float> linear(std::size_t{width} * height * 4);
        glReadPixels(0, 0, static_cast<GLsizei>(width), static_cast<GLsizei>(height), GL_RGBA, GL_FLOAT,
                     linear.data());
        for (std::size_t i = 0; i < linear.size(); ++i) {
            image.pixels[i] = i % 4 == 3 ? static_cast<std::uint8_t>(std::lround(std::clamp(linear[i], 0.0f, 1.0f) * 255.0f))
                                         : encodeSrgb(linear[i]);
        }
    } else {
        glReadPixels(0, 0, static_cast<GLsizei>(width), static_cast<GLsizei>(height), GL_RGBA,
                     GL_UNSIGNED_BYTE, image.pixels.data());
    }
    glBindFramebuffer(GL_READ_FRAMEBUFFER, static_cast<GLuint>(previous[0]));
    glPixelStorei(GL_PACK_ALIGNMENT, previous[1]);
    glPixelStorei(GL_PACK_ROW_LENGTH, previous[2]);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, static_cast<GLuint>(previous[3]));
    glPixelStorei(GL_PACK_SKIP_ROWS, previous[4]);
    glPixelStorei(GL_PACK_SKIP_PIXELS, skipPixels);
    // GL's rows run bottom to top; Image's run top to bottom.
    const std::size_t rowBytes = std::size_t{width} * 4;
    std::vector<std::uint8_t> row(rowBytes);
    for (std::uint32_t y = 0; y < height / 2; ++y) {
        std::uint8_t* top = image.pixels.data() + y * rowBytes;
        std::uint8_t* bottom = image.pixels.data() + (height - 1 - y) * rowBytes;
        std::memcpy(row.data(), top, rowBytes);
        std::memcpy(top, bottom, rowBytes);
        std::memcpy(bottom, row.data(), rowBytes);
    }
    return image;
}

} // namespace

OffscreenTarget::OffscreenTarget(std::uint32_t width, std::uint32_t height,
                                 std::string_view label, TargetFormat format, DepthFormat depth,
                                 VelocityFormat velocity) {
    if (width == 0 || height == 0 || width > 16384 || height > 16384) {
        throw InvalidArgument("gl::OffscreenTarget: size " + std::to_string(width) + "x" +
                              std::to_string(height) + " is outside 1..16384");
    }
    requireCurrentContext("gl::OffscreenTarget");
    glCreateFramebuffers(1, &m_framebuffer);
    detail::countObject(detail::ObjectKind::Framebuffer, 1);
    // Colour is a texture (one level, immutable storage) so a later pass can sample it
    // (colorTextureId(): ToneMapPass reads a float target's linear light); drawing into it is the
    // same as into a renderbuffer.
    glCreateTextures(GL_TEXTURE_2D, 1, &m_color);
    // Depth is a texture (one level, immutable storage) so the renderer can read it (View::depthTexture:
    // the GPU occlusion pass's depth pyramid); drawing into it is the same as into a renderbuffer.
    glCreateTextures(GL_TEXTURE_2D, 1, &m_depth);
    const GLenum colorFormat = format == TargetFormat::Rgba16Float ? GL_RGBA16F
                               : format == TargetFormat::Rgba8     ? GL_RGBA8
                                                                   : GL_SRGB8_ALPHA8;
    glTextureStorage2D(m_color, 1, colorFormat, static_cast<GLsizei>(width), static_cast<GLsizei>(height));
    // Complete for a plain sampler2D without a sampler object (the default minifying filter
    // wants mipmaps the one level does not have).
    glTextureParameteri(m_color, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTextureParameteri(m_color, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTextureParameteri(m_color, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTextureParameteri(m_color, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glTextureStorage2D(m_depth, 1, depth == DepthFormat::Depth32Float ? GL_DEPTH_COMPONENT32F : GL_DEPTH_COMPONENT24,
                       static_cast<GLsizei>(width), static_cast<GLsizei>(height));
    glNamedFramebufferTexture(m_framebuffer, GL_COLOR_ATTACHMENT0, m_color, 0);
    glNamedFramebufferTexture(m_framebuffer, GL_DEPTH_ATTACHMENT, m_depth, 0);
    if (velocity != VelocityFormat::None) {
        // Motion vectors (View::velocity): colour attachment 1, both written by every draw into
        // this framebuffer (draw buffers set once here; a draw that writes no velocity is masked).
        glCreateRenderbuffers(1, &m_velocity);
        glNamedRenderbufferStorage(m_velocity, velocity == VelocityFormat::Rg32Float ? GL_RG32F : GL_RG16F,
                                   static_cast<GLsizei>(width), static_cast<GLsizei>(height));
        glNamedFramebufferRenderbuffer(m_framebuffer, GL_COLOR_ATTACHMENT1, GL_RENDERBUFFER, m_velocity);
        static constexpr std::array<GLenum, 2> kDrawBuffers{GL_COLOR_ATTACHMENT0, GL_COLOR_ATTACHMENT1};
        glNamedFramebufferDrawBuffers(m_framebuffer, 2, kDrawBuffers.data());
    }
    const GLenum status = glCheckNamedFramebufferStatus(m_framebuffer, GL_FRAMEBUFFER);
    if (status != GL_FRAMEBUFFER_COMPLETE) {
        destroy();
        throw GlError("gl::OffscreenTarget: framebuffer incomplete (status 0x" +
                      [&] {
                          char hex[16];
                          std::snprintf(hex, sizeof hex, "%04X", status);
                          return std::string(hex);
                      }() +
                      ")");
    }
    m_width = width;
    m_height = height;
    m_format = format;
    m_depthFormat = depth;
    m_velocityFormat = velocity;
    const std::string base = detail::labelOrDefault(label, "offscreen-target", m_framebuffer);
    detail::setLabel(GL_FRAMEBUFFER, m_framebuffer, base);
    detail::setLabel(GL_TEXTURE, m_color, base + ".color");
    detail::setLabel(GL_TEXTURE, m_depth, base + ".depth");
    if (m_velocity != 0) {
        detail::setLabel(GL_RENDERBUFFER, m_velocity, base + ".velocity");
    }
}

void OffscreenTarget::destroy() noexcept {
    if (m_framebuffer != 0) {
        glDeleteFramebuffers(1, &m_framebuffer);
        detail::countObject(detail::ObjectKind::Framebuffer, -1);
    }
    if (m_color != 0) {
        glDeleteTextures(1, &m_color);
    }
    if (m_depth != 0) {
        glDeleteTextures(1, &m_depth);
    }
    if (m_velocity != 0) {
        glDeleteRenderbuffers(1, &m_velocity);
    }
    m_framebuffer = m_color = m_depth = m_velocity = 0;
}

OffscreenTarget::~OffscreenTarget() { destroy(); }

OffscreenTarget::OffscreenTarget(OffscreenTarget&& other) noexcept
    : m_framebuffer(std::exchange(other.m_framebuffer, 0)), m_color(std::exchange(other.m_color, 0)),
      m_depth(std::exchange(other.m_depth, 0)), m_velocity(std::exchange(other.m_velocity, 0)),
      m_width(std::exchange(other.m_width, 0)), m_height(std::exchange(other.m_height, 0)), m_format(other.m_format),
      m_depthFormat(other.m_depthFormat), m_velocityFormat(std::exchange(other.m_velocityFormat, VelocityFormat::None)) {}

OffscreenTarget& OffscreenTarget::operator=(OffscreenTarget&& other) noexcept {
    if (this != &other) {
        destroy();
        m_framebuffer = std::exchange(other.m_framebuffer, 0);
        m_color = std::exchange(other.m_color, 0);
        m_depth = std::exchange(other.m_depth, 0);
        m_velocity = std::exchange(other.m_velocity, 0);
        m_velocityFormat = std::exchange(other.m_velocityFormat, VelocityFormat::None);
        m_width = std::exchange(other.m_width, 0);
        m_height = std::exchange(other.m_height, 0);
        m_format = other.m_format;
        m_depthFormat = other.m_depthFormat;
    }
    return *this;
}

Image OffscreenTarget::readPixels() const {
    if (m_framebuffer == 0) {
        throw InvalidArgument("gl::OffscreenTarget::readPixels: the target is empty");
    }
    return readFramebuffer(m_framebuffer, m_width, m_height, m_format == TargetFormat::Rgba16Float);
}

std::vector<float> OffscreenTarget::readVelocity() const {
    if (m_framebuffer == 0 || m_velocity == 0) {
        throw InvalidArgument("gl::OffscreenTarget::readVelocity: the target is empty or has no velocity attachment");
    }
    std::vector<float> pixels(std::size_t{m_width} * m_height * 2);
    GLint previous[4] = {};
    glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &previous[0]);
    glGetIntegerv(GL_PACK_ALIGNMENT, &previous[1]);
    glGetIntegerv(GL_PIXEL_PACK_BUFFER_BINDING, &previous[2]);
    glGetIntegerv(GL_PACK_ROW_LENGTH, &previous[3]);
    GLint skip[2] = {};
    glGetIntegerv(GL_PACK_SKIP_ROWS, &skip[0]);
    glGetIntegerv(GL_PACK_SKIP_PIXELS, &skip[1]);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, m_framebuffer);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    glPixelStorei(GL_PACK_ROW_LENGTH, 0);
    glPixelStorei(GL_PACK_SKIP_ROWS, 0);
    glPixelStorei(GL_PACK_SKIP_PIXELS, 0);
    glNamedFramebufferReadBuffer(m_framebuffer, GL_COLOR_ATTACHMENT1);
    glReadPixels(0, 0, static_cast<GLsizei>(m_width), static_cast<GLsizei>(m_height), GL_RG, GL_FLOAT, pixels.data());
    glNamedFramebufferReadBuffer(m_framebuffer, GL_COLOR_ATTACHMENT0);  // readPixels()' (GL's default)
    glBindFramebuffer(GL_READ_FRAMEBUFFER, static_cast<GLuint>(previous[0]));
    glPixelStorei(GL_PACK_ALIGNMENT, previous[1]);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, static_cast<GLuint>(previous[2]));
    glPixelStorei(GL_PACK_ROW_LENGTH, previous[3]);
    glPixelStorei(GL_PACK_SKIP_ROWS, skip[0]);
    glPixelStorei(GL_PACK_SKIP_PIXELS, skip[1]);
    // GL's rows run bottom to top; readPixels()' (and this) top to bottom.
    const std::size_t row = std::size_t{m_width} * 2;
    for (std::uint32_t y = 0; y < m_height / 2; ++y) {
        std::swap_ranges(pixels.begin() + static_cast<std::ptrdiff_t>(y * row),
                         pixels.begin() + static_cast<std::ptrdiff_t>((y + 1) * row),
                         pixels.begin() + static_cast<std::ptrdiff_t>((m_height - 1 - y) * row));
    }
    return pixels;
}

Image readDefaultFramebuffer(std::uint32_t width, std::uint32_t height) {
    requireCurrentContext("gl::readDefaultFramebuffer");
    return readFramebuffer(0, width, height, false);
}

} // namespace myriad::gl
