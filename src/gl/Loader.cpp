#include "myriad/gl/Loader.h"

#include "gl/GlCommon.h"
#include "myriad/core/SceneNode.h"
#include "myriad/util/Error.h"

#include <algorithm>
#include <atomic>
#include <string>

namespace myriad::gl {
namespace {

std::atomic<bool> g_loaded{false};
std::atomic<CurrentContextQuery> g_currentContext{nullptr};

std::string stringOf(GLenum name) {
    const GLubyte* text = glGetString(name);
    return text != nullptr ? reinterpret_cast<const char*>(text) : "(null)";
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
    if (query != nullptr && query() == nullptr) {
        throw GlError(std::string(function) + ": no OpenGL context is current on this thread");
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
}

namespace detail {

std::string nodeName(const SceneNode& node) {
    return node.name().empty() ? "node#" + std::to_string(node.id()) : node.name();
}

std::string labelFor(const SceneNode& node, std::string_view role) {
    return nodeName(node) + "/" + std::string(role);
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
