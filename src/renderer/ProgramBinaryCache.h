#pragma once
// Internal to myriad_gl: the opt-in program binary cache on disk (RendererDesc::
// programCacheFolder, docs/shaders.md). One file per program, named by a key that hashes the
// driver (GL_VENDOR, GL_RENDERER, GL_VERSION) and the full text of every stage, so a driver
// update or a changed shader never reads an old binary. Any file that is not exactly what this
// driver wrote for this key (stale, truncated, foreign, corrupt, or refused by glProgramBinary)
// is a miss: the caller compiles from source and the file is written again. No GL header here
// (GL names as std::uint32_t): ShaderLibrary.h is included by tools without glad.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>
#include <string_view>

namespace myriad::gl::detail {

/** 64-bit FNV-1a of @p bytes, continuing from @p seed (the offset basis by default). */
[[nodiscard]] std::uint64_t fnv1a(std::span<const std::byte> bytes,
                                  std::uint64_t seed = 0xcbf29ce484222325ull) noexcept;
/** The same over the characters of @p text. */
[[nodiscard]] std::uint64_t fnv1a(std::string_view text, std::uint64_t seed = 0xcbf29ce484222325ull) noexcept;

/** The header at the start of a cache file, then binaryLength bytes of glGetProgramBinary
 *  output. Little-endian as the machine writes it: a file from another architecture fails the
 *  magic or the key and is a miss. */
struct ProgramCacheHeader {
    static constexpr char kMagic[8] = {'M', 'Y', 'R', 'P', 'B', 'I', 'N', '\0'};
    static constexpr std::uint32_t kVersion = 1;  ///< bumped whenever this layout changes

    char magic[8] = {};
    std::uint32_t version = 0;
    std::uint32_t binaryFormat = 0;  ///< the GLenum glGetProgramBinary gave
    std::uint64_t key = 0;           ///< ProgramBinaryCache::keyOf() of driver and sources
    std::uint64_t driverHash = 0;    ///< fnv1a of "vendor\nrenderer\nversion"
    std::uint64_t binaryLength = 0;  ///< bytes after the header
    std::uint64_t checksum = 0;      ///< fnv1a of those bytes
};
static_assert(sizeof(ProgramCacheHeader) == 48);

class ProgramBinaryCache {
public:
    /** Off: every call is a miss and nothing is written. */
    ProgramBinaryCache() = default;
    /** Keeps binaries in @p folder (created if missing). Reads GL_VENDOR, GL_RENDERER,
     *  GL_VERSION and GL_NUM_PROGRAM_BINARY_FORMATS once; with no binary format the cache stays
     *  off (logged once). An empty @p folder: off.
     *  @throws InvalidArgument if @p folder exists and is not a folder, or cannot be created. */
    explicit ProgramBinaryCache(const std::filesystem::path& folder);

    /** True when binaries are read and written. */
    [[nodiscard]] bool enabled() const noexcept { return m_enabled; }
    /** The key of a program whose stages GL compiles as @p stageTexts (assembled, in order). */
    [[nodiscard]] std::uint64_t keyOf(std::span<const std::string> stageTexts) const noexcept;
    /** The file for @p key: folder / "myriad-<16 hex digits>.bin". */
    [[nodiscard]] std::filesystem::path pathOf(std::uint64_t key) const;
    /** A linked program made by glProgramBinary from @p key's file, or 0 on a miss (no file, or
     *  one that is not this driver's binary for this key, or one the driver refused: its
     *  GL_LINK_STATUS was false). Never throws for a bad file. */
    [[nodiscard]] std::uint32_t load(std::uint64_t key);
    /** Writes @p program's binary (glGetProgramBinary; linked with
     *  GL_PROGRAM_BINARY_RETRIEVABLE_HINT) as @p key's file, through a temporary file and a
     *  rename so a reader never sees half a file. A failure to write is logged, never thrown. */
    void store(std::uint64_t key, std::uint32_t program);

private:
    std::filesystem::path m_folder;
    std::string m_driver;
    std::uint64_t m_driverHash = 0;
    std::vector<std::int32_t> m_formats;  ///< GL_PROGRAM_BINARY_FORMATS, read once (GLint is int32)
    bool m_enabled = false;
    bool m_warnedWrite = false;
};

} // namespace myriad::gl::detail
