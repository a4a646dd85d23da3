#include "myriad/egl/HeadlessContext.h"

#include "myriad/gl/Loader.h"
#include "myriad/util/Error.h"
#include "myriad/util/Log.h"

#include <glad/egl.h>

#include <string>
#include <vector>

// GL_RENDERER / GL_VERSION, without pulling the whole GL header into the EGL layer.
extern "C" {
typedef const unsigned char* (*MyriadGetStringFunction)(unsigned int);
}

namespace myriad::egl {
namespace {

constexpr unsigned int kGlVendorRenderer = 0x1F01;  // GL_RENDERER
constexpr unsigned int kGlVersion = 0x1F02;         // GL_VERSION

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

} // namespace

struct HeadlessContext::Impl {
    EGLDisplay display = EGL_NO_DISPLAY;
    EGLContext context = EGL_NO_CONTEXT;
    std::string platform;
    std::string description;

    ~Impl() {
        if (display != EGL_NO_DISPLAY) {
            if (context != EGL_NO_CONTEXT) {
                if (eglGetCurrentContext() == context) {
                    eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
                }
                eglDestroyContext(display, context);
            }
            // Not eglTerminate: the display is shared process-wide by EGL, and other contexts
            // (another HeadlessContext, a test's) may still use it.
        }
    }

    // Tries one display; on success leaves it initialised and returns true.
    bool tryDisplay(EGLDisplay candidate, const char* name, std::string& tried) {
        if (candidate == EGL_NO_DISPLAY) {
            tried += std::string("\n  ") + name + ": no display";
            return false;
        }
        EGLint major = 0;
        EGLint minor = 0;
        if (eglInitialize(candidate, &major, &minor) != EGL_TRUE) {
            tried += std::string("\n  ") + name + ": eglInitialize failed (" +
                     eglErrorName(eglGetError()) + ")";
            return false;
        }
        display = candidate;
        platform = name;
        return true;
    }

    void openDisplay() {
        // First load: client extensions and eglGetPlatformDisplayEXT, before any display.
        if (gladLoaderLoadEGL(EGL_NO_DISPLAY) == 0) {
            throw GlError("egl::HeadlessContext: libEGL could not be loaded (install libegl1 and "
                          "a driver, e.g. Debian's libegl-mesa0 and libgl1-mesa-dri)");
        }
        std::string tried;
        const char* clientExtensions = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
        const std::string extensions = clientExtensions != nullptr ? clientExtensions : "";
        auto has = [&](const char* name) {
            return extensions.find(name) != std::string::npos;
        };
        if (has("EGL_MESA_platform_surfaceless") && eglGetPlatformDisplayEXT != nullptr) {
            if (tryDisplay(eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA,
                                                    EGL_DEFAULT_DISPLAY, nullptr),
                           "surfaceless", tried)) {
                return;
            }
        } else {
            tried += "\n  surfaceless: EGL_MESA_platform_surfaceless is not offered";
        }
        if (has("EGL_EXT_platform_device") && eglQueryDevicesEXT != nullptr &&
            eglGetPlatformDisplayEXT != nullptr) {
            EGLDeviceEXT devices[8];
            EGLint deviceCount = 0;
            if (eglQueryDevicesEXT(8, devices, &deviceCount) == EGL_TRUE) {
                for (EGLint i = 0; i < deviceCount; ++i) {
                    if (tryDisplay(eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, devices[i],
                                                            nullptr),
                                   "device", tried)) {
                        return;
                    }
                }
            }
            if (deviceCount == 0) {
                tried += "\n  device: no EGL devices";
            }
        } else {
            tried += "\n  device: EGL_EXT_platform_device is not offered";
        }
        if (tryDisplay(eglGetDisplay(EGL_DEFAULT_DISPLAY), "default", tried)) {
            return;
        }
        throw GlError("egl::HeadlessContext: no EGL display could be opened; tried:" + tried);
    }

    void createContext(bool debug) {
        // Second load: the display's extensions and the EGL 1.5 entry points it supports.
        const int version = gladLoaderLoadEGL(display);
        if (version == 0) {
            throw GlError("egl::HeadlessContext: EGL entry points for the " + platform +
                          " display could not be loaded");
        }
        const char* displayExtensions = eglQueryString(display, EGL_EXTENSIONS);
        const std::string extensions = displayExtensions != nullptr ? displayExtensions : "";
        if (extensions.find("EGL_KHR_surfaceless_context") == std::string::npos) {
            throw GlError("egl::HeadlessContext: the " + platform +
                          " display lacks EGL_KHR_surfaceless_context");
        }
        if (eglBindAPI(EGL_OPENGL_API) != EGL_TRUE) {
            throw GlError("egl::HeadlessContext: eglBindAPI(EGL_OPENGL_API) failed (" +
                          eglErrorName(eglGetError()) + "): the driver offers no desktop OpenGL");
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
                throw GlError("egl::HeadlessContext: no EGL config with EGL_OPENGL_BIT on the " +
                              platform + " display");
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
            throw GlError("egl::HeadlessContext: no OpenGL 4.5 core context on the " + platform +
                          " display (" + eglErrorName(eglGetError()) + ")");
        }
        makeCurrent();
        gl::loadGl(&glProcAddress, &currentEglContext);
        auto getString = reinterpret_cast<MyriadGetStringFunction>(eglGetProcAddress("glGetString"));
        auto text = [&](unsigned int name) {
            const unsigned char* s = getString != nullptr ? getString(name) : nullptr;
            return s != nullptr ? std::string(reinterpret_cast<const char*>(s)) : std::string("?");
        };
        description = text(kGlVendorRenderer) + " / " + text(kGlVersion);
        log(LogLevel::Info, "egl::HeadlessContext: " + platform + " platform, " + description);
    }

    void makeCurrent() {
        if (eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context) != EGL_TRUE) {
            throw GlError("egl::HeadlessContext: eglMakeCurrent failed (" +
                          eglErrorName(eglGetError()) + ")");
        }
    }
};

HeadlessContext::HeadlessContext(const HeadlessContextDesc& desc) : m_impl(std::make_unique<Impl>()) {
    m_impl->openDisplay();
    m_impl->createContext(desc.debug);
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

} // namespace myriad::egl
