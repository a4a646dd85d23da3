#include "renderer/SurfacePass.h"
#include "renderer/ProgramUse.h"

#include "gl/Bindings.h"
#include "gl/GlCommon.h"
#include "renderer/DrawTable.h"
#include "renderer/Fog.h"
#include "renderer/GpuCulling.h"
#include "renderer/GpuCullingCounts.h"
#include "renderer/GpuPopulations.h"
#include "renderer/GpuResources.h"
#include "renderer/InstanceVisibility.h"
#include "renderer/LightList.h"
#include "renderer/LodSelection.h"
#include "renderer/MaterialTable.h"
#include "renderer/PhaseTimer.h"
#include "renderer/ShaderLibrary.h"
#include "renderer/ShadingFactors.h"
#include "renderer/LampShadowPass.h"
#include "renderer/ShadowPass.h"  // shadows
#include "renderer/SkinPalettePass.h"
#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Material.h"
#include "myriad/core/MeshNode.h"
#include "myriad/core/Scene.h"
#include "myriad/gl/Draw.h"

#include <glm/geometric.hpp>

namespace myriad::gl::detail {

/** The feature set a node needs in a view. */
std::uint32_t SurfacePass::featuresOf(const DrawItem& item, const ViewPass& pass) const {
    const View& view = pass.view();
    const MeshNode& node = *item.node;
    const Material& material = node.primitiveMaterial(item.primitive);
    std::uint32_t features = 0;
    if (item.instanced) {
        features |= kInstanced;
        const auto& batch = static_cast<const InstancedMeshNode&>(node);
        if (item.visible != nullptr || item.gpuCulled != nullptr) {
            features |= kIndexed;
            if (item.lodFade && item.lodLevel != kNoLodLevel) {
                features |= kLodFade;  // docs/visibility.md, "Level of detail"
            }
        }
        const std::size_t mirrored = batch.mirroredCount();
        if (!material.doubleSided && mirrored != 0 && mirrored != batch.count()) {
            features |= kMixedMirroring;
        }
    }
    if (drawnMesh(item)->morphTargetCount() > 0) {
        features |= kMorph;
        if (item.instanced && static_cast<const InstancedMeshNode&>(node).hasInstanceMorphWeights()) {
            features |= kInstanceMorphWeights;
        }
    }
    if (item.instanced && static_cast<const InstancedMeshNode&>(node).hasLanes()) {
        features |= kInstanceLanes;
    }
    if (drawsAnimated(item)) {  // docs/skinning.md
        features |= kSkin | kSkinAnimated;
    } else if (drawsSkinned(item)) {
        features |= kSkin;
    }
    const bool blended = node.primitiveDrawsTransparent(item.primitive);
    features |= shadingFeatures(material, blended, view) | fogFeatures(pass.fog());
    if (item.instanced && (features & kLit) != 0 &&
        static_cast<const InstancedMeshNode&>(node).hasInstanceLightChannels()) {
        features |= kInstanceLightChannels;  // docs/lighting.md, "Light channels"
    }
    features |= materialTextureFeatures(material, *drawnMesh(item), view);
    if (view.velocity && !view.depthOnly && !blended) {
        features |= kVelocity;  // motion vectors: opaque MeshNode and batch draws only
    }
    features |= ambientFeatures(features, m_parts.lights.ambient());  // image-based ambient
    if (m_parts.lampShadow != nullptr) {
        features |= m_parts.lampShadow->receiveFeatures(features, &node, view);  // lamp shadows
    }
    return features | m_parts.shadow.receiveFeatures(features, &node, view);  // shadows
}

/** The switches a material and view decide (alpha mode, lighting, blending, depth-only,
 *  sRGB encoding), shared by nodes and populations. */
std::uint32_t SurfacePass::shadingFeatures(const Material& material, bool blended, const View& view) {
    std::uint32_t features = material.alphaMode == AlphaMode::Mask ? kAlphaMask : 0u;
    if (view.depthOnly) {
        return features | kDepthOnly;
    }
    features |= outputFeatures(view);
    if (material.shading == Shading::Lit) {
        features |= kLit;
    } else if (material.shading == Shading::MetallicRoughness) {
        features |= kLit | kMetallicRoughness;
    }
    if (blended) {
        features |= kBlend;
    }
    return features;
}

/** kMaterialTextures when the material has extra textures (in a depth-only view only when it
 *  is alpha-masked: the base colour's set and transform decide what is discarded), plus
 *  kTangentFrame when it is normal-mapped and @p mesh has tangents. */
std::uint32_t SurfacePass::materialTextureFeatures(const Material& material, const MeshGeometry& mesh,
                                                   const View& view) {
    if (!material.hasMaterialTextures() || (view.depthOnly && material.alphaMode != AlphaMode::Mask)) {
        return 0u;
    }
    return kMaterialTextures | (material.normalTexture && mesh.hasTangents() && !view.depthOnly ? kTangentFrame : 0u);
}

/** The feature set a population needs in a view (no morphing: a population draws its
 *  mesh's base shape). */
std::uint32_t SurfacePass::featuresOf(const Population& population, const ViewPass& pass) const {
    const View& view = pass.view();
    const Material& material = population.material;
    std::uint32_t features = kInstanced;
    if (!population.laneBuffer.empty()) {
        features |= kInstanceLanes;
    }
    features |= shadingFeatures(material, material.alphaMode == AlphaMode::Blend, view) | fogFeatures(pass.fog());
    features |= ambientFeatures(features, m_parts.lights.ambient());  // image-based ambient
    if (m_parts.lampShadow != nullptr) {
        features |= m_parts.lampShadow->receiveFeatures(features, nullptr, view);  // lamp shadows
    }
    return features | m_parts.shadow.receiveFeatures(features, nullptr, view);  // shadows
}

void SurfacePass::beginView(const ViewPass& pass, std::size_t passIndex, std::size_t velocityView, std::uint64_t frame,
                            float time) {
    ++m_viewSerial;
    m_passIndex = passIndex;
    if (!pass.view().depthOnly) {
        m_parts.lights.bind();  // every lit draw of the view reads it (unit 11)
    }
    m_time = time;
    m_previousTime = time;
    if (frame != m_frame) {
        m_frame = frame;
        // Nodes not drawn into a velocity view for a frame start again anyway: forget them
        // now and then, so destroyed nodes do not pile up.
        if (m_nodeHistory.size() > 1024 && frame % 64 == 0) {
            std::erase_if(m_nodeHistory, [&](const auto& entry) { return entry.second.frame + 1 < frame; });
        }
    }
    if (velocityView == SIZE_MAX) {
        return;
    }
    if (m_viewHistory.size() <= velocityView) {
        m_viewHistory.resize(velocityView + 1);
    }
    ViewHistory& history = m_viewHistory[velocityView];
    const ViewCamera& camera = pass.camera();
    if (history.frame != frame) {
        const bool continues = history.frame != 0 && history.frame + 1 == frame;
        history.previous = continues ? history.current : camera.viewProjection;
        history.previousEye = continues ? history.currentEye : camera.eye;
        history.current = camera.viewProjection;
        history.currentEye = camera.eye;
        history.previousTime = continues ? history.currentTime : time;
        history.currentTime = time;
        history.frame = frame;
    }
    m_previousViewProjection = history.previous;
    m_previousEye = history.previousEye;
    m_previousTime = history.previousTime;
    m_viewportSize = glm::vec2(static_cast<float>(pass.view().viewport.width), static_cast<float>(pass.view().viewport.height));
}

glm::mat4 SurfacePass::previousModel(const MeshNode& node) {
    NodeHistory& history = m_nodeHistory[node.id()];
    if (history.frame != m_frame) {
        const bool continues = history.frame != 0 && history.frame + 1 == m_frame;
        history.previousLinear = continues ? history.currentLinear : node.worldLinear();
        history.previousTranslation = continues ? history.currentTranslation : node.worldTranslation();
        history.currentLinear = node.worldLinear();
        history.currentTranslation = node.worldTranslation();
        history.frame = m_frame;
    }
    glm::mat4 model(history.previousLinear);
    // In double, then float: camera-relative like u_model, about the previous eye.
    model[3] = glm::vec4(glm::vec3(history.previousTranslation - m_previousEye), 1.0f);
    return model;
}

void SurfacePass::setBlendDepthWrite(bool writes) {
    if (writes != m_blendDepthWrite) {
        glDepthMask(writes ? GL_TRUE : GL_FALSE);
        m_blendDepthWrite = writes;
    }
}

void SurfacePass::useProgram(const SurfaceProgram& program) {
    if (m_boundProgram != &program) {
        useCounted(program.program, program.usedFrame, m_parts.stats);
        m_boundProgram = &program;
        ++m_parts.stats.programBinds;
    }
}

// Back faces: fixed-function culling when every drawn copy has the same handedness (GL_FRONT
// for mirrored ones, whose front faces wind clockwise on screen), per fragment when a batch
// mixes mirrored and ordinary instances (kMixedMirroring), none for double-sided materials.
// A shadow pass then applies its caster faces (ViewPass::casterCullFace).
void SurfacePass::setFaceCulling(const DrawItem& item, std::uint32_t features, const ViewPass& pass) {
    const MeshNode& node = *item.node;
    if (node.primitiveMaterial(item.primitive).doubleSided || (features & kMixedMirroring) != 0) {
        glDisable(GL_CULL_FACE);
        return;
    }
    bool mirrored = node.worldIsMirrored();
    if (item.instanced) {
        mirrored = mirrored != (static_cast<const InstancedMeshNode&>(node).mirroredCount() != 0);
    }
    const auto cull = static_cast<GLenum>(pass.casterCullFace(mirrored ? GL_FRONT : GL_BACK, node));
    if (cull == GL_NONE) {
        glDisable(GL_CULL_FACE);
        return;
    }
    glEnable(GL_CULL_FACE);
    glCullFace(cull);
}

/** Uses @p chosen and gives it the view's camera and light (once per program and view). */
void SurfacePass::useForView(SurfaceProgram& chosen, const ViewPass& pass, const Scene& scene) {
    const Program& program = chosen.program;
    const SurfaceUniforms& u = chosen.uniforms;
    useProgram(chosen);
    if (chosen.viewSerial != m_viewSerial) {
        // Camera and light are the same for every draw of a view: once per program and view.
        const ViewCamera& camera = pass.camera();
        program.setUniform(u.viewProjection, camera.viewProjection);
        program.setUniform(u.eye, glm::vec3(camera.eye));
        if (u.eyeHigh >= 0) {  // kTabled: the eye as high + low floats (DrawTable.h)
            const SplitVec3 eye = splitDouble(camera.eye);
            program.setUniform(u.eyeHigh, eye.high);
            program.setUniform(u.eyeLow, eye.low);
        }
        m_parts.lights.setViewUniforms(chosen, m_passIndex, scene);  // sun, ambient, the view's light list
        m_parts.shadow.setReceiverUniforms(chosen, pass);  // shadows: the map as this view sees it
        setFogUniforms(program, u, pass.fog());  // fog (docs/lighting.md)
        if (u.prevViewProjection >= 0) {  // motion vectors (beginView)
            program.setUniform(u.prevViewProjection, m_previousViewProjection);
            program.setUniform(u.viewportSize, m_viewportSize);
        }
        if (u.time >= 0) {  // a user vertex function (docs/shaders.md, "Vertex functions")
            program.setUniform(u.time, m_time);
            program.setUniform(u.prevTime, m_previousTime);
            program.setUniform(u.prevEye, glm::vec3(m_previousEye));
        }
        chosen.viewSerial = m_viewSerial;
    }
}

/** The material's uniforms, texture and sampler, and its index, as drawn on @p mesh. */
void SurfacePass::setMaterial(const SurfaceProgram& chosen, const Material& material, const MeshGeometry& mesh) {
    const Program& program = chosen.program;
    const SurfaceUniforms& u = chosen.uniforms;
    const Texture2D* baseColorTexture = m_parts.resources.texture(material);
    if (baseColorTexture != nullptr) {
        baseColorTexture->bind(kBaseColorUnit);
        glBindSampler(kBaseColorUnit, m_parts.resources.sampler(material));
    }
    program.setUniform(u.baseColor, material.baseColor);
    program.setUniform(u.hasTexture, baseColorTexture != nullptr ? 1 : 0);
    program.setUniform(u.alphaCutoff, material.alphaCutoff);
    program.setUniform(u.materialIndex, static_cast<int>(m_parts.materials.indexOf(material)));
    setShadingUniforms(chosen, material);
    if (chosen.uniforms.textureSlots >= 0) {
        bindMaterialTextures(chosen, m_parts.resources.materialTextures(material, mesh));
    }
}

/** A material's extra textures on units 12-16 with their samplers, and their slots' uniforms
 *  (kMaterialTextures; docs/lighting.md, "Material textures" and "Lightmaps"). */
void SurfacePass::bindMaterialTextures(const SurfaceProgram& chosen, const MaterialTextures& textures) {
    static constexpr std::array<std::uint32_t, 5> kUnits{kMetallicRoughnessUnit, kNormalUnit, kOcclusionUnit,
                                                         kEmissiveUnit, kLightmapUnit};
    static_assert(kUnits.size() == std::tuple_size_v<decltype(textures.textures)>);
    for (std::size_t k = 0; k < kUnits.size(); ++k) {
        if (textures.textures[k] != nullptr) {
            textures.textures[k]->bind(kUnits[k]);
            glBindSampler(kUnits[k], textures.samplers[k]);
        }
    }
    const SurfaceUniforms& u = chosen.uniforms;
    glProgramUniform3i(chosen.program.id(), u.textureSlots, textures.slotMask, textures.uv1Mask,
                       textures.coordinateFlags);
    glProgramUniform3fv(chosen.program.id(), u.textureTransform, static_cast<GLsizei>(textures.transform.size()),
                        &textures.transform[0][0]);
    chosen.program.setUniform(u.textureFactors, textures.factors);
}

void SurfacePass::setShadingUniforms(const SurfaceProgram& chosen, const Material& material) {
    const Program& program = chosen.program;
    const SurfaceUniforms& u = chosen.uniforms;
    const ShadingFactors factors = shadingFactors(material);
    program.setUniform(u.metallicRoughness, factors.metallicRoughness);
    program.setUniform(u.emissive, factors.emission);
}

/** Lanes from uniforms: a MeshNode's shader data, or zeros (a batch or population without
 *  lanes; never an unbound attribute, which would read (0, 0, 0, 1)). */
void SurfacePass::setUniformLanes(const SurfaceProgram& chosen, const std::array<glm::vec4, 4>& lanes) {
    if (chosen.uniforms.lanes >= 0) {
        glProgramUniform4fv(chosen.program.id(), chosen.uniforms.lanes, 4, &lanes[0][0]);
    }
}

/** A batch playing an AnimationSet: its per-instance palettes, blended before the frame's
 *  draws (renderer/SkinPalettePass.h), and their joint count. */
void SurfacePass::bindAnimation(const SurfaceProgram& chosen, const InstancedMeshNode& batchNode) {
    glBindTextureUnit(kSkinUnit, m_parts.skinPalettes.texture(batchNode));
    chosen.program.setUniform(chosen.uniforms.jointCount, static_cast<int>(batchNode.animationSet()->jointCount()));
}

void SurfacePass::draw(const DrawItem& item, const ViewPass& pass, const Scene& scene) {
    const MeshNode& node = *item.node;
    const Material& material = node.primitiveMaterial(item.primitive);
    const std::uint32_t features = featuresOf(item, pass);
    SurfaceProgram& chosen = m_parts.shaders.get(features, material.surface);
    const Program& program = chosen.program;
    const SurfaceUniforms& u = chosen.uniforms;
    useForView(chosen, pass, scene);

    const std::shared_ptr<const MeshGeometry>& primitiveMesh = drawnMesh(item);
    const MeshGeometry& geometry = *primitiveMesh;
    MeshGpu& mesh = m_parts.resources.mesh(primitiveMesh);
    if ((features & kMorph) != 0) {
        glBindTextureUnit(kMorphTargetUnit, mesh.morphTargets.id());
        program.setUniform(u.morphTargetCount, static_cast<int>(geometry.morphTargetCount()));
        program.setUniform(u.vertexCount, static_cast<int>(geometry.vertexCount()));
        program.setUniform(u.morphWeights, node.morphWeights());
    }
    if ((features & kSkin) != 0 && (features & kSkinAnimated) == 0) {
        glBindTextureUnit(kSkinUnit, m_parts.resources.skinPalette(node).texture.id());
    }
    setMaterial(chosen, material, geometry);
    glm::mat4 model(node.worldLinear());
    model[3] = glm::vec4(glm::vec3(node.worldTranslation() - pass.camera().eye), 1.0f);
    program.setUniform(u.model, model);
    if ((features & kVelocity) != 0) {
        program.setUniform(u.prevModel, previousModel(node));
    }
    program.setUniform(u.tint, node.tint());
    program.setUniform(u.lightChannels, static_cast<int>(node.lightChannels()));
    program.setUniform(u.baseInstance, static_cast<int>(item.firstInstance));
    if ((features & kInstanceLanes) == 0) {
        setUniformLanes(chosen, item.instanced ? kZeroLanes : node.shaderDataLanes());
    }
    setFaceCulling(item, features, pass);

    const VertexArray* vertexArray = &mesh.vertexArray;
    if (item.instanced) {
        const auto& batchNode = static_cast<const InstancedMeshNode&>(node);
        BatchGpu& batch = *m_parts.resources.findBatch(batchNode);  // prepare() made and uploaded it
        m_parts.resources.syncVertexArrays(batch);  // its mesh and where its records are now
        if ((features & kInstanceMorphWeights) != 0) {
            glBindTextureUnit(kMorphWeightsUnit, batch.streams[InstanceStreamId::MorphWeights].texture.id());
        }
        if ((features & kSkinAnimated) != 0) {
            bindAnimation(chosen, batchNode);
        }
        if ((features & kVelocity) != 0) {
            GpuResources::bindPreviousRecords(batch, kPreviousRecordUnit);  // prepare() brought them up to date
        }
        if ((features & kInstanceLightChannels) != 0) {
            glBindTextureUnit(kInstanceLightChannelsUnit, batch.streams[InstanceStreamId::LightChannels].texture.id());
        }
        if ((features & kInstanceLanes) != 0) {
            glBindTextureUnit(kLanesUnit, batch.streams[InstanceStreamId::Lanes].texture.id());
            program.setUniform(u.laneVectors, static_cast<int>(batchNode.laneCount()));
        }
        if (item.visible != nullptr) {
            m_parts.instanceVisibility.bind(*item.visible, batchNode, batch, m_parts.stats);
        } else if (item.gpuCulled != nullptr) {
            m_parts.gpuCulling.bind(*item.gpuCulled, batch);
        }
        // A LOD level above 0 draws its own mesh's vertex array: the kIndexed variant reads
        // records from the buffer texture, so no record attributes are needed on it.
        const bool ownLevelMesh = item.lodLevel != 0 && item.lodLevel != kNoLodLevel;
        vertexArray = ownLevelMesh ? &mesh.vertexArray : &batch.vertexArrays[item.primitive];
        if (item.lodLevel != kNoLodLevel && item.gpuCulled == nullptr && item.primitive == 0) {  // GPU: the counts stay there
            m_parts.stats.lodInstances[item.lodLevel] += item.instanceCount;
        }
        ++m_parts.stats.batches;
    } else {
        ++m_parts.stats.meshNodes;
    }
    {
        const PhaseTimer timer(m_parts.stats.drawMs);
        if (item.gpuCulled != nullptr) {
            GpuCulling::draw(*item.gpuCulled, *vertexArray, geometry, item.primitive,
                             item.lodLevel == kNoLodLevel ? item.cullSlot : item.lodLevel);
        } else {
            drawElementsInstancedBaseInstance(*vertexArray, PrimitiveMode::Triangles, geometry.indexCount(),
                                              geometry.indexType(), 0, item.instanceCount, item.firstInstance);
        }
    }
    if (item.gpuCulled != nullptr && m_parts.countGpuCulled) {  // its count is copied after the frame's draws
        m_parts.gpuCullingCounts.noteDraw(*item.gpuCulled, item.primitive, item.lodLevel == kNoLodLevel ? item.cullSlot : item.lodLevel,
                                  geometry.triangleCount(), item.instanceCount);
    }
    ++m_parts.stats.vertexArrayBinds;
    ++m_parts.stats.drawCalls;
    ++m_parts.stats.drawCommands;
    m_parts.stats.instances += item.instanceCount;
    m_parts.stats.triangles += std::uint64_t{geometry.triangleCount()} * item.instanceCount;
}


/** The pass's table-driven groups: one glMultiDrawElementsIndirect each, with its program,
 *  texture, sampler and face culling. */
void SurfacePass::drawTableGroups(std::size_t passIndex, const ViewPass& pass, const Scene& scene) {
    const std::span<const TableGroup> groups = m_parts.table.groups(passIndex);
    if (groups.empty()) {
        return;
    }
    m_parts.table.bindForDraws(m_parts.resources);
    ++m_parts.stats.vertexArrayBinds;
    // State that stays from one group to the next is not set again (groups of one program
    // are adjacent, DrawTable::build).
    const Texture2D* boundTexture = nullptr;
    GLuint boundSampler = 0;
    GLenum cullFace = GL_INVALID_ENUM;
    for (const TableGroup& group : groups) {
        SurfaceProgram& chosen = m_parts.shaders.get(group.features, group.material->surface);
        useForView(chosen, pass, scene);
        // The texture and sampler DrawTable::build looked up for the group's key.
        if (group.texture != nullptr && (group.texture != boundTexture || group.sampler != boundSampler)) {
            group.texture->bind(kBaseColorUnit);
            glBindSampler(kBaseColorUnit, group.sampler);
            boundTexture = group.texture;
            boundSampler = group.sampler;
        }
        if (group.materialTextures.used && chosen.uniforms.textureSlots >= 0) {
            bindMaterialTextures(chosen, group.materialTextures);  // the group's key: equal for every draw
        }
        if (group.cullFace != cullFace) {
            if (group.cullFace == GL_NONE) {
                glDisable(GL_CULL_FACE);
            } else {
                glEnable(GL_CULL_FACE);
                glCullFace(group.cullFace);
            }
            cullFace = group.cullFace;
        }
        const PhaseTimer timer(m_parts.stats.drawMs);
        m_parts.table.draw(group, m_parts.stats);
    }
    if (m_parts.countGpuCulled) {  // GPU-culled commands: their counts are copied after the frame's draws
        for (const CulledCommand& command : m_parts.table.culledCommands(passIndex)) {
            m_parts.gpuCullingCounts.noteCommand(m_parts.table.commandBuffer(), command.command, command.triangles,
                                         command.upperBound);
        }
    }
}

/** One population: its records from the named transform buffer, lanes from the named lane
 *  buffer (or zeros), world space (no node matrix), culled only by the bounds it was given. */
void SurfacePass::drawPopulation(Population& population, const ViewPass& pass, const Scene& scene) {
    if (population.bounds && !population.bounds->empty()) {
        const Frustum frustum(pass.camera().viewProjection, pass.view().clipDepth);
        const glm::vec3 centre(glm::dvec3(population.bounds->centre()) - pass.camera().eye);
        if (!frustum.intersectsSphere(centre, glm::length(population.bounds->halfExtent()))) {
            ++m_parts.stats.culledNodes;
            return;
        }
    }
    const Material& material = population.material;
    const std::uint32_t features = featuresOf(population, pass);
    SurfaceProgram& chosen = m_parts.shaders.get(features, material.surface);
    const SurfaceUniforms& u = chosen.uniforms;
    useForView(chosen, pass, scene);
    setMaterial(chosen, material, *population.mesh);
    glm::mat4 model(1.0f);
    model[3] = glm::vec4(-glm::vec3(pass.camera().eye), 1.0f);
    chosen.program.setUniform(u.model, model);
    chosen.program.setUniform(u.tint, glm::vec4(1.0f));
    chosen.program.setUniform(u.lightChannels, 1);  // no node: channel 0, every light's default
    chosen.program.setUniform(u.baseInstance, 0);
    if (population.lanes.id() != 0) {
        glBindTextureUnit(kLanesUnit, population.lanes.id());
        chosen.program.setUniform(u.laneVectors, 4);  // a population's Lanes row: four vec4
    } else {
        setUniformLanes(chosen, kZeroLanes);
    }
    // Handedness is unknown (the GPU wrote the records): culling as for unmirrored copies.
    if (material.doubleSided) {
        glDisable(GL_CULL_FACE);
    } else {
        glEnable(GL_CULL_FACE);
        glCullFace(GL_BACK);
    }
    const MeshGeometry& geometry = *population.mesh;
    const VertexArray& vertexArray = m_parts.populations.vertexArray(m_parts.resources, population);
    const auto count = static_cast<std::uint32_t>(population.instanceCount);
    {
        const PhaseTimer timer(m_parts.stats.drawMs);
        drawElementsInstancedBaseInstance(vertexArray, PrimitiveMode::Triangles, geometry.indexCount(),
                                          geometry.indexType(), 0, count, 0);
    }
    ++m_parts.stats.vertexArrayBinds;
    ++m_parts.stats.drawCalls;
    ++m_parts.stats.drawCommands;
    m_parts.stats.instances += count;
    m_parts.stats.triangles += std::uint64_t{geometry.triangleCount()} * count;
}

void SurfacePass::drawPopulations(const ViewPass& pass, const Scene& scene, bool blended) {
    if (blended) {
        m_blendDepthWrite = false;  // the caller turned the mask off
    }
    for (const auto& population : m_parts.populations.populations()) {
        const bool blends = population->material.alphaMode == AlphaMode::Blend;
        if (blends == blended && !(blends && pass.view().depthOnly)) {
            if (blends) {
                setBlendDepthWrite(population->material.blendWritesDepth);
            }
            drawPopulation(*population, pass, scene);
        }
    }
    if (blended) {
        setBlendDepthWrite(false);
    }
}


void SurfacePass::drawOpaque(std::size_t passIndex, const ViewPass& pass, const Scene& scene) {
    drawTableGroups(passIndex, pass, scene);
    for (const DrawItem* item : m_parts.table.rest(passIndex)) {
        draw(*item, pass, scene);
    }
}

void SurfacePass::drawOcclusionPhase2(std::size_t passIndex, const ViewPass& pass, const Scene& scene) {
    for (const DrawItem* item : m_parts.table.rest(passIndex)) {
        if (item->gpuCulled != nullptr && item->gpuCulled->occlusion) {
            DrawItem second = *item;
            second.cullSlot = 1;
            second.firstInstance = GpuCulling::levelSlotFirst(*item->gpuCulled, 1);
            draw(second, pass, scene);
            if (item->primitive == 0 && m_parts.countGpuCulled) {
                m_parts.gpuCullingCounts.noteCounters(*item->gpuCulled);  // once per (view, batch)
            }
        }
    }
}

} // namespace myriad::gl::detail
