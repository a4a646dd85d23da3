#include "myriad/core/LightEvaluation.h"

#include <glm/geometric.hpp>

#include <algorithm>
#include <cmath>

namespace myriad {

glm::vec2 spotConeScaleOffset(const LightNode& light) noexcept {
    if (light.type() != LightType::Spot) {
        return {0.0f, 1.0f};
    }
    const float cosOuter = std::cos(light.outerConeAngle());
    const float scale = 1.0f / std::max(0.001f, std::cos(light.innerConeAngle()) - cosOuter);
    return {scale, -cosOuter * scale};
}

glm::vec3 illuminance(const LightNode& light, const glm::dvec3& point, const glm::vec3& normal, float cutoffLux) {
    const glm::vec3 lux = light.color() * light.intensity();
    if (light.type() == LightType::Directional) {
        return lux * std::max(glm::dot(normal, -light.worldDirection()), 0.0f);
    }
    // Relative to the point in double, then float: far from the origin the difference keeps
    // its precision (the shader works camera-relative for the same reason).
    const glm::vec3 toLight(light.worldPosition() - point);
    const float distanceSquared = std::max(glm::dot(toLight, toLight), 1.0e-8f);
    const glm::vec3 l = toLight / std::sqrt(distanceSquared);
    const float cosIncidence = glm::dot(normal, l);
    if (cosIncidence <= 0.0f) {
        return glm::vec3(0.0f);
    }
    const float range = light.effectiveRange(cutoffLux);
    const float ratio = distanceSquared / (range * range);  // (d / R)^2
    const float window = std::clamp(1.0f - ratio * ratio, 0.0f, 1.0f);
    float attenuation = window * window / distanceSquared;
    if (light.type() == LightType::Spot) {
        const glm::vec2 cone = spotConeScaleOffset(light);
        const float factor = std::clamp(glm::dot(light.worldDirection(), -l) * cone.x + cone.y, 0.0f, 1.0f);
        attenuation *= factor * factor;
    }
    return lux * (attenuation * cosIncidence);
}

} // namespace myriad
