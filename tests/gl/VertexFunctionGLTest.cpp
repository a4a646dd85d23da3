// User vertex functions (SurfaceShader's vertex(), docs/shaders.md "Vertex functions") on
// screen: displaced geometry lands on the pixels worked out by hand from orthoCamera() (world
// x, y in [-1, 1] onto the 64-pixel target, 32 px a unit), on every draw path, in shadows and
// motion vectors; the culling margin; compile errors naming the user's file and line; and
// FrameStats::programsUsed.
#include "support/GlTest.h"

#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/MeshNode.h"
#include "myriad/core/Particles.h"
#include "myriad/core/Scatter.h"
#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/core/Skeleton.h"
#include "myriad/core/SurfaceShader.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/Renderer.h"
#include "myriad/util/Error.h"

#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/quaternion.hpp>

#include <cmath>
#include <string>

using namespace myriad;
using namespace myriad::test;

namespace {

constexpr std::uint32_t kSize = 64;

std::shared_ptr<const MeshGeometry> smallQuad() { return MeshGeometry::create(shapes::quad(0.4f, 0.4f), "quad"); }

/** An unlit white material running @p vertexSource as its vertex function. */
Material displaced(const std::string& name, const std::string& vertexSource) {
    Material material = unlit();
    material.surface = SurfaceShader::vertexFromSource(name, vertexSource);
    return material;
}

/** White at world (x, y), else black. */
bool whiteAt(const Image& image, float x, float y) {
    return near(pixelAt(image, pixelX(x, kSize), pixelY(y, kSize)), kWhite);
}
bool blackAt(const Image& image, float x, float y) {
    return near(pixelAt(image, pixelX(x, kSize), pixelY(y, kSize)), kBlack);
}

// Each instance moves by its lane 0 plus -0.1 per instance index, in world space.
constexpr const char* kLaneShift = R"(
VertexOutput vertex(VertexInput v) {
    vec3 offset = v.lanes[0].xyz + vec3(0.0, -0.1 * float(v.instanceIndex), 0.0);
    return VertexOutput(v.worldPosition + offset, v.worldNormal);
}
)";

} // namespace

