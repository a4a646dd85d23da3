#include "myriad/core/Shapes.h"

#include "myriad/util/Error.h"

#include <glm/gtc/constants.hpp>

#include <cmath>

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
    const float x = width * 0.5f;
    const float y = height * 0.5f;
    MeshData data;
    data.positions = {{-x, -y, 0.0f}, {x, -y, 0.0f}, {x, y, 0.0f}, {-x, y, 0.0f}};
    data.normals.assign(4, glm::vec3(0.0f, 0.0f, 1.0f));
    data.uv0 = {{0.0f, 1.0f}, {1.0f, 1.0f}, {1.0f, 0.0f}, {0.0f, 0.0f}};
    data.indices16 = {0, 1, 2, 0, 2, 3};
    return data;
}

MeshData box(float size) {
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
