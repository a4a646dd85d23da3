// Morph targets on the GPU: node weights, per-instance weights read by instance id, wrapping
// texture rows, base instances, and exact morphed positions read back by transform feedback.
#include "renderer/ShaderLibrary.h"
#include "support/GlTest.h"
#include "support/TransformFeedback.h"

#include <glad/gl.h>

#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/gl/Buffer.h"
#include "myriad/gl/Draw.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/Program.h"
#include "myriad/gl/Renderer.h"
#include "myriad/gl/VertexArray.h"
#include "myriad/gltf/GltfImporter.h"

#include <glm/gtc/matrix_transform.hpp>

#include <functional>
#include <vector>

using namespace myriad;
using namespace myriad::test;

namespace {

constexpr std::uint32_t kSize = 64;

// A 0.4 x 0.4 quad with one morph target that lifts every vertex by 0.5 in y.
std::shared_ptr<const MeshGeometry> liftingQuad() {
    MeshData data = shapes::quad(0.4f, 0.4f);
    MorphTarget lift;
    lift.name = "lift";
    lift.positionDeltas.assign(4, glm::vec3(0.0f, 0.5f, 0.0f));
    data.morphTargets.push_back(lift);
    return MeshGeometry::create(data, "lifting-quad");
}

std::vector<float> capture(std::size_t floats, const std::function<void()>& draw) {
    return captureTransformFeedback(floats, draw);
}

} // namespace

TEST_CASE("kMaxMorphTargets is the same number in C++ and GLSL", "[morph]") {
    context();
    const char* vertex = "#version 450 core\n"
                         "out float v_max;\n"
                         "void main() { v_max = float(MYRIAD_MAX_MORPH_TARGETS); gl_Position = vec4(0.0); }\n";
    const gl::ShaderSource stages[] = {{gl::ShaderStage::Vertex, "max.vert", vertex}};
    const char* varyings[] = {"v_max"};
    gl::Program program(stages, "max-morph-targets", varyings);
    gl::VertexLayoutDesc noAttributes;
    noAttributes.label = "no-attributes";
    gl::VertexArray empty(noAttributes);
    program.use();
    const std::vector<float> read =
        capture(1, [&] { gl::drawArraysInstanced(empty, gl::PrimitiveMode::Points, 0, 1, 1); });
    CHECK(read[0] == static_cast<float>(kMaxMorphTargets));
}

TEST_CASE("weight 0 and weight 1 on a lifting target: pixels show the lift, weight 0 matches a MeshNode", "[morph][pixels]") {
    context();
    gl::Renderer renderer;
    gl::OffscreenTarget target(kSize, kSize);
    const Camera camera = orthoCamera();
    auto mesh = liftingQuad();
    Scene scene;
    auto& batch = scene.root().emplace<InstancedMeshNode>(mesh, unlit(), 2, "crowd");
    batch.addInstance(at(-0.5f, -0.25f), glm::vec4(1, 0, 0, 1));
    batch.addInstance(at(0.5f, -0.25f), glm::vec4(0, 1, 0, 1));
    const float none[] = {0.0f};
    const float full[] = {1.0f};
    batch.setMorphWeights(0, none);
    batch.setMorphWeights(1, full);
    renderer.render(scene, camera, target);
    Image image = target.readPixels();
    CHECK(renderer.instanceMorphWeightsTexture(batch) != 0);
    // Instance 0 stays at y = -0.25; instance 1 is lifted to y = +0.25.
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), pixelY(-0.25f, kSize), kRed);
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), pixelY(0.25f, kSize), kBlack);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), pixelY(0.25f, kSize), kGreen);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.5f, kSize), pixelY(-0.25f, kSize) + 4, kBlack);

    // The unmorphed instance matches a plain MeshNode with the same transform.
    Scene plain;
    auto& single = plain.root().emplace<MeshNode>(mesh, unlit(glm::vec4(1, 0, 0, 1)), "plain");
    single.setLocalMatrix(at(-0.5f, -0.25f));
    renderer.render(plain, camera, target);
    const Image reference = target.readPixels();
    for (std::uint32_t y = 0; y < kSize; ++y) {
        for (std::uint32_t x = 0; x < kSize / 2; ++x) {
            if (pixelAt(image, x, y) != pixelAt(reference, x, y)) {
                FAIL("left half differs at (" << x << ", " << y << ")");
            }
        }
    }

    // Node weights apply to instances without their own.
    batch.clearMorphWeights(0);
    const float nodeLift[] = {1.0f};
    batch.MeshNode::setMorphWeights(nodeLift);
    renderer.render(scene, camera, target);
    image = target.readPixels();
    MYRIAD_CHECK_PIXEL(image, pixelX(-0.5f, kSize), pixelY(0.25f, kSize), kRed);
}

