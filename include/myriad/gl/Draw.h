#pragma once
/** @file
 *  Instanced draws on a VertexArray: the low-level layer the Renderer is built on.
 *
 *  These mirror WebGL's ANGLE_instanced_arrays (drawArraysInstancedANGLE,
 *  drawElementsInstancedANGLE) and their GL 4.2 base-instance forms, with one difference: the
 *  vertex array is an argument rather than whatever is bound, so a draw cannot pick up another
 *  draw's divisors. Each call binds the VAO, issues the draw and leaves that VAO bound; the
 *  program must be bound by the caller (Program::use()).
 *  Every call checks its ranges first and throws instead of letting the GPU read past a buffer:
 *  a count of 0 or an instance count of 0 draws nothing and is not an error. WebGL's
 *  INVALID_VALUE for a negative first, count or primcount is an OutOfRange here for a first,
 *  count or instance count above INT32_MAX (what GL's GLint / GLsizei hold: a negative int
 *  converted to std::uint32_t lands there); its INVALID_OPERATION for a read past a buffer is an
 *  OutOfRange, and for a misaligned index offset an InvalidArgument.
 *  Thread safety: call only on the context's thread. */
#include "myriad/core/MeshData.h"

#include <cstddef>
#include <cstdint>

namespace myriad::gl {

class VertexArray;

/** Primitive assembly mode (OpenGL 4.5 section 10.1): the seven that ANGLE_instanced_arrays'
 *  draws take (POINTS, LINE_STRIP, LINE_LOOP, LINES, TRIANGLE_STRIP, TRIANGLE_FAN, TRIANGLES). */
enum class PrimitiveMode : std::uint8_t {
    Points,         ///< GL_POINTS: one point per vertex
    Lines,          ///< GL_LINES: a segment per pair of vertices
    LineStrip,      ///< GL_LINE_STRIP: a segment from each vertex to the next
    Triangles,      ///< GL_TRIANGLES: a triangle per three vertices
    TriangleStrip,  ///< GL_TRIANGLE_STRIP: vertices i, i+1, i+2 for each i
    TriangleFan,    ///< GL_TRIANGLE_FAN: vertex 0, i, i+1 for each i
    LineLoop,       ///< GL_LINE_LOOP: a line strip closed from the last vertex back to the first
};

/** Binds @p framebuffer (0: the default framebuffer, else OffscreenTarget::framebufferId()) for
 *  drawing and reading, and sets the viewport to the rectangle at (@p x, @p y) from the bottom
 *  left, @p width x @p height pixels. GL calls: glBindFramebuffer, glViewport. */
void bindDrawTarget(std::uint32_t framebuffer, std::int32_t x, std::int32_t y, std::uint32_t width,
                    std::uint32_t height);

/** Waits until the GPU has finished every command issued so far (glFinish): for timing. */
void finish();

/** glDrawArraysInstanced: vertices [first, first + count) for instances [0, instanceCount)
 *  (ANGLE_instanced_arrays' drawArraysInstancedANGLE(mode, first, count, primcount)).
 *  @throws OutOfRange if first, count or instanceCount is above INT32_MAX, first + count
 *  exceeds vertexArray.vertexLimit() or instanceCount exceeds vertexArray.instanceLimit();
 *  InvalidArgument if a binding used by an attribute has no buffer. */
void drawArraysInstanced(const VertexArray& vertexArray, PrimitiveMode mode, std::uint32_t first,
                         std::uint32_t count, std::uint32_t instanceCount);
/** glDrawArraysInstancedBaseInstance: as above, per-instance data starting at @p baseInstance. */
void drawArraysInstancedBaseInstance(const VertexArray& vertexArray, PrimitiveMode mode,
                                     std::uint32_t first, std::uint32_t count,
                                     std::uint32_t instanceCount, std::uint32_t baseInstance);
/** glDrawElementsInstanced: @p count indices of @p indexType (8-, 16- or 32-bit) from byte
 *  @p offsetBytes of the vertex array's index buffer (ANGLE_instanced_arrays'
 *  drawElementsInstancedANGLE(mode, count, type, offset, primcount)).
 *  @throws InvalidArgument if offsetBytes is not a multiple of the index size (1, 2 or 4
 *  bytes), indexType differs from the attached index buffer's, or there is no index buffer;
 *  OutOfRange if count or instanceCount is above INT32_MAX, the indices run past the index
 *  buffer, the index buffer's maxIndex is past vertexLimit(), or instanceCount exceeds
 *  instanceLimit(). */
void drawElementsInstanced(const VertexArray& vertexArray, PrimitiveMode mode, std::uint32_t count,
                           IndexType indexType, std::size_t offsetBytes, std::uint32_t instanceCount);
/** glDrawElementsInstancedBaseInstance: as above, per-instance data from @p baseInstance. */
void drawElementsInstancedBaseInstance(const VertexArray& vertexArray, PrimitiveMode mode,
                                       std::uint32_t count, IndexType indexType,
                                       std::size_t offsetBytes, std::uint32_t instanceCount,
                                       std::uint32_t baseInstance);

} // namespace myriad::gl
