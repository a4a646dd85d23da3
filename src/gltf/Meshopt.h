#pragma once
// EXT_meshopt_compression (and its older name MESHOPT_compression): buffer views whose bytes
// are stored compressed in another buffer, decoded with meshoptimizer's decoders. Internal to
// myriad_gltf; GltfImporter.cpp calls it. Built only with MYRIAD_GLTF_MESHOPT (meshoptimizer).
#include <tiny_gltf.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace myriad::gltf::detail {

/** True for "EXT_meshopt_compression" and the older "MESHOPT_compression". */
[[nodiscard]] bool isMeshoptExtension(std::string_view name);

/** The glTF JSON @p json with every placeholder buffer (no uri; in a .glb, @p glb, any buffer
 *  but 0, which is the BIN chunk) given a 4-byte data URI, so that tinygltf, which refuses a
 *  buffer without a uri in a .gltf and copies the BIN chunk into it in a .glb, loads the file.
 *  The extension's decoded views replace those bytes; a view that is not compressed cannot
 *  read a placeholder (it runs past its 4 bytes). @p placeholders gets one flag per buffer.
 *  Empty when nothing needed a change or the JSON does not parse (tinygltf then says why). */
[[nodiscard]] std::optional<std::string> withPlaceholderBuffers(const std::string& json, bool glb,
                                                               std::vector<bool>& placeholders);

/** Decodes every buffer view of @p model that has the extension (modes ATTRIBUTES, TRIANGLES,
 *  INDICES; filters NONE, OCTAHEDRAL, QUATERNION, EXPONENTIAL): one entry per buffer view,
 *  empty for views that are not compressed. Every field is checked before a byte is read or
 *  allocated (the extension's validity rules: byteStride equal to the view's, byteLength equal
 *  to count x byteStride, the stride and filter each mode allows, the compressed range inside
 *  its buffer and not in a placeholder, a compressed length that can hold count elements).
 *  @throws ImportError, the message starting with @p path and naming the buffer view, for
 *  any of those, and when a decoder reports corrupt data. */
[[nodiscard]] std::vector<std::optional<std::vector<std::uint8_t>>>
decodeMeshoptViews(const tinygltf::Model& model, const std::vector<bool>& placeholders,
                   const std::string& path);

}  // namespace myriad::gltf::detail
