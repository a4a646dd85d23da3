// Issue 22's occlusion bench, printed as a table (never a test): 100,000 instanced props
// (InstanceCulling::Cpu) in the blocks of a street of 40 buildings, seen from the street, with
// frustum culling only and with CPU occlusion culling (View::occlusionCulling): instances drawn
// and the frame's cost (medians of 20 frames after 3 warm-up frames, 512 x 256 offscreen).
//   myriad_occlusion_bench
#include "BenchSupport.h"

#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/MeshNode.h"
#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/egl/HeadlessContext.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/Renderer.h"

#include <glm/gtc/matrix_transform.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

using namespace myriad;
using namespace myriad::bench;

namespace {

/** A street along -z, 14 m wide: 20 buildings (10 x 20 x 10 m) a side, every 12 m, fronts at
 *  |x| = 7; 100,000 half-metre props: 2% on the street, the rest in the blocks behind the
 *  fronts (|x| in [7.5, 60], z in [0, -250]), placed by a fixed LCG. */
void buildStreet(Scene& scene) {
    const auto box = MeshGeometry::create(shapes::box(1.0f), "building");
    for (int side = -1; side <= 1; side += 2) {
        for (int i = 0; i < 20; ++i) {
            auto& building = scene.root().emplace<MeshNode>(box, Material{}, "building");
            building.setPosition({side * 12.0, 10.0, -10.0 - 12.0 * i});
            building.setScale({10.0f, 20.0f, 10.0f});
        }
    }
    auto& props = scene.root().emplace<InstancedMeshNode>(MeshGeometry::create(shapes::box(0.5f), "prop"), Material{},
                                                          100000, "props");
    std::uint32_t state = 12345u;
    auto next = [&] {
        state = state * 1664525u + 1013904223u;
        return static_cast<float>(state >> 8) / static_cast<float>(1u << 24);
    };
    for (int i = 0; i < 100000; ++i) {
        const bool street = i % 50 == 0;
        const float side = next() < 0.5f ? -1.0f : 1.0f;
        const float x = street ? (next() * 12.0f - 6.0f) : side * (7.5f + next() * 52.5f);
        const float z = -next() * 250.0f;
        props.addInstance(glm::translate(glm::mat4(1.0f), {x, 0.25f, z}));
    }
    props.setInstanceCulling(InstanceCulling::Cpu);
}

} // namespace

int main() {
    egl::HeadlessContext context;
    gl::Renderer renderer;
    gl::OffscreenTarget target(512, 256);
    Scene scene;
    buildStreet(scene);
    Camera camera;
    camera.setPerspective(glm::radians(60.0f), 2.0f, 0.1f, 500.0f);
    camera.lookAt(glm::dvec3(0.0, 1.7, 5.0), glm::dvec3(0.0, 1.7, -100.0));
    std::printf("%s\n", driverLine(context).c_str());
    std::printf("%-16s %10s %12s %12s %9s %11s %9s %9s\n", "culling", "drawn", "frustum-out", "occluded",
                "cull ms", "occlusion", "myriad", "frame ms");
    for (const bool occlusion : {false, true}) {
        gl::View view = gl::View::of(camera, target);
        view.occlusionCulling = occlusion;
        std::vector<double> cull, occ, mine, frame;
        gl::FrameStats last;
        for (int f = 0; f < 23; ++f) {
            renderer.render(scene, view);
            last = renderer.lastFrameStats();
            if (f >= 3) {
                cull.push_back(last.cullMs);
                occ.push_back(last.occlusionMs);
                mine.push_back(last.myriadMs());
                frame.push_back(last.frameMs);
            }
        }
        std::printf("%-16s %10llu %12llu %12llu %9.3f %11.3f %9.3f %9.3f\n", occlusion ? "frustum+occl." : "frustum only",
                    static_cast<unsigned long long>(last.instances),
                    static_cast<unsigned long long>(last.instancesFrustumCulled),
                    static_cast<unsigned long long>(last.instancesOcclusionCulled), median(cull), median(occ),
                    median(mine), median(frame));
        std::printf("  occluder triangles %llu, occluded nodes %u\n",
                    static_cast<unsigned long long>(last.occluderTriangles), last.nodesOcclusionCulled);
    }
    return 0;
}
