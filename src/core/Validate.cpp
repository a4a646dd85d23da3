#include "core/Validate.h"

#include <glm/matrix.hpp>

namespace myriad::detail {

glm::mat4 inverseAffineOrThrow(const glm::mat4& m, const char* function) {
    const float determinant = glm::determinant(glm::mat3(m));
    if (!std::isfinite(determinant) || std::abs(determinant) < 1e-30f) {
        throw InvalidArgument(std::string(function) + ": world matrix is singular (determinant " +
                              std::to_string(determinant) + ")");
    }
    return glm::inverse(m);
}

} // namespace myriad::detail
