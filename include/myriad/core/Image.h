#pragma once
/** @file
 *  An 8-bit RGBA image in memory: textures in, screenshots out. */
#include <cstdint>
#include <vector>

namespace myriad {

/** Width x height pixels, 4 bytes each (R, G, B, A), rows top to bottom, no padding.
 *  Colour bytes are sRGB-encoded as stored in PNG files; alpha is linear.
 *  Value type. */
struct Image {
    std::uint32_t width = 0;  ///<  pixels per row
    std::uint32_t height = 0;  ///<  rows
    std::vector<std::uint8_t> pixels;  ///< width * height * 4 bytes

    /** The 4 bytes of pixel (x, y), y = 0 at the top row. No bounds check beyond an assert;
     *  use at() for a checked read. */
    [[nodiscard]] const std::uint8_t* pixel(std::uint32_t x, std::uint32_t y) const noexcept {
        return pixels.data() + (static_cast<std::size_t>(y) * width + x) * 4;
    }
    /** Checked read of pixel (x, y) as 0xRRGGBBAA. @throws OutOfRange past the edge. */
    [[nodiscard]] std::uint32_t at(std::uint32_t x, std::uint32_t y) const;
};

/** The sRGB encoding (the OETF of IEC 61966-2-1) of a linear-light value, clamped to 0..1
 *  first: 12.92 x below 0.0031308, else 1.055 x^(1/2.4) - 0.055. How a linear colour becomes
 *  an Image's colour bytes (times 255, rounded), and what the renderer's shaders apply for a
 *  target that stores linear 8-bit values (gl::View::output). */
[[nodiscard]] float linearToSrgb(float linear) noexcept;

} // namespace myriad
