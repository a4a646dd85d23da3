#pragma once
/** @file
 *  An offscreen framebuffer (sRGB or float colour + 24-bit depth) that can be read back. */
#include "myriad/core/Image.h"

#include <cstdint>
#include <string_view>

namespace myriad::gl {

/** Colour format of an OffscreenTarget. */
enum class TargetFormat : std::uint8_t {
    /** GL_SRGB8_ALPHA8: linear light in, sRGB-encoded bytes stored (GL_FRAMEBUFFER_SRGB
     *  encodes writes and decodes for blending, so blending happens in linear light). */
    Srgb8Alpha8,
    /** GL_RGBA16F: linear light stored as is, for engines that tone-map afterwards. */
    Rgba16Float,
};

/** A framebuffer object with an sRGB (default) or RGBA16F colour and a DEPTH24 renderbuffer.
 *  GL calls: glCreateFramebuffers, glCreateRenderbuffers, glNamedRenderbufferStorage,
 *  glNamedFramebufferRenderbuffer, glCheckNamedFramebufferStatus, glReadPixels.
 *  Ownership: move-only RAII. Thread safety: the context's thread only. */
class OffscreenTarget {
public:
    OffscreenTarget() noexcept = default;
    /** @throws InvalidArgument if a side is 0 or above 16384; GlError if incomplete. */
    OffscreenTarget(std::uint32_t width, std::uint32_t height, std::string_view label = {},
                    TargetFormat format = TargetFormat::Srgb8Alpha8);
    ~OffscreenTarget();
    /** Takes over the GL object of @p other, which is left empty (destructible without a context). */
    OffscreenTarget(OffscreenTarget&& other) noexcept;
    /** Deletes this object's GL object, then takes over that of @p other, which is left empty. */
    OffscreenTarget& operator=(OffscreenTarget&& other) noexcept;
    OffscreenTarget(const OffscreenTarget&) = delete;
    OffscreenTarget& operator=(const OffscreenTarget&) = delete;

    /** The colour attachment, rows top to bottom (flipped from GL's bottom-up order), as
     *  sRGB-encoded RGBA8 bytes: an sRGB target's bytes as stored, a float target's linear
     *  values encoded (alpha as is). Waits for the GPU to finish drawing into it. Sets the pack
     *  state it needs and puts back the caller's (alignment, row length, skips, pack buffer,
     *  read framebuffer). */
    [[nodiscard]] Image readPixels() const;

    /** The GL name of the framebuffer object; 0 when empty. */
    [[nodiscard]] std::uint32_t framebufferId() const noexcept { return m_framebuffer; }
    /** Width in pixels. */
    [[nodiscard]] std::uint32_t width() const noexcept { return m_width; }
    /** Height in pixels. */
    [[nodiscard]] std::uint32_t height() const noexcept { return m_height; }
    /** The colour format chosen at construction (Srgb8Alpha8 when empty). */
    [[nodiscard]] TargetFormat format() const noexcept { return m_format; }

private:
    void destroy() noexcept;
    std::uint32_t m_framebuffer = 0;
    std::uint32_t m_color = 0;
    std::uint32_t m_depth = 0;
    std::uint32_t m_width = 0;
    std::uint32_t m_height = 0;
    TargetFormat m_format = TargetFormat::Srgb8Alpha8;
};

/** Reads the default framebuffer's back buffer (window) as an Image, rows top to bottom. */
[[nodiscard]] Image readDefaultFramebuffer(std::uint32_t width, std::uint32_t height);

} // namespace myriad::gl
