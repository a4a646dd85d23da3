// ANGLE_instanced_arrays on the low-level layer (issue 25): one test per row of the
// extension's table (drawArraysInstancedANGLE, drawElementsInstancedANGLE,
// vertexAttribDivisorANGLE, the VERTEX_ATTRIB_ARRAY_DIVISOR_ANGLE query) and the errors WebGL
// lists for them, with pictures where a picture proves it. Expected pixels are worked out by
// hand from the vertex positions: every vertex sits on a pixel centre of a 64 x 64 target.
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

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

using namespace myriad;
using namespace myriad::test;

namespace {

constexpr std::uint32_t kSize = 64;

constexpr const char* kVertex = R"(#version 450 core
layout(location = 0) in vec2 a_position;
layout(location = 1) in vec2 a_offset;
layout(location = 2) in vec4 a_color;
out vec4 v_color;
void main() {
    gl_Position = vec4(a_position + a_offset, 0.0, 1.0);
    gl_PointSize = 1.0;
    v_color = a_color;
}
)";

constexpr const char* kFragment = R"(#version 450 core
in vec4 v_color;
out vec4 o_color;
void main() { o_color = v_color; }
)";

gl::Program makeProgram() {
    const gl::ShaderSource stages[] = {{gl::ShaderStage::Vertex, "arrays.vert", kVertex},
                                       {gl::ShaderStage::Fragment, "arrays.frag", kFragment}};
    return gl::Program(stages, "instanced-arrays-program");
}

template <class T>
gl::Buffer makeBuffer(const std::vector<T>& values, const char* label) {
    return gl::Buffer({.initialData = std::as_bytes(std::span(values)), .label = label});
}

void bindAndClear(const gl::OffscreenTarget& target) {
    gl::bindDrawTarget(target.framebufferId(), 0, 0, target.width(), target.height());
    const float black[] = {0, 0, 0, 1};
    glClearNamedFramebufferfv(target.framebufferId(), GL_COLOR, 0, black);
}

// Clip-space position of the centre of pixel (x, y), y = 0 at the top row.
glm::vec2 pixelCentre(float x, float y) {
    return {(x + 0.5f) / kSize * 2.0f - 1.0f, 1.0f - (y + 0.5f) / kSize * 2.0f};
}

// GL's own answer for attribute @p index of @p vertexArray (glGetVertexArrayIndexediv).
int glAttribute(const gl::VertexArray& vertexArray, std::uint32_t index, GLenum name) {
    GLint value = -1;
    glGetVertexArrayIndexediv(vertexArray.id(), index, name, &value);
    return value;
}

// Half-size quads around the origin as a triangle strip; quadrant centres TL, TR, BL, BR.
const std::vector<glm::vec2> kQuad = {{-0.4f, -0.4f}, {0.4f, -0.4f}, {-0.4f, 0.4f}, {0.4f, 0.4f}};
const std::vector<glm::vec2> kOffsets = {{-0.5f, 0.5f}, {0.5f, 0.5f}, {-0.5f, -0.5f}, {0.5f, -0.5f}};
constexpr std::uint32_t kLeft = kSize / 4;
constexpr std::uint32_t kRight = 3 * kSize / 4;

// One record per instance, offset and colour interleaved in one buffer (one binding).
struct Record {
    glm::vec2 offset;
    glm::vec4 color;
};
const std::vector<Record> kRecords = {{kOffsets[0], {1, 0, 0, 1}},
                                      {kOffsets[1], {0, 1, 0, 1}},
                                      {kOffsets[2], {0, 0, 1, 1}},
                                      {kOffsets[3], {1, 1, 1, 1}}};

struct Quadrants {
    Rgba topLeft, topRight, bottomLeft, bottomRight;
};

void checkQuadrants(const Image& image, const Quadrants& expected) {
    MYRIAD_CHECK_PIXEL(image, kLeft, kLeft, expected.topLeft);        // instance 0
    MYRIAD_CHECK_PIXEL(image, kRight, kLeft, expected.topRight);      // instance 1
    MYRIAD_CHECK_PIXEL(image, kLeft, kRight, expected.bottomLeft);    // instance 2
    MYRIAD_CHECK_PIXEL(image, kRight, kRight, expected.bottomRight);  // instance 3
}

} // namespace

