// generateTangents (MikkTSpace-style, myriad/core/Tangents.h) and the optional uv1 / tangent
// attributes of MeshGeometry's vertex layout.
#include "myriad/core/MeshData.h"
#include "myriad/core/Shapes.h"
#include "myriad/core/Tangents.h"
#include "myriad/util/Error.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

using namespace myriad;

namespace {

/** A unit quad in the xy plane facing +z, glTF texture coordinates (u right, v down the
 *  image, so v grows towards -y); @p mirrorU flips u (a mirrored UV island). */
MeshData quad(bool mirrorU) {
    MeshData data;
    data.positions = {{-1, -1, 0}, {1, -1, 0}, {1, 1, 0}, {-1, 1, 0}};
    data.normals.assign(4, glm::vec3(0, 0, 1));
    data.uv0 = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};
    if (mirrorU) {
        for (glm::vec2& uv : data.uv0) {
            uv.x = 1.0f - uv.x;
        }
    }
    data.indices16 = {0, 1, 2, 0, 2, 3};
    return data;
}

} // namespace

TEST_CASE("generateTangents: a flat quad gets the exact tangent and handedness", "[tangents]") {
    MeshData data = quad(false);
    generateTangents(data);
    REQUIRE(data.tangents.size() == 4);
    for (const glm::vec4& t : data.tangents) {
        // u grows along +x; the bitangent cross(n, t) * w = +y points up the image (v down).
        CHECK(t.x == 1.0f);
        CHECK(t.y == 0.0f);
        CHECK(t.z == 0.0f);
        CHECK(t.w == 1.0f);
    }
    CHECK(data.positions.size() == 4);  // no split: one handedness
}

TEST_CASE("generateTangents: a mirrored-UV quad has handedness -1", "[tangents]") {
    MeshData data = quad(true);
    generateTangents(data);
    REQUIRE(data.tangents.size() == 4);
    for (const glm::vec4& t : data.tangents) {
        CHECK(t.x == -1.0f);  // u grows along -x
        CHECK(t.y == 0.0f);
        CHECK(t.z == 0.0f);
        CHECK(t.w == -1.0f);  // cross(n, t) = -y, but up the image is still +y
    }
}

TEST_CASE("generateTangents: a vertex shared by both handednesses is split", "[tangents]") {
    // Two quads side by side sharing the edge x = 1: the right one's u mirrored about it (a
    // mirror seam, as a symmetric character's UVs), so the seam's vertices see both signs.
    MeshData data;
    data.positions = {{-1, -1, 0}, {1, -1, 0}, {1, 1, 0}, {-1, 1, 0}, {3, -1, 0}, {3, 1, 0}};
    data.normals.assign(6, glm::vec3(0, 0, 1));
    data.uv0 = {{0, 1}, {1, 1}, {1, 0}, {0, 0}, {0, 1}, {0, 0}};
    data.uv1.assign(6, glm::vec2(0.5f));
    data.indices16 = {0, 1, 2, 0, 2, 3, 1, 4, 5, 1, 5, 2};
    generateTangents(data);
    REQUIRE(data.positions.size() == 8);  // the two seam vertices copied
    REQUIRE(data.tangents.size() == 8);
    REQUIRE(data.uv1.size() == 8);        // every per-vertex array follows
    REQUIRE(data.normals.size() == 8);
    const MeshGeometry geometry(data);    // still valid
    CHECK(geometry.vertexCount() == 8);
    // Each triangle's three corners agree with its own handedness.
    for (std::size_t t = 0; t < 4; ++t) {
        const float expected = t < 2 ? 1.0f : -1.0f;
        for (std::size_t k = 0; k < 3; ++k) {
            const glm::vec4& tangent = data.tangents[data.indices16[3 * t + k]];
            CHECK(tangent.w == expected);
            CHECK(tangent.x == expected);
        }
    }
}

TEST_CASE("generateTangents: orthonormal to a curved surface's normals", "[tangents]") {
    MeshData data = shapes::uvSphere(1.0f, 12, 8);
    data.tangents.clear();
    generateTangents(data);
    REQUIRE(data.tangents.size() == data.positions.size());
    for (std::size_t i = 0; i < data.tangents.size(); ++i) {
        const glm::vec3 t(data.tangents[i]);
        CHECK(std::abs(glm::length(t) - 1.0f) < 1e-5f);
        CHECK(std::abs(glm::dot(t, data.normals[i])) < 1e-5f);
        CHECK(std::abs(data.tangents[i].w) == 1.0f);
    }
}

TEST_CASE("generateTangents refuses a mesh without texture coordinates", "[tangents]") {
    MeshData data = quad(false);
    data.uv0.clear();
    CHECK_THROWS_AS(generateTangents(data), InvalidArgument);
    CHECK(data.tangents.empty());  // unchanged
}

TEST_CASE("uv1 and tangents are in the vertex layout only when the mesh has them", "[tangents][mesh]") {
    MeshData data = quad(false);
    const MeshGeometry plain(data);
    CHECK(plain.vertexLayout().strideBytes == 48);  // the float layout every plain mesh shares
    CHECK(plain.vertexLayout().uv1.components == 0);
    CHECK(plain.vertexLayout().tangent.components == 0);
    data.uv1 = {{0.25f, 0.5f}, {0, 0}, {0, 0}, {0, 0}};
    generateTangents(data);
    const MeshGeometry full(data);
    const PackedVertexLayout& layout = full.vertexLayout();
    CHECK(layout.uv1.components == 2);
    CHECK(layout.uv1.offsetBytes == 48);
    CHECK(layout.tangent.components == 4);
    CHECK(layout.tangent.offsetBytes == 56);
    CHECK(layout.strideBytes == 72);
    const std::vector<std::byte> bytes = full.packedVertices();
    float uv1[2];
    float tangent[4];
    std::memcpy(uv1, bytes.data() + 48, sizeof uv1);
    std::memcpy(tangent, bytes.data() + 56, sizeof tangent);
    CHECK(uv1[0] == 0.25f);
    CHECK(uv1[1] == 0.5f);
    CHECK(tangent[0] == 1.0f);
    CHECK(tangent[3] == 1.0f);
    MeshData bad = quad(false);
    bad.tangents.assign(4, glm::vec4(1, 0, 0, 0));  // handedness 0
    CHECK_THROWS_AS(MeshGeometry(bad), InvalidArgument);
    bad.tangents.clear();
    bad.uv1.assign(3, glm::vec2(0.0f));  // not one per vertex
    CHECK_THROWS_AS(MeshGeometry(bad), InvalidArgument);
}
