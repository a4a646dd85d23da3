#pragma once
/** @file
 *  CPU mesh data (MeshData) and the validated, immutable mesh built from it (MeshGeometry). */
#include "myriad/core/Bounds.h"
#include "myriad/core/MorphTargets.h"

#include <glm/gtc/type_precision.hpp>  // glm::u16vec4
#include <glm/vec2.hpp>
#include <glm/vec3.hpp>
#include <glm/vec4.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace myriad {

/** How one vertex attribute is stored in a renderer's vertex buffer (the GPU copy; the CPU
 *  copy in MeshData is always float). The names are Vulkan's (VkFormat): a normalized integer
 *  (UNorm, SNorm) is read by the vertex stage as a float in [0, 1] or [-1, 1], a scaled one
 *  (UScaled, SScaled) as the float of its value (1000 -> 1000.0), both with no shader change
 *  (OpenGL 4.5 section 10.2.1 and 2.3.5.1: unsigned c / (2^b - 1), signed max(c / (2^(b-1) - 1),
 *  -1), the rule glTF 2.0 section 3.11 gives for normalized accessors). These are the component
 *  types KHR_mesh_quantization allows, so a gltfpack file's vertices reach the GPU as it stored
 *  them: 24 bytes a vertex for gltfpack output where float takes 48 (docs/gltf.md). */
enum class VertexStorage : std::uint8_t {
    Float32,    ///< 32-bit float (the default)
    UNorm8,     ///< unsigned byte, c / 255
    SNorm8,     ///< signed byte, max(c / 127, -1)
    UNorm16,    ///< unsigned short, c / 65535
    SNorm16,    ///< signed short, max(c / 32767, -1)
    UScaled8,   ///< unsigned byte, its value: 0..255
    SScaled8,   ///< signed byte, its value: -128..127
    UScaled16,  ///< unsigned short, its value: 0..65535
    SScaled16,  ///< signed short, its value: -32768..32767
};

/** Bytes of one component stored as @p storage: 4, 1 or 2. */
[[nodiscard]] std::uint32_t componentBytes(VertexStorage storage) noexcept;
/** "Float32", "UNorm8", ... (the enumerator's name), for messages and labels. */
[[nodiscard]] const char* toString(VertexStorage storage) noexcept;

/** Per attribute, how MeshGeometry's GPU copy stores it (VertexStorage). Which storages each
 *  attribute takes follows glTF 2.0 (3.7.2.1) with KHR_mesh_quantization: positions and texture
 *  coordinates any; normals Float32, SNorm8 or SNorm16; colours Float32, UNorm8 or UNorm16.
 *  The values must fit: MeshGeometry checks them and rounds normalized ones to their step
 *  (see MeshGeometry::MeshGeometry). When any attribute is not Float32, an attribute the mesh
 *  does not have (uv0 or colors empty) is stored as UNorm8 whatever is asked here: its constant
 *  (0 or white) fits exactly. An all-Float32 mesh keeps the 48-byte float layout, absent
 *  attributes included: the table-driven draw path groups meshes by layout (one vertex arena
 *  each), so every float mesh stays in one group. */
struct VertexEncoding {
    VertexStorage position = VertexStorage::Float32;  ///< MeshData::positions: any storage
    VertexStorage normal = VertexStorage::Float32;    ///< MeshData::normals: Float32, SNorm8, SNorm16
    VertexStorage uv0 = VertexStorage::Float32;       ///< MeshData::uv0: any storage
    VertexStorage color = VertexStorage::Float32;     ///< MeshData::colors: Float32, UNorm8, UNorm16
    /** Equal when every attribute's storage is. */
    friend bool operator==(const VertexEncoding&, const VertexEncoding&) = default;
};

/** Plain vertex and index arrays, in the mesh's own (model) space. Fill it, then build a
 *  MeshGeometry from it. Triangle lists only (three indices per triangle, counter-clockwise
 *  front faces, as glTF). */
