#include "renderer/DrawTable.h"

#include "renderer/ShadingFactors.h"
#include "gl/Bindings.h"
#include "renderer/GpuResources.h"
#include "renderer/LodSelection.h"  // drawnMesh
#include "renderer/MaterialTable.h"
#include "renderer/ShaderLibrary.h"
#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Lod.h"
#include "myriad/core/Material.h"
#include "myriad/core/MeshNode.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <string_view>
#include <tuple>

namespace myriad::gl::detail {
namespace {

/** Face culling as Renderer::Impl::setFaceCulling decides it for the ordinary path: none for a
 *  double-sided material or a batch mixing mirrored and ordinary instances (culled per
 *  fragment), GL_FRONT when every drawn copy is mirrored, else GL_BACK. */
GLenum cullFaceOf(const DrawItem& item, std::uint32_t features) {
    const MeshNode& node = *item.node;
    if (node.primitiveMaterial(item.primitive).doubleSided || (features & kMixedMirroring) != 0) {
        return GL_NONE;
    }
    bool mirrored = node.worldIsMirrored();
    if (item.instanced) {
        mirrored = mirrored != (static_cast<const InstancedMeshNode&>(node).mirroredCount() != 0);
    }
    return mirrored ? GL_FRONT : GL_BACK;
}

/** Whether @p item may be drawn from the shared buffers, going by the node alone: nothing of
 *  its own to bind (a GPU-culled batch's list is the table's too, with one primitive: its
 *  dispatch writes the pairs of one row; a CPU list is not; an occlusion-culled one draws
 *  twice, with a dispatch between, so it keeps its own list and commands). */
bool tableableNode(const DrawItem& item) {
    return item.visible == nullptr && item.lodLevel == kNoLodLevel && drawnMesh(item)->morphTargetCount() == 0 &&
           !drawsSkinned(item) &&
           (item.gpuCulled == nullptr || (item.node->primitiveCount() == 1 && !item.gpuCulled->occlusion));
}

/** Whether @p item can be drawn from the shared buffers: nothing of its own to bind. A batch's
 *  copy is put in @p batchGpu. */
bool tableable(const DrawItem& item, const GpuResources& resources, const BatchGpu*& batchGpu) {
    if (!tableableNode(item)) {
        return false;
    }
    if (!item.instanced) {
        return true;
    }
    const auto& batch = static_cast<const InstancedMeshNode&>(*item.node);
    batchGpu = resources.findBatch(batch);
    return batchGpu != nullptr && batchGpu->inArena() && !batch.hasLanes() && !batch.hasInstanceMorphWeights() &&
           !batch.hasInstanceLightChannels();
}

/** A vertex array over the arenas, with the (row, instance) pairs as the divisor-1 uvec2 at
 *  kDrawIdLocation; @p records: with the record attributes too (the kIndexed variants fetch
 *  records instead, so GPU-culled groups draw from one without them). */
VertexArray tableVertexArray(bool records, const PackedVertexLayout& vertex, std::string_view label) {
    VertexLayoutDesc layout = records ? instancedVertexLayout(vertex, label) : meshVertexLayout(vertex, label);
    layout.bindings.push_back({kDrawIdBinding, 2 * sizeof(std::uint32_t), 1});
    layout.attributes.push_back({kDrawIdLocation, AttributeFormat::UInt2, 0, kDrawIdBinding});
    return VertexArray(layout);
}

/** Attaches the mesh arena's buffers to @p vertexArray unless @p serial says they already are. */
void attachMeshArena(VertexArray& vertexArray, const MeshArena& meshes, std::uint64_t& serial) {
    if (serial != meshes.serial) {
        vertexArray.setVertexBuffer(kVertexBinding, meshes.vertices);
        vertexArray.setIndexBuffer(meshes.indices, IndexType::UInt32,
                                   static_cast<std::uint32_t>(meshes.vertexSlots.capacity() - 1));
        serial = meshes.serial;
    }
}

} // namespace

SplitVec3 splitDouble(const glm::dvec3& value) noexcept {
    SplitVec3 split;
    for (int i = 0; i < 3; ++i) {
        // Through memory: GCC 12 at -O2 was seen to keep the double itself where the rounded
        // float was asked for (value - high then came out 0 and the low half was lost).
        volatile float high = static_cast<float>(value[i]);
        split.high[i] = high;
        split.low[i] = static_cast<float>(value[i] - static_cast<double>(split.high[i]));
    }
    return split;
}

void DrawTable::beginFrame(std::size_t passes) {
    ++m_frame;
    if (m_passes.size() < passes) {
        m_passes.resize(passes);
    }
    for (PassTable& pass : m_passes) {
        pass.groups.clear();
        pass.rest.clear();
        pass.culled.clear();
    }
    m_commands.clear();
    m_dirtyRows.clear();
    m_culledLists.clear();
    m_pairs = 0;
    m_recordTextureWanted = false;
    m_jobs.clear();
    m_tabledCulling.passes.clear();
}

void DrawTable::place(const ViewPass& pass, GpuResources& resources) {
    for (const DrawItem& item : pass.opaque()) {
        if (!item.instanced && tableableNode(item)) {
            (void)resources.nodeSlot(*item.node);  // may grow the record arena
        }
    }
}

void DrawTable::writeRow(std::uint32_t row, const MeshNode& node, const Material& material,
                         std::uint32_t materialIndex, bool textured, bool instanced, std::size_t firstSlot) {
    if (m_rowFrame.size() <= row) {
        m_rowFrame.resize(row + 1, 0);
        m_rows.resize((row + 1) * std::size_t{kRowTexels}, glm::vec4(0.0f));
    }
    if (m_rowFrame[row] == m_frame) {
        return;  // written by an earlier pass of this frame: a row does not depend on the view
    }
    // A row never written holds undefined GPU storage, whatever the CPU copy says: always sent.
    const bool firstWrite = m_rowFrame[row] == 0;
    m_rowFrame[row] = m_frame;
    std::array<glm::vec4, kRowTexels> texels;
    texels.fill(glm::vec4(0.0f));
    const glm::mat3 linear = node.worldLinear();
    const SplitVec3 translation = splitDouble(node.worldTranslation());
    for (int r = 0; r < 3; ++r) {
        texels[r] = glm::vec4(linear[0][r], linear[1][r], linear[2][r], translation.high[r]);
    }
    texels[3] = glm::vec4(translation.low, 0.0f);
    texels[4] = node.tint();
    texels[5] = material.baseColor;
    texels[6] = glm::vec4(material.alphaCutoff, textured ? 1.0f : 0.0f, static_cast<float>(materialIndex), 0.0f);
    if (!instanced) {
        const std::array<glm::vec4, 4>& lanes = node.shaderDataLanes();
        std::copy(lanes.begin(), lanes.end(), texels.begin() + kDrawRowLanesTexel);
    }
    const auto first = static_cast<std::uint32_t>(firstSlot);  // the arena has at most 2^32 slots: see build()
    std::memcpy(&texels[kDrawRowRecordSlotTexel].x, &first, sizeof(first));
    // Shading: metallic-roughness factors, the node's light channels (uint bits), emission.
    const ShadingFactors factors = shadingFactors(material);
    texels[kDrawRowShadingTexel] = glm::vec4(factors.metallicRoughness, 0.0f, 0.0f);
    const std::uint32_t channels = node.lightChannels();
    std::memcpy(&texels[kDrawRowShadingTexel].z, &channels, sizeof(channels));
    texels[kDrawRowShadingTexel + 1] = glm::vec4(factors.emission, 0.0f);
    glm::vec4* stored = m_rows.data() + std::size_t{row} * kRowTexels;
    if (firstWrite || std::memcmp(stored, texels.data(), sizeof(texels)) != 0) {
        std::memcpy(stored, texels.data(), sizeof(texels));
        m_dirtyRows.push_back(row);
    }
}

void DrawTable::build(std::size_t passIndex, const ViewPass& pass, GpuResources& resources,
                      const MaterialTable& materials, ShaderLibrary& shaders, const FeaturesOf& featuresOf) {
    PassTable& table = m_passes[passIndex];
    ++m_groupStamp;
    if (m_groupOf.size() > 4 * table.groups.capacity() + 64) {
        m_groupOf.clear();  // keys of textures and surfaces long gone: bounded, not per frame
    }
    m_entries.clear();
    const std::size_t maxRows = static_cast<std::size_t>(m_limits.maxTextureBufferTexels) / kRowTexels;
    // GPU-culled draws read the whole record arena as one buffer texture (4 texels a record;
    // place() has given it its size for the frame) and are written as storage blocks: the pair
    // buffer (8 bytes a pair) and the command buffer (20 bytes a command). Past a limit they
    // keep their own indirect draw.
    const auto maxTexels = static_cast<std::uint64_t>(m_limits.maxTextureBufferTexels);
    const auto maxBlock = static_cast<std::uint64_t>(m_limits.maxShaderStorageBlockBytes);
    const bool arenaViewable = resources.recordArena().records.sizeBytes() / 16 <= maxTexels;
    // The job dispatch binds the whole record arena as one storage block.
    const bool arenaStorable = static_cast<std::uint64_t>(resources.recordArena().records.sizeBytes()) <= maxBlock;
    std::size_t jobs = m_jobs.size();  // all passes so far, then this pass's
    // The pass's one dispatch: an invocation per tested instance, work groups of 256 in x up to
    // the limit, then rows in y.
    std::uint64_t invocations = 0;
    const auto groupsX = static_cast<std::uint64_t>(std::max<std::int64_t>(m_limits.maxComputeWorkGroups[0], 1));
    const auto groupsY = static_cast<std::uint64_t>(std::max<std::int64_t>(m_limits.maxComputeWorkGroups[1], 1));
    const std::uint64_t maxInvocations = std::min<std::uint64_t>(groupsX * groupsY * 256, 0xFFFFFFFFu);
    // Every command of this pass lands below this after the sort (groups reorder the pass's own
    // commands only): a culled command there is inside the storage block the dispatch binds.
    const std::size_t culledCommandsEnd = m_commands.size() + pass.opaque().size();
    // Motion vectors (View::velocity) are not written by the table's variants: such a view's
    // opaque draws keep a call of their own, as skinned ones do (docs/visibility.md).
    const bool velocity = pass.view().velocity && !pass.view().depthOnly;
    for (const DrawItem& item : pass.opaque()) {
        const BatchGpu* batch = nullptr;
        if (velocity || !tableable(item, resources, batch)) {
            table.rest.push_back(&item);
            continue;
        }
        const MeshNode& node = *item.node;
        std::size_t firstSlot = 0;  // the node's records
        std::size_t pairSlot = 0;   // its (row, instance) pairs for this primitive
        std::uint32_t row = 0;
        const std::vector<PrimitivePlace>* primitives = nullptr;
        if (batch != nullptr) {
            firstSlot = batch->arenaFirst;
            row = batch->tableRow;
            primitives = &batch->primitivePlaces;
        } else {
            const NodeSlotGpu& slot = resources.nodeSlot(node);
            firstSlot = slot.arenaFirst;
            row = slot.tableRow;
            primitives = &slot.primitivePlaces;
        }
        pairSlot = firstSlot;
        // Primitive 1, 2, ...: its own row (its material) and pairs; the records read through
        // the arena's buffer texture at the node's place (kIndexed), as a GPU-culled batch's.
        const bool ownPairs = item.primitive != 0;
        if (ownPairs) {
            if (item.primitive > primitives->size()) {
                table.rest.push_back(&item);  // not placed (a primitive added since batch())
                continue;
            }
            pairSlot = (*primitives)[item.primitive - 1].first;
            row = (*primitives)[item.primitive - 1].tableRow;
        }
        if (row >= maxRows) {
            table.rest.push_back(&item);  // past what the table's buffer texture can index
            continue;
        }
        if ((item.gpuCulled != nullptr || ownPairs) && !arenaViewable) {
            table.rest.push_back(&item);
            continue;
        }
        if (item.gpuCulled != nullptr &&
            (!arenaStorable || (m_pairs + item.instanceCount) * 2 * sizeof(std::uint32_t) > maxBlock ||
             culledCommandsEnd * sizeof(DrawElementsIndirectCommand) > maxBlock ||
             (jobs + 1) * sizeof(CullJob) > maxBlock ||
             invocations + item.instanceCount > maxInvocations)) {
            table.rest.push_back(&item);
            continue;
        }
        const Material& material = node.primitiveMaterial(item.primitive);
        const std::uint32_t features = featuresOf(item) | kTabled | kInstanced | (ownPairs ? kIndexed : 0u);
        const Texture2D* texture = resources.texture(material);
        const bool culledPairs = item.gpuCulled != nullptr;
        const GLuint sampler = texture != nullptr ? resources.sampler(material) : 0u;
        const MeshArenaPlace& place = resources.meshInArena(drawnMesh(item)).arena;
        const GroupKey key{features,        material.surface ? material.surface->id() : 0,
                           texture != nullptr ? texture->id() : 0u,
                           sampler,         static_cast<GLenum>(pass.casterCullFace(cullFaceOf(item, features), *item.node)),
                           culledPairs,     place.arena,
                           // Only a program that reads them tells groups apart by them (a
                           // depth-only view draws lightmapped nodes of one atlas as one group).
                           (features & kMaterialTextures) != 0 ? resources.materialTextures(material, *drawnMesh(item))
                                                               : MaterialTextures{}};
        GroupSlot& slot = m_groupOf[key];
        if (slot.stamp != m_groupStamp) {
            slot = {m_groupStamp, static_cast<std::uint32_t>(table.groups.size())};
            table.groups.push_back(TableGroup{.features = features,
                                              .material = &material,
                                              .texture = texture,
                                              .sampler = sampler,
                                              .materialTextures = key.materialTextures,
                                              .cullFace = key.cullFace,
                                              .culledPairs = culledPairs,
                                              .vertexArena = place.arena});
            shaders.request(features, material.surface);
            m_recordTextureWanted = m_recordTextureWanted || (features & kIndexed) != 0;
        }
        TableGroup& group = table.groups[slot.group];
        const MeshGeometry& geometry = *drawnMesh(item);
        writeRow(row, node, material, materials.indexOf(material), texture != nullptr, item.instanced, firstSlot);
        const std::uint64_t triangles = geometry.triangleCount();
        if (item.gpuCulled != nullptr) {
            // Instance count 0 in the template: the dispatch counts the visible ones into it.
            // Base instance: the pass's region of the pair buffer, tested instances long.
            m_entries.push_back({slot.group,
                                 {static_cast<std::uint32_t>(place.indexCount), 0,
                                  static_cast<std::uint32_t>(place.firstIndex),
                                  static_cast<std::int32_t>(place.baseVertex), static_cast<std::uint32_t>(m_pairs)},
                                 item.gpuCulled, triangles, firstSlot});
            item.gpuCulled->table = {.active = true, .row = row, .pairFirst = static_cast<std::uint32_t>(m_pairs)};
            m_pairs += item.instanceCount;
            invocations += item.instanceCount;
            ++jobs;
        } else {
            m_entries.push_back({slot.group,
                                 {static_cast<std::uint32_t>(place.indexCount), item.instanceCount,
                                  static_cast<std::uint32_t>(place.firstIndex),
                                  static_cast<std::int32_t>(place.baseVertex),
                                  static_cast<std::uint32_t>(pairSlot + item.firstInstance)},
                                 nullptr, triangles});
        }
        ++group.commandCount;
        (item.instanced ? group.batches : group.meshNodes) += 1;
        group.instances += item.instanceCount;
        group.triangles += triangles * item.instanceCount;
    }
    // Groups of one program next to each other (fewer program changes), of one vertex arena
    // within it (fewer vertex-array binds; otherwise in the order they first appeared), then
    // each group's commands together in the order their draws came (a counting sort).
    const std::size_t groups = table.groups.size();
    m_groupOrder.resize(groups);
    for (std::uint32_t g = 0; g < groups; ++g) {
        m_groupOrder[g] = g;
    }
    auto programOf = [&](std::uint32_t g) {
        const TableGroup& group = table.groups[g];
        return std::tuple(group.features, group.material->surface ? group.material->surface->id() : 0,
                          group.vertexArena);
    };
    std::stable_sort(m_groupOrder.begin(), m_groupOrder.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return programOf(a) < programOf(b); });
    m_groupFill.assign(groups, 0);  // per group as built: where its next command goes
    auto first = static_cast<std::uint32_t>(m_commands.size());
    m_sortedGroups.clear();
    for (const std::uint32_t g : m_groupOrder) {
        TableGroup& group = table.groups[g];
        group.firstCommand = first;
        m_groupFill[g] = first;
        first += group.commandCount;
        m_sortedGroups.push_back(group);
    }
    table.groups.swap(m_sortedGroups);
    m_commands.resize(first);
    TabledCulling::Pass jobsOfPass{.firstJob = static_cast<std::uint32_t>(m_jobs.size())};
    for (const Entry& entry : m_entries) {
        const std::uint32_t command = m_groupFill[entry.group]++;
        m_commands[command] = entry.command;
        if (entry.culled != nullptr) {
            GpuCullList& list = *entry.culled;
            const auto tested = static_cast<std::uint32_t>(list.range.end - list.range.begin);
            list.table.command = command;
            m_culledLists.push_back(&list);
            table.culled.push_back({command, entry.triangles, tested});
            const Aabb& box = list.node->meshBounds();
            m_jobs.push_back({.row = list.table.row,
                              .recordFirst = static_cast<std::uint32_t>(entry.firstSlot + list.range.begin),
                              .count = tested,
                              .command = command,
                              .pairFirst = list.table.pairFirst,
                              .instanceFirst = static_cast<std::uint32_t>(list.range.begin),
                              .invocationFirst = jobsOfPass.invocations,
                              .boxMin = glm::vec4(box.min, 0.0f),
                              .boxMax = glm::vec4(box.max, 0.0f)});
            jobsOfPass.invocations += tested;
        }
    }
    jobsOfPass.jobs = static_cast<std::uint32_t>(m_jobs.size()) - jobsOfPass.firstJob;
    if (jobsOfPass.jobs != 0) {
        // The planes ViewPass::build culled the pass's nodes with, camera-relative, and its eye.
        const Frustum frustum(pass.camera().viewProjection, pass.view().clipDepth);
        jobsOfPass.planes = std::to_array(frustum.planes);
        const SplitVec3 eye = splitDouble(pass.camera().eye);
        jobsOfPass.eyeHigh = eye.high;
        jobsOfPass.eyeLow = eye.low;
        m_tabledCulling.passes.push_back(jobsOfPass);
    }
}

