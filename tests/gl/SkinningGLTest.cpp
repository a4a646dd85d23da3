// Skinning on the GPU (docs/skinning.md): a skinned MeshNode drawn in its pose, read back by
// pixels and by transform feedback through the library's own vertex stage; bounds that follow
// the pose; an instanced crowd playing baked clips, each instance at its own time, where only
// the clock changes and nothing is uploaded.
#include "renderer/ShaderLibrary.h"
#include "renderer/SkinPalettePass.h"
#include "support/GlCallLog.h"
#include "support/GlTest.h"
#include "support/TransformFeedback.h"

#include <glad/gl.h>

#include "gl/Bindings.h"
#include "myriad/core/AnimationClip.h"
#include "myriad/core/AnimationSet.h"
#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/MeshNode.h"
#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/core/Skeleton.h"
#include "myriad/core/Visibility.h"
#include "myriad/gl/Buffer.h"
#include "myriad/gl/Draw.h"
#include "myriad/gl/FrameStats.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/Program.h"
#include "myriad/gl/Renderer.h"
#include "myriad/gl/VertexArray.h"
#include "myriad/util/Error.h"

#include <glm/gtc/quaternion.hpp>

#include <functional>
#include <numbers>
#include <vector>

using namespace myriad;
using namespace myriad::test;

namespace {

constexpr std::uint32_t kSize = 64;
constexpr float kQuarterTurn = std::numbers::pi_v<float> / 2.0f;
constexpr float kElbow = -0.2f;  // x of joint 1, in the strip's space

/** Two joints along +x: the root at x = -0.8, the elbow at x = kElbow (its child). */
std::shared_ptr<const Skeleton> armSkeleton() {
    std::vector<Joint> joints(2);
    joints[0].name = "shoulder";
    joints[0].rest.translation = {-0.8f, 0.0f, 0.0f};
    joints[0].inverseBind[3] = glm::vec4(0.8f, 0.0f, 0.0f, 1.0f);
    joints[1].name = "elbow";
    joints[1].parent = 0;
    joints[1].rest.translation = {kElbow + 0.8f, 0.0f, 0.0f};
    joints[1].inverseBind[3] = glm::vec4(-kElbow, 0.0f, 0.0f, 1.0f);
    return Skeleton::create(std::move(joints), "arm");
}

/** A strip 0.2 high from x = -0.8 to x = 0.4, in six columns of quads; vertices at x <= kElbow
 *  follow the shoulder, the rest the elbow (rigid weights). */
std::shared_ptr<const MeshGeometry> armStrip() {
    return MeshGeometry::create(skinnedStrip(-0.8f, 0.4f, 6, kElbow, -0.1f, 0.1f), "arm-strip");
}

std::vector<JointTransform> bentPose(const Skeleton& skeleton, float angle) {
    std::vector<JointTransform> pose = skeleton.restPose();
    pose[1].rotation = glm::angleAxis(angle, glm::vec3(0.0f, 0.0f, 1.0f));
    return pose;
}

/** 'bend': the elbow from straight to a quarter turn up over 1 s. */
std::shared_ptr<const AnimationClip> bendClip() {
    AnimationChannel channel;
    channel.target = 1;
    channel.property = AnimatedProperty::Rotation;
    channel.times = {0.0f, 1.0f};
    const glm::quat bent = glm::angleAxis(kQuarterTurn, glm::vec3(0, 0, 1));
    channel.values = {glm::vec4(0, 0, 0, 1), glm::vec4(bent.x, bent.y, bent.z, bent.w)};
    return AnimationClip::create("bend", {channel});
}

/** 'lift': the shoulder rises 0.5 over 1 s. */
std::shared_ptr<const AnimationClip> liftClip() {
    AnimationChannel channel;
    channel.target = 0;
    channel.property = AnimatedProperty::Translation;
    channel.times = {0.0f, 1.0f};
    channel.values = {glm::vec4(-0.8f, 0.0f, 0.0f, 0.0f), glm::vec4(-0.8f, 0.5f, 0.0f, 0.0f)};
    return AnimationClip::create("lift", {channel});
}

bool lit(const Image& image, float x, float y) {
    return pixelAt(image, pixelX(x, kSize), pixelY(y, kSize))[0] > 128;
}

std::vector<float> capture(std::size_t floats, const std::function<void()>& draw) {
    return captureTransformFeedback(floats, draw);
}

/** A buffer texture of @p texels RGBA32F texels, bound on @p unit; deleted with the object. */
struct BufferTexture {
    gl::Buffer buffer;
    GLuint texture = 0;
    BufferTexture(std::span<const glm::vec4> texels, GLuint unit)
        : buffer({.initialData = std::as_bytes(texels)}) {
        glCreateTextures(GL_TEXTURE_BUFFER, 1, &texture);
        glTextureBuffer(texture, GL_RGBA32F, buffer.id());
        glBindTextureUnit(unit, texture);
    }
    ~BufferTexture() { glDeleteTextures(1, &texture); }
    BufferTexture(const BufferTexture&) = delete;
    BufferTexture& operator=(const BufferTexture&) = delete;
};

/** The strip's vertices with joints and weights, as the renderer lays them out (72 bytes). */
gl::VertexArray skinnedLayout(const MeshGeometry& mesh, gl::Buffer& vertices, bool instanced, gl::Buffer* records) {
    const PackedVertexLayout& layout = mesh.vertexLayout();
    gl::VertexLayoutDesc desc{.attributes = {{location::kPosition, gl::AttributeFormat::Float3, layout.position.offsetBytes, 0},
                                             {location::kNormal, gl::AttributeFormat::Float3, layout.normal.offsetBytes, 0},
                                             {location::kJoints, gl::AttributeFormat::UInt16x4, layout.joints.offsetBytes, 0},
                                             {location::kWeights, gl::AttributeFormat::Float4, layout.weights.offsetBytes, 0}},
                              .bindings = {{0, layout.strideBytes, 0}},
                              .label = "skinned-capture"};
    if (instanced) {
        for (std::uint32_t k = 0; k < 4; ++k) {
            desc.attributes.push_back({location::kInstanceRow0 + k, gl::AttributeFormat::Float4, 16 * k, 1});
        }
        desc.bindings.push_back({1, 64, 1});
    }
    gl::VertexArray array(desc);
    array.setVertexBuffer(0, vertices);
    if (records != nullptr) {
        array.setVertexBuffer(1, *records);
    }
    return array;
}

/** Rows of @p skin as the palette stores them: three texels per joint. */
std::vector<glm::vec4> paletteRows(std::span<const glm::mat4> skin) {
    std::vector<glm::vec4> rows;
    for (const glm::mat4& m : skin) {
        const glm::mat4 t = glm::transpose(m);
        rows.insert(rows.end(), {t[0], t[1], t[2]});
    }
    return rows;
}

} // namespace

