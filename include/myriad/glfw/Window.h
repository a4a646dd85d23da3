#pragma once
/** @file
 *  A desktop window with an OpenGL 4.5 core context (GLFW 3.3), for games, tools and the
 *  examples: input callbacks, resize, framebuffer size, vsync, a native handle.
 *
 *  Input follows GLFW's own semantics and names: key codes are GLFW_KEY_* values, mouse buttons
 *  GLFW_MOUSE_BUTTON_* (0 left, 1 right, 2 middle), modifiers GLFW_MOD_* bits; include
 *  <GLFW/glfw3.h> for the constants (myriad_glfw links glfw publicly). Each setter wraps the
 *  GLFW function named in its comment. */
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <glm/vec2.hpp>

struct GLFWwindow;  // GLFW's window type (GLFW/glfw3.h)

namespace myriad::glfw {

/** Creation parameters. Defaults: 1280 x 720, title "myriad", vsync on, debug context in debug
 *  builds, Escape closes. */
struct WindowDesc {
    std::uint32_t width = 1280;   ///< client area, screen coordinates; positive
    std::uint32_t height = 720;  ///< client area, screen coordinates; positive
    std::string title = "myriad";  ///< shown in the title bar
    bool vsync = true;            ///< swap interval 1 (0 when false); see Window::setSwapInterval
    bool closeOnEscape = true;    ///< Escape sets shouldClose(); games usually turn this off
    bool resizable = true;        ///< GLFW_RESIZABLE
    bool visible = true;          ///< GLFW_VISIBLE; a hidden window still renders (tests, tools)
#ifdef NDEBUG
    bool debug = false;           ///< GLFW_OPENGL_DEBUG_CONTEXT
#else
    bool debug = true;
#endif
};

/** GLFW_PRESS, GLFW_RELEASE, GLFW_REPEAT. */
enum class KeyAction : std::uint8_t { Release = 0, Press = 1, Repeat = 2 };

/** One key event (glfwSetKeyCallback). key is a GLFW_KEY_* code of the US layout position, or
 *  GLFW_KEY_UNKNOWN (-1); for text input use the character callback. */
struct KeyEvent {
    int key = -1;          ///< GLFW_KEY_* (US layout position), or GLFW_KEY_UNKNOWN (-1)
    int scancode = 0;      ///< platform-specific
    KeyAction action = KeyAction::Press;  ///< Press, Release, or Repeat (held key)
    int mods = 0;          ///< GLFW_MOD_* bits
};

/** One mouse-button event (glfwSetMouseButtonCallback). */
struct MouseButtonEvent {
    int button = 0;        ///< GLFW_MOUSE_BUTTON_* (0 left, 1 right, 2 middle)
    KeyAction action = KeyAction::Press;  ///< Press or Release
    int mods = 0;          ///< GLFW_MOD_* bits held at the event (Shift, Control, Alt, Super)
    glm::dvec2 cursor{0.0};  ///< cursor position at the event, screen coordinates from top-left
};

/** A GLFW window whose GL 4.5 core context is current on the creating thread, with GL loaded.
 *
 *  The default framebuffer is requested sRGB-capable (GLFW_SRGB_CAPABLE), so a renderer that
 *  writes linear light can enable GL_FRAMEBUFFER_SRGB and get encoded output; and 4x MSAA.
 *
 *  Callbacks: one std::function per kind, per window; setting one replaces the previous, an
 *  empty function removes it. They are called only from inside pollEvents() / waitEvents() on the
 *  main thread (GLFW's rule), never concurrently. A callback that throws: the exception is held
 *  while GLFW's C code unwinds normally, the remaining events of that poll still arrive, and the
 *  first such exception is rethrown from pollEvents() / waitEvents().
 *
 *  Ownership: move-only RAII; glfwInit/glfwTerminate are reference-counted across windows.
 *  Thread safety: create, poll, set callbacks and destroy on the main thread (a GLFW rule); the
 *  context is current on that thread. */
class Window {
public:
    /** @throws InvalidArgument if width or height is 0.
     *  @throws GlError if GLFW cannot open a display, or the driver offers no GL 4.5 core context
     *  on it; the message gives GLFW's reason and the value of DISPLAY, and names the ways to run
     *  without a screen (xvfb-run, or egl::HeadlessContext). */
    explicit Window(const WindowDesc& desc = {});
    ~Window();
    /** Takes over the window of the source, which is left empty. */
    Window(Window&&) noexcept;
    /** Destroys this window, then takes over that of the source, which is left empty. */
    Window& operator=(Window&&) noexcept;
    Window(const Window&) = delete;
    Window& operator=(const Window&) = delete;

