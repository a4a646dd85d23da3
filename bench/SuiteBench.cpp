// The benchmark suite of docs/performance.md: myriad's own CPU cost per phase against
// the driver's, instanced against one draw per node, static and animated scenes from 1k to 1M
// instances, update rates, partial updates, morph weights and culling. Every figure is a
// median of several frames measured in this run; targets are printed with PASS / MISS.
//
// Usage: myriad_suite [--quick] [--only 14] [--out bench-results.md] [--plot-data plot.dat]
// (--only: the listed sections alone, for working on one of them; targets of skipped sections
// are not printed)
// scripts/bench.sh builds it in Release, runs it and draws the plot.
#include "renderer/ShaderLibrary.h"
#include "BenchSupport.h"

#include <glad/gl.h>

#include "myriad/core/InstanceRecord.h"
#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/MeshNode.h"
#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/core/SurfaceShader.h"
#include "myriad/egl/HeadlessContext.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/VertexArray.h"
#include "myriad/gl/Program.h"
#include "myriad/gl/Buffer.h"
#include "myriad/gl/Renderer.h"

#include <thread>
#include <cstdarg>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <memory>
#include <random>
#include <algorithm>
#include <cstdlib>

using namespace myriad;
using namespace myriad::bench;

namespace {

// Ogre 1.12 InstanceManager (HWInstancingBasic) on this kind of machine, as first published with the benchmark.
constexpr double kOgreStaticMs100k = 8.5;        // static scene, 100k cubes, per frame
constexpr double kOgreAnimatedNsPerInstance = 260.0;

/** One RESULT line of the Ogre peer (../shared/peers/ogre), means in ms per frame. */
struct OgreRun {
    double update = 0, pre = 0, cull = 0, draw = 0, finish = 0, mean = 0;
    /** Ogre's own CPU work: the application's transform calls, batch bounds, per-instance
     *  cull + instance-buffer fill (what myriad's update + bounds + cull + upload compare with). */
    [[nodiscard]] double own() const { return update + pre + cull; }
};

/** (motion, N) -> run, from the file scripts/bench.sh writes. */
std::map<std::pair<std::string, std::size_t>, OgreRun> readOgre(const std::string& path) {
    std::map<std::pair<std::string, std::size_t>, OgreRun> runs;
    for (std::map<std::string, std::string>& fields : readResultLines(path)) {
        auto number = [&](const char* key) { return fields.count(key) != 0 ? std::stod(fields[key]) : 0.0; };
        OgreRun run{number("update_ms"), number("pre_ms"), number("cull_ms"), number("draw_ms"), number("finish_ms"), number("mean_ms")};
        runs[{fields["motion"], static_cast<std::size_t>(number("n"))}] = run;
    }
    return runs;
}

struct Options {
    bool quick = false;
    std::string out = "bench-results.md";
    std::string plotData;
    std::string only;  ///< section digits to run; empty: all
    std::string ogre;  ///< the Ogre peer's RESULT lines of this run (scripts/bench.sh)
};

struct PhaseTimes {
    double update = 0, bounds = 0, cull = 0, upload = 0, draw = 0, myriad = 0, driver = 0;
    std::uint64_t bytesUploaded = 0;
    std::uint32_t drawCalls = 0;
    std::uint64_t instances = 0;
};

// Runs @p frames frames of @p step (update work, timed) then render, and returns the medians.
PhaseTimes runFrames(gl::Renderer& renderer, const Scene& scene, const Camera& camera,
                     const gl::OffscreenTarget& target, int frames,
                     const std::function<void(int)>& update, const std::function<void()>& bounds) {
    std::map<std::string, std::vector<double>> samples;
    PhaseTimes last;
    for (int frame = -1; frame < frames; ++frame) {  // frame -1 warms up (first upload)
        auto start = Clock::now();
        if (update) {
            update(frame + 1);
        }
        const double updateMs = millisecondsSince(start);
        start = Clock::now();
        if (bounds) {
            bounds();
        }
        const double boundsMs = millisecondsSince(start);
        renderer.render(scene, camera, target);
        start = Clock::now();
        gl::finish();
        const double driverMs = millisecondsSince(start);
        const gl::FrameStats& stats = renderer.lastFrameStats();
        if (frame < 0) {
            continue;
        }
        samples["update"].push_back(updateMs);
        samples["bounds"].push_back(boundsMs);
        samples["cull"].push_back(stats.cullMs);
        samples["upload"].push_back(stats.uploadMs);
        samples["draw"].push_back(stats.drawMs);
        // myriad's own CPU work: everything but the time inside glDraw* calls.
        samples["myriad"].push_back(updateMs + boundsMs + stats.myriadMs());
        samples["driver"].push_back(driverMs + stats.frameMs - stats.myriadMs());
        last.bytesUploaded = stats.bytesUploaded;
        last.drawCalls = stats.drawCalls;
        last.instances = stats.instances;
    }
    last.update = median(samples["update"]);
    last.bounds = median(samples["bounds"]);
    last.cull = median(samples["cull"]);
    last.upload = median(samples["upload"]);
    last.draw = median(samples["draw"]);
    last.myriad = median(samples["myriad"]);
    last.driver = median(samples["driver"]);
    return last;
}

glm::mat4 animatedTransform(std::size_t i, std::size_t side, float time) {
    const glm::vec3 p = gridPosition(i, side);
    const float phase = time + static_cast<float>(i) * 0.37f;
    return glm::translate(glm::mat4(1.0f), p + glm::vec3(0.0f, 0.25f * std::sin(phase), 0.0f)) *
           glm::rotate(glm::mat4(1.0f), phase, glm::vec3(0.0f, 1.0f, 0.0f));
}

// Section 8: shader data. Lane writes per second (CPU), bytes uploaded per frame with 1% of
// the lanes changing, and a GPU swarm's frame cost (a compute dispatch moving every record, then
// the draw) at 100k and 1M (llvmpipe here: CPU-bound).
void lanesRows(Report& report, gl::Renderer& renderer, bool quick) {
    report.blank();
    report.line("## 8. Shader data: lanes and GPU-driven populations");
    report.blank();
    report.line("| row | N | measured |");
    report.line("|---|---|---|");
    const std::size_t n = quick ? 10000 : 100000;
    auto cube = MeshGeometry::create(shapes::box(0.5f), "cube");
    Material material;
    material.shading = Shading::Unlit;
    Scene scene;
    auto& batch = scene.root().emplace<InstancedMeshNode>(cube, material, n, "lanes");
    for (std::size_t i = 0; i < n; ++i) {
        batch.addInstance(glm::translate(glm::mat4(1.0f), gridPosition(i, 317)));
    }
    auto start = Clock::now();
    constexpr int kRounds = 10;
    for (int round = 0; round < kRounds; ++round) {
        for (std::size_t i = 0; i < n; ++i) {
            batch.setLane(i, static_cast<std::size_t>(round) % 4, glm::vec4(static_cast<float>(i), 1, 2, 3));
        }
    }
    const double writeMs = millisecondsSince(start);
    report.line("| lane writes per second (setLane by index) | %zu | %.1f M/s |", n,
                static_cast<double>(n) * kRounds / (writeMs * 1000.0));
    gl::OffscreenTarget target(64, 64);
    const PhaseTimes t = runFrames(renderer, scene, gridCamera(317), target, 5,
                                   [&](int frame) {
                                       for (std::size_t i = static_cast<std::size_t>(frame) % 100; i < n; i += 100) {
                                           batch.setLane(i, 0, glm::vec4(static_cast<float>(frame)));
                                       }
                                   },
                                   {});
    report.line("| bytes uploaded per frame, 1%% of lanes changing (64 bytes a row) | %zu | %llu bytes (%.2f%% of the lanes) |",
                n, static_cast<unsigned long long>(t.bytesUploaded),
                100.0 * static_cast<double>(t.bytesUploaded) / (static_cast<double>(n) * 64.0));

    // Lanes per batch (setLaneCount): the upload of 1% of rows and a frame whose surface reads
    // every lane the batch has, at 1, 4 and 8 lanes, in one run (ratios against 4, the default).
    {
        const std::size_t laneRows = quick ? 10000 : 100000;
        double frameAt4 = 0.0;
        for (const std::size_t lanes : {std::size_t{4}, std::size_t{1}, std::size_t{8}}) {
            Material reading = material;
            reading.name = "reads-" + std::to_string(lanes);
            std::string body = "SurfaceOutput surface(SurfaceInput s) {\n    vec4 sum = vec4(0.0);\n";
            for (std::size_t lane = 0; lane < lanes; ++lane) {
                body += "    sum += s.lanes[" + std::to_string(lane) + "];\n";
            }
            body += "    return SurfaceOutput(s.color.rgb * (0.5 + 0.5 * fract(sum.x)), 1.0);\n}\n";
            reading.surface = SurfaceShader::fromSource("reads-" + std::to_string(lanes) + ".glsl", body);
            Scene laneScene;
            auto& wide = laneScene.root().emplace<InstancedMeshNode>(cube, reading, laneRows, "lane-count",
                                                                     InstancedMeshOptions{.laneCount = lanes});
            for (std::size_t i = 0; i < laneRows; ++i) {
                wide.addInstance(glm::translate(glm::mat4(1.0f), gridPosition(i, 317)));
                for (std::size_t lane = 0; lane < lanes; ++lane) {
                    wide.setLane(i, lane, glm::vec4(static_cast<float>(i + lane) * 0.01f));
                }
            }
            gl::OffscreenTarget laneTarget(256, 256);
            const PhaseTimes lt = runFrames(renderer, laneScene, gridCamera(317), laneTarget, 5,
                                            [&](int frame) {
                                                for (std::size_t i = static_cast<std::size_t>(frame) % 100; i < laneRows;
                                                     i += 100) {
                                                    wide.setLane(i, 0, glm::vec4(static_cast<float>(frame)));
                                                }
                                            },
                                            {});
            const double frameMs = lt.myriad + lt.driver;
            if (lanes == 4) {
                frameAt4 = frameMs;
            }
            report.line("| %zu lanes per instance: bytes uploaded per frame (1%% of rows changing), frame with a surface reading all %zu (256x256) | %zu | %llu bytes (%zu a row); %.2f ms (%.2fx the 4-lane frame) |",
                        lanes, lanes, laneRows, static_cast<unsigned long long>(lt.bytesUploaded), lanes * 16, frameMs,
                        frameAt4 > 0.0 ? frameMs / frameAt4 : 0.0);
        }
    }

    constexpr const char* kStep = R"(#version 450 core
layout(local_size_x = 256) in;
struct Record { vec4 row0; vec4 row1; vec4 row2; vec4 color; };
layout(std430, binding = 0) buffer Records { Record records[]; };
uniform int u_count;
uniform float u_time;
void main() {
    int i = int(gl_GlobalInvocationID.x);
    if (i >= u_count) { return; }
    records[i].row0.w += 0.01 * sin(u_time + float(i));
    records[i].row1.w += 0.01 * cos(u_time + float(i));
}
)";
    const gl::ComputeProgram step("bench-swarm.comp", kStep);
    for (const std::size_t count : {std::size_t{100000}, std::size_t{1000000}}) {
        const std::string name = "bench-swarm-" + std::to_string(count);
        std::vector<InstanceRecord> records(count);
        for (std::size_t i = 0; i < count; ++i) {
            const glm::vec3 p = gridPosition(i, 1000);
            records[i] = {glm::vec4(1, 0, 0, p.x), glm::vec4(0, 1, 0, p.y), glm::vec4(0, 0, 1, p.z), glm::vec4(1.0f)};
        }
        gl::GpuBufferDesc desc;
        desc.name = name;
        desc.elementType = gl::GpuElementType::InstanceRecord;
        desc.length = count;
        desc.initialData = std::as_bytes(std::span(records));
        renderer.createBuffer(desc);
        gl::PopulationDesc population;
        population.transformBuffer = name;
        population.instanceCount = count;
        population.material = material;
        const gl::PopulationId id = renderer.drawInstanced(MeshGeometry::create(shapes::triangle(), "tri"), population);
        step.program().setUniform(step.program().uniformLocation("u_count"), static_cast<int>(count));
        const gl::BufferBinding binding{0, name};
        Scene empty;
        const PhaseTimes swarm = runFrames(renderer, empty, gridCamera(1000), target, 5,
                                           [&](int frame) {
                                               step.program().setUniform(step.program().uniformLocation("u_time"),
                                                                         static_cast<float>(frame));
                                               renderer.dispatch(step, std::span(&binding, 1),
                                                                 static_cast<std::uint32_t>((count + 255) / 256));
                                           },
                                           {});
        report.line("| GPU swarm frame (dispatch + draw, finished), llvmpipe | %zu | %.3f ms myriad + %.3f ms driver, %llu bytes uploaded |",
                    count, swarm.myriad, swarm.driver, static_cast<unsigned long long>(swarm.bytesUploaded));
        renderer.removePopulation(id);
        renderer.destroyBuffer(name);
    }
}

