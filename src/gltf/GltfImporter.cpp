#include "myriad/gltf/GltfImporter.h"

#include "gltf/AccessorTypes.h"
#include "gltf/Decompose.h"
#include "gltf/GltfCameras.h"
#if MYRIAD_GLTF_DRACO
#include "gltf/Draco.h"
#endif
#if MYRIAD_GLTF_MESHOPT
#include "gltf/Meshopt.h"
#endif
#include "myriad/core/LightNode.h"
#include "myriad/core/Tangents.h"
#include "myriad/image/ImageIO.h"
#include "myriad/util/Error.h"
#include "myriad/util/Log.h"

#include <tiny_gltf.h>

#include <glm/geometric.hpp>
#include <glm/gtc/quaternion.hpp>
#include <glm/gtc/type_ptr.hpp>
#include <glm/mat3x3.hpp>
#include <glm/matrix.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string_view>
#include <utility>

/* What this file trusts and what it does not.
 *
 * tinygltf parses the JSON, decodes data URIs, reads external .bin and image files and splits a
 * .glb into its chunks. It does not check that a buffer view lies inside its buffer, that an
 * accessor lies inside its buffer view, that component types suit their attributes, or that
 * indices are in range; hostile files can make any of these wrong. So every accessor read here
 * goes through Importer::viewAccessor(), which checks all of it with 64-bit arithmetic that
 * cannot overflow, and every element is read with std::memcpy (no alignment assumed, whatever
 * glTF 2.0 3.6.2.4 "Data Alignment" requires of the file).
 *
 * Choices made where the header leaves room:
 *  - Sparse accessors (3.6.2.3) are supported: the base data (or zeros) is copied, then the
 *    sparse values are written over it, each sparse index checked against the count.
 *  - When NORMAL is absent the primitive gets flat normals, as 3.7.2.1 requires ("client
 *    implementations MUST calculate flat normals"): an indexed primitive is de-indexed first, so
 *    its vertex count becomes its index count.
 *  - A skinned node's own transform is ignored (3.7.3.2 Joint Hierarchy: "the transform of the
 *    skinned mesh node MUST be ignored"): its mesh stays in bind space, and its skin's skeleton
 *    is placed by the world matrix of the root joints' parent (ImportedSkin::placement).
 *  - A skin's joints, inverse bind matrices and animation keyframes are read through the same
 *    checked accessors; JOINTS_0 values with a weight above 0 must be below the skin's joint
 *    count, and those with weight 0 are set to 0 (never read, and always a valid index).
 *  - Only images used as a base colour texture are decoded; others (normal maps...) are never
 *    touched, so a corrupt unused image is not an error.
 *  - A file listing an extension in extensionsRequired that is not supported is refused (3.12).
 *  - A node or mesh without a name is called "node<index>" / "mesh<index>" in primitive names.
 */

namespace myriad::gltf {
namespace {
using detail::componentCount;
using detail::componentSize;

static_assert(std::endian::native == std::endian::little,
              "glTF buffers are little endian (3.6.1.1); this reader copies them as they are");

constexpr int kModeTriangles = TINYGLTF_MODE_TRIANGLES;
constexpr int kFloat = TINYGLTF_COMPONENT_TYPE_FLOAT;
constexpr int kUnsignedByte = TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE;
constexpr int kUnsignedShort = TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT;
constexpr int kUnsignedInt = TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT;
constexpr int kScalar = TINYGLTF_TYPE_SCALAR;
constexpr int kVec2 = TINYGLTF_TYPE_VEC2;
constexpr int kVec3 = TINYGLTF_TYPE_VEC3;
constexpr int kVec4 = TINYGLTF_TYPE_VEC4;
constexpr int kMat4 = TINYGLTF_TYPE_MAT4;

constexpr std::string_view kInstancingExtension = "EXT_mesh_gpu_instancing";
constexpr std::string_view kUnlitExtension = "KHR_materials_unlit";
constexpr std::string_view kQuantizationExtension = "KHR_mesh_quantization";
constexpr std::string_view kTextureTransformExtension = "KHR_texture_transform";
constexpr std::string_view kLightsExtension = "KHR_lights_punctual";
constexpr std::string_view kEmissiveStrengthExtension = "KHR_materials_emissive_strength";

const glm::vec3 kFallbackNormal{0.0f, 1.0f, 0.0f};

std::string componentTypeName(int componentType) {
    switch (componentType) {
    case TINYGLTF_COMPONENT_TYPE_BYTE: return "byte (5120)";
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: return "unsigned byte (5121)";
    case TINYGLTF_COMPONENT_TYPE_SHORT: return "short (5122)";
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: return "unsigned short (5123)";
    case TINYGLTF_COMPONENT_TYPE_INT: return "int (5124)";
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT: return "unsigned int (5125)";
    case TINYGLTF_COMPONENT_TYPE_FLOAT: return "float (5126)";
    case TINYGLTF_COMPONENT_TYPE_DOUBLE: return "double (5130)";
    default: return std::to_string(componentType);
    }
}

std::string typeName(int type) {
    switch (type) {
    case kScalar: return "SCALAR";
    case kVec2: return "VEC2";
    case kVec3: return "VEC3";
    case kVec4: return "VEC4";
    case TINYGLTF_TYPE_MAT2: return "MAT2";
    case TINYGLTF_TYPE_MAT3: return "MAT3";
    case TINYGLTF_TYPE_MAT4: return "MAT4";
    default: return "type " + std::to_string(type);
    }
}

std::string modeName(int mode) {
    switch (mode) {
    case TINYGLTF_MODE_POINTS: return "points";
    case TINYGLTF_MODE_LINE: return "lines";
    case TINYGLTF_MODE_LINE_LOOP: return "line loop";
    case TINYGLTF_MODE_LINE_STRIP: return "line strip";
    case TINYGLTF_MODE_TRIANGLE_STRIP: return "triangle strip";
    case TINYGLTF_MODE_TRIANGLE_FAN: return "triangle fan";
    default: return "unknown";
    }
}

/** a + b, or nullopt when it does not fit in 64 bits. */
std::optional<std::uint64_t> checkedAdd(std::uint64_t a, std::uint64_t b) {
    if (a > std::numeric_limits<std::uint64_t>::max() - b) {
        return std::nullopt;
    }
    return a + b;
}

/** a * b, or nullopt when it does not fit in 64 bits. */
std::optional<std::uint64_t> checkedMul(std::uint64_t a, std::uint64_t b) {
    if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a) {
        return std::nullopt;
    }
    return a * b;
}

/** True when every component of @p v is finite (no NaN, no infinity). */
template <glm::length_t N, class T>
bool allFinite(const glm::vec<N, T>& v) {
    for (glm::length_t i = 0; i < N; ++i) {
        if (!std::isfinite(v[i])) {
            return false;
        }
    }
    return true;
}

template <class T>
bool validIndex(int index, const std::vector<T>& array) {
    return index >= 0 && static_cast<std::size_t>(index) < array.size();
}

/** The elements of one accessor after every check: read element i at data() + i * stride.
 *  data() is null when the accessor has no buffer view and no sparse part: all zeros (3.6.2.3). */
struct ElementView {
    const std::uint8_t* external = nullptr;  ///< inside a tinygltf buffer
    std::vector<std::uint8_t> owned;         ///< tightly packed copy (sparse accessors)
    std::uint64_t stride = 0;
    std::uint64_t count = 0;
    int componentType = 0;
    int components = 0;
    bool normalized = false;

    [[nodiscard]] const std::uint8_t* data() const noexcept {
        return owned.empty() ? external : owned.data();
    }
};

/** How the accessor behind @p view stores its components, as a VertexStorage: a quantized
 *  file's integers go to the GPU as they are (MeshData::encoding). */
VertexStorage storageOf(const ElementView& view) noexcept {
    switch (view.componentType) {
    case TINYGLTF_COMPONENT_TYPE_BYTE: return view.normalized ? VertexStorage::SNorm8 : VertexStorage::SScaled8;
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE:
        return view.normalized ? VertexStorage::UNorm8 : VertexStorage::UScaled8;
    case TINYGLTF_COMPONENT_TYPE_SHORT: return view.normalized ? VertexStorage::SNorm16 : VertexStorage::SScaled16;
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT:
        return view.normalized ? VertexStorage::UNorm16 : VertexStorage::UScaled16;
    default: return VertexStorage::Float32;
    }
}

/** One component as a float. Normalized integers map to [0, 1] (unsigned: c / max) or [-1, 1]
 *  (signed: max(c / max, -1)), the conversion the glTF 2.0 spec gives for normalized data. */
float readComponent(const std::uint8_t* p, int componentType, bool normalized) {
    switch (componentType) {
    case TINYGLTF_COMPONENT_TYPE_FLOAT: {
        float value = 0.0f;
        std::memcpy(&value, p, sizeof value);
        return value;
    }
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: {
        const float value = static_cast<float>(*p);
        return normalized ? value / 255.0f : value;
    }
    case TINYGLTF_COMPONENT_TYPE_BYTE: {
        const float value = static_cast<float>(static_cast<std::int8_t>(*p));
        return normalized ? std::max(value / 127.0f, -1.0f) : value;
    }
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: {
        std::uint16_t value = 0;
        std::memcpy(&value, p, sizeof value);
        return normalized ? static_cast<float>(value) / 65535.0f : static_cast<float>(value);
    }
    case TINYGLTF_COMPONENT_TYPE_SHORT: {
        std::int16_t value = 0;
        std::memcpy(&value, p, sizeof value);
        return normalized ? std::max(static_cast<float>(value) / 32767.0f, -1.0f)
                          : static_cast<float>(value);
    }
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT: {  // custom instance attributes (_ID) only
        std::uint32_t value = 0;
        std::memcpy(&value, p, sizeof value);
        return static_cast<float>(value);
    }
    default: return 0.0f;  // never reached: component types are checked before reading
    }
}

std::uint32_t readIndex(const std::uint8_t* p, int componentType) {
    switch (componentType) {
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: return *p;
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: {
        std::uint16_t value = 0;
        std::memcpy(&value, p, sizeof value);
        return value;
    }
    default: {
        std::uint32_t value = 0;
        std::memcpy(&value, p, sizeof value);
        return value;
    }
    }
}

/** Reads every element as an N-vector; components the accessor lacks keep @p fill's value
 *  (COLOR_0 as VEC3 gets alpha 1, 3.7.2.1). */
template <glm::length_t N>
std::vector<glm::vec<N, float>> readVectors(const ElementView& view, glm::vec<N, float> fill) {
    std::vector<glm::vec<N, float>> out(view.count, view.data() == nullptr
                                                        ? glm::vec<N, float>(0.0f)
                                                        : fill);
    const std::uint8_t* base = view.data();
    if (base == nullptr) {
        for (auto& v : out) {  // all zeros, but a missing alpha is still 1
            for (glm::length_t c = static_cast<glm::length_t>(view.components); c < N; ++c) {
                v[c] = fill[c];
            }
        }
        return out;
    }
    const std::uint64_t size = componentSize(view.componentType);
    const auto components = std::min<glm::length_t>(N, static_cast<glm::length_t>(view.components));
    for (std::uint64_t i = 0; i < view.count; ++i) {
        const std::uint8_t* element = base + i * view.stride;
        for (glm::length_t c = 0; c < components; ++c) {
            out[i][c] = readComponent(element + static_cast<std::uint64_t>(c) * size,
                                      view.componentType, view.normalized);
        }
    }
    return out;
}

/** Every element of a float MAT4 accessor (column-major, as glm). */
std::vector<glm::mat4> readMatrices(const ElementView& view) {
    std::vector<glm::mat4> out(view.count, glm::mat4(0.0f));  // no view: all zeros (3.6.2.3)
    if (const std::uint8_t* base = view.data(); base != nullptr) {
        for (std::uint64_t i = 0; i < view.count; ++i) {
            std::memcpy(glm::value_ptr(out[i]), base + i * view.stride, sizeof(glm::mat4));
        }
    }
    return out;
}

/** The tinygltf image callback. It keeps the encoded bytes (as_is) instead of decoding, so that
 *  only images actually used are decoded, after their size was checked against
 *  ImportOptions::maxImageSide. @p userData is the tinygltf::Model being filled. */
bool keepEncodedImage(tinygltf::Image* image, const int imageIndex, std::string* err,
                      std::string* /*warn*/, int /*reqWidth*/, int /*reqHeight*/,
                      const unsigned char* bytes, int size, void* userData) {
    auto fail = [&](const std::string& why) {
        if (err != nullptr) {
            *err += "image " + std::to_string(imageIndex) + ": " + why + "\n";
        }
        return false;
    };
    if (image->bufferView >= 0) {
        // tinygltf 2.7.0 passes &buffer.data[view.byteOffset] and view.byteLength without
        // checking that the view fits in its buffer (it did check both indices): check that
        // here, before a single byte is read.
        const auto* model = static_cast<const tinygltf::Model*>(userData);
        const tinygltf::BufferView& view =
            model->bufferViews[static_cast<std::size_t>(image->bufferView)];
        const tinygltf::Buffer& buffer = model->buffers[static_cast<std::size_t>(view.buffer)];
        if (view.byteOffset > buffer.data.size() ||
            view.byteLength > buffer.data.size() - view.byteOffset) {
            return fail("buffer view " + std::to_string(image->bufferView) + " (" +
                        std::to_string(view.byteLength) + " bytes at offset " +
                        std::to_string(view.byteOffset) + ") runs past its buffer (" +
                        std::to_string(buffer.data.size()) + " bytes)");
        }
        if (view.byteLength > static_cast<std::size_t>(INT_MAX) ||
            static_cast<std::size_t>(size) != view.byteLength) {
            return fail("image data is larger than 2 GiB");
        }
    }
    if (bytes == nullptr || size <= 0) {
        return fail("image data is empty");
    }
    image->image.assign(bytes, bytes + size);
    image->as_is = true;
    return true;
}

std::string trimmed(std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) {
        text.pop_back();
    }
    return text;
}

/** True when the file starts with the GLB header's magic "glTF" (a binary container). */
bool hasGlbMagic(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    std::array<char, 4> magic{};
    return file.read(magic.data(), magic.size()) && std::string_view(magic.data(), 4) == "glTF";
}

/** The local transform of @p node (3.5.3 Transformations): matrix when given, else T * R * S. */
std::optional<glm::dmat4> localTransform(const tinygltf::Node& node, std::string& error) {
    if (!node.matrix.empty()) {
        if (node.matrix.size() != 16) {
            error = "matrix has " + std::to_string(node.matrix.size()) + " values, expected 16";
            return std::nullopt;
        }
        return glm::make_mat4(node.matrix.data());  // column-major, as glm
    }
    glm::dmat4 result(1.0);
    if (!node.translation.empty()) {
        if (node.translation.size() != 3) {
            error = "translation has " + std::to_string(node.translation.size()) +
                    " values, expected 3";
            return std::nullopt;
        }
        result[3] = glm::dvec4(node.translation[0], node.translation[1], node.translation[2], 1.0);
    }
    if (!node.rotation.empty()) {
        if (node.rotation.size() != 4) {
            error = "rotation has " + std::to_string(node.rotation.size()) + " values, expected 4";
            return std::nullopt;
        }
        // glTF stores x, y, z, w; glm's constructor takes w first.
        glm::dquat q(node.rotation[3], node.rotation[0], node.rotation[1], node.rotation[2]);
        const double length = glm::length(q);
        if (!std::isfinite(length) || length == 0.0) {
            error = "rotation is not a unit quaternion";
            return std::nullopt;
        }
        result = result * glm::mat4_cast(q / length);  // exporters round; renormalise
    }
    if (!node.scale.empty()) {
        if (node.scale.size() != 3) {
            error = "scale has " + std::to_string(node.scale.size()) + " values, expected 3";
            return std::nullopt;
        }
        result[0] *= node.scale[0];
        result[1] *= node.scale[1];
        result[2] *= node.scale[2];
    }
    return result;
}

/** Which kinds of data an attribute accepts (3.7.2.1, the attribute table). */
struct AccessorRule {
    std::span<const int> types;
    std::span<const int> componentTypes;
    bool integersNormalized;      ///< integer components must have normalized: true
    std::string_view description; ///< for the error message
};

