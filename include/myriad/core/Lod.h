#pragma once
/** @file
 *  Per-instance level of detail (LOD) for an InstancedMeshNode (docs/visibility.md, "Level of
 *  detail"): a chain of meshes, each drawn by the instances whose distance from the camera, or
 *  whose bounding sphere's projected size on screen (LodChain::metric), selects it, with
 *  hysteresis so an instance near a switch does not flicker between two levels, or a dithered
 *  cross-fade over a band (LodChain::fadeBand) so a level change never pops. No GL: the renderer buckets each (view, batch) list of instances by level with
 *  selectLodLevels() and draws every non-empty level with that level's mesh. Generating the
 *  simpler levels from level 0 is myriad::lod (myriad/lod/GenerateLod.h, meshoptimizer). */
#include "myriad/core/InstanceCulling.h"

#include <glm/mat3x3.hpp>
#include <glm/mat4x4.hpp>
#include <glm/vec3.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <vector>

namespace myriad {

class MeshGeometry;

/** Most levels a chain may have (level numbers fit a byte, with room for "not drawn"). */
inline constexpr std::size_t kMaxLodLevels = 8;

/** A held level that means "none yet": the instance takes the level its distance selects,
 *  with no hysteresis (its first frame in a view). */
inline constexpr std::uint8_t kNoLodLevel = 0xFF;

/** What a chain's switch thresholds measure (LodChain::metric). */
enum class LodMetric : std::uint8_t {
    /** LodLevel::switchDistance: world units from the view's eye to the instance's bounding-
     *  sphere centre, whatever the view's projection. */
    Distance,
    /** LodLevel::switchScreenSize as a fraction of the viewport's height: the instance's
     *  bounding-sphere diameter 2r at distance d covers 2r * (P[1][1] / 2) / d of it under a
     *  perspective projection P, 2r * P[1][1] / 2 under an orthographic one (independent of d).
     *  Unreal's "screen size" convention (ComputeBoundsScreenSize), on the vertical axis only:
     *  the vertical field of view counts, the viewport's size in pixels does not. */
    ScreenHeight,
    /** LodLevel::switchScreenSize in pixels: ScreenHeight's fraction times the viewport's
     *  height in pixels, so a taller viewport keeps a finer level farther away. */
    ScreenPixels,
};

/** One level of a LodChain. */
struct LodLevel {
    /** What the level draws, in the node's mesh space, for a node with one primitive (and
     *  primitive 0's mesh otherwise). Level 0: the node's own mesh (MeshNode::mesh(); null here
     *  means "the node's mesh"). Shared, never copied. */
    std::shared_ptr<const MeshGeometry> mesh;
    /** World units, from the camera's eye to the instance's bounding-sphere centre: the level
     *  is drawn while that distance is below this and at least the previous level's
     *  switchDistance (0 for level 0), give or take the chain's hysteresis or fade band (under
     *  LodMetric::Distance, the default; ignored under a screen metric). Past the last
     *  level's switchDistance an instance is not drawn at all; +infinity (the default) draws it
     *  at any distance. */
    float switchDistance = std::numeric_limits<float>::infinity();
    /** LodMetric::ScreenHeight (fraction of the viewport's height) or ScreenPixels (pixels):
     *  the level is drawn while the instance's projected bounding-sphere diameter is at most
     *  the previous level's switchScreenSize and above this, give or take the hysteresis or
     *  the fade band. Below the last level's an instance is not drawn; 0 (the default) draws it
     *  however small. Ignored under LodMetric::Distance (switchDistance is ignored otherwise). */
    float switchScreenSize = 0.0f;
    /** For a node with several primitives: one mesh per primitive (meshes[p] replaces
     *  MeshNode::primitiveMesh(p), drawn with primitive p's material), primitiveCount() of them;
     *  @ref mesh is then null or meshes[0]. Level 0: empty (the node's primitive meshes) or
     *  exactly those. Empty for a one-primitive node (@ref mesh is used). setLodChain() stores
     *  every level with both filled: meshes[p] for each primitive and mesh = meshes[0]. */
    std::vector<std::shared_ptr<const MeshGeometry>> meshes{};
};

/** A chain of levels, nearest (level 0, the full mesh) first. A value type, copied into the
 *  node by InstancedMeshNode::setLodChain(), which states what makes a chain valid. */
struct LodChain {
    std::vector<LodLevel> levels;  ///< 1 to kMaxLodLevels levels, switch distances increasing
    /** Width of the band around each switch distance s where an instance keeps the level it
     *  drew last frame, as a fraction of s: it moves to a farther level only once its distance
     *  is at least s * (1 + hysteresis), and back to a nearer one only once it is below
     *  s * (1 - hysteresis). In [0, 1); 0 switches exactly at s. */
    float hysteresis = 0.1f;
    /** What the switch thresholds measure; Distance by default. */
    LodMetric metric = LodMetric::Distance;
    /** Width of the cross-fade band around each switch, as a fraction of its switch distance
     *  s (for the screen metrics, of the distance D at which the instance's projected size
     *  equals the threshold): over d in [s (1 - fadeBand / 2), s (1 + fadeBand / 2)) an
     *  instance is drawn by both levels, the farther one covering a fraction t of its pixels
     *  (t rising linearly from 0 to 1 across the band, 1/2 at s) and the nearer one the other
     *  1 - t, through the same ordered-dither threshold per pixel (lodFadeCovers()), so the two
     *  together cover each pixel once. Past the last level's switch the instance fades out.
     *  In [0, 1]; 0 (the default) switches sharply with the hysteresis above. Above 0 the
     *  hysteresis is not used (a fade has nothing to flicker) and the bands must not overlap:
     *  s_i (1 + fadeBand / 2) <= s_(i+1) (1 - fadeBand / 2). */
    float fadeBand = 0.0f;
};

/** How a view projects for LOD (LodMetric::ScreenHeight / ScreenPixels): P[1][1] of its
 *  projection, whether it is orthographic, and its viewport's height in pixels. The renderer
 *  makes one per view; Distance chains ignore it. */
struct LodProjection {
    float yScale = 1.0f;          ///< P[1][1]: cot(fovY / 2) for a perspective projection, 2 / height for an ortho one
    bool orthographic = false;    ///< P[2][3] == 0: the projected size does not shrink with distance
    float viewportHeight = 1.0f;  ///< pixels (ScreenPixels); > 0
    /** False in a view that draws one level of a fading chain (the renderer's shadow maps): the
     *  level the band's middle switches at, no dither. */
    bool fade = true;
    /** From a view's projection matrix (view to clip, column-major, GL conventions) and its
     *  viewport's height in pixels. */
    [[nodiscard]] static LodProjection of(const glm::mat4& projection, float viewportHeightPixels) noexcept {
        return {projection[1][1], projection[2][3] == 0.0f, viewportHeightPixels, true};
    }
};

/** The projected diameter of a sphere of radius @p radius (world units) at @p distance (world
 *  units, eye to centre) in @p metric's unit under @p projection (for LodMetric::Distance:
 *  @p distance itself). Perspective: radius * yScale / distance (a fraction of the viewport's
 *  height), times viewportHeight for ScreenPixels; orthographic: radius * yScale, the same. */
[[nodiscard]] float lodScreenSize(LodMetric metric, const LodProjection& projection, float radius,
                                  float distance) noexcept;

/** Fade coverage is quantised to 1/kLodFadeSteps of the pixels: an 8x8 ordered-dither (Bayer)
 *  matrix has 64 thresholds, so a fraction k / 64 is exact on every 8x8 tile of pixels. */
inline constexpr std::uint32_t kLodFadeSteps = 64;

/** The threshold of the 8x8 Bayer matrix (Bayer, "An optimum method for two-level rendition of
 *  continuous-tone pictures", 1973) at pixel (@p x, @p y) (window coordinates): 0..63, each
 *  value once per 8x8 tile. The surface shader's MYRIAD_LOD_FADE variant computes the same. */
[[nodiscard]] constexpr std::uint32_t lodBayer8(std::uint32_t x, std::uint32_t y) noexcept {
    // Bit interleave of (x ^ y, y), reversed: the recursive Bayer construction.
    const std::uint32_t a = x ^ y;
    return ((a & 1u) << 5) | ((y & 1u) << 4) | ((a & 2u) << 2) | ((y & 2u) << 1) | ((a & 4u) >> 1) | ((y & 4u) >> 2);
}

/** A visible-index list entry of a fading chain's level draw: the record index in the low 24
 *  bits (kLodFadeIndexMask; a fading batch's capacity must fit), and in the top byte 0 (drawn
 *  whole) or 0x80 | side | k, k = 1..63 the farther level's coverage in 64ths, side 0x40 for
 *  the farther level (draws the pixels whose lodBayer8() < k) and 0 for the nearer one (those
 *  whose lodBayer8() >= k): complementary, so the two draws cover each pixel once. */
inline constexpr std::uint32_t kLodFadeIndexMask = 0x00FFFFFFu;
/** Bit of a fade code (an entry's top byte) that marks the entry as fading. */
inline constexpr std::uint32_t kLodFadeFlag = 0x80u;
/** Bit of a fade code set for the farther level's draw (it keeps the pixels below k). */
inline constexpr std::uint32_t kLodFadeFarSide = 0x40u;

/** The list entry of record @p index drawn by the nearer (@p farSide false) or farther level
 *  of a fade with coverage @p k (1..63; 0 or 64: drawn whole, entry = index). */
[[nodiscard]] constexpr std::uint32_t lodFadeEntry(std::uint32_t index, std::uint32_t k, bool farSide) noexcept {
    if (k == 0 || k >= kLodFadeSteps) {
        return index;
    }
    return index | ((kLodFadeFlag | (farSide ? kLodFadeFarSide : 0u) | k) << 24);
}

/** True when list entry @p entry covers the pixel at (@p x, @p y) (the shader's test). */
[[nodiscard]] constexpr bool lodFadeCovers(std::uint32_t entry, std::uint32_t x, std::uint32_t y) noexcept {
    const std::uint32_t code = entry >> 24;
    if ((code & kLodFadeFlag) == 0) {
        return true;
    }
    const bool below = lodBayer8(x, y) < (code & 0x3Fu);
    return (code & kLodFadeFarSide) != 0 ? below : !below;
}

/** What one instance draws: @p level (0..n-1; n = levels.size(): not drawn), and with a fade
 *  (fadeSteps 1..63) also level + 1 (not drawn when level + 1 = n) over fadeSteps / 64 of its
 *  pixels, @p level over the rest. */
struct LodPick {
    std::uint8_t level = 0;      ///< the nearer level drawn, 0..n (n: not drawn)
    std::uint8_t fadeSteps = 0;  ///< 0: no fade; 1..63: level + 1's share of the pixels, in 64ths
};

/** The general form of selectLodLevel(): an instance whose bounding sphere has radius
 *  @p radius (world units) and centre at @p distance from the eye, under @p projection
 *  (ignored by LodMetric::Distance), holding level @p held. Screen metrics switch where the
 *  projected size (lodScreenSize()) falls below a level's switchScreenSize, i.e. at the
 *  distance D_i = radius * yScale (* viewportHeight) / switchScreenSize_i (perspective), and the
 *  hysteresis and fade bands are fractions of D_i as of a switch distance; an orthographic
 *  view compares 1 against D_i / radius instead of the distance. With fadeBand > 0 and
 *  projection.fade the held level is ignored and the fade is t = (d - D_i (1 - b/2)) / (D_i b),
 *  fadeSteps = round(64 t), a pick of 0 or 64 steps being the one level whole; with
 *  fadeBand > 0 and !projection.fade the level switches at D_i exactly.
 *  @p chain is assumed valid (InstancedMeshNode::setLodChain() checked it). */
[[nodiscard]] LodPick pickLodLevel(const LodChain& chain, const LodProjection& projection, float distance,
                                   float radius, std::uint8_t held) noexcept;

/** The level an instance at @p distance (world units, eye to sphere centre) draws under a
 *  LodMetric::Distance chain without a fade (pickLodLevel() for the others), given the
 *  level it drew last frame (@p held; kNoLodLevel for none). With levels 0..n-1, switch
 *  distances s_0 < ... < s_(n-1) and hysteresis h: the distance alone selects r(d) = the number
 *  of i with d >= s_i (n: not drawn). The held level p (0..n) is kept while
 *  lower(p) <= d < upper(p), where lower(0) = 0, lower(p) = s_(p-1) * (1 - h), upper(n) =
 *  infinity and upper(p) = s_p * (1 + h); otherwise the result is r(d). A NaN distance
 *  selects level 0. @p chain is assumed valid (InstancedMeshNode::setLodChain() checked it).
 *  @return 0..n-1, or n (levels.size()) when the instance is past the last switch distance. */
[[nodiscard]] std::uint8_t selectLodLevel(const LodChain& chain, float distance, std::uint8_t held) noexcept;

/** Buckets @p indices (record indices of one batch, in draw order) by level: the bulk form of
 *  pickLodLevel(), one pass, squared distances, no allocation once the lists have grown.
 *  Each instance's distance is |worldLinear * centre + nodeOriginFromEye| with centre its
 *  node-space sphere centre in @p spheres, @p worldLinear the node's world 3x3 and
 *  @p nodeOriginFromEye the node's world translation minus the eye (camera-relative, float).
 *  @p heldLevels: one byte per record (size at least spheres.size()), read as last frame's
 *  level and overwritten with this frame's; kNoLodLevel (or any value above levels.size())
 *  counts as none. @p levelLists: at least chain.levels.size() lists; each is cleared, then
 *  receives the indices that draw that level, in their order in @p indices (so a list sorted
 *  back to front stays sorted within each level). Instances past the last switch distance go
 *  in no list. A fading instance (pickLodLevel()'s fadeSteps 1..63, @p projection.fade) goes in
 *  both its levels' lists as lodFadeEntry() entries; every other entry is the bare index.
 *  Screen metrics: an instance's radius is its node-space radius (@p spheres) times the
 *  largest column length of @p worldLinear; @p projection is the view's.
 *  @throws InvalidArgument if the chain is empty, @p levelLists is too short, or an index is
 *  not below both spheres.size() and heldLevels.size() (nothing is written then);
 *  CapacityError if the chain fades and an index does not fit kLodFadeIndexMask. */
void selectLodLevels(const LodChain& chain, const InstanceSpheres& spheres, std::span<const std::uint32_t> indices,
                     const glm::mat3& worldLinear, const glm::vec3& nodeOriginFromEye,
                     std::span<std::uint8_t> heldLevels, std::span<std::vector<std::uint32_t>> levelLists,
                     const LodProjection& projection = {});

} // namespace myriad
