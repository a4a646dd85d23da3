#pragma once
/** @file
 *  How a surface looks: base colour, optional texture, lighting model, alpha mode. */
#include "myriad/core/Image.h"
#include "myriad/core/SurfaceShader.h"

#include <glm/vec3.hpp>
#include <glm/vec4.hpp>

#include <cstdint>
#include <memory>
#include <string>

namespace myriad {

/** Lighting model. */
enum class Shading : std::uint8_t {
    /** Lambert diffuse (albedo / pi per lux) from every light that reaches the surface (the
     *  scene's sun, LightNodes), plus ambient and emission (docs/lighting.md). */
    Lit,
    Unlit,  ///< colour as is
    /** glTF 2.0's metallic-roughness BRDF (Appendix B: GGX distribution, Smith visibility,
     *  Schlick Fresnel, Lambert diffuse) from Material::metallic and roughness, under the same
     *  lights as Lit, plus ambient and emission. The glTF importer's choice. */
    MetallicRoughness,
};

/** How alpha is used (glTF 2.0 material.alphaMode, spec section 3.9.4). */
enum class AlphaMode : std::uint8_t {
    Opaque,  ///< alpha ignored, depth written
    Mask,    ///< fragments with alpha < alphaCutoff are discarded, the rest are opaque
    Blend,   ///< drawn after opaque nodes with "over" blending, depth tested but not written
             ///< (written with Material::blendWritesDepth)
};

/** How a texture is filtered where one texel covers more than a pixel (glTF 2.0 sampler
 *  magFilter, section 5.26; GL_TEXTURE_MAG_FILTER). */
enum class MagFilter : std::uint8_t {
    Nearest,  ///< the nearest texel (GL_NEAREST, glTF 9728): hard texel edges, pixel art
    Linear,   ///< the four nearest texels blended (GL_LINEAR, glTF 9729)
};

/** How a texture is filtered where one pixel covers more than a texel (glTF 2.0 sampler
 *  minFilter, section 5.26; GL_TEXTURE_MIN_FILTER). The four mipmap filters read the texture's
 *  mip chain, which the renderer then generates (TextureSampler::usesMipmaps()). */
enum class MinFilter : std::uint8_t {
    Nearest,               ///< GL_NEAREST (glTF 9728): level 0 only, the nearest texel
    Linear,                ///< GL_LINEAR (glTF 9729): level 0 only, four texels blended
    NearestMipmapNearest,  ///< GL_NEAREST_MIPMAP_NEAREST (9984): nearest level, nearest texel
    LinearMipmapNearest,   ///< GL_LINEAR_MIPMAP_NEAREST (9985): nearest level, texels blended
    NearestMipmapLinear,   ///< GL_NEAREST_MIPMAP_LINEAR (9986): two levels blended, nearest texel in each
    LinearMipmapLinear,    ///< GL_LINEAR_MIPMAP_LINEAR (9987): trilinear, the default
};

/** What a texture coordinate outside [0, 1] reads, per axis (glTF 2.0 sampler wrapS / wrapT,
 *  section 5.26; GL_TEXTURE_WRAP_S / T). */
enum class TextureWrap : std::uint8_t {
    Repeat,          ///< GL_REPEAT (glTF 10497, its default): the fractional part, tiles
    MirroredRepeat,  ///< GL_MIRRORED_REPEAT (33648): every other tile mirrored
    ClampToEdge,     ///< GL_CLAMP_TO_EDGE (33071): the edge texels continue outwards
};

/** How a material's texture is sampled: the glTF 2.0 sampler (section 3.8.4), as three.js keeps
 *  on its Texture (magFilter, minFilter, wrapS, wrapT). A value type; the defaults are what
 *  myriad has always done: linear magnification, trilinear minification, repeat on both axes.
 *  The renderer shares one GL sampler object between every material whose sampling (and
 *  clamped Material::maxAnisotropy) is equal. */
struct TextureSampler {
    MagFilter magFilter = MagFilter::Linear;             ///< magnification
    MinFilter minFilter = MinFilter::LinearMipmapLinear;  ///< minification
    TextureWrap wrapS = TextureWrap::Repeat;              ///< along u (the texture's width)
    TextureWrap wrapT = TextureWrap::Repeat;              ///< along v (the texture's height)

