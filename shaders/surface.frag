#version 450 core
// The fragment stage of every MeshNode and InstancedMeshNode: the surface function decides base
// colour and alpha, then optional lighting (Lambert, or glTF's metallic-roughness BRDF) from the
// scene's sun, its LightNodes and ambient, all in linear light. The output
// is linear: the framebuffer encodes it once (GL_FRAMEBUFFER_SRGB on an sRGB target) or stores
// it as is (a float target), unless MYRIAD_ENCODE_SRGB encodes it here. Feature switches:
//   MYRIAD_LIT               lit by the scene's sun (Scene::light), its directional lights and
//                            the view's clustered list of point and spot lamps, plus ambient:
//                            Lambert diffuse, or with MYRIAD_METALLIC_ROUGHNESS glTF 2.0's
//                            metallic-roughness BRDF (Appendix B); then emission
//   MYRIAD_ALPHA_MASK        discard below u_alphaCutoff (glTF alphaMode MASK)
//   MYRIAD_BLEND             alpha is written (alpha-blended pass); otherwise 1
//   MYRIAD_MIXED_MIRRORING   back faces culled here, per instance (a batch mixing mirrored and
//                            ordinary instances cannot use fixed-function culling)
//   MYRIAD_DEPTH_ONLY        depth-only view: the surface runs for its discards only
//   MYRIAD_LOD_FADE          a fading LOD level's draw: discards the pixels of its instance's
//                            dithered cross-fade left to the other level (v_lodFade)
//   MYRIAD_USER_SURFACE      the material's SurfaceShader replaces the built-in surface
//   MYRIAD_USER_LIGHTING     (with MYRIAD_LIT) its lighting() replaces myriad_brdf for every
//                            light (docs/shaders.md, "Lighting and fragment functions")
//   MYRIAD_USER_FRAGMENT     (with MYRIAD_LIT) its fragment() replaces the lit part of main()
//   MYRIAD_INSTANCE_LIGHT_CHANNELS  (with MYRIAD_LIT, MYRIAD_INSTANCED) the instance's own
//                            light channels, ANDed with the node's
//   MYRIAD_SHADOW_RECEIVE    (with MYRIAD_LIT) the light's term is scaled by the shadow map
//                            (docs/shadows.md, src/renderer/ShadowPass.cpp)
//   MYRIAD_LAMP_SHADOW       (with MYRIAD_LIT) shadowed point and spot lamps of the list are
//                            scaled by their tiles of the lamp shadow atlas: myriad_lampShadow()
//                            (docs/lighting.md, "Lamp shadows", src/renderer/LampShadowPass.h)
//   MYRIAD_FOG               the scene's fog after lighting, before encoding: myriad_applyFog()
//                            (myriad_fogFactor() and u_fog* defined by ShaderLibrary before
//                            this text, kFogGlsl; docs/lighting.md, "Fog")
//   MYRIAD_IMAGE_AMBIENT     (with MYRIAD_LIT) ambient from Scene::environment (irradiance SH
//                            and the prefiltered map on unit 17) or Scene::hemisphere instead
//                            of the flat u_ambient: myriad_ambient()
//   MYRIAD_ENCODE_SRGB       rgb encoded by myriad_encodeSrgb() (IEC 61966-2-1, defined by
//                            ShaderLibrary before this text): a linear 8-bit target that the
//                            view wants display-encoded; blending then mixes encoded values
//   MYRIAD_MATERIAL_TEXTURES the material's extra textures (docs/lighting.md, "Material
//                            textures"): metallic-roughness, normal, occlusion and emissive,
//                            each at its coordinate set (uv0, uv1) and KHR_texture_transform,
//                            the base colour's set and transform too; and a lightmap in place
//                            of the diffuse ambient ("Lightmaps")
//   MYRIAD_TANGENT_FRAME     (with it) the normal map's frame from the mesh's tangents
//                            (v_tangent); otherwise from screen-space derivatives
//   MYRIAD_VELOCITY          output 1: window position now minus in the previous frame, in
//                            pixels, +x right, +y up (View::velocity, docs/visibility.md)
in vec3 v_normal;
in vec2 v_uv0;
in vec4 v_color;
in vec3 v_relativePosition;
flat in float v_handedness;
flat in int v_instanceIndex;
#ifdef MYRIAD_LOD_FADE
// A fading LOD level (lodFadeEntry(), myriad/core/Lod.h): 0 drawn whole, else 0x80 | side | k;
// the farther level (side 0x40) keeps the pixels whose 8x8 Bayer threshold is below k, the
// nearer one the others, so the two draws of an instance cover each pixel once.
flat in uint v_lodFade;

/** lodBayer8(): the 8x8 Bayer matrix at window pixel @p p, 0..63. */
uint myriad_bayer8(uvec2 p) {
    uint a = p.x ^ p.y;
    return ((a & 1u) << 5) | ((p.y & 1u) << 4) | ((a & 2u) << 2) | ((p.y & 2u) << 1) | ((a & 4u) >> 1) |
           ((p.y & 4u) >> 2);
}
#endif

#ifdef MYRIAD_TABLED
// The table-driven path: the draw's row (surface.vert), passed on flat.
flat in vec4 v_drawTint;
flat in vec4 v_drawBaseColor;
flat in vec4 v_drawMaterial;  // alpha cutoff, textured (0 or 1), material index, 0
flat in int v_drawRow;
#define u_baseColor v_drawBaseColor
#define u_hasTexture int(v_drawMaterial.y)
#define u_alphaCutoff v_drawMaterial.x
#define u_tint v_drawTint
#define u_materialIndex int(v_drawMaterial.z)
flat in vec2 v_drawShading;
flat in vec3 v_drawEmissive;
flat in uint v_drawLightChannels;
#define u_metallicRoughness v_drawShading
#define u_emissive v_drawEmissive
#define myriad_lightChannels() v_drawLightChannels
#else
uniform vec4 u_baseColor;        // linear RGBA, the material's factor
uniform int u_hasTexture;        // 1: multiply by u_baseColorTexture
uniform float u_alphaCutoff;
uniform vec4 u_tint;             // the node's tint: multiplies colour and opacity
uniform int u_materialIndex;     // the material's index in the renderer's identity table
uniform vec2 u_metallicRoughness;  // the material's factors (MYRIAD_METALLIC_ROUGHNESS)
uniform vec3 u_emissive;         // the material's emission, linear RGB * strength
uniform int u_lightChannels;     // the node's SceneNode::lightChannels() (bits)
#define myriad_lightChannels() uint(u_lightChannels)
#endif
#ifdef MYRIAD_INSTANCE_LIGHT_CHANNELS
// The batch's lightChannels stream (streams::kLightChannels): per instance the mask's low and
// high 16 bits as whole floats.
layout(binding = MYRIAD_UNIT_INSTANCE_LIGHT_CHANNELS) uniform samplerBuffer myriad_instanceLightChannels;
uint myriad_instanceChannels() {
    vec2 halves = texelFetch(myriad_instanceLightChannels, v_instanceIndex).xy;
    return uint(halves.x) | (uint(halves.y) << 16u);
}
#endif
layout(binding = MYRIAD_UNIT_BASE_COLOR) uniform sampler2D u_baseColorTexture;  // sRGB texture: reads linear
uniform vec3 u_eye;              // world position of the eye (float; the rest is relative)
uniform vec4 u_viewAxis;         // towards the eye along the view axis (world, unit), 1 if orthographic
uniform vec3 u_lightDirection;   // world space, normalised, the way light travels
uniform vec3 u_lightColor;       // linear RGB * intensity
uniform vec3 u_ambient;          // linear RGB: the uniform sky radiance around every surface
uniform int u_sunChannels;       // Scene::light's channel mask (bits)