TEST_CASE("A two-joint strip bent 90 degrees is drawn where its matrices put it", "[skinning][pixels]") {
    RenderFixture fixture;
    Scene scene;
    auto& arm = scene.root().emplace<MeshNode>(armStrip(), unlit(glm::vec4(1.0f, 0.0f, 0.0f, 1.0f)), "arm");
    // No skeleton: the bind pose, straight along x.
    Image straight = fixture.render(scene);
    CHECK(lit(straight, 0.2f, 0.0f));
    CHECK_FALSE(lit(straight, -0.2f, 0.4f));

    arm.setSkeleton(armSkeleton());
    arm.setPose(bentPose(*arm.skeleton(), kQuarterTurn));
    // Bent up about the elbow: the forearm, x in (-0.2, 0.4] along y, is now x in [-0.3, -0.1]
    // and y in (0, 0.6]: (x, y) -> (kElbow - y, x - kElbow).
    const Image bent = fixture.render(scene);
    CHECK(lit(bent, -0.5f, 0.0f));        // the upper arm did not move
    CHECK(lit(bent, -0.2f, 0.4f));        // the forearm points up
    CHECK(lit(bent, -0.2f, 0.55f));
    CHECK_FALSE(lit(bent, 0.2f, 0.0f));   // and is no longer where it lay
    CHECK_FALSE(lit(bent, -0.2f, 0.7f));  // 0.6 long: nothing past its end
    CHECK_FALSE(lit(bent, -0.45f, 0.4f)); // 0.1 either side of x = -0.2

    // Back to the rest pose through setSkeleton(nullptr): the bind pose again.
    arm.setSkeleton(nullptr);
    const Image again = fixture.render(scene);
    CHECK(lit(again, 0.2f, 0.0f));
}

