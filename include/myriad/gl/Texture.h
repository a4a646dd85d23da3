#pragma once
/** @file
 *  2D textures made from an Image. */
#include "myriad/core/Image.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace myriad::gl {

/** Creation parameters. Defaults: sRGB, linear filtering with mipmaps, repeat. */
struct TextureDesc {
    bool srgb = true;            ///< GL_SRGB8_ALPHA8 (colour) or GL_RGBA8 (data)
    bool nearestFilter = false;  ///< GL_NEAREST sampling, no mipmaps
    std::string_view label{};  ///< glObjectLabel; copied
};

/** An immutable RGBA8 2D texture (glTextureStorage2D) with a full mip chain.
 *  GL calls: glCreateTextures, glTextureStorage2D, glTextureSubImage2D, glGenerateTextureMipmap,
 *  glTextureParameteri, glBindTextureUnit, glObjectLabel.
 *  Ownership: move-only RAII; copies the pixels. Thread safety: the context's thread only. */
class Texture2D {
public:
    Texture2D() noexcept = default;
    /** @throws InvalidArgument if the image is empty or its pixel array is shorter than
     *  width * height * 4 bytes. */
    Texture2D(const Image& image, const TextureDesc& desc);
    ~Texture2D();
    /** Takes over the GL object of @p other, which is left empty (destructible without a context). */
    Texture2D(Texture2D&& other) noexcept;
    /** Deletes this object's GL object, then takes over that of @p other, which is left empty. */
    Texture2D& operator=(Texture2D&& other) noexcept;
    Texture2D(const Texture2D&) = delete;
    Texture2D& operator=(const Texture2D&) = delete;

    /** glBindTextureUnit(unit, id()). */
    void bind(std::uint32_t unit) const;
    /** The GL name of the texture; 0 when empty. */
    [[nodiscard]] std::uint32_t id() const noexcept { return m_id; }

private:
    std::uint32_t m_id = 0;
};

} // namespace myriad::gl
