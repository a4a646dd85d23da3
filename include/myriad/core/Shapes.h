#pragma once
/** @file
 *  Simple meshes built in code, for tests, examples and benchmarks. */
#include "myriad/core/MeshData.h"

namespace myriad::shapes {

/** A triangle in the XY plane facing +Z: (-0.5,-0.5), (0.5,-0.5), (0,0.5). 16-bit indices. */
[[nodiscard]] MeshData triangle();
/** A width x height rectangle in the XY plane, centred on the origin, facing +Z, uv (0,0) at
 *  the top-left corner as glTF. */
[[nodiscard]] MeshData quad(float width = 1.0f, float height = 1.0f);
/** An axis-aligned cube of edge @p size centred on the origin, 24 vertices with face normals. */
[[nodiscard]] MeshData box(float size = 1.0f);
/** A UV sphere of @p radius, @p segments around (>= 3) and @p rings from pole to pole (>= 2).
 *  @throws InvalidArgument below those minimums. */
[[nodiscard]] MeshData uvSphere(float radius = 0.5f, int segments = 32, int rings = 16);

} // namespace myriad::shapes
