#pragma once
// Order-independent comparison of two meshes within a quantization step, for the tests of
// compressed and quantized glTF (gltfpack, Draco), which reorder and merge vertices: the
// triangle count, the surface area, the bounds, and every vertex matched to a near one both ways.
#include "myriad/core/Bounds.h"
#include "myriad/core/Material.h"  // TextureTransform
#include "myriad/core/MeshData.h"

#include <catch2/catch.hpp>
#include <glm/glm.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace myriad::test {

struct MeshVertex {
    glm::vec3 position;
    glm::vec3 normal;  ///< unit, or 0 when the mesh has none
    glm::vec2 uv;
    std::vector<glm::vec3> deltas;  ///< position deltas of each morph target
};

/** Vertices in world space, with the counts the comparison checks. */
struct FlatMesh {
    std::vector<MeshVertex> vertices;
    std::size_t triangles = 0;
    double area = 0.0;
    Aabb bounds;
};

/** Largest step allowed per attribute (positions and uvs per component, normals in length). */
struct MeshTolerance {
    float position;
    float normal;
    float uv;
};

/** Adds @p data placed by @p world to @p flat, its uvs through @p uvTransform (a material's
 *  KHR_texture_transform, which the importer keeps on the material: what the shader reads). */
inline void addMesh(FlatMesh& flat, const MeshData& data, const glm::mat4& world = glm::mat4(1.0f),
                    const TextureTransform& uvTransform = {}) {
    const glm::mat3 normalMatrix = glm::transpose(glm::inverse(glm::mat3(world)));
    std::vector<glm::vec3> placed;
    for (std::size_t i = 0; i < data.positions.size(); ++i) {
        MeshVertex v;
        v.position = glm::vec3(world * glm::vec4(data.positions[i], 1.0f));
        v.normal = data.normals.empty() ? glm::vec3(0.0f) : glm::normalize(normalMatrix * data.normals[i]);
        v.uv = data.uv0.empty() ? glm::vec2(0.0f) : data.uv0[i];
        if (!uvTransform.isIdentity()) {  // u' = c sx u + s sy v + ox, v' = -s sx u + c sy v + oy
            const float c = std::cos(uvTransform.rotation);
            const float sn = std::sin(uvTransform.rotation);
            const glm::vec2 scaled = v.uv * uvTransform.scale;
            v.uv = glm::vec2(c * scaled.x + sn * scaled.y, -sn * scaled.x + c * scaled.y) + uvTransform.offset;
        }
        for (const MorphTarget& target : data.morphTargets) {
            v.deltas.push_back(glm::mat3(world) * target.positionDeltas[i]);
        }
        placed.push_back(v.position);
        flat.bounds.extend(v.position);
        flat.vertices.push_back(std::move(v));
    }
    std::vector<std::uint32_t> indices(data.indices32.begin(), data.indices32.end());
    indices.insert(indices.end(), data.indices16.begin(), data.indices16.end());
    flat.triangles += indices.size() / 3;
    for (std::size_t i = 0; i + 2 < indices.size(); i += 3) {
        const glm::dvec3 a(placed[indices[i]]), b(placed[indices[i + 1]]), c(placed[indices[i + 2]]);
        flat.area += 0.5 * glm::length(glm::cross(b - a, c - a));
    }
}

/** The largest edge of the bounds, and of the texture coordinates' range: what quantizers
 *  divide into steps. */
inline float largestExtent(const FlatMesh& flat) {
    const glm::vec3 extent = flat.bounds.max - flat.bounds.min;
    return std::max({extent.x, extent.y, extent.z});
}
inline float largestUvExtent(const FlatMesh& flat) {
    glm::vec2 uvMin(1e30f), uvMax(-1e30f);
    for (const MeshVertex& v : flat.vertices) {
        uvMin = glm::min(uvMin, v.uv);
        uvMax = glm::max(uvMax, v.uv);
    }
    const glm::vec2 uvExtent = uvMax - uvMin;
    return std::max(uvExtent.x, uvExtent.y);
}

/** Within @p t of each other (morph deltas within two position steps: two quantized values). */
inline bool near(const MeshVertex& a, const MeshVertex& b, const MeshTolerance& t) {
    if (glm::any(glm::greaterThan(glm::abs(a.position - b.position), glm::vec3(t.position))) ||
        glm::length(a.normal - b.normal) > t.normal ||
        glm::any(glm::greaterThan(glm::abs(a.uv - b.uv), glm::vec2(t.uv))) || a.deltas.size() != b.deltas.size()) {
        return false;
    }
    for (std::size_t k = 0; k < a.deltas.size(); ++k) {
        if (glm::any(glm::greaterThan(glm::abs(a.deltas[k] - b.deltas[k]), glm::vec3(2.0f * t.position)))) {
            return false;
        }
    }
    return true;
}

/** How many vertices of @p from have no vertex of @p to within @p t. */
inline std::size_t unmatched(const FlatMesh& from, const FlatMesh& to, const MeshTolerance& t) {
    std::size_t missing = 0;
    for (const MeshVertex& v : from.vertices) {
        missing += std::any_of(to.vertices.begin(), to.vertices.end(), [&](const MeshVertex& w) { return near(v, w, t); })
                       ? 0
                       : 1;
    }
    return missing;
}

/** Checks @p other against @p original within @p t, order-independently. */
inline void compareMeshes(const FlatMesh& original, const FlatMesh& other, const MeshTolerance& t) {
    INFO("position step " << t.position << ", normal " << t.normal << ", uv " << t.uv);
    CHECK(other.triangles == original.triangles);
    CHECK(other.area == Approx(original.area).epsilon(1e-3));
    CHECK(glm::all(glm::lessThanEqual(glm::abs(other.bounds.min - original.bounds.min), glm::vec3(t.position))));
    CHECK(glm::all(glm::lessThanEqual(glm::abs(other.bounds.max - original.bounds.max), glm::vec3(t.position))));
    CHECK(unmatched(other, original, t) == 0);
    CHECK(unmatched(original, other, t) == 0);
}

} // namespace myriad::test
