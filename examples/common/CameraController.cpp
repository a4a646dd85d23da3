#include "common/CameraController.h"

#include <glm/geometric.hpp>
#include <glm/trigonometric.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace myriad::examples {
namespace {

constexpr float kTurnPerUnit = 0.005f;  // radians per screen unit dragged
constexpr float kPitchLimit = 1.55f;    // just short of straight up/down, where yaw degenerates

int keyIndex(char key) {
    constexpr const char* kKeys = "WASDQE";
    if (key == 0) {
        return 6;
    }
    const char* at = std::strchr(kKeys, key);
    return at == nullptr ? -1 : static_cast<int>(at - kKeys);
}

} // namespace

CameraController::CameraController(Camera& camera, float fovYRadians, float nearPlane, float farPlane)
    : m_camera(&camera), m_fovY(fovYRadians), m_near(nearPlane), m_far(farPlane) {}

glm::vec3 CameraController::forward() const {
    return {-std::sin(m_yaw) * std::cos(m_pitch), std::sin(m_pitch), -std::cos(m_yaw) * std::cos(m_pitch)};
}

void CameraController::lookAt(const glm::vec3& eye, const glm::vec3& target) {
    const glm::vec3 offset = target - eye;
    m_distance = std::max(glm::length(offset), 1e-3f);
    const glm::vec3 direction = offset / m_distance;
    m_pitch = std::asin(std::clamp(direction.y, -1.0f, 1.0f));
    m_yaw = std::atan2(-direction.x, -direction.z);
    m_eye = eye;
}

void CameraController::mouseButton(int button, bool pressed) {
    if (button == 0) {
        m_orbiting = pressed;
    } else if (button == 1) {
        m_flying = pressed;
    }
    m_userInput = m_userInput || pressed;
}

void CameraController::cursorMoved(double x, double y) {
    const auto dx = static_cast<float>(x - m_cursorX);
    const auto dy = static_cast<float>(y - m_cursorY);
    const bool dragging = m_haveCursor && (m_orbiting || m_flying);
    m_cursorX = x;
    m_cursorY = y;
    m_haveCursor = true;
    if (!dragging) {
        return;
    }
    if (m_orbiting && !m_flying) {
        // Turn about the pivot: the eye moves, the pivot stays.
        const glm::vec3 centre = pivot();
        m_yaw -= dx * kTurnPerUnit;
        m_pitch = std::clamp(m_pitch + dy * kTurnPerUnit, -kPitchLimit, kPitchLimit);
        m_eye = centre - forward() * m_distance;
    } else {
        // Look around from the eye (mouse-look: drag right looks right, drag up looks up).
        m_yaw -= dx * kTurnPerUnit;
        m_pitch = std::clamp(m_pitch - dy * kTurnPerUnit, -kPitchLimit, kPitchLimit);
    }
}

void CameraController::scrolled(double notches) {
    const glm::vec3 centre = pivot();
    m_distance = std::max(m_distance * std::pow(0.9f, static_cast<float>(notches)), 1e-2f);
    m_eye = centre - forward() * m_distance;
    m_userInput = true;
}

void CameraController::key(char key, bool down) {
    const int index = keyIndex(key);
    if (index >= 0) {
        m_keys[index] = down;
        m_userInput = m_userInput || (down && index < 6);
    }
}

void CameraController::update(double seconds, float aspect) {
    const auto dt = static_cast<float>(seconds);
    if (!m_userInput && m_autoOrbit != 0.0f) {
        const glm::vec3 centre = pivot();
        m_yaw += m_autoOrbit * dt;
        m_eye = centre - forward() * m_distance;
    }
    const glm::vec3 ahead = forward();
    const glm::vec3 right = glm::normalize(glm::vec3(std::cos(m_yaw), 0.0f, -std::sin(m_yaw)));
    glm::vec3 move(0.0f);
    move += ahead * (static_cast<float>(m_keys[0]) - static_cast<float>(m_keys[2]));
    move += right * (static_cast<float>(m_keys[3]) - static_cast<float>(m_keys[1]));
    move.y += static_cast<float>(m_keys[5]) - static_cast<float>(m_keys[4]);
    if (glm::length(move) > 0.0f) {
        const float speed = (m_flySpeed > 0.0f ? m_flySpeed : std::max(m_distance * 0.5f, 1.0f)) *
                            (m_keys[6] ? 4.0f : 1.0f);
        m_eye += glm::normalize(move) * speed * dt;
    }
    m_camera->setPerspective(m_fovY, aspect > 0.0f ? aspect : 1.0f, m_near, m_far);
    m_camera->lookAt(glm::dvec3(m_eye), glm::dvec3(m_eye + ahead * m_distance));
}

} // namespace myriad::examples
