#pragma once
/** @file
 *  glTF 2.0 import (.gltf with external or embedded buffers, and .glb), via tinygltf. */
#include "myriad/core/AnimationClip.h"
#include "myriad/core/Camera.h"
#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Material.h"
#include "myriad/core/MeshData.h"
#include "myriad/core/MeshNode.h"
#include "myriad/core/MorphAnimation.h"
#include "myriad/core/SceneNode.h"
#include "myriad/core/Skeleton.h"

#include <glm/mat4x4.hpp>
#include <glm/vec4.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace myriad::gltf {

/** A glTF skin (glTF 2.0 section 3.7.3) as a myriad Skeleton, where it sits, and the
 *  animations that move its joints. Shared by every primitive or node that uses the skin.
 *
 *  Joints: one per entry of the glTF skin's `joints`, in that order, so a JOINTS_0 value is a
 *  joint index. Joint::name is the node's name ("node<index>" when it has none); Joint::parent
 *  the nearest ancestor node that is a joint of the same skin (-1 for a root joint);
 *  Joint::rest the node's TRS (a matrix decomposed into TRS, a shear dropped with a warning);
 *  Joint::inverseBind the skin's inverseBindMatrices (identity for each when the skin has none,
 *  3.7.3.1).
 *
 *  Space: the skeleton's space is the space of the root joints' parent node, and `placement`
 *  puts it in the model (importModel) or scene (importScene). When root joints have different
 *  parents, the space is that of their deepest common ancestor (the scene if none), and each
 *  root joint's rest holds the transforms of the nodes between that ancestor and the joint
 *  (multiplied, then decomposed into TRS), so the rest pose is where the file puts it; those
 *  in-between nodes are then no longer animated with the skeleton. */
struct ImportedSkin {
    std::string name;  ///< the glTF skin's name, or "skin<index>"
    /** The joints, rest pose and inverse binds (see above). Never null. */
    std::shared_ptr<const Skeleton> skeleton;
    /** Model (importModel) or scene (importScene) from skeleton space: the world matrix of the
     *  root joints' (common) parent node; identity when the root joints are scene roots. */
    glm::mat4 placement{1.0f};
    /** One clip per glTF animation with translation, rotation or scale channels on joints of
     *  this skin, in file order: name the animation's (or "animation<index>"), channels only
     *  those on this skin's joints, AnimationChannel::target a joint index, targetNames the
     *  joint names. Play with MeshNode::setPose(clip, seconds). Channels of the same animation
     *  on other nodes are not in it (importScene(): ImportedScene::nodeAnimations). */
    std::vector<std::shared_ptr<const AnimationClip>> clips;
};

/** One drawable piece of a model: a glTF mesh primitive with the world transform of the node
 *  that holds it already applied to its positions and normals ("flattened"), and its material.
 *  A skinned primitive (`skin` >= 0) is the exception: glTF 2.0 3.7.3.2 says the transform of
 *  a skinned mesh's node MUST be ignored, so its data stays in the skin's bind space, with
 *  MeshData::joints and weights; it is drawn with its skin's skeleton, placed by
 *  ImportedSkin::placement. */
struct ImportedPrimitive {
    /** Positions in model (scene) space; a skinned primitive's in its skin's bind space. */
    std::shared_ptr<const MeshGeometry> mesh;
    Material material;                         ///< base colour factor, texture, alpha mode
    std::string name;                          ///< "<node name>/<mesh name>#<primitive index>"
    /** Index into ImportedModel::skins of the skin of the node that draws it; -1 when that node
     *  has no skin. Every joint the mesh uses with a weight above 0 is below that skin's
     *  joint count (checked on import). */
    int skin = -1;
};

/** A whole model: every triangle primitive of the default scene (or of scene 0, or of every
 *  root node when there are no scenes), in node order. */