constexpr std::array kTypesVec2{kVec2};
constexpr std::array kTypesVec3{kVec3};
constexpr std::array kTypesColor{kVec3, kVec4};
constexpr std::array kTypesScalar{kScalar};
constexpr std::array kTypesVec4{kVec4};
constexpr std::array kTypesAny{kScalar, kVec2, kVec3, kVec4};
constexpr std::array kFloatOnly{kFloat};
constexpr std::array kFloatOrSignedNormalized{kFloat, TINYGLTF_COMPONENT_TYPE_BYTE,
                                              TINYGLTF_COMPONENT_TYPE_SHORT};
constexpr std::array kAnyComponent{kFloat, TINYGLTF_COMPONENT_TYPE_BYTE, kUnsignedByte,
                                   TINYGLTF_COMPONENT_TYPE_SHORT, kUnsignedShort, kUnsignedInt};
constexpr std::array kFloatOrNormalized{kFloat, kUnsignedByte, kUnsignedShort};
constexpr std::array kIndexTypes{kUnsignedByte, kUnsignedShort, kUnsignedInt};
constexpr std::array kFloatOrAnyInt{kFloat, TINYGLTF_COMPONENT_TYPE_BYTE, kUnsignedByte,
                                    TINYGLTF_COMPONENT_TYPE_SHORT, kUnsignedShort};

const AccessorRule kPositionRule{kTypesVec3, kFloatOnly, false, "float VEC3"};
const AccessorRule kNormalRule{kTypesVec3, kFloatOnly, false, "float VEC3"};
const AccessorRule kTexcoordRule{
    kTypesVec2, kFloatOrNormalized, true,
    "float, normalized unsigned byte or normalized unsigned short VEC2"};
const AccessorRule kColorRule{
    kTypesColor, kFloatOrNormalized, true,
    "float, normalized unsigned byte or normalized unsigned short VEC3 or VEC4"};
// KHR_mesh_quantization, "Extending Mesh Attributes" and "Extending Morph Target Attributes":
// what the extension adds, used only in files that list it in extensionsUsed. Integers that are
// not normalized are read as their value (1000 -> 1000.0); the node transform (positions) or
// KHR_texture_transform (texture coordinates) beside them scales them back.
const AccessorRule kQuantizedPositionRule{
    kTypesVec3, kFloatOrAnyInt, false,
    "float VEC3, or with KHR_mesh_quantization (unsigned) byte or (unsigned) short VEC3, "
    "normalized or not"};
const AccessorRule kQuantizedNormalRule{
    kTypesVec3, kFloatOrSignedNormalized, true,
    "float VEC3, or with KHR_mesh_quantization normalized byte or normalized short VEC3"};
const AccessorRule kTangentRule{kTypesVec4, kFloatOnly, false, "float VEC4"};
const AccessorRule kQuantizedTangentRule{
    kTypesVec4, kFloatOrSignedNormalized, true,
    "float VEC4, or with KHR_mesh_quantization normalized byte or normalized short VEC4"};
const AccessorRule kQuantizedTexcoordRule{
    kTypesVec2, kFloatOrAnyInt, false,
    "float VEC2, or with KHR_mesh_quantization (unsigned) byte or (unsigned) short VEC2, "
    "normalized or not"};
const AccessorRule kQuantizedPositionDeltaRule{
    kTypesVec3, kFloatOrSignedNormalized, false,
    "float VEC3, or with KHR_mesh_quantization byte or short VEC3, normalized or not"};
// EXT_mesh_gpu_instancing, "Extending Nodes": the attribute table.
const AccessorRule kTranslationRule{kTypesVec3, kFloatOnly, false, "float VEC3"};
const AccessorRule kRotationRule{
    kTypesVec4, kFloatOrSignedNormalized, true,
    "float, normalized byte or normalized short VEC4"};
const AccessorRule kScaleRule{kTypesVec3, kFloatOnly, false, "float VEC3"};
// EXT_mesh_gpu_instancing with KHR_mesh_quantization: TRANSLATION and SCALE may also be
// (normalized) byte or short, as gltfpack writes them; ROTATION already allows normalized ones.
const AccessorRule kQuantizedTranslationRule{
    kTypesVec3, kFloatOrSignedNormalized, false,
    "float VEC3, or with KHR_mesh_quantization byte or short VEC3, normalized or not"};
const AccessorRule kQuantizedScaleRule = kQuantizedTranslationRule;
const AccessorRule kCustomInstanceRule{
    kTypesAny, kAnyComponent, false,
    "SCALAR, VEC2, VEC3 or VEC4 of float, (unsigned) byte, (unsigned) short or unsigned int"};
const AccessorRule kTimeRule{kTypesScalar, kFloatOnly, false, "float SCALAR"};
// 3.11 Animations, the sampler output table: morph weights are float or normalized (unsigned)
// byte or short (gltfpack writes normalized unsigned bytes).
const AccessorRule kWeightsOutputRule{
    kTypesScalar, kFloatOrAnyInt, true,
    "float, normalized (unsigned) byte or normalized (unsigned) short SCALAR (animation "
    "outputs of weights, 3.11)"};
// 3.7.3.3 Skinned Mesh Attributes.
constexpr std::array kJointComponents{kUnsignedByte, kUnsignedShort};
const AccessorRule kJointsRule{kTypesVec4, kJointComponents, false,
                               "unsigned byte or unsigned short VEC4 (3.7.3.3)"};
const AccessorRule kSkinWeightsRule{
    kTypesVec4, kFloatOrNormalized, true,
    "float, normalized unsigned byte or normalized unsigned short VEC4 (3.7.3.3)"};
// 3.7.3.1: inverseBindMatrices is a float MAT4 accessor.
constexpr std::array kTypesMat4{kMat4};
const AccessorRule kInverseBindRule{kTypesMat4, kFloatOnly, false, "float MAT4 (3.7.3.1)"};
// 3.11 Animations, the sampler output table for translation, rotation and scale.
const AccessorRule kTranslationOutputRule{
    kTypesVec3, kFloatOnly, false, "float VEC3 (animation outputs of translation and scale, 3.11)"};
const AccessorRule kRotationOutputRule{
    kTypesVec4, kFloatOrAnyInt, true,
    "float, normalized (unsigned) byte or normalized (unsigned) short VEC4 (animation outputs "
    "of rotation, 3.11)"};
const AccessorRule kIndexRule{kTypesScalar, kIndexTypes, false,
                              "unsigned byte, unsigned short or unsigned int SCALAR"};

/** One import: the parsed file, the caches and the output. */
class Importer {
public:
    Importer(std::string path, const ImportOptions& options)
        : m_path(std::move(path)), m_options(options) {}

    ImportedModel run() {
        prepare(false);
        ImportedModel result;
        result.path = m_path;
        std::vector<SceneOrder> order;        // every node of the scene, parents first
        std::vector<int> nodeOfPrimitive;      // per result primitive: its node
        traverseScene([&](int nodeIndex, int parent, const glm::dmat4& world) {
            order.push_back({nodeIndex, parent, world});
            const tinygltf::Node& node = m_model.nodes[static_cast<std::size_t>(nodeIndex)];
            if (node.extensions.count(std::string(kInstancingExtension)) != 0) {
                warn(describeNode(nodeIndex) + " uses EXT_mesh_gpu_instancing: importModel() "
                     "draws one copy at the node's transform; importScene() imports the instances");
            }
            if (node.mesh < 0) {
                return;
            }
            const tinygltf::Mesh& mesh = meshOfNode(nodeIndex);
            // 3.7.3.2: the transform of a skinned mesh node MUST be ignored; only its joints
            // place it, so its data stays in bind space (the skin's placement puts it).
            const int skin = node.skin >= 0 ? static_cast<int>(skinSlot(nodeIndex)) : -1;
            const glm::dmat4 placement = node.skin >= 0 ? glm::dmat4(1.0) : world;
            m_targetNames = targetNames(mesh);
            for (std::size_t i = 0; i < mesh.primitives.size(); ++i) {
                std::optional<ImportedPrimitive> primitive =
                    buildPrimitive(node.mesh, static_cast<int>(i), placement,
                                   nodeName(nodeIndex) + "/" + meshName(node.mesh) + "#" +
                                       std::to_string(i));
                if (!primitive) {
                    continue;
                }
                if (skin >= 0) {
                    checkSkinned(*primitive->mesh, static_cast<std::size_t>(skin), nodeIndex,
                                 primitiveContext(node.mesh, static_cast<int>(i)));
                    primitive->skin = skin;
                }
                if (const std::size_t targets = primitive->mesh->morphTargetCount(); targets > 0) {
                    m_primitivesOfNode[nodeIndex].push_back(result.primitives.size());
                    m_targetCountOfNode.try_emplace(nodeIndex, targets);
                }
                result.primitives.push_back(std::move(*primitive));
                nodeOfPrimitive.push_back(nodeIndex);
            }
        });
        if (result.primitives.empty()) {
            fail("no triangle primitive in the scene (nothing to draw)");
        }
        if (m_options.nodeAnimationsAsSkin && hasNodeChannels()) {
            readNodesAsSkin(order, nodeOfPrimitive, result.primitives);
        }
        for (const ImportedPrimitive& primitive : result.primitives) {
            // A skinned primitive's bind pose sits where its skin's placement puts it.
            const glm::mat4 placement = primitive.skin < 0
                                            ? glm::mat4(1.0f)
                                            : m_skins[static_cast<std::size_t>(primitive.skin)].placement;
            result.bounds.extend(placement == glm::mat4(1.0f)
                                     ? primitive.mesh->localBounds()
                                     : primitive.mesh->localBounds().transformed(placement));
        }
        readMorphAnimations([&](int node, MorphAnimation&& animation) {
            animation.primitives = m_primitivesOfNode[node];
            result.morphAnimations.push_back(std::move(animation));
        });
        // Node TRS channels other than the skins' joints: this flat list has no nodes to move.
        for (std::size_t a = 0; a < m_model.animations.size(); ++a) {
            std::size_t nodeChannels = 0;
            for (const tinygltf::AnimationChannel& channel : m_model.animations[a].channels) {
                nodeChannels += isTrsPath(channel.target_path) && channel.target_node >= 0 &&
                                        !m_jointNodes.contains(channel.target_node)
                                    ? 1
                                    : 0;
            }
            if (nodeChannels > 0 && !m_options.nodeAnimationsAsSkin) {
                warn(describeAnimation(a) + ": " + std::to_string(nodeChannels) +
                     " channel(s) animate node translation, rotation or scale, which importModel() "
                     "cannot play (it flattens the nodes); importScene() imports them as "
                     "ImportedScene::nodeAnimations, and ImportOptions::nodeAnimationsAsSkin "
                     "as a rigid skin");
            }
        }
        result.skins = std::move(m_skins);
        return result;
    }

    ImportedScene runScene() {
        prepare(true);
        ImportedScene result;
        result.path = m_path;
        std::string sceneName = "scene";
        if (const int scene = chosenScene(); scene >= 0 &&
            !m_model.scenes[static_cast<std::size_t>(scene)].name.empty()) {
            sceneName = m_model.scenes[static_cast<std::size_t>(scene)].name;
        }
        result.root = std::make_unique<SceneNode>(sceneName);
        SceneNode& root = *result.root;
        std::vector<SceneNode*> placeOf(m_model.nodes.size(), nullptr);
        std::vector<bool> inScene(m_model.nodes.size(), false);
        std::size_t drawn = 0;
        traverseScene([&](int index, int parent, const glm::dmat4& /*world*/) {
            // Parents are visited first, so placeOf[parent] is set (a node with children always
            // has a place).
            SceneNode& parentNode = parent < 0 ? root : *placeOf[static_cast<std::size_t>(parent)];
            inScene[static_cast<std::size_t>(index)] = true;
            placeOf[static_cast<std::size_t>(index)] = buildNode(index, parentNode, result, drawn);
            // 3.10: a camera rides on its node, looking down the node's -Z.
            if (const int camera = m_model.nodes[static_cast<std::size_t>(index)].camera; camera >= 0) {
                if (!validIndex(camera, m_model.cameras)) {
                    fail(describeNode(index) + ": camera " + std::to_string(camera) + " is out of range (" +
                         std::to_string(m_model.cameras.size()) + " cameras)");
                }
                ImportedCamera imported =
                    detail::importedCamera(m_model.cameras[static_cast<std::size_t>(camera)], camera, m_path);
                imported.gltfNode = index;
                imported.node = placeOf[static_cast<std::size_t>(index)];
                result.cameras.push_back(std::move(imported));
            }
        });
        if (drawn == 0) {
            fail("no triangle primitive in the scene (nothing to draw)");
        }
        placeSkinnedNodes(root, placeOf);
        readMorphAnimations([&](int node, MorphAnimation&& animation) {
            result.morphAnimations.push_back({std::move(animation), m_morphNodesOfNode[node]});
        });
        readNodeAnimations(placeOf, inScene, result);
        result.skins = std::move(m_skins);
        return result;
    }

    /** Each skinned mesh node goes under the node made for its skeleton's space, at identity
     *  (so its world matrix is ImportedSkin::placement); under @p root at identity when the
     *  root joints are scene roots; under @p root with placement as its transform when that
     *  node is not part of the scene. */
    void placeSkinnedNodes(SceneNode& root, const std::vector<SceneNode*>& placeOf) {
        for (SkinnedAside& aside : m_skinnedAside) {
            const int space = m_skinSpaceNodes[aside.skin];
            SceneNode* parent = space < 0 ? &root : placeOf[static_cast<std::size_t>(space)];
            if (parent == nullptr) {
                parent = &root;
                const detail::Trs trs = detail::decomposeAffine(glm::dmat4(m_skins[aside.skin].placement));
                if (trs.lossy) {
                    warn("skin '" + m_skins[aside.skin].name + "': the placement of its skeleton "
                         "has shear, which is dropped");
                }
                try {
                    aside.node->setPosition(trs.translation);
                    aside.node->setRotation(glm::quat(trs.rotation));
                    aside.node->setScale(glm::vec3(trs.scale));
                } catch (const InvalidArgument& e) {
                    fail("skin '" + m_skins[aside.skin].name + "': " + e.what());
                }
            }
            parent->add(std::move(aside.node));
        }
        m_skinnedAside.clear();
    }

    /** ImportedScene::nodeAnimations: per animation, its translation, rotation and scale
     *  channels on scene nodes that are not joints of an imported skin, as one clip over the
     *  nodes made for them. A channel on a node outside the scene is dropped with a warning
     *  (once per animation and node), as is one on a skinned mesh node (3.7.3.2). */
    void readNodeAnimations(const std::vector<SceneNode*>& placeOf, const std::vector<bool>& inScene,
                            ImportedScene& result) {
        for (std::size_t a = 0; a < m_model.animations.size(); ++a) {
            const auto& channels = m_model.animations[a].channels;
            std::vector<AnimationChannel> clipChannels;
            std::map<int, std::uint32_t> targetOf;
            std::set<int> warned;
            ImportedNodeAnimation animation;
            std::vector<std::string> names;
            for (std::size_t c = 0; c < channels.size(); ++c) {
                const int node = channels[c].target_node;
                if (node < 0 || !isTrsPath(channels[c].target_path) || m_jointNodes.contains(node)) {
                    continue;
                }
                SceneNode* target = placeOf[static_cast<std::size_t>(node)];
                if (target == nullptr) {
                    if (warned.insert(node).second) {
                        warn(describeAnimation(a) + ": channels on " + describeNode(node) +
                             (inScene[static_cast<std::size_t>(node)]
                                  ? ", a skinned mesh node whose transform glTF ignores (3.7.3.2)"
                                  : ", which is not in the imported scene") +
                             ", are dropped");
                    }
                    continue;
                }
                const auto [it, added] =
                    targetOf.try_emplace(node, static_cast<std::uint32_t>(animation.targets.size()));
                if (added) {
                    animation.targets.push_back(target);
                    names.push_back(target->name());
                }
                clipChannels.push_back(readTrsChannel(a, c, it->second));
            }
            if (!clipChannels.empty()) {
                animation.clip = makeClip(a, std::move(clipChannels), std::move(names));
                result.nodeAnimations.push_back(std::move(animation));
            }
        }
    }

private:
    /** mesh.extras.targetNames, the common (non-normative) place for morph target names. */
    static std::vector<std::string> targetNames(const tinygltf::Mesh& mesh) {
        std::vector<std::string> names;
        if (mesh.extras.IsObject() && mesh.extras.Has("targetNames")) {
            const tinygltf::Value& list = mesh.extras.Get("targetNames");
            for (std::size_t i = 0; list.IsArray() && i < list.ArrayLen(); ++i) {
                names.push_back(list.Get(static_cast<int>(i)).IsString() ? list.Get(static_cast<int>(i)).Get<std::string>() : "");
            }
        }
        return names;
    }

