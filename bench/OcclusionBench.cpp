// Issue 22's occlusion benchmark (docs/visibility.md, docs/performance.md): 100,000 instanced
// props spread over a city of box buildings, seen from street level looking down one street,
// the camera walking a little each frame. Each row draws the same frames with one culling
// set-up: frustum only or frustum + occlusion, per-instance culling on the GPU (Hi-Z, two
// phases) or on the CPU (the software occlusion buffer). It prints the instances drawn, the
// instances culled by the frustum and by occlusion apart, and the frame's cost.
//   myriad_occlusion_bench [--props N] [--frames F] [--out FILE.md]
#include "BenchSupport.h"

#include "myriad/core/Camera.h"
#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/MeshNode.h"
#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/egl/HeadlessContext.h"
#include "myriad/gl/Draw.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/Renderer.h"
#include "myriad/gl/View.h"
#include "myriad/util/Error.h"

#include <glm/gtc/matrix_transform.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

using namespace myriad;
using namespace myriad::bench;

namespace {

constexpr std::uint32_t kTargetWidth = 512;
constexpr std::uint32_t kTargetHeight = 256;
constexpr int kDistricts = 5;          // 5 x 5 batches of props, one per district
constexpr float kBlock = 30.0f;        // a city block's side, metres
constexpr float kStreet = 12.0f;       // street width, metres
constexpr int kBlocks = 16;            // blocks per side of the city
constexpr float kPitch = kBlock + kStreet;
constexpr float kCity = kBlocks * kPitch;  // the city's side, metres


/** Is (x, z) inside a building's footprint (blocks are solid buildings)? */
bool insideBuilding(float x, float z) {
    const float fx = std::fmod(x + 0.5f * kCity, kPitch);
    const float fz = std::fmod(z + 0.5f * kCity, kPitch);
    return fx > kStreet && fz > kStreet;
}

struct Row {
    const char* name;
    InstanceCulling culling;
    bool occlusion;
};

struct Result {
    double frameMs = 0.0;   ///< render(), median
    double myriadMs = 0.0;  ///< FrameStats::myriadMs(), median
    double wallMs = 0.0;    ///< render() + glFinish, median: llvmpipe's vertex and fragment work included
    double occlusionMs = 0.0;
    std::uint64_t drawn = 0;             ///< instances drawn in the last frame (GPU: the GPU's count, a frame late)
    std::uint64_t frustumCulled = 0;     ///< instances culled by the frustum in the last counted frame
    std::uint64_t occlusionCulled = 0;   ///< instances culled by occlusion in the last counted frame
};

CountFramesOut parse(int argc, char** argv) {
    return parseCountFramesOut(argc, argv, "--props", {.count = 100000, .frames = 10, .out = {}},
                               "usage: myriad_occlusion_bench [--props N] [--frames F] [--out FILE.md]\n"
                               "  --props   instanced props spread over the city (default 100000)\n"
                               "  --frames  timed frames per row, after 3 warm-up frames (default 10)\n"
                               "  --out     also write the report to this Markdown file (default none)\n");
}

} // namespace