struct ImportedModel {
    std::string path;  ///< the file it was read from, as given
    std::vector<ImportedPrimitive> primitives;  ///< every drawable primitive, in node order
    Aabb bounds;  ///< union of every primitive's local bounds, model space
    /** Every animation channel that drives morph weights ("weights" path) of a drawn mesh. */
    std::vector<MorphAnimation> morphAnimations;
    /** The skins of the drawn skinned nodes, in the order first used (ImportedPrimitive::skin
     *  indexes it), each with its clips. Skins no drawn node uses are not read. */
    std::vector<ImportedSkin> skins;
};

/** Limits that protect a game from hostile files. Defaults in field order. */
struct ImportOptions {
    std::uint32_t maxImageSide = 8192;       ///< a texture wider or taller is refused
    std::uint64_t maxVertices = 1u << 24;    ///< per primitive (16 Mi)
    std::uint64_t maxIndices = 1u << 26;     ///< per primitive (64 Mi)
    std::uint64_t maxInstances = 1u << 24;   ///< per EXT_mesh_gpu_instancing node (16 Mi)
    /** importModel() only: play node (TRS) animations as a rigid skin, so a model animated by
     *  its nodes (Kenney's character walks by moving its parts) can be baked into an
     *  AnimationSet and drawn as a crowd like a skinned one (docs/skinning.md, "Models without
     *  a skeleton"). When the file has translation, rotation or scale channels on nodes that
     *  are not joints of a skin, every node of the scene becomes a joint of one more
     *  ImportedSkin (named "nodes": parent as in the tree, rest = the node's TRS, inverse bind
     *  = the inverse of its rest world matrix, placement identity), each unskinned primitive's
     *  vertices follow its node's joint with weight 1 (ImportedPrimitive::skin set), and each
     *  animation's node channels become a clip of that skin. Primitives with morph targets stay
     *  unskinned (with a warning). Off: node channels are warned about and not read. */
    bool nodeAnimationsAsSkin = false;
};

