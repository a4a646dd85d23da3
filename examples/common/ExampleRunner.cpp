#include "common/ExampleRunner.h"

#include "common/CameraController.h"

#include "myriad/egl/HeadlessContext.h"
#include "myriad/gl/Draw.h"
#include "myriad/gl/FrameStats.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/image/ImageIO.h"
#include "myriad/util/Error.h"

#ifdef MYRIAD_EXAMPLES_WITH_GLFW
#include "myriad/glfw/Window.h"
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <glm/geometric.hpp>
#endif

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace myriad::examples {
namespace {

std::string lower(std::string text) {
    for (char& c : text) {
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return text;
}

bool endsWith(const std::string& text, const std::string& suffix) {
    return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

enum class ImageFormat { Png, Jpeg, Unknown };

ImageFormat formatOf(const std::string& path) {
    const std::string name = lower(path);
    if (endsWith(name, ".png")) {
        return ImageFormat::Png;
    }
    if (endsWith(name, ".jpg") || endsWith(name, ".jpeg")) {
        return ImageFormat::Jpeg;
    }
    return ImageFormat::Unknown;
}

// The flags every example takes, in the order --help lists them.
std::vector<Flag> commonFlags(const ExampleSpec& spec) {
    return {
        {"--headless", "", "draw with EGL into an offscreen image, no window", "", FlagKind::Switch, {}, 0, 0},
        {"--frames", "N", "frames to draw, then exit; 0 = 30 headless, until closed in a window", "0",
         FlagKind::Number, {}, 0, 100'000'000},
        {"--out", "FILE", "write the last frame to FILE: .png, or .jpg/.jpeg (JPEG); without it nothing is "
         "written", "", FlagKind::Text, {}, 0, 0},
        {"--width", "W", "picture width in pixels (window: initial size)", std::to_string(spec.width),
         FlagKind::Number, {}, 1, 16384},
        {"--height", "H", "picture height in pixels", std::to_string(spec.height), FlagKind::Number, {}, 1, 16384},
        {"--no-vsync", "", "window: swap without waiting for the display (swap interval 0), to time frames",
         "", FlagKind::Switch, {}, 0, 0},
        {"--quiet", "", "print only the summary, not a line per frame", "", FlagKind::Switch, {}, 0, 0},
        {"--help", "", "print this and exit", "", FlagKind::Switch, {}, 0, 0},
    };
}

void printHelp(const ExampleSpec& spec, const std::vector<Flag>& flags) {
    std::printf("%s: %s\n\nusage: %s [flags]\n\nflags:\n", spec.name.c_str(), spec.summary.c_str(),
                spec.name.c_str());
    for (const Flag& flag : flags) {
        std::string left = "  " + flag.name + (flag.valueName.empty() ? "" : " " + flag.valueName);
        std::string right = flag.meaning;
        if (flag.kind == FlagKind::Choice) {
            std::string list;
            for (const std::string& choice : flag.choices) {
                list += (list.empty() ? "" : ", ") + choice;
            }
            right += " (one of: " + list + ")";
        }
        if (flag.kind == FlagKind::Number && flag.name != "--frames") {
            right += " (" + std::to_string(flag.min) + " to " + std::to_string(flag.max) + ")";
        }
        if (flag.kind != FlagKind::Switch) {
            right += "; default: " + (flag.defaultValue.empty() ? std::string("none") : flag.defaultValue);
        }
        std::printf("%-20s %s\n", left.c_str(), right.c_str());
    }
    if (spec.cameraControls || !spec.controls.empty()) {
        std::printf("\ncontrols (in a window):\n  Escape: close\n");
        if (spec.cameraControls) {
            std::printf("  left mouse drag: orbit; scroll: zoom; right mouse drag: look around;\n"
                        "  W/A/S/D: fly forward/left/back/right, Q/E: down/up, Shift: faster\n");
        }
        for (const std::string& line : spec.controls) {
            std::printf("  %s\n", line.c_str());
        }
    }
    if (!spec.unavailable.empty()) {
        std::printf("\nnot available (myriad does not have these yet):\n");
        for (const std::string& line : spec.unavailable) {
            std::printf("  %s\n", line.c_str());
        }
    }
}

[[noreturn]] void refuse(const ExampleSpec& spec, const std::string& why) {
    std::fprintf(stderr, "%s: %s (see %s --help)\n", spec.name.c_str(), why.c_str(), spec.name.c_str());
    std::exit(2);
}

// Checks one value against its flag's kind; refuses (exit 2) with the reason.
void check(const ExampleSpec& spec, const Flag& flag, const std::string& value) {
    if (flag.kind == FlagKind::Number) {
        errno = 0;
        char* end = nullptr;
        const long long parsed = std::strtoll(value.c_str(), &end, 10);
        if (value.empty() || end == value.c_str() || *end != '\0') {
            refuse(spec, flag.name + ": '" + value + "' is not a whole number");
        }
        if (errno == ERANGE || parsed > flag.max) {
            refuse(spec, flag.name + ": " + value + " is more than this example allows (at most " +
                             std::to_string(flag.max) + ")");
        }
        if (parsed < flag.min) {
            refuse(spec, flag.name + ": " + value + " is less than " + std::to_string(flag.min));
        }
    } else if (flag.kind == FlagKind::Choice) {
        if (std::find(flag.choices.begin(), flag.choices.end(), value) == flag.choices.end()) {
            refuse(spec, flag.name + ": '" + value + "' is not one of the choices");
        }
    }
}

} // namespace

long long ExampleOptions::number(const std::string& name) const {
    return std::strtoll(text(name).c_str(), nullptr, 10);
}

const std::string& ExampleOptions::text(const std::string& name) const {
    const auto found = values.find(name);
    if (found == values.end()) {
        throw InvalidArgument("example flag " + name + " is not in this example's table");
    }
    return found->second;
}

ExampleOptions parseOptions(int argc, char** argv, const ExampleSpec& spec) {
    std::vector<Flag> flags = commonFlags(spec);
    flags.insert(flags.end(), spec.flags.begin(), spec.flags.end());
    ExampleOptions options;
    for (const Flag& flag : flags) {
        options.values[flag.name] = flag.defaultValue;
    }
    for (int i = 1; i < argc; ++i) {
        const std::string name = argv[i];
        if (name == "--help" || name == "-h") {
            printHelp(spec, flags);
            std::exit(0);
        }
        const auto flag = std::find_if(flags.begin(), flags.end(), [&](const Flag& f) { return f.name == name; });
        if (flag == flags.end()) {
            refuse(spec, "'" + name + "' is not a flag of this example");
        }
        if (flag->kind == FlagKind::Switch) {
            options.values[name] = "on";
            continue;
        }
        if (i + 1 >= argc) {
            refuse(spec, name + " needs a value (" + flag->valueName + ")");
        }
        const std::string value = argv[++i];
        check(spec, *flag, value);
        options.values[name] = value;
    }
    options.headless = options.values["--headless"] == "on";
    options.quiet = options.values["--quiet"] == "on";
    options.vsync = options.values["--no-vsync"] != "on";
    options.frames = static_cast<int>(options.number("--frames"));
    options.width = static_cast<std::uint32_t>(options.number("--width"));
    options.height = static_cast<std::uint32_t>(options.number("--height"));
    options.out = options.values["--out"];
    if (!options.out.empty() && formatOf(options.out) == ImageFormat::Unknown) {
        refuse(spec, "--out " + options.out + ": the name must end in .png, .jpg or .jpeg");
    }
    if (options.headless && options.frames == 0) {
        options.frames = 30;
    }
    return options;
}

void writeImage(const Image& image, const std::string& path) {
    switch (formatOf(path)) {
    case ImageFormat::Png: image::writePng(image, path); return;
    case ImageFormat::Jpeg: image::writeJpeg(image, path); return;
    case ImageFormat::Unknown: break;
    }
    throw InvalidArgument("examples::writeImage: '" + path + "' ends in neither .png nor .jpg/.jpeg");
}

struct ExampleRunner::Impl {
    ExampleOptions options;
    std::string title;
    std::unique_ptr<egl::HeadlessContext> headless;
#ifdef MYRIAD_EXAMPLES_WITH_GLFW
    std::unique_ptr<glfw::Window> window;
#endif
    std::unique_ptr<gl::OffscreenTarget> target;
    std::unique_ptr<gl::Renderer> renderer;
    CameraController* controller = nullptr;
    std::vector<std::pair<char32_t, std::function<void()>>> keys;
    std::function<void(double, double, std::uint32_t, std::uint32_t)> click;
};

ExampleRunner::ExampleRunner(const ExampleOptions& options, const ExampleSpec& spec)
    : m_impl(std::make_unique<Impl>()) {
    m_impl->options = options;
    m_impl->title = spec.name;
    if (options.headless) {
        m_impl->headless = std::make_unique<egl::HeadlessContext>();
        std::printf("%s: headless, %s platform, %s\n", spec.name.c_str(),
                    m_impl->headless->platform().c_str(), m_impl->headless->description().c_str());
        m_impl->target = std::make_unique<gl::OffscreenTarget>(options.width, options.height,
                                                               spec.name + ".target");
    } else {
#ifdef MYRIAD_EXAMPLES_WITH_GLFW
        m_impl->window = std::make_unique<glfw::Window>(glfw::WindowDesc{
            .width = options.width, .height = options.height, .title = spec.name, .vsync = options.vsync});
        if (!options.quiet && (spec.cameraControls || !spec.controls.empty())) {
            std::printf("%s: controls are listed by --help; Escape closes\n", spec.name.c_str());
        }
#else
        throw GlError("built without GLFW: run with --headless");
#endif
    }
    m_impl->renderer = std::make_unique<gl::Renderer>();
}

ExampleRunner::~ExampleRunner() = default;

float ExampleRunner::aspect() const noexcept {
    return static_cast<float>(m_impl->options.width) / static_cast<float>(m_impl->options.height);
}

gl::Renderer& ExampleRunner::renderer() noexcept { return *m_impl->renderer; }

bool ExampleRunner::windowed() const noexcept { return !m_impl->options.headless; }

void ExampleRunner::setCameraController(CameraController* controller) { m_impl->controller = controller; }

void ExampleRunner::bindKey(char32_t character, std::function<void()> action) {
    m_impl->keys.emplace_back(character, std::move(action));
}

void ExampleRunner::onClick(std::function<void(double, double, std::uint32_t, std::uint32_t)> action) {
    m_impl->click = std::move(action);
}

int ExampleRunner::run(Scene& scene, Camera& camera, const FrameCallbacks& callbacks) {
    Impl& impl = *m_impl;
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    std::vector<double> frameMs;
    gl::FrameStats last;
    std::uint64_t totalUploaded = 0;
    std::uint32_t width = impl.options.width;
    std::uint32_t height = impl.options.height;
    bool written = false;
    auto frameStart = Clock::now();

#ifdef MYRIAD_EXAMPLES_WITH_GLFW
    auto titleUpdated = start;
    std::size_t titleFrames = 0;
    double titleMs = 0.0;
    if (impl.window) {
        glfw::Window& window = *impl.window;
        window.setCharCallback([&impl](char32_t c) {
            for (auto& [character, action] : impl.keys) {
                if (character == c) {
                    action();
                }
            }
        });
        if (impl.controller != nullptr || impl.click) {
            // A left press and release close together is a click (impl.click); the controller
            // sees every button event, so a drag still orbits.
            window.setMouseButtonCallback([&impl, &window, pressedAt = glm::dvec2(0.0)](
                                              const glfw::MouseButtonEvent& e) mutable {
                if (impl.controller != nullptr) {
                    impl.controller->mouseButton(e.button, e.action == glfw::KeyAction::Press);
                }
                if (e.button != GLFW_MOUSE_BUTTON_LEFT || !impl.click) {
                    return;
                }
                if (e.action == glfw::KeyAction::Press) {
                    pressedAt = e.cursor;
                } else if (e.action == glfw::KeyAction::Release && glm::length(e.cursor - pressedAt) <= 3.0) {
                    const std::uint32_t fbWidth = window.framebufferWidth();
                    const std::uint32_t fbHeight = window.framebufferHeight();
                    const std::uint32_t winWidth = window.windowWidth();
                    const std::uint32_t winHeight = window.windowHeight();
                    if (fbWidth == 0 || fbHeight == 0 || winWidth == 0 || winHeight == 0) {
                        return;  // minimised: nothing drawn to click on
                    }
                    impl.click(e.cursor.x * fbWidth / winWidth, e.cursor.y * fbHeight / winHeight, fbWidth,
                               fbHeight);
                }
            });
        }
        if (impl.controller != nullptr) {
            CameraController& controller = *impl.controller;
            window.setCursorPositionCallback([&controller](glm::dvec2 p) { controller.cursorMoved(p.x, p.y); });
            window.setScrollCallback([&controller](glm::dvec2 offset) { controller.scrolled(offset.y); });
            window.setKeyCallback([&controller](const glfw::KeyEvent& e) {
                if (e.action == glfw::KeyAction::Repeat) {
                    return;
                }
                const bool down = e.action == glfw::KeyAction::Press;
                if (e.key == GLFW_KEY_LEFT_SHIFT || e.key == GLFW_KEY_RIGHT_SHIFT) {
                    controller.key(0, down);
                } else if (e.key >= GLFW_KEY_A && e.key <= GLFW_KEY_Z) {
                    controller.key(static_cast<char>(e.key), down);  // GLFW_KEY_A == 'A'
                }
            });
        }
    }
#endif

    int frame = 0;
    while (impl.options.frames == 0 || frame < impl.options.frames) {
#ifdef MYRIAD_EXAMPLES_WITH_GLFW
        if (impl.window) {
            impl.window->pollEvents();
            if (impl.window->shouldClose()) {
                break;
            }
            width = impl.window->framebufferWidth();
            height = impl.window->framebufferHeight();
            if (width == 0 || height == 0) {
                // Minimised: nothing to draw into. Sleep until something happens instead of
                // spinning; the frame does not count towards --frames.
                impl.window->waitEvents(0.25);
                frameStart = Clock::now();
                continue;
            }
        }
#endif
        const auto now = Clock::now();
        // Headless motion is per frame (1/30 s), so the written picture does not depend on speed.
        const double dt = impl.options.headless ? 1.0 / 30.0 : std::chrono::duration<double>(now - frameStart).count();
        frameStart = now;
        if (callbacks.update) {
            callbacks.update(frame, std::chrono::duration<double>(now - start).count());
        }
        if (impl.controller != nullptr) {
            impl.controller->update(dt, static_cast<float>(width) / static_cast<float>(height));
        }
        std::uint32_t framebuffer = 0;
        if (impl.target) {
            impl.renderer->render(scene, camera, *impl.target);
            framebuffer = impl.target->framebufferId();
        } else {
            impl.renderer->render(scene, camera, width, height);
        }
        last = impl.renderer->lastFrameStats();
        if (callbacks.after) {
            gl::bindDrawTarget(framebuffer, 0, 0, width, height);
            const gl::FrameStats extra = callbacks.after(framebuffer, width, height);
            gl::bindDrawTarget(0, 0, 0, width, height);
            last.drawCalls += extra.drawCalls;
            last.instances += extra.instances;
            last.particles += extra.particles;
            last.triangles += extra.triangles;
            last.bytesUploaded += extra.bytesUploaded;
        }
        gl::finish();  // so the time below includes the GPU's (llvmpipe's) work
        const double ms = std::chrono::duration<double, std::milli>(Clock::now() - now).count();
        frameMs.push_back(ms);
        totalUploaded += last.bytesUploaded;
        if (!impl.options.quiet) {
            // Particles are not in FrameStats::instances: printed apart.
            std::printf("frame %4d: %6.2f ms, %u draw calls, %llu instances, %llu particles, %llu triangles, "
                        "%llu bytes uploaded\n",
                        frame, ms, last.drawCalls, static_cast<unsigned long long>(last.instances),
                        static_cast<unsigned long long>(last.particles),
                        static_cast<unsigned long long>(last.triangles),
                        static_cast<unsigned long long>(last.bytesUploaded));
        }
#ifdef MYRIAD_EXAMPLES_WITH_GLFW
        if (impl.window) {
            // Live stats in the title, four times a second (every frame would flicker and cost).
            ++titleFrames;
            titleMs += ms;
            const auto sinceTitle = std::chrono::duration<double>(Clock::now() - titleUpdated).count();
            if (sinceTitle >= 0.25) {
                char text[256];
                std::snprintf(text, sizeof text, "%s | %u draw calls, %llu instances, %.2f ms/frame, %.0f fps",
                              impl.title.c_str(), last.drawCalls, static_cast<unsigned long long>(last.instances),
                              titleMs / static_cast<double>(titleFrames),
                              static_cast<double>(titleFrames) / sinceTitle);
                impl.window->setTitle(text);
                titleUpdated = Clock::now();
                titleFrames = 0;
                titleMs = 0.0;
            }
            const bool lastFrame = impl.options.frames != 0 && frame + 1 == impl.options.frames;
            if (lastFrame && !impl.options.out.empty()) {
                writeImage(gl::readDefaultFramebuffer(width, height), impl.options.out);
                written = true;
            }
            impl.window->swapBuffers();
        }
#endif
        ++frame;
    }
#ifdef MYRIAD_EXAMPLES_WITH_GLFW
    if (impl.window) {
        // The callbacks point at the controller and the key actions, which may die before the
        // window does: nothing may call them after run().
        impl.window->setCharCallback({});
        impl.window->setMouseButtonCallback({});
        impl.window->setCursorPositionCallback({});
        impl.window->setScrollCallback({});
        impl.window->setKeyCallback({});
    }
    // Closed before --frames ran out (or --frames 0): draw the picture once more to keep it.
    if (impl.window && !written && !impl.options.out.empty() && !frameMs.empty() && width > 0 && height > 0) {
        impl.renderer->render(scene, camera, width, height);
        writeImage(gl::readDefaultFramebuffer(width, height), impl.options.out);
        written = true;
    }
#endif
    if (impl.target && !impl.options.out.empty()) {
        writeImage(impl.target->readPixels(), impl.options.out);
        written = true;
    }
    if (frameMs.empty()) {
        std::printf("no frame was drawn\n");
    } else {
        std::vector<double> sorted = frameMs;
        std::sort(sorted.begin(), sorted.end());
        double sum = 0.0;
        for (double ms : frameMs) {
            sum += ms;
        }
        const std::size_t p95 = std::min(sorted.size() - 1, (sorted.size() * 95 + 99) / 100 - 1);
        std::printf("summary: %zu frames at %ux%u, %u draw calls, %llu instances, %llu particles, %llu "
                    "triangles per frame; %.2f ms mean, %.2f ms p95 per frame; %llu bytes uploaded in all\n",
                    frameMs.size(), width, height, last.drawCalls,
                    static_cast<unsigned long long>(last.instances),
                    static_cast<unsigned long long>(last.particles),
                    static_cast<unsigned long long>(last.triangles), sum / static_cast<double>(frameMs.size()),
                    sorted[p95], static_cast<unsigned long long>(totalUploaded));
        // Every counter and phase time of the renderer's last frame (gl::to_string, one line).
        std::printf("last frame: %s\n", gl::to_string(impl.renderer->lastFrameStats()).c_str());
    }
    if (written) {
        std::printf("wrote %s\n", impl.options.out.c_str());
    } else {
        std::printf("no image written (give --out FILE.png or FILE.jpg to keep the last frame)\n");
    }
    return 0;
}

} // namespace myriad::examples
