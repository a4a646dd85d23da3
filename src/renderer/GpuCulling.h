#pragma once
// Internal to myriad_gl: per-instance frustum culling on the GPU (InstanceCulling::Gpu, see
// docs/visibility.md). Per (view pass, batch) a compute dispatch (shaders/cull.comp) tests each
// drawn instance's node-space bounding sphere, computed from its record, against the view's
// planes, writes the record indices of the visible ones into a list the MYRIAD_INDEXED surface
// variant reads (R32UI buffer texture on kVisibleIndexUnit, as the CPU path's), and counts them
// into a DrawElementsIndirectCommand per primitive. The draw is glDrawElementsIndirect: the
// visible count never comes back to the CPU.
// A batch with a LOD chain also gets each visible instance's level there (selectLodLevel()'s
// rule, against the level held last frame in a per-(view pass, batch) GPU buffer), one list slot
// and command per level, and one indirect draw per level with that level's mesh.
// A batch the table-driven path draws (GpuCullList::table) has no dispatch, list or commands of
// its own: it is a job of its view's one dispatch (runTabled, TabledCulling), which counts into
// its command of the shared multi-draw.
//
// The frame: ViewPass::build() calls select() (no GL), Renderer::render() calls dispatch() once
// after prepare() (every upload done) and before the first draw, so a frame is all culling
// dispatches, one barrier, then the draws, which call bind() and draw().
#include "gl/GlCommon.h"
#include "renderer/GlLimits.h"
#include "renderer/GlState.h"
#include "myriad/core/InstanceCulling.h"
#include "myriad/core/Lod.h"
#include "myriad/gl/Buffer.h"
#include "myriad/gl/FrameStats.h"
#include "myriad/gl/Program.h"
#include "myriad/gl/View.h"

#include <glm/mat4x4.hpp>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <unordered_map>
#include <vector>

namespace myriad {
class InstancedMeshNode;
class MeshGeometry;
} // namespace myriad

namespace myriad::gl {
class VertexArray;
}

