#include "renderer/GpuCulling.h"
#include "renderer/ProgramUse.h"

#include "core/LodBands.h"

#include "renderer/DepthPyramid.h"
#include "renderer/GpuResources.h"
#include "renderer/InstanceVisibility.h"
#include "renderer/ViewPass.h"
#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/MorphTargets.h"
#include "myriad/gl/VertexArray.h"
#include "myriad/util/Error.h"

#include <glm/geometric.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <string>

namespace myriad::gl::detail {
namespace {

constexpr GLuint kLocalSize = 256;  // cull.comp's local_size_x

} // namespace

bool GpuCulling::wants(const InstancedMeshNode& batch, bool blended) noexcept {
    const myriad::InstanceVisibility& v = batch.visibility();
    return v.culling == InstanceCulling::Gpu && !(blended && v.sortBackToFront);
}

void GpuCulling::beginFrame() noexcept {
    ++m_frame;
    m_queued.clear();
}

void GpuCulling::endFrame() noexcept {
    auto stale = [&](const auto& entry) {
        return entry.second.alive.expired() || entry.second.lastUsedFrame + kKeepFrames < m_frame;
    };
    std::erase_if(m_lists, stale);
    m_queued.clear();  // points into m_lists
}

void GpuCulling::trim() noexcept {
    auto unused = [&](const auto& entry) { return entry.second.lastUsedFrame != m_frame; };
    std::erase_if(m_lists, unused);
}

void GpuCulling::select(std::size_t pass, const InstancedMeshNode& batch, const FrustumPlanes& planes,
                        const ViewCamera& camera, DrawItem& item, FrameStats& stats, bool occlusion) {
    GpuCullList& list = m_lists[{pass, batch.id()}];
    if (list.alive.expired()) {
        list = GpuCullList{};  // a new node (or one whose id outlived it): start clean
        list.alive = batch.lifetime();
    }
    list.lastUsedFrame = m_frame;
    list.node = &batch;
    list.planes = nodeSpacePlanes(planes, batch.worldLinear(), batch.worldTranslation(), camera.eye);
    list.range = batch.drawnInstances();
    list.originFromEye = glm::vec3(batch.worldTranslation() - camera.lodEye);  // as LodSelection::split()
    list.lodLevels = batch.hasLodChain() ? batch.lodChain().levels.size() : 0;
    list.lodProjection = camera.lodProjection;
    list.pass = pass;
    list.occlusion = occlusion && list.lodLevels == 0;
    if (list.occlusion) {
        // Camera-relative: clip = VP * (L p + (T - eye)), T - eye in double first.
        glm::mat4 nodeFromLocal(batch.worldLinear());
        nodeFromLocal[3] = glm::vec4(glm::vec3(batch.worldTranslation() - camera.eye), 1.0f);
        list.clipFromNode = camera.viewProjection * nodeFromLocal;
        list.batchSphere = glm::vec4(glm::vec3(batch.worldBoundsCentre() - camera.eye), batch.worldBoundsRadius());
    }
    list.table = {};  // DrawTable::build takes it over again if it still draws the batch
    m_queued.push_back(&list);
    const std::size_t tested = list.range.end - list.range.begin;
    if (list.capacity < tested || list.capacity == 0 || list.slots != slotsOf(list)) {
        // Decided here so the level items know where their slots start; run() allocates. The
        // slots together are read as a buffer texture (texels) and written as a storage block
        // (4 bytes a texel): the slack stays under both limits, so a list that fits either is
        // not refused for it.
        const std::size_t slots = slotsOf(list);
        const auto texels = std::min(static_cast<std::size_t>(m_limits.maxTextureBufferTexels),
                                     static_cast<std::size_t>(m_limits.maxShaderStorageBlockBytes) / sizeof(std::uint32_t));
        list.capacity = grownCapacity(tested, texels / slots);
    }
    stats.instancesTested += tested;
    stats.instancesGpuCulled += tested;
    item.gpuCulled = &list;
    item.firstInstance = 0;  // level slot 0's list starts at 0
    item.instanceCount = static_cast<std::uint32_t>(tested);
}

ShaderSource GpuCulling::programSource() {
    return {ShaderStage::Compute, "cull.comp", embeddedShaderText("cull.comp")};
}

void GpuCulling::ensureProgram() {
    if (m_program.id() != 0) {
        return;
    }
    const ShaderSource stage = programSource();
    m_program = Program(std::span(&stage, 1), "myriad/cull");
    const Program& p = m_program;
    m_uniforms = Uniforms{
        .planes = p.uniformLocation("u_planes"),
        .planeScale = p.uniformLocation("u_planeScale"),
        .first = p.uniformLocation("u_first"),
        .count = p.uniformLocation("u_count"),
        .boxMin = p.uniformLocation("u_boxMin"),
        .boxMax = p.uniformLocation("u_boxMax"),
        .ownWeights = p.uniformLocation("u_ownWeights"),
        .localMin = p.uniformLocation("u_localMin"),
        .localMax = p.uniformLocation("u_localMax"),
        .morphTargetCount = p.uniformLocation("u_morphTargetCount"),
        .deltaMin = p.uniformLocation("u_deltaMin"),
        .deltaMax = p.uniformLocation("u_deltaMax"),
        .primitiveCount = p.uniformLocation("u_primitiveCount"),
        .lodLevelCount = p.uniformLocation("u_lodLevelCount"),
        .lodSwitchCount = p.uniformLocation("u_lodSwitchCount"),
        .lodSwitch = p.uniformLocation("u_lodSwitch"),
        .lodLower = p.uniformLocation("u_lodLower"),
        .lodUpper = p.uniformLocation("u_lodUpper"),
        .lodLinear = p.uniformLocation("u_lodLinear"),
        .lodOriginFromEye = p.uniformLocation("u_lodOriginFromEye"),
        .lodFade = p.uniformLocation("u_lodFade"),
        .lodScreen = p.uniformLocation("u_lodScreen"),
        .lodPerspectiveKey = p.uniformLocation("u_lodPerspectiveKey"),
        .lodFadeLow = p.uniformLocation("u_lodFadeLow"),
        .lodFadeHigh = p.uniformLocation("u_lodFadeHigh"),
        .lodFadeStart = p.uniformLocation("u_lodFadeStart"),
        .lodFadeInvWidth = p.uniformLocation("u_lodFadeInvWidth"),
        .listCapacity = p.uniformLocation("u_listCapacity"),
        .tableJobs = p.uniformLocation("u_tableJobs"),
        .jobFirst = p.uniformLocation("u_jobFirst"),
        .jobCount = p.uniformLocation("u_jobCount"),
        .invocationCount = p.uniformLocation("u_invocationCount"),
        .eyeHigh = p.uniformLocation("u_eyeHigh"),
        .eyeLow = p.uniformLocation("u_eyeLow"),
        .occlusionPhase = p.uniformLocation("u_occlusionPhase"),
        .outputSlot = p.uniformLocation("u_outputSlot"),
        .clipFromNode = p.uniformLocation("u_clipFromNode"),
        .clipFromWorld = p.uniformLocation("u_clipFromWorld"),
        .batchSphere = p.uniformLocation("u_batchSphere"),
        .viewportSize = p.uniformLocation("u_viewportSize"),
        .pyramidLevels = p.uniformLocation("u_pyramidLevels"),
        .levelOffset = p.uniformLocation("u_levelOffset"),
        .levelSize = p.uniformLocation("u_levelSize"),
        .reversedDepth = p.uniformLocation("u_reversedDepth"),
        .clipZeroToOne = p.uniformLocation("u_clipZeroToOne"),
        .countersCommand = p.uniformLocation("u_countersCommand"),
    };
}

std::pair<std::size_t, std::size_t> GpuCulling::groupsFor(std::size_t tested) const noexcept {
    const std::size_t groups = (tested + kLocalSize - 1) / kLocalSize;
    const auto maxX = static_cast<std::size_t>(std::max<std::int64_t>(m_limits.maxComputeWorkGroups[0], 1));
    const std::size_t groupsX = std::min(groups, maxX);
    return {groupsX, groupsX == 0 ? 0 : (groups + groupsX - 1) / groupsX};
}

void GpuCulling::checkLimits(const GpuCullList& list, const BatchGpu& gpu) const {
    // Runs for every queued list every frame: strings only for a refusal.
    const InstancedMeshNode& batch = *list.node;
    const char* advice = "use InstanceCulling::Cpu or split the batch";
    requireStorageBlockBytes(m_limits, gpu.recordSource().bytes, batch,
                             "record buffer (one storage block for InstanceCulling::Gpu)", advice);
    const Buffer& weights = gpu.streams[InstanceStreamId::MorphWeights].buffer;
    if (batch.hasInstanceMorphWeights() && weights.id() != 0) {
        requireStorageBlockBytes(m_limits, static_cast<std::uint64_t>(weights.sizeBytes()), batch,
                                 "per-instance morph weights (one storage block for InstanceCulling::Gpu)", advice);
    }
    const std::size_t slots = slotsOf(list);
    const std::uint64_t listTexels = std::uint64_t{slots} * list.capacity;
    if (list.table.active) {
        // No list of its own: DrawTable::build kept the shared pair and command buffers under
        // the storage-block limit, and the batch's records are one arena place.
    } else if (listTexels > static_cast<std::uint64_t>(m_limits.maxTextureBufferTexels)) {
        requireTextureBufferTexels(m_limits, listTexels, batch,
                                   "GPU visible-index list (" + std::to_string(slots) + " LOD slot(s) of " +
                                       std::to_string(list.capacity) + ")",
                                   advice);
    }
    if (!list.table.active) {
        requireStorageBlockBytes(m_limits, listTexels * sizeof(std::uint32_t), batch, "GPU visible-index list", advice);
    }
    if (list.lodLevels != 0 || list.occlusion) {
        requireStorageBlockBytes(m_limits, std::uint64_t{list.range.end} * sizeof(std::uint32_t), batch,
                                 "held LOD levels or visible bits (one uint per record)", advice);
        if (batch.lodChain().fadeBand > 0.0f && list.lodProjection.fade && list.range.end > kLodFadeIndexMask + 1u) {
            throw CapacityError("gl::Renderer::render: batch '" + batch.name() + "' fades between LOD levels over " +
                                std::to_string(list.range.end) + " records; a fading list entry keeps 24 bits for "
                                "the record (16,777,216 records): split the batch or set fadeBand = 0");
        }
    }
    const std::size_t tested = list.range.end - list.range.begin;
    const std::size_t groupsY = groupsFor(tested).second;
    if (static_cast<std::int64_t>(groupsY) > m_limits.maxComputeWorkGroups[1]) {
        throw CapacityError("gl::Renderer::render: '" + nodeName(batch) + "': culling its " + std::to_string(tested) +
                            " instances needs " + std::to_string(groupsY) +
                            " work groups in y, above GL_MAX_COMPUTE_WORK_GROUP_COUNT[1] (" +
                            std::to_string(m_limits.maxComputeWorkGroups[1]) + " on this driver); " + advice);
    }
}

void GpuCulling::dispatch(GpuResources& resources, FrameStats& stats, const TabledCulling& tabled) {
    if (m_queued.empty()) {
        return;
    }
    // Every queued list against the limits first: a refusal dispatches nothing.
    for (const GpuCullList* list : m_queued) {
        const BatchGpu* gpu = resources.findBatch(*list->node);
        if (gpu != nullptr) {
            checkLimits(*list, *gpu);
        }
    }
    ensureProgram();
    useCounted(m_program, m_usedFrame, stats);
    // Before them: the lists and commands the dispatches write (and count into with atomics)
    // were read by the last frame's draws, by texel fetch and as indirect parameters. Those
    // reads are not shader stores, so GL's command order already puts them before these
    // writes (OpenGL 4.5, "Shader Memory Access Synchronization": barrier bits name consumers
    // of earlier shader stores, and the last frame's stores were synchronised by its trailing
    // barrier). This barrier is insurance against a driver that overlaps compute with the
    // previous frame's drawing on a write-after-read it does not track, at the cost of one
    // call a frame.
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    // After the dispatches, also when one throws: the draws read what they wrote (the lists by
    // texel fetch, the table path's (row, instance) pairs as vertex attributes, the commands
    // as indirect parameters); all are storage the next frame's
    // dispatches touch again; and the CPU reaches the same buffers next (the next frame's
    // glNamedBufferSubData reset of the commands, the table path's glCopyNamedBufferSubData
    // reset of its shared commands, the LOD copy's glCopyNamedBufferSubData,
    // readBack()'s glGetNamedBufferSubData), which sees shader writes only after
    // GL_BUFFER_UPDATE_BARRIER_BIT (OpenGL 4.5, "Shader Memory Access Synchronization"). One barrier for all of them.
    struct Barrier {
        bool dispatched = false;
        ~Barrier() {
            if (dispatched) {
                glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_COMMAND_BARRIER_BIT | GL_TEXTURE_FETCH_BARRIER_BIT |
                                GL_VERTEX_ATTRIB_ARRAY_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
            }
        }
    } barrier;
    glProgramUniform1ui(m_program.id(), m_uniforms.tableJobs, 0);
    glProgramUniform1ui(m_program.id(), m_uniforms.outputSlot, 0);
    for (GpuCullList* list : m_queued) {
        // A pass that drew no primitive of the batch (a depth-only view of a blended batch)
        // left it unprepared: nothing reads its list.
        BatchGpu* gpu = resources.findBatch(*list->node);
        if (gpu != nullptr) {
            resources.noteRecordsRead(*gpu);  // the dispatch reads the records: fence them this frame
            if (!list->table.active) {  // the table path's: in its pass's job dispatch below
                barrier.dispatched = true;
                run(*list, *gpu, stats);
            }
        }
    }
    if (!tabled.passes.empty()) {
        barrier.dispatched = true;
        runTabled(tabled);
    }
}

void GpuCulling::runTabled(const TabledCulling& tabled) {
    // What every pass's dispatch reads and writes; the commands' culled counts were reset by
    // DrawTable::upload's GPU copy, issued after the last frame's barrier.
    const Program& p = m_program;
    const Uniforms& u = m_uniforms;
    glProgramUniform1ui(p.id(), u.tableJobs, 1);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kCullRecordsBinding, tabled.records);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kCullVisibleBinding, tabled.pairs);
    // The commands bound no longer than a storage block may be (DrawTable::build kept every
    // culled command inside it; commands past it are never counted into).
    glBindBufferRange(GL_SHADER_STORAGE_BUFFER, kCullCommandsBinding, tabled.commands, 0,
                      static_cast<GLsizeiptr>(std::min<std::uint64_t>(tabled.commandBytes,
                                                                      static_cast<std::uint64_t>(m_limits.maxShaderStorageBlockBytes))));
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kCullJobsBinding, tabled.jobs);
    glBindTextureUnit(kDrawTableUnit, tabled.drawTable);
    for (const TabledCulling::Pass& pass : tabled.passes) {
        glProgramUniform4fv(p.id(), u.planes, 6, &pass.planes[0][0]);
        p.setUniform(u.eyeHigh, pass.eyeHigh);
        p.setUniform(u.eyeLow, pass.eyeLow);
        glProgramUniform1ui(p.id(), u.jobFirst, pass.firstJob);
        glProgramUniform1ui(p.id(), u.jobCount, pass.jobs);
        glProgramUniform1ui(p.id(), u.invocationCount, pass.invocations);
        const auto [groupsX, groupsY] = groupsFor(pass.invocations);  // DrawTable::build kept y under the limit
        glDispatchCompute(static_cast<GLuint>(groupsX), static_cast<GLuint>(groupsY), 1);
    }
}

