// Issue 19's driver round trips, printed as a table (never a test): the GL queries a steady frame
// makes (nothing new to compile, nothing resized) in a scene with every feature on (shadows,
// particles, scatter, GPU culling, LOD, populations; tests/support/EveryFeatureScene.h), with one
// and two views, default state contract and preserveState. Every glGet* variant, glIsEnabled,
// glGetUniformLocation and glCheck*FramebufferStatus is counted through glad's pointers
// (tests/support/GlCallLog.h). Goal: 0 by default; with preserveState one snapshot per render().
//   myriad_round_trips_bench [report-file]
#include "BenchSupport.h"

#include "myriad/egl/HeadlessContext.h"
#include "support/EveryFeatureScene.h"

#include <cstdio>
#include <string>

using namespace myriad;
using namespace myriad::bench;

namespace {

struct Counts {
    double perFrame = 0.0;     ///< every hooked query
    double gets = 0.0;         ///< glGet* and glIsEnabled
    double locations = 0.0;    ///< glGetUniformLocation
    double framebuffer = 0.0;  ///< glCheck*FramebufferStatus
    std::size_t firstFrame = 0;
};

Counts measure(bool preserveState, bool twoViews, int steadyFrames) {
    gl::Renderer renderer({.preserveState = preserveState});
    test::EveryFeatureScene scene(renderer);
    auto frame = [&] { twoViews ? scene.render(renderer) : scene.renderOneView(renderer); };
    Counts counts;
    {
        test::GlCallLog log(test::GlCallLog::NoFunctions{});
        test::hookRoundTrips(log);
        frame();  // frame 1: compiles, allocates, labels
        counts.firstFrame = test::roundTrips(log);
        log.clear();
        for (int i = 0; i < steadyFrames; ++i) {
            frame();
        }
        for (const test::GlCall& call : log.calls()) {
            if (call.function == "glGetUniformLocation") {
                counts.locations += 1.0;
            } else if (call.function.find("FramebufferStatus") != std::string::npos) {
                counts.framebuffer += 1.0;
            } else if (call.function.rfind("glGet", 0) == 0 || call.function.rfind("glIsEnabled", 0) == 0) {
                counts.gets += 1.0;
            }
        }
        const auto n = static_cast<double>(steadyFrames);
        counts.perFrame = static_cast<double>(test::roundTrips(log)) / n;
        counts.gets /= n;
        counts.locations /= n;
        counts.framebuffer /= n;
    }
    return counts;
}

} // namespace

int main(int argc, char** argv) {
    egl::HeadlessContext context;
    Report report(argc > 1 ? argv[1] : "");
    report.line("# Driver round trips per steady frame (issue 19)");
    report.blank();
    report.line("Driver: %s. A scene with every feature on (shadows with their cascades, a morphing "
                "node, GPU culling, CPU and GPU LOD, a sorted blended batch with lanes, a sorted particle "
                "pool, scatter with wind, a population with lanes); frames 2-10 after a first frame that "
                "compiles and allocates. Counted: glGet*, glIsEnabled, glGetUniformLocation, "
                "glCheck*FramebufferStatus. Goal: 0 with the default state contract.",
                driverLine(context).c_str());
    report.blank();
    report.line("| state contract | views | round trips / steady frame | glGet* + glIsEnabled | glGetUniformLocation | framebuffer checks | first frame (all) |");
    report.line("|---|---:|---:|---:|---:|---:|---:|");
    for (const bool preserve : {false, true}) {
        for (const bool two : {false, true}) {
            const Counts c = measure(preserve, two, 9);
            report.line("| %s | %d | %.1f | %.1f | %.1f | %.1f | %zu |", preserve ? "preserveState" : "default",
                        two ? 2 : 1, c.perFrame, c.gets, c.locations, c.framebuffer, c.firstFrame);
        }
    }
    return 0;
}
