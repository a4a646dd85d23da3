#pragma once
// An orbit / fly camera for the examples, driven by mouse and keys in a window.
//
// One pose serves both: an eye, a looking direction (yaw, pitch) and a pivot `distance` ahead.
// Orbit (left mouse drag) turns the eye around the pivot; scroll moves it nearer or further.
// Fly (right mouse held) turns the view around the eye, and W/S, A/D, Q/E move it forwards,
// sideways, down/up (Shift: 4x faster), the pivot travelling along. The input functions take
// plain values, not GLFW types, so the controller builds without a window system.
#include "myriad/core/Camera.h"

#include <glm/vec3.hpp>

namespace myriad::examples {

class CameraController {
public:
    /** Perspective with vertical field of view @p fovYRadians and the given clip planes
     *  (world units); the aspect ratio comes from setAspect(). */
    CameraController(Camera& camera, float fovYRadians, float nearPlane, float farPlane);

    /** Puts the eye at @p eye looking at @p target (the orbit pivot). eye != target. */
    void lookAt(const glm::vec3& eye, const glm::vec3& target);
    /** Turns the orbit by @p radiansPerSecond about the vertical axis until the first mouse or
     *  key input (a demo that moves by itself until someone takes over). */
    void setAutoOrbit(float radiansPerSecond) noexcept { m_autoOrbit = radiansPerSecond; }
    /** Speed for WASD in world units per second (default: half the pivot distance, at least 1). */
    void setFlySpeed(float unitsPerSecond) noexcept { m_flySpeed = unitsPerSecond; }

    // ---- Input (window only) ----
    /** button: 0 left (orbit), 1 right (fly). */
    void mouseButton(int button, bool pressed);
    /** Cursor position in screen coordinates; drags turn by 0.005 radians per unit. */
    void cursorMoved(double x, double y);
    /** Wheel notches, positive away from the user: each moves the eye 10% nearer the pivot. */
    void scrolled(double notches);
    /** A movement key's state: 'W', 'A', 'S', 'D', 'Q', 'E' (upper case), or 0 for Shift. */
    void key(char key, bool down);

    /** Advances by @p seconds (automatic orbit, held keys) and writes the camera, with
     *  @p aspect = width / height of the picture. */
    void update(double seconds, float aspect);

    [[nodiscard]] bool userTookOver() const noexcept { return m_userInput; }

private:
    [[nodiscard]] glm::vec3 forward() const;
    [[nodiscard]] glm::vec3 pivot() const { return m_eye + forward() * m_distance; }

    Camera* m_camera;
    float m_fovY;
    float m_near;
    float m_far;
    glm::vec3 m_eye{0.0f, 0.0f, 5.0f};
    float m_yaw = 0.0f;    ///< radians about +y; 0 looks down -z
    float m_pitch = 0.0f;  ///< radians, positive looks up
    float m_distance = 5.0f;
    float m_autoOrbit = 0.0f;
    float m_flySpeed = 0.0f;
    bool m_orbiting = false;
    bool m_flying = false;
    bool m_haveCursor = false;
    bool m_userInput = false;
    double m_cursorX = 0.0;
    double m_cursorY = 0.0;
    bool m_keys[7] = {};  ///< W A S D Q E Shift
};

} // namespace myriad::examples
