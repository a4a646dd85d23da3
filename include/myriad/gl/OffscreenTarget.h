#pragma once
/** @file
 *  An offscreen framebuffer (sRGB, linear 8-bit or float colour + 24-bit or 32-bit float
 *  depth) that can be read back. */
#include "myriad/core/Image.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace myriad::gl {

/** Colour format of an OffscreenTarget. */
enum class TargetFormat : std::uint8_t {
    /** GL_SRGB8_ALPHA8: linear light in, sRGB-encoded bytes stored (GL_FRAMEBUFFER_SRGB
     *  encodes writes and decodes for blending, so blending happens in linear light). */
    Srgb8Alpha8,
    /** GL_RGBA16F: linear light stored as is, for engines that tone-map afterwards. */
    Rgba16Float,
    /** GL_RGBA8: stores what it is given. With ColorOutput::Display (the default) the shaders
     *  encode to sRGB, so the bytes equal an Srgb8Alpha8 target's within 1 (the shader's OETF and
     *  GL's encoding round differently), except where blended draws blend the encoded values
     *  (View::targetEncoding). */
    Rgba8,
};

/** Depth format of an OffscreenTarget. */
enum class DepthFormat : std::uint8_t {
    /** GL_DEPTH_COMPONENT24: fixed point, spaced evenly in window depth. Reversed-Z gains
     *  nothing here: its precision comes from a float's exponent. */
    Depth24,
    /** GL_DEPTH_COMPONENT32F: with View::reversedDepth and ClipDepth::ZeroToOne (near at 1,
     *  far at 0) the float's dense values near 0 meet the projection's crowding near the far
     *  plane, so precision is close to even in view distance (Reed, "Depth Precision
     *  Visualized", NVIDIA 2015). Without reversed-Z it is no better than Depth24. */
    Depth32Float,
};

/** A velocity (motion-vector) attachment of an OffscreenTarget (View::velocity). */
enum class VelocityFormat : std::uint8_t {
    None,       ///< no velocity attachment (the default)
    Rg16Float,  ///< GL_RG16F at colour attachment 1: 4 bytes a pixel; exact to 1/1024 px up to 2 px, 1/32 px up to 64 px
    Rg32Float,  ///< GL_RG32F at colour attachment 1: 8 bytes a pixel
};

/** A framebuffer object with an sRGB (default), RGBA8 or RGBA16F colour texture (one level,
 *  colorTextureId(), which ToneMapPass reads) and a
 *  DEPTH24 (default) or DEPTH32F depth texture (one level, single-sampled: depthTextureId(),
 *  which View::of() hands to the renderer as View::depthTexture for GPU occlusion culling).
 *  GL calls: glCreateFramebuffers, glCreateRenderbuffers, glNamedRenderbufferStorage,
 *  glCreateTextures, glTextureStorage2D, glTextureParameteri, glNamedFramebufferRenderbuffer,
 *  glNamedFramebufferTexture, glCheckNamedFramebufferStatus, glReadPixels.
 *  Ownership: move-only RAII. Thread safety: the context's thread only. */
class OffscreenTarget {
public:
    OffscreenTarget() noexcept = default;
    /** @param width, height the size in pixels, 1 to 16384 each
     *  @param label the GL debug label's base ("offscreen-target" when empty)
     *  @param format the colour format
     *  @param depth the depth format (a texture: depthTextureId())
     *  @param velocity a velocity renderbuffer at colour attachment 1 (none by default); with
     *  one, the framebuffer's draw buffers are {COLOR_ATTACHMENT0, COLOR_ATTACHMENT1}, set here
     *  once, and View::of() turns View::velocity on.
     *  @throws InvalidArgument if a side is 0 or above 16384; GlError if incomplete. */
    OffscreenTarget(std::uint32_t width, std::uint32_t height, std::string_view label = {},
                    TargetFormat format = TargetFormat::Srgb8Alpha8, DepthFormat depth = DepthFormat::Depth24,
                    VelocityFormat velocity = VelocityFormat::None);
    ~OffscreenTarget();
    /** Takes over the GL object of @p other, which is left empty (destructible without a context). */
    OffscreenTarget(OffscreenTarget&& other) noexcept;
    /** Deletes this object's GL object, then takes over that of @p other, which is left empty. */
    OffscreenTarget& operator=(OffscreenTarget&& other) noexcept;
    OffscreenTarget(const OffscreenTarget&) = delete;
    OffscreenTarget& operator=(const OffscreenTarget&) = delete;

