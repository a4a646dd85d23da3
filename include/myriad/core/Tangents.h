#pragma once
/** @file
 *  Vertex tangents for normal maps, generated MikkTSpace-style (generateTangents). */
#include "myriad/core/MeshData.h"

namespace myriad {

/** Fills @p data.tangents (one per vertex, xyz unit model-space tangent, w = +1 or -1
 *  handedness, glTF 2.0's TANGENT convention: bitangent = cross(normal, xyz) * w points
 *  towards the normal map's +Y, up the image) from positions, normals and uv0, following
 *  Morten Mikkelsen's method ("Simulation of Wrinkled Surfaces Revisited", 2008; the
 *  MikkTSpace reference code, mikktspace.c): per triangle, the tangent and bitangent solved
 *  from its edges and their texture-coordinate differences; per corner, the tangent projected
 *  into the plane of that vertex's normal and weighted by the triangle's angle at the corner;
 *  summed per vertex and handedness; a vertex whose triangles disagree on handedness (a UV
 *  mirror seam) is split in two, every per-vertex array (normals, uv0, uv1, colours, skin,
 *  morph deltas) copied for the new vertex and the indices of the triangles of the minority
 *  handedness moved to it; finally orthonormalised against the normal (Gram-Schmidt). The
 *  handedness is taken with v pointing up the image, as three.js's
 *  computeMikkTSpaceTangents(negateSign = true) does for glTF's v-down coordinates.
 *  What differs from the reference: vertices are only split on handedness (the reference also
 *  groups corners by smoothing and by the angle between their tangents), degenerate triangles
 *  (no area, or no texture-coordinate area) add nothing (the reference gives them their
 *  neighbours' tangents too), and a vertex left without any tangent gets one perpendicular to
 *  its normal (the reference's fallback is the same idea); the results equal the reference's
 *  on meshes whose vertices each see one handedness and non-degenerate triangles, up to float
 *  rounding. Existing tangents are replaced.
 *  @param data a mesh as MeshGeometry takes it; its normals are computed first (as
 *  MeshGeometry would, area-weighted smooth) when empty. Indices16 stay 16-bit unless a split
 *  needs an index past 65535 (they become indices32).
 *  @throws InvalidArgument if there are no positions or indices, uv0 is empty or not one per
 *  vertex, or an index is out of range (data unchanged then). */
void generateTangents(MeshData& data);

} // namespace myriad