TEST_CASE("an object-space displacement moves a MeshNode by the node's scale", "[vertex-function][pixels]") {
    RenderFixture f;
    Scene scene;
    // 0.25 along object x under a scale of 2: 0.5 world units. The quad (0.4 wide, scaled to
    // 0.8) spans x in [-0.4, 0.4] undisplaced, [0.1, 0.9] displaced.
    auto& node = scene.root().emplace<MeshNode>(smallQuad(), displaced("shift.glsl", R"(
VertexOutput vertex(VertexInput v) {
    return VertexOutput(myriad_objectToWorld(v.position + vec3(0.25, 0.0, 0.0)),
                        myriad_objectNormalToWorld(v.normal));
}
)"), "shifted");
    node.setScale(glm::vec3(2.0f));
    const Image image = f.render(scene);
    CHECK(whiteAt(image, 0.5f, 0.0f));
    CHECK(whiteAt(image, 0.8f, 0.0f));
    CHECK(blackAt(image, -0.2f, 0.0f));
    CHECK(blackAt(image, 0.95f, 0.0f));
}

TEST_CASE("a world-space displacement moves a MeshNode by world units whatever its scale", "[vertex-function][pixels]") {
    RenderFixture f;
    Scene scene;
    // (0, -0.5) in world space: the quad spans y in [-0.9, -0.1], x in [-0.4, 0.4].
    auto& node = scene.root().emplace<MeshNode>(smallQuad(), displaced("down.glsl", R"(
VertexOutput vertex(VertexInput v) {
    return VertexOutput(v.worldPosition + vec3(0.0, -0.5, 0.0), v.worldNormal);
}
)"), "down");
    node.setScale(glm::vec3(2.0f));
    const Image image = f.render(scene);
    CHECK(whiteAt(image, 0.0f, -0.5f));
    CHECK(whiteAt(image, 0.3f, -0.8f));
    CHECK(blackAt(image, 0.0f, 0.2f));
    CHECK(blackAt(image, 0.0f, -0.95f));
}

TEST_CASE("per-instance displacement from the instance index and a lane, on every culling path", "[vertex-function][pixels]") {
    const InstanceCulling culling = GENERATE(InstanceCulling::Off, InstanceCulling::Cpu, InstanceCulling::Gpu);
    INFO("culling " << static_cast<int>(culling));
    RenderFixture f;
    Scene scene;
    auto& batch = scene.root().emplace<InstancedMeshNode>(smallQuad(), displaced("lanes.glsl", kLaneShift), 2, "batch");
    batch.setInstanceCulling(culling);
    batch.addInstance(at(-0.5f, 0.5f));
    batch.addInstance(at(0.5f, 0.5f));
    // Instance 1: lane (0, -0.9) and -0.1 for its index: down by 1.0, to (0.5, -0.5).
    batch.setLane(1, 0, glm::vec4(0.0f, -0.9f, 0.0f, 0.0f));
    batch.setCullMargin(1.0f);  // it leaves its box by 1.0 (scale 1: mesh units are world units)
    const Image image = f.render(scene);
    CHECK(whiteAt(image, -0.5f, 0.5f));
    CHECK(whiteAt(image, 0.5f, -0.5f));
    CHECK(blackAt(image, 0.5f, 0.5f));
    CHECK(blackAt(image, -0.5f, -0.5f));
}

TEST_CASE("the table-driven path displaces batches and MeshNodes, lanes from the draw row", "[vertex-function][pixels]") {
    const InstanceCulling culling = GENERATE(InstanceCulling::Off, InstanceCulling::Gpu);
    INFO("culling " << static_cast<int>(culling));
    RenderFixture f;
    Scene scene;
    // No lanes stream: the batch is drawn by the table. Instance 1 moves down by 0.1 * 1.
    auto& batch = scene.root().emplace<InstancedMeshNode>(smallQuad(), displaced("lanes.glsl", kLaneShift), 2, "batch");
    batch.setInstanceCulling(culling);
    batch.addInstance(at(-0.5f, 0.5f));
    batch.addInstance(at(0.5f, 0.8f));  // drawn at y = 0.7: spans [0.5, 0.9]
    batch.setCullMargin(0.2f);
    // A MeshNode's lanes (setShaderData) in its draw-table row: down by 1.0.
    auto& node = scene.root().emplace<MeshNode>(smallQuad(), displaced("lanes.glsl", kLaneShift), "node");
    node.setPosition({-0.5f, 0.5f, 0.0f});
    node.setShaderData(0, glm::vec4(0.0f, -1.0f, 0.0f, 0.0f));
    node.setCullMargin(1.0f);
    const Image image = f.render(scene);
    CHECK(f.renderer.lastFrameStats().multiDrawCalls > 0);  // the table drew them
    CHECK(whiteAt(image, -0.5f, 0.5f));   // instance 0 in place
    CHECK(whiteAt(image, 0.5f, 0.55f));   // instance 1 moved down 0.1
    CHECK(blackAt(image, 0.5f, 0.95f));   // ... off its old top edge
    CHECK(whiteAt(image, -0.5f, -0.5f));  // the node moved down 1.0
}

TEST_CASE("Scene::time moves a vertex function's geometry between frames", "[vertex-function][pixels]") {
    RenderFixture f;
    Scene scene;
    scene.root().emplace<MeshNode>(smallQuad(), displaced("time.glsl", R"(
VertexOutput vertex(VertexInput v) {
    return VertexOutput(v.worldPosition + vec3(v.time, 0.0, 0.0), v.worldNormal);
}
)"), "clock").setCullMargin(1.0f);
    scene.time = 0.0f;
    Image image = f.render(scene);
    CHECK(whiteAt(image, 0.0f, 0.0f));
    CHECK(blackAt(image, 0.6f, 0.0f));
    scene.time = 0.6f;  // the quad spans [0.4, 0.8]
    image = f.render(scene);
    CHECK(blackAt(image, 0.0f, 0.0f));
    CHECK(whiteAt(image, 0.6f, 0.0f));

    scene.time = std::nanf("");
    CHECK_THROWS_AS(f.render(scene), InvalidArgument);
}

TEST_CASE("a displaced caster casts its shadow where it is drawn", "[vertex-function][shadows][pixels]") {
    RenderFixture f;
    Scene scene;
    scene.ambient = glm::vec3(0.0f);
    // The light leans +x by 0.25 per unit of depth: a caster at z = 0 shades the ground at
    // z = -2 0.5 to its right. The caster (0.4 wide at the origin) is drawn 0.5 to the left,
    // over [-0.7, -0.3]: its shadow falls on [-0.2, 0.2], not on [0.3, 0.7] where the stored
    // quad's would.
    scene.light.direction = glm::vec3(0.25f, 0.0f, -1.0f);
    scene.light.shadow.enabled = true;
    scene.root().emplace<MeshNode>(smallQuad(), displaced("left.glsl", R"(
VertexOutput vertex(VertexInput v) {
    return VertexOutput(v.worldPosition + vec3(-0.5, 0.0, 0.0), v.worldNormal);
}
)"), "caster").setCullMargin(0.5f);
    Material lit;
    lit.shading = Shading::Lit;
    auto& ground = scene.root().emplace<MeshNode>(MeshGeometry::create(shapes::quad(4.0f, 4.0f), "ground"), lit, "ground");
    ground.setPosition({0.0f, 0.0f, -2.0f});
    const Image image = f.render(scene);
    CHECK(whiteAt(image, -0.5f, 0.0f));   // the caster, displaced
    CHECK(blackAt(image, 0.0f, 0.0f));    // its shadow: no ambient, no light
    // Lit ground: 1 / |(0.25, 0, -1)| = 0.970 of white, sRGB-encoded 251.6.
    const Rgba lit970{252, 252, 252, 255};
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), pixelY(0.0f, kSize), lit970);
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.9f, kSize), pixelY(0.0f, kSize), lit970);
}

