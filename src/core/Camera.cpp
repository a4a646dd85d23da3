#include "myriad/core/Camera.h"

#include "core/Validate.h"
#include "myriad/util/Error.h"

#include <glm/gtc/matrix_transform.hpp>

#include <cmath>

namespace myriad {

Camera::Camera() {
    setPerspective(glm::radians(60.0f), 1.0f, 0.1f, 1000.0f);
    lookAt(glm::dvec3(0.0, 0.0, 5.0), glm::dvec3(0.0));
}

void Camera::setPerspective(float fovYRadians, float aspect, float nearPlane, float farPlane) {
    if (!(fovYRadians > 0.0f && fovYRadians < 3.14159f) || !(aspect > 0.0f) ||
        !std::isfinite(aspect) || !(nearPlane > 0.0f) || !(farPlane > nearPlane) ||
        !std::isfinite(farPlane)) {
        throw InvalidArgument("Camera::setPerspective: need 0 < fovY < pi, aspect > 0 and "
                              "0 < near < far (got fovY " + std::to_string(fovYRadians) +
                              ", aspect " + std::to_string(aspect) + ", near " +
                              std::to_string(nearPlane) + ", far " + std::to_string(farPlane) + ")");
    }
    m_projection = glm::perspective(fovYRadians, aspect, nearPlane, farPlane);
    m_orthographic = false;
}

void Camera::setOrthographic(float left, float right, float bottom, float top, float nearPlane,
                             float farPlane) {
    const glm::vec3 a(left, bottom, nearPlane);
    const glm::vec3 b(right, top, farPlane);
    if (!detail::allFinite(a) || !detail::allFinite(b) || !(right > left) || !(top > bottom) ||
        !(farPlane > nearPlane)) {
        throw InvalidArgument("Camera::setOrthographic: need left < right, bottom < top, "
                              "near < far, all finite");
    }
    m_projection = glm::ortho(left, right, bottom, top, nearPlane, farPlane);
    m_orthographic = true;
}

void Camera::lookAt(const glm::dvec3& eye, const glm::dvec3& target, const glm::vec3& up) {
    detail::requireFinite(eye, "Camera::lookAt", "eye");
    detail::requireFinite(target, "Camera::lookAt", "target");
    detail::requireFinite(up, "Camera::lookAt", "up");
    const glm::vec3 forward(target - eye);  // the difference is small enough for float
    if (!(glm::length(forward) > 0.0f)) {
        throw InvalidArgument("Camera::lookAt: eye equals target");
    }
    if (!(glm::length(up) > 0.0f) ||
        glm::length(glm::cross(glm::normalize(forward), glm::normalize(up))) < 1e-6f) {
        throw InvalidArgument("Camera::lookAt: up is zero or parallel to the view direction");
    }
    m_viewRotation = glm::lookAt(glm::vec3(0.0f), forward, up);
    m_view = m_viewRotation * glm::translate(glm::mat4(1.0f), -glm::vec3(eye));
    m_eye = eye;
}

} // namespace myriad
