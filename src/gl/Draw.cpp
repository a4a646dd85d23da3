#include "myriad/gl/Draw.h"

#include "gl/GlCommon.h"
#include "myriad/gl/VertexArray.h"
#include "myriad/util/Error.h"

#include <cstdint>
#include <limits>
#include <string>

namespace myriad::gl {

void checkDrawable(const VertexArray& vertexArray, const char* function);

namespace {

GLenum toGl(PrimitiveMode mode) noexcept {
    switch (mode) {
    case PrimitiveMode::Points: return GL_POINTS;
    case PrimitiveMode::Lines: return GL_LINES;
    case PrimitiveMode::LineStrip: return GL_LINE_STRIP;
    case PrimitiveMode::Triangles: return GL_TRIANGLES;
    case PrimitiveMode::TriangleStrip: return GL_TRIANGLE_STRIP;
    case PrimitiveMode::TriangleFan: return GL_TRIANGLE_FAN;
    case PrimitiveMode::LineLoop: return GL_LINE_LOOP;
    }
    return GL_TRIANGLES;
}

void checkInstances(const VertexArray& vertexArray, std::uint32_t instanceCount,
                    std::uint32_t baseInstance, const char* function) {
    if (!vertexArray.canSupplyInstances(instanceCount, baseInstance)) {
        throw OutOfRange(std::string(function) + ": " + std::to_string(instanceCount) +
                         " instances from base instance " + std::to_string(baseInstance) +
                         " read past the per-instance data of '" + vertexArray.label() +
                         "' (" + std::to_string(vertexArray.instanceLimit()) +
                         " instances from base 0)");
    }
}

// GL takes first as GLint and counts as GLsizei: above INT32_MAX they would arrive negative
// (WebGL's INVALID_VALUE for a negative first, count or primcount).
void checkFitsGl(std::uint32_t value, const char* what, const char* function) {
    if (value > static_cast<std::uint32_t>(std::numeric_limits<std::int32_t>::max())) {
        throw OutOfRange(std::string(function) + ": " + what + " " + std::to_string(value) +
                         " is above INT32_MAX, the most GL's GLint / GLsizei hold (a negative "
                         "int converted to std::uint32_t?)");
    }
}

void bindVertexArray(const VertexArray& vertexArray) {
    glBindVertexArray(vertexArray.id());
}

void drawArrays(const VertexArray& vertexArray, PrimitiveMode mode, std::uint32_t first,
                std::uint32_t count, std::uint32_t instanceCount, std::uint32_t baseInstance,
                const char* function) {
    checkDrawable(vertexArray, function);
    checkFitsGl(first, "first", function);
    checkFitsGl(count, "count", function);
    checkFitsGl(instanceCount, "instance count", function);
    const std::uint64_t end = std::uint64_t{first} + count;
    if (end > vertexArray.vertexLimit()) {
        throw OutOfRange(std::string(function) + ": vertices [" + std::to_string(first) + ", " +
                         std::to_string(end) + ") run past the per-vertex data of '" +
                         vertexArray.label() + "', which holds " +
                         std::to_string(vertexArray.vertexLimit()) + " vertices");
    }
    checkInstances(vertexArray, instanceCount, baseInstance, function);
    if (count == 0 || instanceCount == 0) {
        return;
    }
    bindVertexArray(vertexArray);
    glDrawArraysInstancedBaseInstance(toGl(mode), static_cast<GLint>(first),
                                      static_cast<GLsizei>(count),
                                      static_cast<GLsizei>(instanceCount), baseInstance);
}

void drawElements(const VertexArray& vertexArray, PrimitiveMode mode, std::uint32_t count,
                  IndexType indexType, std::size_t offsetBytes, std::uint32_t instanceCount,
                  std::uint32_t baseInstance, const char* function) {
    checkDrawable(vertexArray, function);
    checkFitsGl(count, "count", function);
    checkFitsGl(instanceCount, "instance count", function);
    if (!vertexArray.hasIndexBuffer()) {
        throw InvalidArgument(std::string(function) + ": '" + vertexArray.label() +
                              "' has no index buffer");
    }
    if (indexType != vertexArray.indexType()) {
        throw InvalidArgument(std::string(function) + ": index type differs from the index "
                              "buffer attached to '" + vertexArray.label() + "'");
    }
    const std::size_t size = detail::indexSize(indexType);
    if (offsetBytes % size != 0) {
        throw InvalidArgument(std::string(function) + ": offset " + std::to_string(offsetBytes) +
                              " is not a multiple of the index size " + std::to_string(size));
    }
    const std::uint64_t endBytes = std::uint64_t{offsetBytes} + std::uint64_t{count} * size;
    if (offsetBytes > vertexArray.indexBufferBytes() || endBytes > vertexArray.indexBufferBytes()) {
        throw OutOfRange(std::string(function) + ": " + std::to_string(count) +
                         " indices at offset " + std::to_string(offsetBytes) +
                         " run past the index buffer of '" + vertexArray.label() + "' (" +
                         std::to_string(vertexArray.indexBufferBytes()) + " bytes)");
    }
    if (std::uint64_t{vertexArray.maxIndex()} >= vertexArray.vertexLimit()) {
        throw OutOfRange(std::string(function) + ": the index buffer of '" + vertexArray.label() +
                         "' holds index " + std::to_string(vertexArray.maxIndex()) +
                         ", past the " + std::to_string(vertexArray.vertexLimit()) +
                         " vertices its buffers hold");
    }
    checkInstances(vertexArray, instanceCount, baseInstance, function);
    if (count == 0 || instanceCount == 0) {
        return;
    }
    bindVertexArray(vertexArray);
    glDrawElementsInstancedBaseInstance(
        toGl(mode), static_cast<GLsizei>(count), detail::toGl(indexType),
        reinterpret_cast<const void*>(static_cast<std::uintptr_t>(offsetBytes)),
        static_cast<GLsizei>(instanceCount), baseInstance);
}

} // namespace

void bindDrawTarget(std::uint32_t framebuffer, std::int32_t x, std::int32_t y, std::uint32_t width,
                    std::uint32_t height) {
    glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);
    glViewport(x, y, static_cast<GLsizei>(width), static_cast<GLsizei>(height));
}