struct MeshData {
    std::vector<glm::vec3> positions;  ///< model space, one per vertex; shader location 0
    std::vector<glm::vec3> normals;    ///< model space, unit length; empty: computed (smooth)
    std::vector<glm::vec2> uv0;        ///< texture coordinates, glTF convention (v down); empty: 0
    std::vector<glm::vec4> colors;     ///< linear RGBA vertex colours; empty: white
    std::vector<std::uint16_t> indices16;  ///< 16-bit indices; set this or indices32, not both
    std::vector<std::uint32_t> indices32;  ///< 32-bit indices
    std::vector<MorphTarget> morphTargets; ///< at most kMaxMorphTargets; empty: no morphing
    std::vector<float> morphWeights;       ///< default weight per target (glTF mesh.weights); 0 if short
    /** Skin: up to four joints per vertex (glTF JOINTS_0), indices into the Skeleton a node
     *  skins the mesh with (MeshNode::setSkeleton, docs/skinning.md). Empty: not skinned.
     *  Set with weights, one per vertex; a joint whose weight is 0 is never read. */
    std::vector<glm::u16vec4> joints;
    /** Skin weights (glTF WEIGHTS_0), one per entry of joints: finite, >= 0, not all 0.
     *  MeshGeometry divides each vertex's by their sum, so they sum to 1 as glTF 3.7.3.3 asks
     *  (a file's rounding error, or weights given unnormalised, draw as intended). */
    std::vector<glm::vec4> weights;
    /** Second texture coordinate set (glTF TEXCOORD_1), glTF convention (v down), one per
     *  vertex or empty (none: the mesh keeps its layout without it, and a texture read at
     *  set 1 reads (0, 0)). Always stored as Float32. */
    std::vector<glm::vec2> uv1;
    /** Tangents (glTF TANGENT): xyz a unit model-space direction along which uv0's u grows,
     *  perpendicular to the normal; w = +1 or -1, the handedness: bitangent = cross(normal,
     *  xyz) * w. One per vertex or empty (none: no tangent in the layout; a normal map then
     *  takes its frame from screen-space derivatives, or call generateTangents(),
     *  myriad/core/Tangents.h). Always stored as Float32. */
    std::vector<glm::vec4> tangents;
    /** How the GPU copy stores each attribute; all Float32 by default. The glTF importer sets
     *  the storage a quantized file used (docs/gltf.md). Morph deltas are always float. */
    VertexEncoding encoding;
};

/** Where the attributes of one vertex sit in a renderer's vertex buffer for a mesh
 *  (MeshGeometry::vertexLayout()): interleaved, each attribute 4-byte aligned, in the order
 *  position, normal, uv0, colour. A Float32 attribute has its own component count (3, 3, 2, 4);
 *  an 8- or 16-bit one is stored with 2 (uv0) or 4 components, as WebGPU and Vulkan
 *  implementations want them aligned; the fourth of a position is 1 (as GL reads a
 *  three-component attribute into a vec4), of a normal 0, and the vertex stage declares vec3. */
struct PackedVertexLayout {
    /** One attribute's place in a vertex. */
    struct Attribute {
        VertexStorage storage = VertexStorage::Float32;  ///< how its components are stored
        std::uint32_t components = 0;   ///< stored components: 2, 3 or 4
        std::uint32_t offsetBytes = 0;  ///< from the start of a vertex, a multiple of 4
        /** Equal when storage, components and offset are. */
        friend bool operator==(const Attribute&, const Attribute&) = default;
    };
    Attribute position;  ///< shader location 0
    Attribute normal;    ///< shader location 1
    Attribute uv0;       ///< shader location 2
    Attribute color;     ///< shader location 3
    /** Skinned meshes only (components 0 otherwise): four 16-bit joint indices, read as
     *  integers (`in uvec4`, location 9), after colour. storage says UScaled16. */
    Attribute joints;
    /** Skinned meshes only (components 0 otherwise): four Float32 weights (location 10). */
    Attribute weights;
    /** Meshes with MeshData::uv1 only (components 0 otherwise): two Float32 (location 11),
     *  after the skin's attributes. */
    Attribute uv1;
    /** Meshes with MeshData::tangents only (components 0 otherwise): four Float32 (location
     *  12), last. */
    Attribute tangent;
    std::uint32_t strideBytes = 0;  ///< bytes per vertex, a multiple of 4: 48 with every attribute Float32 (72 skinned; +8 with uv1, +16 with tangents)
    /** Equal when every attribute and the stride are. */
    friend bool operator==(const PackedVertexLayout&, const PackedVertexLayout&) = default;
};