TEST_CASE("instanced arrays: vertexAttribDivisor gives one attribute of a shared binding its own divisor",
          "[low-level][pixels][divisor]") {
    context();
    gl::OffscreenTarget target(kSize, kSize, "divisor-split-target");
    gl::Program program = makeProgram();
    gl::Buffer quad = makeBuffer(kQuad, "quad");
    gl::Buffer records = makeBuffer(kRecords, "records");
    gl::VertexArray layout({.attributes = {{0, gl::AttributeFormat::Float2, 0, 0},
                                           {1, gl::AttributeFormat::Float2, offsetof(Record, offset), 1},
                                           {2, gl::AttributeFormat::Float4, offsetof(Record, color), 1}},
                            .bindings = {{0, 8, 0}, {1, sizeof(Record), 1}},
                            .label = "split-layout"});
    layout.setVertexBuffer(0, quad);
    layout.setVertexBuffer(1, records);
    CHECK(layout.divisor(0) == 0);
    CHECK(layout.divisor(1) == 1);
    CHECK(layout.divisor(2) == 1);
    program.use();
    bindAndClear(target);
    gl::drawArraysInstanced(layout, gl::PrimitiveMode::TriangleStrip, 0, 4, 4);
    checkQuadrants(target.readPixels(), {kRed, kGreen, kBlue, kWhite});

    // Colour at divisor 2: instances 0 and 1 read colour record 0, 2 and 3 record 1; the
    // offsets, on the same binding before, still advance per instance.
    layout.vertexAttribDivisor(2, 2);
    CHECK(layout.divisor(2) == 2);
    CHECK(layout.divisor(1) == 1);
    CHECK(layout.attributeBinding(1) == 1);
    CHECK(layout.attributeBinding(2) == 2);  // GL 4.5's glVertexAttribDivisor: binding = index
    CHECK(glAttribute(layout, 2, GL_VERTEX_ATTRIB_ARRAY_DIVISOR) == 2);
    CHECK(glAttribute(layout, 1, GL_VERTEX_ATTRIB_ARRAY_DIVISOR) == 1);
    CHECK(glAttribute(layout, 2, GL_VERTEX_ATTRIB_BINDING) == 2);
    CHECK(layout.instanceLimit() == 4);  // 4 offsets at divisor 1; 4 colours would serve 8
    bindAndClear(target);
    gl::drawArraysInstanced(layout, gl::PrimitiveMode::TriangleStrip, 0, 4, 4);
    checkQuadrants(target.readPixels(), {kRed, kRed, kGreen, kGreen});

    // Back to divisor 1: the attribute rejoins its binding and the picture is as before.
    layout.vertexAttribDivisor(2, 1);
    CHECK(layout.attributeBinding(2) == 1);
    CHECK(glAttribute(layout, 2, GL_VERTEX_ATTRIB_BINDING) == 1);
    CHECK(glAttribute(layout, 2, GL_VERTEX_ATTRIB_ARRAY_DIVISOR) == 1);
    bindAndClear(target);
    gl::drawArraysInstanced(layout, gl::PrimitiveMode::TriangleStrip, 0, 4, 4);
    checkQuadrants(target.readPixels(), {kRed, kGreen, kBlue, kWhite});

    // A buffer attached after the split reaches the moved attribute too (same buffer, offset).
    layout.vertexAttribDivisor(2, 2);
    const std::vector<Record> reversed(kRecords.rbegin(), kRecords.rend());
    gl::Buffer reversedBuffer = makeBuffer(reversed, "reversed-records");
    layout.setVertexBuffer(1, reversedBuffer);
    CHECK_THROWS_AS(layout.setVertexBuffer(2, reversedBuffer), InvalidArgument);  // not declared
    bindAndClear(target);
    gl::drawArraysInstanced(layout, gl::PrimitiveMode::TriangleStrip, 0, 4, 4);
    // Offsets reversed: instance 0 lands bottom right. Colours at divisor 2: white, white, blue, blue.
    checkQuadrants(target.readPixels(), {kBlue, kBlue, kWhite, kWhite});
}

namespace {

// No per-vertex input: the corner of kQuad comes from gl_VertexID (0..3 as a triangle strip:
// bit 0 picks x, bit 1 picks y), the offset and colour from instanced attributes.
constexpr const char* kCornerVertex = R"(#version 450 core
layout(location = 1) in vec2 a_offset;
layout(location = 2) in vec4 a_color;
out vec4 v_color;
void main() {
    vec2 corner = vec2((gl_VertexID & 1) != 0 ? 0.4 : -0.4, (gl_VertexID & 2) != 0 ? 0.4 : -0.4);
    gl_Position = vec4(corner + a_offset, 0.0, 1.0);
    v_color = a_color;
}
)";

gl::Program makeCornerProgram() {
    const gl::ShaderSource stages[] = {{gl::ShaderStage::Vertex, "corner.vert", kCornerVertex},
                                       {gl::ShaderStage::Fragment, "arrays.frag", kFragment}};
    return gl::Program(stages, "instanced-arrays-corner-program");
}

} // namespace

