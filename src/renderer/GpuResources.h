#pragma once
// Internal to myriad_gl: the renderer's GPU copies of meshes, textures, samplers and instance
// streams, and the one upload path every per-instance stream goes through.
//
// Lifetime (why nothing is forgotten just for being out of view): a copy lives while what it
// copies lives. Each frame, copies whose mesh, image or node was destroyed are freed; trim()
// frees everything the last frame did not use. A batch culled for minutes keeps its copy and
// its upload cursor, and sends only what changed when it returns.
#include "gl/Bindings.h"  // kVertexBinding, kInstanceBinding
#include "gl/GlCommon.h"
#include "renderer/GlLimits.h"
#include "renderer/RangeAllocator.h"
#include "gl/StagingRing.h"
#include "myriad/core/InstanceStream.h"
#include "myriad/core/InstancedMeshNode.h"
#include "myriad/gl/Buffer.h"
#include "myriad/gl/FrameStats.h"
#include "myriad/gl/Texture.h"
#include "myriad/gl/VertexArray.h"

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <glm/vec2.hpp>
#include <glm/vec3.hpp>

namespace myriad::gl::detail {


/** Where a mesh sits in the shared vertex and index buffers of the table-driven path
 *  (MeshArena): in arena `arena` (the one of its vertex layout), its vertices from baseVertex,
 *  its indices (widened to 32 bits) from firstIndex. */
struct MeshArenaPlace {
    static constexpr std::size_t npos = RangeAllocator::npos;
    std::uint32_t arena = 0;        ///< index into GpuResources::meshArenas()
    std::size_t baseVertex = npos;  ///< npos: not in the arena (yet)
    std::size_t vertexCount = 0;
    std::size_t firstIndex = npos;
    std::size_t indexCount = 0;
    [[nodiscard]] bool placed() const noexcept { return baseVertex != npos; }
};

struct MeshGpu {
    std::weak_ptr<const MeshGeometry> mesh;  // expires with the mesh: the copy goes then
    Buffer vertices;                         // MeshGeometry::packedVertices(), as vertexLayout() says
    Buffer indices;
    VertexArray vertexArray;                 // per-vertex bindings only (MeshNode draws)
    Buffer morphDeltas;                      // 2 RGBA32F texels per (target, vertex)
    TextureHandle morphTargets;              // GL_TEXTURE_BUFFER view of morphDeltas
    std::uint64_t lastUsedFrame = 0;
    std::uint64_t serial = 0;                // unique per copy: a vertex array made over
                                             // another copy's buffers must be rebuilt
    MeshArenaPlace arena;                    // the table-driven path's copy, made on its first use
};

/** The shared buffers many meshes and batches live in, so that one multi-draw call can draw
 *  several of them (three.js BatchedMesh packs geometries the same way). Each grows by
 *  doubling (a new buffer, the old contents copied on the GPU, `serial` bumped so every
 *  vertex array and view over the old one is re-attached); freed places are reused first fit. */
struct RecordArena {
    /** Records per unit of allocation: 4 records are 256 bytes, the largest buffer-texture and
     *  storage-buffer offset alignment GL allows, so every region can be viewed or bound alone. */
    static constexpr std::size_t kUnit = 4;
    /** Batches of more records keep a buffer of their own (merging them saves nothing, and
     *  growing the arena would copy them). */
    static constexpr std::size_t kMaxRecords = 16384;
    Buffer records;  ///< 64 bytes per slot (InstanceRecord)
    Buffer drawIds;  ///< uvec2 per slot: (the batch's draw-table row, the instance's index in it)
    std::uint64_t serial = 0;
    RangeAllocator slots;  ///< in units of kUnit records
};
/** One per vertex layout in use (MeshGeometry::vertexLayout()): the 48-byte float one, and one
 *  for each packed layout (a quantized glTF file's), so every mesh is copied in as it is stored
 *  and one multi-draw reads one layout. */
struct MeshArena {
    PackedVertexLayout layout;  ///< of every mesh placed here
    Buffer vertices;  ///< interleaved vertices, layout.strideBytes each
    Buffer indices;   ///< 32-bit indices, relative to each mesh's base vertex
    std::uint64_t serial = 0;
    RangeAllocator vertexSlots;  ///< in vertices
    RangeAllocator indexSlots;   ///< in indices
};

/** Primitive 1, 2, ... of a node drawn by the table-driven path: a draw-table row of its own
 *  (its material) and a place in the record arena as long as the node's own, whose records are
 *  never written: only its (row, instance) pairs are read. A command's base instance picks
 *  them; the records come from the node's own place through the arena's buffer texture. */
struct PrimitivePlace {
    std::size_t first = 0;       ///< first record slot
    std::uint32_t tableRow = 0;
};

/** A MeshNode drawn by the table-driven path: one record slot (the identity matrix, white) in the
 *  record arena and a draw-table row, like a batch of one. */
struct NodeSlotGpu {
    std::weak_ptr<const void> alive;  // SceneNode::lifetime()
    std::size_t arenaFirst = RangeAllocator::npos;  ///< its record slot
    std::uint32_t tableRow = 0;
    std::vector<PrimitivePlace> primitivePlaces;  ///< primitives 1.. (PrimitivePlace)
    std::uint64_t lastUsedFrame = 0;
};

/** One stream of one batch on the GPU. Written only by GPU copies from the staging ring, never
 *  mapped: the GPU may be reading it. */
struct StreamGpu {
    Buffer buffer;
    std::size_t capacity = 0;  ///< rows the buffer holds
    std::uint64_t shape = 0;   ///< the InstanceStream::shapeVersion() of its rows (setLaneCount)
    std::uint64_t cursor = 0;  ///< the stream version this copy holds (0: nothing yet)
    std::uint64_t serial = 0;  ///< GpuResources-unique id of `buffer` (GL may reuse a deleted name)
    TextureHandle texture;     ///< buffer-texture view (StreamBinding::BufferTexture)
};

/** The record stream of a batch in UploadMode::Streaming: one persistently mapped buffer of
 *  three parts of `capacity` rows. A frame with a change writes rows [0, count) into the next
 *  part and draws from it; a frame without one draws from the current part again. Every frame
 *  that reads a part (draws, the record texture, GPU culling's storage block) records it in
 *  `readFrame`, and GpuResources::endFrame() fences that frame once for all batches; the next
 *  write into a part first waits for the fence of the last frame that read it. So the GPU never
 *  reads a part while the CPU writes it, however many frames the GPU runs behind, and a part
 *  drawn unchanged for many frames is covered by its latest reader, not its writer. */
struct StreamingRecords {
    static constexpr std::size_t kParts = 3;
    Buffer buffer;
    std::uint64_t serial = 0;  ///< GpuResources-unique id of `buffer` (GL may reuse a deleted name)
    std::size_t capacity = 0;  ///< rows per part
    std::size_t part = 0;      ///< the part drawn from now
    /** Per part: the last frame (GpuResources' frame number) whose commands read it; 0: none. */
    std::array<std::uint64_t, kParts> readFrame{};
    std::uint64_t cursor = 0;  ///< the record-stream version the current part holds
    [[nodiscard]] std::size_t partOffset() const noexcept { return part * capacity * InstancedMeshNode::strideInBytes; }
    /** Rows per part for a batch of @p capacity records: a multiple of 4, so every part starts
     *  256-byte aligned (the largest GL_TEXTURE_BUFFER_OFFSET_ALIGNMENT GL allows; the indexed
     *  path views one part as a buffer texture). */
    [[nodiscard]] static constexpr std::size_t partCapacity(std::size_t capacity) noexcept { return (capacity + 3) / 4 * 4; }
};

/** A batch's records as its previous frame drew them (motion vectors, View::velocity;
 *  docs/visibility.md, "Motion vectors"): capacity rows of 64 bytes, written only by GPU copies
 *  (glCopyNamedBufferSubData, no shader writes: no barrier), read through an RGBA32F
 *  buffer-texture view on kPreviousRecordUnit by the kVelocity variants. */
struct PreviousRecords {
    Buffer buffer;
    TextureHandle texture;
    std::size_t capacity = 0;     ///< rows
    std::uint64_t frame = 0;      ///< the draw frame (FrameStats::frame) whose previous rows it holds
    std::uint64_t moveCursor = 0; ///< the MoveLog version applied
    /** Where the frame `frame` drew its records, for the next frame to copy: a streaming
     *  batch's part (its rows stay there while the next frame writes the next part). */
    std::uint64_t drawnSerial = 0;
    std::size_t drawnOffset = 0;
    std::size_t drawnCount = 0;  ///< rows the frame `frame` drew
};
struct BatchGpu {
    const InstancedMeshNode* node = nullptr;
    std::unique_ptr<PreviousRecords> previous;  ///< motion vectors: made by the first velocity frame
    std::weak_ptr<const void> alive;  // SceneNode::lifetime(): expires with the node
    std::vector<std::uint64_t> meshIds;     // per primitive: the mesh its vertex array binds
    std::vector<VertexArray> vertexArrays;  // per primitive: its mesh + the shared record stream
    /** Per primitive: the record buffer and offset its vertex array reads (rebound only when
     *  they change: growth, or the streaming buffer's next third). */
    std::vector<std::pair<std::uint64_t, std::size_t>> recordBindings;  ///< (buffer serial, offset)
    std::uint64_t preparedFrame = 0;  ///< the frame batch() last brought it up to date
    std::array<StreamGpu, InstanceStreamId::Count> streams;
    std::unique_ptr<StreamingRecords> streaming;  ///< UploadMode::Streaming (or chosen by Automatic)
    int denseUploads = 0;  ///< staged uploads in a row that changed at least half the rows (Automatic)
    std::uint64_t lastUsedFrame = 0;
    TextureHandle recordTexture;  ///< RGBA32F view of the records (bindRecordTexture()); 0 until used
    /** A staged batch of at most RecordArena::kMaxRecords records keeps them in the shared record
     *  arena, from record slot arenaFirst (a multiple of RecordArena::kUnit) for arenaRows slots,
     *  with draw-table row tableRow; npos: in streams[Record].buffer (or streaming). */
    const RecordArena* arena = nullptr;
    std::size_t arenaFirst = RangeAllocator::npos;
    std::size_t arenaRows = 0;
    std::uint32_t tableRow = 0;
    std::vector<PrimitivePlace> primitivePlaces;  ///< in the arena: primitives 1.. (PrimitivePlace)
    [[nodiscard]] bool inArena() const noexcept { return arenaFirst != RangeAllocator::npos; }
    /** What recordTexture views: (buffer serial, offset, bytes); all ones: nothing attached yet. */
    std::array<std::uint64_t, 3> recordTextureSource{~0ull, ~0ull, ~0ull};

