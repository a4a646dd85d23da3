// Writes out every GLSL program the renderer can build, stage by stage, exactly as the driver
// is given it (ShaderLibrary::programSource + compiledStageText: the code path that compiles),
// so a second compiler can check them (tests/shaders/check-variants.sh runs glslangValidator;
// docs/shaders.md "How the variants are checked"). Needs no GL context.
//
// Usage: myriad_dump_shader_variants OUT_DIR [--surfaces NAME=FILE]...
//   OUT_DIR       created if missing; gets one .vert/.frag/.comp per stage and programs.txt
//   --surfaces    sample surface functions, taken from FILE: every ```glsl block (Markdown) and
//                 every C++ raw string R"(...)" that defines `SurfaceOutput surface(...) {`,
//                 named NAME-1.glsl, NAME-2.glsl, ...; a FILE with none is an error. Blocks
//                 that define `VertexOutput vertex(...) {` are sample vertex functions
//                 (NAME-vertex-1.glsl, ...): each one's surface.vert of every mesh feature set
//                 is linked with that set's built-in fragment stage
// programs.txt: one line per check, "link A.vert B.frag" (a whole program, linked so the two
// stages' interfaces are matched too) or "compile C.frag" (a user-surface fragment stage: its
// vertex stage and interface are those of the built-in program of the same feature set).
// Exit status 0, or 1 with a message on stderr.
#include "renderer/EnvironmentMap.h"
#include "renderer/DepthPyramid.h"
#include "renderer/GpuCulling.h"
#include "renderer/SkinPalettePass.h"
#include "renderer/GpuParticlePass.h"
#include "renderer/ShaderLibrary.h"
#include "renderer/ToneMapProgram.h"
#include "gl/ShaderText.h"
#include "myriad/core/SurfaceShader.h"

#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace myriad;
using namespace myriad::gl::detail;

/** The alpha-mode, lighting, blending and depth-only switches of one draw, as the renderer's
 *  shadingFeatures (src/renderer/Renderer.cpp) and ShadowPass::receiveFeatures decide them:
 *  depth-only views get kDepthOnly and nothing of lighting or blending; kShadowReceive only
 *  with kLit; kEncodeSrgb (a view into a linear 8-bit target) on any that writes colour.
 *  @p maskAndBlend: whether kAlphaMask and kBlend can meet (a node's tint alpha
 *  below 1 blends a masked material; a population blends only an AlphaMode::Blend one). */
std::vector<std::uint32_t> shadingSets(bool maskAndBlend) {
    const std::uint32_t shading[] = {
        kDepthOnly, 0, kBlend, kLit, kLit | kBlend, kLit | kShadowReceive, kLit | kBlend | kShadowReceive,
        // glTF metallic-roughness changes only the lighting block: with and without blending
        // and shadows, not every combination again.
        kLit | kMetallicRoughness, kLit | kMetallicRoughness | kShadowReceive, kLit | kMetallicRoughness | kBlend,
    };
    std::vector<std::uint32_t> sets;
    for (const std::uint32_t mask : {0u, static_cast<std::uint32_t>(kAlphaMask)}) {
        for (const std::uint32_t rest : shading) {
            if (mask != 0 && (rest & kBlend) != 0 && !maskAndBlend) {
                continue;
            }
            sets.push_back(mask | rest);
            if ((rest & kDepthOnly) == 0) {
                sets.push_back(mask | rest | kEncodeSrgb);  // a linear 8-bit target (outputFeatures)
            }
        }
    }
    return sets;
}

/** Every feature set the renderer can ask ShaderLibrary for. Mirrors, and must follow:
 *  SurfacePass::featuresOf (nodes and populations) + shadingFeatures, ShadowPass::
 *  receiveFeatures, particleFeatures (ParticlePass.h) and ParticlePass::scatterFeatures. */
