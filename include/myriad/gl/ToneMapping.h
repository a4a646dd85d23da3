#pragma once
/** @file
 *  Tone mapping and exposure: a small optional pass that draws a float target's linear light,
 *  exposed and tone-mapped, into the game's framebuffer (docs/lighting.md, "Tone mapping and
 *  exposure"). Not part of Renderer::render(): the game renders a view into an
 *  OffscreenTarget made with TargetFormat::Rgba16Float (linear light, whatever View::output
 *  says), then calls ToneMapPass::apply once per frame. */
#include "myriad/gl/Program.h"
#include "myriad/gl/View.h"

#include <cstdint>

namespace myriad::gl {

class OffscreenTarget;

/** The curve that maps exposed linear light (0 to infinity) into the display's 0..1. */
enum class ToneMapOperator : std::uint8_t {
    /** No curve: exposure, then each channel clamped to 0..1 (what an 8-bit target would do
     *  anyway). Highlights clip, hues shift where one channel clips first. */
    Clamp,
    /** Khronos PBR Neutral (the default), exactly the reference GLSL of
     *  https://github.com/KhronosGroup/ToneMapping, PBR_Neutral/pbrNeutral.glsl (2024):
     *  with x = min(r, g, b), subtract f = x - 6.25 x^2 when x < 0.08, else 0.04 (F90, the
     *  Fresnel of an IOR 1.5 dielectric: a shiny base colour under white light of 1 shows its
     *  base colour); below a peak (max channel after that) of Ks = 0.8 - 0.04 = 0.76 nothing
     *  more; above, the peak is compressed to pn = 1 - (1 - Ks)^2 / (p + 1 - 2 Ks) and the
     *  colour blended towards pn grey by g = 1 - 1 / (Kd (p - pn) + 1), Kd = 0.15
     *  (desaturation). So linear 0.18 becomes 0.14, 1.0 becomes 1 - 0.0576 / 0.44 = 0.86909,
     *  and every output is in 0..1. Meant for product colours that must stay true. */
    KhronosPbrNeutral,
    /** The ACES filmic look as Stephen Hill's fit of the ACES 1.0 RRT + sRGB ODT (BakingLab,
     *  https://github.com/TheRealMJP/BakingLab/blob/master/BakingLab/ACES.hlsl, "ACESFitted"):
     *  the sRGB-to-AP1 (with RRT saturation) input matrix, v (v + 0.0245786) - 0.000090537 over
     *  v (0.983729 v + 0.4329510) + 0.238081 per channel, the output matrix back to linear sRGB,
     *  clamped to 0..1. Grey g maps to that rational of g (1.0 to 0.61911, 0.18 to 0.10559): the
     *  fit darkens mid-tones. three.js's ACESFilmicToneMapping is the same fit with the exposure
     *  divided by 0.6 first; for its look set exposure to three.js's exposure / 0.6. */
    Aces,
};

/** What ToneMapPass does to each pixel: colour * exposure, then the operator. */
struct ToneMapSettings {
    ToneMapOperator toneOperator = ToneMapOperator::KhronosPbrNeutral;  ///< the curve
    /** A linear multiplier of the source's linear light before the curve: 1 (the default)
     *  leaves it as rendered, 2 is one stop brighter. Finite and above 0. From EV stops:
     *  exposureFromStops(). */
    float exposure = 1.0f;

    /** 2^@p stops: the exposure multiplier of @p stops exposure values (+1 doubles, -1 halves;
     *  the photographic exposure compensation, relative to the picture as rendered). No check
     *  here: a result that is not finite and above 0 is refused where the settings are given. */
    [[nodiscard]] static float exposureFromStops(float stops) noexcept;
};

/** Where ToneMapPass::apply draws: a framebuffer, a rectangle of it, and how it stores colour. */
struct ToneMapDestination {
    /** The GL framebuffer name: 0 (the default) is the window's back buffer, else any complete
     *  framebuffer of the game's or OffscreenTarget::framebufferId(). Draw buffer 0 is written. */
    std::uint32_t framebuffer = 0;
    /** The rectangle drawn into, in pixels from the framebuffer's bottom-left corner; the
     *  source fills it (stretched, nearest texel, where the sizes differ). Empty draws nothing. */
    Viewport viewport{};
    /** How @ref framebuffer stores colour, stated (TargetEncoding::Query is refused: the pass
     *  asks GL nothing). Srgb (the default): an sRGB format (GL_SRGB8_ALPHA8, an sRGB-capable
     *  window): the shader writes linear 0..1 and GL encodes it, GL_FRAMEBUFFER_SRGB on.
     *  Linear: a fixed-point format that keeps what it is given (GL_RGBA8, a window without an
     *  sRGB pixel format): the shader encodes with the sRGB OETF of IEC 61966-2-1, as the
     *  renderer's MYRIAD_ENCODE_SRGB does. Float: the tone-mapped linear 0..1 stored as is
     *  (for a later pass that encodes). Either way the picture is encoded exactly once. */
    TargetEncoding encoding = TargetEncoding::Srgb;

