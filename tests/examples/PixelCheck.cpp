// Checks pixels of an image an example wrote, for ctest:
// `pixel_check FILE {same|differ X1 Y1 X2 Y2 | rgb X Y RRGGBB TOLERANCE}...`.
// `same` and `differ` compare two pixels (x right, y down from the top-left): `same` passes when
// their RGB bytes are within 2 of each other, `differ` when some channel is more than 24 apart.
// Comparing pixels with each other, not with fixed bytes, keeps the checks true whatever the
// colour encoding (linear or sRGB output). `rgb` compares one pixel with fixed bytes (hex), each
// channel within TOLERANCE: for pictures whose bytes do not depend on the encoding (the
// low-level layer's shaders write their colours as they are).
#include "myriad/image/ImageIO.h"
#include "myriad/util/Error.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

int main(int argc, char** argv) try {
    if (argc < 3 || (argc - 2) % 5 != 0) {
        std::fprintf(stderr, "usage: pixel_check FILE {same|differ X1 Y1 X2 Y2 | rgb X Y RRGGBB TOLERANCE}...\n");
        return 2;
    }
    const myriad::Image image = myriad::image::readImageFile(argv[1]);
    int failures = 0;
    for (int i = 2; i < argc; i += 5) {
        const std::string what = argv[i];
        if (what == "rgb") {
            const auto x = static_cast<std::uint32_t>(std::atoi(argv[i + 1]));
            const auto y = static_cast<std::uint32_t>(std::atoi(argv[i + 2]));
            const auto expected = static_cast<std::uint32_t>(std::strtoul(argv[i + 3], nullptr, 16));
            const int tolerance = std::atoi(argv[i + 4]);
            const std::uint32_t actual = image.at(x, y);
            int largest = 0;
            for (int channel = 0; channel < 3; ++channel) {
                const int got = static_cast<int>((actual >> (24 - 8 * channel)) & 0xFF);
                const int want = static_cast<int>((expected >> (16 - 8 * channel)) & 0xFF);
                largest = std::max(largest, std::abs(got - want));
            }
            const bool ok = largest <= tolerance;
            std::printf("rgb (%u,%u)=%08x expected %06x within %d: %s\n", x, y, actual, expected,
                        tolerance, ok ? "ok" : "FAILED");
            failures += ok ? 0 : 1;
            continue;
        }
        const auto x1 = static_cast<std::uint32_t>(std::atoi(argv[i + 1]));
        const auto y1 = static_cast<std::uint32_t>(std::atoi(argv[i + 2]));
        const auto x2 = static_cast<std::uint32_t>(std::atoi(argv[i + 3]));
        const auto y2 = static_cast<std::uint32_t>(std::atoi(argv[i + 4]));
        const std::uint32_t a = image.at(x1, y1);
        const std::uint32_t b = image.at(x2, y2);
        int largest = 0;
        for (int shift = 8; shift < 32; shift += 8) {
            largest = std::max(largest, std::abs(static_cast<int>((a >> shift) & 0xFF) - static_cast<int>((b >> shift) & 0xFF)));
        }
        const bool ok = what == "same" ? largest <= 2 : largest > 24;
        std::printf("%s (%u,%u)=%08x (%u,%u)=%08x: %s\n", what.c_str(), x1, y1, a, x2, y2, b, ok ? "ok" : "FAILED");
        failures += ok ? 0 : 1;
    }
    return failures == 0 ? 0 : 1;
} catch (const myriad::Error& e) {
    std::fprintf(stderr, "pixel_check: %s\n", e.what());
    return 1;
}
