#include "gltf/Decompose.h"

#include <glm/geometric.hpp>
#include <glm/mat3x3.hpp>
#include <glm/matrix.hpp>

#include <algorithm>
#include <array>
#include <cmath>

namespace myriad::gltf::detail {
namespace {

/** A unit vector perpendicular to unit vector @p v: v crossed with the world axis it is least
 *  aligned with, so the cross product is never short. */
glm::dvec3 anyPerpendicular(const glm::dvec3& v) {
    const glm::dvec3 a = glm::abs(v);
    const glm::dvec3 axis = a.x <= a.y && a.x <= a.z ? glm::dvec3(1, 0, 0)
                            : a.y <= a.z             ? glm::dvec3(0, 1, 0)
                                                     : glm::dvec3(0, 0, 1);
    return glm::normalize(glm::cross(v, axis));
}

} // namespace

Trs decomposeAffine(const glm::dmat4& matrix, double shearTolerance) {
    Trs out;
    out.translation = glm::dvec3(matrix[3]);
    out.lossy = matrix[0][3] != 0.0 || matrix[1][3] != 0.0 || matrix[2][3] != 0.0 ||
                matrix[3][3] != 1.0;

    std::array<glm::dvec3, 3> axis{};
    std::array<bool, 3> present{};
    double largest = 0.0;
    for (int i = 0; i < 3; ++i) {
        out.scale[i] = glm::length(glm::dvec3(matrix[i]));
        largest = std::max(largest, out.scale[i]);
    }
    // A column this much shorter than the longest is a zero scale, not a direction.
    const double tiny = largest * 1e-12;
    int count = 0;
    for (int i = 0; i < 3; ++i) {
        present[static_cast<std::size_t>(i)] = out.scale[i] > tiny && out.scale[i] > 0.0;
        if (present[static_cast<std::size_t>(i)]) {
            axis[static_cast<std::size_t>(i)] = glm::dvec3(matrix[i]) / out.scale[i];
            ++count;
        } else {
            out.scale[i] = 0.0;
        }
    }
    for (std::size_t i = 0; i < 3; ++i) {
        for (std::size_t j = i + 1; j < 3; ++j) {
            if (present[i] && present[j] && std::abs(glm::dot(axis[i], axis[j])) > shearTolerance) {
                out.lossy = true;
            }
        }
    }
    // Gram-Schmidt over the present columns, so a sheared input still gives a rotation.
    std::array<std::size_t, 3> order{};
    std::size_t kept = 0;
    for (std::size_t i = 0; i < 3; ++i) {
        if (!present[i]) {
            continue;
        }
        glm::dvec3 v = axis[i];
        for (std::size_t k = 0; k < kept; ++k) {
            v -= glm::dot(v, axis[order[k]]) * axis[order[k]];
        }
        const double length = glm::length(v);
        if (length < 1e-9) {  // parallel to an earlier column: rank-deficient, rebuilt below
            present[i] = false;
            out.scale[static_cast<int>(i)] = 0.0;
            out.lossy = true;
            --count;
            continue;
        }
        axis[i] = v / length;
        order[kept++] = i;
    }
    // Complete a right-handed basis: (i, i+1, i+2) cyclic keeps the determinant +1.
    if (count == 0) {
        axis = {glm::dvec3(1, 0, 0), glm::dvec3(0, 1, 0), glm::dvec3(0, 0, 1)};
    } else if (count == 1) {
        const std::size_t j = order[0];
        axis[(j + 1) % 3] = anyPerpendicular(axis[j]);
        axis[(j + 2) % 3] = glm::cross(axis[j], axis[(j + 1) % 3]);
    } else if (count == 2) {
        const std::size_t k = !present[0] ? 0 : !present[1] ? 1 : 2;
        axis[k] = glm::cross(axis[(k + 1) % 3], axis[(k + 2) % 3]);
    }
    glm::dmat3 rotation(axis[0], axis[1], axis[2]);
    if (glm::determinant(rotation) < 0.0) {  // only with three present columns: a mirror
        rotation[0] = -rotation[0];
        out.scale.x = -out.scale.x;
    }
    out.rotation = glm::normalize(glm::quat_cast(rotation));
    return out;
}

glm::dmat4 composeTrs(const glm::dvec3& translation, const glm::dquat& rotation,
                      const glm::dvec3& scale) {
    glm::dmat4 result = glm::mat4_cast(rotation);
    result[0] *= scale.x;
    result[1] *= scale.y;
    result[2] *= scale.z;
    result[3] = glm::dvec4(translation, 1.0);
    return result;
}

} // namespace myriad::gltf::detail