// The renderer's material table, indexed by material index (0: no material), std430, the
// same buffer compute passes can bind (Renderer::kMaterialTableBuffer). Row layout, 32 bytes:
// base colour (linear RGBA), alpha cutoff, shading (0 lit, 1 unlit, 2 metallic-roughness), alpha mode (0 opaque,
// 1 mask, 2 blend), flags (1 double-sided, 2 textured, 4 blended and writes depth).
struct MyriadMaterial {
    vec4 baseColor;
    float alphaCutoff;
    int shading;
    int alphaMode;
    int flags;
};
layout(std430, binding = MYRIAD_BINDING_MATERIAL_TABLE) readonly buffer MyriadMaterialTable {
    MyriadMaterial myriad_materialTable[];
};
MyriadMaterial myriad_material(int index) { return myriad_materialTable[index]; }

#ifdef MYRIAD_MATERIAL_TEXTURES
// Slots: 0 base colour (u_baseColorTexture), 1 metallic-roughness (linear; B metallic, G
// roughness), 2 normal (linear, tangent space), 3 occlusion (linear, R), 4 emissive (sRGB:
// reads linear), 5 lightmap (sRGB: reads linear; at its set, or at the vertex colour's red and
// green). glTF 2.0 section 3.9 and KHR_texture_transform; the lightmap: docs/lighting.md,
// "Lightmaps".
in vec2 v_uv1;
in vec2 v_vertexColorUv;  // the vertex colour's red and green: the card's lightmap coordinates
#ifdef MYRIAD_TANGENT_FRAME
in vec4 v_tangent;
#endif
layout(binding = MYRIAD_UNIT_METALLIC_ROUGHNESS) uniform sampler2D u_metallicRoughnessTexture;
layout(binding = MYRIAD_UNIT_NORMAL) uniform sampler2D u_normalTexture;
layout(binding = MYRIAD_UNIT_OCCLUSION) uniform sampler2D u_occlusionTexture;
layout(binding = MYRIAD_UNIT_EMISSIVE) uniform sampler2D u_emissiveTexture;
layout(binding = MYRIAD_UNIT_LIGHTMAP) uniform sampler2D u_lightmapTexture;
uniform ivec3 u_textureSlots;       // x: bit k, slot k has a texture (1..5); y: bit k, slot k reads uv1;
                                    // z: coordinate flags (as surface.vert's)
const int MYRIAD_LIGHTMAP_FROM_VERTEX_COLOR = 1;  // MaterialTextures::kLightmapFromVertexColor
uniform vec3 u_textureTransform[12];  // per slot two rows: uv' = (dot(row0, (uv, 1)), dot(row1, (uv, 1)))
uniform vec3 u_textureFactors;      // normal scale, occlusion strength, lightmap intensity

// @p uv through slot @p slot's KHR_texture_transform.
vec2 myriad_transformUv(int slot, vec2 uv) {
    vec3 p = vec3(uv, 1.0);
    return vec2(dot(u_textureTransform[2 * slot], p), dot(u_textureTransform[2 * slot + 1], p));
}

// Slot @p slot's coordinate: uv0 (@p uv0) or uv1, through its KHR_texture_transform.
vec2 myriad_textureUv(int slot, vec2 uv0) {
    return myriad_transformUv(slot, ((u_textureSlots.y >> slot) & 1) != 0 ? v_uv1 : uv0);
}

bool myriad_hasTexture(int slot) { return ((u_textureSlots.x >> slot) & 1) != 0; }

// The normal map's normal (slot 2) in world space, for a fragment whose shading normal is @p n
// (unit, facing the viewer; @p front: the side the mesh faces). The frame is the front side's:
// tangent t, bitangent b = cross(n, t) * handedness (glTF: towards the map's +Y, up the
// image), from the mesh's tangents or, without them, from screen-space derivatives of the
// position and the map's coordinate (solved for dp/du and dp/dv per pixel). A back face (a
// double-sided material) shades with the front's perturbed normal turned round, as three.js.
vec3 myriad_mappedNormal(vec3 n, bool front) {
    vec2 uv = myriad_textureUv(2, v_uv0);
    // Sampled before any branch that differs between pixels (implicit derivatives).
    vec3 m = texture(u_normalTexture, uv).xyz * 2.0 - 1.0;
    vec3 faceNormal = front ? n : -n;
#ifdef MYRIAD_TANGENT_FRAME
    vec3 t = v_tangent.xyz - faceNormal * dot(faceNormal, v_tangent.xyz);
    // A mirrored transform (v_handedness -1) turns the cross product round: cross(M n, M t) =
    // det(M) M^-T cross(n, t) for the outward normal the vertex stage gives.
    float handedness = (v_tangent.w < 0.0 ? -1.0 : 1.0) * v_handedness;
#else
    vec3 q0 = dFdx(v_relativePosition);
    vec3 q1 = dFdy(v_relativePosition);
    vec2 s0 = dFdx(uv);
    vec2 s1 = dFdy(uv);
    float det = s0.x * s1.y - s1.x * s0.y;
    vec3 dpdu = (q0 * s1.y - q1 * s0.y) / det;
    vec3 dpdv = (q1 * s0.x - q0 * s1.x) / det;  // v down the image (glTF's coordinates)
    vec3 t = dpdu - faceNormal * dot(faceNormal, dpdu);
    float handedness = dot(cross(faceNormal, t), -dpdv) < 0.0 ? -1.0 : 1.0;
    if (det == 0.0) {
        t = vec3(0.0);  // no texture-space area here: the normal stays
    }
#endif
    if (!myriad_hasTexture(2) || dot(t, t) <= 0.0) {
        return n;
    }
    t = normalize(t);
    vec3 b = cross(faceNormal, t) * handedness;
    m.xy *= u_textureFactors.x;
    vec3 mapped = normalize(t * m.x + b * m.y + faceNormal * m.z);
    return front ? mapped : -mapped;
}