TEST_CASE("Skinned positions read back by transform feedback equal the CPU's skinning equation", "[skinning]") {
    context();
    const auto skeleton = armSkeleton();
    const auto mesh = armStrip();
    std::vector<JointTransform> pose = bentPose(*skeleton, 0.7f);
    pose[0].rotation = glm::angleAxis(-0.3f, glm::normalize(glm::vec3(0.2f, 1.0f, 0.4f)));
    pose[1].scale = glm::vec3(1.3f, 0.8f, 1.0f);
    std::vector<glm::mat4> joints(2), skin(2);
    skeleton->jointMatrices(pose, joints);
    skeleton->skinMatrices(joints, skin);

    const std::uint32_t features = gl::detail::kSkin;
    const std::string defines = gl::detail::ShaderLibrary::featureDefines(features) +
                                gl::detail::ShaderLibrary::streamDeclarations(features);
    const gl::ShaderSource stages[] = {{gl::ShaderStage::Vertex, "surface.vert", gl::embeddedShaderText("surface.vert"), defines}};
    const char* varyings[] = {"gl_Position"};
    gl::Program program(stages, "skin-capture", varyings);
    const std::vector<std::byte> packed = mesh->packedVertices();
    gl::Buffer vertices({.initialData = std::span(packed)});
    gl::VertexArray layout = skinnedLayout(*mesh, vertices, false, nullptr);
    const std::vector<glm::vec4> rows = paletteRows(skin);
    BufferTexture palette(rows, gl::detail::kSkinUnit);
    program.use();
    program.setUniform(program.uniformLocation("u_viewProjection"), glm::mat4(1.0f));
    program.setUniform(program.uniformLocation("u_model"), glm::mat4(1.0f));
    const std::size_t count = mesh->vertexCount();
    const std::vector<float> out = capture(4 * count, [&] {
        gl::drawArraysInstanced(layout, gl::PrimitiveMode::Points, 0, static_cast<std::uint32_t>(count), 1);
    });
    for (std::size_t v = 0; v < count; ++v) {
        const glm::vec3 expected = skinnedPosition(mesh->data(), v, skin);
        INFO("vertex " << v);
        CHECK(out[4 * v] == Approx(expected.x).margin(1e-5));
        CHECK(out[4 * v + 1] == Approx(expected.y).margin(1e-5));
        CHECK(out[4 * v + 2] == Approx(expected.z).margin(1e-5));
    }
}