// Section 7: the library's vertex stage against the same stage with normals through mat3
// (right only for uniform scale), drawn through the low-level layer: what exact normals cost.
void cofactorRow(Report& report, bool quick) {
    report.blank();
    report.line("## 7. Normals under non-uniform scale: cofactor against the plain mat3 shortcut");
    report.blank();
    {
        // The library's instanced vertex shader, and the same with the usual shortcut
        // (normal * mat3, right only for uniform scale), drawn through the low-level layer.
        // The renderer's lit instanced variant, with the stream declarations it generates.
        const std::uint32_t features = gl::detail::kInstanced | gl::detail::kLit;
        const std::string fragmentDefines = gl::detail::ShaderLibrary::featureDefines(features);
        const std::string vertexDefines = fragmentDefines + gl::detail::ShaderLibrary::streamDeclarations(features);
        const std::string exact(gl::embeddedShaderText("surface.vert"));
        std::string shortcut = exact;
        const std::string body = "mat3 cofactor = mat3(cross(m[1], m[2]), cross(m[2], m[0]), cross(m[0], m[1]));\n"
                                 "    return cofactor * n * sign(determinant(m));";
        const std::size_t at = shortcut.find(body);
        if (at == std::string::npos) {
            report.line("(surface.vert changed; cofactor row skipped)");
            return;
        }
        shortcut.replace(at, body.size(), "return m * n;");
        const std::string fragment(gl::embeddedShaderText("surface.frag"));
        const gl::ShaderSource exactStages[] = {
            {gl::ShaderStage::Vertex, "surface.vert", exact, vertexDefines},
            {gl::ShaderStage::Fragment, "surface.frag", fragment, fragmentDefines}};
        const gl::ShaderSource shortcutStages[] = {
            {gl::ShaderStage::Vertex, "shortcut.vert", shortcut, vertexDefines},
            {gl::ShaderStage::Fragment, "surface.frag", fragment, fragmentDefines}};
        gl::Program exactProgram(exactStages, "bench.cofactor");
        gl::Program shortcutProgram(shortcutStages, "bench.shortcut");
        const MeshGeometry sphere(shapes::uvSphere(0.5f, 24, 12), "sphere");
        struct Vertex {
            glm::vec3 position, normal;
            glm::vec2 uv;
            glm::vec4 color;
        };
        std::vector<Vertex> vertices;
        for (std::size_t i = 0; i < sphere.vertexCount(); ++i) {
            vertices.push_back({sphere.data().positions[i], sphere.data().normals[i], glm::vec2(0.0f), glm::vec4(1.0f)});
        }
        const std::size_t n = quick ? 2000 : 20000;
        gl::OffscreenTarget target(64, 64);
        std::vector<InstanceRecord> records(n);
        for (std::size_t i = 0; i < n; ++i) {
            records[i].row0 = glm::vec4(0.003f, 0.0f, 0.0f, 0.0f);
            records[i].row1 = glm::vec4(0.0f, 0.001f, 0.0f, 0.0f);
            records[i].row2 = glm::vec4(0.0f, 0.0f, 0.001f, -0.5f);
        }
        gl::Buffer vertexBuffer({.initialData = std::as_bytes(std::span(vertices))});
        gl::Buffer indexBuffer({.initialData = std::as_bytes(std::span(sphere.data().indices32))});
        gl::Buffer instanceBuffer({.initialData = std::as_bytes(std::span(records))});
        gl::VertexArray layout({.attributes = {{location::kPosition, gl::AttributeFormat::Float3, 0, 0},
                                               {location::kNormal, gl::AttributeFormat::Float3, 12, 0},
                                               {location::kUv0, gl::AttributeFormat::Float2, 24, 0},
                                               {location::kColor, gl::AttributeFormat::Float4, 32, 0},
                                               {location::kInstanceRow0, gl::AttributeFormat::Float4, 0, 1},
                                               {location::kInstanceRow1, gl::AttributeFormat::Float4, 16, 1},
                                               {location::kInstanceRow2, gl::AttributeFormat::Float4, 32, 1},
                                               {location::kInstanceColor, gl::AttributeFormat::Float4, 48, 1}},
                                .bindings = {{0, sizeof(Vertex), 0}, {1, sizeof(InstanceRecord), 1}},
                                .label = "bench.spheres"});
        layout.setVertexBuffer(0, vertexBuffer);
        layout.setVertexBuffer(1, instanceBuffer);
        layout.setIndexBuffer(indexBuffer, IndexType::UInt32, sphere.vertexCount() - 1);
        gl::bindDrawTarget(target.framebufferId(), 0, 0, target.width(), target.height());
        auto drawWith = [&](const gl::Program& program) {
            program.use();
            program.setUniform(program.uniformLocation("u_viewProjection"), glm::mat4(1.0f));
            program.setUniform(program.uniformLocation("u_model"), glm::mat4(1.0f));
            program.setUniform(program.uniformLocation("u_baseColor"), glm::vec4(1.0f));
            program.setUniform(program.uniformLocation("u_tint"), glm::vec4(1.0f));
            program.setUniform(program.uniformLocation("u_lit"), 1);
            gl::drawElementsInstanced(layout, gl::PrimitiveMode::Triangles, sphere.indexCount(),
                                      IndexType::UInt32, 0, static_cast<std::uint32_t>(n));
        };
        auto timeDraws = [&](const gl::Program& program) {
            std::vector<double> samples;
            for (int i = 0; i < 9; ++i) {
                const auto start = Clock::now();
                drawWith(program);
                gl::finish();
                if (i > 1) {
                    samples.push_back(millisecondsSince(start));
                }
            }
            return median(samples);
        };
        const double withCofactor = timeDraws(exactProgram);
        const double withShortcut = timeDraws(shortcutProgram);
        gl::bindDrawTarget(0, 0, 0, target.width(), target.height());
        report.line("| instances x vertices | cofactor ms | mat3 shortcut ms | ratio |");
        report.line("|---:|---:|---:|---:|");
        report.line("| %zu x %u | %.3f | %.3f | %.2fx |", n, sphere.vertexCount(), withCofactor,
                    withShortcut, withCofactor / std::max(withShortcut, 1e-6));
    }
}


/** A field of /proc/self/status (VmRSS, VmHWM...) in MiB; 0 where there is none. */
double statusMiB(const char* field) {
    std::ifstream status("/proc/self/status");
    std::string line;
    const std::string key = std::string(field) + ":";
    while (std::getline(status, line)) {
        if (line.rfind(key, 0) == 0) {
            return std::stod(line.substr(key.size())) / 1024.0;
        }
    }
    return 0.0;
}
double residentMiB() { return statusMiB("VmRSS"); }

