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
