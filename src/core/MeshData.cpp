#include "myriad/core/MeshData.h"

#include "core/Validate.h"
#include "myriad/util/Error.h"

#include <glm/common.hpp>
#include <glm/geometric.hpp>

#include <atomic>
#include <cmath>
#include <string>

namespace myriad {
namespace {

std::uint64_t nextMeshSerial() noexcept {
    static std::atomic<std::uint64_t> counter{0};
    return ++counter;
}

template <class Index>
void checkIndices(const std::vector<Index>& indices, std::size_t vertexCount,
                  const std::string& where) {
    for (std::size_t i = 0; i < indices.size(); ++i) {
        if (indices[i] >= vertexCount) {
            throw OutOfRange(where + ": index " + std::to_string(i) + " is " +
                             std::to_string(indices[i]) + ", past the vertex count " +
                             std::to_string(vertexCount));
        }
    }
}

template <class Index>
std::vector<glm::vec3> smoothNormals(const std::vector<glm::vec3>& positions,
                                     const std::vector<Index>& indices) {
    std::vector<glm::vec3> normals(positions.size(), glm::vec3(0.0f));
    for (std::size_t i = 0; i + 2 < indices.size(); i += 3) {
        const glm::vec3& a = positions[indices[i]];
        const glm::vec3& b = positions[indices[i + 1]];
        const glm::vec3& c = positions[indices[i + 2]];
        const glm::vec3 faceNormal = glm::cross(b - a, c - a);  // length = 2 * area: weights
        normals[indices[i]] += faceNormal;
        normals[indices[i + 1]] += faceNormal;
        normals[indices[i + 2]] += faceNormal;
    }
    for (glm::vec3& n : normals) {
        const float length = glm::length(n);
        n = length > 0.0f ? n / length : glm::vec3(0.0f, 1.0f, 0.0f);
    }
    return normals;
}

} // namespace

MeshGeometry::MeshGeometry(MeshData data, std::string name)
    : m_name(std::move(name)), m_id(nextMeshSerial()) {
    const std::string where = "MeshGeometry('" + m_name + "')";
    const std::size_t vertexCount = data.positions.size();
    if (vertexCount == 0) {
        throw InvalidArgument(where + ": mesh has no positions");
    }
    if (vertexCount > 0xFFFFFFFFu) {
        throw InvalidArgument(where + ": more than 2^32 vertices");
    }
    const bool has16 = !data.indices16.empty();
    const bool has32 = !data.indices32.empty();
    if (!has16 && !has32) {
        throw InvalidArgument(where + ": mesh has no indices (set indices16 or indices32)");
    }
    if (has16 && has32) {
        throw InvalidArgument(where + ": both indices16 and indices32 are set; use one");
    }
    const std::size_t indexCount = has16 ? data.indices16.size() : data.indices32.size();
    if (indexCount % 3 != 0) {
        throw InvalidArgument(where + ": index count " + std::to_string(indexCount) +
                              " is not a multiple of 3 (triangle lists only)");
    }
    auto checkSize = [&](std::size_t size, const char* field) {
        if (size != 0 && size != vertexCount) {
            throw InvalidArgument(where + ": " + field + " has " + std::to_string(size) +
                                  " entries, expected 0 or the vertex count " +
                                  std::to_string(vertexCount));
        }
    };
    checkSize(data.normals.size(), "normals");
    checkSize(data.uv0.size(), "uv0");
    checkSize(data.colors.size(), "colors");
    if (has16) {
        checkIndices(data.indices16, vertexCount, where);
    } else {
        checkIndices(data.indices32, vertexCount, where);
    }
    for (std::size_t i = 0; i < vertexCount; ++i) {
        if (!detail::allFinite(data.positions[i])) {
            throw InvalidArgument(where + ": position " + std::to_string(i) + " has NaN or Inf");
        }
        m_bounds.extend(data.positions[i]);
    }
    if (data.morphTargets.size() > kMaxMorphTargets) {
        throw InvalidArgument(where + ": " + std::to_string(data.morphTargets.size()) +
                              " morph targets, more than kMaxMorphTargets (" +
                              std::to_string(kMaxMorphTargets) + ")");
    }
    for (std::size_t t = 0; t < data.morphTargets.size(); ++t) {
        const MorphTarget& target = data.morphTargets[t];
        const std::string which = where + ": morph target " + std::to_string(t);
        if (target.positionDeltas.size() != vertexCount) {
            throw InvalidArgument(which + " has " + std::to_string(target.positionDeltas.size()) +
                                  " position deltas, expected the vertex count " +
                                  std::to_string(vertexCount));
        }
        if (!target.normalDeltas.empty() && target.normalDeltas.size() != vertexCount) {
            throw InvalidArgument(which + " has " + std::to_string(target.normalDeltas.size()) +
                                  " normal deltas, expected 0 or the vertex count");
        }
        for (const auto* deltas : {&target.positionDeltas, &target.normalDeltas}) {
            for (const glm::vec3& d : *deltas) {
                if (!detail::allFinite(d)) {
                    throw InvalidArgument(which + " has a NaN or Inf delta");
                }
            }
        }
        Aabb deltaBounds;
        for (const glm::vec3& d : target.positionDeltas) {
            deltaBounds.extend(d);
        }
        m_morphDeltaBounds.push_back(deltaBounds);  // vertexCount > 0: never empty
    }
    if (data.morphWeights.size() > data.morphTargets.size()) {
        throw InvalidArgument(where + ": " + std::to_string(data.morphWeights.size()) +
                              " default morph weights for " +
                              std::to_string(data.morphTargets.size()) + " targets");
    }
    for (float w : data.morphWeights) {
        if (!std::isfinite(w)) {
            throw InvalidArgument(where + ": a default morph weight is NaN or Inf");
        }
    }
    data.morphWeights.resize(data.morphTargets.size(), 0.0f);
    if (data.normals.empty()) {
        data.normals = has16 ? smoothNormals(data.positions, data.indices16)
                             : smoothNormals(data.positions, data.indices32);
    }
    m_data = std::move(data);
}

std::shared_ptr<const MeshGeometry> MeshGeometry::create(MeshData data, std::string name) {
    return std::make_shared<const MeshGeometry>(std::move(data), std::move(name));
}

Aabb MeshGeometry::morphedBounds(std::span<const float> weights) const noexcept {
    return morphedBounds(weights, weights);
}

Aabb MeshGeometry::morphedBounds(std::span<const float> lowWeights,
                                 std::span<const float> highWeights) const noexcept {
    Aabb bounds = m_bounds;
    for (std::size_t t = 0; t < m_morphDeltaBounds.size(); ++t) {
        const float low = t < lowWeights.size() ? lowWeights[t] : 0.0f;
        const float high = t < highWeights.size() ? highWeights[t] : 0.0f;
        if (low == 0.0f && high == 0.0f) {
            continue;
        }
        // Interval product [low, high] x [deltaMin, deltaMax], per axis: the extremes are
        // among the four end products (R. E. Moore, "Interval Analysis", 1966).
        const Aabb& delta = m_morphDeltaBounds[t];
        const glm::vec3 a = low * delta.min;
        const glm::vec3 b = low * delta.max;
        const glm::vec3 c = high * delta.min;
        const glm::vec3 d = high * delta.max;
        bounds.min += glm::min(glm::min(a, b), glm::min(c, d));
        bounds.max += glm::max(glm::max(a, b), glm::max(c, d));
    }
    return bounds;
}

std::uint32_t MeshGeometry::indexCount() const noexcept {
    return static_cast<std::uint32_t>(m_data.indices16.empty() ? m_data.indices32.size()
                                                               : m_data.indices16.size());
}

} // namespace myriad
