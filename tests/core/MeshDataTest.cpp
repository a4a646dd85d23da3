#include "myriad/core/MeshData.h"
#include "myriad/core/Shapes.h"
#include "myriad/util/Error.h"

#include <catch2/catch.hpp>

#include <limits>

using namespace myriad;

TEST_CASE("MeshGeometry validates its data", "[mesh]") {
    CHECK_THROWS_AS(MeshGeometry(MeshData{}), InvalidArgument);  // empty mesh
    MeshData noIndices = shapes::triangle();
    noIndices.indices16.clear();
    CHECK_THROWS_AS(MeshGeometry(noIndices), InvalidArgument);
    MeshData both = shapes::triangle();
    both.indices32 = {0, 1, 2};
    CHECK_THROWS_AS(MeshGeometry(both), InvalidArgument);
    MeshData notTriangles = shapes::triangle();
    notTriangles.indices16 = {0, 1};
    CHECK_THROWS_AS(MeshGeometry(notTriangles), InvalidArgument);
    MeshData pastEnd = shapes::triangle();
    pastEnd.indices16 = {0, 1, 3};
    try {
        MeshGeometry geometry(pastEnd, "tri");
        FAIL("an index past the vertex count was accepted");
    } catch (const OutOfRange& e) {
        CHECK_THAT(e.what(), Catch::Contains("past the vertex count 3"));
    }
    MeshData shortNormals = shapes::triangle();
    shortNormals.normals.pop_back();
    CHECK_THROWS_AS(MeshGeometry(shortNormals), InvalidArgument);
    MeshData nan = shapes::triangle();
    nan.positions[1].y = std::numeric_limits<float>::quiet_NaN();
    CHECK_THROWS_AS(MeshGeometry(nan), InvalidArgument);
}

TEST_CASE("MeshGeometry computes bounds, counts and missing normals", "[mesh]") {
    const MeshGeometry box(shapes::box(2.0f), "box");
    CHECK(box.vertexCount() == 24);
    CHECK(box.triangleCount() == 12);
    CHECK(box.indexType() == IndexType::UInt16);
    CHECK(box.localBounds().min == glm::vec3(-1.0f));
    CHECK(box.localBounds().max == glm::vec3(1.0f));

    MeshData data = shapes::triangle();
    data.normals.clear();
    const MeshGeometry triangle(data);
    REQUIRE(triangle.data().normals.size() == 3);
    CHECK(triangle.data().normals[0].z == Approx(1.0f));
    CHECK_FALSE(triangle.hasColors());

    const MeshGeometry sphere(shapes::uvSphere(1.0f, 8, 4));
    CHECK(sphere.indexType() == IndexType::UInt32);
    CHECK(sphere.localBounds().max.y == Approx(1.0f));
    CHECK(sphere.id() != triangle.id());
}
