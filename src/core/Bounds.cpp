#include "myriad/core/Bounds.h"

#include <glm/common.hpp>
#include <glm/geometric.hpp>

#include <algorithm>
#include <cmath>

namespace myriad {

void Aabb::extend(const glm::vec3& point) noexcept {
    min = glm::min(min, point);
    max = glm::max(max, point);
}

void Aabb::extend(const Aabb& other) noexcept {
    if (other.empty()) {
        return;
    }
    min = glm::min(min, other.min);
    max = glm::max(max, other.max);
}

bool Aabb::contains(const Aabb& other) const noexcept {
    return other.min.x >= min.x && other.min.y >= min.y && other.min.z >= min.z &&
           other.max.x <= max.x && other.max.y <= max.y && other.max.z <= max.z;
}

Aabb Aabb::transformed(const glm::mat4& transform) const noexcept {
    if (empty()) {
        return {};
    }
    const glm::vec3 c = centre();
    const glm::vec3 e = halfExtent();
    glm::vec3 newCentre(transform[3]);
    glm::vec3 newExtent(0.0f);
    for (int column = 0; column < 3; ++column) {
        const glm::vec3 axis(transform[column]);
        newCentre += axis * c[column];
        newExtent += glm::abs(axis) * e[column];
    }
    return {newCentre - newExtent, newCentre + newExtent};
}

float Aabb::transformedRadius(const glm::mat3& linear) const noexcept {
    if (empty()) {
        return 0.0f;
    }
    // Corner offsets from the centre are (+-e.x, +-e.y, +-e.z); mapped, L * (s * e) is a signed
    // sum of the three scaled columns. s and -s give the same length: four patterns cover all.
    const glm::vec3 e = halfExtent();
    const glm::vec3 x = linear[0] * e.x;
    const glm::vec3 y = linear[1] * e.y;
    const glm::vec3 z = linear[2] * e.z;
    const glm::vec3 corners[4] = {x + y + z, x + y - z, x - y + z, -x + y + z};
    float squared = 0.0f;
    for (const glm::vec3& corner : corners) {
        squared = std::max(squared, glm::dot(corner, corner));
    }
    return std::sqrt(squared);
}

} // namespace myriad
