#pragma once
// Internal to myriad_gl: GpuParticleSystem nodes (myriad/core/GpuParticles.h; docs/particles.md,
// "GPU path"). Per renderer and system: two particle states (ping-pong), each one GL buffer of
// four planes of capacity vec4 rows in the layout particle.vert reads (with an RGBA32F buffer
// texture over it), a counter buffer (live counts, the indirect draw and dispatch commands),
// and per view of a sorted system an (index, key) pair buffer with an RG32UI texture over it.
//
// The frame: prepare() (in Renderer::prepare, before any draw) requests the draw programs,
// makes the compute programs and buffers and checks the GL limits (CapacityError before
// anything is drawn); simulate() (in render(), after GPU culling's dispatches, before the first
// draw) runs each system's pending steps, then its sorts, then one barrier; draw() (after each
// view's CPU particle pools) issues one glDrawArraysIndirect per system. Nothing is read back:
// the live count stays on the GPU, and the CPU issues the same calls whatever it is.
//
// Barriers (OpenGL 4.5, "Shader Memory Access Synchronization"; as GpuPopulations.h reasons):
// within a step, integrate -> spawn -> finish each read what the one before wrote through
// storage blocks (GL_SHADER_STORAGE_BARRIER_BIT); the next step's integrate also takes its
// work groups from the counters (GL_COMMAND_BARRIER_BIT). After the last step: the sort reads
// the state and counters as storage (the finish's storage barrier covers it), the draws read
// the state and the order by texel fetch and the draw command as indirect parameters: one
// barrier with those two bits after every system's compute; readBack() issues
// GL_BUFFER_UPDATE_BARRIER_BIT. Before a frame's first dispatch, one storage barrier: last
// frame's draws fetched what it may overwrite (write after read).
#include "gl/GlCommon.h"
#include "renderer/GlLimits.h"
#include "renderer/GpuResources.h"
#include "renderer/ShaderLibrary.h"
#include "renderer/ViewPass.h"
#include "myriad/core/GpuParticles.h"
#include "myriad/gl/Buffer.h"
#include "myriad/gl/FrameStats.h"
#include "myriad/gl/Program.h"
#include "myriad/gl/VertexArray.h"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

namespace myriad::gl::detail {

/** The counter buffer's layout (uints), as particle_sim.comp names them. */
namespace GpuParticleCounter {
inline constexpr std::uint32_t Draw = 0;      ///< DrawArraysIndirectCommand: count 6, instances, first, base
inline constexpr std::uint32_t Dispatch = 4;  ///< DispatchIndirectCommand of the next integrate
inline constexpr std::uint32_t Live = 7;      ///< live count of state 0, then of state 1
inline constexpr std::uint32_t Count = 9;
} // namespace GpuParticleCounter

class GpuParticlePass {
public:
    /** Work-group sizes of the kernels (particle_sim.comp, particle_sort.comp). Within GL 4.5's
     *  minimums (1,024 invocations a group and along x, 32 KiB of shared memory; the sort's
     *  blocks take 16 KiB), so no limit query is needed for them; work-group counts are checked
     *  against GlLimits::maxComputeWorkGroups. */
    static constexpr std::uint32_t kIntegrateLocalSize = 256;
    static constexpr std::uint32_t kSpawnLocalSize = 64;
    static constexpr std::uint32_t kSortBlock = 2048;  ///< pairs a sort work group sorts in shared memory

    /** @param consumer the renderer's id (steps are acknowledged per renderer).
     *  @param limits the renderer's (outlives this). */
    GpuParticlePass(std::uint64_t consumer, const GlLimits& limits);
    ~GpuParticlePass();
    GpuParticlePass(const GpuParticlePass&) = delete;
    GpuParticlePass& operator=(const GpuParticlePass&) = delete;

    /** Requests the draw programs, makes the compute programs and every buffer the frame
     *  needs. @throws CapacityError (a state or sort over a GL limit) before anything is drawn. */
    void prepare(std::span<const ViewPass> passes, ShaderLibrary& shaders, GpuResources& resources);
    /** Runs every drawn system's pending steps and its views' sorts, then one barrier. */
    void simulate(std::span<const ViewPass> passes, FrameStats& stats);
    /** Draws the view's GPU systems (depth tested, not written). Leaves blending on, depth
     *  mask on. */
    void draw(std::size_t passIndex, const ViewPass& pass, ShaderLibrary& shaders, GpuResources& resources);
    /** Frees copies of destroyed nodes (end of each frame). */
    void endFrame() noexcept;
    /** Frees copies the last frame did not draw. */
    void trim();

