#include "myriad/glfw/Window.h"

#include "myriad/gl/Loader.h"
#include "myriad/util/Error.h"
#include "myriad/util/Log.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#if defined(_WIN32)
#define GLFW_EXPOSE_NATIVE_WIN32
#include <GLFW/glfw3native.h>
#elif defined(__APPLE__)
#define GLFW_EXPOSE_NATIVE_COCOA
#include <GLFW/glfw3native.h>
#elif defined(__linux__) && !defined(MYRIAD_GLFW_NO_X11)
#define GLFW_EXPOSE_NATIVE_X11
#include <GLFW/glfw3native.h>
#endif

#include <cmath>
#include <cstdlib>
#include <exception>
#include <string>


namespace myriad::glfw {
namespace {

int g_windows = 0;
// GLFW's last error text ("X11: Failed to open display :99"), kept for the exceptions below:
// a failed glfwInit or glfwCreateWindow returns no reason of its own.
std::string g_lastGlfwError;

void errorCallback(int code, const char* description) {
    g_lastGlfwError = description != nullptr ? description : "";
    log(LogLevel::Warning, "GLFW error " + std::to_string(code) + ": " + g_lastGlfwError);
}

std::string environmentValue(const char* name) {
    const char* value = std::getenv(name);
    return value != nullptr && *value != '\0' ? "'" + std::string(value) + "'" : "not set";
}

// Why there is no window, for the person reading a test log or a terminal: what GLFW said,
// which display was asked for, and the two ways to run without a screen.
std::string noDisplayReason() {
    std::string reason = "GLFW says: " + (g_lastGlfwError.empty() ? "nothing" : g_lastGlfwError);
    reason += "; DISPLAY is " + environmentValue("DISPLAY");
    if (std::getenv("WAYLAND_DISPLAY") != nullptr) {
        reason += ", WAYLAND_DISPLAY is " + environmentValue("WAYLAND_DISPLAY");
    }
    return reason + ". Without a screen, run under a virtual X server (xvfb-run -a COMMAND) or draw "
                    "headless (egl::HeadlessContext; the examples' --headless)";
}

gl::ProcAddress procAddress(const char* name) {
    return reinterpret_cast<gl::ProcAddress>(glfwGetProcAddress(name));
}

KeyAction toAction(int action) {
    return action == GLFW_RELEASE ? KeyAction::Release
           : action == GLFW_REPEAT ? KeyAction::Repeat
                                   : KeyAction::Press;
}

std::uint32_t nonNegative(int value) { return value > 0 ? static_cast<std::uint32_t>(value) : 0u; }

} // namespace

struct Window::Impl {
    GLFWwindow* window = nullptr;
    bool closeOnEscape = true;
    std::function<void(const KeyEvent&)> key;
    std::function<void(char32_t)> character;
    std::function<void(const MouseButtonEvent&)> mouseButton;
    std::function<void(glm::dvec2)> cursor;
    std::function<void(glm::dvec2)> scroll;
    std::function<void(std::uint32_t, std::uint32_t)> resize;
    std::function<void(std::uint32_t, std::uint32_t)> framebufferSize;
    // GLFW is C: an exception must not unwind through it. The first one thrown by a callback
    // waits here until pollEvents() returns.
    std::exception_ptr pending;

    ~Impl() {
        if (window != nullptr) {
            glfwDestroyWindow(window);
        }
        if (--g_windows == 0) {
            glfwTerminate();
        }
    }

    static Impl& of(GLFWwindow* window) { return *static_cast<Impl*>(glfwGetWindowUserPointer(window)); }

    template <class F>
    void guarded(F&& call) noexcept {
        try {
            call();
        } catch (...) {
            if (!pending) {
                pending = std::current_exception();
            }
        }
    }

    void rethrowPending() {
        if (pending) {
            std::exception_ptr error = pending;
            pending = nullptr;
            std::rethrow_exception(error);
        }
    }

