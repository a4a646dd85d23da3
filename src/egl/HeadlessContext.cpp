#include "myriad/egl/HeadlessContext.h"

#include "myriad/gl/Loader.h"
#include "myriad/util/Error.h"
#include "myriad/util/Log.h"

#include "egl/PlatformOrder.h"

#include <glad/egl.h>

#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

// GL_VENDOR / GL_RENDERER / GL_VERSION, without pulling the whole GL header into the EGL layer.
extern "C" {
typedef const unsigned char* (*MyriadGetStringFunction)(unsigned int);
}

namespace myriad::egl {
namespace {

constexpr unsigned int kGlVendor = 0x1F00;    // GL_VENDOR
constexpr unsigned int kGlRenderer = 0x1F01;  // GL_RENDERER
constexpr unsigned int kGlVersion = 0x1F02;   // GL_VERSION

std::string eglErrorName(EGLint error) {
    switch (error) {
    case EGL_SUCCESS: return "EGL_SUCCESS";
    case EGL_NOT_INITIALIZED: return "EGL_NOT_INITIALIZED";
    case EGL_BAD_ACCESS: return "EGL_BAD_ACCESS";
    case EGL_BAD_ALLOC: return "EGL_BAD_ALLOC";
    case EGL_BAD_ATTRIBUTE: return "EGL_BAD_ATTRIBUTE";
    case EGL_BAD_CONFIG: return "EGL_BAD_CONFIG";
    case EGL_BAD_CONTEXT: return "EGL_BAD_CONTEXT";
    case EGL_BAD_DISPLAY: return "EGL_BAD_DISPLAY";
    case EGL_BAD_MATCH: return "EGL_BAD_MATCH";
    case EGL_BAD_PARAMETER: return "EGL_BAD_PARAMETER";
    default: return "EGL error 0x" + std::to_string(error);
    }
}

gl::ProcAddress glProcAddress(const char* name) {
    return reinterpret_cast<gl::ProcAddress>(eglGetProcAddress(name));
}

void* currentEglContext() {
    return eglGetCurrentContext();
}

/** MYRIAD_EGL_REQUIRE_HARDWARE set to anything but "" or "0" turns requireHardware on. */
bool hardwareRequiredByEnvironment() {
    const char* value = std::getenv("MYRIAD_EGL_REQUIRE_HARDWARE");
    return value != nullptr && *value != '\0' && std::string_view(value) != "0";
}

} // namespace

struct HeadlessContext::Impl {
    EGLDisplay display = EGL_NO_DISPLAY;
    EGLContext context = EGL_NO_CONTEXT;
    std::string platform;
    std::string vendor;
    std::string renderer;
    std::string version;
    std::string description;
    bool software = false;

    ~Impl() { destroyContext(); }

    void destroyContext() noexcept {
        if (display != EGL_NO_DISPLAY && context != EGL_NO_CONTEXT) {
            if (eglGetCurrentContext() == context) {
                eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
            }
            eglDestroyContext(display, context);
        }
        // Not eglTerminate: the display is shared process-wide by EGL, and other contexts
        // (another HeadlessContext, a test's) may still use it.
        context = EGL_NO_CONTEXT;
        display = EGL_NO_DISPLAY;
    }

