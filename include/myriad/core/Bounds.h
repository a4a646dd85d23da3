#pragma once
/** @file
 *  Axis-aligned bounding boxes (AABB). */
#include <glm/mat3x3.hpp>
#include <glm/mat4x4.hpp>
#include <glm/vec3.hpp>

#include <limits>

namespace myriad {

/** An axis-aligned bounding box in whatever space its owner states.
 *  Empty by default (min = +inf, max = -inf), so extending an empty box by a point gives that
 *  point. Value type; no allocation. */
struct Aabb {
    glm::vec3 min{std::numeric_limits<float>::infinity()};   ///< smallest corner
    glm::vec3 max{-std::numeric_limits<float>::infinity()};  ///< largest corner

    /** True when no point was ever added (any max component below its min). */
    [[nodiscard]] bool empty() const noexcept {
        return max.x < min.x || max.y < min.y || max.z < min.z;
    }
    /** Centre point; meaningless for an empty box. */
    [[nodiscard]] glm::vec3 centre() const noexcept { return (min + max) * 0.5f; }
    /** Half the size along each axis; meaningless for an empty box. */
    [[nodiscard]] glm::vec3 halfExtent() const noexcept { return (max - min) * 0.5f; }

    /** Grows the box to contain @p point. */
    void extend(const glm::vec3& point) noexcept;
    /** Grows the box to contain @p other; an empty @p other changes nothing. */
    void extend(const Aabb& other) noexcept;
    /** True when @p other lies inside this box (touching counts as inside). */
    [[nodiscard]] bool contains(const Aabb& other) const noexcept;

    /** The box that contains this box after the affine @p transform (Arvo's method: centre
     *  transformed, half extent through the absolute value of the 3x3 part; J. Arvo,
     *  "Transforming Axis-Aligned Bounding Boxes", Graphics Gems, 1990). Exact for the corners,
     *  never smaller than the transformed box. An empty box stays empty. */
    [[nodiscard]] Aabb transformed(const glm::mat4& transform) const noexcept;
    /** Radius of the sphere centred at the transformed centre that holds the whole box after
     *  the linear map @p linear (the 3x3 part of an affine matrix: rotation, scale, shear,
     *  mirroring, anything): the exact distance to the farthest transformed corner. The
     *  corners suffice because the map takes the box to a parallelepiped and the squared
     *  distance from a point, a convex function, peaks at a vertex of it; four corners are
     *  measured, as opposite ones are equally far. (The half diagonal times the longest column
     *  is not enough under shear.) 0 for an empty box. */
    [[nodiscard]] float transformedRadius(const glm::mat3& linear) const noexcept;

    /** Exact comparison of min and max (two empty default boxes compare equal). */
    friend bool operator==(const Aabb&, const Aabb&) = default;
};

} // namespace myriad
