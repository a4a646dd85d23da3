// GL limits the renderer checks (src/renderer/GlLimits.h, docs/architecture.md "Limits the renderer
// checks"): with a limit lowered through the test hook, every buffer texture, storage block and
// dispatch that would pass it is refused before anything is drawn, with a CapacityError that
// names the node, the stream or list and the limit with its value, and the state contract
// holds; what fits exactly still draws. A driver's real limits (2^27 texels) are out of a
// test's reach, and past them a fetch reads undefined values, not an error: only the check
// can catch it.
#include "support/GlTest.h"

#include "renderer/GlLimits.h"
#include "myriad/core/Lod.h"
#include "myriad/core/Particles.h"
#include "myriad/gl/GpuData.h"
#include "myriad/util/Error.h"

#include <string>
#include <vector>

using namespace myriad;
using namespace myriad::test;

namespace {

constexpr std::uint32_t kSize = 32;

/** Lowers the limits for the renderers made while it lives. */
struct LoweredLimits {
    explicit LoweredLimits(const gl::detail::GlLimits& ceiling) { gl::detail::lowerGlLimitsForTesting(ceiling); }
    ~LoweredLimits() { gl::detail::resetGlLimitsForTesting(); }
    LoweredLimits(const LoweredLimits&) = delete;
    LoweredLimits& operator=(const LoweredLimits&) = delete;
};

gl::detail::GlLimits texelCeiling(std::int64_t texels) {
    gl::detail::GlLimits ceiling;
    ceiling.maxTextureBufferTexels = texels;
    return ceiling;
}

InstancedMeshNode& addCrowd(Scene& scene, std::size_t count, const std::string& name) {
    auto& batch = scene.root().emplace<InstancedMeshNode>(MeshGeometry::create(shapes::quad(0.2f, 0.2f), "quad"),
                                                          unlit(glm::vec4(1, 0, 0, 1)), count, name);
    for (std::size_t i = 0; i < count; ++i) {
        batch.addInstance(at(-0.5f, 0.0f));
    }
    return batch;
}

/** Renders @p scene, expecting a CapacityError whose message holds every one of @p words;
 *  then checks nothing was drawn (the target still shows @p before, not the blue clear) and
 *  the documented exit state. */
void requireRefused(gl::Renderer& renderer, Scene& scene, gl::OffscreenTarget& target, const Image& before,
                    const std::vector<std::string>& words) {
    scene.clearColor = {0.0f, 0.0f, 1.0f, 1.0f};  // a frame that drew anything would clear to blue
    std::string message;
    try {
        renderer.render(scene, orthoCamera(), target);
    } catch (const CapacityError& error) {
        message = error.what();
    }
    INFO("message: " << message);
    REQUIRE(!message.empty());
    for (const std::string& word : words) {
        CHECK(message.find(word) != std::string::npos);
    }
    const Image after = target.readPixels();
    CHECK(pixelAt(after, 0, 0) == pixelAt(before, 0, 0));
    CHECK(pixelAt(after, pixelX(-0.5f, kSize), pixelY(0.0f, kSize)) ==
          pixelAt(before, pixelX(-0.5f, kSize), pixelY(0.0f, kSize)));
    GLint program = -1, vertexArray = -1, framebuffer = -1;
    glGetIntegerv(GL_CURRENT_PROGRAM, &program);
    glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &vertexArray);
    glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &framebuffer);
    CHECK(program == 0);
    CHECK(vertexArray == 0);
    CHECK(framebuffer == 0);
    scene.clearColor = {0.0f, 0.0f, 0.0f, 1.0f};
}

/** A chain of @p levels shrinking quads; level 0 up to 50 units (the test's camera is 10 away). */
LodChain shrinkingChain(std::size_t levels) {
    LodChain chain;
    chain.levels.push_back({nullptr, 50.0f});
    for (std::size_t i = 1; i < levels; ++i) {
        const float side = 0.2f / static_cast<float>(i + 1);
        chain.levels.push_back({MeshGeometry::create(shapes::quad(side, side), "lod" + std::to_string(i)),
                                50.0f + 10.0f * static_cast<float>(i)});
    }
    return chain;
}

} // namespace