    // The GLFW-side trampolines: one static function per kind, finding the Impl through the
    // window's user pointer (glfwSetWindowUserPointer).
    static void onKey(GLFWwindow* w, int key, int scancode, int action, int mods) {
        Impl& impl = of(w);
        if (impl.closeOnEscape && key == GLFW_KEY_ESCAPE && action == GLFW_PRESS) {
            glfwSetWindowShouldClose(w, GLFW_TRUE);
        }
        if (impl.key) {
            impl.guarded([&] { impl.key(KeyEvent{key, scancode, toAction(action), mods}); });
        }
    }
    static void onChar(GLFWwindow* w, unsigned int codepoint) {
        Impl& impl = of(w);
        if (impl.character) {
            impl.guarded([&] { impl.character(static_cast<char32_t>(codepoint)); });
        }
    }
    static void onMouseButton(GLFWwindow* w, int button, int action, int mods) {
        Impl& impl = of(w);
        if (impl.mouseButton) {
            double x = 0.0;
            double y = 0.0;
            glfwGetCursorPos(w, &x, &y);
            impl.guarded([&] {
                impl.mouseButton(MouseButtonEvent{button, toAction(action), mods, glm::dvec2(x, y)});
            });
        }
    }
    static void onCursor(GLFWwindow* w, double x, double y) {
        Impl& impl = of(w);
        if (impl.cursor) {
            impl.guarded([&] { impl.cursor(glm::dvec2(x, y)); });
        }
    }
    static void onScroll(GLFWwindow* w, double x, double y) {
        Impl& impl = of(w);
        if (impl.scroll) {
            impl.guarded([&] { impl.scroll(glm::dvec2(x, y)); });
        }
    }
    static void onResize(GLFWwindow* w, int width, int height) {
        Impl& impl = of(w);
        if (impl.resize) {
            impl.guarded([&] { impl.resize(nonNegative(width), nonNegative(height)); });
        }
    }
    static void onFramebufferSize(GLFWwindow* w, int width, int height) {
        Impl& impl = of(w);
        if (impl.framebufferSize) {
            impl.guarded([&] { impl.framebufferSize(nonNegative(width), nonNegative(height)); });
        }
    }
};

Window::Window(const WindowDesc& desc) {
    if (desc.width == 0 || desc.height == 0) {
        throw InvalidArgument("glfw::Window: size " + std::to_string(desc.width) + "x" +
                              std::to_string(desc.height) + " has a zero side");
    }
    glfwSetErrorCallback(errorCallback);
    g_lastGlfwError.clear();
    if (g_windows == 0 && glfwInit() != GLFW_TRUE) {
        throw GlError("glfw::Window: could not open a display (glfwInit failed). " + noDisplayReason());
    }
    auto impl = std::make_unique<Impl>();
    ++g_windows;
    impl->closeOnEscape = desc.closeOnEscape;
    glfwDefaultWindowHints();
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 5);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_OPENGL_DEBUG_CONTEXT, desc.debug ? GLFW_TRUE : GLFW_FALSE);
    glfwWindowHint(GLFW_SRGB_CAPABLE, GLFW_TRUE);
    glfwWindowHint(GLFW_SAMPLES, 4);
    glfwWindowHint(GLFW_RESIZABLE, desc.resizable ? GLFW_TRUE : GLFW_FALSE);
    glfwWindowHint(GLFW_VISIBLE, desc.visible ? GLFW_TRUE : GLFW_FALSE);
    impl->window = glfwCreateWindow(static_cast<int>(desc.width), static_cast<int>(desc.height),
                                    desc.title.c_str(), nullptr, nullptr);
    if (impl->window == nullptr) {
        // The display opened, so this is usually a driver without GL 4.5 core on that display
        // (an X server forwarded over ssh, an old GPU driver); Xvfb with Mesa offers 4.5 core.
        throw GlError("glfw::Window: no window with an OpenGL 4.5 core context could be created on the "
                      "display. " + noDisplayReason());
    }
    glfwSetWindowUserPointer(impl->window, impl.get());
    glfwSetKeyCallback(impl->window, &Impl::onKey);
    glfwSetCharCallback(impl->window, &Impl::onChar);
    glfwSetMouseButtonCallback(impl->window, &Impl::onMouseButton);
    glfwSetCursorPosCallback(impl->window, &Impl::onCursor);
    glfwSetScrollCallback(impl->window, &Impl::onScroll);
    glfwSetWindowSizeCallback(impl->window, &Impl::onResize);
    glfwSetFramebufferSizeCallback(impl->window, &Impl::onFramebufferSize);
    glfwMakeContextCurrent(impl->window);
    glfwSwapInterval(desc.vsync ? 1 : 0);
    gl::loadGl(&procAddress, [] { return static_cast<void*>(glfwGetCurrentContext()); });
    m_impl = std::move(impl);
}

Window::~Window() = default;
Window::Window(Window&&) noexcept = default;
Window& Window::operator=(Window&&) noexcept = default;

bool Window::shouldClose() const { return glfwWindowShouldClose(m_impl->window) == GLFW_TRUE; }

void Window::setShouldClose(bool close) {
    glfwSetWindowShouldClose(m_impl->window, close ? GLFW_TRUE : GLFW_FALSE);
}

