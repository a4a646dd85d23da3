#pragma once
// KHR_draco_mesh_compression: triangle primitives whose attributes and indices are stored as
// one Draco bitstream in a buffer view, decoded with Google's Draco library. Internal to
// myriad_gltf; GltfImporter.cpp calls it. Built only with MYRIAD_GLTF_DRACO (MYRIAD_DRACO ON).
#include <tiny_gltf.h>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace myriad::gltf::detail {

inline constexpr std::string_view kDracoExtension = "KHR_draco_mesh_compression";

/** The glTF JSON @p json with each indices accessor of a KHR_draco_mesh_compression primitive
 *  that has no bufferView given the extension's bufferView (or view 0 when that one is missing
 *  or out of range: the importer reports it), so that tinygltf 2.7 (which
 *  refuses indices without a buffer view) loads the file; @p accessors gets their indices.
 *  Empty when nothing needed a change or the JSON does not parse (tinygltf then says why). */
[[nodiscard]] std::optional<std::string> withDracoIndexViews(const std::string& json,
                                                             std::set<int>& accessors);

/** The accessors of one Draco-compressed primitive, decoded: accessor index -> its elements,
 *  tightly packed in the accessor's own componentType and type (count x components x
 *  component size bytes), so that the importer reads them as it reads any accessor.
 *
 *  @p compressed: the bytes of the extension's bufferView (already checked to lie inside its
 *  buffer). @p extension: the primitive's `extensions.KHR_draco_mesh_compression` object, whose
 *  `attributes` map glTF semantics to Draco unique attribute ids. Each semantic must also be in
 *  the primitive's attributes; the primitive must have indices. Checked before anything is
 *  read or allocated: the extension's fields, the decoder's result (a mesh), each attribute id
 *  present, its component count equal to the accessor's type, its point count equal to the
 *  accessor's count and at most @p maxVertices, the face count x 3 equal to the indices
 *  accessor's count and at most @p maxIndices, every face index below the point count and
 *  representable in the indices' component type, every mapped value inside the attribute.
 *  @throws ImportError, the message starting with @p what (the file and the primitive), for
 *  any of those and when the decoder fails. */
[[nodiscard]] std::map<int, std::vector<std::uint8_t>>
decodeDracoPrimitive(std::span<const std::uint8_t> compressed, const tinygltf::Value& extension,
                     const tinygltf::Primitive& primitive,
                     const std::vector<tinygltf::Accessor>& accessors, std::uint64_t maxVertices,
                     std::uint64_t maxIndices, const std::string& what);

}  // namespace myriad::gltf::detail
