// illuminance() (myriad/core/LightEvaluation.h): a light's lux at a point on the CPU, against
// values worked out by hand from KHR_lights_punctual's formulas (docs/lighting.md).
#include "myriad/core/LightEvaluation.h"
#include "myriad/core/Scene.h"

#include <catch2/catch.hpp>

#include <glm/geometric.hpp>

#include <cmath>

using namespace myriad;

namespace {

/** Checks each channel of @p seen against @p expected within a relative 1e-5. */
void checkLux(const glm::vec3& seen, const glm::vec3& expected) {
    INFO("seen (" << seen.x << ", " << seen.y << ", " << seen.z << "), expected (" << expected.x << ", " << expected.y
                  << ", " << expected.z << ")");
    for (int c = 0; c < 3; ++c) {
        CHECK(seen[c] == Approx(expected[c]).epsilon(1e-5).margin(1e-9));
    }
}

} // namespace

TEST_CASE("illuminance: a directional light gives colour * intensity * cos, nothing behind", "[lights][core]") {
    Scene scene;
    auto& sun = scene.root().emplace<LightNode>(LightType::Directional, "sun");
    sun.setColor({1.0f, 0.5f, 0.25f});
    sun.setIntensity(2.0f);
    sun.setPosition({0.0, 10.0, 0.0});
    sun.lookAt({0.0, 0.0, 0.0}, {0.0f, 0.0f, 1.0f});  // shining straight down
    checkLux(illuminance(sun, {5.0, 0.0, -3.0}, {0.0f, 1.0f, 0.0f}), {2.0f, 1.0f, 0.5f});
    const float a = 1.04719755f;  // 60 degrees: cos = 1/2
    checkLux(illuminance(sun, {0.0, 0.0, 0.0}, {std::sin(a), std::cos(a), 0.0f}), {1.0f, 0.5f, 0.25f});
    checkLux(illuminance(sun, {0.0, 0.0, 0.0}, {0.0f, -1.0f, 0.0f}), glm::vec3(0.0f));
}

TEST_CASE("illuminance: a point lamp falls off as 1/d^2, windowed to 0 at its range", "[lights][core]") {
    Scene scene;
    auto& lamp = scene.root().emplace<LightNode>(LightType::Point, "bulb");
    lamp.setPosition({0.0, 2.0, 0.0});
    lamp.setIntensity(8.0f);
    lamp.setRange(4.0f);
    const glm::vec3 up(0.0f, 1.0f, 0.0f);
    // Below it, d = 2: 8 / 4 * (1 - (2/4)^4)^2 = 2 * (15/16)^2.
    checkLux(illuminance(lamp, {0.0, 0.0, 0.0}, up), glm::vec3(2.0f * (15.0f / 16.0f) * (15.0f / 16.0f)));
    // Off to the side, d^2 = 8, cos = 2 / sqrt(8): 1 * (1 - (8/16)^2)^2 / sqrt(2).
    checkLux(illuminance(lamp, {2.0, 0.0, 0.0}, up), glm::vec3(0.75f * 0.75f / std::sqrt(2.0f)));
    CHECK(illuminance(lamp, {0.0, 0.0, 0.0}, -up) == glm::vec3(0.0f));         // facing away
    CHECK(illuminance(lamp, {4.0, 2.0, 0.0}, {-1.0f, 0.0f, 0.0f}) == glm::vec3(0.0f));  // at its range
    CHECK(illuminance(lamp, {0.0, 2.0, 0.0}, up) == glm::vec3(0.0f));          // at the lamp itself
    // Infinite range: windowed where the brightest channel falls to the cutoff, R^2 = 8 / 0.01.
    lamp.setRange(0.0f);
    const float ratio = 4.0f / 800.0f;
    checkLux(illuminance(lamp, {0.0, 0.0, 0.0}, up), glm::vec3(2.0f * (1.0f - ratio * ratio) * (1.0f - ratio * ratio)));
    // A parent's transform moves it (world position), far from the origin in double.
    auto& far = scene.root().emplace<SceneNode>("far");
    far.setPosition({1.0e7, 0.0, 0.0});
    auto& child = far.emplace<LightNode>(LightType::Point, "far bulb");
    child.setPosition({0.0, 2.0, 0.0});
    child.setIntensity(8.0f);
    child.setRange(4.0f);
    checkLux(illuminance(child, {1.0e7, 0.0, 0.0}, up), glm::vec3(2.0f * (15.0f / 16.0f) * (15.0f / 16.0f)));
}

TEST_CASE("illuminance: a spot lamp's cone scales it by the squared smooth step", "[lights][core]") {
    Scene scene;
    auto& spot = scene.root().emplace<LightNode>(LightType::Spot, "torch");
    spot.setPosition({0.0, 2.0, 0.0});
    spot.lookAt({0.0, 0.0, 0.0}, {0.0f, 0.0f, 1.0f});
    spot.setIntensity(8.0f);
    spot.setRange(100.0f);
    spot.setConeAngles(0.3f, 0.6f);
    const glm::vec3 up(0.0f, 1.0f, 0.0f);
    const auto window = [](float d2) {
        const float ratio = d2 / (100.0f * 100.0f);
        return (1.0f - ratio * ratio) * (1.0f - ratio * ratio);
    };
    checkLux(illuminance(spot, {0.0, 0.0, 0.0}, up), glm::vec3(2.0f * window(4.0f)));  // on its axis: full
    // 0.45 rad off the axis, on the ground: x = 2 tan 0.45, d^2 = 4 / cos^2, cos incidence = cos 0.45.
    const float angle = 0.45f;
    const float c = std::cos(angle);
    const float cone = (c - std::cos(0.6f)) / (std::cos(0.3f) - std::cos(0.6f));
    const float d2 = 4.0f / (c * c);
    checkLux(illuminance(spot, {2.0 * std::tan(0.45), 0.0, 0.0}, up), glm::vec3(8.0f / d2 * window(d2) * c * cone * cone));
    CHECK(illuminance(spot, {2.0 * std::tan(0.61), 0.0, 0.0}, up) == glm::vec3(0.0f));  // outside the outer cone
}
