#pragma once
// Internal to myriad_gl: one GLSL source per stage (shaders/surface.vert, surface.frag) with
// feature switches, compiled on demand into one program per (feature set, surface function)
// and cached. The per-instance stream declarations are generated here from the streams'
// InstanceStreamDesc, the same declarations GpuResources binds.
#include "myriad/core/SurfaceShader.h"
#include "myriad/gl/Program.h"
#include "myriad/gl/View.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>

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
    // particles and scatter (src/gl/ParticlePass.cpp, docs/particles.md): their own stages
    kParticle = 1u << 10,              ///< MYRIAD_PARTICLE: particle.vert + particle.frag
    kScatter = 1u << 11,               ///< MYRIAD_SCATTER: scatter.vert + surface.frag
    kShadowReceive = 1u << 12,         ///< MYRIAD_SHADOW_RECEIVE: Lit, sampling the shadow map (gl/ShadowPass.h)
    /** MYRIAD_ENCODE_SRGB: the fragment stage encodes its colour with myriad_encodeSrgb()
     *  (kEncodeSrgbGlsl, inserted before the file's text) for a linear 8-bit target that the
     *  view wants display-encoded (outputFeatures()). */
    kEncodeSrgb = 1u << 13,
};

/** The sRGB OETF of IEC 61966-2-1 in GLSL (alpha is never encoded). Clamped first: a unorm
 *  target clamps anyway, and pow() of a negative value is undefined. */
inline constexpr std::string_view kEncodeSrgbGlsl =
    "vec3 myriad_encodeSrgb(vec3 linearColor) {\n"
    "    vec3 c = clamp(linearColor, 0.0, 1.0);\n"
    "    return mix(12.92 * c, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, step(vec3(0.0031308), c));\n"
    "}\n";

/** The same OETF on the CPU (a clear colour for a target the shader encodes for). */
inline float encodeSrgb(float linear) {
    const float c = std::clamp(linear, 0.0f, 1.0f);
    return c <= 0.0031308f ? 12.92f * c : 1.055f * std::pow(c, 1.0f / 2.4f) - 0.055f;
}

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
    int lanes = -1;          ///< u_lanes[0] (vec4[4]): a MeshNode's shader data, or zeros
    int materialIndex = -1;  ///< u_materialIndex
    int shadowMatrix = -1;        ///< u_shadowMatrix (kShadowReceive)
    int shadowParams = -1;        ///< u_shadowParams (kShadowReceive)
    int shadowFilterRadius = -1;  ///< u_shadowFilterRadius (kShadowReceive)
    int shadowCascadeEnds = -1;   ///< u_shadowCascadeEnds (kShadowReceive)
    int shadowViewForward = -1;   ///< u_shadowViewForward (kShadowReceive)
    explicit SurfaceUniforms(const Program& program);
};

struct SurfaceProgram {
    Program program;
    SurfaceUniforms uniforms;
    std::uint64_t viewSerial = 0;  ///< the view whose camera and light uniforms it holds
    std::weak_ptr<const SurfaceShader> surface;  ///< expires with the user's surface
    explicit SurfaceProgram(Program p) : program(std::move(p)), uniforms(program) {}
};

class ShaderLibrary {
public:
    /** The program for @p features and @p surface (null: built-in), compiled on first use.
     *  @throws ShaderError naming the file and line (the user's surface by its name). */
    SurfaceProgram& get(std::uint32_t features, const std::shared_ptr<const SurfaceShader>& surface);
    /** Drops programs whose surface function was destroyed. */
    void releaseExpired();
    [[nodiscard]] std::size_t size() const noexcept { return m_programs.size(); }
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
    std::unordered_map<ShaderKey, std::unique_ptr<SurfaceProgram>, KeyHash> m_programs;
};

} // namespace myriad::gl::detail
