#pragma once
/** @file
 *  Image-based ambient light: an equirectangular radiance image, its irradiance as nine
 *  spherical-harmonic coefficients, and the hemisphere ambient used where there is no image
 *  (docs/lighting.md, "Image-based ambient"). No GL: the renderer builds the prefiltered
 *  specular map from the image (src/renderer/EnvironmentMap.cpp). */
#include <glm/vec2.hpp>
#include <glm/vec3.hpp>

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace myriad {

/** A sky with no image (three.js's HemisphereLight, Godot's ambient without a sky): radiance
 *  @ref sky from every direction above the horizon (world +Y up), @ref ground from every
 *  direction below. A Lambert surface with normal n then receives exactly
 *  E(n) = pi * mix(ground, sky, 0.5 + 0.5 * n.y) (the irradiance of such a split sphere is linear
 *  in n.y), so it shows albedo * mix(ground, sky, 0.5 + 0.5 * n.y); a metallic-roughness surface's
 *  specular share reads the same blend at its reflected direction. Linear RGB, the units of
 *  Scene::ambient; finite and >= 0 (Renderer::render() throws InvalidArgument otherwise). */
struct HemisphereAmbient {
    glm::vec3 sky{0.3f, 0.35f, 0.45f};     ///< radiance from above the horizon, linear RGB
    glm::vec3 ground{0.15f, 0.12f, 0.1f};  ///< radiance from below, linear RGB
};

/** A distant environment: linear RGB radiance from every direction, stored as an
 *  equirectangular (latitude-longitude) image, with the nine L2 spherical-harmonic
 *  coefficients of its irradiance computed once, when it is made.
 *
 *  Directions are world space with +Y up (glTF's). Texel (i, j) of a width x height image (row 0
 *  at the top) is centred on u = (i + 0.5) / width, v = (j + 0.5) / height and looks along
 *  (sin theta sin phi, cos theta, -sin theta cos phi) with theta = pi v (0 straight up) and
 *  phi = 2 pi (u - 0.5): the image's middle column looks along -Z (where a default camera looks),
 *  a quarter to its right along +X, its left and right edges along +Z. directionToUv() and
 *  uvToDirection() convert.
 *
 *  Irradiance: Ramamoorthi and Hanrahan, "An Efficient Representation for Irradiance
 *  Environment Maps" (SIGGRAPH 2001). The radiance is projected on the real spherical harmonics
 *  Y_lm, l <= 2, each texel weighted by its exact solid angle (2 pi / width) * (cos theta_top -
 *  cos theta_bottom), and the coefficients are multiplied by the clamped cosine's bands
 *  A_0 = pi, A_1 = 2 pi / 3, A_2 = pi / 4, so that irradiance(n) = sum_i sh[i] * Y_i(n) is the
 *  irradiance E (W/m^2 per unit radiance: pi * L under a constant radiance L) at a surface facing
 *  n; a Lambert surface of albedo a shows a * E / pi.
 *
 *  Immutable once made; share it as std::shared_ptr<const Environment> (Scene::environment). The
 *  renderer builds its GPU map once per Environment object and keeps it while the object lives.
 *  Thread safety: const member functions may be called from any thread. */
class Environment {
public:
    /** Largest height; the width is twice it (GL 4.5 guarantees 16384 texels a side). */
    static constexpr std::uint32_t kMaxHeight = 8192;

    /** Takes @p rgb: width * height * 3 floats, linear RGB radiance, row 0 at the top (as
     *  stbi_loadf gives a .hdr file; image::readEnvironmentFile() reads one), in the units of
     *  Scene::ambient. Computes the irradiance coefficients: O(width * height).
     *  @throws InvalidArgument (and owns nothing) if width != 2 * height, height is 0 or above
     *  kMaxHeight, rgb.size() != width * height * 3, or a value is negative, NaN or infinite. */
    Environment(std::uint32_t width, std::uint32_t height, std::vector<float> rgb);

    [[nodiscard]] std::uint32_t width() const noexcept { return m_width; }   ///< texels across (2 * height)
    [[nodiscard]] std::uint32_t height() const noexcept { return m_height; } ///< texel rows
    /** The radiance image: width * height RGB triples, row 0 at the top. */
    [[nodiscard]] std::span<const float> pixels() const noexcept { return m_rgb; }
    /** The nine coefficients of the irradiance, Y_00, Y_1-1 (y), Y_10 (z), Y_11 (x), Y_2-2 (xy),
     *  Y_2-1 (yz), Y_20 (3z^2 - 1), Y_21 (xz), Y_22 (x^2 - y^2), already convolved with the
     *  clamped cosine (A_l above): irradiance(n) = sum sh[i] * shBasis(n)[i]. */
    [[nodiscard]] const std::array<glm::vec3, 9>& irradianceSh() const noexcept { return m_sh; }
    /** The irradiance E at a surface facing @p normal (world, any non-zero length), from the nine
     *  coefficients: pi * L everywhere under a constant radiance L. */
    [[nodiscard]] glm::vec3 irradiance(glm::vec3 normal) const noexcept;
    /** The image's radiance towards @p direction (world, any non-zero length), bilinear,
     *  wrapping across the left and right edges, clamped at the poles. */
    [[nodiscard]] glm::vec3 radiance(glm::vec3 direction) const noexcept;
    /** A process-wide unique number (never 0, never reused), shared by copies (same image, same
     *  coefficients): what the renderer keys its map by. */
    [[nodiscard]] std::uint64_t id() const noexcept { return m_id; }

    /** The nine real spherical harmonics of l <= 2 at the unit direction @p d, in
     *  irradianceSh()'s order (Ramamoorthi and Hanrahan's constants 0.282095, 0.488603,
     *  1.092548, 0.315392, 0.546274). */
    [[nodiscard]] static std::array<float, 9> shBasis(glm::vec3 d) noexcept;
    /** (u, v) in [0, 1]^2 of the unit direction @p d (the class comment's mapping). */
    [[nodiscard]] static glm::vec2 directionToUv(glm::vec3 d) noexcept;
    /** The unit direction at (u, v) (the class comment's mapping). */
    [[nodiscard]] static glm::vec3 uvToDirection(glm::vec2 uv) noexcept;

private:
    std::uint32_t m_width = 0;
    std::uint32_t m_height = 0;
    std::vector<float> m_rgb;
    std::array<glm::vec3, 9> m_sh{};
    std::uint64_t m_id = 0;
};

} // namespace myriad
