#pragma once
/** @file
 *  A desktop window with an OpenGL 4.5 core context (GLFW 3.3), for examples and tools. */
#include <cstdint>
#include <memory>
#include <string>

namespace myriad::glfw {

/** Creation parameters. Defaults: 1280 x 720, title "myriad", vsync on, debug context in debug
 *  builds. */
struct WindowDesc {
    std::uint32_t width = 1280;   ///< client area, screen coordinates
    std::uint32_t height = 720;  ///< client area, screen coordinates
    std::string title = "myriad";  ///< shown in the title bar
    bool vsync = true;            ///< swap interval 1
#ifdef NDEBUG
    bool debug = false;           ///< GLFW_OPENGL_DEBUG_CONTEXT
#else
    bool debug = true;
#endif
};

/** A GLFW window whose GL 4.5 core context is current on the creating thread, with GL loaded.
 *  Ownership: move-only RAII; glfwInit/glfwTerminate are reference-counted across windows.
 *  Thread safety: create, poll and destroy on the main thread (a GLFW rule). */
class Window {
public:
    /** @throws GlError if GLFW cannot initialise (no display: use egl::HeadlessContext then)
     *  or the driver offers no GL 4.5 core context. */
    explicit Window(const WindowDesc& desc = {});
    ~Window();
    /** Takes over the window of the source, which is left empty. */
    Window(Window&&) noexcept;
    /** Destroys this window, then takes over that of the source, which is left empty. */
    Window& operator=(Window&&) noexcept;
    Window(const Window&) = delete;
    Window& operator=(const Window&) = delete;

    /** True once the user asked to close (close button or Escape). */
    [[nodiscard]] bool shouldClose() const;
    /** Processes pending events (glfwPollEvents). */
    void pollEvents();
    /** Presents the back buffer (glfwSwapBuffers). */
    void swapBuffers();
    /** Framebuffer size in pixels (differs from the window size on high-DPI screens). */
    [[nodiscard]] std::uint32_t framebufferWidth() const;
    /** Framebuffer height in pixels (see framebufferWidth()). */
    [[nodiscard]] std::uint32_t framebufferHeight() const;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace myriad::glfw