void Window::pollEvents() {
    glfwPollEvents();
    m_impl->rethrowPending();
}

void Window::waitEvents(double timeoutSeconds) {
    if (!std::isfinite(timeoutSeconds) || timeoutSeconds < 0.0) {
        throw InvalidArgument("glfw::Window::waitEvents: timeout " + std::to_string(timeoutSeconds) +
                              " s is not a finite non-negative number");
    }
    glfwWaitEventsTimeout(timeoutSeconds);
    m_impl->rethrowPending();
}

void Window::swapBuffers() { glfwSwapBuffers(m_impl->window); }

void Window::setSwapInterval(int interval) {
    if (interval < 0) {
        // Negative intervals mean adaptive vsync (WGL/GLX_EXT_swap_control_tear), which GLFW
        // only allows when the extension is there; refuse rather than depend on the driver.
        throw InvalidArgument("glfw::Window::setSwapInterval: interval " + std::to_string(interval) +
                              " is negative");
    }
    GLFWwindow* previous = glfwGetCurrentContext();
    glfwMakeContextCurrent(m_impl->window);
    glfwSwapInterval(interval);
    glfwMakeContextCurrent(previous);
}

void Window::setTitle(const std::string& title) { glfwSetWindowTitle(m_impl->window, title.c_str()); }

std::uint32_t Window::framebufferWidth() const {
    int width = 0;
    int height = 0;
    glfwGetFramebufferSize(m_impl->window, &width, &height);
    return nonNegative(width);
}

std::uint32_t Window::framebufferHeight() const {
    int width = 0;
    int height = 0;
    glfwGetFramebufferSize(m_impl->window, &width, &height);
    return nonNegative(height);
}

std::uint32_t Window::windowWidth() const {
    int width = 0;
    int height = 0;
    glfwGetWindowSize(m_impl->window, &width, &height);
    return nonNegative(width);
}

std::uint32_t Window::windowHeight() const {
    int width = 0;
    int height = 0;
    glfwGetWindowSize(m_impl->window, &width, &height);
    return nonNegative(height);
}

bool Window::minimised() const { return glfwGetWindowAttrib(m_impl->window, GLFW_ICONIFIED) == GLFW_TRUE; }

bool Window::keyDown(int key) const {
    if (key < GLFW_KEY_SPACE || key > GLFW_KEY_LAST) {
        return false;  // glfwGetKey reports GLFW_INVALID_ENUM for these
    }
    return glfwGetKey(m_impl->window, key) == GLFW_PRESS;
}

bool Window::mouseButtonDown(int button) const {
    if (button < GLFW_MOUSE_BUTTON_1 || button > GLFW_MOUSE_BUTTON_LAST) {
        return false;
    }
    return glfwGetMouseButton(m_impl->window, button) == GLFW_PRESS;
}

glm::dvec2 Window::cursorPosition() const {
    double x = 0.0;
    double y = 0.0;
    glfwGetCursorPos(m_impl->window, &x, &y);
    return {x, y};
}

void Window::setKeyCallback(std::function<void(const KeyEvent&)> callback) { m_impl->key = std::move(callback); }
void Window::setCharCallback(std::function<void(char32_t)> callback) { m_impl->character = std::move(callback); }
void Window::setMouseButtonCallback(std::function<void(const MouseButtonEvent&)> callback) {
    m_impl->mouseButton = std::move(callback);
}
void Window::setCursorPositionCallback(std::function<void(glm::dvec2)> callback) {
    m_impl->cursor = std::move(callback);
}
void Window::setScrollCallback(std::function<void(glm::dvec2)> callback) { m_impl->scroll = std::move(callback); }
void Window::setResizeCallback(std::function<void(std::uint32_t, std::uint32_t)> callback) {
    m_impl->resize = std::move(callback);
}
void Window::setFramebufferSizeCallback(std::function<void(std::uint32_t, std::uint32_t)> callback) {
    m_impl->framebufferSize = std::move(callback);
}

GLFWwindow* Window::glfwHandle() const noexcept { return m_impl ? m_impl->window : nullptr; }

std::uintptr_t Window::nativeHandle() const {
#if defined(_WIN32)
    return reinterpret_cast<std::uintptr_t>(glfwGetWin32Window(m_impl->window));
#elif defined(__APPLE__)
    return reinterpret_cast<std::uintptr_t>(glfwGetCocoaWindow(m_impl->window));
#elif defined(GLFW_EXPOSE_NATIVE_X11)
    return static_cast<std::uintptr_t>(glfwGetX11Window(m_impl->window));
#else
    return 0;
#endif
}

} // namespace myriad::glfw