TEST_CASE("records read as a buffer texture past GL_MAX_TEXTURE_BUFFER_SIZE are refused before any draw", "[limits]") {
    context();
    const LoweredLimits lowered(texelCeiling(1024));
    gl::Renderer renderer;
    gl::OffscreenTarget target(kSize, kSize);
    Scene scene;
    scene.clearColor = {0.0f, 0.0f, 0.0f, 1.0f};
    // 300 records are 1200 texels; drawn by divisor-1 attributes they need no buffer texture.
    InstancedMeshNode& crowd = addCrowd(scene, 300, "crowd");
    renderer.render(scene, orthoCamera(), target);
    const Image before = target.readPixels();
    MYRIAD_CHECK_PIXEL(before, pixelX(-0.5f, kSize), pixelY(0.0f, kSize), kRed);

    // Per-instance culling reads the records as a buffer texture: refused, nothing drawn.
    crowd.setInstanceCulling(InstanceCulling::Cpu);
    requireRefused(renderer, scene, target, before,
                   {"'crowd'", "record stream", "1200 texels", "GL_MAX_TEXTURE_BUFFER_SIZE", "1024"});
    // GPU culling draws through the same records (and its own list).
    crowd.setInstanceCulling(InstanceCulling::Gpu);
    requireRefused(renderer, scene, target, before, {"'crowd'", "record stream", "GL_MAX_TEXTURE_BUFFER_SIZE (1024"});

    // 256 records are 1024 texels: exactly at the limit, drawn.
    Scene fits;
    addCrowd(fits, 256, "fits").setInstanceCulling(InstanceCulling::Cpu);
    renderer.render(fits, orthoCamera(), target);
    MYRIAD_CHECK_PIXEL(target.readPixels(), pixelX(-0.5f, kSize), pixelY(0.0f, kSize), kRed);
}

TEST_CASE("side streams, morph deltas, particles and lanes past GL_MAX_TEXTURE_BUFFER_SIZE are refused", "[limits]") {
    context();
    const LoweredLimits lowered(texelCeiling(1024));
    gl::Renderer renderer;
    gl::OffscreenTarget target(kSize, kSize);
    Scene scene;
    scene.clearColor = {0.0f, 0.0f, 0.0f, 1.0f};
    renderer.render(scene, orthoCamera(), target);
    const Image before = target.readPixels();

    SECTION("a batch's lanes stream (4 texels per instance)") {
        InstancedMeshNode& crowd = addCrowd(scene, 300, "laned");
        crowd.setLane(0, 1, glm::vec4(1.0f));
        requireRefused(renderer, scene, target, before, {"'laned'", "lanes stream", "GL_MAX_TEXTURE_BUFFER_SIZE (1024"});
    }
    SECTION("morph deltas (2 texels per target and vertex)") {
        // 150 quads: 600 vertices, one target: 1200 texels.
        MeshData data;
        for (int q = 0; q < 150; ++q) {
            const auto base = static_cast<std::uint32_t>(data.positions.size());
            const float x = -0.9f + 0.01f * static_cast<float>(q);
            for (const glm::vec2 corner : {glm::vec2(0, 0), glm::vec2(0.1f, 0), glm::vec2(0.1f, 0.1f), glm::vec2(0, 0.1f)}) {
                data.positions.emplace_back(x + corner.x, corner.y, 0.0f);
            }
            for (const std::uint32_t i : {0u, 1u, 2u, 0u, 2u, 3u}) {
                data.indices32.push_back(base + i);
            }
        }
        MorphTarget lift;
        lift.positionDeltas.assign(data.positions.size(), glm::vec3(0.0f, 0.1f, 0.0f));
        data.morphTargets.push_back(lift);
        data.morphWeights = {0.5f};
        scene.root().emplace<MeshNode>(MeshGeometry::create(std::move(data), "strip"), unlit(), "morphing");
        requireRefused(renderer, scene, target, before,
                       {"'morphing'", "morph targets of mesh 'strip'", "1200 texels", "GL_MAX_TEXTURE_BUFFER_SIZE (1024"});
    }
    SECTION("a particle pool's streams (4 texels per particle)") {
        auto& pool = scene.root().emplace<ParticlePool>(300, ParticleMaterial::billboard(), "sparks");
        Particle particle;
        particle.size = 0.1f;
        pool.spawn(particle);
        requireRefused(renderer, scene, target, before, {"'sparks'", "particle streams", "GL_MAX_TEXTURE_BUFFER_SIZE (1024"});
    }
    SECTION("a population's lanes, when it is added") {
        gl::GpuBufferDesc records;
        records.name = "records";
        records.elementType = gl::GpuElementType::InstanceRecord;
        records.length = 300;
        renderer.createBuffer(records);
        gl::GpuBufferDesc lanes;
        lanes.name = "lanes";
        lanes.elementType = gl::GpuElementType::Lanes;
        lanes.length = 300;
        renderer.createBuffer(lanes);
        gl::PopulationDesc desc;
        desc.name = "swarm";
        desc.transformBuffer = "records";
        desc.laneBuffer = "lanes";
        desc.instanceCount = 300;
        desc.material = unlit();
        try {
            (void)renderer.drawInstanced(MeshGeometry::create(shapes::quad(0.1f, 0.1f), "quad"), desc);
            FAIL("drawInstanced accepted 1200 lane texels over a limit of 1024");
        } catch (const CapacityError& error) {
            const std::string message = error.what();
            INFO(message);
            CHECK(message.find("'swarm'") != std::string::npos);
            CHECK(message.find("'lanes'") != std::string::npos);
            CHECK(message.find("GL_MAX_TEXTURE_BUFFER_SIZE (1024") != std::string::npos);
        }
        CHECK(renderer.populationCount() == 0);
    }
}