// The occlusion texture's red channel (slot 3) as the fraction of ambient light that reaches
// the fragment: 1 + strength * (red - 1) (glTF occlusionTexture.strength); 1 without one.
float myriad_occlusion(vec2 uv0) {
    if (!myriad_hasTexture(3)) {
        return 1.0;
    }
    return 1.0 + u_textureFactors.y * (texture(u_occlusionTexture, myriad_textureUv(3, uv0)).r - 1.0);
}

// The lightmap (slot 5) at this fragment, linear RGB times its intensity: the diffuse ambient
// a white Lambert surface shows here (what Scene::ambient is for the flat sky).
vec3 myriad_lightmap() {
    vec2 uv = (u_textureSlots.z & MYRIAD_LIGHTMAP_FROM_VERTEX_COLOR) != 0 ? myriad_transformUv(5, v_vertexColorUv)
                                                                          : myriad_textureUv(5, v_uv0);
    return texture(u_lightmapTexture, uv).rgb * u_textureFactors.z;
}
#endif

#ifdef MYRIAD_VELOCITY
layout(location = 0) out vec4 o_color;
layout(location = 1) out vec2 o_velocity;  // colour attachment 1 (RG16F/RG32F)
in vec4 v_currentClip;
in vec4 v_previousClip;
uniform vec2 u_viewportSize;  // pixels
#else
out vec4 o_color;
#endif

#ifdef MYRIAD_SHADOW_RECEIVE
// The directional light's shadow map: one layer per cascade of 32-bit float depth, compare mode
// on, so each lookup is hardware percentage-closer filtering (the 2 x 2 nearest texels
// compared, bilinearly weighted).
layout(binding = MYRIAD_UNIT_SHADOW_MAP) uniform sampler2DArrayShadow u_shadowMap;
uniform mat4 u_shadowMatrix[4];    // per cascade: map (u, v, depth 0..1) from camera-relative world
uniform vec4 u_shadowParams[4];    // per cascade: 1 / map size, normal offset (world units),
                                   // constant bias and slope bias (map depth units)
uniform int u_shadowFilterRadius;  // (2r + 1)^2 taps one texel apart
uniform vec4 u_shadowCascadeEnds;  // view depth where cascades 0, 1, 2 end (then huge)
uniform vec3 u_shadowViewForward;  // the view's forward axis, world space, unit length

// The fraction of the light that reaches a surface point (1 lit, 0 in shadow). The cascade is
// the first whose slice of the view's depth holds the point. Acne (the surface shadowing
// itself between its own depth samples) is held off three ways, after Microsoft's "Common
// Techniques to Improve Shadow Depth Maps": the lookup point moves off the surface along its
// normal, by more the more the surface turns from the light; the compared depth moves towards
// the light by a constant and by the slope's tangent (a texel spans that much depth on a
// slope, and the filter's taps reach further).
float myriad_shadow(vec3 relativePosition, vec3 normal) {
    float viewDepth = dot(relativePosition, u_shadowViewForward);
    int cascade = int(dot(vec4(greaterThan(vec4(viewDepth), u_shadowCascadeEnds)), vec4(1.0)));
    vec4 params = u_shadowParams[cascade];
    float cosine = clamp(dot(normal, -u_lightDirection), 0.0, 1.0);
    float sine = sqrt(1.0 - cosine * cosine);
    vec3 p = relativePosition + normal * (params.y * sine);
    vec3 coord = (u_shadowMatrix[cascade] * vec4(p, 1.0)).xyz;
    if (any(lessThan(coord, vec3(0.0))) || any(greaterThan(coord, vec3(1.0)))) {
        return 1.0;  // outside the light's box (beyond ShadowSettings::distance): lit
    }
    float tangent = min(sine / max(cosine, 1.0e-4), 10.0);
    float depth = coord.z - params.z - params.w * tangent;
    float lit = 0.0;
    for (int y = -u_shadowFilterRadius; y <= u_shadowFilterRadius; ++y) {
        for (int x = -u_shadowFilterRadius; x <= u_shadowFilterRadius; ++x) {
            // No derivatives needed (one level): textureGrad with zero gradients is legal in
            // non-uniform control flow.
            lit += textureGrad(u_shadowMap, vec4(coord.xy + vec2(x, y) * params.x, float(cascade), depth),
                               vec2(0.0), vec2(0.0));
        }
    }
    float taps = float(2 * u_shadowFilterRadius + 1);
    return lit / (taps * taps);
}
#endif

#ifdef MYRIAD_LIT
const float MYRIAD_PI = 3.14159265358979;

// The clustered light list of this view (src/renderer/LightList.h has the layout): lights of 4
// RGBA32UI texels from u_lightBase, directional ones first, then one texel per cluster (first
// index, count) and the clusters' lamp indices, 4 per texel.
layout(binding = MYRIAD_UNIT_LIGHT_LIST) uniform usamplerBuffer u_lightList;
uniform int u_lightBase;
uniform ivec2 u_lightCounts;   // directional lights, point and spot lamps
uniform ivec4 u_lightGrid;     // tiles across, up, slices; first index texel (from u_lightBase)
uniform vec4 u_lightViewport;  // viewport origin (pixels), tiles per pixel across and up
uniform vec4 u_lightForward;   // the view's forward axis (world), nearest lamp depth
uniform vec2 u_lightSlices;    // depth offset delta, slices per log2 unit

// What the BRDF needs of a surface point (glTF 2.0 Appendix B): the diffuse colour c_diff,
// the specular colour at normal incidence f0 and alpha = roughness^2. Lambert: f0 = 0.
struct MyriadBrdfSurface {
    vec3 diffuseColor;
    vec3 f0;
    float alpha;
};

