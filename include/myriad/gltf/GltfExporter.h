#pragma once
/** @file
 *  glTF 2.0 export of a node tree (.gltf + .bin, or .glb), via tinygltf's writer. */
#include "myriad/core/SceneNode.h"

#include <string>

namespace myriad::gltf {

/** Options of exportGltf(). */
struct ExportOptions {
    /** An instance matrix whose unit column vectors have a |dot product| above this is
     *  sheared, which EXT_mesh_gpu_instancing (translation, rotation, scale) cannot hold. */
    double shearTolerance = 1e-4;
};

/** Writes @p root and its subtree to @p path as glTF 2.0: a .glb (one binary file) when the
 *  path ends in ".glb", else a .gltf with its buffer in "<stem>.bin" next to it.
 *
 *  One glTF scene whose one root node is @p root with its local transform (its parents are not
 *  written). Every SceneNode becomes a glTF node with its name and TRS (translation, rotation
 *  x y z w, scale; defaults omitted). A MeshNode refers to a glTF mesh with one primitive:
 *  POSITION (with min/max), NORMAL, TEXCOORD_0 and COLOR_0 (float VEC4) when the mesh has them,
 *  unsigned short or unsigned int indices, morph targets (POSITION and NORMAL deltas, default
 *  weights, extras.targetNames) and node weights when they differ from the mesh's. Meshes and
 *  materials shared between nodes are written once. A material gets baseColorFactor,
 *  metallicFactor 0 and roughnessFactor 1 (myriad's lighting is Lambert), alphaMode,
 *  alphaCutoff, doubleSided, a name, and KHR_materials_unlit when its shading is Unlit.
 *
 *  An InstancedMeshNode with count() > 0 also gets EXT_mesh_gpu_instancing with TRANSLATION,
 *  ROTATION and SCALE (float) decomposed from each drawn record (a mirrored record gets a
 *  negative x scale), and _COLOR_0 (float VEC4) when any instance colour is not white.
 *  The extension is listed in extensionsUsed, not extensionsRequired: a viewer without it still
 *  shows the mesh (once, at the node), which is what the extension's fallback is, and a
 *  required listing would make such viewers refuse the whole file.
 *
 *  Not written, each with a warning through myriad::log: base colour textures, node tints,
 *  per-instance morph weights, and batches with no instances (their node is written without a
 *  mesh). Hidden nodes are written like visible ones (glTF has no visibility).
 *
 *  @throws InvalidArgument naming the batch and the instance when an instance matrix is sheared
 *  (see ExportOptions::shearTolerance); nothing is written then.
 *  @throws Error naming the path when a file cannot be written (a .gltf's .bin may already
 *  have been written). */
void exportGltf(const SceneNode& root, const std::string& path, const ExportOptions& options = {});

} // namespace myriad::gltf