    [[noreturn]] void fail(const std::string& what) const {
        throw ImportError(m_path + ": " + what);
    }

    void warn(const std::string& what) const { log(LogLevel::Warning, m_path + ": " + what); }

    /** "node 3" or "node 3 ('arm')", for messages. */
    std::string describeNode(int index) const {
        const std::string& name = m_model.nodes[static_cast<std::size_t>(index)].name;
        return "node " + std::to_string(index) + (name.empty() ? "" : " ('" + name + "')");
    }
    /** The name a node gets in myriad: its own, or "node<index>". */
    std::string nodeName(int index) const {
        const std::string& name = m_model.nodes[static_cast<std::size_t>(index)].name;
        return name.empty() ? "node" + std::to_string(index) : name;
    }
    std::string meshName(int index) const {
        const std::string& name = m_model.meshes[static_cast<std::size_t>(index)].name;
        return name.empty() ? "mesh" + std::to_string(index) : name;
    }
    /** The mesh of a node that has one, its index checked. */
    const tinygltf::Mesh& meshOfNode(int nodeIndex) const {
        const tinygltf::Node& node = m_model.nodes[static_cast<std::size_t>(nodeIndex)];
        if (!validIndex(node.mesh, m_model.meshes)) {
            fail("node " + std::to_string(nodeIndex) + ": mesh " + std::to_string(node.mesh) +
                 " is out of range (" + std::to_string(m_model.meshes.size()) + " meshes)");
        }
        return m_model.meshes[static_cast<std::size_t>(node.mesh)];
    }

    /** Loading and the checks and warnings both entry points share. */
    void prepare(bool scene) {
        load();
        checkRequiredExtensions(scene);
        decodeCompressedViews();
        m_quantized = std::find(m_model.extensionsUsed.begin(), m_model.extensionsUsed.end(),
                                kQuantizationExtension) != m_model.extensionsUsed.end();
        warnUnsupported(scene);
        checkAnimationTargets();
        m_materials.resize(m_model.materials.size());
        m_images.resize(m_model.images.size());
    }

    /** What the file has that is not imported, said once per kind through myriad::log. */
    void warnUnsupported(bool scene) const {
        std::string unknown;
        for (const std::string& name : m_model.extensionsUsed) {
            // Lights are nodes: importScene() makes them, importModel() has no nodes to hold them.
            if (!understood(name) && name != kInstancingExtension && (!scene || name != kLightsExtension)) {
                unknown += (unknown.empty() ? "" : ", ") + name;
            }
        }
        if (!unknown.empty()) {
            warn("extensions used but not supported, ignored: " + unknown);
        }
    }

    void load() {
        std::error_code ec;
        if (!std::filesystem::exists(m_path, ec)) {
            fail("file not found");
        }
        if (!std::filesystem::is_regular_file(m_path, ec)) {
            fail("not a regular file");
        }
        const bool binary = hasGlbMagic(m_path) ||
                            std::filesystem::path(m_path).extension() == ".glb";
        tinygltf::TinyGLTF loader;
        loader.SetImageLoader(&keepEncodedImage, &m_model);
        std::string error;
        std::string warning;
        bool ok = false;
        if (std::optional<std::string> rewritten = rewrittenFile(binary)) {
            const std::string base = std::filesystem::path(m_path).parent_path().string();
            ok = binary ? loader.LoadBinaryFromMemory(
                              &m_model, &error, &warning,
                              reinterpret_cast<const unsigned char*>(rewritten->data()),
                              static_cast<unsigned int>(rewritten->size()), base)
                        : loader.LoadASCIIFromString(&m_model, &error, &warning, rewritten->data(),
                                                     static_cast<unsigned int>(rewritten->size()),
                                                     base);
        } else {
            ok = binary ? loader.LoadBinaryFromFile(&m_model, &error, &warning, m_path)
                        : loader.LoadASCIIFromFile(&m_model, &error, &warning, m_path);
        }
        warning = trimmed(std::move(warning));
        if (!ok) {
            error = trimmed(std::move(error));
            if (!warning.empty()) {
                error += (error.empty() ? "" : "; ") + warning;
            }
            fail(std::string(binary ? "cannot load the .glb" : "cannot load the .gltf") +
                 " (malformed JSON, structure or resource): " +
                 (error.empty() ? "tinygltf gave no reason" : error));
        }
        if (!warning.empty()) {
            m_loadWarnings = warning;
            warn(warning);
        }
    }

    /** EXT_meshopt_compression's placeholder buffers (no uri: "the extension's fallback") make
     *  tinygltf refuse a .gltf, or copy the BIN chunk in a .glb. When the file names the
     *  extension, the whole file (a .glb rebuilt around its new JSON chunk) with each placeholder
     *  given 4 bytes of its own (detail::withPlaceholderBuffers; m_placeholders says which), for
     *  tinygltf to load from memory; empty otherwise, and the file is loaded as it is.
     *  KHR_draco_mesh_compression: tinygltf 2.7 refuses an indices accessor without a
     *  bufferView, which the extension's accessors have; each such accessor of a compressed
     *  primitive is given the extension's bufferView to pass (detail::withDracoIndexViews;
     *  m_dracoIndexPlaceholders lists them, and viewAccessor() never reads that view for them). */
    std::optional<std::string> rewrittenFile(bool binary) {
#if MYRIAD_GLTF_MESHOPT || MYRIAD_GLTF_DRACO
        std::ifstream file(m_path, std::ios::binary);
        std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
        bool meshopt = false;
        bool draco = false;
#if MYRIAD_GLTF_MESHOPT
        meshopt = bytes.find("EXT_meshopt_compression") != std::string::npos ||
                  bytes.find("MESHOPT_compression") != std::string::npos;
#endif
#if MYRIAD_GLTF_DRACO
        draco = bytes.find(detail::kDracoExtension) != std::string::npos;
#endif
        if (!meshopt && !draco) {
            return std::nullopt;
        }
        std::string json = bytes;
        std::uint32_t jsonLength = 0;
        if (binary) {  // 4.4: 12-byte header, then the JSON chunk (length, type, data)
            if (bytes.size() < 20) {
                return std::nullopt;  // tinygltf says what is wrong
            }
            std::memcpy(&jsonLength, bytes.data() + 12, 4);
            if (jsonLength > bytes.size() - 20) {
                return std::nullopt;
            }
            json = bytes.substr(20, jsonLength);
        }
        std::optional<std::string> rewritten;
#if MYRIAD_GLTF_MESHOPT
        if (meshopt) {
            rewritten = detail::withPlaceholderBuffers(json, binary, m_placeholders);
        }
#endif
#if MYRIAD_GLTF_DRACO
        if (draco) {
            if (std::optional<std::string> withViews = detail::withDracoIndexViews(
                    rewritten ? *rewritten : json, m_dracoIndexPlaceholders)) {
                rewritten = std::move(withViews);
            }
        }
#endif
        if (!rewritten || !binary) {
            return rewritten;
        }
        while (rewritten->size() % 4 != 0) {
            rewritten->push_back(' ');  // 4.4.3.1: the JSON chunk is padded with spaces
        }
        const std::string rest = bytes.substr(20 + jsonLength);
        const auto newJsonLength = static_cast<std::uint32_t>(rewritten->size());
        const auto total = static_cast<std::uint32_t>(20 + rewritten->size() + rest.size());
        std::string glb = bytes.substr(0, 20);
        std::memcpy(glb.data() + 8, &total, 4);
        std::memcpy(glb.data() + 12, &newJsonLength, 4);
        return glb + *rewritten + rest;
#else
        (void)binary;
        return std::nullopt;
#endif
    }

    /** EXT_meshopt_compression (or MESHOPT_compression) in extensionsUsed: every compressed
     *  buffer view decoded once, before any accessor is read (bufferViewRange() serves them). */
    void decodeCompressedViews() {
#if MYRIAD_GLTF_MESHOPT
        const bool used = std::any_of(m_model.extensionsUsed.begin(), m_model.extensionsUsed.end(),
                                      [](const std::string& name) { return detail::isMeshoptExtension(name); });
        if (used) {
            m_decodedViews = detail::decodeMeshoptViews(m_model, m_placeholders, m_path);
        }
#endif
    }

    /** True for an extension this build reads, wherever it is listed. */
    static bool understood(const std::string& name) {
#if MYRIAD_GLTF_DRACO
        if (name == detail::kDracoExtension) {
            return true;
        }
#endif
#if MYRIAD_GLTF_MESHOPT
        if (detail::isMeshoptExtension(name)) {
            return true;
        }
#endif
        return name == kUnlitExtension || name == kQuantizationExtension ||
               name == kTextureTransformExtension || name == kEmissiveStrengthExtension;
    }

    /** 3.12 Specifying Extensions: a client MUST NOT load an asset that requires an extension
     *  it does not support. */
    void checkRequiredExtensions(bool scene) const {
        for (const std::string& name : m_model.extensionsRequired) {
            if (understood(name) || (scene && (name == kInstancingExtension || name == kLightsExtension))) {
                continue;
            }
            if (name == kInstancingExtension) {
                fail("requires the extension " + name +
                     ", which importModel() does not implement (importScene() does)");
            }
            fail("requires the extension " + name + ", which is not supported");
        }
    }

    /** The scene traverseScene() walks: the default one, else 0; -1 when there are none. */
    int chosenScene() const {
        if (m_model.scenes.empty()) {
            return -1;
        }
        const int scene = m_model.defaultScene < 0 ? 0 : m_model.defaultScene;
        if (!validIndex(scene, m_model.scenes)) {
            fail("default scene " + std::to_string(scene) + " is out of range (" +
                 std::to_string(m_model.scenes.size()) + " scenes)");
        }
        return scene;
    }

    /** Calls @p visit(node, parent, world) for every node of the scene to draw (parent -1 for
     *  a root), parents before children, in file order: the default scene, else scene 0, else
     *  every root node. Iterative, so a deep hierarchy cannot overflow the stack. */
    template <class Visit>
    void traverseScene(Visit&& visit) const {
        const std::size_t nodeCount = m_model.nodes.size();
        std::vector<int> roots;
        if (const int scene = chosenScene(); scene >= 0) {
            roots = m_model.scenes[static_cast<std::size_t>(scene)].nodes;
        } else {
            std::vector<bool> hasParent(nodeCount, false);
            for (const tinygltf::Node& node : m_model.nodes) {
                for (int child : node.children) {
                    if (validIndex(child, m_model.nodes)) {
                        hasParent[static_cast<std::size_t>(child)] = true;
                    }
                }
            }
            for (std::size_t i = 0; i < nodeCount; ++i) {
                if (!hasParent[i]) {
                    roots.push_back(static_cast<int>(i));
                }
            }
        }

        // 3.5.2: the hierarchy MUST be a set of disjoint strict trees. A node reached twice is
        // a cycle or a shared child; refusing it also bounds the walk to nodeCount steps.
        std::vector<bool> visited(nodeCount, false);
        struct Pending {
            int index;
            int parent;
            glm::dmat4 parentWorld;
        };
        std::vector<Pending> stack;
        for (auto it = roots.rbegin(); it != roots.rend(); ++it) {
            stack.push_back({*it, -1, glm::dmat4(1.0)});
        }
        while (!stack.empty()) {
            const auto [index, parent, parentWorld] = stack.back();
            stack.pop_back();
            if (!validIndex(index, m_model.nodes)) {
                fail("node index " + std::to_string(index) + " is out of range (" +
                     std::to_string(nodeCount) + " nodes)");
            }
            if (visited[static_cast<std::size_t>(index)]) {
                fail("node " + std::to_string(index) +
                     " is reached twice: the node hierarchy must be a set of disjoint trees");
            }
            visited[static_cast<std::size_t>(index)] = true;
            const tinygltf::Node& node = m_model.nodes[static_cast<std::size_t>(index)];
            std::string error;
            const std::optional<glm::dmat4> local = localTransform(node, error);
            if (!local) {
                fail("node " + std::to_string(index) + ": " + error);
            }
            // 3.5.3: global = parent's global * local.
            const glm::dmat4 world = parentWorld * *local;
            visit(index, parent, world);
            for (auto it = node.children.rbegin(); it != node.children.rend(); ++it) {
                stack.push_back({*it, index, world});
            }
        }
    }

    const tinygltf::Accessor& accessorAt(int index, std::string_view semantic,
                                         const std::string& where) const {
        if (!validIndex(index, m_model.accessors)) {
            fail(where + ": " + std::string(semantic) + " accessor " + std::to_string(index) +
                 " is out of range (" + std::to_string(m_model.accessors.size()) + " accessors)");
        }
        return m_model.accessors[static_cast<std::size_t>(index)];
    }

    /** Checks type and component type against @p rule (3.7.2.1), then bounds (viewAccessor). */
    ElementView readAccessor(int index, std::string_view semantic, const AccessorRule& rule,
                             std::uint64_t maxCount, std::string_view limitName,
                             bool tightlyPacked, const std::string& where) const {
        const tinygltf::Accessor& accessor = accessorAt(index, semantic, where);
        const bool typeOk = std::find(rule.types.begin(), rule.types.end(), accessor.type) !=
                            rule.types.end();
        const bool componentOk =
            std::find(rule.componentTypes.begin(), rule.componentTypes.end(),
                      accessor.componentType) != rule.componentTypes.end();
        const bool normalizedOk = !rule.integersNormalized || accessor.componentType == kFloat ||
                                  accessor.normalized;
        if (!typeOk || !componentOk || !normalizedOk) {
            fail(where + ": accessor " + std::to_string(index) + " (" + std::string(semantic) +
                 ") has component type " + (accessor.normalized ? "normalized " : "") +
                 componentTypeName(accessor.componentType) + " and type " +
                 typeName(accessor.type) + "; " + std::string(semantic) + " must be " +
                 std::string(rule.description) + " (glTF 2.0 3.7.2.1)" +
                 (m_quantized || accessor.componentType == kFloat ||
                          componentSize(accessor.componentType) > 2
                      ? ""
                      : "; KHR_mesh_quantization allows more integer types, but the file does "
                        "not list it in extensionsUsed"));
        }
        return viewAccessor(index, accessor, semantic, maxCount, limitName, tightlyPacked, where);
    }

    /** Where the elements of a type-checked accessor are, after checking that they lie inside
     *  their buffer view and the view inside its buffer (3.6.2.4 Data Alignment: "Each accessor
     *  MUST fit its bufferView"). @p tightlyPacked: the stride is the element size whatever the
     *  view says, as for indices (3.6.2.1 Overview). */
    ElementView viewAccessor(int index, const tinygltf::Accessor& accessor,
                             std::string_view semantic, std::uint64_t maxCount,
                             std::string_view limitName, bool tightlyPacked,
                             const std::string& where) const {
        const std::string what = where + ": accessor " + std::to_string(index) + " (" +
                                 std::string(semantic) + ")";
        ElementView view;
        view.count = accessor.count;
        view.componentType = accessor.componentType;
        view.components = accessor.type == kMat4 ? 16 : componentCount(accessor.type);
        view.normalized = accessor.normalized;
        const std::uint64_t elementSize =
            componentSize(accessor.componentType) * static_cast<std::uint64_t>(view.components);
        if (view.count == 0) {
            fail(what + " has count 0");
        }
        if (view.count > maxCount) {
            fail(what + " has " + std::to_string(view.count) + " elements, above the limit of " +
                 std::to_string(maxCount) + " (ImportOptions::" + std::string(limitName) + ")");
        }
        view.stride = elementSize;

        // KHR_draco_mesh_compression: the accessor's bufferView and byteOffset are ignored; its
        // elements come from the primitive's decoded Draco mesh (decodeDracoPrimitive() sized
        // them to count x elementSize, tightly packed).
        if (const auto draco = m_dracoAccessors.find(index); draco != m_dracoAccessors.end()) {
            if (draco->second.size() != view.count * elementSize) {
                fail(what + ": the decoded Draco data has " + std::to_string(draco->second.size()) +
                     " bytes, the accessor needs " + std::to_string(view.count * elementSize));
            }
            view.owned = draco->second;
            return view;
        }

        if (accessor.bufferView >= 0 && !m_dracoIndexPlaceholders.contains(index)) {
            const BufferRange range = bufferViewRange(accessor.bufferView, what);
            const tinygltf::BufferView& bufferView =
                m_model.bufferViews[static_cast<std::size_t>(accessor.bufferView)];
            if (!tightlyPacked && bufferView.byteStride != 0) {
                if (bufferView.byteStride < elementSize) {
                    fail(what + ": buffer view " + std::to_string(accessor.bufferView) +
                         " has byteStride " + std::to_string(bufferView.byteStride) +
                         ", smaller than the element size " + std::to_string(elementSize));
                }
                view.stride = bufferView.byteStride;
            }
            // byteOffset + (count - 1) * stride + elementSize <= byteLength, overflow-checked.
            std::optional<std::uint64_t> needed = checkedMul(view.count - 1, view.stride);
            if (needed) needed = checkedAdd(*needed, elementSize);
            if (needed) needed = checkedAdd(*needed, accessor.byteOffset);
            if (!needed || *needed > range.size) {
                fail(what + " runs past its buffer view (needs " +
                     (needed ? std::to_string(*needed) : std::string("more than 2^64")) +
                     " bytes, view has " + std::to_string(range.size) + ")");
            }
            view.external = range.data + accessor.byteOffset;
        } else if (accessor.byteOffset != 0 && !m_dracoIndexPlaceholders.contains(index)) {
            fail(what + " has a byteOffset but no buffer view");
        }

        if (accessor.sparse.isSparse) {
            applySparse(accessor, view, elementSize, what);
        }
        return view;
    }