void GpuCulling::run(GpuCullList& list, const BatchGpu& gpu, FrameStats& stats) {
    const InstancedMeshNode& batch = *list.node;
    const std::size_t tested = list.range.end - list.range.begin;
    allocate(list, batch);
    const std::size_t primitives = list.primitives;
    // The commands are rewritten whole every frame (20 bytes a primitive and slot): the counts
    // follow a changed mesh, and the instance counts start from 0 for the atomics. Slot s of a
    // LOD batch draws level s's mesh.
    m_commands.assign(list.slots * primitives + 1, DrawElementsIndirectCommand{});  // + the counters
    for (std::size_t slot = 0; slot < list.slots; ++slot) {
        for (std::size_t p = 0; p < primitives; ++p) {
            m_commands[slot * primitives + p].count = list.lodLevels != 0
                                                          ? batch.lodChain().levels[slot].meshes[p]->indexCount()
                                                          : batch.primitiveMesh(p)->indexCount();
        }
    }
    list.commands.update(0, std::as_bytes(std::span(m_commands)));
    stats.bytesUploaded += m_commands.size() * sizeof(DrawElementsIndirectCommand);
    if (!bindForTest(list, gpu)) {
        return;  // nothing drawn (instance counts stay 0), validly
    }
    // Occlusion: phase 1, what was visible last frame, into slot 0 (u_outputSlot is 0 here).
    glProgramUniform1ui(m_program.id(), m_uniforms.occlusionPhase, list.occlusion ? 1 : 0);
    const auto [groupsX, groupsY] = groupsFor(tested);  // checkLimits() saw them fit
    glDispatchCompute(static_cast<GLuint>(groupsX), static_cast<GLuint>(groupsY), 1);
}

