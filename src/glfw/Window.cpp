#include "myriad/glfw/Window.h"

#include "myriad/gl/Loader.h"
#include "myriad/util/Error.h"
#include "myriad/util/Log.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>


namespace myriad::glfw {
namespace {

int g_windows = 0;

void errorCallback(int code, const char* description) {
    log(LogLevel::Warning, "GLFW error " + std::to_string(code) + ": " + description);
}

gl::ProcAddress procAddress(const char* name) {
    return reinterpret_cast<gl::ProcAddress>(glfwGetProcAddress(name));
}

} // namespace

struct Window::Impl {
    GLFWwindow* window = nullptr;
    ~Impl() {
        if (window != nullptr) {
            glfwDestroyWindow(window);
        }
        if (--g_windows == 0) {
            glfwTerminate();
        }
    }
};

Window::Window(const WindowDesc& desc) {
    glfwSetErrorCallback(errorCallback);
    if (g_windows == 0 && glfwInit() != GLFW_TRUE) {
        throw GlError("glfw::Window: glfwInit failed (no display? use egl::HeadlessContext, or "
                      "run with --headless)");
    }
    auto impl = std::make_unique<Impl>();
    ++g_windows;
    glfwDefaultWindowHints();
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 5);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_OPENGL_DEBUG_CONTEXT, desc.debug ? GLFW_TRUE : GLFW_FALSE);
    glfwWindowHint(GLFW_SAMPLES, 4);
    impl->window = glfwCreateWindow(static_cast<int>(desc.width), static_cast<int>(desc.height),
                                    desc.title.c_str(), nullptr, nullptr);
    if (impl->window == nullptr) {
        throw GlError("glfw::Window: no window with an OpenGL 4.5 core context could be created");
    }
    glfwMakeContextCurrent(impl->window);
    glfwSwapInterval(desc.vsync ? 1 : 0);
    gl::loadGl(&procAddress, [] { return static_cast<void*>(glfwGetCurrentContext()); });
    m_impl = std::move(impl);
}

Window::~Window() = default;
Window::Window(Window&&) noexcept = default;
Window& Window::operator=(Window&&) noexcept = default;

bool Window::shouldClose() const {
    return glfwWindowShouldClose(m_impl->window) == GLFW_TRUE ||
           glfwGetKey(m_impl->window, GLFW_KEY_ESCAPE) == GLFW_PRESS;
}

void Window::pollEvents() { glfwPollEvents(); }

void Window::swapBuffers() { glfwSwapBuffers(m_impl->window); }

std::uint32_t Window::framebufferWidth() const {
    int width = 0;
    int height = 0;
    glfwGetFramebufferSize(m_impl->window, &width, &height);
    return static_cast<std::uint32_t>(width);
}

std::uint32_t Window::framebufferHeight() const {
    int width = 0;
    int height = 0;
    glfwGetFramebufferSize(m_impl->window, &width, &height);
    return static_cast<std::uint32_t>(height);
}

} // namespace myriad::glfw
