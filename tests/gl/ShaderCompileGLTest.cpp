// Shader compiles off the frame that needs them (issue 19, fault 7): Renderer::prepare()
// compiles every variant a scene's views need (and the GPU culling program) so the first
// render() compiles nothing; a frame starts all its compiles before it waits for any
// (GL_KHR_parallel_shader_compile); the opt-in program binary cache makes a second renderer compile nothing, and a stale, truncated,
// foreign or corrupt file falls back to compiling, is written again, and never crashes.
#include "support/GlCallLog.h"
#include "support/GlTest.h"

#include "renderer/ProgramBinaryCache.h"
#include "myriad/core/InstanceCulling.h"
#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/MeshNode.h"
#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/core/SurfaceShader.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/Renderer.h"
#include "myriad/util/Error.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

using namespace myriad;
using namespace myriad::test;

namespace {

constexpr std::uint32_t kSize = 64;

/** A scene of several variants: a white unlit quad (MeshNode) at the top left, a red unlit
 *  batch at the top right, a green surface function at the bottom left, a half-transparent
 *  blue batch at the bottom right, over a lit ground that receives a shadow. */
void buildScene(Scene& scene, bool shadows) {
    scene.clearColor = glm::vec4(0.0f, 0.0f, 0.0f, 1.0f);
    scene.root().emplace<MeshNode>(quadMesh(0.6f), unlit(), "white").setPosition({-0.5f, 0.5f, 0.0f});
    auto& red = scene.root().emplace<InstancedMeshNode>(quadMesh(0.6f), unlit(glm::vec4(1, 0, 0, 1)), 1, "red");
    red.addInstance(at(0.5f, 0.5f));
    Material green = unlit();
    green.surface = SurfaceShader::fromSource("green.glsl",
                                              "SurfaceOutput surface(SurfaceInput s) { return SurfaceOutput(vec3(0.0, 1.0, 0.0), 1.0); }\n");
    scene.root().emplace<MeshNode>(quadMesh(0.6f), green, "green").setPosition({-0.5f, -0.5f, 0.0f});
    Material blue = unlit(glm::vec4(0, 0, 1, 0.5f));
    blue.alphaMode = AlphaMode::Blend;
    auto& translucent = scene.root().emplace<InstancedMeshNode>(quadMesh(0.6f), blue, 1, "blue");
    translucent.addInstance(at(0.5f, -0.5f));
    if (shadows) {
        Material lit;
        lit.shading = Shading::Lit;
        auto& ground = scene.root().emplace<MeshNode>(MeshGeometry::create(shapes::quad(0.2f, 0.2f), "ground"), lit, "ground");
        ground.setPosition({0.0f, 0.0f, -2.0f});
        scene.light.direction = glm::vec3(0.0f, 0.0f, -1.0f);
        scene.light.shadow.enabled = true;
    }
}

void checkScene(const Image& image) {
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), pixelY(0.5f, kSize), kWhite);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), pixelY(0.5f, kSize), kRed);
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), pixelY(-0.5f, kSize), kGreen);
    // Half blue over black, in linear light, sRGB-encoded: 0.5 -> 188.
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), pixelY(-0.5f, kSize), (Rgba{0, 0, 188, 255}));
}

void hookCompiles(GlCallLog& log) {
    MYRIAD_GL_CALL_LOG_HOOK(log, glCompileShader);
    MYRIAD_GL_CALL_LOG_HOOK(log, glLinkProgram);
    MYRIAD_GL_CALL_LOG_HOOK(log, glProgramBinary);
    MYRIAD_GL_CALL_LOG_HOOK(log, glGetShaderiv);
    MYRIAD_GL_CALL_LOG_HOOK(log, glGetProgramiv);
    MYRIAD_GL_CALL_LOG_HOOK(log, glDrawElementsInstancedBaseInstance);
    MYRIAD_GL_CALL_LOG_HOOK(log, glDrawElementsInstanced);
    MYRIAD_GL_CALL_LOG_HOOK(log, glClear);
}

