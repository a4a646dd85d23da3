#pragma once
// Internal to myriad_gl: one GLSL source per stage (shaders/surface.vert, surface.frag) with
// feature switches, compiled on demand into one program per (feature set, surface function)
// and cached. The per-instance stream declarations are generated here from the streams'
// InstanceStreamDesc, the same declarations GpuResources binds. A frame requests every variant
// it needs first and waits for them together (GL_KHR_parallel_shader_compile); with a cache
// folder, linked programs are kept on disk as glProgramBinary blobs (ProgramBinaryCache).
#include "renderer/ProgramBinaryCache.h"
#include "gl/ProgramBuild.h"
#include "myriad/core/SurfaceShader.h"
#include "myriad/gl/Program.h"
#include "myriad/gl/View.h"

#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace myriad::gl::detail {

/** Feature switches of the surface shaders (one bit each). */
enum ShaderFeature : std::uint32_t {
    kInstanced = 1u << 0,             ///< MYRIAD_INSTANCED
    kMorph = 1u << 1,                 ///< MYRIAD_MORPH
    kInstanceMorphWeights = 1u << 2,  ///< MYRIAD_INSTANCE_MORPH_WEIGHTS
    kLit = 1u << 3,                   ///< MYRIAD_LIT
    kAlphaMask = 1u << 4,             ///< MYRIAD_ALPHA_MASK
    kBlend = 1u << 5,                 ///< MYRIAD_BLEND
    kMixedMirroring = 1u << 6,        ///< MYRIAD_MIXED_MIRRORING
    kDepthOnly = 1u << 7,             ///< MYRIAD_DEPTH_ONLY
    kInstanceLanes = 1u << 8,         ///< MYRIAD_INSTANCE_LANES: lanes from the instance stream
    kIndexed = 1u << 9,               ///< MYRIAD_INDEXED: read through a visible-index list
    // particles and scatter (src/renderer/ParticlePass.cpp, docs/particles.md): their own stages
    kParticle = 1u << 10,              ///< MYRIAD_PARTICLE: particle.vert + particle.frag
    kScatter = 1u << 11,               ///< MYRIAD_SCATTER: scatter.vert + surface.frag
    kShadowReceive = 1u << 12,         ///< MYRIAD_SHADOW_RECEIVE: Lit, sampling the shadow map (renderer/ShadowPass.h)
    /** MYRIAD_ENCODE_SRGB: the fragment stage encodes its colour with myriad_encodeSrgb()
     *  (kEncodeSrgbGlsl, inserted before the file's text) for a linear 8-bit target that the
     *  view wants display-encoded (outputFeatures()). */
    kEncodeSrgb = 1u << 13,
    /** MYRIAD_TABLED: the table-driven path (renderer/DrawTable.h): records from the shared
     *  arena, the draw's constants from its draw-table row, found through the (row, instance)
     *  attribute; always with kInstanced. */
    kTabled = 1u << 14,
    /** MYRIAD_SKIN: linear blend skinning (docs/skinning.md) with the joints and weights
     *  attributes and the matrices on kSkinUnit: the node's palette, or with kSkinAnimated the
     *  batch's baked AnimationSet read per instance. */
    kSkin = 1u << 15,
    /** MYRIAD_SKIN_ANIMATED: with kSkin and kInstanced, each instance's own palette on kSkinUnit,
     *  blended from the baked clips at its own time before the frame's draws
     *  (renderer/SkinPalettePass.h). */
    kSkinAnimated = 1u << 16,
    /** MYRIAD_VELOCITY: a second fragment output (location 1), the window-space displacement
     *  since the previous frame in pixels (View::velocity; docs/visibility.md, "Motion
     *  vectors"): the previous clip position from u_prevViewProjection, u_prevModel and, when
     *  instanced, the previous record on kPreviousRecordUnit. Never with kTabled, kBlend,
     *  kDepthOnly, kParticle or kScatter. (Bit 18 is LOD fade's.) */
    kVelocity = 1u << 17,
    /** MYRIAD_LOD_FADE: with kIndexed, a fading LOD chain's level draw (docs/visibility.md,
     *  "Level of detail"): each list entry's top byte is the instance's fade code
     *  (lodFadeEntry(), myriad/core/Lod.h), the record index its low 24 bits, and the fragment
     *  stage discards the pixels the code leaves to the other level (8x8 Bayer threshold). */
    kLodFade = 1u << 18,
    /** MYRIAD_METALLIC_ROUGHNESS: with kLit, glTF 2.0's metallic-roughness BRDF (Appendix B:
     *  GGX distribution, Smith visibility, Schlick Fresnel, Lambert diffuse) instead of Lambert
     *  alone, from the draw's metallic, roughness and emission (docs/lighting.md). */
    kMetallicRoughness = 1u << 19,
    // Bit 20 is free.
    /** MYRIAD_FOG: the scene's fog (Scene::fog, docs/lighting.md "Fog") applied after lighting,
     *  before sRGB encoding: kFogGlsl (inserted before the file's text) gives myriad_fogFactor()
     *  and the u_fog* uniforms, the mode among them (one variant for every mode). Never with
     *  kDepthOnly. */
    kFog = 1u << 21,
    /** MYRIAD_IMAGE_AMBIENT: with kLit, ambient from Scene::environment (irradiance as nine
     *  spherical-harmonic uniforms, specular from the prefiltered map on kEnvironmentUnit) or
     *  Scene::hemisphere instead of the flat Scene::ambient (renderer/EnvironmentMap.h,
     *  docs/lighting.md "Image-based ambient"). */
    kImageAmbient = 1u << 25,
    /** MYRIAD_INSTANCE_LIGHT_CHANNELS: with kInstanced and kLit, each instance's own light
     *  channels (InstancedMeshNode::setInstanceLightChannels) read from the lightChannels
     *  stream on kInstanceLightChannelsUnit by instance index, ANDed with the node's. Never
     *  with kTabled (such a batch is drawn by the uniform path). */
    kInstanceLightChannels = 1u << 28,
    /** MYRIAD_LAMP_SHADOW: with kLit, each listed point or spot lamp that has shadow tiles
     *  (light list texel 3's w) scales its term by myriad_lampShadow(): the lamp shadow atlas on
     *  kLampShadowAtlasUnit, the lamps' tile records on kLampShadowRecordsUnit
     *  (renderer/LampShadowPass.h; docs/lighting.md, "Lamp shadows"). Bit 27 is kept for it too. */
    kLampShadowReceive = 1u << 26,
    /** MYRIAD_MATERIAL_TEXTURES: the material has extra textures or reads its base colour at uv1
     *  or through a transform (Material::hasMaterialTextures()): surface.vert passes uv1 ((0, 0)
     *  for a mesh without, u_textureSlots.z saying which) and the vertex colour's red and green,
     *  surface.frag reads the metallic-roughness, normal, occlusion and emissive textures (units
     *  12-15) and the lightmap (unit 16, in place of the diffuse ambient) where u_textureSlots
     *  says, each at its set and KHR_texture_transform (docs/lighting.md, "Material textures",
     *  "Lightmaps"). Not for scatter or
     *  populations; in depth-only views only for alpha-masked materials. */
    kMaterialTextures = 1u << 22,
    /** MYRIAD_TANGENT_FRAME: with kMaterialTextures, a normal-mapped material on a mesh with
     *  tangents (MeshData::tangents): surface.vert passes the world tangent and its handedness;
     *  without it the normal map's frame comes from screen-space derivatives. */
    kTangentFrame = 1u << 23,
};

