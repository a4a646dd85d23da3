#include "myriad/image/ImageIO.h"

#include "myriad/util/Error.h"

#include <stb_image.h>
#include <stb_image_write.h>

#include <climits>
#include <fstream>
#include <iterator>
#include <vector>

namespace myriad::image {

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

} // namespace myriad::image
