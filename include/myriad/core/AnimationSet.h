#pragma once
/** @file
 *  Clips baked for instanced crowds: every clip of a skeleton sampled once into skin matrices
 *  per frame, which a renderer uploads once as an animation texture and blends on the GPU into
 *  each instance's palette at its own time, so a crowd where only time changes writes nothing
 *  per frame (the baked-animation technique of Ogre's HWInstancingVTF with shared animations
 *  and of Babylon's baked vertex animation, with time advanced on the GPU). No GL. docs/skinning.md, "Crowds". */
#include "myriad/core/AnimationClip.h"
#include "myriad/core/Bounds.h"
#include "myriad/core/Skeleton.h"

#include <glm/vec4.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace myriad {

class MeshGeometry;

/** Most clips one AnimationSet holds (the GPU's palette pass keeps their table in uniforms). */
inline constexpr std::size_t kMaxBakedClips = 32;

/** How AnimationSet samples its clips. */
struct AnimationBakeOptions {
    /** Frames per second of clip time, > 0 and <= 240. A clip of d seconds gets
     *  max(1, round(d * framesPerSecond)) + 1 frames, evenly spaced from 0 to d; the vertex
     *  stage blends the two frames around the time it draws (linearly, per matrix). */
    float framesPerSecond = 30.0f;
    /** Names of clips that play once and hold their last frame; every other clip loops. */
    std::vector<std::string> playOnce;
};

/** One clip as baked. */
struct BakedClip {
    std::string name;              ///< the AnimationClip's name
    float duration = 0.0f;         ///< seconds (AnimationClip::duration())
    std::uint32_t firstFrame = 0;  ///< its first frame in AnimationSet::frameCount()
    std::uint32_t frameCount = 0;  ///< frames, >= 2, the first at 0 s and the last at duration
    bool loops = true;             ///< false: clip time clamps to [0, duration]
    Aabb bounds;                   ///< every frame's posed box (SkinBounds::posedBounds), united; skeleton space
};

/** What one instance of an animated batch plays (InstancedMeshNode::setAnimation): clip
 *  `clip`, whose local time at batch time T is (T - startTime) * speed (looped or clamped as
 *  the clip says), optionally cross-fading from another clip: over [fadeStart, fadeStart +
 *  fadeDuration] of batch time the skin matrices go linearly from fadeFromClip's (playing at
 *  (T - fadeFromStartTime) * fadeFromSpeed) to clip's, the blend weight of `clip` being
 *  clamp((T - fadeStart) / fadeDuration, 0, 1). Seconds throughout, in float: keep batch time
 *  small (restart it when it passes hours). 32 bytes in the batch's animation stream. */
struct InstanceAnimation {
    /** fadeFromClip when there is no fade. */
    static constexpr std::uint32_t kNoFade = 0xFFFFFFFFu;
    std::uint32_t clip = 0;               ///< index into AnimationSet::clips()
    float startTime = 0.0f;               ///< batch time at which the clip's time is 0
    float speed = 1.0f;                   ///< clip seconds per batch second; 0 holds, negative plays back
    std::uint32_t fadeFromClip = kNoFade; ///< the clip faded out of, or kNoFade
    float fadeFromStartTime = 0.0f;       ///< as startTime, for fadeFromClip
    float fadeFromSpeed = 1.0f;           ///< as speed, for fadeFromClip
    float fadeStart = 0.0f;               ///< batch time the fade starts
    float fadeDuration = 0.0f;            ///< seconds; <= 0 with a fade: clip's matrices from fadeStart on
    /** Equal when every field is. */
    friend bool operator==(const InstanceAnimation&, const InstanceAnimation&) = default;
};

/** The clips of one skeleton, baked: frameCount() frames of jointCount() skin matrices
 *  (Skeleton::skinMatrices of the clip's pose, rest pose where a clip drives no channel), each
 *  stored as its three top rows (12 floats, 48 bytes; the fourth row of an affine matrix is
 *  0, 0, 0, 1). Immutable, shared by every batch that plays it
 *  (std::shared_ptr<const AnimationSet>); a renderer uploads it once. Thread safety: immutable after construction. */