// The BRDF times pi's absence: f(l, v) for light from direction l (unit, towards the light),
// seen from v (unit, towards the eye), glTF 2.0 Appendix B: f = (1 - F) c_diff / pi + F D V
// with Schlick's F over v.h, the GGX (Trowbridge-Reitz) D and the separable Smith V
// (G / (4 |n.l| |n.v|)); for Lambert surfaces c_diff / pi alone.
vec3 myriad_brdf(MyriadBrdfSurface m, vec3 n, vec3 v, vec3 l, float nDotL) {
#ifdef MYRIAD_METALLIC_ROUGHNESS
    // l = -v exactly (a grazing silhouette) has no half vector: the tiny z keeps normalize
    // defined there and changes nothing elsewhere.
    vec3 h = normalize(l + v + vec3(0.0, 0.0, 1.0e-20));
    float nDotV = max(abs(dot(n, v)), 1.0e-4);
    float nDotH = clamp(dot(n, h), 0.0, 1.0);
    // v.h may round to 1 + 1 ulp with the light behind the eye: clamped, so (1 - v.h)^5 never
    // raises a negative base (pow's result is undefined there, NaN on many GPUs).
    float oneMinusVDotH = 1.0 - clamp(dot(v, h), 0.0, 1.0);
    float squared = oneMinusVDotH * oneMinusVDotH;
    vec3 fresnel = m.f0 + (1.0 - m.f0) * (squared * squared * oneMinusVDotH);
    float a2 = m.alpha * m.alpha;
    float d = nDotH * nDotH * (a2 - 1.0) + 1.0;
    float distribution = a2 / (MYRIAD_PI * d * d);
    float visibility = 1.0 / ((nDotL + sqrt(a2 + (1.0 - a2) * nDotL * nDotL)) *
                              (nDotV + sqrt(a2 + (1.0 - a2) * nDotV * nDotV)));
    return (1.0 - fresnel) * m.diffuseColor / MYRIAD_PI + fresnel * (distribution * visibility);
#else
    return m.diffuseColor / MYRIAD_PI;
#endif
}

// The ambient radiance m reflects towards v (unit, towards the eye) at normal n: the flat sky
// u_ambient, or with MYRIAD_IMAGE_AMBIENT the scene's environment or hemisphere
// (docs/lighting.md, "Image-based ambient"). Diffuse c_diff * E(n) / pi (E the irradiance);
// with MYRIAD_METALLIC_ROUGHNESS plus the split sum's specular, the radiance prefiltered for
// roughness around the reflected direction times (f0 * scaleBias.x + scaleBias.y) (Karis, "Real
// Shading in Unreal Engine 4", 2013). Lambert passes scaleBias (0, 0).
#ifdef MYRIAD_IMAGE_AMBIENT
// Unit 17: the GGX-prefiltered equirectangular map, mip level k for roughness k / (levels - 1)
// (src/renderer/EnvironmentMap.cpp); nothing bound for a hemisphere.
layout(binding = MYRIAD_UNIT_ENVIRONMENT) uniform sampler2D u_environmentMap;
uniform vec3 u_ambientSh[9];  // E / pi as 9 L2 spherical harmonics (Environment::irradianceSh() / pi * intensity)
uniform vec4 u_environment;   // levels - 1 (-1: a hemisphere, no map), cos and sin of the rotation, intensity

// World direction to the image's own (Scene::environmentRotation turns it about +Y).
vec3 myriad_environmentDirection(vec3 d) {
    return vec3(u_environment.y * d.x - u_environment.z * d.z, d.y, u_environment.z * d.x + u_environment.y * d.z);
}

// E(n) / pi from the nine coefficients (Environment::shBasis's order and constants).
vec3 myriad_irradianceOverPi(vec3 d) {
    return u_ambientSh[0] * 0.282095 + u_ambientSh[1] * (0.488603 * d.y) + u_ambientSh[2] * (0.488603 * d.z) +
           u_ambientSh[3] * (0.488603 * d.x) + u_ambientSh[4] * (1.092548 * d.x * d.y) +
           u_ambientSh[5] * (1.092548 * d.y * d.z) + u_ambientSh[6] * (0.315392 * (3.0 * d.z * d.z - 1.0)) +
           u_ambientSh[7] * (1.092548 * d.x * d.z) + u_ambientSh[8] * (0.546274 * (d.x * d.x - d.y * d.y));
}

// The radiance prefiltered for roughness around direction d (image space). A hemisphere's:
// its blend at d, which its E / pi is.
vec3 myriad_prefiltered(vec3 d, float roughness) {
    if (u_environment.x < 0.0) {
        return myriad_irradianceOverPi(d);
    }
    // Environment::directionToUv; explicit level, so the seam at +Z needs no derivatives.
    vec2 uv = vec2(0.5 + (d.x == 0.0 && d.z == 0.0 ? 0.0 : atan(d.x, -d.z)) * (0.5 / MYRIAD_PI), acos(clamp(d.y, -1.0, 1.0)) * (1.0 / MYRIAD_PI));
    return textureLod(u_environmentMap, uv, roughness * u_environment.x).rgb * u_environment.w;
}
#endif

// A lightmap (MYRIAD_MATERIAL_TEXTURES, slot 5) replaces the diffuse part's E / pi; the specular
// part stays the sky's.
vec3 myriad_ambient(MyriadBrdfSurface m, vec3 n, vec3 v, float roughness, vec2 scaleBias) {
#ifdef MYRIAD_IMAGE_AMBIENT
    vec3 diffuseIrradianceOverPi = myriad_irradianceOverPi(myriad_environmentDirection(n));
#else
    vec3 diffuseIrradianceOverPi = u_ambient;
#endif
#ifdef MYRIAD_MATERIAL_TEXTURES
    if (myriad_hasTexture(5)) {
        diffuseIrradianceOverPi = myriad_lightmap();
    }
#endif
    vec3 rgb = m.diffuseColor * diffuseIrradianceOverPi;
#ifdef MYRIAD_IMAGE_AMBIENT
#ifdef MYRIAD_METALLIC_ROUGHNESS
    vec3 reflected = reflect(-v, n);
    rgb += myriad_prefiltered(myriad_environmentDirection(reflected), roughness) * (m.f0 * scaleBias.x + scaleBias.y);
#endif
#else
    rgb += (m.f0 * scaleBias.x + scaleBias.y) * u_ambient;
#endif
    return rgb;
}

vec4 myriad_lightTexel(int texel) { return uintBitsToFloat(texelFetch(u_lightList, u_lightBase + texel)); }

#ifdef MYRIAD_LAMP_SHADOW
// Lamp shadows (docs/lighting.md, "Lamp shadows"; src/renderer/LampShadowPass.h has the record
// layout): the lamps' depth tiles in one atlas, compare mode on (hardware PCF, as the sun's),
// and per shadowed lamp its faces' matrices and tiles.
layout(binding = MYRIAD_UNIT_LAMP_SHADOW_ATLAS) uniform sampler2DShadow u_lampShadowAtlas;
layout(binding = MYRIAD_UNIT_LAMP_SHADOW_RECORDS) uniform samplerBuffer u_lampShadowRecords;