    /** Tries the candidates in detail::candidateOrder() and keeps the first that gives a GL 4.5
     *  core context (a hardware one, with @p requireHardware). */
    void open(const HeadlessContextDesc& desc) {
        // First load: client extensions, eglGetPlatformDisplayEXT and the device functions.
        if (gladLoaderLoadEGL(EGL_NO_DISPLAY) == 0) {
            throw GlError("egl::HeadlessContext: libEGL could not be loaded (install libegl1 and "
                          "a driver, e.g. Debian's libegl-mesa0 and libgl1-mesa-dri)");
        }
        const bool requireHardware = desc.requireHardware || hardwareRequiredByEnvironment();
        // Each candidate is made current to read GL_RENDERER; if none is kept, the caller's
        // context (a game's, another HeadlessContext) is made current again.
        // (Before any display was opened in this process glad has not loaded these: then no
        // context of ours can be current.)
        const bool canQuery = eglGetCurrentContext != nullptr && eglGetCurrentDisplay != nullptr &&
                              eglGetCurrentSurface != nullptr;
        const EGLContext previousContext = canQuery ? eglGetCurrentContext() : EGL_NO_CONTEXT;
        const EGLDisplay previousDisplay = canQuery ? eglGetCurrentDisplay() : EGL_NO_DISPLAY;
        const EGLSurface previousDraw = canQuery ? eglGetCurrentSurface(EGL_DRAW) : EGL_NO_SURFACE;
        const EGLSurface previousRead = canQuery ? eglGetCurrentSurface(EGL_READ) : EGL_NO_SURFACE;
        auto restorePrevious = [&] {
            if (previousContext != EGL_NO_CONTEXT) {
                eglMakeCurrent(previousDisplay, previousDraw, previousRead, previousContext);
            }
        };
        const char* clientExtensions = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
        const std::string extensions = clientExtensions != nullptr ? clientExtensions : "";
        auto has = [&](const char* name) { return detail::containsWord(extensions, name); };
        std::string tried;
        const bool platformDisplays = eglGetPlatformDisplayEXT != nullptr;
        const bool hasSurfaceless = has("EGL_MESA_platform_surfaceless") && platformDisplays;
        if (!hasSurfaceless) {
            tried += "\n  surfaceless: EGL_MESA_platform_surfaceless is not offered";
        }
        // Devices first, so a GPU's own driver (NVIDIA's EGL) wins over Mesa's surfaceless
        // platform, which on a machine with both may be llvmpipe.
        std::vector<EGLDeviceEXT> devices;
        std::vector<std::string> deviceExtensions;
        if (has("EGL_EXT_platform_device") && eglQueryDevicesEXT != nullptr && platformDisplays) {
            EGLint count = 0;
            if (eglQueryDevicesEXT(0, nullptr, &count) == EGL_TRUE && count > 0) {
                devices.resize(static_cast<std::size_t>(count));
                if (eglQueryDevicesEXT(count, devices.data(), &count) != EGL_TRUE) {
                    count = 0;
                }
                devices.resize(static_cast<std::size_t>(count));
            }
            for (EGLDeviceEXT device : devices) {
                const char* text = eglQueryDeviceStringEXT != nullptr ? eglQueryDeviceStringEXT(device, EGL_EXTENSIONS)
                                                                      : nullptr;
                deviceExtensions.emplace_back(text != nullptr ? text : "");
            }
            if (devices.empty()) {
                tried += "\n  device: no EGL devices";
            }
        } else {
            tried += "\n  device: EGL_EXT_platform_device is not offered";
        }
        bool sawSoftware = false;
        for (const detail::Candidate& candidate : detail::candidateOrder(deviceExtensions, hasSurfaceless)) {
            const std::string name = detail::candidateName(candidate);
            EGLDisplay candidateDisplay = EGL_NO_DISPLAY;
            switch (candidate.kind) {
            case detail::CandidateKind::HardwareDevice:
            case detail::CandidateKind::SoftwareDevice:
                candidateDisplay = eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, devices[candidate.device], nullptr);
                break;
            case detail::CandidateKind::Surfaceless:
                candidateDisplay = eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
                break;
            case detail::CandidateKind::Default: candidateDisplay = eglGetDisplay(EGL_DEFAULT_DISPLAY); break;
            }
            if (!initialize(candidateDisplay, name, tried)) {
                continue;
            }
            platform = candidate.kind == detail::CandidateKind::Surfaceless ? "surfaceless"
                       : candidate.kind == detail::CandidateKind::Default   ? "default"
                                                                             : "device";
            try {
                createContext(desc.debug);
            } catch (const GlError& error) {
                tried += "\n  " + name + ": " + error.what();
                destroyContext();
                continue;
            }
            software = detail::isSoftwareRenderer(renderer) || candidate.kind == detail::CandidateKind::SoftwareDevice;
            if (software && requireHardware) {
                sawSoftware = true;
                tried += "\n  " + name + ": software renderer " + renderer;
                destroyContext();
                continue;
            }
            try {
                // May throw (no entry points, GL below 4.5): the next display is tried, and the
                // caller's context comes back if none works, as the header promises.
                gl::loadGl(&glProcAddress, &currentEglContext);
            } catch (const GlError& error) {
                tried += "\n  " + name + ": " + error.what();
                destroyContext();
                continue;
            }
            log(LogLevel::Info, "egl::HeadlessContext: " + name + ", GL_VENDOR " + vendor + ", GL_RENDERER " +
                                    renderer + ", GL_VERSION " + version + (software ? " (software)" : ""));
            return;
        }
        restorePrevious();
        if (sawSoftware) {
            throw GlError("egl::HeadlessContext: hardware OpenGL is required (HeadlessContextDesc::requireHardware"
                          " or MYRIAD_EGL_REQUIRE_HARDWARE) but only software rendering is available; tried:" +
                          tried);
        }
        throw GlError("egl::HeadlessContext: no EGL display gave an OpenGL 4.5 core context; tried:" + tried);
    }

