#pragma once
// Internal: the squared hysteresis bands of a LOD chain, one definition for the CPU selection
// (src/core/Lod.cpp) and the uniforms of the GPU one (src/renderer/GpuCulling.cpp, shaders/cull.comp),
// so both compare distances against the same float numbers.
#include "myriad/core/Lod.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>

namespace myriad::detail {

/** Squared band edges of a chain, per held level p (0..n): keep p while lower[p] <= d^2 <
 *  upper[p]; and the squared switch distances that give the level a distance selects alone. */
struct LodBands {
    std::size_t levels = 0;
    std::array<float, kMaxLodLevels> switches{};       // s_i^2
    std::array<float, kMaxLodLevels + 1> lower{};      // (s_(p-1) (1 - h))^2, 0 for p = 0
    std::array<float, kMaxLodLevels + 1> upper{};      // (s_p (1 + h))^2, inf for p = n

    explicit LodBands(const LodChain& chain) noexcept : levels(std::min(chain.levels.size(), kMaxLodLevels)) {
        const float h = chain.hysteresis;
        for (std::size_t i = 0; i < levels; ++i) {
            const float s = chain.levels[i].switchDistance;
            // An infinite switch distance (only the last level's) is NaN here, so no distance,
            // not even one whose square overflowed to infinity, counts as past it.
            switches[i] = std::isinf(s) ? std::numeric_limits<float>::quiet_NaN() : s * s;
            upper[i] = (s * (1.0f + h)) * (s * (1.0f + h));
            lower[i + 1] = (s * (1.0f - h)) * (s * (1.0f - h));
        }
        lower[0] = 0.0f;
        upper[levels] = std::numeric_limits<float>::infinity();
    }

    [[nodiscard]] std::uint8_t select(float distanceSquared, std::uint8_t held) const noexcept {
        if (held <= levels && distanceSquared >= lower[held] && distanceSquared < upper[held]) {
            return held;
        }
        std::uint8_t level = 0;
        for (std::size_t i = 0; i < levels; ++i) {
            level += distanceSquared >= switches[i] ? 1 : 0;  // NaN: false everywhere, level 0
        }
        return level;
    }
};

} // namespace myriad::detail
