#pragma once
// Internal to myriad_gl: a skinned crowd's per-instance palettes (docs/skinning.md, "Crowds").
// Each frame, before the first draw, one compute dispatch per batch playing an AnimationSet
// (shaders/skin_palette.comp) blends every drawn instance's skin matrices for its own clip
// time into a buffer of capacity x joints x 3 RGBA32F rows; the vertex stage reads an
// instance's palette as it reads a posed node's (three texels a joint influence). So the clip
// arithmetic and the frame blend run once an instance and joint, not once a vertex: on
// llvmpipe a Fox crowd's vertex stage reads half the texels it read when it blended the baked
// frames itself. A batch whose clock, animation stream, set and count did not change since its
// last dispatch is not dispatched again.
#include "gl/GlCommon.h"  // TextureHandle, GLuint
#include "myriad/gl/Buffer.h"
#include "myriad/gl/FrameStats.h"
#include "myriad/gl/Program.h"
#include "myriad/gl/Texture.h"

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

namespace myriad {
class InstancedMeshNode;
} // namespace myriad

namespace myriad::gl::detail {

class GpuResources;
struct GlLimits;

class SkinPalettePass {
public:
    explicit SkinPalettePass(const GlLimits& limits) noexcept : m_limits(limits) {}

    /** In prepare(): @p batch (playing an AnimationSet) is drawn this frame; its palette buffer
     *  is made or resized for its capacity (once per frame, however many views draw it).
     *  @throws CapacityError naming the batch when capacity x joints x 3 texels pass
     *  GL_MAX_TEXTURE_BUFFER_SIZE or capacity x joints x 48 bytes GL_MAX_SHADER_STORAGE_BLOCK_SIZE
     *  (nothing made then). */
    void note(const InstancedMeshNode& batch);
    /** Before the first draw: the noted batches' palettes, one dispatch each (none for a batch
     *  with nothing changed), a storage barrier before the first (last frame's draws read the
     *  buffers it writes) and a texture-fetch barrier after the last. Counts into @p stats
     *  (skinPaletteDispatches). */
    void dispatch(GpuResources& resources, FrameStats& stats);
    /** The buffer texture of @p batch's palettes for this frame's draws (dispatch() filled it). */
    [[nodiscard]] GLuint texture(const InstancedMeshNode& batch) const;
    /** Frees the buffers of batches not noted this frame (drawn no more, or destroyed). */
    void endFrame() noexcept;
    /** The shader source (for the tests' second compiler). */
    [[nodiscard]] static ShaderSource programSource();

private:
    struct Palettes {
        std::weak_ptr<const void> alive;  // SceneNode::lifetime()
        const InstancedMeshNode* node = nullptr;
        Buffer buffer;
        TextureHandle texture;
        std::size_t capacity = 0;  ///< instances the buffer holds
        std::size_t joints = 0;
        bool noted = false;        ///< drawn this frame
        // What the palettes hold: dispatch() skips a batch none of these changed for.
        std::uint64_t setId = 0;
        std::uint64_t streamVersion = 0;
        float time = 0.0f;
        std::size_t count = 0;
        bool filled = false;
    };
    void ensureProgram();

    const GlLimits& m_limits;
    Program m_program;
    std::uint64_t m_usedFrame = 0;  ///< FrameStats::programsUsed (useCounted)
    struct Uniforms {
        int instanceCount = -1, jointCount = -1, animationTime = -1, clips = -1, first = -1;
    } m_uniforms;
    std::unordered_map<std::uint64_t, Palettes> m_batches;  ///< by SceneNode::id()
};

} // namespace myriad::gl::detail