    // Initialises one display; on success keeps it and returns true.
    bool initialize(EGLDisplay candidate, const std::string& name, std::string& tried) {
        if (candidate == EGL_NO_DISPLAY) {
            tried += "\n  " + name + ": no display";
            return false;
        }
        EGLint major = 0;
        EGLint minor = 0;
        if (eglInitialize(candidate, &major, &minor) != EGL_TRUE) {
            tried += "\n  " + name + ": eglInitialize failed (" + eglErrorName(eglGetError()) + ")";
            return false;
        }
        display = candidate;
        return true;
    }

    void createContext(bool debug) {
        // Second load: the display's extensions and the EGL 1.5 entry points it supports.
        const int eglVersion = gladLoaderLoadEGL(display);
        if (eglVersion == 0) {
            throw GlError("EGL entry points for the display could not be loaded");
        }
        const char* displayExtensions = eglQueryString(display, EGL_EXTENSIONS);
        const std::string extensions = displayExtensions != nullptr ? displayExtensions : "";
        if (!detail::containsWord(extensions, "EGL_KHR_surfaceless_context")) {
            throw GlError("the display lacks EGL_KHR_surfaceless_context");
        }
        if (eglBindAPI(EGL_OPENGL_API) != EGL_TRUE) {
            throw GlError("eglBindAPI(EGL_OPENGL_API) failed (" + eglErrorName(eglGetError()) +
                          "): the driver offers no desktop OpenGL");
        }
        // EGL_SURFACE_TYPE defaults to EGL_WINDOW_BIT, which no headless display offers: ask for
        // pbuffer configs, then for any surface type (0 matches every mask).
        const EGLint configAttributes[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE,
                                           EGL_OPENGL_BIT, EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8,
                                           EGL_BLUE_SIZE, 8, EGL_NONE};
        EGLConfig config = nullptr;
        EGLint configCount = 0;
        if (eglChooseConfig(display, configAttributes, &config, 1, &configCount) != EGL_TRUE ||
            configCount == 0) {
            const EGLint anyConfig[] = {EGL_SURFACE_TYPE, 0, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
                                        EGL_NONE};
            if (eglChooseConfig(display, anyConfig, &config, 1, &configCount) != EGL_TRUE ||
                configCount == 0) {
                throw GlError("no EGL config with EGL_OPENGL_BIT");
            }
        }
        const EGLint contextAttributes[] = {
            EGL_CONTEXT_MAJOR_VERSION, 4,
            EGL_CONTEXT_MINOR_VERSION, 5,
            EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
            EGL_CONTEXT_OPENGL_DEBUG, debug ? EGL_TRUE : EGL_FALSE,
            EGL_NONE};
        context = eglCreateContext(display, config, EGL_NO_CONTEXT, contextAttributes);
        if (context == EGL_NO_CONTEXT) {
            throw GlError("no OpenGL 4.5 core context (" + eglErrorName(eglGetError()) + ")");
        }
        makeCurrent();
        auto getString = reinterpret_cast<MyriadGetStringFunction>(eglGetProcAddress("glGetString"));
        auto text = [&](unsigned int name) {
            const unsigned char* s = getString != nullptr ? getString(name) : nullptr;
            return s != nullptr ? std::string(reinterpret_cast<const char*>(s)) : std::string("?");
        };
        vendor = text(kGlVendor);
        renderer = text(kGlRenderer);
        version = text(kGlVersion);
        description = renderer + " / " + version;
    }

    void makeCurrent() {
        if (eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context) != EGL_TRUE) {
            throw GlError("egl::HeadlessContext: eglMakeCurrent failed (" +
                          eglErrorName(eglGetError()) + ")");
        }
    }
};

HeadlessContext::HeadlessContext(const HeadlessContextDesc& desc) : m_impl(std::make_unique<Impl>()) {
    m_impl->open(desc);
}

HeadlessContext::~HeadlessContext() = default;
HeadlessContext::HeadlessContext(HeadlessContext&&) noexcept = default;
HeadlessContext& HeadlessContext::operator=(HeadlessContext&&) noexcept = default;

void HeadlessContext::makeCurrent() { m_impl->makeCurrent(); }

void HeadlessContext::releaseCurrent() noexcept {
    eglMakeCurrent(m_impl->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
}

const std::string& HeadlessContext::platform() const noexcept { return m_impl->platform; }

const std::string& HeadlessContext::description() const noexcept { return m_impl->description; }

const std::string& HeadlessContext::vendor() const noexcept { return m_impl->vendor; }

const std::string& HeadlessContext::renderer() const noexcept { return m_impl->renderer; }

const std::string& HeadlessContext::version() const noexcept { return m_impl->version; }

bool HeadlessContext::isSoftware() const noexcept { return m_impl->software; }

} // namespace myriad::egl