TEST_CASE("instanced arrays: a layout whose every attribute is instanced draws (WebGL refuses it)",
          "[low-level][pixels][divisor]") {
    context();
    gl::OffscreenTarget target(kSize, kSize, "all-instanced-target");
    gl::Program program = makeCornerProgram();
    gl::Buffer records = makeBuffer(kRecords, "records");
    // Declared so: offset and colour on one binding at divisor 1, nothing per vertex. WebGL's
    // ANGLE_instanced_arrays refuses such a draw (INVALID_OPERATION); GL 4.5 and myriad draw it.
    gl::VertexArray layout({.attributes = {{1, gl::AttributeFormat::Float2, offsetof(Record, offset), 0},
                                           {2, gl::AttributeFormat::Float4, offsetof(Record, color), 0}},
                            .bindings = {{0, sizeof(Record), 1}},
                            .label = "all-instanced-layout"});
    layout.setVertexBuffer(0, records);
    CHECK(layout.divisor(1) == 1);
    CHECK(layout.divisor(2) == 1);
    CHECK(layout.vertexLimit() == std::numeric_limits<std::uint32_t>::max());  // no per-vertex binding
    CHECK(layout.instanceLimit() == 4);
    program.use();
    while (glGetError() != GL_NO_ERROR) {
    }  // errors an earlier test left behind
    bindAndClear(target);
    gl::drawArraysInstanced(layout, gl::PrimitiveMode::TriangleStrip, 0, 4, 4);
    checkQuadrants(target.readPixels(), {kRed, kGreen, kBlue, kWhite});
    // Indexed alike: 8-bit indices 0..3 are the gl_VertexID values.
    const std::vector<std::uint8_t> indices = {0, 1, 2, 3};
    gl::Buffer indexBuffer = makeBuffer(indices, "corner-indices");
    layout.setIndexBuffer(indexBuffer, IndexType::UInt8, 3);
    bindAndClear(target);
    gl::drawElementsInstanced(layout, gl::PrimitiveMode::TriangleStrip, 4, IndexType::UInt8, 0, 4);
    checkQuadrants(target.readPixels(), {kRed, kGreen, kBlue, kWhite});
    CHECK_THROWS_AS(gl::drawArraysInstanced(layout, gl::PrimitiveMode::TriangleStrip, 0, 4, 5),
                    OutOfRange);  // the instance limit still holds

    // Reached by vertexAttribDivisor(): the colour starts per vertex on a binding of its own,
    // and turning it per instance leaves no divisor-0 attribute. Nothing refuses the change or
    // the draw; the colour now advances per instance (its buffer in reverse order).
    const std::vector<glm::vec4> reversedColours = {{1, 1, 1, 1}, {0, 0, 1, 1}, {0, 1, 0, 1}, {1, 0, 0, 1}};
    gl::Buffer colours = makeBuffer(reversedColours, "reversed-colours");
    gl::Buffer offsets = makeBuffer(kOffsets, "offsets");
    gl::VertexArray turned({.attributes = {{1, gl::AttributeFormat::Float2, 0, 1},
                                           {2, gl::AttributeFormat::Float4, 0, 0}},
                            .bindings = {{0, 16, 0}, {1, 8, 1}},
                            .label = "turned-layout"});
    turned.setVertexBuffer(0, colours);
    turned.setVertexBuffer(1, offsets);
    CHECK(turned.vertexLimit() == 4);
    turned.vertexAttribDivisor(2, 1);
    CHECK(turned.divisor(2) == 1);
    CHECK(glAttribute(turned, 2, GL_VERTEX_ATTRIB_ARRAY_DIVISOR) == 1);
    CHECK(turned.vertexLimit() == std::numeric_limits<std::uint32_t>::max());
    CHECK(turned.instanceLimit() == 4);
    bindAndClear(target);
    gl::drawArraysInstanced(turned, gl::PrimitiveMode::TriangleStrip, 0, 4, 4);
    checkQuadrants(target.readPixels(), {kWhite, kBlue, kGreen, kRed});
    CHECK(glGetError() == GL_NO_ERROR);
}

TEST_CASE("instanced arrays: vertex and instance limits follow a divisor change", "[low-level][divisor]") {
    context();
    gl::OffscreenTarget target(kSize, kSize, "divisor-limits-target");
    gl::Program program = makeProgram();
    // Per vertex: position and colour interleaved, 4 vertices.
    struct Vertex {
        glm::vec2 position;
        glm::vec4 color;
    };
    const std::vector<Vertex> vertices = {{kQuad[0], {1, 0, 0, 1}},
                                          {kQuad[1], {0, 1, 0, 1}},
                                          {kQuad[2], {0, 0, 1, 1}},
                                          {kQuad[3], {1, 1, 1, 1}}};
    std::vector<glm::vec2> eightOffsets = kOffsets;
    eightOffsets.insert(eightOffsets.end(), kOffsets.begin(), kOffsets.end());
    gl::Buffer vertexBuffer = makeBuffer(vertices, "vertices");
    gl::Buffer offsets = makeBuffer(eightOffsets, "eight-offsets");
    gl::VertexArray layout({.attributes = {{0, gl::AttributeFormat::Float2, offsetof(Vertex, position), 0},
                                           {1, gl::AttributeFormat::Float2, 0, 1},
                                           {2, gl::AttributeFormat::Float4, offsetof(Vertex, color), 0}},
                            .bindings = {{0, sizeof(Vertex), 0}, {1, 8, 1}},
                            .label = "limits-layout"});
    layout.setVertexBuffer(0, vertexBuffer);
    layout.setVertexBuffer(1, offsets);
    CHECK(layout.vertexLimit() == 4);
    CHECK(layout.instanceLimit() == 8);

    // The colour turns per instance, read from the 4-element vertex buffer: 4 instances at most.
    layout.vertexAttribDivisor(2, 1);
    CHECK(layout.vertexLimit() == 4);
    CHECK(layout.instanceLimit() == 4);
    CHECK_FALSE(layout.canSupplyInstances(2, 3));
    CHECK_THROWS_AS(gl::drawArraysInstanced(layout, gl::PrimitiveMode::TriangleStrip, 0, 4, 5),
                    OutOfRange);
    CHECK_THROWS_AS(
        gl::drawArraysInstancedBaseInstance(layout, gl::PrimitiveMode::TriangleStrip, 0, 4, 2, 3),
        OutOfRange);
    program.use();
    bindAndClear(target);
    gl::drawArraysInstanced(layout, gl::PrimitiveMode::TriangleStrip, 0, 4, 4);
    checkQuadrants(target.readPixels(), {kRed, kGreen, kBlue, kWhite});  // instance i: vertex i's colour

    // The offset, alone on its binding, turns per vertex in place: 8 elements, so the vertex
    // limit stays 4; the colour still limits instances to 4.
    layout.vertexAttribDivisor(1, 0);
    CHECK(layout.attributeBinding(1) == 1);
    CHECK(layout.vertexLimit() == 4);
    CHECK(layout.instanceLimit() == 4);

    // A 3-element offset buffer turned per vertex limits a draw to 3 vertices.
    const std::vector<glm::vec2> threeOffsets(3, glm::vec2(0.0f));
    gl::Buffer shortOffsets = makeBuffer(threeOffsets, "three-offsets");
    gl::VertexArray shortLayout({.attributes = {{0, gl::AttributeFormat::Float2, offsetof(Vertex, position), 0},
                                                {1, gl::AttributeFormat::Float2, 0, 1},
                                                {2, gl::AttributeFormat::Float4, offsetof(Vertex, color), 0}},
                                 .bindings = {{0, sizeof(Vertex), 0}, {1, 8, 1}},
                                 .label = "short-layout"});
    shortLayout.setVertexBuffer(0, vertexBuffer);
    shortLayout.setVertexBuffer(1, shortOffsets);
    CHECK(shortLayout.vertexLimit() == 4);
    CHECK(shortLayout.instanceLimit() == 3);
    gl::drawArraysInstanced(shortLayout, gl::PrimitiveMode::TriangleStrip, 0, 4, 3);
    shortLayout.vertexAttribDivisor(1, 0);
    CHECK(shortLayout.vertexLimit() == 3);
    CHECK(shortLayout.instanceLimit() == std::numeric_limits<std::uint64_t>::max());
    CHECK_THROWS_AS(gl::drawArraysInstanced(shortLayout, gl::PrimitiveMode::TriangleStrip, 0, 4, 1),
                    OutOfRange);
    gl::drawArraysInstanced(shortLayout, gl::PrimitiveMode::TriangleStrip, 0, 3, 1);
    // Interleaved per-vertex colour split off to divisor 2: 4 elements serve 8 instances.
    shortLayout.vertexAttribDivisor(2, 2);
    CHECK(shortLayout.attributeBinding(2) == 2);
    CHECK(shortLayout.instanceLimit() == 8);
    CHECK(shortLayout.vertexLimit() == 3);
}

