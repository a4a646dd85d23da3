#include "myriad/gl/Loader.h"

#include "gl/GlCommon.h"
#include "myriad/core/SceneNode.h"
#include "myriad/util/Error.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>

namespace myriad::gl {
namespace {

std::atomic<bool> g_loaded{false};
std::atomic<CurrentContextQuery> g_currentContext{nullptr};
std::atomic<std::uint64_t> g_loadGeneration{0};  ///< loadGl() calls that succeeded

/** The context whose GL version this thread last read (requireCurrentContext): a context keeps
 *  its version for life, so it is read once per context, not once per call. */
struct VerifiedContext {
    std::uint64_t generation = 0;  ///< g_loadGeneration when it was read (0: never)
    void* context = nullptr;       ///< the platform's handle (null with no CurrentContextQuery)
};
thread_local VerifiedContext t_verified;

std::string stringOf(GLenum name) {
    std::string text = detail::glString(name);
    return text.empty() ? "(null)" : text;
}

} // namespace

void loadGl(ProcAddressLoader loader, CurrentContextQuery currentContext) {
    if (loader == nullptr) {
        throw GlError("gl::loadGl: loader is null");
    }
    const int version = gladLoadGL(reinterpret_cast<GLADloadfunc>(loader));
    if (version == 0) {
        throw GlError("gl::loadGl: no OpenGL entry points could be loaded; is a context current?");
    }
    const int major = GLAD_VERSION_MAJOR(version);
    const int minor = GLAD_VERSION_MINOR(version);
    if (major < 4 || (major == 4 && minor < 5)) {
        throw GlError("gl::loadGl: OpenGL 4.5 core is required, the context is " +
                      std::to_string(major) + "." + std::to_string(minor) + " (" +
                      stringOf(GL_VERSION) + ", renderer " + stringOf(GL_RENDERER) + ")");
    }
    g_currentContext = currentContext;
    g_loadGeneration.fetch_add(1);
    g_loaded = true;
}

bool isGlLoaded() noexcept {
    return g_loaded;
}

void requireCurrentContext(const char* function) {
    if (!g_loaded) {
        throw GlError(std::string(function) +
                      ": OpenGL is not loaded; create a HeadlessContext or Window first, or call "
                      "gl::loadGl() after making your own context current");
    }
    const CurrentContextQuery query = g_currentContext;
    void* const context = query != nullptr ? query() : nullptr;
    if (query != nullptr && context == nullptr) {
        throw GlError(std::string(function) + ": no OpenGL context is current on this thread");
    }
    // The platform's answer (a thread-local read in EGL and GLFW, not a driver round trip) is
    // asked every call; GL's version only when the current context is not the one read last.
    const std::uint64_t generation = g_loadGeneration.load();
    if (t_verified.generation == generation && t_verified.context == context) {
        return;
    }
    GLint major = 0;
    GLint minor = 0;
    glGetIntegerv(GL_MAJOR_VERSION, &major);
    glGetIntegerv(GL_MINOR_VERSION, &minor);
    if (major < 4 || (major == 4 && minor < 5)) {
        throw GlError(std::string(function) +
                      ": no OpenGL 4.5 context is current on this thread (GL_MAJOR_VERSION reads " +
                      std::to_string(major) + "." + std::to_string(minor) + ")");
    }
    t_verified = {generation, context};
}

namespace detail {

std::string nodeName(const SceneNode& node) {
    return node.name().empty() ? "node#" + std::to_string(node.id()) : node.name();
}

std::string labelFor(const SceneNode& node, std::string_view role) {
    return nodeName(node) + "/" + std::string(role);
}

std::string glString(GLenum name) {
    const GLubyte* text = glGetString(name);
    return text != nullptr ? reinterpret_cast<const char*>(text) : "";
}

void setLabel(GLenum identifier, GLuint id, std::string_view label) {
    static GLint maxLength = 0;
    if (maxLength == 0) {
        glGetIntegerv(GL_MAX_LABEL_LENGTH, &maxLength);
        maxLength = std::max(maxLength, 1);
    }
    const auto length = static_cast<GLsizei>(
        std::min<std::size_t>(label.size(), static_cast<std::size_t>(maxLength - 1)));
    glObjectLabel(identifier, id, length, label.data());
}

std::string labelOrDefault(std::string_view label, std::string_view prefix, GLuint id) {
    if (!label.empty()) {
        return std::string(label);
    }
    return std::string(prefix) + "#" + std::to_string(id);
}

} // namespace detail
} // namespace myriad::gl
