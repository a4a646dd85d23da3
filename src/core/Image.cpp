#include "myriad/core/Image.h"

#include "myriad/util/Error.h"

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

} // namespace myriad
