// Issue 13's visibility benchmarks, printed as a table (never a test): CPU per-instance culling
// throughput per core (target >= 100 million instances per second), a frame at 1M instances with
// about 10% in view, culling off, on the CPU and on the GPU (llvmpipe or whatever GL the machine
// has), the back-to-front sort of 100k blended instances, per-instance LOD selection (three
// levels with hysteresis) over 1M instances, and a LOD frame at 1M with CPU and with GPU culling.
//   myriad_visibility_bench [report-file]
#include "BenchSupport.h"

#include "myriad/core/InstanceCulling.h"
#include "myriad/core/InstanceManager.h"
#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Lod.h"
#include "myriad/core/MeshNode.h"
#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/egl/HeadlessContext.h"
#include "myriad/gl/Draw.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/Renderer.h"

#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/quaternion.hpp>

#include <array>
#include <cstring>
#include <cstdio>
#include <limits>
#include <memory>
#include <vector>

using namespace myriad;
using namespace myriad::bench;

namespace {

/** 1M unit cubes on a 1000 x 1000 grid (spacing 2, XZ plane); a camera over one tenth of it. */
std::unique_ptr<InstancedMeshNode> bigGrid(std::size_t n, std::size_t side) {
    auto batch = std::make_unique<InstancedMeshNode>(MeshGeometry::create(shapes::box(1.0f)), Material{}, n, "grid");
    for (std::size_t i = 0; i < n; ++i) {
        batch->addInstance(glm::translate(glm::mat4(1.0f), gridPosition(i, side)));
    }
    return batch;
}

/** Planes of x in [0, 0.1 * extent] over the whole grid: about 10% of the instances. */
FrustumPlanes tenthPlanes(float extent) {
    return {glm::vec4(1, 0, 0, 0), glm::vec4(-1, 0, 0, 0.1f * extent), glm::vec4(0, 1, 0, 10),
            glm::vec4(0, -1, 0, 10), glm::vec4(0, 0, 1, 0), glm::vec4(0, 0, -1, extent)};
}

/** The six planes of @p clipFromWorld (Gribb and Hartmann; GL's -1..1 clip depth), normalised. */
FrustumPlanes planesOf(const glm::mat4& m) {
    const glm::vec4 row0(m[0][0], m[1][0], m[2][0], m[3][0]);
    const glm::vec4 row1(m[0][1], m[1][1], m[2][1], m[3][1]);
    const glm::vec4 row2(m[0][2], m[1][2], m[2][2], m[3][2]);
    const glm::vec4 row3(m[0][3], m[1][3], m[2][3], m[3][3]);
    FrustumPlanes planes{row3 + row0, row3 - row0, row3 + row1, row3 - row1, row3 + row2, row3 - row2};
    for (glm::vec4& plane : planes) {
        plane /= glm::length(glm::vec3(plane));
    }
    return planes;
}

/** Medians of five frames after one warm-up (lists, programs, buffers), ms: the renderer's
 *  cull, submit and whole-frame times, and the wall time with glFinish, so the GPU's work (the
 *  vertex shading, and the cull dispatch for InstanceCulling::Gpu) is in it. */
struct FrameTimes {
    double cull = 0.0, submit = 0.0, frame = 0.0, wall = 0.0;
};
FrameTimes timeFrames(gl::Renderer& renderer, const Scene& scene, const Camera& camera,
                      const gl::OffscreenTarget& target) {
    renderer.render(scene, camera, target);
    gl::finish();
    std::vector<double> cull, submit, frame, wall;
    for (int run = 0; run < 5; ++run) {
        const auto start = Clock::now();
        renderer.render(scene, camera, target);
        gl::finish();
        wall.push_back(millisecondsSince(start));
        cull.push_back(renderer.lastFrameStats().cullMs);
        submit.push_back(renderer.lastFrameStats().submitMs);
        frame.push_back(renderer.lastFrameStats().frameMs);
    }
    return {median(cull), median(submit), median(frame), median(wall)};
}

/** Shadows (docs/shadows.md): a frame of 100k lit boxes on a ground with the light's shadow
 *  map off and on, glFinish included (readPixels waits), so the shadow view's cost is read
 *  against the main view's. Per-instance culling off (every instance drawn into the map) and
 *  CPU (only those in the light's box). */
void shadowRows(Report& report) {
    constexpr std::size_t kCount = 100'000;
    const std::size_t side = gridSide(kCount);
    const float extent = static_cast<float>(side) * 2.0f;
    egl::HeadlessContext context;
    gl::Renderer renderer;
    gl::OffscreenTarget target(512, 512);
    Scene scene;
    scene.light.direction = glm::vec3(-0.4f, -1.0f, -0.3f);
    scene.light.shadow.distance = 60.0f;
    auto& ground = scene.root().emplace<MeshNode>(MeshGeometry::create(shapes::quad(extent, extent)), Material{}, "ground");
    ground.setRotation(glm::angleAxis(glm::radians(-90.0f), glm::vec3(1.0f, 0.0f, 0.0f)));
    ground.setPosition(glm::dvec3(extent * 0.5, -0.5, extent * 0.5));
    auto& grid = scene.root().emplace<InstancedMeshNode>(MeshGeometry::create(shapes::box(1.0f)), Material{}, kCount);
    for (std::size_t i = 0; i < kCount; ++i) {
        grid.addInstance(glm::translate(glm::mat4(1.0f), gridPosition(i, side)));
    }
    Camera camera;
    camera.setPerspective(glm::radians(60.0f), 1.0f, 0.5f, extent * 2.0f);
    camera.lookAt(glm::dvec3(extent * 0.3, 20.0, extent * 0.3), glm::dvec3(extent * 0.5, 0.0, extent * 0.5));
    struct Setup {
        InstanceCulling culling;
        std::uint32_t mapSize;
        std::uint32_t filterRadius;
        std::uint32_t cascades;
    };
    for (const Setup setup : {Setup{InstanceCulling::Off, 2048, 1, 1}, Setup{InstanceCulling::Cpu, 2048, 1, 1},
                              Setup{InstanceCulling::Cpu, 1024, 0, 1}, Setup{InstanceCulling::Cpu, 1024, 1, 3}}) {
        grid.setInstanceCulling(setup.culling);
        scene.light.shadow.mapSize = setup.mapSize;
        scene.light.shadow.filterRadius = setup.filterRadius;
        scene.light.shadow.cascades = setup.cascades;
        double frameMs[2] = {};
        std::uint64_t shadowInstances = 0;
        for (const bool shadows : {false, true}) {
            scene.light.shadow.enabled = shadows;
            std::vector<double> times;
            for (int run = 0; run < 6; ++run) {
                const auto start = Clock::now();
                renderer.render(scene, camera, target);
                (void)target.readPixels();  // waits for the GPU: the time includes both views' draws
                if (run > 0) {              // the first frame compiles and uploads
                    times.push_back(millisecondsSince(start));
                }
            }
            frameMs[shadows ? 1 : 0] = median(times);
            shadowInstances = renderer.shadowMap().instances;
        }
        report.line("| frame at 100k lit boxes, 512^2, culling %s: no shadows / %u x %u^2 map, %u^2 PCF taps (render + readPixels) | "
                    "%.1f / %.1f ms: shadows add %.0f%% (shadow passes + receiving), %llu instances in the map | - |",
                    setup.culling == InstanceCulling::Off ? "off" : "CPU", setup.cascades, setup.mapSize,
                    2 * setup.filterRadius + 1,
                    frameMs[0], frameMs[1], 100.0 * (frameMs[1] - frameMs[0]) / frameMs[0],
                    static_cast<unsigned long long>(shadowInstances));
    }
}

} // namespace