// The fraction of lamp `slot`'s light that reaches a point `fromLamp` (world, from the lamp)
// with normal n, l towards the lamp: 1 lit, 0 shadowed. The point moves towards the lamp by
// `bias` texels and along its normal by `normal offset` texels times sin(angle to the lamp),
// a texel being the tile's footprint at the point's distance; a point lamp's face is the
// major axis of the moved point; (2r + 1)^2 compared taps, clamped inside the tile.
float myriad_lampShadow(int slot, vec3 fromLamp, vec3 n, vec3 l) {
    int base = slot * 32;
    vec4 head = texelFetch(u_lampShadowRecords, base);
    vec4 sizes = texelFetch(u_lampShadowRecords, base + 1);
    float texel = length(fromLamp) * sizes.y;
    float cosine = clamp(dot(n, l), 0.0, 1.0);
    vec3 p = fromLamp + n * (head.z * texel * sqrt(1.0 - cosine * cosine)) + l * (head.y * texel);
    int face = 0;
    if (head.x > 1.5) {
        vec3 a = abs(p);
        face = a.x >= a.y && a.x >= a.z ? (p.x > 0.0 ? 0 : 1) : a.y >= a.z ? (p.y > 0.0 ? 2 : 3) : (p.z > 0.0 ? 4 : 5);
    }
    int at = base + 2 + 5 * face;
    mat4 clipFromLamp = mat4(texelFetch(u_lampShadowRecords, at), texelFetch(u_lampShadowRecords, at + 1),
                             texelFetch(u_lampShadowRecords, at + 2), texelFetch(u_lampShadowRecords, at + 3));
    vec4 tile = texelFetch(u_lampShadowRecords, at + 4);
    vec4 clip = clipFromLamp * vec4(p, 1.0);
    if (clip.w <= 0.0) {
        return 1.0;
    }
    vec3 ndc = clip.xyz / clip.w;
    if (any(greaterThan(abs(ndc.xy), vec2(1.0))) || ndc.z > 1.0) {
        return 1.0;  // outside the lamp's view (beyond a wide spot's 85 degrees, or its range): lit
    }
    vec2 uv = tile.xy + (ndc.xy * 0.5 + 0.5) * tile.z;
    vec2 low = tile.xy + vec2(0.5 * sizes.x);
    vec2 high = tile.xy + vec2(tile.z - 0.5 * sizes.x);
    int radius = int(head.w);
    float lit = 0.0;
    for (int y = -radius; y <= radius; ++y) {
        for (int x = -radius; x <= radius; ++x) {
            vec2 c = clamp(uv + vec2(x, y) * sizes.x, low, high);
            lit += textureGrad(u_lampShadowAtlas, vec3(c, ndc.z), vec2(0.0), vec2(0.0));
        }
    }
    float taps = float(2 * radius + 1);
    return lit / (taps * taps);
}
#endif

// One light as it arrives at a surface point (what a lighting function receives; docs/shaders.md,
// "Lighting and fragment functions").
#define MYRIAD_LIGHT_SUN 0          // Scene::light
#define MYRIAD_LIGHT_DIRECTIONAL 1  // a directional LightNode
#define MYRIAD_LIGHT_POINT 2
#define MYRIAD_LIGHT_SPOT 3
struct LightSample {
    vec3 direction;     // world space, unit length, from the surface towards the light
    vec3 radiance;      // colour * intensity * attenuation * shadow, linear RGB: the illuminance
                        // on a surface facing the light (lux, KHR_lights_punctual's units)
    float attenuation;  // a lamp's falloff * range window * cone (1 for directional lights),
                        // without the shadow; 0 where the light does not reach (channels)
    float shadow;       // the fraction the shadow lookup lets through: 1 lit, 0 shadowed
    int kind;           // MYRIAD_LIGHT_SUN, _DIRECTIONAL, _POINT or _SPOT
    uint channels;      // the light's channel mask
};

// Light `index` of the list at a camera-relative point with normal n: KHR_lights_punctual's
// inverse-square falloff, its range window clamp(1 - (d/R)^4, 0, 1)^2 and its spot cone;
// attenuation 0 where its channels and the surface's share no bit; with MYRIAD_LAMP_SHADOW a
// shadowed lamp's shadow (myriad_lampShadow()).
LightSample myriad_listedSample(int index, vec3 relativePosition, vec3 n, uint channels) {
    uvec4 directionBits = texelFetch(u_lightList, u_lightBase + 4 * index + 2);
    vec4 place = myriad_lightTexel(4 * index);
    vec4 color = myriad_lightTexel(4 * index + 1);
    vec3 direction = uintBitsToFloat(directionBits.xyz);
    vec3 l = -direction;
    float attenuation = (directionBits.w & channels) != 0u ? 1.0 : 0.0;
    if (color.w != 0.0) {  // a point or spot lamp
        vec4 shape = myriad_lightTexel(4 * index + 3);
        vec3 toLight = place.xyz - relativePosition;
        float distanceSquared = max(dot(toLight, toLight), 1.0e-8);
        l = toLight * inversesqrt(distanceSquared);
        float ratio = distanceSquared * shape.z;  // (d / R)^2
        float window = clamp(1.0 - ratio * ratio, 0.0, 1.0);
        attenuation *= window * window / distanceSquared;
        float cone = clamp(dot(direction, -l) * shape.x + shape.y, 0.0, 1.0);
        attenuation *= cone * cone;
    }
    float shadow = 1.0;
#ifdef MYRIAD_LAMP_SHADOW
#if defined(MYRIAD_USER_LIGHTING) || defined(MYRIAD_USER_FRAGMENT)
    bool wanted = attenuation > 0.0;  // user functions see lights facing away too
#else
    bool wanted = attenuation > 0.0 && dot(n, l) > 0.0;  // a face turned away gets nothing anyway
#endif
    float shadowSlot = color.w != 0.0 ? myriad_lightTexel(4 * index + 3).w : 0.0;
    if (wanted && shadowSlot > 0.5) {
        shadow = myriad_lampShadow(int(shadowSlot) - 1, relativePosition - place.xyz, n, l);
    }
#endif
    return LightSample(l, color.rgb * (attenuation * shadow), attenuation, shadow, int(color.w) + 1, directionBits.w);
}

#ifdef MYRIAD_USER_LIGHTING
vec3 myriad_userLighting(LightSample light);  // the user's lighting(), below
#endif

