#pragma once
/** @file
 *  A camera: where the eye is (view matrix) and how it projects (projection matrix). */
#include <glm/mat4x4.hpp>
#include <glm/vec3.hpp>
#include <glm/ext/vector_double3.hpp>

#include <cstdint>

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
     *  value is NaN/Inf.
     *  Positions are double precision (float vectors convert), for large worlds: the renderer
     *  subtracts @p eye from every node's double-precision world translation before anything
     *  becomes float. */
    void lookAt(const glm::dvec3& eye, const glm::dvec3& target,
                const glm::vec3& up = glm::vec3(0.0f, 1.0f, 0.0f));

    /** World to view, float (imprecise far from the origin; see viewRotation()). */
    [[nodiscard]] const glm::mat4& view() const noexcept { return m_view; }
    /** The view matrix with the eye at the origin: what camera-relative rendering uses,
     *  applied to (world position - eye). */
    [[nodiscard]] const glm::mat4& viewRotation() const noexcept { return m_viewRotation; }
    /** View to clip space, as the last setPerspective() or setOrthographic() made it. */
    [[nodiscard]] const glm::mat4& projection() const noexcept { return m_projection; }
    /** projection() * view(): world to clip, float (for culling near the origin). */
    [[nodiscard]] glm::mat4 viewProjection() const noexcept { return m_projection * m_view; }
    /** Eye position in world space. */
    [[nodiscard]] glm::vec3 position() const noexcept { return glm::vec3(m_eye); }
    /** Eye position in world space, double precision, as given to lookAt(). */
    [[nodiscard]] const glm::dvec3& positionDouble() const noexcept { return m_eye; }
    /** Nodes are drawn only when their layerMask shares a bit with this. Default: all bits. */
    void setLayerMask(std::uint32_t mask) noexcept { m_layerMask = mask; }
    /** The layer bits set by setLayerMask(). */
    [[nodiscard]] std::uint32_t layerMask() const noexcept { return m_layerMask; }
    /** True after setOrthographic(), false after setPerspective() (the default). */
    [[nodiscard]] bool isOrthographic() const noexcept { return m_orthographic; }

private:
    glm::mat4 m_view{1.0f};
    glm::mat4 m_projection{1.0f};
    glm::mat4 m_viewRotation{1.0f};
    glm::dvec3 m_eye{0.0, 0.0, 5.0};
    std::uint32_t m_layerMask = 0xFFFFFFFFu;
    bool m_orthographic = false;
};

} // namespace myriad
