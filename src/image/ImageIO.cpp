#include "myriad/image/ImageIO.h"

#include "myriad/util/Error.h"

#include <stb_image.h>
#include <stb_image_write.h>
#include <turbojpeg.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
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

/** Whether stb_image would take @p data for a JPEG: its first marker is SOI (0xFF, any run of
 *  0xFF fill bytes, then 0xD8), the test stbi__jpeg_test makes before every other format's.
 *
 *  Such data never reaches stb_image: its JPEG decoder (v2.27, Debian 12's libstb) turns a
 *  hostile Huffman table into an index past the end of its tables (stbi__jpeg_huff_decode;
 *  upstream checks the symbol id from v2.28 on). tests/fuzz/ImageFuzzer.cpp found it in CI; see
 *  docs/reliability.md. libjpeg-turbo decodes JPEG instead: it is what browsers and most engines
 *  ship, and OSS-Fuzz runs it continuously. Mirroring stb's own test exactly means that no byte
 *  string stb would decode as a JPEG is left to it. */
bool takenForJpeg(std::span<const std::byte> data) {
    std::size_t at = 0;
    if (data.empty() || data[0] != std::byte{0xFF}) {
        return false;
    }
    while (at < data.size() && data[at] == std::byte{0xFF}) {
        ++at;
    }
    return at < data.size() && data[at] == std::byte{0xD8};
}

/** A TurboJPEG decompressor, destroyed on every way out. */
struct JpegDecompressor {
    JpegDecompressor() : handle(tjInitDecompress()) {}
    ~JpegDecompressor() {
        if (handle != nullptr) {
            tjDestroy(handle);
        }
    }
    JpegDecompressor(const JpegDecompressor&) = delete;
    JpegDecompressor& operator=(const JpegDecompressor&) = delete;
    /** The library's message for the last failure on this handle. */
    [[nodiscard]] std::string error() const { return tjGetErrorStr2(handle); }
    tjhandle handle;
};

/** Width and height from a JPEG's frame header, or the reason it has none. */
struct JpegHeader {
    std::uint32_t width = 0;
    std::uint32_t height = 0;
    std::string error;  // empty when the header was read
};

JpegHeader readJpegHeader(const JpegDecompressor& jpeg, std::span<const std::byte> data) {
    JpegHeader header;
    if (jpeg.handle == nullptr) {
        header.error = "libjpeg-turbo could not make a decompressor";
        return header;
    }
    int width = 0;
    int height = 0;
    int subsampling = 0;
    int colorspace = 0;
    if (tjDecompressHeader3(jpeg.handle, reinterpret_cast<const unsigned char*>(data.data()),
                            static_cast<unsigned long>(data.size()), &width, &height, &subsampling,
                            &colorspace) != 0) {
        header.error = "JPEG header: " + jpeg.error();
        return header;
    }
    if (width <= 0 || height <= 0) {
        header.error = "JPEG header gives a size of " + std::to_string(width) + "x" +
                       std::to_string(height);
        return header;
    }
    header.width = static_cast<std::uint32_t>(width);
    header.height = static_cast<std::uint32_t>(height);
    return header;
}

void checkSide(std::uint64_t width, std::uint64_t height, const std::string& name) {
    if (width == 0 || height == 0) {
        throw ImportError(name + ": image is " + std::to_string(width) + "x" +
                          std::to_string(height) + ", which holds no pixels");
    }
    if (width > kMaxImageSide || height > kMaxImageSide) {
        throw ImportError(name + ": image is " + std::to_string(width) + "x" +
                          std::to_string(height) + ", above the limit of " +
                          std::to_string(kMaxImageSide) + " on a side");
    }
}

/** Decodes a JPEG to RGBA8 (alpha 255) with libjpeg-turbo.
 *
 *  TJFLAG_LIMITSCANS refuses a progressive JPEG of more than 500 scans, the known way to make a
 *  small file take minutes (libjpeg-turbo's own fuzzing advice). A warning (data that ends
 *  early, extra bytes before a marker) still yields the decoded image, as browsers show such
 *  files; an error is an ImportError. */
Image decodeJpeg(std::span<const std::byte> encoded, const std::string& name) {
    const JpegDecompressor jpeg;
    const JpegHeader header = readJpegHeader(jpeg, encoded);
    if (!header.error.empty()) {
        throw ImportError(name + ": not a decodable JPEG (" + header.error + ")");
    }
    checkSide(header.width, header.height, name);
    Image image;
    image.width = header.width;
    image.height = header.height;
    image.pixels.resize(std::size_t{image.width} * image.height * 4);
    if (tjDecompress2(jpeg.handle, reinterpret_cast<const unsigned char*>(encoded.data()),
                      static_cast<unsigned long>(encoded.size()), image.pixels.data(),
                      static_cast<int>(image.width), static_cast<int>(image.width * 4),
                      static_cast<int>(image.height), TJPF_RGBA, TJFLAG_LIMITSCANS) != 0 &&
        tjGetErrorCode(jpeg.handle) != TJERR_WARNING) {
        throw ImportError(name + ": JPEG is corrupt (" + jpeg.error() + ")");
    }
    return image;
}

} // namespace