    struct BufferRange {
        const std::uint8_t* data;
        std::uint64_t size;
    };

    /** The bytes of buffer view @p index, checked to lie inside its buffer (3.6.1.1). */
    BufferRange bufferViewRange(int index, const std::string& what) const {
        if (!validIndex(index, m_model.bufferViews)) {
            fail(what + ": buffer view " + std::to_string(index) + " is out of range (" +
                 std::to_string(m_model.bufferViews.size()) + " buffer views)");
        }
        const tinygltf::BufferView& view = m_model.bufferViews[static_cast<std::size_t>(index)];
        if (static_cast<std::size_t>(index) < m_decodedViews.size() &&
            m_decodedViews[static_cast<std::size_t>(index)]) {
            const std::vector<std::uint8_t>& decoded = *m_decodedViews[static_cast<std::size_t>(index)];
            return {decoded.data(), decoded.size()};  // byteLength bytes: decodeMeshoptViews()
        }
        if (!validIndex(view.buffer, m_model.buffers)) {
            fail(what + ": buffer view " + std::to_string(index) + ": buffer " +
                 std::to_string(view.buffer) + " is out of range (" +
                 std::to_string(m_model.buffers.size()) + " buffers)");
        }
        const std::vector<unsigned char>& buffer =
            m_model.buffers[static_cast<std::size_t>(view.buffer)].data;
        const std::optional<std::uint64_t> end = checkedAdd(view.byteOffset, view.byteLength);
        if (!end || *end > buffer.size()) {
            fail(what + ": buffer view " + std::to_string(index) + " (" +
                 std::to_string(view.byteLength) + " bytes at offset " +
                 std::to_string(view.byteOffset) + ") runs past its buffer " +
                 std::to_string(view.buffer) + " (" + std::to_string(buffer.size()) + " bytes)");
        }
        return {buffer.data() + view.byteOffset, view.byteLength};
    }

    /** 3.6.2.3 Sparse Accessors: copies the base elements (or zeros) into view.owned, tightly
     *  packed, then writes the sparse values at their indices. Both sparse arrays are tightly
     *  packed and checked like any accessor. */
    void applySparse(const tinygltf::Accessor& accessor, ElementView& view,
                     std::uint64_t elementSize, const std::string& what) const {
        const auto& sparse = accessor.sparse;
        if (sparse.count <= 0 || static_cast<std::uint64_t>(sparse.count) > view.count) {
            fail(what + ": sparse count " + std::to_string(sparse.count) +
                 " is not between 1 and the accessor count " + std::to_string(view.count));
        }
        const std::uint64_t sparseCount = static_cast<std::uint64_t>(sparse.count);
        const std::uint64_t indexSize = componentSize(sparse.indices.componentType);
        if (std::find(kIndexTypes.begin(), kIndexTypes.end(), sparse.indices.componentType) ==
            kIndexTypes.end()) {
            fail(what + ": sparse indices have component type " +
                 componentTypeName(sparse.indices.componentType) +
                 "; they must be unsigned byte, unsigned short or unsigned int");
        }
        auto sparseBlock = [&](int bufferView, int byteOffset, std::uint64_t size,
                               const char* part) {
            const BufferRange range = bufferViewRange(bufferView, what + ": sparse " + part);
            const std::optional<std::uint64_t> end =
                byteOffset < 0 ? std::nullopt
                               : checkedAdd(static_cast<std::uint64_t>(byteOffset), size);
            if (!end || *end > range.size) {
                fail(what + ": sparse " + part + " run past their buffer view (need " +
                     std::to_string(size) + " bytes at offset " + std::to_string(byteOffset) +
                     ", view has " + std::to_string(range.size) + ")");
            }
            return range.data + byteOffset;
        };
        // sparseCount <= view.count <= a limit, and sizes are at most 64 bytes: no overflow.
        const std::uint8_t* indices = sparseBlock(sparse.indices.bufferView,
                                                  sparse.indices.byteOffset,
                                                  sparseCount * indexSize, "indices");
        const std::uint8_t* values = sparseBlock(sparse.values.bufferView, sparse.values.byteOffset,
                                                 sparseCount * elementSize, "values");

        std::vector<std::uint8_t> dense(view.count * elementSize, 0);
        if (const std::uint8_t* base = view.data(); base != nullptr) {
            for (std::uint64_t i = 0; i < view.count; ++i) {
                std::memcpy(dense.data() + i * elementSize, base + i * view.stride, elementSize);
            }
        }
        for (std::uint64_t i = 0; i < sparseCount; ++i) {
            const std::uint32_t target = readIndex(indices + i * indexSize,
                                                   sparse.indices.componentType);
            if (target >= view.count) {
                fail(what + ": sparse index " + std::to_string(i) + " is " +
                     std::to_string(target) + ", past the accessor count " +
                     std::to_string(view.count));
            }
            std::memcpy(dense.data() + std::uint64_t{target} * elementSize,
                        values + i * elementSize, elementSize);
        }
        view.owned = std::move(dense);
        view.external = nullptr;
        view.stride = elementSize;
    }

    /** Reads an optional attribute, checking that it has as many elements as POSITION (3.7.2.1:
     *  all attribute accessors of a primitive MUST have the same count). @p storage gets how
     *  the accessor stores it (Float32 when absent). */
    template <glm::length_t N>
    std::vector<glm::vec<N, float>> optionalAttribute(const tinygltf::Primitive& primitive,
                                                      const char* semantic,
                                                      const AccessorRule& rule,
                                                      std::uint64_t vertexCount,
                                                      glm::vec<N, float> fill,
                                                      const std::string& where,
                                                      VertexStorage& storage) const {
        storage = VertexStorage::Float32;
        const auto it = primitive.attributes.find(semantic);
        if (it == primitive.attributes.end()) {
            return {};
        }
        const ElementView view = readAccessor(it->second, semantic, rule, m_options.maxVertices,
                                              "maxVertices", false, where);
        storage = storageOf(view);
        if (view.count != vertexCount) {
            fail(where + ": accessor " + std::to_string(it->second) + " (" + semantic + ") has " +
                 std::to_string(view.count) + " elements, POSITION has " +
                 std::to_string(vertexCount) + "; every attribute must have the same count");
        }
        return readVectors<N>(view, fill);
    }

    /** Morph targets of a primitive (glTF 2.0 section 3.7.2.2): POSITION deltas (required
     *  here) and NORMAL deltas (optional), each as many as POSITION; the mesh's default weights. */
    void readMorphTargets(const tinygltf::Mesh& mesh, const tinygltf::Primitive& primitive,
                          std::uint64_t vertexCount, MeshData& data, const std::string& where) const {
        if (primitive.targets.empty()) {
            return;
        }
        if (primitive.targets.size() > kMaxMorphTargets) {
            fail(where + ": " + std::to_string(primitive.targets.size()) +
                 " morph targets, more than kMaxMorphTargets (" + std::to_string(kMaxMorphTargets) + ")");
        }
        for (std::size_t t = 0; t < primitive.targets.size(); ++t) {
            const auto& attributes = primitive.targets[t];
            const std::string which = where + " morph target " + std::to_string(t);
            MorphTarget target;
            if (t < m_targetNames.size()) {
                target.name = m_targetNames[t];
            }
            // Deltas of one semantic, as many as the primitive's vertices; empty if absent.
            auto deltas = [&](const char* semantic, const AccessorRule& rule) -> std::vector<glm::vec3> {
                const auto found = attributes.find(semantic);
                if (found == attributes.end()) {
                    return {};
                }
                const ElementView view = readAccessor(found->second, semantic, rule, m_options.maxVertices,
                                                      "maxVertices", false, which);
                if (view.count != vertexCount) {
                    fail(which + ": " + semantic + " has " + std::to_string(view.count) +
                         " elements, the primitive has " + std::to_string(vertexCount) + " vertices");
                }
                return readVectors<3>(view, glm::vec3(0.0f));
            };
            target.positionDeltas =
                deltas("POSITION", m_quantized ? kQuantizedPositionDeltaRule : kPositionRule);
            if (target.positionDeltas.empty()) {
                target.positionDeltas.assign(vertexCount, glm::vec3(0.0f));  // a normals-only target
            }
            target.normalDeltas =
                deltas("NORMAL", m_quantized ? kQuantizedNormalRule : kNormalRule);
            data.morphTargets.push_back(std::move(target));
        }
        for (std::size_t t = 0; t < mesh.weights.size() && t < data.morphTargets.size(); ++t) {
            data.morphWeights.push_back(static_cast<float>(mesh.weights[t]));
        }
    }

    /** Animation channels with path "weights" on nodes whose mesh was imported with morph
     *  targets (m_targetCountOfNode): their samplers' input (times) and output (weights)
     *  accessors, validated like any other; each is handed to @p sink(node, animation). */
    template <class Sink>
    void readMorphAnimations(Sink&& sink) const {
        for (std::size_t a = 0; a < m_model.animations.size(); ++a) {
            const tinygltf::Animation& animation = m_model.animations[a];
            for (const tinygltf::AnimationChannel& channel : animation.channels) {
                if (channel.target_path != "weights") {
                    continue;
                }
                const std::string where = "animation " + std::to_string(a) + " channel";
                const auto placed = m_targetCountOfNode.find(channel.target_node);
                if (placed == m_targetCountOfNode.end()) {
                    continue;  // drives a node that draws nothing here
                }
                if (!validIndex(channel.sampler, animation.samplers)) {
                    fail(where + ": sampler " + std::to_string(channel.sampler) + " is out of range");
                }
                const tinygltf::AnimationSampler& sampler =
                    animation.samplers[static_cast<std::size_t>(channel.sampler)];
                MorphAnimation out;
                out.name = animation.name.empty() ? "animation" + std::to_string(a) : animation.name;
                out.targetCount = placed->second;
                out.interpolation = samplerInterpolation(sampler, where);
                out.times = keyframeTimes(sampler, where);
                const ElementView output = readAccessor(sampler.output, "output", kWeightsOutputRule,
                                                        m_options.maxIndices, "maxIndices", false, where);
                for (const glm::vec1& v : readVectors<1>(output, glm::vec1(0.0f))) {
                    out.values.push_back(v.x);
                }
                const std::size_t perKey =
                    out.targetCount * (out.interpolation == Interpolation::CubicSpline ? 3 : 1);
                if (out.times.empty() || out.values.size() != out.times.size() * perKey) {
                    fail(where + ": " + std::to_string(out.values.size()) + " weights for " +
                         std::to_string(out.times.size()) + " keyframes of " +
                         std::to_string(out.targetCount) + " targets");
                }
                sink(channel.target_node, std::move(out));
            }
        }
    }

    std::string primitiveContext(int meshIndex, int primitiveIndex) const {
        const tinygltf::Mesh& mesh = m_model.meshes[static_cast<std::size_t>(meshIndex)];
        const std::string meshName =
            mesh.name.empty() ? std::to_string(meshIndex) : "'" + mesh.name + "'";
        return "mesh " + meshName + " primitive " + std::to_string(primitiveIndex);
    }

    /** Primitive @p primitiveIndex of mesh @p meshIndex with @p world applied to its data, or
     *  nothing (with a warning) when it is not a triangle list. m_targetNames must be the
     *  mesh's. */
    std::optional<ImportedPrimitive> buildPrimitive(int meshIndex, int primitiveIndex,
                                                    const glm::dmat4& world, std::string name) {
        const tinygltf::Mesh& mesh = m_model.meshes[static_cast<std::size_t>(meshIndex)];
        const tinygltf::Primitive& primitive =
            mesh.primitives[static_cast<std::size_t>(primitiveIndex)];
        const std::string where = primitiveContext(meshIndex, primitiveIndex);
        if (primitive.mode != kModeTriangles) {
            warn(where + ": mode " + std::to_string(primitive.mode) + " (" +
                 modeName(primitive.mode) + ") is not a triangle list; skipped");
            return std::nullopt;
        }

        const auto position = primitive.attributes.find("POSITION");
        if (position == primitive.attributes.end()) {
            fail(where + ": has no POSITION attribute (required here)");
        }
        decodeDraco(primitive, where);
        const ElementView positionView =
            readAccessor(position->second, "POSITION",
                         m_quantized ? kQuantizedPositionRule : kPositionRule,
                         m_options.maxVertices, "maxVertices", false, where);
        const std::uint64_t vertexCount = positionView.count;

        // Each attribute keeps the accessor's storage for the GPU copy (MeshData::encoding)
        // unless the import changes its values: a node transform baked into positions, a
        // texture transform into uvs. Normals stay normalized whatever the transform.
        MeshData data;
        data.positions = readVectors<3>(positionView, glm::vec3(0.0f));
        data.encoding.position = world == glm::dmat4(1.0) ? storageOf(positionView) : VertexStorage::Float32;
        data.normals = optionalAttribute<3>(primitive, "NORMAL",
                                            m_quantized ? kQuantizedNormalRule : kNormalRule,
                                            vertexCount, glm::vec3(0.0f), where, data.encoding.normal);
        data.uv0 = optionalAttribute<2>(primitive, "TEXCOORD_0",
                                        m_quantized ? kQuantizedTexcoordRule : kTexcoordRule,
                                        vertexCount, glm::vec2(0.0f), where, data.encoding.uv0);
        // KHR_texture_transform stays on the material (Material::baseColorTransform and each
        // TextureSlot's), so the coordinates keep their storage (a quantized file's integers).
        VertexStorage uv1Storage = VertexStorage::Float32;  // uv1 is always stored as float
        data.uv1 = optionalAttribute<2>(primitive, "TEXCOORD_1",
                                        m_quantized ? kQuantizedTexcoordRule : kTexcoordRule,
                                        vertexCount, glm::vec2(0.0f), where, uv1Storage);
        VertexStorage tangentStorage = VertexStorage::Float32;  // tangents are always stored as float
        data.tangents = optionalAttribute<4>(primitive, "TANGENT",
                                             m_quantized ? kQuantizedTangentRule : kTangentRule,
                                             vertexCount, glm::vec4(1.0f, 0.0f, 0.0f, 1.0f), where, tangentStorage);
        for (glm::vec4& t : data.tangents) {
            t.w = t.w < 0.0f ? -1.0f : 1.0f;  // glTF: exactly +1 or -1; a quantized value rounds
        }
        data.colors = optionalAttribute<4>(primitive, "COLOR_0", kColorRule, vertexCount,
                                           glm::vec4(1.0f), where, data.encoding.color);
        readSkinAttributes(primitive, vertexCount, data, where);
        readMorphTargets(mesh, primitive, vertexCount, data, where);

        bool smallIndices = true;  // source indices fit 16 bits (u8, u16, or generated)
        std::vector<std::uint32_t> indices;
        if (primitive.indices >= 0) {
            const ElementView view = readAccessor(primitive.indices, "indices", kIndexRule,
                                                  m_options.maxIndices, "maxIndices", true, where);
            smallIndices = view.componentType != kUnsignedInt;
            indices.resize(view.count);
            for (std::uint64_t i = 0; i < view.count; ++i) {
                const std::uint32_t value =
                    view.data() == nullptr ? 0 : readIndex(view.data() + i * view.stride,
                                                           view.componentType);
                if (value >= vertexCount) {
                    fail(where + ": index " + std::to_string(i) + " is " + std::to_string(value) +
                         ", past the vertex count " + std::to_string(vertexCount));
                }
                indices[i] = value;
            }
        } else {
            indices.resize(vertexCount);
            for (std::uint64_t i = 0; i < vertexCount; ++i) {
                indices[i] = static_cast<std::uint32_t>(i);
            }
        }
        if (indices.size() % 3 != 0) {
            fail(where + ": " + std::to_string(indices.size()) +
                 (primitive.indices >= 0 ? " indices" : " vertices") +
                 " is not a multiple of 3 (triangle list)");
        }

        const bool flatNormals = data.normals.empty();
        if (flatNormals && primitive.indices >= 0) {
            deindex(data, indices);
        }
        transform(data, indices, world);
        if (flatNormals) {
            data.normals = faceNormals(data.positions, indices);
        }

        if (data.positions.size() <= 65536 && smallIndices) {
            data.indices16.assign(indices.begin(), indices.end());
        } else {
            data.indices32 = std::move(indices);
        }

        m_dracoAccessors.clear();

        // A normal map needs tangents (glTF 2.0 section 3.7.2.1: "When tangents are not
        // specified, client implementations SHOULD calculate tangents using default MikkTSpace
        // algorithms"): generated from uv0 when the file has none.
        if (primitive.material >= 0 && data.tangents.empty() && !data.uv0.empty() &&
            convertedMaterial(primitive.material, where).normalTexture) {
            try {
                generateTangents(data);
            } catch (const InvalidArgument& e) {
                fail(where + ": generating tangents: " + e.what());
            }
        }

        ImportedPrimitive out;
        out.name = std::move(name);
        try {
            out.mesh = MeshGeometry::create(std::move(data), out.name);
        } catch (const InvalidArgument& e) {
            fail(where + ": " + e.what());
        } catch (const OutOfRange& e) {
            fail(where + ": " + e.what());
        }
        out.material =
            primitive.material >= 0 ? convertedMaterial(primitive.material, where) : Material{};
        return out;
    }