bool GpuCulling::bindForTest(const GpuCullList& list, const BatchGpu& gpu) {
    const std::size_t tested = list.range.end - list.range.begin;
    const BatchGpu::RecordSource records = gpu.recordSource();  // Streaming: this frame's part
    if (tested == 0 || records.buffer == 0) {
        return false;
    }
    setTestUniforms(list, gpu);
    const Program& p = m_program;
    const Uniforms& u = m_uniforms;
    glProgramUniform1ui(p.id(), u.primitiveCount, static_cast<GLuint>(list.primitives));
    setLodUniforms(list);
    if (list.lodLevels != 0 || list.occlusion) {
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kCullLodLevelsBinding, list.heldLevels.id());
    }
    glBindBufferRange(GL_SHADER_STORAGE_BUFFER, kCullRecordsBinding, records.buffer,
                      static_cast<GLintptr>(records.offset), static_cast<GLsizeiptr>(records.bytes));
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kCullVisibleBinding, list.indices.id());
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kCullCommandsBinding, list.commands.id());
    return true;
}

bool GpuCulling::hasOcclusion(std::size_t pass) const noexcept {
    return std::ranges::any_of(m_queued, [&](const GpuCullList* list) {
        return list->pass == pass && list->occlusion && !list->table.active;
    });
}

