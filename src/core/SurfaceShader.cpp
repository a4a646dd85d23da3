#include "myriad/core/SurfaceShader.h"

#include "myriad/util/Error.h"

#include <atomic>
#include <fstream>
#include <sstream>

namespace myriad {
namespace {
std::atomic<std::uint64_t> g_nextId{1};
} // namespace

SurfaceShader::SurfaceShader(std::string name, std::string source)
    : m_name(std::move(name)), m_source(std::move(source)), m_id(g_nextId.fetch_add(1)) {}

std::shared_ptr<const SurfaceShader> SurfaceShader::fromSource(std::string name, std::string source) {
    if (source.empty()) {
        throw InvalidArgument("SurfaceShader::fromSource: '" + name + "' has no source text");
    }
    return std::shared_ptr<const SurfaceShader>(new SurfaceShader(std::move(name), std::move(source)));
}

std::shared_ptr<const SurfaceShader> SurfaceShader::fromFile(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    if (!file) {
        throw InvalidArgument("SurfaceShader::fromFile: cannot open '" + path + "'");
    }
    std::ostringstream text;
    text << file.rdbuf();
    return fromSource(path, text.str());
}

} // namespace myriad