std::set<std::uint32_t> reachableFeatureSets() {
    std::set<std::uint32_t> sets;
    // MeshNode and InstancedMeshNode: instancing switches, morphing, then shading.
    // A MeshNode: morphing, or skinned by its palette (never both: setSkeleton refuses it).
    std::vector<std::uint32_t> geometry = {0, kMorph, kSkin};
    for (const std::uint32_t indexed : {0u, static_cast<std::uint32_t>(kIndexed)}) {
        for (const std::uint32_t mirroring : {0u, static_cast<std::uint32_t>(kMixedMirroring)}) {
            for (const std::uint32_t lanes : {0u, static_cast<std::uint32_t>(kInstanceLanes)}) {
                // Morphing, or skinned (the node's pose, or baked clips per instance), or neither.
                for (const std::uint32_t morph : {0u, static_cast<std::uint32_t>(kMorph),
                                                  static_cast<std::uint32_t>(kMorph | kInstanceMorphWeights),
                                                  static_cast<std::uint32_t>(kSkin),
                                                  static_cast<std::uint32_t>(kSkin | kSkinAnimated)}) {
                    geometry.push_back(kInstanced | indexed | mirroring | lanes | morph);
                }
            }
        }
    }
    // A fading LOD chain's level draws (kLodFade, always with kIndexed): mirroring and every
    // geometry switch; lanes are independent of the fade, checked above without it.
    for (const std::uint32_t mirroring : {0u, static_cast<std::uint32_t>(kMixedMirroring)}) {
        for (const std::uint32_t morph : {0u, static_cast<std::uint32_t>(kMorph | kInstanceMorphWeights),
                                          static_cast<std::uint32_t>(kSkin | kSkinAnimated)}) {
            geometry.push_back(kInstanced | kIndexed | kLodFade | mirroring | morph);
        }
    }
    // The table-driven path (renderer/DrawTable.h): batches and MeshNodes without morphing,
    // lanes streams or CPU index lists, mirrored per instance or not, GPU-culled (kIndexed) or not.
    for (const std::uint32_t indexed : {0u, static_cast<std::uint32_t>(kIndexed)}) {
        for (const std::uint32_t mirroring : {0u, static_cast<std::uint32_t>(kMixedMirroring)}) {
            geometry.push_back(kInstanced | kTabled | indexed | mirroring);
        }
    }
    for (const std::uint32_t shape : geometry) {
        for (const std::uint32_t shading : shadingSets(true)) {
            sets.insert(shape | shading);
            // Motion vectors (View::velocity): every opaque colour draw off the table-driven path.
            if ((shape & kTabled) == 0 && (shading & (kBlend | kDepthOnly)) == 0) {
                sets.insert(shape | shading | kVelocity);
            }
        }
    }
    // GPU populations: instanced, lanes or not, no morphing, no index list.
    for (const std::uint32_t lanes : {0u, static_cast<std::uint32_t>(kInstanceLanes)}) {
        for (const std::uint32_t shading : shadingSets(false)) {
            sets.insert(kInstanced | lanes | shading);
        }
    }
    // ScatterNode: alpha mask or not; depth-only, unlit or lit; never blended, no shadow receiving.
    for (const std::uint32_t mask : {0u, static_cast<std::uint32_t>(kAlphaMask)}) {
        for (const std::uint32_t shading : {static_cast<std::uint32_t>(kDepthOnly), 0u, static_cast<std::uint32_t>(kLit),
                                            static_cast<std::uint32_t>(kLit | kMetallicRoughness)}) {
            sets.insert(kScatter | mask | shading);
            if (shading != kDepthOnly) {
                sets.insert(kScatter | mask | shading | kEncodeSrgb);
            }
        }
    }
    sets.insert(kParticle);  // ParticlePool: only the output encoding
    sets.insert(kParticle | kEncodeSrgb);
    // Fog (kFog, Scene::fog): any colour set may add it (ViewPass::fog(); never kDepthOnly).
    // It adds a function and four uniforms (five in particle.frag) at the end of the fragment
    // stage, reading what every fragment stage has (v_relativePosition, u_eye): checked with
    // every shading set over one shape of each fragment-stage path, not with every geometry
    // switch (those touch the vertex stage), which would double the variants to check.
    const std::uint32_t fogShapes[] = {0u, kInstanced, kInstanced | kIndexed | kLodFade | kMixedMirroring,
                                       kInstanced | kInstanceLanes, kInstanced | kTabled,
                                       kInstanced | kTabled | kIndexed, kInstanced | kSkin | kSkinAnimated};
    for (const std::uint32_t shape : fogShapes) {
        for (const std::uint32_t shading : shadingSets(true)) {
            if ((shading & kDepthOnly) == 0) {
                sets.insert(shape | shading | kFog);
                if ((shape & kTabled) == 0 && (shading & kBlend) == 0) {
                    sets.insert(shape | shading | kFog | kVelocity);
                }
            }
        }
    }
    // Image-based ambient (kImageAmbient, Scene::environment or Scene::hemisphere): any lit set
    // may add it. It changes only the lit part of the fragment stage (myriad_ambient(), unit 17):
    // checked with every lit shading set over one shape of each fragment-stage path, with and
    // without fog, and on lit scatter.
    for (const std::uint32_t shape : fogShapes) {
        for (const std::uint32_t shading : shadingSets(true)) {
            if ((shading & kLit) != 0) {
                sets.insert(shape | shading | kImageAmbient);
                sets.insert(shape | shading | kImageAmbient | kFog);
            }
        }
    }
    for (const std::uint32_t shading : {static_cast<std::uint32_t>(kLit), static_cast<std::uint32_t>(kLit | kMetallicRoughness)}) {
        sets.insert(kScatter | shading | kImageAmbient);
    }
    // Per-instance light channels (kInstanceLightChannels): lit instanced sets off the
    // table-driven path. It adds one fetch to the fragment stage only, so it is checked over the
    // sets without morphing, skinning or LOD fade (vertex-stage switches), not doubling those.
    for (const std::uint32_t set : std::set<std::uint32_t>(sets)) {
        if ((set & kInstanced) != 0 && (set & kLit) != 0 && (set & (kTabled | kScatter | kParticle)) == 0 &&
            (set & (kMorph | kSkin | kLodFade)) == 0) {
            sets.insert(set | kInstanceLightChannels);
        }
    }
    // Lamp shadows (kLampShadowReceive, renderer/LampShadowPass.h): any Lit colour draw of a
    // node or population may add it, with or without the sun's kShadowReceive, fog and motion
    // vectors. It adds a function and two samplers to the fragment stage and touches nothing
    // else: checked with every Lit shading set over the fog's shapes, as fog is.
    for (const std::uint32_t shape : fogShapes) {
        for (const std::uint32_t shading : shadingSets(true)) {
            if ((shading & kLit) != 0) {
                for (const std::uint32_t fog : {0u, static_cast<std::uint32_t>(kFog)}) {
                    sets.insert(shape | shading | fog | kLampShadowReceive);
                    if ((shape & kTabled) == 0 && (shading & kBlend) == 0) {
                        sets.insert(shape | shading | fog | kLampShadowReceive | kVelocity);
                    }
                }
            }
        }
    }
    for (const std::uint32_t lanes : {0u, static_cast<std::uint32_t>(kInstanceLanes)}) {
        for (const std::uint32_t shading : shadingSets(false)) {
            if ((shading & kLit) != 0) {
                sets.insert(kInstanced | lanes | shading | kLampShadowReceive);
                sets.insert(kInstanced | lanes | shading | kLampShadowReceive | kFog);
            }
        }
    }
    // Material textures (kMaterialTextures, kTangentFrame: SurfacePass::materialTextureFeatures):
    // MeshNode and batch draws, tabled or not; they add to the vertex stage's outputs and the
    // fragment stage's lit block, so one shape of each vertex path with the lit sets, the
    // alpha-masked depth-only set (no tangent frame there), blending, fog and motion vectors.
    const std::uint32_t textureShapes[] = {0u, kMorph, kSkin, kInstanced, kInstanced | kIndexed | kLodFade | kMixedMirroring,
                                           kInstanced | kTabled, kInstanced | kTabled | kIndexed,
                                           kInstanced | kSkin | kSkinAnimated};
    const std::uint32_t textureShading[] = {0u, kLit, kLit | kMetallicRoughness, kLit | kMetallicRoughness | kShadowReceive,
                                            kLit | kMetallicRoughness | kBlend, kAlphaMask | kLit | kMetallicRoughness | kEncodeSrgb,
                                            kLit | kMetallicRoughness | kFog};
    // A lightmap (slot 5) replaces myriad_ambient()'s diffuse part, flat or image-based: the
    // textured sets with image-based ambient, and the fullest fragment stage (13 samplers:
    // lanes, instance light channels, sun and lamp shadows, environment, five material
    // textures) on the instanced paths.
    for (const std::uint32_t shape : textureShapes) {
        for (const std::uint32_t shading : {static_cast<std::uint32_t>(kLit), static_cast<std::uint32_t>(kLit | kMetallicRoughness)}) {
            sets.insert(shape | shading | kMaterialTextures | kImageAmbient);
            sets.insert(shape | shading | kMaterialTextures | kTangentFrame | kImageAmbient | kFog);
        }
    }
    for (const std::uint32_t shape : {static_cast<std::uint32_t>(kInstanced), static_cast<std::uint32_t>(kInstanced | kIndexed)}) {
        sets.insert(shape | kInstanceLanes | kInstanceLightChannels | kLit | kMetallicRoughness | kShadowReceive |
                    kLampShadowReceive | kImageAmbient | kMaterialTextures | kTangentFrame);
    }
    sets.insert(kInstanced | kTabled | kLit | kMetallicRoughness | kShadowReceive | kLampShadowReceive |
                kImageAmbient | kMaterialTextures | kTangentFrame | kFog);
    for (const std::uint32_t shape : textureShapes) {
        sets.insert(shape | kAlphaMask | kDepthOnly | kMaterialTextures);
        for (const std::uint32_t shading : textureShading) {
            for (const std::uint32_t tangents : {0u, static_cast<std::uint32_t>(kTangentFrame)}) {
                sets.insert(shape | shading | kMaterialTextures | tangents);
                if ((shape & kTabled) == 0 && (shading & kBlend) == 0) {
                    sets.insert(shape | shading | kMaterialTextures | tangents | kVelocity);
                }
            }
        }
    }
    for (const std::uint32_t set : std::set<std::uint32_t>(sets)) {
        const bool population = (set & ~(kInstanced | kInstanceLanes | kAlphaMask | kBlend | kLit | kShadowReceive |
                                         kEncodeSrgb)) == 0 && (set & kInstanced) != 0;
        if (((set & (kScatter | kParticle)) != 0 || population) && (set & kDepthOnly) == 0) {
            sets.insert(set | kFog);  // scatter, particles and populations: every colour set
        }
    }
    return sets;
}