TEST_CASE("instanced arrays: the divisor query reads the object's record and bad indices change nothing",
          "[low-level][divisor]") {
    context();
    const std::vector<glm::vec4> data(4, glm::vec4(1.0f));
    gl::Buffer buffer = makeBuffer(data, "data");
    gl::VertexArray layout({.attributes = {{0, gl::AttributeFormat::Float2, 0, 0},
                                           {1, gl::AttributeFormat::Float2, 8, 0},
                                           {3, gl::AttributeFormat::Float4, 0, 1}},
                            .bindings = {{0, 16, 0}, {1, 16, 3}},
                            .label = "query-layout"});
    layout.setVertexBuffer(0, buffer);
    layout.setVertexBuffer(1, buffer);
    const auto sameAsGl = [&] {
        for (const std::uint32_t index : {0u, 1u, 3u}) {
            INFO("attribute " << index);
            CHECK(static_cast<int>(layout.divisor(index)) ==
                  glAttribute(layout, index, GL_VERTEX_ATTRIB_ARRAY_DIVISOR));
            CHECK(static_cast<int>(layout.attributeBinding(index)) ==
                  glAttribute(layout, index, GL_VERTEX_ATTRIB_BINDING));
        }
    };
    // VERTEX_ATTRIB_ARRAY_DIVISOR_ANGLE: 0 for a per-vertex attribute, the layout's otherwise.
    CHECK(layout.divisor(0) == 0);
    CHECK(layout.divisor(3) == 3);
    sameAsGl();

    // Index >= GL_MAX_VERTEX_ATTRIBS (WebGL's INVALID_VALUE), and an index with no attribute.
    CHECK_THROWS_AS(layout.vertexAttribDivisor(16, 1), OutOfRange);
    CHECK_THROWS_AS(layout.vertexAttribDivisor(std::numeric_limits<std::uint32_t>::max(), 1), OutOfRange);
    CHECK_THROWS_AS(layout.vertexAttribDivisor(2, 1), InvalidArgument);
    CHECK_THROWS_AS((void)layout.divisor(16), OutOfRange);
    CHECK_THROWS_AS((void)layout.divisor(2), InvalidArgument);
    CHECK_THROWS_AS((void)layout.attributeBinding(2), InvalidArgument);
    CHECK(layout.divisor(0) == 0);
    CHECK(layout.divisor(1) == 0);
    CHECK(layout.divisor(3) == 3);
    sameAsGl();

    // A sequence of changes: the record and GL agree after each.
    layout.vertexAttribDivisor(1, 5);  // splits off binding 0; slot 1 is taken, so the lowest free: 2
    CHECK(layout.attributeBinding(1) == 2);
    CHECK(layout.divisor(1) == 5);
    CHECK(layout.divisor(0) == 0);
    sameAsGl();
    layout.vertexAttribDivisor(1, 5);  // the same divisor again: nothing changes
    CHECK(layout.attributeBinding(1) == 2);
    layout.vertexAttribDivisor(3, 0);  // alone on binding 1: changed in place
    CHECK(layout.attributeBinding(3) == 1);
    CHECK(layout.divisor(3) == 0);
    sameAsGl();
    layout.vertexAttribDivisor(0, 5);  // joins attribute 1 on binding 2 (same buffer family)
    CHECK(layout.attributeBinding(0) == 2);
    sameAsGl();
    layout.vertexAttribDivisor(0, 0);
    layout.vertexAttribDivisor(1, 0);  // both back on binding 0; binding 2 is dropped
    CHECK(layout.attributeBinding(0) == 0);
    CHECK(layout.attributeBinding(1) == 0);
    sameAsGl();
    CHECK(layout.vertexLimit() == 4);

    // All 16 bindings taken: the attribute cannot move, and nothing changes.
    std::vector<gl::VertexBinding> sixteen;
    for (std::uint32_t i = 0; i < 16; ++i) {
        sixteen.push_back({i, 16, 0});
    }
    gl::VertexArray full({.attributes = {{0, gl::AttributeFormat::Float2, 0, 0},
                                         {1, gl::AttributeFormat::Float2, 8, 0}},
                          .bindings = sixteen,
                          .label = "full-layout"});
    CHECK_THROWS_AS(full.vertexAttribDivisor(1, 1), CapacityError);
    CHECK(full.divisor(1) == 0);
    CHECK(full.attributeBinding(1) == 0);
    CHECK(glAttribute(full, 1, GL_VERTEX_ATTRIB_BINDING) == 0);

    gl::VertexArray empty;
    CHECK_THROWS_AS(empty.vertexAttribDivisor(0, 1), InvalidArgument);
}