std::optional<ImageSize> readImageSize(std::span<const std::byte> encoded) {
    if (encoded.empty() || encoded.size() > static_cast<std::size_t>(INT_MAX)) {
        return std::nullopt;
    }
    if (takenForJpeg(encoded)) {
        const JpegDecompressor jpeg;
        const JpegHeader header = readJpegHeader(jpeg, encoded);
        if (!header.error.empty()) {
            return std::nullopt;
        }
        return ImageSize{header.width, header.height};
    }
    int width = 0;
    int height = 0;
    int channels = 0;
    if (stbi_info_from_memory(reinterpret_cast<const stbi_uc*>(encoded.data()),
                              static_cast<int>(encoded.size()), &width, &height, &channels) == 0 ||
        width <= 0 || height <= 0) {
        return std::nullopt;
    }
    return ImageSize{static_cast<std::uint32_t>(width), static_cast<std::uint32_t>(height)};
}

Image decodeImage(std::span<const std::byte> encoded, const std::string& name) {
    if (encoded.empty()) {
        throw ImportError(name + ": image data is empty");
    }
    if (encoded.size() > static_cast<std::size_t>(INT_MAX)) {
        throw ImportError(name + ": image data is larger than 2 GiB");
    }
    if (takenForJpeg(encoded)) {
        return decodeJpeg(encoded, name);
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
    checkSide(static_cast<std::uint64_t>(std::max(width, 0)),
              static_cast<std::uint64_t>(std::max(height, 0)), name);
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

namespace myriad::image {

Environment decodeEnvironment(std::span<const std::byte> encoded, const std::string& name) {
    if (encoded.empty()) {
        throw ImportError(name + ": image data is empty");
    }
    if (encoded.size() > static_cast<std::size_t>(INT_MAX)) {
        throw ImportError(name + ": image data is larger than 2 GiB");
    }
    const auto* bytes = reinterpret_cast<const stbi_uc*>(encoded.data());
    const int length = static_cast<int>(encoded.size());
    if (stbi_is_hdr_from_memory(bytes, length) == 0) {
        throw ImportError(name + ": not a Radiance .hdr image (image-based ambient needs linear radiance)");
    }
    int width = 0;
    int height = 0;
    int channels = 0;
    // The header first: an absurd size is refused before anything is allocated.
    if (stbi_info_from_memory(bytes, length, &width, &height, &channels) == 0) {
        throw ImportError(name + ": not a decodable image (" + stbi_failure_reason() + ")");
    }
    checkSide(static_cast<std::uint64_t>(std::max(width, 0)), static_cast<std::uint64_t>(std::max(height, 0)), name);
    float* pixels = stbi_loadf_from_memory(bytes, length, &width, &height, &channels, 3);
    if (pixels == nullptr) {
        throw ImportError(name + ": image is corrupt (" + stbi_failure_reason() + ")");
    }
    std::vector<float> rgb;
    try {
        rgb.assign(pixels, pixels + std::size_t(width) * std::size_t(height) * 3);
    } catch (...) {
        stbi_image_free(pixels);
        throw;
    }
    stbi_image_free(pixels);
    try {
        return Environment(static_cast<std::uint32_t>(width), static_cast<std::uint32_t>(height), std::move(rgb));
    } catch (const InvalidArgument& e) {
        throw InvalidArgument(name + ": " + e.what());
    }
}

Environment readEnvironmentFile(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    if (!file) {
        throw ImportError(path + ": cannot open the image file");
    }
    std::vector<char> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    return decodeEnvironment(std::as_bytes(std::span(bytes)), path);
}

void writeHdr(std::uint32_t width, std::uint32_t height, std::span<const float> rgb, const std::string& path) {
    if (width == 0 || height == 0 || rgb.size() != std::size_t{width} * height * 3) {
        throw InvalidArgument("image::writeHdr: image is empty or rgb does not hold width * height * 3 floats");
    }
    if (stbi_write_hdr(path.c_str(), static_cast<int>(width), static_cast<int>(height), 3, rgb.data()) == 0) {
        throw Error("image::writeHdr: cannot write '" + path + "'");
    }
}

} // namespace myriad::image
