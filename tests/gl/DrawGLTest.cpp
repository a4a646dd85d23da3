// The low-level layer on its own: buffers, layouts with divisors, instanced draws.
#include "support/GlTest.h"

#include <glad/gl.h>

#include "myriad/gl/Buffer.h"
#include "myriad/gl/Draw.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/Program.h"
#include "myriad/gl/VertexArray.h"
#include "myriad/util/Error.h"

#include <glm/vec2.hpp>
#include <glm/vec4.hpp>

#include <vector>

using namespace myriad;
using namespace myriad::test;

namespace {

constexpr std::uint32_t kSize = 32;

constexpr const char* kVertex = R"(#version 450 core
layout(location = 0) in vec2 a_position;
layout(location = 1) in vec2 a_offset;
layout(location = 2) in vec4 a_color;
out vec4 v_color;
void main() {
    gl_Position = vec4(a_position + a_offset, 0.0, 1.0);
    v_color = a_color;
}
)";

constexpr const char* kFragment = R"(#version 450 core
in vec4 v_color;
out vec4 o_color;
void main() { o_color = v_color; }
)";

gl::Program makeProgram() {
    const gl::ShaderSource stages[] = {{gl::ShaderStage::Vertex, "test.vert", kVertex},
                                       {gl::ShaderStage::Fragment, "test.frag", kFragment}};
    return gl::Program(stages, "test-program");
}

template <class T>
gl::Buffer makeBuffer(const std::vector<T>& values, const char* label) {
    return gl::Buffer({.initialData = std::as_bytes(std::span(values)), .label = label});
}

// A half-size quad as a triangle strip around the origin, in clip space.
const std::vector<glm::vec2> kQuad = {{-0.4f, -0.4f}, {0.4f, -0.4f}, {-0.4f, 0.4f}, {0.4f, 0.4f}};
// Quadrant centres: top-left, top-right, bottom-left, bottom-right.
const std::vector<glm::vec2> kOffsets = {{-0.5f, 0.5f}, {0.5f, 0.5f}, {-0.5f, -0.5f}, {0.5f, -0.5f}};

void clear(const gl::OffscreenTarget& target) {
    const float black[] = {0, 0, 0, 1};
    glClearNamedFramebufferfv(target.framebufferId(), GL_COLOR, 0, black);
}

} // namespace

namespace {

void bindTarget(const gl::OffscreenTarget& target) {
    glBindFramebuffer(GL_FRAMEBUFFER, target.framebufferId());
    glViewport(0, 0, static_cast<GLsizei>(target.width()), static_cast<GLsizei>(target.height()));
}

} // namespace

TEST_CASE("a divisor-2 attribute advances every second instance", "[low-level][pixels]") {
    context();
    gl::OffscreenTarget target(kSize, kSize, "divisor-target");
    gl::Program program = makeProgram();
    gl::Buffer quad = makeBuffer(kQuad, "quad");
    gl::Buffer offsets = makeBuffer(kOffsets, "offsets");
    const std::vector<glm::vec4> colors = {{1, 0, 0, 1}, {0, 1, 0, 1}};
    gl::Buffer colorBuffer = makeBuffer(colors, "colors");
    gl::VertexArray layout({.attributes = {{0, gl::AttributeFormat::Float2, 0, 0},
                                           {1, gl::AttributeFormat::Float2, 0, 1},
                                           {2, gl::AttributeFormat::Float4, 0, 2}},
                            .bindings = {{0, 8, 0}, {1, 8, 1}, {2, 16, 2}},
                            .label = "divisor-layout"});
    layout.setVertexBuffer(0, quad);
    layout.setVertexBuffer(1, offsets);
    layout.setVertexBuffer(2, colorBuffer);
    CHECK(layout.vertexLimit() == 4);
    CHECK(layout.instanceLimit() == 4);  // 4 offsets at divisor 1, 2 colours at divisor 2

    bindTarget(target);
    clear(target);
    program.use();
    gl::drawArraysInstanced(layout, gl::PrimitiveMode::TriangleStrip, 0, 4, 4);
    const Image image = target.readPixels();
    const std::uint32_t left = kSize / 4;
    const std::uint32_t right = 3 * kSize / 4;
    MYRIAD_CHECK_PIXEL(image, left, left, kRed);     // instance 0
    MYRIAD_CHECK_PIXEL(image, right, left, kRed);    // instance 1: same colour element
    MYRIAD_CHECK_PIXEL(image, left, right, kGreen);  // instance 2
    MYRIAD_CHECK_PIXEL(image, right, right, kGreen); // instance 3

    // Five instances would need a third colour: refused before anything is drawn.
    CHECK_THROWS_AS(gl::drawArraysInstanced(layout, gl::PrimitiveMode::TriangleStrip, 0, 4, 5),
                    OutOfRange);
    CHECK_THROWS_AS(gl::drawArraysInstanced(layout, gl::PrimitiveMode::TriangleStrip, 1, 4, 1),
                    OutOfRange);
    // GL reads element floor(instance / divisor) + baseInstance: from base 1, instances 0 and 1
    // read offsets 1 and 2 and colour element 1 (green) both times.
    clear(target);
    gl::drawArraysInstancedBaseInstance(layout, gl::PrimitiveMode::TriangleStrip, 0, 4, 2, 1);
    const Image based = target.readPixels();
    MYRIAD_CHECK_PIXEL(based, left, left, kBlack);
    MYRIAD_CHECK_PIXEL(based, right, left, kGreen);
    MYRIAD_CHECK_PIXEL(based, left, right, kGreen);
    MYRIAD_CHECK_PIXEL(based, right, right, kBlack);
    // From base 2 the colour binding would need element 2 of 2: refused (it would read zeros).
    CHECK_THROWS_AS(
        gl::drawArraysInstancedBaseInstance(layout, gl::PrimitiveMode::TriangleStrip, 0, 4, 2, 2),
        OutOfRange);
}

