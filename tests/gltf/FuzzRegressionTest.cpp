// The fuzzers' findings, kept: every input under tests/fuzz/regressions/ must be refused with
// the documented ImportError, in an ordinary build with no sanitizer. image/ holds what the image
// fuzzer found (minimised with -minimize_crash=1); the glTF fuzzer has found nothing yet, so
// gltf/ starts with hand-made hostile files (an index past the vertex count, an accessor past
// its view, a GLB declaring more bytes than it has) that the fuzzer's findings will join.
// A folder that is missing or empty fails the test: a loop over nothing would always pass. The hand-made seeds under tests/fuzz/seeds/ must
// import, so that they keep leading the fuzzers deep into the importer and the decoders.
// docs/reliability.md tells how each regression was found and fixed.
#include "myriad/gltf/GltfImporter.h"
#include "myriad/image/ImageIO.h"
#include "myriad/util/Error.h"
#include "myriad/util/Log.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fs = std::filesystem;

namespace {

const fs::path kFuzzDir{MYRIAD_FUZZ_DIR};

/** The files directly in @p dir, sorted. Fails the calling test (REQUIRE) when the folder is
 *  missing or holds no file, so a moved folder or a wrong MYRIAD_FUZZ_DIR cannot pass quietly. */
std::vector<fs::path> filesIn(const fs::path& dir) {
    INFO("folder " << dir.string() << " (MYRIAD_FUZZ_DIR is " << MYRIAD_FUZZ_DIR << ")");
    REQUIRE(fs::is_directory(dir));
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(dir)) {
        if (entry.is_regular_file() && entry.path().filename().string().front() != '.') {
            files.push_back(entry.path());
        }
    }
    std::sort(files.begin(), files.end());
    REQUIRE_FALSE(files.empty());
    return files;
}