TEST_CASE("Instances of one clip at t and t + 0.5 s, and a cross-fade, match the CPU's poses", "[skinning]") {
    context();
    const auto skeleton = armSkeleton();
    const auto mesh = armStrip();
    const std::shared_ptr<const AnimationClip> clips[] = {bendClip(), liftClip()};
    const auto set = AnimationSet::bake(skeleton, clips, *mesh, {.framesPerSecond = 30.0f, .playOnce = {}});

    // The library's two stages fed by hand: skin_palette.comp blends each instance's palette
    // from the baked frames and its animation row, then the instanced vertex stage skins by it.
    const float time = 0.35f;
    // Instance 0 plays 'bend' from 0.1 s, instance 1 the same clip half a second later, instance
    // 2 fades from 'bend' to 'lift' and is half-way through its fade at the batch time above.
    const InstanceAnimation plays[] = {
        {.clip = 0, .startTime = 0.1f},
        {.clip = 0, .startTime = -0.4f},
        {.clip = 1, .startTime = 0.0f, .fadeFromClip = 0, .fadeFromStartTime = 0.0f, .fadeStart = 0.25f, .fadeDuration = 0.2f},
    };
    std::vector<glm::vec4> animationRows;
    for (const InstanceAnimation& a : plays) {
        const float from = a.fadeFromClip == InstanceAnimation::kNoFade ? -1.0f : static_cast<float>(a.fadeFromClip);
        animationRows.push_back({static_cast<float>(a.clip), a.startTime, a.speed, a.fadeStart});
        animationRows.push_back({from, a.fadeFromStartTime, a.fadeFromSpeed, a.fadeDuration});
    }
    const gl::ShaderSource kernel = gl::detail::SkinPalettePass::programSource();
    gl::Program blend(std::span(&kernel, 1), "skin-palette-test");
    BufferTexture frames(set->rows(), 0);
    BufferTexture animations(animationRows, 1);
    const std::size_t jointCount = set->jointCount();
    gl::Buffer palettes({.sizeBytes = 3 * jointCount * 3 * sizeof(glm::vec4)});
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, gl::detail::kSkinPaletteBinding, palettes.id());
    std::vector<glm::vec4> clipTable;
    for (const BakedClip& clip : set->clips()) {
        clipTable.emplace_back(static_cast<float>(clip.firstFrame), static_cast<float>(clip.frameCount), clip.duration,
                               clip.loops ? 1.0f : 0.0f);
    }
    glProgramUniform4fv(blend.id(), blend.uniformLocation("u_clips"), static_cast<GLsizei>(clipTable.size()), &clipTable[0][0]);
    glProgramUniform1ui(blend.id(), blend.uniformLocation("u_instanceCount"), 3u);
    glProgramUniform1ui(blend.id(), blend.uniformLocation("u_first"), 0u);
    glProgramUniform1i(blend.id(), blend.uniformLocation("u_jointCount"), static_cast<GLint>(jointCount));
    glProgramUniform1f(blend.id(), blend.uniformLocation("u_animationTime"), time);
    blend.use();
    glDispatchCompute(1, 1, 1);  // 3 instances x 2 joints: one group of 64
    glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, gl::detail::kSkinPaletteBinding, 0);
    GLuint paletteTexture = 0;
    glCreateTextures(GL_TEXTURE_BUFFER, 1, &paletteTexture);
    glTextureBuffer(paletteTexture, GL_RGBA32F, palettes.id());
    glBindTextureUnit(gl::detail::kSkinUnit, paletteTexture);

    const std::uint32_t features = gl::detail::kInstanced | gl::detail::kSkin | gl::detail::kSkinAnimated;
    const std::string defines = gl::detail::ShaderLibrary::featureDefines(features) +
                                gl::detail::ShaderLibrary::streamDeclarations(features);
    const gl::ShaderSource stages[] = {{gl::ShaderStage::Vertex, "surface.vert", gl::embeddedShaderText("surface.vert"), defines}};
    const char* varyings[] = {"gl_Position"};
    gl::Program program(stages, "crowd-capture", varyings);
    std::vector<InstanceRecord> records(3);  // identity transforms, white
    gl::Buffer recordBuffer({.initialData = std::as_bytes(std::span(records))});
    const std::vector<std::byte> packed = mesh->packedVertices();
    gl::Buffer vertices({.initialData = std::span(packed)});
    gl::VertexArray layout = skinnedLayout(*mesh, vertices, true, &recordBuffer);
    program.use();
    program.setUniform(program.uniformLocation("u_viewProjection"), glm::mat4(1.0f));
    program.setUniform(program.uniformLocation("u_model"), glm::mat4(1.0f));
    program.setUniform(program.uniformLocation("u_jointCount"), static_cast<int>(jointCount));
    const std::size_t count = mesh->vertexCount();
    const std::vector<float> out = capture(4 * count * 3, [&] {
        gl::drawArraysInstanced(layout, gl::PrimitiveMode::Points, 0, static_cast<std::uint32_t>(count), 3);
    });
    glDeleteTextures(1, &paletteTexture);

    std::vector<glm::mat4> baked(2), exact(2), joints(2);
    for (std::size_t instance = 0; instance < 3; ++instance) {
        set->skinMatricesAt(plays[instance], time, baked);
        for (std::size_t v = 0; v < count; ++v) {
            const std::size_t at = 4 * (instance * count + v);
            const glm::vec3 expected = skinnedPosition(mesh->data(), v, baked);
            INFO("instance " << instance << ", vertex " << v);
            CHECK(out[at] == Approx(expected.x).margin(1e-4));
            CHECK(out[at + 1] == Approx(expected.y).margin(1e-4));
        }
    }
    // And the baked pose is the clip's own at those times (0.25 s and 0.75 s of 'bend'), to
    // within what linear blending of two frames 1/30 s apart costs (far below a pixel here).
    for (const auto& [instance, clipSeconds] : {std::pair{0, 0.25f}, std::pair{1, 0.75f}}) {
        std::vector<JointTransform> pose = skeleton->restPose();
        clips[0]->sample(clipSeconds, pose);
        skeleton->jointMatrices(pose, joints);
        skeleton->skinMatrices(joints, exact);
        const std::size_t tip = count - 1;  // (0.4, 0.1): the forearm's far corner
        const glm::vec3 expected = skinnedPosition(mesh->data(), tip, exact);
        const std::size_t at = 4 * (static_cast<std::size_t>(instance) * count + tip);
        CHECK(out[at] == Approx(expected.x).margin(2e-3));
        CHECK(out[at + 1] == Approx(expected.y).margin(2e-3));
    }
    // The fade's midpoint: the average of the two clips' positions.
    std::vector<glm::mat4> bendNow(2), liftNow(2);
    set->skinMatricesAt({.clip = 0}, time, bendNow);
    set->skinMatricesAt({.clip = 1}, time, liftNow);
    const std::size_t tip = count - 1;
    const glm::vec3 midpoint = 0.5f * (skinnedPosition(mesh->data(), tip, bendNow) + skinnedPosition(mesh->data(), tip, liftNow));
    CHECK(out[4 * (2 * count + tip)] == Approx(midpoint.x).margin(1e-4));
    CHECK(out[4 * (2 * count + tip) + 1] == Approx(midpoint.y).margin(1e-4));
}