namespace myriad::gl::detail {

class GpuResources;
struct BatchGpu;
struct DepthPyramidLevels;
struct DrawItem;
struct ViewCamera;

// The cull dispatch's storage bindings (records, per-instance morph weights, the visible-index
// list, the indirect commands, the held LOD levels) are gl/Bindings.h's kCull*Binding; binding
// 0 stays the material table's. Part of the GL state contract (docs/gl-state.md).

// Level slots a list and its command buffer have: one for a batch without a LOD chain, one per
// level (up to kMaxLodLevels) for a batch with one. Slot s's list starts at s * capacity, its
// commands at s * primitives, and its draw sets u_baseInstance = s * capacity (the commands'
// baseInstance stays 0: the kIndexed variant reads the list at gl_InstanceID + u_baseInstance,
// as GL 4.5 has no gl_BaseInstance without ARB_shader_draw_parameters; one
// glMultiDrawElementsIndirect over several slots would need that extension).

/** GL's DrawElementsIndirectCommand (OpenGL 4.5 section 10.4), 20 bytes. */
struct DrawElementsIndirectCommand {
    std::uint32_t count = 0;
    std::uint32_t instanceCount = 0;
    std::uint32_t firstIndex = 0;
    std::int32_t baseVertex = 0;
    std::uint32_t baseInstance = 0;
};
static_assert(sizeof(DrawElementsIndirectCommand) == 20);

/** One (view pass, batch)'s GPU-written visible-index list and its indirect commands. */
struct GpuCullList {
    Buffer indices;            ///< slots * capacity uints, written only by the GPU
    TextureHandle texture;     ///< R32UI view of indices
    /** slots * primitives commands, then one more whose count and instanceCount the
     *  occlusion phase 2 counts its frustum- and occlusion-culled instances into
     *  (countersCommand()); reset by the CPU each frame. */
    Buffer commands;
    std::size_t capacity = 0;  ///< indices per level slot (set by select(), no GL)
    std::size_t primitives = 0;
    std::size_t slots = 0;            ///< level slots allocated in indices and commands
    std::size_t allocatedCapacity = 0;  ///< capacity indices was allocated with
    /** LOD batches: per record, the level drawn last frame in this view (uint, kNoLodLevel
     *  for none; the GPU reads and rewrites it), heldCapacity records. Starts at kNoLodLevel;
     *  growth keeps what was held, as the CPU path's bytes. */
    Buffer heldLevels;
    std::size_t heldCapacity = 0;
    std::size_t lodLevels = 0;  ///< this frame's chain length; 0: no chain, one slot
    /** Occlusion culling in two phases (View::occlusionCulling with a depth texture, no LOD
     *  chain, every primitive opaque): two slots, slot 0 drawn with the view's opaque draws
     *  (what was visible last frame), slot 1 after the pyramid (what became visible). The
     *  history words (heldLevels) then hold bit 31 "visible last frame", starting at 0. */
    bool occlusion = false;
    bool historyForOcclusion = false;  ///< what heldLevels was made for (starts differ)
    std::size_t pass = 0;              ///< the view pass that queued it this frame
    glm::mat4 clipFromNode{1.0f};      ///< occlusion: the view-projection from node space, camera-relative
    glm::vec4 batchSphere{0.0f};       ///< occlusion: the batch's sphere, camera-relative world space
    std::weak_ptr<const void> alive;  ///< the batch's lifetime
    std::uint64_t lastUsedFrame = 0;
    // This frame's work, from select():
    const InstancedMeshNode* node = nullptr;
    FrustumPlanes planes{};    ///< node space, camera-relative
    IndexRange range{};        ///< the drawn instances tested
    glm::vec3 originFromEye{0.0f};  ///< LOD: the node's world translation minus the eye
    LodProjection lodProjection{};  ///< LOD: the view's (ViewCamera::lodProjection)
    /** The table-driven path draws this (pass, batch) (DrawTable::build sets it each frame,
     *  select() clears it): the pass's one job dispatch (TabledCulling) then counts it into
     *  command @c command of the table's shared command buffer and writes its
     *  (draw-table row, instance) pairs from pair @c pairFirst of the shared pair buffer, which
     *  the multi-draw reads as a divisor-1 attribute; the list's own buffers are neither made
     *  nor written, and it has no dispatch of its own. */
    struct TableTarget {
        bool active = false;
        std::uint32_t row = 0;        ///< the batch's draw-table row
        std::uint32_t command = 0;    ///< in commandBuffer
        std::uint32_t pairFirst = 0;  ///< in pairBuffer, 8 bytes a pair
        GLuint commandBuffer = 0;     ///< set by DrawTable::upload
        GLuint pairBuffer = 0;        ///< set by DrawTable::upload
    } table;
};

/** The table-driven path's GPU culling in a frame (DrawTable::tabledCulling()): per pass, one
 *  dispatch over its jobs (DrawTable.h, CullJob), one invocation per tested instance. */
struct TabledCulling {
    struct Pass {
        std::uint32_t firstJob = 0;
        std::uint32_t jobs = 0;
        std::uint32_t invocations = 0;  ///< the instances its jobs test, summed
        FrustumPlanes planes{};      ///< the view's, camera-relative
        glm::vec3 eyeHigh{0.0f};     ///< the eye as high + low floats (DrawTable's splitDouble)
        glm::vec3 eyeLow{0.0f};
    };
    GLuint jobs = 0;       ///< the job buffer
    GLuint records = 0;    ///< the record arena, bound whole
    GLuint pairs = 0;      ///< the shared pair buffer
    GLuint commands = 0;   ///< the live command buffer
    std::size_t commandBytes = 0;  ///< its size
    GLuint drawTable = 0;  ///< the draw table's buffer texture (rows: matrix, translation)
    std::vector<Pass> passes;  ///< passes with jobs
};

class GpuCulling {
public:
    /** True when @p batch is culled on the GPU in a pass: InstanceCulling::Gpu, unless it is a
     *  blended batch sorted back to front (sorting needs the list on the CPU: that batch takes
     *  the CPU path, culled there). */
    [[nodiscard]] static bool wants(const InstancedMeshNode& batch, bool blended) noexcept;
    /** The culling program's one stage (cull.comp, no switches), as it is compiled; no GL.
     *  tests/shaders/ checks it with glslangValidator. */
    [[nodiscard]] static ShaderSource programSource();

