#pragma once
// Internal to myriad_gl: every texture unit, shader-storage binding point, vertex-buffer binding
// index and attribute location the renderer uses, in one place, with compile-time checks that
// no two things one program reads share a slot. The shaders see the same numbers as #defines
// (bindingDefines(), inserted after #version by compiledStageText with the attribute
// locations), so GLSL and C++ cannot drift apart. It lives with the GL object layer because
// the embedded shaders do (gl::embeddedShaderText() is public): a program compiled from them
// through gl::Program alone names the same slots. Image units: the renderer uses none (its compute pass writes storage buffers).
//
// Units are per program: a surface program and a particle program may give unit 1 different
// meanings, since one draw binds one program. What must not overlap is listed per program
// below and checked by static_assert.
#include "myriad/core/AnimationSet.h"  // kMaxBakedClips
#include "myriad/core/InstanceRecord.h"
#include "myriad/core/InstanceStream.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace myriad::gl::detail {

// ---- texture units ----------------------------------------------------------------------------

/** Surface programs (surface.vert/frag, scatter.vert). */
inline constexpr std::uint32_t kBaseColorUnit = 0;      ///< sampler2D u_baseColorTexture (+ its sampler object)
inline constexpr std::uint32_t kMorphTargetUnit = 1;    ///< samplerBuffer u_morphTargets (2 texels per target and vertex)
inline constexpr std::uint32_t kMorphWeightsUnit = streams::kMorphWeightsUnit;  ///< the morphWeights stream
inline constexpr std::uint32_t kLanesUnit = streams::kLanesUnit;                ///< the lanes stream
/** samplerBuffer u_skin: a skinned node's joint palette (3 RGBA32F texels per joint, the rows
 *  of its 3x4 skin matrix) or a crowd's per-instance palettes (renderer/SkinPalettePass.h). */
inline constexpr std::uint32_t kSkinUnit = 5;
inline constexpr std::uint32_t kIndexedRecordUnit = 6;  ///< RGBA32F view of the records (indexed path, GPU culling)
inline constexpr std::uint32_t kVisibleIndexUnit = 7;   ///< R32UI visible-index list
inline constexpr std::uint32_t kShadowMapUnit = 8;      ///< sampler2DArrayShadow u_shadowMap (depth compare)
/** usamplerBuffer u_drawTable: the table-driven path's per-draw rows (renderer/DrawTable.h). */
inline constexpr std::uint32_t kDrawTableUnit = 9;
/** RGBA32UI texels per draw-table row (MYRIAD_DRAW_ROW_TEXELS in GLSL). */
inline constexpr std::uint32_t kDrawRowTexels = 14;
/** samplerBuffer u_prevRecords (kVelocity): RGBA32F view of a batch's previous-frame records
 *  (4 texels a record), read by instance index (docs/visibility.md, "Motion vectors"). */
inline constexpr std::uint32_t kPreviousRecordUnit = 10;
/** usamplerBuffer u_lightList (kLit): the clustered light list of the view, every view's part
 *  in one RGBA32UI buffer texture (renderer/LightList.h, docs/lighting.md). */
inline constexpr std::uint32_t kLightListUnit = 11;
/** sampler2D u_metallicRoughnessTexture, u_normalTexture, u_occlusionTexture, u_emissiveTexture
 *  (kMaterialTextures, + their sampler objects): a material's extra textures (docs/lighting.md,
 *  "Material textures"). */
inline constexpr std::uint32_t kMetallicRoughnessUnit = 12;
inline constexpr std::uint32_t kNormalUnit = 13;
inline constexpr std::uint32_t kOcclusionUnit = 14;
inline constexpr std::uint32_t kEmissiveUnit = 15;
/** sampler2D u_lightmapTexture (kMaterialTextures, + its sampler object): a material's baked
 *  lightmap (Material::lightmapTexture; docs/lighting.md, "Lightmaps"). Past 15: a combined
 *  unit (GL 4.5 has at least 80). */
