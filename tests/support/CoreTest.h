#pragma once
// Small builders shared by the CPU and GL tests (no GL here: the core tests include it too).
#include "myriad/core/MeshData.h"
#include "myriad/core/Shapes.h"

#include <glm/glm.hpp>
#include <glm/gtc/matrix_transform.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

namespace myriad::test {

/** The linear value of an sRGB-encoded byte (IEC 61966-2-1's EOTF, the inverse of
 *  linearToSrgb()): what a GPU's sRGB texture decode gives for it. */
inline float linearOfSrgbByte(int byte) {
    const float c = static_cast<float>(byte) / 255.0f;
    return c <= 0.04045f ? c / 12.92f : std::pow((c + 0.055f) / 1.055f, 2.4f);
}

/** A translation to (x, y, z). */
inline glm::mat4 at(float x, float y = 0.0f, float z = 0.0f) {
    return glm::translate(glm::mat4(1.0f), glm::vec3(x, y, z));
}

/** A square of @p side units in the XY plane, centred on the origin, facing +Z. */
inline std::shared_ptr<const MeshGeometry> quadMesh(float side = 0.4f) {
    return MeshGeometry::create(shapes::quad(side, side), "quad");
}

/** A strip in the XY plane from x = @p first to x = @p last, y from @p low to @p high, in
 *  @p columns quads (counter-clockwise facing +Z); vertices at x <= @p elbow follow joint 0,
 *  the rest joint 1, with weight 1 (rigid): the two-joint arm the skinning tests bend. */
inline MeshData skinnedStrip(float first, float last, int columns, float elbow, float low, float high) {
    MeshData data;
    for (int column = 0; column <= columns; ++column) {
        const float x = first + (last - first) * static_cast<float>(column) / static_cast<float>(columns);
        for (float y : {low, high}) {
            data.positions.emplace_back(x, y, 0.0f);
            data.joints.emplace_back(x <= elbow + 1e-4f ? 0 : 1, 0, 0, 0);
            data.weights.emplace_back(1.0f, 0.0f, 0.0f, 0.0f);
        }
    }
    for (int quad = 0; quad < columns; ++quad) {
        const auto a = static_cast<std::uint16_t>(2 * quad);
        const auto b = static_cast<std::uint16_t>(a + 1), c = static_cast<std::uint16_t>(a + 2),
                   d = static_cast<std::uint16_t>(a + 3);
        data.indices16.insert(data.indices16.end(), {a, c, b, b, c, d});
    }
    return data;
}

/** Vertex @p v of @p data skinned on the CPU with @p skin (one matrix per joint): the linear
 *  blend skinning equation of glTF 2.0 section 3.7.3, sum of weight_k * skin[joint_k] * p,
 *  written out here independently of the library's shader, to check it against. */
inline glm::vec3 skinnedPosition(const MeshData& data, std::size_t v, std::span<const glm::mat4> skin) {
    glm::vec4 sum(0.0f);
    for (int k = 0; k < 4; ++k) {
        sum += data.weights[v][k] * (skin[data.joints[v][k]] * glm::vec4(data.positions[v], 1.0f));
    }
    return glm::vec3(sum);
}

} // namespace myriad::test
