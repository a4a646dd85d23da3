// docs/getting-started.md's first batch, compiled and run by ctest (example.getting_started);
// docs.snippets_match fails when the page's copy and this file differ.
// [getting-started]
#include <myriad/core/Camera.h>
#include <myriad/core/InstancedMeshNode.h>
#include <myriad/core/Scene.h>
#include <myriad/core/Shapes.h>
#include <myriad/egl/HeadlessContext.h>
#include <myriad/gl/OffscreenTarget.h>
#include <myriad/gl/Renderer.h>
#include <myriad/image/ImageIO.h>

#include <glm/gtc/matrix_transform.hpp>

int main() {
    myriad::egl::HeadlessContext context;  // OpenGL 4.5 core, no window, current on this thread
    myriad::Scene scene;
    auto cube = myriad::MeshGeometry::create(myriad::shapes::box(0.8f));  // immutable, shared
    auto& cubes = scene.root().emplace<myriad::InstancedMeshNode>(cube, myriad::Material{}, 100);
    for (int i = 0; i < 100; ++i) {  // a 10 x 10 grid: one 64-byte record per cube
        const glm::vec3 at(i % 10 - 4.5f, 0.0f, i / 10 - 4.5f);
        const glm::vec4 color(i % 10 / 9.0f, 0.4f, i / 10 / 9.0f, 1.0f);  // linear RGBA
        cubes.addInstance(glm::translate(glm::mat4(1.0f), at), color);
    }
    myriad::Camera camera;
    camera.setPerspective(glm::radians(45.0f), 4.0f / 3.0f, 0.1f, 100.0f);
    camera.lookAt({0.0, 10.0, 14.0}, {0.0, 0.0, 0.0});

    myriad::gl::Renderer renderer;
    myriad::gl::OffscreenTarget target(640, 480);
    renderer.render(scene, camera, target);  // 100 cubes, one glDrawElementsInstanced
    myriad::image::writePng(target.readPixels(), "first-batch.png");
    return renderer.lastFrameStats().drawCalls == 1 ? 0 : 1;
}
// [getting-started]
