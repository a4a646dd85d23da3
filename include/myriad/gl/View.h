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

/** What the pixels of a view are for (View::output). Lighting and blending are in linear light
 *  either way; this decides what is stored. */
enum class ColorOutput : std::uint8_t {
    /** The default: a picture for display. An 8-bit (fixed-point) target stores sRGB-encoded
     *  values (IEC 61966-2-1): an sRGB format is encoded by GL (GL_FRAMEBUFFER_SRGB), a linear
     *  one (GL_RGBA8, a window without an sRGB pixel format) by the shader. A float target
     *  stores linear light (the game tone-maps and encodes it). */
    Display,
    /** Linear light stored as is in every target, for a game pass that encodes later. An sRGB
     *  format still encodes (GL does; sampling it decodes back to linear); a linear 8-bit
     *  target then holds linear values (visible banding in the darks). */
    Linear,
};

/** How the view's colour target stores what is written (View::targetEncoding). */
enum class TargetEncoding : std::uint8_t {
    /** The default: asked of GL (GL_FRAMEBUFFER_ATTACHMENT_COLOR_ENCODING and _COMPONENT_TYPE
     *  of colour attachment 0, or of GL_BACK_LEFT, else GL_FRONT_LEFT, for framebuffer 0) the
     *  first time the renderer draws into that framebuffer name, then remembered: a steady
     *  frame makes no query. Renderer::forgetFramebuffer() asks again (after re-attaching a
     *  different format to the same framebuffer, or deleting it and getting its name back). */
    Query,
    /** sRGB storage GL encodes: GL_SRGB8_ALPHA8, an sRGB-capable window (EGL_KHR_gl_colorspace
     *  EGL_GL_COLORSPACE_SRGB_KHR, GLFW_SRGB_CAPABLE). */
    Srgb,
    /** Fixed-point storage that keeps what it is given: GL_RGBA8, GL_RGB10_A2, a window without
     *  an sRGB pixel format. With ColorOutput::Display the shader encodes. */
    Linear,
    /** Floating-point storage: GL_RGBA16F, GL_R11F_G11F_B10F, GL_RGBA32F (also what a
     *  framebuffer without colour attachment 0 is taken for: nothing to encode). */
    Float,
};

/** One view of a scene. Defaults: no camera (identity matrices), framebuffer 0, empty
 *  viewport (draws nothing), clear colour and depth, every layer, ordinary depth, display
 *  output with the target's encoding queried.
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
     *  The renderer writes fragment output 0, which reaches colour attachment 0 under GL's
     *  default draw buffers (the attachment whose encoding is queried). */
    std::uint32_t framebuffer = 0;
    /** What is stored: display-encoded (the default) or linear light; see ColorOutput. */
    ColorOutput output = ColorOutput::Display;
    /** How @ref framebuffer stores colour: queried once per framebuffer name unless stated
     *  (View::of() states an OffscreenTarget's). State it where the query is known to be wrong
     *  (a driver answering GL_SRGB for a window it does not encode: state Linear) or the
     *  framebuffer is re-attached every frame. A view whose shaders encode draws with
     *  GL_FRAMEBUFFER_SRGB off, so GL cannot encode a second time. With Linear and ColorOutput::Display the shaders encode before
     *  blending, so blended draws (AlphaMode::Blend, particles) blend encoded values, not
     *  linear light: the one picture that differs from an sRGB target's. */
    TargetEncoding targetEncoding = TargetEncoding::Query;
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
     *  and a projection mapping near to 1 and far to 0). It gains precision only with a float
     *  depth buffer (OffscreenTarget's DepthFormat::Depth32Float, or the game's
     *  GL_DEPTH_COMPONENT32F): there the float's dense values near 0 meet the projection's
     *  crowding at the far plane (Reed, "Depth Precision Visualized", NVIDIA 2015); a 24-bit
     *  buffer spaces its values evenly, so far surfaces fight as without it. */
    bool reversedDepth = false;
    /** Writes depth only (colour writes masked, no lighting): shadow maps, depth pre-passes. */
    bool depthOnly = false;
    /** Occlusion culling (docs/visibility.md, "Occlusion culling"): the view leaves out what
     *  its occluders hide. Off by default; ignored by shadow views. Conservative: the picture is
     *  the same as with it off, within the CPU buffer's resolution (below).
     *  - On the CPU: the occluders (MeshNode::occluder(), occluderMesh()) are rasterised once
     *    per view and frame into a small software depth buffer (RendererDesc::
     *    occlusionBufferHeight, occluderTriangleBudget), and every drawn node's bounding
     *    sphere (a batch's as a whole), and each instance's sphere of a batch with
     *    InstanceCulling::Cpu, is tested against it after the frustum test.
     *  - On the GPU (InstanceCulling::Gpu batches, opaque, without a LOD chain): with
     *    @ref depthTexture, each instance is tested in two phases against a hierarchical depth
     *    pyramid of the view's own depth ("GPU occlusion culling"); without one such batches
     *    are tested on the CPU as a whole only. */
    bool occlusionCulling = false;
    /** The GL name of a GL_TEXTURE_2D holding @ref framebuffer's depth attachment (single
     *  sampled, level 0, compare mode none), or 0 (the default): none known. View::of() fills
     *  it with OffscreenTarget::depthTextureId(); a game's framebuffer states its own. The
     *  renderer reads it (texelFetch, at the viewport's offset) after the view's opaque draws
     *  to build the occlusion pyramid, so it must cover the viewport. Framebuffer 0 has no
     *  depth texture: a window's view gets no GPU occlusion culling. Borrowed, not owned. */
    std::uint32_t depthTexture = 0;

    /** Motion vectors (docs/visibility.md, "Motion vectors"): opaque MeshNode and
     *  InstancedMeshNode draws also write fragment output 1 (colour attachment 1 of @ref
     *  framebuffer, which must have one, with draw buffers {COLOR_ATTACHMENT0,
     *  COLOR_ATTACHMENT1}: an OffscreenTarget made with a VelocityFormat does) holding, in its
     *  red and green channels, the surface point's window position now minus where the same
     *  point was in the previous frame, in pixels, +x right and +y up (GL window coordinates;
     *  Filament and Godot store the same difference in NDC or UV units, Unreal in a scaled
     *  encoding). "Previous" is this renderer's previous render() call: the instance's
     *  previous record, the node's previous world matrix and the previous view-projection of
     *  the view at the same position in the list passed to render(). A first frame, a new
     *  instance or node, or a view position not drawn last frame, reads zero. The projection
     *  is taken as given (a TAA jitter is part of the difference). Colour clears clear
     *  attachment 1 to 0. Blended draws, particles, scatter and populations write no velocity
     *  (attachment 1 masked, keeping the cleared 0), and with velocity the view's opaque draws
     *  do not use the table-driven multi-draw path. Ignored with @ref depthOnly. Default off. */
    bool velocity = false;

    /** A view of @p camera filling @p target, clearing colour and depth, with the target's
     *  encoding stated (no query), its depth texture (OffscreenTarget::depthTextureId()), and
     *  @ref velocity on when the target has a velocity attachment (OffscreenTarget::hasVelocity()). */
    [[nodiscard]] static View of(const Camera& camera, const OffscreenTarget& target);
    /** A view of @p camera filling the default framebuffer of @p width x @p height pixels. */
    [[nodiscard]] static View of(const Camera& camera, std::uint32_t width, std::uint32_t height);
};

} // namespace myriad::gl
