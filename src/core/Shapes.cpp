#include "myriad/core/Shapes.h"

#include "core/Validate.h"
#include "myriad/util/Error.h"

#include <glm/gtc/constants.hpp>

#include <cmath>
#include <string>
#include <vector>

namespace myriad::shapes {

MeshData triangle() {
    MeshData data;
    data.positions = {{-0.5f, -0.5f, 0.0f}, {0.5f, -0.5f, 0.0f}, {0.0f, 0.5f, 0.0f}};
    data.normals.assign(3, glm::vec3(0.0f, 0.0f, 1.0f));
    data.uv0 = {{0.0f, 1.0f}, {1.0f, 1.0f}, {0.5f, 0.0f}};
    data.indices16 = {0, 1, 2};
    return data;
}

MeshData quad(float width, float height) {
    detail::requirePositiveFinite(width, "shapes::quad", "width");
    detail::requirePositiveFinite(height, "shapes::quad", "height");
    const float x = width * 0.5f;
    const float y = height * 0.5f;
    MeshData data;
    data.positions = {{-x, -y, 0.0f}, {x, -y, 0.0f}, {x, y, 0.0f}, {-x, y, 0.0f}};
    data.normals.assign(4, glm::vec3(0.0f, 0.0f, 1.0f));
    data.uv0 = {{0.0f, 1.0f}, {1.0f, 1.0f}, {1.0f, 0.0f}, {0.0f, 0.0f}};
    data.indices16 = {0, 1, 2, 0, 2, 3};
    return data;
}

MeshData plane(float width, float depth, int subdivisionsX, int subdivisionsZ) {
    constexpr int kMaxSubdivisions = 4095;
    detail::requirePositiveFinite(width, "shapes::plane", "width");
    detail::requirePositiveFinite(depth, "shapes::plane", "depth");
    if (subdivisionsX < 0 || subdivisionsZ < 0 || subdivisionsX > kMaxSubdivisions ||
        subdivisionsZ > kMaxSubdivisions) {
        throw InvalidArgument("shapes::plane: subdivisions " + std::to_string(subdivisionsX) + " x " +
                              std::to_string(subdivisionsZ) + " must each be in [0, " +
                              std::to_string(kMaxSubdivisions) + "]");
    }
    const auto cellsX = static_cast<std::uint32_t>(subdivisionsX) + 1;
    const auto cellsZ = static_cast<std::uint32_t>(subdivisionsZ) + 1;
    const std::uint32_t rowLength = cellsX + 1;
    const std::size_t vertexCount = std::size_t{rowLength} * (cellsZ + 1);
    MeshData data;
    data.positions.reserve(vertexCount);
    data.uv0.reserve(vertexCount);
    for (std::uint32_t row = 0; row <= cellsZ; ++row) {
        const float v = static_cast<float>(row) / static_cast<float>(cellsZ);
        for (std::uint32_t column = 0; column <= cellsX; ++column) {
            const float u = static_cast<float>(column) / static_cast<float>(cellsX);
            data.positions.emplace_back((u - 0.5f) * width, 0.0f, (v - 0.5f) * depth);
            data.uv0.emplace_back(u, v);
        }
    }
    data.normals.assign(vertexCount, glm::vec3(0.0f, 1.0f, 0.0f));
    std::vector<std::uint32_t> indices;
    indices.reserve(std::size_t{6} * cellsX * cellsZ);
    for (std::uint32_t row = 0; row < cellsZ; ++row) {
        for (std::uint32_t column = 0; column < cellsX; ++column) {
            // near: the corner at +Z of far; right: at +X. (far, near, near right) and
            // (far, near right, far right) turn counter-clockwise seen from +Y.
            const std::uint32_t far = row * rowLength + column;
            const std::uint32_t near = far + rowLength;
            indices.insert(indices.end(), {far, near, near + 1, far, near + 1, far + 1});
        }
    }
    if (vertexCount <= 65536) {
        data.indices16.assign(indices.begin(), indices.end());  // every index below 65,536
    } else {
        data.indices32 = std::move(indices);
    }
    return data;
}

MeshData box(float size) {
    detail::requirePositiveFinite(size, "shapes::box", "size");
    const float h = size * 0.5f;
    MeshData data;
    // One face per (normal, tangent u, tangent v): corners at n*h +- u*h +- v*h, CCW from outside.
    const glm::vec3 faces[6][3] = {
        {{1, 0, 0}, {0, 0, -1}, {0, 1, 0}}, {{-1, 0, 0}, {0, 0, 1}, {0, 1, 0}},
        {{0, 1, 0}, {1, 0, 0}, {0, 0, -1}}, {{0, -1, 0}, {1, 0, 0}, {0, 0, 1}},
        {{0, 0, 1}, {1, 0, 0}, {0, 1, 0}},  {{0, 0, -1}, {-1, 0, 0}, {0, 1, 0}},
    };
    for (const auto& face : faces) {
        const glm::vec3 n = face[0], u = face[1], v = face[2];
        const auto base = static_cast<std::uint16_t>(data.positions.size());
        const glm::vec2 corners[4] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
        for (const glm::vec2& c : corners) {
            data.positions.push_back((n + u * c.x + v * c.y) * h);
            data.normals.push_back(n);
            data.uv0.emplace_back((c.x + 1.0f) * 0.5f, (1.0f - c.y) * 0.5f);
        }
        for (std::uint16_t i : {0, 1, 2, 0, 2, 3}) {
            data.indices16.push_back(static_cast<std::uint16_t>(base + i));
        }
    }
    return data;
}

MeshData uvSphere(float radius, int segments, int rings) {
    if (segments < 3 || rings < 2) {
        throw InvalidArgument("shapes::uvSphere: need segments >= 3 and rings >= 2");
    }
    detail::requirePositiveFinite(radius, "shapes::uvSphere", "radius");
    MeshData data;
    for (int ring = 0; ring <= rings; ++ring) {
        const float theta = glm::pi<float>() * static_cast<float>(ring) / static_cast<float>(rings);
        for (int segment = 0; segment <= segments; ++segment) {
            const float phi =
                glm::two_pi<float>() * static_cast<float>(segment) / static_cast<float>(segments);
            const glm::vec3 n(std::sin(theta) * std::cos(phi), std::cos(theta),
                              -std::sin(theta) * std::sin(phi));
            data.positions.push_back(n * radius);
            data.normals.push_back(n);
            data.uv0.emplace_back(static_cast<float>(segment) / static_cast<float>(segments),
                                  static_cast<float>(ring) / static_cast<float>(rings));
        }
    }
    const auto stride = static_cast<std::uint32_t>(segments + 1);
    for (std::uint32_t ring = 0; ring < static_cast<std::uint32_t>(rings); ++ring) {
        for (std::uint32_t segment = 0; segment < static_cast<std::uint32_t>(segments); ++segment) {
            const std::uint32_t a = ring * stride + segment;
            const std::uint32_t b = a + stride;
            data.indices32.insert(data.indices32.end(), {a, b, a + 1, a + 1, b, b + 1});
        }
    }
    return data;
}

} // namespace myriad::shapes
