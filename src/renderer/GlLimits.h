#pragma once
// Internal to myriad_gl: the GL implementation limits the renderer depends on, read once per
// context. The Renderer queries them when it is made (a Renderer lives on one context, or on
// contexts of one share group and driver) and hands the record to every part that sizes a
// buffer texture, a storage block, a texture or a dispatch; nothing reads a limit again in a
// frame. docs/architecture.md ("Limits the renderer checks") lists what each one guards.
#include "gl/GlCommon.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace myriad::gl::detail {

// GL 4.6 / ARB_texture_filter_anisotropic / EXT_texture_filter_anisotropic (one value for all
// three); the loader is generated for 4.5 core without them.
inline constexpr GLenum kTextureMaxAnisotropy = 0x84FE;
inline constexpr GLenum kMaxTextureMaxAnisotropy = 0x84FF;

/** Every field is 0 until query() fills it (a GlLimits made by hand is a test ceiling:
 *  lowerGlLimitsForTesting()). */
struct GlLimits {
    /** GL_MAX_TEXTURE_BUFFER_SIZE, texels: records (4 RGBA32F texels per instance) read by the
     *  indexed path and GPU-culled draws, side streams, visible-index lists (CPU and GPU, all
     *  LOD slots), morph deltas (2 texels per target and vertex), particle streams and order,
     *  population lanes. 2^27 on NVIDIA, Intel and Mesa; the spec's minimum is 65,536. */
    std::int64_t maxTextureBufferTexels = 0;
    /** GL_MAX_SHADER_STORAGE_BLOCK_SIZE, bytes: GPU culling's record, list and held-level
     *  blocks (at least 2^27 by the spec). */
    std::int64_t maxShaderStorageBlockBytes = 0;
    /** GL_MAX_SHADER_STORAGE_BUFFER_BINDINGS: Renderer::dispatch's binding points. */
    std::int64_t maxShaderStorageBindings = 0;
    /** GL_MAX_TEXTURE_SIZE, texels per side: the shadow map's mapSize. */
    std::int64_t maxTextureSize = 0;
    /** GL_MAX_COMPUTE_WORK_GROUP_COUNT per axis: GPU culling's and Renderer::dispatch's groups. */
    std::array<std::int64_t, 3> maxComputeWorkGroups{};
    /** GL_MAX_TEXTURE_MAX_ANISOTROPY: the most Material::maxAnisotropy a sampler gets; 1 without
     *  GL 4.6 or GL_ARB/EXT_texture_filter_anisotropic. Not lowered by the test hook. */
    float maxTextureAnisotropy = 1.0f;

    /** Reads every limit above from the current context (seven glGet calls, and the extension list once for anisotropy), each lowered to
     *  the test ceiling if one is set (lowerGlLimitsForTesting). Once per Renderer. */
    [[nodiscard]] static GlLimits query();
};

/** Test hook: GlLimits::query() reports no limit above the matching field of @p ceiling (a
 *  field <= 0 leaves that limit as the driver reports it), so a test can make a scene cross a
 *  limit its driver would never reach. Affects Renderers made afterwards; process-wide, not
 *  thread-safe (call between frames, on the GL thread). */
void lowerGlLimitsForTesting(const GlLimits& ceiling) noexcept;
/** Ends lowerGlLimitsForTesting(): later queries report the driver's limits. */
void resetGlLimitsForTesting() noexcept;

/** Throws CapacityError unless @p texels <= limits.maxTextureBufferTexels. The message names
 *  @p node (nodeName()), the stream or list (@p what), the texels it needs and the limit with its
 *  value, and says what to do instead (@p advice, may be empty). Builds no string when it fits:
 *  called per draw item and frame. */
void requireTextureBufferTexels(const GlLimits& limits, std::uint64_t texels, const SceneNode& node,
                                std::string_view what, std::string_view advice = {});
/** The same for a shader storage block of @p bytes against maxShaderStorageBlockBytes. */
void requireStorageBlockBytes(const GlLimits& limits, std::uint64_t bytes, const SceneNode& node,
                              std::string_view what, std::string_view advice = {});

/** The capacity a growing list or buffer gets: @p needed rounded up to a power of two (at least
 *  64), so one that grows a little at a time reallocates O(log n) times, but never past
 *  @p limit when @p needed fits in it, so a list that fits is never refused for its slack
 *  (never below @p needed: what does not fit is the caller's refusal to make). */
[[nodiscard]] inline std::size_t grownCapacity(std::size_t needed, std::size_t limit) noexcept {
    return std::max(needed, std::min(std::bit_ceil(std::max<std::size_t>(needed, 64)), limit));
}

} // namespace myriad::gl::detail