TEST_CASE("motion vectors displace the previous position with the previous time", "[vertex-function][velocity]") {
    egl::HeadlessContext& context = test::context();
    (void)context;
    gl::Renderer renderer;
    gl::OffscreenTarget target{kSize, kSize, "velocity-target", gl::TargetFormat::Srgb8Alpha8, gl::DepthFormat::Depth24,
                               gl::VelocityFormat::Rg32Float};
    const Camera camera = orthoCamera();
    Scene scene;
    auto& batch = scene.root().emplace<InstancedMeshNode>(smallQuad(), displaced("time.glsl", R"(
VertexOutput vertex(VertexInput v) {
    return VertexOutput(v.worldPosition + vec3(v.time, 0.0, 0.0), v.worldNormal);
}
)"), 1, "batch");
    batch.addInstance(at(0.0f, 0.0f));
    batch.setCullMargin(1.0f);
    scene.time = 0.0f;
    renderer.render(scene, camera, target);
    scene.time = 0.25f;  // 0.25 world units right: 8 pixels
    renderer.render(scene, camera, target);
    const std::vector<float> velocity = target.readVelocity();
    const std::size_t i = (std::size_t{pixelY(0.0f, kSize)} * kSize + pixelX(0.3f, kSize)) * 2;
    INFO("velocity (" << velocity[i] << ", " << velocity[i + 1] << ")");
    CHECK(std::abs(velocity[i] - 8.0f) < 0.01f);
    CHECK(std::abs(velocity[i + 1]) < 0.01f);
}

TEST_CASE("the cull margin keeps geometry displaced into view from being culled", "[vertex-function][culling][pixels]") {
    // Stored at x = 3 (outside the view), drawn at x = 0 by the vertex function.
    constexpr const char* kBack = R"(
VertexOutput vertex(VertexInput v) {
    return VertexOutput(v.worldPosition + vec3(-3.0, 0.0, 0.0), v.worldNormal);
}
)";
    const float margin = GENERATE(0.0f, 3.0f);
    const InstanceCulling culling = GENERATE(InstanceCulling::Cpu, InstanceCulling::Gpu);
    INFO("margin " << margin << ", culling " << static_cast<int>(culling));
    RenderFixture f;
    Scene scene;
    auto& node = scene.root().emplace<MeshNode>(smallQuad(), displaced("back.glsl", kBack), "node");
    node.setPosition({3.0f, 0.5f, 0.0f});
    node.setCullMargin(margin);
    auto& batch = scene.root().emplace<InstancedMeshNode>(smallQuad(), displaced("back.glsl", kBack), 2, "batch");
    batch.setInstanceCulling(culling);
    batch.addInstance(at(-0.5f, -0.5f));  // keeps the batch itself in view
    batch.addInstance(at(3.5f, -0.5f));   // drawn at (0.5, -0.5)... but culled without a margin
    batch.setCullMargin(margin);
    REQUIRE(batch.cullMargin() == margin);
    const Image image = f.render(scene);
    if (margin > 0.0f) {
        CHECK(whiteAt(image, 0.0f, 0.5f));
        CHECK(whiteAt(image, 0.5f, -0.5f));
    } else {
        CHECK(blackAt(image, 0.0f, 0.5f));
        CHECK(blackAt(image, 0.5f, -0.5f));
    }
    CHECK_THROWS_AS(node.setCullMargin(-1.0f), InvalidArgument);
    CHECK(node.cullMargin() == margin);
}

