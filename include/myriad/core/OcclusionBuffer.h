#pragma once
/** @file
 *  A small software depth buffer of occluders, and conservative tests of boxes and spheres
 *  against it: occlusion culling on the CPU (docs/visibility.md, "Occlusion culling"). No GL.
 *
 *  The idea is Intel's Masked Software Occlusion Culling (J. Hasselgren, M. Andersson,
 *  T. Akenine-Möller, "Masked Software Occlusion Culling", High Performance Graphics 2016):
 *  rasterise a budget of large occluders at low resolution on the CPU, then test the screen
 *  rectangle and nearest depth of each object's bounds against it. Simplified here: one
 *  depth per pixel (no coverage masks with two depth layers per 8x4 tile), pixels tested at
 *  their centres with exact fixed-point edge functions, no SIMD; the test goes through a
 *  max-depth mip pyramid (as a Hi-Z buffer, Greene et al., "Hierarchical Z-Buffer
 *  Visibility", SIGGRAPH 1993). The buffer is small (32,768 pixels by default), so this is
 *  fast enough for a few thousand occluder triangles and a few hundred thousand tests. */
#include "myriad/core/MeshData.h"

#include <glm/ext/vector_double3.hpp>
#include <glm/mat4x4.hpp>
#include <glm/vec2.hpp>
#include <glm/vec3.hpp>
#include <glm/vec4.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace myriad {

/** How a projection maps depth (OpenGL clip space, x and y in [-w, w]). */
struct OcclusionDepth {
    /** True: clip depth z/w in [0, 1] (glClipControl GL_ZERO_TO_ONE); false: [-1, 1]. */
    bool zeroToOne = false;
    /** True: near maps to the larger z/w (reversed-Z: near 1, far 0 or -1). */
    bool reversed = false;
};

/** A width x height software depth buffer in one view's camera-relative space (world minus
 *  eye, the space myriad draws in), holding at each pixel the nearest occluder depth.
 *
 *  Depth is clip-space z/w (linear in screen space, for perspective and orthographic
 *  projections alike), ordered by OcclusionDepth so that nearer is always "less" inside.
 *  Pixel (x, y) covers [x, x+1) x [y, y+1) of the buffer, y up from the bottom (as GL's window
 *  coordinates), its centre at (x + 0.5, y + 0.5); NDC x in [-1, 1] spans [0, width].
 *
 *  A triangle covers a pixel when the pixel centre lies inside it (a centre on a shared edge
 *  belongs to exactly one of the two triangles: a top-left style rule on vertices snapped to
 *  1/256 pixel, so a quad has no cracks along its diagonal). What a covered pixel stores is
 *  conservative: the triangle's largest depth anywhere over the pixel's square (the depth plane
 *  at the centre plus half a pixel of its slope each way, never beyond the triangle's farthest
 *  vertex), so nothing in front of the occluder's surface inside that pixel is ever called hidden.
 *  Both faces of a triangle are rasterised (a single wall hides from either side).
 *
 *  Use: reset() per view and frame, rasterise() each occluder, then boxOccluded() /
 *  sphereOccluded() per object (the first test builds the pyramid; a rasterise() after it
 *  rebuilds it on the next test). No allocation once warm at one size. Not thread-safe. */
class OcclusionBuffer {
public:
    /** Clears to "no occluder" (every test visible) at @p width x @p height pixels, for the
     *  projection @p clipFromRelative (clip space from camera-relative world space: the
     *  projection times the view's rotation, no translation), depth convention @p depth.
     *  @throws InvalidArgument if width or height is 0 or above 4096, or the matrix holds
     *  NaN or Inf; the buffer is left as it was then. */
    void reset(std::uint32_t width, std::uint32_t height, const glm::mat4& clipFromRelative, OcclusionDepth depth);

