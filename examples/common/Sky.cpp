#include "common/Sky.h"

#include "myriad/image/ImageIO.h"

#include <glm/geometric.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace myriad::examples {

glm::vec3 eveningSkyRadiance(glm::vec3 direction, glm::vec3 sunTravel) {
    const glm::vec3 zenith(0.05f, 0.09f, 0.24f);
    const glm::vec3 horizon(0.42f, 0.33f, 0.28f);
    const glm::vec3 ground(0.05f, 0.045f, 0.035f);
    const float up = direction.y;
    // Above: the zenith colour reaches down to a warm band at the horizon.
    const glm::vec3 sky = glm::mix(horizon, zenith, std::pow(std::max(up, 0.0f), 0.45f));
    // The sun's glow (forward scattering) around where the light comes from; its disc is left
    // out: the scene's directional light is the sun, and counting it twice would double it.
    const float towardsSun = std::max(glm::dot(direction, -sunTravel), 0.0f);
    const glm::vec3 glow = glm::vec3(0.9f, 0.5f, 0.22f) * std::pow(towardsSun, 6.0f) +
                           glm::vec3(1.6f, 0.9f, 0.4f) * std::pow(towardsSun, 48.0f);
    const glm::vec3 above = sky + glow * std::clamp(up * 4.0f + 0.6f, 0.0f, 1.0f);
    // Below: the ground, meeting the sky in a narrow haze band.
    return glm::mix(ground, above, std::clamp(up * 12.0f + 1.0f, 0.0f, 1.0f));
}

std::shared_ptr<const Environment> eveningSky(glm::vec3 sunTravel, std::uint32_t height) {
    const std::uint32_t width = height * 2;
    const glm::vec3 sun = glm::normalize(sunTravel);
    std::vector<float> rgb(static_cast<std::size_t>(width) * height * 3);
    for (std::uint32_t j = 0; j < height; ++j) {
        for (std::uint32_t i = 0; i < width; ++i) {
            const glm::vec2 uv((static_cast<float>(i) + 0.5f) / static_cast<float>(width),
                               (static_cast<float>(j) + 0.5f) / static_cast<float>(height));
            const glm::vec3 radiance = eveningSkyRadiance(Environment::uvToDirection(uv), sun);
            float* texel = rgb.data() + (static_cast<std::size_t>(j) * width + i) * 3;
            texel[0] = radiance.r;
            texel[1] = radiance.g;
            texel[2] = radiance.b;
        }
    }
    return std::make_shared<const Environment>(width, height, std::move(rgb));
}

std::shared_ptr<const Environment> skyFor(const std::string& example, const std::string& path, glm::vec3 sunTravel) {
    if (path.empty()) {
        std::printf("%s: image-based ambient from a generated evening sky (256 x 128)\n", example.c_str());
        return eveningSky(sunTravel);
    }
    auto environment = std::make_shared<const Environment>(image::readEnvironmentFile(path));
    std::printf("%s: image-based ambient from %s (%u x %u)\n", example.c_str(), path.c_str(), environment->width(),
                environment->height());
    return environment;
}

} // namespace myriad::examples
