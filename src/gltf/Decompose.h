#pragma once
/** @file Internal to myriad_gltf: an affine matrix split into translation, rotation, scale. */
#include <glm/gtc/quaternion.hpp>
#include <glm/mat4x4.hpp>
#include <glm/vec3.hpp>

namespace myriad::gltf::detail {

/** translation * rotation * scale, in double precision. */
struct Trs {
    glm::dvec3 translation{0.0};
    glm::dquat rotation{1.0, 0.0, 0.0, 0.0};  ///< unit length
    glm::dvec3 scale{1.0};
    /** The 3x3 part's columns were not orthogonal (a shear, which TRS cannot hold: it was
     *  dropped), or the bottom row was not (0, 0, 0, 1) (projective, ignored). */
    bool lossy = false;
};

/** Splits @p matrix (column-major, as glm and glTF) into T * R * S.
 *  Scale is the length of each 3x3 column; a mirroring matrix (negative determinant) gets a
 *  negative x scale. Zero-length columns (a zero scale) are allowed: the rotation is completed
 *  to a right-handed orthonormal basis from the columns that are left. A column pair whose unit
 *  vectors have |dot| above @p shearTolerance sets Trs::lossy and is orthonormalised
 *  (Gram-Schmidt in x, y, z order). The input must be finite. */
[[nodiscard]] Trs decomposeAffine(const glm::dmat4& matrix, double shearTolerance = 1e-4);

/** T * R * S as a matrix. */
[[nodiscard]] glm::dmat4 composeTrs(const glm::dvec3& translation, const glm::dquat& rotation,
                                    const glm::dvec3& scale);

} // namespace myriad::gltf::detail
