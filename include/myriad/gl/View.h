#pragma once
/** @file
 *  A view: one picture of a scene — from where, into which framebuffer, which rectangle,
 *  what to clear. Several views of one frame share one upload (split screen, shadow maps). */
#include <glm/mat4x4.hpp>
#include <glm/vec4.hpp>

#include <cstdint>
#include <optional>

namespace myriad {
class Camera;
} // namespace myriad

namespace myriad::gl {

class OffscreenTarget;

/** A rectangle of the target framebuffer in pixels, from its bottom-left corner (glViewport).
 *  A width or height of 0 draws nothing (a minimised window) and is not an error. */
struct Viewport {
    std::int32_t x = 0;          ///< left edge, pixels from the framebuffer's left
    std::int32_t y = 0;          ///< bottom edge, pixels from the framebuffer's bottom
    std::uint32_t width = 0;     ///< pixels; 0 draws nothing
    std::uint32_t height = 0;    ///< pixels; 0 draws nothing
};

/** What a view clears before drawing (inside its viewport only). */
enum class ClearFlags : std::uint8_t {
    None = 0,           ///< draw over what the game already drew (its depth is tested)
    Color = 1,          ///< colour only, to View::clearColor (or the scene's)
    Depth = 2,          ///< depth only (to 1, or 0 with reversedDepth)
    ColorAndDepth = 3,  ///< the default
};

/** Clip-space depth convention of the projection (glClipControl, OpenGL 4.5 section 13.7). */
enum class ClipDepth : std::uint8_t {
    NegativeOneToOne,  ///< OpenGL's default: Camera's projections use it
    ZeroToOne,         ///< D3D style; with reversedDepth, the precise reversed-Z setup
};

/** One view of a scene. Defaults: no camera (identity matrices), framebuffer 0, empty
 *  viewport (draws nothing), clear colour and depth, every layer, ordinary depth.
 *
 *  Where it looks from: either @ref camera (its view, projection, double-precision eye and
 *  layer mask), or, when camera is null, @ref viewMatrix and @ref projectionMatrix as given
 *  (world to view and view to clip, column-major, OpenGL conventions), so jittered (TAA),
 *  oblique and reversed-Z projections work. Either way drawing is camera-relative: positions
 *  become float only after the eye is subtracted in double precision.
 *
 *  Ownership: borrows @ref camera, which must outlive the render() call. */
struct View {
    const Camera* camera = nullptr;    ///< if set, overrides the two matrices below
    glm::mat4 viewMatrix{1.0f};        ///< world to view, used when camera is null
    glm::mat4 projectionMatrix{1.0f};  ///< view to clip, used when camera is null
    /** The GL framebuffer name to draw into: 0 is the default framebuffer (a window's back
     *  buffer), else any complete framebuffer of the game's or OffscreenTarget::framebufferId().
     *  An sRGB colour attachment is encoded by GL (GL_FRAMEBUFFER_SRGB), a float one stores
     *  linear light. */
    std::uint32_t framebuffer = 0;
    /** The rectangle drawn into (and the only one cleared); empty by default, so set it or
     *  use View::of(). */
    Viewport viewport{};
    ClearFlags clear = ClearFlags::ColorAndDepth;  ///< what is cleared in the viewport first
    /** Linear RGBA to clear to; unset: the scene's clearColor. */
    std::optional<glm::vec4> clearColor{};
    /** Nodes are drawn when their layerMask shares a bit with this (and with the camera's). */
    std::uint32_t layerMask = 0xFFFFFFFFu;
    /** Depth range the projection produces; must match it (Camera: NegativeOneToOne). */
    ClipDepth clipDepth = ClipDepth::NegativeOneToOne;
    /** Depth test GREATER and depth cleared to 0 (reversed-Z; pair with ClipDepth::ZeroToOne
     *  and a projection mapping near to 1 and far to 0). */
    bool reversedDepth = false;
    /** Writes depth only (colour writes masked, no lighting): shadow maps, depth pre-passes. */
    bool depthOnly = false;

    /** A view of @p camera filling @p target, clearing colour and depth. */
    [[nodiscard]] static View of(const Camera& camera, const OffscreenTarget& target);
    /** A view of @p camera filling the default framebuffer of @p width x @p height pixels. */
    [[nodiscard]] static View of(const Camera& camera, std::uint32_t width, std::uint32_t height);
};

} // namespace myriad::gl