namespace {

// The corners of a square, on pixel centres: A top left, B top right, C bottom right, D
// bottom left, in image pixels (y down). Instance 1 is the same square 32 pixels right.
constexpr float kA[] = {8, 8};
constexpr float kB[] = {24, 8};
constexpr float kC[] = {24, 24};
constexpr float kD[] = {8, 24};
constexpr std::uint32_t kShift = 32;

struct Probe {
    std::uint32_t x, y;
};
// Corners, edge midpoints, and one point inside each quarter the diagonals AC and BD cut.
constexpr Probe kCorners[] = {{8, 8}, {24, 8}, {24, 24}, {8, 24}};
constexpr Probe kTopEdge{16, 8}, kRightEdge{24, 16}, kBottomEdge{16, 24}, kLeftEdge{8, 16};
constexpr Probe kTopQuarter{16, 11}, kRightQuarter{21, 16}, kBottomQuarter{16, 21}, kLeftQuarter{11, 16};

struct ModeCase {
    gl::PrimitiveMode mode;
    const char* name;
    bool corners;                         // only Points lights exactly the corners and not the edges
    bool top, right, bottom, left;        // edges (line modes) or quarters (triangle modes)
    bool triangles;
};
// Vertices in the order A, B, C, D:
// lines AB, CD; strip AB BC CD; loop AB BC CD DA; triangle ABC = top + right quarters;
// strip ABC + BCD = top + right + bottom; fan ABC + ACD = all four.
constexpr ModeCase kModes[] = {
    {gl::PrimitiveMode::Points, "POINTS", true, false, false, false, false, false},
    {gl::PrimitiveMode::Lines, "LINES", false, true, false, true, false, false},
    {gl::PrimitiveMode::LineStrip, "LINE_STRIP", false, true, true, true, false, false},
    {gl::PrimitiveMode::LineLoop, "LINE_LOOP", false, true, true, true, true, false},
    {gl::PrimitiveMode::Triangles, "TRIANGLES", false, true, true, false, false, true},
    {gl::PrimitiveMode::TriangleStrip, "TRIANGLE_STRIP", false, true, true, true, false, true},
    {gl::PrimitiveMode::TriangleFan, "TRIANGLE_FAN", false, true, true, true, true, true},
};

void checkMode(const Image& image, const ModeCase& mode) {
    INFO(mode.name);
    for (std::uint32_t instance = 0; instance < 2; ++instance) {
        const Rgba colour = instance == 0 ? kRed : kGreen;
        const std::uint32_t dx = instance * kShift;
        const auto expect = [&](Probe p, bool lit) {
            INFO("instance " << instance);
            MYRIAD_CHECK_PIXEL(image, p.x + dx, p.y, lit ? colour : kBlack);
        };
        if (mode.mode == gl::PrimitiveMode::Points) {
            for (const Probe corner : kCorners) {
                expect(corner, true);
            }
            expect(kTopEdge, false);
            expect(kLeftEdge, false);
            expect(kTopQuarter, false);
        } else if (mode.triangles) {
            expect(kTopQuarter, mode.top);
            expect(kRightQuarter, mode.right);
            expect(kBottomQuarter, mode.bottom);
            expect(kLeftQuarter, mode.left);
        } else {
            expect(kTopEdge, mode.top);
            expect(kRightEdge, mode.right);
            expect(kBottomEdge, mode.bottom);
            expect(kLeftEdge, mode.left);
            expect(kTopQuarter, false);
            expect(kLeftQuarter, false);
        }
    }
    // Nothing between the two instances or right of the second.
    MYRIAD_CHECK_PIXEL(image, 28, 16, kBlack);
    MYRIAD_CHECK_PIXEL(image, 60, 16, kBlack);
}

struct ModeScene {
    gl::OffscreenTarget target{kSize, kSize, "modes-target"};
    gl::Program program = makeProgram();
    // Vertex buffer order C, A, D, B, so that indices 1, 3, 0, 2 give A, B, C, D; drawArrays
    // reads the buffer of A, B, C, D.
    gl::Buffer inOrder = makeBuffer(std::vector<glm::vec2>{pixelCentre(kA[0], kA[1]), pixelCentre(kB[0], kB[1]),
                                                           pixelCentre(kC[0], kC[1]), pixelCentre(kD[0], kD[1])},
                                    "abcd");
    gl::Buffer shuffled = makeBuffer(std::vector<glm::vec2>{pixelCentre(kC[0], kC[1]), pixelCentre(kA[0], kA[1]),
                                                            pixelCentre(kD[0], kD[1]), pixelCentre(kB[0], kB[1])},
                                     "cadb");
    gl::Buffer offsets = makeBuffer(std::vector<glm::vec2>{{0.0f, 0.0f}, {2.0f * kShift / kSize, 0.0f}}, "offsets");
    gl::Buffer colors = makeBuffer(std::vector<glm::vec4>{{1, 0, 0, 1}, {0, 1, 0, 1}}, "colors");