    /** Where this frame's records are: the streaming buffer's current part (UploadMode::Streaming,
     *  offset a multiple of 256 bytes, the largest offset alignment GL allows for buffer
     *  textures and storage buffers) or the staged record buffer (offset 0). Every reader
     *  that is not the divisor-1 attributes (the indexed path's record texture, GPU culling's
     *  storage block) must read through this, or it draws the staged copy's stale rows. */
    struct RecordSource {
        GLuint buffer = 0;
        std::size_t offset = 0;  ///< bytes
        std::size_t bytes = 0;   ///< capacity * 64
    };
    /** The buffer recordSource() names. */
    [[nodiscard]] const Buffer& recordBuffer() const noexcept {
        return streaming ? streaming->buffer : inArena() ? arena->records : streams[InstanceStreamId::Record].buffer;
    }
    /** GpuResources-unique id of the buffer recordSource() names (GL may reuse a deleted name). */
    [[nodiscard]] std::uint64_t recordSerial() const noexcept {
        return streaming ? streaming->serial : inArena() ? arena->serial : streams[InstanceStreamId::Record].serial;
    }
    [[nodiscard]] RecordSource recordSource() const noexcept {
        if (streaming) {
            return {streaming->buffer.id(), streaming->partOffset(),
                    streaming->capacity * InstancedMeshNode::strideInBytes};
        }
        if (inArena()) {
            return {arena->records.id(), arenaFirst * InstancedMeshNode::strideInBytes,
                    arenaRows * InstancedMeshNode::strideInBytes};
        }
        const Buffer& records = streams[InstanceStreamId::Record].buffer;
        return {records.id(), 0, static_cast<std::size_t>(records.sizeBytes())};
    }
};

/** A skinned node's joint palette (MeshNode::skinMatrices()): three RGBA32F texels per joint,
 *  the rows of its 3x4 matrix, re-sent through the staging ring when the pose changes. */
struct SkinGpu {
    std::weak_ptr<const void> alive;  // SceneNode::lifetime()
    Buffer palette;
    TextureHandle texture;            ///< buffer-texture view of palette (kSkinUnit)
    std::size_t joints = 0;           ///< joints palette holds
    std::uint64_t poseVersion = 0;    ///< the MeshNode::poseVersion() it holds
    std::uint64_t lastUsedFrame = 0;
};

/** A baked AnimationSet (AnimationSet::rows()): immutable, uploaded once when first drawn. */
struct AnimationSetGpu {
    std::weak_ptr<const AnimationSet> set;  // expires with the set
    Buffer rows;
    TextureHandle texture;  ///< buffer-texture view of rows (kSkinUnit)
    std::uint64_t lastUsedFrame = 0;
};

struct TextureGpu {
    std::weak_ptr<const Image> image;
    Texture2D texture;
    bool mipmapped = false;  ///< a full mip chain (some material drawn with it asked for one)
    std::uint64_t lastUsedFrame = 0;
};

/** A material's extra textures as a draw binds them (MYRIAD_MATERIAL_TEXTURES; docs/lighting.md,
 *  "Material textures" and "Lightmaps"): slot 0 is the base colour (bound as before), slots 1-5
 *  the metallic-roughness, normal, occlusion, emissive and lightmap textures on
 *  kMetallicRoughnessUnit .. kEmissiveUnit and kLightmapUnit. Equal values draw alike, so the
 *  table path groups draws by it. */
struct MaterialTextures {
    bool used = false;                       ///< the material has any (Material::hasMaterialTextures())
    std::array<const Texture2D*, 5> textures{};  ///< slots 1-5; null where unset
    std::array<GLuint, 5> textureIds{};      ///< their GL names (0 where unset)
    std::array<GLuint, 5> samplers{};        ///< their sampler objects (0 where unset)
    int slotMask = 0;                        ///< bit k (1..5): slot k has a texture (u_textureSlots.x)
    int uv1Mask = 0;                         ///< bit k (0..5): slot k reads uv1 (u_textureSlots.y)
    /** u_textureSlots.z: kLightmapFromVertexColor, kMeshHasUv1. */
    int coordinateFlags = 0;
    /** The lightmap's coordinates are the vertex colour's red and green
     *  (LightmapCoordinates::VertexColor), and the vertex colour does not tint. */
    static constexpr int kLightmapFromVertexColor = 1;
    /** The drawn mesh has uv1 (MeshData::uv1): without it the shader reads (0, 0), never the
     *  context's current value of the disabled attribute. */
    static constexpr int kMeshHasUv1 = 2;
    /** Per slot, the two rows of its KHR_texture_transform: uv' = (dot(row0, (uv, 1)),
     *  dot(row1, (uv, 1))) (u_textureTransform). */
    std::array<glm::vec3, 12> transform{glm::vec3(1, 0, 0), glm::vec3(0, 1, 0), glm::vec3(1, 0, 0), glm::vec3(0, 1, 0),
                                         glm::vec3(1, 0, 0), glm::vec3(0, 1, 0), glm::vec3(1, 0, 0), glm::vec3(0, 1, 0),
                                         glm::vec3(1, 0, 0), glm::vec3(0, 1, 0), glm::vec3(1, 0, 0), glm::vec3(0, 1, 0)};
    /** Normal scale, occlusion strength, lightmap intensity (u_textureFactors). */
    glm::vec3 factors{1.0f, 1.0f, 1.0f};
    /** Equal when every field but the texture pointers is (their ids stand for them). */
    friend bool operator==(const MaterialTextures& a, const MaterialTextures& b) {
        return a.used == b.used && a.textureIds == b.textureIds && a.samplers == b.samplers &&
               a.slotMask == b.slotMask && a.uv1Mask == b.uv1Mask && a.coordinateFlags == b.coordinateFlags &&
               a.transform == b.transform && a.factors == b.factors;
    }
};

/** Binds on @p unit an RGBA32F buffer-texture view of @p gpu's records of this frame
 *  (BatchGpu::recordSource()), for the readers that are not the divisor-1 attributes: the
 *  indexed path (culling, sorting, LOD) and GPU-culled draws. One view per batch, made on first
 *  use and re-attached only when the records move (growth, the streaming buffer's next third,
 *  a buffer made again after trim()), compared by serial since GL reuses deleted names;
 *  detached, reading zeros, while nothing is uploaded. */
void bindRecordTexture(BatchGpu& gpu, GLuint unit);

/** A vertex array over @p mesh's vertices and indices with the record stream's attributes at
 *  kInstanceBinding (no buffer there yet): a batch's layout, for populations whose records
 *  live in a named buffer. */
[[nodiscard]] VertexArray instancedVertexArray(const MeshGpu& mesh, const MeshGeometry& geometry,
                                               std::string_view label);
/** The vertex layout @p vertex describes plus the record stream's four divisor-1 attributes at
 *  kInstanceBinding (no buffers): a batch's layout, which the table-driven path extends (with
 *  each mesh arena's layout). */
[[nodiscard]] VertexLayoutDesc instancedVertexLayout(const PackedVertexLayout& vertex, std::string_view label);
/** The vertex layout @p vertex describes (interleaved vertices at kVertexBinding) with no
 *  instance bindings: what another instanced layout (scatter) starts from. */
[[nodiscard]] VertexLayoutDesc meshVertexLayout(const PackedVertexLayout& vertex, std::string_view label);

class GpuResources {
public:
    /** @param consumer this renderer's id in the nodes' change logs (non-zero, unique).
     *  @param stagingBytes, maxStagingBytes the upload ring's starting size and bound
     *  (RendererDesc).
     *  @param limits the renderer's (outlives this). */
    GpuResources(std::uint64_t consumer, std::size_t stagingBytes, std::size_t maxStagingBytes, const GlLimits& limits);
    ~GpuResources();
    GpuResources(const GpuResources&) = delete;
    GpuResources& operator=(const GpuResources&) = delete;

