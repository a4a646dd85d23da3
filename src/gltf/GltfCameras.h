#pragma once
// glTF cameras (glTF 2.0 sections 3.10, 5.12): the checks importScene() makes on one.
#include "myriad/gltf/GltfImporter.h"

#include <tiny_gltf.h>

#include <string>

namespace myriad::gltf::detail {

/** glTF camera @p index of @p source (parsed by tinygltf) as an ImportedCamera, its node and
 *  SceneNode left unset. @throws ImportError, the message starting with @p path and naming
 *  the camera, when a value is out of the spec's range or myriad's Camera cannot take it:
 *  perspective yfov not in (0, pi), aspectRatio not above 0, znear not above 0, zfar not above
 *  znear; orthographic xmag or ymag 0, znear below 0, zfar not above znear; any value not
 *  finite. tinygltf reads an absent aspectRatio or zfar as 0, so an explicit 0 reads as absent. */
[[nodiscard]] ImportedCamera importedCamera(const tinygltf::Camera& source, int index, const std::string& path);

} // namespace myriad::gltf::detail
