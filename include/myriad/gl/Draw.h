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
 *  a count of 0 or an instance count of 0 draws nothing and is not an error.
 *  Thread safety: call only on the context's thread. */
#include "myriad/core/MeshData.h"

#include <cstddef>
#include <cstdint>

namespace myriad::gl {

class VertexArray;

/** Primitive assembly mode (OpenGL 4.5 section 10.1). */
enum class PrimitiveMode : std::uint8_t { Points, Lines, LineStrip, Triangles, TriangleStrip, TriangleFan };

/** Binds @p framebuffer (0: the default framebuffer, else OffscreenTarget::framebufferId()) for
 *  drawing and reading, and sets the viewport to the rectangle at (@p x, @p y) from the bottom
 *  left, @p width x @p height pixels. GL calls: glBindFramebuffer, glViewport. */
void bindDrawTarget(std::uint32_t framebuffer, std::int32_t x, std::int32_t y, std::uint32_t width,
                    std::uint32_t height);

/** Waits until the GPU has finished every command issued so far (glFinish): for timing. */
void finish();

/** glDrawArraysInstanced: vertices [first, first + count) for instances [0, instanceCount).
 *  @throws OutOfRange if first + count exceeds vertexArray.vertexLimit() or instanceCount
 *  exceeds vertexArray.instanceLimit(); InvalidArgument if a binding used by an attribute has
 *  no buffer. */
void drawArraysInstanced(const VertexArray& vertexArray, PrimitiveMode mode, std::uint32_t first,
                         std::uint32_t count, std::uint32_t instanceCount);
/** glDrawArraysInstancedBaseInstance: as above, per-instance data starting at @p baseInstance. */
void drawArraysInstancedBaseInstance(const VertexArray& vertexArray, PrimitiveMode mode,
                                     std::uint32_t first, std::uint32_t count,
                                     std::uint32_t instanceCount, std::uint32_t baseInstance);
/** glDrawElementsInstanced: @p count indices of @p indexType from byte @p offsetBytes of the
 *  vertex array's index buffer.
 *  @throws InvalidArgument if offsetBytes is not a multiple of the index size, indexType differs
 *  from the attached index buffer's, or there is no index buffer; OutOfRange if the indices run
 *  past the index buffer, the index buffer's maxIndex is past vertexLimit(), or instanceCount
 *  exceeds instanceLimit(). */
void drawElementsInstanced(const VertexArray& vertexArray, PrimitiveMode mode, std::uint32_t count,
                           IndexType indexType, std::size_t offsetBytes, std::uint32_t instanceCount);
/** glDrawElementsInstancedBaseInstance: as above, per-instance data from @p baseInstance. */
void drawElementsInstancedBaseInstance(const VertexArray& vertexArray, PrimitiveMode mode,
                                       std::uint32_t count, IndexType indexType,
                                       std::size_t offsetBytes, std::uint32_t instanceCount,
                                       std::uint32_t baseInstance);

} // namespace myriad::gl
