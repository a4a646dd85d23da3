#include "myriad/core/LightNode.h"

#include "myriad/core/Scene.h"
#include "myriad/util/Error.h"
#include "myriad/util/Log.h"

#include <glm/geometric.hpp>
#include <glm/mat3x3.hpp>

#include <algorithm>
#include <cmath>
#include <string>

namespace myriad {

LightNode::LightNode(LightType type, std::string name) : SceneNode(std::move(name), NodeKind::Light), m_type(type) {
    setCastsShadow(false);  // on a light: whether the lamp draws a shadow map; off until asked
}

void LightNode::setShadow(const LampShadow& shadow) {
    const auto fail = [&](const std::string& what) {
        throw InvalidArgument("LightNode::setShadow: light '" + name() + "': " + what);
    };
    if (!std::isfinite(shadow.bias) || shadow.bias < 0.0f) {
        fail("bias " + std::to_string(shadow.bias) + " must be finite and >= 0 (texels)");
    }
    if (!std::isfinite(shadow.normalOffset) || shadow.normalOffset < 0.0f) {
        fail("normalOffset " + std::to_string(shadow.normalOffset) + " must be finite and >= 0 (texels)");
    }
    if (shadow.filterRadius > 4) {
        fail("filterRadius " + std::to_string(shadow.filterRadius) + " is above 4");
    }
    if (!std::isfinite(shadow.nearPlane) || !(shadow.nearPlane > 0.0f)) {
        fail("nearPlane " + std::to_string(shadow.nearPlane) + " must be finite and > 0 (world units)");
    }
    m_shadow = shadow;
}

void LightNode::setColor(const glm::vec3& color) {
    for (int c = 0; c < 3; ++c) {
        if (!std::isfinite(color[c]) || color[c] < 0.0f) {
            throw InvalidArgument("LightNode::setColor: light '" + name() + "': colour channel " + std::to_string(c) +
                                  " is " + std::to_string(color[c]) + "; each must be finite and >= 0");
        }
    }
    m_color = color;
}

void LightNode::setIntensity(float intensity) {
    if (!std::isfinite(intensity) || intensity < 0.0f) {
        throw InvalidArgument("LightNode::setIntensity: light '" + name() + "': intensity " + std::to_string(intensity) +
                              " must be finite and >= 0 (lux for a directional light, candela for a lamp)");
    }
    m_intensity = intensity;
}

void LightNode::setRange(float range) {
    if (!std::isfinite(range) || range < 0.0f) {
        throw InvalidArgument("LightNode::setRange: light '" + name() + "': range " + std::to_string(range) +
                              " must be finite and > 0, or 0 for infinite");
    }
    m_range = range;
}

float LightNode::effectiveRange(float cutoffLux) const noexcept {
    if (m_range > 0.0f) {
        return m_range;
    }
    const float brightest = std::max({m_color.r, m_color.g, m_color.b}) * m_intensity;
    const float cutoff = cutoffLux > 0.0f ? cutoffLux : 1.0e-3f;
    // Finite whatever the intensity: the cluster grid's depth range is built from it.
    return std::clamp(std::sqrt(brightest / cutoff), 1.0e-3f, 1.0e9f);
}

void LightNode::setConeAngles(float inner, float outer) {
    constexpr float kHalfPi = 1.57079632679f;
    if (!std::isfinite(inner) || !std::isfinite(outer) || inner < 0.0f || !(inner < outer) || outer > kHalfPi) {
        throw InvalidArgument("LightNode::setConeAngles: light '" + name() + "': inner " + std::to_string(inner) +
                              " and outer " + std::to_string(outer) +
                              " radians must satisfy 0 <= inner < outer <= pi/2 (KHR_lights_punctual)");
    }
    m_innerCone = inner;
    m_outerCone = outer;
}

void LightNode::onAttachedToScene(Scene& scene) noexcept {
    try {
        scene.m_lights.push_back(this);
    } catch (...) {
        // Out of memory while growing a vector of pointers: the light is left out of the
        // registry (it lights nothing) rather than failing an add() that cannot be undone;
        // said, not silent.
        // A fixed text: building one could throw again, and this function is noexcept.
        try {
            log(LogLevel::Error, "LightNode: out of memory joining the scene's lights; it lights nothing");
        } catch (...) {  // a game's log callback that throws: nothing more to do here
        }
    }
}

void LightNode::onDetachedFromScene(Scene& scene) noexcept { std::erase(scene.m_lights, this); }

glm::dvec3 LightNode::worldPosition() const { return worldTranslation(); }

glm::vec3 LightNode::worldDirection() const {
    const glm::vec3 axis = -worldLinear()[2];
    const float length = glm::length(axis);
    return length > 0.0f && std::isfinite(length) ? axis / length : glm::vec3(0.0f, 0.0f, -1.0f);
}

} // namespace myriad
