// libFuzzer target: myriad::gltf::importModel and importScene on arbitrary bytes.
//
// The importer reads files (tinygltf resolves external buffers and images relative to the
// file), so each input is written to a scratch file first: "input.glb" when it starts with the
// GLB magic "glTF", else "input.gltf". That sends every input down the path a real file with
// those bytes would take (the importer itself picks the binary loader by magic or extension).
//
// Expected outcomes: a model, or myriad::ImportError (the documented failure). Any other
// myriad::Error is tolerated but reported once, since docs/errors.md promises ImportError only.
// Everything else is a bug libFuzzer records as a crash: an ASan or UBSan report, an abort, a
// std::bad_alloc or another exception escaping, an out-of-memory or a timeout.
#include "myriad/gltf/GltfImporter.h"
#include "myriad/util/Error.h"
#include "myriad/util/Log.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include <unistd.h>

namespace {

namespace fs = std::filesystem;

/** A folder of this process's own (libFuzzer -fork and -jobs run several processes at once),
 *  removed when the process exits normally. */
class Scratch {
public:
    Scratch()
        : m_dir(fs::temp_directory_path() /
                ("myriad-gltf-fuzz-" + std::to_string(static_cast<long>(::getpid())))) {
        fs::create_directories(m_dir);
    }
    ~Scratch() {
        std::error_code ec;
        fs::remove_all(m_dir, ec);
    }
    Scratch(const Scratch&) = delete;
    Scratch& operator=(const Scratch&) = delete;

    [[nodiscard]] const fs::path& dir() const noexcept { return m_dir; }

private:
    fs::path m_dir;
};

const Scratch& scratch() {
    static const Scratch instance;
    return instance;
}

bool reportedOtherError = false;

} // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
    // Warnings (skipped primitives, unknown alpha modes) are expected for fuzzed files; printing
    // them would slow every run down and bury libFuzzer's own output.
    myriad::setLogCallback([](myriad::LogLevel, std::string_view) {});
    (void)scratch();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const bool glb = size >= 4 && std::memcmp(data, "glTF", 4) == 0;
    const fs::path path = scratch().dir() / (glb ? "input.glb" : "input.gltf");
    {
        std::ofstream file(path, std::ios::binary | std::ios::trunc);
        file.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
        if (!file) {
            std::fprintf(stderr, "GltfFuzzer: cannot write %s\n", path.c_str());
            std::abort();  // not the importer's fault, but the run would test nothing
        }
    }
    // Both entry points: importScene() has its own paths (node tree, instancing extension).
    for (const bool scene : {false, true}) {
        try {
            if (scene) {
                (void)myriad::gltf::importScene(path.string());
            } else {
                (void)myriad::gltf::importModel(path.string());
            }
        } catch (const myriad::ImportError&) {
            // the documented outcome for a broken file
        } catch (const myriad::Error& e) {
            if (!reportedOtherError) {
                reportedOtherError = true;
                std::fprintf(stderr, "GltfFuzzer: note: %s threw a myriad::Error that is not an "
                                     "ImportError: %s\n", scene ? "importScene" : "importModel",
                             e.what());
            }
        }
    }
    return 0;
}
