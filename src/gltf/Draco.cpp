#include "gltf/Draco.h"

#include "gltf/AccessorTypes.h"

#include "myriad/util/Error.h"

#include <draco/compression/decode.h>
#include <draco/core/decoder_buffer.h>
#include <draco/mesh/mesh.h>
#include <nlohmann/json.hpp>

#include <cstring>
#include <limits>

namespace myriad::gltf::detail {
namespace {

/** One value of @p attribute converted to @p components components of type T at @p out. */
template <class T>
bool convert(const draco::PointAttribute& attribute, draco::AttributeValueIndex index,
             int components, std::uint8_t* out) {
    T values[4] = {};
    if (!attribute.ConvertValue<T>(index, static_cast<std::int8_t>(components), values)) {
        return false;
    }
    std::memcpy(out, values, sizeof(T) * static_cast<std::size_t>(components));
    return true;
}

bool convertTo(int componentType, const draco::PointAttribute& attribute,
               draco::AttributeValueIndex index, int components, std::uint8_t* out) {
    switch (componentType) {
    case TINYGLTF_COMPONENT_TYPE_FLOAT: return convert<float>(attribute, index, components, out);
    case TINYGLTF_COMPONENT_TYPE_BYTE: return convert<std::int8_t>(attribute, index, components, out);
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: return convert<std::uint8_t>(attribute, index, components, out);
    case TINYGLTF_COMPONENT_TYPE_SHORT: return convert<std::int16_t>(attribute, index, components, out);
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: return convert<std::uint16_t>(attribute, index, components, out);
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT: return convert<std::uint32_t>(attribute, index, components, out);
    default: return false;
    }
}

[[noreturn]] void raise(const std::string& what, const std::string& why) {
    throw ImportError(what + ": " + why);
}

}  // namespace

std::optional<std::string> withDracoIndexViews(const std::string& json, std::set<int>& accessors) {
    accessors.clear();
    nlohmann::json document = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
    if (document.is_discarded() || !document.is_object() || !document.contains("meshes") ||
        !document["meshes"].is_array() || !document.contains("accessors") ||
        !document["accessors"].is_array()) {
        return std::nullopt;
    }
    nlohmann::json& list = document["accessors"];
    const std::uint64_t views = document.contains("bufferViews") && document["bufferViews"].is_array()
                                    ? document["bufferViews"].size() : 0;
    if (views == 0) {
        return std::nullopt;
    }
    for (const nlohmann::json& mesh : document["meshes"]) {
        if (!mesh.is_object() || !mesh.contains("primitives") || !mesh["primitives"].is_array()) {
            continue;
        }
        for (const nlohmann::json& primitive : mesh["primitives"]) {
            if (!primitive.is_object() || !primitive.contains("indices") ||
                !primitive["indices"].is_number_integer() || !primitive.contains("extensions") ||
                !primitive["extensions"].is_object() ||
                !primitive["extensions"].contains(kDracoExtension)) {
                continue;
            }
            // The extension's bufferView when tinygltf would accept it, else view 0: a missing
            // or bad one is then reported by the importer, naming the primitive.
            const nlohmann::json& extension = primitive["extensions"][std::string(kDracoExtension)];
            std::int64_t view = 0;
            if (extension.is_object() && extension.contains("bufferView") &&
                extension["bufferView"].is_number_integer() &&
                extension["bufferView"].get<std::int64_t>() >= 0 &&
                static_cast<std::uint64_t>(extension["bufferView"].get<std::int64_t>()) < views) {
                view = extension["bufferView"].get<std::int64_t>();
            }
            const auto index = primitive["indices"].get<std::int64_t>();
            if (index < 0 || static_cast<std::uint64_t>(index) >= list.size() ||
                !list[static_cast<std::size_t>(index)].is_object() ||
                list[static_cast<std::size_t>(index)].contains("bufferView")) {
                continue;
            }
            list[static_cast<std::size_t>(index)]["bufferView"] = view;
            accessors.insert(static_cast<int>(index));
        }
    }
    if (accessors.empty()) {
        return std::nullopt;
    }
    return document.dump();
}

std::map<int, std::vector<std::uint8_t>>
decodeDracoPrimitive(std::span<const std::uint8_t> compressed, const tinygltf::Value& extension,
                     const tinygltf::Primitive& primitive,
                     const std::vector<tinygltf::Accessor>& accessors, std::uint64_t maxVertices,
                     std::uint64_t maxIndices, const std::string& what) {
    if (!extension.IsObject() || !extension.Has("attributes") ||
        !extension.Get("attributes").IsObject()) {
        raise(what, "has no attributes object (glTF semantic -> Draco attribute id)");
    }
    if (!primitive.targets.empty()) {
        raise(what, "has " + std::to_string(primitive.targets.size()) +
             " morph target(s), which are not supported on a Draco-compressed primitive (the "
             "decoder may reorder the vertices the targets' accessors are in the order of)");
    }
    if (primitive.indices < 0) {
        raise(what, "has no indices accessor (the extension stores a triangle list with indices)");
    }
    // The accessors the extension fills, checked before the decoder allocates anything.
    auto accessorOf = [&](int index, const std::string& semantic) -> const tinygltf::Accessor& {
        if (index < 0 || static_cast<std::size_t>(index) >= accessors.size()) {
            raise(what, semantic + " accessor " + std::to_string(index) + " is out of range (" +
                 std::to_string(accessors.size()) + " accessors)");
        }
        const tinygltf::Accessor& accessor = accessors[static_cast<std::size_t>(index)];
        if (componentCount(accessor.type) == 0 || componentSize(accessor.componentType) == 0) {
            raise(what, semantic + " accessor " + std::to_string(index) + " has a type or component "
                 "type a Draco attribute cannot fill (type " + std::to_string(accessor.type) +
                 ", component type " + std::to_string(accessor.componentType) + ")");
        }
        if (accessor.sparse.isSparse) {
            raise(what, semantic + " accessor " + std::to_string(index) +
                 " is sparse; the extension's accessors must not be");
        }
        return accessor;
    };
    const tinygltf::Accessor& indexAccessor = accessorOf(primitive.indices, "indices");
    if (indexAccessor.type != TINYGLTF_TYPE_SCALAR ||
        indexAccessor.componentType == TINYGLTF_COMPONENT_TYPE_FLOAT ||
        indexAccessor.componentType == TINYGLTF_COMPONENT_TYPE_BYTE ||
        indexAccessor.componentType == TINYGLTF_COMPONENT_TYPE_SHORT) {
        raise(what, "indices accessor " + std::to_string(primitive.indices) +
             " must be a scalar of unsigned byte, unsigned short or unsigned int");
    }
    if (indexAccessor.count > maxIndices) {
        raise(what, "indices accessor " + std::to_string(primitive.indices) + " has " +
             std::to_string(indexAccessor.count) + " elements, above the limit of " +
             std::to_string(maxIndices) + " (ImportOptions::maxIndices)");
    }
    struct Wanted {
        std::string semantic;
        int accessor;
        std::uint32_t id;
    };
    std::vector<Wanted> wanted;
    const tinygltf::Value& ids = extension.Get("attributes");
    for (const std::string& semantic : ids.Keys()) {
        const tinygltf::Value& id = ids.Get(semantic);
        if (!id.IsInt() || id.Get<int>() < 0) {
            raise(what, "attribute " + semantic + " has no Draco attribute id (a non-negative integer)");
        }
        const auto found = primitive.attributes.find(semantic);
        if (found == primitive.attributes.end()) {
            raise(what, "attribute " + semantic + " is not among the primitive's attributes");
        }
        const tinygltf::Accessor& accessor = accessorOf(found->second, semantic);
        if (accessor.count > maxVertices) {
            raise(what, semantic + " accessor " + std::to_string(found->second) + " has " +
                 std::to_string(accessor.count) + " elements, above the limit of " +
                 std::to_string(maxVertices) + " (ImportOptions::maxVertices)");
        }
        wanted.push_back({semantic, found->second, static_cast<std::uint32_t>(id.Get<int>())});
    }
    if (wanted.empty()) {
        raise(what, "has an empty attributes object");
    }

    draco::DecoderBuffer buffer;
    buffer.Init(reinterpret_cast<const char*>(compressed.data()), compressed.size());
    draco::Decoder decoder;
    draco::StatusOr<std::unique_ptr<draco::Mesh>> decoded = decoder.DecodeMeshFromBuffer(&buffer);
    if (!decoded.ok()) {
        raise(what, "the Draco decoder failed: " + decoded.status().error_msg_string());
    }
    const std::unique_ptr<draco::Mesh> mesh = std::move(decoded).value();
    if (!mesh) {
        raise(what, "the Draco decoder returned no mesh");
    }
    const std::uint64_t points = mesh->num_points();

    std::map<int, std::vector<std::uint8_t>> result;
    for (const Wanted& w : wanted) {
        const tinygltf::Accessor& accessor = accessors[static_cast<std::size_t>(w.accessor)];
        const std::string name = w.semantic + " (Draco attribute " + std::to_string(w.id) + ")";
        const draco::PointAttribute* attribute = mesh->GetAttributeByUniqueId(w.id);
        if (attribute == nullptr) {
            raise(what, name + " is not in the compressed data");
        }
        const int components = componentCount(accessor.type);
        if (attribute->num_components() != components) {
            raise(what, name + " has " + std::to_string(attribute->num_components()) +
                 " components, accessor " + std::to_string(w.accessor) + " has " +
                 std::to_string(components));
        }
        if (points != accessor.count) {
            raise(what, name + " has " + std::to_string(points) + " points, accessor " +
                 std::to_string(w.accessor) + " has count " + std::to_string(accessor.count));
        }
        if (result.count(w.accessor) != 0) {
            raise(what, name + ": accessor " + std::to_string(w.accessor) +
                 " is named by two attributes");
        }
        const std::size_t elementSize =
            componentSize(accessor.componentType) * static_cast<std::size_t>(components);
        std::vector<std::uint8_t> bytes(points * elementSize);
        const bool identity = attribute->is_mapping_identity();
        if (!identity && attribute->indices_map_size() < points) {
            raise(what, name + " maps " + std::to_string(attribute->indices_map_size()) +
                 " points, the mesh has " + std::to_string(points));
        }
        for (std::uint64_t i = 0; i < points; ++i) {
            // Each point's value through the attribute's point -> value mapping (Draco stores
            // each distinct value once).
            const draco::AttributeValueIndex value =
                attribute->mapped_index(draco::PointIndex(static_cast<std::uint32_t>(i)));
            if (value.value() >= attribute->size()) {
                raise(what, name + ": point " + std::to_string(i) + " maps to value " +
                     std::to_string(value.value()) + ", past the attribute's " +
                     std::to_string(attribute->size()) + " values");
            }
            if (!convertTo(accessor.componentType, *attribute, value, components,
                           bytes.data() + i * elementSize)) {
                raise(what, name + ": point " + std::to_string(i) +
                     " cannot be converted to the accessor's component type");
            }
        }
        result.emplace(w.accessor, std::move(bytes));
    }

    const std::uint64_t faces = mesh->num_faces();
    if (faces * 3 != indexAccessor.count) {
        raise(what, "the compressed data has " + std::to_string(faces) + " triangles (" +
             std::to_string(faces * 3) + " indices), indices accessor " +
             std::to_string(primitive.indices) + " has count " +
             std::to_string(indexAccessor.count));
    }
    const std::size_t indexSize = componentSize(indexAccessor.componentType);
    const std::uint64_t largest = indexSize == 1 ? 0xffu : indexSize == 2 ? 0xffffu : 0xffffffffu;
    std::vector<std::uint8_t> indexBytes(faces * 3 * indexSize);
    for (std::uint64_t f = 0; f < faces; ++f) {
        const draco::Mesh::Face& face = mesh->face(draco::FaceIndex(static_cast<std::uint32_t>(f)));
        for (std::size_t c = 0; c < 3; ++c) {
            const std::uint32_t index = face[c].value();
            if (index >= points) {
                raise(what, "triangle " + std::to_string(f) + " has index " + std::to_string(index) +
                     ", past the point count " + std::to_string(points));
            }
            if (index > largest) {
                raise(what, "triangle " + std::to_string(f) + " has index " + std::to_string(index) +
                     ", which the indices accessor's " + std::to_string(indexSize * 8) +
                     "-bit components cannot hold");
            }
            std::memcpy(indexBytes.data() + (f * 3 + c) * indexSize, &index, indexSize);
        }
    }
    if (result.count(primitive.indices) != 0) {
        raise(what, "indices accessor " + std::to_string(primitive.indices) +
                        " is also an attribute's accessor");
    }
    result.emplace(primitive.indices, std::move(indexBytes));
    return result;
}

}  // namespace myriad::gltf::detail
