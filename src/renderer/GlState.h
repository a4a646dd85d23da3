#pragma once
// Internal to myriad_gl: the GL state contract of Renderer::render (documented in Renderer.h and
// docs/gl-state.md). render() assumes nothing about the state it is called in: it sets every
// piece of state its draws depend on, and on the way out either puts back the caller's values
// (RendererDesc::preserveState) or leaves the documented defaults, also when it throws.
#include "gl/Bindings.h"
#include "gl/GlCommon.h"

#include <array>
#include <optional>

namespace myriad::gl::detail {

// The units and binding points it saves and restores, kRendererTextureUnits,
// kRendererStorageBindings, are gl/Bindings.h's.

/** Capabilities whose GL initial value is off and that render() turns off for its draws (a host
 *  may leave any of them on): one list for the snapshot, its apply() and applyRenderState().
 *  Clip distances 0-7 (GL_MAX_CLIP_DISTANCES is at least 8): myriad's shaders write no
 *  gl_ClipDistance, and an enabled plane they do not write clips by an undefined value
 *  (OpenGL 4.5 section 13.5). */
inline constexpr std::array<GLenum, 18> kSwitchedOff{
    GL_POLYGON_OFFSET_FILL, GL_STENCIL_TEST, GL_RASTERIZER_DISCARD, GL_PRIMITIVE_RESTART,
    GL_PRIMITIVE_RESTART_FIXED_INDEX, GL_SAMPLE_ALPHA_TO_COVERAGE, GL_SAMPLE_COVERAGE,
    GL_SAMPLE_MASK, GL_DEPTH_CLAMP, GL_COLOR_LOGIC_OP,
    GL_CLIP_DISTANCE0, GL_CLIP_DISTANCE1, GL_CLIP_DISTANCE2, GL_CLIP_DISTANCE3,
    GL_CLIP_DISTANCE4, GL_CLIP_DISTANCE5, GL_CLIP_DISTANCE6, GL_CLIP_DISTANCE7};

/** Every piece of GL state render() changes, as glGet* reads it. */
struct GlStateSnapshot {
    GLint drawFramebuffer = 0;
    GLint readFramebuffer = 0;
    /** x, y, width, height (glViewport). Empty: left as render() set it (the documented exit
     *  state keeps the last view's rectangle). */
    std::optional<std::array<GLint, 4>> viewport;
    GLboolean scissorTest = GL_FALSE;
    /** x, y, width, height (glScissor). Empty: left as render() set it (the documented exit
     *  state keeps the last clearing view's viewport, as GL's initial box is the window's size,
     *  which render() cannot know without a glGet). */
    std::optional<std::array<GLint, 4>> scissorBox;
    std::array<GLboolean, 4> colorMask{GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE};
    /** Draw buffer 1's write mask (glColorMaski(1, ...)): a velocity view masks it for the
     *  draws that write no velocity (View::velocity). */
    std::array<GLboolean, 4> colorMask1{GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE};
    GLboolean depthTest = GL_FALSE;
    GLint depthFunc = GL_LESS;
    GLboolean depthMask = GL_TRUE;
    std::array<GLfloat, 2> depthRange{0.0f, 1.0f};
    GLint clipOrigin = GL_LOWER_LEFT;
    GLint clipDepthMode = GL_NEGATIVE_ONE_TO_ONE;
    GLboolean blend = GL_FALSE;
    std::array<GLint, 4> blendFunc{GL_ONE, GL_ZERO, GL_ONE, GL_ZERO};  // src rgb, dst rgb, src a, dst a
    std::array<GLint, 2> blendEquation{GL_FUNC_ADD, GL_FUNC_ADD};
    GLboolean cullFace = GL_FALSE;
    GLint cullFaceMode = GL_BACK;
    GLint frontFace = GL_CCW;
    GLint polygonMode = GL_FILL;
    GLboolean framebufferSrgb = GL_FALSE;
    /** Each of kSwitchedOff's capabilities, in its order (all off: GL's initial values). */
    std::array<GLboolean, kSwitchedOff.size()> switchedOff{};
    GLboolean multisample = GL_TRUE;      ///< GL_MULTISAMPLE (GL's initial value: on)
    std::array<GLfloat, 4> clearColor{};
    GLfloat clearDepth = 1.0f;
    GLint program = 0;
    GLint programPipeline = 0;
    GLint vertexArray = 0;
    GLint activeTexture = GL_TEXTURE0;
    std::array<GLint, kRendererTextureUnits.size()> texture2d{};
    std::array<GLint, kRendererTextureUnits.size()> textureBuffer{};
    std::array<GLint, kRendererTextureUnits.size()> texture2dArray{};  ///< the shadow map's target
    std::array<GLint, kRendererTextureUnits.size()> sampler{};
    GLint unpackAlignment = 4;
    GLint unpackRowLength = 0;
    GLint unpackImageHeight = 0;
    GLint unpackSkipPixels = 0;
    GLint unpackSkipRows = 0;
    GLint unpackSkipImages = 0;
    GLint pixelUnpackBuffer = 0;
    GLint shaderStorageBuffer = 0;        ///< the generic GL_SHADER_STORAGE_BUFFER binding
    /** The indexed storage bindings kRendererStorageBindings (material table, GPU culling). */
    std::array<GLint, kRendererStorageBindings.size()> storageBuffers{};
    std::array<GLint64, kRendererStorageBindings.size()> storageStarts{};
    std::array<GLint64, kRendererStorageBindings.size()> storageSizes{};  ///< 0: bound whole (glBindBufferBase)
    GLint drawIndirectBuffer = 0;         ///< GL_DRAW_INDIRECT_BUFFER (GPU-culled draws)
    GLint dispatchIndirectBuffer = 0;     ///< GL_DISPATCH_INDIRECT_BUFFER (GPU particle steps)
    /** True when capture() read it. False (documentedExitState()): apply() leaves the viewport
     *  as the last view set it and the active texture unit as the caller left it, and empties
     *  the renderer's texture units with glBindTextureUnit(unit, 0) (every target), so it
     *  needs no value it would have to read from GL. */
    bool captured = false;

    /** Reads the current state (about 75 glGet / glIsEnabled calls), once per render(). */
    [[nodiscard]] static GlStateSnapshot capture();
    /** Makes the current state equal to this snapshot. No glGet. */
    void apply() const;
};

/** The state render() needs before its first draw whatever the caller left: no scissor, all
 *  colours written, fill mode, no stencil, no logic op, no alpha-to-coverage, no rasterizer
 *  discard, depth range 0..1, no program pipeline, tightly packed client-memory uploads, sRGB
 *  encoding on (GL_FRAMEBUFFER_SRGB: an sRGB target is encoded once by GL, a linear one stores
 *  linear light). Per view and per draw the renderer then sets framebuffer, viewport, clip
 *  control, depth, blend, culling, program, vertex array, textures and samplers itself. */
void applyRenderState();

/** What render() leaves when it does not preserve the caller's state (GL's initial values for
 *  everything it touched, see docs/gl-state.md). Reads nothing from GL: a steady frame makes no
 *  glGet. */
[[nodiscard]] GlStateSnapshot documentedExitState();

} // namespace myriad::gl::detail
