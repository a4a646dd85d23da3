// 08-instanced-arrays: 1000 coloured squares in one draw call, written the way WebGL's
// ANGLE_instanced_arrays extension draws them, on myriad's low-level layer.
//
// Shows: a per-vertex square (6 vertices, two triangles), a per-instance offset and a
// per-instance colour, each in its own buffer and attribute, laid out as vertexAttribPointer
// would leave them (every attribute on the binding of its own index, divisor 0); then
// vertexAttribDivisor(offset, 1) and vertexAttribDivisor(colour, --color-divisor), and one
// gl::drawArraysInstanced(TRIANGLES, 0, 6, 1000): the extension's
// vertexAttribDivisorANGLE and drawArraysInstancedANGLE. No Renderer draw: the scene is
// empty and only clears. --color-divisor 2 gives squares 2k and 2k+1 the same colour.
// Controls: Escape closes the window.
//
// Square i sits in column i % 40 and row i / 40 from the top left, centred in its cell of a
// 40 x 25 grid over the viewport, 80% of the cell wide and high. Its colour, written as is
// (no sRGB encoding after the Renderer's frame), is bytes (6 * column, 10 * row,
// 255 - 6 * column): square 0 is (0, 0, 255), square 999 is (234, 240, 21).
#include "common/ExampleRunner.h"

#include "myriad/gl/Buffer.h"
#include "myriad/gl/Draw.h"
#include "myriad/gl/Program.h"
#include "myriad/gl/VertexArray.h"
#include "myriad/util/Error.h"

#include <glm/vec2.hpp>
#include <glm/vec4.hpp>

#include <cstdio>
#include <memory>
#include <vector>

using namespace myriad;

namespace {

constexpr int kColumns = 40;
constexpr int kRows = 25;
constexpr std::uint32_t kSquares = kColumns * kRows;  // 1000

// The attribute locations, as a WebGL program would get them from getAttribLocation.
constexpr std::uint32_t kPositionLocation = 0;
constexpr std::uint32_t kOffsetLocation = 1;
constexpr std::uint32_t kColorLocation = 2;

constexpr const char* kVertexShader = R"(#version 450 core
layout(location = 0) in vec2 a_position;  // per vertex: a corner of the square, in cells
layout(location = 1) in vec2 a_offset;    // per instance: the square's centre, clip space
layout(location = 2) in vec4 a_color;     // per instance: its colour
uniform vec2 u_cell;                      // one cell's size in clip space
out vec4 v_color;
void main() {
    gl_Position = vec4(a_offset + a_position * u_cell, 0.0, 1.0);
    v_color = a_color;
}
)";

constexpr const char* kFragmentShader = R"(#version 450 core
in vec4 v_color;
out vec4 o_color;
void main() { o_color = v_color; }
)";

struct Squares {
    gl::Program program;
    gl::Buffer positions;
    gl::Buffer offsets;
    gl::Buffer colors;
    gl::VertexArray vertexArray;
    int cellLocation = -1;

    explicit Squares(std::uint32_t colorDivisor) {
        const gl::ShaderSource stages[] = {
            {gl::ShaderStage::Vertex, "instanced-arrays.vert", kVertexShader},
            {gl::ShaderStage::Fragment, "instanced-arrays.frag", kFragmentShader}};
        program = gl::Program(stages, "08-instanced-arrays.program");
        cellLocation = program.uniformLocation("u_cell");

        // A square 0.8 cells wide as two triangles: the per-vertex data.
        const std::vector<float> square = {-0.4f, -0.4f, 0.4f, -0.4f, 0.4f, 0.4f,
                                           -0.4f, -0.4f, 0.4f, 0.4f,  -0.4f, 0.4f};
        positions = gl::Buffer({.initialData = std::as_bytes(std::span(square)),
                                .label = "instanced-arrays.positions"});
        // Per square: its cell's centre in clip space (row 0 at the top) and its colour.
        std::vector<float> offsetData;
        std::vector<std::uint8_t> colorData;
        for (std::uint32_t i = 0; i < kSquares; ++i) {
            const auto column = static_cast<int>(i % kColumns);
            const auto row = static_cast<int>(i / kColumns);
            offsetData.push_back((static_cast<float>(column) + 0.5f) / kColumns * 2.0f - 1.0f);
            offsetData.push_back(1.0f - (static_cast<float>(row) + 0.5f) / kRows * 2.0f);
            colorData.push_back(static_cast<std::uint8_t>(6 * column));
            colorData.push_back(static_cast<std::uint8_t>(10 * row));
            colorData.push_back(static_cast<std::uint8_t>(255 - 6 * column));
            colorData.push_back(255);
        }
        offsets = gl::Buffer({.initialData = std::as_bytes(std::span(offsetData)),
                              .label = "instanced-arrays.offsets"});
        colors = gl::Buffer({.initialData = std::as_bytes(std::span(colorData)),
                             .label = "instanced-arrays.colors"});

        // What three vertexAttribPointer calls leave: each attribute reads the binding of its
        // own index (OpenGL 4.5 section 10.3.2), every divisor 0.
        vertexArray = gl::VertexArray(
            {.attributes = {{kPositionLocation, gl::AttributeFormat::Float2, 0, kPositionLocation},
                            {kOffsetLocation, gl::AttributeFormat::Float2, 0, kOffsetLocation},
                            {kColorLocation, gl::AttributeFormat::UByte4Normalized, 0, kColorLocation}},
             .bindings = {{kPositionLocation, 8, 0}, {kOffsetLocation, 8, 0}, {kColorLocation, 4, 0}},
             .label = "instanced-arrays.vertex-array"});
        vertexArray.setVertexBuffer(kPositionLocation, positions);
        vertexArray.setVertexBuffer(kOffsetLocation, offsets);
        vertexArray.setVertexBuffer(kColorLocation, colors);
        // ext.vertexAttribDivisorANGLE(offsetLocation, 1); ext.vertexAttribDivisorANGLE(colorLocation, 1);
        vertexArray.vertexAttribDivisor(kOffsetLocation, 1);
        vertexArray.vertexAttribDivisor(kColorLocation, colorDivisor);
    }