    /** KHR_draco_mesh_compression on @p primitive: its Draco mesh decoded into
     *  m_dracoAccessors, which viewAccessor() serves until buildPrimitive() clears it. The
     *  extension's bufferView is checked like any (bufferViewRange()); the rest is checked by
     *  detail::decodeDracoPrimitive(). Nothing without the extension, or in a build without
     *  Draco (a file that requires it was refused by checkRequiredExtensions(); one that only
     *  uses it is read from its uncompressed accessors, 3.12). */
    void decodeDraco(const tinygltf::Primitive& primitive, const std::string& where) {
        m_dracoAccessors.clear();
#if MYRIAD_GLTF_DRACO
        const auto found = primitive.extensions.find(std::string(detail::kDracoExtension));
        if (found == primitive.extensions.end()) {
            return;
        }
        const std::string what = where + " (" + std::string(detail::kDracoExtension) + ")";
        const tinygltf::Value& extension = found->second;
        if (!extension.IsObject() || !extension.Has("bufferView") ||
            !extension.Get("bufferView").IsInt()) {
            fail(what + ": has no bufferView (an integer index)");
        }
        const BufferRange range = bufferViewRange(extension.Get("bufferView").Get<int>(), what);
        m_dracoAccessors = detail::decodeDracoPrimitive(
            std::span<const std::uint8_t>(range.data, range.size), extension, primitive,
            m_model.accessors, m_options.maxVertices, m_options.maxIndices, m_path + ": " + what);
#else
        (void)primitive;
        (void)where;
#endif
    }

    // ---- skins and animations (3.7.3, 3.11) ------------------------------------------------

    static bool isTrsPath(const std::string& path) {
        return path == "translation" || path == "rotation" || path == "scale";
    }

    /** "animation 2 ('Walk')", for messages. */
    std::string describeAnimation(std::size_t index) const {
        const std::string& name = m_model.animations[index].name;
        return "animation " + std::to_string(index) + (name.empty() ? "" : " ('" + name + "')");
    }
    /** The name a clip gets: the animation's, or "animation<index>". */
    std::string animationName(std::size_t index) const {
        const std::string& name = m_model.animations[index].name;
        return name.empty() ? "animation" + std::to_string(index) : name;
    }

    /** Every channel's target node is absent (-1: ignored, 3.11) or a node of the file. */
    void checkAnimationTargets() const {
        for (std::size_t a = 0; a < m_model.animations.size(); ++a) {
            const auto& channels = m_model.animations[a].channels;
            for (std::size_t c = 0; c < channels.size(); ++c) {
                const int node = channels[c].target_node;
                if (node < -1 || node >= static_cast<int>(m_model.nodes.size())) {
                    fail(describeAnimation(a) + " channel " + std::to_string(c) + ": target node " +
                         std::to_string(node) + " is out of range (" +
                         std::to_string(m_model.nodes.size()) + " nodes)");
                }
            }
        }
    }

    /** Parent node of every node (-1 for none), from the children lists; made once. A node
     *  listed as the child of two nodes is an ImportError (3.5.2: disjoint strict trees). */
    const std::vector<int>& nodeParents() {
        if (m_nodeParents.size() != m_model.nodes.size()) {
            m_nodeParents.assign(m_model.nodes.size(), -1);
            for (std::size_t p = 0; p < m_model.nodes.size(); ++p) {
                for (const int child : m_model.nodes[p].children) {
                    if (!validIndex(child, m_model.nodes)) {
                        continue;  // traverseScene() refuses it where it matters
                    }
                    int& parent = m_nodeParents[static_cast<std::size_t>(child)];
                    if (parent != -1 && parent != static_cast<int>(p)) {
                        fail(describeNode(child) + " is the child of nodes " + std::to_string(parent) +
                             " and " + std::to_string(p) + ": the node hierarchy must be a set of "
                             "disjoint trees");
                    }
                    parent = static_cast<int>(p);
                }
            }
        }
        return m_nodeParents;
    }

    /** @p index and its ancestors, nearest first; a cycle is an ImportError. */
    std::vector<int> ancestry(int index) {
        const std::vector<int>& parents = nodeParents();
        std::vector<int> chain;
        for (int n = index; n != -1; n = parents[static_cast<std::size_t>(n)]) {
            if (chain.size() > parents.size()) {
                fail(describeNode(index) + ": its ancestors form a cycle");
            }
            chain.push_back(n);
        }
        return chain;
    }

    /** Node @p index's local matrix (3.5.3), checked. */
    glm::dmat4 localMatrix(int index) const {
        std::string error;
        const std::optional<glm::dmat4> local =
            localTransform(m_model.nodes[static_cast<std::size_t>(index)], error);
        if (!local) {
            fail("node " + std::to_string(index) + ": " + error);
        }
        return *local;
    }

    /** The world matrix of node @p index (identity for -1): its ancestors' locals, root first. */
    glm::dmat4 worldMatrix(int index) {
        glm::dmat4 world(1.0);
        if (index < 0) {
            return world;
        }
        for (const int n : ancestry(index)) {  // nearest first: world = parent * ... * local
            world = localMatrix(n) * world;
        }
        return world;
    }

    /** Node @p index's local transform as TRS: TRS as stored, or its matrix split into TRS
     *  (3.5.3: a matrix MUST be decomposable; shear is dropped with a warning, once a node). */
    detail::Trs nodeTrs(int index) {
        const tinygltf::Node& node = m_model.nodes[static_cast<std::size_t>(index)];
        detail::Trs trs;
        if (!node.matrix.empty()) {
            if (node.matrix.size() != 16) {
                fail(describeNode(index) + ": matrix has " + std::to_string(node.matrix.size()) +
                     " values, expected 16");
            }
            const glm::dmat4 matrix = glm::make_mat4(node.matrix.data());
            for (int c = 0; c < 4; ++c) {
                if (!allFinite(matrix[c])) {
                    fail(describeNode(index) + ": matrix has NaN or infinite values");
                }
            }
            trs = detail::decomposeAffine(matrix);
            if (trs.lossy && m_shearWarned.insert(index).second) {
                warn(describeNode(index) + ": matrix is not translation * rotation * scale "
                     "(shear or a projective row); the shear is dropped");
            }
            return trs;
        }
        std::string error;
        if (!localTransform(node, error)) {  // checks the sizes and the rotation
            fail(describeNode(index) + ": " + error);
        }
        if (!node.translation.empty()) {
            trs.translation = glm::dvec3(node.translation[0], node.translation[1], node.translation[2]);
        }
        if (!node.rotation.empty()) {
            trs.rotation = glm::dquat(node.rotation[3], node.rotation[0], node.rotation[1],
                                      node.rotation[2]);
        }
        if (!node.scale.empty()) {
            trs.scale = glm::dvec3(node.scale[0], node.scale[1], node.scale[2]);
        }
        return trs;
    }

    static JointTransform jointTransform(const detail::Trs& trs) {
        JointTransform out;
        out.translation = glm::vec3(trs.translation);
        out.rotation = glm::quat(glm::normalize(trs.rotation));
        out.scale = glm::vec3(trs.scale);
        return out;
    }

    /** Index into m_skins of the skin of node @p nodeIndex (which has one), read on first use. */
    std::size_t skinSlot(int nodeIndex) {
        const int skin = m_model.nodes[static_cast<std::size_t>(nodeIndex)].skin;
        if (!validIndex(skin, m_model.skins)) {
            fail(describeNode(nodeIndex) + ": skin " + std::to_string(skin) + " is out of range (" +
                 std::to_string(m_model.skins.size()) + " skins)");
        }
        if (const auto it = m_skinSlots.find(skin); it != m_skinSlots.end()) {
            return it->second;
        }
        readSkin(skin);
        return m_skinSlots.emplace(skin, m_skins.size() - 1).first->second;
    }

    /** Skin @p index as an ImportedSkin (see its comment), appended to m_skins with the glTF
     *  node of its skeleton space in m_skinSpaceNodes, its joints added to m_jointNodes. */
    void readSkin(int index) {
        const tinygltf::Skin& source = m_model.skins[static_cast<std::size_t>(index)];
        const std::string what = "skin " + std::to_string(index) +
                                 (source.name.empty() ? "" : " ('" + source.name + "')");
        if (source.joints.empty()) {
            fail(what + " has no joints");
        }
        if (source.joints.size() > kMaxJoints) {
            fail(what + " has " + std::to_string(source.joints.size()) +
                 " joints, more than kMaxJoints (" + std::to_string(kMaxJoints) + ")");
        }
        std::map<int, std::int32_t> jointOfNode;
        for (std::size_t j = 0; j < source.joints.size(); ++j) {
            const int node = source.joints[j];
            if (!validIndex(node, m_model.nodes)) {
                fail(what + ": joint " + std::to_string(j) + " is node " + std::to_string(node) +
                     ", out of range (" + std::to_string(m_model.nodes.size()) + " nodes)");
            }
            if (!jointOfNode.emplace(node, static_cast<std::int32_t>(j)).second) {
                fail(what + ": " + describeNode(node) + " is listed twice in joints");
            }
        }
        // Parents: the nearest ancestor that is a joint too. Root joints remember their chain.
        std::vector<Joint> joints(source.joints.size());
        std::vector<std::vector<int>> rootChains;  // per root joint: its ancestors, nearest first
        std::vector<std::size_t> roots;
        for (std::size_t j = 0; j < joints.size(); ++j) {
            const int node = source.joints[j];
            joints[j].name = nodeName(node);
            std::vector<int> chain = ancestry(node);
            chain.erase(chain.begin());  // the node itself
            const auto parent = std::find_if(chain.begin(), chain.end(),
                                             [&](int n) { return jointOfNode.contains(n); });
            if (parent != chain.end()) {
                joints[j].parent = jointOfNode.at(*parent);
                joints[j].rest = jointTransform(nodeTrs(node));
            } else {
                roots.push_back(j);
                rootChains.push_back(std::move(chain));
            }
        }
        // The skeleton's space: the deepest node that is an ancestor of every root joint (-1:
        // the scene's). Usually the root joints' one parent.
        int space = -1;
        if (!rootChains.front().empty()) {
            for (const int candidate : rootChains.front()) {  // nearest first: the deepest wins
                const bool common = std::all_of(rootChains.begin(), rootChains.end(), [&](const auto& chain) {
                    return std::find(chain.begin(), chain.end(), candidate) != chain.end();
                });
                if (common) {
                    space = candidate;
                    break;
                }
            }
        }
        for (std::size_t r = 0; r < roots.size(); ++r) {
            const int node = source.joints[roots[r]];
            const std::vector<int>& chain = rootChains[r];
            if (chain.empty() || chain.front() == space) {
                joints[roots[r]].rest = jointTransform(nodeTrs(node));
                continue;
            }
            // Bake the nodes between the space and the joint into the joint's rest.
            glm::dmat4 between(1.0);
            for (const int n : chain) {
                if (n == space) {
                    break;
                }
                between = localMatrix(n) * between;
            }
            const detail::Trs trs = detail::decomposeAffine(between * localMatrix(node));
            if (trs.lossy) {
                warn(what + ": the nodes above root joint " + describeNode(node) +
                     " shear it; the shear is dropped from its rest transform");
            }
            joints[roots[r]].rest = jointTransform(trs);
        }
        // 3.7.3.1: one float MAT4 per joint; identity for all when absent.
        if (source.inverseBindMatrices >= 0) {
            const ElementView view =
                readAccessor(source.inverseBindMatrices, "inverseBindMatrices", kInverseBindRule,
                             m_options.maxIndices, "maxIndices", false, what);
            if (view.count != joints.size()) {
                fail(what + ": inverseBindMatrices (accessor " +
                     std::to_string(source.inverseBindMatrices) + ") has " +
                     std::to_string(view.count) + " matrices for " + std::to_string(joints.size()) +
                     " joints; it must have one per joint");
            }
            const std::vector<glm::mat4> matrices = readMatrices(view);
            for (std::size_t j = 0; j < joints.size(); ++j) {
                joints[j].inverseBind = matrices[j];
            }
        }
        ImportedSkin skin;
        skin.name = source.name.empty() ? "skin" + std::to_string(index) : source.name;
        try {
            skin.skeleton = Skeleton::create(std::move(joints), skin.name);
        } catch (const InvalidArgument& e) {
            fail(what + ": " + e.what());
        }
        skin.placement = glm::mat4(worldMatrix(space));
        // One clip per animation that moves these joints.
        std::vector<std::string> names;
        for (const Joint& joint : skin.skeleton->joints()) {
            names.push_back(joint.name);
        }
        for (std::size_t a = 0; a < m_model.animations.size(); ++a) {
            const auto& channels = m_model.animations[a].channels;
            std::vector<AnimationChannel> clipChannels;
            for (std::size_t c = 0; c < channels.size(); ++c) {
                const auto joint = jointOfNode.find(channels[c].target_node);
                if (joint != jointOfNode.end() && isTrsPath(channels[c].target_path)) {
                    clipChannels.push_back(
                        readTrsChannel(a, c, static_cast<std::uint32_t>(joint->second)));
                }
            }
            if (!clipChannels.empty()) {
                skin.clips.push_back(makeClip(a, std::move(clipChannels), names));
            }
        }
        for (const auto& [node, joint] : jointOfNode) {
            m_jointNodes.insert(node);
        }
        m_skins.push_back(std::move(skin));
        m_skinSpaceNodes.push_back(space);
    }

    /** A node visited by traverseScene(): its index, its parent's (-1: a scene root), its
     *  world matrix at rest. */
    struct SceneOrder {
        int node;
        int parent;
        glm::dmat4 world;
    };