void DrawTable::upload(GpuResources& resources, FrameStats& stats) {
    StagingRing& ring = resources.ring();
    const std::size_t rowBytes = std::size_t{kRowTexels} * sizeof(glm::vec4);
    const std::size_t rows = m_rowFrame.size();
    if (rows > m_tableRows) {
        // Grown: a new buffer of twice the rows (at least 256), the old rows copied on the GPU;
        // new rows are in the dirty list (a row's first write always is).
        std::size_t capacity = std::max<std::size_t>(m_tableRows, 256);
        while (capacity < rows) {
            capacity *= 2;
        }
        capacity = std::min(capacity, std::max<std::size_t>(rows, static_cast<std::size_t>(m_limits.maxTextureBufferTexels) / kRowTexels));
        Buffer grown({.sizeBytes = capacity * rowBytes, .label = "myriad/Renderer.draw-table"});
        if (m_table.id() != 0) {
            glCopyNamedBufferSubData(m_table.id(), grown.id(), 0, 0, static_cast<GLsizeiptr>(m_tableRows * rowBytes));
        }
        m_table = std::move(grown);
        m_tableRows = capacity;
        if (m_tableTexture.id() == 0) {
            m_tableTexture = TextureHandle(GL_TEXTURE_BUFFER);
            setLabel(GL_TEXTURE, m_tableTexture.id(), "myriad/Renderer.draw-table-texture");
        }
        glTextureBuffer(m_tableTexture.id(), GL_RGBA32UI, m_table.id());
    }
    if (!m_dirtyRows.empty()) {
        // Changed rows, neighbours merged into one copy.
        std::sort(m_dirtyRows.begin(), m_dirtyRows.end());
        for (std::size_t i = 0; i < m_dirtyRows.size();) {
            std::size_t j = i + 1;
            while (j < m_dirtyRows.size() && m_dirtyRows[j] == m_dirtyRows[j - 1] + 1) {
                ++j;
            }
            const std::size_t count = j - i;
            ring.copy(m_table.id(), m_dirtyRows[i] * rowBytes, m_rows.data() + std::size_t{m_dirtyRows[i]} * kRowTexels,
                      count * rowBytes);
            stats.bytesUploaded += count * rowBytes;
            ++stats.uploadRanges;
            i = j;
        }
    }
    if (m_commands.empty()) {
        return;
    }
    const std::size_t commandBytes = m_commands.size() * sizeof(DrawElementsIndirectCommand);
    const bool culled = !m_culledLists.empty();
    if (m_commands.size() > m_commandCapacity) {
        std::size_t capacity = std::max<std::size_t>(m_commandCapacity, 1024);
        while (capacity < m_commands.size()) {
            capacity *= 2;
        }
        m_commandBuffer = Buffer({.sizeBytes = capacity * sizeof(DrawElementsIndirectCommand),
                                  .label = "myriad/Renderer.draw-commands"});
        m_commandTemplate = Buffer{};
        m_commandCapacity = capacity;
        m_sentCommands.clear();
    }
    if (culled && m_commandTemplate.id() == 0) {
        m_commandTemplate = Buffer({.sizeBytes = m_commandCapacity * sizeof(DrawElementsIndirectCommand),
                                    .label = "myriad/Renderer.draw-commands-template"});
        m_sentCommands.clear();
    }
    if (culled != m_sentToTemplate) {
        m_sentCommands.clear();  // m_sentCommands described the other buffer
        m_sentToTemplate = culled;
    }
    // The same commands as the buffer holds (a still camera over a still scene): nothing to send.
    const GLuint target = culled ? m_commandTemplate.id() : m_commandBuffer.id();
    if (m_sentCommands.size() != m_commands.size() ||
        std::memcmp(m_sentCommands.data(), m_commands.data(), commandBytes) != 0) {
        ring.copy(target, 0, m_commands.data(), commandBytes);
        stats.bytesUploaded += commandBytes;
        ++stats.uploadRanges;
        m_sentCommands = m_commands;
    }
    if (!culled) {
        return;
    }
    // The live commands from the template: the culled instance counts back to 0 for this
    // frame's atomics. The last frame's dispatches wrote them; their barrier carried
    // GL_BUFFER_UPDATE_BARRIER_BIT, so this copy waits for those writes, and GL orders a copy
    // before the shader accesses issued after it.
    glCopyNamedBufferSubData(m_commandTemplate.id(), m_commandBuffer.id(), 0, 0, static_cast<GLsizeiptr>(commandBytes));
    if (m_pairs > m_pairCapacity) {
        // Written whole by this frame's dispatches before any draw reads it: nothing to keep.
        std::size_t capacity = std::max<std::size_t>(m_pairCapacity, 4096);
        while (capacity < m_pairs) {
            capacity *= 2;
        }
        capacity = std::min(capacity, std::max<std::size_t>(m_pairs, static_cast<std::size_t>(m_limits.maxShaderStorageBlockBytes) / 8));
        m_pairBuffer = Buffer({.sizeBytes = capacity * 2 * sizeof(std::uint32_t),
                               .label = "myriad/Renderer.draw-table-culled-pairs"});
        m_pairCapacity = capacity;
    }
    for (GpuCullList* list : m_culledLists) {
        list->table.commandBuffer = m_commandBuffer.id();
        list->table.pairBuffer = m_pairBuffer.id();
    }
    // The jobs, sent when they change (a batch added, moved in the arena, resized or out of view).
    if (m_jobs.size() > m_jobCapacity) {
        std::size_t capacity = std::max<std::size_t>(m_jobCapacity, 256);
        while (capacity < m_jobs.size()) {
            capacity *= 2;
        }
        capacity = std::min(capacity, std::max<std::size_t>(m_jobs.size(), static_cast<std::size_t>(m_limits.maxShaderStorageBlockBytes) / sizeof(CullJob)));
        m_jobBuffer = Buffer({.sizeBytes = capacity * sizeof(CullJob), .label = "myriad/Renderer.draw-table-cull-jobs"});
        m_jobCapacity = capacity;
        m_sentJobs.clear();
    }
    if (m_jobs != m_sentJobs) {
        ring.copy(m_jobBuffer.id(), 0, m_jobs.data(), m_jobs.size() * sizeof(CullJob));
        stats.bytesUploaded += m_jobs.size() * sizeof(CullJob);
        ++stats.uploadRanges;
        m_sentJobs = m_jobs;
    }
    m_tabledCulling.jobs = m_jobBuffer.id();
    m_tabledCulling.records = resources.recordArena().records.id();
    m_tabledCulling.pairs = m_pairBuffer.id();
    m_tabledCulling.commands = m_commandBuffer.id();
    m_tabledCulling.commandBytes = m_commandBuffer.sizeBytes();
    m_tabledCulling.drawTable = m_tableTexture.id();
}

