#pragma once
/** @file
 *  glTF 2.0 import (.gltf with external or embedded buffers, and .glb), via tinygltf. */
#include "myriad/core/Material.h"
#include "myriad/core/MeshData.h"
#include "myriad/core/MorphAnimation.h"

#include <glm/mat4x4.hpp>

#include <memory>
#include <string>
#include <vector>

namespace myriad::gltf {

/** One drawable piece of a model: a glTF mesh primitive with the world transform of the node
 *  that holds it already applied to its positions and normals ("flattened"), and its material. */
struct ImportedPrimitive {
    std::shared_ptr<const MeshGeometry> mesh;  ///< positions in model (scene) space
    Material material;                         ///< base colour factor, texture, alpha mode
    std::string name;                          ///< "<node name>/<mesh name>#<primitive index>"
};

/** A whole model: every triangle primitive of the default scene (or of scene 0, or of every
 *  root node when there are no scenes), in node order. */
struct ImportedModel {
    std::string path;  ///< the file it was read from, as given
    std::vector<ImportedPrimitive> primitives;  ///< every drawable primitive, in node order
    Aabb bounds;  ///< union of every primitive's local bounds, model space
    /** Every animation channel that drives morph weights ("weights" path) of a drawn mesh. */
    std::vector<MorphAnimation> morphAnimations;
};

/** Limits that protect a game from hostile files. Defaults in field order. */
struct ImportOptions {
    std::uint32_t maxImageSide = 8192;       ///< a texture wider or taller is refused
    std::uint64_t maxVertices = 1u << 24;    ///< per primitive (16 Mi)
    std::uint64_t maxIndices = 1u << 26;     ///< per primitive (64 Mi)
};

/** Loads @p path (.gltf or .glb) into meshes and materials.
 *
 *  Reads POSITION (required), NORMAL (computed when absent), TEXCOORD_0, COLOR_0 (vec3 or vec4;
 *  float, normalized unsigned byte or short), indices (u8, u16, u32; generated when absent),
 *  morph targets (POSITION and NORMAL deltas, transformed with the node) and mesh.weights,
 *  animation channels whose path is "weights" (as MorphAnimation),
 *  material pbrMetallicRoughness.baseColorFactor and baseColorTexture (decoded to RGBA8,
 *  shared between primitives that use the same image), alphaMode, alphaCutoff, doubleSided.
 *  Node transforms (matrix or TRS) are multiplied down the hierarchy and applied to the data.
 *  Primitives that are not triangle lists (points, lines, strips, fans) are skipped with a
 *  warning through myriad::log. Skins and node (TRS) animations are ignored here.
 *
 *  @throws ImportError, the message starting with the path, when the file is missing or
 *  unreadable, the JSON is malformed, a primitive has no POSITION, an accessor (offset + count
 *  x stride) runs past its buffer view or buffer, a component type is not allowed by the spec
 *  for its attribute, an index is past the vertex count, a count exceeds the limits in
 *  @p options, or an image is corrupt or too large. Nothing is returned then. */
[[nodiscard]] ImportedModel importModel(const std::string& path, const ImportOptions& options = {});

} // namespace myriad::gltf
