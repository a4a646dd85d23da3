#pragma once
// Internal to myriad_gl: GPU copies and draws of ParticlePool and ScatterNode nodes
// (docs/particles.md). The renderer calls prepare() with its other uploads (before any draw),
// drawScatter() after each view's opaque draws and drawParticles() after its blended ones.
//
// Particles: the pool's four streams go into one buffer as four planes, bound as one RGBA32F
// buffer texture (unit 2); a sorted pool also has, per view, an R32UI buffer texture of the
// back-to-front order (unit 1). The quad comes from gl_VertexID: no mesh, an empty VAO.
// Scatter: the mesh's vertex layout plus the 32-byte scatter stream as two divisor-1 vec4
// attributes (locations 4, 5), drawn with scatter.vert + surface.frag.
// Uploads go through the renderer's staging ring and each stream's ChangeLog cursor, like every
// other stream: only rows changed since this renderer's last upload, only live rows.
#include "gl/GlCommon.h"
#include "renderer/GlLimits.h"
#include "renderer/GpuResources.h"
#include "renderer/ShaderLibrary.h"
#include "renderer/ViewPass.h"
#include "myriad/core/Particles.h"
#include "myriad/core/Scatter.h"
#include "myriad/gl/Buffer.h"
#include "myriad/gl/FrameStats.h"
#include "myriad/gl/VertexArray.h"

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

namespace myriad {
class Scene;
} // namespace myriad

namespace myriad::gl::detail {

/** sortBackToFront's work arrays, kept between calls (no allocation per frame). */
struct ParticleSortScratch {
    std::vector<float> depth;           ///< per particle: depth along the view axis
    std::vector<std::uint16_t> keys;    ///< per particle: quantised depth, 0 = farthest
    std::vector<std::uint64_t> packed;  ///< (key << 32 | index) after the first pass
};

/** Sorts @p count particles back to front along @p forward from @p eye: writes into @p order the
 *  particle indices, farthest first. Depths are quantised to 16 bits over this call's range
 *  (farthest to nearest particle), then an LSD radix sort of 2 passes of 8 bits, O(count), stable:
 *  particles within range / 65,535 of each other in depth keep their stream order. @p positions
 *  is the PositionSize stream (xyz used), read once. */
void sortBackToFront(std::span<const glm::vec4> positions, std::size_t count, const glm::vec3& eye,
                     const glm::vec3& forward, std::vector<std::uint32_t>& order, ParticleSortScratch& scratch);

class ParticlePass {
public:
    /** @param limits the renderer's (outlives this): the pools' buffer textures. */
    ParticlePass(std::uint64_t consumer, const GlLimits& limits);
    ~ParticlePass();
    ParticlePass(const ParticlePass&) = delete;
    ParticlePass& operator=(const ParticlePass&) = delete;

    /** Requests programs (the renderer waits for them: ShaderLibrary::finishPending), uploads
     *  changed rows and, for sorted pools, sorts and uploads each view's order.
     *  @throws CapacityError (a pool whose streams or order need more texels than
     *  GL_MAX_TEXTURE_BUFFER_SIZE), with nothing drawn. */
    void prepare(std::span<const ViewPass> passes, ShaderLibrary& shaders, GpuResources& resources);
    /** Draws the view's scatter nodes (opaque, depth written). Leaves blending off, depth mask on. */
    void drawScatter(std::size_t passIndex, const ViewPass& pass, ShaderLibrary& shaders,
                     GpuResources& resources, const Scene& scene);
    /** Draws the view's particle pools (depth tested, not written). Leaves blending on, depth
     *  mask on. */
    void drawParticles(std::size_t passIndex, const ViewPass& pass, ShaderLibrary& shaders,
                       GpuResources& resources);
    /** Frees copies of destroyed nodes (end of each frame). */
    void endFrame() noexcept;
    /** Frees copies the last frame did not draw. */
    void trim();

private:
    struct OrderGpu {
        Buffer buffer;
        TextureHandle texture;
        std::size_t capacity = 0;
        bool sorted = false;  ///< holds this frame's order for its view
        // What the order held was sorted for: a frame with the same eye, forward, positions
        // (stream version) and count keeps it, neither sorted nor uploaded again.
        glm::vec3 eye{0.0f};
        glm::vec3 forward{0.0f};
        std::uint64_t positionsVersion = 0;  ///< 0: nothing sorted yet
        std::size_t count = 0;
    };
    struct PoolGpu {
        const ParticlePool* node = nullptr;
        std::weak_ptr<const void> alive;
        Buffer buffer;          ///< four planes of capacity vec4 rows
        TextureHandle texture;  ///< RGBA32F view of buffer
        std::size_t capacity = 0;
        std::array<std::uint64_t, ParticleStreamId::Count> cursors{};
        std::vector<OrderGpu> orders;  ///< per view pass
        std::uint64_t uploadedFrame = 0;
    };
    struct ScatterGpu {
        const ScatterNode* node = nullptr;
        std::weak_ptr<const void> alive;
        Buffer buffer;
        std::size_t capacity = 0;
        std::uint64_t cursor = 0;
        std::uint64_t meshId = 0;
        VertexArray vertexArray;
        std::uint64_t uploadedFrame = 0;
    };

    static std::uint32_t particleFeatures(const View& view);
    static std::uint32_t scatterFeatures(const ScatterNode& node, const View& view);
    void uploadPool(const ParticlePool& pool, PoolGpu& gpu, GpuResources& resources);
    void uploadOrder(std::size_t passIndex, const ViewPass& pass, const ParticlePool& pool, PoolGpu& gpu,
                     GpuResources& resources);
    void uploadScatter(const ScatterNode& node, ScatterGpu& gpu, GpuResources& resources);
    void forget(PoolGpu& gpu) noexcept;
    void forget(ScatterGpu& gpu) noexcept;

    std::uint64_t m_consumer;
    const GlLimits& m_limits;
    std::uint64_t m_frame = 0;
    std::unordered_map<std::uint64_t, PoolGpu> m_pools;
    std::unordered_map<std::uint64_t, ScatterGpu> m_scatter;
    VertexArray m_emptyVertexArray;  ///< particles read no attributes; core GL still wants a VAO
    std::vector<IndexRange> m_ranges;
    std::vector<std::uint32_t> m_order;
    ParticleSortScratch m_scratch;
};

} // namespace myriad::gl::detail
