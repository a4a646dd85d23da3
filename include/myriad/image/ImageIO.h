#pragma once
/** @file
 *  Reading and writing image files: JPEG through libjpeg-turbo, every other format through
 *  stb_image, writing through stb_image_write (Debian's libturbojpeg and libstb). */
#include "myriad/core/Environment.h"
#include "myriad/core/Image.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace myriad::image {

/** Largest width or height a decoded image may have; larger files are refused before their
 *  pixels are allocated. */
inline constexpr std::uint32_t kMaxImageSide = 16384;

/** Width and height of an encoded image in pixels, as its header gives them. */
struct ImageSize {
    std::uint32_t width = 0;  ///< Pixels across, as the header gives them (not checked against kMaxImageSide).
    std::uint32_t height = 0; ///< Pixel rows, as the header gives them.
};

/** Reads an encoded image's width and height from its header, decoding no pixels, so a caller
 *  can refuse an oversized image before its pixels are allocated (gltf::ImportOptions::maxImageSide
 *  does). Any format decodeImage takes; the size is not checked against kMaxImageSide.
 *  @param encoded the whole file's bytes; read only during the call.
 *  @return nothing when the format is not recognised or its header is corrupt (decodeImage then
 *  throws, with the reason). Throws nothing but std::bad_alloc. */
[[nodiscard]] std::optional<ImageSize> readImageSize(std::span<const std::byte> encoded);

/** Decodes an image held in memory into RGBA8 (JPEG without alpha gets 255).
 *
 *  JPEG (any byte string whose first marker is SOI) is decoded by libjpeg-turbo: baseline,
 *  progressive (at most 500 scans, libjpeg-turbo's TJFLAG_LIMITSCANS) and arithmetic-coded,
 *  grey or YCbCr; a JPEG that ends early or has stray bytes decodes with what it has (grey
 *  below), as browsers show it; CMYK is refused. PNG, BMP, TGA, GIF (first frame), PSD, HDR
 *  (clamped to 8 bits), PIC and PNM go through stb_image; a PNG's chunk lengths are checked
 *  against the data first. Values are stored as the file holds them: no colour conversion.
 *  @param encoded the whole file's bytes; read only during the call.
 *  @param name shown in errors (a file path or "image 3 of model.glb").
 *  @throws ImportError if the data is empty, above 2 GiB, corrupt, of no format above, or the
 *  image is 0 or above kMaxImageSide pixels on a side. */
[[nodiscard]] Image decodeImage(std::span<const std::byte> encoded, const std::string& name);
/** Reads and decodes an image file. @throws ImportError naming the path if it is missing,
 *  unreadable or corrupt. */
[[nodiscard]] Image readImageFile(const std::string& path);
/** Writes @p image as a PNG file. @throws Error naming the path if it cannot be written;
 *  InvalidArgument if the image is empty or its pixels are short. */
void writePng(const Image& image, const std::string& path);
/** Writes @p image as a baseline JPEG file (alpha dropped), @p quality 1..100 (stb's scale).
 *  @throws Error naming the path if it cannot be written; InvalidArgument if the image is empty,
 *  its pixels are short, or quality is outside 1..100. */
void writeJpeg(const Image& image, const std::string& path, int quality = 90);

/** Decodes a Radiance RGBE (.hdr) image held in memory into an Environment (docs/lighting.md,
 *  "Image-based ambient"): stb_image's stbi_loadf, linear float RGB as the file stores it (no
 *  gamma), row 0 at the top. Computes the environment's irradiance (O(pixels)).
 *  @param encoded the whole file's bytes; read only during the call.
 *  @param name shown in errors (a file path).
 *  @throws ImportError naming @p name if the data is empty, above 2 GiB, not a Radiance .hdr
 *  file or corrupt; InvalidArgument (from Environment) if its width is not twice its height,
 *  its height is above Environment::kMaxHeight or a value is not finite. */
[[nodiscard]] Environment decodeEnvironment(std::span<const std::byte> encoded, const std::string& name);
/** Reads and decodes a .hdr file into an Environment (decodeEnvironment()).
 *  @throws ImportError naming the path if it is missing or unreadable; as decodeEnvironment(). */
[[nodiscard]] Environment readEnvironmentFile(const std::string& path);
/** Writes @p rgb (width * height * 3 linear floats, row 0 at the top) as a Radiance RGBE .hdr
 *  file through stb_image_write's stbi_write_hdr (8-bit mantissas with a shared exponent:
 *  about 1% precision). @throws InvalidArgument if width or height is 0 or rgb.size() is not
 *  width * height * 3; Error naming the path if it cannot be written. */
void writeHdr(std::uint32_t width, std::uint32_t height, std::span<const float> rgb, const std::string& path);

} // namespace myriad::image
