#pragma once
// Internal to myriad_gl: the table-driven draw path (issue 19, section 3). Opaque and shadow
// draws that need nothing of their own bound (no morph targets, no lanes or morph-weight
// streams, no CPU visible-index list, no LOD chain, one primitive) are drawn from shared buffers: their meshes in
// one vertex and one index buffer (MeshArena), their records in one record buffer
// (RecordArena), their per-draw constants as one row each in one draw table (a buffer texture
// read by the vertex stage), and every group of them that shares a program variant, texture,
// sampler, material textures and face culling as one glMultiDrawElementsIndirect. Everything else keeps its own
// draw call (Renderer::Impl::draw).
//
// How a vertex finds its draw's row with neither gl_DrawID nor gl_BaseInstance (both need
// ARB_shader_draw_parameters, not core in GL 4.5): every record slot of the arena has a
// (row, instance index) pair in a parallel buffer read as a divisor-1 integer attribute; a
// command's base instance is its first record slot, so it selects its first record and its
// first pair alike (GL 4.5 section 10.5: element floor(instance / divisor) + baseinstance).
//
// A node of several primitives: primitive 0 as above; each later primitive has a row of its own
// (its material) and a place in the record arena of the node's length whose records are never
// written, only its (row, instance) pairs: its command's base instance selects those pairs, and
// its variant (kTabled | kIndexed) fetches the records from a buffer-texture view of the whole
// record arena at the row's first record slot (texel 11, the node's place) plus the instance.
//
// A batch culled on the GPU (InstanceCulling::Gpu) is drawn the same way: one cull dispatch per
// view tests every such batch of the view, one invocation per tested instance, each finding its
// batch's CullJob by the jobs' summed counts (GpuCulling::runTabled, shaders/cull.comp) and
// taking the view's planes into the batch's space from its row; it writes the (row, instance) pair of each visible instance into the batch's
// region of a shared pair buffer and counts them into the batch's command in the shared
// command buffer, whose base instance is that region's first pair. Its group's variant
// (kTabled | kIndexed) reads the pairs as the divisor-1 attribute, from a second vertex array,
// and the records from a buffer-texture view of the whole record arena at the row's first
// record slot plus the pair's instance. The CPU sends the commands into a template buffer (only
// when they change); each frame the GPU copies the template over the live commands, which
// resets the culled instance counts to 0 before the dispatches count into them.
//
// A row (kRowTexels texels of four 32-bit floats, 224 bytes), viewed as RGBA32UI and turned back
// into floats with uintBitsToFloat, so every bit arrives as written (a float format may flush
// denormals, and lanes promise exact bits), written only when it changes (compared with the
// CPU copy of the table), so a static scene sends no row after its first frame:
//   0-2  the node's world 3x3 as rows, with the world translation's high float in .w
//   3    the translation's low float (translation - high, in double), 0
//   4    the node's tint
//   5    the material's base colour factor
//   6    (alpha cutoff, 1 if textured else 0, material index, 0)
//   7-10 the four lanes (a MeshNode's shader data; zeros for a batch)
//   11   (the draw's first record slot in the record arena, as uint bits; 0, 0, 0)
//   12   (metallic, roughness, the node's light channels as uint bits, 0)
//   13   (the material's emission * strength, 0)
// The vertex stage makes the translation camera-relative as (high - eye high) + (low - eye
// low), near double precision, the way "relative to eye" rendering does it (Cozzi and Ring,
// 3D Engine Design for Virtual Globes, 2011, section 5.4), so a row does not depend on the view.
#include "renderer/GlLimits.h"
#include "renderer/GpuResources.h"  // MaterialTextures
#include "renderer/GpuCulling.h"  // DrawElementsIndirectCommand
#include "renderer/ViewPass.h"
#include "gl/Bindings.h"  // kDrawRowTexels
#include "gl/GlCommon.h"
#include "myriad/gl/Buffer.h"
#include "myriad/gl/FrameStats.h"
#include "myriad/gl/Texture.h"
#include "myriad/gl/VertexArray.h"

#include <functional>  // std::hash<float>

#include <glm/ext/vector_double3.hpp>
#include <glm/vec3.hpp>
#include <glm/vec4.hpp>

#include <cstdint>
#include <functional>
#include <span>
#include <unordered_map>
#include <vector>

namespace myriad {
struct Material;
} // namespace myriad