    /** @param limits the renderer's (outlives this): list, storage-block and work-group sizes. */
    explicit GpuCulling(const GlLimits& limits) noexcept : m_limits(limits) {}

    void beginFrame() noexcept;
    /** Frees lists of destroyed batches, and those unused for kKeepFrames frames. */
    void endFrame() noexcept;
    /** Frees everything the last frame did not use (the program stays). */
    void trim() noexcept;

    /** Queues (@p pass, @p batch) for this frame's dispatch with @p planes (camera-relative
     *  world space) and points @p item at its list (first instance 0; instanceCount the tested
     *  count, an upper bound: the drawn count stays on the GPU). Counts the tested instances
     *  into @p stats. A batch with a LOD chain gets one slot per level: the caller makes one
     *  item per level, first instance level * capacity (levelSlotFirst()). No GL. */
    void select(std::size_t pass, const InstancedMeshNode& batch, const FrustumPlanes& planes,
                const ViewCamera& camera, DrawItem& item, FrameStats& stats, bool occlusion = false);

    /** Level slots of @p list: 2 with occlusion culling, else one per LOD level (at least 1). */
    [[nodiscard]] static std::size_t slotsOf(const GpuCullList& list) noexcept {
        return list.occlusion ? 2 : std::max<std::size_t>(list.lodLevels, 1);
    }
    /** True when pass @p pass queued a list with occlusion culling this frame. No GL. */
    [[nodiscard]] bool hasOcclusion(std::size_t pass) const noexcept;
    /** Phase 2 of pass @p pass's occlusion-culled lists, after the view's opaque draws and the
     *  pyramid's build: one dispatch per list (each instance in the frustum against
     *  @p pyramid, its visible bit rewritten, the newly visible ones into slot 1), then one
     *  glMemoryBarrier with dispatch()'s bits. Counts FrameStats::occlusionDispatches. Leaves
     *  the cull program current and kCullBindings bound. @p clipFromWorld: the view's
     *  view-projection from camera-relative world space. */
    void dispatchOcclusion(std::size_t pass, const DepthPyramidLevels& pyramid, const glm::mat4& clipFromWorld,
                           const View& view, GpuResources& resources, FrameStats& stats);

    /** Runs every queued test: sizes lists and command buffers (reused once warm), resets the
     *  commands, one dispatch per queued (pass, batch), then one glMemoryBarrier (also when a
     *  dispatch throws) so the draws see the lists (texture fetch), the commands (indirect) and
     *  storage, and the CPU's next access to them (the next frame's command reset, the LOD
     *  copy, readBack()) sees the shader writes (buffer update). Notes each batch's records as
     *  read this frame (GpuResources::noteRecordsRead), so a streaming part is fenced. Leaves the cull
     *  program current and kCullBindings bound (the renderer's exit state restores
     *  them). @p resources: the batches' GPU copies, prepared this frame.
     *  @throws ShaderError if cull.comp does not compile (a driver bug); CapacityError, before
     *  any dispatch, naming the batch, the buffer and the limit, if a queued batch's record
     *  buffer, per-instance morph weights, visible-index list (all LOD slots) or held levels are
     *  larger than GL_MAX_SHADER_STORAGE_BLOCK_SIZE (at least 128 MiB, two million instances,
     *  by the spec),
     *  its list is longer than GL_MAX_TEXTURE_BUFFER_SIZE texels, or its work groups exceed
     *  GL_MAX_COMPUTE_WORK_GROUP_COUNT. Then @p tabled's passes: one dispatch each, under the
     *  same barrier; DrawTable::build kept every buffer they bind under the storage-block limit
     *  and their work groups under GL_MAX_COMPUTE_WORK_GROUP_COUNT. */
    void dispatch(GpuResources& resources, FrameStats& stats, const TabledCulling& tabled);
    /** Compiles the cull program if a list is queued and it does not exist yet, dispatching
     *  nothing (Renderer::prepare: the first frame then compiles nothing).
     *  @throws ShaderError as dispatch(). */
    void prepareProgram() {
        if (!m_queued.empty()) {
            ensureProgram();
        }
    }

    /** Binds @p list on kVisibleIndexUnit, an RGBA32F view of @p gpu's records (bindRecordTexture()) on
     *  kIndexedRecordUnit, and the list's commands as GL_DRAW_INDIRECT_BUFFER. */
    void bind(const GpuCullList& list, BatchGpu& gpu);