// The radiance light `index` of the list reflects towards v: BRDF * illuminance * cos; 0 where
// its channels and the surface's share no bit. With a lighting function: its lighting() for
// every light that reaches the point, facing it or not.
vec3 myriad_listedLight(int index, vec3 relativePosition, vec3 n, vec3 v, MyriadBrdfSurface m, uint channels) {
    LightSample light = myriad_listedSample(index, relativePosition, n, channels);
#ifdef MYRIAD_USER_LIGHTING
    return light.attenuation > 0.0 ? myriad_userLighting(light) : vec3(0.0);
#else
    float nDotL = dot(n, light.direction);
    if (nDotL <= 0.0 || light.attenuation <= 0.0) {
        return vec3(0.0);
    }
    return myriad_brdf(m, n, v, light.direction, nDotL) * light.radiance * nDotL;
#endif
}

// This fragment's cluster in the list: (first index, lamp count).
uvec2 myriad_cluster(vec3 relativePosition) {
    ivec2 tile = clamp(ivec2((gl_FragCoord.xy - u_lightViewport.xy) * u_lightViewport.zw), ivec2(0), u_lightGrid.xy - 1);
    float depth = dot(relativePosition, u_lightForward.xyz) - u_lightForward.w;
    int slice = int(clamp((log2(max(depth, 0.0) + u_lightSlices.x) - log2(u_lightSlices.x)) * u_lightSlices.y, 0.0,
                          float(u_lightGrid.z - 1)));
    int cluster = (slice * u_lightGrid.y + tile.y) * u_lightGrid.x + tile.x;
    int clustersTexel = 4 * (u_lightCounts.x + u_lightCounts.y);
    return texelFetch(u_lightList, u_lightBase + clustersTexel + cluster).xy;
}

// Lamp `i` (0..count - 1) of the cluster `header` (myriad_cluster()): its index in the list.
int myriad_clusterLamp(uvec2 header, uint i) {
    uint at = header.x + i;
    uint lamp = texelFetch(u_lightList, u_lightBase + u_lightGrid.w + int(at >> 2u))[at & 3u];
    return u_lightCounts.x + int(lamp);
}

// Every directional light, then the lamps of this fragment's cluster.
vec3 myriad_listedLights(vec3 relativePosition, vec3 n, vec3 v, MyriadBrdfSurface m, uint channels) {
    vec3 radiance = vec3(0.0);
    for (int i = 0; i < u_lightCounts.x; ++i) {
        radiance += myriad_listedLight(i, relativePosition, n, v, m, channels);
    }
    if (u_lightCounts.y == 0) {
        return radiance;
    }
    uvec2 header = myriad_cluster(relativePosition);
    for (uint i = 0u; i < header.y; ++i) {
        radiance += myriad_listedLight(myriad_clusterLamp(header, i), relativePosition, n, v, m, channels);
    }
    return radiance;
}
#endif

// Shader-data lane `lane` (0..MYRIAD_MAX_LANES - 1) of this fragment's instance or node, exact
// (docs/lanes.md); (0, 0, 0, 0) where never given and past the batch's lane count. Read here,
// not passed as varyings (surface.vert says why); never from an unbound attribute, which
// would read (0, 0, 0, 1).
#if defined(MYRIAD_INSTANCE_LANES)
// The batch's lanes stream: myriad_lanes_vectors vec4 per instance (its laneCount), unit 3.
layout(binding = MYRIAD_UNIT_LANES) uniform samplerBuffer myriad_lanes;
uniform int myriad_lanes_vectors;
vec4 myriad_lane(int lane) {
    return lane < myriad_lanes_vectors ? texelFetch(myriad_lanes, v_instanceIndex * myriad_lanes_vectors + lane)
                                       : vec4(0.0);
}
#elif defined(MYRIAD_TABLED)
// A MeshNode's shader data in its draw-table row (a batch with lanes is not drawn by the
// table; a batch without reads zeros there).
layout(binding = MYRIAD_UNIT_DRAW_TABLE) uniform usamplerBuffer u_drawTable;
vec4 myriad_lane(int lane) {
    return lane < 4 ? uintBitsToFloat(texelFetch(u_drawTable, v_drawRow * MYRIAD_DRAW_ROW_TEXELS + MYRIAD_DRAW_ROW_LANES + lane))
                    : vec4(0.0);
}
#elif defined(MYRIAD_SCATTER)
vec4 myriad_lane(int lane) { return vec4(0.0); }  // a scatter node has no shader data
#else
uniform vec4 u_lanes[4];  // a MeshNode's shader data, or zeros
vec4 myriad_lane(int lane) { return lane < 4 ? u_lanes[lane] : vec4(0.0); }
#endif

// What a surface function receives. All colours linear.
struct SurfaceInput {
    vec2 uv;              // first texture coordinate set
    vec4 color;           // vertex colour * instance colour (vertex colour white with a VertexColor lightmap)
    vec3 normal;          // world space, unit length, on the side facing the viewer
    vec3 worldPosition;   // world space (float)
    vec3 viewDirection;   // world space, unit length, towards the eye (along the view axis in
                          // an orthographic view, whose rays are parallel)
    int instanceIndex;    // index of the instance in its batch; 0 for a MeshNode
    vec2 screenPosition;  // window coordinates in pixels (gl_FragCoord.xy)
    vec4 lanes[MYRIAD_MAX_LANES];  // shader data: the instance's (or MeshNode's) lanes, exact;
                          // (0, 0, 0, 0) where never given or past the batch's laneCount.
                          // myriad gives them no meaning.
    int materialIndex;    // the material's index in the renderer's identity table (0: none);
                          // the same in every fragment of a draw
};

// What a surface function returns: base colour (linear RGB) and alpha (opacity 0..1).
struct SurfaceOutput {
    vec3 baseColor;
    float alpha;
};

// The material's base colour factor times its texture at uv (linear RGBA); with material
// textures, at the base colour's set (uv or uv1) through its KHR_texture_transform.
vec4 myriad_materialColor(vec2 uv) {
    vec4 color = u_baseColor;
#ifdef MYRIAD_MATERIAL_TEXTURES
    uv = myriad_textureUv(0, uv);
#endif
    if (u_hasTexture != 0) {
        color *= texture(u_baseColorTexture, uv);
    }
    return color;
}

#ifdef MYRIAD_USER_SURFACE
// MYRIAD_SURFACE_FUNCTION
#else
SurfaceOutput surface(SurfaceInput s) {
    vec4 color = s.color * myriad_materialColor(s.uv);
    return SurfaceOutput(color.rgb, color.a);
}
#endif

