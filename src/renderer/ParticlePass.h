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
// Uploads: a pool in UploadMode::Staged sends the rows changed since this renderer's last
// upload (each stream's ChangeLog cursor), live rows only, through the staging ring; a
// streaming pool (Automatic's choice for an emitter's pool) writes the live rows of each changed
// plane straight into the next of three fenced parts of a persistently mapped buffer. Sort
// orders always stream (rewritten whole). A pool with curves (ParticlePool::setCurves) sends two
// planes: positions and (age, seed, frame, spin).
#include "gl/GlCommon.h"
#include "renderer/GlLimits.h"
#include "renderer/GpuResources.h"
#include "renderer/ShaderLibrary.h"
#include "renderer/ViewPass.h"
#include "myriad/core/Material.h"
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

class LightList;

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

/** The shader features of a particle program drawn in @p pass (kParticle, the view's output
 *  and the pass's fog). */
[[nodiscard]] std::uint32_t particleFeatures(const ViewPass& pass);

/** A particle material's flipbook atlas as the Material GpuResources::texture() and sampler()
 *  take (its name and base-colour image; default sampling). */
[[nodiscard]] Material atlasMaterial(const ParticleMaterial& material);

/** Before any draw of the frame, for a CPU pool and a GPU system alike: requests the particle
 *  program @p material needs in @p pass (the renderer waits for it) and uploads its atlas. */
void prepareParticleDraw(const ViewPass& pass, ShaderLibrary& shaders, GpuResources& resources,
                         const ParticleMaterial& material);

/** What a draw of particle.vert and .frag needs before its buffer textures and the draw call,
 *  for a CPU pool and a GPU system alike: blending on with @p material's function, depth mask
 *  off, face culling off (all left so); the program for @p material in @p pass bound (counted
 *  in FrameStats::programBinds) with its camera, @p tint, @p planeTexels (u_particleCapacity),
 *  @p compact (two planes and curves), @p sorted, the material's uniforms and the pass's fog
 *  (additive materials fade, docs/lighting.md "Fog"); the flipbook
 *  atlas bound on kParticleAtlasUnit when it has one. The program must be ready
 *  (ShaderLibrary::finishPending). */
void beginParticleDraw(const ViewPass& pass, ShaderLibrary& shaders, GpuResources& resources,
                       const ParticleMaterial& material, const glm::vec4& tint, std::size_t planeTexels, bool compact,
                       bool sorted);

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
    /** Draws the view's scatter nodes (opaque, depth written), lit like meshes by @p lights'
     *  part for pass @p passIndex. Leaves blending off, depth mask on. */
    void drawScatter(std::size_t passIndex, const ViewPass& pass, ShaderLibrary& shaders,
                     GpuResources& resources, const Scene& scene, const LightList& lights);
    /** Draws the view's particle pools without draw bounds (depth tested, not written), after
     *  the blended meshes. Leaves blending on, depth mask on when it drew one. */
    void drawParticles(std::size_t passIndex, const ViewPass& pass, ShaderLibrary& shaders,
                       GpuResources& resources);
    /** Draws one pool prepared this frame (depth tested, not written): sets blending on, its
     *  blend function, depth mask off, face culling off, and leaves them so; binds its program.
     *  For pools drawn among the blended meshes (ParticlePool::drawBounds) too.
     *  @return false when it drew nothing (no live particle, not prepared, a depth-only view). */
    bool drawPool(std::size_t passIndex, const ViewPass& pass, ShaderLibrary& shaders, GpuResources& resources,
                  const ParticlePool& pool);
    /** Frees copies of destroyed nodes (end of each frame). */
    void endFrame() noexcept;
    /** Frees copies the last frame did not draw. */
    void trim();

    /** Whether this frame's lit scatter draws with image-based ambient (kImageAmbient;
     *  FrameAmbient::image), set by render() before prepare(). */
    void setImageAmbient(bool image) noexcept { m_imageAmbient = image; }

