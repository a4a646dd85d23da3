#include "renderer/ProgramBinaryCache.h"

#include "gl/GlCommon.h"

#include "myriad/util/Error.h"
#include "myriad/util/Log.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <system_error>
#include <vector>

#include <unistd.h>  // getpid: a temporary file name no other process writes

namespace myriad::gl::detail {
namespace {

constexpr std::uint64_t kFnvPrime = 0x100000001b3ull;

} // namespace

std::uint64_t fnv1a(std::span<const std::byte> bytes, std::uint64_t seed) noexcept {
    std::uint64_t hash = seed;
    for (std::byte b : bytes) {
        hash = (hash ^ static_cast<std::uint64_t>(b)) * kFnvPrime;
    }
    return hash;
}

std::uint64_t fnv1a(std::string_view text, std::uint64_t seed) noexcept {
    return fnv1a(std::as_bytes(std::span(text.data(), text.size())), seed);
}

ProgramBinaryCache::ProgramBinaryCache(const std::filesystem::path& folder) : m_folder(folder) {
    if (folder.empty()) {
        return;
    }
    std::error_code error;
    if (std::filesystem::exists(folder, error) && !std::filesystem::is_directory(folder, error)) {
        throw InvalidArgument("gl::Renderer: programCacheFolder '" + folder.string() + "' is not a folder");
    }
    std::filesystem::create_directories(folder, error);
    if (error) {
        throw InvalidArgument("gl::Renderer: programCacheFolder '" + folder.string() +
                              "' could not be created: " + error.message());
    }
    m_driver = glString(GL_VENDOR) + "\n" + glString(GL_RENDERER) + "\n" + glString(GL_VERSION);
    m_driverHash = fnv1a(m_driver);
    GLint formats = 0;
    glGetIntegerv(GL_NUM_PROGRAM_BINARY_FORMATS, &formats);
    m_enabled = formats > 0;
    if (m_enabled) {
        // The formats glProgramBinary accepts: a file of another one is a miss, not the
        // GL_INVALID_ENUM the host would see in its error queue or debug output.
        m_formats.resize(static_cast<std::size_t>(formats));
        glGetIntegerv(GL_PROGRAM_BINARY_FORMATS, m_formats.data());
    } else {
        log(LogLevel::Info, "gl::Renderer: the driver offers no program binary format "
                            "(GL_NUM_PROGRAM_BINARY_FORMATS is 0); programCacheFolder is ignored");
    }
}

std::uint64_t ProgramBinaryCache::keyOf(std::span<const std::string> stageTexts) const noexcept {
    std::uint64_t hash = m_driverHash;  // fnv1a(m_driver): the driver part of every key
    for (const std::string& text : stageTexts) {
        // The length first, so stage boundaries are part of the key.
        // Written into a buffer, not a std::string: noexcept, and no allocation per stage.
        char length[32];
        const int written = std::snprintf(length, sizeof length, "\n%zu\n", text.size());
        hash = fnv1a(text, fnv1a(std::string_view(length, static_cast<std::size_t>(written)), hash));
    }
    return hash;
}

std::filesystem::path ProgramBinaryCache::pathOf(std::uint64_t key) const {
    char name[32];
    std::snprintf(name, sizeof name, "myriad-%016llx.bin", static_cast<unsigned long long>(key));
    return m_folder / name;
}

std::uint32_t ProgramBinaryCache::load(std::uint64_t key) {
    if (!m_enabled) {
        return 0;
    }
    std::ifstream file(pathOf(key), std::ios::binary);
    if (!file) {
        return 0;
    }
    const std::vector<char> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    ProgramCacheHeader header;
    if (bytes.size() < sizeof header) {
        return 0;  // truncated inside the header
    }
    std::memcpy(&header, bytes.data(), sizeof header);
    const std::size_t length = bytes.size() - sizeof header;
    const auto binary = std::as_bytes(std::span(bytes.data() + sizeof header, length));
    if (std::memcmp(header.magic, ProgramCacheHeader::kMagic, sizeof header.magic) != 0 ||
        header.version != ProgramCacheHeader::kVersion || header.key != key ||
        header.driverHash != m_driverHash || header.binaryLength != length || length == 0 ||
        length > static_cast<std::size_t>(std::numeric_limits<GLsizei>::max()) ||
        header.checksum != fnv1a(binary) ||
        std::find(m_formats.begin(), m_formats.end(), static_cast<GLint>(header.binaryFormat)) == m_formats.end()) {
        return 0;  // foreign, stale, truncated, corrupt or of a format this driver lacks: compile it
    }
    const GLuint program = glCreateProgram();
    glProgramBinary(program, static_cast<GLenum>(header.binaryFormat), binary.data(), static_cast<GLsizei>(length));
    GLint ok = GL_FALSE;
    glGetProgramiv(program, GL_LINK_STATUS, &ok);
    if (ok != GL_TRUE) {
        // The driver's own check (another build of it, another GPU): not an error, a miss.
        glDeleteProgram(program);
        log(LogLevel::Info, "gl::Renderer: the driver refused cached program " + pathOf(key).filename().string() +
                                "; compiling it from source");
        return 0;
    }
    return program;
}

void ProgramBinaryCache::store(std::uint64_t key, std::uint32_t program) {
    if (!m_enabled) {
        return;
    }
    GLint length = 0;
    glGetProgramiv(program, GL_PROGRAM_BINARY_LENGTH, &length);
    if (length <= 0) {
        return;
    }
    std::vector<char> bytes(sizeof(ProgramCacheHeader) + static_cast<std::size_t>(length));
    GLsizei written = 0;
    GLenum format = 0;
    glGetProgramBinary(program, length, &written, &format, bytes.data() + sizeof(ProgramCacheHeader));
    if (written <= 0) {
        return;
    }
    bytes.resize(sizeof(ProgramCacheHeader) + static_cast<std::size_t>(written));
    ProgramCacheHeader header;
    std::memcpy(header.magic, ProgramCacheHeader::kMagic, sizeof header.magic);
    header.version = ProgramCacheHeader::kVersion;
    header.binaryFormat = format;
    header.key = key;
    header.driverHash = m_driverHash;
    header.binaryLength = static_cast<std::uint64_t>(written);
    header.checksum = fnv1a(std::as_bytes(std::span(bytes.data() + sizeof header, static_cast<std::size_t>(written))));
    std::memcpy(bytes.data(), &header, sizeof header);

    const std::filesystem::path target = pathOf(key);
    std::filesystem::path temporary = target;
    temporary += ".tmp" + std::to_string(static_cast<long>(::getpid()));
    bool ok = false;
    {
        std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
        file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        ok = static_cast<bool>(file);
    }
    std::error_code error;
    if (ok) {
        std::filesystem::rename(temporary, target, error);
        ok = !error;
    }
    if (!ok) {
        std::filesystem::remove(temporary, error);
        if (!m_warnedWrite) {
            m_warnedWrite = true;
            log(LogLevel::Warning, "gl::Renderer: could not write the program cache file " + target.string() +
                                       " (later failures are not reported)");
        }
    }
}

} // namespace myriad::gl::detail