TEST_CASE("A skinned node's bounds follow its pose: posed out of its bind box, it is still drawn", "[skinning][pixels]") {
    RenderFixture fixture;
    Scene scene;
    // The bind pose lies at x in [2.2, 3.4]: wholly out of view. The pose carries the shoulder
    // back by -3, into view; culling by the bind box would skip the draw.
    auto& arm = scene.root().emplace<MeshNode>(armStrip(), unlit(glm::vec4(1.0f, 0.0f, 0.0f, 1.0f)), "arm");
    arm.setPosition({3.0, 0.0, 0.0});
    arm.setSkeleton(armSkeleton());
    std::vector<JointTransform> pose = arm.skeleton()->restPose();
    pose[0].translation.x -= 3.0f;
    arm.setPose(pose);
    CHECK(arm.worldBounds().min.x == Approx(-0.8f).margin(1e-4));
    const Image image = fixture.render(scene);
    CHECK(lit(image, -0.5f, 0.0f));
    CHECK(fixture.renderer.lastFrameStats().culledNodes == 0);
    // skinReach: spheres of 0.7 around the joints hold the strip (0.6 + the half height).
    arm.setSkinReach(0.7f);
    CHECK(arm.drawBounds().min.x == Approx(-3.8f - 0.7f).margin(1e-4));
    CHECK_THROWS_AS(arm.setSkinReach(-1.0f), InvalidArgument);
}

