#include "myriad/core/Bounds.h"

#include <glm/common.hpp>

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

} // namespace myriad