    /** Rasterises the triangles @p indices (three per triangle, into @p positions) after
     *  @p relativeFromModel (an affine matrix to camera-relative space), clipped to the near
     *  plane (and to a guard band of two buffer widths (NDC -2..2), which changes nothing on screen).
     *  Triangles with a vertex behind the eye after clipping (w <= 0) are skipped.
     *  @return triangles given (indices.size() / 3).
     *  @throws InvalidArgument if indices.size() is not a multiple of 3 or an index is not
     *  below positions.size() (checked before anything is drawn: nothing changes then). */
    std::size_t rasterise(std::span<const glm::vec3> positions, std::span<const std::uint32_t> indices,
                          const glm::mat4& relativeFromModel);
    /** As above, 16-bit indices. */
    std::size_t rasterise(std::span<const glm::vec3> positions, std::span<const std::uint16_t> indices,
                          const glm::mat4& relativeFromModel);
    /** Rasterises every triangle of @p mesh (its positions as stored: morph targets and skins
     *  are not applied). @return mesh.triangleCount(). Throws nothing (a MeshGeometry is valid). */
    std::size_t rasterise(const MeshGeometry& mesh, const glm::mat4& relativeFromModel);

    /** True when the box @p centre +- @p halfExtent (camera-relative, world units, axis-aligned
     *  in world space) is hidden: its eight corners are all in front of the near plane, and
     *  every pixel of the rectangle they project to, grown by one pixel on each side (so a
     *  pixel the occluder only partly covers cannot hide something peeking past its edge) and
     *  clipped to the buffer, holds an occluder strictly nearer than the nearest corner.
     *  Conservative: the corners' projections bound the box's (a projective map keeps convex
     *  hulls in front of the eye), so a box called hidden is hidden at this buffer's
     *  resolution. A box crossing the near plane, or wholly off the buffer, is visible. */
    [[nodiscard]] bool boxOccluded(const glm::vec3& centre, const glm::vec3& halfExtent);
    /** boxOccluded() of the sphere's bounding cube (centre +- radius). */
    [[nodiscard]] bool sphereOccluded(const glm::vec3& centre, float radius) {
        return boxOccluded(centre, glm::vec3(radius));
    }

    /** Columns of the buffer, pixels. */
    [[nodiscard]] std::uint32_t width() const noexcept { return m_width; }
    /** Rows of the buffer, pixels. */
    [[nodiscard]] std::uint32_t height() const noexcept { return m_height; }
    /** True when an occluder covers pixel (@p x, @p y). @throws OutOfRange outside the buffer. */
    [[nodiscard]] bool covered(std::uint32_t x, std::uint32_t y) const;
    /** The depth stored at pixel (@p x, @p y) as clip z/w of the projection (not reordered),
     *  the conservative value described in the class comment; meaningless where not covered().
     *  @throws OutOfRange outside the buffer. */
    [[nodiscard]] float depthAt(std::uint32_t x, std::uint32_t y) const;
    /** Pixels covered by at least one occluder (for tests and overlays; O(pixels)). */
    [[nodiscard]] std::size_t coveredPixels() const noexcept;

private:
    template <typename Index>
    std::size_t rasteriseIndexed(std::span<const glm::vec3> positions, std::span<const Index> indices,
                                 const glm::mat4& relativeFromModel);
    void rasteriseClipTriangle(const glm::vec4& a, const glm::vec4& b, const glm::vec4& c);
    void drawScreenTriangle(const glm::dvec3* v);
    void buildPyramid();
    /** Depth as stored: nearer is smaller whatever the convention. */
    [[nodiscard]] float key(float ndcZ) const noexcept { return m_depth.reversed ? -ndcZ : ndcZ; }
    [[nodiscard]] float nearDistance(const glm::vec4& clip) const noexcept;

    std::uint32_t m_width = 0, m_height = 0;
    glm::mat4 m_clipFromRelative{1.0f};
    OcclusionDepth m_depth{};
    /** Level 0 is the buffer (width x height keys, +inf: empty); level k the maximum of the
     *  2x2 texels under it. */
    std::vector<std::vector<float>> m_levels;
    std::vector<glm::uvec2> m_levelSizes;
    bool m_pyramidValid = false;
};

} // namespace myriad