void GpuCulling::dispatchOcclusion(std::size_t pass, const DepthPyramidLevels& pyramid, const glm::mat4& clipFromWorld,
                                   const View& view, GpuResources& resources, FrameStats& stats) {
    ensureProgram();
    useCounted(m_program, m_usedFrame, stats);
    const Program& p = m_program;
    const Uniforms& u = m_uniforms;
    glProgramUniform1ui(p.id(), u.tableJobs, 0);
    glProgramUniform1ui(p.id(), u.occlusionPhase, 2);
    glProgramUniform1ui(p.id(), u.outputSlot, 1);
    glProgramUniformMatrix4fv(p.id(), u.clipFromWorld, 1, GL_FALSE, &clipFromWorld[0][0]);
    glProgramUniform2i(p.id(), u.viewportSize, static_cast<GLint>(view.viewport.width),
                       static_cast<GLint>(view.viewport.height));
    glProgramUniform1i(p.id(), u.pyramidLevels, pyramid.levelCount);
    glProgramUniform1uiv(p.id(), u.levelOffset, static_cast<GLsizei>(pyramid.offset.size()), pyramid.offset.data());
    glProgramUniform2iv(p.id(), u.levelSize, static_cast<GLsizei>(pyramid.size.size()), pyramid.size[0].data());
    glProgramUniform1i(p.id(), u.reversedDepth, view.reversedDepth ? 1 : 0);
    glProgramUniform1i(p.id(), u.clipZeroToOne, view.clipDepth == ClipDepth::ZeroToOne ? 1 : 0);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kCullPyramidBinding, pyramid.buffer);
    bool dispatched = false;
    for (const GpuCullList* list : m_queued) {
        if (list->pass != pass || !list->occlusion || list->table.active) {
            continue;
        }
        const BatchGpu* gpu = resources.findBatch(*list->node);
        if (gpu == nullptr || !bindForTest(*list, *gpu)) {
            continue;
        }
        glProgramUniformMatrix4fv(p.id(), u.clipFromNode, 1, GL_FALSE, &list->clipFromNode[0][0]);
        glProgramUniform4fv(p.id(), u.batchSphere, 1, &list->batchSphere[0]);
        glProgramUniform1ui(p.id(), u.countersCommand, static_cast<GLuint>(countersCommand(*list)));
        const auto [groupsX, groupsY] = groupsFor(list->range.end - list->range.begin);  // as in phase 1
        glDispatchCompute(static_cast<GLuint>(groupsX), static_cast<GLuint>(groupsY), 1);
        ++stats.occlusionDispatches;
        dispatched = true;
    }
    glProgramUniform1ui(p.id(), u.outputSlot, 0);
    glProgramUniform1ui(p.id(), u.occlusionPhase, 0);
    if (dispatched) {
        // dispatch()'s bits, for the same reasons: slot 1's list (texel fetch) and commands
        // (indirect, and the counts' copy: buffer update), the visible bits (next frame's storage).
        glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_COMMAND_BARRIER_BIT | GL_TEXTURE_FETCH_BARRIER_BIT |
                        GL_VERTEX_ATTRIB_ARRAY_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
    }
}

