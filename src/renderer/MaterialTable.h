#pragma once
// Internal to myriad_gl: the material identity table (name -> index, one row per renderable)
// and its GPU copy (a std430 storage buffer of material parameters indexed the same way).
//
// Identity is by Material::name: Material is a value copied into nodes, so "a material" is the
// name a renderable draws with. Each render() walks the scene (visible subtrees, culled or not,
// so leaving the view never costs an index) and the registered populations; names nobody holds
// any more leave the table and their indices are reused, lowest first, by the next new names.
#include "gl/GlCommon.h"
#include "myriad/core/Material.h"
#include "myriad/gl/Buffer.h"
#include "myriad/gl/GpuData.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace myriad {
class SceneNode;
class Scene;
} // namespace myriad

namespace myriad::gl::detail {

/** One row of the GPU table, std430 (32 bytes); surface.frag's MyriadMaterial. */
struct GpuMaterial {
    float baseColor[4];
    float alphaCutoff;
    std::int32_t shading;
    std::int32_t alphaMode;
    std::int32_t flags;  ///< 1: double-sided, 2: textured, 4: blended and writes depth (Material::blendWritesDepth)
    friend bool operator==(const GpuMaterial&, const GpuMaterial&) = default;
};
static_assert(sizeof(GpuMaterial) == 32);

class MaterialTable {
public:
    /** Starts a frame's walk: every row is rebuilt. */
    void begin();
    /** Records that @p renderable draws with @p material (slot 0). */
    void hold(const Material& material, std::string_view renderable, std::uint64_t nodeId,
              std::uint64_t populationId);
    /** Walks @p scene's visible subtrees and holds each mesh node's material. */
    void holdScene(const Scene& scene);
    /** Frees names nobody held this frame, gives new names indices, fills the rows, uploads
     *  the GPU table if it changed. */
    void end();
    /** Binds the GPU table at kMaterialTableBinding. */
    void bind() const;

    /** The index of @p name (0 for the empty name); nullopt while not in the table. */
    [[nodiscard]] std::optional<std::uint32_t> find(std::string_view name) const;
    /** The index to draw @p material with (0 if not in the table). */
    [[nodiscard]] std::uint32_t indexOf(const Material& material) const;
    [[nodiscard]] const MaterialIdentity& identity() const;
    [[nodiscard]] const Buffer& buffer() const noexcept { return m_buffer; }
    [[nodiscard]] std::uint64_t bytesUploaded() const noexcept { return m_bytesUploaded; }

private:
    struct Hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>()(s); }
    };
    struct Entry {
        std::uint32_t index = 0;  // 0 while pending (first held this frame)
        std::uint64_t heldFrame = 0;
        GpuMaterial parameters{};  // of the frame's first holder
    };
    void holdNode(const SceneNode& node);

    std::unordered_map<std::string, Entry, Hash, std::equal_to<>> m_names;
    std::vector<std::uint32_t> m_free;          // freed indices, reused lowest first
    std::uint32_t m_next = 1;                   // next never-used index (0 is "no material")
    std::vector<std::string> m_pending;         // names first held this frame, in order
    std::uint64_t m_frame = 0;
    std::size_t m_rowCount = 0;
    mutable MaterialIdentity m_identity;        // rows reuse their strings frame to frame
    mutable bool m_slotsStale = true;
    std::vector<GpuMaterial> m_table{GpuMaterial{{1, 1, 1, 1}, 0.5f, 0, 0, 0}};
    std::vector<GpuMaterial> m_uploaded;
    Buffer m_buffer;
    std::uint64_t m_bytesUploaded = 0;
};

} // namespace myriad::gl::detail
