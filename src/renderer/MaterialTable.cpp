#include "renderer/MaterialTable.h"

#include "renderer/GlState.h"
#include "myriad/core/MeshNode.h"
#include "myriad/core/Scene.h"

#include <algorithm>
#include <cstring>
#include <functional>

namespace myriad::gl::detail {
namespace {

GpuMaterial pack(const Material& material) {
    GpuMaterial row{};
    for (int k = 0; k < 4; ++k) {
        row.baseColor[k] = material.baseColor[k];
    }
    row.alphaCutoff = material.alphaCutoff;
    row.shading = material.shading == Shading::Lit ? 0 : material.shading == Shading::Unlit ? 1 : 2;
    row.alphaMode = static_cast<std::int32_t>(material.alphaMode);
    row.flags = (material.doubleSided ? 1 : 0) | (material.baseColorTexture ? 2 : 0) | (material.blendWritesDepth ? 4 : 0);
    return row;
}

} // namespace

void MaterialTable::begin() {
    ++m_frame;
    m_rowCount = 0;
    m_pending.clear();
}

void MaterialTable::hold(const Material& material, std::string_view renderable, std::uint64_t nodeId,
                         std::uint64_t populationId) {
    if (m_rowCount == m_identity.rows.size()) {
        m_identity.rows.emplace_back();
    }
    MaterialIdentityRow& row = m_identity.rows[m_rowCount++];
    row.renderable.assign(renderable);
    if (row.renderable.empty()) {
        row.renderable = nodeId != 0 ? "node#" + std::to_string(nodeId) : "population#" + std::to_string(populationId);
    }
    row.nodeId = nodeId;
    row.populationId = populationId;
    row.slot = 0;
    row.material.assign(material.name);
    if (material.name.empty()) {
        return;  // no material: index 0
    }
    auto it = m_names.find(std::string_view(material.name));
    if (it == m_names.end()) {
        it = m_names.emplace(material.name, Entry{}).first;
        m_pending.push_back(material.name);
    }
    if (it->second.heldFrame != m_frame) {
        it->second.heldFrame = m_frame;
        it->second.parameters = pack(material);
    }
}

void MaterialTable::holdNode(const SceneNode& node) {
    if (!node.visible()) {
        return;  // a hidden subtree draws nothing, so holds nothing
    }
    // Mesh nodes and batches hold every primitive's material; particle pools and scatter nodes
    // are not MeshNodes and draw with their own materials (not in the table).
    if (const MeshNode* mesh = asMeshNode(node)) {
        for (std::size_t p = 0; p < mesh->primitiveCount(); ++p) {
            hold(mesh->primitiveMaterial(p), mesh->name(), mesh->id(), 0);
        }
    }
    for (const auto& child : node.childrenView()) {
        holdNode(*child);
    }
}

void MaterialTable::holdScene(const Scene& scene) { holdNode(scene.root()); }

void MaterialTable::end() {
    // Free first, then assign: a name that left this frame gives its index to a name that
    // arrived this frame (so churn under fresh names keeps the table the same size).
    for (auto it = m_names.begin(); it != m_names.end();) {
        if (it->second.heldFrame != m_frame) {
            m_free.push_back(it->second.index);
            it = m_names.erase(it);
            m_slotsStale = true;
        } else {
            ++it;
        }
    }
    std::sort(m_free.begin(), m_free.end(), std::greater<>());  // lowest at the back
    for (const std::string& name : m_pending) {
        Entry& entry = m_names.find(std::string_view(name))->second;
        if (!m_free.empty()) {
            entry.index = m_free.back();
            m_free.pop_back();
        } else {
            entry.index = m_next++;
        }
        m_slotsStale = true;
    }
    m_table.resize(m_next);
    for (const auto& [name, entry] : m_names) {
        m_table[entry.index] = entry.parameters;
    }
    m_identity.rows.resize(m_rowCount);
    for (MaterialIdentityRow& row : m_identity.rows) {
        row.index = find(row.material).value_or(0u);
    }
    if (m_table != m_uploaded) {
        const std::size_t bytes = m_table.size() * sizeof(GpuMaterial);
        if (m_buffer.sizeBytes() < bytes) {
            // Room to grow: a new name rarely reallocates.
            m_buffer = Buffer({.sizeBytes = std::max<std::size_t>(bytes * 2, 64 * sizeof(GpuMaterial)),
                               .usage = BufferUsage::Dynamic,
                               .label = "myriad/Renderer.material-table"});
        }
        m_buffer.update(0, std::as_bytes(std::span(m_table)));
        m_uploaded = m_table;
        m_bytesUploaded += bytes;
    }
}

void MaterialTable::bind() const {
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kMaterialTableBinding, m_buffer.id());
}

std::optional<std::uint32_t> MaterialTable::find(std::string_view name) const {
    if (name.empty()) {
        return 0u;
    }
    const auto it = m_names.find(name);
    if (it == m_names.end() || it->second.index == 0) {
        return std::nullopt;
    }
    return it->second.index;
}

std::uint32_t MaterialTable::indexOf(const Material& material) const {
    return find(material.name).value_or(0u);
}

const MaterialIdentity& MaterialTable::identity() const {
    if (m_slotsStale) {
        m_identity.slots.clear();
        for (const auto& [name, entry] : m_names) {
            m_identity.slots.push_back({name, entry.index});
        }
        std::sort(m_identity.slots.begin(), m_identity.slots.end(),
                  [](const MaterialSlot& a, const MaterialSlot& b) { return a.index < b.index; });
        m_slotsStale = false;
    }
    return m_identity;
}

} // namespace myriad::gl::detail
