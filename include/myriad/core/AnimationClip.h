#pragma once
/** @file
 *  Keyframed transform animation (glTF 2.0 section 3.11, "Animations": translation, rotation
 *  and scale channels with LINEAR, STEP or CUBICSPLINE samplers), sampled on the CPU into a
 *  pose: the joints of a Skeleton, or any list of targets (scene nodes, through
 *  bindClipToNodes() and applyClip()). No GL. docs/skinning.md. */
#include "myriad/core/MorphAnimation.h"  // Interpolation
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

class SceneNode;

/** Which part of a target's TRS a channel drives (glTF channel.target.path). */
enum class AnimatedProperty : std::uint8_t {
    Translation,  ///< xyz, in the target parent's units
    Rotation,     ///< unit quaternion xyzw, as glTF stores it
    Scale,        ///< xyz, per axis
};

/** One channel: the keyframes of one property of one target. Value type. */
struct AnimationChannel {
    std::uint32_t target = 0;  ///< index of the target (a joint index, or into AnimationClip::targetNames())
    AnimatedProperty property = AnimatedProperty::Translation;  ///< what it drives
    Interpolation interpolation = Interpolation::Linear;        ///< how values between keyframes are found
    std::vector<float> times;  ///< seconds, finite, >= 0, strictly increasing, at least one
    /** Per keyframe one value (Linear, Step) or three (CubicSpline: in-tangent, value,
     *  out-tangent, glTF's order): xyz for translation and scale (w ignored), a quaternion as
     *  (x, y, z, w) for rotation. */
    std::vector<glm::vec4> values;
};

/** A named set of channels played together: a walk, a run. Immutable once made; shared
 *  (std::shared_ptr<const AnimationClip>) by every node and baked set that plays it.
 *
 *  Sampling follows glTF 2.0 section 3.11 and its Appendix C: before the first keyframe the
 *  first value, after the last the last; Linear lerps translation and scale and slerps
 *  rotation (the shorter way round); Step holds a keyframe's value until the next; CubicSpline
 *  is the cubic Hermite spline with tangents scaled by the keyframe interval, a rotation
 *  normalised after. Thread safety: immutable, readable from any thread. */
class AnimationClip {
public:
    /** Validates and takes the channels.
     *  @p targetNames: optional, one name per target (the importer gives the glTF nodes'
     *  names), so that bindClipToNodes() can find the targets; when not empty, every channel's
     *  target must be below its size.
     *  @throws InvalidArgument if a channel has no keyframes, times that are NaN, Inf, negative
     *  or not strictly increasing, a value count that is not one (three for CubicSpline) per
     *  keyframe, a NaN or Inf value, an enum value out of range, or a target past targetNames;
     *  the message names the clip and the channel. */
    AnimationClip(std::string name, std::vector<AnimationChannel> channels, std::vector<std::string> targetNames = {});
    /** Convenience: std::make_shared<const AnimationClip>(...). @throws as the constructor. */
    [[nodiscard]] static std::shared_ptr<const AnimationClip> create(std::string name,
                                                                    std::vector<AnimationChannel> channels,
                                                                    std::vector<std::string> targetNames = {});

    /** The clip's name (glTF animation.name, or "animation<i>"). */
    [[nodiscard]] const std::string& name() const noexcept { return m_name; }
    /** Seconds: the latest keyframe time of any channel (0 with one keyframe each). */
    [[nodiscard]] float duration() const noexcept { return m_duration; }
    /** The channels, as given. */
    [[nodiscard]] std::span<const AnimationChannel> channels() const noexcept { return m_channels; }
    /** Names of the targets, as given (may be empty). */
    [[nodiscard]] std::span<const std::string> targetNames() const noexcept { return m_targetNames; }
    /** 1 + the highest target index of any channel: the pose size sample() needs. */
    [[nodiscard]] std::size_t targetCount() const noexcept { return m_targetCount; }

    /** Writes the properties this clip animates at @p seconds into @p pose[target]; what no
     *  channel drives keeps the value it had (start from Skeleton::restPose()). Times outside
     *  [0, duration()] clamp (glTF); loop with loopTime(). No allocation.
     *  @throws InvalidArgument if @p seconds is NaN or a channel's target is not below
     *  pose.size() (nothing is written then). */
    void sample(float seconds, std::span<JointTransform> pose) const;
    /** @p seconds wrapped into [0, duration()) (duration 0: 0), for a clip that loops. */
    [[nodiscard]] float loopTime(double seconds) const noexcept;

private:
    std::string m_name;
    std::vector<AnimationChannel> m_channels;
    std::vector<std::string> m_targetNames;
    float m_duration = 0.0f;
    std::size_t m_targetCount = 0;
};

/** The scene nodes @p clip's targets name: for each target index, the first node named
 *  targetNames()[index] in @p root's subtree (root included, depth first, tree order).
 *  Ownership: the pointers are @p root's descendants; they dangle if those are destroyed.
 *  @throws InvalidArgument if the clip has no target names; NotFound-style InvalidArgument
 *  naming the first target no node in the subtree has. */
[[nodiscard]] std::vector<SceneNode*> bindClipToNodes(const AnimationClip& clip, SceneNode& root);

/** Plays @p clip at @p seconds on scene nodes (glTF node animations, such as Kenney's
 *  character walking with its parts): each node's translation, rotation and scale become the
 *  sampled ones where a channel drives them; the rest keep their value. @p targets: one node
 *  per target index (bindClipToNodes()), null for a target to leave alone.
 *  @throws InvalidArgument if @p targets is shorter than clip.targetCount() or @p seconds is
 *  NaN; no node is changed then. */
void applyClip(const AnimationClip& clip, float seconds, std::span<SceneNode* const> targets);

} // namespace myriad