void GpuCulling::setTestUniforms(const GpuCullList& list, const BatchGpu& gpu) {
    const InstancedMeshNode& batch = *list.node;
    const std::size_t tested = list.range.end - list.range.begin;
    const Program& p = m_program;
    const Uniforms& u = m_uniforms;
    glProgramUniform4fv(p.id(), u.planes, 6, &list.planes[0][0]);
    float scale[6];
    for (std::size_t i = 0; i < 6; ++i) {
        scale[i] = glm::length(glm::vec3(list.planes[i]));  // as cullInstanceSpheres()
    }
    glProgramUniform1fv(p.id(), u.planeScale, 6, scale);
    glProgramUniform1ui(p.id(), u.first, static_cast<GLuint>(list.range.begin));
    glProgramUniform1ui(p.id(), u.count, static_cast<GLuint>(tested));
    const Aabb& box = batch.meshBounds();
    p.setUniform(u.boxMin, box.min);
    p.setUniform(u.boxMax, box.max);
    const bool ownWeights = batch.hasInstanceMorphWeights() &&
                            gpu.streams[InstanceStreamId::MorphWeights].buffer.id() != 0;
    p.setUniform(u.ownWeights, ownWeights ? 1 : 0);
    if (ownWeights) {
        const MeshGeometry& geometry = *batch.mesh();
        const std::span<const Aabb> deltas = geometry.morphTargetDeltaBounds();
        std::array<glm::vec3, kMaxMorphTargets> deltaMin{}, deltaMax{};
        const std::size_t targets = std::min(deltas.size(), kMaxMorphTargets);
        for (std::size_t t = 0; t < targets; ++t) {
            deltaMin[t] = deltas[t].min;
            deltaMax[t] = deltas[t].max;
        }
        // The node's cull margin (MeshNode::setCullMargin) grows the base box, hence every
        // morphed box cull.comp adds the deltas to.
        const glm::vec3 margin(batch.cullMargin());
        p.setUniform(u.localMin, geometry.localBounds().min - margin);
        p.setUniform(u.localMax, geometry.localBounds().max + margin);
        p.setUniform(u.morphTargetCount, static_cast<int>(targets));
        glProgramUniform3fv(p.id(), u.deltaMin, static_cast<GLsizei>(kMaxMorphTargets), &deltaMin[0][0]);
        glProgramUniform3fv(p.id(), u.deltaMax, static_cast<GLsizei>(kMaxMorphTargets), &deltaMax[0][0]);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kCullMorphWeightsBinding,
                         gpu.streams[InstanceStreamId::MorphWeights].buffer.id());
    }
}