    void beginFrame(FrameStats& stats) noexcept;
    /** Adds the staging ring's copy waits of this frame so far to FrameStats::gpuWaitMs (the
     *  streaming parts' waits are added as they happen). Call once, after the frame's uploads. */
    void countRingWaits() noexcept { m_stats->gpuWaitMs += m_ring.copyWaitMs() - m_ringWaitMsBefore; m_ringWaitMsBefore = m_ring.copyWaitMs(); }
    /** Fences this frame's staging copies (StagingRing::endFrame, which may grow the ring)
     *  and, with one fence, every streaming part this frame read; then frees copies of
     *  destroyed meshes, images and nodes. */
    void endFrame() noexcept;
    /** Frees every copy the last frame did not use, and shrinks the staging ring back to its
     *  starting size (StagingRing::shrink). */
    void trim();

    MeshGpu& mesh(const std::shared_ptr<const MeshGeometry>& geometry);
    /** The material's base-colour texture, or null when it has none. One copy per image, with
     *  a mip chain once any material asking for it has a mipmap filter (Material::sampling()):
     *  a one-level copy is then made again with every level, and stays so. */
    const Texture2D* texture(const Material& material);
    /** A sampler object for the material's Material::sampling() (filters and wrap modes) and
     *  anisotropy (clamped to GlLimits::maxTextureAnisotropy; 1 unless the sampling is linear
     *  at both scales): bound with the texture, so two materials sharing one image sample it
     *  each their own way. Materials with equal sampling and anisotropy share one; each is made
     *  on first use and kept while the renderer lives. */
    GLuint sampler(const Material& material);
    /** A sampler object for @p sampling with @p maxAnisotropy clamped as Material::maxAnisotropy
     *  says (shared as above). */
    GLuint sampler(const TextureSampler& sampling, float maxAnisotropy);
    /** The material's extra textures as drawn on @p mesh (uploaded on first use: the emissive
     *  one and the lightmap sRGB, the others linear; a mip chain as for texture()), their
     *  samplers, per-slot coordinates and whether @p mesh has uv1; used false (nothing else
     *  set) when Material::hasMaterialTextures() is false. */
    MaterialTextures materialTextures(const Material& material, const MeshGeometry& mesh);
    /** The batch's GPU copy, made or resized as needed, every allocated stream brought up to
     *  date (only rows changed since this renderer's last upload, and only drawn rows). Its
     *  vertex arrays are not: call syncVertexArrays() before drawing with them.
     *  @throws CapacityError (nothing made) when a side stream read as a buffer texture needs
     *  more texels than GL_MAX_TEXTURE_BUFFER_SIZE. */
    BatchGpu& batch(const InstancedMeshNode& node);
    /** Before the frame's culling: writes this frame's part of every streaming batch drawn
     *  last frame whose records changed and whose bounds or mirrored count are stale, through
     *  the pass that derives them (InstancedMeshNode::copyDrawnRecords), so culling reads
     *  current bounds without a pass of its own. batch() then finds the part written. */
    void streamAhead();
    /** Motion vectors: batches brought up to date from here on keep their previous records
     *  for draw frame @p frame (FrameStats::frame; 0: none kept this frame). */
    void setVelocityFrame(std::uint64_t frame) noexcept { m_velocityFrame = frame; }
    /** Binds @p batch's previous records on @p unit (kVelocity draws); batch() made them. */
    static void bindPreviousRecords(const BatchGpu& batch, GLuint unit) noexcept;
    /** The batch's copy if one exists (no upload). */
    [[nodiscard]] const BatchGpu* findBatch(const InstancedMeshNode& node) const noexcept;
    /** The same, for drawing what batch() prepared this frame (no upload, no GL call). */
    [[nodiscard]] BatchGpu* findBatch(const InstancedMeshNode& node) noexcept;
    /** Re-attaches each primitive's vertex array to where the records are now (the arena may
     *  have grown since batch() ran this frame): call before drawing from them. */
    void syncVertexArrays(BatchGpu& batch);
    /** Records that commands issued this frame read @p batch's records where recordSource()
     *  points (for a streaming batch, its current part), so endFrame() fences them and the next
     *  write into that part waits for the fence. batch() calls it for the draws; any other
     *  reader of a batch not brought up to date this frame (GPU culling) calls it itself. */
    void noteRecordsRead(BatchGpu& batch) noexcept;
    [[nodiscard]] std::uint64_t stagingWaits() const noexcept { return m_ring.waits(); }