void DrawTable::bindForDraws(const GpuResources& resources) {
    const std::deque<MeshArena>& meshes = resources.meshArenas();
    const RecordArena& records = resources.recordArena();
    m_arenaArrays.resize(meshes.size());
    // Labels only when a vertex array is made: no string is built in a steady frame.
    auto label = [](const char* base, std::size_t arena) {
        return arena == 0 ? std::string(base) : std::string(base) + "#" + std::to_string(arena);
    };
    for (std::size_t a = 0; a < meshes.size(); ++a) {
        ArenaArrays& each = m_arenaArrays[a];
        if (each.arrays.id() == 0) {
            each.arrays = tableVertexArray(true, meshes[a].layout, label("myriad/Renderer.draw-table-vertex-array", a));
        }
        attachMeshArena(each.arrays, meshes[a], each.meshSerial);
        if (each.recordSerial != records.serial) {
            each.arrays.setVertexBuffer(kInstanceBinding, records.records);
            each.arrays.setVertexBuffer(kDrawIdBinding, records.drawIds);
            each.recordSerial = records.serial;
        }
        if (m_culledLists.empty()) {
            if (each.culled.id() != 0) {
                // Not drawn this frame, but re-pointed so it holds no old mesh arena alive.
                attachMeshArena(each.culled, meshes[a], each.culledMeshSerial);
            }
            continue;
        }
        // GPU-culled groups: their vertex array (the mesh arena, the pairs the dispatch wrote).
        if (each.culled.id() == 0) {
            each.culled =
                tableVertexArray(false, meshes[a].layout, label("myriad/Renderer.draw-table-culled-vertex-array", a));
        }
        attachMeshArena(each.culled, meshes[a], each.culledMeshSerial);
        if (each.culledPairBuffer != m_pairBuffer.id()) {
            each.culled.setVertexBuffer(kDrawIdBinding, m_pairBuffer);
            each.culledPairBuffer = m_pairBuffer.id();
        }
    }
    // The first arena's vertex array; draw() switches to a group's own when it differs.
    glBindVertexArray(m_arenaArrays.empty() ? 0 : m_arenaArrays.front().arrays.id());
    m_bound = {m_arenaArrays.empty() ? ~0u : 0u, false};
    glBindBuffer(GL_DRAW_INDIRECT_BUFFER, m_commandBuffer.id());
    glBindTextureUnit(kDrawTableUnit, m_tableTexture.id());
    if (!m_recordTextureWanted && m_recordTexture.id() != 0 && m_recordTextureSerial != records.serial) {
        // The arena grew: let go of the old buffer now (an attached buffer stays alive, GL 4.5
        // section 5.1.3), not at the next frame that wants the view.
        glTextureBuffer(m_recordTexture.id(), GL_RGBA32F, 0);
        m_recordTextureSerial = ~0ull;
    }
    if (m_recordTextureWanted) {
        // kIndexed groups (GPU-culled batches, primitives after the first) fetch records from
        // the record arena as one buffer texture.
        if (m_recordTexture.id() == 0) {
            m_recordTexture = TextureHandle(GL_TEXTURE_BUFFER);
            setLabel(GL_TEXTURE, m_recordTexture.id(), "myriad/Renderer.record-arena-texture");
        }
        if (m_recordTextureSerial != records.serial) {
            glTextureBuffer(m_recordTexture.id(), GL_RGBA32F, records.records.id());
            m_recordTextureSerial = records.serial;
        }
        glBindTextureUnit(kIndexedRecordUnit, m_recordTexture.id());
    }
}

void DrawTable::draw(const TableGroup& group, FrameStats& stats) {
    const std::pair<std::uint32_t, bool> wanted{group.vertexArena, group.culledPairs};
    if (wanted != m_bound) {
        const ArenaArrays& arrays = m_arenaArrays[group.vertexArena];
        glBindVertexArray(group.culledPairs ? arrays.culled.id() : arrays.arrays.id());
        m_bound = wanted;
        ++stats.vertexArrayBinds;
    }
    glMultiDrawElementsIndirect(GL_TRIANGLES, GL_UNSIGNED_INT,
                                reinterpret_cast<const void*>(std::uintptr_t{group.firstCommand} *
                                                              sizeof(DrawElementsIndirectCommand)),
                                static_cast<GLsizei>(group.commandCount), sizeof(DrawElementsIndirectCommand));
    ++stats.drawCalls;
    ++stats.multiDrawCalls;
    stats.drawCommands += group.commandCount;
    stats.batches += group.batches;
    stats.meshNodes += group.meshNodes;
    stats.instances += group.instances;
    stats.triangles += group.triangles;
}

} // namespace myriad::gl::detail
