#pragma once
/** @file
 *  How a surface looks: base colour, optional texture, lighting model, alpha mode. */
#include "myriad/core/Image.h"
#include "myriad/core/SurfaceShader.h"

#include <glm/vec2.hpp>
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

/** Where a texture is read in texture space: glTF's KHR_texture_transform (offset, rotation,
 *  scale), applied to the texture coordinate before sampling as that extension defines it:
 *  uv' = T(offset) * R(rotation) * S(scale) * uv, with R = [cos r, sin r; -sin r, cos r], so
 *  u' = cos(r) * sx * u + sin(r) * sy * v + ox and v' = -sin(r) * sx * u + cos(r) * sy * v + oy
 *  (texture coordinates with v down, as glTF's). A value type; the default is the identity. */
struct TextureTransform {
    glm::vec2 offset{0.0f};  ///< added last, in texture coordinates (1 = one texture width/height)
    float rotation = 0.0f;   ///< radians, counter-clockwise about the UV origin (the extension's words)
    glm::vec2 scale{1.0f};   ///< multiplies u and v first
    /** True for the default (no transform): the shader then skips it. */
    [[nodiscard]] bool isIdentity() const noexcept {
        return offset == glm::vec2(0.0f) && rotation == 0.0f && scale == glm::vec2(1.0f);
    }
    /** Field by field. */
    friend bool operator==(const TextureTransform&, const TextureTransform&) = default;
};

/** One of a material's extra textures (metallic-roughness, normal, occlusion, emissive, lightmap), as
 *  glTF 2.0's textureInfo (section 5.23) gives it: the image, the texture-coordinate set it is
 *  read at (texCoord: 0 for MeshData::uv0, 1 for MeshData::uv1; KHR_texture_transform's texCoord
 *  override already applied), its KHR_texture_transform and its sampler. Empty image: the slot
 *  is unused and its factor alone applies. A value type; the image is shared. */
struct TextureSlot {
    std::shared_ptr<const Image> image;  ///< RGBA8; null: none; its encoding is the slot's (see Material)
    std::uint8_t uvSet = 0;              ///< 0 (uv0) or 1 (uv1); other values draw as 0
    TextureTransform transform{};        ///< KHR_texture_transform; identity by default
    TextureSampler sampler{};            ///< filters and wrap modes (its own sampler object)
    /** True when an image is set. */
    [[nodiscard]] explicit operator bool() const noexcept { return image != nullptr; }
};

/** Where a material's lightmap (Material::lightmapTexture) takes its texture coordinates. */
enum class LightmapCoordinates : std::uint8_t {
    /** The lightmap slot's own set, TextureSlot::uvSet: MeshData::uv1 by default (glTF's
     *  TEXCOORD_1; three.js's lightMap channel 1, Godot's UV2), or uv0. */
    UvSet,
    /** The design card's convention for a `lightmapped` node: the mesh's vertex colour is its
     *  place in the lightmap. Its red and green are the coordinates (u, v), as stored in
     *  MeshData::colors and interpolated as texture coordinates are (store them as Float32 or
     *  UNorm16: UNorm8 rounds them to 1/255), and the vertex colour no longer tints the
     *  surface (it counts as opaque white; an
     *  instance's colour still does). A mesh without colours reads (1, 1). */
    VertexColor,
};

/** A value type, copied into each MeshNode. Defaults in field order: white, no texture, Lit,
 *  metallic 0, roughness 1, no emission (strength 1), Opaque, cutoff 0.5, single-sided, blendWritesDepth off, nearestFilter off, the default TextureSampler (linear,
 *  trilinear, repeat), no anisotropic filtering, base colour read at uv0 untransformed, no
 *  metallic-roughness, normal (scale 1), occlusion (strength 1), emissive texture or lightmap
 *  (read at uv1, clamped to its edges, intensity 1), the built-in surface. Final colour =
 *  surface(baseColor * texture * vertex colour * instance colour) * node tint (all linear; the
 *  vertex colour white under LightmapCoordinates::VertexColor),
 *  then lighting; blending happens in linear light and the framebuffer encodes once (in a
 *  linear 8-bit target the shaders encode, and blending mixes encoded values: gl::View). */
