#pragma once
/** @file
 *  Simple meshes built in code, for tests, examples and benchmarks. */
#include "myriad/core/MeshData.h"

namespace myriad::shapes {

/** A triangle in the XY plane facing +Z: (-0.5,-0.5), (0.5,-0.5), (0,0.5). 16-bit indices. */
[[nodiscard]] MeshData triangle();
/** A width x height rectangle in the XY plane, centred on the origin, facing +Z, uv (0,0) at
 *  the top-left corner as glTF.
 *  @throws InvalidArgument if @p width or @p height is not a finite number above 0. */
[[nodiscard]] MeshData quad(float width = 1.0f, float height = 1.0f);
/** A @p width x @p depth ground plane in the XZ plane at y = 0, centred on the origin, facing
 *  +Y (Godot's PlaneMesh; three.js's PlaneGeometry after rotateX(-pi / 2)): a floor needs no
 *  rotation, unlike quad(), which stands in XY.
 *
 *  Cut into (@p subdivisionsX + 1) x (@p subdivisionsZ + 1) cells, as Godot's subdivide_width
 *  and subdivide_depth (three.js's widthSegments and heightSegments are these + 1), so
 *  (subdivisionsX + 2) * (subdivisionsZ + 2) vertices and 2 triangles per cell; 16-bit indices
 *  up to 65,536 vertices, 32-bit beyond. Vertices run row by row from z = -depth / 2, x
 *  increasing within a row. Every normal is (0, 1, 0); triangles are counter-clockwise seen
 *  from above (+Y), so a plane seen from below is back-face culled.
 *
 *  UVs as Godot's PlaneMesh and quad() laid down (glTF convention, v down the image): (0, 0)
 *  at the corner (-width / 2, 0, -depth / 2), u along +X, v along +Z, so seen from above with
 *  -Z up the screen an image reads upright. (three.js's rotated PlaneGeometry has the same
 *  picture, with v = 1 - ours, as its textures are flipped on upload.)
 *  @throws InvalidArgument if @p width or @p depth is not a finite number above 0, or a
 *  subdivision count is negative or above 4095 (at most 4096 x 4096 cells). */
[[nodiscard]] MeshData plane(float width = 2.0f, float depth = 2.0f, int subdivisionsX = 0, int subdivisionsZ = 0);
/** An axis-aligned cube of edge @p size centred on the origin, 24 vertices with face normals.
 *  @throws InvalidArgument if @p size is not a finite number above 0 (a zero or negative edge
 *  would make a flat or inside-out mesh). */
[[nodiscard]] MeshData box(float size = 1.0f);
/** A UV sphere of @p radius, @p segments around (>= 3) and @p rings from pole to pole (>= 2).
 *  @throws InvalidArgument below those minimums, or if @p radius is not a finite number above 0. */
[[nodiscard]] MeshData uvSphere(float radius = 0.5f, int segments = 32, int rings = 16);

} // namespace myriad::shapes
