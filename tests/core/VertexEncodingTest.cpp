// VertexEncoding (issue 26): a mesh's GPU copy stored as 8- and 16-bit integers, laid out and
// packed byte for byte as worked out by hand, normalized values rounded on the CPU copy to what
// the GPU reads back, and every value that does not fit refused by name.
#include "myriad/core/MeshData.h"
#include "myriad/core/Shapes.h"
#include "myriad/util/Error.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>

using namespace myriad;

namespace {

/** One triangle: positions (0,0,0) (2,0,0) (0,3,0) facing +Z, with uvs and colours. */
MeshData triangleWithEverything() {
    MeshData data;
    data.positions = {{0, 0, 0}, {2, 0, 0}, {0, 3, 0}};
    data.normals = {{0, 0, 1}, {0, 0, 1}, {0, 0, 1}};
    data.uv0 = {{0, 0}, {1, 0}, {0, 1}};
    data.colors = {{1, 0, 0, 1}, {0, 1, 0, 1}, {0, 0, 1, 0.5f}};
    data.indices16 = {0, 1, 2};
    return data;
}

template <class T>
T read(const std::vector<std::byte>& bytes, std::size_t offset) {
    T value{};
    std::memcpy(&value, bytes.data() + offset, sizeof value);
    return value;
}

} // namespace

TEST_CASE("VertexEncoding: every attribute Float32 is the 48-byte layout of before", "[mesh][encoding]") {
    const MeshGeometry mesh(triangleWithEverything());
    const PackedVertexLayout& layout = mesh.vertexLayout();
    CHECK(layout.strideBytes == 48);
    CHECK(layout.position.offsetBytes == 0);
    CHECK(layout.normal.offsetBytes == 12);
    CHECK(layout.uv0.offsetBytes == 24);
    CHECK(layout.color.offsetBytes == 32);
    const std::vector<std::byte> bytes = mesh.packedVertices();
    REQUIRE(bytes.size() == 3 * 48);
    CHECK(read<float>(bytes, 48 + 0) == 2.0f);       // vertex 1 position x
    CHECK(read<float>(bytes, 2 * 48 + 28) == 1.0f);  // vertex 2 uv v
    CHECK(read<float>(bytes, 2 * 48 + 44) == 0.5f);  // vertex 2 colour alpha
}

TEST_CASE("VertexEncoding: absent uvs and colours take 4 constant bytes in a packed mesh, float in a float one",
          "[mesh][encoding]") {
    MeshData data = triangleWithEverything();
    data.uv0.clear();
    data.colors.clear();
    SECTION("all Float32: the 48-byte layout the table-driven path copies on the GPU") {
        const MeshGeometry mesh(std::move(data));
        CHECK(mesh.vertexLayout().strideBytes == 48);
        CHECK(mesh.vertexLayout().color == PackedVertexLayout::Attribute{VertexStorage::Float32, 4, 32});
        CHECK(read<float>(mesh.packedVertices(), 48 + 32 + 12) == 1.0f);  // white
    }
    SECTION("packed normals: uv and colour as UNorm8") {
        data.encoding.uv0 = VertexStorage::Float32;  // asked for, but there is nothing to store
        data.encoding.normal = VertexStorage::SNorm8;
        const MeshGeometry mesh(std::move(data));
        const PackedVertexLayout& layout = mesh.vertexLayout();
        CHECK(layout.uv0.storage == VertexStorage::UNorm8);
        CHECK(layout.color.storage == VertexStorage::UNorm8);
        CHECK(layout.strideBytes == 12 + 4 + 4 + 4);
        const std::vector<std::byte> bytes = mesh.packedVertices();
        for (std::size_t v = 0; v < 3; ++v) {
            const std::size_t base = v * layout.strideBytes;
            CHECK(read<std::uint16_t>(bytes, base + 16) == 0);            // uv (0, 0)
            CHECK(read<std::uint32_t>(bytes, base + 20) == 0xFFFFFFFFu);  // colour white
        }
    }
}

TEST_CASE("VertexEncoding: a packed position's fourth component is 1, a normal's 0", "[mesh][encoding]") {
    MeshData data = triangleWithEverything();
    data.positions = {{0, 0, 0}, {0.5f, 0, 0}, {0, 0.5f, 0}};
    data.encoding.position = VertexStorage::SNorm16;
    data.encoding.normal = VertexStorage::SNorm16;
    const MeshGeometry mesh(std::move(data));
    const std::vector<std::byte> bytes = mesh.packedVertices();
    CHECK(read<std::int16_t>(bytes, mesh.vertexLayout().position.offsetBytes + 6) == 32767);  // 1.0
    CHECK(read<std::int16_t>(bytes, mesh.vertexLayout().normal.offsetBytes + 6) == 0);
    MeshData scaled = triangleWithEverything();
    scaled.encoding.position = VertexStorage::UScaled8;
    CHECK(read<std::uint8_t>(MeshGeometry(std::move(scaled)).packedVertices(), 3) == 1);
}

