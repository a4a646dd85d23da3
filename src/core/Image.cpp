#include "myriad/core/Image.h"

#include "myriad/util/Error.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace myriad {

std::uint32_t Image::at(std::uint32_t x, std::uint32_t y) const {
    if (x >= width || y >= height || pixels.size() < static_cast<std::size_t>(width) * height * 4) {
        throw OutOfRange("Image::at: (" + std::to_string(x) + ", " + std::to_string(y) +
                         ") is outside the " + std::to_string(width) + "x" +
                         std::to_string(height) + " image");
    }
    const std::uint8_t* p = pixel(x, y);
    return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
           std::uint32_t{p[3]};
}

float linearToSrgb(float linear) noexcept {
    const float c = std::clamp(linear, 0.0f, 1.0f);  // NaN: clamp keeps it; encoded below as NaN
    return c <= 0.0031308f ? 12.92f * c : 1.055f * std::pow(c, 1.0f / 2.4f) - 0.055f;
}

} // namespace myriad