int main(int argc, char** argv) {
    Report report(argc > 1 ? argv[1] : "");
    constexpr std::size_t kCount = 1'000'000;
    const std::size_t side = gridSide(kCount);
    const float extent = static_cast<float>(side) * 2.0f;
    auto batch = bigGrid(kCount, side);

    report.line("## Issue 13: per-instance visibility");
    report.blank();
    {
        const egl::HeadlessContext probe;  // the GL rows below run on this driver
        report.line("Driver: %s", driverLine(probe).c_str());
        report.blank();
    }
    report.line("| measure | value | target |");
    report.line("|---|---|---|");
    {
        InstanceSpheres spheres;
        auto start = Clock::now();
        spheres.update(*batch);
        const double buildMs = millisecondsSince(start);
        std::vector<std::uint32_t> visible;
        visible.reserve(kCount);
        std::vector<double> times;
        for (int run = 0; run < 30; ++run) {
            visible.clear();
            start = Clock::now();
            (void)cullInstanceSpheres(spheres, {0, kCount}, tenthPlanes(extent), visible);
            times.push_back(millisecondsSince(start));
        }
        const double ms = median(times);
        const double perSecond = static_cast<double>(kCount) / (ms / 1000.0);
        report.line("| CPU cull, 1M instances, one core | %.2f ms (%.0f M instances/s, %zu visible) | >= 100 M/s: %s |", ms,
                    perSecond / 1e6, visible.size(), verdict(perSecond >= 100e6));
        report.line("| sphere cache build, 1M instances (only after a full change) | %.1f ms | - |", buildMs);
        // Sort 100k.
        std::vector<std::uint32_t> order(100'000);
        std::vector<std::uint64_t> scratch;
        times.clear();
        for (int run = 0; run < 10; ++run) {
            for (std::size_t i = 0; i < order.size(); ++i) {
                order[i] = static_cast<std::uint32_t>(i * 7919 % order.size());
            }
            start = Clock::now();
            sortBackToFront(spheres, glm::normalize(glm::vec3(0.3f, -0.5f, -1.0f)), order, scratch);
            times.push_back(millisecondsSince(start));
        }
        report.line("| back-to-front sort, 100k blended instances | %.2f ms | - |", median(times));
        // LOD: every instance bucketed into three levels (switches at a third and two thirds of
        // the grid, 10 % bands) from an eye over one corner, levels held from the frame before.
        const LodChain chain{.levels = {{batch->mesh(), extent / 3.0f},
                                        {batch->mesh(), extent * 2.0f / 3.0f},
                                        {batch->mesh(), std::numeric_limits<float>::infinity()}},
                             .hysteresis = 0.1f};
        std::vector<std::uint32_t> all(kCount);
        for (std::size_t i = 0; i < kCount; ++i) {
            all[i] = static_cast<std::uint32_t>(i);
        }
        std::vector<std::uint8_t> held(kCount, kNoLodLevel);
        std::vector<std::vector<std::uint32_t>> levels(3);
        times.clear();
        for (int run = 0; run < 20; ++run) {
            // The eye drifts a little each frame, as a walking camera would.
            const glm::vec3 eye(-0.05f * static_cast<float>(run), -10.0f, 0.0f);
            start = Clock::now();
            selectLodLevels(chain, spheres, all, glm::mat3(1.0f), -eye, held, levels);
            times.push_back(millisecondsSince(start));
        }
        const double lodMs = median(times);
        report.line("| LOD selection, 1M instances, 3 levels, one core | %.2f ms (%.0f M instances/s; %zu / %zu / %zu) | - |",
                    lodMs, static_cast<double>(kCount) / (lodMs / 1000.0) / 1e6, levels[0].size(), levels[1].size(),
                    levels[2].size());
    }
    {
        egl::HeadlessContext context;
        gl::Renderer renderer;
        gl::OffscreenTarget target(256, 256);
        Scene scene;
        auto& grid = scene.root().emplace<InstancedMeshNode>(MeshGeometry::create(shapes::box(1.0f)), Material{}, kCount);
        for (std::size_t i = 0; i < kCount; ++i) {
            grid.addInstance(glm::translate(glm::mat4(1.0f), gridPosition(i, side)));
        }
        Camera camera;
        // Looking down at one corner: roughly a tenth of the grid.
        camera.setPerspective(glm::radians(60.0f), 1.0f, 0.5f, extent * 4.0f);
        camera.lookAt(glm::dvec3(extent * 0.15, extent * 0.25, extent * 0.15), glm::dvec3(extent * 0.15, 0.0, extent * 0.15 + 1.0));
        // Off, CPU and GPU culling of the same grid in one run, so the ratios mean something. The
        // wall time includes glFinish: the GPU's work (vertex shading, and the cull dispatch for
        // Gpu) is in it. Under llvmpipe the "GPU" is these same CPU cores.
        const char* names[] = {"off", "CPU", "GPU"};
        const InstanceCulling modes[] = {InstanceCulling::Off, InstanceCulling::Cpu, InstanceCulling::Gpu};
        for (std::size_t m = 0; m < 3; ++m) {
            grid.setInstanceCulling(modes[m]);
            const FrameTimes times = timeFrames(renderer, scene, camera, target);
            std::uint64_t drawn = renderer.lastFrameStats().instances;
            if (modes[m] == InstanceCulling::Gpu) {
                drawn = renderer.readGpuCulledInstances(grid, 0).value_or(std::vector<std::uint32_t>{}).size();
            }
            report.line("| frame at 1M instances, culling %s: cull / submit / render() / with glFinish | "
                        "%.2f / %.2f / %.2f / %.2f ms, %llu drawn | - |",
                        names[m], times.cull, times.submit, times.frame, times.wall,
                        static_cast<unsigned long long>(drawn));
        }
        // Issue 19: the culled variant reads one visible index and four record texels per vertex
        // (the indexed path). Against it, Ogre's cull and repack: the visible records copied
        // each frame into a streaming batch drawn as plain divisor-1 attributes. Emulated here
        // with the public API (the same CPU cull, then a copy of each visible record), so both
        // sides pay the same cull; the difference is the copy against the per-vertex fetches.
        {
            grid.setInstanceCulling(InstanceCulling::Off);
            Scene repacked;
            auto& compact = repacked.root().emplace<InstancedMeshNode>(
                grid.mesh(), Material{}, kCount, "repacked", InstancedMeshOptions{.uploadMode = UploadMode::Streaming});
            InstanceSpheres spheres;
            spheres.update(grid);
            std::vector<std::uint32_t> visible;
            visible.reserve(kCount);
            const FrustumPlanes planes = planesOf(camera.viewProjection());
            const std::span<const float> source = grid.instanceData();
            auto repack = [&] {
                visible.clear();
                (void)cullInstanceSpheres(spheres, {0, kCount}, planes, visible);
                compact.setCount(visible.size());
                float* out = compact.instanceData().data();
                for (std::size_t i = 0; i < visible.size(); ++i) {
                    std::memcpy(out + i * InstancedMeshNode::floatsPerInstance,
                                source.data() + std::size_t{visible[i]} * InstancedMeshNode::floatsPerInstance,
                                InstancedMeshNode::strideInBytes);
                }
                compact.markInstancesChanged();
            };
            std::vector<double> repackMs, wall;
            for (int run = 0; run < 6; ++run) {
                const auto start = Clock::now();
                repack();
                const double cpu = millisecondsSince(start);
                renderer.render(repacked, camera, target);
                gl::finish();
                if (run > 0) {  // the first frame makes the streaming buffer
                    repackMs.push_back(cpu);
                    wall.push_back(millisecondsSince(start));
                }
            }
            report.line("| frame at 1M instances, CPU cull + repack into a streaming batch (Ogre's way, emulated): "
                        "cull + copy / with glFinish | %.2f / %.2f ms, %zu drawn (compare the CPU culling row's "
                        "'with glFinish') | - |",
                        median(repackMs), median(wall), visible.size());
        }
        // LOD (three levels, switches at 0.3 and 0.45 of the grid's extent, 10 % bands; the eye is
        // 0.25 of it above the grid, so every level is drawn) with CPU culling and with GPU
        // culling, where the dispatch also picks the levels.
        const LodChain chain{.levels = {{grid.mesh(), extent * 0.3f},
                                        {MeshGeometry::create(shapes::box(0.5f)), extent * 0.45f},
                                        {MeshGeometry::create(shapes::box(0.25f)), std::numeric_limits<float>::infinity()}},
                             .hysteresis = 0.1f};
        grid.setLodChain(chain);
        for (std::size_t m = 1; m < 3; ++m) {
            grid.setInstanceCulling(modes[m]);
            const FrameTimes times = timeFrames(renderer, scene, camera, target);
            std::array<std::size_t, 3> perLevel{};
            for (std::size_t level = 0; level < 3; ++level) {
                perLevel[level] = modes[m] == InstanceCulling::Gpu
                                      ? renderer.readGpuCulledInstances(grid, 0, level).value_or(std::vector<std::uint32_t>{}).size()
                                      : static_cast<std::size_t>(renderer.lastFrameStats().lodInstances[level]);
            }
            report.line("| frame at 1M instances, LOD 3 levels + culling %s: cull / render() / with glFinish | "
                        "%.2f / %.2f / %.2f ms, %zu / %zu / %zu drawn per level | - |",
                        names[m], times.cull, times.frame, times.wall, perLevel[0], perLevel[1], perLevel[2]);
        }
        // The same grid through an InstanceManager (issue 25): batches of 4096 in cells of a
        // tenth of the grid, each batch culled as one box, no per-instance culling.
        Scene managed;
        auto& manager = managed.root().emplace<InstanceManager>(
            grid.mesh(), Material{},
            InstanceManagerOptions{.instancesPerBatch = 4096, .cellSize = extent * 0.1f}, "grid");
        for (std::size_t i = 0; i < kCount; ++i) {
            (void)manager.acquire({.transform = glm::translate(glm::mat4(1.0f), gridPosition(i, side))});
        }
        const FrameTimes times = timeFrames(renderer, managed, camera, target);
        report.line("| frame at 1M instances, InstanceManager (%zu batches of <= 4096 in cells of 0.1 extent), batch culling only: "
                    "cull / submit / render() / with glFinish | %.2f / %.2f / %.2f / %.2f ms, %llu drawn in %u draws | - |",
                    manager.batchCount(), times.cull, times.submit, times.frame, times.wall,
                    static_cast<unsigned long long>(renderer.lastFrameStats().instances), renderer.lastFrameStats().drawCalls);
    }
    shadowRows(report);
    return 0;
}