TEST_CASE("VertexEncoding: a normal too long for its storage is made unit length, its direction kept",
          "[mesh][encoding]") {
    MeshData data = triangleWithEverything();
    data.normals = {{2, 1, 0}, {0, 0, 1}, {0.6f, 0.0f, 0.8f}};
    data.encoding.normal = VertexStorage::SNorm16;
    const MeshGeometry mesh(std::move(data));
    const glm::vec3 n = mesh.data().normals[0];
    CHECK(n.x == Approx(2.0f / std::sqrt(5.0f)).margin(1.0 / 32767));
    CHECK(n.y == Approx(1.0f / std::sqrt(5.0f)).margin(1.0 / 32767));
    CHECK(n.z == 0.0f);
    // One that fits keeps its value (to its step), unit length or not.
    CHECK(mesh.data().normals[2].x == std::round(0.6f * 32767.0f) / 32767.0f);
}

TEST_CASE("VertexEncoding: gltfpack's layout is 20 bytes, each value stored as the integer it came from",
          "[mesh][encoding]") {
    MeshData data = triangleWithEverything();
    data.positions = {{0, 0, 0}, {16383, 0, 7}, {0, 16383, 65535}};  // 14-bit grid, scaled
    data.encoding.position = VertexStorage::UScaled16;
    data.normals = {{0, 0, 1}, {0, 0, -1}, {-1.0f, 0.0f, 0.0f}};
    data.encoding.normal = VertexStorage::SNorm8;
    data.uv0 = {{0, 0}, {1, 0}, {4095.0f / 65535.0f, 1}};
    data.encoding.uv0 = VertexStorage::UNorm16;
    data.colors.clear();
    const MeshGeometry mesh(std::move(data));
    const PackedVertexLayout& layout = mesh.vertexLayout();
    // position 4 x 2 bytes, normal 4 x 1, uv 2 x 2, colour 4 x 1 (white, absent)
    CHECK(layout.position == PackedVertexLayout::Attribute{VertexStorage::UScaled16, 4, 0});
    CHECK(layout.normal == PackedVertexLayout::Attribute{VertexStorage::SNorm8, 4, 8});
    CHECK(layout.uv0 == PackedVertexLayout::Attribute{VertexStorage::UNorm16, 2, 12});
    CHECK(layout.color == PackedVertexLayout::Attribute{VertexStorage::UNorm8, 4, 16});
    CHECK(layout.strideBytes == 20);
    const std::vector<std::byte> bytes = mesh.packedVertices();
    REQUIRE(bytes.size() == 60);
    CHECK(read<std::uint16_t>(bytes, 20 + 0) == 16383);
    CHECK(read<std::uint16_t>(bytes, 20 + 4) == 7);
    CHECK(read<std::uint16_t>(bytes, 40 + 4) == 65535);
    CHECK(read<std::uint16_t>(bytes, 20 + 6) == 1);  // the fourth component: w = 1
    CHECK(read<std::int8_t>(bytes, 8 + 2) == 127);
    CHECK(read<std::int8_t>(bytes, 20 + 8 + 2) == -127);  // -1 is -127, never -128
    CHECK(read<std::int8_t>(bytes, 40 + 8 + 0) == -127);
    CHECK(read<std::uint16_t>(bytes, 20 + 12) == 65535);
    CHECK(read<std::uint16_t>(bytes, 40 + 12) == 4095);
    CHECK(read<std::uint16_t>(bytes, 40 + 14) == 65535);
    // Bounds from the values as given: scaled integers keep their value.
    CHECK(mesh.localBounds().max.z == 65535.0f);
}

TEST_CASE("VertexEncoding: normalized values are rounded to their step on the CPU copy too", "[mesh][encoding]") {
    MeshData data = triangleWithEverything();
    data.colors = {{0.5f, 0.0f, 1.0f, 1.0f}, {0.2f, 0.3f, 0.4f, 1.0f}, {0.0f, 0.0f, 0.0f, 0.0f}};
    data.encoding.color = VertexStorage::UNorm8;
    data.positions = {{0, 0, 0}, {0.5f, 0, 0}, {0, 0.25f, -0.3f}};
    data.encoding.position = VertexStorage::SNorm16;
    const MeshGeometry mesh(std::move(data));
    // 0.5 x 255 = 127.5 rounds to 128 (away from zero): the GPU reads 128 / 255.
    CHECK(mesh.data().colors[0].r == 128.0f / 255.0f);
    CHECK(mesh.data().colors[1].g == 77.0f / 255.0f);  // 0.3 x 255 = 76.5 -> 77
    CHECK(read<std::uint8_t>(mesh.packedVertices(), 1 * mesh.vertexLayout().strideBytes +
                                                        mesh.vertexLayout().color.offsetBytes + 1) == 77);
    // -0.3 x 32767 = -9830.1 -> -9830, read back as -9830 / 32767; the box holds that value.
    CHECK(mesh.data().positions[2].z == -9830.0f / 32767.0f);
    CHECK(mesh.localBounds().min.z == -9830.0f / 32767.0f);
    CHECK(mesh.data().positions[1].x == 16384.0f / 32767.0f);  // 16383.5 -> 16384
}