TEST_CASE("A crowd playing baked clips: each instance at its own time, nothing uploaded while only time passes", "[skinning][pixels]") {
    RenderFixture fixture;
    Scene scene;
    const auto mesh = armStrip();
    const auto skeleton = armSkeleton();
    const std::shared_ptr<const AnimationClip> clips[] = {bendClip(), liftClip()};
    const auto set = AnimationSet::bake(skeleton, clips, *mesh, {.framesPerSecond = 30.0f, .playOnce = {"bend", "lift"}});
    auto& crowd = scene.root().emplace<InstancedMeshNode>(mesh, unlit(glm::vec4(1.0f, 0.0f, 0.0f, 1.0f)), 4, "crowd");
    crowd.setScale(glm::vec3(0.5f));
    const InstanceHandle low = crowd.acquire({.transform = at(0.0f, -1.2f)});
    const InstanceHandle high = crowd.acquire({.transform = at(0.0f, 1.2f)});
    crowd.setAnimationSet(set);
    // The low arm starts bending at 0, the high one at 1 s (play once: it holds its end).
    crowd.setAnimation(high, {.clip = 0, .startTime = 1.0f});
    CHECK(crowd.animation(crowd.indexOf(high)).startTime == 1.0f);
    crowd.setAnimationTime(1.0f);
    Image image = fixture.render(scene);
    // Node scale 0.5: the low arm bent (forearm up from x = -0.1, y in [-0.6, -0.3]), the high
    // one straight (forearm along y = 0.6 to x = 0.2).
    CHECK(lit(image, -0.1f, -0.4f));
    CHECK_FALSE(lit(image, 0.15f, -0.6f));
    CHECK(lit(image, 0.15f, 0.6f));
    CHECK_FALSE(lit(image, -0.1f, 0.8f));

    // Only the clock changes: the high arm bends too, and no byte is sent.
    crowd.setAnimationTime(2.0f);
    fixture.render(scene);
    image = fixture.render(scene);
    CHECK(fixture.renderer.lastFrameStats().bytesUploaded == 0);
    CHECK(lit(image, -0.1f, 0.8f));
    CHECK_FALSE(lit(image, 0.15f, 0.6f));
    // The node's bounds hold every baked pose of its mesh.
    CHECK(crowd.meshBounds().max.y >= 0.6f - 1e-4f);

    // A cross-fade halfway between 'bend' at its end and 'lift' at its end: the forearm rotated
    // 45 degrees and lifted 0.25; its tip is at the mean of the two tips.
    crowd.setAnimation(low, {.clip = 1, .startTime = 0.0f, .fadeFromClip = 0, .fadeFromStartTime = 0.0f,
                             .fadeStart = 1.5f, .fadeDuration = 1.0f});
    CHECK_THROWS_AS(crowd.setAnimation(low, {.clip = 2}), InvalidArgument);
    CHECK_THROWS_AS(crowd.setAnimation(low, {.clip = 0, .speed = std::nanf("")}), InvalidArgument);
    CHECK(crowd.animation(crowd.indexOf(low)).clip == 1);  // the refused calls changed nothing
}

TEST_CASE("Skinning refuses meshes it cannot skin, and leaves the node as it was", "[skinning]") {
    MeshData plain;
    plain.positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
    plain.indices16 = {0, 1, 2};
    MeshNode node(MeshGeometry::create(plain, "plain"), unlit(), "plain");
    CHECK_THROWS_WITH(node.setSkeleton(armSkeleton()), Catch::Contains("not skinned"));
    CHECK(node.skeleton() == nullptr);
    CHECK_THROWS_WITH(node.setPose(std::vector<JointTransform>(2)), Catch::Contains("no skeleton"));

    MeshNode arm(armStrip(), unlit(), "arm");
    std::vector<Joint> one(1);
    CHECK_THROWS_WITH(arm.setSkeleton(Skeleton::create(one, "one")), Catch::Contains("joint 1"));
    arm.setSkeleton(armSkeleton());
    const Aabb before = arm.drawBounds();
    CHECK_THROWS_AS(arm.setPose(std::vector<JointTransform>(3)), InvalidArgument);
    std::vector<JointTransform> bad = arm.skeleton()->restPose();
    bad[1].translation.x = std::nanf("");
    CHECK_THROWS_AS(arm.setPose(bad), InvalidArgument);
    CHECK(arm.drawBounds() == before);
    CHECK_THROWS_AS(arm.setMesh(MeshGeometry::create(plain, "plain")), InvalidArgument);
    CHECK(arm.mesh()->name() == "arm-strip");
    InstancedMeshNode batch(MeshGeometry::create(plain, "plain"), unlit(), 1, "batch");
    const std::shared_ptr<const AnimationClip> clips[] = {bendClip()};
    const auto set = AnimationSet::bake(armSkeleton(), clips, *armStrip());
    CHECK_THROWS_WITH(batch.setAnimationSet(set), Catch::Contains("not skinned"));
    CHECK(batch.animationSet() == nullptr);
}