    /** The colour attachment, rows top to bottom (flipped from GL's bottom-up order), as
     *  RGBA8 bytes: an sRGB or RGBA8 target's bytes as stored (an RGBA8 target's are
     *  sRGB-encoded after a ColorOutput::Display view), a float target's linear values encoded
     *  to sRGB (alpha as is). Waits for the GPU to finish drawing into it. Sets the pack
     *  state it needs and puts back the caller's (alignment, row length, skips, pack buffer,
     *  read framebuffer). */
    [[nodiscard]] Image readPixels() const;

    /** The velocity attachment (View::velocity), width() * height() pairs of floats (x, y) in
     *  pixels, rows top to bottom like readPixels(). Waits for the GPU (tests and tools only);
     *  puts back the caller's pack state and read framebuffer.
     *  @throws InvalidArgument if the target is empty or has no velocity attachment. */
    [[nodiscard]] std::vector<float> readVelocity() const;
    /** True when made with a VelocityFormat other than None. */
    [[nodiscard]] bool hasVelocity() const noexcept { return m_velocityFormat != VelocityFormat::None; }
    /** The velocity format chosen at construction (None when empty). */
    [[nodiscard]] VelocityFormat velocityFormat() const noexcept { return m_velocityFormat; }

    /** The GL name of the framebuffer object; 0 when empty. */
    [[nodiscard]] std::uint32_t framebufferId() const noexcept { return m_framebuffer; }
    /** The GL name of the colour attachment, a GL_TEXTURE_2D of one level in the colour format
     *  (GL_SRGB8_ALPHA8, GL_RGBA8 or GL_RGBA16F), width() x height(), filtering linear and
     *  wrapping clamp-to-edge (complete without mipmaps); 0 when empty. Owned by this target:
     *  valid until it is destroyed or moved from. Sample it (an sRGB target's texels decode to
     *  linear light) only while nothing draws into this target: ToneMapPass::apply reads it. */
    [[nodiscard]] std::uint32_t colorTextureId() const noexcept { return m_color; }
    /** The GL name of the depth attachment, a GL_TEXTURE_2D of one level in the depth format
     *  (GL_DEPTH_COMPONENT24 or GL_DEPTH_COMPONENT32F), width() x height(), compare mode
     *  none; 0 when empty. Owned by this target: valid until it is destroyed or moved from.
     *  Read it with texelFetch (a sampler2D returns window depth in .r), never while a draw
     *  writes it. */
    [[nodiscard]] std::uint32_t depthTextureId() const noexcept { return m_depth; }
    /** Width in pixels. */
    [[nodiscard]] std::uint32_t width() const noexcept { return m_width; }
    /** Height in pixels. */
    [[nodiscard]] std::uint32_t height() const noexcept { return m_height; }
    /** The colour format chosen at construction (Srgb8Alpha8 when empty). */
    [[nodiscard]] TargetFormat format() const noexcept { return m_format; }
    /** The depth format chosen at construction (Depth24 when empty). */
    [[nodiscard]] DepthFormat depthFormat() const noexcept { return m_depthFormat; }

private:
    void destroy() noexcept;
    std::uint32_t m_framebuffer = 0;
    std::uint32_t m_color = 0;
    std::uint32_t m_depth = 0;
    std::uint32_t m_velocity = 0;
    std::uint32_t m_width = 0;
    std::uint32_t m_height = 0;
    TargetFormat m_format = TargetFormat::Srgb8Alpha8;
    DepthFormat m_depthFormat = DepthFormat::Depth24;
    VelocityFormat m_velocityFormat = VelocityFormat::None;
};

/** Reads the default framebuffer's back buffer (window) as an Image, rows top to bottom. */
[[nodiscard]] Image readDefaultFramebuffer(std::uint32_t width, std::uint32_t height);

} // namespace myriad::gl