TEST_CASE("a GPU-culled LOD batch's list counts every level slot against GL_MAX_TEXTURE_BUFFER_SIZE", "[limits][gpu-culling]") {
    context();
    // 100 records are 400 texels; six level slots of at least 100 indices are 600.
    auto build = [](Scene& scene) {
        InstancedMeshNode& batch = addCrowd(scene, 100, "forest");
        batch.setLodChain(shrinkingChain(6));
        batch.setInstanceCulling(InstanceCulling::Gpu);
    };
    SECTION("600 texels do not fit in 590: refused, naming the slots") {
        const LoweredLimits lowered(texelCeiling(590));
        gl::Renderer renderer;
        gl::OffscreenTarget target(kSize, kSize);
        Scene empty;
        renderer.render(empty, orthoCamera(), target);
        const Image before = target.readPixels();
        Scene scene;
        build(scene);
        requireRefused(renderer, scene, target, before,
                       {"'forest'", "GPU visible-index list (6 LOD slot(s) of 100)", "600 texels",
                        "GL_MAX_TEXTURE_BUFFER_SIZE (590"});
    }
    SECTION("in 700 they fit: the slots' power-of-two slack is cut to the limit, and it draws") {
        const LoweredLimits lowered(texelCeiling(700));  // 6 x 128 would be 768
        gl::Renderer renderer;
        gl::OffscreenTarget target(kSize, kSize);
        Scene scene;
        build(scene);
        CHECK_NOTHROW(renderer.render(scene, orthoCamera(), target));
        MYRIAD_CHECK_PIXEL(target.readPixels(), pixelX(-0.5f, kSize), pixelY(0.0f, kSize), kRed);
    }
}

TEST_CASE("GPU culling refuses a record block past GL_MAX_SHADER_STORAGE_BLOCK_SIZE and groups past the dispatch limit", "[limits][gpu-culling]") {
    context();
    gl::detail::GlLimits ceiling;
    SECTION("storage block") {
        ceiling.maxShaderStorageBlockBytes = 64 * 100;  // 100 records
    }
    SECTION("work groups") {
        ceiling.maxComputeWorkGroups = {1, 1, 1};  // 300 instances are two groups of 256
    }
    const LoweredLimits lowered(ceiling);
    gl::Renderer renderer;
    gl::OffscreenTarget target(kSize, kSize);
    Scene scene;
    scene.clearColor = {0.0f, 0.0f, 0.0f, 1.0f};
    renderer.render(scene, orthoCamera(), target);
    const Image before = target.readPixels();
    addCrowd(scene, 300, "herd").setInstanceCulling(InstanceCulling::Gpu);
    if (ceiling.maxShaderStorageBlockBytes != 0) {
        requireRefused(renderer, scene, target, before,
                       {"'herd'", "record buffer", "19200 bytes", "GL_MAX_SHADER_STORAGE_BLOCK_SIZE (6400"});
    } else {
        requireRefused(renderer, scene, target, before, {"'herd'", "2 work groups", "GL_MAX_COMPUTE_WORK_GROUP_COUNT[1] (1"});
    }
}

TEST_CASE("the shadow map's mapSize is checked against GL_MAX_TEXTURE_SIZE as the renderer read it", "[limits][shadows]") {
    context();
    gl::detail::GlLimits ceiling;
    ceiling.maxTextureSize = 512;
    const LoweredLimits lowered(ceiling);
    gl::Renderer renderer;
    Scene scene;
    scene.light.shadow.enabled = true;
    scene.light.shadow.mapSize = 1024;
    try {
        renderer.render(scene, orthoCamera(), kSize, kSize);
        FAIL("mapSize 1024 accepted over GL_MAX_TEXTURE_SIZE 512");
    } catch (const InvalidArgument& error) {
        INFO(error.what());
        CHECK(std::string(error.what()).find("16..512") != std::string::npos);
    }
    scene.light.shadow.mapSize = 512;
    CHECK_NOTHROW(renderer.render(scene, orthoCamera(), kSize, kSize));
}