/** Loads @p path (.gltf or .glb) into meshes and materials.
 *
 *  Reads POSITION (required), NORMAL (computed when absent), TEXCOORD_0, COLOR_0 (vec3 or vec4;
 *  float, normalized unsigned byte or short), indices (u8, u16, u32; generated when absent),
 *  morph targets (POSITION and NORMAL deltas, transformed with the node) and mesh.weights,
 *  animation channels whose path is "weights" (as MorphAnimation),
 *  skins of drawn nodes (ImportedModel::skins: joints, inverseBindMatrices, JOINTS_0 and
 *  WEIGHTS_0 into MeshData::joints and weights, a JOINTS_1/WEIGHTS_1 set merged into the four
 *  largest influences; the skinned primitives stay in bind space, ImportedPrimitive) and the
 *  translation / rotation / scale animation channels on their joints (ImportedSkin::clips:
 *  LINEAR, STEP, CUBICSPLINE),
 *  KHR_mesh_quantization (integer POSITION, NORMAL, TEXCOORD_0 and morph deltas, dequantized
 *  by glTF's normalization rules into the float CPU copy; the node transform beside them applies
 *  as any; MeshData::encoding keeps the file's storage, so the GPU copy holds the integers as
 *  stored, except positions with a node transform baked in here, which no longer fit them and
 *  are stored as float; docs/gltf.md), KHR_texture_transform on every texture (kept on the
 *  material: Material::baseColorTransform, TextureSlot::transform; its texCoord override too), and
 *  EXT_meshopt_compression / MESHOPT_compression buffer views (decoded with meshoptimizer in
 *  builds with MYRIAD_WITH_MESHOPTIMIZER; docs/gltf.md lists the types and checks),
 *  KHR_draco_mesh_compression primitives (decoded with Draco in builds with MYRIAD_DRACO; each
 *  broken input an ImportError naming the primitive, docs/gltf.md),
 *  material pbrMetallicRoughness.baseColorFactor and baseColorTexture (decoded to RGBA8,
 *  shared between primitives that use the same image) with its sampler's magFilter, minFilter,
 *  wrapS and wrapT (Material::sampler; absent filters: Linear and LinearMipmapLinear, absent
 *  wraps: Repeat) and texCoord (0 or 1: Material::baseColorUvSet), the metallicRoughnessTexture,
 *  normalTexture (scale), occlusionTexture (strength) and emissiveTexture with theirs
 *  (Material's TextureSlots; a texCoord past 1 warned and read as 0), TEXCOORD_1 and TANGENT
 *  (MeshData::uv1, tangents; a normal-mapped primitive without TANGENT gets generateTangents()),
 *  alphaMode, alphaCutoff, doubleSided. Cameras are not read (importScene()
 *  reads them).
 *  Node transforms (matrix or TRS) are multiplied down the hierarchy and applied to the data,
 *  except on skinned nodes (3.7.3.2). Weights that do not sum to 1 are renormalised
 *  (MeshGeometry); a joint index whose weight is 0 is set to 0.
 *  Primitives that are not triangle lists (points, lines, strips, fans) are skipped with a
 *  warning through myriad::log. Also warned about, and otherwise ignored: animation channels
 *  of node translation / rotation / scale on nodes that are not joints of a read skin (this
 *  flat list cannot move nodes: importScene() plays them), a JOINTS_1/WEIGHTS_1 set that
 *  drops a weight above 0, joint sets past the second, extensions in extensionsUsed that are
 *  not understood, and EXT_mesh_gpu_instancing (this flat list draws one copy per node: use
 *  importScene() to get the instances).
 *
 *  @throws ImportError, the message starting with the path, when the file is missing or
 *  unreadable, the JSON is malformed, a primitive has no POSITION, an accessor (offset + count
 *  x stride) runs past its buffer view or buffer, a component type is not allowed by the spec
 *  for its attribute, an index is past the vertex count, a count exceeds the limits in
 *  @p options, an image is corrupt or too large, a base colour texture's sampler has a
 *  magFilter, minFilter, wrapS or wrapT value glTF does not list (the message names the
 *  sampler and the field), a KHR_texture_transform is malformed (naming the material and the
 *  texture slot), normalTexture.scale is not finite or occlusionTexture.strength not in 0..1, an
 *  EXT_meshopt_compression buffer view is malformed or does not decode (naming the view), a
 *  skinned primitive uses a joint (weight above 0) past its skin's joints, has a vertex whose
 *  weights are all 0, negative or not finite, or lacks JOINTS_0/WEIGHTS_0 (naming the
 *  primitive and the vertex), a skin has no joints, more than kMaxJoints, a joint out of range
 *  or twice, inverseBindMatrices that are not float MAT4, one per joint, or not affine and
 *  invertible (naming the skin), an animation channel's node or sampler is out of range, or a
 *  translation / rotation / scale sampler has an unknown interpolation, keyframe times that
 *  are not strictly increasing, or an output count that is not one (CUBICSPLINE: three) per
 *  keyframe (naming the animation and channel or sampler), or
 *  extensionsRequired lists an extension
 *  this function does not implement (the message names it; EXT_mesh_gpu_instancing is
 *  implemented by importScene() only). Nothing is returned then. */
[[nodiscard]] ImportedModel importModel(const std::string& path, const ImportOptions& options = {});

/** A custom per-instance attribute of an EXT_mesh_gpu_instancing node (any attribute whose
 *  name starts with '_' other than _COLOR_0, e.g. _ID, _LANE0.._LANE3). The importer gives
 *  them no meaning and draws nothing with them: they are kept here, and a shader sees one once
 *  the game copies it into a lane of the batch (InstancedMeshNode::setLane, read as
 *  s.lanes[0..3]; docs/lanes.md, docs/gltf.md shows the loop). */