    /** glDrawElementsIndirect of @p primitive's command in level slot @p slot (0 without a LOD
     *  chain) on @p vertexArray. */
    static void draw(const GpuCullList& list, const VertexArray& vertexArray, const MeshGeometry& geometry,
                     std::size_t primitive, std::size_t slot);

    /** The command after @p list's last: its counters (see GpuCullList::commands). */
    [[nodiscard]] static std::size_t countersCommand(const GpuCullList& list) noexcept {
        return list.slots * list.primitives;
    }

    /** Where level slot @p level of @p list starts in its list: the draw's u_baseInstance. */
    [[nodiscard]] static std::uint32_t levelSlotFirst(const GpuCullList& list, std::size_t level) noexcept {
        return static_cast<std::uint32_t>(level * list.capacity);
    }

    /** The list of (@p pass, @p batch) as the GPU wrote it in the last frame, level slot
     *  @p level (read back: stalls until the GPU is done), or nullopt when that pass did not
     *  cull the batch on the GPU or has no such slot. */
    [[nodiscard]] std::optional<std::vector<std::uint32_t>> readBack(std::size_t pass, const InstancedMeshNode& batch,
                                                                     std::size_t level) const;

private:
    static constexpr std::uint64_t kKeepFrames = 120;
    struct Uniforms {
        int planes = -1, planeScale = -1, first = -1, count = -1, boxMin = -1, boxMax = -1, ownWeights = -1,
            localMin = -1, localMax = -1, morphTargetCount = -1, deltaMin = -1, deltaMax = -1,
            primitiveCount = -1, lodLevelCount = -1, lodSwitchCount = -1, lodSwitch = -1,
            lodLower = -1, lodUpper = -1, lodLinear = -1, lodOriginFromEye = -1, lodFade = -1, lodScreen = -1,
            lodPerspectiveKey = -1, lodFadeLow = -1, lodFadeHigh = -1, lodFadeStart = -1, lodFadeInvWidth = -1,
            listCapacity = -1,
            tableJobs = -1, jobFirst = -1, jobCount = -1, invocationCount = -1, eyeHigh = -1, eyeLow = -1,
            occlusionPhase = -1, outputSlot = -1, clipFromNode = -1, clipFromWorld = -1, batchSphere = -1,
            viewportSize = -1, pyramidLevels = -1, levelOffset = -1, levelSize = -1, reversedDepth = -1,
            clipZeroToOne = -1, countersCommand = -1;
    };

    void ensureProgram();
    void checkLimits(const GpuCullList& list, const BatchGpu& gpu) const;
    /** Work groups of a dispatch over @p tested instances: x up to the limit, the rest in y. */
    [[nodiscard]] std::pair<std::size_t, std::size_t> groupsFor(std::size_t tested) const noexcept;
    void run(GpuCullList& list, const BatchGpu& gpu, FrameStats& stats);
    /** run()'s bindings and uniforms shared by both occlusion phases; false when nothing is tested. */
    bool bindForTest(const GpuCullList& list, const BatchGpu& gpu);
    /** The table-driven path's job dispatches (dispatch()). */
    void runTabled(const TabledCulling& tabled);
    /** run()'s instance-test uniforms (node-space planes, range, boxes, morph bounds) and the
     *  morph-weight storage block; the table path's jobs carry theirs in the job buffer. */
    void setTestUniforms(const GpuCullList& list, const BatchGpu& gpu);
    void allocate(GpuCullList& list, const InstancedMeshNode& batch);
    void setLodUniforms(const GpuCullList& list);

    std::uint64_t m_frame = 0;
    Program m_program;  ///< cull.comp, compiled on first use
    std::uint64_t m_usedFrame = 0;  ///< FrameStats::programsUsed (useCounted)
    Uniforms m_uniforms;
    const GlLimits& m_limits;
    std::unordered_map<PassNodeKey, GpuCullList, PassNodeKeyHash> m_lists;
    std::vector<GpuCullList*> m_queued;            ///< this frame's, in select() order
    std::vector<DrawElementsIndirectCommand> m_commands;  ///< scratch, reused
};

} // namespace myriad::gl::detail
