#pragma once
// Internal: the squared hysteresis and fade bands of a LOD chain in one view, one definition
// for the CPU selection (src/core/Lod.cpp) and the uniforms of the GPU one
// (src/renderer/GpuCulling.cpp, shaders/cull.comp), so both compare against the same floats.
//
// Every metric compares key >= edge * scale, with no per-instance division: LodMetric::Distance
// key = d^2, scale = 1, edge = s^2; the screen metrics scale = r^2 (the instance's node-space
// radius squared) and edge = e^2, e = c / switchScreenSize with c = yScale (* viewportHeight)
// * the node's largest world column length (the distance per unit of radius at which the
// projected size equals the threshold), key = d^2 under a perspective projection and 1 under an
// orthographic one (there the size does not depend on d: r c < f <=> 1 < e^2 r^2).
#include "myriad/core/Lod.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>

namespace myriad::detail {

/** The largest column length of a node's world 3x3: a node-space radius times this bounds the
 *  world radius (exact for uniform scale). */
[[nodiscard]] inline float largestColumnLength(const glm::mat3& m) noexcept {
    const auto length = [](const glm::vec3& v) { return std::sqrt(v.x * v.x + v.y * v.y + v.z * v.z); };
    return std::max({length(m[0]), length(m[1]), length(m[2])});
}

/** A chain's band edges in one view (see the file comment for key, scale and edge): per held
 *  level p (0..n) keep p while lower[p] * scale <= key < upper[p] * scale; the edges that give
 *  the level the key selects alone; with a fade, each switch's band [fadeLow, fadeHigh) and the
 *  linear coverage t = (sqrt(key / scale) - fadeStart) * fadeInvWidth. */
struct LodBands {
    std::size_t levels = 0;
    bool perspectiveKey = true;  // false: an orthographic view under a screen metric, key = 1
    bool fading = false;         // a fading chain in a view that fades (LodProjection::fade)
    std::array<float, kMaxLodLevels> switches{};     // e_i^2 (NaN for an infinite e: never reached)
    std::array<float, kMaxLodLevels + 1> lower{};    // (e_(p-1) (1 - h))^2, 0 for p = 0
    std::array<float, kMaxLodLevels + 1> upper{};    // (e_p (1 + h))^2, inf for p = n
    std::array<float, kMaxLodLevels> fadeLow{};      // (e_i (1 - b/2))^2
    std::array<float, kMaxLodLevels> fadeHigh{};     // (e_i (1 + b/2))^2
    std::array<float, kMaxLodLevels> fadeStart{};    // e_i (1 - b/2)
    std::array<float, kMaxLodLevels> fadeInvWidth{}; // 1 / (e_i b)

    explicit LodBands(const LodChain& chain, const LodProjection& projection = {}, float nodeScale = 1.0f) noexcept
        : levels(std::min(chain.levels.size(), kMaxLodLevels)) {
        const bool screen = chain.metric != LodMetric::Distance;
        perspectiveKey = !(screen && projection.orthographic);
        const float c = std::abs(projection.yScale) *
                        (chain.metric == LodMetric::ScreenPixels ? projection.viewportHeight : 1.0f) * nodeScale;
        // A fading chain switches sharply where it does not fade, and never holds a level.
        const float h = chain.fadeBand > 0.0f ? 0.0f : chain.hysteresis;
        const float b = chain.fadeBand;
        fading = b > 0.0f && projection.fade;
        for (std::size_t i = 0; i < levels; ++i) {
            const LodLevel& level = chain.levels[i];
            const float e = !screen ? level.switchDistance
                            : level.switchScreenSize > 0.0f ? c / level.switchScreenSize
                                                            : std::numeric_limits<float>::infinity();
            // An infinite edge (only the last level's) is NaN here, so no key, not even one
            // whose square overflowed to infinity, counts as past it.
            switches[i] = std::isinf(e) ? std::numeric_limits<float>::quiet_NaN() : e * e;
            upper[i] = (e * (1.0f + h)) * (e * (1.0f + h));
            lower[i + 1] = (e * (1.0f - h)) * (e * (1.0f - h));
            const float start = e * (1.0f - 0.5f * b);
            const float end = e * (1.0f + 0.5f * b);
            fadeLow[i] = start * start;
            fadeHigh[i] = end * end;
            fadeStart[i] = start;
            fadeInvWidth[i] = fading ? 1.0f / (e * b) : 0.0f;
        }
        lower[0] = 0.0f;
        upper[levels] = std::numeric_limits<float>::infinity();
    }

    /** The key of an instance at squared distance @p distanceSquared. */
    [[nodiscard]] float key(float distanceSquared) const noexcept { return perspectiveKey ? distanceSquared : 1.0f; }

    [[nodiscard]] std::uint8_t select(float key, float scale, std::uint8_t held) const noexcept {
        if (held <= levels && key >= lower[held] * scale && (held == levels || key < upper[held] * scale)) {
            return held;
        }
        std::uint8_t level = 0;
        for (std::size_t i = 0; i < levels; ++i) {
            level += key >= switches[i] * scale ? 1 : 0;  // NaN: false everywhere, level 0
        }
        return level;
    }

    /** With fading: the level and the farther level's coverage in 64ths (0: none). */
    [[nodiscard]] LodPick pick(float key, float scale) const noexcept {
        std::uint8_t level = 0;
        for (std::size_t i = 0; i < levels; ++i) {
            level += key >= fadeHigh[i] * scale ? 1 : 0;  // past switch i's band
        }
        if (level < levels && key >= fadeLow[level] * scale) {
            const float t = (std::sqrt(key / scale) - fadeStart[level]) * fadeInvWidth[level];
            const float steps = std::floor(t * static_cast<float>(kLodFadeSteps) + 0.5f);
            if (steps >= static_cast<float>(kLodFadeSteps)) {
                return {static_cast<std::uint8_t>(level + 1), 0};
            }
            if (steps >= 1.0f) {  // NaN: false, level whole
                return {level, static_cast<std::uint8_t>(steps)};
            }
        }
        return {level, 0};
    }
};

} // namespace myriad::detail