    /** True once the user asked to close (close button, or Escape when closeOnEscape), or after
     *  setShouldClose(true). */
    [[nodiscard]] bool shouldClose() const;
    /** glfwSetWindowShouldClose: a game's own quit key, or cancelling a close request. */
    void setShouldClose(bool close);
    /** Processes pending events and returns (glfwPollEvents); callbacks run inside it.
     *  @throws whatever a callback threw (the first, after all events were delivered). */
    void pollEvents();
    /** Sleeps until an event arrives or @p timeoutSeconds pass (glfwWaitEventsTimeout), then
     *  processes events as pollEvents does. For a minimised window, instead of spinning.
     *  @throws InvalidArgument if timeoutSeconds is negative or not finite. */
    void waitEvents(double timeoutSeconds);
    /** Presents the back buffer (glfwSwapBuffers). */
    void swapBuffers();
    /** glfwSwapInterval on this window's context: 0 = no vsync (tearing allowed, for timing),
     *  1 = wait for one vertical blank, n = every n-th. Drivers may ignore it.
     *  @throws InvalidArgument if interval is negative. */
    void setSwapInterval(int interval);
    /** glfwSetWindowTitle (UTF-8). */
    void setTitle(const std::string& title);

    /** Framebuffer size in pixels (differs from the window size on high-DPI screens); 0 x 0
     *  while minimised (render nothing then). */
    [[nodiscard]] std::uint32_t framebufferWidth() const;
    /** Framebuffer height in pixels (see framebufferWidth()). */
    [[nodiscard]] std::uint32_t framebufferHeight() const;
    /** Client-area size in screen coordinates (glfwGetWindowSize); cursor positions use it. */
    [[nodiscard]] std::uint32_t windowWidth() const;
    /** Client-area height in screen coordinates (see windowWidth()). */
    [[nodiscard]] std::uint32_t windowHeight() const;
    /** True while iconified (GLFW_ICONIFIED). */
    [[nodiscard]] bool minimised() const;

    /** Polled input (glfwGetKey, glfwGetMouseButton, glfwGetCursorPos): state as of the last
     *  pollEvents. key: GLFW_KEY_*; button: GLFW_MOUSE_BUTTON_*. Out-of-range codes read false. */
    [[nodiscard]] bool keyDown(int key) const;
    /** True while mouse button @p button (GLFW_MOUSE_BUTTON_*, 0 left, 1 right, 2 middle) is
     *  held, as of the last pollEvents; out-of-range codes read false. */
    [[nodiscard]] bool mouseButtonDown(int button) const;
    /** Cursor position, screen coordinates from the client area's top-left corner. */
    [[nodiscard]] glm::dvec2 cursorPosition() const;

    /** glfwSetKeyCallback: physical keys, with press, release and auto-repeat. */
    void setKeyCallback(std::function<void(const KeyEvent&)> callback);
    /** glfwSetCharCallback: text input, one Unicode code point per character typed ('+' whatever
     *  the layout puts it on). */
    void setCharCallback(std::function<void(char32_t codepoint)> callback);
    /** glfwSetMouseButtonCallback. */
    void setMouseButtonCallback(std::function<void(const MouseButtonEvent&)> callback);
    /** glfwSetCursorPosCallback: screen coordinates from the client area's top-left. */
    void setCursorPositionCallback(std::function<void(glm::dvec2 position)> callback);
    /** glfwSetScrollCallback: offsets in wheel notches (y > 0 away from the user). */
    void setScrollCallback(std::function<void(glm::dvec2 offset)> callback);
    /** glfwSetWindowSizeCallback: new client size in screen coordinates. */
    void setResizeCallback(std::function<void(std::uint32_t width, std::uint32_t height)> callback);
    /** glfwSetFramebufferSizeCallback: new framebuffer size in pixels; 0 x 0 when minimised. */
    void setFramebufferSizeCallback(
        std::function<void(std::uint32_t width, std::uint32_t height)> callback);

    /** The GLFW window, for anything this class does not wrap (cursor modes, joysticks,
     *  monitors). Owned by this Window; valid until it is destroyed or moved from. */
    [[nodiscard]] GLFWwindow* glfwHandle() const noexcept;
    /** The platform's window: the X11 Window id on Linux/X11 (glfwGetX11Window), HWND on
     *  Windows, NSWindow* on macOS, as an integer; 0 where not available (Wayland builds). */
    [[nodiscard]] std::uintptr_t nativeHandle() const;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace myriad::glfw