TEST_CASE("draws past the draw table's GL_MAX_TEXTURE_BUFFER_SIZE rows keep a call of their own", "[limits][table][pixels]") {
    context();
    // 28 texels: two rows of 14. The first two batches get rows 0 and 1 and share one
    // multi-draw; the other two have rows past the table and are drawn one call each.
    const LoweredLimits lowered(texelCeiling(28));
    gl::Renderer renderer;
    gl::OffscreenTarget target(kSize, kSize);
    Scene scene;
    auto quad = MeshGeometry::create(shapes::quad(0.3f, 0.3f), "quad");
    const float places[4] = {-0.6f, -0.2f, 0.2f, 0.6f};
    for (int b = 0; b < 4; ++b) {
        scene.root().emplace<InstancedMeshNode>(quad, unlit(glm::vec4(1, 0, 0, 1)), 1, "batch" + std::to_string(b))
            .addInstance(at(places[b], 0.0f));
    }
    renderer.render(scene, orthoCamera(), target);
    const gl::FrameStats& stats = renderer.lastFrameStats();
    CHECK(stats.multiDrawCalls == 1);
    CHECK(stats.drawCalls == 3);
    CHECK(stats.drawCommands == 4);
    const Image image = target.readPixels();
    for (const float x : places) {
        MYRIAD_CHECK_PIXEL(image, pixelX(x, kSize), pixelY(0.0f, kSize), kRed);
    }
}

TEST_CASE("GPU-culled batches keep their own dispatch and draw when the record arena is larger than one storage block",
          "[limits][table][gpu-culling][pixels]") {
    context();
    // 32 KiB: the record arena (at least 1,024 records, 64 KiB) cannot be bound whole for the
    // table path's one dispatch, but each batch's place (4 records) can for its own.
    gl::detail::GlLimits ceiling;
    ceiling.maxShaderStorageBlockBytes = 32 * 1024;
    const LoweredLimits lowered(ceiling);
    gl::Renderer renderer;
    gl::OffscreenTarget target(kSize, kSize);
    Scene scene;
    auto quad = MeshGeometry::create(shapes::quad(0.3f, 0.3f), "quad");
    std::vector<InstancedMeshNode*> batches;
    for (int b = 0; b < 3; ++b) {
        auto& batch = scene.root().emplace<InstancedMeshNode>(quad, unlit(glm::vec4(1, 0, 0, 1)), 2,
                                                              "culled" + std::to_string(b));
        batch.addInstance(at(-0.6f + 0.6f * static_cast<float>(b), 0.0f));
        batch.addInstance(at(5.0f, 0.0f));  // out of view
        batch.setInstanceCulling(InstanceCulling::Gpu);
        batches.push_back(&batch);
    }
    renderer.render(scene, orthoCamera(), target);
    const gl::FrameStats& stats = renderer.lastFrameStats();
    CHECK(stats.multiDrawCalls == 0);
    CHECK(stats.drawCalls == 3);
    const Image image = target.readPixels();
    for (int b = 0; b < 3; ++b) {
        MYRIAD_CHECK_PIXEL(image, pixelX(-0.6f + 0.6f * static_cast<float>(b), kSize), pixelY(0.0f, kSize), kRed);
        const auto visible = renderer.readGpuCulledInstances(*batches[static_cast<std::size_t>(b)], 0);
        REQUIRE(visible.has_value());
        CHECK(*visible == std::vector<std::uint32_t>{0});
    }
}

TEST_CASE("a material image past GL_MAX_TEXTURE_SIZE is refused before the frame draws, a lightmap's too", "[limits][lightmap]") {
    context();
    gl::detail::GlLimits ceiling;
    ceiling.maxTextureSize = 64;
    const LoweredLimits lowered(ceiling);
    gl::Renderer renderer;
    gl::OffscreenTarget target(kSize, kSize);
    Scene scene;
    scene.clearColor = {0.0f, 0.0f, 0.0f, 1.0f};
    renderer.render(scene, orthoCamera(), target);
    const Image before = target.readPixels();
    MeshData data = shapes::quad(0.5f, 0.5f);
    data.uv1 = data.uv0;
    Material material;
    material.name = "baked";
    material.lightmapTexture.image = std::make_shared<const Image>(Image{128, 1, std::vector<std::uint8_t>(128 * 4, 200)});
    auto& node = scene.root().emplace<MeshNode>(MeshGeometry::create(std::move(data), "floor"), material, "floor");
    requireRefused(renderer, scene, target, before,
                   {"material 'baked'", "lightmapTexture image is 128 x 1", "GL_MAX_TEXTURE_SIZE (64"});
    // The base colour's goes through the same upload.
    node.material().lightmapTexture.image = nullptr;
    node.material().baseColorTexture = std::make_shared<const Image>(Image{1, 65, std::vector<std::uint8_t>(65 * 4, 200)});
    requireRefused(renderer, scene, target, before, {"baseColorTexture image is 1 x 65"});
    node.material().baseColorTexture = std::make_shared<const Image>(Image{64, 64, std::vector<std::uint8_t>(64 * 64 * 4, 200)});
    CHECK_NOTHROW(renderer.render(scene, orthoCamera(), target));
}