/** The sRGB OETF of IEC 61966-2-1 in GLSL (alpha is never encoded). Clamped first: a unorm
 *  target clamps anyway, and pow() of a negative value is undefined. */
inline constexpr std::string_view kEncodeSrgbGlsl =
    "vec3 myriad_encodeSrgb(vec3 linearColor) {\n"
    "    vec3 c = clamp(linearColor, 0.0, 1.0);\n"
    "    return mix(12.92 * c, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, step(vec3(0.0031308), c));\n"
    "}\n";

/** The fog of the fragment stages (kFog), inserted before the file's text: the view's fog as
 *  uniforms (set once per program and view, renderer/Fog.h) and myriad_fogFactor(), the
 *  fraction of a surface's colour that remains at a camera-relative position. Formulas:
 *  docs/lighting.md, "Fog"; Height is Inigo Quilez's closed form ("Better fog", 2010) of the
 *  optical depth through density * exp(-falloff * (y - height)) along the ray. */
inline constexpr std::string_view kFogGlsl =
    "uniform int u_fogMode;     // 1 linear, 2 exponential, 3 exponential squared, 4 height\n"
    "uniform vec3 u_fogColor;   // linear RGB\n"
    "uniform vec4 u_fogParams;  // start, end, density, 1 / (end - start)\n"
    "uniform vec2 u_fogHeight;  // base height (world y), height falloff (per world unit)\n"
    "float myriad_fogFactor(vec3 relativePosition, float eyeHeight) {\n"
    "    float d = length(relativePosition);\n"
    "    float density = u_fogParams.z;\n"
    "    if (u_fogMode == 1) {\n"
    "        return clamp((u_fogParams.y - d) * u_fogParams.w, 0.0, 1.0);\n"
    "    }\n"
    "    if (u_fogMode == 2) {\n"
    "        return exp(-density * d);\n"
    "    }\n"
    "    if (u_fogMode == 3) {\n"
    "        float x = density * d;\n"
    "        return exp(-x * x);\n"
    "    }\n"
    "    // Height: density(y) = density * exp(-b * (y - h)). Along the ray from the eye (height\n"
    "    // e) to the point (height p), the optical depth is d times the mean of exp over\n"
    "    // [v, u], u = -b * (e - h), v = -b * (p - h): density * d * (exp(u) - exp(v)) / (u - v)\n"
    "    // (exp at the midpoint when u and v are near). Capped at 80: 80 / b below the base\n"
    "    // height the fog is whole anyway.\n"
    "    float b = u_fogHeight.y;\n"
    "    float u = min(-b * (eyeHeight - u_fogHeight.x), 80.0);\n"
    "    float v = min(-b * (eyeHeight + relativePosition.y - u_fogHeight.x), 80.0);\n"
    "    float w = u - v;\n"
    "    float mean = abs(w) > 1.0e-2 ? (exp(u) - exp(v)) / w : exp(0.5 * (u + v));\n"
    "    return exp(-density * d * mean);\n"
    "}\n";

