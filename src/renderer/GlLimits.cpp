#include "renderer/GlLimits.h"

#include "myriad/util/Error.h"

#include <algorithm>
#include <cstring>
#include <limits>

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

/** The driver's most anisotropy, or 1 when it offers none (asked once per Renderer). */
float driverMaxAnisotropy() {
    GLint major = 0;
    GLint minor = 0;
    glGetIntegerv(GL_MAJOR_VERSION, &major);
    glGetIntegerv(GL_MINOR_VERSION, &minor);
    bool supported = major > 4 || (major == 4 && minor >= 6);
    GLint extensions = 0;
    glGetIntegerv(GL_NUM_EXTENSIONS, &extensions);
    for (GLint i = 0; i < extensions && !supported; ++i) {
        const auto* name = reinterpret_cast<const char*>(glGetStringi(GL_EXTENSIONS, static_cast<GLuint>(i)));
        supported = name != nullptr && (std::strcmp(name, "GL_ARB_texture_filter_anisotropic") == 0 ||
                                        std::strcmp(name, "GL_EXT_texture_filter_anisotropic") == 0);
    }
    if (!supported) {
        return 1.0f;
    }
    GLfloat most = 1.0f;
    glGetFloatv(kMaxTextureMaxAnisotropy, &most);
    return std::max(most, 1.0f);
}

} // namespace

GlLimits GlLimits::query() {
    GlLimits limits;
    // GLSL's texelFetch takes an int: a texel past INT_MAX cannot be addressed, whatever the
    // driver allows (GL_MAX_TEXTURE_BUFFER_SIZE is an int64 query).
    limits.maxTextureBufferTexels = std::min<std::int64_t>(
        lowered(integer(GL_MAX_TEXTURE_BUFFER_SIZE), g_ceiling.maxTextureBufferTexels), std::numeric_limits<std::int32_t>::max());
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
    limits.maxTextureAnisotropy = driverMaxAnisotropy();
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
