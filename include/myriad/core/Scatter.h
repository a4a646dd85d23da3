#pragma once
/** @file
 *  Scatter: many static plants (grass blades, flowers) placed by a compact 32-byte stream and
 *  bent by a wind field in the vertex stage. Layout and wind: docs/particles.md. */
#include "myriad/core/InstanceStream.h"
#include "myriad/core/Material.h"
#include "myriad/core/MeshData.h"
#include "myriad/core/SceneNode.h"

#include <glm/vec3.hpp>
#include <glm/vec4.hpp>

#include <cstddef>
#include <memory>
#include <span>
#include <string>

namespace myriad {

namespace streams {
/** The scatter stream: 8 floats (32 bytes) per plant, two divisor-1 vec4 attributes at
 *  locations 4 and 5 (myriad_scatter_0, myriad_scatter_1):
 *  (position xyz in node space, yaw radians), (uniform scale, bend, colour variation, seed). */
extern const InstanceStreamDesc kScatter;
} // namespace streams

/** One plant. Defaults: at the node origin, unturned, scale 1, bend 1, no colour variation. */
struct ScatterInstance {
    glm::vec3 position{0.0f};  ///< node space, metres: where the root stands
    float yaw = 0.0f;          ///< radians about the node's +Y
    float scale = 1.0f;        ///< uniform scale, > 0
    float bend = 1.0f;         ///< wind response: 0 stiff, 1 the wind's full sway, more bends further
    float colorVariation = 0.0f;  ///< -1..1: brightness * (1 + 0.5 * variation)
    float seed = 0.0f;         ///< 0..1: phase of the sway, so neighbours never move together
};

/** A wind field: a steady push along direction plus gusts, scrolling noise travelling with the
 *  wind. A blade's tip moves by strength * bend * (1 + gust) metres per metre of blade height
 *  (times the height share squared: stiff at the root, free at the tip). */
struct WindField {
    float time = 0.0f;                        ///< seconds; advance it each frame
    glm::vec3 direction{1.0f, 0.0f, 0.0f};    ///< world, horizontal part used; normalised in the shader
    float strength = 0.2f;                    ///< lean of a bend-1 blade, metres per metre of height
    float gustStrength = 0.5f;                ///< gust amplitude, a share of strength
    float gustScale = 8.0f;                   ///< metres between gusts
    float gustSpeed = 3.0f;                   ///< m/s at which gusts travel
};

/** A node drawing one mesh (a blade, a tuft; its root at y = 0, growing up +Y) at count()
 *  places in one instanced draw, each place 32 bytes (streams::kScatter), half the 64-byte
 *  record: no matrix, just position, yaw and uniform scale. Opaque or alpha-masked (material
 *  alphaMode Mask for cut-out blades), lit like a MeshNode, with the user surface function.
 *  The wind bends each vertex by its height share in the mesh (y / mesh box height).
 *  Not frustum-culled as a node (the GPU clips).
 *  Ownership: shares the mesh, owns the stream. Thread safety: as SceneNode. */
class ScatterNode : public SceneNode {
public:
    static constexpr std::size_t maxCapacity = std::size_t{1} << 26;  ///< 64 Mi plants
    static constexpr std::size_t bytesPerInstance = 32;  ///< 8 floats per plant (streams::kScatter)

    /** @throws InvalidArgument if @p mesh is null or @p material blends (scatter is opaque or
     *  masked); CapacityError if capacity > maxCapacity. */
    ScatterNode(std::shared_ptr<const MeshGeometry> mesh, Material material, std::size_t capacity,
                std::string name = {});

    /** The mesh drawn at every place, shared (never null): root at y = 0, growing up +Y. */
    [[nodiscard]] const std::shared_ptr<const MeshGeometry>& mesh() const noexcept { return m_mesh; }
    /** The node's own copy of its material (opaque or alpha-masked, never blended). */
    [[nodiscard]] const Material& material() const noexcept { return m_material; }
    /** Plants the stream holds room for, fixed at construction. */
    [[nodiscard]] std::size_t capacity() const noexcept { return m_stream.capacity(); }
    /** Plants drawn: rows [0, count()) of the stream. */
    [[nodiscard]] std::size_t count() const noexcept { return m_count; }

    /** Appends a plant; returns its index. @throws CapacityError when full; InvalidArgument on
     *  NaN/Inf or scale <= 0; nothing changes then. */
    std::size_t add(const ScatterInstance& instance);
    /** @throws OutOfRange if index >= count(); InvalidArgument as add(). */
    void set(std::size_t index, const ScatterInstance& instance);
    /** @throws OutOfRange if index >= count(). */
    [[nodiscard]] ScatterInstance at(std::size_t index) const;
    /** Draws nothing; keeps the capacity. */
    void clear() noexcept { m_count = 0; }

    /** The stream, capacity() * 8 floats, for bulk writes; then markChanged(). Not checked. */
    [[nodiscard]] std::span<float> data() noexcept { return m_stream.data(); }
    /** Makes the first @p count rows drawn and marks them changed.
     *  @throws CapacityError if count > capacity(). */
    void setCount(std::size_t count);
    /** @throws OutOfRange if the range runs past capacity(). */
    void markChanged(std::size_t first = 0, std::size_t count = SIZE_MAX);
    /** The scatter stream (streams::kScatter layout, capacity() rows) with its change log, as
     *  the renderer uploads it; owned by the node. */
    [[nodiscard]] const InstanceStream& stream() const noexcept { return m_stream; }

    /** The wind this node's plants bend in; edit freely (time each frame). */
    WindField wind;

private:
    std::shared_ptr<const MeshGeometry> m_mesh;
    Material m_material;
    InstanceStream m_stream{streams::kScatter};
    std::size_t m_count = 0;
};

} // namespace myriad
