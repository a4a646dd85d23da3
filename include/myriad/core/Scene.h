#pragma once
/** @file
 *  A scene: the root node plus what lights it and what it is cleared to. */
#include "myriad/core/SceneNode.h"

#include <glm/vec3.hpp>
#include <glm/vec4.hpp>

namespace myriad {

/** One directional light, as glTF's KHR_lights_punctual "directional": parallel rays. */
struct DirectionalLight {
    glm::vec3 direction{-0.4f, -1.0f, -0.3f};  ///< world space, the way the light travels
    glm::vec3 color{1.0f};                     ///< linear RGB
    float intensity = 1.0f;                    ///< multiplies color
};

/** The root of a node tree and its lighting. Ownership: owns the whole tree.
 *  Thread safety: as SceneNode. Lit colour = albedo * (ambient + light * max(0, N.L)). */
class Scene {
public:
    Scene() : m_root("root") {}
    /** The root node, named "root": add the scene's nodes under it. Lives as long as the scene. */
    [[nodiscard]] SceneNode& root() noexcept { return m_root; }
    /** Read-only root(). */
    [[nodiscard]] const SceneNode& root() const noexcept { return m_root; }

    DirectionalLight light;                        ///< the one light of Lit materials
    glm::vec3 ambient{0.25f};                      ///< linear RGB added before the albedo product
    glm::vec4 clearColor{0.0f, 0.0f, 0.0f, 1.0f};  ///< linear RGBA, written by Renderer::render

private:
    SceneNode m_root;
};

} // namespace myriad
