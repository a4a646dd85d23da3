#include "renderer/GpuParticlePass.h"
#include "renderer/ProgramUse.h"

#include "gl/Bindings.h"
#include "renderer/ParticlePass.h"
#include "core/ParticleRules.h"
#include "myriad/core/Camera.h"
#include "myriad/core/Material.h"
#include "myriad/util/Error.h"

#include <glm/geometric.hpp>
#include <glm/mat3x3.hpp>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <numbers>
#include <string>

namespace myriad::gl::detail {
namespace {

constexpr std::size_t kRowBytes = 16;  // one vec4 row of a plane
constexpr std::size_t kPlanes = 4;

// The kernels: file, #define, label.
struct Kernel {
    const char* file;
    const char* defines;
    const char* label;
};
constexpr Kernel kIntegrate{"particle_sim.comp", "#define MYRIAD_PARTICLE_INTEGRATE 1\n", "myriad/particle-integrate"};
constexpr Kernel kSpawn{"particle_sim.comp", "#define MYRIAD_PARTICLE_SPAWN 1\n", "myriad/particle-spawn"};
constexpr Kernel kFinish{"particle_sim.comp", "#define MYRIAD_PARTICLE_FINISH 1\n", "myriad/particle-finish"};
constexpr Kernel kSortBlocks{"particle_sort.comp", "#define MYRIAD_SORT_BLOCKS 1\n", "myriad/particle-sort-blocks"};
constexpr Kernel kSortGlobal{"particle_sort.comp", "#define MYRIAD_SORT_GLOBAL 1\n", "myriad/particle-sort-global"};
constexpr Kernel kSortMerge{"particle_sort.comp", "#define MYRIAD_SORT_MERGE 1\n", "myriad/particle-sort-merge"};
constexpr std::array<const Kernel*, 6> kKernels{&kIntegrate, &kSpawn, &kFinish, &kSortBlocks, &kSortGlobal, &kSortMerge};

ShaderSource sourceOf(const Kernel& kernel) {
    return {ShaderStage::Compute, kernel.file, embeddedShaderText(kernel.file), kernel.defines};
}

Program build(const Kernel& kernel) {
    const ShaderSource stage = sourceOf(kernel);
    return Program(std::span(&stage, 1), kernel.label);
}

void uniformUint(const Program& program, int location, std::uint32_t value) {
    if (location >= 0) {
        glProgramUniform1ui(program.id(), location, value);
    }
}

glm::vec3 viewForward(const View& view) {
    const glm::mat3 rotation = viewRotation(view);
    return -glm::vec3(rotation[0][2], rotation[1][2], rotation[2][2]);
}

} // namespace

std::vector<std::pair<std::string, ShaderSource>> gpuParticleProgramSources() {
    std::vector<std::pair<std::string, ShaderSource>> sources;
    for (const Kernel* kernel : kKernels) {
        std::string stem = kernel->label;
        stem = stem.substr(stem.find('/') + 1);
        sources.emplace_back(stem, sourceOf(*kernel));
    }
    return sources;
}

GpuParticlePass::GpuParticlePass(std::uint64_t consumer, const GlLimits& limits)
    : m_consumer(consumer), m_limits(limits) {}

GpuParticlePass::~GpuParticlePass() {
    for (auto& [id, gpu] : m_systems) {
        forget(gpu);
    }
}

void GpuParticlePass::forget(SystemGpu& gpu) noexcept {
    if (!gpu.alive.expired() && gpu.node != nullptr) {
        gpu.node->forgetConsumer(m_consumer);
    }
}

void GpuParticlePass::endFrame() noexcept {
    std::erase_if(m_systems, [](const auto& entry) { return entry.second.alive.expired(); });
}

void GpuParticlePass::trim() {
    for (auto it = m_systems.begin(); it != m_systems.end();) {
        if (it->second.usedFrame != m_frame) {
            forget(it->second);
            it = m_systems.erase(it);
        } else {
            ++it;
        }
    }
}

void GpuParticlePass::ensurePrograms() {
    if (m_integrate.id() != 0) {
        return;
    }
    m_integrate = build(kIntegrate);
    m_spawn = build(kSpawn);
    m_finish = build(kFinish);
    m_sortBlocks = build(kSortBlocks);
    m_sortGlobal = build(kSortGlobal);
    m_sortMerge = build(kSortMerge);
    // Every location once, here: a frame never asks GL for one.
    auto simUniforms = [](const Program& p) {
        return SimUniforms{
            .capacity = p.uniformLocation("u_capacity"),
            .source = p.uniformLocation("u_source"),
            .seconds = p.uniformLocation("u_seconds"),
            .lifetimeMin = p.uniformLocation("u_lifetimeMin"),
            .lifetimeMax = p.uniformLocation("u_lifetimeMax"),
            .gravityStep = p.uniformLocation("u_gravityStep"),
            .dragFactor = p.uniformLocation("u_dragFactor"),
            .spinSpeed = p.uniformLocation("u_spinSpeed"),
            .frameRate = p.uniformLocation("u_frameRate"),
            .frameCount = p.uniformLocation("u_frameCount"),
            .windVelocity = p.uniformLocation("u_windVelocity"),
            .windShare = p.uniformLocation("u_windShare"),
            .gustStrength = p.uniformLocation("u_gustStrength"),
            .gustPhase = p.uniformLocation("u_gustPhase"),
            .ground = p.uniformLocation("u_ground"),
            .groundHeight = p.uniformLocation("u_groundHeight"),
            .restitution = p.uniformLocation("u_restitution"),
            .friction = p.uniformLocation("u_friction"),
            .colorKeys = p.uniformLocation("u_colorKeys"),
            .alphaKeys = p.uniformLocation("u_alphaKeys"),
            .sizeKeys = p.uniformLocation("u_sizeKeys"),
            .colorKeyCount = p.uniformLocation("u_colorKeyCount"),
            .alphaKeyCount = p.uniformLocation("u_alphaKeyCount"),
            .sizeKeyCount = p.uniformLocation("u_sizeKeyCount"),
            .seed = p.uniformLocation("u_seed"),
            .firstSpawn = p.uniformLocation("u_firstSpawn"),
            .fromRate = p.uniformLocation("u_fromRate"),
            .spawns = p.uniformLocation("u_spawns"),
            .position = p.uniformLocation("u_position"),
            .extent = p.uniformLocation("u_extent"),
            .axis = p.uniformLocation("u_axis"),
            .axisU = p.uniformLocation("u_axisU"),
            .axisV = p.uniformLocation("u_axisV"),
            .oneMinusCosCone = p.uniformLocation("u_oneMinusCosCone"),
            .speedMin = p.uniformLocation("u_speedMin"),
            .speedMax = p.uniformLocation("u_speedMax"),
            .spawnColor = p.uniformLocation("u_spawnColor"),
            .spawnSize = p.uniformLocation("u_spawnSize"),
            .spawnHeight = p.uniformLocation("u_spawnHeight"),
            .maxGroupsX = p.uniformLocation("u_maxGroupsX"),
        };
    };
    m_integrateUniforms = simUniforms(m_integrate);
    m_spawnUniforms = simUniforms(m_spawn);
    m_finishUniforms = simUniforms(m_finish);
    auto sortUniforms = [](const Program& p) {
        return SortUniforms{.state = p.uniformLocation("u_state"),
                            .eye = p.uniformLocation("u_eye"),
                            .forward = p.uniformLocation("u_forward"),
                            .k = p.uniformLocation("u_k"),
                            .j = p.uniformLocation("u_j")};
    };
    m_blocksUniforms = sortUniforms(m_sortBlocks);
    m_globalUniforms = sortUniforms(m_sortGlobal);
    m_mergeUniforms = sortUniforms(m_sortMerge);
}

std::pair<std::uint32_t, std::uint32_t> GpuParticlePass::groupsFor(std::size_t invocations,
                                                                    std::uint32_t localSize) const noexcept {
    const std::size_t groups = (invocations + localSize - 1) / localSize;
    const auto maxX = static_cast<std::size_t>(std::max<std::int64_t>(m_limits.maxComputeWorkGroups[0], 1));
    const std::size_t x = std::min(groups, maxX);
    return {static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(x == 0 ? 1 : (groups + x - 1) / x)};
}

void GpuParticlePass::allocate(const GpuParticleSystem& system, SystemGpu& gpu, std::size_t passes) {
    const std::size_t capacity = system.capacity();
    // The limits first: a refusal makes nothing. Strings only for a refusal.
    const char* advice = "lower the system's capacity";
    if (gpu.capacity != capacity) {
        const std::uint64_t stateBytes = std::uint64_t{kPlanes} * capacity * kRowBytes;
        requireStorageBlockBytes(m_limits, stateBytes, system, "GPU particle state (one storage block, 64 bytes a particle)",
                                 advice);
        requireTextureBufferTexels(m_limits, std::uint64_t{kPlanes} * capacity, system,
                                   "GPU particle state (4 texels a particle)", advice);
        const std::uint32_t groupsY = groupsFor(capacity, kIntegrateLocalSize).second;
        if (static_cast<std::int64_t>(groupsY) > m_limits.maxComputeWorkGroups[1]) {
            throw CapacityError("gl::Renderer::render: '" + nodeName(system) + "': simulating " +
                                std::to_string(capacity) + " particles needs " + std::to_string(groupsY) +
                                " work groups in y, above GL_MAX_COMPUTE_WORK_GROUP_COUNT[1] (" +
                                std::to_string(m_limits.maxComputeWorkGroups[1]) + " on this driver); " + advice);
        }
        for (std::uint32_t s = 0; s < 2; ++s) {
            gpu.states[s] = Buffer({.sizeBytes = stateBytes,
                                    .label = labelFor(system, "GpuParticleSystem.state-" + std::to_string(s))});
            gpu.textures[s] = TextureHandle(GL_TEXTURE_BUFFER);
            glTextureBuffer(gpu.textures[s].id(), GL_RGBA32F, gpu.states[s].id());
            setLabel(GL_TEXTURE, gpu.textures[s].id(), labelFor(system, "GpuParticleSystem.state-texture-" + std::to_string(s)));
        }
        std::array<std::uint32_t, GpuParticleCounter::Count> counters{};
        counters[GpuParticleCounter::Draw] = 6;  // six vertices a quad; no live particle yet
        counters[GpuParticleCounter::Dispatch + 1] = 1;
        counters[GpuParticleCounter::Dispatch + 2] = 1;
        gpu.counters = Buffer({.initialData = std::as_bytes(std::span(counters)),
                               .label = labelFor(system, "GpuParticleSystem.counters")});
        gpu.capacity = capacity;
        gpu.current = 0;
        gpu.sortCount = 0;
        gpu.orders.clear();
        gpu.started = false;  // a new, empty system: it runs the steps still kept
    }
    if (!system.material().sorted()) {
        return;  // orders made for an earlier sorted material are kept, unused
    }
    if (gpu.sortCount == 0) {
        const std::size_t sortCount = std::max<std::size_t>(std::bit_ceil(capacity), kSortBlock);
        requireStorageBlockBytes(m_limits, std::uint64_t{sortCount} * 8, system,
                                 "GPU particle sort (8 bytes a particle, capacity rounded up to a power of two)", advice);
        requireTextureBufferTexels(m_limits, sortCount, system,
                                   "GPU particle order (1 texel a particle, capacity rounded up to a power of two)",
                                   advice);
        if (static_cast<std::int64_t>(sortCount / kSortBlock) > m_limits.maxComputeWorkGroups[0]) {
            throw CapacityError("gl::Renderer::render: '" + nodeName(system) + "': sorting " +
                                std::to_string(sortCount) + " particles needs " + std::to_string(sortCount / kSortBlock) +
                                " work groups, above GL_MAX_COMPUTE_WORK_GROUP_COUNT[0] (" +
                                std::to_string(m_limits.maxComputeWorkGroups[0]) + " on this driver); " + advice);
        }
        gpu.sortCount = sortCount;
    }
    for (std::size_t p = gpu.orders.size(); p < passes; ++p) {
        OrderGpu& order = gpu.orders.emplace_back();
        order.pairs = Buffer({.sizeBytes = gpu.sortCount * 8,
                              .label = labelFor(system, "GpuParticleSystem.order-" + std::to_string(p))});
        order.texture = TextureHandle(GL_TEXTURE_BUFFER);
        glTextureBuffer(order.texture.id(), GL_RG32UI, order.pairs.id());
        setLabel(GL_TEXTURE, order.texture.id(), labelFor(system, "GpuParticleSystem.order-texture-" + std::to_string(p)));
    }
}

void GpuParticlePass::prepare(std::span<const ViewPass> passes, ShaderLibrary& shaders, GpuResources& resources) {
    ++m_frame;
    for (auto& [id, gpu] : m_systems) {
        gpu.drawnThisFrame = false;
    }
    bool any = false;
    for (const ViewPass& pass : passes) {
        for (const SceneNode* node : pass.particleNodes()) {
            if (node->kind() != NodeKind::GpuParticles || pass.view().depthOnly) {
                continue;
            }
            const auto& system = static_cast<const GpuParticleSystem&>(*node);
            prepareParticleDraw(pass, shaders, resources, system.material());
            SystemGpu& gpu = m_systems[system.id()];
            if (gpu.alive.expired()) {
                gpu.alive = system.lifetime();
                gpu.node = &system;
            }
            allocate(system, gpu, passes.size());
            gpu.usedFrame = m_frame;
            gpu.drawnThisFrame = true;
            any = true;
        }
    }
    if (any) {
        ensurePrograms();
    }
    if (any && m_emptyVertexArray.id() == 0) {
        VertexLayoutDesc empty;
        empty.label = "myriad/Renderer.gpu-particle-vertex-array";
        m_emptyVertexArray = VertexArray(empty);
    }
}

void GpuParticlePass::setStepUniforms(const Program& program, const SimUniforms& u, const GpuParticleSystem& system,
                                      const SystemGpu& gpu, const GpuParticleStep& step) const {
    const EmitterDesc& d = system.desc();
    const float dt = step.seconds;
    uniformUint(program, u.capacity, static_cast<std::uint32_t>(gpu.capacity));
    uniformUint(program, u.source, gpu.current);
    program.setUniform(u.seconds, dt);
    program.setUniform(u.lifetimeMin, d.lifetimeMin);
    program.setUniform(u.lifetimeMax, d.lifetimeMax);
    // As ParticleEmitter::update computes them, on the CPU, so both paths multiply by the same floats.
    program.setUniform(u.gravityStep, d.gravity * dt);
    program.setUniform(u.dragFactor, std::exp(-d.drag * dt));
    program.setUniform(u.spinSpeed, d.spinSpeed);
    program.setUniform(u.frameRate, d.frameRate);
    program.setUniform(u.frameCount, d.frameCount);
    const GpuParticleWind& wind = system.wind;
    program.setUniform(u.windVelocity, wind.velocity);
    program.setUniform(u.windShare, wind.response > 0.0f ? 1.0f - std::exp(-wind.response * dt) : 0.0f);
    program.setUniform(u.gustStrength, wind.gustStrength);
    program.setUniform(u.gustPhase, static_cast<float>(std::fmod(2.0 * std::numbers::pi * wind.gustFrequency * step.time,
                                                                 2.0 * std::numbers::pi)));
    const GpuParticleGround& ground = system.ground;
    program.setUniform(u.ground, ground.enabled ? 1 : 0);
    program.setUniform(u.groundHeight, ground.height);
    program.setUniform(u.restitution, ground.restitution);
    program.setUniform(u.friction, ground.friction);
    std::array<glm::vec4, GpuParticleSystem::maxCurveKeys> colorKeys{};
    std::array<glm::vec2, GpuParticleSystem::maxCurveKeys> alphaKeys{};
    std::array<glm::vec2, GpuParticleSystem::maxCurveKeys> sizeKeys{};
    const std::size_t colors = std::min(d.colorOverLife.keys.size(), colorKeys.size());  // setDesc() checked
    const std::size_t alphas = std::min(d.alphaOverLife.keys.size(), alphaKeys.size());
    const std::size_t sizes = std::min(d.sizeOverLife.keys.size(), sizeKeys.size());
    for (std::size_t i = 0; i < colors; ++i) {
        colorKeys[i] = glm::vec4(d.colorOverLife.keys[i].value, d.colorOverLife.keys[i].time);
    }
    for (std::size_t i = 0; i < alphas; ++i) {
        alphaKeys[i] = glm::vec2(d.alphaOverLife.keys[i].value, d.alphaOverLife.keys[i].time);
    }
    for (std::size_t i = 0; i < sizes; ++i) {
        sizeKeys[i] = glm::vec2(d.sizeOverLife.keys[i].value, d.sizeOverLife.keys[i].time);
    }
    if (u.colorKeys >= 0 && colors > 0) {
        glProgramUniform4fv(program.id(), u.colorKeys, static_cast<GLsizei>(colors), &colorKeys[0].x);
    }
    if (u.alphaKeys >= 0 && alphas > 0) {
        glProgramUniform2fv(program.id(), u.alphaKeys, static_cast<GLsizei>(alphas), &alphaKeys[0].x);
    }
    if (u.sizeKeys >= 0 && sizes > 0) {
        glProgramUniform2fv(program.id(), u.sizeKeys, static_cast<GLsizei>(sizes), &sizeKeys[0].x);
    }
    program.setUniform(u.colorKeyCount, static_cast<int>(colors));
    program.setUniform(u.alphaKeyCount, static_cast<int>(alphas));
    program.setUniform(u.sizeKeyCount, static_cast<int>(sizes));
    uniformUint(program, u.seed, system.seed());
    uniformUint(program, u.firstSpawn, step.firstSpawn);
    uniformUint(program, u.fromRate, step.fromRate);
    uniformUint(program, u.spawns, step.spawns);
    program.setUniform(u.position, step.position);
    program.setUniform(u.extent, d.spawnExtent);
    // ParticleEmitter::spawnOne's cone basis (the same function), computed once here.
    const myriad::detail::ConeBasis cone = myriad::detail::coneBasis(d.direction);
    program.setUniform(u.axis, cone.axis);
    program.setUniform(u.axisU, cone.u);
    program.setUniform(u.axisV, cone.v);
    program.setUniform(u.oneMinusCosCone, 1.0f - std::cos(d.coneAngle));
    program.setUniform(u.speedMin, d.speedMin);
    program.setUniform(u.speedMax, d.speedMax);
    program.setUniform(u.spawnColor, glm::vec4(d.color, d.alpha));
    program.setUniform(u.spawnSize, d.size);
    program.setUniform(u.spawnHeight, d.height);
    uniformUint(program, u.maxGroupsX,
                static_cast<std::uint32_t>(std::min<std::int64_t>(m_limits.maxComputeWorkGroups[0], 0xFFFFFFFF)));
}

void GpuParticlePass::runStep(const GpuParticleSystem& system, SystemGpu& gpu, const GpuParticleStep& step,
                              FrameStats& stats) {
    const std::uint32_t source = gpu.current;
    const std::uint32_t target = 1 - source;
    beforeFirstDispatch();
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kParticleCountersBinding, gpu.counters.id());
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kParticleSourceBinding, gpu.states[source].id());
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kParticleTargetBinding, gpu.states[target].id());
    // 1. Integrate and kill: as many invocations as the source has live particles, a count the
    //    last finish wrote into the dispatch command (the CPU never learns it).
    setStepUniforms(m_integrate, m_integrateUniforms, system, gpu, step);
    useCounted(m_integrate, m_usedFrames[0], stats);
    glBindBuffer(GL_DISPATCH_INDIRECT_BUFFER, gpu.counters.id());
    glDispatchComputeIndirect(static_cast<GLintptr>(GpuParticleCounter::Dispatch * sizeof(std::uint32_t)));
    // Spawn reads the target's live count the integrate counted into.
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    stats.gpuParticleDispatches += 1;
    // 2. Spawn: at most capacity spawns can live (the rest are dropped in order, as on the CPU).
    const std::size_t spawns = std::min<std::size_t>(step.spawns, gpu.capacity);
    if (spawns > 0) {
        setStepUniforms(m_spawn, m_spawnUniforms, system, gpu, step);
        useCounted(m_spawn, m_usedFrames[1], stats);
        const auto [x, y] = groupsFor(spawns, kSpawnLocalSize);
        glDispatchCompute(x, y, 1);
        glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);  // finish reads the live count spawn read
        stats.gpuParticleDispatches += 1;
    }
    // 3. Finish: the target's count, the draw, the next integrate's groups.
    useCounted(m_finish, m_usedFrames[2], stats);
    uniformUint(m_finish, m_finishUniforms.capacity, static_cast<std::uint32_t>(gpu.capacity));
    uniformUint(m_finish, m_finishUniforms.source, source);
    uniformUint(m_finish, m_finishUniforms.spawns, static_cast<std::uint32_t>(spawns));
    uniformUint(m_finish, m_finishUniforms.maxGroupsX,
                static_cast<std::uint32_t>(std::min<std::int64_t>(m_limits.maxComputeWorkGroups[0], 0xFFFFFFFF)));
    glDispatchCompute(1, 1, 1);
    // The next step's integrate reads the counters as storage and as its dispatch command.
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_COMMAND_BARRIER_BIT);
    stats.gpuParticleDispatches += 1;
    stats.gpuParticleSteps += 1;
    gpu.current = target;
}

