#include "renderer/DrawTable.h"

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
#include <cstring>

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

/** Whether @p item can be drawn from the shared buffers: nothing of its own to bind. A batch's
 *  copy is put in @p batchGpu. */
bool tableable(const DrawItem& item, const GpuResources& resources, const BatchGpu*& batchGpu) {
    if (item.visible != nullptr || item.gpuCulled != nullptr || item.lodLevel != kNoLodLevel ||
        item.node->primitiveCount() != 1 || drawnMesh(item)->morphTargetCount() != 0) {
        return false;
    }
    if (!item.instanced) {
        return true;
    }
    const auto& batch = static_cast<const InstancedMeshNode&>(*item.node);
    batchGpu = resources.findBatch(batch);
    return batchGpu != nullptr && batchGpu->inArena() && !batch.hasLanes() && !batch.hasInstanceMorphWeights();
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
    }
    m_commands.clear();
    m_dirtyRows.clear();
}

void DrawTable::writeRow(std::uint32_t row, const MeshNode& node, const Material& material,
                         std::uint32_t materialIndex, bool textured, bool instanced) {
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
        std::copy(lanes.begin(), lanes.end(), texels.begin() + 7);
    }
    glm::vec4* stored = m_rows.data() + std::size_t{row} * kRowTexels;
    if (firstWrite || std::memcmp(stored, texels.data(), sizeof(texels)) != 0) {
        std::memcpy(stored, texels.data(), sizeof(texels));
        m_dirtyRows.push_back(row);
    }
}

void DrawTable::build(std::size_t passIndex, const ViewPass& pass, GpuResources& resources,
                      const MaterialTable& materials, ShaderLibrary& shaders, const FeaturesOf& featuresOf) {
    PassTable& table = m_passes[passIndex];
    m_groupOf.clear();
    m_entries.clear();
    const std::size_t maxRows = static_cast<std::size_t>(m_limits.maxTextureBufferTexels) / kRowTexels;
    for (const DrawItem& item : pass.opaque()) {
        const BatchGpu* batch = nullptr;
        if (!tableable(item, resources, batch)) {
            table.rest.push_back(&item);
            continue;
        }
        const MeshNode& node = *item.node;
        std::size_t firstSlot = 0;
        std::uint32_t row = 0;
        if (batch != nullptr) {
            firstSlot = batch->arenaFirst;
            row = batch->tableRow;
        } else {
            const NodeSlotGpu& slot = resources.nodeSlot(node);
            firstSlot = slot.arenaFirst;
            row = slot.tableRow;
        }
        if (row >= maxRows) {
            table.rest.push_back(&item);  // past what the table's buffer texture can index
            continue;
        }
        const Material& material = node.primitiveMaterial(item.primitive);
        const std::uint32_t features = featuresOf(item) | kTabled | kInstanced;
        const Texture2D* texture = resources.texture(material);
        const GroupKey key{features, material.surface ? material.surface->id() : 0,
                           texture != nullptr ? texture->id() : 0u,
                           texture != nullptr ? resources.sampler(material) : 0u, cullFaceOf(item, features)};
        auto [found, added] = m_groupOf.try_emplace(key, static_cast<std::uint32_t>(table.groups.size()));
        if (added) {
            table.groups.push_back(TableGroup{.features = features, .material = &material, .cullFace = key.cullFace});
            shaders.request(features, material.surface);
        }
        TableGroup& group = table.groups[found->second];
        const MeshGeometry& geometry = *drawnMesh(item);
        const MeshArenaPlace& place = resources.meshInArena(drawnMesh(item)).arena;
        writeRow(row, node, material, materials.indexOf(material), texture != nullptr, item.instanced);
        m_entries.push_back({found->second,
                             {static_cast<std::uint32_t>(place.indexCount), item.instanceCount,
                              static_cast<std::uint32_t>(place.firstIndex), static_cast<std::int32_t>(place.baseVertex),
                              static_cast<std::uint32_t>(firstSlot + item.firstInstance)}});
        ++group.commandCount;
        (item.instanced ? group.batches : group.meshNodes) += 1;
        group.instances += item.instanceCount;
        group.triangles += std::uint64_t{geometry.triangleCount()} * item.instanceCount;
    }
    // Groups of one program next to each other (fewer program changes; otherwise in the order
    // they first appeared), then each group's commands together in the order their draws came
    // (a counting sort).
    const std::size_t groups = table.groups.size();
    m_groupOrder.resize(groups);
    for (std::uint32_t g = 0; g < groups; ++g) {
        m_groupOrder[g] = g;
    }
    auto programOf = [&](std::uint32_t g) {
        const TableGroup& group = table.groups[g];
        return std::pair(group.features, group.material->surface ? group.material->surface->id() : 0);
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
    for (const Entry& entry : m_entries) {
        m_commands[m_groupFill[entry.group]++] = entry.command;
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
    if (m_commands.size() > m_commandCapacity) {
        std::size_t capacity = std::max<std::size_t>(m_commandCapacity, 1024);
        while (capacity < m_commands.size()) {
            capacity *= 2;
        }
        m_commandBuffer = Buffer({.sizeBytes = capacity * sizeof(DrawElementsIndirectCommand),
                                  .label = "myriad/Renderer.draw-commands"});
        m_commandCapacity = capacity;
        m_sentCommands.clear();
    }
    // The same commands as the buffer holds (a still camera over a still scene): nothing to send.
    if (m_sentCommands.size() != m_commands.size() ||
        std::memcmp(m_sentCommands.data(), m_commands.data(), commandBytes) != 0) {
        ring.copy(m_commandBuffer.id(), 0, m_commands.data(), commandBytes);
        stats.bytesUploaded += commandBytes;
        ++stats.uploadRanges;
        m_sentCommands = m_commands;
    }
}

void DrawTable::bindForDraws(const GpuResources& resources) {
    const MeshArena& meshes = resources.meshArena();
    const RecordArena& records = resources.recordArena();
    if (m_vertexArray.id() == 0) {
        VertexLayoutDesc layout = instancedVertexLayout("myriad/Renderer.draw-table-vertex-array");
        layout.bindings.push_back({kDrawIdBinding, 2 * sizeof(std::uint32_t), 1});
        layout.attributes.push_back({kDrawIdLocation, AttributeFormat::UInt2, 0, kDrawIdBinding});
        m_vertexArray = VertexArray(layout);
    }
    if (m_meshSerial != meshes.serial) {
        m_vertexArray.setVertexBuffer(kVertexBinding, meshes.vertices);
        m_vertexArray.setIndexBuffer(meshes.indices, IndexType::UInt32,
                                     static_cast<std::uint32_t>(meshes.vertexSlots.capacity() - 1));
        m_meshSerial = meshes.serial;
    }
    if (m_recordSerial != records.serial) {
        m_vertexArray.setVertexBuffer(kInstanceBinding, records.records);
        m_vertexArray.setVertexBuffer(kDrawIdBinding, records.drawIds);
        m_recordSerial = records.serial;
    }
    glBindVertexArray(m_vertexArray.id());
    glBindBuffer(GL_DRAW_INDIRECT_BUFFER, m_commandBuffer.id());
    glBindTextureUnit(kDrawTableUnit, m_tableTexture.id());
}

void DrawTable::draw(const TableGroup& group, FrameStats& stats) const {
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