std::string readFile(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw std::runtime_error("cannot read '" + path.string() + "'");
    }
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void writeFile(const std::filesystem::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out) {
        throw std::runtime_error("cannot write '" + path.string() + "'");
    }
}

/** The bodies of ```glsl blocks and C++ raw strings in @p text that match @p definition. */
std::vector<std::string> blocksDefining(const std::string& text, const std::regex& definition) {
    std::vector<std::string> found;
    for (const auto& [open, close] : {std::pair<std::string, std::string>{"```glsl\n", "```"}, {"R\"(", ")\""}}) {
        for (std::size_t at = text.find(open); at != std::string::npos; at = text.find(open, at)) {
            const std::size_t begin = at + open.size();
            const std::size_t end = text.find(close, begin);
            if (end == std::string::npos) {
                break;
            }
            const std::string body = text.substr(begin, end - begin);
            if (std::regex_search(body, definition)) {
                found.push_back(body);
            }
            at = end + close.size();
        }
    }
    return found;
}

/** The surface functions in @p text: ```glsl blocks and C++ raw strings that define surface(). */
std::vector<std::string> surfaceFunctions(const std::string& text) {
    static const std::regex definition(R"(SurfaceOutput\s+surface\s*\([^)]*\)\s*\{)");
    return blocksDefining(text, definition);
}