TEST_CASE("A skinned node's shadow follows its pose", "[skinning][shadows][pixels]") {
    RenderFixture fixture;
    Scene scene;
    Material lit;
    lit.shading = Shading::Lit;
    auto& ground = scene.root().emplace<MeshNode>(MeshGeometry::create(shapes::quad(4.0f, 4.0f), "ground"), lit, "ground");
    (void)ground;  // in the XY plane at z = 0, facing the camera
    auto& arm = scene.root().emplace<MeshNode>(armStrip(), unlit(glm::vec4(1.0f, 0.0f, 0.0f, 1.0f)), "arm");
    arm.setPosition({0.0, 0.0, 1.0});  // one unit above the ground
    // Light along (1, 0, -1): a caster's shadow falls one unit to its +x side.
    scene.light.direction = glm::vec3(1.0f, 0.0f, -1.0f);
    scene.light.intensity = 1.0f;
    scene.ambient = glm::vec3(0.1f);
    scene.light.shadow.enabled = true;
    scene.light.shadow.mapSize = 1024;
    scene.light.shadow.distance = 20.0f;
    arm.setSkeleton(armSkeleton());
    arm.setPose(bentPose(*arm.skeleton(), kQuarterTurn));
    const Image image = fixture.render(scene);
    // The bent forearm (x in [-0.3, -0.1], y in (0, 0.6]) shades x in [0.7, 0.9]; the straight
    // one would have shaded x in [0.8, 1.4] near y = 0, which stays lit.
    const Rgba underBent = pixelAt(image, pixelX(0.8f, kSize), pixelY(0.45f, kSize));
    const Rgba whereStraight = pixelAt(image, pixelX(1.2f, kSize), pixelY(0.0f, kSize));
    INFO("under the bent forearm " << describe(underBent) << ", where the straight one would be " << describe(whereStraight));
    CHECK(underBent[0] + 40 < whereStraight[0]);
}

TEST_CASE("A crowd culled per instance on the CPU or the GPU draws what it draws unculled", "[skinning][visibility][pixels]") {
    RenderFixture fixture;
    const auto mesh = armStrip();
    // 'reach': the shoulder rises 1.5 over 1 s, carrying the whole arm farther than the sphere
    // around its bind pose reaches.
    AnimationChannel rise;
    rise.target = 0;
    rise.times = {0.0f, 1.0f};
    rise.values = {glm::vec4(-0.8f, 0.0f, 0.0f, 0.0f), glm::vec4(-0.8f, 1.5f, 0.0f, 0.0f)};
    const std::shared_ptr<const AnimationClip> clips[] = {bendClip(), liftClip(), AnimationClip::create("reach", {rise})};
    const auto set = AnimationSet::bake(armSkeleton(), clips, *mesh,
                                        {.framesPerSecond = 30.0f, .playOnce = {"bend", "lift", "reach"}});
    auto draw = [&](InstanceCulling culling, gl::FrameStats* stats) {
        Scene scene;
        auto& crowd = scene.root().emplace<InstancedMeshNode>(mesh, unlit(glm::vec4(1.0f, 0.0f, 0.0f, 1.0f)), 8, "crowd");
        crowd.setScale(glm::vec3(0.5f));
        crowd.addInstance(at(0.0f, -1.2f));
        crowd.addInstance(at(0.0f, 1.2f));
        // Straight, this one lies right of the view (x from 2.6 to 3.2); 'lift' bent by the
        // shoulder raises it, still out: culled, while the bend of the others brings no change.
        crowd.addInstance(at(6.0f, 0.0f));
        // Upside down above the view: its bind pose (y in [1.45, 1.55]; the sphere around its
        // box reaches down to y = 1.2) is out of view; at the end of 'reach' the whole arm has
        // come down into it (y in [0.7, 0.8], x in [-0.2, 0.4]): culling by the bind pose drops it.
        crowd.addInstance(at(0.0f, 3.0f) * glm::rotate(glm::mat4(1.0f), std::numbers::pi_v<float>, glm::vec3(0, 0, 1)));
        crowd.setAnimationSet(set);
        crowd.setAnimation(3, {.clip = 2, .startTime = 0.0f});
        crowd.setAnimation(1, {.clip = 0, .startTime = 1.0f});
        crowd.setAnimationTime(1.0f);
        crowd.setInstanceCulling(culling);
        Image image = fixture.render(scene);
        if (stats != nullptr) {
            *stats = fixture.renderer.lastFrameStats();
        }
        return image;
    };
    const Image unculled = draw(InstanceCulling::Off, nullptr);
    gl::FrameStats cpuStats;
    const Image cpu = draw(InstanceCulling::Cpu, &cpuStats);
    const Image gpu = draw(InstanceCulling::Gpu, nullptr);
    CHECK(lit(unculled, -0.1f, -0.4f));  // the low arm bent, as in the test above
    CHECK(lit(unculled, 0.15f, 0.6f));   // the high one straight
    CHECK(lit(unculled, 0.1f, 0.75f));   // the upside-down one, come down into view
    CHECK(cpuStats.instances == 3);      // the far one culled by the box of its poses
    for (const float x : {-0.1f, 0.1f, 0.15f, -0.45f}) {
        for (const float y : {-0.6f, -0.4f, 0.6f, 0.75f, 0.85f}) {
            INFO("(" << x << ", " << y << ")");
            CHECK(lit(cpu, x, y) == lit(unculled, x, y));
            CHECK(lit(gpu, x, y) == lit(unculled, x, y));
        }
    }
}