/** Width of one index in the index buffer: 16-bit when MeshData::indices16 is set. A mesh holds
 *  16- or 32-bit indices; UInt8 (GL_UNSIGNED_BYTE, as WebGL's drawElements and
 *  ANGLE_instanced_arrays' drawElementsInstancedANGLE take) is for the low-level draws of
 *  myriad/gl/Draw.h only. */
enum class IndexType : std::uint8_t { UInt16, UInt32, UInt8 };

/** An immutable triangle mesh: validated MeshData plus its local AABB. Shared between nodes
 *  through std::shared_ptr<const MeshGeometry>; the renderer uploads it once per renderer and
 *  keeps the GPU copy while any node uses it.
 *  Ownership: shared. Thread safety: immutable after construction, so readable from any thread. */
class MeshGeometry {
public:
    /** Validates and takes @p data.
     *  Normals are computed (area-weighted smooth) when data.normals is empty.
     *  @throws InvalidArgument if there are no positions, no indices, both index arrays are set,
     *  the index count is not a multiple of 3, a per-vertex array's size is neither 0 nor the
     *  vertex count, a position or morph delta is NaN/Inf, there are more than kMaxMorphTargets
     *  targets, a target's deltas are not one per vertex, or there are more default weights
     *  than targets, joints and weights are not both empty or both one per vertex, or a
     *  vertex's weights are NaN, Inf, negative or all 0 (the message names the vertex), or a
     *  uv1 or tangent is NaN/Inf or a tangent's w is 0. Default weights shorter than the target list are padded with 0.
     *  data.encoding (VertexEncoding): a normalized storage rounds the CPU copy to its step, so
     *  what the CPU reads (bounds, picking, LOD) is what the GPU draws; a normal with a component
     *  outside [-1, 1] is made unit length first (its direction kept), others are kept as given.
     *  @throws InvalidArgument also if an attribute's storage is one its attribute does not take
     *  (VertexEncoding), a value is outside its normalized range ([0, 1] or [-1, 1]), or a value
     *  stored scaled is not an integer in the storage's range; the message names the attribute,
     *  the vertex and the storage.
     *  @throws OutOfRange if an index is >= the vertex count. */
    explicit MeshGeometry(MeshData data, std::string name = {});

    /** Convenience: std::make_shared<const MeshGeometry>(std::move(data), name). */
    [[nodiscard]] static std::shared_ptr<const MeshGeometry> create(MeshData data,
                                                                   std::string name = {});

