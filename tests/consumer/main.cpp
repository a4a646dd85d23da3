// A game's first frame, built against myriad from outside its tree: by tests/consumer/installed
// (find_package on an installed prefix) and tests/consumer/subdirectory (add_subdirectory or
// FetchContent). Three red unlit quads in one instanced draw, rendered headless; exit code 0 when
// the pixels and the frame statistics are right, 1 otherwise. Run by scripts/consumers.sh.
#include <myriad/core/Camera.h>
#include <myriad/core/InstancedMeshNode.h>
#include <myriad/core/Material.h>
#include <myriad/core/MeshData.h>
#include <myriad/core/Scene.h>
#include <myriad/core/Shapes.h>
#include <myriad/egl/HeadlessContext.h>
#include <myriad/gl/OffscreenTarget.h>
#include <myriad/gl/Renderer.h>

#include <glm/gtc/matrix_transform.hpp>

#include <cstdio>

int main() {
    myriad::egl::HeadlessContext context;
    myriad::Scene scene;  // cleared to black
    myriad::Material red;
    red.baseColor = {1.0f, 0.0f, 0.0f, 1.0f};
    red.shading = myriad::Shading::Unlit;
    auto& quads = scene.root().emplace<myriad::InstancedMeshNode>(
        myriad::MeshGeometry::create(myriad::shapes::quad(0.5f, 0.5f)), red, 3, "quads");
    for (const float x : {-1.0f, 0.0f, 1.0f}) {
        quads.addInstance(glm::translate(glm::mat4(1.0f), {x, 0.0f, 0.0f}));
    }
    myriad::Camera camera;  // 4 x 4 world units onto 64 x 64 pixels, looking down -Z
    camera.setOrthographic(-2.0f, 2.0f, -2.0f, 2.0f, 0.1f, 10.0f);
    camera.lookAt({0.0, 0.0, 5.0}, {0.0, 0.0, 0.0});

    myriad::gl::Renderer renderer;
    myriad::gl::OffscreenTarget target(64, 64);
    renderer.render(scene, camera, target);
    const auto image = target.readPixels();
    const auto* centre = image.pixel(32, 32);  // world (0, 0): the middle quad
    const auto* gap = image.pixel(40, 32);     // world (0.5, 0): between two quads
    const auto& stats = renderer.lastFrameStats();
    std::printf("centre %u %u %u, gap %u %u %u, %u draw call(s), %llu instances\n", centre[0],
                centre[1], centre[2], gap[0], gap[1], gap[2], stats.drawCalls,
                static_cast<unsigned long long>(stats.instances));
    const bool ok = centre[0] == 255 && centre[1] == 0 && centre[2] == 0 && gap[0] == 0 &&
                    stats.drawCalls == 1 && stats.instances == 3;
    std::puts(ok ? "consumer: OK" : "consumer: WRONG");
    return ok ? 0 : 1;
}