struct InstanceAttribute {
    std::string name;               ///< as in the file, e.g. "_ID"
    int components = 1;             ///< 1 (SCALAR) to 4 (VEC4)
    /** One per instance, in instance order. Components past `components` are 0. Integers are
     *  converted to float (normalized ones to [0, 1] or [-1, 1]); an unsigned int above 2^24
     *  loses its low bits. */
    std::vector<glm::vec4> values;
};

/** One glTF node that carried EXT_mesh_gpu_instancing, and what it became. */
struct ImportedInstancing {
    std::string nodeName;  ///< the glTF node's name, or "node<index>"
    int gltfNode = -1;     ///< index into the file's nodes array
    /** Non-owning, inside ImportedScene::root: the node's one batch, whose primitives are the
     *  triangle primitives of the node's mesh, all drawn with its records (stored once); empty
     *  when the mesh has no triangle primitive. Valid while the nodes live (moving
     *  ImportedScene::root, or adding it under another node, keeps them). */
    std::vector<InstancedMeshNode*> batches;
    std::vector<InstanceAttribute> attributes;  ///< custom attributes, sorted by name
};

/** A morph-weights animation and the nodes it drives in an ImportedScene. */
struct SceneMorphAnimation {
    MorphAnimation animation;      ///< its `primitives` member is empty here; see `nodes`
    /** Non-owning, inside ImportedScene::root: one per glTF node the channel drives (the node
     *  drawing all of its mesh's primitives). */
    std::vector<MeshNode*> nodes;
};

/** A glTF animation's translation, rotation and scale channels on nodes that are not joints of
 *  an imported skin (Kenney's character walks this way: each part is a node), as a clip over
 *  the myriad nodes of an ImportedScene. Play it with `applyClip(*a.clip, t, a.targets)`. */
struct ImportedNodeAnimation {
    /** Targets numbered 0..n-1 in the order the channels first name them; targetNames are the
     *  myriad nodes' names. Name: the glTF animation's, or "animation<index>". Never null. */
    std::shared_ptr<const AnimationClip> clip;
    /** Non-owning, inside ImportedScene::root: targets[i] is the node made for target i.
     *  Valid while the nodes live (moving ImportedScene::root, or adding it under another
     *  node, keeps them). */
    std::vector<SceneNode*> targets;
};

/** How a glTF camera projects (glTF 2.0 section 3.10.2, camera.type). */
enum class CameraProjection : std::uint8_t {
    Perspective,   ///< "perspective": yfov, aspectRatio, znear, zfar
    Orthographic,  ///< "orthographic": xmag, ymag, znear, zfar
};

/** A glTF camera (glTF 2.0 sections 3.10 and 5.12) as attached to one node of an ImportedScene:
 *  its parameters as in the file, checked, and the node whose world transform places it. A
 *  camera used by two nodes is listed twice, once per node.
 *
 *  Placement (3.10.1): the eye is at the node's world origin, looking down the node's local -Z
 *  axis, local +Y up and +X to the right, so moving or turning `node` (or a parent) moves the
 *  camera. A world scale is ignored (makeCamera() takes only the axes' directions; a shear
 *  leaves -Z as the view direction and +Y as the up hint). */
struct ImportedCamera {
    std::string name;      ///< the camera's name, or "camera<index>"
    int gltfCamera = -1;   ///< index into the file's cameras array
    int gltfNode = -1;     ///< index into the file's nodes array: the node carrying it
    /** Non-owning, inside ImportedScene::root: the myriad node made for `gltfNode` (the glTF
     *  node's own name and transform). Valid while the nodes live (moving ImportedScene::root,
     *  or adding it under another node, keeps it). */
    SceneNode* node = nullptr;
    CameraProjection projection = CameraProjection::Perspective;  ///< which fields below apply
    /** Perspective: vertical field of view in radians, in (0, pi). */
    float yfov = 0.0f;
    /** Perspective: width / height (> 0) when the file gives one; empty: the viewport's. */
    std::optional<float> aspectRatio;
    /** Distance to the near plane, in the node's world units: > 0 for a perspective camera,
     *  >= 0 for an orthographic one. */
    float znear = 0.0f;
    /** Distance to the far plane, > znear; empty: an infinite far plane (perspective only:
     *  an orthographic camera always has one). See makeCamera() for what myriad does with it. */
    std::optional<float> zfar;
    /** Orthographic: half the view's width in world units (the file's xmag, not 0; a negative
     *  one asks for a mirrored view, which makeCamera() does not draw: it uses the magnitude). */
    float xmag = 0.0f;
    /** Orthographic: half the view's height in world units (the file's ymag; as xmag). */
    float ymag = 0.0f;