    /** Draws all squares into the viewport (0, 0, width, height) of @p framebuffer. */
    gl::FrameStats draw(std::uint32_t framebuffer, std::uint32_t width, std::uint32_t height) {
        gl::bindDrawTarget(framebuffer, 0, 0, width, height);
        program.use();
        program.setUniform(cellLocation, glm::vec2(2.0f / kColumns, 2.0f / kRows));
        // ext.drawArraysInstancedANGLE(gl.TRIANGLES, 0, 6, 1000);
        gl::drawArraysInstanced(vertexArray, gl::PrimitiveMode::Triangles, 0, 6, kSquares);
        gl::FrameStats stats;
        stats.drawCalls = 1;
        stats.instances = kSquares;
        stats.triangles = 2 * kSquares;
        return stats;
    }
};

} // namespace

int main(int argc, char** argv) try {
    // ---- Init ----
    const examples::ExampleSpec spec{
        .name = "08-instanced-arrays",
        .summary = "1000 coloured squares in one drawArraysInstanced, set up as WebGL's "
                   "ANGLE_instanced_arrays example does: per-vertex position, per-instance offset "
                   "and colour through vertexAttribDivisor",
        .flags = {{"--color-divisor", "N", "the colour attribute's divisor: 1 gives each square its own "
                   "colour, N gives squares N*k .. N*k+N-1 the colour of square k",
                   "1", examples::FlagKind::Number, {}, 1, 1000}},
        .controls = {},
        .unavailable = {},
        .width = 800,
        .height = 400,
        .cameraControls = false,
    };
    const examples::ExampleOptions options = examples::parseOptions(argc, argv, spec);
    const auto colorDivisor = static_cast<std::uint32_t>(options.number("--color-divisor"));
    examples::ExampleRunner runner(options, spec);

    Scene scene;  // nothing in it: the Renderer only clears
    scene.clearColor = glm::vec4(0.02f, 0.02f, 0.03f, 1.0f);
    Camera camera;
    camera.setOrthographic(-1.0f, 1.0f, -1.0f, 1.0f, 0.1f, 10.0f);
    camera.lookAt(glm::vec3(0, 0, 5), glm::vec3(0, 0, 0));
    auto squares = std::make_unique<Squares>(colorDivisor);

    // ---- Update / Draw ----
    examples::FrameCallbacks callbacks;
    callbacks.after = [&](std::uint32_t framebuffer, std::uint32_t width, std::uint32_t height) {
        return squares->draw(framebuffer, width, height);
    };
    const int code = runner.run(scene, camera, callbacks);
    std::printf("08-instanced-arrays: %u squares, one drawArraysInstanced(TRIANGLES, 0, 6, %u); "
                "offset divisor %u, colour divisor %u\n",
                kSquares, kSquares, squares->vertexArray.divisor(kOffsetLocation),
                squares->vertexArray.divisor(kColorLocation));

    // ---- Shutdown: GL objects go before the context ----
    squares.reset();
    return code;
} catch (const myriad::Error& e) {
    std::fprintf(stderr, "08-instanced-arrays: %s\n", e.what());
    return 1;
}