/** A GPU that runs kFramesBehind frames behind the CPU, on a driver that does not (llvmpipe
 *  finishes each copy at once): while alive, a glClientWaitSync poll (zero timeout) of a fence
 *  made in this frame or the kFramesBehind - 1 before it answers GL_TIMEOUT_EXPIRED, which GL
 *  allows for any fence, and the caller's wait with a timeout goes to the driver. The bench
 *  calls nextFrame() before each render(). Swaps glad's pointers (the library and the bench
 *  share one static glad). One at a time. */
class LaggingGpu {
public:
    static constexpr std::uint64_t kFramesBehind = 3;
    LaggingGpu() {
        realFence() = glad_glFenceSync;
        realWait() = glad_glClientWaitSync;
        glad_glFenceSync = &fence;
        glad_glClientWaitSync = &wait;
    }
    ~LaggingGpu() {
        glad_glFenceSync = realFence();
        glad_glClientWaitSync = realWait();
        made().clear();
    }
    LaggingGpu(const LaggingGpu&) = delete;
    LaggingGpu& operator=(const LaggingGpu&) = delete;
    static void nextFrame() noexcept { ++frame(); }

private:
    static std::uint64_t& frame() noexcept {
        static std::uint64_t value = 0;
        return value;
    }
    static std::map<GLsync, std::uint64_t>& made() {
        static std::map<GLsync, std::uint64_t> value;
        return value;
    }
    static PFNGLFENCESYNCPROC& realFence() noexcept {
        static PFNGLFENCESYNCPROC value = nullptr;
        return value;
    }
    static PFNGLCLIENTWAITSYNCPROC& realWait() noexcept {
        static PFNGLCLIENTWAITSYNCPROC value = nullptr;
        return value;
    }
    static GLsync GLAD_API_PTR fence(GLenum condition, GLbitfield flags) {
        const GLsync sync = realFence()(condition, flags);
        made()[sync] = frame();
        return sync;
    }
    static GLenum GLAD_API_PTR wait(GLsync sync, GLbitfield flags, GLuint64 timeout) {
        const auto it = made().find(sync);
        if (timeout == 0 && it != made().end() && it->second + kFramesBehind > frame()) {
            return GL_TIMEOUT_EXPIRED;
        }
        return realWait()(sync, flags, timeout);
    }
};

/** Formats one line into @p out (the memory rows are measured before section 1, printed in 4). */
void emit(std::vector<std::string>& out, const char* format, ...) __attribute__((format(printf, 2, 3)));
void emit(std::vector<std::string>& out, const char* format, ...) {
    char buffer[2048];
    va_list args;
    va_start(args, format);
    std::vsnprintf(buffer, sizeof buffer, format, args);
    va_end(args);
    out.emplace_back(buffer);
}

// Section 4, memory (measured first, before other sections leave memory behind that a later
// allocation would reuse without growing the resident size): bytes per instance of every stream and table, CPU and GPU side, from the
// sizes myriad allocates, and the process's resident memory measured around each step at N
// instances. On llvmpipe "GPU" buffers are the driver's allocations in this process, so the
// resident growth of a render is the driver's copy of what myriad sends.
void memoryRows(std::vector<std::string>& out, gl::Renderer& renderer, const std::shared_ptr<const MeshGeometry>& mesh,
                const Material& material, std::size_t n, double rssAtStart, double rssAfterContext) {
    constexpr double kMiB = 1024.0 * 1024.0;
    const double before = residentMiB();
    Scene scene;
    auto& batch = scene.root().emplace<InstancedMeshNode>(mesh, material, n, "memory");
    const double afterConstruct = residentMiB();
    const std::size_t side = gridSide(n);
    std::vector<InstanceHandle> handles;
    handles.reserve(n);
    const double afterGameVector = residentMiB();
    for (std::size_t i = 0; i < n; ++i) {
        handles.push_back(batch.acquire({glm::translate(glm::mat4(1.0f), gridPosition(i, side)), glm::vec4(1.0f)}));
    }
    const double afterHandles = residentMiB();
    batch.setLane(std::size_t{0}, 0, glm::vec4(1.0f));     // allocates the lane stream
    batch.setMorphWeights(0, std::span<const float>{});  // allocates the morph-weight stream
    batch.setInstanceCulling(InstanceCulling::Cpu);       // sphere cache + visible-index list
    const double afterStreams = residentMiB();
    gl::OffscreenTarget target(64, 64);
    const Camera camera = gridCamera(side);
    renderer.render(scene, camera, target);
    gl::finish();
    const double afterStaged = residentMiB();
    batch.setUploadMode(UploadMode::Streaming);
    for (int frame = 0; frame < 3; ++frame) {  // every part of the streaming buffer written once
        batch.markInstancesChanged();
        renderer.render(scene, camera, target);
        gl::finish();
    }
    const double afterStreaming = residentMiB();

    const std::size_t capacity = batch.capacity();
    std::size_t slotCapacity = 16;
    while (slotCapacity < n) {
        slotCapacity *= 2;  // acquire() doubles the slot table from 16
    }
    std::size_t logEntries = 0;
    for (const InstanceStream& stream : batch.streams()) {
        logEntries += stream.changes().size();
    }
    struct Row {
        const char* what;
        double cpu;  // bytes per instance (of capacity)
        double gpu;
        const char* when;
    };
    const double perInstance = static_cast<double>(capacity);
    const Row rows[] = {
        {"record stream (InstanceRecord)", 64, 64, "always; GPU: Staged"},
        {"record stream, UploadMode::Streaming", 0, 3 * 64, "replaces the Staged copy: 3 parts"},
        {"morph weights stream", 4.0 * kMaxMorphTargets, 4.0 * kMaxMorphTargets, "first setMorphWeights()"},
        {"lanes stream (4 lanes; 16 bytes a lane, setLaneCount)", 64, 64, "first setLane()"},
        {"record -> handle table", 4, 0, "always"},
        {"handle slots (12 bytes, doubling)", 12.0 * static_cast<double>(slotCapacity) / perInstance, 0, "first acquire()"},
        {"change logs (bounded: 4,096 entries of 24 bytes per stream)", 24.0 * static_cast<double>(logEntries) / perInstance, 0, "entries pending now"},
        {"culling sphere cache (InstanceSpheres)", 16, 0, "InstanceCulling::Cpu"},
        {"visible-index list, per view (this frame's + the uploaded copy)", 8, 4, "per-instance culling or sorting"},
    };
    emit(out, "%s", "");
    emit(out, "| stream or table (%zu instances) | CPU bytes per instance | GPU bytes per instance | CPU MiB | GPU MiB | allocated when |", n);
    emit(out, "|---|---:|---:|---:|---:|---|");
    double cpuTotal = 0.0, gpuStaged = 0.0, gpuStreaming = 0.0;
    for (const Row& row : rows) {
        emit(out, "| %s | %.1f | %.1f | %.1f | %.1f | %s |", row.what, row.cpu, row.gpu, row.cpu * perInstance / kMiB,
                    row.gpu * perInstance / kMiB, row.when);
        cpuTotal += row.cpu * perInstance;
        const bool streamingRow = std::strstr(row.what, "Streaming") != nullptr;
        gpuStaged += streamingRow ? 0.0 : row.gpu * perInstance;
    }
    gpuStreaming = gpuStaged + (3 * 64 - 64) * perInstance;  // the three parts replace the staged copy
    // As grown by these renders (a first upload of n instances): from RendererDesc::stagingBytes
    // towards maxStagingBytes.
    const double ring = static_cast<double>(renderer.lastFrameStats().stagingBytes);
    emit(out, "| staging ring (per renderer, grown to what a frame sent) | | | | %.1f | RendererDesc::stagingBytes, maxStagingBytes |", ring / kMiB);
    emit(out, "| **myriad's own, computed** | %.1f | | %.1f | %.1f Staged, %.1f Streaming | |", cpuTotal / perInstance,
                cpuTotal / kMiB, (gpuStaged + ring) / kMiB, (gpuStreaming + ring) / kMiB);
    emit(out, "%s", "");
    emit(out, "| resident memory of this process (VmRSS) | MiB | growth MiB | of which myriad's (computed) MiB |");
    emit(out, "|---|---:|---:|---:|");
    emit(out, "| at start, before the GL context | %.1f | | |", rssAtStart);
    emit(out, "| after the EGL context and the renderer (driver, compiled programs) | %.1f | %.1f | |", rssAfterContext,
                rssAfterContext - rssAtStart);
    emit(out, "| before the batch | %.1f | | |", before);
    emit(out, "| batch of %zu constructed (records, record -> handle table) | %.1f | %.1f | %.1f |", n, afterConstruct,
                afterConstruct - before, perInstance * (64 + 4) / kMiB);
    emit(out, "| the game's handle vector reserved (16 bytes each, not myriad's) | %.1f | %.1f | |", afterGameVector,
                afterGameVector - afterConstruct);
    emit(out, "| %zu handles acquired (myriad's slot table; the game's vector of handles filled) | %.1f | %.1f | %.1f + %.1f the game's |", n,
         afterHandles, afterHandles - afterGameVector, 12.0 * static_cast<double>(slotCapacity) / kMiB,
         static_cast<double>(n * sizeof(InstanceHandle)) / kMiB);
    emit(out, "| lanes + morph weights allocated, per-instance culling on | %.1f | %.1f | %.1f |", afterStreams,
                afterStreams - afterHandles, perInstance * (64 + 4.0 * kMaxMorphTargets) / kMiB);
    emit(out, "| first render, Staged (GPU copies: driver memory on llvmpipe; spheres, visible list; the ring grown) | %.1f | %.1f | %.1f GPU + %.1f CPU + %.1f ring |",
                afterStaged, afterStaged - afterStreams, (perInstance * (64 + 64 + 4.0 * kMaxMorphTargets + 4)) / kMiB,
                perInstance * (16 + 8) / kMiB, (ring - static_cast<double>(gl::RendererDesc{}.stagingBytes)) / kMiB);
    emit(out, "| three renders, Streaming (3 parts of records) | %.1f | %.1f | %.1f |", afterStreaming,
                afterStreaming - afterStaged, perInstance * 3 * 64 / kMiB);
    emit(out, "| peak (VmHWM) | %.1f | | |", statusMiB("VmHWM"));
}

} // namespace

