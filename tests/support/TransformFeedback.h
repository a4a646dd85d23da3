#pragma once
// Reading back what a vertex stage computes: transform feedback of gl_Position (or any varying
// the program names), with rasterisation off. For the tests that check the library's own vertex
// stage against the CPU's arithmetic (morph targets, skinning).
#include "myriad/gl/Draw.h"
#include "myriad/gl/OffscreenTarget.h"

#include <glad/gl.h>

#include <cstddef>
#include <functional>
#include <vector>

namespace myriad::test {

/** Runs @p draw (a draw of GL_POINTS, with the capturing program in use) with rasterisation
 *  off and returns the first @p floats floats it captured. A draw needs a complete framebuffer
 *  even then, and a surfaceless context has no default one: a 4 x 4 target is bound meanwhile. */
inline std::vector<float> captureTransformFeedback(std::size_t floats, const std::function<void()>& draw) {
    gl::OffscreenTarget target(4, 4, "capture-target");
    gl::bindDrawTarget(target.framebufferId(), 0, 0, 4, 4);
    GLuint buffer = 0;
    glCreateBuffers(1, &buffer);
    glNamedBufferStorage(buffer, static_cast<GLsizeiptr>(floats * sizeof(float)), nullptr, 0);
    glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, buffer);
    glEnable(GL_RASTERIZER_DISCARD);
    glBeginTransformFeedback(GL_POINTS);
    draw();
    glEndTransformFeedback();
    glDisable(GL_RASTERIZER_DISCARD);
    std::vector<float> out(floats);
    glGetNamedBufferSubData(buffer, 0, static_cast<GLsizeiptr>(floats * sizeof(float)), out.data());
    glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, 0);
    glDeleteBuffers(1, &buffer);
    gl::bindDrawTarget(0, 0, 0, 4, 4);
    return out;
}

} // namespace myriad::test
