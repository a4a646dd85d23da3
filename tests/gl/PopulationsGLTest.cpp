// GPU-driven populations: named buffers, drawInstanced from them, compute passes writing them,
// the barrier between compute and the draw (checked with a minimal GL call log), a short
// buffer refused, lanes from a lane buffer or zero without one, a population's identity row.
#include "support/GlTest.h"

#include <glad/gl.h>

#include "myriad/core/InstanceRecord.h"
#include "myriad/core/MeshNode.h"
#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/core/SurfaceShader.h"
#include "myriad/util/Error.h"

#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

using namespace myriad;
using namespace myriad::test;

namespace {

constexpr std::uint32_t kSize = RenderFixture::kSize;


InstanceRecord recordAt(float x, float y, const glm::vec4& color = glm::vec4(1.0f)) {
    return {glm::vec4(1, 0, 0, x), glm::vec4(0, 1, 0, y), glm::vec4(0, 0, 1, 0), color};
}

template <class T>
std::span<const std::byte> bytesOf(const std::vector<T>& values) {
    return std::as_bytes(std::span(values));
}

gl::GpuBufferDesc bufferDesc(std::string name, gl::GpuElementType type, std::size_t length,
                             std::span<const std::byte> bytes = {}) {
    gl::GpuBufferDesc desc;
    desc.name = std::move(name);
    desc.elementType = type;
    desc.length = length;
    desc.initialData = bytes;
    return desc;
}

gl::PopulationDesc populationDesc(std::string transforms, std::size_t count, const Material& material,
                                  std::string lanes = {}, std::string name = {}) {
    gl::PopulationDesc desc;
    desc.name = std::move(name);
    desc.transformBuffer = std::move(transforms);
    desc.laneBuffer = std::move(lanes);
    desc.instanceCount = count;
    desc.material = material;
    return desc;
}

/** A minimal GL call log: swaps glad's pointers for glMemoryBarrier, glDispatchCompute and
 *  glDrawElementsInstancedBaseInstance with recording forwards while alive. */
struct CallLog {
    static inline std::vector<std::string> calls;
    static inline std::vector<GLbitfield> barrierBits;
    static inline PFNGLMEMORYBARRIERPROC realBarrier = nullptr;
    static inline PFNGLDISPATCHCOMPUTEPROC realDispatch = nullptr;
    static inline PFNGLDRAWELEMENTSINSTANCEDBASEINSTANCEPROC realDraw = nullptr;

    static void GLAD_API_PTR barrier(GLbitfield bits) {
        calls.emplace_back("barrier");
        barrierBits.push_back(bits);
        realBarrier(bits);
    }
    static void GLAD_API_PTR dispatch(GLuint x, GLuint y, GLuint z) {
        calls.emplace_back("dispatch");
        realDispatch(x, y, z);
    }
    static void GLAD_API_PTR draw(GLenum mode, GLsizei count, GLenum type, const void* indices,
                                  GLsizei instances, GLuint base) {
        calls.emplace_back("draw");
        realDraw(mode, count, type, indices, instances, base);
    }
    CallLog() {
        calls.clear();
        barrierBits.clear();
        realBarrier = glad_glMemoryBarrier;
        realDispatch = glad_glDispatchCompute;
        realDraw = glad_glDrawElementsInstancedBaseInstance;
        glad_glMemoryBarrier = &barrier;
        glad_glDispatchCompute = &dispatch;
        glad_glDrawElementsInstancedBaseInstance = &draw;
    }
    ~CallLog() {
        glad_glMemoryBarrier = realBarrier;
        glad_glDispatchCompute = realDispatch;
        glad_glDrawElementsInstancedBaseInstance = realDraw;
    }
    CallLog(const CallLog&) = delete;
    CallLog& operator=(const CallLog&) = delete;
};

constexpr const char* kPlaceShader = R"(#version 450 core
layout(local_size_x = 64) in;
struct Record { vec4 row0; vec4 row1; vec4 row2; vec4 color; };
layout(std430, binding = 3) buffer Records { Record records[]; };
uniform float u_x;
uniform int u_count;
void main() {
    int i = int(gl_GlobalInvocationID.x);
    if (i >= u_count) {
        return;
    }
    records[i].row0 = vec4(1.0, 0.0, 0.0, u_x);
    records[i].row1 = vec4(0.0, 1.0, 0.0, 0.0);
    records[i].row2 = vec4(0.0, 0.0, 1.0, 0.0);
    records[i].color = vec4(1.0);
}
)";

} // namespace