/** True when the shaders encode for @p view: it wants display output, its target stores
 *  linear fixed-point values, and it writes colour. @p view.targetEncoding must be resolved
 *  (not TargetEncoding::Query; the renderer resolves it before building the passes). */
[[nodiscard]] inline bool encodesInShader(const View& view) noexcept {
    return !view.depthOnly && view.output == ColorOutput::Display && view.targetEncoding == TargetEncoding::Linear;
}

/** The output switches of @p view's colour programs: kEncodeSrgb or nothing. */
[[nodiscard]] inline std::uint32_t outputFeatures(const View& view) noexcept {
    return encodesInShader(view) ? kEncodeSrgb : 0u;
}

struct ShaderKey {
    std::uint32_t features = 0;
    std::uint64_t surfaceId = 0;  ///< SurfaceShader::id(); 0: the built-in surface
    friend bool operator==(const ShaderKey&, const ShaderKey&) = default;
};

/** Uniform locations of a surface program (-1 when the variant does not use one). */
struct SurfaceUniforms {
    int viewProjection = -1;
    int model = -1;
    int baseInstance = -1;
    int morphTargetCount = -1;
    int vertexCount = -1;
    int morphWeights = -1;
    int baseColor = -1;
    int hasTexture = -1;
    int alphaCutoff = -1;
    int tint = -1;
    int eye = -1;
    int lightDirection = -1;
    int lightColor = -1;
    int ambient = -1;
    int ambientSh = -1;         ///< u_ambientSh[0] (kImageAmbient): vec3[9], E / pi as L2 spherical harmonics
    int environment = -1;       ///< u_environment (kImageAmbient): levels - 1 (-1: hemisphere), cos, sin of the rotation, intensity
    int sunChannels = -1;       ///< u_sunChannels (kLit): Scene::light's channel mask
    int lightChannels = -1;     ///< u_lightChannels (kLit, not kTabled): the node's SceneNode::lightChannels()
    int metallicRoughness = -1; ///< u_metallicRoughness (kMetallicRoughness, not kTabled)
    int emissive = -1;          ///< u_emissive (kLit, not kTabled): emission, linear RGB * strength
    int textureSlots = -1;      ///< u_textureSlots (kMaterialTextures): slot mask, uv1 mask, coordinate flags (MaterialTextures)
    int textureTransform = -1;  ///< u_textureTransform[0] (kMaterialTextures): vec3[12], two rows per slot
    int textureFactors = -1;    ///< u_textureFactors (kMaterialTextures): normal scale, occlusion strength, lightmap intensity
    int lightBase = -1;         ///< u_lightBase (kLit): the view's part of the light list (renderer/LightList.h)
    int lightCounts = -1;       ///< u_lightCounts (kLit)
    int lightGrid = -1;         ///< u_lightGrid (kLit)
    int lightViewport = -1;     ///< u_lightViewport (kLit)
    int lightForward = -1;      ///< u_lightForward (kLit)
    int lightSlices = -1;       ///< u_lightSlices (kLit)
    int viewAxis = -1;          ///< u_viewAxis: towards the eye along the view axis, w 1 if orthographic
    int lanes = -1;          ///< u_lanes[0] (vec4[4]): a MeshNode's shader data, or zeros
    int laneVectors = -1;    ///< myriad_lanes_vectors (kInstanceLanes): the batch's laneCount
    int materialIndex = -1;  ///< u_materialIndex
    int shadowMatrix = -1;        ///< u_shadowMatrix (kShadowReceive)
    int shadowParams = -1;        ///< u_shadowParams (kShadowReceive)
    int shadowFilterRadius = -1;  ///< u_shadowFilterRadius (kShadowReceive)
    int shadowCascadeEnds = -1;   ///< u_shadowCascadeEnds (kShadowReceive)
    int shadowViewForward = -1;   ///< u_shadowViewForward (kShadowReceive)
    int eyeHigh = -1;             ///< u_eyeHigh (kTabled)
    int eyeLow = -1;              ///< u_eyeLow (kTabled)
    int jointCount = -1;          ///< u_jointCount (kSkinAnimated): joints per instance palette
    int prevViewProjection = -1;  ///< u_prevViewProjection (kVelocity): the view's previous, camera-relative to the previous eye
    int prevModel = -1;           ///< u_prevModel (kVelocity): the node's previous world matrix minus the previous eye
    int viewportSize = -1;        ///< u_viewportSize (kVelocity): the view's viewport in pixels
    int time = -1;                ///< u_time (a user vertex function): Scene::time
    int prevTime = -1;            ///< u_prevTime (vertex function + kVelocity): the previous frame's Scene::time
    int prevEye = -1;             ///< u_prevEye (vertex function + kVelocity): the previous frame's eye
    /** The fog's (kFog, kFogGlsl; renderer/Fog.h sets them); -1 in other variants. additive is
     *  particle.frag's u_fogAdditive: 1 for an additive material (fog fades its light). */
    struct Fog {
        int mode = -1, color = -1, params = -1, height = -1, additive = -1;
    } fog;
    /** scatter.vert's wind (kScatter); -1 in other variants. */
    struct Wind {
        int meshHeight = -1, time = -1, direction = -1, strength = -1, gustStrength = -1, gustScale = -1,
            gustSpeed = -1;
    } wind;
    /** particle.vert's (kParticle); -1 in other variants. */
    struct Particle {
        int cameraRight = -1, cameraUp = -1, capacity = -1, sorted = -1, streak = -1, streakSeconds = -1,
            atlasGrid = -1, blendFrames = -1, round = -1, compact = -1;
    } particle;
    /** Every location, looked up once when the program is made: a draw never asks GL for one
     *  (glGetUniformLocation is a driver round trip). @p features picks the stage-specific ones. */
    SurfaceUniforms(const Program& program, std::uint32_t features);
};

