// LOD levels from level 0 through meshoptimizer's simplifier (only the index list changes).
#include "myriad/lod/GenerateLod.h"

#include "myriad/util/Error.h"

#include <meshoptimizer.h>

#include <cmath>
#include <string>
#include <vector>

namespace myriad {

LodChain generateLodChain(std::shared_ptr<const MeshGeometry> lod0, float lod0SwitchDistance,
                          std::span<const LodTarget> targets, float hysteresis) {
    if (lod0 == nullptr) {
        throw InvalidArgument("generateLodChain: level 0's mesh is null");
    }
    if (targets.size() + 1 > kMaxLodLevels) {
        throw InvalidArgument("generateLodChain: " + std::to_string(targets.size()) + " targets; at most " +
                              std::to_string(kMaxLodLevels - 1) + " levels besides level 0");
    }
    float previous = lod0SwitchDistance;
    for (std::size_t i = 0; i < targets.size(); ++i) {
        // Checked here, before any simplification, so the message names the field the caller
        // sets (setLodChain() would only see "level i + 1's switch distance").
        if (!(targets[i].switchDistance > previous)) {
            throw InvalidArgument("generateLodChain: target " + std::to_string(i) + "'s switchDistance " +
                                  std::to_string(targets[i].switchDistance) + " is not above the previous level's " +
                                  std::to_string(previous) + " (LodTarget::switchDistance: world units from the eye " +
                                  "where the level after it takes over; +infinity for none)");
        }
        previous = targets[i].switchDistance;
        if (!(targets[i].indexRatio > 0.0f && targets[i].indexRatio <= 1.0f)) {
            throw InvalidArgument("generateLodChain: target " + std::to_string(i) + "'s index ratio " +
                                  std::to_string(targets[i].indexRatio) + " is not in (0, 1]");
        }
        if (!(targets[i].targetError >= 0.0f && std::isfinite(targets[i].targetError))) {
            throw InvalidArgument("generateLodChain: target " + std::to_string(i) + "'s error " +
                                  std::to_string(targets[i].targetError) + " is negative or not finite");
        }
    }
    const MeshData& source = lod0->data();
    std::vector<unsigned int> indices(source.indices32.begin(), source.indices32.end());
    if (indices.empty()) {
        indices.assign(source.indices16.begin(), source.indices16.end());
    }
    LodChain chain;
    chain.hysteresis = hysteresis;
    chain.levels.push_back({lod0, lod0SwitchDistance});
    std::vector<unsigned int> simplified(indices.size());  // worst case: every index (both simplifiers)
    for (std::size_t i = 0; i < targets.size(); ++i) {
        const auto wanted = static_cast<std::size_t>(std::floor(static_cast<double>(indices.size()) / 3.0 *
                                                                targets[i].indexRatio)) * 3;
        const float* positions = &source.positions[0].x;
        const std::size_t count =
            targets[i].sloppy
                ? meshopt_simplifySloppy(simplified.data(), indices.data(), indices.size(), positions,
                                         source.positions.size(), sizeof(glm::vec3), wanted, targets[i].targetError, nullptr)
                : meshopt_simplify(simplified.data(), indices.data(), indices.size(), positions, source.positions.size(),
                                   sizeof(glm::vec3), wanted, targets[i].targetError, 0, nullptr);
        if (count == 0) {
            throw InvalidArgument("generateLodChain: level " + std::to_string(i + 1) + " of '" + lod0->name() +
                                  "' came out with no triangle (index ratio " +
                                  std::to_string(targets[i].indexRatio) + ")");
        }
        MeshData data = source;  // vertices and morph targets as they are: same box, same morphing
        data.indices16.clear();
        data.indices32.assign(simplified.begin(), simplified.begin() + static_cast<std::ptrdiff_t>(count));
        chain.levels.push_back({MeshGeometry::create(std::move(data), lod0->name() + "#lod" + std::to_string(i + 1)),
                                targets[i].switchDistance});
    }
    return chain;
}

} // namespace myriad
