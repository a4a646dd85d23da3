#include "myriad/image/ImageIO.h"

#include "myriad/util/Error.h"

#include <stb_image.h>
#include <stb_image_write.h>

#include <climits>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <vector>

namespace myriad::image {
namespace {

/** Why a PNG's chunk list is broken, or nothing when it is sound (or the data is no PNG).
 *
 *  stb_image sizes its IDAT buffer from each chunk's declared length before it checks that the
 *  bytes are there (stbi__parse_png_file), so a 310-byte file declaring a huge IDAT made it
 *  allocate 2 GiB (found by tests/fuzz/ImageFuzzer.cpp; docs/reliability.md). Walking the chunk
 *  headers first refuses such a file before anything is allocated. The walk stops at IEND, as
 *  stb does: what follows IEND, and IEND's own length, are never read by the decoder. */
std::optional<std::string> pngChunkError(std::span<const std::byte> data) {
    static constexpr unsigned char kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    if (data.size() < sizeof kSignature || std::memcmp(data.data(), kSignature, 8) != 0) {
        return std::nullopt;
    }
    const auto* bytes = reinterpret_cast<const unsigned char*>(data.data());
    std::size_t at = sizeof kSignature;
    while (data.size() - at >= 8) {
        const std::uint32_t length = (std::uint32_t{bytes[at]} << 24) |
                                     (std::uint32_t{bytes[at + 1]} << 16) |
                                     (std::uint32_t{bytes[at + 2]} << 8) | bytes[at + 3];
        std::string type(reinterpret_cast<const char*>(bytes + at + 4), 4);
        if (type == "IEND") {
            return std::nullopt;
        }
        for (char& c : type) {  // hostile bytes stay out of the message
            c = c >= 0x20 && c < 0x7F ? c : '?';
        }
        const std::size_t left = data.size() - at - 8;  // after this chunk's header
        if (std::uint64_t{length} + 4 > left) {          // data, then the 4-byte CRC
            return "PNG chunk '" + type + "' at offset " + std::to_string(at) + " declares " +
                   std::to_string(length) + " bytes, only " + std::to_string(left) +
                   " follow (with its CRC)";
        }
        at += 8 + std::size_t{length} + 4;
    }
    return "PNG ends without an IEND chunk";
}

} // namespace

Image decodeImage(std::span<const std::byte> encoded, const std::string& name) {
    if (encoded.empty()) {
        throw ImportError(name + ": image data is empty");
    }
    if (encoded.size() > static_cast<std::size_t>(INT_MAX)) {
        throw ImportError(name + ": image data is larger than 2 GiB");
    }
    const auto* bytes = reinterpret_cast<const stbi_uc*>(encoded.data());
    const int length = static_cast<int>(encoded.size());
    int width = 0;
    int height = 0;
    int channels = 0;
    // Read the header first so an absurd size is refused before anything is allocated.
    if (stbi_info_from_memory(bytes, length, &width, &height, &channels) == 0) {
        throw ImportError(name + ": not a decodable image (" + stbi_failure_reason() + ")");
    }
    if (width <= 0 || height <= 0 || static_cast<std::uint32_t>(width) > kMaxImageSide ||
        static_cast<std::uint32_t>(height) > kMaxImageSide) {
        throw ImportError(name + ": image is " + std::to_string(width) + "x" +
                          std::to_string(height) + ", above the limit of " +
                          std::to_string(kMaxImageSide) + " on a side");
    }
    if (const std::optional<std::string> broken = pngChunkError(encoded)) {
        throw ImportError(name + ": image is corrupt (" + *broken + ")");
    }
    stbi_uc* pixels = stbi_load_from_memory(bytes, length, &width, &height, &channels, 4);
    if (pixels == nullptr) {
        throw ImportError(name + ": image is corrupt (" + stbi_failure_reason() + ")");
    }
    Image image;
    image.width = static_cast<std::uint32_t>(width);
    image.height = static_cast<std::uint32_t>(height);
    image.pixels.assign(pixels, pixels + std::size_t{image.width} * image.height * 4);
    stbi_image_free(pixels);
    return image;
}

Image readImageFile(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    if (!file) {
        throw ImportError(path + ": cannot open the image file");
    }
    std::vector<char> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    return decodeImage(std::as_bytes(std::span(bytes)), path);
}

void writePng(const Image& image, const std::string& path) {
    if (image.width == 0 || image.height == 0 ||
        image.pixels.size() < std::size_t{image.width} * image.height * 4) {
        throw InvalidArgument("image::writePng: image is empty or its pixel array is short");
    }
    if (stbi_write_png(path.c_str(), static_cast<int>(image.width), static_cast<int>(image.height), 4,
                       image.pixels.data(), static_cast<int>(image.width * 4)) == 0) {
        throw Error("image::writePng: cannot write '" + path + "'");
    }
}

void writeJpeg(const Image& image, const std::string& path, int quality) {
    if (image.width == 0 || image.height == 0 ||
        image.pixels.size() < std::size_t{image.width} * image.height * 4) {
        throw InvalidArgument("image::writeJpeg: image is empty or its pixel array is short");
    }
    if (quality < 1 || quality > 100) {
        throw InvalidArgument("image::writeJpeg: quality " + std::to_string(quality) +
                              " is outside 1..100");
    }
    // stb_image_write drops the alpha channel of a 4-component JPEG (JPEG has none).
    if (stbi_write_jpg(path.c_str(), static_cast<int>(image.width), static_cast<int>(image.height), 4,
                       image.pixels.data(), quality) == 0) {
        throw Error("image::writeJpeg: cannot write '" + path + "'");
    }
}

} // namespace myriad::image