TEST_CASE("a vertex function that does not compile names its file and line", "[vertex-function][errors]") {
    RenderFixture f;
    Scene scene;
    scene.root().emplace<MeshNode>(smallQuad(), displaced("wind.glsl", "VertexOutput vertex(VertexInput v) {\n"
                                                                       "    return VertexOutput(v.worldPosition + undefinedThing, v.worldNormal);\n"
                                                                       "}\n"),
                                   "broken");
    try {
        f.renderer.render(scene, f.camera, f.target);
        FAIL("compiled");
    } catch (const ShaderError& error) {
        const std::string message = error.what();
        INFO(message);
        CHECK(message.find("wind.glsl:2") != std::string::npos);
    }
    // Both functions in one shader: each stage's errors name its own text.
    SurfaceShaderDesc desc;
    desc.name = "look.glsl";
    desc.surfaceSource = "SurfaceOutput surface(SurfaceInput s) { return SurfaceOutput(vec3(1.0), 1.0); }\n";
    desc.vertexName = "sway.glsl";
    desc.vertexSource = "// a comment\n// another\nVertexOutput vertex(VertexInput v) { return nope; }\n";
    Scene second;
    Material both = unlit();
    both.surface = SurfaceShader::create(desc);
    second.root().emplace<MeshNode>(smallQuad(), both, "both");
    try {
        f.renderer.render(second, f.camera, f.target);
        FAIL("compiled");
    } catch (const ShaderError& error) {
        const std::string message = error.what();
        INFO(message);
        CHECK(message.find("sway.glsl:3") != std::string::npos);
    }
    // An error on the text's last line, found with the token after it (Mesa reports such an
    // error under the next source string's number): still the user's file and line, never
    // surface.vert (a new user's trial met exactly this).
    Scene third;
    third.root().emplace<MeshNode>(smallQuad(), displaced("tail.glsl", "VertexOutput vertex(VertexInput v) {\n"
                                                                       "    return VertexOutput(v.worldPosition, v.worldNormal);\n"
                                                                       "}\n"
                                                                       "float oops() { return v.time; }\n"),
                                   "tail");
    try {
        f.renderer.render(third, f.camera, f.target);
        FAIL("compiled");
    } catch (const ShaderError& error) {
        const std::string message = error.what();
        INFO(message);
        CHECK(message.find("tail.glsl:4") != std::string::npos);
        CHECK(message.find("surface.vert:4") == std::string::npos);
        CHECK(message.find("surface.vert:1000") == std::string::npos);
    }
    SurfaceShaderDesc empty;
    empty.name = "empty";
    CHECK_THROWS_AS(SurfaceShader::create(empty), InvalidArgument);
    CHECK_THROWS_AS(SurfaceShader::vertexFromSource("empty", ""), InvalidArgument);
}