TEST_CASE("weights stay with their instance through release, adds and growth", "[morph][pixels]") {
    context();
    gl::Renderer renderer;
    gl::OffscreenTarget target(kSize, kSize);
    const Camera camera = orthoCamera();
    auto mesh = liftingQuad();
    Scene scene;
    auto& batch = scene.root().emplace<InstancedMeshNode>(mesh, unlit(), std::size_t{2}, "crowd",
                                                          InstancedMeshOptions{.growth = Growth::Double});
    const float lifted[] = {1.0f};
    std::vector<InstanceHandle> handles;
    const float xs[] = {-0.75f, -0.25f, 0.25f, 0.75f};
    for (int i = 0; i < 4; ++i) {
        handles.push_back(batch.acquire({at(xs[i], -0.25f), glm::vec4(1, 1, 1, 1)}));
    }
    // Lift instances 1 and 3 (3 lives in row 1 of the wrapped texture, past the first row).
    batch.setMorphWeights(batch.indexOf(handles[1]), lifted);
    batch.setMorphWeights(batch.indexOf(handles[3]), lifted);
    renderer.render(scene, camera, target);
    auto lifted_at = [&](const Image& image, int i) {
        return pixelAt(image, pixelX(xs[i], kSize), pixelY(0.25f, kSize))[0] > 128;
    };
    Image image = target.readPixels();
    CHECK_FALSE(lifted_at(image, 0));
    CHECK(lifted_at(image, 1));
    CHECK_FALSE(lifted_at(image, 2));
    CHECK(lifted_at(image, 3));

    // Release 0: instance 3 (lifted) moves into index 0 and keeps its weights.
    batch.release(handles[0]);
    // Growth: many more instances, past the old texture, the new ones not lifted.
    for (int i = 0; i < 20; ++i) {
        (void)batch.acquire({at(0.0f, -0.8f), glm::vec4(1, 1, 1, 1)});
    }
    // The last one (row 10 of the texture) gets a lift of its own and moves far right.
    const std::size_t last = batch.count() - 1;
    batch.setTransform(last, at(0.95f, -0.25f));
    batch.setMorphWeights(last, lifted);
    renderer.render(scene, camera, target);
    image = target.readPixels();
    CHECK(lifted_at(image, 1));
    CHECK_FALSE(lifted_at(image, 2));
    CHECK(lifted_at(image, 3));
    MYRIAD_CHECK_PIXEL(image, pixelX(0.95f, kSize), pixelY(0.25f, kSize), kWhite);
    MYRIAD_CHECK_PIXEL(image, pixelX(0.95f, kSize), pixelY(-0.25f, kSize) + 4, kBlack);
}

TEST_CASE("instanceMorphWeightsTexture is none once no instance has weights of its own", "[morph]") {
    context();
    gl::Renderer renderer;
    gl::OffscreenTarget target(16, 16);
    Scene scene;
    auto& batch = scene.root().emplace<InstancedMeshNode>(liftingQuad(), unlit(), 4, "cleared");
    batch.addInstance(glm::mat4(1.0f));
    batch.addInstance(at(0.5f));
    const float full[] = {1.0f};
    batch.setMorphWeights(1, full);
    renderer.render(scene, orthoCamera(), target);
    CHECK(renderer.instanceMorphWeightsTexture(batch) != 0);
    batch.clearMorphWeights(1);
    renderer.render(scene, orthoCamera(), target);
    CHECK_FALSE(batch.hasInstanceMorphWeights());
    CHECK(renderer.instanceMorphWeightsTexture(batch) == 0);  // the vertex stage reads none now
}

TEST_CASE("a batch that never had weights creates no texture", "[morph]") {
    context();
    gl::Renderer renderer;
    gl::OffscreenTarget target(16, 16);
    Scene scene;
    auto& batch = scene.root().emplace<InstancedMeshNode>(liftingQuad(), unlit(), 4, "plain");
    batch.addInstance(glm::mat4(1.0f));
    renderer.render(scene, orthoCamera(), target);
    CHECK(renderer.instanceMorphWeightsTexture(batch) == 0);
    CHECK(batch.instanceMorphWeightData().empty());
}

