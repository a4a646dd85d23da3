#pragma once
/** @file
 *  Keyframed morph weights (a glTF animation channel with path "weights"). */
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace myriad {

/** How values between keyframes are found (glTF 2.0 section 3.11, "Animations"). */
enum class Interpolation : std::uint8_t {
    Linear,       ///< straight line between neighbouring keyframes
    Step,         ///< the earlier keyframe's value until the next keyframe
    CubicSpline,  ///< Hermite spline; each keyframe stores in-tangent, value, out-tangent
};

/** Weights of one mesh's morph targets over time. Value type.
 *  values holds, per keyframe, targetCount weights (x3 for CubicSpline: in-tangents, values,
 *  out-tangents, as glTF stores them). */
struct MorphAnimation {
    std::string name;                 ///< glTF animation name (or "animation<i>")
    std::vector<float> times;         ///< seconds, strictly increasing, at least one
    std::vector<float> values;        ///< see the struct comment
    std::size_t targetCount = 0;      ///< weights per keyframe
    Interpolation interpolation = Interpolation::Linear;  ///< how values between keyframes are found (glTF sampler.interpolation)
    std::vector<std::size_t> primitives;  ///< ImportedModel::primitives it drives (one glTF mesh)

    /** Length in seconds (last keyframe time; 0 with one keyframe). */
    [[nodiscard]] float duration() const noexcept { return times.empty() ? 0.0f : times.back(); }

    /** Writes the weights at @p seconds into @p out (first min(out.size(), targetCount)
     *  entries). Times before the first keyframe or after the last clamp to it (glTF); loop by
     *  passing fmod(t, duration()).
     *  @throws InvalidArgument if the animation is malformed (no keyframes, values of the wrong
     *  length, times not increasing); OutOfRange is never thrown: out may be shorter. */
    void sample(float seconds, std::span<float> out) const;
};

} // namespace myriad