    /** A destination filling @p target, with its encoding stated from its TargetFormat
     *  (Srgb8Alpha8: Srgb, Rgba8: Linear, Rgba16Float: Float). Borrows nothing. */
    [[nodiscard]] static ToneMapDestination of(const OffscreenTarget& target) noexcept;
    /** The default framebuffer (a window) of @p width x @p height pixels, @p encoding as its
     *  pixel format stores colour (Srgb for GLFW_SRGB_CAPABLE / EGL_GL_COLORSPACE_SRGB_KHR). */
    [[nodiscard]] static ToneMapDestination window(std::uint32_t width, std::uint32_t height,
                                                   TargetEncoding encoding = TargetEncoding::Srgb) noexcept;
};

/** The tone-mapping pass: one program (shaders/tonemap.vert + tonemap.frag, labelled
 *  "myriad/tonemap"), an empty vertex array ("myriad/tonemap.vao": the full-screen triangle
 *  comes from gl_VertexID) and its own sampler object ("myriad/tonemap.sampler": nearest,
 *  clamp to edge, no mipmaps, no compare, so the source's own sampling state does not
 *  matter). apply() reads the source's texels as linear light (a float texture as stored, an
 *  sRGB one decoded by GL), multiplies by the exposure, applies the operator and writes the
 *  result with the source's alpha (clamped to 0..1) into the destination with one
 *  glDrawArrays(GL_TRIANGLES, 0, 3).
 *
 *  GL state (docs/gl-state.md, "The tone-mapping pass"): apply() sets the draw and read
 *  framebuffer, viewport, GL_FRAMEBUFFER_SRGB, depth/stencil/scissor test, blend, cull face,
 *  rasterizer discard, logic op, alpha-to-coverage, sample mask, clip distances 0-7 off,
 *  polygon mode fill, colour
 *  mask (draw buffer 0 on, 1-7 off), program, vertex array, texture unit 0 and its sampler;
 *  it leaves GL's initial values (framebuffer 0, program 0, vertex array 0, unit 0 and its
 *  sampler empty, colour mask all on, GL_FRAMEBUFFER_SRGB and the switches off), except the
 *  viewport, which keeps the destination's rectangle. It reads nothing back (no glGet): the
 *  one limit it checks, GL_MAX_VIEWPORT_DIMS, is read once by the constructor.
 *
 *  Ownership: move-only RAII over its GL objects. Thread safety: the context's thread only. */
class ToneMapPass {
public:
    /** Compiles the program and makes the vertex array and sampler on the current context;
     *  reads GL_MAX_VIEWPORT_DIMS once.
     *  @throws InvalidArgument for bad @p settings (as setSettings()), before any GL call;
     *  ShaderError if the program does not compile; GlError with no current GL 4.5 context. */
    explicit ToneMapPass(const ToneMapSettings& settings = {});
    ~ToneMapPass();
    /** Takes over the GL objects of @p other, which is left empty (destructible without a context). */
    ToneMapPass(ToneMapPass&& other) noexcept;
    /** Deletes this pass's GL objects, then takes over those of @p other, which is left empty. */
    ToneMapPass& operator=(ToneMapPass&& other) noexcept;
    ToneMapPass(const ToneMapPass&) = delete;
    ToneMapPass& operator=(const ToneMapPass&) = delete;

    /** The settings the next apply() uses. Sets two program uniforms (glProgramUniform: no
     *  binding changes).
     *  @throws InvalidArgument if exposure is not finite or not above 0, or toneOperator is not
     *  one of the enumerators; the pass then keeps its settings. StateError on a moved-from pass. */
    void setSettings(const ToneMapSettings& settings);
    /** The settings in use. */
    [[nodiscard]] const ToneMapSettings& settings() const noexcept { return m_settings; }

    /** Draws @p source's colour (OffscreenTarget::colorTextureId()), tone-mapped, into
     *  @p destination. @p source must hold linear light: a TargetFormat::Rgba16Float target
     *  (what the pass is for) or an Srgb8Alpha8 one (decoded on reading; it holds at most 1.0);
     *  an Rgba8 target is read as it stores, which after a ColorOutput::Display view is
     *  already encoded, so it is refused. An empty viewport draws nothing (no GL call).
     *  @throws InvalidArgument if @p source is empty or an Rgba8 target, if @p destination is
     *  @p source's own framebuffer (a feedback loop) or its encoding is TargetEncoding::Query;
     *  CapacityError if the viewport is larger than GL_MAX_VIEWPORT_DIMS; StateError on a
     *  moved-from pass. A throw comes before any GL call. */
    void apply(const OffscreenTarget& source, const ToneMapDestination& destination) const;
    /** The same from any GL_TEXTURE_2D named @p sourceTexture holding linear light (the
     *  game's own HDR buffer): level 0 is read with the pass's sampler, stretched over the
     *  viewport. The texture must not be attached to @p destination's framebuffer (not
     *  checked: that would need a glGet).
     *  @throws InvalidArgument if @p sourceTexture is 0 or the encoding is Query;
     *  CapacityError and StateError as above. */
    void apply(std::uint32_t sourceTexture, const ToneMapDestination& destination) const;

    /** True unless moved from. */
    [[nodiscard]] explicit operator bool() const noexcept { return m_program.id() != 0; }
    /** The program's GL name (0 when moved from), for tests and debuggers. */
    [[nodiscard]] std::uint32_t programId() const noexcept { return m_program.id(); }

private:
    void destroy() noexcept;
    void draw(std::uint32_t sourceTexture, const ToneMapDestination& destination, const char* function) const;
    ToneMapSettings m_settings{};
    Program m_program;
    std::uint32_t m_vertexArray = 0;
    std::uint32_t m_sampler = 0;
    int m_locationOperator = -1;
    int m_locationExposure = -1;
    int m_locationEncode = -1;
    std::int32_t m_maxViewport[2] = {0, 0};
};

} // namespace myriad::gl