    /** The name given at construction (used in GL labels); may be empty. */
    [[nodiscard]] const std::string& name() const noexcept { return m_name; }
    /** Process-wide serial number, never reused. */
    [[nodiscard]] std::uint64_t id() const noexcept { return m_id; }
    /** The validated arrays, normals filled in; read-only for the mesh's lifetime. */
    [[nodiscard]] const MeshData& data() const noexcept { return m_data; }
    /** Number of vertices (positions). */
    [[nodiscard]] std::uint32_t vertexCount() const noexcept {
        return static_cast<std::uint32_t>(m_data.positions.size());
    }
    /** Number of indices, 16- or 32-bit: three per triangle. */
    [[nodiscard]] std::uint32_t indexCount() const noexcept;
    /** UInt16 when the data came with indices16, else UInt32. */
    [[nodiscard]] IndexType indexType() const noexcept {
        return m_data.indices16.empty() ? IndexType::UInt32 : IndexType::UInt16;
    }
    /** indexCount() / 3. */
    [[nodiscard]] std::uint32_t triangleCount() const noexcept { return indexCount() / 3; }
    /** True when the mesh has a second texture coordinate set (MeshData::uv1). */
    [[nodiscard]] bool hasUv1() const noexcept { return !m_data.uv1.empty(); }
    /** True when the mesh has tangents (MeshData::tangents). */
    [[nodiscard]] bool hasTangents() const noexcept { return !m_data.tangents.empty(); }
    /** True when the mesh has per-vertex colours (otherwise the shader reads white). */
    [[nodiscard]] bool hasColors() const noexcept { return !m_data.colors.empty(); }
    /** Number of morph targets, 0 to kMaxMorphTargets. */
    [[nodiscard]] std::size_t morphTargetCount() const noexcept { return m_data.morphTargets.size(); }
    /** The mesh's default weights, one per target (what a new MeshNode starts with). */
    [[nodiscard]] const std::vector<float>& defaultMorphWeights() const noexcept {
        return m_data.morphWeights;
    }
    /** True when the mesh has a skin (MeshData::joints and weights): a node draws it skinned
     *  once given a Skeleton (MeshNode::setSkeleton), in its bind pose until then. */
    [[nodiscard]] bool isSkinned() const noexcept { return !m_data.joints.empty(); }
    /** 1 + the highest joint index any vertex uses with a weight above 0 (0 unskinned): the
     *  fewest joints a skeleton for this mesh must have. */
    [[nodiscard]] std::size_t skinJointCount() const noexcept { return m_skinJointCount; }
    /** The encoding the mesh was built with (MeshData::encoding). */
    [[nodiscard]] const VertexEncoding& encoding() const noexcept { return m_data.encoding; }
    /** Where each attribute sits in one vertex of the GPU copy (PackedVertexLayout), from
     *  encoding() and which attributes the mesh has. */
    [[nodiscard]] const PackedVertexLayout& vertexLayout() const noexcept { return m_layout; }
    /** The vertex buffer a renderer uploads for this mesh: vertexCount() x
     *  vertexLayout().strideBytes bytes, each attribute encoded as vertexLayout() says (a
     *  normalized value v as round(v x (2^b - 1)) or round(v x (2^(b-1) - 1)), which gives back
     *  the integer a quantized file stored; a scaled one as its value), a packed position's
     *  fourth component 1 and a normal's 0, absent attributes as their constant (uv 0, colour
     *  white). Made anew on each call. */
    [[nodiscard]] std::vector<std::byte> packedVertices() const;

    /** Smallest box around every position, in model space, with no morph target applied.
     *  Never empty. @see morphedBounds() for the box that covers morphed vertices. */
    [[nodiscard]] const Aabb& localBounds() const noexcept { return m_bounds; }
    /** Per morph target, the per-axis minimum and maximum of its position deltas (model space),
     *  computed once at construction; one box per target, in target order. A target whose
     *  deltas are all zero has the box (0, 0, 0)..(0, 0, 0). */
    [[nodiscard]] std::span<const Aabb> morphTargetDeltaBounds() const noexcept {
        return m_morphDeltaBounds;
    }
    /** A box, in model space, that contains every vertex morphed with @p weights (vertex =
     *  position + sum over targets of weight * delta, as the shader computes it). Interval
     *  arithmetic per axis: localBounds() plus, for each target, its delta box scaled by the
     *  weight (the box's ends swap for a negative weight). Conservative, not tight: each term
     *  takes its extreme from whichever vertex reaches it. O(targets), no allocation.
     *  @p weights: one per target, missing trailing ones count as 0, extra ones are ignored;
     *  any finite value (negative or above 1 included). */
    [[nodiscard]] Aabb morphedBounds(std::span<const float> weights) const noexcept;
    /** As morphedBounds(weights), for every weight vector whose weight t lies anywhere in
     *  [@p lowWeights[t], @p highWeights[t]]: the box contains the vertices morphed by each of
     *  them (interval product of the weight range and the delta box, per target). Used for a
     *  batch whose instances carry different weights. Both spans: one per target, missing
     *  trailing ones count as 0; lowWeights[t] <= highWeights[t] is the caller's duty. */
    [[nodiscard]] Aabb morphedBounds(std::span<const float> lowWeights,
                                     std::span<const float> highWeights) const noexcept;

private:
    std::string m_name;
    std::uint64_t m_id = 0;
    MeshData m_data;
    PackedVertexLayout m_layout;
    Aabb m_bounds;
    std::vector<Aabb> m_morphDeltaBounds;  ///< one per morph target
    std::size_t m_skinJointCount = 0;
};

} // namespace myriad