inline constexpr std::uint32_t kLightmapUnit = 16;
/** sampler2D u_environmentMap (kImageAmbient): the scene's Environment prefiltered with GGX, an
 *  equirectangular RGBA16F mip chain, level k for roughness k / (levels - 1)
 *  (renderer/EnvironmentMap.h, docs/lighting.md "Image-based ambient"); also the prefilter
 *  pass's source while it builds a map. Past 15: a combined unit (GL 4.5 has at least 80); a
 *  stage still reads at most 16 samplers. */
inline constexpr std::uint32_t kEnvironmentUnit = 17;
/** samplerBuffer myriad_instanceLightChannels (kInstanceLightChannels): a batch's per-instance
 *  light channels stream (streams::kLightChannels), read by instance index. */
inline constexpr std::uint32_t kInstanceLightChannelsUnit = streams::kLightChannelsUnit;
/** sampler2DShadow u_lampShadowAtlas (kLampShadowReceive): the lamps' shadow tiles, one
 *  DEPTH_COMPONENT32F texture with compare mode on (renderer/LampShadowPass.h). */
inline constexpr std::uint32_t kLampShadowAtlasUnit = 19;
/** samplerBuffer u_lampShadowRecords (kLampShadowReceive): per shadowed lamp its faces'
 *  matrices and tiles, RGBA32F (renderer/LampShadowPass.h). */
inline constexpr std::uint32_t kLampShadowRecordsUnit = 20;
/** The row's texel whose .x holds the draw's first record slot in the record arena (uint bits),
 *  which the kIndexed variants of the table path add the instance to (renderer/DrawTable.h). */
inline constexpr std::uint32_t kDrawRowRecordSlotTexel = 11;
static_assert(kDrawRowRecordSlotTexel < kDrawRowTexels);
/** The draw-table row's first lane texel (texels 7-10: a MeshNode's four lanes; surface.frag's
 *  MYRIAD_DRAW_ROW_LANES). */
inline constexpr std::uint32_t kDrawRowLanesTexel = 7;
static_assert(kDrawRowLanesTexel + 4 <= kDrawRowRecordSlotTexel);
/** The row's shading texels (MYRIAD_DRAW_ROW_SHADING): (metallic, roughness, light channels as
 *  uint bits, 0), then (emission rgb, 0). */
inline constexpr std::uint32_t kDrawRowShadingTexel = 12;
static_assert(kDrawRowShadingTexel + 2 <= kDrawRowTexels);

/** Particle programs (particle.vert/frag). */
inline constexpr std::uint32_t kParticleAtlasUnit = kBaseColorUnit;  ///< the sprite atlas, as a base-colour texture
inline constexpr std::uint32_t kParticleOrderUnit = 1;                ///< usamplerBuffer u_order (sorted pools)
inline constexpr std::uint32_t kParticleStreamsUnit = streams::kParticleStreamsUnit;  ///< the four planes
/** sampler2D u_particleCurves: a compact pool's colour, alpha and size over life
 *  (ParticlePool::setCurves), read with texelFetch (no sampler object). One of the contract's
 *  units (the lanes' in surface programs). */
inline constexpr std::uint32_t kParticleCurvesUnit = kLanesUnit;

/** The tone-mapping pass's (tonemap.frag; ToneMapPass, myriad/gl/ToneMapping.h) sampler2D
 *  u_source: the float source, through the pass's own sampler object. One of the contract's
 *  units (the base colour's in surface programs); the pass empties it after its draw. */
inline constexpr std::uint32_t kToneMapSourceUnit = kBaseColorUnit;

/** Every unit render() may bind: the GL state contract's units (docs/gl-state.md), emptied or
 *  put back on exit (renderer/GlState.cpp). */
inline constexpr std::array<std::uint32_t, 20> kRendererTextureUnits{
    kBaseColorUnit, kMorphTargetUnit, kMorphWeightsUnit, kLanesUnit, kSkinUnit, kIndexedRecordUnit,
    kVisibleIndexUnit, kShadowMapUnit, kDrawTableUnit, kPreviousRecordUnit, kLightListUnit,
    kMetallicRoughnessUnit, kNormalUnit, kOcclusionUnit, kEmissiveUnit, kLightmapUnit, kEnvironmentUnit,
    kInstanceLightChannelsUnit, kLampShadowAtlasUnit, kLampShadowRecordsUnit};

