// Per-instance level of detail: the chain's checks (InstancedMeshNode::setLodChain) and the
// selection with hysteresis. No GL; the renderer calls selectLodLevels() per (view, batch).
#include "myriad/core/Lod.h"

#include "core/LodBands.h"

#include "myriad/core/InstancedMeshNode.h"
#include "myriad/util/Error.h"

#include <glm/common.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>

namespace myriad {
namespace {

/** @p inner inside @p outer, give or take a rounding slack relative to outer's size (a level
 *  rebuilt from the same vertices has exactly the same box; a hand-made one exported from a
 *  tool may be a rounding step larger). */
bool boxInside(const Aabb& inner, const Aabb& outer) noexcept {
    const glm::vec3 extent = outer.max - outer.min;
    const float slack = 1e-5f * std::max({extent.x, extent.y, extent.z, 1e-3f});
    return Aabb{outer.min - slack, outer.max + slack}.contains(inner);
}

} // namespace

void InstancedMeshNode::setLodChain(LodChain chain) {
    const std::string where = "InstancedMeshNode::setLodChain";
    if (chain.levels.empty() || chain.levels.size() > kMaxLodLevels) {
        throw InvalidArgument(where + ": a chain has 1 to " + std::to_string(kMaxLodLevels) + " levels, not " +
                              std::to_string(chain.levels.size()));
    }
    if (!(chain.hysteresis >= 0.0f && chain.hysteresis < 1.0f)) {
        throw InvalidArgument(where + ": hysteresis " + std::to_string(chain.hysteresis) + " is not in [0, 1)");
    }
    if (!(chain.fadeBand >= 0.0f && chain.fadeBand <= 1.0f)) {
        throw InvalidArgument(where + ": fadeBand " + std::to_string(chain.fadeBand) + " is not in [0, 1]");
    }
    if (chain.metric != LodMetric::Distance && chain.metric != LodMetric::ScreenHeight &&
        chain.metric != LodMetric::ScreenPixels) {
        throw InvalidArgument(where + ": unknown metric " + std::to_string(static_cast<int>(chain.metric)));
    }
    // Every level's meshes, one per primitive (checked, then stored so).
    const std::size_t primitives = primitiveCount();
    std::array<std::vector<std::shared_ptr<const MeshGeometry>>, kMaxLodLevels> levelMeshes;
    for (std::size_t i = 0; i < chain.levels.size(); ++i) {
        const LodLevel& level = chain.levels[i];
        const std::string name = where + ": level " + std::to_string(i);
        std::vector<std::shared_ptr<const MeshGeometry>>& meshes = levelMeshes[i];
        if (primitives == 1 && level.meshes.empty()) {
            meshes.push_back(level.mesh);
        } else if (i == 0 && level.meshes.empty()) {
            // level 0 of a several-primitive node: the node's meshes
        } else {
            if (level.meshes.size() != primitives) {
                throw InvalidArgument(name + " has " + std::to_string(level.meshes.size()) + " meshes for " +
                                      std::to_string(primitives) + " primitives (LodLevel::meshes: one per primitive)");
            }
            if (level.mesh != nullptr && level.mesh != level.meshes[0]) {
                throw InvalidArgument(name + "'s mesh is neither null nor meshes[0]");
            }
            meshes = level.meshes;
        }
        if (i == 0) {
            if (level.mesh != nullptr && level.mesh != mesh()) {
                throw InvalidArgument(where + ": level 0's mesh is not the node's mesh (leave it null, or setMesh() first)");
            }
            for (std::size_t p = 0; p < meshes.size(); ++p) {
                if (meshes[p] != nullptr && meshes[p] != primitiveMesh(p)) {
                    throw InvalidArgument(where + ": level 0's mesh of primitive " + std::to_string(p) +
                                          " is not the node's (leave level 0's meshes empty)");
                }
            }
            meshes.clear();
            for (std::size_t p = 0; p < primitives; ++p) {
                meshes.push_back(primitiveMesh(p));
            }
        }
        for (std::size_t p = 0; p < primitives; ++p) {
            if (meshes[p] == nullptr) {
                throw InvalidArgument(name + "'s mesh" + (primitives == 1 ? "" : " of primitive " + std::to_string(p)) +
                                      " is null");
            }
        }
    }
    const bool screen = chain.metric != LodMetric::Distance;
    // Each switch as a distance up to a common factor (a screen size f: 1 / f), for the fade
    // bands' overlap.
    std::array<float, kMaxLodLevels> edges{};
    for (std::size_t i = 0; i < chain.levels.size(); ++i) {
        const LodLevel& level = chain.levels[i];
        const std::string name = where + ": level " + std::to_string(i);
        const bool last = i + 1 == chain.levels.size();
        if (!screen) {
            const float s = level.switchDistance;
            const float previous = i == 0 ? 0.0f : chain.levels[i - 1].switchDistance;
            if (!(s > previous)) {  // NaN fails too
                throw InvalidArgument(name + "'s switch distance " + std::to_string(s) + " is not above " +
                                      std::to_string(previous) + (i == 0 ? "" : " (the previous level's)"));
            }
            if (std::isinf(s) && !last) {
                throw InvalidArgument(name + "'s switch distance is infinite but it is not the last level");
            }
            edges[i] = s;
        } else {
            const float f = level.switchScreenSize;
            const float previous = i == 0 ? std::numeric_limits<float>::infinity() : chain.levels[i - 1].switchScreenSize;
            if (!(f >= 0.0f && f < previous) || std::isinf(f)) {  // NaN fails too
                throw InvalidArgument(name + "'s switch screen size " + std::to_string(f) +
                                      " is not finite, at least 0 and below the previous level's");
            }
            if (f == 0.0f && !last) {
                throw InvalidArgument(name + "'s switch screen size is 0 but it is not the last level");
            }
            edges[i] = f > 0.0f ? 1.0f / f : std::numeric_limits<float>::infinity();
        }
        if (i > 0 && chain.fadeBand > 0.0f && std::isfinite(edges[i]) &&
            !(edges[i - 1] * (1.0f + 0.5f * chain.fadeBand) <= edges[i] * (1.0f - 0.5f * chain.fadeBand))) {
            throw InvalidArgument(name + "'s fade band overlaps the previous level's (fadeBand " +
                                  std::to_string(chain.fadeBand) + ")");
        }
        if (i == 0) {
            continue;
        }
        for (std::size_t p = 0; p < primitives; ++p) {
            const MeshGeometry& base = *levelMeshes[0][p];
            const MeshGeometry& geometry = *levelMeshes[i][p];
            const std::string part = name + (primitives == 1 ? "" : " primitive " + std::to_string(p));
            if (geometry.morphTargetCount() != base.morphTargetCount()) {
                throw InvalidArgument(part + " ('" + geometry.name() + "') has " + std::to_string(geometry.morphTargetCount()) +
                                      " morph targets, level 0 " + std::to_string(base.morphTargetCount()));
            }
            if (geometry.isSkinned() != base.isSkinned()) {
                throw InvalidArgument(part + " ('" + geometry.name() + "') is " + (geometry.isSkinned() ? "" : "not ") +
                                      "skinned and level 0 is " + (base.isSkinned() ? "" : "not") +
                                      ": every level of a chain is skinned alike (docs/skinning.md)");
            }
            const std::size_t joints = animationSet() != nullptr ? animationSet()->jointCount()
                                       : skeleton() != nullptr   ? skeleton()->jointCount()
                                                                 : SIZE_MAX;
            if (geometry.skinJointCount() > joints) {
                throw InvalidArgument(part + " ('" + geometry.name() + "') uses joint " +
                                      std::to_string(geometry.skinJointCount() - 1) + ", past the skeleton's " +
                                      std::to_string(joints) + " joints");
            }
            bool inside = boxInside(geometry.localBounds(), base.localBounds());
            for (std::size_t t = 0; inside && t < base.morphTargetCount(); ++t) {
                inside = boxInside(geometry.morphTargetDeltaBounds()[t], base.morphTargetDeltaBounds()[t]);
            }
            if (!inside) {
                throw InvalidArgument(part + " ('" + geometry.name() +
                                      "') reaches outside level 0's box (or a morph target's delta box): the node's "
                                      "bounds, which culling uses, are level 0's");
            }
        }
    }
    for (std::size_t i = 0; i < chain.levels.size(); ++i) {
        chain.levels[i].mesh = levelMeshes[i][0];
        chain.levels[i].meshes = std::move(levelMeshes[i]);  // noexcept moves from here
    }
    m_lodChain = std::move(chain);  // noexcept move: nothing changed until here
}

std::uint8_t selectLodLevel(const LodChain& chain, float distance, std::uint8_t held) noexcept {
    return detail::LodBands(chain).select(distance * distance, 1.0f, held);
}

float lodScreenSize(LodMetric metric, const LodProjection& projection, float radius, float distance) noexcept {
    if (metric == LodMetric::Distance) {
        return distance;
    }
    const float size = radius * std::abs(projection.yScale) / (projection.orthographic ? 1.0f : distance);
    return metric == LodMetric::ScreenPixels ? size * projection.viewportHeight : size;
}

LodPick pickLodLevel(const LodChain& chain, const LodProjection& projection, float distance, float radius,
                     std::uint8_t held) noexcept {
    const detail::LodBands bands(chain, projection);
    const float key = bands.key(distance * distance);
    const float scale = chain.metric == LodMetric::Distance ? 1.0f : radius * radius;
    if (bands.fading) {
        return bands.pick(key, scale);
    }
    return {bands.select(key, scale, held), 0};
}

void selectLodLevels(const LodChain& chain, const InstanceSpheres& spheres, std::span<const std::uint32_t> indices,
                     const glm::mat3& worldLinear, const glm::vec3& nodeOriginFromEye,
                     std::span<std::uint8_t> heldLevels, std::span<std::vector<std::uint32_t>> levelLists,
                     const LodProjection& projection) {
    if (chain.levels.empty() || levelLists.size() < chain.levels.size()) {
        throw InvalidArgument("selectLodLevels: " + std::to_string(levelLists.size()) + " lists for " +
                              std::to_string(chain.levels.size()) + " levels (a chain needs at least one)");
    }
    std::uint32_t largest = 0;
    for (const std::uint32_t index : indices) {
        largest = std::max(largest, index);
    }
    const std::size_t rows = std::min(spheres.size(), heldLevels.size());
    if (!indices.empty() && largest >= rows) {
        throw InvalidArgument("selectLodLevels: index " + std::to_string(largest) + " is past the " +
                              std::to_string(rows) + " spheres and held levels");
    }
    const detail::LodBands bands(chain, projection, detail::largestColumnLength(worldLinear));
    if (bands.fading && !indices.empty() && largest > kLodFadeIndexMask) {
        throw CapacityError("selectLodLevels: record " + std::to_string(largest) +
                            " does not fit the 24 bits a fading chain's list entry keeps for it");
    }
    for (std::size_t level = 0; level < bands.levels; ++level) {
        levelLists[level].clear();
    }
    const std::span<const float> x = spheres.x(), y = spheres.y(), z = spheres.z(), r = spheres.radius();
    const bool byDistance = chain.metric == LodMetric::Distance;
    for (const std::uint32_t index : indices) {
        const glm::vec3 centre = worldLinear * glm::vec3(x[index], y[index], z[index]) + nodeOriginFromEye;
        const float key = bands.key(glm::dot(centre, centre));
        const float scale = byDistance ? 1.0f : r[index] * r[index];
        if (bands.fading) {
            const LodPick pick = bands.pick(key, scale);
            heldLevels[index] = pick.level;
            if (pick.level < bands.levels) {
                levelLists[pick.level].push_back(lodFadeEntry(index, pick.fadeSteps, false));
            }
            if (pick.fadeSteps != 0 && pick.level + 1u < bands.levels) {
                levelLists[pick.level + 1u].push_back(lodFadeEntry(index, pick.fadeSteps, true));
            }
            continue;
        }
        const std::uint8_t level = bands.select(key, scale, heldLevels[index]);
        heldLevels[index] = level;
        if (level < bands.levels) {
            levelLists[level].push_back(index);
        }
    }
}

} // namespace myriad