    gl::VertexArray layout(const gl::Buffer& positions, const char* label) const {
        gl::VertexArray vertexArray({.attributes = {{0, gl::AttributeFormat::Float2, 0, 0},
                                                    {1, gl::AttributeFormat::Float2, 0, 1},
                                                    {2, gl::AttributeFormat::Float4, 0, 2}},
                                     .bindings = {{0, 8, 0}, {1, 8, 1}, {2, 16, 1}},
                                     .label = label});
        vertexArray.setVertexBuffer(0, positions);
        vertexArray.setVertexBuffer(1, offsets);
        vertexArray.setVertexBuffer(2, colors);
        return vertexArray;
    }
};

} // namespace

TEST_CASE("instanced arrays: drawArraysInstanced draws every primitive mode the extension lists",
          "[low-level][pixels][modes]") {
    context();
    ModeScene scene;
    gl::VertexArray layout = scene.layout(scene.inOrder, "modes-arrays");
    scene.program.use();
    for (const ModeCase& mode : kModes) {
        bindAndClear(scene.target);
        gl::drawArraysInstanced(layout, mode.mode, 0, 4, 2);
        checkMode(scene.target.readPixels(), mode);
    }
}

TEST_CASE("instanced arrays: drawElementsInstanced with 8-bit 16-bit and 32-bit indices draws every mode alike",
          "[low-level][pixels][modes][indices]") {
    context();
    ModeScene scene;
    const std::vector<std::uint8_t> indices8 = {1, 3, 0, 2};
    const std::vector<std::uint16_t> indices16 = {1, 3, 0, 2};
    const std::vector<std::uint32_t> indices32 = {1, 3, 0, 2};
    gl::Buffer buffer8 = makeBuffer(indices8, "indices8");
    gl::Buffer buffer16 = makeBuffer(indices16, "indices16");
    gl::Buffer buffer32 = makeBuffer(indices32, "indices32");
    gl::VertexArray layout8 = scene.layout(scene.shuffled, "modes-u8");
    gl::VertexArray layout16 = scene.layout(scene.shuffled, "modes-u16");
    gl::VertexArray layout32 = scene.layout(scene.shuffled, "modes-u32");
    layout8.setIndexBuffer(buffer8, IndexType::UInt8, 3);
    layout16.setIndexBuffer(buffer16, IndexType::UInt16, 3);
    layout32.setIndexBuffer(buffer32, IndexType::UInt32, 3);
    scene.program.use();
    for (const ModeCase& mode : kModes) {
        INFO(mode.name);
        bindAndClear(scene.target);
        gl::drawElementsInstanced(layout8, mode.mode, 4, IndexType::UInt8, 0, 2);
        const Image from8 = scene.target.readPixels();
        checkMode(from8, mode);
        bindAndClear(scene.target);
        gl::drawElementsInstanced(layout16, mode.mode, 4, IndexType::UInt16, 0, 2);
        const Image from16 = scene.target.readPixels();
        bindAndClear(scene.target);
        gl::drawElementsInstanced(layout32, mode.mode, 4, IndexType::UInt32, 0, 2);
        const Image from32 = scene.target.readPixels();
        CHECK(from8.pixels == from16.pixels);
        CHECK(from16.pixels == from32.pixels);
    }
}