namespace myriad::gl::detail {

class GpuResources;
class MaterialTable;

/** A double vector as two floats, high = the nearest float, low = float(value - high): what
 *  rows and the eye hand the vertex stage, which subtracts the halves apart. */
struct SplitVec3 {
    glm::vec3 high{0.0f};
    glm::vec3 low{0.0f};
};
[[nodiscard]] SplitVec3 splitDouble(const glm::dvec3& value) noexcept;
class ShaderLibrary;

/** One multi-draw call: draws that share a program variant, texture, sampler, material textures
 *  (MaterialTextures: the extra textures, their samplers, sets and transforms) and face culling. */
struct TableGroup {
    std::uint32_t features = 0;          ///< the program variant's switches (kTabled | kInstanced | ...)
    const Material* material = nullptr;  ///< the first draw's: its surface function
    const Texture2D* texture = nullptr;  ///< base colour texture, or none
    GLuint sampler = 0;                  ///< its sampler object (0 without a texture)
    MaterialTextures materialTextures{}; ///< the material's extra textures (kMaterialTextures), equal for every draw
    GLenum cullFace = GL_NONE;           ///< GL_BACK, GL_FRONT, or GL_NONE for no face culling
    bool culledPairs = false;            ///< GPU-culled: pairs from the culled pair buffer
    std::uint32_t vertexArena = 0;       ///< the mesh arena (vertex layout) it draws from
    std::uint32_t firstCommand = 0;      ///< into the frame's command buffer
    std::uint32_t commandCount = 0;
    std::uint32_t batches = 0;           ///< commands of InstancedMeshNodes (FrameStats::batches)
    std::uint32_t meshNodes = 0;         ///< commands of MeshNodes
    std::uint64_t instances = 0;
    std::uint64_t triangles = 0;
};

/** One GPU-culled batch of a pass for the job dispatch (std430, 64 bytes; cull.comp's CullJob). */
struct CullJob {
    std::uint32_t row = 0;            ///< its draw-table row
    std::uint32_t recordFirst = 0;    ///< its first tested record's slot in the record arena
    std::uint32_t count = 0;          ///< instances tested
    std::uint32_t command = 0;        ///< its command in the command buffer
    std::uint32_t pairFirst = 0;      ///< its first pair in the pair buffer
    std::uint32_t instanceFirst = 0;  ///< the first tested instance's index in the batch
    std::uint32_t invocationFirst = 0;  ///< the counts of the pass's jobs before it, summed
    std::uint32_t unused = 0;
    glm::vec4 boxMin{0.0f};           ///< the node's mesh box, model space (w unused)
    glm::vec4 boxMax{0.0f};
    friend bool operator==(const CullJob&, const CullJob&) = default;
};
static_assert(sizeof(CullJob) == 64);

/** A command whose instance count the GPU writes (a batch culled on the GPU), for
 *  RendererDesc::gpuCullingCounts. */
struct CulledCommand {
    std::uint32_t command = 0;     ///< into the frame's command buffer
    std::uint64_t triangles = 0;   ///< per instance
    std::uint32_t upperBound = 0;  ///< the instances tested (FrameStats::instances counts these)
};

class DrawTable {
public:
    static constexpr std::uint32_t kRowTexels = kDrawRowTexels;

    /** @param limits the renderer's (outlives this): the table is a buffer texture, so at most
     *  GL_MAX_TEXTURE_BUFFER_SIZE / kRowTexels rows; a draw whose row would be past it keeps
     *  its own draw call. */
    explicit DrawTable(const GlLimits& limits) : m_limits(limits) {}

    /** The feature set a draw item has on the ordinary path (Renderer::Impl::featuresOf). */
    using FeaturesOf = std::function<std::uint32_t(const DrawItem&)>;

