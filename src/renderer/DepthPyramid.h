#pragma once
// Internal to myriad_gl: GPU occlusion culling's hierarchical depth pyramid (docs/visibility.md,
// "GPU occlusion culling: the depth pyramid and the two phases"). Per view pass with occlusion
// culling, after its opaque draws, shaders/depth_pyramid.comp copies the viewport's depth
// (View::depthTexture) into level 0 and reduces each next level to the farthest depth of the
// texels below it (max; min with View::reversedDepth), odd edges included; cull.comp's second
// phase reads it. The idea: Greene, Kass and Miller, "Hierarchical Z-Buffer Visibility"
// (SIGGRAPH 1993); as a compute-built pyramid for GPU culling, Haar and Aaltonen,
// "GPU-Driven Rendering Pipelines" (SIGGRAPH 2015) and Kapoulkine's niagara.
//
// Storage: one R32F storage buffer per view pass, the levels one after the other (row-major),
// not a mipmapped R32F texture: the renderer binds no image units (writing a texture level
// from compute needs one, and the GL state contract would have to capture and restore them),
// while storage bindings are already the cull pass's. Same values, same texel rule.
#include "gl/GlCommon.h"
#include "myriad/gl/Buffer.h"
#include "myriad/gl/FrameStats.h"
#include "myriad/gl/Program.h"
#include "myriad/gl/View.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <unordered_map>

namespace myriad::gl::detail {

struct GlLimits;

/** Where a built pyramid's levels are: what cull.comp's second phase is given. */
struct DepthPyramidLevels {
    static constexpr std::size_t kMaxLevels = 16;  ///< 2^15 pixels a side and more: past any viewport GL allows
    GLuint buffer = 0;              ///< R32F values, every level
    std::int32_t levelCount = 0;    ///< floor(log2(max(width, height))) + 1
    std::array<std::uint32_t, kMaxLevels> offset{};          ///< each level's first value
    std::array<std::array<std::int32_t, 2>, kMaxLevels> size{};  ///< each level's texels: max(1, side >> k)
};

class DepthPyramid {
public:
    explicit DepthPyramid(const GlLimits& limits) noexcept : m_limits(limits) {}
    ~DepthPyramid();
    DepthPyramid(const DepthPyramid&) = delete;
    DepthPyramid& operator=(const DepthPyramid&) = delete;

    /** Builds pass @p pass's pyramid from @p view's depth texture over its viewport: one
     *  dispatch per level (8x8 work groups), a glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT)
     *  between levels and after the last (the cull's second phase reads it as storage). The
     *  buffer is made on first use and again only when the viewport's size changes. Binds the
     *  pyramid program, the depth texture on kPyramidDepthUnit (unbound again after) and the
     *  buffer on kCullPyramidBinding. Counts FrameStats::pyramidBuilds.
     *  The depth texture is read through the pyramid's own sampler object (nearest, no
     *  comparison), so a game's texture with mipmap filtering and one level (incomplete: every
     *  fetch 0, everything "hidden") or a compare mode (undefined through a sampler2D, OpenGL
     *  4.5 section 11.1.3.5) reads its depth all the same; the sampler is unbound after.
     *  @throws CapacityError when the viewport needs more than kMaxLevels levels (a side of
     *  65,536 pixels or more), the pyramid (4 bytes a texel, 4/3 of the viewport) is larger
     *  than GL_MAX_SHADER_STORAGE_BLOCK_SIZE or level 0's work groups exceed
     *  GL_MAX_COMPUTE_WORK_GROUP_COUNT; ShaderError if the program does not compile. */
    const DepthPyramidLevels& build(std::size_t pass, const View& view, FrameStats& stats);
    /** Compiles the program if it does not exist yet (Renderer::prepare: the first frame then
     *  compiles nothing). @throws ShaderError as build(). */
    void prepareProgram() { ensureProgram(); }
    /** Frees the pyramids of passes not built for kKeepFrames frames. */
    void endFrame() noexcept;
    /** Frees every pyramid not built in the last frame. */
    void trim() noexcept;
    /** The shader (for the tests' second compiler). */
    [[nodiscard]] static ShaderSource programSource();

private:
    static constexpr std::uint64_t kKeepFrames = 120;
    struct Pyramid {
        Buffer buffer;
        std::uint32_t width = 0;
        std::uint32_t height = 0;
        DepthPyramidLevels levels;
        std::uint64_t lastBuiltFrame = 0;
    };
    void ensureProgram();

    const GlLimits& m_limits;
    Program m_program;
    std::uint64_t m_usedFrame = 0;  ///< FrameStats::programsUsed (useCounted)
    GLuint m_depthSampler = 0;  ///< nearest, no compare: made with the program
    struct Uniforms {
        int level = -1, viewportOrigin = -1, size = -1, sourceSize = -1, offset = -1, sourceOffset = -1,
            reversedDepth = -1;
    } m_uniforms;
    std::unordered_map<std::size_t, Pyramid> m_pyramids;  ///< by view pass
    std::uint64_t m_frame = 0;
};

} // namespace myriad::gl::detail
