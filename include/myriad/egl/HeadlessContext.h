#pragma once
/** @file
 *  A headless OpenGL 4.5 core context through EGL: no window, no display server. */
#include <memory>
#include <string>

namespace myriad::egl {

/** Creation parameters. Defaults: a debug context in debug builds (NDEBUG unset), software
 *  rendering accepted. */
struct HeadlessContextDesc {
#ifdef NDEBUG
    bool debug = false;  ///< EGL_CONTEXT_OPENGL_DEBUG: lets KHR_debug report everything
#else
    bool debug = true;
#endif
    /** Refuse software rendering: a display whose GL_RENDERER names a software rasterizer
     *  (llvmpipe, softpipe, swrast, SwiftShader) or Mesa's software EGL device is passed over,
     *  and the constructor throws when nothing else is left. The environment variable
     *  MYRIAD_EGL_REQUIRE_HARDWARE (set, not "0") turns this on for every context of a process,
     *  e.g. a CI job on a GPU runner that must never pass on llvmpipe. */
    bool requireHardware = false;
};

/** An EGL display, config and OpenGL 4.5 core context with no surface, made current on the
 *  creating thread, with GL loaded (gl::loadGl). Rendering goes to gl::OffscreenTarget.
 *
 *  Displays, in order, the first that gives a GL 4.5 core context winning: every hardware
 *  device of EGL_EXT_device_enumeration / EGL_EXT_platform_device (a GPU with no display, e.g.
 *  NVIDIA's EGL: a device whose EGL_EXTENSIONS lack EGL_MESA_device_software), then Mesa's
 *  surfaceless platform (EGL_MESA_platform_surfaceless: a GPU Mesa drives, else llvmpipe),
 *  then Mesa's software devices (llvmpipe), then the default display. So on a machine with
 *  both NVIDIA's driver and Mesa a headless run is on the GPU, and llvmpipe gives GL 4.5 core
 *  on any machine. vendor(), renderer() and isSoftware() say what was picked, and the choice
 *  is logged (LogLevel::Info) with GL_VENDOR, GL_RENDERER and GL_VERSION.
 *  Needs EGL 1.5 (or 1.4 with EGL_KHR_create_context) and EGL_KHR_surfaceless_context.
 *
 *  Ownership: move-only RAII; destroying it releases the context (made non-current first).
 *  Thread safety: use it, and every GL object created under it, on the creating thread. */
class HeadlessContext {
public:
    /** @throws GlError naming what is missing: no libEGL, no usable platform, no GL 4.5 core
     *  config or context, no surfaceless support; with requireHardware, only software
     *  rendering ("hardware OpenGL is required ... only software rendering is available").
     *  The message lists each display tried and why it was passed over (a software one by its
     *  GL_RENDERER). When it throws, the context current before (if any) is current again. */
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
    /** "device" (EGL_EXT_platform_device, hardware or Mesa's software device), "surfaceless" or
     *  "default": the EGL platform in use. */
    [[nodiscard]] const std::string& platform() const noexcept;
    /** GL_RENDERER and GL_VERSION as the driver reports them, e.g. "llvmpipe (LLVM 15.0.6,
     *  256 bits) / 4.5 (Core Profile) Mesa 22.3.6". */
    [[nodiscard]] const std::string& description() const noexcept;
    /** GL_VENDOR, e.g. "NVIDIA Corporation" or "Mesa". */
    [[nodiscard]] const std::string& vendor() const noexcept;
    /** GL_RENDERER, e.g. "NVIDIA H200/PCIe/SSE2" or "llvmpipe (LLVM 15.0.6, 256 bits)". */
    [[nodiscard]] const std::string& renderer() const noexcept;
    /** GL_VERSION, e.g. "4.5 (Core Profile) Mesa 22.3.6". */
    [[nodiscard]] const std::string& version() const noexcept;
    /** True when rendering is in software: GL_RENDERER names a software rasterizer (llvmpipe,
     *  softpipe, swrast, SwiftShader) or the display is Mesa's software EGL device. */
    [[nodiscard]] bool isSoftware() const noexcept;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace myriad::egl