// ---- shader-storage binding points -----------------------------------------------------------

/** The material table (surface.frag's MyriadMaterialTable), bound for every draw. */
inline constexpr std::uint32_t kMaterialTableBinding = 0;
/** GPU culling (cull.comp): records, per-instance morph weights, the visible-index list, the
 *  indirect commands, the held LOD levels. Part of the GL state contract. */
inline constexpr std::uint32_t kCullRecordsBinding = 1;
inline constexpr std::uint32_t kCullMorphWeightsBinding = 2;
inline constexpr std::uint32_t kCullVisibleBinding = 3;
inline constexpr std::uint32_t kCullCommandsBinding = 4;
inline constexpr std::uint32_t kCullLodLevelsBinding = 5;
/** The table-driven path's cull jobs: one per GPU-culled batch of a view (renderer/DrawTable.h). */
inline constexpr std::uint32_t kCullJobsBinding = 6;
/** GPU occlusion culling's depth pyramid (renderer/DepthPyramid.h): R32F values, every level
 *  one after the other, written by depth_pyramid.comp and read by cull.comp's second phase. */
inline constexpr std::uint32_t kCullPyramidBinding = 7;
inline constexpr std::array<std::uint32_t, 7> kCullBindings{kCullRecordsBinding, kCullMorphWeightsBinding,
                                                            kCullVisibleBinding, kCullCommandsBinding,
                                                            kCullLodLevelsBinding, kCullJobsBinding,
                                                            kCullPyramidBinding};
/** The depth pyramid program's (depth_pyramid.comp) sampler2D u_depth: the view's depth texture
 *  (View::depthTexture), read with texelFetch. One of the contract's units (the morph
 *  targets' in surface programs), so the contract's list stays as it is. */
inline constexpr std::uint32_t kPyramidDepthUnit = kMorphTargetUnit;
/** GPU particle systems (particle_sim.comp, particle_sort.comp; renderer/GpuParticlePass.h):
 *  their counters (live counts, the indirect draw and dispatch), the state a step reads, the
 *  state it writes, a view's (index, key) sort pairs. Binding points GPU culling also uses, so
 *  the GL state contract's list stays as it is; the two never run inside each other. */
inline constexpr std::uint32_t kParticleCountersBinding = 1;
inline constexpr std::uint32_t kParticleSourceBinding = 2;
inline constexpr std::uint32_t kParticleTargetBinding = 3;
inline constexpr std::uint32_t kParticleOrderBinding = 4;
/** A skinned crowd's palettes, written by skin_palette.comp (renderer/SkinPalettePass.h): a
 *  binding point GPU culling also uses, so the state contract's list stays as it is; the two
 *  never run inside each other. */
inline constexpr std::uint32_t kSkinPaletteBinding = kCullVisibleBinding;
/** Every storage binding render() uses (the GL state contract's): the material table's, then
 *  GPU culling's (which GPU particle systems share). */
inline constexpr std::array<std::uint32_t, 8> kRendererStorageBindings{
    kMaterialTableBinding, kCullRecordsBinding, kCullMorphWeightsBinding, kCullVisibleBinding,
    kCullCommandsBinding, kCullLodLevelsBinding, kCullJobsBinding, kCullPyramidBinding};

// ---- vertex-buffer binding indices and attribute locations -------------------------------------

/** The mesh's interleaved vertices (divisor 0), as MeshGeometry::vertexLayout() lays them out. */
inline constexpr std::uint32_t kVertexBinding = 0;
/** The record stream, or the scatter stream (divisor 1). */
inline constexpr std::uint32_t kInstanceBinding = 1;
/** The table-driven path's (draw row, instance) pairs, one per record slot of the shared record
 *  arena (divisor 1, so each command's base instance selects its first pair). */
inline constexpr std::uint32_t kDrawIdBinding = 2;
/** `in uvec2 a_draw` (MYRIAD_LOCATION_DRAW): the pair above. */
inline constexpr std::uint32_t kDrawIdLocation = 8;