struct SurfaceProgram {
    Program program;
    SurfaceUniforms uniforms;
    std::uint64_t viewSerial = 0;  ///< the view whose camera and light uniforms it holds
    std::weak_ptr<const SurfaceShader> surface;  ///< expires with the user's surface
    mutable std::uint64_t usedFrame = 0;  ///< the last frame it counted in FrameStats::programsUsed (useCounted)
    SurfaceProgram(Program p, std::uint32_t features) : program(std::move(p)), uniforms(program, features) {}
};

/** What one surface program is compiled from, built without a GL context: ShaderLibrary::get()
 *  compiles exactly this, and tests/shaders/DumpShaderVariants writes it out for
 *  glslangValidator (docs/shaders.md). */
struct SurfaceProgramSource {
    std::string label;             ///< the program's GL label, e.g. "myriad/surface+instanced+lit"
    std::string_view vertexFile;   ///< embedded file name: surface.vert, particle.vert or scatter.vert
    std::string_view fragmentFile; ///< surface.frag or particle.frag
    std::string vertexDefines;     ///< feature #defines (+ MYRIAD_USER_VERTEX) + generated stream declarations
    std::string fragmentDefines;   ///< feature #defines (+ MYRIAD_USER_SURFACE, MYRIAD_USER_LIGHTING or _FRAGMENT)
    std::string vertexText;        ///< the vertex file, with the user's vertex function spliced in
    std::string fragmentText;      ///< the fragment file, with the user's surface and lighting or fragment function spliced in
    std::string vertexName;        ///< the user vertex function's name for errors; empty: none
    /** The names compile errors give the fragment stage's spliced texts, one per line (Program's
     *  ShaderSource::includedName): line 1 the user surface's (empty: built-in), line 2, when
     *  there is one, the lighting or fragment function's. */
    std::string surfaceName;
    /** The two stages as Program takes them (views into this object: keep it alive). Give each
     *  to compiledStageText (gl/ShaderText.h) for the exact text the driver compiles. */
    [[nodiscard]] std::array<ShaderSource, 2> stages() const;
};

