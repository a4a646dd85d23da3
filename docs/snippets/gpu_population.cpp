// docs/lanes.md's GPU-driven population, compiled and run by ctest (example.gpu_population);
// docs.lanes_snippet_match fails when the page's copy and this file differ. A compute shader
// writes four records (a row of red to green quads along x), and the frame must draw them:
// one draw of four instances, each quad's colour at its place.
#include <myriad/core/Camera.h>
#include <myriad/core/Scene.h>
#include <myriad/core/Shapes.h>
#include <myriad/egl/HeadlessContext.h>
#include <myriad/gl/GpuData.h>
#include <myriad/gl/OffscreenTarget.h>
#include <myriad/gl/Renderer.h>

#include <array>
#include <cstddef>
#include <cstdio>
#include <span>

namespace {

bool g_failed = false;

void expect(bool condition, const char* what) {
    if (!condition) {
        std::fprintf(stderr, "docs/lanes.md disagrees with the renderer: %s\n", what);
        g_failed = true;
    }
}

// Record i: a 0.3-wide copy at x = -0.75 + 0.5 i, coloured from red (i = 0) to green (i = 3).
constexpr const char* glslSource = R"(#version 450 core
layout(local_size_x = 64) in;
struct Record { vec4 row0; vec4 row1; vec4 row2; vec4 color; };
layout(std430, binding = 0) buffer Records { Record records[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= uint(records.length())) {
        return;
    }
    float t = float(i) / 3.0;
    records[i] = Record(vec4(1, 0, 0, -0.75 + 0.5 * float(i)), vec4(0, 1, 0, 0), vec4(0, 0, 1, 0),
                        vec4(1.0 - t, t, 0.0, 1.0));
}
)";

} // namespace

int main() {
    using namespace myriad;
    egl::HeadlessContext context;
    Scene scene;  // nothing in it: the population is drawn from the renderer's buffers alone
    Camera camera;
    camera.setOrthographic(-1.0f, 1.0f, -1.0f, 1.0f, 0.1f, 20.0f);
    camera.lookAt({0.0, 0.0, 10.0}, {0.0, 0.0, 0.0});
    gl::Renderer renderer;
    gl::OffscreenTarget target(64, 64);
    const std::size_t count = 4;
    const std::array<float, 16> lanes{};  // four vec4 lanes per instance, all zero here
    const std::span<const std::byte> initialBytes = std::as_bytes(std::span(lanes));
    const auto mesh = MeshGeometry::create(shapes::quad(0.3f, 0.3f), "quad");
    Material material;
    material.name = "swarm";
    material.shading = Shading::Unlit;
    // [gpu-population]
renderer.createBuffer({"swarm", gl::GpuElementType::InstanceRecord, count});   // zero-filled
renderer.createBuffer({"swarm-lanes", gl::GpuElementType::Lanes, count, initialBytes});
gl::PopulationDesc desc;
desc.transformBuffer = "swarm";          // count 64-byte records, as a CPU-built batch's
desc.laneBuffer = "swarm-lanes";         // optional: four vec4 per instance
desc.instanceCount = count;
desc.material = material;
const gl::PopulationId swarm = renderer.drawInstanced(mesh, desc);   // drawn every frame
gl::ComputeProgram step("swarm.comp", glslSource);                   // errors: swarm.comp:line
const gl::BufferBinding bindings[] = {{0, "swarm"}};
renderer.dispatch(step, bindings, (count + 63) / 64);               // each frame, before render()
renderer.render(scene, camera, target);                              // draws this frame's write
    // [gpu-population]
    expect(swarm.value != 0 && renderer.populationCount() == 1, "drawInstanced registers the population");
    const gl::FrameStats& stats = renderer.lastFrameStats();
    expect(stats.drawCalls == 1, "one draw for the population");
    expect(stats.instances == count, "count instances drawn");
    const Image image = target.readPixels();
    // Centres of quads 0 and 3 (x = -0.75 and 0.75 at y = 0: columns 8 and 56, row 32).
    const std::uint8_t* first = image.pixel(8, 32);
    const std::uint8_t* last = image.pixel(56, 32);
    expect(first[0] > 200 && first[1] < 30, "the compute shader's first record drawn red at its place");
    expect(last[1] > 200 && last[0] < 30, "the last record drawn green at its place");
    expect(image.pixel(32, 8)[0] < 30, "nothing drawn away from the records");
    return g_failed ? 1 : 0;
}