int main(int argc, char** argv) {
    Options options;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--quick") == 0) {
            options.quick = true;
        } else if (std::strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
            options.out = argv[++i];
        } else if (std::strcmp(argv[i], "--ogre") == 0 && i + 1 < argc) {
            options.ogre = argv[++i];
        } else if (std::strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
            options.only = argv[++i];
        } else if (std::strcmp(argv[i], "--plot-data") == 0 && i + 1 < argc) {
            options.plotData = argv[++i];
        } else {
            std::fprintf(stderr, "usage: %s [--quick] [--only SECTIONS] [--ogre RESULTS.txt] [--out FILE.md] [--plot-data FILE.dat]\n", argv[0]);
            return 2;
        }
    }
    auto want = [&](char section) { return options.only.empty() || options.only.find(section) != std::string::npos; };
    const double rssAtStart = residentMiB();  // before the GL context: the process alone
    egl::HeadlessContext context;
    gl::Renderer renderer;
    const double rssAfterContext = residentMiB();  // + the driver (Mesa, LLVM) and the renderer's programs
    Report report(options.out);
    report.line("# myriad benchmark results");
    report.blank();
    report.line("Driver: %s. Medians of several frames after a warm-up frame. \"myriad ms\" is "
                "myriad's own CPU work (update + bounds + cull + upload + the draw loop minus the time "
                "inside glDraw* calls: FrameStats::myriadMs); \"driver ms\" is the rest of render() "
                "(glDraw*, clear, fences) plus glFinish, where llvmpipe runs the vertex and fragment "
                "work on these same CPUs.",
                driverLine(context).c_str());

    const std::vector<std::size_t> counts = options.quick ? std::vector<std::size_t>{1000, 10000}
                                                          : std::vector<std::size_t>{1000, 10000, 100000, 1000000};
    Material material;
    material.shading = Shading::Unlit;
    auto cube = MeshGeometry::create(shapes::box(1.0f), "cube");
    auto triangle = MeshGeometry::create(shapes::triangle(), "triangle");
    std::vector<std::string> memoryLines;  // section 4's memory rows, measured before anything else
    if (want('4')) {
        memoryRows(memoryLines, renderer, cube, material, options.quick ? 100000 : 1000000, rssAtStart, rssAfterContext);
    }
    std::map<std::size_t, double> staticMyriad;  // at 64x64
    std::map<std::size_t, double> perNodeCpu;
    std::map<std::size_t, double> instancedCpu;
    std::map<std::size_t, double> instancedMyriad;
    std::map<std::size_t, double> perNodeMyriad;
    std::map<std::size_t, double> animatedNsPerInstance;
    std::map<std::size_t, double> animatedBulkNsPerInstance;
    std::map<std::size_t, double> animatedMyriadMs;  // setTransform rows at 64x64
    std::map<std::size_t, double> animatedStreamingNsPerInstance;
    double setTransformRate = 0.0;
    double handleRate = 0.0;
    double bulkHandleRate = 0.0;
    double handleFloorNs = 0.0;      // section 4: the overlapped memory floor of a pair
    double handleFloorBusyNs = 0.0;  // the same with a pair's other stores in each iteration
    double holeFloorNs = 0.0;        // the floor of a hole-filling layout (no move)
    double inPlaceFloorNs = 0.0;     // the floor of records that never move
    const std::size_t big = options.quick ? 100000 : 1000000;  // section 4's live instances
    std::map<std::pair<std::size_t, int>, double> rewriteRatio;  // (N, mode) -> ratio to memcpy
    double onePercentShare = 0.0;

    if (want('1')) {
    // ---- 1. The Ogre scene ---------------------------------------------------------------
    report.blank();
    report.line("## 1. Unit cubes on a grid, all in view (the Ogre InstanceManager scene)");
    report.blank();
    report.line("| N | target | scene | update ms | bounds ms | cull ms | upload ms | glDraw* ms | myriad ms | driver ms | draw calls | bytes/instance | bytes uploaded/frame | peak MiB |");
    report.line("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (std::size_t n : counts) {
        const std::size_t side = gridSide(n);
        const Camera camera = gridCamera(side);
        for (std::uint32_t size : {64u, 256u}) {
            gl::OffscreenTarget target(size, size);
            for (const char* mode : {"static", "animated", "animated, bulk", "animated, bulk, streaming"}) {
                Scene scene;
                const bool streaming = std::strstr(mode, "streaming") != nullptr;
                auto& batch = scene.root().emplace<InstancedMeshNode>(
                    cube, material, n, "cubes",
                    InstancedMeshOptions{.uploadMode = streaming ? UploadMode::Streaming : UploadMode::Staged});
                for (std::size_t i = 0; i < n; ++i) {
                    batch.addInstance(glm::translate(glm::mat4(1.0f), gridPosition(i, side)));
                }
                const bool animated = std::strcmp(mode, "static") != 0;
                const bool bulk = std::strstr(mode, "bulk") != nullptr;
                std::function<void(int)> update;
                std::function<void()> bounds;
                // The animation itself (turning about Y, bobbing) is the game's work, not
                // myriad's: two poses are computed up front and frames alternate between them,
                // so the timed update is only what myriad does with the transforms.
                std::vector<glm::mat4> poses[2];
                if (animated) {
                    for (int pose = 0; pose < 2; ++pose) {
                        poses[pose].resize(n);
                        for (std::size_t i = 0; i < n; ++i) {
                            poses[pose][i] = animatedTransform(i, side, static_cast<float>(pose) * 0.5f);
                        }
                    }
                }
                if (animated && !bulk) {
                    // One checked setTransform per instance: NaN and affine checks, bounds
                    // upkeep, dirty range.
                    update = [&](int frame) {
                        const std::vector<glm::mat4>& pose = poses[frame % 2];
                        for (std::size_t i = 0; i < n; ++i) {
                            batch.setTransform(i, pose[i]);
                        }
                    };
                } else if (bulk) {
                    // The bulk path: rows written straight into instanceData(), then one
                    // markInstancesChanged(); bounds are recomputed once, on read.
                    update = [&](int frame) {
                        const std::vector<glm::mat4>& pose = poses[frame % 2];
                        float* data = batch.instanceData().data();
                        for (std::size_t i = 0; i < n; ++i) {
                            const glm::mat4& m = pose[i];
                            float* r = data + i * 16;
                            for (int row = 0; row < 3; ++row) {
                                r[4 * row + 0] = m[0][row];
                                r[4 * row + 1] = m[1][row];
                                r[4 * row + 2] = m[2][row];
                                r[4 * row + 3] = m[3][row];
                            }
                        }
                        batch.markInstancesChanged();
                    };
                }
                if (animated && !streaming) {
                    // Bounds and the mirrored count: one pass over the records after a bulk write.
                    // (Streaming: culling asks for them, and the renderer's copy before culling
                    // derives them in the same pass, GpuResources::streamAhead.)
                    bounds = [&] {
                        (void)batch.localBounds();
                        (void)batch.mirroredCount();
                    };
                }
                const int frames = n >= 1000000 ? 3 : (n >= 100000 ? 5 : 9);
                const PhaseTimes t = runFrames(renderer, scene, camera, target, frames, update, bounds);
                report.line("| %zu | %ux%u | %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %u | 64 | %llu | %.0f |", n,
                            size, size, mode, t.update, t.bounds, t.cull, t.upload, t.draw, t.myriad, t.driver,
                            t.drawCalls, static_cast<unsigned long long>(t.bytesUploaded), peakMemoryMiB());
                if (size == 64 && !animated) {
                    staticMyriad[n] = t.myriad;
                }
                if (size == 64 && animated) {
                    const double ns = (t.update + t.bounds + t.upload) * 1.0e6 / static_cast<double>(n);
                    if (!streaming) {
                        (bulk ? animatedBulkNsPerInstance : animatedNsPerInstance)[n] = ns;
                    } else {
                        animatedStreamingNsPerInstance[n] = ns;
                    }
                    if (!bulk) {
                        animatedMyriadMs[n] = t.myriad;
                    }
                }
            }
        }
    }
    }

    const auto ogre = options.ogre.empty() ? decltype(readOgre("")){} : readOgre(options.ogre);
    if (!ogre.empty()) {
        report.blank();
        report.line("### Ogre 1.12 InstanceManager (HWInstancingBasic) in this run, beside myriad (64x64)");
        report.blank();
        report.line("Ogre's own work is its app update (setOrientation + setPosition) + pre (batch bounds) + cull + instance-buffer fill; "
                    "myriad's is update + bounds + cull + upload + draw loop (myriad ms above). Draw and glFinish are llvmpipe's in both.");
        report.blank();
        report.line("| N | scene | Ogre update | Ogre pre (bounds) | Ogre cull + fill | Ogre draw | Ogre glFinish | Ogre own ms | myriad ms | Ogre ns per instance | myriad ns per instance | ratio |");
        report.line("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (const auto& [key, run] : ogre) {
            const auto& [motion, n] = key;
            const bool animated = motion == "anim";
            double mine = -1.0;
            if (!animated && staticMyriad.count(n) != 0) {
                mine = staticMyriad[n];
            } else if (animated && animatedMyriadMs.count(n) != 0) {
                mine = animatedMyriadMs[n];
            }
            const double perN = 1.0e6 / static_cast<double>(n);
            report.line("| %zu | %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.1f | %.1f | %.0fx |", n,
                        animated ? "animated" : "static", run.update, run.pre, run.cull, run.draw, run.finish, run.own(), mine,
                        run.own() * perN, mine * perN, run.own() / std::max(mine, 1e-6));
        }
    }

    if (want('2')) {
    // ---- 2. Draw submission: instanced vs one draw per node -------------------------------
    report.blank();
    report.line("## 2. One draw per node against one instanced draw (one-triangle mesh, 64x64)");
    report.blank();
    report.line("| N | instanced CPU ms | per-node CPU ms | ratio | instanced myriad ms | per-node myriad ms | myriad ratio | draw calls (inst / per-node) |");
    report.line("|---:|---:|---:|---:|---:|---:|---:|---:|");
    {
        gl::OffscreenTarget target(64, 64);
        for (std::size_t n : counts) {
            if (n > 100000) {
                continue;  // a million MeshNodes is a minute a frame on llvmpipe
            }
            const std::size_t side = gridSide(n);
            const Camera camera = gridCamera(side);
            Scene instancedScene;
            auto& batch = instancedScene.root().emplace<InstancedMeshNode>(triangle, material, n, "batch");
            Scene perNodeScene;
            for (std::size_t i = 0; i < n; ++i) {
                const glm::mat4 m = glm::translate(glm::mat4(1.0f), gridPosition(i, side));
                batch.addInstance(m);
                perNodeScene.root().emplace<MeshNode>(triangle, material).setLocalMatrix(m);
            }
            const int frames = n >= 100000 ? 3 : 7;
            const PhaseTimes a = runFrames(renderer, instancedScene, camera, target, frames, {}, {});
            const PhaseTimes b = runFrames(renderer, perNodeScene, camera, target, frames, {}, {});
            const double cpuA = a.myriad + a.draw;  // myriad + the glDraw* calls it issues
            const double cpuB = b.myriad + b.draw;
            instancedCpu[n] = cpuA;
            perNodeCpu[n] = cpuB;
            instancedMyriad[n] = a.myriad;
            perNodeMyriad[n] = b.myriad;
            report.line("| %zu | %.3f | %.3f | %.1fx | %.3f | %.3f | %.0fx | %u / %u |", n, cpuA, cpuB,
                        cpuB / std::max(cpuA, 1e-6), a.myriad, b.myriad, b.myriad / std::max(a.myriad, 1e-6),
                        a.drawCalls, b.drawCalls);
        }
    }
    }

    if (want('3')) {
    // ---- 3. Static batches: what a batch costs when nothing changes --------------------------
    // A static batch's per-instance cost is zero (nothing uploads); what remains per frame is a
    // fixed cost per batch (cull test, cursor check, uniforms, one draw). 16 cubes per batch, so
    // the driver's vertex work stays small and the per-batch overhead shows.
    report.blank();
    report.line("## 3. Static batches: per-frame cost of N batches of 16 cubes, nothing changing (64x64)");
    report.blank();
    report.line("| batches | per-instance culling | instances | draw calls | myriad ms/frame | myriad us/batch | cull ms | glDraw* ms | bytes uploaded/frame |");
    report.line("|---:|---|---:|---:|---:|---:|---:|---:|---:|");
    gl::OffscreenTarget target(64, 64);
    double targetPerBatchUs = 0.0;
    std::uint32_t targetDrawCalls = 0;
    std::size_t targetPrograms = 0;
    // Off: culled as whole batches. Gpu: every batch's instances tested by the view's one job
    // dispatch, which counts the visible ones into each batch's command of the shared
    // multi-draw. The first 10,000-batch row of a process is slower whichever it is (4x in
    // glDraw* on llvmpipe, up to 40% in myriad's CPU; a warm-up run or a fresh renderer did not
    // change it): compare rows across several runs, not the first row of one with the rest.
    const std::pair<std::size_t, InstanceCulling> rows[] = {
        {1, InstanceCulling::Off},    {100, InstanceCulling::Off}, {10000, InstanceCulling::Off},
        {100, InstanceCulling::Gpu},  {10000, InstanceCulling::Gpu}};
    for (const auto& [batches, culling] : rows) {
        if (options.quick && batches > 100) {
            continue;
        }
        constexpr std::size_t kPerBatch = 16;
        const std::size_t side = gridSide(batches * kPerBatch);
        Scene scene;
        for (std::size_t b = 0; b < batches; ++b) {
            auto& batch = scene.root().emplace<InstancedMeshNode>(cube, material, kPerBatch);
            for (std::size_t i = 0; i < kPerBatch; ++i) {
                batch.addInstance(glm::translate(glm::mat4(1.0f), gridPosition(b * kPerBatch + i, side)));
            }
            batch.setInstanceCulling(culling);
        }
        const PhaseTimes t = runFrames(renderer, scene, gridCamera(side), target, batches >= 10000 ? 3 : 7, {}, {});
        const double perBatch = 1000.0 * t.myriad / static_cast<double>(batches);
        report.line("| %zu | %s | %zu | %u | %.3f | %.2f | %.3f | %.3f | %llu |", batches,
                    culling == InstanceCulling::Gpu ? "GPU" : "off", batches * kPerBatch, t.drawCalls, t.myriad,
                    perBatch, t.cull, t.draw, static_cast<unsigned long long>(t.bytesUploaded));
        if (batches == 10000 && culling == InstanceCulling::Off) {
            // Issue 19's targets for the table-driven draw path: <= 1 us of myriad's CPU per
            // static batch, and no more draw calls than the program variants they use (one
            // multi-draw per variant group, renderer/DrawTable.h).
            targetPerBatchUs = perBatch;
            targetDrawCalls = t.drawCalls;
            targetPrograms = renderer.programCount();
        }
    }
    if (targetDrawCalls != 0) {
        report.blank();
        report.line("Targets (issue 19): %.2f us of myriad's CPU per static batch at 10,000 (goal <= 1 us): %s; "
                    "%u draw calls for %zu program variants compiled (goal: draw calls <= variants): %s",
                    targetPerBatchUs, targetPerBatchUs <= 1.0 ? "PASS" : "MISS", targetDrawCalls, targetPrograms,
                    targetDrawCalls <= targetPrograms ? "PASS" : "MISS");
    }
    }

    if (want('4')) {
    // ---- 4. Updates ------------------------------------------------------------------------
    report.blank();
    report.line("## 4. Update rates, and a full rewrite of every record against memcpy");
    report.blank();
    {
        const std::size_t side = gridSide(big);
        InstancedMeshNode batch(cube, material, big, "updates");
        std::vector<InstanceHandle> handles;
        handles.reserve(big);
        for (std::size_t i = 0; i < big; ++i) {
            handles.push_back(batch.acquire({glm::translate(glm::mat4(1.0f), gridPosition(i, side)), glm::vec4(1.0f)}));
        }
        report.line("| operation (%zu live instances) | operations | ms | million per second | ns each |", big);
        report.line("|---|---:|---:|---:|---:|");
        auto rate = [&](const char* name, const std::function<void()>& work, std::size_t operations = 0) {
            operations = operations == 0 ? big : operations;
            const auto start = Clock::now();
            work();
            const double ms = millisecondsSince(start);
            const double perSecond = static_cast<double>(operations) / ms / 1000.0;
            report.line("| %s | %zu | %.2f | %.1f | %.1f |", name, operations, ms, perSecond, 1000.0 / perSecond);
            return perSecond;
        };
        // The animation maths is the game's work, not myriad's: poses are computed before timing.
        std::vector<glm::mat4> poses(big);
        for (std::size_t i = 0; i < big; ++i) {
            poses[i] = animatedTransform(i, side, 1.0f);
        }
        setTransformRate = rate("setTransform (checked: NaN, affine, bounds, mirroring)", [&] {
            for (std::size_t i = 0; i < big; ++i) {
                batch.setTransform(i, poses[i]);
            }
        });
        poses = {};
        rate("setColor", [&] {
            for (std::size_t i = 0; i < big; ++i) {
                batch.setColor(i, glm::vec4(0.5f));
            }
        });
        std::mt19937 random(1u);
        std::vector<std::size_t> order(big);
        for (std::size_t& k : order) {
            k = random() % big;
        }
        const InstanceDesc fresh{glm::mat4(1.0f), glm::vec4(1.0f)};
        handleRate = rate("release + acquire (random handle)", [&] {
            for (std::size_t i = 0; i < big; ++i) {
                const std::size_t k = order[i];
                batch.release(handles[k]);
                handles[k] = batch.acquire(fresh);
            }
        });
        // Where a pair's time goes (docs/performance.md): each half alone on random handles, the
        // change log alone, and the memory floor of the same random accesses without myriad
        // (handle -> slot -> record, the swap-remove's 64-byte move and the moved record's slot;
        // the tables in myriad's own allocation, the handles in the game's vector): once as a
        // tight loop, which keeps several pairs' misses in flight, and once with 48 more plain
        // stores to hot memory in each iteration, about what a real pair executes besides its
        // misses (counters, versions, the log entry, the slot, saved registers), which is
        // enough to take that overlap away.
        const std::size_t part = big / 4;
        std::vector<std::size_t> distinct(big);
        for (std::size_t i = 0; i < big; ++i) {
            distinct[i] = i;
        }
        std::shuffle(distinct.begin(), distinct.end(), random);
        distinct.resize(part);
        const double releaseNs = 1000.0 / rate("  of which: release alone (random handles)", [&] {
            for (std::size_t i = 0; i < part; ++i) {
                batch.release(handles[distinct[i]]);
            }
        }, part);
        const double acquireNs = 1000.0 / rate("  of which: acquire alone", [&] {
            for (std::size_t i = 0; i < part; ++i) {
                handles[distinct[i]] = batch.acquire(fresh);
            }
        }, part);
        double logNs = 0.0;
        {
            ChangeLog log;
            std::uint64_t version = 1;
            logNs = 1000.0 / rate("  of which: change-log entries alone (2 per pair)", [&] {
                for (std::size_t i = 0; i < big; ++i) {
                    log.add(order[i], order[i] + 1, ++version);
                    log.add(big - 1, big, ++version);
                }
            });
        }
        {
            struct Slot { std::uint32_t index, generation; bool live; };
            std::vector<InstanceHandle> fakeHandles(big);
            std::vector<Slot, detail::LargeArrayAllocator<Slot>> slots(big);
            std::vector<InstanceRecord, detail::LargeArrayAllocator<InstanceRecord>> records(big);
            std::vector<std::uint32_t, detail::LargeArrayAllocator<std::uint32_t>> slotOf(big);
            for (std::size_t i = 0; i < big; ++i) {
                fakeHandles[i].slot = static_cast<std::uint32_t>((i * 7919) % big);
                slots[fakeHandles[i].slot] = {static_cast<std::uint32_t>(i), 1, true};
                slotOf[i] = fakeHandles[i].slot;
            }
            [[maybe_unused]] static volatile std::size_t hot[64];
            auto floorLoop = [&](int extraStores) {
                const std::size_t last = big - 1;
                for (std::size_t i = 0; i < big; ++i) {
                    const std::uint32_t slot = fakeHandles[order[i]].slot;
                    const std::uint32_t index = slots[slot].index;
                    records[index] = records[last];
                    const std::uint32_t moved = slotOf[last];
                    slotOf[index] = moved;
                    slots[moved].index = index;
                    slots[slot].index = static_cast<std::uint32_t>(last);
                    slotOf[last] = slot;
                    for (int k = 0; k < extraStores; ++k) {
                        hot[k] = i + static_cast<std::size_t>(k);
                    }
                }
            };
            handleFloorNs = 1000.0 / rate("  memory floor: the same random loads and 64-byte moves, no checks", [&] { floorLoop(0); });
            handleFloorBusyNs = 1000.0 / rate("  memory floor with 48 more hot stores per pair (a pair's other work)", [&] { floorLoop(48); });
            // The floors of the two layouts that move less, measured the same way (no checks, no
            // log), to show what the target would need: release leaves a hole that the next
            // acquire fills with the same slot (no move, compaction deferred; the handle table
            // stays, so handle -> slot -> record remains a chain of two misses), and records that
            // never move (a handle names its record; holes are drawn or compacted later, so
            // count() no longer means "records [0, count) are the instances").
            const InstanceRecord freshRecord{};
            holeFloorNs = 1000.0 / rate("  floor of another layout: release leaves a hole, the next acquire fills it (no move)", [&] {
                for (std::size_t i = 0; i < big; ++i) {
                    InstanceHandle& handle = fakeHandles[order[i]];
                    Slot& slot = slots[handle.slot];
                    slot.generation += slot.generation == handle.generation ? 1u : 0u;
                    records[slot.index] = freshRecord;
                    handle.generation = slot.generation;
                }
            });
            std::vector<std::uint32_t, detail::LargeArrayAllocator<std::uint32_t>> generations(big, 1);
            inPlaceFloorNs = 1000.0 / rate("  floor of another layout: records never move (a handle is its record's index)", [&] {
                for (std::size_t i = 0; i < big; ++i) {
                    InstanceHandle& handle = fakeHandles[order[i]];
                    std::uint32_t& generation = generations[handle.slot];
                    generation += generation == handle.generation ? 1u : 0u;
                    records[handle.slot] = freshRecord;
                    handle.generation = generation;
                }
            });
        }
        report.line("|   sum of release alone + acquire alone + change log | | | | %.1f |", releaseNs + acquireNs + logNs);
        // Bulk release: the same random pairs, 1,024 handles per release(span) call.
        {
            std::vector<InstanceHandle> chunk;
            std::vector<std::size_t> picked;
            std::vector<char> taken(big, 0);
            double pairsMs = 0.0;
            std::size_t pairs = 0;
            for (std::size_t i = 0; i + 1024 <= big; i += 1024) {
                chunk.clear();
                picked.clear();
                for (std::size_t j = i; j < i + 1024; ++j) {
                    if (taken[order[j]] == 0) {
                        taken[order[j]] = 1;
                        picked.push_back(order[j]);
                        chunk.push_back(handles[order[j]]);
                    }
                }
                const auto start = Clock::now();
                batch.release(chunk);
                for (InstanceHandle& handle : chunk) {
                    handle = batch.acquire(fresh);
                }
                pairsMs += millisecondsSince(start);
                pairs += chunk.size();
                for (std::size_t j = 0; j < picked.size(); ++j) {
                    handles[picked[j]] = chunk[j];
                    taken[picked[j]] = 0;
                }
            }
            const double perSecond = static_cast<double>(pairs) / pairsMs / 1000.0;
            bulkHandleRate = perSecond;
            report.line("| release(span of 1,024 random handles) + 1,024 acquire | %zu | %.2f | %.1f | %.1f |", pairs, pairsMs,
                        perSecond, 1000.0 / perSecond);
        }

        // A full rewrite through instanceData + bounds + upload, next to memcpy of the same bytes,
        // for each upload mode (and a bounds override, which removes the bounds maths). Nothing
        // asks for the bounds outside render(): culling does, as in a game. Staged: culling runs
        // the bounds + mirrored pass, prepare copies through the staging ring. Streaming: the
        // frame's copy is made before culling by the one pass that also derives the bounds and
        // mirrored count (GpuResources::streamAhead, InstancedMeshNode::copyDrawnRecords).
        report.blank();
        // The machine may be shared: besides the medians, the ratio of the fastest frame to the
        // fastest memcpy (the least disturbed of each) is printed too.
        report.line("| N | upload mode | bytes | rewrite ms | cull ms | upload ms | total (myriad) ms | memcpy ms | ratio | ratio, fastest | ns per instance |");
        report.line("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (const std::size_t n : {std::size_t{100000}, big}) {
            for (int mode = 0; mode < 3; ++mode) {
                Scene scene;
                auto& all = scene.root().emplace<InstancedMeshNode>(
                    triangle, material, n, "rewrite",
                    InstancedMeshOptions{.uploadMode = mode == 0 ? UploadMode::Staged : UploadMode::Streaming});
                all.setCount(n);
                if (mode == 2) {
                    all.setBoundsOverride({glm::vec3(-1.0f), glm::vec3(static_cast<float>(side) * 2.0f + 1.0f)});
                }
                gl::OffscreenTarget target(64, 64);
                const Camera camera = gridCamera(gridSide(n));
                std::vector<float> source(n * 16, 1.0f);
                std::vector<float> destination(n * 16, 0.0f);
                std::vector<double> writes, culls, uploads, totals, copies;
                for (int r = -2; r < 9; ++r) {
                    source[0] = static_cast<float>(r);
                    auto start = Clock::now();
                    std::memcpy(all.instanceData().data(), source.data(), source.size() * sizeof(float));
                    all.markInstancesChanged();
                    const double writeMs = millisecondsSince(start);
                    renderer.render(scene, camera, target);
                    const gl::FrameStats& frameStats = renderer.lastFrameStats();
                    const double myriadMs = writeMs + frameStats.myriadMs();
                    gl::finish();
                    start = Clock::now();
                    std::memcpy(destination.data(), source.data(), source.size() * sizeof(float));
                    const double copyMs = millisecondsSince(start);
                    if (r >= 0) {  // two warm-up frames: the streaming parts are first touched then
                        writes.push_back(writeMs);
                        culls.push_back(frameStats.cullMs);
                        uploads.push_back(frameStats.uploadMs);
                        totals.push_back(myriadMs);
                        copies.push_back(copyMs);
                    }
                }
                const double total = median(totals);
                const double copyMs = median(copies);
                const char* modeName = mode == 0 ? "Staged" : (mode == 1 ? "Streaming" : "Streaming + bounds override");
                const double fastest = *std::min_element(totals.begin(), totals.end()) /
                                       std::max(*std::min_element(copies.begin(), copies.end()), 1e-6);
                report.line("| %zu | %s | %zu | %.3f | %.3f | %.3f | %.3f | %.3f | %.2fx | %.2fx | %.1f |", n, modeName, n * 64,
                            median(writes), median(culls), median(uploads), total, copyMs,
                            total / std::max(copyMs, 1e-6), fastest, total * 1.0e6 / static_cast<double>(n));
                // The verdict takes the larger of the two: a memcpy slowed by a neighbour must not pass a row.
                rewriteRatio[{n, mode}] = std::max(total / std::max(copyMs, 1e-6), fastest);
            }
        }

        // The pass itself, on the node alone (no renderer): what each part costs next to memcpy.
        report.blank();
        report.line("| N | one pass over the records (into a 64-byte aligned buffer) | ms | ns per instance | x memcpy |");
        report.line("|---:|---|---:|---:|---:|");
        for (const std::size_t n : {std::size_t{100000}, big}) {
            InstancedMeshNode passBatch(cube, material, n, "pass");
            for (std::size_t i = 0; i < n; ++i) {
                glm::mat4 m = animatedTransform(i, gridSide(n), 0.25f);
                if (i % 3 == 0) {
                    m = glm::scale(m, glm::vec3(-1.0f, 1.0f, 1.0f));  // some mirrored
                }
                passBatch.addInstance(m);
            }
            const std::size_t bytes = n * InstancedMeshNode::strideInBytes;
            auto* out = static_cast<std::byte*>(std::aligned_alloc(64, bytes));
            const std::span<std::byte> destination(out, bytes);
            auto timed = [&](const std::function<void()>& before, const std::function<void()>& work) {
                std::vector<double> samples;
                for (int r = -1; r < 7; ++r) {
                    before();
                    const auto start = Clock::now();
                    work();
                    const double ms = millisecondsSince(start);
                    if (r >= 0) {
                        samples.push_back(ms);
                    }
                }
                return median(samples);
            };
            const double copyMs = timed([] {}, [&] { std::memcpy(out, passBatch.instanceBytes().data(), bytes); });
            auto row = [&](const char* name, double ms) {
                report.line("| %zu | %s | %.3f | %.1f | %.2fx |", n, name, ms, ms * 1.0e6 / static_cast<double>(n),
                            ms / std::max(copyMs, 1e-6));
            };
            row("memcpy of the records", copyMs);
            row("copyDrawnRecords, nothing stale (a plain copy)", timed([] {}, [&] { passBatch.copyDrawnRecords(destination); }));
            row("copyDrawnRecords after a rewrite: copy + bounds + mirrored count (the fused pass)",
                timed([&] { passBatch.markInstancesChanged(); }, [&] { passBatch.copyDrawnRecords(destination); }));
            row("localBounds() + mirroredCount() after a rewrite: the same pass without the copy",
                timed([&] { passBatch.markInstancesChanged(); }, [&] {
                    (void)passBatch.localBounds();
                    (void)passBatch.mirroredCount();
                }));
            passBatch.setBoundsOverride({glm::vec3(-1.0e6f), glm::vec3(1.0e6f)});
            row("copyDrawnRecords after a rewrite, bounds override: copy + mirrored count",
                timed([&] { passBatch.markInstancesChanged(); }, [&] { passBatch.copyDrawnRecords(destination); }));
            std::free(out);
        }

        // SceneNode::subtreeBounds() (issue 25): cached, against the union worked out from
        // scratch (what every call cost before, and still the cost once everything moved).
        {
            SceneNode tree("tree");
            std::vector<MeshNode*> leaves;
            SceneNode* level = &tree;
            for (int depth = 0; depth < 100; ++depth) {  // 100 levels deep, 100 meshes on each
                for (int i = 0; i < 100; ++i) {
                    leaves.push_back(&level->emplace<MeshNode>(cube, material, "leaf"));
                    leaves.back()->setPosition(glm::dvec3(i, depth, 0.0));
                }
                level = &level->emplace<SceneNode>("level");
                level->setPosition(glm::dvec3(0.0, 0.0, -1.0));
            }
            auto fromScratch = [&] {
                Aabb bounds;
                tree.traverse([&](const SceneNode& node) { bounds.extend(node.ownBounds()); });
                return bounds;
            };
            auto perCall = [&](const std::function<void(int)>& change, const std::function<void()>& call) {
                std::vector<double> samples;
                for (int r = -1; r < 7; ++r) {
                    const auto start = Clock::now();
                    for (int k = 0; k < 100; ++k) {
                        change(k);
                        call();
                    }
                    if (r >= 0) {
                        samples.push_back(millisecondsSince(start) * 1.0e3 / 100.0);
                    }
                }
                return median(samples);
            };
            const double scratchUs = perCall([](int) {}, [&] { (void)fromScratch(); });
            const double cachedUs = perCall([](int) {}, [&] { (void)tree.subtreeBounds(); });
            const double leafUs = perCall([&](int k) { leaves[static_cast<std::size_t>(k) * 97 % leaves.size()]->translate(glm::vec3(0.0f, 0.0f, 0.001f)); },
                                          [&] { (void)tree.subtreeBounds(); });
            const double rootUs = perCall([&](int) { tree.translate(glm::vec3(0.001f, 0.0f, 0.0f)); }, [&] { (void)tree.subtreeBounds(); });
            report.blank();
            report.line("| subtreeBounds() of a tree of %zu meshes, 100 levels deep | us per call | x from scratch |", leaves.size());
            report.line("|---|---:|---:|");
            report.line("| the union worked out from scratch (every node asked) | %.2f | 1.00x |", scratchUs);
            report.line("| cached, nothing moved | %.3f | %.1ex |", cachedUs, cachedUs / std::max(scratchUs, 1e-9));
            report.line("| cached, one mesh moved before each call | %.2f | %.3fx |", leafUs, leafUs / std::max(scratchUs, 1e-9));
            report.line("| cached, the root moved before each call (everything recomputed) | %.2f | %.2fx |", rootUs, rootUs / std::max(scratchUs, 1e-9));
        }
        for (const std::string& line : memoryLines) {
            report.line("%s", line.c_str());
        }
    }
    }

    if (want('5')) {
    // ---- 5. Partial updates ---------------------------------------------------------------
    report.blank();
    report.line("## 5. Partial updates at N = 100,000");
    report.blank();
    report.line("| changed | pattern | bytes uploaded | share of full | GPU copies | upload ms | myriad ms |");
    report.line("|---:|---|---:|---:|---:|---:|---:|");
    {
        const std::size_t n = 100000;
        const std::size_t side = gridSide(n);
        Scene scene;
        auto& batch = scene.root().emplace<InstancedMeshNode>(triangle, material, n, "partial");
        for (std::size_t i = 0; i < n; ++i) {
            batch.addInstance(glm::translate(glm::mat4(1.0f), gridPosition(i, side)));
        }
        gl::OffscreenTarget target(64, 64);
        const Camera camera = gridCamera(side);
        renderer.render(scene, camera, target);
        gl::finish();
        for (const double share : {0.01, 0.10, 1.0}) {
            for (const bool scattered : {false, true}) {
                const auto changed = static_cast<std::size_t>(static_cast<double>(n) * share);
                const std::size_t stride = scattered ? n / changed : 1;
                const auto start = Clock::now();
                for (std::size_t k = 0; k < changed; ++k) {
                    batch.setColor(k * stride, glm::vec4(0.9f));
                }
                renderer.render(scene, camera, target);
                const gl::FrameStats& stats = renderer.lastFrameStats();
                const double myriadMs = millisecondsSince(start) - stats.frameMs + stats.myriadMs();
                gl::finish();
                const double fraction = static_cast<double>(stats.bytesUploaded) / static_cast<double>(n * 64);
                if (share == 0.01 && !scattered) {
                    onePercentShare = fraction;
                }
                report.line("| %.0f%% | %s | %llu | %.1f%% | %u | %.3f | %.3f |", share * 100.0,
                            scattered ? "every Nth" : "contiguous", static_cast<unsigned long long>(stats.bytesUploaded),
                            100.0 * fraction, stats.uploadRanges, stats.uploadMs, myriadMs);
            }
        }
    }
    }

    if (want('5')) {
    // ---- 5b. The upload ring's waits ----------------------------------------------------------
    // A first upload of a big batch (64 MB of records at 1M) and steady frames after it, each
    // through a fresh renderer: the ring fixed at 4 MiB (maxStagingBytes below it), and the
    // ring that grows to its 64 MiB default bound. No glFinish between frames (as with vsync
    // off or offscreen). llvmpipe copies at once, so it rarely makes the ring wait; the rows
    // "GPU 3 frames behind" answer a poll of a fence from this frame or the two before "not
    // yet" (LaggingGpu), as a GPU that queues copies behind earlier frames would, and let
    // waits go to the driver: those rows count the waits such a GPU makes the ring take.
    const std::size_t n = options.quick ? 100000 : 1000000;
    report.blank();
    report.line("### Upload ring waits at N = %zu (%.0f MiB of records)", n, static_cast<double>(n * 64) / (1024.0 * 1024.0));
    report.blank();
    report.line("| ring | GPU | frame | waits per frame | ring MiB after | upload ms | frame ms |");
    report.line("|---|---|---|---:|---:|---:|---:|");
    for (const int config : {0, 1, 2, 3}) {
        const bool grows = config % 2 == 1;
        const bool behind = config >= 2;
        gl::RendererDesc desc;
        desc.maxStagingBytes = grows ? desc.maxStagingBytes : 0;
        gl::Renderer ringRenderer(desc);
        std::optional<LaggingGpu> lagging;
        if (behind) {
            lagging.emplace();
        }
        const char* name = grows ? "grows 4 -> 64 MiB (default)" : "fixed 4 MiB";
        const char* gpu = behind ? "3 frames behind" : "driver as is";
        const std::size_t side = gridSide(n);
        Scene scene;
        auto& batch = scene.root().emplace<InstancedMeshNode>(triangle, material, n, "ring");
        for (std::size_t i = 0; i < n; ++i) {
            batch.addInstance(glm::translate(glm::mat4(1.0f), gridPosition(i, side)));
        }
        gl::OffscreenTarget target(64, 64);
        const Camera camera = gridCamera(side);
        auto row = [&](const char* frame, int frames, const std::function<void(int)>& change) {
            std::uint64_t waits = 0;
            std::vector<double> upload, whole;
            for (int f = 0; f < frames; ++f) {
                change(f);
                LaggingGpu::nextFrame();
                ringRenderer.render(scene, camera, target);
                const gl::FrameStats& stats = ringRenderer.lastFrameStats();
                waits += stats.uploadWaits;
                upload.push_back(stats.uploadMs);
                whole.push_back(stats.frameMs);
            }
            report.line("| %s | %s | %s | %.1f | %.0f | %.2f | %.2f |", name, gpu, frame,
                        static_cast<double>(waits) / static_cast<double>(frames),
                        static_cast<double>(ringRenderer.lastFrameStats().stagingBytes) / (1024.0 * 1024.0),
                        median(upload), median(whole));
        };
        row("first upload (every record)", 1, [](int) {});
        row("steady, 1% of records changed", 10, [&](int f) {
            for (std::size_t k = 0; k < n / 100; ++k) {
                batch.setColor((static_cast<std::size_t>(f) * 7919 + k) % n, glm::vec4(0.9f));
            }
        });
        row("steady, every record rewritten (Staged)", 10, [&](int) { batch.markInstancesChanged(); });
        gl::finish();
    }
    }

    if (want('6')) {
    // ---- 6. Culling and morph weights ------------------------------------------------------
    report.blank();
    report.line("## 6. Culling and morph weights");
    report.blank();
    report.line("| row | N | myriad ms | driver ms | draw calls | bytes uploaded/frame |");
    report.line("|---|---:|---:|---:|---:|---:|");
    {
        gl::OffscreenTarget target(64, 64);
        const std::size_t n = 100000;
        const std::size_t side = gridSide(n);
        // 100 batches of 1,000 cubes, half of them behind the camera: culled as whole spheres.
        Scene scene;
        for (std::size_t b = 0; b < 100; ++b) {
            auto& batch = scene.root().emplace<InstancedMeshNode>(cube, material, 1000, "batch");
            batch.setPosition(glm::dvec3(0.0, 0.0, b < 50 ? 0.0 : 100000.0));
            for (std::size_t i = 0; i < 1000; ++i) {
                batch.addInstance(glm::translate(glm::mat4(1.0f), gridPosition(b * 1000 + i, side)));
            }
        }
        const PhaseTimes t = runFrames(renderer, scene, gridCamera(side), target, 5, {}, {});
        report.line("| 100 batches of 1,000 cubes, 50 culled | %zu | %.3f | %.3f | %u | %llu |", n, t.myriad, t.driver,
                    t.drawCalls, static_cast<unsigned long long>(t.bytesUploaded));

        MeshData data = shapes::uvSphere(0.5f, 16, 8);
        MorphTarget lift;
        lift.positionDeltas.assign(data.positions.size(), glm::vec3(0.0f, 0.2f, 0.0f));
        data.morphTargets = {lift, lift};
        auto morphing = MeshGeometry::create(data, "morphing");
        Scene crowd;
        auto& copies = crowd.root().emplace<InstancedMeshNode>(morphing, material, 2000, "crowd");
        for (std::size_t i = 0; i < 2000; ++i) {
            copies.addInstance(glm::translate(glm::mat4(1.0f), gridPosition(i, 45)));
        }
        std::vector<float> weights = {0.0f, 0.5f};
        const PhaseTimes m = runFrames(renderer, crowd, gridCamera(45), target, 5,
                                       [&](int frame) {
                                           for (std::size_t i = 0; i < 2000; ++i) {
                                               weights[0] = 0.5f + 0.5f * std::sin(static_cast<float>(frame + i));
                                               copies.setMorphWeights(i, weights);
                                           }
                                       },
                                       {});
        report.line("| 2,000 morphing copies, own weights every frame | 2000 | %.3f | %.3f | %u | %llu |", m.myriad,
                    m.driver, m.drawCalls, static_cast<unsigned long long>(m.bytesUploaded));
    }
    }

    if (want('9')) {
    // ---- 9. Parallel fill: instanceData() written by 1 and by 2 threads ----------------------
    // The allowed pattern of docs/threads.md: disjoint ranges of instanceData() written by
    // workers, one markInstancesChanged() after the join. Every record is rewritten (a moving
    // swarm); the row shows whether the writes scale with cores.
    report.blank();
    report.line("## 9. Parallel fill of every record through instanceData() (docs/threads.md)");
    report.blank();
    report.line("| N | threads | fill ms | M records/s | speed-up |");
    report.line("|---:|---:|---:|---:|---:|");
    const std::size_t n = options.quick ? 100000 : 1000000;
    InstancedMeshNode batch(cube, material, n, "parallel-fill");
    batch.setCount(n);
    double oneThreadMs = 0.0;
    for (const unsigned threads : {1u, 2u}) {
        std::vector<double> samples;
        for (int repeat = 0; repeat < 7; ++repeat) {
            const std::span<float> data = batch.instanceData();
            const float phase = static_cast<float>(repeat);
            auto fill = [data, phase](std::size_t begin, std::size_t end) {
                for (std::size_t i = begin; i < end; ++i) {
                    float* r = data.data() + i * InstancedMeshNode::floatsPerInstance;
                    const float angle = 0.001f * static_cast<float>(i) + phase;
                    const float c = std::cos(angle);
                    const float sn = std::sin(angle);
                    r[0] = c, r[1] = 0.0f, r[2] = sn, r[3] = static_cast<float>(i % 1000);
                    r[4] = 0.0f, r[5] = 1.0f, r[6] = 0.0f, r[7] = phase;
                    r[8] = -sn, r[9] = 0.0f, r[10] = c, r[11] = static_cast<float>(i / 1000);
                    r[12] = r[13] = r[14] = r[15] = 1.0f;
                }
            };
            const auto start = Clock::now();
            std::vector<std::thread> workers;
            const std::size_t chunk = (n + threads - 1) / threads;
            for (unsigned t = 1; t < threads; ++t) {
                workers.emplace_back(fill, t * chunk, std::min(n, (t + 1) * chunk));
            }
            fill(0, std::min(n, chunk));
            for (std::thread& worker : workers) {
                worker.join();
            }
            batch.markInstancesChanged(0, n);
            samples.push_back(millisecondsSince(start));
        }
        const double ms = median(samples);
        if (threads == 1) {
            oneThreadMs = ms;
        }
        report.line("| %zu | %u | %.2f | %.1f | %.2fx |", n, threads, ms, static_cast<double>(n) / ms / 1000.0,
                    oneThreadMs / std::max(ms, 1e-9));
    }
    }

    if (want('8')) {
        lanesRows(report, renderer, options.quick);
    }
    if (want('7')) {
        cofactorRow(report, options.quick);
    }

    // ---- Targets ---------------------------------------------------------------------------
    report.blank();
    report.line("## Targets");
    report.blank();
    report.line("| target | measured | verdict |");
    report.line("|---|---|---|");
    const std::size_t largest = counts.back();
    if (staticMyriad.count(1000) != 0) {
        const double ratio = staticMyriad[largest] / std::max(staticMyriad[1000], 1e-6);
        report.line("| static scene: myriad ms at %zu within 2x of 1k | %.3f ms vs %.3f ms (%.2fx) | %s |", largest,
                    staticMyriad[largest], staticMyriad[1000], ratio, verdict(ratio <= 2.0));
    }
    const bool ogreMeasured = ogre.count({"static", 100000}) != 0;
    const double ogreStatic = ogreMeasured ? ogre.at({"static", 100000}).own() : kOgreStaticMs100k;
    const char* ogreSource = ogreMeasured ? "measured in this run" : "typed in (not measured here)";
    if (staticMyriad.count(100000) != 0) {
        const double below = ogreStatic / std::max(staticMyriad[100000], 1e-6);
        report.line("| static scene at 100k: 50x below Ogre's %.2f ms (%s) | %.3f ms (%.0fx below) | %s |", ogreStatic, ogreSource,
                    staticMyriad[100000], below, verdict(below >= 50.0));
    }
    const double ogreAnimatedNs = ogre.count({"anim", 100000}) != 0 ? ogre.at({"anim", 100000}).own() * 1.0e6 / 100000.0
                                                                     : kOgreAnimatedNsPerInstance;
    for (const auto* series : {&animatedNsPerInstance, &animatedBulkNsPerInstance, &animatedStreamingNsPerInstance}) {
        if (series->empty()) {
            continue;
        }
        const std::size_t n = series->count(100000) != 0 ? 100000 : largest;
        const double ns = series->at(n);
        report.line("| every instance moving (%s): update + bounds + upload 10x below Ogre's %.0f ns per instance (%s) | %.1f ns per instance at %zu | %s |",
                    series == &animatedNsPerInstance ? "setTransform" : (series == &animatedBulkNsPerInstance ? "bulk instanceData, staged" : "bulk instanceData, streaming"), ogreAnimatedNs,
                    ogre.count({"anim", 100000}) != 0 ? "measured in this run" : "typed in (not measured here)", ns, n,
                    verdict(ns * 10.0 <= ogreAnimatedNs));
    }
    for (const auto& [key, ratio] : rewriteRatio) {
        if (key.second == 0) {
            continue;
        }
        report.line("| every instance moving, bulk path (%s): rewrite + bounds + upload within 2x of memcpy at %zu | %.2fx (the larger of median and fastest-frame ratios) | %s |",
                    key.second == 1 ? "Streaming" : "Streaming + bounds override", key.first, ratio, verdict(ratio <= 2.0));
    }
    if (setTransformRate > 0.0) {
        report.line("| every instance moving through checked setTransform: >= 30 million per second | %.1f million/s | %s |",
                    setTransformRate, verdict(setTransformRate >= 30.0));
        report.line("| release + acquire pairs at %zu live handles: >= 20 million per second (one pair a call, random) | %.1f million/s (%.0f ns; memory floor on this machine %.0f ns overlapped, %.0f ns with a pair's other stores; floors of layouts that move less: %.0f ns hole-filling, %.0f ns records never move) | %s |",
                    big, handleRate, 1000.0 / std::max(handleRate, 1e-9), handleFloorNs, handleFloorBusyNs, holeFloorNs,
                    inPlaceFloorNs, verdict(handleRate >= 20.0));
        report.line("| release + acquire pairs at %zu live handles: >= 20 million per second (release(span), random) | %.1f million/s | %s |",
                    big, bulkHandleRate, verdict(bulkHandleRate >= 20.0));
    }
    if (perNodeCpu.count(100000) != 0) {
        const double ratio = perNodeCpu[100000] / std::max(instancedCpu[100000], 1e-6);
        report.line("| instanced 20x fewer CPU ms than per-node at 100k (one triangle) | %.1fx | %s |", ratio, verdict(ratio >= 20.0));
    }
    if (want('5')) {  // measured by section 5 only
        report.line("| 1%% changed uploads about 1%% of the bytes | %.2f%% | %s |", onePercentShare * 100.0,
                    verdict(onePercentShare > 0.005 && onePercentShare < 0.02));
    }

    if (!options.plotData.empty()) {
        std::ofstream plot(options.plotData);
        plot << "# N instanced_cpu_ms per_node_cpu_ms instanced_myriad_ms per_node_myriad_ms\n";
        for (const auto& [n, ms] : instancedCpu) {
            plot << n << " " << ms << " " << perNodeCpu[n] << " " << instancedMyriad[n] << " "
                 << perNodeMyriad[n] << "\n";
        }
    }
    return 0;
}