struct Material {
    /** The lightmap slot's defaults (lightmapTexture's): no image, read at uv1, clamped to the
     *  edge on both axes (a lightmap does not tile), trilinear. */
    static inline const TextureSlot kLightmapSlot{
        nullptr, 1, {}, {MagFilter::Linear, MinFilter::LinearMipmapLinear, TextureWrap::ClampToEdge, TextureWrap::ClampToEdge}};
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
    /** The texture-coordinate set baseColorTexture is read at (glTF baseColorTexture.texCoord):
     *  0 (uv0, the default) or 1 (uv1); other values draw as 0. */
    std::uint8_t baseColorUvSet = 0;
    /** KHR_texture_transform of baseColorTexture; identity by default. */
    TextureTransform baseColorTransform{};
    /** glTF's metallicRoughnessTexture, linear (not sRGB): its blue channel multiplies
     *  `metallic`, its green channel `roughness`, per fragment. Read by
     *  Shading::MetallicRoughness only. docs/lighting.md, "Material textures". */
    TextureSlot metallicRoughnessTexture;
    /** glTF's normalTexture, linear: a tangent-space normal n = normalize((rgb * 2 - 1) *
     *  (normalScale, normalScale, 1)) in the frame (tangent, bitangent = cross(normal, tangent)
     *  * tangent.w, normal) of the mesh's MeshData::tangents; a mesh without tangents gets
     *  its frame per pixel from screen-space derivatives of position and texture coordinate
     *  (as three.js does without tangents). Use generateTangents() (myriad/core/Tangents.h) for
     *  MikkTSpace-style vertex tangents; the glTF importer does when the file has none. Read
     *  by Shading::Lit and MetallicRoughness. */
    TextureSlot normalTexture;
    /** Scales the normal map's x and y (glTF normalTexture.scale); 1 by default. */
    float normalScale = 1.0f;
    /** glTF's occlusionTexture, linear: its red channel scales the ambient (indirect) light
     *  only, never a light's or lamp's, as 1 + occlusionStrength * (red - 1). Read by
     *  Shading::Lit and MetallicRoughness. */
    TextureSlot occlusionTexture;
    /** How much of the occlusion applies, 0 (none) to 1 (all, the default): glTF's
     *  occlusionTexture.strength. */
    float occlusionStrength = 1.0f;
    /** glTF's emissiveTexture, sRGB-encoded: its linear RGB multiplies emissive *
     *  emissiveStrength. Read by Shading::Lit and MetallicRoughness. */
    TextureSlot emissiveTexture;
    /** A baked lightmap (the design card's `lightmapped`; three.js's lightMap, Godot's
     *  LightmapGI): sRGB-encoded RGB, read at `lightmapCoordinates` (by default this slot's
     *  uvSet, 1: MeshData::uv1) through the slot's transform (an atlas island: scale and
     *  offset), times `lightmapIntensity`. It replaces the diffuse ambient light (Scene::ambient,
     *  the environment's or hemisphere's irradiance): a white Lambert surface shows the texel's
     *  linear value, a surface of albedo c shows c times it (the units of Scene::ambient).
     *  Its sampler clamps to the edge by default (kLightmapSlot).
     *  Occlusion (occlusionTexture) still scales it; image-based specular, the sun and
     *  LightNodes still add to it (exclude lights baked into the map with light channels).
     *  Read by Shading::Lit and MetallicRoughness; not by scatter nodes or GPU populations.
     *  docs/lighting.md, "Lightmaps". Alpha is ignored. */
    TextureSlot lightmapTexture = kLightmapSlot;
    /** Multiplies the lightmap's linear value, >= 0 (an 8-bit map stores 0..1; a brighter
     *  bake is stored scaled down and scaled back here). Default 1; NaN or Inf draws as 1,
     *  a negative value as 0. */
    float lightmapIntensity = 1.0f;
    /** Where the lightmap's coordinates come from: the slot's uvSet (the default), or the
     *  card's convention, the vertex colour's red and green (LightmapCoordinates::VertexColor;
     *  the vertex colour then no longer tints). Ignored without a lightmapTexture. */
    LightmapCoordinates lightmapCoordinates = LightmapCoordinates::UvSet;
    /** User GLSL deciding base colour and alpha (may discard), moving vertices (a vertex
     *  function), or both; null: the built-in surface and transform. Shared; see SurfaceShader
     *  and docs/shaders.md. A vertex function on a ScatterNode's material makes
     *  Renderer::render() throw InvalidArgument (scatter.vert runs none); on a MeshNode give
     *  the node a cull margin (MeshNode::setCullMargin) as far as it moves the surface. */
    std::shared_ptr<const SurfaceShader> surface;

    /** True when any of the five extra textures (the lightmap among them) is set, or
     *  baseColorTexture is read at uv1 or through a transform: the renderer then draws the
     *  material with its "material textures" shader variant (docs/lighting.md, "Material
     *  textures"). */
    [[nodiscard]] bool hasMaterialTextures() const noexcept {
        return metallicRoughnessTexture || normalTexture || occlusionTexture || emissiveTexture || lightmapTexture ||
               (baseColorTexture && (baseColorUvSet != 0 || !baseColorTransform.isIdentity()));
    }
    /** The sampling the renderer uses: `sampler`, with both filters Nearest when
     *  `nearestFilter` is set. */
    [[nodiscard]] TextureSampler sampling() const noexcept {
        return nearestFilter ? TextureSampler::nearest(sampler.wrapS, sampler.wrapT) : sampler;
    }
};

} // namespace myriad
