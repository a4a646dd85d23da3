// 01-squares: 1000 coloured squares in one draw call, twice.
//
// Shows: the same picture made with the low-level layer (a per-vertex quad, a per-instance
// offset and colour at divisor 1, one gl::drawArraysInstanced, as WebGL's
// ANGLE_instanced_arrays example does) in the left half, and with an InstancedMeshNode drawn
// by the Renderer in the right half. --mode low-level | node | both (default both).
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
layout(location = 0) in vec2 a_corner;   // per vertex: the unit square's corner
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
        const std::vector<glm::vec2> strip = {{-0.5f, -0.5f}, {0.5f, -0.5f}, {-0.5f, 0.5f}, {0.5f, 0.5f}};
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

    void draw(std::uint32_t framebuffer, std::uint32_t width, std::uint32_t height) {
        gl::bindDrawTarget(framebuffer, 0, 0, width, height);
        program.use();
        program.setUniform(scaleLocation, glm::vec2(1.6f / kColumns, 1.6f / kRows));
        gl::drawArraysInstanced(layout, gl::PrimitiveMode::TriangleStrip, 0, 4, kSquares);
    }
};

} // namespace

int main(int argc, char** argv) try {
    // ---- Init ----
    examples::ExampleOptions defaults;
    defaults.width = 800;
    defaults.height = 400;
    defaults.mode = "both";
    const examples::ExampleOptions options =
        examples::parseOptions(argc, argv, " [--mode both|low-level|node]", defaults);
    if (options.mode != "both" && options.mode != "low-level" && options.mode != "node") {
        std::fprintf(stderr, "--mode must be both, low-level or node\n");
        return 2;
    }
    examples::ExampleRunner runner(options, "01-squares");
    const std::vector<Square> squares = makeSquares();
    const bool both = options.mode == "both";

    Scene scene;
    scene.clearColor = glm::vec4(0.02f, 0.02f, 0.03f, 1.0f);
    Camera camera;
    // The node's squares live in [0, 1]^2; "both" shows them in the right half of the view.
    if (both) {
        camera.setOrthographic(-1.0f, 1.0f, 0.0f, 1.0f, 0.1f, 10.0f);
    } else {
        camera.setOrthographic(0.0f, 1.0f, 0.0f, 1.0f, 0.1f, 10.0f);
    }
    camera.lookAt(glm::vec3(0, 0, 5), glm::vec3(0, 0, 0));
    if (options.mode != "low-level") {
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
    if (options.mode != "node") {
        lowLevel = std::make_unique<LowLevelSquares>(squares);
    }

    // ---- Update / Draw ----
    examples::FrameCallbacks callbacks;
    if (lowLevel) {
        callbacks.after = [&](std::uint32_t framebuffer, std::uint32_t width, std::uint32_t height) {
            lowLevel->draw(framebuffer, both ? width / 2 : width, height);
        };
    }
    const int code = runner.run(scene, camera, callbacks);
    std::printf("01-squares: %d squares per path, one draw call each (%s)\n", kSquares,
                options.mode.c_str());

    // ---- Shutdown: GL objects go before the context (declaration order) ----
    lowLevel.reset();
    return code;
} catch (const myriad::Error& e) {
    std::fprintf(stderr, "01-squares: %s\n", e.what());
    return 1;
}
