#pragma once
// Internal to myriad_gl: the glad loader and small helpers shared by the GL sources.
#include <glad/gl.h>

#include "myriad/core/MeshData.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace myriad {
class SceneNode;
}

namespace myriad::gl::detail {

/** Key of the per-view caches (visible-index lists, GPU cull lists, LOD levels held): one
 *  entry per (view pass of the frame, node id). */
struct PassNodeKey {
    std::size_t pass = 0;
    std::uint64_t node = 0;
    friend bool operator==(const PassNodeKey&, const PassNodeKey&) = default;
};
struct PassNodeKeyHash {
    std::size_t operator()(const PassNodeKey& key) const noexcept {
        return std::hash<std::uint64_t>()(key.node * 31u + key.pass);
    }
};

enum class ObjectKind : int { Buffer, VertexArray, Program, Texture, Framebuffer, Sync, Sampler };
/** Adds @p delta to the live count of @p kind (gl::liveObjectCounts()). */
void countObject(ObjectKind kind, int delta) noexcept;

/** A GL texture name that deletes itself (buffer textures and float textures made inside the
 *  renderer; gl::Texture2D is the public RGBA8 kind). Move-only. */
class TextureHandle {
public:
    TextureHandle() noexcept = default;
    explicit TextureHandle(GLenum target) {
        glCreateTextures(target, 1, &m_id);
        countObject(ObjectKind::Texture, 1);
    }
    ~TextureHandle() { reset(); }
    TextureHandle(TextureHandle&& other) noexcept : m_id(other.m_id) { other.m_id = 0; }
    TextureHandle& operator=(TextureHandle&& other) noexcept {
        if (this != &other) {
            reset();
            m_id = other.m_id;
            other.m_id = 0;
        }
        return *this;
    }
    TextureHandle(const TextureHandle&) = delete;
    TextureHandle& operator=(const TextureHandle&) = delete;
    [[nodiscard]] GLuint id() const noexcept { return m_id; }
    void reset() noexcept {
        if (m_id != 0) {
            glDeleteTextures(1, &m_id);
            countObject(ObjectKind::Texture, -1);
            m_id = 0;
        }
    }

private:
    GLuint m_id = 0;
};

/** glGetString(@p name) as a string, empty when GL returns null. */
[[nodiscard]] std::string glString(GLenum name);

/** glObjectLabel(identifier, id, label); a label longer than GL_MAX_LABEL_LENGTH is cut. */
void setLabel(GLenum identifier, GLuint id, std::string_view label);

/** A node's name for labels and messages: name(), or "node#<id>" when it has none. */
[[nodiscard]] std::string nodeName(const SceneNode& node);
/** The GL label of an object made for @p node: "<nodeName>/<role>", e.g.
 *  "field/grass#0/InstancedMeshNode.instances". */
[[nodiscard]] std::string labelFor(const SceneNode& node, std::string_view role);

/** "<prefix>#<id>" when @p label is empty, else @p label. */
[[nodiscard]] std::string labelOrDefault(std::string_view label, std::string_view prefix, GLuint id);

/** True when a glClientWaitSync result says the fence has signalled. */
[[nodiscard]] inline bool signalled(GLenum waitResult) noexcept {
    return waitResult == GL_ALREADY_SIGNALED || waitResult == GL_CONDITION_SATISFIED;
}

[[nodiscard]] inline GLenum toGl(IndexType type) noexcept {
    switch (type) {
    case IndexType::UInt8: return GL_UNSIGNED_BYTE;
    case IndexType::UInt16: return GL_UNSIGNED_SHORT;
    case IndexType::UInt32: return GL_UNSIGNED_INT;
    }
    return GL_UNSIGNED_INT;
}
[[nodiscard]] inline std::size_t indexSize(IndexType type) noexcept {
    switch (type) {
    case IndexType::UInt8: return 1;
    case IndexType::UInt16: return 2;
    case IndexType::UInt32: return 4;
    }
    return 4;
}

} // namespace myriad::gl::detail