/** Attribute locations a surface program reads: the vertex (InstanceRecord.h location::) and
 *  the record stream's four vec4 rows; a scatter program reads its two rows in the record's
 *  first two places. */
inline constexpr std::array<std::uint32_t, 13> kSurfaceLocations{
    location::kPosition,     location::kNormal,       location::kUv0,          location::kColor,
    location::kInstanceRow0, location::kInstanceRow1, location::kInstanceRow2, location::kInstanceColor,
    kDrawIdLocation,         location::kJoints,       location::kWeights,      location::kUv1,
    location::kTangent};

// ---- the checks ---------------------------------------------------------------------------------

template <std::size_t N>
constexpr bool allDistinct(const std::array<std::uint32_t, N>& slots) {
    for (std::size_t i = 0; i < N; ++i) {
        for (std::size_t j = i + 1; j < N; ++j) {
            if (slots[i] == slots[j]) {
                return false;
            }
        }
    }
    return true;
}

static_assert(allDistinct(kRendererTextureUnits), "two samplers of a surface program share a texture unit");
static_assert(allDistinct(std::array<std::uint32_t, 4>{kParticleAtlasUnit, kParticleOrderUnit, kParticleStreamsUnit,
                                                       kParticleCurvesUnit}),
              "two samplers of a particle program share a texture unit");
static_assert(allDistinct(kRendererStorageBindings), "two storage blocks share a binding point");
static_assert(allDistinct(std::array<std::uint32_t, 4>{kParticleCountersBinding, kParticleSourceBinding,
                                                       kParticleTargetBinding, kParticleOrderBinding}),
              "two storage blocks of a particle compute program share a binding point");
static_assert(std::ranges::all_of(std::array<std::uint32_t, 4>{kParticleCountersBinding, kParticleSourceBinding,
                                                               kParticleTargetBinding, kParticleOrderBinding},
                                  [](std::uint32_t b) { return std::ranges::find(kRendererStorageBindings, b) !=
                                                               kRendererStorageBindings.end() && b != kMaterialTableBinding; }),
              "a particle compute binding outside the state contract's storage bindings");
static_assert(allDistinct(kSurfaceLocations), "two attributes share a location");
static_assert(allDistinct(std::array<std::uint32_t, 3>{kVertexBinding, kInstanceBinding, kDrawIdBinding}),
              "two vertex-buffer bindings of a surface program share an index");
// Inside GL 4.5's minimum values (chapter 23's implementation-dependent tables): 80 texture
// units in all (GL_MAX_COMBINED_TEXTURE_IMAGE_UNITS; a stage may use at most 16 of them at once,
// GL_MAX_TEXTURE_IMAGE_UNITS), 8 storage blocks a fragment or compute stage and 8 binding
// points, 16 vertex attributes; no limit query is needed for them.
static_assert(std::ranges::max(kRendererTextureUnits) < 80, "a texture unit past GL 4.5's minimum of 80");
static_assert(std::ranges::max(kCullBindings) < 8, "a storage binding past GL 4.5's minimum of 8");
static_assert(std::ranges::max(kSurfaceLocations) < 16, "an attribute location past GL 4.5's minimum of 16");
// surface.vert's uniforms: its largest array is the baked clip table (vec4 u_clips[kMaxBakedClips],
// MYRIAD_SKIN_ANIMATED); with the matrices and the rest it must stay inside GL 4.5's minimum of
// 1024 GL_MAX_VERTEX_UNIFORM_COMPONENTS, so no limit query is needed for it either.
static_assert(kMaxBakedClips * 4 <= 512, "the clip table would crowd GL 4.5's 1024 vertex uniform components");

/** The #defines every stage is compiled with (compiledStageText, after the MYRIAD_LOCATION_*
 *  of InstanceRecord.h), so GLSL names each unit and binding by the number above:
 *  MYRIAD_UNIT_* (samplers), MYRIAD_BINDING_* (storage blocks). The streams' own units
 *  (morph weights, lanes) reach GLSL through their generated declarations
 *  (ShaderLibrary::streamDeclarations). Built once. */
[[nodiscard]] const std::string& bindingDefines();

} // namespace myriad::gl::detail