std::vector<char> readBytes(const fs::path& path) {
    std::ifstream file(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

/** Copies @p input to a scratch folder under the name the glTF fuzzer gives it ("input.glb"
 *  when it starts with the GLB magic, else "input.gltf"), so the importer sees exactly what it
 *  saw under the fuzzer: same bytes, same extension, no neighbouring files. */
std::string asFuzzerInput(const fs::path& input) {
    static const fs::path dir = [] {
        const fs::path path =
            fs::temp_directory_path() /
            ("myriad-fuzz-regression-" +
             std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
        fs::create_directories(path);
        return path;
    }();
    const std::vector<char> bytes = readBytes(input);
    const bool glb = bytes.size() >= 4 && std::string_view(bytes.data(), 4) == "glTF";
    const fs::path path = dir / (glb ? "input.glb" : "input.gltf");
    std::ofstream(path, std::ios::binary | std::ios::trunc)
        .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return path.string();
}

/** Silences importer warnings for the lifetime of the object (fuzzed files make many). */
struct QuietLog {
    QuietLog() { myriad::setLogCallback([](myriad::LogLevel, std::string_view) {}); }
    ~QuietLog() { myriad::setLogCallback({}); }
    QuietLog(const QuietLog&) = delete;
    QuietLog& operator=(const QuietLog&) = delete;
};

} // namespace

TEST_CASE("fuzz regressions: every glTF crash input is refused with ImportError",
          "[gltf][fuzz]") {
    const QuietLog quiet;
    const std::vector<fs::path> inputs = filesIn(kFuzzDir / "regressions" / "gltf");
    for (const fs::path& input : inputs) {
        INFO("regression input " << input.string());
        CHECK_THROWS_AS((void)myriad::gltf::importModel(asFuzzerInput(input)),
                        myriad::ImportError);
        CHECK_THROWS_AS((void)myriad::gltf::importScene(asFuzzerInput(input)),
                        myriad::ImportError);
    }
    SUCCEED(inputs.size() << " glTF regression input(s)");
}

TEST_CASE("fuzz regressions: every image crash input is refused with ImportError",
          "[gltf][fuzz]") {
    const std::vector<fs::path> inputs = filesIn(kFuzzDir / "regressions" / "image");
    for (const fs::path& input : inputs) {
        INFO("regression input " << input.string());
        const std::vector<char> bytes = readBytes(input);
        CHECK_THROWS_AS((void)myriad::image::decodeImage(std::as_bytes(std::span(bytes)),
                                                          input.filename().string()),
                        myriad::ImportError);
    }
    SUCCEED(inputs.size() << " image regression input(s)");
}

TEST_CASE("fuzz seeds: the hand-made glTF and image seeds are valid", "[gltf][fuzz]") {
    const std::vector<fs::path> models = filesIn(kFuzzDir / "seeds" / "gltf");
    CHECK(models.size() >= 4);
    for (const fs::path& seed : models) {
        INFO("seed " << seed.string());
        myriad::gltf::ImportedModel model;
        REQUIRE_NOTHROW(model = myriad::gltf::importModel(asFuzzerInput(seed)));
        CHECK_FALSE(model.primitives.empty());
        myriad::gltf::ImportedScene scene;
        REQUIRE_NOTHROW(scene = myriad::gltf::importScene(asFuzzerInput(seed)));
        CHECK(scene.root->childCount() > 0);
    }
    const std::vector<fs::path> images = filesIn(kFuzzDir / "seeds" / "image");
    CHECK(images.size() >= 4);
    for (const fs::path& seed : images) {
        INFO("seed " << seed.string());
        const std::vector<char> bytes = readBytes(seed);
        myriad::Image image;
        REQUIRE_NOTHROW(image = myriad::image::decodeImage(std::as_bytes(std::span(bytes)),
                                                            seed.filename().string()));
        CHECK(image.width > 0);
    }
}

// The image fuzzer's first finding (docs/reliability.md): a 310-byte PNG whose last IDAT chunk
// declares 1.4 GB made stb_image grow its IDAT buffer to 2 GiB before noticing the bytes were
// missing. The ImportError alone would not show the fix (stb fails too, after the
// allocation), so check that the chunk walk in decodeImage refuses it first.
TEST_CASE("fuzz regression: a PNG chunk longer than the data is refused before stb allocates",
          "[gltf][fuzz]") {
    const std::vector<char> bytes =
        readBytes(kFuzzDir / "regressions" / "image" / "png-idat-declared-length-2gib.png");
    REQUIRE(bytes.size() == 310);
    CHECK_THROWS_WITH(
        (void)myriad::image::decodeImage(std::as_bytes(std::span(bytes)), "hostile.png"),
        Catch::Matchers::Contains("hostile.png: image is corrupt (PNG chunk 'IDAT' at offset 301 "
                                  "declares 1413567543 bytes"));
}

TEST_CASE("fuzz regression: the PNG chunk walk stops at IEND, as stb_image does",
          "[gltf][fuzz]") {
    // Bytes after IEND are never read by the decoder, so they must not make a PNG "corrupt".
    std::vector<char> bytes = readBytes(kFuzzDir / "seeds" / "image" / "rgba-2x2.png");
    REQUIRE(bytes.size() > 12);
    bytes.insert(bytes.end(), {'\x7f', '\x7f', '\x7f', '\x7f', 'j', 'u', 'n', 'k'});
    const myriad::Image image =
        myriad::image::decodeImage(std::as_bytes(std::span(bytes)), "trailing.png");
    CHECK(image.width == 2);
    CHECK(image.height == 2);
}

// The image fuzzer's second finding (docs/reliability.md), in CI: a JPEG whose scan names a
// Huffman table no DHT segment defined made stb_image v2.27 decode with the uninitialised table,
// its symbol ids landing hundreds of entries past the 256-entry arrays (an out-of-bounds read; an
// assert in a build with asserts on). The hand-made 783-byte file here (a 16 x 16 JPEG whose one
// scan selects DC and AC table 3) reaches the same state every run, where the fuzzer's input
// crashed only when the heap held the right garbage. The message shows who read it: stb's own
// refusal ("bad huffman code") would be an ImportError too.
TEST_CASE("fuzz regression: a JPEG scan naming an undefined Huffman table is refused by libjpeg-turbo",
          "[gltf][fuzz]") {
    const std::vector<char> bytes = readBytes(kFuzzDir / "regressions" / "image" /
                                              "jpeg-scan-uses-undefined-huffman-table.jpg");
    REQUIRE(bytes.size() == 783);
    CHECK_THROWS_WITH(
        (void)myriad::image::decodeImage(std::as_bytes(std::span(bytes)), "hostile.jpg"),
        Catch::Matchers::Contains("hostile.jpg: JPEG is corrupt (Huffman table 0x03 was not defined)"));
}
