#include "renderer/ShaderLibrary.h"

#include "gl/ShaderText.h"  // kIncludedLineBase

#include "gl/GlCommon.h"
#include "myriad/core/InstanceStream.h"
#include "myriad/core/Scatter.h"  // particles and scatter: streams::kScatter
#include "myriad/util/Error.h"

#include <algorithm>
#include <array>
#include <exception>
#include <string_view>

namespace myriad::gl::detail {
namespace {

constexpr std::string_view kSurfaceMarker = "// MYRIAD_SURFACE_FUNCTION\n";
constexpr std::string_view kVertexMarker = "// MYRIAD_VERTEX_FUNCTION\n";
constexpr std::string_view kLightingMarker = "// MYRIAD_LIGHTING_FUNCTION\n";
constexpr std::string_view kFragmentMarker = "// MYRIAD_FRAGMENT_FUNCTION\n";
/** Which spliced text of the fragment stage each user function is (its source-string number,
 *  and its line in SurfaceProgramSource::surfaceName; gl/ShaderText.h). */
constexpr long kSurfaceText = 1;
constexpr long kLightingText = 2;

/** Splices @p user in at @p marker of @p text, numbered as its own source string (@p k) from
 *  k * kIncludedLineBase + 1 (gl/ShaderText.h), so compile errors read "its-name:line"; then
 *  resumes the file's own numbering. */
void splice(std::string& text, std::string_view marker, const std::string& user, long k = 1) {
    const std::size_t at = text.find(marker);
    const auto markerLine = std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n') + 1;
    text.replace(at, marker.size(), "#line " + std::to_string(k * kIncludedLineBase + 1) + " " + std::to_string(k) +
                                        "\n" + user + "\n#line " + std::to_string(markerLine + 1) + " 0\n");
}

struct FeatureName {
    std::uint32_t bit;
    std::string_view define;
};
constexpr std::array<FeatureName, 26> kFeatureNames{{
    {kInstanced, "MYRIAD_INSTANCED"},
    {kMorph, "MYRIAD_MORPH"},
    {kInstanceMorphWeights, "MYRIAD_INSTANCE_MORPH_WEIGHTS"},
    {kLit, "MYRIAD_LIT"},
    {kAlphaMask, "MYRIAD_ALPHA_MASK"},
    {kBlend, "MYRIAD_BLEND"},
    {kMixedMirroring, "MYRIAD_MIXED_MIRRORING"},
    {kDepthOnly, "MYRIAD_DEPTH_ONLY"},
    {kInstanceLanes, "MYRIAD_INSTANCE_LANES"},
    {kIndexed, "MYRIAD_INDEXED"},
    {kParticle, "MYRIAD_PARTICLE"},  // particles and scatter
    {kScatter, "MYRIAD_SCATTER"},
    {kShadowReceive, "MYRIAD_SHADOW_RECEIVE"},  // shadows
    {kEncodeSrgb, "MYRIAD_ENCODE_SRGB"},
    {kTabled, "MYRIAD_TABLED"},
    {kSkin, "MYRIAD_SKIN"},
    {kSkinAnimated, "MYRIAD_SKIN_ANIMATED"},
    {kLodFade, "MYRIAD_LOD_FADE"},
    {kVelocity, "MYRIAD_VELOCITY"},
    {kMetallicRoughness, "MYRIAD_METALLIC_ROUGHNESS"},
    {kFog, "MYRIAD_FOG"},
    {kImageAmbient, "MYRIAD_IMAGE_AMBIENT"},
    {kInstanceLightChannels, "MYRIAD_INSTANCE_LIGHT_CHANNELS"},
    {kLampShadowReceive, "MYRIAD_LAMP_SHADOW"},  // lamp shadows
    {kMaterialTextures, "MYRIAD_MATERIAL_TEXTURES"},
    {kTangentFrame, "MYRIAD_TANGENT_FRAME"},
}};

/** One stream's GLSL, from its declaration: attributes as myriad_<name>_<k>, a buffer texture
 *  as myriad_<name> with a reader myriad_<name>_read(instance, vec4 index). */
std::string declare(const InstanceStreamDesc& stream) {
    const std::string name(stream.name);
    const std::uint32_t vectors = stream.floatsPerInstance / 4;
    std::string text = "// stream '" + name + "': " + std::string(stream.description) + "\n";
    if (stream.binding == StreamBinding::VertexAttributes) {
        for (std::uint32_t k = 0; k < vectors; ++k) {
            text += "layout(location = " + std::to_string(stream.location + k) + ") in vec4 myriad_" +
                    name + "_" + std::to_string(k) + ";\n";
        }
    } else {
        text += "layout(binding = " + std::to_string(stream.unit) + ") uniform samplerBuffer myriad_" +
                name + ";\n";
        text += "vec4 myriad_" + name + "_read(int instance, int element) { return texelFetch(myriad_" +
                name + ", instance * " + std::to_string(vectors) + " + element); }\n";
    }
    return text;
}

/** Issue 13 (kIndexed): an attribute stream read by instance index instead, from an RGBA32F
 *  view of its buffer, under the same names (myriad_<name>_<k>), so the shader body is the
 *  same either way. Only the record stream is an attribute stream. */
std::string declareIndexed(const InstanceStreamDesc& stream) {
    const std::string name(stream.name);
    const std::uint32_t vectors = stream.floatsPerInstance / 4;
    std::string text = "// stream '" + name + "' (indexed): " + std::string(stream.description) + "\n";
    text += "layout(binding = MYRIAD_UNIT_INDEXED_RECORD) uniform samplerBuffer myriad_" + name + "_texture;\n";
    for (std::uint32_t k = 0; k < vectors; ++k) {
        text += "#define myriad_" + name + "_" + std::to_string(k) + " texelFetch(myriad_" + name +
                "_texture, myriad_recordIndex() * " + std::to_string(vectors) + " + " + std::to_string(k) + ")\n";
    }
    return text;
}

} // namespace

SurfaceUniforms::SurfaceUniforms(const Program& program, std::uint32_t features)
    : viewProjection(program.uniformLocation("u_viewProjection")),
      model(program.uniformLocation("u_model")),
      baseInstance(program.uniformLocation("u_baseInstance")),
      morphTargetCount(program.uniformLocation("u_morphTargetCount")),
      vertexCount(program.uniformLocation("u_vertexCount")),
      morphWeights(program.uniformLocation("u_morphWeights")),
      baseColor(program.uniformLocation("u_baseColor")),
      hasTexture(program.uniformLocation("u_hasTexture")),
      alphaCutoff(program.uniformLocation("u_alphaCutoff")),
      tint(program.uniformLocation("u_tint")),
      eye(program.uniformLocation("u_eye")),
      lightDirection(program.uniformLocation("u_lightDirection")),
      lightColor(program.uniformLocation("u_lightColor")),
      ambient(program.uniformLocation("u_ambient")),
      ambientSh(program.uniformLocation("u_ambientSh")),
      environment(program.uniformLocation("u_environment")),
      sunChannels(program.uniformLocation("u_sunChannels")),
      lightChannels(program.uniformLocation("u_lightChannels")),
      metallicRoughness(program.uniformLocation("u_metallicRoughness")),
      emissive(program.uniformLocation("u_emissive")),
      textureSlots(program.uniformLocation("u_textureSlots")),
      textureTransform(program.uniformLocation("u_textureTransform")),
      textureFactors(program.uniformLocation("u_textureFactors")),
      lightBase(program.uniformLocation("u_lightBase")),
      lightCounts(program.uniformLocation("u_lightCounts")),
      lightGrid(program.uniformLocation("u_lightGrid")),
      lightViewport(program.uniformLocation("u_lightViewport")),
      lightForward(program.uniformLocation("u_lightForward")),
      lightSlices(program.uniformLocation("u_lightSlices")),
      viewAxis(program.uniformLocation("u_viewAxis")),
      lanes(program.uniformLocation("u_lanes")),
      laneVectors(program.uniformLocation("myriad_lanes_vectors")),
      materialIndex(program.uniformLocation("u_materialIndex")),
      shadowMatrix(program.uniformLocation("u_shadowMatrix")),
      shadowParams(program.uniformLocation("u_shadowParams")),
      shadowFilterRadius(program.uniformLocation("u_shadowFilterRadius")),
      shadowCascadeEnds(program.uniformLocation("u_shadowCascadeEnds")),
      shadowViewForward(program.uniformLocation("u_shadowViewForward")),
      eyeHigh(program.uniformLocation("u_eyeHigh")),
      eyeLow(program.uniformLocation("u_eyeLow")),
      jointCount(program.uniformLocation("u_jointCount")),
      prevViewProjection(program.uniformLocation("u_prevViewProjection")),
      prevModel(program.uniformLocation("u_prevModel")),
      viewportSize(program.uniformLocation("u_viewportSize")),
      time(program.uniformLocation("u_time")),
      prevTime(program.uniformLocation("u_prevTime")),
      prevEye(program.uniformLocation("u_prevEye")) {
    if ((features & kFog) != 0) {
        fog = {.mode = program.uniformLocation("u_fogMode"),
               .color = program.uniformLocation("u_fogColor"),
               .params = program.uniformLocation("u_fogParams"),
               .height = program.uniformLocation("u_fogHeight"),
               .additive = program.uniformLocation("u_fogAdditive")};
    }
    if ((features & kScatter) != 0) {
        wind = {.meshHeight = program.uniformLocation("u_meshHeight"),
                .time = program.uniformLocation("u_windTime"),
                .direction = program.uniformLocation("u_windDirection"),
                .strength = program.uniformLocation("u_windStrength"),
                .gustStrength = program.uniformLocation("u_gustStrength"),
                .gustScale = program.uniformLocation("u_gustScale"),
                .gustSpeed = program.uniformLocation("u_gustSpeed")};
    }
    if ((features & kParticle) != 0) {
        particle = {.cameraRight = program.uniformLocation("u_cameraRight"),
                    .cameraUp = program.uniformLocation("u_cameraUp"),
                    .capacity = program.uniformLocation("u_particleCapacity"),
                    .sorted = program.uniformLocation("u_sorted"),
                    .streak = program.uniformLocation("u_streak"),
                    .streakSeconds = program.uniformLocation("u_streakSeconds"),
                    .atlasGrid = program.uniformLocation("u_atlasGrid"),
                    .blendFrames = program.uniformLocation("u_blendFrames"),
                    .round = program.uniformLocation("u_round"),
                    .compact = program.uniformLocation("u_particleCompact")};
    }
}

std::string ShaderLibrary::featureDefines(std::uint32_t features) {
    std::string defines;
    for (const FeatureName& feature : kFeatureNames) {
        if ((features & feature.bit) != 0) {
            defines += "#define " + std::string(feature.define) + " 1\n";
        }
    }
    return defines;
}

std::string ShaderLibrary::streamDeclarations(std::uint32_t features) {
    // The instance index every stream is read at: divisor-1 attributes start at the draw's base
    // instance by themselves; buffer-texture streams add u_baseInstance (no gl_BaseInstance in
    // GL 4.5 without ARB_shader_draw_parameters).
    std::string text =
        "uniform int u_baseInstance;\n"
        "int myriad_instanceIndex() { return gl_InstanceID + u_baseInstance; }\n";
    if ((features & kIndexed) != 0) {
        // Issue 13: the drawn instance comes from the visible-index list.
        text = "uniform int u_baseInstance;\n"
               "layout(binding = MYRIAD_UNIT_VISIBLE_INDEX) uniform usamplerBuffer myriad_visibleInstances;\n"
               "int myriad_instanceIndex() { return int(texelFetch(myriad_visibleInstances, gl_InstanceID + u_baseInstance).r); }\n";
        if ((features & kLodFade) != 0) {
            // A fading LOD chain's entry: the record in the low 24 bits, the fade code above
            // (lodFadeEntry(), myriad/core/Lod.h), read by surface.vert into v_lodFade.
            text = "uniform int u_baseInstance;\n"
                   "layout(binding = MYRIAD_UNIT_VISIBLE_INDEX) uniform usamplerBuffer myriad_visibleInstances;\n"
                   "uint myriad_listEntry() { return texelFetch(myriad_visibleInstances, gl_InstanceID + u_baseInstance).r; }\n"
                   "int myriad_instanceIndex() { return int(myriad_listEntry() & 0xFFFFFFu); }\n";
        }
    }
    if ((features & kTabled) != 0) {
        // The table-driven path: one (draw-table row, instance index) pair per record slot,
        // divisor 1, so each command's base instance picks its first pair as it picks its
        // first record. With kIndexed (a GPU-culled batch: the pairs its cull dispatch wrote; a
        // primitive after the first: its own place's pairs) the records are fetched from the
        // record arena at the row's first record slot plus the instance.
        text = "layout(location = MYRIAD_LOCATION_DRAW) in uvec2 a_draw;\n"
               "layout(binding = MYRIAD_UNIT_DRAW_TABLE) uniform usamplerBuffer u_drawTable;\n"
               "int myriad_instanceIndex() { return int(a_draw.y); }\n";
        if ((features & kIndexed) != 0) {
            text += "int myriad_recordIndex() { return int(texelFetch(u_drawTable, int(a_draw.x) * "
                    "MYRIAD_DRAW_ROW_TEXELS + MYRIAD_DRAW_ROW_RECORD_SLOT).x + a_draw.y); }\n";
        }
    } else if ((features & kIndexed) != 0) {
        text += "int myriad_recordIndex() { return myriad_instanceIndex(); }\n";
    }
    if ((features & kInstanced) != 0) {
        text += (features & kIndexed) != 0 ? declareIndexed(streams::kRecord) : declare(streams::kRecord);
        if ((features & kInstanceMorphWeights) != 0) {
            text += declare(streams::kMorphWeights);
        }
    }
    if ((features & kScatter) != 0) {  // particles and scatter; particle.vert reads its own planes
        text += declare(streams::kScatter);
    }
    return text;
}

std::array<ShaderSource, 2> SurfaceProgramSource::stages() const {
    return {{
        {ShaderStage::Vertex, vertexFile, vertexText, vertexDefines, vertexName},
        {ShaderStage::Fragment, fragmentFile, fragmentText, fragmentDefines, surfaceName},
    }};
}

SurfaceProgramSource ShaderLibrary::programSource(std::uint32_t features, const SurfaceShader* surface) {
    SurfaceProgramSource source;
    source.label = "myriad/surface";
    for (const FeatureName& feature : kFeatureNames) {
        if ((features & feature.bit) != 0) {
            std::string name(feature.define.substr(7));  // drop "MYRIAD_"
            std::transform(name.begin(), name.end(), name.begin(), [](char c) { return static_cast<char>(std::tolower(c)); });
            source.label += "+" + name;
        }
    }
    source.vertexDefines = featureDefines(features) + streamDeclarations(features);
    source.fragmentDefines = featureDefines(features);
    if ((features & kEncodeSrgb) != 0) {
        source.fragmentDefines += kEncodeSrgbGlsl;  // one OETF for every fragment stage
    }
    if ((features & kFog) != 0) {
        source.fragmentDefines += kFogGlsl;  // one fog for every fragment stage (docs/lighting.md)
    }
    // particles and scatter (docs/particles.md): their own vertex stage, particles their own
    // fragment stage; both take the user surface function the same way.
    source.vertexFile = (features & kParticle) != 0 ? "particle.vert"
                        : (features & kScatter) != 0 ? "scatter.vert" : "surface.vert";
    source.fragmentFile = (features & kParticle) != 0 ? "particle.frag" : "surface.frag";
    source.vertexText = std::string(embeddedShaderText(source.vertexFile));
    source.fragmentText = std::string(embeddedShaderText(source.fragmentFile));
    const bool replacesLighting = surface != nullptr && (surface->hasLighting() || surface->hasFragment());
    if (replacesLighting && (features & kParticle) != 0) {
        throw InvalidArgument("SurfaceShader '" + surface->name() + "' has a " +
                              (surface->hasLighting() ? "lighting function ('" + surface->lightingName()
                                                      : "fragment function ('" + surface->fragmentName()) +
                              "'), but it is drawn by particles, whose fragment stage takes none (docs/shaders.md, "
                              "\"Lighting and fragment functions\")");
    }
    // Lit colour variants only: an Unlit material (no kLit) and depth-only views ignore them.
    if (replacesLighting && (features & kLit) != 0 && (features & kDepthOnly) == 0) {
        const bool lighting = surface->hasLighting();
        // Not a feature bit: the shader's id is in the program's key already.
        splice(source.fragmentText, lighting ? kLightingMarker : kFragmentMarker,
               lighting ? surface->lightingSource() : surface->fragmentSource(), kLightingText);
        source.fragmentDefines += lighting ? "#define MYRIAD_USER_LIGHTING 1\n" : "#define MYRIAD_USER_FRAGMENT 1\n";
        const std::string& name = lighting ? surface->lightingName() : surface->fragmentName();
        source.label += (lighting ? "+lighting:" : "+fragment:") + name;
        // One name per spliced text, by its number (Program's ShaderSource::includedName).
        source.surfaceName = "\n" + name;
    }
    // After the lighting splice, which lies further down the file: each splice counts the
    // lines above its marker to resume the file's numbering after it.
    if (surface != nullptr && surface->hasSurface()) {
        splice(source.fragmentText, kSurfaceMarker, surface->source(), kSurfaceText);
        source.fragmentDefines += "#define MYRIAD_USER_SURFACE 1\n";
        source.label += "+surface:" + surface->name();
        source.surfaceName = surface->name() + source.surfaceName;
    }
    if (surface != nullptr && surface->hasVertex()) {
        if ((features & (kParticle | kScatter)) != 0) {
            throw InvalidArgument("SurfaceShader '" + surface->name() + "' has a vertex function ('" + surface->vertexName() +
                                  "'), but it is drawn by " + ((features & kParticle) != 0 ? "particles" : "a ScatterNode") +
                                  ", whose vertex stage runs none (docs/shaders.md, \"Vertex functions\")");
        }
        // Not a feature bit: the shader's id is in the program's key already.
        splice(source.vertexText, kVertexMarker, surface->vertexSource());
        source.vertexDefines = "#define MYRIAD_USER_VERTEX 1\n" + source.vertexDefines;
        source.label += "+vertex:" + surface->vertexName();
        source.vertexName = surface->vertexName();
    }
    return source;
}

ShaderLibrary::ShaderLibrary(const std::filesystem::path& cacheFolder) : m_cache(cacheFolder) {
    // The thread count is a context-wide hint; the drivers' defaults differ (some start at 0,
    // compiling on the calling thread), so ask for the implementation's maximum.
    if (GLAD_GL_KHR_parallel_shader_compile != 0) {
        glMaxShaderCompilerThreadsKHR(0xFFFFFFFFu);
    } else if (GLAD_GL_ARB_parallel_shader_compile != 0) {
        glMaxShaderCompilerThreadsARB(0xFFFFFFFFu);
    }
}

SurfaceProgram& ShaderLibrary::get(std::uint32_t features, const std::shared_ptr<const SurfaceShader>& surface) {
    const ShaderKey key{features, surface ? surface->id() : 0};
    auto it = m_programs.find(key);
    if (it != m_programs.end()) {
        return *it->second;
    }
    request(features, surface);
    finishPending();
    return *m_programs.at(key);
}

void ShaderLibrary::request(std::uint32_t features, const std::shared_ptr<const SurfaceShader>& surface) {
    const ShaderKey key{features, surface ? surface->id() : 0};
    if (m_programs.contains(key) ||
        std::any_of(m_pending.begin(), m_pending.end(), [&](const Pending& p) { return p.key == key; })) {
        return;
    }
    // The same text programSource() gives the glslangValidator check (tests/shaders/).
    const SurfaceProgramSource source = programSource(features, surface.get());
    const std::array<ShaderSource, 2> stages = source.stages();
    const std::string& label = source.label;
    const std::string assembled[] = {compiledStageText(stages[0]), compiledStageText(stages[1])};
    std::uint64_t cacheKey = 0;
    if (m_cache.enabled()) {
        cacheKey = m_cache.keyOf(assembled);
        if (const std::uint32_t cached = m_cache.load(cacheKey); cached != 0) {
            keep(key, ProgramBuild::adopt(cached, label), surface);
            ++m_loaded;
            return;
        }
    }
    m_pending.push_back(Pending{key, ProgramBuild(stages, assembled, label, m_cache.enabled()), surface, cacheKey});
}

void ShaderLibrary::finishPending() {
    std::exception_ptr firstError;
    // In the order requested: the frame needs all of them, so finishing whichever the driver
    // completed first would not end the wait sooner, and polling GL_COMPLETION_STATUS_KHR of
    // every pending build per step costs queries. The driver's threads overlap the compiles
    // either way, since every compile and link was issued before this first wait.
    std::vector<Pending> pending = std::move(m_pending);
    m_pending.clear();
    for (Pending& build : pending) {
        try {
            Program program = build.build.finish();
            if (m_cache.enabled()) {
                m_cache.store(build.cacheKey, program.id());
            }
            keep(build.key, std::move(program), build.surface.lock());
            ++m_compiled;
        } catch (const ShaderError&) {
            if (!firstError) {
                firstError = std::current_exception();
            }
        }
    }
    if (firstError) {
        std::rethrow_exception(firstError);
    }
}

void ShaderLibrary::keep(const ShaderKey& key, Program program, const std::shared_ptr<const SurfaceShader>& surface) {
    auto kept = std::make_unique<SurfaceProgram>(std::move(program), key.features);
    kept->surface = surface;
    m_programs.emplace(key, std::move(kept));
}

void ShaderLibrary::releaseExpired() {
    std::erase_if(m_pending, [](const Pending& p) { return p.key.surfaceId != 0 && p.surface.expired(); });
    std::erase_if(m_programs, [](const auto& entry) {
        return entry.first.surfaceId != 0 && entry.second->surface.expired();
    });
}

} // namespace myriad::gl::detail