void GpuCulling::allocate(GpuCullList& list, const InstancedMeshNode& batch) {
    // Labels only when something is made: this runs for every queued list every frame.
    const std::size_t slots = slotsOf(list);
    if (list.allocatedCapacity != list.capacity || list.slots != slots || !list.indices) {
        list.indices = Buffer({.sizeBytes = slots * list.capacity * sizeof(std::uint32_t),
                               .label = labelFor(batch, "InstancedMeshNode.gpu-visible-instances")});
        list.texture = TextureHandle(GL_TEXTURE_BUFFER);
        glTextureBuffer(list.texture.id(), GL_R32UI, list.indices.id());
        setLabel(GL_TEXTURE, list.texture.id(), labelFor(batch, "InstancedMeshNode.gpu-visible-instances-texture"));
        list.allocatedCapacity = list.capacity;
    }
    const std::size_t primitives = batch.primitiveCount();
    if (list.primitives != primitives || list.slots != slots || !list.commands) {
        list.commands = Buffer({.sizeBytes = (slots * primitives + 1) * sizeof(DrawElementsIndirectCommand),
                                .usage = BufferUsage::Dynamic,
                                .label = labelFor(batch, "InstancedMeshNode.gpu-draw-commands")});
        list.primitives = primitives;
    }
    list.slots = slots;
    const bool history = list.lodLevels != 0 || list.occlusion;
    if (history && list.historyForOcclusion != list.occlusion) {
        // LOD levels start at kNoLodLevel, visible bits at 0: a list that changes kind starts again.
        list.heldLevels = Buffer{};
        list.heldCapacity = 0;
        list.historyForOcclusion = list.occlusion;
    }
    if (history && list.heldCapacity < list.range.end) {
        // One uint per record up to the drawn range's end (the shader indexes it by record).
        // Growth keeps the levels held so far, as the CPU path's resize does; the rest, and a
        // new list, start at kNoLodLevel: the first frame selects without hysteresis.
        const std::size_t capacity = grownCapacity(
            list.range.end, static_cast<std::size_t>(m_limits.maxShaderStorageBlockBytes) / sizeof(std::uint32_t));
        Buffer held({.sizeBytes = capacity * sizeof(std::uint32_t),
                     .label = labelFor(batch, list.occlusion ? "InstancedMeshNode.gpu-visible-bits"
                                                             : "InstancedMeshNode.gpu-lod-levels")});
        // Occlusion: no instance visible last frame (phase 2 draws them all the first time).
        const GLuint none = list.occlusion ? 0u : GLuint{kNoLodLevel};
        glClearNamedBufferData(held.id(), GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, &none);
        if (list.heldLevels && list.heldCapacity != 0) {
            // Last frame's shader writes are visible to the copy: dispatch()'s barrier after
            // them carries GL_BUFFER_UPDATE_BARRIER_BIT.
            glCopyNamedBufferSubData(list.heldLevels.id(), held.id(), 0, 0,
                                     static_cast<GLsizeiptr>(list.heldCapacity * sizeof(std::uint32_t)));
        }
        list.heldLevels = std::move(held);
        list.heldCapacity = capacity;
    }
}

