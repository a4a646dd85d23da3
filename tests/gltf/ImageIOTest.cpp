// Image files: missing, corrupt and oversized inputs are refused with the path in the message.
#include "myriad/image/ImageIO.h"
#include "myriad/util/Error.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <vector>

using namespace myriad;

TEST_CASE("a texture file that is missing or corrupt throws ImportError naming it", "[image][errors]") {
    const std::string missing = (std::filesystem::temp_directory_path() / "myriad-no-such.png").string();
    try {
        (void)image::readImageFile(missing);
        FAIL("a missing file was read");
    } catch (const ImportError& e) {
        CHECK_THAT(e.what(), Catch::Contains(missing));
    }
    const std::string corrupt = (std::filesystem::temp_directory_path() / "myriad-corrupt.png").string();
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
    const std::string path = (std::filesystem::temp_directory_path() / "myriad-roundtrip.png").string();
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
    const std::string path = (std::filesystem::temp_directory_path() / "myriad-roundtrip.jpg").string();
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
