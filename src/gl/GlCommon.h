#pragma once
// Internal to myriad_gl: the glad loader and small helpers shared by the GL sources.
#include <glad/gl.h>

#include "myriad/core/MeshData.h"

#include <string>
#include <string_view>

namespace myriad::gl::detail {

enum class ObjectKind : int { Buffer, VertexArray, Program, Texture, Framebuffer, Sync };
/** Adds @p delta to the live count of @p kind (gl::liveObjectCounts()). */
void countObject(ObjectKind kind, int delta) noexcept;

/** glObjectLabel(identifier, id, label); a label longer than GL_MAX_LABEL_LENGTH is cut. */
void setLabel(GLenum identifier, GLuint id, std::string_view label);

/** "<prefix>#<id>" when @p label is empty, else @p label. */
[[nodiscard]] std::string labelOrDefault(std::string_view label, std::string_view prefix, GLuint id);

[[nodiscard]] inline GLenum toGl(IndexType type) noexcept {
    return type == IndexType::UInt16 ? GL_UNSIGNED_SHORT : GL_UNSIGNED_INT;
}
[[nodiscard]] inline std::size_t indexSize(IndexType type) noexcept {
    return type == IndexType::UInt16 ? 2 : 4;
}

} // namespace myriad::gl::detail