/** A fresh, empty folder for one test's cache, removed by the destructor. */
struct TemporaryFolder {
    std::filesystem::path path;
    TemporaryFolder() {
        static std::atomic<int> next{0};
        path = std::filesystem::temp_directory_path() /
               ("myriad-program-cache-" + std::to_string(::getpid()) + "-" + std::to_string(next++));
        std::filesystem::remove_all(path);
    }
    ~TemporaryFolder() {
        std::error_code ignored;
        std::filesystem::remove_all(path, ignored);
    }
    [[nodiscard]] std::vector<std::filesystem::path> files() const {
        std::vector<std::filesystem::path> found;
        for (const auto& entry : std::filesystem::directory_iterator(path)) {
            found.push_back(entry.path());
        }
        std::sort(found.begin(), found.end());
        return found;
    }
};

std::vector<char> readAll(const std::filesystem::path& path) {
    std::ifstream file(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

void writeAll(const std::filesystem::path& path, const std::vector<char>& bytes) {
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

GLint binaryFormats() {
    GLint formats = 0;
    glGetIntegerv(GL_NUM_PROGRAM_BINARY_FORMATS, &formats);
    return formats;
}

} // namespace

TEST_CASE("prepare() compiles every variant the views need, so the first render() compiles nothing",
          "[shaders][prepare]") {
    context();
    gl::Renderer renderer;
    gl::OffscreenTarget target(kSize, kSize);
    const Camera camera = orthoCamera();
    Scene scene;
    buildScene(scene, true);
    // GPU culling's compute program is one more that the first frame would otherwise compile.
    auto& gpuCulled = scene.root().emplace<InstancedMeshNode>(quadMesh(0.2f), unlit(), 1, "gpu-culled");
    gpuCulled.addInstance(at(0.0f, 0.0f));
    gpuCulled.setInstanceCulling(InstanceCulling::Gpu);
    const gl::View view = gl::View::of(camera, target);
    const std::size_t before = renderer.programCount();
    {
        GlCallLog log(GlCallLog::NoFunctions{});
        hookCompiles(log);
        renderer.prepare(scene, view);
        INFO(log.dump());
        CHECK_FALSE(log.callsTo("glCompileShader").empty());
        // It draws and clears nothing.
        CHECK(log.callsTo("glDrawElementsInstancedBaseInstance").empty());
        CHECK(log.callsTo("glDrawElementsInstanced").empty());
        CHECK(log.callsTo("glClear").empty());
    }
    const gl::FrameStats prepared = renderer.lastFrameStats();
    CHECK(prepared.drawCalls == 0);
    CHECK(prepared.views == 0);
    CHECK(prepared.programsCompiled == renderer.programCount() - before);
    CHECK(prepared.programsCompiled >= 5);  // unlit, unlit instanced, surface, blended, lit receiver, depth-only
    CHECK(prepared.bytesUploaded > 0);
    const std::size_t held = renderer.programCount();

    GlCallLog log(GlCallLog::NoFunctions{});
    hookCompiles(log);
    renderer.render(scene, view);
    INFO(log.dump());
    CHECK(log.callsTo("glCompileShader").empty());
    CHECK(log.callsTo("glLinkProgram").empty());
    CHECK(renderer.programCount() == held);
    CHECK(renderer.lastFrameStats().programsCompiled == 0);
    CHECK(renderer.lastFrameStats().drawCalls > 0);
    CHECK(renderer.lastFrameStats().instancesGpuCulled >= 1);  // the view and the shadow view
    const Image image = target.readPixels();
    checkScene(image);
    MYRIAD_CHECK_PIXEL(image, kSize / 2, kSize / 2, kWhite);
}

TEST_CASE("a frame starts compiling every variant it lacks before it waits for any", "[shaders][parallel]") {
    context();
    gl::Renderer renderer;
    gl::OffscreenTarget target(kSize, kSize);
    const Camera camera = orthoCamera();
    Scene scene;
    buildScene(scene, false);
    INFO("parallel shader compile: "
         << (GLAD_GL_KHR_parallel_shader_compile ? "KHR" : GLAD_GL_ARB_parallel_shader_compile ? "ARB" : "none"));
    GlCallLog log(GlCallLog::NoFunctions{});
    hookCompiles(log);
    renderer.render(scene, camera, target);
    INFO(log.dump());
    const auto links = log.callsTo("glLinkProgram");
    REQUIRE(links.size() >= 3);  // unlit, unlit instanced, surface, blended: not made at construction
    CHECK(renderer.lastFrameStats().programsCompiled == links.size());
    // The first status query (the first wait) comes after the last link was issued.
    std::uint64_t firstWait = ~std::uint64_t{0};
    for (const GlCall& call : log.calls()) {
        const bool query = (call.function == "glGetShaderiv" && call.argument<GLenum>(1) == GL_COMPILE_STATUS) ||
                           (call.function == "glGetProgramiv" && call.argument<GLenum>(1) == GL_LINK_STATUS);
        if (query) {
            firstWait = std::min(firstWait, call.sequence);
        }
    }
    REQUIRE(firstWait != ~std::uint64_t{0});  // a build was waited for: the order below means something
    CHECK(links.back().sequence < firstWait);
    checkScene(target.readPixels());
}

TEST_CASE("with a program cache folder a second renderer loads every program and compiles none",
          "[shaders][cache]") {
    context();
    REQUIRE(binaryFormats() > 0);  // llvmpipe has one (Mesa's shader cache format)
    TemporaryFolder folder;
    gl::RendererDesc desc;
    desc.programCacheFolder = folder.path;
    gl::OffscreenTarget target(kSize, kSize);
    const Camera camera = orthoCamera();
    Scene scene;
    buildScene(scene, false);
    std::size_t programs = 0;
    {
        gl::Renderer first(desc);
        first.render(scene, camera, target);
        checkScene(target.readPixels());
        programs = first.programCount();
        CHECK(first.lastFrameStats().programsLoaded == 0);
    }
    CHECK(folder.files().size() == programs);

    GlCallLog log(GlCallLog::NoFunctions{});
    hookCompiles(log);
    gl::Renderer second(desc);
    second.render(scene, camera, target);
    INFO(log.dump());
    CHECK(log.callsTo("glCompileShader").empty());
    CHECK(log.callsTo("glLinkProgram").empty());
    CHECK(log.callsTo("glProgramBinary").size() == programs);
    CHECK(second.programCount() == programs);
    CHECK(second.lastFrameStats().programsLoaded == programs - 2);  // 2 at construction
    CHECK(second.lastFrameStats().programsCompiled == 0);
    checkScene(target.readPixels());
}

TEST_CASE("stale, truncated, foreign and corrupt program cache files fall back to compiling and are rewritten",
          "[shaders][cache]") {
    context();
    REQUIRE(binaryFormats() > 0);
    struct Mode {
        const char* name;
        void (*spoil)(const std::vector<std::filesystem::path>& files);
    };
    static const Mode modes[] = {
        {"truncated inside the binary",
         [](const auto& files) {
             for (const auto& f : files) {
                 auto bytes = readAll(f);
                 bytes.resize(sizeof(gl::detail::ProgramCacheHeader) + (bytes.size() - sizeof(gl::detail::ProgramCacheHeader)) / 2);
                 writeAll(f, bytes);
             }
         }},
        {"truncated inside the header",
         [](const auto& files) {
             for (const auto& f : files) {
                 auto bytes = readAll(f);
                 bytes.resize(10);
                 writeAll(f, bytes);
             }
         }},
        {"empty",
         [](const auto& files) {
             for (const auto& f : files) {
                 writeAll(f, {});
             }
         }},
        {"one byte of the binary flipped",
         [](const auto& files) {
             for (const auto& f : files) {
                 auto bytes = readAll(f);
                 bytes[bytes.size() - 7] = static_cast<char>(bytes[bytes.size() - 7] ^ 0x5a);
                 writeAll(f, bytes);
             }
         }},
        {"foreign: each file holds another program's binary",
         [](const auto& files) {
             std::vector<std::vector<char>> contents;
             for (const auto& f : files) {
                 contents.push_back(readAll(f));
             }
             for (std::size_t i = 0; i < files.size(); ++i) {
                 writeAll(files[i], contents[(i + 1) % files.size()]);
             }
         }},
        {"stale: an older file layout",
         [](const auto& files) {
             for (const auto& f : files) {
                 auto bytes = readAll(f);
                 gl::detail::ProgramCacheHeader header;
                 std::memcpy(&header, bytes.data(), sizeof header);
                 header.version = 0;
                 std::memcpy(bytes.data(), &header, sizeof header);
                 writeAll(f, bytes);
             }
         }},
        {"a binary format this driver does not offer (valid otherwise)",
         [](const auto& files) {
             for (const auto& f : files) {
                 auto bytes = readAll(f);
                 gl::detail::ProgramCacheHeader header;
                 std::memcpy(&header, bytes.data(), sizeof header);
                 header.binaryFormat = 0xBAD0u;
                 std::memcpy(bytes.data(), &header, sizeof header);
                 writeAll(f, bytes);
             }
         }},
        {"a binary the driver refuses (valid header and checksum, garbage inside)",
         [](const auto& files) {
             for (const auto& f : files) {
                 auto bytes = readAll(f);
                 gl::detail::ProgramCacheHeader header;
                 std::memcpy(&header, bytes.data(), sizeof header);
                 for (std::size_t i = sizeof header; i < bytes.size(); ++i) {
                     bytes[i] = static_cast<char>((i * 131u) & 0xff);
                 }
                 header.checksum = gl::detail::fnv1a(
                     std::as_bytes(std::span(bytes.data() + sizeof header, bytes.size() - sizeof header)));
                 std::memcpy(bytes.data(), &header, sizeof header);
                 writeAll(f, bytes);
             }
         }},
    };
    gl::OffscreenTarget target(kSize, kSize);
    const Camera camera = orthoCamera();
    Scene scene;
    buildScene(scene, false);
    for (const Mode& mode : modes) {
        INFO("cache files: " << mode.name);
        TemporaryFolder folder;
        gl::RendererDesc desc;
        desc.programCacheFolder = folder.path;
        std::size_t programs = 0;
        {
            gl::Renderer writer(desc);
            writer.render(scene, camera, target);
            programs = writer.programCount();
        }
        const auto files = folder.files();
        REQUIRE(files.size() == programs);
        mode.spoil(files);
        {
            GlCallLog log(GlCallLog::NoFunctions{});
            hookCompiles(log);
            gl::Renderer reader(desc);
            REQUIRE_NOTHROW(reader.render(scene, camera, target));
            CHECK(log.callsTo("glCompileShader").size() == 2 * programs);  // every program again, from source
            if (std::string_view(mode.name).starts_with("a binary format")) {
                // Checked against GL_PROGRAM_BINARY_FORMATS: glProgramBinary would raise
                // GL_INVALID_ENUM into the host's error queue (a driver engineer's review).
                CHECK(log.callsTo("glProgramBinary").empty());
            }
            CHECK(reader.programCount() == programs);
            checkScene(target.readPixels());
        }
        // Written again: a third renderer loads them all.
        CHECK(folder.files().size() == programs);
        GlCallLog log(GlCallLog::NoFunctions{});
        hookCompiles(log);
        gl::Renderer again(desc);
        again.render(scene, camera, target);
        CHECK(log.callsTo("glCompileShader").empty());
        checkScene(target.readPixels());
    }
}

TEST_CASE("a program cache folder that is a file is refused", "[shaders][cache]") {
    context();
    TemporaryFolder folder;
    std::filesystem::create_directories(folder.path);
    const std::filesystem::path file = folder.path / "not-a-folder";
    writeAll(file, {'x'});
    gl::RendererDesc desc;
    desc.programCacheFolder = file;
    CHECK_THROWS_AS(gl::Renderer{desc}, InvalidArgument);
    CHECK_THROWS_WITH(gl::Renderer{desc}, Catch::Contains("not a folder"));
}
