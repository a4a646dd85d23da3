#pragma once
/** @file
 *  How a surface looks: base colour, optional texture, lighting model, alpha mode. */
#include "myriad/core/Image.h"
#include "myriad/core/SurfaceShader.h"

#include <glm/vec4.hpp>

#include <memory>
#include <string>

namespace myriad {

/** Lighting model. */
enum class Shading : std::uint8_t {
    Lit,    ///< Lambert diffuse from the scene's one directional light, plus ambient
    Unlit,  ///< colour as is
};

/** How alpha is used (glTF 2.0 material.alphaMode, spec section 3.9.4). */
enum class AlphaMode : std::uint8_t {
    Opaque,  ///< alpha ignored, depth written
    Mask,    ///< fragments with alpha < alphaCutoff are discarded, the rest are opaque
    Blend,   ///< drawn after opaque nodes with "over" blending, depth tested but not written
};

/** A value type, copied into each MeshNode. Defaults in field order: white, no texture, Lit,
 *  Opaque, cutoff 0.5, single-sided, linear filtering, no anisotropic filtering, the built-in
 *  surface. Final colour =
 *  surface(baseColor * texture * vertex colour * instance colour) * node tint (all linear),
 *  then lighting; blending happens in linear light and the framebuffer encodes once (in a
 *  linear 8-bit target the shaders encode, and blending mixes encoded values: gl::View). */
struct Material {
    std::string name;                               ///< free text, used in GL labels
    glm::vec4 baseColor{1.0f};                      ///< linear RGBA factor
    std::shared_ptr<const Image> baseColorTexture;  ///< sRGB-encoded RGBA8; null: none; shared
    Shading shading = Shading::Lit;                 ///< lit by the scene's light, or unlit
    AlphaMode alphaMode = AlphaMode::Opaque;        ///< opaque, alpha-tested or blended pass
    float alphaCutoff = 0.5f;                       ///< used by AlphaMode::Mask only
    bool doubleSided = false;                       ///< false: back faces are culled
    bool nearestFilter = false;                     ///< true: texture sampled without filtering
    /** Anisotropic filtering of the texture (GL_TEXTURE_MAX_ANISOTROPY of its sampler): the
     *  most samples taken along a surface seen at a grazing angle, 1 for none (the default),
     *  16 where the driver offers it. Clamped to 1 .. the driver's
     *  GL_MAX_TEXTURE_MAX_ANISOTROPY (queried once per renderer); below 1 or NaN is 1. Ignored
     *  without GL 4.6 or GL_ARB/EXT_texture_filter_anisotropic, and with nearestFilter (the
     *  extension lets a driver filter anyway once anisotropy is above 1). */
    float maxAnisotropy = 1.0f;
    /** User GLSL deciding base colour and alpha (may discard); null: the built-in surface.
     *  Shared; see SurfaceShader and docs/shaders.md. */
    std::shared_ptr<const SurfaceShader> surface;
};

} // namespace myriad