TEST_CASE("a divisor set on one layout does not affect a later non-instanced draw", "[low-level][pixels]") {
    context();
    gl::OffscreenTarget target(kSize, kSize, "leak-target");
    gl::Program program = makeProgram();
    gl::Buffer quad = makeBuffer(kQuad, "quad");
    gl::Buffer offsets = makeBuffer(kOffsets, "offsets");
    const std::vector<glm::vec4> red = {{1, 0, 0, 1}};
    gl::Buffer redBuffer = makeBuffer(red, "red");
    // Layout A: offset and colour per instance.
    gl::VertexArray instanced({.attributes = {{0, gl::AttributeFormat::Float2, 0, 0},
                                              {1, gl::AttributeFormat::Float2, 0, 1},
                                              {2, gl::AttributeFormat::Float4, 0, 2}},
                               .bindings = {{0, 8, 0}, {1, 8, 1}, {2, 16, 4}},
                               .label = "instanced"});
    instanced.setVertexBuffer(0, quad);
    instanced.setVertexBuffer(1, offsets);
    instanced.setVertexBuffer(2, redBuffer);
    // Layout B: the same locations, all per vertex; colours differ per vertex.
    const std::vector<glm::vec2> zero(4, glm::vec2(0.0f));
    const std::vector<glm::vec4> perVertex = {{0, 0, 1, 1}, {0, 0, 1, 1}, {0, 1, 0, 1}, {0, 1, 0, 1}};
    gl::Buffer zeroBuffer = makeBuffer(zero, "zero-offsets");
    gl::Buffer perVertexBuffer = makeBuffer(perVertex, "per-vertex-colors");
    gl::VertexArray plain({.attributes = {{0, gl::AttributeFormat::Float2, 0, 0},
                                          {1, gl::AttributeFormat::Float2, 0, 1},
                                          {2, gl::AttributeFormat::Float4, 0, 2}},
                           .bindings = {{0, 8, 0}, {1, 8, 0}, {2, 16, 0}},
                           .label = "plain"});
    plain.setVertexBuffer(0, quad);
    plain.setVertexBuffer(1, zeroBuffer);
    plain.setVertexBuffer(2, perVertexBuffer);

    bindTarget(target);
    clear(target);
    program.use();
    gl::drawArraysInstanced(instanced, gl::PrimitiveMode::TriangleStrip, 0, 4, 4);
    clear(target);
    gl::drawArraysInstanced(plain, gl::PrimitiveMode::TriangleStrip, 0, 4, 1);
    const Image image = target.readPixels();
    // Had the divisor leaked, colour would be constant; per vertex it is blue at the bottom and
    // green at the top of the centred quad.
    const Rgba bottom = pixelAt(image, kSize / 2, kSize / 2 + 5);
    const Rgba top = pixelAt(image, kSize / 2, kSize / 2 - 5);
    INFO("bottom " << describe(bottom) << " top " << describe(top));
    CHECK(bottom[2] > bottom[1]);
    CHECK(top[1] > top[2]);
}

