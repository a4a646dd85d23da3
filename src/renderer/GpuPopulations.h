#pragma once
// Internal to myriad_gl: a renderer's named GPU buffers, the populations drawn from them, and
// compute dispatches that write them, with the memory barriers between the two.
//
// Barriers (OpenGL 4.5, "Shader Memory Access Synchronization"): a compute write is visible to a later read only after
// glMemoryBarrier with the bit of that read's kind. A dispatch marks every kind pending; the
// next consumer issues the bits it needs that are still pending and clears them: render() the
// vertex-attribute (records), texture-fetch (lanes) and storage bits, and the buffer-update bit
// before it rewrites the material table (a dispatch may write it); the next dispatch the
// storage bit; writeBuffer()/readBuffer() the buffer-update bit.
#include "gl/GlCommon.h"
#include "renderer/GlLimits.h"
#include "myriad/core/MeshData.h"
#include "myriad/gl/Buffer.h"
#include "myriad/gl/GpuData.h"
#include "myriad/gl/VertexArray.h"

#include <glm/vec3.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace myriad::gl::detail {

class GpuResources;

struct NamedBuffer {
    Buffer buffer;
    GpuElementType elementType = GpuElementType::Vec4;
    std::size_t length = 0;
    std::size_t users = 0;  // populations drawing from it: it cannot be destroyed meanwhile
};

struct Population {
    std::uint64_t id = 0;
    std::string name;
    std::shared_ptr<const MeshGeometry> mesh;
    std::string transformBuffer;
    std::string laneBuffer;
    std::size_t instanceCount = 0;
    Material material;
    std::optional<Aabb> bounds;
    VertexArray vertexArray;  // mesh + the transform buffer at kInstanceBinding
    std::uint64_t meshSerial = 0;  // MeshGpu::serial the vertex array was made over
    TextureHandle lanes;      // RGBA32F view of the lane buffer; 0: lanes read zero
};

class GpuPopulations {
public:
    /** Name of the material table when bound by dispatch() (Renderer::kMaterialTableBuffer). */
    static constexpr std::string_view kMaterialTable = "myriad.materials";

    /** @param limits the renderer's (outlives this): lane texels, dispatch bindings and groups. */
    explicit GpuPopulations(const GlLimits& limits) noexcept : m_limits(limits) {}

    void createBuffer(const GpuBufferDesc& desc);
    void writeBuffer(std::string_view name, std::size_t firstElement, std::span<const std::byte> bytes);
    [[nodiscard]] std::vector<std::byte> readBuffer(std::string_view name);
    void destroyBuffer(std::string_view name);
    [[nodiscard]] const NamedBuffer* find(std::string_view name) const;

    PopulationId add(GpuResources& resources, std::shared_ptr<const MeshGeometry> mesh,
                     const PopulationDesc& desc);
    void remove(PopulationId id);
    /** The population's vertex array over the renderer's current copy of its mesh. */
    const VertexArray& vertexArray(GpuResources& resources, Population& population);
    [[nodiscard]] const std::vector<std::unique_ptr<Population>>& populations() const noexcept {
        return m_populations;
    }

    /** Binds @p bindings, dispatches, restores the program and the bindings it used.
     *  @param materialTable the GL name of the material table (for kMaterialTable). */
    void dispatch(const ComputeProgram& program, std::span<const BufferBinding> bindings,
                  const glm::uvec3& groups, GLuint materialTable);
    /** Issues the pending barrier bits among @p bits (glMemoryBarrier), if any. */
    void barrier(GLbitfield bits);
    /** A frame has drawn: the next dispatch() issues a storage barrier before it writes, so it
     *  cannot overwrite what those draws may still read (write after read). */
    void noteFrameDrawn() noexcept { m_drawnSinceDispatch = true; }

private:
    NamedBuffer& require(std::string_view name, const char* function);

    const GlLimits& m_limits;
    std::map<std::string, NamedBuffer, std::less<>> m_buffers;
    std::vector<std::unique_ptr<Population>> m_populations;
    std::uint64_t m_nextPopulation = 1;
    GLbitfield m_pending = 0;
    bool m_drawnSinceDispatch = false;
};

} // namespace myriad::gl::detail