private:
    /** Three parts of a persistently mapped buffer, each viewed by its own buffer texture: a
     *  frame with a change writes the next part and draws from it; a frame without one draws
     *  the current part again. Each part remembers the last frame that read it
     *  (GpuResources::frameNumber), and a write into it first waits for that frame's fence
     *  (GpuResources::waitForStreamingPart), as a streaming batch's records do. */
    struct StreamingParts {
        static constexpr std::size_t kParts = 3;
        Buffer buffer;
        std::array<TextureHandle, kParts> textures;
        std::array<std::uint64_t, kParts> readFrame{};
        std::size_t partBytes = 0;  ///< a multiple of 256 (the largest buffer-texture offset alignment GL allows)
        std::size_t part = kParts - 1;  ///< drawn from now; the first write goes to part 0
        /** Makes the buffer (3 * @p partBytes) and one @p format view of @p partBytes per part. */
        void create(std::size_t partBytes, GLenum format, const std::string& label);
        [[nodiscard]] std::byte* mapped(std::size_t which) noexcept { return buffer.mapped().data() + which * partBytes; }
    };
    struct OrderGpu {
        StreamingParts parts;   ///< R32UI, capacity indices per part: written by the sort's last copy
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
        // UploadMode::Staged: one buffer the ring's copies write into
        Buffer buffer;          ///< planes() planes of capacity vec4 rows
        TextureHandle texture;  ///< RGBA32F view of buffer
        std::array<std::uint64_t, ParticleStreamId::Count> cursors{};  ///< stream versions the staged copy holds
        // UploadMode::Streaming (or chosen by Automatic): three parts of planes() planes
        std::unique_ptr<StreamingParts> streaming;
        /** Per part, the stream versions its planes hold (all ones: nothing written yet). */
        std::array<std::array<std::uint64_t, ParticleStreamId::Count>, StreamingParts::kParts> partVersions{};
        int denseUploads = 0;    ///< staged uploads in a row that sent at least half the live rows (Automatic)
        std::size_t capacity = 0;  ///< rows per plane of the copy in use (u_particleCapacity)
        bool compact = false;      ///< the copy's layout: 2 planes and curves (ParticlePool::curves())
        TextureHandle curves;      ///< 256 x 2 RGBA32F: the baked ParticleCurves (compact only)
        std::uint64_t curvesVersion = 0;  ///< ParticlePool::curvesVersion() baked into curves
        std::vector<OrderGpu> orders;  ///< per view pass
        std::uint64_t uploadedFrame = 0;
        [[nodiscard]] std::size_t planes() const noexcept { return compact ? 2 : ParticleStreamId::Count; }
        /** The buffer texture drawn from this frame. */
        [[nodiscard]] GLuint drawTexture() const noexcept {
            return streaming ? streaming->textures[streaming->part].id() : texture.id();
        }
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

    std::uint32_t scatterFeatures(const ScatterNode& node, const ViewPass& pass) const;
    void uploadPool(const ParticlePool& pool, PoolGpu& gpu, GpuResources& resources);
    /** UploadMode::Staged: the changed live rows through the ring. @return rows of the
     *  position stream sent (for Automatic's choice). */
    std::size_t uploadPoolStaged(const ParticlePool& pool, PoolGpu& gpu, GpuResources& resources, bool full);
    /** UploadMode::Streaming: the live rows of every changed plane into the next part. */
    void uploadPoolStreaming(const ParticlePool& pool, PoolGpu& gpu, GpuResources& resources);
    /** Bakes the pool's curves into gpu.curves when they changed. */
    void bakeCurves(const ParticlePool& pool, PoolGpu& gpu);
    void uploadOrder(std::size_t passIndex, const ViewPass& pass, const ParticlePool& pool, PoolGpu& gpu,
                     GpuResources& resources);
    void uploadScatter(const ScatterNode& node, ScatterGpu& gpu, GpuResources& resources);
    void forget(PoolGpu& gpu) noexcept;
    void forget(ScatterGpu& gpu) noexcept;

    std::uint64_t m_consumer;
    const GlLimits& m_limits;
    std::uint64_t m_frame = 0;
    bool m_imageAmbient = false;  // lit scatter takes kImageAmbient (setImageAmbient)
    std::unordered_map<std::uint64_t, PoolGpu> m_pools;
    std::unordered_map<std::uint64_t, ScatterGpu> m_scatter;
    VertexArray m_emptyVertexArray;  ///< particles read no attributes; core GL still wants a VAO
    std::vector<IndexRange> m_ranges;
    std::vector<std::uint32_t> m_order;
    std::vector<glm::vec4> m_gather;  ///< a compact pool's (age, seed, frame, spin) rows for the ring
    ParticleSortScratch m_scratch;
};

} // namespace myriad::gl::detail
