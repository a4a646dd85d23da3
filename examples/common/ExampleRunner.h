#pragma once
// The frame loop every example shares: options, a window or a headless context, the Renderer,
// per-frame statistics, and the PNG at the end.
#include "myriad/core/Camera.h"
#include "myriad/core/Scene.h"
#include "myriad/gl/FrameStats.h"
#include "myriad/gl/Renderer.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace myriad::examples {

struct ExampleOptions {
    bool headless = false;        ///< --headless: EGL, no window
    int frames = 0;               ///< --frames N: stop after N frames; 0 = until closed (30 headless)
    std::string out;              ///< --out FILE.png (or --screenshot): last frame written there
    std::uint32_t width = 1280;   ///< --width
    std::uint32_t height = 720;   ///< --height
    std::size_t count = 0;        ///< --count N: example-specific
    std::string model;            ///< --model PATH: example-specific
    std::string mode;             ///< --mode NAME: example-specific
    bool quiet = false;           ///< --quiet: only the summary
};

/** Parses the common flags; prints usage and exits on --help or a malformed flag. */
ExampleOptions parseOptions(int argc, char** argv, const char* usage, ExampleOptions defaults = {});

/** What the example does each frame: move things, then (optionally) draw extra on top. */
struct FrameCallbacks {
    /** Before rendering: frame index from 0, seconds since start. */
    std::function<void(int frame, double seconds)> update;
    /** After Renderer::render, with the target's framebuffer bound: extra low-level drawing. */
    std::function<void(std::uint32_t framebuffer, std::uint32_t width, std::uint32_t height)> after;
};

class ExampleRunner {
public:
    /** Opens the window (or headless context) and creates the Renderer. */
    ExampleRunner(const ExampleOptions& options, const std::string& title);
    ~ExampleRunner();

    /** Runs the frame loop, prints per-frame stats and the summary, writes --out.
     *  @return the process exit code. */
    int run(Scene& scene, Camera& camera, const FrameCallbacks& callbacks);

    [[nodiscard]] float aspect() const noexcept;
    [[nodiscard]] gl::Renderer& renderer() noexcept;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace myriad::examples
