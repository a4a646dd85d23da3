#pragma once
/** @file
 *  Reading and writing image files (stb_image / stb_image_write, Debian's libstb). */
#include "myriad/core/Image.h"

#include <cstddef>
#include <span>
#include <string>

namespace myriad::image {

/** Largest width or height a decoded image may have; larger files are refused before their
 *  pixels are allocated. */
inline constexpr std::uint32_t kMaxImageSide = 16384;

/** Decodes a PNG, JPEG, BMP, TGA or other stb_image format held in memory into RGBA8.
 *  @param encoded the whole file's bytes; read only during the call.
 *  @param name shown in errors (a file path or "image 3 of model.glb").
 *  @throws ImportError if the data is corrupt or the image is larger than kMaxImageSide. */
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

} // namespace myriad::image
