#pragma once
/** @file
 *  Baked light into a lightmap image: linear radiance texels encoded the way
 *  Material::lightmapTexture and Material::lightmapIntensity read them (docs/lighting.md,
 *  "Lightmaps"). */
#include "myriad/core/Image.h"

#include <glm/vec3.hpp>

#include <cstdint>
#include <memory>
#include <span>

namespace myriad {

/** A lightmap ready for a material: `material.lightmapTexture.image = lightmap.image;
 *  material.lightmapIntensity = lightmap.intensity;`. */
struct EncodedLightmap {
    std::shared_ptr<const Image> image;  ///< RGBA8, sRGB-encoded RGB, alpha 255
    float intensity = 1.0f;              ///< what the texels' linear values are multiplied by when drawn
};

/** Encodes @p radiance, @p width x @p height linear RGB texels (rows top to bottom, as an Image;
 *  per texel the diffuse ambient a white Lambert surface shows there, in the units of
 *  Scene::ambient: ambient plus E / pi of the lights baked, see illuminance()) into an 8-bit
 *  sRGB lightmap. An 8-bit texel holds 0..1: every texel is divided by the brightest channel of
 *  all (or by 1 when none exceeds 1) before encoding, and that divisor is returned as the
 *  intensity, so drawn values are the given ones within the sRGB quantisation (one step of
 *  an 8-bit sRGB byte, relative to the brightest texel).
 *  @throws InvalidArgument when @p width or @p height is 0, radiance.size() is not width *
 *  height, or a value is negative, NaN or infinite (nothing is made). */
[[nodiscard]] EncodedLightmap encodeLightmap(std::uint32_t width, std::uint32_t height,
                                             std::span<const glm::vec3> radiance);

} // namespace myriad
