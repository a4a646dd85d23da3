// Image files: missing, corrupt and oversized inputs are refused with the path in the message.
#include "myriad/image/ImageIO.h"
#include "myriad/util/Error.h"

#include <catch2/catch.hpp>

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <unistd.h>  // getpid

namespace {

/** A file name in the temporary folder of this process alone: ctest runs test cases as
 *  processes in parallel, and two writing and removing one shared file raced (a case read
 *  another's half-written JPEG). */
std::string tempPath(const std::string& name) {
    return (std::filesystem::temp_directory_path() / ("myriad-" + std::to_string(getpid()) + "-" + name)).string();
}

} // namespace

using namespace myriad;

TEST_CASE("a texture file that is missing or corrupt throws ImportError naming it", "[image][errors]") {
    const std::string missing = tempPath("no-such.png");
    try {
        (void)image::readImageFile(missing);
        FAIL("a missing file was read");
    } catch (const ImportError& e) {
        CHECK_THAT(e.what(), Catch::Contains(missing));
    }
    const std::string corrupt = tempPath("corrupt.png");
    {
        std::ofstream file(corrupt, std::ios::binary);
        file << "\x89PNG\r\n\x1a\n but then nothing a decoder wants";
    }
    CHECK_THROWS_AS(image::readImageFile(corrupt), ImportError);
    std::filesystem::remove(corrupt);
    CHECK_THROWS_AS(image::decodeImage({}, "empty"), ImportError);
}

TEST_CASE("images decode to RGBA8 and round-trip through PNG", "[image]") {
    Image image;
    image.width = 3;
    image.height = 2;
    image.pixels = {255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255,
                    10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120};
    const std::string path = tempPath("roundtrip.png");
    image::writePng(image, path);
    const Image back = image::readImageFile(path);
    CHECK(back.width == 3);
    CHECK(back.height == 2);
    CHECK(back.pixels == image.pixels);
    CHECK(back.at(2, 0) == 0x0000FFFFu);
    CHECK_THROWS_AS(back.at(3, 0), OutOfRange);
    std::filesystem::remove(path);
    CHECK_THROWS_AS(image::writePng(Image{}, path), InvalidArgument);
    CHECK_THROWS_AS(image::writePng(image, "/nonexistent-folder/x.png"), Error);
}

TEST_CASE("writeJpeg writes a JPEG that decodes back to about the same colours", "[image]") {
    Image image;
    image.width = 16;
    image.height = 16;
    image.pixels.resize(16 * 16 * 4);
    for (std::size_t p = 0; p < 16 * 16; ++p) {  // left half red, right half blue, flat
        const bool left = p % 16 < 8;
        image.pixels[p * 4 + 0] = left ? 255 : 0;
        image.pixels[p * 4 + 1] = 0;
        image.pixels[p * 4 + 2] = left ? 0 : 255;
        image.pixels[p * 4 + 3] = 255;
    }
    const std::string path = tempPath("roundtrip.jpg");
    image::writeJpeg(image, path, 95);
    std::vector<char> head(3);
    std::ifstream(path, std::ios::binary).read(head.data(), 3);
    CHECK(static_cast<unsigned char>(head[0]) == 0xFF);  // JPEG SOI marker, then a marker
    CHECK(static_cast<unsigned char>(head[1]) == 0xD8);
    CHECK(static_cast<unsigned char>(head[2]) == 0xFF);
    const Image back = image::readImageFile(path);
    REQUIRE(back.width == 16);
    REQUIRE(back.height == 16);
    const auto channel = [&](std::uint32_t x, std::uint32_t y, int c) {
        return static_cast<int>(back.pixels[(std::size_t{y} * 16 + x) * 4 + static_cast<std::size_t>(c)]);
    };
    CHECK(channel(2, 8, 0) > 230);  // lossy: near, not equal
    CHECK(channel(2, 8, 2) < 25);
    CHECK(channel(13, 8, 0) < 25);
    CHECK(channel(13, 8, 2) > 230);
    std::filesystem::remove(path);
    CHECK_THROWS_AS(image::writeJpeg(Image{}, path), InvalidArgument);
    CHECK_THROWS_AS(image::writeJpeg(image, path, 0), InvalidArgument);
    CHECK_THROWS_AS(image::writeJpeg(image, "/nonexistent-folder/x.jpg"), Error);
}

