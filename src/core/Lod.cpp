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
    if (primitiveCount() != 1) {
        throw InvalidArgument(where + ": the node has " + std::to_string(primitiveCount()) +
                              " primitives; a LOD chain replaces a single mesh");
    }
    if (chain.levels.empty() || chain.levels.size() > kMaxLodLevels) {
        throw InvalidArgument(where + ": a chain has 1 to " + std::to_string(kMaxLodLevels) + " levels, not " +
                              std::to_string(chain.levels.size()));
    }
    if (!(chain.hysteresis >= 0.0f && chain.hysteresis < 1.0f)) {
        throw InvalidArgument(where + ": hysteresis " + std::to_string(chain.hysteresis) + " is not in [0, 1)");
    }
    if (chain.levels[0].mesh != nullptr && chain.levels[0].mesh != mesh()) {
        throw InvalidArgument(where + ": level 0's mesh is not the node's mesh (leave it null, or setMesh() first)");
    }
    const MeshGeometry& base = *mesh();
    float previous = 0.0f;
    for (std::size_t i = 0; i < chain.levels.size(); ++i) {
        const LodLevel& level = chain.levels[i];
        const std::string name = where + ": level " + std::to_string(i);
        const float s = level.switchDistance;
        if (!(s > previous)) {  // NaN fails too
            throw InvalidArgument(name + "'s switch distance " + std::to_string(s) + " is not above " +
                                  std::to_string(previous) + (i == 0 ? "" : " (the previous level's)"));
        }
        if (std::isinf(s) && i + 1 != chain.levels.size()) {
            throw InvalidArgument(name + "'s switch distance is infinite but it is not the last level");
        }
        previous = s;
        if (i == 0) {
            continue;
        }
        if (level.mesh == nullptr) {
            throw InvalidArgument(name + "'s mesh is null");
        }
        const MeshGeometry& geometry = *level.mesh;
        if (geometry.morphTargetCount() != base.morphTargetCount()) {
            throw InvalidArgument(name + " ('" + geometry.name() + "') has " + std::to_string(geometry.morphTargetCount()) +
                                  " morph targets, level 0 " + std::to_string(base.morphTargetCount()));
        }
        if (geometry.isSkinned() != base.isSkinned()) {
            throw InvalidArgument(name + " ('" + geometry.name() + "') is " + (geometry.isSkinned() ? "" : "not ") +
                                  "skinned and level 0 is " + (base.isSkinned() ? "" : "not") +
                                  ": every level of a chain is skinned alike (docs/skinning.md)");
        }
        const std::size_t joints = animationSet() != nullptr ? animationSet()->jointCount()
                                   : skeleton() != nullptr   ? skeleton()->jointCount()
                                                             : SIZE_MAX;
        if (geometry.skinJointCount() > joints) {
            throw InvalidArgument(name + " ('" + geometry.name() + "') uses joint " +
                                  std::to_string(geometry.skinJointCount() - 1) + ", past the skeleton's " +
                                  std::to_string(joints) + " joints");
        }
        bool inside = boxInside(geometry.localBounds(), base.localBounds());
        for (std::size_t t = 0; inside && t < base.morphTargetCount(); ++t) {
            inside = boxInside(geometry.morphTargetDeltaBounds()[t], base.morphTargetDeltaBounds()[t]);
        }
        if (!inside) {
            throw InvalidArgument(name + " ('" + geometry.name() +
                                  "') reaches outside level 0's box (or a morph target's delta box): the node's "
                                  "bounds, which culling uses, are level 0's");
        }
    }
    chain.levels[0].mesh = mesh();
    m_lodChain = std::move(chain);  // noexcept move: nothing changed until here
}

std::uint8_t selectLodLevel(const LodChain& chain, float distance, std::uint8_t held) noexcept {
    return detail::LodBands(chain).select(distance * distance, held);
}

void selectLodLevels(const LodChain& chain, const InstanceSpheres& spheres, std::span<const std::uint32_t> indices,
                     const glm::mat3& worldLinear, const glm::vec3& nodeOriginFromEye,
                     std::span<std::uint8_t> heldLevels, std::span<std::vector<std::uint32_t>> levelLists) {
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
    const detail::LodBands bands(chain);
    for (std::size_t level = 0; level < bands.levels; ++level) {
        levelLists[level].clear();
    }
    const std::span<const float> x = spheres.x(), y = spheres.y(), z = spheres.z();
    for (const std::uint32_t index : indices) {
        const glm::vec3 centre = worldLinear * glm::vec3(x[index], y[index], z[index]) + nodeOriginFromEye;
        const std::uint8_t level = bands.select(glm::dot(centre, centre), heldLevels[index]);
        heldLevels[index] = level;
        if (level < bands.levels) {
            levelLists[level].push_back(index);
        }
    }
}

} // namespace myriad
