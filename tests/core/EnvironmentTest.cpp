// Environment (docs/lighting.md, "Image-based ambient"): the irradiance of an equirectangular
// radiance image as nine spherical harmonics (Ramamoorthi and Hanrahan 2001), against values
// worked out by hand, and its refusal of bad images.
#include "myriad/core/Environment.h"
#include "myriad/util/Error.h"

#include <catch2/catch.hpp>
#include <glm/geometric.hpp>
#include <glm/gtc/constants.hpp>

#include <cmath>
#include <limits>
#include <vector>

using namespace myriad;

namespace {

constexpr float kPi = glm::pi<float>();

/** A width x height image whose every texel has radiance @p rgb. */
std::vector<float> constantImage(std::uint32_t width, std::uint32_t height, glm::vec3 rgb) {
    std::vector<float> pixels;
    pixels.reserve(std::size_t{width} * height * 3);
    for (std::size_t i = 0; i < std::size_t{width} * height; ++i) {
        pixels.insert(pixels.end(), {rgb.r, rgb.g, rgb.b});
    }
    return pixels;
}

/** Radiance @p sky in the rows above the horizon, 0 below (height even: the horizon falls
 *  between two rows). */
std::vector<float> skyImage(std::uint32_t width, std::uint32_t height, glm::vec3 sky) {
    std::vector<float> pixels = constantImage(width, height, glm::vec3(0.0f));
    for (std::size_t j = 0; j < height / 2; ++j) {
        for (std::size_t i = 0; i < width; ++i) {
            float* p = &pixels[(j * width + i) * 3];
            p[0] = sky.r;
            p[1] = sky.g;
            p[2] = sky.b;
        }
    }
    return pixels;
}

void checkNear(glm::vec3 actual, glm::vec3 expected, float tolerance) {
    INFO("actual (" << actual.x << ", " << actual.y << ", " << actual.z << "), expected (" << expected.x << ", "
                    << expected.y << ", " << expected.z << ")");
    CHECK(std::abs(actual.x - expected.x) <= tolerance);
    CHECK(std::abs(actual.y - expected.y) <= tolerance);
    CHECK(std::abs(actual.z - expected.z) <= tolerance);
}

} // namespace

TEST_CASE("Environment: a constant radiance L gives irradiance pi L in every direction", "[environment]") {
    const glm::vec3 radiance(0.5f, 1.0f, 2.0f);
    const Environment environment(64, 32, constantImage(64, 32, radiance));
    const glm::vec3 directions[] = {{0, 1, 0},  {0, -1, 0}, {1, 0, 0},         {-1, 0, 0},
                                    {0, 0, 1},  {0, 0, -1}, {0.3f, -0.5f, 0.8f}, {-1, 1, 1}};
    for (const glm::vec3& n : directions) {
        checkNear(environment.irradiance(n), kPi * radiance, 1e-3f * kPi * 2.0f);
    }
    // Only the constant band is there (the others sum to 0 over the sphere, up to the
    // texels' sampling of Y_20 across each row: relative 1e-3 of the constant band).
    const glm::vec3 band0 = kPi * radiance * (4.0f * kPi * 0.282095f);
    checkNear(environment.irradianceSh()[0], band0, 1e-3f * band0.z);
    for (std::size_t k = 1; k < 9; ++k) {
        checkNear(environment.irradianceSh()[k], glm::vec3(0.0f), 1e-3f * band0.z);
    }
}

