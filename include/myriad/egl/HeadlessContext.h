#pragma once
/** @file
 *  A headless OpenGL 4.5 core context through EGL: no window, no display server. */
#include <memory>
#include <string>

namespace myriad::egl {

/** Creation parameters. Defaults: a debug context in debug builds (NDEBUG unset). */
struct HeadlessContextDesc {
#ifdef NDEBUG
    bool debug = false;  ///< EGL_CONTEXT_OPENGL_DEBUG: lets KHR_debug report everything
#else
    bool debug = true;
#endif
};

/** An EGL display, config and OpenGL 4.5 core context with no surface, made current on the
 *  creating thread, with GL loaded (gl::loadGl). Rendering goes to gl::OffscreenTarget.
 *
 *  Platforms, in order: Mesa's surfaceless platform (EGL_MESA_platform_surfaceless; llvmpipe
 *  gives GL 4.5 core on any machine), then the first device of EGL_EXT_platform_device (a GPU
 *  with no display, e.g. NVIDIA's EGL), then the default display.
 *  Needs EGL 1.5 (or 1.4 with EGL_KHR_create_context) and EGL_KHR_surfaceless_context.
 *
 *  Ownership: move-only RAII; destroying it releases the context (made non-current first).
 *  Thread safety: use it, and every GL object created under it, on the creating thread. */
class HeadlessContext {
public:
    /** @throws GlError naming what is missing: no libEGL, no usable platform, no GL 4.5 core
     *  config or context, no surfaceless support; the message lists what was tried. */
    explicit HeadlessContext(const HeadlessContextDesc& desc = {});
    ~HeadlessContext();
    /** Takes over the context of the source, which is left empty. The context stays current. */
    HeadlessContext(HeadlessContext&&) noexcept;
    /** Destroys this context, then takes over that of the source, which is left empty. */
    HeadlessContext& operator=(HeadlessContext&&) noexcept;
    HeadlessContext(const HeadlessContext&) = delete;
    HeadlessContext& operator=(const HeadlessContext&) = delete;

    /** Makes this context current on the calling thread. @throws GlError on failure. */
    void makeCurrent();
    /** Leaves no context current on the calling thread (eglMakeCurrent with EGL_NO_CONTEXT). */
    void releaseCurrent() noexcept;
    /** "surfaceless", "device" or "default": the EGL platform in use. */
    [[nodiscard]] const std::string& platform() const noexcept;
    /** GL_RENDERER and GL_VERSION as the driver reports them, e.g. "llvmpipe (LLVM 15.0.6,
     *  256 bits) / 4.5 (Core Profile) Mesa 22.3.6". */
    [[nodiscard]] const std::string& description() const noexcept;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace myriad::egl