TEST_CASE("instanced arrays: drawElementsInstanced checks the offset's alignment for each index size",
          "[low-level][indices]") {
    context();
    ModeScene scene;
    // Two leading indices that a draw from offset 2 (8-bit) skips: 1, 3 (A, B) then C, D.
    const std::vector<std::uint8_t> indices8 = {1, 3, 0, 2, 0, 0};
    gl::Buffer buffer8 = makeBuffer(indices8, "indices8");
    gl::VertexArray layout8 = scene.layout(scene.shuffled, "align-u8");
    layout8.setIndexBuffer(buffer8, IndexType::UInt8, 3);
    scene.program.use();
    // 8-bit indices: any offset is a multiple of 1. From byte 1: B, C, D as a triangle.
    bindAndClear(scene.target);
    gl::drawElementsInstanced(layout8, gl::PrimitiveMode::Triangles, 3, IndexType::UInt8, 1, 1);
    const Image bcd = scene.target.readPixels();
    MYRIAD_CHECK_PIXEL(bcd, kRightQuarter.x, kRightQuarter.y, kRed);
    MYRIAD_CHECK_PIXEL(bcd, kBottomQuarter.x, kBottomQuarter.y, kRed);
    MYRIAD_CHECK_PIXEL(bcd, kLeftQuarter.x, kLeftQuarter.y, kBlack);
    MYRIAD_CHECK_PIXEL(bcd, kTopQuarter.x, kTopQuarter.y, kBlack);
    CHECK_THROWS_AS(gl::drawElementsInstanced(layout8, gl::PrimitiveMode::Triangles, 4,
                                              IndexType::UInt8, 3, 1),
                    OutOfRange);  // bytes [3, 7) of 6
    CHECK_THROWS_AS(gl::drawElementsInstanced(layout8, gl::PrimitiveMode::Triangles, 3,
                                              IndexType::UInt16, 0, 1),
                    InvalidArgument);  // not the attached index type

    const std::vector<std::uint16_t> indices16 = {1, 3, 0, 2, 0, 0};
    gl::Buffer buffer16 = makeBuffer(indices16, "indices16");
    gl::VertexArray layout16 = scene.layout(scene.shuffled, "align-u16");
    layout16.setIndexBuffer(buffer16, IndexType::UInt16, 3);
    CHECK_THROWS_AS(gl::drawElementsInstanced(layout16, gl::PrimitiveMode::Triangles, 3,
                                              IndexType::UInt16, 1, 1),
                    InvalidArgument);
    CHECK_THROWS_AS(gl::drawElementsInstanced(layout16, gl::PrimitiveMode::Triangles, 3,
                                              IndexType::UInt16, 3, 1),
                    InvalidArgument);
    gl::drawElementsInstanced(layout16, gl::PrimitiveMode::Triangles, 3, IndexType::UInt16, 2, 1);

    const std::vector<std::uint32_t> indices32 = {1, 3, 0, 2, 0, 0};
    gl::Buffer buffer32 = makeBuffer(indices32, "indices32");
    gl::VertexArray layout32 = scene.layout(scene.shuffled, "align-u32");
    layout32.setIndexBuffer(buffer32, IndexType::UInt32, 3);
    for (const std::size_t offset : {1u, 2u, 3u, 6u}) {
        INFO("offset " << offset);
        CHECK_THROWS_AS(gl::drawElementsInstanced(layout32, gl::PrimitiveMode::Triangles, 3,
                                                  IndexType::UInt32, offset, 1),
                        InvalidArgument);
    }
    gl::drawElementsInstanced(layout32, gl::PrimitiveMode::Triangles, 3, IndexType::UInt32, 4, 1);
    CHECK_THROWS_AS(gl::drawElementsInstanced(layout32, gl::PrimitiveMode::Triangles, 3,
                                              IndexType::UInt32, 1024, 1),
                    OutOfRange);  // an offset past the buffer's end
}

TEST_CASE("instanced arrays: counts GL would see as negative and reads past a buffer are refused",
          "[low-level]") {
    context();
    ModeScene scene;
    gl::VertexArray arrays = scene.layout(scene.inOrder, "counts-arrays");
    const std::vector<std::uint8_t> indices8 = {1, 3, 0, 2};
    gl::Buffer buffer8 = makeBuffer(indices8, "indices8");
    gl::VertexArray elements = scene.layout(scene.shuffled, "counts-elements");
    elements.setIndexBuffer(buffer8, IndexType::UInt8, 3);
    // A layout with no vertex or instance data (gl_VertexID-driven): no limit but GL's own.
    gl::VertexArray unlimited({.attributes = {}, .bindings = {}, .label = "counts-unlimited"});
    scene.program.use();
    while (glGetError() != GL_NO_ERROR) {
    }  // errors an earlier test left behind
    const auto minusOne = static_cast<std::uint32_t>(-1);
    constexpr std::uint32_t kAboveInt = 0x8000'0000u;
    // drawArraysInstancedANGLE: a negative first, count or primcount is INVALID_VALUE.
    CHECK_THROWS_AS(gl::drawArraysInstanced(unlimited, gl::PrimitiveMode::Points, minusOne, 1, 1), OutOfRange);
    CHECK_THROWS_AS(gl::drawArraysInstanced(unlimited, gl::PrimitiveMode::Points, 0, kAboveInt, 1), OutOfRange);
    CHECK_THROWS_AS(gl::drawArraysInstanced(unlimited, gl::PrimitiveMode::Points, 0, 1, minusOne), OutOfRange);
    CHECK_THROWS_AS(gl::drawArraysInstanced(arrays, gl::PrimitiveMode::Points, 0, 4, kAboveInt), OutOfRange);
    // drawElementsInstancedANGLE: a negative count or primcount.
    CHECK_THROWS_AS(gl::drawElementsInstanced(elements, gl::PrimitiveMode::Points, minusOne,
                                              IndexType::UInt8, 0, 1),
                    OutOfRange);
    CHECK_THROWS_AS(gl::drawElementsInstanced(elements, gl::PrimitiveMode::Points, 4,
                                              IndexType::UInt8, 0, minusOne),
                    OutOfRange);
    // Out-of-range reads (WebGL's INVALID_OPERATION): vertices, indices, instances.
    CHECK_THROWS_AS(gl::drawArraysInstanced(arrays, gl::PrimitiveMode::Points, 1, 4, 1), OutOfRange);
    CHECK_THROWS_AS(gl::drawArraysInstanced(arrays, gl::PrimitiveMode::Points, 0, 4, 3), OutOfRange);
    CHECK_THROWS_AS(gl::drawElementsInstanced(elements, gl::PrimitiveMode::Points, 5,
                                              IndexType::UInt8, 0, 1),
                    OutOfRange);
    CHECK_THROWS_AS(gl::drawElementsInstanced(elements, gl::PrimitiveMode::Points, 4,
                                              IndexType::UInt8, 0, 3),
                    OutOfRange);
    elements.setIndexBuffer(buffer8, IndexType::UInt8, 4);  // an index past the 4 vertices
    CHECK_THROWS_AS(gl::drawElementsInstanced(elements, gl::PrimitiveMode::Points, 4,
                                              IndexType::UInt8, 0, 1),
                    OutOfRange);
    // The largest counts GL holds pass the count check (and then the range checks decide).
    constexpr std::uint32_t kIntMax = 0x7fff'ffffu;
    CHECK_THROWS_AS(gl::drawArraysInstanced(arrays, gl::PrimitiveMode::Points, 0, 4, kIntMax), OutOfRange);
    // Zero counts draw nothing and are not errors.
    gl::drawArraysInstanced(arrays, gl::PrimitiveMode::Points, 0, 0, 2);
    gl::drawArraysInstanced(arrays, gl::PrimitiveMode::Points, 0, 4, 0);
    CHECK(glGetError() == GL_NO_ERROR);
}