TEST_CASE("FrameStats counts the distinct programs a frame used", "[vertex-function][stats]") {
    RenderFixture f;
    Scene scene;
    // Two plain unlit quads share one variant; a surface function and a vertex function are a
    // program each: three, however many views draw them.
    scene.root().emplace<MeshNode>(smallQuad(), unlit(), "a").setPosition({-0.5f, 0.5f, 0.0f});
    scene.root().emplace<MeshNode>(smallQuad(), unlit(glm::vec4(1, 0, 0, 1)), "b").setPosition({0.5f, 0.5f, 0.0f});
    Material green = unlit();
    green.surface = SurfaceShader::fromSource("green.glsl",
                                              "SurfaceOutput surface(SurfaceInput s) { return SurfaceOutput(vec3(0.0, 1.0, 0.0), 1.0); }\n");
    scene.root().emplace<MeshNode>(smallQuad(), green, "c").setPosition({-0.5f, -0.5f, 0.0f});
    scene.root().emplace<MeshNode>(smallQuad(), displaced("still.glsl", R"(
VertexOutput vertex(VertexInput v) { return VertexOutput(v.worldPosition, v.worldNormal); }
)"), "d").setPosition({0.5f, -0.5f, 0.0f});
    const Image image = f.render(scene);
    CHECK(whiteAt(image, 0.5f, -0.5f));  // an unchanged position draws where the built-in would
    CHECK(f.renderer.lastFrameStats().programsUsed == 3);
    // Two views: each program bound again, still three used.
    gl::View left = gl::View::of(f.camera, f.target);
    gl::View right = left;
    f.renderer.render(scene, std::vector<gl::View>{left, right});
    CHECK(f.renderer.lastFrameStats().programBinds == 6);
    CHECK(f.renderer.lastFrameStats().programsUsed == 3);
    CHECK(to_string(f.renderer.lastFrameStats()).find("3 programs used") != std::string::npos);
    f.renderer.prepare(scene, std::vector<gl::View>{left});
    CHECK(f.renderer.lastFrameStats().programsUsed == 0);
}

TEST_CASE("particles and scatter refuse a shader with a vertex function", "[vertex-function][errors]") {
    RenderFixture f;
    const auto sway = SurfaceShader::vertexFromSource("sway.glsl", R"(
VertexOutput vertex(VertexInput v) { return VertexOutput(v.worldPosition, v.worldNormal); }
)");
    {
        Scene scene;
        Material material = unlit();
        material.surface = sway;
        scene.root().emplace<ScatterNode>(smallQuad(), material, 4, "grass").add(ScatterInstance{{0.0f, 0.0f, 0.0f}});
        CHECK_THROWS_AS(f.render(scene), InvalidArgument);
    }
    {
        Scene scene;
        ParticleMaterial material = ParticleMaterial::billboard();
        material.surface = sway;
        Particle particle;
        particle.size = 0.5f;
        scene.root().emplace<ParticlePool>(4, material, "pool").spawn(particle);
        CHECK_THROWS_AS(f.render(scene), InvalidArgument);
    }
    // The renderer draws on: a MeshNode with the same shader moves nothing.
    Scene scene;
    Material material = unlit();
    material.surface = sway;
    scene.root().emplace<MeshNode>(smallQuad(), material, "node");
    const Image image = f.render(scene);
    CHECK(whiteAt(image, 0.0f, 0.0f));
    CHECK(blackAt(image, 0.5f, 0.0f));
}

TEST_CASE("a vertex function moves a skinned mesh after its skin", "[vertex-function][skinning][pixels]") {
    RenderFixture f;
    Scene scene;
    // A strip 0.2 high from x = -0.8 to 0.4, the part past the elbow (x = -0.2) bent a quarter
    // turn up about it (tests/gl/SkinningGLTest.cpp): the forearm spans y in (0, 0.6] at
    // x in [-0.3, -0.1]. Then 0.5 down in world space: the upper arm at y = -0.5, the forearm
    // y in (-0.5, 0.1].
    std::vector<Joint> joints(2);
    joints[0].rest.translation = {-0.8f, 0.0f, 0.0f};
    joints[0].inverseBind[3] = glm::vec4(0.8f, 0.0f, 0.0f, 1.0f);
    joints[1].parent = 0;
    joints[1].rest.translation = {0.6f, 0.0f, 0.0f};
    joints[1].inverseBind[3] = glm::vec4(0.2f, 0.0f, 0.0f, 1.0f);
    const auto skeleton = Skeleton::create(std::move(joints), "arm");
    auto& arm = scene.root().emplace<MeshNode>(MeshGeometry::create(skinnedStrip(-0.8f, 0.4f, 6, -0.2f, -0.1f, 0.1f), "strip"),
                                               displaced("down.glsl", R"(
VertexOutput vertex(VertexInput v) {
    return VertexOutput(v.worldPosition + vec3(0.0, -0.5, 0.0), v.worldNormal);
}
)"), "arm");
    arm.setSkeleton(skeleton);
    std::vector<JointTransform> pose = skeleton->restPose();
    pose[1].rotation = glm::angleAxis(glm::radians(90.0f), glm::vec3(0.0f, 0.0f, 1.0f));
    arm.setPose(pose);
    arm.setCullMargin(0.5f);
    const Image image = f.render(scene);
    CHECK(whiteAt(image, -0.5f, -0.5f));  // the upper arm, moved down
    CHECK(whiteAt(image, -0.2f, -0.1f));  // the forearm, bent up, moved down
    CHECK(blackAt(image, -0.5f, 0.0f));   // where the upper arm lay
    CHECK(blackAt(image, -0.2f, 0.4f));   // where the bent forearm would be undisplaced
    CHECK(blackAt(image, 0.2f, -0.5f));   // the skin ran first: no straight forearm
}