    // ---- skinning (docs/skinning.md) ---------------------------------------------------------
    /** @p node's joint palette, made on first use, its matrices re-sent through the ring when
     *  MeshNode::poseVersion() differs from the copy's (a still pose sends nothing).
     *  @throws CapacityError when the palette needs more texels than GL_MAX_TEXTURE_BUFFER_SIZE. */
    SkinGpu& skinPalette(const MeshNode& node);
    /** @p set's animation texture, made and filled on first use (immutable storage with its
     *  data: nothing is written into it afterwards, so no fence is involved).
     *  @throws CapacityError naming @p node when the set needs more texels than
     *  GL_MAX_TEXTURE_BUFFER_SIZE. */
    AnimationSetGpu& animationSet(const std::shared_ptr<const AnimationSet>& set, const SceneNode& node);

    // ---- the table-driven draw path's shared buffers (renderer/DrawTable.h) ----------------
    /** @p geometry's copy with its place in the mesh arena of its vertex layout (made on first
     *  use of that layout), placed there on first use: its vertices copied on the GPU from its
     *  own buffer, its indices widened to 32 bits and sent through the ring. */
    MeshGpu& meshInArena(const std::shared_ptr<const MeshGeometry>& geometry);
    /** @p node's record slot and draw-table row (a MeshNode drawn as a batch of one), made on
     *  first use. */
    NodeSlotGpu& nodeSlot(const MeshNode& node);
    [[nodiscard]] const RecordArena& recordArena() const noexcept { return m_recordArena; }
    /** One mesh arena per vertex layout in use, in the order first used; a deque, so a reference
     *  stays valid as arenas are added. MeshArenaPlace::arena indexes it. */
    [[nodiscard]] const std::deque<MeshArena>& meshArenas() const noexcept { return m_meshArenas; }
    /** This renderer's frame number (counts beginFrame() calls): what a streaming part
     *  records as its last reader (noteStreamingRead). */
    [[nodiscard]] std::uint64_t frameNumber() const noexcept { return m_frame; }
    /** Commands issued this frame read a streaming part another pass owns (a particle pool's
     *  third, a sort order's): endFrame() fences the frame, as for a batch's part. */
    void noteStreamingRead() noexcept { m_streamingReadThisFrame = true; }
    /** Before writing a streaming part another pass owns: waits until every command of frame
     *  @p readFrame (the part's last reader, from frameNumber(); 0: none) has completed.
     *  @return true when it had to wait (counted in streamingWaits()). */
    bool waitForStreamingPart(std::uint64_t readFrame) {
        const bool waited = waitForFrame(readFrame);
        m_streamingWaits += waited ? 1 : 0;
        return waited;
    }
    /** How many times a streaming batch had to wait for the GPU before writing a part. */
    [[nodiscard]] std::uint64_t streamingWaits() const noexcept { return m_streamingWaits; }
    // particles and scatter (src/renderer/ParticlePass.cpp): their uploads share the one ring
    [[nodiscard]] StagingRing& ring() noexcept { return m_ring; }
    [[nodiscard]] FrameStats& stats() noexcept { return *m_stats; }

private:
    /** @p image's GPU copy in the sRGB (@p srgb) or linear encoding, made on first use, with a
     *  mip chain once asked for one (see texture()); null for a null image. */
    const Texture2D* imageTexture(const std::shared_ptr<const Image>& image, bool srgb, bool mipmaps,
                                  std::string_view slot, const std::string& materialName);
    /** A sampler object with @p sampling's filters and wrap modes and @p anisotropy when above
     *  1, labelled after them. */
    GLuint makeSampler(const TextureSampler& sampling, float anisotropy);
    MeshGpu createMesh(const std::shared_ptr<const MeshGeometry>& geometry);
    /** @return rows sent. */
    std::size_t uploadStream(const InstancedMeshNode& node, const InstanceStream& stream, StreamGpu& gpu);
    void uploadStreaming(const InstancedMeshNode& node, BatchGpu& batch);
    /** Before the records' upload: the previous frame's rows into @p batch's previous
     *  records, following the batch's MoveLog. @return true when rows must be set to the
     *  current ones after the upload (finishPrevious). */
    bool beginPrevious(const InstancedMeshNode& node, BatchGpu& batch);
    /** After the upload: rows new since the last frame (or all, on a first frame) copied from
     *  the current records; the drawn part remembered. */
    void finishPrevious(const InstancedMeshNode& node, BatchGpu& batch, bool all);
    void forgetBatch(BatchGpu& batch) noexcept;
    void releaseNodeSlot(NodeSlotGpu& slot) noexcept;
    void releaseMeshPlace(MeshGpu& mesh) noexcept;
    /** A place in the record arena and a draw-table row: first record slot, row. */
    struct ArenaPlace {
        std::size_t first;
        std::uint32_t tableRow;
    };
    /** A draw-table row and a place of @p rows record slots for it (placeRecords); on a throw,
     *  neither is taken. */
    ArenaPlace placeInArena(std::size_t rows);
    /** A region of @p rows record slots (rounded up to RecordArena::kUnit), the arena grown
     *  when full; its draw-id pairs (@p tableRow, 0..rows-1) written through the ring. */
    std::size_t placeRecords(std::size_t rows, std::uint32_t tableRow);
    /** Gives back a place of placeInArena() and its row. */
    void releasePlace(std::size_t first, std::size_t rows, std::uint32_t tableRow) noexcept;
    /** Makes @p places one per primitive after the first of @p primitives, each of @p rows
     *  slots (placeInArena), or gives back those past it. On a throw the places made so far
     *  stay (each is whole). */
    void placePrimitives(std::vector<PrimitivePlace>& places, std::size_t primitives, std::size_t rows);
    void releasePrimitives(std::vector<PrimitivePlace>& places, std::size_t rows) noexcept;
    std::uint32_t takeTableRow();
    /** The record stream of a batch in the arena: the rows changed since its cursor, into its
     *  place. @return rows sent. */
    std::size_t uploadToArena(const InstancedMeshNode& node, const InstanceStream& stream, BatchGpu& batch);
    void releaseArena(BatchGpu& batch) noexcept;
    /** Sends the rows of @p stream changed since @p cursor (all with @p full), clipped to the
     *  drawn rows, into @p buffer from byte @p baseOffset. @return rows sent. */
    std::size_t sendChangedRows(const InstancedMeshNode& node, const InstanceStream& stream, std::uint64_t cursor,
                                bool full, GLuint buffer, std::size_t baseOffset);
    /** Waits until every command of frame @p frame has completed (its fence, or a later one,
     *  signalled). @return true when it had to wait. */
    bool waitForFrame(std::uint64_t frame);
    /** Fences the commands issued so far in this frame: @p wholeFrame at its end (endFrame),
     *  false for one issued in the middle (a wait for this frame's own reads). */
    void fenceFrame(bool wholeFrame) noexcept;