    void beginFrame(std::size_t passes);
    /** Places the MeshNodes and meshes of pass @p passIndex's opaque draws that may be tabled in
     *  the arenas. For every pass before any build(): the record arena then has its size for
     *  the frame, which build() checks against GL_MAX_TEXTURE_BUFFER_SIZE for GPU-culled draws.
     *  @throws what GpuResources throws for a placement (bad_alloc, GlError). */
    void place(const ViewPass& pass, GpuResources& resources);
    /** Sorts pass @p passIndex's opaque draws into groups (tabled) and the rest (rest(), in
     *  their order), requests each group's program from @p shaders (without waiting), places
     *  meshes and MeshNodes in the arenas and writes changed rows into the CPU table. After
     *  GpuResources::batch() for every batch of the pass (it decides which live in the arena)
     *  and place() for every pass. A GPU-culled batch drawn here has its GpuCullList::table set
     *  (its command, pair region and row; the buffers follow in upload()).
     *  @throws what GpuResources throws for a placement (bad_alloc, GlError). */
    void build(std::size_t passIndex, const ViewPass& pass, GpuResources& resources, const MaterialTable& materials,
               ShaderLibrary& shaders, const FeaturesOf& featuresOf);
    /** Sends the rows changed this frame and the frame's commands (unless equal to the last
     *  frame's) through the staging ring; the table grows first when it has more rows. With
     *  GPU-culled draws the commands go to the template, copied over the live commands on the
     *  GPU (after the last frame's cull barrier, which has GL_BUFFER_UPDATE_BARRIER_BIT), and the
     *  pair buffer is sized; before GpuCulling::dispatch(). */
    void upload(GpuResources& resources, FrameStats& stats);

    [[nodiscard]] std::span<const TableGroup> groups(std::size_t pass) const noexcept { return m_passes[pass].groups; }
    [[nodiscard]] std::span<const DrawItem* const> rest(std::size_t pass) const noexcept { return m_passes[pass].rest; }
    /** Pass @p pass's commands counted on the GPU. */
    [[nodiscard]] std::span<const CulledCommand> culledCommands(std::size_t pass) const noexcept {
        return m_passes[pass].culled;
    }
    /** The buffer the commands are drawn from (GpuCullingCounts reads culled counts there). */
    [[nodiscard]] GLuint commandBuffer() const noexcept { return m_commandBuffer.id(); }
    /** This frame's GPU culling of table-driven batches, for GpuCulling::dispatch (after upload()). */
    [[nodiscard]] const TabledCulling& tabledCulling() const noexcept { return m_tabledCulling; }

    /** Binds what every group draws from: the first mesh arena's vertex array (each arena's
     *  re-attached if it grew), the command buffer as GL_DRAW_INDIRECT_BUFFER and the table on
     *  kDrawTableUnit. Once per pass before its groups (other draws of the pass rebind the
     *  indirect buffer). */
    void bindForDraws(const GpuResources& resources);
    /** @p group's one glMultiDrawElementsIndirect, counted into @p stats. Its program, texture,
     *  sampler and face culling are the caller's to set (Renderer::Impl); a group of another
     *  mesh arena (vertex layout), or GPU-culled, switches to its vertex array, counted as a
     *  vertex-array bind. */
    void draw(const TableGroup& group, FrameStats& stats);

private:
    struct GroupKey {
        std::uint32_t features = 0;
        std::uint64_t surface = 0;
        GLuint texture = 0;
        GLuint sampler = 0;
        GLenum cullFace = GL_NONE;
        bool culledPairs = false;
        std::uint32_t vertexArena = 0;
        MaterialTextures materialTextures{};
        friend bool operator==(const GroupKey&, const GroupKey&) = default;
    };
    struct GroupKeyHash {
        std::size_t operator()(const GroupKey& key) const noexcept {
            std::uint64_t h = key.features * 0x9E3779B97F4A7C15ull;
            h ^= key.surface + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
            h ^= (std::uint64_t{key.texture} << 32 | key.sampler) + (h << 6) + (h >> 2);
            h ^= (key.cullFace | (key.culledPairs ? 1u << 31 : 0u)) + (h << 6) + (h >> 2);
            h ^= key.vertexArena + (h << 6) + (h >> 2);
            if (key.materialTextures.used) {  // otherwise every field is its default
                for (const GLuint id : key.materialTextures.textureIds) {
                    h ^= id + (h << 6) + (h >> 2);
                }
                // Nodes sharing one lightmap atlas differ only in their island (the transform)
                // or intensity: hashed too, or every lookup would walk one long bucket.
                for (const glm::vec3& row : key.materialTextures.transform) {
                    h ^= std::hash<float>{}(row.x) + 31 * std::hash<float>{}(row.y) + 961 * std::hash<float>{}(row.z) +
                         (h << 6) + (h >> 2);
                }
                h ^= std::hash<float>{}(key.materialTextures.factors.z) + (h << 6) + (h >> 2);
                h ^= static_cast<std::uint64_t>(key.materialTextures.coordinateFlags) + (h << 6) + (h >> 2);
            }
            return static_cast<std::size_t>(h);
        }
    };
    struct PassTable {
        std::vector<TableGroup> groups;
        std::vector<const DrawItem*> rest;
        std::vector<CulledCommand> culled;
    };
    struct Entry {
        std::uint32_t group;
        DrawElementsIndirectCommand command;
        GpuCullList* culled = nullptr;  ///< GPU-culled: its list, told where its command went
        std::uint64_t triangles = 0;
        std::size_t firstSlot = 0;      ///< GPU-culled: the batch's first record slot
    };
    /** Row @p row's texels for this frame, into the CPU table; noted dirty when they changed. */
    void writeRow(std::uint32_t row, const MeshNode& node, const Material& material, std::uint32_t materialIndex,
                  bool textured, bool instanced, std::size_t firstSlot);

