#pragma once
// Shared argument checks for the core: each throws InvalidArgument naming function and field.
#include "myriad/util/Error.h"

#include <glm/mat4x4.hpp>
#include <glm/vec3.hpp>
#include <glm/vec4.hpp>

#include <cmath>
#include <string>

namespace myriad::detail {

template <glm::length_t N, class T>
[[nodiscard]] inline bool allFinite(const glm::vec<N, T>& v) noexcept {
    for (glm::length_t i = 0; i < N; ++i) {
        if (!std::isfinite(v[i])) {
            return false;
        }
    }
    return true;
}

[[nodiscard]] inline bool allFinite(const glm::mat4& m) noexcept {
    return allFinite(m[0]) && allFinite(m[1]) && allFinite(m[2]) && allFinite(m[3]);
}

template <class T>
void requireFinite(const T& value, const char* function, const char* field) {
    if (!allFinite(value)) {
        throw InvalidArgument(std::string(function) + ": " + field + " has NaN or Inf");
    }
}

/** How far a transform's bottom row may be from (0, 0, 0, 1) and still count as affine. */
inline constexpr float kAffineTolerance = 1e-5f;

/** True when @p m's bottom row is (0, 0, 0, 1) within kAffineTolerance. */
[[nodiscard]] inline bool isAffine(const glm::mat4& m) noexcept {
    return std::abs(m[0][3]) <= kAffineTolerance && std::abs(m[1][3]) <= kAffineTolerance &&
           std::abs(m[2][3]) <= kAffineTolerance && std::abs(m[3][3] - 1.0f) <= kAffineTolerance;
}

/** Refuses a value that is not a finite number above 0 (a size, a radius), naming function,
 *  field and value. */
inline void requirePositiveFinite(float value, const char* function, const char* field) {
    if (!(std::isfinite(value) && value > 0.0f)) {
        throw InvalidArgument(std::string(function) + ": " + field + " " + std::to_string(value) +
                              " must be finite and above 0");
    }
}

/** Refuses a matrix whose bottom row is not (0, 0, 0, 1): an instance or node transform is
 *  affine, and a projective one cannot be stored as three rows. */
inline void requireAffine(const glm::mat4& m, const char* function) {
    if (!isAffine(m)) {
        throw InvalidArgument(std::string(function) +
                              ": matrix is not affine (bottom row must be 0, 0, 0, 1)");
    }
}

/** Inverse of an affine matrix, refusing a singular one (|det| of the 3x3 below 1e-30). */
glm::mat4 inverseAffineOrThrow(const glm::mat4& m, const char* function);

/** Makes room for one more element with the vector's usual geometric growth, so a following
 *  push_back cannot throw. (`v.reserve(v.size() + 1)` would reallocate to exactly one more on
 *  every call: quadratic over many appends.) Throws std::bad_alloc with @p v unchanged. */
template <class Vector>
void reserveOneMore(Vector& v) {
    if (v.size() == v.capacity()) {
        v.reserve(v.capacity() < 8 ? 8 : v.capacity() * 2);
    }
}

} // namespace myriad::detail