    /** One fence per frame that read a streaming part, oldest first, covering every command of
     *  its frame. Only a write asks about one (no polls per frame); at most kMaxFrameFences
     *  stay: beyond it the oldest is dropped unwaited, and a wait for its frame uses the next
     *  newer fence (later fences signal later). */
    struct FrameFence {
        std::uint64_t frame;
        GLsync sync;
        bool wholeFrame;  ///< issued at the frame's end; false: in its middle, covering only what came before
    };
    static constexpr std::size_t kMaxFrameFences = 8;

    std::uint64_t m_consumer;
    const GlLimits& m_limits;
    StagingRing m_ring;
    FrameStats* m_stats = nullptr;
    std::uint64_t m_frame = 0;
    std::uint64_t m_meshSerial = 0;
    std::unordered_map<std::uint64_t, MeshGpu> m_meshes;
    std::unordered_map<std::uint64_t, BatchGpu> m_batches;
    std::unordered_map<const Image*, TextureGpu> m_textures;        // sRGB copies
    std::unordered_map<const Image*, TextureGpu> m_linearTextures;  // linear copies (data: normals, ...)
    /** What a sampler object is made for: a sampling and its clamped anisotropy. */
    struct SamplerKey {
        TextureSampler sampling;
        float anisotropy = 1.0f;
        friend bool operator==(const SamplerKey&, const SamplerKey&) = default;
    };
    /** Every sampler object made, by key; few (one per distinct sampling in use), so searched
     *  in order. The first two, made with the renderer: the default and the nearest sampling. */
    std::vector<std::pair<SamplerKey, GLuint>> m_samplers;
    std::vector<IndexRange> m_ranges;
    std::uint64_t m_bufferSerial = 0;  ///< last serial given to a stream buffer    // scratch, reused: no per-frame allocation
    std::vector<std::uint64_t> m_streamingIds;  // batches that have a streaming buffer (streamAhead)
    std::deque<FrameFence> m_frameFences;
    std::uint64_t m_completedFrame = 0;  ///< every command of frames up to this one has completed
    bool m_streamingReadThisFrame = false;  ///< a streaming part was read: endFrame() fences the frame
    std::uint64_t m_streamingWaits = 0;
    std::uint64_t m_velocityFrame = 0;   ///< setVelocityFrame()
    std::vector<MoveLog::Entry> m_scratchMoves;                  // beginPrevious
    std::vector<std::pair<std::size_t, std::size_t>> m_scratchNewRows;  // rows to copy after the upload: [begin, end)
    double m_ringWaitMsBefore = 0.0;  ///< StagingRing::copyWaitMs() at beginFrame()
    RecordArena m_recordArena;
    std::deque<MeshArena> m_meshArenas;
    std::unordered_map<std::uint64_t, NodeSlotGpu> m_nodeSlots;
    std::unordered_map<std::uint64_t, SkinGpu> m_skins;                ///< by SceneNode::id()
    std::unordered_map<std::uint64_t, AnimationSetGpu> m_animationSets;  ///< by AnimationSet::id()
    std::vector<glm::vec4> m_scratchPalette;  // skinPalette: rows of the matrices
    /** Copies used this frame (first use each): endFrame() looks for destroyed ones only when
     *  some copy went unused. */
    struct UsedThisFrame {
        std::size_t batches = 0;
        std::size_t nodeSlots = 0;
        std::size_t meshes = 0;
    } m_used;
    std::vector<std::uint32_t> m_freeTableRows;
    std::vector<std::uint32_t> m_scratchPairs;    // placeRecords: a place's (row, instance) pairs
    std::vector<std::uint32_t> m_scratchIndices;  // meshInArena: 16-bit indices widened
    std::uint32_t m_nextTableRow = 0;
};

} // namespace myriad::gl::detail