void finish() { glFinish(); }

void drawArraysInstanced(const VertexArray& vertexArray, PrimitiveMode mode, std::uint32_t first,
                         std::uint32_t count, std::uint32_t instanceCount) {
    drawArrays(vertexArray, mode, first, count, instanceCount, 0, "gl::drawArraysInstanced");
}

void drawArraysInstancedBaseInstance(const VertexArray& vertexArray, PrimitiveMode mode,
                                     std::uint32_t first, std::uint32_t count,
                                     std::uint32_t instanceCount, std::uint32_t baseInstance) {
    drawArrays(vertexArray, mode, first, count, instanceCount, baseInstance,
               "gl::drawArraysInstancedBaseInstance");
}

void drawElementsInstanced(const VertexArray& vertexArray, PrimitiveMode mode, std::uint32_t count,
                           IndexType indexType, std::size_t offsetBytes,
                           std::uint32_t instanceCount) {
    drawElements(vertexArray, mode, count, indexType, offsetBytes, instanceCount, 0,
                 "gl::drawElementsInstanced");
}

void drawElementsInstancedBaseInstance(const VertexArray& vertexArray, PrimitiveMode mode,
                                       std::uint32_t count, IndexType indexType,
                                       std::size_t offsetBytes, std::uint32_t instanceCount,
                                       std::uint32_t baseInstance) {
    drawElements(vertexArray, mode, count, indexType, offsetBytes, instanceCount, baseInstance,
                 "gl::drawElementsInstancedBaseInstance");
}

} // namespace myriad::gl
