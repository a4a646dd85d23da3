// glfw::Window under a virtual X server (xvfb-run): input reaches the std::function callbacks
// set per window, a throwing callback surfaces from pollEvents, and the handles, vsync and
// sizes behave as documented. GLFW has no way to synthesise input, so the tests call the C
// callback GLFW holds (glfwSetXCallback returns it) as GLFW itself would from glfwPollEvents.
// A display that cannot be opened is refused with a message that says so (DISPLAY, xvfb-run).
#include "myriad/glfw/Window.h"
#include "myriad/util/Error.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <catch2/catch.hpp>

#include <cstdlib>
#include <stdexcept>
#include <string>

using namespace myriad;
using Catch::Matchers::Contains;

namespace {

glfw::WindowDesc hidden() {
    glfw::WindowDesc desc;
    desc.width = 320;
    desc.height = 200;
    desc.visible = false;
    return desc;
}

} // namespace

TEST_CASE("Window routes GLFW input to the callbacks set on it", "[glfw]") {
    glfw::Window window(hidden());
    GLFWwindow* handle = window.glfwHandle();
    REQUIRE(handle != nullptr);

    glfw::KeyEvent key;
    int keys = 0;
    window.setKeyCallback([&](const glfw::KeyEvent& e) { key = e; ++keys; });
    char32_t typed = 0;
    window.setCharCallback([&](char32_t c) { typed = c; });
    glfw::MouseButtonEvent button;
    window.setMouseButtonCallback([&](const glfw::MouseButtonEvent& e) { button = e; });
    glm::dvec2 cursor(0.0);
    window.setCursorPositionCallback([&](glm::dvec2 p) { cursor = p; });
    glm::dvec2 scroll(0.0);
    window.setScrollCallback([&](glm::dvec2 offset) { scroll = offset; });
    glm::uvec2 resized(0);
    window.setResizeCallback([&](std::uint32_t w, std::uint32_t h) { resized = {w, h}; });
    glm::uvec2 framebuffer(99);
    window.setFramebufferSizeCallback([&](std::uint32_t w, std::uint32_t h) { framebuffer = {w, h}; });

    // Take each installed C callback (setting it back at once) and call it as GLFW would.
    const GLFWkeyfun onKey = glfwSetKeyCallback(handle, nullptr);
    glfwSetKeyCallback(handle, onKey);
    REQUIRE(onKey != nullptr);
    onKey(handle, GLFW_KEY_W, 17, GLFW_PRESS, GLFW_MOD_SHIFT);
    CHECK(keys == 1);
    CHECK(key.key == GLFW_KEY_W);
    CHECK(key.scancode == 17);
    CHECK(key.action == glfw::KeyAction::Press);
    CHECK(key.mods == GLFW_MOD_SHIFT);
    onKey(handle, GLFW_KEY_W, 17, GLFW_REPEAT, 0);
    CHECK(key.action == glfw::KeyAction::Repeat);

    const GLFWcharfun onChar = glfwSetCharCallback(handle, nullptr);
    glfwSetCharCallback(handle, onChar);
    onChar(handle, U'+');
    CHECK(typed == U'+');

    const GLFWmousebuttonfun onButton = glfwSetMouseButtonCallback(handle, nullptr);
    glfwSetMouseButtonCallback(handle, onButton);
    onButton(handle, GLFW_MOUSE_BUTTON_RIGHT, GLFW_RELEASE, 0);
    CHECK(button.button == GLFW_MOUSE_BUTTON_RIGHT);
    CHECK(button.action == glfw::KeyAction::Release);

    const GLFWcursorposfun onCursor = glfwSetCursorPosCallback(handle, nullptr);
    glfwSetCursorPosCallback(handle, onCursor);
    onCursor(handle, 12.5, 40.0);
    CHECK(cursor == glm::dvec2(12.5, 40.0));

    const GLFWscrollfun onScroll = glfwSetScrollCallback(handle, nullptr);
    glfwSetScrollCallback(handle, onScroll);
    onScroll(handle, 0.0, -2.0);
    CHECK(scroll == glm::dvec2(0.0, -2.0));

    const GLFWwindowsizefun onResize = glfwSetWindowSizeCallback(handle, nullptr);
    glfwSetWindowSizeCallback(handle, onResize);
    onResize(handle, 640, 480);
    CHECK(resized == glm::uvec2(640, 480));

    // Minimised: GLFW reports a 0 x 0 framebuffer.
    const GLFWframebuffersizefun onFramebuffer = glfwSetFramebufferSizeCallback(handle, nullptr);
    glfwSetFramebufferSizeCallback(handle, onFramebuffer);
    onFramebuffer(handle, 0, 0);
    CHECK(framebuffer == glm::uvec2(0, 0));

    // Replacing and removing: only the newest callback runs; an empty one is never called.
    int replaced = 0;
    window.setKeyCallback([&](const glfw::KeyEvent&) { ++replaced; });
    onKey(handle, GLFW_KEY_A, 0, GLFW_PRESS, 0);
    CHECK(keys == 2);
    CHECK(replaced == 1);
    window.setKeyCallback({});
    onKey(handle, GLFW_KEY_A, 0, GLFW_PRESS, 0);
    CHECK(replaced == 1);
}

