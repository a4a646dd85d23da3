#include "myriad/core/AnimationClip.h"

#include "core/Validate.h"
#include "myriad/core/SceneNode.h"
#include "myriad/util/Error.h"

#include <glm/gtc/quaternion.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>

namespace myriad {
namespace {

const char* propertyName(AnimatedProperty property) noexcept {
    switch (property) {
    case AnimatedProperty::Translation: return "translation";
    case AnimatedProperty::Rotation: return "rotation";
    case AnimatedProperty::Scale: return "scale";
    }
    return "?";
}

glm::quat toQuat(const glm::vec4& v) noexcept { return glm::quat(v.w, v.x, v.y, v.z); }

/** The channel's value at @p seconds (glTF 2.0 section 3.11 and Appendix C), as a vec4:
 *  xyz for translation and scale, a normalised quaternion (x, y, z, w) for rotation. */
glm::vec4 sampleChannel(const AnimationChannel& channel, float seconds) noexcept {
    const std::vector<float>& times = channel.times;
    const bool cubic = channel.interpolation == Interpolation::CubicSpline;
    const bool rotation = channel.property == AnimatedProperty::Rotation;
    // Keyframe k's value: values[k], or values[3k + 1] for a cubic spline (in, value, out).
    auto value = [&](std::size_t k) { return channel.values[cubic ? 3 * k + 1 : k]; };
    auto normalised = [&](glm::vec4 v) {
        if (!rotation) {
            return v;
        }
        const float length = glm::length(v);
        return length > 0.0f ? v / length : glm::vec4(0.0f, 0.0f, 0.0f, 1.0f);
    };
    if (seconds <= times.front()) {
        return normalised(value(0));
    }
    if (seconds >= times.back()) {
        return normalised(value(times.size() - 1));
    }
    // times[k] <= seconds < times[k + 1]
    const auto next = std::upper_bound(times.begin(), times.end(), seconds);
    const auto k1 = static_cast<std::size_t>(next - times.begin());
    const std::size_t k0 = k1 - 1;
    const float interval = times[k1] - times[k0];
    const float t = (seconds - times[k0]) / interval;
    switch (channel.interpolation) {
    case Interpolation::Step:
        return normalised(value(k0));
    case Interpolation::CubicSpline: {
        // Appendix C: p(t) = (2t^3 - 3t^2 + 1) v0 + (t^3 - 2t^2 + t) b0 + (-2t^3 + 3t^2) v1
        // + (t^3 - t^2) a1, with b0 = interval * out-tangent of k0, a1 = interval * in-tangent of k1.
        const float t2 = t * t;
        const float t3 = t2 * t;
        const glm::vec4 v0 = channel.values[3 * k0 + 1];
        const glm::vec4 b0 = interval * channel.values[3 * k0 + 2];
        const glm::vec4 v1 = channel.values[3 * k1 + 1];
        const glm::vec4 a1 = interval * channel.values[3 * k1];
        return normalised((2 * t3 - 3 * t2 + 1) * v0 + (t3 - 2 * t2 + t) * b0 + (-2 * t3 + 3 * t2) * v1 + (t3 - t2) * a1);
    }
    case Interpolation::Linear:
        break;
    }
    if (rotation) {
        // glm::slerp(quat, quat, a) takes the shorter arc (it flips one end when the dot
        // product is negative), as glTF's Appendix C asks.
        const glm::quat q = glm::slerp(toQuat(normalised(value(k0))), toQuat(normalised(value(k1))), t);
        return normalised(glm::vec4(q.x, q.y, q.z, q.w));
    }
    return value(k0) + (value(k1) - value(k0)) * t;
}

} // namespace

AnimationClip::AnimationClip(std::string name, std::vector<AnimationChannel> channels,
                             std::vector<std::string> targetNames)
    : m_name(std::move(name)), m_targetNames(std::move(targetNames)) {
    const std::string where = "AnimationClip('" + m_name + "')";
    for (std::size_t c = 0; c < channels.size(); ++c) {
        const AnimationChannel& channel = channels[c];
        const std::string which = where + ": channel " + std::to_string(c);
        if (channel.property > AnimatedProperty::Scale) {
            throw InvalidArgument(which + " has property " + std::to_string(static_cast<int>(channel.property)) +
                                  ", not an AnimatedProperty");
        }
        if (channel.interpolation > Interpolation::CubicSpline) {
            throw InvalidArgument(which + " has interpolation " +
                                  std::to_string(static_cast<int>(channel.interpolation)) + ", not an Interpolation");
        }
        const std::string described = which + " (" + propertyName(channel.property) + " of target " +
                                      std::to_string(channel.target) + ")";
        if (channel.times.empty()) {
            throw InvalidArgument(described + " has no keyframes");
        }
        for (std::size_t k = 0; k < channel.times.size(); ++k) {
            const float time = channel.times[k];
            if (!std::isfinite(time) || time < 0.0f || (k > 0 && !(time > channel.times[k - 1]))) {
                throw InvalidArgument(described + ": keyframe " + std::to_string(k) + " has time " +
                                      std::to_string(time) + "; times must be finite, >= 0 and strictly increasing");
            }
        }
        const std::size_t perKey = channel.interpolation == Interpolation::CubicSpline ? 3 : 1;
        if (channel.values.size() != perKey * channel.times.size()) {
            throw InvalidArgument(described + " has " + std::to_string(channel.values.size()) + " values for " +
                                  std::to_string(channel.times.size()) + " keyframes (" + std::to_string(perKey) +
                                  " per keyframe expected)");
        }
        for (const glm::vec4& value : channel.values) {
            if (!detail::allFinite(value)) {
                throw InvalidArgument(described + " has a NaN or Inf value");
            }
        }
        if (!m_targetNames.empty() && channel.target >= m_targetNames.size()) {
            throw InvalidArgument(described + " targets " + std::to_string(channel.target) + ", past the " +
                                  std::to_string(m_targetNames.size()) + " target names");
        }
        m_duration = std::max(m_duration, channel.times.back());
        m_targetCount = std::max<std::size_t>(m_targetCount, std::size_t{channel.target} + 1);
    }
    m_channels = std::move(channels);
}

std::shared_ptr<const AnimationClip> AnimationClip::create(std::string name, std::vector<AnimationChannel> channels,
                                                           std::vector<std::string> targetNames) {
    return std::make_shared<const AnimationClip>(std::move(name), std::move(channels), std::move(targetNames));
}

void AnimationClip::sample(float seconds, std::span<JointTransform> pose) const {
    if (std::isnan(seconds)) {
        throw InvalidArgument("AnimationClip::sample('" + m_name + "'): time is NaN");
    }
    if (m_targetCount > pose.size()) {
        throw InvalidArgument("AnimationClip::sample('" + m_name + "'): the clip drives target " +
                              std::to_string(m_targetCount - 1) + ", past a pose of " + std::to_string(pose.size()) +
                              " transforms");
    }
    for (const AnimationChannel& channel : m_channels) {
        const glm::vec4 value = sampleChannel(channel, seconds);
        JointTransform& transform = pose[channel.target];
        switch (channel.property) {
        case AnimatedProperty::Translation: transform.translation = glm::vec3(value); break;
        case AnimatedProperty::Rotation: transform.rotation = toQuat(value); break;
        case AnimatedProperty::Scale: transform.scale = glm::vec3(value); break;
        }
    }
}

float AnimationClip::loopTime(double seconds) const noexcept {
    if (!(m_duration > 0.0f) || !std::isfinite(seconds)) {
        return 0.0f;
    }
    const double wrapped = std::fmod(seconds, static_cast<double>(m_duration));
    const auto result = static_cast<float>(wrapped < 0.0 ? wrapped + m_duration : wrapped);
    return result < m_duration ? result : 0.0f;  // a float rounding up to duration wraps to 0
}

std::vector<SceneNode*> bindClipToNodes(const AnimationClip& clip, SceneNode& root) {
    const std::span<const std::string> names = clip.targetNames();
    if (names.empty()) {
        throw InvalidArgument("bindClipToNodes('" + clip.name() + "'): the clip has no target names to look up");
    }
    std::vector<SceneNode*> targets(names.size(), nullptr);
    std::size_t found = 0;
    std::function<void(SceneNode&)> visit = [&](SceneNode& node) {
        for (std::size_t t = 0; t < names.size(); ++t) {
            if (targets[t] == nullptr && node.name() == names[t]) {
                targets[t] = &node;
                ++found;
            }
        }
        for (std::size_t c = 0; c < node.childCount() && found < names.size(); ++c) {
            visit(node.child(c));
        }
    };
    visit(root);
    for (std::size_t t = 0; t < names.size(); ++t) {
        if (targets[t] == nullptr) {
            throw InvalidArgument("bindClipToNodes('" + clip.name() + "'): no node named '" + names[t] +
                                  "' (target " + std::to_string(t) + ") under '" + root.name() + "'");
        }
    }
    return targets;
}

void applyClip(const AnimationClip& clip, float seconds, std::span<SceneNode* const> targets) {
    if (targets.size() < clip.targetCount()) {
        throw InvalidArgument("applyClip('" + clip.name() + "'): " + std::to_string(targets.size()) +
                              " targets for a clip that drives " + std::to_string(clip.targetCount()));
    }
    if (std::isnan(seconds)) {
        throw InvalidArgument("applyClip('" + clip.name() + "'): time is NaN");
    }
    for (const AnimationChannel& channel : clip.channels()) {
        SceneNode* node = targets[channel.target];
        if (node == nullptr) {
            continue;
        }
        const glm::vec4 value = sampleChannel(channel, seconds);
        switch (channel.property) {
        case AnimatedProperty::Translation: node->setPosition(glm::dvec3(glm::vec3(value))); break;
        case AnimatedProperty::Rotation: node->setRotation(toQuat(value)); break;
        case AnimatedProperty::Scale: node->setScale(glm::vec3(value)); break;
        }
    }
}

} // namespace myriad
