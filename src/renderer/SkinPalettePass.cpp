#include "renderer/SkinPalettePass.h"
#include "renderer/ProgramUse.h"

#include "gl/Bindings.h"
#include "gl/GlCommon.h"
#include "renderer/GlLimits.h"
#include "renderer/GpuResources.h"
#include "renderer/PhaseTimer.h"
#include "myriad/core/AnimationSet.h"
#include "myriad/core/InstancedMeshNode.h"

#include <algorithm>
#include <array>

namespace myriad::gl::detail {
namespace {

constexpr std::uint32_t kGroupSize = 64;   // skin_palette.comp's local_size_x
constexpr std::size_t kRowBytes = 16;      // one RGBA32F row
constexpr GLuint kFramesUnit = 0;          // skin_palette.comp's bindings (contract units)
constexpr GLuint kAnimationStreamUnit = 1;

} // namespace

ShaderSource SkinPalettePass::programSource() {
    return {ShaderStage::Compute, "skin_palette.comp", embeddedShaderText("skin_palette.comp")};
}

void SkinPalettePass::ensureProgram() {
    if (m_program.id() != 0) {
        return;
    }
    const ShaderSource stage = programSource();
    m_program = Program(std::span(&stage, 1), "myriad/skin-palette");
    m_uniforms = {.instanceCount = m_program.uniformLocation("u_instanceCount"),
                  .jointCount = m_program.uniformLocation("u_jointCount"),
                  .animationTime = m_program.uniformLocation("u_animationTime"),
                  .clips = m_program.uniformLocation("u_clips"),
                  .first = m_program.uniformLocation("u_first")};
}

void SkinPalettePass::note(const InstancedMeshNode& batch) {
    Palettes& palettes = m_batches[batch.id()];
    if (palettes.noted) {
        return;  // another view or primitive of the same batch
    }
    const std::size_t joints = batch.animationSet()->jointCount();
    const std::size_t capacity = std::max<std::size_t>(batch.capacity(), 1);
    if (palettes.capacity != capacity || palettes.joints != joints || palettes.alive.expired()) {
        const std::uint64_t rows = std::uint64_t{capacity} * joints * 3;
        const char* advice = "lower the batch's capacity, or split the crowd into several batches";
        requireTextureBufferTexels(m_limits, rows, batch, "skinned crowd's palettes (a buffer texture)", advice);
        requireStorageBlockBytes(m_limits, rows * kRowBytes, batch, "skinned crowd's palettes (a storage block)", advice);
        Buffer buffer({.sizeBytes = rows * kRowBytes, .label = labelFor(batch, "InstancedMeshNode.skin-palettes")});
        TextureHandle texture(GL_TEXTURE_BUFFER);
        glTextureBuffer(texture.id(), GL_RGBA32F, buffer.id());
        setLabel(GL_TEXTURE, texture.id(), labelFor(batch, "InstancedMeshNode.skin-palettes-texture"));
        palettes = Palettes{};
        palettes.alive = batch.lifetime();
        palettes.buffer = std::move(buffer);
        palettes.texture = std::move(texture);
        palettes.capacity = capacity;
        palettes.joints = joints;
    }
    palettes.node = &batch;
    palettes.noted = true;
}

void SkinPalettePass::dispatch(GpuResources& resources, FrameStats& stats) {
    bool dispatched = false;
    for (auto& [id, palettes] : m_batches) {
        if (!palettes.noted) {
            continue;
        }
        const InstancedMeshNode& batch = *palettes.node;
        const std::shared_ptr<const AnimationSet>& set = batch.animationSet();
        const InstanceStream& stream = batch.streams()[InstanceStreamId::Animation];
        const std::size_t count = batch.drawnInstances().end;
        if (palettes.filled && palettes.setId == set->id() && palettes.streamVersion == stream.version() &&
            palettes.time == batch.animationTime() && palettes.count == count) {
            continue;  // the same clock, choices and set: the palettes already hold this frame's
        }
        if (!dispatched) {
            ensureProgram();
            useCounted(m_program, m_usedFrame, stats);
            // Write after read: last frame's draws fetched these buffers as textures, and
            // storage writes after this barrier wait for every access issued before it
            // (OpenGL 4.5 section 7.12.2, SHADER_STORAGE_BARRIER_BIT), as the particle kernels do.
            glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
            dispatched = true;
        }
        const BatchGpu* gpu = resources.findBatch(batch);  // prepare() uploaded its streams
        glBindTextureUnit(kFramesUnit, resources.animationSet(set, batch).texture.id());
        glBindTextureUnit(kAnimationStreamUnit, gpu != nullptr ? gpu->streams[InstanceStreamId::Animation].texture.id() : 0);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kSkinPaletteBinding, palettes.buffer.id());
        std::array<glm::vec4, kMaxBakedClips> clips{};
        for (std::size_t c = 0; c < set->clips().size(); ++c) {
            const BakedClip& clip = set->clips()[c];
            clips[c] = glm::vec4(static_cast<float>(clip.firstFrame), static_cast<float>(clip.frameCount), clip.duration,
                                 clip.loops ? 1.0f : 0.0f);
        }
        glProgramUniform4fv(m_program.id(), m_uniforms.clips, static_cast<GLsizei>(set->clips().size()), &clips[0][0]);
        glProgramUniform1ui(m_program.id(), m_uniforms.instanceCount, static_cast<GLuint>(count));
        glProgramUniform1i(m_program.id(), m_uniforms.jointCount, static_cast<GLint>(palettes.joints));
        glProgramUniform1f(m_program.id(), m_uniforms.animationTime, batch.animationTime());
        // One invocation per (instance, joint), in dispatches of at most the driver's group count.
        const std::uint64_t invocations = std::uint64_t{count} * palettes.joints;
        const auto maxGroups = static_cast<std::uint64_t>(std::max<std::int64_t>(m_limits.maxComputeWorkGroups[0], 1));
        for (std::uint64_t first = 0; first < invocations; first += maxGroups * kGroupSize) {
            const std::uint64_t groups = std::min((invocations - first + kGroupSize - 1) / kGroupSize, maxGroups);
            glProgramUniform1ui(m_program.id(), m_uniforms.first, static_cast<GLuint>(first));
            const PhaseTimer timer(stats.skinPaletteMs);  // the driver's time (llvmpipe computes here)
            glDispatchCompute(static_cast<GLuint>(groups), 1, 1);
            ++stats.skinPaletteDispatches;
        }
        palettes.filled = true;
        palettes.setId = set->id();
        palettes.streamVersion = stream.version();
        palettes.time = batch.animationTime();
        palettes.count = count;
    }
    if (dispatched) {
        glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT);  // the draws read the palettes by texel fetch
    }
}

GLuint SkinPalettePass::texture(const InstancedMeshNode& batch) const {
    const auto it = m_batches.find(batch.id());
    return it == m_batches.end() ? 0 : it->second.texture.id();
}

void SkinPalettePass::endFrame() noexcept {
    std::erase_if(m_batches, [](const auto& entry) { return !entry.second.noted || entry.second.alive.expired(); });
    for (auto& [id, palettes] : m_batches) {
        palettes.noted = false;
    }
}

} // namespace myriad::gl::detail
