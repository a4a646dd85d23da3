#pragma once
/** @file
 *  GPU-side data a renderer draws from: named GPU buffers, GPU-driven populations, compute
 *  programs, and the material identity table (docs/lanes.md). */
#include "myriad/core/Bounds.h"
#include "myriad/core/Material.h"
#include "myriad/gl/Program.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace myriad::gl {

/** What one element of a named GPU buffer is. The length of a buffer counts these. */
enum class GpuElementType : std::uint8_t {
    Float,           ///< 4 bytes
    Vec4,            ///< 16 bytes
    InstanceRecord,  ///< 64 bytes: the record of a CPU-built batch (docs/instance-record.md)
    Lanes,           ///< 64 bytes: four vec4 lanes of one instance
};

/** Bytes of one element of @p type. */
[[nodiscard]] constexpr std::size_t elementBytes(GpuElementType type) noexcept {
    switch (type) {
    case GpuElementType::Float: return 4;
    case GpuElementType::Vec4: return 16;
    case GpuElementType::InstanceRecord: return 64;
    case GpuElementType::Lanes: return 64;
    }
    return 0;
}

/** A named GPU buffer: immutable storage of length * elementBytes(elementType) bytes, written
 *  by the CPU (initialData, Renderer::writeBuffer) or by compute passes (Renderer::dispatch).
 *  Defaults: Vec4, length 0 (refused), zero-filled. */
struct GpuBufferDesc {
    std::string name;                          ///< unique in the renderer; used in GL labels
    GpuElementType elementType = GpuElementType::Vec4;  ///< what one element is; sets its bytes
    std::size_t length = 0;                    ///< elements, > 0
    std::span<const std::byte> initialData{};  ///< at most the buffer's bytes; rest zero
};

/** A population: one mesh drawn instanceCount times from named GPU buffers, every frame in
 *  every view until removed (Renderer::drawInstanced). */
struct PopulationDesc {
    std::string name;             ///< its row in the identity table; empty: "population#<id>"
    std::string transformBuffer;  ///< required: instanceCount 64-byte records (world from instance)
    std::string laneBuffer;       ///< optional: instanceCount * 4 vec4; empty: lanes read zero
    std::size_t instanceCount = 0; ///< members drawn, > 0; the buffers must hold this many rows
    Material material;            ///< as a MeshNode's (its name gives the material index)
    /** World-space box around every instance, for frustum culling; none: never culled (a
     *  GPU-written swarm has no CPU bounds, and myriad reads nothing back). */
    std::optional<Aabb> bounds;
};

/** Names a population; value 0 is none. */
struct PopulationId {
    std::uint64_t value = 0;  ///< unique in its renderer, never reused; 0: no population
    /** Same value: the same population. */
    friend bool operator==(const PopulationId&, const PopulationId&) = default;
};

/** One named buffer bound as a shader storage block for a dispatch. */
struct BufferBinding {
    std::uint32_t binding = 0;  ///< the block's layout(binding = N)
    std::string_view buffer;    ///< a named buffer, or Renderer::kMaterialTableBuffer
};

/** A GLSL compute shader (GLSL 4.50 with its own `#version` line and local size).
 *  Ownership: move-only RAII over its Program. Thread safety: the context's thread only. */
class ComputeProgram {
public:
    /** Compiles and links @p source on the current context.
     *  @param name what compile errors call it ("swarm.comp"): "name:line: message".
     *  @param source the whole compute shader, `#version 450` line and `layout(local_size_x = N)`
     *  included; copied into the program, not kept.
     *  @throws ShaderError on a compile or link error; InvalidArgument without a `#version`
     *  line; GlError with no current context. */
    ComputeProgram(std::string_view name, std::string_view source);
    /** Its program, for uniformLocation() and setUniform() (no bind needed). */
    [[nodiscard]] const Program& program() const noexcept { return m_program; }
    /** The name given at construction (its GL label is "myriad/compute:" + name). */
    [[nodiscard]] const std::string& name() const noexcept { return m_name; }

private:
    std::string m_name;
    Program m_program;
};

/** A material name and its index. */
struct MaterialSlot {
    std::string name;         ///< Material::name: identity is by name (docs/lanes.md)
    std::uint32_t index = 0;  ///< s.materialIndex in surface functions; 0 for the empty name
};

/** One renderable's row: a MeshNode or InstancedMeshNode (one row however many instances), or a
 *  population (one row however many members). */
struct MaterialIdentityRow {
    std::string renderable;    ///< the node's name (or "node#<id>"), or the population's name
    std::uint64_t nodeId = 0;  ///< SceneNode::id(); 0 for a population
    std::uint64_t populationId = 0;  ///< PopulationId::value; 0 for a node
    std::uint32_t slot = 0;    ///< the renderable's material slot (myriad nodes have one: 0)
    std::uint32_t index = 0;   ///< the material index its surface function reads
    std::string material;      ///< the material's name
};

/** The renderer's material identity table as of its last render(). */
struct MaterialIdentity {
    std::vector<MaterialSlot> slots;        ///< by material name, sorted by index
    std::vector<MaterialIdentityRow> rows;  ///< nodes in tree order, then populations
};

} // namespace myriad::gl