/** The vertex functions in @p text: ```glsl blocks and C++ raw strings that define vertex(). */
std::vector<std::string> vertexFunctions(const std::string& text) {
    static const std::regex definition(R"(VertexOutput\s+vertex\s*\([^)]*\)\s*\{)");
    return blocksDefining(text, definition);
}

/** A file name from a program label: "myriad/surface+lit+surface:x.glsl" -> "surface+lit+surface=x.glsl". */
std::string fileStem(const std::string& label) {
    std::string stem = label.substr(label.find('/') + 1);
    for (char& c : stem) {
        if (c == ':') {
            c = '=';
        } else if (c == '/' || c == '\\' || c == ' ') {
            c = '_';
        }
    }
    return stem;
}

int run(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s OUT_DIR [--surfaces NAME=FILE]...\n", argv[0]);
        return 1;
    }
    const std::filesystem::path out = argv[1];
    std::vector<std::shared_ptr<const SurfaceShader>> surfaces;
    std::vector<std::shared_ptr<const SurfaceShader>> vertexShaders;  // sample vertex functions, same files
    for (int i = 2; i < argc; ++i) {
        const std::string flag = argv[i];
        const std::string value = i + 1 < argc ? argv[i + 1] : "";
        const std::size_t equals = value.find('=');
        if (flag != "--surfaces" || equals == std::string::npos || equals == 0) {
            std::fprintf(stderr, "%s: expected --surfaces NAME=FILE at '%s'\n", argv[0], flag.c_str());
            return 1;
        }
        ++i;
        const std::string name = value.substr(0, equals);
        const std::string file = value.substr(equals + 1);
        const std::string text = readFile(file);
        const std::vector<std::string> vertexFound = vertexFunctions(text);
        for (std::size_t k = 0; k < vertexFound.size(); ++k) {
            vertexShaders.push_back(
                SurfaceShader::vertexFromSource(name + "-vertex-" + std::to_string(k + 1) + ".glsl", vertexFound[k]));
        }
        const std::vector<std::string> found = surfaceFunctions(text);
        if (found.empty()) {
            std::fprintf(stderr, "%s: no surface function (SurfaceOutput surface(...) { ... }) in '%s'\n",
                         argv[0], file.c_str());
            return 1;
        }
        for (std::size_t k = 0; k < found.size(); ++k) {
            surfaces.push_back(SurfaceShader::fromSource(name + "-" + std::to_string(k + 1) + ".glsl", found[k]));
        }
    }

    const std::set<std::uint32_t> featureSets = reachableFeatureSets();
    // A switch added to ShaderLibrary but to no set above would go unchecked: refuse.
    std::uint32_t covered = 0;
    for (const std::uint32_t features : featureSets) {
        covered |= features;
    }
    for (std::uint32_t bit = 1; bit != 0; bit <<= 1) {
        if ((covered & bit) == 0 && !ShaderLibrary::featureDefines(bit).empty()) {
            std::fprintf(stderr, "%s: the feature switch %s is in no variant: add it to reachableFeatureSets()\n",
                         argv[0], ShaderLibrary::featureDefines(bit).c_str());
            return 1;
        }
    }

    std::filesystem::create_directories(out);
    std::ostringstream programs;
    std::size_t files = 0;
    auto writeStage = [&](const gl::ShaderSource& stage, const std::string& stem) {
        const std::string extension = stage.stage == gl::ShaderStage::Vertex     ? ".vert"
                                      : stage.stage == gl::ShaderStage::Fragment ? ".frag"
                                                                                 : ".comp";
        const std::string name = stem + extension;
        writeFile(out / name, compiledStageText(stage));
        ++files;
        return name;
    };
    for (const std::uint32_t features : featureSets) {
        const SurfaceProgramSource builtIn = ShaderLibrary::programSource(features, nullptr);
        const auto stages = builtIn.stages();
        const std::string stem = fileStem(builtIn.label);
        const std::string fragmentFile = writeStage(stages[1], stem);
        programs << "link " << writeStage(stages[0], stem) << " " << fragmentFile << "\n";
        // A user vertex function's surface.vert, linked with the built-in fragment stage
        // (particles and scatter take none: programSource refuses them).
        if ((features & (kParticle | kScatter)) == 0) {
            for (const auto& vertex : vertexShaders) {
                const SurfaceProgramSource user = ShaderLibrary::programSource(features, vertex.get());
                programs << "link " << writeStage(user.stages()[0], fileStem(user.label)) << " " << fragmentFile << "\n";
            }
        }
        for (const auto& surface : surfaces) {
            const SurfaceProgramSource user = ShaderLibrary::programSource(features, surface.get());
            programs << "compile " << writeStage(user.stages()[1], fileStem(user.label)) << "\n";
        }
    }
    programs << "link " << writeStage(GpuCulling::programSource(), "cull") << "\n";
    programs << "link " << writeStage(SkinPalettePass::programSource(), "skin_palette") << "\n";
    programs << "link " << writeStage(DepthPyramid::programSource(), "depth_pyramid") << "\n";
    const auto toneMap = toneMapProgramSources();  // tonemap.vert + tonemap.frag (ToneMapPass)
    programs << "link " << writeStage(toneMap[0], "tonemap") << " " << writeStage(toneMap[1], "tonemap") << "\n";
    const auto prefilter = environmentPrefilterSources();  // tonemap.vert + environment_prefilter.frag
    programs << "link " << writeStage(prefilter[0], "environment_prefilter_vert") << " "
             << writeStage(prefilter[1], "environment_prefilter") << "\n";
    const auto particleKernels = gpuParticleProgramSources();  // particle_sim.comp, particle_sort.comp
    for (const auto& [stem, source] : particleKernels) {
        programs << "link " << writeStage(source, stem) << "\n";
    }
    writeFile(out / "programs.txt", programs.str());
    std::printf("%zu sample vertex functions linked with every mesh feature set's fragment stage\n", vertexShaders.size());
    std::printf("%zu feature sets x (built-in + %zu sample surface functions) + cull.comp + skin_palette.comp + depth_pyramid.comp + tonemap + %zu particle kernels: "
                "%zu programs, %zu stage files in %s\n",
                featureSets.size(), surfaces.size(), particleKernels.size(),
                featureSets.size() * (1 + surfaces.size()) + 4 + particleKernels.size(), files, out.string().c_str());
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const std::exception& error) {
        std::fprintf(stderr, "%s: %s\n", argv[0], error.what());
        return 1;
    }
}
