// The README's usage example, compiled and run by ctest (example.readme) so it cannot rot.
// [readme-example]
#include <myriad/core/Camera.h>
#include <myriad/core/InstancedMeshNode.h>
#include <myriad/core/Scene.h>
#include <myriad/egl/HeadlessContext.h>
#include <myriad/gl/OffscreenTarget.h>
#include <myriad/gl/Renderer.h>
#include <myriad/gltf/GltfImporter.h>
#include <myriad/image/ImageIO.h>

#include <glm/gtc/matrix_transform.hpp>

int main(int argc, char** argv) {
    myriad::egl::HeadlessContext context;  // OpenGL 4.5 core, no window needed
    const auto model = myriad::gltf::importModel(argc > 1 ? argv[1] : "grass.glb");
    const auto& grass = model.primitives.at(0);  // mesh (shared) + material

    myriad::Scene scene;
    scene.clearColor = {0.45f, 0.65f, 0.9f, 1.0f};  // a daylit sky; 02-field is at dusk
    scene.ambient = glm::vec3(0.45f);
    scene.light.direction = {-0.5f, -1.0f, -0.35f};
    auto& field = scene.root().emplace<myriad::InstancedMeshNode>(grass.mesh, grass.material,
                                                                  10'000, "field");
    for (int i = 0; i < 10'000; ++i) {  // a 100 x 100 grid, 0.5 apart
        const glm::vec3 at(static_cast<float>(i % 100), 0.0f, static_cast<float>(i / 100));
        field.addInstance(glm::translate(glm::mat4(1.0f), at * 0.5f));
    }
    myriad::Camera camera;
    camera.setPerspective(glm::radians(55.0f), 16.0f / 9.0f, 0.1f, 200.0f);
    camera.lookAt({49.0f, 12.5f, 41.5f}, {24.75f, 0.0f, 24.75f});  // 02-field's first view

    myriad::gl::Renderer renderer;
    myriad::gl::OffscreenTarget target(640, 360);
    renderer.render(scene, camera, target);  // one glDrawElementsInstanced for 10,000 copies
    myriad::image::writePng(target.readPixels(), "field-snippet.png");
    return renderer.lastFrameStats().drawCalls == 1 ? 0 : 1;
}
// [readme-example]
