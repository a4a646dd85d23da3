#include "myriad/core/MorphAnimation.h"

#include "myriad/util/Error.h"

#include <algorithm>
#include <cmath>

namespace myriad {

void MorphAnimation::sample(float seconds, std::span<float> out) const {
    const std::size_t keys = times.size();
    const std::size_t perKey = targetCount * (interpolation == Interpolation::CubicSpline ? 3 : 1);
    if (keys == 0 || values.size() != keys * perKey) {
        throw InvalidArgument("MorphAnimation::sample: animation '" + name + "' has " +
                              std::to_string(keys) + " keyframes and " +
                              std::to_string(values.size()) + " values, expected " +
                              std::to_string(keys * perKey));
    }
    const std::size_t count = std::min(out.size(), targetCount);
    // The value of target t at keyframe k (the middle third for cubic splines).
    auto value = [&](std::size_t k, std::size_t t) {
        return interpolation == Interpolation::CubicSpline ? values[k * perKey + targetCount + t]
                                                           : values[k * perKey + t];
    };
    if (!(seconds > times.front()) || keys == 1) {
        for (std::size_t t = 0; t < count; ++t) {
            out[t] = value(0, t);
        }
        return;
    }
    if (seconds >= times.back()) {
        for (std::size_t t = 0; t < count; ++t) {
            out[t] = value(keys - 1, t);
        }
        return;
    }
    const auto next = std::upper_bound(times.begin(), times.end(), seconds);
    const std::size_t k1 = static_cast<std::size_t>(next - times.begin());
    const std::size_t k0 = k1 - 1;
    const float span = times[k1] - times[k0];
    if (!(span > 0.0f)) {
        throw InvalidArgument("MorphAnimation::sample: keyframe times of '" + name +
                              "' are not strictly increasing");
    }
    const float u = (seconds - times[k0]) / span;
    for (std::size_t t = 0; t < count; ++t) {
        switch (interpolation) {
        case Interpolation::Step:
            out[t] = value(k0, t);
            break;
        case Interpolation::Linear:
            out[t] = value(k0, t) + (value(k1, t) - value(k0, t)) * u;
            break;
        case Interpolation::CubicSpline: {
            // glTF 2.0 Appendix C: p(u) = (2u^3 - 3u^2 + 1) v0 + (u^3 - 2u^2 + u) span b0
            //                            + (-2u^3 + 3u^2) v1 + (u^3 - u^2) span a1
            const float outTangent = values[k0 * perKey + 2 * targetCount + t];
            const float inTangent = values[k1 * perKey + t];
            const float u2 = u * u;
            const float u3 = u2 * u;
            out[t] = (2 * u3 - 3 * u2 + 1) * value(k0, t) + (u3 - 2 * u2 + u) * span * outTangent +
                     (-2 * u3 + 3 * u2) * value(k1, t) + (u3 - u2) * span * inTangent;
            break;
        }
        }
    }
}

} // namespace myriad
