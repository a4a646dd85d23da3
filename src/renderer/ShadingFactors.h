#pragma once
// Internal to myriad_gl: a material's metallic-roughness factors and emission as the shaders get
// them (uniforms or the draw-table row), made safe to draw: NaN or Inf becomes the field's
// default, metallic and roughness are clamped to 0..1, a negative emission to 0
// (myriad/core/Material.h).
#include "myriad/core/Material.h"

#include <glm/common.hpp>
#include <glm/vec2.hpp>
#include <glm/vec3.hpp>

#include <cmath>

namespace myriad::gl::detail {

struct ShadingFactors {
    glm::vec2 metallicRoughness{0.0f, 1.0f};
    glm::vec3 emission{0.0f};  ///< emissive * emissiveStrength
};

[[nodiscard]] inline ShadingFactors shadingFactors(const Material& material) noexcept {
    auto finiteOr = [](float value, float fallback) { return std::isfinite(value) ? value : fallback; };
    ShadingFactors factors;
    factors.metallicRoughness = glm::clamp(
        glm::vec2(finiteOr(material.metallic, 0.0f), finiteOr(material.roughness, 1.0f)), glm::vec2(0.0f), glm::vec2(1.0f));
    const float strength = finiteOr(material.emissiveStrength, 1.0f);
    for (int c = 0; c < 3; ++c) {
        factors.emission[c] = std::max(finiteOr(material.emissive[c], 0.0f) * strength, 0.0f);
    }
    if (!std::isfinite(factors.emission.r + factors.emission.g + factors.emission.b)) {
        factors.emission = glm::vec3(0.0f);  // a huge strength times a huge emission
    }
    return factors;
}

} // namespace myriad::gl::detail
