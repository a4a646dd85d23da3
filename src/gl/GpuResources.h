#pragma once
// Internal to myriad_gl: the renderer's GPU copies of meshes, textures, samplers and instance
// streams, and the one upload path every per-instance stream goes through.
//
// Lifetime (why nothing is forgotten just for being out of view): a copy lives while what it
// copies lives. Each frame, copies whose mesh, image or node was destroyed are freed; trim()
// frees everything the last frame did not use. A batch culled for minutes keeps its copy and
// its upload cursor, and sends only what changed when it returns.
#include "gl/GlCommon.h"
#include "gl/StagingRing.h"
#include "myriad/core/InstanceStream.h"
#include "myriad/core/InstancedMeshNode.h"
#include "myriad/gl/Buffer.h"
#include "myriad/gl/FrameStats.h"
#include "myriad/gl/Texture.h"
#include "myriad/gl/VertexArray.h"

#include <array>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

namespace myriad::gl::detail {

inline constexpr std::uint32_t kVertexBinding = 0;
inline constexpr std::uint32_t kInstanceBinding = 1;

struct MeshGpu {
    std::weak_ptr<const MeshGeometry> mesh;  // expires with the mesh: the copy goes then
    Buffer vertices;
    Buffer indices;
    VertexArray vertexArray;                 // per-vertex bindings only (MeshNode draws)
    Buffer morphDeltas;                      // 2 RGBA32F texels per (target, vertex)
    TextureHandle morphTargets;              // GL_TEXTURE_BUFFER view of morphDeltas
    std::uint64_t lastUsedFrame = 0;
};

/** One stream of one batch on the GPU. Written only by GPU copies from the staging ring, never
 *  mapped: the GPU may be reading it. */
struct StreamGpu {
    Buffer buffer;
    std::size_t capacity = 0;  ///< rows the buffer holds
    std::uint64_t cursor = 0;  ///< the stream version this copy holds (0: nothing yet)
    TextureHandle texture;     ///< buffer-texture view (StreamBinding::BufferTexture)
};

struct BatchGpu {
    const InstancedMeshNode* node = nullptr;
    std::weak_ptr<const void> alive;  // SceneNode::lifetime(): expires with the node
    std::uint64_t meshId = 0;
    VertexArray vertexArray;          // mesh bindings + the record stream at kInstanceBinding
    std::array<StreamGpu, InstanceStreamId::Count> streams;
    std::uint64_t lastUsedFrame = 0;
};

struct TextureGpu {
    std::weak_ptr<const Image> image;
    Texture2D texture;
    std::uint64_t lastUsedFrame = 0;
};

/** The mesh vertex layout (48-byte interleaved vertices at kVertexBinding) with no instance
 *  bindings: what another instanced layout (scatter) starts from. */
[[nodiscard]] VertexLayoutDesc meshVertexLayout(std::string_view label);

class GpuResources {
public:
    /** @param consumer this renderer's id in the nodes' change logs (non-zero, unique). */
    GpuResources(std::uint64_t consumer, std::size_t stagingBytes);
    ~GpuResources();
    GpuResources(const GpuResources&) = delete;
    GpuResources& operator=(const GpuResources&) = delete;

    void beginFrame(FrameStats& stats) noexcept;
    /** Fences this frame's uploads, then frees copies of destroyed meshes, images and nodes. */
    void endFrame() noexcept;
    /** Frees every copy the last frame did not use. */
    void trim();

    MeshGpu& mesh(const std::shared_ptr<const MeshGeometry>& geometry);
    /** The material's base-colour texture, or null when it has none. */
    const Texture2D* texture(const Material& material);
    /** A sampler object for the material's filtering: bound with the texture, so two materials
     *  sharing one image sample it each their own way. */
    GLuint sampler(const Material& material);
    /** The batch's GPU copy, made or resized as needed, every allocated stream brought up to
     *  date (only rows changed since this renderer's last upload, and only drawn rows). */
    BatchGpu& batch(const InstancedMeshNode& node);
    /** The batch's copy if one exists (no upload). */
    [[nodiscard]] const BatchGpu* findBatch(const InstancedMeshNode& node) const noexcept;
    [[nodiscard]] std::uint64_t stagingWaits() const noexcept { return m_ring.waits(); }
    // particles and scatter (src/gl/ParticlePass.cpp): their uploads share the one ring
    [[nodiscard]] StagingRing& ring() noexcept { return m_ring; }
    [[nodiscard]] FrameStats& stats() noexcept { return *m_stats; }

private:
    MeshGpu createMesh(const std::shared_ptr<const MeshGeometry>& geometry);
    void uploadStream(const InstancedMeshNode& node, const InstanceStream& stream, StreamGpu& gpu);
    void forgetBatch(BatchGpu& batch) noexcept;

    std::uint64_t m_consumer;
    StagingRing m_ring;
    FrameStats* m_stats = nullptr;
    std::uint64_t m_frame = 0;
    std::unordered_map<std::uint64_t, MeshGpu> m_meshes;
    std::unordered_map<std::uint64_t, BatchGpu> m_batches;
    std::unordered_map<const Image*, TextureGpu> m_textures;
    std::array<GLuint, 2> m_samplers{};  // linear, nearest
    std::vector<IndexRange> m_ranges;    // scratch, reused: no per-frame allocation
};

} // namespace myriad::gl::detail