TEST_CASE("a buffer shorter than the population is refused at the call, naming it, nothing is drawn", "[populations][pixels]") {
    RenderFixture f;
    Scene scene;
    std::vector<InstanceRecord> records(10, recordAt(0.0f, 0.0f));
    f.renderer.createBuffer(bufferDesc("short", gl::GpuElementType::InstanceRecord, 10, bytesOf(records)));
    f.renderer.createBuffer(bufferDesc("lanes-short", gl::GpuElementType::Vec4, 4 * 100 - 1));
    f.renderer.createBuffer(bufferDesc("records", gl::GpuElementType::InstanceRecord, 100, bytesOf(records)));
    try {
        (void)f.renderer.drawInstanced(quadMesh(), populationDesc("short", 100, unlit()));
        FAIL("a short transform buffer was accepted");
    } catch (const InvalidArgument& error) {
        const std::string message = error.what();
        INFO(message);
        CHECK(message.find("'short'") != std::string::npos);
        CHECK(message.find("10 elements") != std::string::npos);
        CHECK(message.find("100 instances need 6400 bytes") != std::string::npos);
    }
    try {
        (void)f.renderer.drawInstanced(quadMesh(), populationDesc("records", 100, unlit(), "lanes-short"));
        FAIL("a short lane buffer was accepted");
    } catch (const InvalidArgument& error) {
        const std::string message = error.what();
        INFO(message);
        CHECK(message.find("lane buffer 'lanes-short'") != std::string::npos);
        CHECK(message.find("399 elements") != std::string::npos);
    }
    CHECK_THROWS_AS(f.renderer.drawInstanced(quadMesh(), populationDesc("missing", 1, unlit())),
                    InvalidArgument);
    CHECK(f.renderer.populationCount() == 0);
    const Image image = f.render(scene);
    CHECK(f.renderer.lastFrameStats().drawCalls == 0);
    MYRIAD_CHECK_PIXEL(image, kSize / 2, kSize / 2, kBlack);
}

TEST_CASE("a population is drawn from named buffers, lanes from its lane buffer or zero, one identity row", "[populations][lanes][pixels]") {
    RenderFixture f;
    Scene scene;
    auto& node = scene.root().emplace<MeshNode>(quadMesh(), unlit(), "node");
    node.setPosition(glm::dvec3(0.0, 0.5, 0.0));
    Material laneColour = unlit();
    laneColour.name = "swarm-material";
    laneColour.surface = SurfaceShader::fromSource("lane-or-blue.glsl",
                                                   "SurfaceOutput surface(SurfaceInput s) {\n"
                                                   "    bool zero = s.lanes[0] == vec4(0.0) && s.lanes[1] == vec4(0.0) &&\n"
                                                   "                s.lanes[2] == vec4(0.0) && s.lanes[3] == vec4(0.0);\n"
                                                   "    return SurfaceOutput(zero ? vec3(0, 0, 1) : s.lanes[1].rgb, 1.0);\n"
                                                   "}\n");
    constexpr std::size_t kCount = 1000;
    std::vector<InstanceRecord> records(kCount, recordAt(50.0f, 0.0f));
    records[kCount - 1] = recordAt(-0.5f, 0.0f);
    std::vector<glm::vec4> lanes(4 * kCount, glm::vec4(0.0f));
    lanes[4 * (kCount - 1) + 1] = glm::vec4(1, 0, 0, 0);  // the last instance's lane 1: red
    f.renderer.createBuffer(bufferDesc("records", gl::GpuElementType::InstanceRecord, kCount, bytesOf(records)));
    f.renderer.createBuffer(bufferDesc("lanes", gl::GpuElementType::Lanes, kCount, bytesOf(lanes)));
    std::vector<InstanceRecord> second{recordAt(0.5f, 0.0f)};
    f.renderer.createBuffer(bufferDesc("second", gl::GpuElementType::InstanceRecord, 1, bytesOf(second)));
    const gl::PopulationId withLanes = f.renderer.drawInstanced(
        quadMesh(), populationDesc("records", kCount, laneColour, "lanes", "swarm"));
    (void)f.renderer.drawInstanced(quadMesh(), populationDesc("second", 1, laneColour, {}, "no-lanes"));
    Image image = f.render(scene);
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), kSize / 2, kRed);   // its lanes
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), kSize / 2, kBlue);   // no lane buffer: zero
    MYRIAD_CHECK_PIXEL(image, kSize / 2, pixelY(0.5f, kSize), kWhite);  // the scene too

    // One row per population however many members, after the scene's node.
    const gl::MaterialIdentity& identity = f.renderer.materialIdentity();
    REQUIRE(identity.rows.size() == 3);
    CHECK(identity.rows[1].renderable == "swarm");
    CHECK(identity.rows[1].populationId == withLanes.value);
    CHECK(identity.rows[1].material == "swarm-material");
    CHECK(identity.rows[1].index == f.renderer.materialIndex("swarm-material"));

    // A buffer drawn from cannot be destroyed; rewriting it changes the next frame.
    CHECK_THROWS_AS(f.renderer.destroyBuffer("records"), InvalidArgument);
    const InstanceRecord moved = recordAt(0.0f, -0.5f);
    f.renderer.writeBuffer("records", kCount - 1, std::as_bytes(std::span(&moved, 1)));
    image = f.render(scene);
    CHECK(f.renderer.lastFrameStats().bytesUploaded == 0);
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), kSize / 2, kBlack);
    MYRIAD_CHECK_PIXEL(image, kSize / 2, pixelY(-0.5f, kSize), kRed);

    // Bounds cull a population; without bounds it is never culled.
    f.renderer.removePopulation(withLanes);
    CHECK(f.renderer.populationCount() == 1);
    f.renderer.destroyBuffer("records");
    gl::PopulationDesc bounded = populationDesc("second", 1, laneColour);
    bounded.bounds = Aabb{glm::vec3(40.0f), glm::vec3(41.0f)};
    (void)f.renderer.drawInstanced(quadMesh(), bounded);
    image = f.render(scene);
    CHECK(f.renderer.lastFrameStats().culledNodes == 1);
    CHECK(f.renderer.lastFrameStats().drawCalls == 2);  // the node and the unbounded population
}

