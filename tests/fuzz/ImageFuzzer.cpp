// libFuzzer target: myriad::image::decodeImage on arbitrary bytes (JPEG through libjpeg-turbo;
// PNG, BMP, TGA, GIF, PSD, HDR, PIC, PNM: whatever else stb_image recognises).
//
// Expected outcomes: an image of at most kMaxImageSide on a side, or myriad::ImportError.
// Anything else is a bug libFuzzer records as a crash (see GltfFuzzer.cpp).
#include "myriad/image/ImageIO.h"
#include "myriad/util/Error.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        const myriad::Image image = myriad::image::decodeImage(
            std::as_bytes(std::span(data, size)), "fuzz input");
        // The promise callers rely on to size textures: a decoded image is never empty, never
        // above the limit, and has exactly width * height * 4 bytes.
        if (image.width == 0 || image.height == 0 ||
            image.width > myriad::image::kMaxImageSide ||
            image.height > myriad::image::kMaxImageSide ||
            image.pixels.size() != std::size_t{image.width} * image.height * 4) {
            std::fprintf(stderr, "ImageFuzzer: decodeImage returned a %ux%u image with %zu bytes\n",
                         image.width, image.height, image.pixels.size());
            std::abort();
        }
    } catch (const myriad::ImportError&) {
        // the documented outcome for corrupt or oversized data
    }
    return 0;
}