TEST_CASE("Environment: a sky above the horizon gives pi L up, pi L / 2 at the side, 0 down", "[environment]") {
    // The exact irradiance of such a sky is E(n) = pi L (1 + n.y) / 2, linear in n.y, which the
    // bands l <= 1 hold exactly (and the step's even bands l >= 2 project to 0): L2 is exact.
    const float sky = 1.5f;
    const Environment environment(128, 64, skyImage(128, 64, glm::vec3(sky)));
    const float tolerance = 1e-3f * kPi * sky;
    checkNear(environment.irradiance({0, 1, 0}), glm::vec3(kPi * sky), tolerance);
    checkNear(environment.irradiance({1, 0, 0}), glm::vec3(kPi * sky / 2.0f), tolerance);
    checkNear(environment.irradiance({0, 0, -1}), glm::vec3(kPi * sky / 2.0f), tolerance);
    checkNear(environment.irradiance({0, -1, 0}), glm::vec3(0.0f), tolerance);
    const glm::vec3 tilted = glm::normalize(glm::vec3(0.6f, 0.8f, 0.0f));
    checkNear(environment.irradiance(tilted), glm::vec3(kPi * sky * (1.0f + tilted.y) / 2.0f), tolerance);
    // The analytic L2 projection: L_00 = 2 pi L Y_00, L_1-1 = pi L 0.488603 (the y band), the
    // rest 0 (Y_20's 3 cos^2 - 1 integrates to 0 over a hemisphere); times A_0 = pi, A_1 = 2 pi / 3.
    const float band0 = kPi * 2.0f * kPi * sky * 0.282095f;
    checkNear(environment.irradianceSh()[0], glm::vec3(band0), 1e-3f * band0);
    checkNear(environment.irradianceSh()[1], glm::vec3(2.0f * kPi / 3.0f * kPi * sky * 0.488603f), 1e-3f * band0);
    for (std::size_t k = 2; k < 9; ++k) {
        checkNear(environment.irradianceSh()[k], glm::vec3(0.0f), 1e-3f * band0);
    }
}

TEST_CASE("Environment: the equirectangular mapping and its lookups", "[environment]") {
    // The middle column looks along -Z, a quarter to its right along +X, the top row up.
    checkNear(Environment::uvToDirection({0.5f, 0.5f}), {0, 0, -1}, 1e-6f);
    checkNear(Environment::uvToDirection({0.75f, 0.5f}), {1, 0, 0}, 1e-6f);
    checkNear(Environment::uvToDirection({0.25f, 0.5f}), {-1, 0, 0}, 1e-6f);
    checkNear(Environment::uvToDirection({0.5f, 0.0f}), {0, 1, 0}, 1e-6f);
    const glm::vec3 d = glm::normalize(glm::vec3(0.3f, -0.4f, 0.5f));
    checkNear(Environment::uvToDirection(Environment::directionToUv(d)), d, 1e-5f);
    // A sky image reads its sky above, its ground below.
    const Environment environment(16, 8, skyImage(16, 8, glm::vec3(2.0f)));
    checkNear(environment.radiance({0, 1, 0}), glm::vec3(2.0f), 1e-6f);
    checkNear(environment.radiance({0.2f, -1, 0}), glm::vec3(0.0f), 1e-6f);
}

TEST_CASE("Environment: a bad image throws InvalidArgument", "[environment][errors]") {
    CHECK_THROWS_AS(Environment(64, 64, constantImage(64, 64, glm::vec3(1.0f))), InvalidArgument);  // not 2:1
    CHECK_THROWS_AS(Environment(0, 0, {}), InvalidArgument);
    CHECK_THROWS_AS(Environment(64, 32, constantImage(64, 31, glm::vec3(1.0f))), InvalidArgument);  // short
    CHECK_THROWS_AS(Environment(2 * (Environment::kMaxHeight + 1), Environment::kMaxHeight + 1, {}), InvalidArgument);
    std::vector<float> nan = constantImage(8, 4, glm::vec3(1.0f));
    nan[17] = std::numeric_limits<float>::quiet_NaN();
    CHECK_THROWS_AS(Environment(8, 4, nan), InvalidArgument);
    std::vector<float> negative = constantImage(8, 4, glm::vec3(1.0f));
    negative[5] = -0.5f;
    CHECK_THROWS_AS(Environment(8, 4, negative), InvalidArgument);
    std::vector<float> infinite = constantImage(8, 4, glm::vec3(1.0f));
    infinite[0] = std::numeric_limits<float>::infinity();
    CHECK_THROWS_AS(Environment(8, 4, infinite), InvalidArgument);
}

TEST_CASE("Environment: each one has its own id", "[environment]") {
    const Environment a(8, 4, constantImage(8, 4, glm::vec3(1.0f)));
    const Environment b(8, 4, constantImage(8, 4, glm::vec3(1.0f)));
    CHECK(a.id() != 0);
    CHECK(a.id() != b.id());
}