TEST_CASE("compute-written transforms are drawn in the next frame, after the barrier myriad issues", "[populations][compute][pixels]") {
    RenderFixture f;
    Scene scene;
    constexpr int kCount = 100;
    f.renderer.createBuffer(bufferDesc("swarm", gl::GpuElementType::InstanceRecord, kCount));
    const gl::ComputeProgram place("place.comp", kPlaceShader);
    const int x = place.program().uniformLocation("u_x");
    place.program().setUniform(place.program().uniformLocation("u_count"), kCount);
    (void)f.renderer.drawInstanced(quadMesh(), populationDesc("swarm", kCount, unlit(glm::vec4(0, 1, 0, 1))));
    const gl::BufferBinding binding{3, "swarm"};

    place.program().setUniform(x, -0.5f);
    f.renderer.dispatch(place, std::span(&binding, 1), (kCount + 63) / 64);
    Image image = f.render(scene);
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), kSize / 2, kGreen);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), kSize / 2, kBlack);

    {
        const CallLog log;
        place.program().setUniform(x, 0.5f);
        f.renderer.dispatch(place, std::span(&binding, 1), (kCount + 63) / 64);
        image = f.render(scene);
        // Write after read: the last frame's draws may still fetch the records this dispatch
        // overwrites, so a storage barrier comes first (OpenGL 4.5, "Shader Memory Access Synchronization"); then the
        // read after write, before the draw.
        REQUIRE(CallLog::calls.size() >= 4);
        CHECK(CallLog::calls[0] == "barrier");
        CHECK(CallLog::calls[1] == "dispatch");
        CHECK(CallLog::calls[2] == "barrier");
        CHECK(CallLog::calls[3] == "draw");
        REQUIRE(CallLog::barrierBits.size() >= 2);
        CHECK((CallLog::barrierBits[0] & GL_SHADER_STORAGE_BARRIER_BIT) != 0);
        CHECK((CallLog::barrierBits[1] & GL_VERTEX_ATTRIB_ARRAY_BARRIER_BIT) != 0);
        CHECK((CallLog::barrierBits[1] & GL_TEXTURE_FETCH_BARRIER_BIT) != 0);
        // No compute since: the next frame issues no barrier.
        CallLog::calls.clear();
        (void)f.render(scene);
        CHECK(CallLog::calls == std::vector<std::string>{"draw"});
    }
    // This frame's write, not last frame's.
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), kSize / 2, kGreen);
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), kSize / 2, kBlack);
    CHECK(f.renderer.lastFrameStats().bytesUploaded == 0);

    // The buffer read back holds what compute wrote (buffer-update barrier issued).
    const std::vector<std::byte> bytes = f.renderer.readBuffer("swarm");
    REQUIRE(bytes.size() == kCount * 64);
    InstanceRecord last{};
    std::memcpy(&last, bytes.data() + (kCount - 1) * 64, sizeof last);
    CHECK(last.row0.w == 0.5f);
}

TEST_CASE("a compute shader that does not compile names its file and line", "[compute]") {
    (void)context();
    try {
        const gl::ComputeProgram broken("broken.comp", "#version 450 core\nlayout(local_size_x = 1) in;\n"
                                                       "void main() {\n    undefinedThing = 1;\n}\n");
        FAIL("compiled");
    } catch (const ShaderError& error) {
        const std::string message = error.what();
        INFO(message);
        CHECK(message.find("broken.comp:4") != std::string::npos);
    }
}