bool GpuParticlePass::sort(SystemGpu& gpu, std::size_t passIndex, const ViewPass& pass, FrameStats& stats) {
    OrderGpu& order = gpu.orders[passIndex];
    const glm::vec3 eye(pass.camera().eye);
    const glm::vec3 forward = viewForward(pass.view());
    if (order.valid && order.eye == eye && order.forward == forward && order.steps == gpu.nextStep) {
        order.sorted = true;  // neither the camera nor a particle moved: the last order holds
        return false;
    }
    beforeFirstDispatch();
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kParticleCountersBinding, gpu.counters.id());
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kParticleSourceBinding, gpu.states[gpu.current].id());
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kParticleOrderBinding, order.pairs.id());
    const auto blocks = static_cast<GLuint>(gpu.sortCount / kSortBlock);  // allocate() checked the limit
    // Keys and every stage up to a block, in shared memory.
    uniformUint(m_sortBlocks, m_blocksUniforms.state, gpu.current);
    m_sortBlocks.setUniform(m_blocksUniforms.eye, eye);
    m_sortBlocks.setUniform(m_blocksUniforms.forward, forward);
    useCounted(m_sortBlocks, m_usedFrames[3], stats);
    glDispatchCompute(blocks, 1, 1);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    ++stats.gpuParticleDispatches;
    // Each longer stage: passes across blocks in the buffer, then the rest inside each block.
    for (std::size_t k = 2 * kSortBlock; k <= gpu.sortCount; k <<= 1) {
        useCounted(m_sortGlobal, m_usedFrames[4], stats);
        uniformUint(m_sortGlobal, m_globalUniforms.k, static_cast<std::uint32_t>(k));
        for (std::size_t j = k / 2; j >= kSortBlock; j >>= 1) {
            uniformUint(m_sortGlobal, m_globalUniforms.j, static_cast<std::uint32_t>(j));
            glDispatchCompute(blocks, 1, 1);  // one invocation a pair, 1,024 a group
            glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
            ++stats.gpuParticleDispatches;
        }
        useCounted(m_sortMerge, m_usedFrames[5], stats);
        uniformUint(m_sortMerge, m_mergeUniforms.k, static_cast<std::uint32_t>(k));
        glDispatchCompute(blocks, 1, 1);
        glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
        ++stats.gpuParticleDispatches;
    }
    order.sorted = true;
    order.valid = true;
    order.eye = eye;
    order.forward = forward;
    order.steps = gpu.nextStep;
    return true;
}

