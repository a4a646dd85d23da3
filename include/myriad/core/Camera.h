#pragma once
/** @file A camera: where the eye is (view matrix) and how it projects (projection matrix). */
#include <glm/mat4x4.hpp>
#include <glm/vec3.hpp>

namespace myriad {

/** View and projection, OpenGL conventions: right-handed view space looking down -Z, clip
 *  depth -1..1. Value type, not a scene node.
 *  Default: perspective, 60 degree vertical field of view, aspect 1, near 0.1, far 1000, eye at
 *  (0, 0, 5) looking at the origin. */
class Camera {
public:
    Camera();

    /** @param fovYRadians vertical field of view in radians, in (0, pi).
     *  @param aspect width / height, > 0. @param nearPlane, farPlane distances, 0 < near < far.
     *  @throws InvalidArgument when out of those ranges (nothing changes). */
    void setPerspective(float fovYRadians, float aspect, float nearPlane, float farPlane);
    /** Box in view space: x in [left, right], y in [bottom, top], depth in [near, far].
     *  @throws InvalidArgument on an empty box. */
    void setOrthographic(float left, float right, float bottom, float top, float nearPlane,
                         float farPlane);
    /** Places the eye at @p eye looking at @p target, @p up roughly up (world space).
     *  @throws InvalidArgument if eye == target, up is parallel to the view direction, or any
     *  value is NaN/Inf. */
    void lookAt(const glm::vec3& eye, const glm::vec3& target,
                const glm::vec3& up = glm::vec3(0.0f, 1.0f, 0.0f));

    [[nodiscard]] const glm::mat4& view() const noexcept { return m_view; }
    [[nodiscard]] const glm::mat4& projection() const noexcept { return m_projection; }
    [[nodiscard]] glm::mat4 viewProjection() const noexcept { return m_projection * m_view; }
    /** Eye position in world space. */
    [[nodiscard]] const glm::vec3& position() const noexcept { return m_eye; }
    [[nodiscard]] bool isOrthographic() const noexcept { return m_orthographic; }

private:
    glm::mat4 m_view{1.0f};
    glm::mat4 m_projection{1.0f};
    glm::vec3 m_eye{0.0f, 0.0f, 5.0f};
    bool m_orthographic = false;
};

} // namespace myriad
