// Nothing leaks: destroying a Renderer, a node or a batch gives back every GL object it made.
#include "support/GlTest.h"

#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/gl/LiveObjects.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/Renderer.h"

#include <glm/gtc/matrix_transform.hpp>

using namespace myriad;
using namespace myriad::test;

namespace {

std::string describe(const gl::LiveObjectCounts& c) {
    return "buffers " + std::to_string(c.buffers) + ", vertex arrays " + std::to_string(c.vertexArrays) +
           ", programs " + std::to_string(c.programs) + ", textures " + std::to_string(c.textures) +
           ", framebuffers " + std::to_string(c.framebuffers) + ", syncs " + std::to_string(c.syncs);
}

} // namespace

TEST_CASE("destroying a Renderer releases every GL object it made", "[lifetime]") {
    context();
    const gl::LiveObjectCounts before = gl::liveObjectCounts();
    {
        gl::OffscreenTarget target(32, 32);
        gl::Renderer renderer;
        Scene scene;
        auto image = std::make_shared<Image>();
        image->width = image->height = 2;
        image->pixels.assign(16, 255);
        Material textured;
        textured.baseColorTexture = image;
        auto mesh = MeshGeometry::create(shapes::box(0.5f), "box");
        auto& batch = scene.root().emplace<InstancedMeshNode>(mesh, textured, 16, "batch");
        for (int frame = 0; frame < 5; ++frame) {
            batch.addInstance(glm::translate(glm::mat4(1.0f), glm::vec3(0.1f * static_cast<float>(frame), 0, 0)));
            scene.root().emplace<MeshNode>(mesh, textured, "single");
            renderer.render(scene, Camera{}, target);
        }
        const gl::LiveObjectCounts during = gl::liveObjectCounts();
        INFO("during: " << describe(during));
        CHECK(during.total() > before.total());
        CHECK(during.textures == before.textures + 2);  // the image's copy, the draw table's view
    }
    const gl::LiveObjectCounts after = gl::liveObjectCounts();
    INFO("before: " << describe(before) << "\nafter: " << describe(after));
    CHECK(after == before);
}

TEST_CASE("destroying a batch frees its GPU copy on the next frame, unused meshes on request", "[lifetime]") {
    context();
    gl::OffscreenTarget target(32, 32);
    gl::Renderer renderer;
    Scene scene;
    auto mesh = MeshGeometry::create(shapes::quad(0.5f, 0.5f), "quad");
    auto& keep = scene.root().emplace<InstancedMeshNode>(mesh, Material{}, 4, "keep");
    keep.addInstance(glm::mat4(1.0f));
    renderer.render(scene, Camera{}, target);
    const gl::LiveObjectCounts oneBatch = gl::liveObjectCounts();

    auto& doomed = scene.root().emplace<InstancedMeshNode>(mesh, Material{}, 4, "doomed");
    doomed.addInstance(glm::mat4(1.0f));
    renderer.render(scene, Camera{}, target);
    const gl::LiveObjectCounts twoBatches = gl::liveObjectCounts();
    // Small batches keep their records in the renderer's record arena and are drawn through the
    // table-driven path's one vertex array: no buffer or vertex array of their own.
    CHECK(twoBatches.buffers == oneBatch.buffers);
    CHECK(twoBatches.vertexArrays == oneBatch.vertexArrays);
    const gl::InstanceBufferRange doomedPlace = renderer.instanceRecords(doomed);
    CHECK(doomedPlace.offsetBytes != renderer.instanceRecords(keep).offsetBytes);

    doomed.removeFromParent();  // the returned unique_ptr dies here, and the node with it
    renderer.render(scene, Camera{}, target);
    const gl::LiveObjectCounts afterRemoval = gl::liveObjectCounts();
    CHECK(afterRemoval.buffers == oneBatch.buffers);
    CHECK(afterRemoval.vertexArrays == oneBatch.vertexArrays);
    // Its place in the arena was given back: the next batch of the same size takes it.
    auto& next = scene.root().emplace<InstancedMeshNode>(mesh, Material{}, 4, "next");
    next.addInstance(glm::mat4(1.0f));
    renderer.render(scene, Camera{}, target);
    CHECK(renderer.instanceRecords(next).offsetBytes == doomedPlace.offsetBytes);
    next.removeFromParent();

    keep.removeFromParent();
    renderer.render(scene, Camera{}, target);
    renderer.trim();  // the mesh is no longer drawn: its buffers go too
    const gl::LiveObjectCounts empty = gl::liveObjectCounts();
    CHECK(empty.vertexArrays == oneBatch.vertexArrays - 1);  // the mesh's
    CHECK(empty.buffers == oneBatch.buffers - 2);            // vertices, indices (the arenas stay)
}
