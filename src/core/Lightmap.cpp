#include "myriad/core/Lightmap.h"

#include "myriad/util/Error.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace myriad {

EncodedLightmap encodeLightmap(std::uint32_t width, std::uint32_t height, std::span<const glm::vec3> radiance) {
    if (width == 0 || height == 0 || radiance.size() != std::size_t{width} * height) {
        throw InvalidArgument("encodeLightmap: " + std::to_string(radiance.size()) + " texels for a " +
                              std::to_string(width) + " x " + std::to_string(height) +
                              " lightmap; give width * height texels, both sides at least 1");
    }
    float brightest = 1.0f;
    for (std::size_t i = 0; i < radiance.size(); ++i) {
        for (int c = 0; c < 3; ++c) {
            const float value = radiance[i][c];
            if (!std::isfinite(value) || value < 0.0f) {
                throw InvalidArgument("encodeLightmap: texel " + std::to_string(i) + " (x " +
                                      std::to_string(i % width) + ", y " + std::to_string(i / width) +
                                      ") has channel " + std::to_string(c) + " = " + std::to_string(value) +
                                      "; radiance must be finite and not negative");
            }
            brightest = std::max(brightest, value);
        }
    }
    auto image = std::make_shared<Image>();
    image->width = width;
    image->height = height;
    image->pixels.reserve(radiance.size() * 4);
    for (const glm::vec3& texel : radiance) {
        for (int c = 0; c < 3; ++c) {
            image->pixels.push_back(static_cast<std::uint8_t>(std::lround(linearToSrgb(texel[c] / brightest) * 255.0f)));
        }
        image->pixels.push_back(255);
    }
    return {std::move(image), brightest};
}

} // namespace myriad
