#pragma once
/** @file
 *  Per-instance frustum culling and back-to-front ordering on the CPU (see
 *  docs/visibility.md). No GL: the renderer keeps one InstanceSpheres per batch and turns the
 *  index lists these functions write into the visible-index list its draw reads through. */
#include "myriad/core/InstanceStream.h"

#include <glm/ext/vector_double3.hpp>
#include <glm/mat3x3.hpp>
#include <glm/vec4.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace myriad {

class InstancedMeshNode;

/** Six planes (a, b, c, d) whose a*x + b*y + c*z + d is a signed distance in world units,
 *  positive inside, in whatever space their owner states. */
using FrustumPlanes = std::array<glm::vec4, 6>;

/** Takes @p planes from camera-relative world space (point - eye) into @p batch's node space:
 *  plane (n, d) becomes (L^T n, d + n . (T - eye)) for the node's world linear part L and
 *  translation T. The result still measures world distance, so a node-space sphere of radius
 *  r is outside a plane exactly when its value at the centre is below -r * |L^T n| (the
 *  sphere's image is an ellipsoid, and that is its nearest point: no scale bound needed, so
 *  non-uniform node scale culls as tightly as uniform). */
[[nodiscard]] FrustumPlanes nodeSpacePlanes(const FrustumPlanes& planes, const glm::mat3& worldLinear,
                                            const glm::dvec3& worldTranslation, const glm::dvec3& eye) noexcept;

/** The node-space bounding sphere of every drawn instance of one batch, structure of arrays.
 *  Each sphere holds its instance's mesh box (MeshNode::meshBounds(), or the box of the
 *  instance's own morph weights) under its instance matrix, with Aabb::transformedRadius():
 *  exact for mirrored, sheared and non-uniformly scaled instances.
 *
 *  update() keeps it current in O(rows changed): it reads the record stream's change log from
 *  its own version, so a frame where one instance moved recomputes one sphere; a new mesh, new
 *  node morph weights, changed instance weights, or a log that no longer reaches back (another
 *  consumer evicted) recompute all, O(count). Memory: 16 bytes per instance, allocated only
 *  for batches that opt in. Not thread-safe; one per (renderer, batch). */
class InstanceSpheres {
public:
    /** Brings the spheres up to date with @p batch (count() rows). */
    void update(const InstancedMeshNode& batch);
    /** Rows held (the batch's count() at the last update()). */
    [[nodiscard]] std::size_t size() const noexcept { return m_x.size(); }
    /** Sphere centres' x, node space, one per row (size() of them); valid until the next update(). */
    [[nodiscard]] std::span<const float> x() const noexcept { return m_x; }
    /** Sphere centres' y, node space, as x(). */
    [[nodiscard]] std::span<const float> y() const noexcept { return m_y; }
    /** Sphere centres' z, node space, as x(). */
    [[nodiscard]] std::span<const float> z() const noexcept { return m_z; }
    /** Sphere radii, node-space units (before the node's own transform), as x(). */
    [[nodiscard]] std::span<const float> radius() const noexcept { return m_radius; }
    /** Spheres recomputed by update() calls so far (for tests: proves the O(rows changed)). */
    [[nodiscard]] std::uint64_t recomputed() const noexcept { return m_recomputed; }

private:
    void compute(const InstancedMeshNode& batch, std::size_t begin, std::size_t end);

    std::vector<float> m_x, m_y, m_z, m_radius;
    std::vector<IndexRange> m_ranges;  // scratch
    std::uint64_t m_recordVersion = 0;
    std::uint64_t m_weightsVersion = 0;
    std::uint64_t m_meshId = 0;
    glm::vec3 m_meshMin{0.0f}, m_meshMax{0.0f};
    std::uint64_t m_recomputed = 0;
};

/** Appends to @p out the index of every instance in @p range (clipped to spheres.size())
 *  whose sphere meets all six node-space @p planes (from nodeSpacePlanes()). Branch-free over
 *  blocks the compiler vectorises, then a branch-free compaction: no allocation once @p out
 *  has grown. @return instances tested. */
std::size_t cullInstanceSpheres(const InstanceSpheres& spheres, IndexRange range, const FrustumPlanes& planes,
                                std::vector<std::uint32_t>& out);

/** Orders @p indices back to front: by decreasing a . centre, where @p nodeDepthAxis is the
 *  view's depth axis taken into node space (L^T forward: depth grows along it). Ties keep
 *  record order (stable). @p scratch is reused between calls: no allocation once warm.
 *  O(n log n). */
void sortBackToFront(const InstanceSpheres& spheres, const glm::vec3& nodeDepthAxis, std::span<std::uint32_t> indices,
                     std::vector<std::uint64_t>& scratch);

} // namespace myriad