TEST_CASE("A crowd's palettes: blended once a frame behind barriers, not at all when nothing changed", "[skinning][barriers]") {
    // The palettes are written by a compute dispatch and read by the draws' texel fetches: the
    // draws need a texture-fetch barrier after the dispatch, and the next frame's dispatch a
    // storage barrier after the last draws that read them (write after read, OpenGL 4.5 section
    // 7.12.2). llvmpipe runs everything in order, so only the call log can show them.
    INFO("GL: " << context().description());
    RenderFixture fixture;
    Scene scene;
    const auto mesh = armStrip();
    const std::shared_ptr<const AnimationClip> clips[] = {bendClip()};
    auto& crowd = scene.root().emplace<InstancedMeshNode>(mesh, unlit(glm::vec4(1.0f)), 4, "crowd");
    crowd.addInstance(at(0.0f, -0.5f));
    crowd.addInstance(at(0.0f, 0.5f));
    crowd.setAnimationSet(AnimationSet::bake(armSkeleton(), clips, *mesh));
    fixture.render(scene);
    CHECK(fixture.renderer.lastFrameStats().skinPaletteDispatches == 1);
    GlCallLog log(GlCallLog::NoFunctions{});
    MYRIAD_GL_CALL_LOG_HOOK(log, glMemoryBarrier);
    MYRIAD_GL_CALL_LOG_HOOK(log, glDispatchCompute);
    MYRIAD_GL_CALL_LOG_HOOK(log, glDrawElementsInstancedBaseInstance);
    for (int frame = 1; frame <= 3; ++frame) {
        crowd.setAnimationTime(0.2f * static_cast<float>(frame));
        fixture.render(scene);
        CHECK(fixture.renderer.lastFrameStats().skinPaletteDispatches == 1);
    }
    bool storageBarrierSinceDraw = false;
    bool fetchBarrierSinceDispatch = true;
    std::size_t dispatches = 0;
    for (const GlCall& call : log.calls()) {
        if (call.function == "glMemoryBarrier") {
            const auto bits = call.argument<GLbitfield>(0);
            storageBarrierSinceDraw = storageBarrierSinceDraw || (bits & GL_SHADER_STORAGE_BARRIER_BIT) != 0;
            fetchBarrierSinceDispatch = fetchBarrierSinceDispatch || (bits & GL_TEXTURE_FETCH_BARRIER_BIT) != 0;
        } else if (call.function == "glDispatchCompute") {
            INFO(log.dump(40));
            CHECK(storageBarrierSinceDraw);
            fetchBarrierSinceDispatch = false;
            ++dispatches;
        } else {  // a draw
            INFO(log.dump(40));
            CHECK(fetchBarrierSinceDispatch);
            storageBarrierSinceDraw = false;
        }
    }
    CHECK(dispatches == 3);
    // The same clock, choices and instances: the palettes already hold the pose.
    fixture.render(scene);
    CHECK(fixture.renderer.lastFrameStats().skinPaletteDispatches == 0);
    crowd.setAnimation(0, {.startTime = 0.3f});  // one instance's choice: blended again
    fixture.render(scene);
    CHECK(fixture.renderer.lastFrameStats().skinPaletteDispatches == 1);
}
