#include "myriad/core/SurfaceShader.h"

#include "myriad/util/Error.h"

#include <atomic>
#include <fstream>
#include <sstream>

namespace myriad {
namespace {
std::atomic<std::uint64_t> g_nextId{1};

std::string readText(const std::string& path, const char* function) {
    std::ifstream file(path, std::ios::binary);
    if (!file) {
        throw InvalidArgument(std::string(function) + ": cannot open '" + path + "'");
    }
    std::ostringstream text;
    text << file.rdbuf();
    return text.str();
}
} // namespace

SurfaceShader::SurfaceShader(SurfaceShaderDesc desc)
    : m_name(std::move(desc.name)),
      m_source(std::move(desc.surfaceSource)),
      m_vertexName(desc.vertexName.empty() ? m_name : std::move(desc.vertexName)),
      m_vertexSource(std::move(desc.vertexSource)),
      m_lightingName(desc.lightingName.empty() ? m_name : std::move(desc.lightingName)),
      m_lightingSource(std::move(desc.lightingSource)),
      m_fragmentName(desc.fragmentName.empty() ? m_name : std::move(desc.fragmentName)),
      m_fragmentSource(std::move(desc.fragmentSource)),
      m_id(g_nextId.fetch_add(1)) {}

std::shared_ptr<const SurfaceShader> SurfaceShader::fromSource(std::string name, std::string source) {
    if (source.empty()) {
        throw InvalidArgument("SurfaceShader::fromSource: '" + name + "' has no source text");
    }
    SurfaceShaderDesc desc;
    desc.name = std::move(name);
    desc.surfaceSource = std::move(source);
    return create(std::move(desc));
}

std::shared_ptr<const SurfaceShader> SurfaceShader::fromFile(const std::string& path) {
    return fromSource(path, readText(path, "SurfaceShader::fromFile"));
}

std::shared_ptr<const SurfaceShader> SurfaceShader::vertexFromSource(std::string name, std::string source) {
    if (source.empty()) {
        throw InvalidArgument("SurfaceShader::vertexFromSource: '" + name + "' has no source text");
    }
    SurfaceShaderDesc desc;
    desc.name = std::move(name);
    desc.vertexSource = std::move(source);
    return create(std::move(desc));
}

std::shared_ptr<const SurfaceShader> SurfaceShader::vertexFromFile(const std::string& path) {
    return vertexFromSource(path, readText(path, "SurfaceShader::vertexFromFile"));
}

std::shared_ptr<const SurfaceShader> SurfaceShader::lightingFromSource(std::string name, std::string source) {
    if (source.empty()) {
        throw InvalidArgument("SurfaceShader::lightingFromSource: '" + name + "' has no source text");
    }
    SurfaceShaderDesc desc;
    desc.name = std::move(name);
    desc.lightingSource = std::move(source);
    return create(std::move(desc));
}

std::shared_ptr<const SurfaceShader> SurfaceShader::lightingFromFile(const std::string& path) {
    return lightingFromSource(path, readText(path, "SurfaceShader::lightingFromFile"));
}

std::shared_ptr<const SurfaceShader> SurfaceShader::fragmentFromSource(std::string name, std::string source) {
    if (source.empty()) {
        throw InvalidArgument("SurfaceShader::fragmentFromSource: '" + name + "' has no source text");
    }
    SurfaceShaderDesc desc;
    desc.name = std::move(name);
    desc.fragmentSource = std::move(source);
    return create(std::move(desc));
}

std::shared_ptr<const SurfaceShader> SurfaceShader::fragmentFromFile(const std::string& path) {
    return fragmentFromSource(path, readText(path, "SurfaceShader::fragmentFromFile"));
}

std::shared_ptr<const SurfaceShader> SurfaceShader::create(SurfaceShaderDesc desc) {
    if (desc.surfaceSource.empty() && desc.vertexSource.empty() && desc.lightingSource.empty() &&
        desc.fragmentSource.empty()) {
        throw InvalidArgument("SurfaceShader::create: '" + desc.name +
                              "' has no surface, vertex, lighting or fragment function (every source is empty)");
    }
    if (!desc.lightingSource.empty() && !desc.fragmentSource.empty()) {
        throw InvalidArgument("SurfaceShader::create: '" + desc.name +
                              "' has both a lighting and a fragment function; the fragment function replaces lighting "
                              "whole (call myriad_shadeLight() from it for myriad's BRDF)");
    }
    return std::shared_ptr<const SurfaceShader>(new SurfaceShader(std::move(desc)));
}

} // namespace myriad