class AnimationSet {
public:
    /** Bakes @p clips for @p mesh on @p skeleton. @p mesh is what the batch draws (its skin
     *  gives the bounds: SkinBounds of every frame, united per clip and overall).
     *  @throws InvalidArgument if the skeleton is null, there are no clips or more than
     *  kMaxBakedClips, a clip is null or targets a joint the skeleton lacks, two clips share a
     *  name, a playOnce name matches no clip, framesPerSecond is outside (0, 240], @p mesh is
     *  not skinned for this skeleton (SkinBounds), or the frames would pass 2^31 floats.
     *  The message names the clip. */
    AnimationSet(std::shared_ptr<const Skeleton> skeleton, std::span<const std::shared_ptr<const AnimationClip>> clips,
                 const MeshGeometry& mesh, const AnimationBakeOptions& options = {});
    /** Convenience: std::make_shared<const AnimationSet>(...). @throws as the constructor. */
    [[nodiscard]] static std::shared_ptr<const AnimationSet> bake(std::shared_ptr<const Skeleton> skeleton,
                                                                  std::span<const std::shared_ptr<const AnimationClip>> clips,
                                                                  const MeshGeometry& mesh,
                                                                  const AnimationBakeOptions& options = {});

    /** Process-wide serial number, never reused (a renderer keys its GPU copy by it). */
    [[nodiscard]] std::uint64_t id() const noexcept { return m_id; }
    /** The skeleton the clips were baked for (never null). */
    [[nodiscard]] const std::shared_ptr<const Skeleton>& skeleton() const noexcept { return m_skeleton; }
    /** Joints per frame (skeleton()->jointCount()). */
    [[nodiscard]] std::size_t jointCount() const noexcept { return m_skeleton->jointCount(); }
    /** The baked clips, in the order given. */
    [[nodiscard]] std::span<const BakedClip> clips() const noexcept { return m_clips; }
    /** Index of the clip named @p name, or -1. */
    [[nodiscard]] std::int32_t findClip(std::string_view name) const noexcept;
    /** Frames per second the clips were sampled at. */
    [[nodiscard]] float framesPerSecond() const noexcept { return m_framesPerSecond; }
    /** Frames of every clip together. */
    [[nodiscard]] std::uint32_t frameCount() const noexcept { return m_frameCount; }
    /** The baked matrices: frame f, joint j, row r (0..2) at texel (f * jointCount() + j) * 3 + r,
     *  each texel one row of the 3x4 skin matrix (mesh bind space to skeleton space). */
    [[nodiscard]] std::span<const glm::vec4> rows() const noexcept { return m_rows; }
    /** Bytes of rows(): the animation texture's size on the GPU. */
    [[nodiscard]] std::size_t byteSize() const noexcept { return m_rows.size() * sizeof(glm::vec4); }
    /** Every pose of every clip, united: the box per-instance culling takes for the mesh. */
    [[nodiscard]] const Aabb& bounds() const noexcept { return m_bounds; }

    /** The box, in the skeleton's space, around @p mesh in every baked frame
     *  (SkinBounds::posedBounds of each frame's joint matrices): what a batch drawing @p mesh
     *  with this set culls by: bounds() for the mesh it was baked with, else O(frames x joints).
     *  @throws InvalidArgument if @p mesh is not skinned or uses a joint past jointCount(). */
    [[nodiscard]] Aabb boundsFor(const MeshGeometry& mesh) const;
    /** What the GPU's palette pass (skin_palette.comp) computes for @p animation at batch time @p batchTime, on the CPU:
     *  the skin matrices of each clip at its local time (the two baked frames around it, blended
     *  linearly), faded as InstanceAnimation says. For tests and for CPU work on the same pose
     *  (attachments). @p skin: jointCount() matrices.
     *  @throws InvalidArgument if @p skin's size is wrong or a clip index is out of range. */
    void skinMatricesAt(const InstanceAnimation& animation, float batchTime, std::span<glm::mat4> skin) const;
    /** The clip-local time the GPU draws clip @p clip at, for batch time @p batchTime
     *  with @p startTime and @p speed (looped, or clamped for a play-once clip).
     *  @throws InvalidArgument if @p clip is out of range. */
    [[nodiscard]] float clipTime(std::uint32_t clip, float batchTime, float startTime, float speed) const;

private:
    std::uint64_t m_id = 0;
    std::shared_ptr<const Skeleton> m_skeleton;
    std::vector<BakedClip> m_clips;
    std::vector<glm::vec4> m_rows;
    float m_framesPerSecond = 30.0f;
    std::uint32_t m_frameCount = 0;
    Aabb m_bounds;
    std::uint64_t m_bakedMeshId = 0;  ///< the mesh m_bounds is of (MeshGeometry::id())
};

} // namespace myriad