#if defined(MYRIAD_LIT) && (defined(MYRIAD_USER_LIGHTING) || defined(MYRIAD_USER_FRAGMENT))
// What a lighting or fragment function receives of the surface (docs/shaders.md, "Lighting and
// fragment functions"). All colours linear, directions world space and unit length.
struct ShadedSurface {
    vec3 baseColor;      // the surface function's base colour times the node's tint
    float alpha;         // its alpha times the tint's
    vec3 normal;         // facing the viewer
    vec3 viewDirection;  // towards the eye (along the view axis in an orthographic view)
    vec3 worldPosition;  // world space (float)
    float metallic;      // the material's (MetallicRoughness); 0 for Shading::Lit
    float roughness;     // perceptual, 0.045..1 (MetallicRoughness); 1 for Shading::Lit
    float occlusion;     // ambient occlusion, 1: none
    vec3 emission;       // emitted radiance; main() adds it after a lighting function's lights;
                         // a fragment function adds it itself if it wants it
    vec3 ambient;        // the ambient radiance myriad reflects here (its sky, or a lightmap's diffuse part, through the BRDF)
    uint channels;       // the light channels this fragment accepts
    SurfaceInput surfaceInput;  // what the surface function received (uv, colour, instance index, lanes...)
};
ShadedSurface myriad_shaded;  // this fragment's, set by main() before any user function runs

// myriad's BRDF inputs for @p s (glTF 2.0 Appendix B; Lambert: f0 = 0).
MyriadBrdfSurface myriad_brdfSurfaceOf(ShadedSurface s) {
#ifdef MYRIAD_METALLIC_ROUGHNESS
    return MyriadBrdfSurface(mix(s.baseColor, vec3(0.0), s.metallic), mix(vec3(0.04), s.baseColor, s.metallic),
                             s.roughness * s.roughness);
#else
    return MyriadBrdfSurface(s.baseColor, vec3(0.0), 1.0);
#endif
}

// The sun's shadow at @p s: 1 lit, 0 shadowed (1 without a shadow map).
float myriad_sunShadow(ShadedSurface s) {
#ifdef MYRIAD_SHADOW_RECEIVE
    return myriad_shadow(v_relativePosition, s.normal);  // this fragment: the exact position
#else
    return 1.0;
#endif
}

// Scene::light at @p s: its illuminance is pi * colour (a white Lambert surface facing it
// shows its colour), shadowed by the sun's cascades.
LightSample myriad_sunSample(ShadedSurface s) {
    float reaches = (uint(u_sunChannels) & s.channels) != 0u ? 1.0 : 0.0;
    float shadow = reaches > 0.0 ? myriad_sunShadow(s) : 1.0;
    return LightSample(-u_lightDirection, MYRIAD_PI * u_lightColor * (reaches * shadow), reaches, shadow,
                       MYRIAD_LIGHT_SUN, uint(u_sunChannels));
}

// How many lights are listed for @p s's fragment: Scene::light, every directional LightNode,
// then the point and spot lamps of its cluster. A listed light may still not reach it
// (attenuation 0: beyond its range, outside its cone, no channel in common).
int myriad_lightCount(ShadedSurface s) {
    int count = 1 + u_lightCounts.x;
    if (u_lightCounts.y > 0) {
        count += int(myriad_cluster(v_relativePosition).y);
    }
    return count;
}

// Listed light @p i (0..myriad_lightCount(s) - 1) at @p s: 0 is Scene::light, then the
// directional lights, then the cluster's lamps.
LightSample myriad_light(ShadedSurface s, int i) {
    if (i == 0) {
        return myriad_sunSample(s);
    }
    int index = i - 1;
    vec3 relativePosition = v_relativePosition;  // this fragment's (s.worldPosition less rounded)
    if (index >= u_lightCounts.x) {
        index = myriad_clusterLamp(myriad_cluster(relativePosition), uint(index - u_lightCounts.x));
    }
    return myriad_listedSample(index, relativePosition, s.normal, s.channels);
}

// What myriad's own lighting reflects from @p light at @p s: its BRDF (Lambert or glTF's
// metallic-roughness) * radiance * cos; 0 for a light behind the surface.
vec3 myriad_shadeLight(ShadedSurface s, LightSample light) {
    float nDotL = dot(s.normal, light.direction);
    if (nDotL <= 0.0 || light.attenuation <= 0.0) {
        return vec3(0.0);
    }
    return myriad_brdf(myriad_brdfSurfaceOf(s), s.normal, s.viewDirection, light.direction, nDotL) * light.radiance *
           nDotL;
}

#ifdef MYRIAD_USER_LIGHTING
// MYRIAD_LIGHTING_FUNCTION
vec3 myriad_userLighting(LightSample light) { return lighting(myriad_shaded, light); }
#else
// MYRIAD_FRAGMENT_FUNCTION
#endif
#endif

#ifdef MYRIAD_FOG
// Fog (docs/lighting.md, "Fog"): the fraction myriad_fogFactor() of the lit colour remains,
// the fog's colour makes up the rest. Alpha is left as it is, so an "over"-blended surface
// (SRC_ALPHA, ONE_MINUS_SRC_ALPHA) adds alpha * its fogged colour to what is behind, which
// its own distance has fogged already.
vec3 myriad_applyFog(vec3 rgb) {
    return mix(u_fogColor, rgb, myriad_fogFactor(v_relativePosition, u_eye.y));
}
#endif