void GpuParticlePass::beforeFirstDispatch() {
    if (!m_dispatchedThisFrame) {
        // Write after read: last frame's draws fetched the order pairs (and a state) as
        // textures, and this frame's first dispatch may write them (a sort with no step before
        // it: the camera moved, the simulation did not). Storage writes after this barrier wait
        // for every access issued before it (OpenGL 4.5 section 7.12.2,
        // SHADER_STORAGE_BARRIER_BIT); a step's own barriers come only after its first write.
        glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
        m_dispatchedThisFrame = true;
    }
}

void GpuParticlePass::simulate(std::span<const ViewPass> passes, FrameStats& stats) {
    const auto start = std::chrono::steady_clock::now();
    bool dispatched = false;
    m_dispatchedThisFrame = false;
    for (auto& [id, gpu] : m_systems) {
        if (!gpu.drawnThisFrame || gpu.alive.expired()) {
            continue;
        }
        const GpuParticleSystem& system = *gpu.node;
        if (!gpu.started) {
            gpu.nextStep = system.firstPendingStep();
            gpu.started = true;
        }
        const std::span<const GpuParticleStep> steps = system.pendingSteps();
        const std::uint64_t first = system.firstPendingStep();
        gpu.nextStep = std::max(gpu.nextStep, first);
        for (std::uint64_t s = gpu.nextStep; s < system.stepsRecorded(); ++s) {
            runStep(system, gpu, steps[static_cast<std::size_t>(s - first)], stats);
            dispatched = true;
        }
        gpu.nextStep = system.stepsRecorded();
        system.acknowledgeSteps(m_consumer, gpu.nextStep);
        for (OrderGpu& order : gpu.orders) {
            order.sorted = false;
        }
        if (!system.material().sorted()) {
            continue;
        }
        for (std::size_t p = 0; p < passes.size(); ++p) {
            const ViewPass& pass = passes[p];
            if (pass.view().depthOnly || p >= gpu.orders.size()) {
                continue;
            }
            const auto& nodes = pass.particleNodes();
            if (std::find(nodes.begin(), nodes.end(), gpu.node) == nodes.end()) {
                continue;
            }
            dispatched = sort(gpu, p, pass, stats) || dispatched;
        }
    }
    if (dispatched) {
        // The draws read the states and orders by texel fetch and the counters as their
        // indirect command (the last finish's barrier covered the command already).
        glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT | GL_COMMAND_BARRIER_BIT);
    }
    stats.gpuParticlesMs += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