    /** The system's live particles as the GPU holds them (in no particular order), or nullopt
     *  before this renderer first drew it. Waits for the GPU: tests and tools. */
    [[nodiscard]] std::optional<std::vector<Particle>> readParticles(const GpuParticleSystem& system) const;
    /** The order view pass @p passIndex drew the system in (particle indices, farthest first),
     *  or nullopt when it was not sorted for that pass. Waits for the GPU. */
    [[nodiscard]] std::optional<std::vector<std::uint32_t>> readOrder(const GpuParticleSystem& system,
                                                                      std::size_t passIndex) const;

private:
    struct OrderGpu {
        Buffer pairs;            ///< sortCount (index, key) pairs
        TextureHandle texture;   ///< RG32UI view of pairs: .r is the index
        bool sorted = false;     ///< sorted this frame for its pass
        // What the pairs were sorted for: a frame with the same eye, forward and steps keeps them
        // (no dispatch), as the CPU path keeps an order when neither camera nor particles moved.
        bool valid = false;
        glm::vec3 eye{0.0f};
        glm::vec3 forward{0.0f};
        std::uint64_t steps = 0;  ///< SystemGpu::nextStep when sorted
    };
    struct SystemGpu {
        const GpuParticleSystem* node = nullptr;
        std::weak_ptr<const void> alive;
        std::size_t capacity = 0;
        std::array<Buffer, 2> states;           ///< four planes of capacity rows each
        std::array<TextureHandle, 2> textures;  ///< RGBA32F views of states
        Buffer counters;                        ///< GpuParticleCounter::Count uints
        std::uint32_t current = 0;              ///< the state the last step wrote (drawn)
        std::uint64_t nextStep = 0;             ///< the serial of the next step to run
        bool started = false;                   ///< nextStep set from the node
        std::size_t sortCount = 0;              ///< pairs a view's sort covers (power of two)
        std::vector<OrderGpu> orders;           ///< per view pass
        std::uint64_t usedFrame = 0;
        bool drawnThisFrame = false;            ///< some pass of this frame draws it
    };
    struct SimUniforms {
        int capacity, source, seconds, lifetimeMin, lifetimeMax, gravityStep, dragFactor, spinSpeed, frameRate,
            frameCount, windVelocity, windShare, gustStrength, gustPhase, ground, groundHeight, restitution, friction,
            colorKeys, alphaKeys, sizeKeys, colorKeyCount, alphaKeyCount, sizeKeyCount, seed, firstSpawn, fromRate,
            spawns, position, extent, axis, axisU, axisV, oneMinusCosCone, speedMin, speedMax, spawnColor, spawnSize,
            spawnHeight, maxGroupsX;
    };
    struct SortUniforms {
        int state, eye, forward, k, j;
    };

    void ensurePrograms();
    void allocate(const GpuParticleSystem& system, SystemGpu& gpu, std::size_t passes);
    void setStepUniforms(const Program& program, const SimUniforms& u, const GpuParticleSystem& system,
                         const SystemGpu& gpu, const GpuParticleStep& step) const;
    void runStep(const GpuParticleSystem& system, SystemGpu& gpu, const GpuParticleStep& step, FrameStats& stats);
    /** Sorts unless the view and the particles are as at the last sort; true if it dispatched. */
    bool sort(SystemGpu& gpu, std::size_t passIndex, const ViewPass& pass, FrameStats& stats);
    /** Issues the frame's write-after-read storage barrier before its first dispatch (once). */
    void beforeFirstDispatch();
    [[nodiscard]] std::pair<std::uint32_t, std::uint32_t> groupsFor(std::size_t invocations,
                                                                    std::uint32_t localSize) const noexcept;
    void forget(SystemGpu& gpu) noexcept;

    std::uint64_t m_consumer;
    const GlLimits& m_limits;
    std::uint64_t m_frame = 0;
    std::unordered_map<std::uint64_t, SystemGpu> m_systems;
    Program m_integrate, m_spawn, m_finish, m_sortBlocks, m_sortGlobal, m_sortMerge;
    /** Per program above, in that order: FrameStats::programsUsed (useCounted). */
    std::array<std::uint64_t, 6> m_usedFrames{};
    SimUniforms m_integrateUniforms{}, m_spawnUniforms{}, m_finishUniforms{};
    SortUniforms m_blocksUniforms{}, m_globalUniforms{}, m_mergeUniforms{};
    VertexArray m_emptyVertexArray;  ///< particles read no attributes; core GL still wants a VAO
    bool m_dispatchedThisFrame = false;  ///< beforeFirstDispatch() issued its barrier this frame
};

/** The text of the compute kernels, as compiled (tests/shaders/ checks them with
 *  glslangValidator): particle_sim.comp's three, then particle_sort.comp's three. */
[[nodiscard]] std::vector<std::pair<std::string, ShaderSource>> gpuParticleProgramSources();

} // namespace myriad::gl::detail