namespace {

/** A 32 x 16 JPEG of our own (left half red, right half blue), as writeJpeg writes it. */
std::vector<char> redBlueJpeg() {
    Image image;
    image.width = 32;
    image.height = 16;
    image.pixels.resize(32 * 16 * 4);
    for (std::size_t p = 0; p < 32 * 16; ++p) {
        const bool left = p % 32 < 16;
        image.pixels[p * 4 + 0] = left ? 255 : 0;
        image.pixels[p * 4 + 2] = left ? 0 : 255;
        image.pixels[p * 4 + 3] = 255;
    }
    const std::string path = tempPath("red-blue.jpg");
    image::writeJpeg(image, path, 95);
    std::ifstream file(path, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    std::filesystem::remove(path);
    return bytes;
}

} // namespace

TEST_CASE("readImageSize reads width and height from a JPEG or PNG header", "[image]") {
    const std::vector<char> jpeg = redBlueJpeg();
    const std::optional<image::ImageSize> jpegSize = image::readImageSize(std::as_bytes(std::span(jpeg)));
    REQUIRE(jpegSize.has_value());
    CHECK(jpegSize->width == 32);
    CHECK(jpegSize->height == 16);

    Image png;
    png.width = 5;
    png.height = 3;
    png.pixels.assign(5 * 3 * 4, 128);
    const std::string path = tempPath("size.png");
    image::writePng(png, path);
    std::ifstream file(path, std::ios::binary);
    const std::vector<char> pngBytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    std::filesystem::remove(path);
    const std::optional<image::ImageSize> pngSize = image::readImageSize(std::as_bytes(std::span(pngBytes)));
    REQUIRE(pngSize.has_value());
    CHECK(pngSize->width == 5);
    CHECK(pngSize->height == 3);

    const std::vector<char> junk{'n', 'o', 't', ' ', 'a', 'n', ' ', 'i', 'm', 'a', 'g', 'e'};
    CHECK_FALSE(image::readImageSize(std::as_bytes(std::span(junk))).has_value());
    CHECK_FALSE(image::readImageSize({}).has_value());
    const std::vector<char> jpegHead(jpeg.begin(), jpeg.begin() + 40);  // cut inside the tables
    CHECK_FALSE(image::readImageSize(std::as_bytes(std::span(jpegHead))).has_value());
}

// stb_image takes any byte string whose first marker is SOI for a JPEG, fill bytes (0xFF)
// before it included; its v2.27 decoder must see none of them (docs/reliability.md, finding 2).
// libjpeg-turbo wants SOI at byte 0, so this one is refused with its message, where stb would
// have decoded it.
TEST_CASE("what stb_image would take for a JPEG goes to libjpeg-turbo, never to stb", "[image][errors]") {
    std::vector<char> filled = redBlueJpeg();
    filled.insert(filled.begin(), {'\xFF', '\xFF'});
    CHECK_THROWS_WITH((void)image::decodeImage(std::as_bytes(std::span(filled)), "filled.jpg"),
                      Catch::Contains("filled.jpg: not a decodable JPEG (JPEG header: Not a JPEG file"));
    CHECK_FALSE(image::readImageSize(std::as_bytes(std::span(filled))).has_value());
}

TEST_CASE("a JPEG that ends early decodes with what it has, at its full size", "[image]") {
    const std::vector<char> whole = redBlueJpeg();
    const Image full = image::decodeImage(std::as_bytes(std::span(whole)), "whole.jpg");
    REQUIRE(full.width == 32);
    CHECK(full.pixels[0] > 230);        // top-left red
    CHECK(full.pixels[2] < 25);
    CHECK(full.pixels[3] == 255);       // no alpha in a JPEG: opaque
    // Keep the headers and a little of the scan: libjpeg-turbo warns "Premature end of JPEG
    // file" and fills the rest, as a browser shows a half-loaded photo.
    std::size_t scan = 0;
    for (std::size_t i = 0; i + 1 < whole.size(); ++i) {
        if (static_cast<unsigned char>(whole[i]) == 0xFF && static_cast<unsigned char>(whole[i + 1]) == 0xDA) {
            scan = i;
            break;
        }
    }
    REQUIRE(scan > 0);
    const std::vector<char> cut(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(scan + 40));
    const Image part = image::decodeImage(std::as_bytes(std::span(cut)), "cut.jpg");
    CHECK(part.width == 32);
    CHECK(part.height == 16);
    CHECK(part.pixels.size() == std::size_t{32} * 16 * 4);
    CHECK(part.pixels[0] > 230);        // the first block arrived
}