    const GlLimits& m_limits;
    std::vector<PassTable> m_passes;
    /** Group keys seen, kept from pass to pass so a steady frame allocates no node: a key's
     *  group is in this pass only when its stamp is the pass's (m_groupStamp). */
    struct GroupSlot {
        std::uint64_t stamp = 0;
        std::uint32_t group = 0;
    };
    std::unordered_map<GroupKey, GroupSlot, GroupKeyHash> m_groupOf;
    std::uint64_t m_groupStamp = 0;
    std::vector<Entry> m_entries;                                        // scratch, per pass
    std::vector<std::uint32_t> m_groupFill;                              // scratch, per pass
    std::vector<std::uint32_t> m_groupOrder;                             // scratch, per pass
    std::vector<TableGroup> m_sortedGroups;                              // scratch, per pass
    std::vector<DrawElementsIndirectCommand> m_commands;      // this frame's, all passes
    std::vector<DrawElementsIndirectCommand> m_sentCommands;  // what the command buffer holds
    std::vector<glm::vec4> m_rows;                 // the CPU table, kRowTexels per row
    std::vector<std::uint64_t> m_rowFrame;         // per row: the frame it was last written
    std::vector<std::uint32_t> m_dirtyRows;        // rows changed this frame
    std::uint64_t m_frame = 0;
    Buffer m_table;                 // the GPU table
    std::size_t m_tableRows = 0;    // rows m_table holds
    TextureHandle m_tableTexture;   // RGBA32UI view of m_table
    Buffer m_commandBuffer;         // what the draws read (and GPU culling counts into)
    Buffer m_commandTemplate;       // with GPU-culled draws: what the CPU sends, copied over it
    std::size_t m_commandCapacity = 0;
    bool m_sentToTemplate = false;  // which of the two m_sentCommands describes
    /** Per mesh arena (one per vertex layout, GpuResources::meshArenas()): the vertex arrays
     *  its groups draw from. */
    struct ArenaArrays {
        VertexArray arrays;            // its vertices and indices, the records, the arena's pairs
        std::uint64_t meshSerial = ~0ull;
        std::uint64_t recordSerial = ~0ull;
        VertexArray culled;            // its vertices and indices, pairs from m_pairBuffer
        std::uint64_t culledMeshSerial = ~0ull;
        GLuint culledPairBuffer = 0;
    };
    std::vector<ArenaArrays> m_arenaArrays;
    /** Which vertex array is bound: (arena, culled); arena ~0u: none of these. */
    std::pair<std::uint32_t, bool> m_bound{~0u, false};
    // GPU-culled draws:
    std::vector<GpuCullList*> m_culledLists;  // this frame's, told the buffers in upload()
    std::vector<CullJob> m_jobs;              // this frame's, all passes (TabledCulling::Pass ranges)
    std::vector<CullJob> m_sentJobs;          // what m_jobBuffer holds
    Buffer m_jobBuffer;
    std::size_t m_jobCapacity = 0;
    TabledCulling m_tabledCulling;
    std::size_t m_pairs = 0;                  // pairs this frame, all passes
    Buffer m_pairBuffer;                      // written by the cull dispatches only
    std::size_t m_pairCapacity = 0;
    TextureHandle m_recordTexture;            // RGBA32F view of the whole record arena
    std::uint64_t m_recordTextureSerial = ~0ull;
    bool m_recordTextureWanted = false;       // a kIndexed group this frame
};

} // namespace myriad::gl::detail
