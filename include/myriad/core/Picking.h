#pragma once
/** @file
 *  Rays and what Scene::pick() finds along them (docs/visibility.md, "Picking"). */
#include "myriad/core/InstancedMeshNode.h"

#include <glm/ext/vector_double3.hpp>
#include <glm/vec3.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>

namespace myriad {

class MeshNode;

/** A ray in world space: the points origin + t * direction for t >= 0.
 *  The origin is double, like node translations, so picking far from the world origin keeps
 *  its precision. The direction need not be unit length: pick() normalises it, and reports
 *  distances in world units along it. */
struct Ray {
    glm::dvec3 origin{0.0};  ///< world space, world units; must be finite (pick() throws InvalidArgument)
    glm::dvec3 direction{0.0, 0.0, -1.0};  ///< world space, any non-zero finite length (else InvalidArgument)
};

/** One hit. For an instance of a batch (PickMode::Instances, the default), the nearest
 *  triangle hit of that instance. For a node picked by its bounds (a MeshNode, or a batch in
 *  PickMode::Bounds), the point where the ray enters its world box (the origin when it starts
 *  inside). */
struct PickHit {
    const MeshNode* node = nullptr;  ///< the node hit; owned by the scene
    /** The instance hit (its index, < count()), when the node is a batch picked per instance
     *  (the default); empty for a MeshNode or a batch in PickMode::Bounds. The index is
     *  current until the batch's next release() or smaller count; keep handle instead. */
    std::optional<std::size_t> instance;
    /** The instance's handle, when it has one (InstancedMeshNode::handleAt()); null otherwise. */
    InstanceHandle handle;
    double distance = 0.0;      ///< world units from the ray origin, along its direction
    glm::dvec3 point{0.0};      ///< world space
};

class Camera;

/** The world-space ray through the centre of pixel (@p x, @p y) of a @p width x @p height
 *  picture drawn with @p camera, for Scene::pick() under the mouse (three.js's
 *  `Raycaster.setFromCamera`). Pixels count from the top-left corner, x right and y down, as
 *  window mouse positions and Image rows do; a fractional position is allowed.
 *
 *  The pixel's points on the near and far planes are unprojected with the inverse of
 *  projection * viewRotation (which maps world minus eye to clip space), so the origin, on the
 *  near plane, keeps the eye's double precision. Works for perspective and orthographic
 *  cameras (Camera's projections are OpenGL's -1..1 depth). The direction runs from the near
 *  to the far plane, not normalised.
 *  @throws InvalidArgument when @p width or @p height is 0, or @p x or @p y is NaN or infinite.
 *  Pixels outside the picture are allowed (the ray passes outside the view). */
[[nodiscard]] Ray rayThroughPixel(const Camera& camera, double x, double y, std::uint32_t width,
                                  std::uint32_t height);

} // namespace myriad
