#include "gl/Bindings.h"

#include "myriad/core/AnimationSet.h"  // kMaxBakedClips

#include <sstream>

namespace myriad::gl::detail {

const std::string& bindingDefines() {
    // One source for both languages: the units and storage bindings Bindings.h assigns, by the
    // names GLSL uses; built on first use (a function-local static: thread-safe).
    static const std::string defines = [] {
    std::ostringstream out;
    out << "#define MYRIAD_UNIT_BASE_COLOR " << kBaseColorUnit << "\n"
        << "#define MYRIAD_UNIT_MORPH_TARGETS " << kMorphTargetUnit << "\n"
        << "#define MYRIAD_UNIT_INDEXED_RECORD " << kIndexedRecordUnit << "\n"
        << "#define MYRIAD_UNIT_VISIBLE_INDEX " << kVisibleIndexUnit << "\n"
        << "#define MYRIAD_UNIT_SHADOW_MAP " << kShadowMapUnit << "\n"
        << "#define MYRIAD_UNIT_DRAW_TABLE " << kDrawTableUnit << "\n"
        << "#define MYRIAD_UNIT_PREVIOUS_RECORD " << kPreviousRecordUnit << "\n"
        << "#define MYRIAD_LOCATION_DRAW " << kDrawIdLocation << "\n"
        << "#define MYRIAD_DRAW_ROW_TEXELS " << kDrawRowTexels << "\n"
        << "#define MYRIAD_DRAW_ROW_RECORD_SLOT " << kDrawRowRecordSlotTexel << "\n"
        << "#define MYRIAD_DRAW_ROW_LANES " << kDrawRowLanesTexel << "\n"
        << "#define MYRIAD_DRAW_ROW_SHADING " << kDrawRowShadingTexel << "\n"
        << "#define MYRIAD_UNIT_LIGHT_LIST " << kLightListUnit << "\n"
        << "#define MYRIAD_UNIT_INSTANCE_LIGHT_CHANNELS " << kInstanceLightChannelsUnit << "\n"
        << "#define MYRIAD_UNIT_LAMP_SHADOW_ATLAS " << kLampShadowAtlasUnit << "\n"
        << "#define MYRIAD_UNIT_LAMP_SHADOW_RECORDS " << kLampShadowRecordsUnit << "\n"
        << "#define MYRIAD_UNIT_LANES " << kLanesUnit << "\n"
        << "#define MYRIAD_UNIT_SKIN " << kSkinUnit << "\n"
        << "#define MYRIAD_MAX_BAKED_CLIPS " << kMaxBakedClips << "\n"
        << "#define MYRIAD_MAX_LANES " << streams::kMaxLanes << "\n"
        << "#define MYRIAD_UNIT_PARTICLE_ORDER " << kParticleOrderUnit << "\n"
        << "#define MYRIAD_UNIT_PARTICLE_STREAMS " << kParticleStreamsUnit << "\n"
        << "#define MYRIAD_UNIT_PARTICLE_CURVES " << kParticleCurvesUnit << "\n"
        << "#define MYRIAD_BINDING_MATERIAL_TABLE " << kMaterialTableBinding << "\n"
        << "#define MYRIAD_BINDING_CULL_RECORDS " << kCullRecordsBinding << "\n"
        << "#define MYRIAD_BINDING_CULL_MORPH_WEIGHTS " << kCullMorphWeightsBinding << "\n"
        << "#define MYRIAD_BINDING_CULL_VISIBLE " << kCullVisibleBinding << "\n"
        << "#define MYRIAD_BINDING_CULL_COMMANDS " << kCullCommandsBinding << "\n"
        << "#define MYRIAD_BINDING_CULL_LOD_LEVELS " << kCullLodLevelsBinding << "\n"
        << "#define MYRIAD_BINDING_CULL_JOBS " << kCullJobsBinding << "\n"
        << "#define MYRIAD_BINDING_CULL_PYRAMID " << kCullPyramidBinding << "\n"
        << "#define MYRIAD_UNIT_PYRAMID_DEPTH " << kPyramidDepthUnit << "\n"
        << "#define MYRIAD_UNIT_TONEMAP_SOURCE " << kToneMapSourceUnit << "\n"
        << "#define MYRIAD_BINDING_PARTICLE_COUNTERS " << kParticleCountersBinding << "\n"
        << "#define MYRIAD_BINDING_PARTICLE_SOURCE " << kParticleSourceBinding << "\n"
        << "#define MYRIAD_BINDING_PARTICLE_TARGET " << kParticleTargetBinding << "\n"
        << "#define MYRIAD_BINDING_PARTICLE_ORDER " << kParticleOrderBinding << "\n"
        << "#define MYRIAD_BINDING_SKIN_PALETTE " << kSkinPaletteBinding << "\n"
        << "#define MYRIAD_UNIT_ENVIRONMENT " << kEnvironmentUnit << "\n"
        << "#define MYRIAD_UNIT_METALLIC_ROUGHNESS " << kMetallicRoughnessUnit << "\n"
        << "#define MYRIAD_UNIT_NORMAL " << kNormalUnit << "\n"
        << "#define MYRIAD_UNIT_OCCLUSION " << kOcclusionUnit << "\n"
        << "#define MYRIAD_UNIT_EMISSIVE " << kEmissiveUnit << "\n"
        << "#define MYRIAD_UNIT_LIGHTMAP " << kLightmapUnit << "\n";
    return out.str();
    }();
    return defines;
}

} // namespace myriad::gl::detail
