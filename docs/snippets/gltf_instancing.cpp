// docs/gltf.md's EXT_mesh_gpu_instancing example, compiled and run by ctest
// (example.gltf_instancing); docs.gltf_snippet_match fails when the page's copy and this file
// differ. It writes a small .gltf (one node, one mesh of two triangle primitives, three
// instances and a custom _LANE0 attribute), imports it, and fails unless the import and the
// frame are what the page says: one batch holding both primitives, each drawn once.
#include <myriad/core/Camera.h>
#include <myriad/core/InstancedMeshNode.h>
#include <myriad/core/Scene.h>
#include <myriad/egl/HeadlessContext.h>
#include <myriad/gl/OffscreenTarget.h>
#include <myriad/gl/Renderer.h>
#include <myriad/gltf/GltfImporter.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <string>

namespace {

bool g_failed = false;

void expect(bool condition, const char* what) {
    if (!condition) {
        std::fprintf(stderr, "docs/gltf.md disagrees with the importer: %s\n", what);
        g_failed = true;
    }
}

/** trees.gltf and trees.bin in the working directory: node "trees" draws mesh "tree" (two
 *  triangle primitives, red and green) at three instances along y, with _LANE0 = 10, 20, 30. */
std::string writeTwoPrimitiveFile() {
    const std::array<float, 30> data{
        -0.9f, 0.0f, 0.0f, -0.1f, 0.0f, 0.0f, -0.5f, 0.6f, 0.0f,  // primitive 0 (left)
        0.1f,  0.0f, 0.0f, 0.9f,  0.0f, 0.0f, 0.5f,  0.6f, 0.0f,  // primitive 1 (right)
        0.0f,  -1.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f,  1.0f, 0.0f,  // TRANSLATION of 3 instances
        10.0f, 20.0f, 30.0f};                                      // _LANE0
    std::ofstream("trees.bin", std::ios::binary)
        .write(reinterpret_cast<const char*>(data.data()), sizeof data);
    std::ofstream("trees.gltf") << R"({
  "asset": {"version": "2.0"},
  "extensionsUsed": ["EXT_mesh_gpu_instancing"],
  "buffers": [{"uri": "trees.bin", "byteLength": 120}],
  "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 72},
                  {"buffer": 0, "byteOffset": 72, "byteLength": 36},
                  {"buffer": 0, "byteOffset": 108, "byteLength": 12}],
  "accessors": [
    {"bufferView": 0, "byteOffset": 0, "componentType": 5126, "count": 3, "type": "VEC3",
     "min": [-0.9, 0, 0], "max": [-0.1, 0.6, 0]},
    {"bufferView": 0, "byteOffset": 36, "componentType": 5126, "count": 3, "type": "VEC3",
     "min": [0.1, 0, 0], "max": [0.9, 0.6, 0]},
    {"bufferView": 1, "componentType": 5126, "count": 3, "type": "VEC3"},
    {"bufferView": 2, "componentType": 5126, "count": 3, "type": "SCALAR"}],
  "materials": [{"name": "red", "pbrMetallicRoughness": {"baseColorFactor": [1, 0, 0, 1]}},
                {"name": "green", "pbrMetallicRoughness": {"baseColorFactor": [0, 1, 0, 1]}}],
  "meshes": [{"name": "tree", "primitives": [{"attributes": {"POSITION": 0}, "material": 0},
                                             {"attributes": {"POSITION": 1}, "material": 1}]}],
  "nodes": [{"name": "trees", "mesh": 0, "extensions": {"EXT_mesh_gpu_instancing":
             {"attributes": {"TRANSLATION": 2, "_LANE0": 3}}}}],
  "scenes": [{"nodes": [0]}]
})";
    return "trees.gltf";
}

} // namespace

int main() {
    myriad::egl::HeadlessContext context;
    const std::string path = writeTwoPrimitiveFile();
    // [gltf-instancing]
    myriad::gltf::ImportedScene imported = myriad::gltf::importScene(path);
    const myriad::gltf::ImportedInstancing& trees = imported.instancing.at(0);
    // One batch for the node: both primitives of its mesh, drawn with the same three records.
    expect(trees.batches.size() == 1, "one batch for a two-primitive instanced node");
    myriad::InstancedMeshNode& batch = *trees.batches.at(0);
    expect(batch.primitiveCount() == 2, "the batch holds both primitives");
    expect(batch.count() == 3, "one record per instance");
    // Custom attributes are kept, not drawn: copy one into a lane for a surface function
    // (s.lanes[0], docs/lanes.md).
    for (const myriad::gltf::InstanceAttribute& attribute : trees.attributes) {
        if (attribute.name == "_LANE0") {
            for (std::size_t i = 0; i < attribute.values.size(); ++i) {
                batch.setLane(i, 0, attribute.values[i]);
            }
        }
    }
    // [gltf-instancing]
    expect(trees.attributes.size() == 1 && trees.attributes[0].components == 1,
           "_LANE0 kept as a one-component attribute");
    expect(batch.lane(2, 0).x == 30.0f, "instance 2's _LANE0 copied into lane 0");
    expect(batch.name() == "trees", "the batch is named after the glTF node");
    expect(&batch == imported.root->findByName("trees"), "the batch is the node itself, no group");

    myriad::Scene scene;
    scene.root().add(std::move(imported.root));
    myriad::Camera camera;
    camera.setPerspective(0.8f, 1.0f, 0.1f, 100.0f);
    camera.lookAt({0.0, 0.0, 6.0}, {0.0, 0.0, 0.0});
    myriad::gl::Renderer renderer;
    myriad::gl::OffscreenTarget target(64, 64);
    renderer.render(scene, camera, target);
    const myriad::gl::FrameStats& stats = renderer.lastFrameStats();
    expect(stats.drawCalls == 2, "one instanced draw per primitive");
    expect(stats.instances == 6, "each draw draws the three instances");
    return g_failed ? 1 : 0;
}
