// MikkTSpace-style vertex tangents (myriad/core/Tangents.h has the method and what differs from
// the reference).
#include "myriad/core/Tangents.h"

#include "myriad/util/Error.h"

#include <glm/geometric.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

namespace myriad {
namespace {

/** The angle between unit-less edges @p a and @p b, radians (0 for a zero edge). */
float cornerAngle(const glm::vec3& a, const glm::vec3& b) {
    const float la = glm::length(a);
    const float lb = glm::length(b);
    if (!(la > 0.0f) || !(lb > 0.0f)) {
        return 0.0f;
    }
    return std::acos(std::clamp(glm::dot(a, b) / (la * lb), -1.0f, 1.0f));
}

/** Any unit vector perpendicular to @p n (unit). */
glm::vec3 anyPerpendicular(const glm::vec3& n) {
    const glm::vec3 axis = std::abs(n.x) < 0.9f ? glm::vec3(1.0f, 0.0f, 0.0f) : glm::vec3(0.0f, 1.0f, 0.0f);
    return glm::normalize(axis - n * glm::dot(n, axis));
}

/** Appends a copy of vertex @p from to every per-vertex array of @p data; returns its index. */
std::uint32_t duplicateVertex(MeshData& data, std::size_t from) {
    auto copy = [from](auto& array) {
        if (!array.empty()) {
            array.push_back(array[from]);
        }
    };
    copy(data.positions);
    copy(data.normals);
    copy(data.uv0);
    copy(data.uv1);
    copy(data.colors);
    copy(data.joints);
    copy(data.weights);
    for (MorphTarget& target : data.morphTargets) {
        copy(target.positionDeltas);
        copy(target.normalDeltas);
    }
    return static_cast<std::uint32_t>(data.positions.size() - 1);
}

} // namespace

void generateTangents(MeshData& data) {
    const std::size_t vertexCount = data.positions.size();
    if (vertexCount == 0) {
        throw InvalidArgument("generateTangents: the mesh has no positions");
    }
    if (data.uv0.size() != vertexCount) {
        throw InvalidArgument("generateTangents: uv0 has " + std::to_string(data.uv0.size()) +
                              " entries, expected one per vertex (" + std::to_string(vertexCount) + ")");
    }
    std::vector<std::uint32_t> indices(data.indices16.empty() ? data.indices32.size() : data.indices16.size());
    for (std::size_t i = 0; i < indices.size(); ++i) {
        indices[i] = data.indices16.empty() ? data.indices32[i] : data.indices16[i];
        if (indices[i] >= vertexCount) {
            throw InvalidArgument("generateTangents: index " + std::to_string(i) + " is " + std::to_string(indices[i]) +
                                  ", past the vertex count " + std::to_string(vertexCount));
        }
    }
    if (indices.size() < 3) {
        throw InvalidArgument("generateTangents: the mesh has no triangles");
    }
    if (data.normals.size() != vertexCount) {  // area-weighted smooth, as MeshGeometry makes them
        std::vector<glm::vec3> normals(vertexCount, glm::vec3(0.0f));
        for (std::size_t i = 0; i + 2 < indices.size(); i += 3) {
            const glm::vec3& a = data.positions[indices[i]];
            const glm::vec3 face = glm::cross(data.positions[indices[i + 1]] - a, data.positions[indices[i + 2]] - a);
            for (std::size_t k = 0; k < 3; ++k) {
                normals[indices[i + k]] += face;
            }
        }
        for (glm::vec3& n : normals) {
            const float length = glm::length(n);
            n = length > 0.0f ? n / length : glm::vec3(0.0f, 1.0f, 0.0f);
        }
        data.normals = std::move(normals);
    }

    // Per triangle: its handedness (+1, -1, or 0 when degenerate) and its tangent.
    const std::size_t triangleCount = indices.size() / 3;
    std::vector<float> triangleSign(triangleCount, 0.0f);
    std::vector<glm::vec3> triangleTangent(triangleCount, glm::vec3(0.0f));
    for (std::size_t t = 0; t < triangleCount; ++t) {
        const std::uint32_t i0 = indices[3 * t];
        const std::uint32_t i1 = indices[3 * t + 1];
        const std::uint32_t i2 = indices[3 * t + 2];
        const glm::vec3 e1 = data.positions[i1] - data.positions[i0];
        const glm::vec3 e2 = data.positions[i2] - data.positions[i0];
        const glm::vec2 d1 = data.uv0[i1] - data.uv0[i0];
        const glm::vec2 d2 = data.uv0[i2] - data.uv0[i0];
        const float r = d1.x * d2.y - d2.x * d1.y;  // twice the signed texture-space area
        const glm::vec3 face = glm::cross(e1, e2);
        if (r == 0.0f || !(glm::dot(face, face) > 0.0f)) {
            continue;  // no texture-space or no object-space area: nothing to add
        }
        // Solve e = du * dp/du + dv * dp/dv for the two edges (v down, glTF's coordinates).
        const glm::vec3 dpdu = (e1 * d2.y - e2 * d1.y) / r;
        const glm::vec3 dpdvDown = (e2 * d1.x - e1 * d2.x) / r;
        // Handedness with v up the image (glTF's normal maps: +Y up): the bitangent is -dp/dv.
        const float sign = glm::dot(glm::cross(face, dpdu), -dpdvDown) < 0.0f ? -1.0f : 1.0f;
        triangleSign[t] = sign;
        triangleTangent[t] = dpdu;
    }

    // Split vertices seen by both handednesses: the triangles of the less frequent one (or of
    // -1 on a tie) get a copy of the vertex.
    std::vector<int> signCount(vertexCount, 0);  // +1 per positive corner, -1 per negative
    std::vector<std::uint8_t> seen(vertexCount, 0);  // bit 0: positive, bit 1: negative
    for (std::size_t c = 0; c < indices.size(); ++c) {
        const float sign = triangleSign[c / 3];
        if (sign != 0.0f) {
            seen[indices[c]] |= sign > 0.0f ? 1u : 2u;
            signCount[indices[c]] += sign > 0.0f ? 1 : -1;
        }
    }
    std::vector<std::uint32_t> copyOf(vertexCount, std::numeric_limits<std::uint32_t>::max());
    for (std::size_t c = 0; c < indices.size(); ++c) {
        const std::uint32_t v = indices[c];
        const float sign = triangleSign[c / 3];
        if (v >= vertexCount || seen[v] != 3u || sign == 0.0f) {
            continue;
        }
        const float majority = signCount[v] > 0 ? 1.0f : -1.0f;
        if (sign != majority) {
            if (copyOf[v] == std::numeric_limits<std::uint32_t>::max()) {
                copyOf[v] = duplicateVertex(data, v);
            }
            indices[c] = copyOf[v];
        }
    }

    // Angle-weighted sums per vertex, in the plane of its normal.
    const std::size_t total = data.positions.size();
    std::vector<glm::vec3> sum(total, glm::vec3(0.0f));
    std::vector<float> handedness(total, 0.0f);
    for (std::size_t t = 0; t < triangleCount; ++t) {
        if (triangleSign[t] == 0.0f) {
            continue;
        }
        for (std::size_t k = 0; k < 3; ++k) {
            const std::uint32_t v = indices[3 * t + k];
            const glm::vec3& p = data.positions[v];
            const glm::vec3 toNext = data.positions[indices[3 * t + (k + 1) % 3]] - p;
            const glm::vec3 toPrevious = data.positions[indices[3 * t + (k + 2) % 3]] - p;
            const glm::vec3& n = data.normals[v];
            const glm::vec3 projected = triangleTangent[t] - n * glm::dot(n, triangleTangent[t]);
            const float length = glm::length(projected);
            if (length > 0.0f) {
                sum[v] += projected / length * cornerAngle(toNext, toPrevious);
            }
            handedness[v] = triangleSign[t];
        }
    }
    data.tangents.resize(total);
    for (std::size_t v = 0; v < total; ++v) {
        const glm::vec3& n = data.normals[v];
        glm::vec3 t = sum[v] - n * glm::dot(n, sum[v]);  // Gram-Schmidt against the normal
        const float length = glm::length(t);
        t = length > 1.0e-20f ? t / length : anyPerpendicular(n);
        data.tangents[v] = glm::vec4(t, handedness[v] < 0.0f ? -1.0f : 1.0f);
    }
    if (!data.indices16.empty() && total <= 65536) {
        for (std::size_t i = 0; i < indices.size(); ++i) {
            data.indices16[i] = static_cast<std::uint16_t>(indices[i]);
        }
    } else {
        data.indices16.clear();
        data.indices32 = std::move(indices);
    }
}

} // namespace myriad