class ShaderLibrary {
public:
    /** @p cacheFolder: where program binaries are kept (empty: no cache). With
     *  GL_KHR_parallel_shader_compile (or ARB_), asks the driver for all its compiler threads
     *  (glMaxShaderCompilerThreadsKHR(0xFFFFFFFF)), once.
     *  @throws InvalidArgument if the folder cannot be made (ProgramBinaryCache). */
    explicit ShaderLibrary(const std::filesystem::path& cacheFolder = {});

    /** The program for @p features and @p surface (null: built-in), compiled on first use;
     *  waits for every requested build (finishPending()).
     *  @throws ShaderError naming the file and line (the user's surface by its name). */
    SurfaceProgram& get(std::uint32_t features, const std::shared_ptr<const SurfaceShader>& surface);
    /** The sources of the program for @p features and @p surface (null: built-in), as get()
     *  compiles them; no GL. The shader's surface function is spliced into the fragment stage,
     *  its vertex function into surface.vert, its lighting or fragment function into lit colour
     *  variants' surface.frag (kLit without kDepthOnly; others ignore them) (docs/shaders.md).
     *  @throws InvalidArgument if @p surface has a vertex function and @p features draw
     *  particles or scatter (their vertex stages take none), or a lighting or fragment function
     *  and @p features draw particles. */
    [[nodiscard]] static SurfaceProgramSource programSource(std::uint32_t features, const SurfaceShader* surface);
    /** Starts the program for @p features and @p surface unless it exists or is on its way:
     *  loaded from the binary cache at once when the cache has it, else compiled and linked
     *  without waiting. @throws InvalidArgument only for a built-in text without \#version. */
    void request(std::uint32_t features, const std::shared_ptr<const SurfaceShader>& surface);
    /** Waits for every requested build, in the order requested (all were issued before this
     *  first wait, so the driver's compiler threads overlap them); each one that links is kept
     *  (and written to the cache).
     *  @throws ShaderError of the first build that failed, after finishing the others (the failed
     *  ones are forgotten: the next request compiles them again). */
    void finishPending();
    /** Drops programs whose surface function was destroyed. */
    void releaseExpired();
    [[nodiscard]] std::size_t size() const noexcept { return m_programs.size(); }
    /** Programs compiled from source so far (finished builds that linked). */
    [[nodiscard]] std::uint64_t compiledCount() const noexcept { return m_compiled; }
    /** Programs made from a cached binary so far. */
    [[nodiscard]] std::uint64_t loadedCount() const noexcept { return m_loaded; }
    /** The GLSL declarations of the per-instance streams a variant with @p features reads
     *  (vertex stage), generated from their InstanceStreamDesc. Public for tests and tools. */
    [[nodiscard]] static std::string streamDeclarations(std::uint32_t features);
    /** The #defines of @p features, as inserted after #version. */
    [[nodiscard]] static std::string featureDefines(std::uint32_t features);

private:
    struct KeyHash {
        std::size_t operator()(const ShaderKey& key) const noexcept {
            return std::hash<std::uint64_t>()(key.surfaceId * 1315423911u + key.features);
        }
    };
    struct Pending {
        ShaderKey key;
        ProgramBuild build;
        std::weak_ptr<const SurfaceShader> surface;
        std::uint64_t cacheKey = 0;
    };
    void keep(const ShaderKey& key, Program program, const std::shared_ptr<const SurfaceShader>& surface);

    std::unordered_map<ShaderKey, std::unique_ptr<SurfaceProgram>, KeyHash> m_programs;
    std::vector<Pending> m_pending;
    ProgramBinaryCache m_cache;
    std::uint64_t m_compiled = 0;
    std::uint64_t m_loaded = 0;
};

} // namespace myriad::gl::detail