void GpuCulling::setLodUniforms(const GpuCullList& list) {
    const Program& p = m_program;
    const Uniforms& u = m_uniforms;
    glProgramUniform1ui(p.id(), u.lodLevelCount, static_cast<GLuint>(list.lodLevels));
    glProgramUniform1ui(p.id(), u.listCapacity, static_cast<GLuint>(list.capacity));
    if (list.lodLevels == 0) {
        return;
    }
    // selectLodLevel()'s bands, the same numbers (core/LodBands.h). An infinite last switch
    // distance (NaN in switches) is left out of the count: no distance reaches it. Uniforms get
    // no infinities: a band's infinite upper edge is FLT_MAX, so a distance whose square
    // overflows keeps that level on both paths.
    const LodChain& chain = list.node->lodChain();
    const glm::mat3 linear = list.node->worldLinear();
    const myriad::detail::LodBands bands(chain, list.lodProjection, myriad::detail::largestColumnLength(linear));
    std::array<float, kMaxLodLevels> switches{}, upper{};
    GLuint finite = 0;
    for (std::size_t i = 0; i < list.lodLevels; ++i) {
        if (!std::isnan(bands.switches[i])) {
            switches[finite++] = bands.switches[i];
        }
        upper[i] = std::isinf(bands.upper[i]) ? std::numeric_limits<float>::max() : bands.upper[i];
    }
    const std::array<float, kMaxLodLevels + 1>& lower = bands.lower;
    glProgramUniform1ui(p.id(), u.lodSwitchCount, finite);
    glProgramUniform1fv(p.id(), u.lodSwitch, static_cast<GLsizei>(kMaxLodLevels), switches.data());
    glProgramUniform1fv(p.id(), u.lodLower, static_cast<GLsizei>(kMaxLodLevels + 1), lower.data());
    glProgramUniform1fv(p.id(), u.lodUpper, static_cast<GLsizei>(kMaxLodLevels), upper.data());
    glProgramUniformMatrix3fv(p.id(), u.lodLinear, 1, GL_FALSE, &linear[0][0]);
    // Screen metrics and the fade (LodBands): scale r^2, key 1 in an orthographic view.
    glProgramUniform1ui(p.id(), u.lodFade, bands.fading ? 1u : 0u);
    glProgramUniform1ui(p.id(), u.lodScreen, chain.metric != LodMetric::Distance ? 1u : 0u);
    glProgramUniform1ui(p.id(), u.lodPerspectiveKey, bands.perspectiveKey ? 1u : 0u);
    // Only the finite switches' bands are read (the first u_lodSwitchCount): no infinities sent.
    // The fade's bands only when the chain fades (the shader reads them only then).
    if (bands.fading && finite != 0) {
        const auto count = static_cast<GLsizei>(finite);
        glProgramUniform1fv(p.id(), u.lodFadeLow, count, bands.fadeLow.data());
        glProgramUniform1fv(p.id(), u.lodFadeHigh, count, bands.fadeHigh.data());
        glProgramUniform1fv(p.id(), u.lodFadeStart, count, bands.fadeStart.data());
        glProgramUniform1fv(p.id(), u.lodFadeInvWidth, count, bands.fadeInvWidth.data());
    }
    glProgramUniform3fv(p.id(), u.lodOriginFromEye, 1, &list.originFromEye[0]);
}

