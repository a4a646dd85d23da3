#pragma once
// The frame loop every example shares: flags (from one declarative table per example, so --help
// and the parser cannot disagree, and a flag an example does not list is refused), a window or a
// headless context, the Renderer, per-frame statistics (printed, and in the window title), the
// camera controller, key bindings, and the image written at the end.
#include "myriad/core/Camera.h"
#include "myriad/core/Image.h"
#include "myriad/core/Scene.h"
#include "myriad/gl/FrameStats.h"
#include "myriad/gl/Renderer.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace myriad::examples {

class CameraController;

/** How a flag's value is read. */
enum class FlagKind : std::uint8_t {
    Switch,  ///< no value: present = on
    Number,  ///< a whole number in [min, max]
    Text,    ///< any text (a path)
    Choice,  ///< one of `choices`
};

/** One row of an example's flag table: what --help prints and what the parser accepts. */
struct Flag {
    std::string name;          ///< "--count"
    std::string valueName;     ///< "N" (shown in --help); empty for a switch
    std::string meaning;       ///< one line
    std::string defaultValue;  ///< parsed like a given value; empty = none (text) / off (switch)
    FlagKind kind = FlagKind::Text;
    std::vector<std::string> choices;  ///< Choice only
    long long min = 0;                 ///< Number only
    long long max = 0;                 ///< Number only: above it is refused with a clear message
};

/** What an example is, for --help and the parser. The common flags (--headless, --frames, --out,
 *  --width, --height, --vsync, --quiet, --help) are added by parseOptions. */
struct ExampleSpec {
    std::string name;         ///< "02-field"
    std::string summary;      ///< one or two lines
    std::vector<Flag> flags;  ///< the example's own flags; any other flag is refused
    std::vector<std::string> controls;     ///< "C: toggle culling": listed in --help and on start
    std::vector<std::string> unavailable;  ///< features not in myriad yet, listed in --help
    std::uint32_t width = 1280;            ///< default --width
    std::uint32_t height = 720;            ///< default --height
    bool cameraControls = false;  ///< lists the orbit / fly controls in --help
};

struct ExampleOptions {
    bool headless = false;        ///< --headless: EGL, no window
    int frames = 0;               ///< --frames N: stop after N frames; 0 = until closed (30 headless)
    std::string out;              ///< --out FILE.png|.jpg: last frame written there
    std::uint32_t width = 1280;   ///< --width
    std::uint32_t height = 720;   ///< --height
    bool vsync = true;            ///< --no-vsync turns it off (window only)
    bool quiet = false;           ///< --quiet: only the summary
    std::map<std::string, std::string> values;  ///< every flag's value, defaults included

    /** The value of an example flag of kind Number (its default when not given). */
    [[nodiscard]] long long number(const std::string& name) const;
    /** The value of a Text or Choice flag (its default when not given). */
    [[nodiscard]] const std::string& text(const std::string& name) const;
};

/** Parses argv against the common flags and spec.flags. --help prints every flag with its
 *  meaning and default and exits 0; an unknown flag, a flag this example does not take, a
 *  malformed or out-of-range value prints why and exits 2. */
ExampleOptions parseOptions(int argc, char** argv, const ExampleSpec& spec);

/** What the example does each frame: move things, then (optionally) draw extra on top. */
struct FrameCallbacks {
    /** Before rendering: frame index from 0, seconds since start. */
    std::function<void(int frame, double seconds)> update;
    /** After Renderer::render, with the target's framebuffer bound: extra low-level drawing.
     *  Returns the draws it made, added to the frame's printed statistics. */
    std::function<gl::FrameStats(std::uint32_t framebuffer, std::uint32_t width, std::uint32_t height)> after;
};

class ExampleRunner {
public:
    /** Opens the window (or headless context) and creates the Renderer. */
    ExampleRunner(const ExampleOptions& options, const ExampleSpec& spec);
    ~ExampleRunner();

    /** Drives @p camera from the mouse and keys in a window (orbit: left drag + scroll; fly:
     *  right drag + WASD/QE); headless it plays the controller's automatic motion only. Also
     *  keeps the camera's aspect ratio in step with the window. The controller must outlive run(). */
    void setCameraController(CameraController* controller);
    /** Calls @p action when @p character is typed in the window (GLFW's character callback, so
     *  '+' works on any layout). Headless: never called. */
    void bindKey(char32_t character, std::function<void()> action);
    /** Calls @p action when the left mouse button is pressed and released in the window with
     *  the cursor moved at most 3 screen units in between (a longer drag orbits the camera
     *  instead). @p action receives the release point in framebuffer pixels, x right and y down
     *  from the top-left corner (as in the written image; scaled from screen units on high-DPI
     *  screens), and the framebuffer's width and height in pixels. Headless: never called. */
    void onClick(std::function<void(double x, double y, std::uint32_t width, std::uint32_t height)> action);

    /** Runs the frame loop, prints per-frame stats and the summary, writes --out (or says that
     *  nothing was written). A window with a zero-size framebuffer (minimised) is not drawn.
     *  @return the process exit code. */
    int run(Scene& scene, Camera& camera, const FrameCallbacks& callbacks);

    [[nodiscard]] float aspect() const noexcept;
    [[nodiscard]] gl::Renderer& renderer() noexcept;
    [[nodiscard]] bool windowed() const noexcept;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

/** Writes @p image as PNG or JPEG by the path's extension (.png, .jpg, .jpeg; any case).
 *  @throws InvalidArgument for any other extension. */
void writeImage(const Image& image, const std::string& path);

} // namespace myriad::examples