TEST_CASE("indexed draws check offsets, index ranges and counts", "[low-level]") {
    context();
    gl::Program program = makeProgram();
    gl::Buffer quad = makeBuffer(kQuad, "quad");
    gl::Buffer offsets = makeBuffer(kOffsets, "offsets");
    const std::vector<glm::vec4> colors = {{1, 1, 1, 1}};
    gl::Buffer colorBuffer = makeBuffer(colors, "color");
    const std::vector<std::uint16_t> indices = {0, 1, 2, 2, 1, 3};
    gl::Buffer indexBuffer = makeBuffer(indices, "indices");
    gl::VertexArray layout({.attributes = {{0, gl::AttributeFormat::Float2, 0, 0},
                                           {1, gl::AttributeFormat::Float2, 0, 1},
                                           {2, gl::AttributeFormat::Float4, 0, 2}},
                            .bindings = {{0, 8, 0}, {1, 8, 1}, {2, 16, 4}},
                            .label = "indexed"});
    layout.setVertexBuffer(0, quad);
    layout.setVertexBuffer(1, offsets);
    layout.setVertexBuffer(2, colorBuffer);
    CHECK_THROWS_AS(gl::drawElementsInstanced(layout, gl::PrimitiveMode::Triangles, 6,
                                              IndexType::UInt16, 0, 1),
                    InvalidArgument);  // no index buffer yet
    layout.setIndexBuffer(indexBuffer, IndexType::UInt16, 3);
    gl::OffscreenTarget target(kSize, kSize, "indexed-target");
    bindTarget(target);
    clear(target);
    program.use();
    gl::drawElementsInstanced(layout, gl::PrimitiveMode::Triangles, 6, IndexType::UInt16, 0, 4);
    const Image image = target.readPixels();
    MYRIAD_CHECK_PIXEL(image, kSize / 4, kSize / 4, kWhite);
    MYRIAD_CHECK_PIXEL(image, 3 * kSize / 4, 3 * kSize / 4, kWhite);
    MYRIAD_CHECK_PIXEL(image, kSize / 2, kSize / 2, kBlack);
    CHECK_THROWS_AS(gl::drawElementsInstanced(layout, gl::PrimitiveMode::Triangles, 3,
                                              IndexType::UInt16, 1, 1),
                    InvalidArgument);  // offset not a multiple of 2
    CHECK_THROWS_AS(gl::drawElementsInstanced(layout, gl::PrimitiveMode::Triangles, 6,
                                              IndexType::UInt16, 2, 1),
                    OutOfRange);  // runs past the index buffer
    CHECK_THROWS_AS(gl::drawElementsInstanced(layout, gl::PrimitiveMode::Triangles, 6,
                                              IndexType::UInt32, 0, 1),
                    InvalidArgument);  // wrong index type
    CHECK_THROWS_AS(gl::drawElementsInstanced(layout, gl::PrimitiveMode::Triangles, 6,
                                              IndexType::UInt16, 0, 5),
                    OutOfRange);  // 5 instances, 4 offsets
    // Count 0 and instance count 0 draw nothing and are fine.
    gl::drawElementsInstanced(layout, gl::PrimitiveMode::Triangles, 0, IndexType::UInt16, 0, 1);
    gl::drawElementsInstanced(layout, gl::PrimitiveMode::Triangles, 6, IndexType::UInt16, 0, 0);
    // An index buffer holding index 9 against 4 vertices is refused at draw time.
    layout.setIndexBuffer(indexBuffer, IndexType::UInt16, 9);
    CHECK_THROWS_AS(gl::drawElementsInstanced(layout, gl::PrimitiveMode::Triangles, 6,
                                              IndexType::UInt16, 0, 1),
                    OutOfRange);
}

TEST_CASE("buffers and layouts refuse bad descriptions", "[low-level]") {
    context();
    CHECK_THROWS_AS(gl::Buffer({.sizeBytes = 0}), InvalidArgument);
    const std::vector<float> data(4, 1.0f);
    CHECK_THROWS_AS(gl::Buffer({.sizeBytes = 8, .initialData = std::as_bytes(std::span(data))}),
                    InvalidArgument);
    gl::Buffer dynamic({.sizeBytes = 16, .usage = gl::BufferUsage::Dynamic, .label = "dyn"});
    CHECK(dynamic.label() == "dyn");
    dynamic.update(0, std::as_bytes(std::span(data)));
    CHECK_THROWS_AS(dynamic.update(4, std::as_bytes(std::span(data))), OutOfRange);
    gl::Buffer fixed({.initialData = std::as_bytes(std::span(data))});
    CHECK_THROWS_AS(fixed.update(0, std::as_bytes(std::span(data))), InvalidArgument);

    CHECK_THROWS_AS(gl::VertexArray({.attributes = {{0, gl::AttributeFormat::Float4, 0, 3}},
                                     .bindings = {{0, 16, 0}}}),
                    InvalidArgument);  // unknown binding
    CHECK_THROWS_AS(gl::VertexArray({.attributes = {{0, gl::AttributeFormat::Float4, 8, 0}},
                                     .bindings = {{0, 16, 0}}}),
                    InvalidArgument);  // attribute past the stride
    CHECK_THROWS_AS(gl::VertexArray({.attributes = {}, .bindings = {{0, 0, 0}}}),
                    InvalidArgument);  // zero stride
    gl::VertexArray unattached({.attributes = {{0, gl::AttributeFormat::Float2, 0, 0}},
                                .bindings = {{0, 8, 0}}});
    CHECK_THROWS_AS(gl::drawArraysInstanced(unattached, gl::PrimitiveMode::Triangles, 0, 3, 1),
                    InvalidArgument);
}
