#pragma once
// Small builders shared by the CPU and GL tests (no GL here: the core tests include it too).
#include "myriad/core/MeshData.h"
#include "myriad/core/Shapes.h"

#include <glm/glm.hpp>
#include <glm/gtc/matrix_transform.hpp>

#include <memory>

namespace myriad::test {

/** A translation to (x, y, z). */
inline glm::mat4 at(float x, float y = 0.0f, float z = 0.0f) {
    return glm::translate(glm::mat4(1.0f), glm::vec3(x, y, z));
}

/** A square of @p side units in the XY plane, centred on the origin, facing +Z. */
inline std::shared_ptr<const MeshGeometry> quadMesh(float side = 0.4f) {
    return MeshGeometry::create(shapes::quad(side, side), "quad");
}

} // namespace myriad::test
