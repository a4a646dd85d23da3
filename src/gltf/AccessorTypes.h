#pragma once
// glTF 2.0 accessor types and component types (section 3.6.2.2, "Accessor Data Types"), shared
// by the importer and the Draco decoder. Internal to myriad_gltf.
#include <tiny_gltf.h>

#include <cstdint>

namespace myriad::gltf::detail {

/** Size in bytes of one component of @p componentType; 0 for an unknown type. */
[[nodiscard]] inline std::uint64_t componentSize(int componentType) noexcept {
    switch (componentType) {
    case TINYGLTF_COMPONENT_TYPE_BYTE:
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: return 1;
    case TINYGLTF_COMPONENT_TYPE_SHORT:
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: return 2;
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT:
    case TINYGLTF_COMPONENT_TYPE_FLOAT: return 4;
    default: return 0;
    }
}

/** Components per element of the scalar and vector types; 0 otherwise (the matrix types are
 *  no vertex attribute). */
[[nodiscard]] inline int componentCount(int type) noexcept {
    switch (type) {
    case TINYGLTF_TYPE_SCALAR: return 1;
    case TINYGLTF_TYPE_VEC2: return 2;
    case TINYGLTF_TYPE_VEC3: return 3;
    case TINYGLTF_TYPE_VEC4: return 4;
    default: return 0;
    }
}

} // namespace myriad::gltf::detail
