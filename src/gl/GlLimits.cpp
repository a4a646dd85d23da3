#include "gl/GlLimits.h"

#include "myriad/util/Error.h"

#include <algorithm>

namespace myriad::gl::detail {
namespace {

// The test ceiling: fields <= 0 are not lowered.
GlLimits g_ceiling;

std::int64_t lowered(std::int64_t driver, std::int64_t ceiling) noexcept {
    return ceiling > 0 ? std::min(driver, ceiling) : driver;
}

std::int64_t integer(GLenum name) {
    GLint64 value = 0;
    glGetInteger64v(name, &value);
    return value;
}

[[noreturn]] void refuse(std::uint64_t needed, const char* unit, std::int64_t limit, const char* limitName,
                         const SceneNode& node, std::string_view what, std::string_view advice) {
    std::string message = "gl::Renderer::render: '" + nodeName(node) + "': its " + std::string(what) +
                          " needs " + std::to_string(needed) + " " + unit + ", above " + limitName + " (" +
                          std::to_string(limit) + " on this driver)";
    if (!advice.empty()) {
        message += "; " + std::string(advice);
    }
    throw CapacityError(message);
}

} // namespace

GlLimits GlLimits::query() {
    GlLimits limits;
    limits.maxTextureBufferTexels = lowered(integer(GL_MAX_TEXTURE_BUFFER_SIZE), g_ceiling.maxTextureBufferTexels);
    limits.maxShaderStorageBlockBytes =
        lowered(integer(GL_MAX_SHADER_STORAGE_BLOCK_SIZE), g_ceiling.maxShaderStorageBlockBytes);
    limits.maxShaderStorageBindings =
        lowered(integer(GL_MAX_SHADER_STORAGE_BUFFER_BINDINGS), g_ceiling.maxShaderStorageBindings);
    limits.maxTextureSize = lowered(integer(GL_MAX_TEXTURE_SIZE), g_ceiling.maxTextureSize);
    for (GLuint axis = 0; axis < 3; ++axis) {
        GLint64 groups = 0;
        glGetInteger64i_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, axis, &groups);
        limits.maxComputeWorkGroups[axis] = lowered(groups, g_ceiling.maxComputeWorkGroups[axis]);
    }
    return limits;
}

void lowerGlLimitsForTesting(const GlLimits& ceiling) noexcept { g_ceiling = ceiling; }

void resetGlLimitsForTesting() noexcept { g_ceiling = GlLimits{}; }

void requireTextureBufferTexels(const GlLimits& limits, std::uint64_t texels, const SceneNode& node,
                                std::string_view what, std::string_view advice) {
    if (texels > static_cast<std::uint64_t>(limits.maxTextureBufferTexels)) {
        refuse(texels, "texels", limits.maxTextureBufferTexels, "GL_MAX_TEXTURE_BUFFER_SIZE", node, what, advice);
    }
}

void requireStorageBlockBytes(const GlLimits& limits, std::uint64_t bytes, const SceneNode& node,
                              std::string_view what, std::string_view advice) {
    if (bytes > static_cast<std::uint64_t>(limits.maxShaderStorageBlockBytes)) {
        refuse(bytes, "bytes", limits.maxShaderStorageBlockBytes, "GL_MAX_SHADER_STORAGE_BLOCK_SIZE", node, what,
               advice);
    }
}

} // namespace myriad::gl::detail
