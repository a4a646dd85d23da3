// shapes::plane: the XZ ground plane's vertices, normals, winding seen from +Y, UVs, bounds and
// refusals.
#include "myriad/core/MeshData.h"
#include "myriad/core/Shapes.h"
#include "myriad/util/Error.h"

#include <catch2/catch.hpp>

#include <glm/geometric.hpp>

#include <algorithm>
#include <limits>

using namespace myriad;

namespace {
std::uint32_t indexAt(const MeshData& data, std::size_t i) {
    return data.indices16.empty() ? data.indices32[i] : data.indices16[i];
}
std::size_t indexCount(const MeshData& data) {
    return data.indices16.empty() ? data.indices32.size() : data.indices16.size();
}
} // namespace

TEST_CASE("shapes::plane lies in XZ facing +Y, counter-clockwise seen from above", "[mesh][shapes]") {
    const MeshData data = shapes::plane(4.0f, 2.0f, 2, 1);  // 3 x 2 cells
    CHECK(data.positions.size() == 4 * 3);
    CHECK(indexCount(data) == 3 * 2 * 6);
    CHECK_FALSE(data.indices16.empty());
    REQUIRE(data.normals.size() == data.positions.size());
    REQUIRE(data.uv0.size() == data.positions.size());
    for (const glm::vec3& n : data.normals) {
        CHECK(n == glm::vec3(0.0f, 1.0f, 0.0f));
    }
    for (const glm::vec3& p : data.positions) {
        CHECK(p.y == 0.0f);
    }
    // Every triangle's geometric normal (b - a) x (c - a) points up: counter-clockwise from +Y.
    for (std::size_t i = 0; i < indexCount(data); i += 3) {
        const glm::vec3 a = data.positions[indexAt(data, i)];
        const glm::vec3 b = data.positions[indexAt(data, i + 1)];
        const glm::vec3 c = data.positions[indexAt(data, i + 2)];
        const glm::vec3 n = glm::cross(b - a, c - a);
        CHECK(n.x == 0.0f);
        CHECK(n.z == 0.0f);
        CHECK(n.y > 0.0f);
    }
    const MeshGeometry geometry(data, "plane");
    CHECK(geometry.localBounds().min == glm::vec3(-2.0f, 0.0f, -1.0f));
    CHECK(geometry.localBounds().max == glm::vec3(2.0f, 0.0f, 1.0f));
    CHECK(geometry.triangleCount() == 12);
    // UVs: (0, 0) at (-w/2, 0, -d/2), u along +X, v along +Z (Godot's PlaneMesh).
    CHECK(data.positions.front() == glm::vec3(-2.0f, 0.0f, -1.0f));
    CHECK(data.uv0.front() == glm::vec2(0.0f, 0.0f));
    CHECK(data.positions.back() == glm::vec3(2.0f, 0.0f, 1.0f));
    CHECK(data.uv0.back() == glm::vec2(1.0f, 1.0f));
    CHECK(data.positions[3] == glm::vec3(2.0f, 0.0f, -1.0f));
    CHECK(data.uv0[3] == glm::vec2(1.0f, 0.0f));

    const MeshData single = shapes::plane();  // Godot's default: 2 x 2 m, one cell
    CHECK(single.positions.size() == 4);
    CHECK(indexCount(single) == 6);
    CHECK(MeshGeometry(single).localBounds().max == glm::vec3(1.0f, 0.0f, 1.0f));
}

TEST_CASE("shapes::plane switches to 32-bit indices past 65,536 vertices", "[mesh][shapes]") {
    CHECK_FALSE(shapes::plane(1.0f, 1.0f, 254, 254).indices16.empty());  // 256 x 256 vertices
    const MeshData big = shapes::plane(1.0f, 1.0f, 255, 254);            // 257 x 256
    CHECK(big.indices16.empty());
    CHECK(big.indices32.size() == std::size_t{256} * 255 * 6);
    CHECK(*std::max_element(big.indices32.begin(), big.indices32.end()) == 257 * 256 - 1);
}

TEST_CASE("shapes::plane refuses sizes and subdivisions out of range", "[mesh][shapes]") {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    CHECK_THROWS_AS(shapes::plane(0.0f, 1.0f), InvalidArgument);
    CHECK_THROWS_AS(shapes::plane(1.0f, -1.0f), InvalidArgument);
    CHECK_THROWS_AS(shapes::plane(nan, 1.0f), InvalidArgument);
    CHECK_THROWS_AS(shapes::plane(1.0f, inf), InvalidArgument);
    CHECK_THROWS_AS(shapes::plane(1.0f, 1.0f, -1, 0), InvalidArgument);
    CHECK_THROWS_AS(shapes::plane(1.0f, 1.0f, 0, 4096), InvalidArgument);
    CHECK_THROWS_WITH(shapes::plane(1.0f, 1.0f, 0, -2), Catch::Contains("shapes::plane"));
    CHECK_NOTHROW(shapes::plane(1.0f, 1.0f, 4095, 0));
}

TEST_CASE("shapes::quad, box and uvSphere refuse sizes that are not finite and above 0", "[mesh][shapes]") {
    // A zero or negative size made a flat or inside-out mesh, a NaN one an error naming no shape.
    const float nan = std::numeric_limits<float>::quiet_NaN();
    CHECK_THROWS_WITH(shapes::box(0.0f), Catch::Contains("shapes::box") && Catch::Contains("above 0"));
    CHECK_THROWS_AS(shapes::box(-1.0f), InvalidArgument);
    CHECK_THROWS_WITH(shapes::box(nan), Catch::Contains("shapes::box"));
    CHECK_THROWS_WITH(shapes::uvSphere(0.0f), Catch::Contains("shapes::uvSphere"));
    CHECK_THROWS_AS(shapes::uvSphere(-0.5f), InvalidArgument);
    CHECK_THROWS_WITH(shapes::quad(0.0f, 1.0f), Catch::Contains("shapes::quad"));
    CHECK_THROWS_AS(shapes::quad(1.0f, nan), InvalidArgument);
    CHECK_NOTHROW(shapes::box(0.001f));
    CHECK_NOTHROW(shapes::uvSphere(0.001f, 3, 2));
    CHECK_NOTHROW(shapes::quad(0.001f, 1e6f));
}
