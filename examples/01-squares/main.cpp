// 01-squares: 1000 coloured shapes in one draw call, twice.
//
// Shows: the same grid made with the low-level layer (a per-vertex triangle, a per-instance
// offset and colour at divisor 1, one gl::drawArraysInstanced, as WebGL's
// ANGLE_instanced_arrays example does) on the left as triangles, and with an InstancedMeshNode
// drawn by the Renderer on the right as squares, a gap between them. The printed statistics
// count both draws. --mode low-level | node | both (default both).
// Controls: Escape closes the window.
#include "common/ExampleRunner.h"

#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Shapes.h"
#include "myriad/gl/Buffer.h"
#include "myriad/gl/Draw.h"
#include "myriad/gl/Program.h"
#include "myriad/gl/VertexArray.h"
#include "myriad/util/Error.h"

#include <glm/gtc/matrix_transform.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

using namespace myriad;

namespace {

constexpr int kColumns = 40;
constexpr int kRows = 25;
constexpr int kSquares = kColumns * kRows;  // 1000

constexpr const char* kVertexShader = R"(#version 450 core
layout(location = 0) in vec2 a_corner;   // per vertex: the unit triangle's corner
layout(location = 1) in vec2 i_offset;   // per instance (divisor 1): where the square goes
layout(location = 2) in vec4 i_color;    // per instance: its colour
uniform vec2 u_scale;
out vec4 v_color;
void main() {
    gl_Position = vec4(i_offset + a_corner * u_scale, 0.0, 1.0);
    v_color = i_color;
}
)";

constexpr const char* kFragmentShader = R"(#version 450 core
in vec4 v_color;
out vec4 o_color;
void main() { o_color = v_color; }
)";

struct Square {
    glm::vec2 offset;  ///< centre in the unit square [0, 1]^2, y up
    glm::vec4 color;   ///< sRGB-looking colour (the low-level shader writes it as is)
};

std::vector<Square> makeSquares() {
    std::vector<Square> squares;
    for (int i = 0; i < kSquares; ++i) {
        const int column = i % kColumns;
        const int row = i / kColumns;
        const glm::vec2 centre((static_cast<float>(column) + 0.5f) / kColumns,
                               (static_cast<float>(row) + 0.5f) / kRows);
        const float hue = static_cast<float>(i) / kSquares;
        const glm::vec4 color(0.5f + 0.5f * std::cos(6.2832f * hue),
                              0.5f + 0.5f * std::cos(6.2832f * (hue - 0.333f)),
                              0.5f + 0.5f * std::cos(6.2832f * (hue - 0.667f)), 1.0f);
        squares.push_back({centre, color});
    }
    return squares;
}

// The low-level version: everything the Renderer does for a batch, spelled out.
struct LowLevelSquares {
    gl::Program program;
    gl::Buffer corners;
    gl::Buffer instances;
    gl::VertexArray layout;
    int scaleLocation = -1;

    explicit LowLevelSquares(const std::vector<Square>& squares) {
        const gl::ShaderSource stages[] = {
            {gl::ShaderStage::Vertex, "squares.vert", kVertexShader},
            {gl::ShaderStage::Fragment, "squares.frag", kFragmentShader}};
        program = gl::Program(stages, "01-squares.program");
        scaleLocation = program.uniformLocation("u_scale");
        // A triangle, not a square: the two halves must be told apart at a glance.
        const std::vector<glm::vec2> strip = {{-0.5f, -0.5f}, {0.5f, -0.5f}, {0.0f, 0.5f}};
        corners = gl::Buffer({.initialData = std::as_bytes(std::span(strip)), .label = "squares.corners"});
        // Positions in clip space: the squares fill x in [-1, 1] of the viewport.
        std::vector<Square> clip = squares;
        for (Square& s : clip) {
            s.offset = s.offset * 2.0f - 1.0f;
        }
        instances = gl::Buffer({.initialData = std::as_bytes(std::span(clip)), .label = "squares.instances"});
        layout = gl::VertexArray({.attributes = {{0, gl::AttributeFormat::Float2, 0, 0},
                                                 {1, gl::AttributeFormat::Float2, offsetof(Square, offset), 1},
                                                 {2, gl::AttributeFormat::Float4, offsetof(Square, color), 1}},
                                  .bindings = {{0, sizeof(glm::vec2), 0}, {1, sizeof(Square), 1}},
                                  .label = "squares.layout"});
        layout.setVertexBuffer(0, corners);
        layout.setVertexBuffer(1, instances);
    }