void main() {
#ifdef MYRIAD_LOD_FADE
    if ((v_lodFade & 0x80u) != 0u) {
        bool below = myriad_bayer8(uvec2(gl_FragCoord.xy)) < (v_lodFade & 0x3Fu);
        if (below != ((v_lodFade & 0x40u) != 0u)) {
            discard;
        }
    }
#endif
    // A mirrored transform turns a front face clockwise on screen; its true side is
    // gl_FrontFacing flipped by the handedness.
    bool front = gl_FrontFacing == (v_handedness > 0.0);
#ifdef MYRIAD_MIXED_MIRRORING
    if (!front) {
        discard;
    }
#endif
    vec3 normal = normalize(v_normal);
    if (!front) {
        normal = -normal;  // two-sided materials light their back faces too
    }
#if defined(MYRIAD_MATERIAL_TEXTURES) && !defined(MYRIAD_DEPTH_ONLY)
    normal = myriad_mappedNormal(normal, front);  // the normal map, if any
#endif
    SurfaceInput s;
    s.uv = v_uv0;
    s.color = v_color;
    s.normal = normal;
    s.worldPosition = v_relativePosition + u_eye;
    // Towards the eye: from the point in a perspective view, along the view axis in an
    // orthographic one (whose rays are parallel; a point may even lie behind the eye's plane).
    s.viewDirection = u_viewAxis.w != 0.0 ? u_viewAxis.xyz : normalize(-v_relativePosition);
    s.instanceIndex = v_instanceIndex;
    s.screenPosition = gl_FragCoord.xy;
    for (int lane = 0; lane < MYRIAD_MAX_LANES; ++lane) {
        s.lanes[lane] = myriad_lane(lane);  // the compiler drops the fetches a surface never reads
    }
    s.materialIndex = u_materialIndex;
    SurfaceOutput surfaceOut = surface(s);
    vec4 albedo = vec4(surfaceOut.baseColor, surfaceOut.alpha) * u_tint;
#ifdef MYRIAD_ALPHA_MASK
    if (albedo.a < u_alphaCutoff) {
        discard;
    }
#endif
#ifdef MYRIAD_DEPTH_ONLY
    o_color = vec4(0.0);
#else
    vec3 rgb = albedo.rgb;
#ifdef MYRIAD_LIT
    MyriadBrdfSurface brdfSurface = MyriadBrdfSurface(albedo.rgb, vec3(0.0), 1.0);
    vec3 view = s.viewDirection;
    // glTF 2.0 Appendix B: dielectrics reflect 4% at normal incidence, metals their base colour
    // and diffuse nothing; roughness below 0.045 is drawn as 0.045 (alpha >= 0.002), as
    // Filament does, since a float's GGX peak is not finite below it. Lambert: 0 and 1.
#ifdef MYRIAD_METALLIC_ROUGHNESS
    float metallic = clamp(u_metallicRoughness.x, 0.0, 1.0);
    float roughness = clamp(u_metallicRoughness.y, 0.045, 1.0);
#ifdef MYRIAD_MATERIAL_TEXTURES
    if (myriad_hasTexture(1)) {  // glTF: B metallic, G roughness, times the factors
        vec4 metallicRoughnessTexel = texture(u_metallicRoughnessTexture, myriad_textureUv(1, v_uv0));
        metallic = clamp(metallic * metallicRoughnessTexel.b, 0.0, 1.0);
        roughness = clamp(u_metallicRoughness.y * metallicRoughnessTexel.g, 0.045, 1.0);
    }
#endif
#else
    float metallic = 0.0;
    float roughness = 1.0;
#endif
    // Ambient occlusion: the ambient (indirect) light only, never the lights added below (glTF).
    float occlusion = 1.0;
#ifdef MYRIAD_MATERIAL_TEXTURES
    occlusion = myriad_occlusion(v_uv0);
#endif
    vec3 emission = u_emissive;
#ifdef MYRIAD_MATERIAL_TEXTURES
    if (myriad_hasTexture(4)) {  // sRGB texture: reads linear; times emissive * strength
        emission *= texture(u_emissiveTexture, myriad_textureUv(4, v_uv0)).rgb;
    }
#endif
#ifdef MYRIAD_METALLIC_ROUGHNESS
    brdfSurface = MyriadBrdfSurface(mix(albedo.rgb, vec3(0.0), metallic), mix(vec3(0.04), albedo.rgb, metallic),
                                    roughness * roughness);
    // Ambient: the uniform sky of radiance u_ambient, diffuse c_diff * L plus the specular
    // integral of the split sum, Karis' analytic fit of its (scale, bias) ("Physically Based
    // Shading on Mobile", 2014).
    vec4 c0 = vec4(-1.0, -0.0275, -0.572, 0.022);
    vec4 c1 = vec4(1.0, 0.0425, 1.04, -0.04);
    vec4 r = roughness * c0 + c1;
    float nDotV = max(dot(normal, view), 0.0);
    float a004 = min(r.x * r.x, exp2(-9.28 * nDotV)) * r.x + r.y;
    vec2 scaleBias = vec2(-1.04, 1.04) * a004 + r.zw;
    rgb = myriad_ambient(brdfSurface, normal, view, roughness, scaleBias);
#else
    rgb = myriad_ambient(brdfSurface, normal, view, 1.0, vec2(0.0));  // Lambert: albedo * E / pi
#endif
    rgb *= occlusion;  // ambient only
    uint channels = myriad_lightChannels();
#ifdef MYRIAD_INSTANCE_LIGHT_CHANNELS
    channels &= myriad_instanceChannels();  // the node's and the instance's (docs/lighting.md)
#endif
#if defined(MYRIAD_USER_LIGHTING) || defined(MYRIAD_USER_FRAGMENT)
    myriad_shaded = ShadedSurface(albedo.rgb, albedo.a, normal, view, s.worldPosition, metallic, roughness, occlusion,
                                  emission, rgb, channels, s);
#endif
#ifdef MYRIAD_USER_FRAGMENT
    vec4 shaded = fragment(myriad_shaded);  // the user's: the lit colour and alpha whole
    rgb = shaded.rgb;
    albedo.a = shaded.a;
#else
#ifdef MYRIAD_USER_LIGHTING
#ifdef MYRIAD_AMBIENT_FUNCTION
    rgb = ambient(myriad_shaded);  // the user's ambient replaces myriad's
#endif
    LightSample sun = myriad_sunSample(myriad_shaded);
    if (sun.attenuation > 0.0) {
        rgb += lighting(myriad_shaded, sun);
    }
#else
    float sunCosine = dot(normal, -u_lightDirection);
    if (sunCosine > 0.0 && (uint(u_sunChannels) & channels) != 0u) {
        // Scene::light keeps its meaning from before LightNode: a white Lambert surface facing
        // it shows its colour, so its illuminance is pi * colour (lux).
        float lit = 1.0;
#ifdef MYRIAD_SHADOW_RECEIVE
        lit = myriad_shadow(v_relativePosition, normal);
#endif
        rgb += myriad_brdf(brdfSurface, normal, view, -u_lightDirection, sunCosine) * (MYRIAD_PI * u_lightColor) *
               (sunCosine * lit);
    }
#endif
    rgb += myriad_listedLights(v_relativePosition, normal, view, brdfSurface, channels);
    rgb += emission;
#endif
#endif
#ifdef MYRIAD_FOG
    rgb = myriad_applyFog(rgb);
#endif
#ifdef MYRIAD_ENCODE_SRGB
    rgb = myriad_encodeSrgb(rgb);
#endif
#ifdef MYRIAD_BLEND
    o_color = vec4(rgb, albedo.a);
#else
    o_color = vec4(rgb, 1.0);
#endif
#endif
#ifdef MYRIAD_VELOCITY
    // NDC to window is x_w = (x_ndc + 1) * width / 2 + x: the viewport's origin cancels.
    o_velocity = (v_currentClip.xy / v_currentClip.w - v_previousClip.xy / v_previousClip.w) * 0.5 * u_viewportSize;
#endif
}
