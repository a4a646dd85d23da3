// Driver round trips in a steady frame (nothing new to compile, nothing resized): none. Every
// glGet* variant, glIsEnabled, glGetUniformLocation and glCheck*FramebufferStatus is logged
// over frames 2 to 10 of a scene with every feature on (tests/support/EveryFeatureScene.h) and
// two views: the current-context check reads GL's version once per context, the documented
// exit state is known without reading it, uniform locations are looked up when a program is
// made and limits when the renderer is. With preserveState the caller's state is read once per
// render(), whatever the number of views and draws.
#include "support/EveryFeatureScene.h"
#include "support/GlTest.h"

using namespace myriad;
using namespace myriad::test;

TEST_CASE("a steady frame with every feature on makes no glGet, glGetUniformLocation or framebuffer check", "[state][steady]") {
    INFO("GL: " << context().description());
    gl::Renderer renderer;
    EveryFeatureScene scene(renderer);
    scene.render(renderer);  // frame 1: compiles, allocates, labels
    const std::size_t programs = renderer.programCount();
    GlCallLog log(GlCallLog::NoFunctions{});
    hookRoundTrips(log);
    for (int frame = 2; frame <= 10; ++frame) {
        scene.render(renderer);
    }
    INFO(log.dump(40));
    CHECK(renderer.programCount() == programs);  // steady: nothing new was compiled
    CHECK(roundTrips(log) == 0);
    const gl::FrameStats& stats = renderer.lastFrameStats();
    CHECK(renderer.shadowMap().cascadeCount > 0);
    CHECK(stats.views == 2 + renderer.shadowMap().cascadeCount);
    CHECK(stats.particles > 0);
    CHECK(stats.instancesGpuCulled > 0);
    // The streaming pool wrote a part (two planes: it has curves) and its sorted orders (two
    // views) in every one of those frames: the fenced path makes no query either.
    const std::uint64_t live = scene.streamingPool->count();
    CHECK(stats.bytesStreamed == live * 32 + 2 * live * 4);
}

TEST_CASE("with preserveState the caller's state is read once per render(), not per view or draw", "[state][steady]") {
    INFO("GL: " << context().description());
    gl::Renderer renderer({.preserveState = true});
    EveryFeatureScene scene(renderer);
    scene.render(renderer);
    scene.renderOneView(renderer);
    GlCallLog log(GlCallLog::NoFunctions{});
    hookRoundTrips(log);
    scene.renderOneView(renderer);
    const std::size_t oneView = roundTrips(log);
    log.clear();
    scene.render(renderer);
    const std::size_t twoViews = roundTrips(log);
    log.clear();
    scene.render(renderer);
    scene.render(renderer);
    const std::size_t twoFrames = roundTrips(log);
    INFO(log.dump(20));
    CHECK(oneView > 0);  // the snapshot is read
    CHECK(twoViews == oneView);
    CHECK(twoFrames == 2 * oneView);
}