TEST_CASE("Escape closes only when closeOnEscape is set", "[glfw]") {
    glfw::Window closing(hidden());
    GLFWwindow* handle = closing.glfwHandle();
    const GLFWkeyfun onKey = glfwSetKeyCallback(handle, nullptr);
    glfwSetKeyCallback(handle, onKey);
    CHECK_FALSE(closing.shouldClose());
    onKey(handle, GLFW_KEY_ESCAPE, 0, GLFW_PRESS, 0);
    CHECK(closing.shouldClose());
    closing.setShouldClose(false);
    CHECK_FALSE(closing.shouldClose());

    glfw::WindowDesc desc = hidden();
    desc.closeOnEscape = false;
    glfw::Window game(desc);
    GLFWwindow* gameHandle = game.glfwHandle();
    const GLFWkeyfun onGameKey = glfwSetKeyCallback(gameHandle, nullptr);
    glfwSetKeyCallback(gameHandle, onGameKey);
    onGameKey(gameHandle, GLFW_KEY_ESCAPE, 0, GLFW_PRESS, 0);
    CHECK_FALSE(game.shouldClose());
}

TEST_CASE("a callback that throws surfaces from pollEvents, not through GLFW", "[glfw][errors]") {
    glfw::Window window(hidden());
    GLFWwindow* handle = window.glfwHandle();
    int calls = 0;
    window.setScrollCallback([&](glm::dvec2) {
        ++calls;
        throw std::runtime_error("from the callback");
    });
    const GLFWscrollfun onScroll = glfwSetScrollCallback(handle, nullptr);
    glfwSetScrollCallback(handle, onScroll);
    onScroll(handle, 0.0, 1.0);  // held, not thrown into GLFW's C code
    onScroll(handle, 0.0, 1.0);  // later events still arrive
    CHECK(calls == 2);
    CHECK_THROWS_WITH(window.pollEvents(), "from the callback");
    CHECK_NOTHROW(window.pollEvents());  // delivered once
}

TEST_CASE("Window reports sizes, handles and refuses bad settings", "[glfw][errors]") {
    glfw::Window window(hidden());
    CHECK(window.framebufferWidth() == 320);
    CHECK(window.framebufferHeight() == 200);
    CHECK(window.windowWidth() == 320);
    CHECK(window.windowHeight() == 200);
    CHECK_FALSE(window.minimised());
    CHECK(window.nativeHandle() != 0);  // the X11 Window id under Xvfb
    CHECK_FALSE(window.keyDown(GLFW_KEY_W));
    CHECK_FALSE(window.keyDown(-1));     // out of range reads false, no GLFW error
    CHECK_FALSE(window.mouseButtonDown(99));
    CHECK_NOTHROW(window.setSwapInterval(0));
    CHECK_NOTHROW(window.setSwapInterval(1));
    CHECK_THROWS_AS(window.setSwapInterval(-1), InvalidArgument);
    CHECK_THROWS_AS(window.waitEvents(-1.0), InvalidArgument);
    CHECK_NOTHROW(window.waitEvents(0.0));
    window.setTitle("myriad test | 2 draw calls");

    glfw::WindowDesc empty = hidden();
    empty.height = 0;
    CHECK_THROWS_AS(glfw::Window(empty), InvalidArgument);
}

TEST_CASE("Window without a display says it could not open one, and how to get one", "[glfw][errors]") {
    // No window is open here, so the constructor runs glfwInit against this DISPLAY: a number no
    // X server serves (xvfb-run -a counts up from :99).
    const char* current = std::getenv("DISPLAY");
    const std::string saved = current != nullptr ? current : "";
    ::setenv("DISPLAY", ":1999", 1);
    std::string message;
    try {
        glfw::Window window(hidden());
    } catch (const GlError& e) {
        message = e.what();
    }
    if (current != nullptr) {
        ::setenv("DISPLAY", saved.c_str(), 1);
    } else {
        ::unsetenv("DISPLAY");
    }
    CHECK_THAT(message, Contains("could not open a display") && Contains("DISPLAY is ':1999'") &&
                            Contains("xvfb-run") && Contains("egl::HeadlessContext"));
    CHECK_THAT(message, Contains("Failed to open display :1999"));  // GLFW's own reason

    // The failure leaves GLFW uninitialised, and the next window on the real display opens.
    glfw::Window window(hidden());
    CHECK(window.glfwHandle() != nullptr);
}