TEST_CASE("instanced arrays: strides, offsets and index ranges GL would refuse or misread are refused first",
          "[low-level][divisor]") {
    context();
    using gl::AttributeFormat;
    auto layoutOf = [](AttributeFormat format, std::uint32_t offset, std::uint32_t stride) {
        return gl::VertexLayoutDesc{.attributes = {{.location = 0, .format = format, .offsetBytes = offset, .binding = 0}},
                                    .bindings = {{.binding = 0, .strideBytes = stride}},
                                    .label = "limits"};
    };
    // GL_MAX_VERTEX_ATTRIB_STRIDE and _RELATIVE_OFFSET's minimums (2048, 2047): past them GL
    // refuses the call and leaves the binding empty while the object thinks it attached.
    CHECK_NOTHROW(gl::VertexArray(layoutOf(AttributeFormat::Float4, 0, 2048)));
    CHECK_THROWS_AS(gl::VertexArray(layoutOf(AttributeFormat::Float4, 0, 2052)), InvalidArgument);
    CHECK_THROWS_AS(gl::VertexArray(layoutOf(AttributeFormat::UByte4Normalized, 2048, 2048 + 4)), InvalidArgument);
    // An offset that would wrap 32 bits is refused, not taken as fitting its stride.
    CHECK_THROWS_AS(gl::VertexArray(layoutOf(AttributeFormat::Float4, 0xFFFFFFFCu, 16)), InvalidArgument);
    // GL 4.5 section 10.3: float data at multiples of 4 (offset, stride, buffer offset); bytes anywhere.
    CHECK_THROWS_AS(gl::VertexArray(layoutOf(AttributeFormat::Float2, 2, 16)), InvalidArgument);
    CHECK_THROWS_AS(gl::VertexArray(layoutOf(AttributeFormat::Float2, 0, 10)), InvalidArgument);
    CHECK_NOTHROW(gl::VertexArray(layoutOf(AttributeFormat::UByte4Normalized, 1, 5)));
    CHECK_NOTHROW(gl::VertexArray(layoutOf(AttributeFormat::SNorm8x2, 3, 5)));
    // 16-bit data at multiples of 2 (issue 26's packed vertices).
    CHECK_THROWS_AS(gl::VertexArray(layoutOf(AttributeFormat::UScaled16x4, 1, 16)), InvalidArgument);
    CHECK_THROWS_AS(gl::VertexArray(layoutOf(AttributeFormat::SNorm16x2, 0, 7)), InvalidArgument);
    CHECK_NOTHROW(gl::VertexArray(layoutOf(AttributeFormat::SNorm16x2, 2, 6)));
    const std::vector<float> values(64, 0.0f);
    gl::Buffer buffer = makeBuffer(values, "limits-buffer");
    gl::VertexArray floats(layoutOf(AttributeFormat::Float2, 0, 8));
    CHECK_THROWS_AS(floats.setVertexBuffer(0, buffer, 2), InvalidArgument);
    CHECK_NOTHROW(floats.setVertexBuffer(0, buffer, 8));
    gl::VertexArray bytes(layoutOf(AttributeFormat::UByte4Normalized, 0, 4));
    CHECK_NOTHROW(bytes.setVertexBuffer(0, buffer, 3));
    gl::VertexArray shorts(layoutOf(AttributeFormat::UNorm16x2, 0, 4));
    CHECK_THROWS_AS(shorts.setVertexBuffer(0, buffer, 3), InvalidArgument);
    CHECK_NOTHROW(shorts.setVertexBuffer(0, buffer, 2));
    // maxIndex must fit the index type; an empty vertex array takes no index buffer.
    CHECK_THROWS_AS(floats.setIndexBuffer(buffer, IndexType::UInt8, 256), InvalidArgument);
    CHECK_THROWS_AS(floats.setIndexBuffer(buffer, IndexType::UInt16, 65536), InvalidArgument);
    CHECK_NOTHROW(floats.setIndexBuffer(buffer, IndexType::UInt8, 255));
    gl::VertexArray moved(layoutOf(AttributeFormat::Float2, 0, 8));
    gl::VertexArray taker(std::move(moved));
    CHECK_THROWS_AS(moved.setIndexBuffer(buffer, IndexType::UInt16, 3), InvalidArgument);  // NOLINT: moved from on purpose
}
