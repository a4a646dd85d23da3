#include "myriad/core/Environment.h"

#include "myriad/util/Error.h"

#include <glm/geometric.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <numbers>
#include <string>

namespace myriad {
namespace {

std::atomic<std::uint64_t> g_nextEnvironmentId{1};

} // namespace

Environment::Environment(std::uint32_t width, std::uint32_t height, std::vector<float> rgb) {
    if (height == 0 || height > kMaxHeight || width != 2 * height) {
        throw InvalidArgument("Environment: an equirectangular image must be twice as wide as high, 1.." +
                              std::to_string(kMaxHeight) + " rows (got " + std::to_string(width) + " x " +
                              std::to_string(height) + ")");
    }
    if (rgb.size() != std::size_t{width} * height * 3) {
        throw InvalidArgument("Environment: rgb holds " + std::to_string(rgb.size()) + " floats, not width * height * 3 = " +
                              std::to_string(std::size_t{width} * height * 3));
    }
    const auto bad = std::ranges::find_if(rgb, [](float v) { return !std::isfinite(v) || v < 0.0f; });
    if (bad != rgb.end()) {
        throw InvalidArgument("Environment: radiance value " + std::to_string(bad - rgb.begin()) +
                              " is negative, NaN or infinite");
    }
    // Ramamoorthi and Hanrahan (2001), equation 10: L_lm = sum of L(texel) Y_lm(texel) dOmega,
    // accumulated in double (a 16384 x 8192 image sums 134 million terms).
    constexpr double kPi = std::numbers::pi;
    std::array<std::array<double, 3>, 9> sums{};
    const double columnAngle = 2.0 * kPi / width;
    for (std::uint32_t j = 0; j < height; ++j) {
        // The row's exact solid angle per texel: the band between its top and bottom edges
        // (sum over the image: 4 pi exactly).
        const double solidAngle =
            columnAngle * (std::cos(kPi * j / height) - std::cos(kPi * (j + 1) / height));
        std::array<std::array<double, 3>, 9> row{};
        for (std::uint32_t i = 0; i < width; ++i) {
            const glm::vec3 d = uvToDirection({(i + 0.5f) / static_cast<float>(width), (j + 0.5f) / static_cast<float>(height)});
            const std::array<float, 9> y = shBasis(d);
            const float* texel = &rgb[(std::size_t{j} * width + i) * 3];
            for (std::size_t k = 0; k < 9; ++k) {
                for (std::size_t c = 0; c < 3; ++c) {
                    row[k][c] += double(y[k]) * double(texel[c]);
                }
            }
        }
        for (std::size_t k = 0; k < 9; ++k) {
            for (std::size_t c = 0; c < 3; ++c) {
                sums[k][c] += row[k][c] * solidAngle;
            }
        }
    }
    // The clamped cosine's bands (their equation 8): A_0 = pi, A_1 = 2 pi / 3, A_2 = pi / 4.
    constexpr std::array<double, 9> kBand{kPi,         2.0 * kPi / 3.0, 2.0 * kPi / 3.0, 2.0 * kPi / 3.0, kPi / 4.0,
                                          kPi / 4.0,   kPi / 4.0,       kPi / 4.0,       kPi / 4.0};
    for (std::size_t k = 0; k < 9; ++k) {
        m_sh[k] = glm::vec3(glm::dvec3(sums[k][0], sums[k][1], sums[k][2]) * kBand[k]);
    }
    m_width = width;
    m_height = height;
    m_rgb = std::move(rgb);
    m_id = g_nextEnvironmentId.fetch_add(1, std::memory_order_relaxed);
}

std::array<float, 9> Environment::shBasis(glm::vec3 d) noexcept {
    return {0.282095f,
            0.488603f * d.y,
            0.488603f * d.z,
            0.488603f * d.x,
            1.092548f * d.x * d.y,
            1.092548f * d.y * d.z,
            0.315392f * (3.0f * d.z * d.z - 1.0f),
            1.092548f * d.x * d.z,
            0.546274f * (d.x * d.x - d.y * d.y)};
}

glm::vec3 Environment::irradiance(glm::vec3 normal) const noexcept {
    const std::array<float, 9> y = shBasis(glm::normalize(normal));
    glm::vec3 e(0.0f);
    for (std::size_t k = 0; k < 9; ++k) {
        e += m_sh[k] * y[k];
    }
    return e;
}

glm::vec2 Environment::directionToUv(glm::vec3 d) noexcept {
    constexpr float kPi = std::numbers::pi_v<float>;
    const float phi = std::atan2(d.x, -d.z);
    const float theta = std::acos(std::clamp(d.y, -1.0f, 1.0f));
    return {0.5f + phi / (2.0f * kPi), theta / kPi};
}

glm::vec3 Environment::uvToDirection(glm::vec2 uv) noexcept {
    constexpr float kPi = std::numbers::pi_v<float>;
    const float theta = kPi * uv.y;
    const float phi = 2.0f * kPi * (uv.x - 0.5f);
    return {std::sin(theta) * std::sin(phi), std::cos(theta), -std::sin(theta) * std::cos(phi)};
}

glm::vec3 Environment::radiance(glm::vec3 direction) const noexcept {
    const glm::vec2 uv = directionToUv(glm::normalize(direction));
    const float x = uv.x * static_cast<float>(m_width) - 0.5f;
    const float y = std::clamp(uv.y * static_cast<float>(m_height) - 0.5f, 0.0f, static_cast<float>(m_height - 1));
    const float x0 = std::floor(x);
    const float y0 = std::floor(y);
    const float fx = x - x0;
    const float fy = y - y0;
    const auto column = [&](float c) {
        const auto w = static_cast<long>(m_width);
        return static_cast<std::size_t>(((static_cast<long>(c) % w) + w) % w);
    };
    const auto texel = [&](std::size_t i, std::size_t j) {
        const float* p = &m_rgb[(j * m_width + i) * 3];
        return glm::vec3(p[0], p[1], p[2]);
    };
    const std::size_t i0 = column(x0);
    const std::size_t i1 = column(x0 + 1.0f);
    const auto j0 = static_cast<std::size_t>(y0);
    const std::size_t j1 = std::min<std::size_t>(j0 + 1, m_height - 1);
    return glm::mix(glm::mix(texel(i0, j0), texel(i1, j0), fx), glm::mix(texel(i0, j1), texel(i1, j1), fx), fy);
}

} // namespace myriad