    /** True when some animation moves (translation, rotation, scale) a node that is not a
     *  joint of an imported skin. */
    bool hasNodeChannels() const {
        for (const tinygltf::Animation& animation : m_model.animations) {
            for (const tinygltf::AnimationChannel& channel : animation.channels) {
                if (channel.target_node >= 0 && isTrsPath(channel.target_path) &&
                    !m_jointNodes.contains(channel.target_node)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** ImportOptions::nodeAnimationsAsSkin: every node of the scene (@p order, parents first)
     *  a joint of one more skin, each unskinned primitive (its node in @p nodeOfPrimitive)
     *  rigidly on its node's joint, the animations' node channels its clips. The primitives'
     *  vertices are already in scene space (flattened at rest), so a joint's inverse bind is
     *  the inverse of its node's rest world matrix: skin = world(t) * inverse(world(rest)). */
    void readNodesAsSkin(const std::vector<SceneOrder>& order, const std::vector<int>& nodeOfPrimitive,
                         std::vector<ImportedPrimitive>& primitives) {
        if (order.size() > kMaxJoints) {
            fail("nodeAnimationsAsSkin: the scene has " + std::to_string(order.size()) +
                 " nodes, more than kMaxJoints (" + std::to_string(kMaxJoints) + ")");
        }
        std::map<int, std::int32_t> jointOfNode;
        std::vector<Joint> joints(order.size());
        std::vector<std::string> names;
        for (std::size_t j = 0; j < order.size(); ++j) {
            const SceneOrder& visit = order[j];
            jointOfNode.emplace(visit.node, static_cast<std::int32_t>(j));
            joints[j].name = nodeName(visit.node);
            joints[j].parent = visit.parent < 0 ? -1 : jointOfNode.at(visit.parent);
            joints[j].rest = jointTransform(nodeTrs(visit.node));
            joints[j].inverseBind = glm::mat4(glm::inverse(visit.world));
            names.push_back(joints[j].name);
        }
        ImportedSkin skin;
        skin.name = "nodes";
        try {
            skin.skeleton = Skeleton::create(std::move(joints), skin.name);
        } catch (const InvalidArgument& e) {
            fail("nodeAnimationsAsSkin: " + std::string(e.what()));
        }
        for (std::size_t a = 0; a < m_model.animations.size(); ++a) {
            const auto& channels = m_model.animations[a].channels;
            std::vector<AnimationChannel> clipChannels;
            for (std::size_t c = 0; c < channels.size(); ++c) {
                const auto joint = jointOfNode.find(channels[c].target_node);
                if (joint != jointOfNode.end() && isTrsPath(channels[c].target_path) &&
                    !m_jointNodes.contains(channels[c].target_node)) {
                    clipChannels.push_back(readTrsChannel(a, c, static_cast<std::uint32_t>(joint->second)));
                }
            }
            if (!clipChannels.empty()) {
                skin.clips.push_back(makeClip(a, std::move(clipChannels), names));
            }
        }
        const auto slot = static_cast<int>(m_skins.size());
        for (std::size_t p = 0; p < primitives.size(); ++p) {
            ImportedPrimitive& primitive = primitives[p];
            if (primitive.skin >= 0) {
                continue;  // skinned by its own skin
            }
            if (primitive.mesh->morphTargetCount() != 0) {
                warn(primitive.name + ": has morph targets, so nodeAnimationsAsSkin leaves it unskinned");
                continue;
            }
            MeshData data = primitive.mesh->data();
            const auto joint = static_cast<std::uint16_t>(jointOfNode.at(nodeOfPrimitive[p]));
            data.joints.assign(data.positions.size(), glm::u16vec4(joint, 0, 0, 0));
            data.weights.assign(data.positions.size(), glm::vec4(1.0f, 0.0f, 0.0f, 0.0f));
            primitive.mesh = MeshGeometry::create(std::move(data), primitive.mesh->name());
            primitive.skin = slot;
        }
        m_skins.push_back(std::move(skin));
        m_skinSpaceNodes.push_back(-1);
    }

    std::shared_ptr<const AnimationClip> makeClip(std::size_t animation,
                                                  std::vector<AnimationChannel> channels,
                                                  std::vector<std::string> targetNames) const {
        try {
            return AnimationClip::create(animationName(animation), std::move(channels),
                                         std::move(targetNames));
        } catch (const InvalidArgument& e) {
            fail(describeAnimation(animation) + ": " + e.what());
        }
    }

    /** @p sampler's interpolation (3.11: absent means LINEAR); another value is an ImportError. */
    Interpolation samplerInterpolation(const tinygltf::AnimationSampler& sampler, const std::string& where) const {
        if (sampler.interpolation.empty() || sampler.interpolation == "LINEAR") {
            return Interpolation::Linear;
        }
        if (sampler.interpolation == "STEP") {
            return Interpolation::Step;
        }
        if (sampler.interpolation != "CUBICSPLINE") {
            fail(where + ": interpolation '" + sampler.interpolation + "' is not LINEAR, STEP or CUBICSPLINE");
        }
        return Interpolation::CubicSpline;
    }

    /** @p sampler's keyframe times (its input: float SCALAR), each finite and after the one
     *  before; otherwise an ImportError naming the keyframe. */
    std::vector<float> keyframeTimes(const tinygltf::AnimationSampler& sampler, const std::string& where) const {
        const ElementView input = readAccessor(sampler.input, "input", kTimeRule, m_options.maxIndices,
                                               "maxIndices", false, where);
        std::vector<float> times;
        times.reserve(input.count);
        for (const glm::vec1& t : readVectors<1>(input, glm::vec1(0.0f))) {
            if (!std::isfinite(t.x) || (!times.empty() && !(t.x > times.back()))) {
                fail(where + ": keyframe time " + std::to_string(times.size()) +
                     " is not finite or not after the one before (times must be strictly increasing)");
            }
            times.push_back(t.x);
        }
        return times;
    }

    /** Channel @p c of animation @p a (a translation, rotation or scale path) with its
     *  sampler's keyframes, driving target @p target. Times: float SCALAR, strictly
     *  increasing; values: one per keyframe (three for CUBICSPLINE), float VEC3 for
     *  translation and scale, float or normalized integer VEC4 for rotation (3.11). */
    AnimationChannel readTrsChannel(std::size_t a, std::size_t c, std::uint32_t target) const {
        const tinygltf::Animation& animation = m_model.animations[a];
        const tinygltf::AnimationChannel& channel = animation.channels[c];
        std::string where = describeAnimation(a) + " channel " + std::to_string(c);
        if (!validIndex(channel.sampler, animation.samplers)) {
            fail(where + ": sampler " + std::to_string(channel.sampler) + " is out of range (" +
                 std::to_string(animation.samplers.size()) + " samplers)");
        }
        where = describeAnimation(a) + " sampler " + std::to_string(channel.sampler);
        const tinygltf::AnimationSampler& sampler =
            animation.samplers[static_cast<std::size_t>(channel.sampler)];
        AnimationChannel out;
        out.target = target;
        out.property = channel.target_path == "translation" ? AnimatedProperty::Translation
                       : channel.target_path == "rotation"  ? AnimatedProperty::Rotation
                                                            : AnimatedProperty::Scale;
        out.interpolation = samplerInterpolation(sampler, where);
        out.times = keyframeTimes(sampler, where);
        const bool rotation = out.property == AnimatedProperty::Rotation;
        const ElementView output =
            readAccessor(sampler.output, "output", rotation ? kRotationOutputRule : kTranslationOutputRule,
                         m_options.maxIndices, "maxIndices", false, where);
        const std::uint64_t perKey = out.interpolation == Interpolation::CubicSpline ? 3 : 1;
        if (output.count != out.times.size() * perKey) {
            fail(where + ": output (accessor " + std::to_string(sampler.output) + ") has " +
                 std::to_string(output.count) + " values for " + std::to_string(out.times.size()) +
                 " keyframes; " + sampler.interpolation + " needs " +
                 (perKey == 3 ? "three (in-tangent, value, out-tangent)" : "one") + " per keyframe");
        }
        out.values = readVectors<4>(output, glm::vec4(0.0f));
        return out;
    }

    /** A skinned node's primitive: skinned (JOINTS_0 and WEIGHTS_0, 3.7.3.3), with every joint
     *  of weight above 0 inside skin @p slot (the "joint past the palette" check). */
    void checkSkinned(const MeshGeometry& mesh, std::size_t slot, int nodeIndex,
                      const std::string& where) const {
        const Skeleton& skeleton = *m_skins[slot].skeleton;
        if (!mesh.isSkinned()) {
            fail(where + ": " + describeNode(nodeIndex) + " has skin '" + m_skins[slot].name +
                 "' but the primitive has no JOINTS_0 and WEIGHTS_0");
        }
        if (mesh.skinJointCount() <= skeleton.jointCount()) {
            return;
        }
        const MeshData& data = mesh.data();
        for (std::size_t v = 0; v < data.joints.size(); ++v) {
            for (glm::length_t k = 0; k < 4; ++k) {
                if (data.weights[v][k] > 0.0f && data.joints[v][k] >= skeleton.jointCount()) {
                    fail(where + ": vertex " + std::to_string(v) + " uses joint " +
                         std::to_string(data.joints[v][k]) + " (JOINTS_0), past the " +
                         std::to_string(skeleton.jointCount()) + " joints of skin '" +
                         m_skins[slot].name + "' (" + describeNode(nodeIndex) + ")");
                }
            }
        }
    }

    /** JOINTS_0 and WEIGHTS_0 (3.7.3.3) into @p data. A second set (JOINTS_1, WEIGHTS_1) is
     *  merged: each vertex keeps its four largest weights of the eight (MeshGeometry
     *  renormalises them), with a warning when that drops a weight above 0. Sets past the
     *  second are ignored with a warning. A joint whose weight is 0 is set to 0. */
    void readSkinAttributes(const tinygltf::Primitive& primitive, std::uint64_t vertexCount,
                            MeshData& data, const std::string& where) const {
        auto has = [&](const char* semantic) { return primitive.attributes.contains(semantic); };
        auto readSet = [&](int set, std::vector<glm::vec4>& joints, std::vector<glm::vec4>& weights) {
            const std::string j = "JOINTS_" + std::to_string(set);
            const std::string w = "WEIGHTS_" + std::to_string(set);
            if (has(j.c_str()) != has(w.c_str())) {
                fail(where + ": has " + (has(j.c_str()) ? j + " without " + w : w + " without " + j) +
                     "; a skin needs both (3.7.3.3)");
            }
            if (!has(j.c_str())) {
                return false;
            }
            VertexStorage unused = VertexStorage::Float32;
            joints = optionalAttribute<4>(primitive, j.c_str(), kJointsRule, vertexCount,
                                          glm::vec4(0.0f), where, unused);
            weights = optionalAttribute<4>(primitive, w.c_str(), kSkinWeightsRule, vertexCount,
                                           glm::vec4(0.0f), where, unused);
            return true;
        };
        std::vector<glm::vec4> joints0;
        std::vector<glm::vec4> weights0;
        if (!readSet(0, joints0, weights0)) {
            if (has("JOINTS_1") || has("WEIGHTS_1")) {
                fail(where + ": has JOINTS_1 or WEIGHTS_1 without JOINTS_0 and WEIGHTS_0");
            }
            return;
        }
        std::vector<glm::vec4> joints1;
        std::vector<glm::vec4> weights1;
        const bool second = readSet(1, joints1, weights1);
        for (const auto& [semantic, accessor] : primitive.attributes) {
            if ((semantic.starts_with("JOINTS_") || semantic.starts_with("WEIGHTS_")) &&
                semantic != "JOINTS_0" && semantic != "WEIGHTS_0" && semantic != "JOINTS_1" &&
                semantic != "WEIGHTS_1") {
                warn(where + ": " + semantic + " ignored (the four largest of the first two "
                     "sets of influences are kept)");
            }
        }
        data.joints.resize(vertexCount);
        data.weights.resize(vertexCount);
        std::uint64_t dropped = 0;
        for (std::uint64_t v = 0; v < vertexCount; ++v) {
            std::array<std::pair<float, float>, 8> influences{};  // (weight, joint)
            for (glm::length_t k = 0; k < 4; ++k) {
                influences[static_cast<std::size_t>(k)] = {weights0[v][k], joints0[v][k]};
                if (second) {
                    influences[static_cast<std::size_t>(k) + 4] = {weights1[v][k], joints1[v][k]};
                }
            }
            if (second) {  // the four largest first; ties keep the file's order
                std::stable_sort(influences.begin(), influences.end(),
                                 [](const auto& x, const auto& y) { return x.first > y.first; });
                dropped += influences[4].first > 0.0f ? 1 : 0;
            }
            for (glm::length_t k = 0; k < 4; ++k) {
                const auto [weight, joint] = influences[static_cast<std::size_t>(k)];
                data.weights[v][k] = weight;
                data.joints[v][k] = weight > 0.0f ? static_cast<std::uint16_t>(joint) : std::uint16_t{0};
            }
        }
        if (dropped > 0) {
            warn(where + ": " + std::to_string(dropped) + " vertices have more than four joint "
                 "influences (JOINTS_1, WEIGHTS_1); each keeps its four largest, renormalised");
        }
    }

    // ---- importScene: nodes, shared meshes, instances -------------------------------------

    /** One triangle primitive of a mesh in mesh space, shared by every node that uses it. */
    struct ScenePrimitive {
        std::shared_ptr<const MeshGeometry> mesh;
        Material material;
        int index = 0;  ///< primitive index in the glTF mesh
    };

    /** Primitive @p primitiveIndex of mesh @p meshIndex, built once; null when skipped. */
    const ScenePrimitive* scenePrimitive(int meshIndex, int primitiveIndex) {
        const auto [it, inserted] = m_scenePrimitives.try_emplace({meshIndex, primitiveIndex});
        if (inserted) {
            m_targetNames = targetNames(m_model.meshes[static_cast<std::size_t>(meshIndex)]);
            std::optional<ImportedPrimitive> built =
                buildPrimitive(meshIndex, primitiveIndex, glm::dmat4(1.0),
                               meshName(meshIndex) + "#" + std::to_string(primitiveIndex));
            if (built) {
                it->second = ScenePrimitive{std::move(built->mesh), std::move(built->material),
                                            primitiveIndex};
            }
        }
        return it->second ? &*it->second : nullptr;
    }

    /** The records of an EXT_mesh_gpu_instancing node. */
    struct InstanceSet {
        std::vector<glm::mat4> transforms;  ///< node-from-instance, T * R * S
        std::vector<glm::vec4> colors;      ///< _COLOR_0 or white
        std::vector<InstanceAttribute> attributes;
    };

    /** Reads the extension object of node @p nodeIndex (EXT_mesh_gpu_instancing, "Extending
     *  Nodes"): every attribute accessor validated like a vertex attribute, all with one count,
     *  at most ImportOptions::maxInstances. */
    InstanceSet readInstances(int nodeIndex, const tinygltf::Value& extension) const {
        const std::string where = describeNode(nodeIndex) + ": EXT_mesh_gpu_instancing";
        if (!extension.IsObject() || !extension.Has("attributes") ||
            !extension.Get("attributes").IsObject() ||
            extension.Get("attributes").Keys().empty()) {
            fail(where + " has no attributes (at least one of TRANSLATION, ROTATION, SCALE is "
                         "needed to know the instance count)");
        }
        const tinygltf::Value& attributes = extension.Get("attributes");
        std::optional<std::uint64_t> count;
        std::string countFrom;
        auto view = [&](const std::string& name, const AccessorRule& rule) {
            const tinygltf::Value& value = attributes.Get(name);
            if (!value.IsInt()) {
                fail(where + ": attribute " + name + " is not an accessor index");
            }
            ElementView elements = readAccessor(value.Get<int>(), name, rule,
                                                m_options.maxInstances, "maxInstances", false,
                                                where);
            if (!count) {
                count = elements.count;
                countFrom = name;
            } else if (elements.count != *count) {
                fail(where + ": attribute " + name + " has " + std::to_string(elements.count) +
                     " elements, " + countFrom + " has " + std::to_string(*count) +
                     "; every instancing attribute must have one element per instance");
            }
            return elements;
        };
        std::vector<glm::vec3> translations;
        std::vector<glm::vec4> rotations;
        std::vector<glm::vec3> scales;
        InstanceSet set;
        for (const std::string& name : attributes.Keys()) {  // sorted: deterministic messages
            if (name == "TRANSLATION") {
                translations = readVectors<3>(
                    view(name, m_quantized ? kQuantizedTranslationRule : kTranslationRule),
                    glm::vec3(0.0f));
            } else if (name == "ROTATION") {
                rotations = readVectors<4>(view(name, kRotationRule), glm::vec4(0, 0, 0, 1));
            } else if (name == "SCALE") {
                scales = readVectors<3>(view(name, m_quantized ? kQuantizedScaleRule : kScaleRule),
                                        glm::vec3(1.0f));
            } else if (name == "_COLOR_0") {
                set.colors = readVectors<4>(view(name, kColorRule), glm::vec4(1.0f));
            } else if (!name.empty() && name.front() == '_') {
                const ElementView elements = view(name, kCustomInstanceRule);
                set.attributes.push_back(
                    {name, elements.components, readVectors<4>(elements, glm::vec4(0.0f))});
            } else {
                fail(where + ": attribute '" + name + "' is neither TRANSLATION, ROTATION, SCALE "
                             "nor a custom attribute (a name starting with '_')");
            }
        }
        const std::uint64_t instanceCount = *count;  // set: there was at least one attribute
        set.transforms.reserve(instanceCount);
        if (set.colors.empty()) {
            set.colors.assign(instanceCount, glm::vec4(1.0f));
        }
        for (std::uint64_t i = 0; i < instanceCount; ++i) {
            const std::string instance = where + ": instance " + std::to_string(i);
            glm::dquat rotation(1.0, 0.0, 0.0, 0.0);
            if (!rotations.empty()) {
                const glm::vec4& r = rotations[i];  // x, y, z, w in the file
                rotation = glm::dquat(r.w, r.x, r.y, r.z);
                const double length = glm::length(rotation);
                if (!std::isfinite(length) || length == 0.0) {
                    fail(instance + ": ROTATION is not a unit quaternion");
                }
                rotation /= length;  // quantized and rounded values are not exactly unit
            }
            const glm::dvec3 translation = translations.empty() ? glm::dvec3(0.0)
                                                                : glm::dvec3(translations[i]);
            const glm::dvec3 scale = scales.empty() ? glm::dvec3(1.0) : glm::dvec3(scales[i]);
            const glm::mat4 transform(detail::composeTrs(translation, rotation, scale));
            bool finite = true;
            for (int c = 0; c < 4; ++c) {
                finite = finite && allFinite(transform[c]);
            }
            if (!finite) {
                fail(instance + ": TRANSLATION or SCALE is NaN or infinite");
            }
            if (!allFinite(set.colors[i]) ||
                glm::any(glm::lessThan(set.colors[i], glm::vec4(0.0f)))) {
                fail(instance + ": _COLOR_0 is negative, NaN or infinite");
            }
            set.transforms.push_back(transform);
        }
        std::sort(set.attributes.begin(), set.attributes.end(),
                  [](const InstanceAttribute& a, const InstanceAttribute& b) {
                      return a.name < b.name;
                  });
        if (!set.attributes.empty()) {
            std::string names;
            for (const InstanceAttribute& attribute : set.attributes) {
                names += (names.empty() ? "" : ", ") + attribute.name;
            }
            log(LogLevel::Info, m_path + ": " + where + ": custom instance attributes " + names +
                                    " kept in ImportedScene::instancing, not drawn (copy them "
                                    "into lanes with InstancedMeshNode::setLane to read them in a shader)");
        }
        return set;
    }

    /** Gives @p target node @p index's local transform (nodeTrs()). */
    void applyNodeTransform(int index, SceneNode& target) {
        const detail::Trs trs = nodeTrs(index);
        try {
            target.setPosition(trs.translation);
            target.setRotation(glm::quat(trs.rotation));
            target.setScale(glm::vec3(trs.scale));
        } catch (const InvalidArgument& e) {
            fail(describeNode(index) + ": " + e.what());
        }
    }

    /** A skinned node's MeshNode, added under its skeleton's space once every node is made. */
    struct SkinnedAside {
        std::unique_ptr<SceneNode> node;
        std::size_t skin = 0;  ///< index into m_skins
    };

    /** Builds glTF node @p index (see importScene()), adds it under @p parent and returns it,
     *  the place for its glTF children; null when nothing of it stays in place (a childless
     *  skinned node without a camera, whose mesh node waits in m_skinnedAside). */
    SceneNode* buildNode(int index, SceneNode& parent, ImportedScene& result, std::size_t& drawn) {
        const tinygltf::Node& node = m_model.nodes[static_cast<std::size_t>(index)];
        const std::string name = nodeName(index);
        std::vector<const ScenePrimitive*> pieces;
        if (node.mesh >= 0) {
            const tinygltf::Mesh& mesh = meshOfNode(index);
            for (std::size_t i = 0; i < mesh.primitives.size(); ++i) {
                if (const ScenePrimitive* piece = scenePrimitive(node.mesh, static_cast<int>(i))) {
                    pieces.push_back(piece);
                }
            }
        }
        std::optional<InstanceSet> instances;
        if (const auto it = node.extensions.find(std::string(kInstancingExtension));
            it != node.extensions.end()) {
            if (node.mesh < 0) {
                warn(describeNode(index) + " has EXT_mesh_gpu_instancing but no mesh; ignored");
            } else {
                instances = readInstances(index, it->second);
            }
        }
        // 3.7.3.2: a skinned node's own transform MUST be ignored: its mesh node goes under the
        // node of its skeleton's space (runScene()), at identity. The glTF node keeps its place
        // (a group with its transform) only for its children or its camera.
        const bool skinned = node.skin >= 0 && !pieces.empty();
        std::size_t skin = 0;
        if (skinned) {
            skin = skinSlot(index);
            for (const ScenePrimitive* piece : pieces) {
                checkSkinned(*piece->mesh, skin, index, primitiveContext(node.mesh, piece->index));
            }
        }
        const int light = lightOf(index);
        const bool groupInPlace = !skinned || !node.children.empty() || node.camera >= 0 || light >= 0;

        std::vector<MeshNode*> drawNodes;
        std::vector<InstancedMeshNode*> batches;
        auto makeDrawNode = [&](const ScenePrimitive& piece,
                                std::string drawName) -> std::unique_ptr<SceneNode> {
            if (!instances) {
                auto single = std::make_unique<MeshNode>(piece.mesh, piece.material,
                                                         std::move(drawName));
                drawNodes.push_back(single.get());
                return single;
            }
            std::unique_ptr<InstancedMeshNode> batch;
            try {
                batch = std::make_unique<InstancedMeshNode>(
                    piece.mesh, piece.material, instances->transforms.size(), std::move(drawName));
                for (std::size_t i = 0; i < instances->transforms.size(); ++i) {
                    batch->addInstance(instances->transforms[i], instances->colors[i]);
                }
            } catch (const Error& e) {  // CapacityError past maxCapacity; checked values else
                fail(describeNode(index) + ": EXT_mesh_gpu_instancing: " + e.what());
            }
            drawNodes.push_back(batch.get());
            batches.push_back(batch.get());
            return batch;
        };
        // Several primitives are one node drawing each of them (MeshNode::addPrimitive): an
        // instanced node keeps its records once, every primitive draws all of them.
        auto makeAllPrimitives = [&](std::string drawName) -> std::unique_ptr<SceneNode> {
            std::unique_ptr<SceneNode> drawNode = makeDrawNode(*pieces.front(), std::move(drawName));
            auto& meshNode = static_cast<MeshNode&>(*drawNode);
            for (std::size_t k = 1; k < pieces.size(); ++k) {
                try {
                    meshNode.addPrimitive(pieces[k]->mesh, pieces[k]->material);
                } catch (const Error& e) {  // primitives with different morph-target counts
                    fail(describeNode(index) + ": " + e.what());
                }
            }
            return drawNode;
        };
        std::unique_ptr<SceneNode> made;
        if (skinned) {
            std::unique_ptr<SceneNode> skinnedNode =
                makeAllPrimitives(groupInPlace ? name + " (skinned)" : name);
            const bool morphs = std::any_of(pieces.begin(), pieces.end(), [](const ScenePrimitive* p) {
                return p->mesh->morphTargetCount() > 0;
            });
            if (morphs) {  // MeshNode::setSkeleton refuses them (docs/limitations.md)
                warn(describeNode(index) + ": a skinned mesh with morph targets is not supported; "
                     "drawn in its bind pose, not skinned");
            } else {
                try {
                    static_cast<MeshNode&>(*skinnedNode).setSkeleton(m_skins[skin].skeleton);
                } catch (const InvalidArgument& e) {
                    fail(describeNode(index) + ": " + e.what());
                }
            }
            m_skinnedAside.push_back({std::move(skinnedNode), skin});
        }
        if (groupInPlace) {
            if (!pieces.empty() && !skinned) {
                made = makeAllPrimitives(name);
            } else if (light >= 0) {
                made = makeLight(light, index, name);  // KHR_lights_punctual: the node is the light
            } else {
                made = std::make_unique<SceneNode>(name);
            }
            applyNodeTransform(index, *made);
            if (light >= 0 && made->kind() != NodeKind::Light) {
                made->add(makeLight(light, index, name + " (light)"));  // at the node's origin, along its -Z
            }
        }
        drawn += drawNodes.size();
        if (instances) {
            result.instancing.push_back(
                {name, index, std::move(batches), std::move(instances->attributes)});
        }
        if (!pieces.empty() && pieces.front()->mesh->morphTargetCount() > 0) {
            m_targetCountOfNode.try_emplace(index, pieces.front()->mesh->morphTargetCount());
            m_morphNodesOfNode[index] = drawNodes;
        }
        return made ? &parent.add(std::move(made)) : nullptr;
    }

    /** The KHR_lights_punctual light node @p index places (its extension's "light"), or -1.
     *  @throws ImportError if the index is not a light of the file. */
    int lightOf(int index) const {
        const tinygltf::Node& node = m_model.nodes[static_cast<std::size_t>(index)];
        const auto it = node.extensions.find(std::string(kLightsExtension));
        if (it == node.extensions.end() || !it->second.IsObject() || !it->second.Has("light")) {
            return -1;
        }
        const tinygltf::Value& value = it->second.Get("light");
        const int light = value.IsNumber() ? value.GetNumberAsInt() : -1;
        if (!validIndex(light, m_model.lights)) {
            fail(describeNode(index) + ": KHR_lights_punctual light " + std::to_string(light) + " is not one of the file's " +
                 std::to_string(m_model.lights.size()) + " lights");
        }
        return light;
    }

    /** A LightNode of file light @p light (KHR_lights_punctual: type, color, intensity in lux
     *  or candela, range, spot cone angles), named @p name, placed by glTF node @p index.
     *  @throws ImportError on an unknown type or a value the extension forbids. */
    std::unique_ptr<LightNode> makeLight(int light, int index, const std::string& name) const {
        const tinygltf::Light& source = m_model.lights[static_cast<std::size_t>(light)];
        const std::string where = describeNode(index) + ": KHR_lights_punctual light " + std::to_string(light) +
                                  (source.name.empty() ? "" : " ('" + source.name + "')");
        LightType type = LightType::Point;
        if (source.type == "directional") {
            type = LightType::Directional;
        } else if (source.type == "spot") {
            type = LightType::Spot;
        } else if (source.type != "point") {
            fail(where + ": type '" + source.type + "' is not directional, point or spot");
        }
        auto made = std::make_unique<LightNode>(type, name);
        try {
            if (!source.color.empty()) {
                if (source.color.size() != 3) {
                    fail(where + ": color has " + std::to_string(source.color.size()) + " components, not 3");
                }
                made->setColor(glm::vec3(static_cast<float>(source.color[0]), static_cast<float>(source.color[1]),
                                         static_cast<float>(source.color[2])));
            }
            made->setIntensity(static_cast<float>(source.intensity));
            if (source.range < 0.0) {
                fail(where + ": range " + std::to_string(source.range) + " must be > 0");
            }
            made->setRange(static_cast<float>(source.range));  // tinygltf: 0 when absent (infinite)
            if (type == LightType::Spot) {
                made->setConeAngles(static_cast<float>(source.spot.innerConeAngle),
                                    static_cast<float>(source.spot.outerConeAngle));
            }
        } catch (const InvalidArgument& e) {
            fail(where + ": " + e.what());
        }
        return made;
    }

    /** Expands every attribute through @p indices so no vertex is shared, then makes the
     *  indices 0..n-1: the start of flat normals for an indexed primitive. */
    static void deindex(MeshData& data, std::vector<std::uint32_t>& indices) {
        auto expand = [&](auto& values) {
            if (values.empty()) {
                return;
            }
            std::remove_reference_t<decltype(values)> expanded;
            expanded.reserve(indices.size());
            for (std::uint32_t index : indices) {
                expanded.push_back(values[index]);
            }
            values = std::move(expanded);
        };
        expand(data.positions);
        expand(data.uv0);
        expand(data.uv1);
        expand(data.tangents);
        expand(data.colors);
        expand(data.joints);
        expand(data.weights);
        for (MorphTarget& target : data.morphTargets) {
            expand(target.positionDeltas);
            expand(target.normalDeltas);
        }
        for (std::size_t i = 0; i < indices.size(); ++i) {
            indices[i] = static_cast<std::uint32_t>(i);
        }
    }

    /** Applies the node's world matrix: positions by the matrix, normals by the inverse
     *  transpose of its 3x3 part, renormalised. The inverse transpose is taken as the cofactor
     *  matrix times sign(det): the same direction, defined even for a singular matrix. When
     *  det < 0 the transform mirrors, which turns counter-clockwise triangles clockwise (3.7.4
     *  Instantiation), so each triangle's last two indices swap to keep front faces CCW. */
    static void transform(MeshData& data, std::vector<std::uint32_t>& indices,
                          const glm::dmat4& world) {
        if (world == glm::dmat4(1.0)) {
            return;
        }
        for (glm::vec3& p : data.positions) {
            p = glm::vec3(world * glm::dvec4(p, 1.0));
        }
        const glm::dmat3 linear(world);
        const double det = glm::determinant(linear);
        if (!data.normals.empty()) {
            const glm::dmat3 cofactor(glm::cross(linear[1], linear[2]),
                                      glm::cross(linear[2], linear[0]),
                                      glm::cross(linear[0], linear[1]));
            const double sign = det < 0.0 ? -1.0 : 1.0;
            for (glm::vec3& n : data.normals) {
                const glm::dvec3 turned = cofactor * glm::dvec3(n) * sign;
                const double length = glm::length(turned);
                n = length > 0.0 && std::isfinite(length) ? glm::vec3(turned / length)
                                                          : kFallbackNormal;
            }
        }
        // Tangents are directions along the surface: the 3x3 part, renormalised; a mirroring
        // transform turns the handedness round (the bitangent cross(n, t) * w must stay the
        // mirrored one, and cross(M n, M t) = det(M) M^-T cross(n, t)).
        for (glm::vec4& t : data.tangents) {
            const glm::dvec3 turned = linear * glm::dvec3(t);
            const double length = glm::length(turned);
            t = glm::vec4(length > 0.0 && std::isfinite(length) ? glm::vec3(turned / length) : glm::vec3(1.0f, 0.0f, 0.0f),
                          det < 0.0 ? -t.w : t.w);
        }
        // Morph deltas are offsets: the 3x3 part only, no translation. Normal deltas go through
        // the normals' cofactor divided by |det|^(2/3), which for a uniform scale s is exactly
        // the rotation the renormalised normals got (cofactor = s^2 R); they are differences of
        // unit vectors, so they are not renormalised themselves.
        const double deltaScale = std::abs(det) > 0.0 ? std::pow(std::abs(det), -2.0 / 3.0) : 1.0;
        const glm::dmat3 deltaNormalMatrix = glm::dmat3(glm::cross(linear[1], linear[2]),
                                                        glm::cross(linear[2], linear[0]),
                                                        glm::cross(linear[0], linear[1])) *
                                             ((det < 0.0 ? -1.0 : 1.0) * deltaScale);
        for (MorphTarget& target : data.morphTargets) {
            for (glm::vec3& d : target.positionDeltas) {
                d = glm::vec3(linear * glm::dvec3(d));
            }
            for (glm::vec3& d : target.normalDeltas) {
                d = glm::vec3(deltaNormalMatrix * glm::dvec3(d));
            }
        }
        if (det < 0.0) {
            for (std::size_t i = 0; i + 2 < indices.size(); i += 3) {
                std::swap(indices[i + 1], indices[i + 2]);
            }
        }
    }

    /** Flat normals for a primitive whose vertices are not shared between triangles: each
     *  vertex gets its triangle's unit normal (counter-clockwise front). */
    static std::vector<glm::vec3> faceNormals(const std::vector<glm::vec3>& positions,
                                              const std::vector<std::uint32_t>& indices) {
        std::vector<glm::vec3> normals(positions.size(), kFallbackNormal);
        for (std::size_t i = 0; i + 2 < indices.size(); i += 3) {
            const glm::vec3& a = positions[indices[i]];
            const glm::vec3& b = positions[indices[i + 1]];
            const glm::vec3& c = positions[indices[i + 2]];
            const glm::vec3 n = glm::cross(b - a, c - a);
            const float length = glm::length(n);
            const glm::vec3 unit = length > 0.0f && std::isfinite(length) ? n / length
                                                                          : kFallbackNormal;
            normals[indices[i]] = unit;
            normals[indices[i + 1]] = unit;
            normals[indices[i + 2]] = unit;
        }
        return normals;
    }

    /** glTF sampler @p index (3.8.4, 5.26; the index already checked) as a TextureSampler.
     *  An absent magFilter is Linear and an absent minFilter LinearMipmapLinear (the spec
     *  leaves both to the implementation); an absent wrap is REPEAT (the schema's default).
     *  A value the spec does not list is an ImportError naming the sampler and the field. */
    TextureSampler convertedSampler(int index) const {
        const tinygltf::Sampler& source = m_model.samplers[static_cast<std::size_t>(index)];
        const std::string what = "sampler " + std::to_string(index) +
                                 (source.name.empty() ? "" : " ('" + source.name + "')");
        auto refuse = [&](const char* field, int value, const char* allowed) {
            fail(what + ": " + field + " " + std::to_string(value) + " is not a glTF value (" +
                 allowed + ")");
        };
        TextureSampler result;
        switch (source.magFilter) {  // tinygltf: -1 when absent
        case -1: break;
        case TINYGLTF_TEXTURE_FILTER_NEAREST: result.magFilter = MagFilter::Nearest; break;
        case TINYGLTF_TEXTURE_FILTER_LINEAR: result.magFilter = MagFilter::Linear; break;
        default: refuse("magFilter", source.magFilter, "9728 NEAREST or 9729 LINEAR");
        }
        switch (source.minFilter) {
        case -1: break;
        case TINYGLTF_TEXTURE_FILTER_NEAREST: result.minFilter = MinFilter::Nearest; break;
        case TINYGLTF_TEXTURE_FILTER_LINEAR: result.minFilter = MinFilter::Linear; break;
        case TINYGLTF_TEXTURE_FILTER_NEAREST_MIPMAP_NEAREST:
            result.minFilter = MinFilter::NearestMipmapNearest;
            break;
        case TINYGLTF_TEXTURE_FILTER_LINEAR_MIPMAP_NEAREST:
            result.minFilter = MinFilter::LinearMipmapNearest;
            break;
        case TINYGLTF_TEXTURE_FILTER_NEAREST_MIPMAP_LINEAR:
            result.minFilter = MinFilter::NearestMipmapLinear;
            break;
        case TINYGLTF_TEXTURE_FILTER_LINEAR_MIPMAP_LINEAR:
            result.minFilter = MinFilter::LinearMipmapLinear;
            break;
        default: refuse("minFilter", source.minFilter, "9728, 9729 or 9984 to 9987");
        }
        auto wrap = [&](const char* field, int value) {
            switch (value) {
            case TINYGLTF_TEXTURE_WRAP_REPEAT: return TextureWrap::Repeat;
            case TINYGLTF_TEXTURE_WRAP_MIRRORED_REPEAT: return TextureWrap::MirroredRepeat;
            case TINYGLTF_TEXTURE_WRAP_CLAMP_TO_EDGE: return TextureWrap::ClampToEdge;
            default: refuse(field, value, "33071 CLAMP_TO_EDGE, 33648 MIRRORED_REPEAT or 10497 REPEAT");
            }
            return TextureWrap::Repeat;  // not reached: refuse() throws
        };
        result.wrapS = wrap("wrapS", source.wrapS);
        result.wrapT = wrap("wrapT", source.wrapT);
        return result;
    }

    /** A material's textureInfo (glTF 2.0 section 5.23; normalTextureInfo and
     *  occlusionTextureInfo alike) into @p slot: the decoded image (none when the index is -1,
     *  or the texture has no source image: warned, drawn with its factor alone), the
     *  texture-coordinate set (texCoord, or KHR_texture_transform's texCoord override; a set
     *  past 1 is warned and read as 0), KHR_texture_transform's offset (default 0, 0), rotation
     *  (radians, default 0) and scale (default 1, 1), and the sampler (3.8.4; none: myriad's
     *  default, linear, trilinear, repeat). An out-of-range texture or sampler, or a malformed
     *  transform (an offset or scale that is not two finite numbers, a rotation that is not
     *  one), is an ImportError naming the material and the slot. */
    template <class Info>
    void readTextureInfo(const Info& info, const std::string& what, const char* slotName, TextureSlot& slot) {
        if (info.index < 0) {
            return;
        }
        const std::string where = what + ": " + slotName;
        if (!validIndex(info.index, m_model.textures)) {
            fail(where + ": texture " + std::to_string(info.index) + " is out of range (" +
                 std::to_string(m_model.textures.size()) + " textures)");
        }
        const tinygltf::Texture& texture = m_model.textures[static_cast<std::size_t>(info.index)];
        // 3.8.2: without a source the image comes from an extension (e.g. KTX2), which is
        // not supported: the material keeps its factor only.
        if (texture.source < 0) {
            warn(where + ": texture " + std::to_string(info.index) + " has no source image; drawn without it");
        } else {
            slot.image = decodedImage(texture.source, what);
        }
        if (texture.sampler >= 0) {
            if (!validIndex(texture.sampler, m_model.samplers)) {
                fail(where + ": sampler " + std::to_string(texture.sampler) + " is out of range (" +
                     std::to_string(m_model.samplers.size()) + " samplers)");
            }
            slot.sampler = convertedSampler(texture.sampler);
        }
        int set = info.texCoord;
        if (const auto it = info.extensions.find(std::string(kTextureTransformExtension)); it != info.extensions.end()) {
            const tinygltf::Value& extension = it->second;
            const std::string transformWhat = what + ": KHR_texture_transform (" + slotName + ")";
            if (!extension.IsObject()) {
                fail(transformWhat + " is not an object");
            }
            auto number = [&](const tinygltf::Value& value, const char* field) {
                const double result = value.IsNumber() ? value.GetNumberAsDouble() : std::nan("");
                if (!std::isfinite(result)) {
                    fail(transformWhat + ": " + field + " is not a finite number");
                }
                return result;
            };
            auto pair = [&](const char* field, glm::dvec2 absent) {
                if (!extension.Has(field)) {
                    return absent;
                }
                const tinygltf::Value& value = extension.Get(field);
                if (!value.IsArray() || value.ArrayLen() != 2) {
                    fail(transformWhat + ": " + field + " is not an array of two numbers");
                }
                return glm::dvec2(number(value.Get(0), field), number(value.Get(1), field));
            };
            slot.transform.offset = glm::vec2(pair("offset", glm::dvec2(0.0)));
            slot.transform.scale = glm::vec2(pair("scale", glm::dvec2(1.0)));
            slot.transform.rotation =
                extension.Has("rotation") ? static_cast<float>(number(extension.Get("rotation"), "rotation")) : 0.0f;
            if (extension.Has("texCoord")) {  // overrides the textureInfo's
                set = static_cast<int>(number(extension.Get("texCoord"), "texCoord"));
            }
        }
        if (set != 0 && set != 1) {
            warn(where + ": TEXCOORD_" + std::to_string(set) + "; only TEXCOORD_0 and TEXCOORD_1 are read, so "
                 "TEXCOORD_0 is used instead");
            set = 0;
        }
        slot.uvSet = static_cast<std::uint8_t>(set);
    }

    /** glTF material @p index as a myriad Material (3.9), converted once and cached. */
    const Material& convertedMaterial(int index, const std::string& where) {
        if (!validIndex(index, m_model.materials)) {
            fail(where + ": material " + std::to_string(index) + " is out of range (" +
                 std::to_string(m_model.materials.size()) + " materials)");
        }
        std::optional<Material>& cached = m_materials[static_cast<std::size_t>(index)];
        if (cached) {
            return *cached;
        }
        const tinygltf::Material& source = m_model.materials[static_cast<std::size_t>(index)];
        const std::string what = "material " + std::to_string(index);
        Material result;
        result.name = source.name;
        const std::vector<double>& factor = source.pbrMetallicRoughness.baseColorFactor;
        if (factor.size() != 4) {
            fail(what + ": baseColorFactor has " + std::to_string(factor.size()) +
                 " values, expected 4");
        }
        result.baseColor = glm::vec4(factor[0], factor[1], factor[2], factor[3]);

        // 5.23 textureInfo: the base colour's image, set, transform and sampler.
        {
            TextureSlot base;
            readTextureInfo(source.pbrMetallicRoughness.baseColorTexture, what, "baseColorTexture", base);
            result.baseColorTexture = std::move(base.image);
            result.baseColorUvSet = base.uvSet;
            result.baseColorTransform = base.transform;
            result.sampler = base.sampler;
            // The deprecated convenience stays true to the file: set for unfiltered sampling.
            result.nearestFilter = result.baseColorTexture && result.sampler.magFilter == MagFilter::Nearest &&
                                   result.sampler.minFilter == MinFilter::Nearest;
        }
        readTextureInfo(source.pbrMetallicRoughness.metallicRoughnessTexture, what, "metallicRoughnessTexture",
                        result.metallicRoughnessTexture);
        readTextureInfo(source.normalTexture, what, "normalTexture", result.normalTexture);
        result.normalScale = static_cast<float>(source.normalTexture.scale);
        readTextureInfo(source.occlusionTexture, what, "occlusionTexture", result.occlusionTexture);
        result.occlusionStrength = static_cast<float>(source.occlusionTexture.strength);
        if (!std::isfinite(result.normalScale) || !std::isfinite(result.occlusionStrength) ||
            result.occlusionStrength < 0.0f || result.occlusionStrength > 1.0f) {
            fail(what + ": normalTexture.scale must be a finite number and occlusionTexture.strength within 0..1");
        }
        readTextureInfo(source.emissiveTexture, what, "emissiveTexture", result.emissiveTexture);

        // 3.9.4 Alpha Coverage.
        if (source.alphaMode == "OPAQUE") {
            result.alphaMode = AlphaMode::Opaque;
        } else if (source.alphaMode == "MASK") {
            result.alphaMode = AlphaMode::Mask;
        } else if (source.alphaMode == "BLEND") {
            result.alphaMode = AlphaMode::Blend;
        } else {
            warn(what + ": unknown alphaMode '" + source.alphaMode + "'; OPAQUE used");
        }
        result.alphaCutoff = static_cast<float>(source.alphaCutoff);
        result.doubleSided = source.doubleSided;  // 3.9.5 Double Sided
        // 3.9.2: metallic-roughness, glTF's default 1 and 1 where the file says nothing.
        result.shading = Shading::MetallicRoughness;
        result.metallic = static_cast<float>(source.pbrMetallicRoughness.metallicFactor);
        result.roughness = static_cast<float>(source.pbrMetallicRoughness.roughnessFactor);
        if (!std::isfinite(result.metallic) || !std::isfinite(result.roughness) || result.metallic < 0.0f ||
            result.metallic > 1.0f || result.roughness < 0.0f || result.roughness > 1.0f) {
            fail(what + ": metallicFactor " + std::to_string(result.metallic) + " and roughnessFactor " +
                 std::to_string(result.roughness) + " must each be within 0..1");
        }
        if (source.emissiveFactor.size() != 3) {
            fail(what + ": emissiveFactor has " + std::to_string(source.emissiveFactor.size()) + " values, expected 3");
        }
        result.emissive = glm::vec3(source.emissiveFactor[0], source.emissiveFactor[1], source.emissiveFactor[2]);
        if (!std::isfinite(result.emissive.r + result.emissive.g + result.emissive.b) ||
            glm::any(glm::lessThan(result.emissive, glm::vec3(0.0f))) || glm::any(glm::greaterThan(result.emissive, glm::vec3(1.0f)))) {
            fail(what + ": emissiveFactor must be three values within 0..1");
        }
        if (const auto it = source.extensions.find(std::string(kEmissiveStrengthExtension)); it != source.extensions.end()) {
            const bool given = it->second.IsObject() && it->second.Has("emissiveStrength");  // else its default, 1
            const tinygltf::Value& strength = it->second.Get("emissiveStrength");
            if (given && strength.IsNumber()) {
                result.emissiveStrength = static_cast<float>(strength.GetNumberAsDouble());
            }
            if ((given && !strength.IsNumber()) || !std::isfinite(result.emissiveStrength) || result.emissiveStrength < 0.0f) {
                fail(what + ": KHR_materials_emissive_strength's emissiveStrength must be a number >= 0");
            }
        }
        if (source.extensions.count("KHR_materials_unlit") != 0) {
            result.shading = Shading::Unlit;
        }
        cached = std::move(result);
        return *cached;
    }

    /** Image @p index decoded to RGBA8, once: every material that uses it shares the result.
     *  The size in the header is checked against ImportOptions::maxImageSide before decoding,
     *  so a hostile file cannot make the decoder allocate a huge picture. */
    std::shared_ptr<const Image> decodedImage(int index, const std::string& what) {
        if (!validIndex(index, m_model.images)) {
            fail(what + ": image " + std::to_string(index) + " is out of range (" +
                 std::to_string(m_model.images.size()) + " images)");
        }
        std::shared_ptr<const Image>& cached = m_images[static_cast<std::size_t>(index)];
        if (cached) {
            return cached;
        }
        const tinygltf::Image& source = m_model.images[static_cast<std::size_t>(index)];
        std::string name = "image " + std::to_string(index);
        if (!source.uri.empty() && source.uri.rfind("data:", 0) != 0) {
            name += " ('" + source.uri + "')";
        } else if (!source.name.empty()) {
            name += " ('" + source.name + "')";
        }
        if (source.image.empty()) {
            fail(name + " has no data: its file is missing or unreadable" +
                 (m_loadWarnings.empty() ? std::string() : " (" + m_loadWarnings + ")"));
        }
        if (source.image.size() > static_cast<std::size_t>(INT_MAX)) {
            fail(name + ": image data is larger than 2 GiB");
        }
        const std::optional<image::ImageSize> size =
            image::readImageSize(std::as_bytes(std::span(source.image)));
        if (size && (size->width > m_options.maxImageSide || size->height > m_options.maxImageSide)) {
            fail(name + " is " + std::to_string(size->width) + "x" + std::to_string(size->height) +
                 ", above the limit of " + std::to_string(m_options.maxImageSide) +
                 " on a side (ImportOptions::maxImageSide)");
        }
        // decodeImage reports corrupt data itself, its message starting with the name given.
        cached = std::make_shared<const Image>(
            image::decodeImage(std::as_bytes(std::span(source.image)), m_path + ": " + name));
        return cached;
    }

    std::string m_path;
    ImportOptions m_options;
    tinygltf::Model m_model;
    std::string m_loadWarnings;
    std::vector<std::optional<Material>> m_materials;
    std::vector<std::shared_ptr<const Image>> m_images;
    std::vector<SkinnedAside> m_skinnedAside;  ///< importScene: skinned mesh nodes to place
    std::vector<std::string> m_targetNames;  ///< of the mesh being imported
    /** KHR_mesh_quantization is in extensionsUsed: integer positions, normals, texture
     *  coordinates, morph deltas and instance transforms are allowed (the kQuantized rules). */
    bool m_quantized = false;
    /** One flag per buffer: a placeholder without data (EXT_meshopt_compression's fallback). */
    std::vector<bool> m_placeholders;
    /** One entry per buffer view: its decoded bytes when EXT_meshopt_compression compressed it. */
    std::vector<std::optional<std::vector<std::uint8_t>>> m_decodedViews;
    /** The accessors of the primitive being built, when KHR_draco_mesh_compression compressed
     *  it: accessor index -> its decoded elements, tightly packed (decodeDraco()). */
    std::map<int, std::vector<std::uint8_t>> m_dracoAccessors;
    /** Accessors given a bufferView only for tinygltf to load them (rewrittenFile()): read as
     *  accessors without one wherever Draco does not fill them. */
    std::set<int> m_dracoIndexPlaceholders;
    std::map<int, std::vector<std::size_t>> m_primitivesOfNode;  ///< morphing primitives per node
    std::map<int, std::size_t> m_targetCountOfNode;  ///< morph targets of a node's mesh, if any
    std::map<int, std::vector<MeshNode*>> m_morphNodesOfNode;  ///< importScene: morphing nodes
    std::map<std::pair<int, int>, std::optional<ScenePrimitive>> m_scenePrimitives;
    std::vector<ImportedSkin> m_skins;        ///< the skins read, in the order first used
    std::vector<int> m_skinSpaceNodes;        ///< per m_skins entry: its space's node, or -1
    std::map<int, std::size_t> m_skinSlots;   ///< glTF skin index -> index into m_skins
    std::set<int> m_jointNodes;               ///< nodes that are joints of a skin in m_skins
    std::vector<int> m_nodeParents;           ///< nodeParents()
    std::set<int> m_shearWarned;              ///< nodes whose shear was warned about
};

} // namespace

ImportedModel importModel(const std::string& path, const ImportOptions& options) {
    return Importer(path, options).run();
}

ImportedScene importScene(const std::string& path, const ImportOptions& options) {
    return Importer(path, options).runScene();
}

} // namespace myriad::gltf