    /** True when minFilter reads mip levels (one of the four ...Mipmap... filters). */
    [[nodiscard]] constexpr bool usesMipmaps() const noexcept {
        return minFilter != MinFilter::Nearest && minFilter != MinFilter::Linear;
    }
    /** Unfiltered sampling (pixel art): both filters Nearest, wrapping as given. */
    [[nodiscard]] static constexpr TextureSampler nearest(TextureWrap wrapS = TextureWrap::Repeat,
                                                          TextureWrap wrapT = TextureWrap::Repeat) noexcept {
        return {MagFilter::Nearest, MinFilter::Nearest, wrapS, wrapT};
    }
    /** Field by field. */
    friend constexpr bool operator==(const TextureSampler&, const TextureSampler&) = default;
};

/** A value type, copied into each MeshNode. Defaults in field order: white, no texture, Lit,
 *  metallic 0, roughness 1, no emission (strength 1), Opaque, cutoff 0.5, single-sided, blendWritesDepth off, nearestFilter off, the default TextureSampler (linear,
 *  trilinear, repeat), no anisotropic filtering, the built-in surface. Final colour =
 *  surface(baseColor * texture * vertex colour * instance colour) * node tint (all linear),
 *  then lighting; blending happens in linear light and the framebuffer encodes once (in a
 *  linear 8-bit target the shaders encode, and blending mixes encoded values: gl::View). */
struct Material {
    std::string name;                               ///< free text, used in GL labels
    glm::vec4 baseColor{1.0f};                      ///< linear RGBA factor
    std::shared_ptr<const Image> baseColorTexture;  ///< sRGB-encoded RGBA8; null: none; shared
    Shading shading = Shading::Lit;                 ///< Lambert, glTF metallic-roughness, or unlit
    /** Metalness, 0 (dielectric: 4% specular at normal incidence, diffuse base colour) to 1
     *  (metal: specular base colour, no diffuse), glTF's metallicFactor; read by
     *  Shading::MetallicRoughness only; clamped to 0..1 when drawn. Default 0, as three.js's
     *  MeshStandardMaterial (glTF's own default is 1: the importer sets the file's value). */
    float metallic = 0.0f;
    /** Perceptual roughness, 0 (mirror) to 1 (matte), glTF's roughnessFactor (alpha =
     *  roughness^2); read by Shading::MetallicRoughness only; drawn clamped to 0.045..1
     *  (Filament's floor: a float's GGX peak is not finite below it). Default 1. */
    float roughness = 1.0f;
    /** Light the surface gives off, linear RGB (glTF's emissiveFactor), added after lighting
     *  by Lit and MetallicRoughness materials, times emissiveStrength. Default black. */
    glm::vec3 emissive{0.0f};
    /** Multiplies emissive (KHR_materials_emissive_strength), >= 0. Default 1. A NaN or Inf in
     *  metallic, roughness, emissive or emissiveStrength draws as that field's default, and a
     *  negative emission as 0 (the renderer sanitises them, it does not throw). */
    float emissiveStrength = 1.0f;
    AlphaMode alphaMode = AlphaMode::Opaque;        ///< opaque, alpha-tested or blended pass
    float alphaCutoff = 0.5f;                       ///< used by AlphaMode::Mask only
    bool doubleSided = false;                       ///< false: back faces are culled
    /** AlphaMode::Blend only: the draw also writes depth. It is still drawn after the opaque
     *  nodes and sorted back to front with the other blended draws, blended "over" what is
     *  behind it, but what is drawn after it and lies behind it fails the depth test and
     *  disappears: foliage cards and glass that must hide what is behind them once drawn
     *  (docs/shaders.md, "Blended surfaces that write depth"). What three.js does with
     *  depthWrite = true on a transparent material (there the default), and Godot with
     *  depth_draw_always; false (the default) is three.js's depthWrite = false and Godot's
     *  depth_draw_opaque_only. Ignored by the other alpha modes (they always write depth) and
     *  by depth-only views (blended draws cast no shadow either way). */
    bool blendWritesDepth = false;
    /** Deprecated convenience, kept for code written before `sampler`: true samples the
     *  texture without filtering, as if both of the sampler's filters were Nearest (its wrap
     *  modes still apply), whatever `sampler` says; false (the default) leaves `sampler`
     *  in charge. The glTF importer sets it exactly when the file's sampler has both filters
     *  NEAREST, so reading it stays right. New code: `sampler = TextureSampler::nearest()`.
     *  sampling() is the combination the renderer uses. */
    bool nearestFilter = false;
    /** Filters and wrap modes of `baseColorTexture` (glTF's sampler; see TextureSampler).
     *  A mipmap minification filter makes the renderer generate the image's mip chain: an
     *  image's GPU copy has mip levels as soon as any material drawn with it asks for them. */
    TextureSampler sampler{};
    /** Anisotropic filtering of the texture (GL_TEXTURE_MAX_ANISOTROPY of its sampler): the
     *  most samples taken along a surface seen at a grazing angle, 1 for none (the default),
     *  16 where the driver offers it. Clamped to 1 .. the driver's
     *  GL_MAX_TEXTURE_MAX_ANISOTROPY (queried once per renderer); below 1 or NaN is 1. Ignored
     *  without GL 4.6 or GL_ARB/EXT_texture_filter_anisotropic, and unless sampling() is
     *  linear at both scales (magFilter Linear, minFilter Linear, LinearMipmapNearest or
     *  LinearMipmapLinear): the extension lets a driver filter anyway once anisotropy is above
     *  1, which would blur a texture meant to stay sharp. */
    float maxAnisotropy = 1.0f;
    /** User GLSL deciding base colour and alpha (may discard), moving vertices (a vertex
     *  function), or both; null: the built-in surface and transform. Shared; see SurfaceShader
     *  and docs/shaders.md. A vertex function on a ScatterNode's material makes
     *  Renderer::render() throw InvalidArgument (scatter.vert runs none); on a MeshNode give
     *  the node a cull margin (MeshNode::setCullMargin) as far as it moves the surface. */
    std::shared_ptr<const SurfaceShader> surface;

    /** The sampling the renderer uses: `sampler`, with both filters Nearest when
     *  `nearestFilter` is set. */
    [[nodiscard]] TextureSampler sampling() const noexcept {
        return nearestFilter ? TextureSampler::nearest(sampler.wrapS, sampler.wrapT) : sampler;
    }
};

} // namespace myriad