    /** Draws into the viewport (0, 0, width, height) of @p framebuffer; returns what it drew. */
    gl::FrameStats draw(std::uint32_t framebuffer, std::uint32_t width, std::uint32_t height) {
        gl::bindDrawTarget(framebuffer, 0, 0, width, height);
        program.use();
        program.setUniform(scaleLocation, glm::vec2(1.6f / kColumns, 1.6f / kRows));
        gl::drawArraysInstanced(layout, gl::PrimitiveMode::TriangleStrip, 0, 3, kSquares);
        gl::FrameStats stats;
        stats.drawCalls = 1;
        stats.instances = kSquares;
        stats.triangles = kSquares;
        return stats;
    }
};

} // namespace

// The two halves: in "both" the camera shows x in [-kLeftExtent, 1] and the node's squares fill
// [0, 1], the right 47% of the picture; the low-level triangles fill a viewport over the left
// 47%. The 6% between them stays empty, so the halves are visibly apart.
constexpr float kLeftExtent = 1.12f;
constexpr float kLowLevelShare = 1.0f / (1.0f + kLeftExtent);  // 0.47 of the width, on the left

int main(int argc, char** argv) try {
    // ---- Init ----
    const examples::ExampleSpec spec{
        .name = "01-squares",
        .summary = "1000 coloured shapes in one instanced draw, twice: the low-level layer's "
                   "triangles on the left, an InstancedMeshNode's squares on the right",
        .flags = {{"--mode", "WHICH", "what to draw: both halves, only the low-level layer's triangles, or only "
                   "the InstancedMeshNode's squares", "both", examples::FlagKind::Choice,
                   {"both", "low-level", "node"}, 0, 0}},
        .controls = {},
        .unavailable = {},
        .width = 800,
        .height = 400,
        .cameraControls = false,
    };
    const examples::ExampleOptions options = examples::parseOptions(argc, argv, spec);
    const std::string& mode = options.text("--mode");
    examples::ExampleRunner runner(options, spec);
    const std::vector<Square> squares = makeSquares();
    const bool both = mode == "both";

    Scene scene;
    scene.clearColor = glm::vec4(0.02f, 0.02f, 0.03f, 1.0f);
    Camera camera;
    // The node's squares live in [0, 1]^2; "both" shows them in the right part of the view.
    if (both) {
        camera.setOrthographic(-kLeftExtent, 1.0f, 0.0f, 1.0f, 0.1f, 10.0f);
    } else {
        camera.setOrthographic(0.0f, 1.0f, 0.0f, 1.0f, 0.1f, 10.0f);
    }
    camera.lookAt(glm::vec3(0, 0, 5), glm::vec3(0, 0, 0));
    if (mode != "low-level") {
        Material material;
        material.shading = Shading::Unlit;
        auto square = MeshGeometry::create(shapes::quad(0.8f / kColumns, 0.8f / kRows), "square");
        auto& batch = scene.root().emplace<InstancedMeshNode>(square, material, kSquares, "squares");
        for (const Square& s : squares) {
            // The Renderer treats colours as linear and encodes sRGB on output; the low-level
            // shader writes them as they are, so decode here to match its picture.
            const glm::vec4 linear(glm::pow(glm::vec3(s.color), glm::vec3(2.2f)), 1.0f);
            batch.addInstance(glm::translate(glm::mat4(1.0f), glm::vec3(s.offset, 0.0f)), linear);
        }
    }
    std::unique_ptr<LowLevelSquares> lowLevel;
    if (mode != "node") {
        lowLevel = std::make_unique<LowLevelSquares>(squares);
    }

    // ---- Update / Draw ----
    examples::FrameCallbacks callbacks;
    if (lowLevel) {
        callbacks.after = [&](std::uint32_t framebuffer, std::uint32_t width, std::uint32_t height) {
            const auto left = static_cast<std::uint32_t>(static_cast<float>(width) * kLowLevelShare);
            return lowLevel->draw(framebuffer, both ? left : width, height);
        };
    }
    const int code = runner.run(scene, camera, callbacks);
    std::printf("01-squares: %d shapes per path, one draw call each (%s%s)\n", kSquares, mode.c_str(),
                both ? ": triangles from the low-level layer on the left, squares from the node on the right"
                     : "");

    // ---- Shutdown: GL objects go before the context (declaration order) ----
    lowLevel.reset();
    return code;
} catch (const myriad::Error& e) {
    std::fprintf(stderr, "01-squares: %s\n", e.what());
    return 1;
}
