#include "renderer/DepthPyramid.h"
#include "renderer/ProgramUse.h"

#include "gl/Bindings.h"
#include "renderer/GlLimits.h"
#include "myriad/util/Error.h"

#include <algorithm>
#include <bit>
#include <string>

namespace myriad::gl::detail {
namespace {

constexpr std::uint32_t kLocalSize = 8;  // depth_pyramid.comp's local_size_x and _y

} // namespace

DepthPyramid::~DepthPyramid() {
    if (m_depthSampler != 0) {
        glDeleteSamplers(1, &m_depthSampler);
        countObject(ObjectKind::Sampler, -1);
    }
}

ShaderSource DepthPyramid::programSource() {
    return {ShaderStage::Compute, "depth_pyramid.comp", embeddedShaderText("depth_pyramid.comp")};
}

void DepthPyramid::ensureProgram() {
    if (m_program.id() != 0) {
        return;
    }
    const ShaderSource stage = programSource();
    m_program = Program(std::span(&stage, 1), "myriad/depth-pyramid");
    if (m_depthSampler == 0) {
        // The sampler's state replaces the texture's: complete (nearest, no mipmaps needed)
        // and no depth comparison, whatever the game set on its own depth texture.
        glCreateSamplers(1, &m_depthSampler);
        countObject(ObjectKind::Sampler, 1);
        glSamplerParameteri(m_depthSampler, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glSamplerParameteri(m_depthSampler, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
        glSamplerParameteri(m_depthSampler, GL_TEXTURE_COMPARE_MODE, GL_NONE);
        setLabel(GL_SAMPLER, m_depthSampler, "myriad/depth-pyramid.depth-sampler");
    }
    const Program& p = m_program;
    m_uniforms = {.level = p.uniformLocation("u_level"),
                  .viewportOrigin = p.uniformLocation("u_viewportOrigin"),
                  .size = p.uniformLocation("u_size"),
                  .sourceSize = p.uniformLocation("u_sourceSize"),
                  .offset = p.uniformLocation("u_offset"),
                  .sourceOffset = p.uniformLocation("u_sourceOffset"),
                  .reversedDepth = p.uniformLocation("u_reversedDepth")};
}

const DepthPyramidLevels& DepthPyramid::build(std::size_t pass, const View& view, FrameStats& stats) {
    const std::uint32_t width = view.viewport.width;
    const std::uint32_t height = view.viewport.height;
    Pyramid& pyramid = m_pyramids[pass];
    if (pyramid.width != width || pyramid.height != height || !pyramid.buffer) {
        // The levels' places: level k is max(1, side >> k) a side, down to 1x1.
        DepthPyramidLevels levels;
        levels.levelCount = std::bit_width(std::max(width, height));
        if (static_cast<std::size_t>(levels.levelCount) > DepthPyramidLevels::kMaxLevels) {
            throw CapacityError("gl::Renderer::render: the occlusion depth pyramid of a " + std::to_string(width) + "x" +
                                std::to_string(height) + " viewport needs " + std::to_string(levels.levelCount) +
                                " levels, above " + std::to_string(DepthPyramidLevels::kMaxLevels) +
                                " (a side below 65,536 pixels); turn View::occlusionCulling off or use a smaller viewport");
        }
        std::uint64_t texels = 0;
        for (std::int32_t k = 0; k < levels.levelCount; ++k) {
            levels.offset[k] = static_cast<std::uint32_t>(texels);
            levels.size[k] = {static_cast<std::int32_t>(std::max(width >> k, 1u)),
                              static_cast<std::int32_t>(std::max(height >> k, 1u))};
            texels += std::uint64_t{static_cast<std::uint32_t>(levels.size[k][0])} *
                      static_cast<std::uint32_t>(levels.size[k][1]);
        }
        const std::uint64_t bytes = texels * sizeof(float);
        if (bytes > static_cast<std::uint64_t>(m_limits.maxShaderStorageBlockBytes)) {
            throw CapacityError("gl::Renderer::render: the occlusion depth pyramid of a " + std::to_string(width) + "x" +
                                std::to_string(height) + " viewport needs " + std::to_string(bytes) +
                                " bytes, above GL_MAX_SHADER_STORAGE_BLOCK_SIZE (" +
                                std::to_string(m_limits.maxShaderStorageBlockBytes) +
                                " on this driver); turn View::occlusionCulling off or use a smaller viewport");
        }
        const std::uint64_t groupsX = (width + kLocalSize - 1) / kLocalSize;
        const std::uint64_t groupsY = (height + kLocalSize - 1) / kLocalSize;
        if (static_cast<std::int64_t>(groupsX) > m_limits.maxComputeWorkGroups[0] ||
            static_cast<std::int64_t>(groupsY) > m_limits.maxComputeWorkGroups[1]) {
            throw CapacityError("gl::Renderer::render: the occlusion depth pyramid of a " + std::to_string(width) + "x" +
                                std::to_string(height) + " viewport needs " + std::to_string(groupsX) + "x" +
                                std::to_string(groupsY) + " work groups, above GL_MAX_COMPUTE_WORK_GROUP_COUNT; turn "
                                "View::occlusionCulling off or use a smaller viewport");
        }
        pyramid.buffer = Buffer({.sizeBytes = static_cast<std::size_t>(bytes),
                                 .label = "myriad/occlusion-depth-pyramid (view pass " + std::to_string(pass) + ")"});
        pyramid.width = width;
        pyramid.height = height;
        pyramid.levels = levels;
        pyramid.levels.buffer = pyramid.buffer.id();
    }
    pyramid.lastBuiltFrame = m_frame;
    ensureProgram();
    useCounted(m_program, m_usedFrame, stats);
    const Program& p = m_program;
    const Uniforms& u = m_uniforms;
    const DepthPyramidLevels& levels = pyramid.levels;
    // Level 0 reads the depth the view's draws wrote: framebuffer writes before a texture fetch
    // in a later command need no barrier (OpenGL 4.5 section 9.3: only a draw that samples its
    // own attachment is a feedback loop; a dispatch draws nothing).
    glBindTextureUnit(kPyramidDepthUnit, view.depthTexture);
    glBindSampler(kPyramidDepthUnit, m_depthSampler);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, kCullPyramidBinding, levels.buffer);
    glProgramUniform2i(p.id(), u.viewportOrigin, view.viewport.x, view.viewport.y);
    glProgramUniform1i(p.id(), u.reversedDepth, view.reversedDepth ? 1 : 0);
    for (std::int32_t k = 0; k < levels.levelCount; ++k) {
        if (k > 0) {
            // Level k reads level k - 1's storage writes.
            glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
        }
        const auto& size = levels.size[k];
        const auto& source = levels.size[k > 0 ? k - 1 : 0];
        glProgramUniform1i(p.id(), u.level, k);
        glProgramUniform2i(p.id(), u.size, size[0], size[1]);
        glProgramUniform2i(p.id(), u.sourceSize, source[0], source[1]);
        glProgramUniform1ui(p.id(), u.offset, levels.offset[k]);
        glProgramUniform1ui(p.id(), u.sourceOffset, levels.offset[k > 0 ? k - 1 : 0]);
        glDispatchCompute((static_cast<GLuint>(size[0]) + kLocalSize - 1) / kLocalSize,
                          (static_cast<GLuint>(size[1]) + kLocalSize - 1) / kLocalSize, 1);
    }
    // The cull's second phase reads the levels as storage.
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    // The depth texture stays attached to the view's framebuffer: no unit keeps it bound while
    // the view goes on drawing into it.
    glBindTextureUnit(kPyramidDepthUnit, 0);
    glBindSampler(kPyramidDepthUnit, 0);
    ++stats.pyramidBuilds;
    return levels;
}

void DepthPyramid::endFrame() noexcept {
    ++m_frame;
    std::erase_if(m_pyramids, [&](const auto& entry) { return entry.second.lastBuiltFrame + kKeepFrames < m_frame; });
}

void DepthPyramid::trim() noexcept {
    std::erase_if(m_pyramids, [&](const auto& entry) { return entry.second.lastBuiltFrame + 1 != m_frame; });
}

} // namespace myriad::gl::detail