TEST_CASE("SimpleMorph: morphed vertex positions read back by transform feedback match the glTF arithmetic", "[morph][gltf]") {
    context();
    const gltf::ImportedModel model =
        gltf::importModel(std::string(MYRIAD_ASSETS_DIR) + "/SimpleMorph/SimpleMorph.gltf");
    const MeshGeometry& mesh = *model.primitives.at(0).mesh;
    const MeshData& data = mesh.data();
    const std::size_t vertexCount = mesh.vertexCount();
    const std::size_t targets = mesh.morphTargetCount();

    // The library's instanced vertex stage with per-instance weights, fed by hand, with the
    // stream declarations the renderer generates.
    const std::uint32_t features = gl::detail::kInstanced | gl::detail::kMorph | gl::detail::kInstanceMorphWeights;
    const std::string defines = gl::detail::ShaderLibrary::featureDefines(features) +
                                gl::detail::ShaderLibrary::streamDeclarations(features);
    const gl::ShaderSource stages[] = {{gl::ShaderStage::Vertex, "surface.vert",
                                        gl::embeddedShaderText("surface.vert"), defines}};
    const char* varyings[] = {"gl_Position"};
    gl::Program program(stages, "transform-feedback", varyings);

    std::vector<glm::vec4> deltas(2 * targets * vertexCount, glm::vec4(0.0f));
    for (std::size_t t = 0; t < targets; ++t) {
        for (std::size_t v = 0; v < vertexCount; ++v) {
            deltas[2 * (t * vertexCount + v)] = glm::vec4(data.morphTargets[t].positionDeltas[v], 0.0f);
        }
    }
    gl::Buffer deltaBuffer({.initialData = std::as_bytes(std::span(deltas))});
    GLuint morphTexture = 0;
    glCreateTextures(GL_TEXTURE_BUFFER, 1, &morphTexture);
    glTextureBuffer(morphTexture, GL_RGBA32F, deltaBuffer.id());

    // Three instances' weights: instance 0 uses the node's, 1 and 2 their own.
    const float rows[3][kMaxMorphTargets] = {{InstancedMeshNode::kUseNodeMorphWeights},
                                             {1.0f, 0.0f},
                                             {0.25f, 0.75f}};
    gl::Buffer weightBuffer({.initialData = std::as_bytes(std::span(&rows[0][0], 3 * kMaxMorphTargets))});
    GLuint weightTexture = 0;
    glCreateTextures(GL_TEXTURE_BUFFER, 1, &weightTexture);
    glTextureBuffer(weightTexture, GL_RGBA32F, weightBuffer.id());

    std::vector<glm::vec3> positions(data.positions);
    gl::Buffer positionBuffer({.initialData = std::as_bytes(std::span(positions))});
    std::vector<InstanceRecord> records(3);  // identity transforms
    gl::Buffer instanceBuffer({.initialData = std::as_bytes(std::span(records))});
    gl::VertexArray layout({.attributes = {{location::kPosition, gl::AttributeFormat::Float3, 0, 0},
                                           {location::kInstanceRow0, gl::AttributeFormat::Float4, 0, 1},
                                           {location::kInstanceRow1, gl::AttributeFormat::Float4, 16, 1},
                                           {location::kInstanceRow2, gl::AttributeFormat::Float4, 32, 1},
                                           {location::kInstanceColor, gl::AttributeFormat::Float4, 48, 1}},
                            .bindings = {{0, 12, 0}, {1, 64, 1}},
                            .label = "simple-morph"});
    layout.setVertexBuffer(0, positionBuffer);
    layout.setVertexBuffer(1, instanceBuffer);

    program.use();
    program.setUniform(program.uniformLocation("u_viewProjection"), glm::mat4(1.0f));
    program.setUniform(program.uniformLocation("u_model"), glm::mat4(1.0f));
    program.setUniform(program.uniformLocation("u_morphTargetCount"), static_cast<int>(targets));
    program.setUniform(program.uniformLocation("u_vertexCount"), static_cast<int>(vertexCount));
    program.setUniform(program.uniformLocation("u_morphWeights"), std::span<const float>(mesh.defaultMorphWeights()));
    glBindTextureUnit(1, morphTexture);
    glBindTextureUnit(2, weightTexture);

    auto expected = [&](std::size_t v, std::span<const float> weights) {
        glm::vec3 p = data.positions[v];
        for (std::size_t t = 0; t < targets; ++t) {
            p += weights[t] * data.morphTargets[t].positionDeltas[v];
        }
        return p;
    };
    auto check = [&](std::uint32_t baseInstance, std::span<const float> weights) {
        program.setUniform(program.uniformLocation("u_baseInstance"), static_cast<int>(baseInstance));
        const std::vector<float> read = capture(vertexCount * 4, [&] {
            gl::drawArraysInstancedBaseInstance(layout, gl::PrimitiveMode::Points, 0,
                                                static_cast<std::uint32_t>(vertexCount), 1, baseInstance);
        });
        bool anyMoved = false;
        for (std::size_t v = 0; v < vertexCount; ++v) {
            const glm::vec3 want = expected(v, weights);
            INFO("base instance " << baseInstance << ", vertex " << v);
            CHECK(read[4 * v + 0] == Approx(want.x).margin(1e-6));
            CHECK(read[4 * v + 1] == Approx(want.y).margin(1e-6));
            CHECK(read[4 * v + 2] == Approx(want.z).margin(1e-6));
            anyMoved = anyMoved || want != data.positions[v];
        }
        CHECK(anyMoved);
    };
    check(0, mesh.defaultMorphWeights());  // node weights 0.5, 0.5
    const float one[] = {1.0f, 0.0f};
    check(1, one);  // a draw from base instance 1 reads row 1
    const float mix[] = {0.25f, 0.75f};
    check(2, mix);
    glDeleteTextures(1, &morphTexture);
    glDeleteTextures(1, &weightTexture);
}