TEST_CASE("VertexEncoding: computed normals are clamped and stored normalized", "[mesh][encoding]") {
    MeshData data = triangleWithEverything();
    data.normals.clear();
    data.encoding.normal = VertexStorage::SNorm16;
    const MeshGeometry mesh(std::move(data));
    CHECK(mesh.data().normals[0] == glm::vec3(0.0f, 0.0f, 1.0f));
    CHECK(mesh.vertexLayout().normal.storage == VertexStorage::SNorm16);
    CHECK(read<std::int16_t>(mesh.packedVertices(), mesh.vertexLayout().normal.offsetBytes + 4) == 32767);
}

TEST_CASE("VertexEncoding: what does not fit is refused, naming attribute, vertex and storage", "[mesh][encoding]") {
    SECTION("a normal stored unsigned") {
        MeshData data = triangleWithEverything();
        data.encoding.normal = VertexStorage::UNorm8;
        CHECK_THROWS_WITH(MeshGeometry(std::move(data), "m"),
                          Catch::Contains("encoding.normal is UNorm8") && Catch::Contains("SNorm16"));
    }
    SECTION("a value that is no VertexStorage") {
        MeshData data = triangleWithEverything();
        data.encoding.uv0 = static_cast<VertexStorage>(42);
        CHECK_THROWS_WITH(MeshGeometry(std::move(data), "m"), Catch::Contains("encoding.uv0 is 42"));
    }
    SECTION("a colour stored signed or scaled") {
        MeshData data = triangleWithEverything();
        data.encoding.color = VertexStorage::SNorm8;
        CHECK_THROWS_AS(MeshGeometry(data), InvalidArgument);
        data.encoding.color = VertexStorage::UScaled8;
        CHECK_THROWS_AS(MeshGeometry(data), InvalidArgument);
    }
    SECTION("a scaled position that is not an integer") {
        MeshData data = triangleWithEverything();
        data.positions[2].y = 2.5f;
        data.encoding.position = VertexStorage::SScaled16;
        CHECK_THROWS_WITH(MeshGeometry(std::move(data), "m"),
                          Catch::Contains("position 2 component 1 is 2.5,") && Catch::Contains("SScaled16"));
    }
    SECTION("a scaled value out of range") {
        MeshData data = triangleWithEverything();
        data.positions[1].x = 256.0f;
        data.encoding.position = VertexStorage::UScaled8;
        CHECK_THROWS_WITH(MeshGeometry(data), Catch::Contains("position 1 component 0 is 256"));
        data.positions[1].x = 255.0f;
        data.positions[0].x = -1.0f;
        CHECK_THROWS_AS(MeshGeometry(data), InvalidArgument);
        data.positions[0].x = 0.0f;
        CHECK_NOTHROW(MeshGeometry(data));
    }
    SECTION("a normalized value out of range, or NaN") {
        MeshData data = triangleWithEverything();
        data.uv0[1].x = 1.0001f;
        data.encoding.uv0 = VertexStorage::UNorm16;
        CHECK_THROWS_WITH(MeshGeometry(data), Catch::Contains("uv0 1 component 0"));
        data.uv0[1].x = std::numeric_limits<float>::quiet_NaN();
        CHECK_THROWS_AS(MeshGeometry(data), InvalidArgument);
        data.uv0[1].x = -0.5f;
        data.encoding.uv0 = VertexStorage::SNorm8;
        CHECK_NOTHROW(MeshGeometry(data));
        data.normals[0].x = std::numeric_limits<float>::quiet_NaN();
        data.encoding.normal = VertexStorage::SNorm8;
        CHECK_THROWS_WITH(MeshGeometry(data), Catch::Contains("normal 0 component 0"));
    }
}

TEST_CASE("VertexEncoding: componentBytes and toString name every storage", "[mesh][encoding]") {
    CHECK(componentBytes(VertexStorage::Float32) == 4);
    CHECK(componentBytes(VertexStorage::SNorm8) == 1);
    CHECK(componentBytes(VertexStorage::UScaled16) == 2);
    CHECK(std::string(toString(VertexStorage::SScaled8)) == "SScaled8");
    CHECK(std::string(toString(VertexStorage::UNorm16)) == "UNorm16");
}