void GpuParticlePass::draw(std::size_t passIndex, const ViewPass& pass, ShaderLibrary& shaders,
                           GpuResources& resources) {
    if (pass.view().depthOnly) {
        return;  // particles write no depth
    }
    FrameStats& stats = resources.stats();
    bool stateSet = false;
    for (const SceneNode* node : pass.particleNodes()) {
        if (node->kind() != NodeKind::GpuParticles) {
            continue;
        }
        const auto& system = static_cast<const GpuParticleSystem&>(*node);
        const auto found = m_systems.find(system.id());
        if (found == m_systems.end()) {
            continue;
        }
        SystemGpu& gpu = found->second;
        const ParticleMaterial& material = system.material();
        const bool sorted = material.sorted() && passIndex < gpu.orders.size() && gpu.orders[passIndex].sorted;
        // The same state and uniforms as ParticlePass::drawPool (particle.vert and .frag read a
        // GPU system as they read a four-plane pool); only the draw differs.
        beginParticleDraw(pass, shaders, resources, material, system.tint(), gpu.capacity, false, sorted);
        stateSet = true;
        glBindTextureUnit(kParticleStreamsUnit, gpu.textures[gpu.current].id());
        if (sorted) {
            glBindTextureUnit(kParticleOrderUnit, gpu.orders[passIndex].texture.id());
        }
        // Six vertices a particle, as many instances as the GPU counted live: no read-back.
        glBindVertexArray(m_emptyVertexArray.id());
        glBindBuffer(GL_DRAW_INDIRECT_BUFFER, gpu.counters.id());
        glDrawArraysIndirect(GL_TRIANGLES, nullptr);
        ++stats.drawCalls;
        ++stats.drawCommands;
        ++stats.vertexArrayBinds;
    }
    if (stateSet) {
        glDepthMask(GL_TRUE);
    }
}