    /** A myriad Camera that sees what this glTF camera sees, from `node` world transform as
     *  it is now (call again after moving the node: a Camera is a value, not a scene node).
     *
     *  Perspective: Camera::setPerspective(yfov, aspectRatio or else @p viewportAspect, znear,
     *  zfar). myriad's Camera has no infinite far plane, so an infinite one (zfar empty)
     *  becomes a far plane at @p farWhenInfinite, or at znear x 10^6 when that is 0 (the
     *  default): beyond the far end of any sensible scene, and no less precise in a 24-bit
     *  depth buffer than an infinite plane (depth precision is set by the near plane).
     *  Orthographic: Camera::setOrthographic(-|xmag|, |xmag|, -|ymag|, |ymag|, znear, zfar);
     *  @p viewportAspect is not used: xmag and ymag fix both extents, so a viewport of another
     *  aspect stretches the picture.
     *  Then Camera::lookAt(eye, eye - Z, Y) with the node's world origin and axes.
     *
     *  @param viewportAspect width / height of the viewport drawn into, > 0 and finite.
     *  @param farWhenInfinite the far plane used for an infinite zfar: 0 (the default) for
     *  znear x 10^6, else > znear and finite.
     *  @throws InvalidArgument when `node` is null, @p viewportAspect or @p farWhenInfinite is
     *  out of range, or the node's world axes are degenerate (a zero scale); nothing changes. */
    [[nodiscard]] Camera makeCamera(float viewportAspect, float farWhenInfinite = 0.0f) const;
};

/** A glTF scene as a myriad node tree. See importScene(). */
struct ImportedScene {
    std::string path;  ///< the file it was read from, as given
    /** A group node named after the glTF scene (or "scene"), holding the scene's root nodes.
     *  Add it under a Scene with `scene.root().add(std::move(imported.root))`. */
    std::unique_ptr<SceneNode> root;
    std::vector<ImportedInstancing> instancing;          ///< in node order
    std::vector<SceneMorphAnimation> morphAnimations;   ///< "weights" channels, as importModel
    /** Every camera attached to a node of the scene, in node order (ImportedCamera::makeCamera
     *  turns one into a myriad Camera). Cameras of the file no node of the scene uses are not
     *  listed. */
    std::vector<ImportedCamera> cameras;
    /** The skins of the scene's skinned nodes, as ImportedModel::skins; each skinned MeshNode
     *  has its skin's skeleton set (MeshNode::skeleton()). */
    std::vector<ImportedSkin> skins;
    /** One per glTF animation with translation, rotation or scale channels on nodes of the scene
     *  that are not joints of a skin in `skins`, in file order. */
    std::vector<ImportedNodeAnimation> nodeAnimations;
};