void GpuCulling::bind(const GpuCullList& list, BatchGpu& gpu) {
    bindRecordTexture(gpu, kIndexedRecordUnit);
    glBindTextureUnit(kVisibleIndexUnit, list.texture.id());
    glBindBuffer(GL_DRAW_INDIRECT_BUFFER, list.commands.id());
}

void GpuCulling::draw(const GpuCullList& list, const VertexArray& vertexArray, const MeshGeometry& geometry,
                      std::size_t primitive, std::size_t slot) {
    // The commands are bound by bind() as GL_DRAW_INDIRECT_BUFFER.
    glBindVertexArray(vertexArray.id());
    const std::size_t offset = (slot * list.primitives + primitive) * sizeof(DrawElementsIndirectCommand);
    glDrawElementsIndirect(GL_TRIANGLES, toGl(geometry.indexType()),
                           reinterpret_cast<const void*>(static_cast<std::uintptr_t>(offset)));
}

std::optional<std::vector<std::uint32_t>> GpuCulling::readBack(std::size_t pass, const InstancedMeshNode& batch,
                                                                std::size_t level) const {
    const auto it = m_lists.find({pass, batch.id()});
    if (it == m_lists.end() || it->second.alive.expired() || it->second.lastUsedFrame != m_frame) {
        return std::nullopt;
    }
    const GpuCullList& list = it->second;
    if (list.table.active) {
        if (level != 0 || list.table.commandBuffer == 0) {
            return std::nullopt;
        }
        // The table path's: this batch's command in the shared buffer, its pairs' instances.
        DrawElementsIndirectCommand command;
        glGetNamedBufferSubData(list.table.commandBuffer, static_cast<GLintptr>(list.table.command * sizeof(command)),
                                sizeof(command), &command);
        std::vector<std::uint32_t> pairs(2 * std::min<std::size_t>(command.instanceCount, list.range.end - list.range.begin));
        if (!pairs.empty()) {
            glGetNamedBufferSubData(list.table.pairBuffer,
                                    static_cast<GLintptr>(std::size_t{list.table.pairFirst} * 2 * sizeof(std::uint32_t)),
                                    static_cast<GLsizeiptr>(pairs.size() * sizeof(std::uint32_t)), pairs.data());
        }
        std::vector<std::uint32_t> indices(pairs.size() / 2);
        for (std::size_t i = 0; i < indices.size(); ++i) {
            indices[i] = pairs[2 * i + 1];
        }
        return indices;
    }
    if (!list.indices || !list.commands || level >= list.slots) {
        return std::nullopt;
    }
    DrawElementsIndirectCommand command;
    glGetNamedBufferSubData(list.commands.id(), static_cast<GLintptr>(level * list.primitives * sizeof(command)),
                            sizeof(command), &command);
    // Never past the slot, whatever the GPU wrote.
    std::vector<std::uint32_t> indices(std::min<std::size_t>(command.instanceCount, list.allocatedCapacity));
    if (!indices.empty()) {
        glGetNamedBufferSubData(list.indices.id(),
                                static_cast<GLintptr>(level * list.allocatedCapacity * sizeof(std::uint32_t)),
                                static_cast<GLsizeiptr>(indices.size() * sizeof(std::uint32_t)), indices.data());
    }
    return indices;
}

} // namespace myriad::gl::detail