std::optional<std::vector<Particle>> GpuParticlePass::readParticles(const GpuParticleSystem& system) const {
    const auto found = m_systems.find(system.id());
    if (found == m_systems.end() || found->second.capacity == 0) {
        return std::nullopt;
    }
    const SystemGpu& gpu = found->second;
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);  // shader writes, then a CPU read of the buffer
    std::array<std::uint32_t, GpuParticleCounter::Count> counters{};
    glGetNamedBufferSubData(gpu.counters.id(), 0, sizeof(counters), counters.data());
    const std::size_t live = std::min<std::size_t>(counters[GpuParticleCounter::Live + gpu.current], gpu.capacity);
    std::vector<glm::vec4> rows(kPlanes * live);
    for (std::size_t k = 0; k < kPlanes; ++k) {
        if (live > 0) {
            glGetNamedBufferSubData(gpu.states[gpu.current].id(), static_cast<GLintptr>(k * gpu.capacity * kRowBytes),
                                    static_cast<GLsizeiptr>(live * kRowBytes), rows.data() + k * live);
        }
    }
    std::vector<Particle> particles(live);
    for (std::size_t i = 0; i < live; ++i) {
        const glm::vec4 a = rows[i];
        const glm::vec4 b = rows[live + i];
        const glm::vec4 c = rows[2 * live + i];
        const glm::vec4 d = rows[3 * live + i];
        particles[i] = Particle{glm::vec3(a), a.w, glm::vec3(b), b.w, glm::vec3(c), c.w, d.x, d.y, d.z, d.w};
    }
    return particles;
}

std::optional<std::vector<std::uint32_t>> GpuParticlePass::readOrder(const GpuParticleSystem& system,
                                                                     std::size_t passIndex) const {
    const auto found = m_systems.find(system.id());
    if (found == m_systems.end() || passIndex >= found->second.orders.size() ||
        !found->second.orders[passIndex].sorted) {
        return std::nullopt;
    }
    const SystemGpu& gpu = found->second;
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    std::array<std::uint32_t, GpuParticleCounter::Count> counters{};
    glGetNamedBufferSubData(gpu.counters.id(), 0, sizeof(counters), counters.data());
    const std::size_t live = std::min<std::size_t>(counters[GpuParticleCounter::Live + gpu.current], gpu.capacity);
    std::vector<std::uint32_t> pairs(2 * live);
    if (live > 0) {
        glGetNamedBufferSubData(gpu.orders[passIndex].pairs.id(), 0, static_cast<GLsizeiptr>(live * 8), pairs.data());
    }
    std::vector<std::uint32_t> order(live);
    for (std::size_t i = 0; i < live; ++i) {
        order[i] = pairs[2 * i];
    }
    return order;
}

} // namespace myriad::gl::detail
