#include "common/ExampleRunner.h"

#include "myriad/egl/HeadlessContext.h"
#include "myriad/gl/Draw.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/image/ImageIO.h"
#include "myriad/util/Error.h"

#ifdef MYRIAD_EXAMPLES_WITH_GLFW
#include "myriad/glfw/Window.h"
#endif

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace myriad::examples {
namespace {

[[noreturn]] void usageAndExit(const char* program, const char* usage, int code) {
    std::fprintf(code == 0 ? stdout : stderr,
                 "usage: %s [--headless] [--frames N] [--out FILE.png] [--width W] [--height H] "
                 "[--quiet]%s\n",
                 program, usage);
    std::exit(code);
}

} // namespace

ExampleOptions parseOptions(int argc, char** argv, const char* usage, ExampleOptions defaults) {
    ExampleOptions options = defaults;
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "%s needs a value\n", flag.c_str());
                usageAndExit(argv[0], usage, 2);
            }
            return argv[++i];
        };
        auto number = [&]() -> long long {
            const std::string text = value();
            char* end = nullptr;
            const long long parsed = std::strtoll(text.c_str(), &end, 10);
            if (end == text.c_str() || *end != '\0' || parsed < 0) {
                std::fprintf(stderr, "%s: '%s' is not a non-negative number\n", flag.c_str(),
                             text.c_str());
                usageAndExit(argv[0], usage, 2);
            }
            return parsed;
        };
        if (flag == "--headless") {
            options.headless = true;
        } else if (flag == "--frames") {
            options.frames = static_cast<int>(number());
        } else if (flag == "--out" || flag == "--screenshot") {
            options.out = value();
        } else if (flag == "--width") {
            options.width = static_cast<std::uint32_t>(number());
        } else if (flag == "--height") {
            options.height = static_cast<std::uint32_t>(number());
        } else if (flag == "--count") {
            options.count = static_cast<std::size_t>(number());
        } else if (flag == "--model") {
            options.model = value();
        } else if (flag == "--mode") {
            options.mode = value();
        } else if (flag == "--quiet") {
            options.quiet = true;
        } else if (flag == "--help" || flag == "-h") {
            usageAndExit(argv[0], usage, 0);
        } else {
            std::fprintf(stderr, "unknown flag %s\n", flag.c_str());
            usageAndExit(argv[0], usage, 2);
        }
    }
    if (options.headless && options.frames == 0) {
        options.frames = 30;
    }
    if (options.width == 0 || options.height == 0) {
        std::fprintf(stderr, "--width and --height must be positive\n");
        usageAndExit(argv[0], usage, 2);
    }
    return options;
}

struct ExampleRunner::Impl {
    ExampleOptions options;
    std::unique_ptr<egl::HeadlessContext> headless;
#ifdef MYRIAD_EXAMPLES_WITH_GLFW
    std::unique_ptr<glfw::Window> window;
#endif
    std::unique_ptr<gl::OffscreenTarget> target;
    std::unique_ptr<gl::Renderer> renderer;
};

ExampleRunner::ExampleRunner(const ExampleOptions& options, const std::string& title)
    : m_impl(std::make_unique<Impl>()) {
    m_impl->options = options;
    if (options.headless) {
        m_impl->headless = std::make_unique<egl::HeadlessContext>();
        std::printf("%s: headless, %s platform, %s\n", title.c_str(),
                    m_impl->headless->platform().c_str(), m_impl->headless->description().c_str());
        m_impl->target = std::make_unique<gl::OffscreenTarget>(options.width, options.height,
                                                               title + ".target");
    } else {
#ifdef MYRIAD_EXAMPLES_WITH_GLFW
        m_impl->window = std::make_unique<glfw::Window>(
            glfw::WindowDesc{.width = options.width, .height = options.height, .title = title});
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

int ExampleRunner::run(Scene& scene, Camera& camera, const FrameCallbacks& callbacks) {
    Impl& impl = *m_impl;
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    std::vector<double> frameMs;
    gl::FrameStats last;
    std::uint64_t totalUploaded = 0;
    std::uint32_t width = impl.options.width;
    std::uint32_t height = impl.options.height;
    for (int frame = 0; impl.options.frames == 0 || frame < impl.options.frames; ++frame) {
#ifdef MYRIAD_EXAMPLES_WITH_GLFW
        if (impl.window) {
            impl.window->pollEvents();
            if (impl.window->shouldClose()) {
                break;
            }
            width = impl.window->framebufferWidth();
            height = impl.window->framebufferHeight();
            if (width == 0 || height == 0) {
                continue;  // minimised
            }
        }
#endif
        const auto frameStart = Clock::now();
        if (callbacks.update) {
            callbacks.update(frame, std::chrono::duration<double>(frameStart - start).count());
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
            callbacks.after(framebuffer, width, height);
            gl::bindDrawTarget(0, 0, 0, width, height);
        }
        gl::finish();  // so the time below includes the GPU's (llvmpipe's) work
        const double ms = std::chrono::duration<double, std::milli>(Clock::now() - frameStart).count();
        frameMs.push_back(ms);
        totalUploaded += last.bytesUploaded;
        if (!impl.options.quiet) {
            std::printf("frame %4d: %6.2f ms, %u draw calls, %llu instances, %llu triangles, "
                        "%llu bytes uploaded\n",
                        frame, ms, last.drawCalls, static_cast<unsigned long long>(last.instances),
                        static_cast<unsigned long long>(last.triangles),
                        static_cast<unsigned long long>(last.bytesUploaded));
        }
#ifdef MYRIAD_EXAMPLES_WITH_GLFW
        const bool lastFrame = impl.options.frames != 0 && frame + 1 == impl.options.frames;
        if (impl.window) {
            if (lastFrame && !impl.options.out.empty()) {
                image::writePng(gl::readDefaultFramebuffer(width, height), impl.options.out);
            }
            impl.window->swapBuffers();
        }
#endif
    }
    if (impl.target && !impl.options.out.empty()) {
        image::writePng(impl.target->readPixels(), impl.options.out);
    }
    if (frameMs.empty()) {
        std::printf("no frame was drawn\n");
        return 0;
    }
    std::vector<double> sorted = frameMs;
    std::sort(sorted.begin(), sorted.end());
    double sum = 0.0;
    for (double ms : frameMs) {
        sum += ms;
    }
    const std::size_t p95 = std::min(sorted.size() - 1, (sorted.size() * 95 + 99) / 100 - 1);
    std::printf("summary: %zu frames at %ux%u, %u draw calls, %llu instances, %llu triangles per "
                "frame; %.2f ms mean, %.2f ms p95 per frame; %llu bytes uploaded in all\n",
                frameMs.size(), width, height, last.drawCalls,
                static_cast<unsigned long long>(last.instances),
                static_cast<unsigned long long>(last.triangles), sum / static_cast<double>(frameMs.size()),
                sorted[p95], static_cast<unsigned long long>(totalUploaded));
    if (!impl.options.out.empty()) {
        std::printf("wrote %s\n", impl.options.out.c_str());
    }
    return 0;
}

} // namespace myriad::examples