/** Loads @p path (.gltf or .glb) as a node tree: what importModel() reads, but with nothing
 *  flattened, meshes shared between the nodes that use them, and instances kept as instances.
 *
 *  Each glTF node of the scene (default scene, else scene 0, else every root node) becomes one
 *  myriad node with the glTF node's name ("node<index>" if unnamed) and local transform: TRS,
 *  or a matrix decomposed into TRS (glTF 2.0 section 3.5.3 requires matrices to be
 *  decomposable; a sheared one loses its shear, with a warning). Its kind:
 *  - no mesh: a SceneNode (group);
 *  - a mesh with one triangle primitive: a MeshNode, or with EXT_mesh_gpu_instancing an
 *    InstancedMeshNode with one record per instance;
 *  - a mesh with several triangle primitives: one such node drawing all of them
 *    (MeshNode::primitiveCount(), each primitive with its own material); instanced, one batch
 *    whose primitives share its records. No group is made.
 *  glTF children go under their parent's node. Mesh data stays in mesh space (the transforms
 *  live on the nodes), and one glTF mesh primitive becomes one MeshGeometry shared by every node
 *  that uses it. So a quantized file's positions stay in quantized units, dequantized by the
 *  node's transform, and reach the GPU as the file stored them (MeshData::encoding).
 *
 *  EXT_mesh_gpu_instancing: instance i's record is T(i) * R(i) * S(i) from the TRANSLATION
 *  (float VEC3), ROTATION (float, normalized byte or normalized short VEC4 quaternion, x y z w;
 *  renormalised) and SCALE (float VEC3) accessors, each optional (identity when absent), in
 *  node space: its world placement is the node's world matrix times the record, parents
 *  included. The record's colour comes from _COLOR_0 (VEC3 or VEC4, float or normalized
 *  unsigned byte/short; alpha 1 for VEC3), white without it. Other attributes starting with
 *  '_' go to ImportedScene::instancing (logged at Info level), not drawn; any other name is
 *  refused.
 *
 *  Skinned nodes (3.7.3.2: their own transform MUST be ignored): the node's MeshNode gets its
 *  skin's skeleton (MeshNode::setSkeleton, ImportedScene::skins) and goes, at identity, under
 *  the myriad node made for the root joints' parent, so its world matrix is
 *  ImportedSkin::placement (under `root` at identity when the root joints are scene roots, or
 *  with the placement as its transform when that parent is not in the scene). It carries the
 *  glTF node's name when that node has no children and no camera; otherwise the glTF node
 *  stays in place as a group with its transform (for its children and camera) and the mesh
 *  node is named "<node> (skinned)". A skinned mesh with morph targets is not skinned (the
 *  core does not morph skinned meshes): drawn in its bind pose, with a warning.
 *  Node animations: translation / rotation / scale channels on scene nodes that are not joints
 *  of a skin in ImportedScene::skins become ImportedScene::nodeAnimations (a channel on a node
 *  outside the scene, or on a skinned mesh node, is dropped with a warning naming the
 *  animation and the node).
 *  Cameras (3.10): every node of the scene with a camera adds an ImportedCamera to
 *  ImportedScene::cameras, in node order, pointing at the node made for it.
 *
 *  Warnings (myriad::log, Warning): as importModel(), minus the instancing and node-animation
 *  ones, plus a node matrix with shear, an orthographic camera with a negative xmag or ymag,
 *  dropped animation channels and an unskinned skinned mesh with morph targets (above). docs/gltf.md has
 *  the tables.
 *
 *  @throws ImportError, the message starting with the path, for everything importModel()
 *  refuses, and when: an instancing attribute accessor has a count other than the others, a
 *  count above ImportOptions::maxInstances, a type or component type the extension does not
 *  allow, a NaN/Inf value or a zero-length quaternion (naming the instance); the extension
 *  has no attributes, or an attribute other than TRANSLATION/ROTATION/SCALE whose name does
 *  not start with '_'; a node transform is not finite; a node's camera index is out of range,
 *  or a camera used by the scene has a value out of range (the message names the camera and
 *  the value: perspective yfov not in (0, pi), aspectRatio or znear not above 0, zfar not
 *  above znear; orthographic xmag or ymag 0, znear below 0, zfar not above znear; a value
 *  that is not a finite float). The extension on a node without a mesh is ignored with a
 *  warning. Nothing is returned then. */
[[nodiscard]] ImportedScene importScene(const std::string& path, const ImportOptions& options = {});

} // namespace myriad::gltf
