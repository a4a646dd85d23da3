#pragma once
/** @file
 *  A scene: the root node plus what lights it and what it is cleared to. */
#include "myriad/core/Picking.h"
#include "myriad/core/SceneNode.h"

#include <glm/vec3.hpp>
#include <glm/vec4.hpp>

#include <optional>
#include <vector>

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

    /** The nearest thing @p ray hits among the visible mesh nodes (a hidden node hides its
     *  subtree, as when drawing; layer masks are not consulted), or nothing. A node is tested
     *  against its world bounding box, except a batch in PickMode::Instances
     *  (InstancedMeshNode::setPickMode()), whose drawn instances are tested against their own
     *  boxes and then the mesh's triangles in each instance's space (Moller and Trumbore, "Fast,
     *  Minimum Storage Ray/Triangle Intersection", 1997), both faces, with morph targets at the
     *  weights drawn (the node's, or the instance's own). Reads the instances as they are now:
     *  nothing to recompute after a write. Mirrored, sheared and non-uniformly scaled
     *  instances hit where they are drawn; an instance with a singular matrix is never hit.
     *  O(nodes + instances tested * triangles), no acceleration structure.
     *  @throws InvalidArgument if the ray's direction is zero or not finite, or its origin is
     *  not finite. (src/core/Picking.cpp) */
    [[nodiscard]] std::optional<PickHit> pick(const Ray& ray) const;
    /** Every hit of @p ray as pick() defines them (per batch in PickMode::Instances, one per
     *  instance hit), nearest first. @throws as pick(). */
    [[nodiscard]] std::vector<PickHit> pickAll(const Ray& ray) const;

    DirectionalLight light;                        ///< the one light of Lit materials
    glm::vec3 ambient{0.25f};                      ///< linear RGB added before the albedo product
    glm::vec4 clearColor{0.0f, 0.0f, 0.0f, 1.0f};  ///< linear RGBA, written by Renderer::render

private:
    SceneNode m_root;
};

} // namespace myriad
