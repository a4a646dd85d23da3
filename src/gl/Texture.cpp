#include "myriad/gl/Texture.h"

#include "gl/GlCommon.h"
#include "myriad/gl/Loader.h"
#include "myriad/util/Error.h"

#include <algorithm>
#include <bit>
#include <utility>

namespace myriad::gl {

Texture2D::Texture2D(const Image& image, const TextureDesc& desc) {
    if (image.width == 0 || image.height == 0) {
        throw InvalidArgument("gl::Texture2D: the image is empty");
    }
    if (image.width > 16384 || image.height > 16384) {
        throw InvalidArgument("gl::Texture2D: image " + std::to_string(image.width) + "x" +
                              std::to_string(image.height) + " is larger than 16384 on a side");
    }
    const std::size_t needed = std::size_t{image.width} * image.height * 4;
    if (image.pixels.size() < needed) {
        throw InvalidArgument("gl::Texture2D: image has " + std::to_string(image.pixels.size()) +
                              " bytes, a " + std::to_string(image.width) + "x" +
                              std::to_string(image.height) + " RGBA8 image needs " +
                              std::to_string(needed));
    }
    requireCurrentContext("gl::Texture2D");
    glCreateTextures(GL_TEXTURE_2D, 1, &m_id);
    detail::countObject(detail::ObjectKind::Texture, 1);
    const auto levels = desc.nearestFilter
                            ? 1
                            : static_cast<GLsizei>(std::bit_width(std::max(image.width, image.height)));
    glTextureStorage2D(m_id, levels, desc.srgb ? GL_SRGB8_ALPHA8 : GL_RGBA8,
                       static_cast<GLsizei>(image.width), static_cast<GLsizei>(image.height));
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTextureSubImage2D(m_id, 0, 0, 0, static_cast<GLsizei>(image.width),
                        static_cast<GLsizei>(image.height), GL_RGBA, GL_UNSIGNED_BYTE,
                        image.pixels.data());
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    if (levels > 1) {
        glGenerateTextureMipmap(m_id);
    }
    glTextureParameteri(m_id, GL_TEXTURE_MIN_FILTER,
                        desc.nearestFilter ? GL_NEAREST : GL_LINEAR_MIPMAP_LINEAR);
    glTextureParameteri(m_id, GL_TEXTURE_MAG_FILTER, desc.nearestFilter ? GL_NEAREST : GL_LINEAR);
    glTextureParameteri(m_id, GL_TEXTURE_WRAP_S, GL_REPEAT);
    glTextureParameteri(m_id, GL_TEXTURE_WRAP_T, GL_REPEAT);
    detail::setLabel(GL_TEXTURE, m_id, detail::labelOrDefault(desc.label, "texture", m_id));
}

Texture2D::~Texture2D() {
    if (m_id != 0) {
        glDeleteTextures(1, &m_id);
        detail::countObject(detail::ObjectKind::Texture, -1);
    }
}

Texture2D::Texture2D(Texture2D&& other) noexcept : m_id(std::exchange(other.m_id, 0)) {}

Texture2D& Texture2D::operator=(Texture2D&& other) noexcept {
    if (this != &other) {
        if (m_id != 0) {
            glDeleteTextures(1, &m_id);
            detail::countObject(detail::ObjectKind::Texture, -1);
        }
        m_id = std::exchange(other.m_id, 0);
    }
    return *this;
}

void Texture2D::bind(std::uint32_t unit) const { glBindTextureUnit(unit, m_id); }

} // namespace myriad::gl