int main(int argc, char** argv) try {
    const CountFramesOut options = parse(argc, argv);
    egl::HeadlessContext context;
    Report report(options.out);
    report.line("# Occlusion culling: %zu props in a street of buildings (issue 22)", options.count);
    report.blank();
    report.line("GL: %s. Target %ux%u; a city of %dx%d blocks (%.0f m each, streets %.0f m), every block one box "
                "building 12-40 m tall; props (spheres of 0.4 m, 112 triangles) on the streets in %d batches; the camera "
                "1.7 m above one street, walking 0.5 m a frame. Medians of %d frames after 3 warm-up frames.",
                driverLine(context).c_str(), kTargetWidth, kTargetHeight, kBlocks, kBlocks,
                static_cast<double>(kBlock), static_cast<double>(kStreet), kDistricts * kDistricts, options.frames);
    report.blank();

    Scene scene;
    scene.root().emplace<MeshNode>(MeshGeometry::create(shapes::plane(kCity, kCity)), Material{}, "ground");
    const auto buildingMesh = MeshGeometry::create(shapes::box(1.0f));
    for (int bx = 0; bx < kBlocks; ++bx) {
        for (int bz = 0; bz < kBlocks; ++bz) {
            const float height = 12.0f + 28.0f * hash01(static_cast<std::uint32_t>(bx * 131 + bz * 7919));
            const float x = -0.5f * kCity + static_cast<float>(bx) * kPitch + kStreet + 0.5f * kBlock;
            const float z = -0.5f * kCity + static_cast<float>(bz) * kPitch + kStreet + 0.5f * kBlock;
            auto& building = scene.root().emplace<MeshNode>(buildingMesh, Material{}, "building");
            building.setLocalMatrix(glm::scale(glm::translate(glm::mat4(1.0f), glm::vec3(x, 0.5f * height, z)),
                                               glm::vec3(kBlock, height, kBlock)));
        }
    }
    const auto propMesh = MeshGeometry::create(shapes::uvSphere(0.4f, 8, 7));
    std::vector<InstancedMeshNode*> batches;
    const std::size_t perBatch = (options.count + kDistricts * kDistricts - 1) / (kDistricts * kDistricts);
    for (int d = 0; d < kDistricts * kDistricts; ++d) {
        batches.push_back(&scene.root().emplace<InstancedMeshNode>(propMesh, Material{}, perBatch, "props"));
    }
    std::size_t placed = 0;
    for (std::uint32_t seed = 0; placed < options.count; ++seed) {
        const float x = (hash01(2 * seed) - 0.5f) * kCity;
        const float z = (hash01(2 * seed + 1) - 0.5f) * kCity;
        if (insideBuilding(x, z)) {
            continue;
        }
        const int dx = std::min(kDistricts - 1, static_cast<int>((x / kCity + 0.5f) * kDistricts));
        const int dz = std::min(kDistricts - 1, static_cast<int>((z / kCity + 0.5f) * kDistricts));
        InstancedMeshNode& batch = *batches[static_cast<std::size_t>(dz * kDistricts + dx)];
        if (batch.count() == batch.capacity()) {
            continue;
        }
        batch.addInstance(glm::translate(glm::mat4(1.0f), glm::vec3(x, 0.4f, z)), glm::vec4(0.9f, 0.6f, 0.2f, 1.0f));
        ++placed;
    }

    gl::OffscreenTarget target(kTargetWidth, kTargetHeight, "occlusion-bench-target");
    Camera camera;
    camera.setPerspective(glm::radians(60.0f), static_cast<float>(kTargetWidth) / kTargetHeight, 0.1f, 2000.0f);
    // The street between block columns 7 and 8, walking north.
    const float streetX = -0.5f * kCity + 8.0f * kPitch + 0.5f * kStreet;

    const Row rows[] = {
        {"GPU culling, frustum only", InstanceCulling::Gpu, false},
        {"GPU culling + occlusion (Hi-Z, two phases)", InstanceCulling::Gpu, true},
        {"CPU culling, frustum only", InstanceCulling::Cpu, false},
        {"CPU culling + occlusion (software occlusion buffer)", InstanceCulling::Cpu, true},
    };
    report.line("| culling | instances drawn | culled by frustum | culled by occlusion | render() ms | myriad CPU ms | occlusion ms | wall ms (render + glFinish) |");
    report.line("|---|---:|---:|---:|---:|---:|---:|---:|");
    for (const Row& row : rows) {
        std::fprintf(stderr, "%s ", row.name);
        for (InstancedMeshNode* batch : batches) {
            batch->setInstanceCulling(row.culling);
        }
        gl::RendererDesc desc;
        desc.gpuCullingCounts = row.culling == InstanceCulling::Gpu;
        gl::Renderer renderer(desc);
        std::vector<double> frameMs, myriadMs, wallMs, occlusionMs;
        Result result;
        for (int f = -3; f < options.frames; ++f) {
            const float walked = 0.5f * static_cast<float>(f + 3);
            const glm::vec3 eye(streetX, 1.7f, -0.5f * kCity + 20.0f + walked);
            camera.lookAt(eye, eye + glm::vec3(0.15f, -0.02f, 1.0f));
            gl::View view = gl::View::of(camera, target);
            view.occlusionCulling = row.occlusion;
            const auto start = Clock::now();
            renderer.render(scene, view);
            gl::finish();
            const double wall = millisecondsSince(start);
            const gl::FrameStats& stats = renderer.lastFrameStats();
            if (f >= 0) {
                frameMs.push_back(stats.frameMs);
                myriadMs.push_back(stats.myriadMs());
                wallMs.push_back(wall);
                occlusionMs.push_back(stats.occlusionMs);
            }
            // Whole batches out of view or hidden are culled on the CPU (their node sphere) on
            // both paths; a GPU-culled batch's instances are counted on the GPU, a frame late.
            result.frustumCulled = stats.instancesFrustumCulled;
            result.occlusionCulled = stats.instancesOcclusionCulled;
            if (row.culling == InstanceCulling::Gpu) {
                const gl::GpuCulledCounts& gpu = stats.gpuCulled;
                result.drawn = gpu.instances;
                // Only occlusion-culled batches count their split; otherwise every culled one is the frustum's.
                result.frustumCulled += row.occlusion ? gpu.frustumCulled : gpu.upperBound - gpu.instances;
                result.occlusionCulled += gpu.occlusionCulled;
            } else {
                // FrameStats::instances counts every MeshNode drawn (ground, buildings) as one instance.
                result.drawn = stats.instances - std::min<std::uint64_t>(stats.instances, stats.meshNodes);
            }
            std::fprintf(stderr, ".");
        }
        std::fprintf(stderr, "\n");
        result.frameMs = median(frameMs);
        result.myriadMs = median(myriadMs);
        result.wallMs = median(wallMs);
        result.occlusionMs = median(occlusionMs);
        report.line("| %s | %llu | %llu | %llu | %.2f | %.3f | %.3f | %.1f |", row.name,
                    static_cast<unsigned long long>(result.drawn), static_cast<unsigned long long>(result.frustumCulled),
                    static_cast<unsigned long long>(result.occlusionCulled), result.frameMs, result.myriadMs,
                    result.occlusionMs, result.wallMs);
    }
    return 0;
} catch (const std::exception& e) {
    std::fprintf(stderr, "myriad_occlusion_bench: %s\n", e.what());
    return 1;
}
