#include "myriad/gltf/GltfExporter.h"

#include "gltf/Decompose.h"

#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/MeshNode.h"
#include "myriad/util/Error.h"
#include "myriad/util/Log.h"

#include <tiny_gltf.h>

#include <glm/gtc/type_ptr.hpp>

#include <algorithm>
#include <bit>
#include <cstring>
#include <filesystem>
#include <map>
#include <utility>
#include <vector>

namespace myriad::gltf {
namespace {

static_assert(std::endian::native == std::endian::little,
              "glTF buffers are little endian (3.6.1.1); this writer copies memory as it is");

constexpr int kArrayBuffer = TINYGLTF_TARGET_ARRAY_BUFFER;
constexpr int kElementArrayBuffer = TINYGLTF_TARGET_ELEMENT_ARRAY_BUFFER;
constexpr const char* kInstancing = "EXT_mesh_gpu_instancing";
constexpr const char* kUnlit = "KHR_materials_unlit";
constexpr const char* kEmissiveStrength = "KHR_materials_emissive_strength";

bool sameMaterial(const Material& a, const Material& b) {
    return a.name == b.name && a.baseColor == b.baseColor && a.shading == b.shading &&
           a.alphaMode == b.alphaMode && a.alphaCutoff == b.alphaCutoff &&
           a.doubleSided == b.doubleSided && a.baseColorTexture == b.baseColorTexture && a.metallic == b.metallic &&
           a.roughness == b.roughness && a.emissive == b.emissive && a.emissiveStrength == b.emissiveStrength &&
           a.metallicRoughnessTexture.image == b.metallicRoughnessTexture.image &&
           a.normalTexture.image == b.normalTexture.image && a.occlusionTexture.image == b.occlusionTexture.image &&
           a.emissiveTexture.image == b.emissiveTexture.image;
}

std::string describe(const SceneNode& node) {
    return node.name().empty() ? "an unnamed node" : "node '" + node.name() + "'";
}

class Exporter {
public:
    Exporter(const std::string& path, const ExportOptions& options)
        : m_path(path), m_options(options) {
        m_model.asset.version = "2.0";
        m_model.asset.generator = "myriad";
        m_model.buffers.emplace_back();
    }

    void run(const SceneNode& root) {
        // Iterative: a deep hierarchy cannot overflow the stack. Parents are written first
        // and their children lists filled as the children get their indices.
        std::vector<std::pair<const SceneNode*, int>> stack{{&root, -1}};
        while (!stack.empty()) {
            const auto [node, parent] = stack.back();
            stack.pop_back();
            const int index = static_cast<int>(m_model.nodes.size());
            m_model.nodes.push_back(convertedNode(*node));
            if (parent >= 0) {
                m_model.nodes[static_cast<std::size_t>(parent)].children.push_back(index);
            }
            const auto children = node->childrenView();
            for (auto it = children.rbegin(); it != children.rend(); ++it) {
                stack.emplace_back(it->get(), index);
            }
        }
        tinygltf::Scene scene;
        scene.nodes.push_back(0);
        m_model.scenes.push_back(std::move(scene));
        m_model.defaultScene = 0;
        if (m_model.buffers[0].data.empty()) {
            m_model.buffers.clear();  // a tree without meshes: no buffer (3.6.1 needs bytes)
        }
        write();
    }

private:
    void warn(const std::string& what) const {
        log(LogLevel::Warning, "exportGltf " + m_path + ": " + what);
    }

    void useExtension(const char* name) {
        if (std::find(m_model.extensionsUsed.begin(), m_model.extensionsUsed.end(), name) ==
            m_model.extensionsUsed.end()) {
            m_model.extensionsUsed.emplace_back(name);
        }
    }

    tinygltf::Node convertedNode(const SceneNode& node) {
        tinygltf::Node out;
        out.name = node.name();
        const glm::dvec3& t = node.positionDouble();
        if (t != glm::dvec3(0.0)) {
            out.translation = {t.x, t.y, t.z};
        }
        const glm::quat& r = node.rotation();
        if (r != glm::quat(1.0f, 0.0f, 0.0f, 0.0f)) {
            out.rotation = {r.x, r.y, r.z, r.w};
        }
        const glm::vec3& s = node.scale();
        if (s != glm::vec3(1.0f)) {
            out.scale = {s.x, s.y, s.z};
        }
        if (node.isTinted()) {
            warn(describe(node) + ": its tint is not exported (glTF has no node colour)");
        }
        if (node.kind() == NodeKind::Group) {
            return out;
        }
        const MeshNode* drawn = asMeshNode(node);
        if (drawn == nullptr) {
            warn(describe(node) + ": particles and scatter nodes are not exported");
            return out;
        }
        const MeshNode& meshNode = *drawn;
        if (node.kind() == NodeKind::InstancedMesh) {
            const auto& batch = static_cast<const InstancedMeshNode&>(node);
            if (batch.count() == 0) {
                warn(describe(node) + ": a batch with no instances is written without its mesh "
                     "(an accessor cannot be empty)");
                return out;
            }
            if (batch.hasInstanceMorphWeights()) {
                warn(describe(node) + ": per-instance morph weights are not exported");
            }
            out.extensions[kInstancing] = instancingExtension(batch);
            useExtension(kInstancing);
        }
        out.mesh = meshIndex(meshNode);
        const std::span<const float> weights = meshNode.morphWeights();
        const std::vector<float>& defaults = meshNode.mesh()->defaultMorphWeights();
        if (!std::equal(weights.begin(), weights.end(), defaults.begin(), defaults.end())) {
            out.weights.assign(weights.begin(), weights.end());
        }
        return out;
    }

    /** Appends @p bytes to the buffer, 4-byte aligned (3.6.2.4), as a new buffer view. */
    int addBufferView(const void* bytes, std::size_t size, int target) {
        std::vector<unsigned char>& data = m_model.buffers[0].data;
        while (data.size() % 4 != 0) {
            data.push_back(0);
        }
        tinygltf::BufferView view;
        view.buffer = 0;
        view.byteOffset = data.size();
        view.byteLength = size;
        view.target = target;
        const auto* first = static_cast<const unsigned char*>(bytes);
        data.insert(data.end(), first, first + size);
        m_model.bufferViews.push_back(std::move(view));
        return static_cast<int>(m_model.bufferViews.size() - 1);
    }

    /** A float accessor over @p values (glm vectors, tightly packed); min/max when asked
     *  (3.6.2.5: required for POSITION, morph POSITION deltas). */
    template <glm::length_t N>
    int addFloatAccessor(const std::vector<glm::vec<N, float>>& values, int type, int target,
                         bool withBounds = false) {
        tinygltf::Accessor accessor;
        accessor.bufferView = addBufferView(values.data(), values.size() * sizeof(values[0]),
                                            target);
        accessor.componentType = TINYGLTF_COMPONENT_TYPE_FLOAT;
        accessor.type = type;
        accessor.count = values.size();
        if (withBounds) {
            glm::vec<N, float> low = values.front();
            glm::vec<N, float> high = values.front();
            for (const auto& v : values) {
                low = glm::min(low, v);
                high = glm::max(high, v);
            }
            for (glm::length_t c = 0; c < N; ++c) {
                accessor.minValues.push_back(low[c]);
                accessor.maxValues.push_back(high[c]);
            }
        }
        m_model.accessors.push_back(std::move(accessor));
        return static_cast<int>(m_model.accessors.size() - 1);
    }

    template <class Index>
    int addIndexAccessor(const std::vector<Index>& indices, int componentType) {
        tinygltf::Accessor accessor;
        accessor.bufferView = addBufferView(indices.data(), indices.size() * sizeof(Index),
                                            kElementArrayBuffer);
        accessor.componentType = componentType;
        accessor.type = TINYGLTF_TYPE_SCALAR;
        accessor.count = indices.size();
        m_model.accessors.push_back(std::move(accessor));
        return static_cast<int>(m_model.accessors.size() - 1);
    }

    int materialIndex(const Material& material) {
        for (std::size_t i = 0; i < m_materials.size(); ++i) {
            if (sameMaterial(m_materials[i], material)) {
                return static_cast<int>(i);
            }
        }
        tinygltf::Material out;
        out.name = material.name;
        const glm::vec4& c = material.baseColor;
        out.pbrMetallicRoughness.baseColorFactor = {c.r, c.g, c.b, c.a};
        // Lambert (Lit) is closest to a rough dielectric; metallic-roughness keeps its factors.
        const bool metallicRoughness = material.shading == Shading::MetallicRoughness;
        out.pbrMetallicRoughness.metallicFactor = metallicRoughness ? std::clamp(material.metallic, 0.0f, 1.0f) : 0.0;
        out.pbrMetallicRoughness.roughnessFactor = metallicRoughness ? std::clamp(material.roughness, 0.0f, 1.0f) : 1.0;
        if (material.emissive != glm::vec3(0.0f) && material.emissiveStrength > 0.0f) {
            // glTF's factor is 0..1: a brighter emission goes into KHR_materials_emissive_strength.
            const glm::vec3 emission = material.emissive * material.emissiveStrength;
            const float strength = std::max({emission.r, emission.g, emission.b, 1.0f});
            out.emissiveFactor = {emission.r / strength, emission.g / strength, emission.b / strength};
            if (strength > 1.0f) {
                tinygltf::Value::Object extension;
                extension["emissiveStrength"] = tinygltf::Value(static_cast<double>(strength));
                out.extensions[kEmissiveStrength] = tinygltf::Value(std::move(extension));
                useExtension(kEmissiveStrength);
            }
        }
        switch (material.alphaMode) {
        case AlphaMode::Opaque: out.alphaMode = "OPAQUE"; break;
        case AlphaMode::Mask:
            out.alphaMode = "MASK";
            out.alphaCutoff = material.alphaCutoff;
            break;
        case AlphaMode::Blend: out.alphaMode = "BLEND"; break;
        }
        out.doubleSided = material.doubleSided;
        if (material.shading == Shading::Unlit) {
            out.extensions[kUnlit] = tinygltf::Value(tinygltf::Value::Object{});
            useExtension(kUnlit);
        }
        if (material.baseColorTexture || material.metallicRoughnessTexture || material.normalTexture ||
            material.occlusionTexture || material.emissiveTexture || material.lightmapTexture) {
            // Images are not encoded (no PNG writer here): the factors are written, the
            // textures, their sets and transforms are not; TEXCOORD_1 and TANGENT are.
            warn("material '" + material.name + "': its textures are not exported");
        }
        m_materials.push_back(material);
        m_model.materials.push_back(std::move(out));
        return static_cast<int>(m_model.materials.size() - 1);
    }

    /** One glTF primitive: the geometry's attributes, indices and morph targets. */
    tinygltf::Primitive makePrimitive(const MeshGeometry& geometry, int material) {
        const MeshData& data = geometry.data();
        tinygltf::Primitive primitive;
        primitive.mode = TINYGLTF_MODE_TRIANGLES;
        primitive.material = material;
        primitive.attributes["POSITION"] =
            addFloatAccessor(data.positions, TINYGLTF_TYPE_VEC3, kArrayBuffer, true);
        if (!data.normals.empty()) {
            primitive.attributes["NORMAL"] =
                addFloatAccessor(data.normals, TINYGLTF_TYPE_VEC3, kArrayBuffer);
        }
        if (!data.uv0.empty()) {
            primitive.attributes["TEXCOORD_0"] =
                addFloatAccessor(data.uv0, TINYGLTF_TYPE_VEC2, kArrayBuffer);
        }
        if (!data.uv1.empty()) {
            primitive.attributes["TEXCOORD_1"] = addFloatAccessor(data.uv1, TINYGLTF_TYPE_VEC2, kArrayBuffer);
        }
        if (!data.tangents.empty()) {
            primitive.attributes["TANGENT"] = addFloatAccessor(data.tangents, TINYGLTF_TYPE_VEC4, kArrayBuffer);
        }
        if (!data.colors.empty()) {
            primitive.attributes["COLOR_0"] =
                addFloatAccessor(data.colors, TINYGLTF_TYPE_VEC4, kArrayBuffer);
        }
        primitive.indices =
            data.indices16.empty()
                ? addIndexAccessor(data.indices32, TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT)
                : addIndexAccessor(data.indices16, TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT);
        for (const MorphTarget& target : data.morphTargets) {
            std::map<std::string, int> attributes;
            attributes["POSITION"] =
                addFloatAccessor(target.positionDeltas, TINYGLTF_TYPE_VEC3, kArrayBuffer, true);
            if (!target.normalDeltas.empty()) {
                attributes["NORMAL"] =
                    addFloatAccessor(target.normalDeltas, TINYGLTF_TYPE_VEC3, kArrayBuffer);
            }
            primitive.targets.push_back(std::move(attributes));
        }
        return primitive;
    }

    /** The glTF mesh of @p node: one primitive per MeshNode primitive (glTF 2.0 section
     *  3.7.2), written once per distinct list of (mesh, material). */
    int meshIndex(const MeshNode& node) {
        MeshKey key;
        for (std::size_t p = 0; p < node.primitiveCount(); ++p) {
            key.emplace_back(node.primitiveMesh(p).get(), materialIndex(node.primitiveMaterial(p)));
        }
        if (const auto found = m_meshes.find(key); found != m_meshes.end()) {
            return found->second;
        }
        const MeshGeometry& geometry = *node.mesh();
        tinygltf::Mesh mesh;
        mesh.name = geometry.name();
        for (const auto& [primitiveMesh, material] : key) {
            mesh.primitives.push_back(makePrimitive(*primitiveMesh, material));
        }
        const MeshData& data = geometry.data();
        if (!data.morphTargets.empty()) {
            tinygltf::Value::Array targetNames;
            for (const MorphTarget& target : data.morphTargets) {
                targetNames.emplace_back(target.name);
            }
            const std::vector<float>& weights = geometry.defaultMorphWeights();
            mesh.weights.assign(weights.begin(), weights.end());
            mesh.extras = tinygltf::Value(tinygltf::Value::Object{
                {"targetNames", tinygltf::Value(std::move(targetNames))}});
        }
        m_model.meshes.push_back(std::move(mesh));
        const int index = static_cast<int>(m_model.meshes.size() - 1);
        m_meshes.emplace(std::move(key), index);
        return index;
    }

    /** TRANSLATION, ROTATION, SCALE from each drawn record, _COLOR_0 when one is not white. */
    tinygltf::Value instancingExtension(const InstancedMeshNode& batch) {
        const std::size_t count = batch.count();
        std::vector<glm::vec3> translations(count);
        std::vector<glm::vec4> rotations(count);
        std::vector<glm::vec3> scales(count);
        std::vector<glm::vec4> colors(count);
        bool allWhite = true;
        for (std::size_t i = 0; i < count; ++i) {
            const detail::Trs trs =
                detail::decomposeAffine(glm::dmat4(batch.readTransform(i)), m_options.shearTolerance);
            if (trs.lossy) {
                throw InvalidArgument(
                    "exportGltf " + m_path + ": " + describe(batch) + ", instance " +
                    std::to_string(i) + ": its transform is sheared, which "
                    "EXT_mesh_gpu_instancing (translation, rotation, scale) cannot represent");
            }
            translations[i] = glm::vec3(trs.translation);
            rotations[i] = glm::vec4(trs.rotation.x, trs.rotation.y, trs.rotation.z, trs.rotation.w);
            scales[i] = glm::vec3(trs.scale);
            colors[i] = batch.readColor(i);
            allWhite = allWhite && colors[i] == glm::vec4(1.0f);
        }
        // Instance data is not vertex data: no buffer view target (the extension's own files
        // leave it out too).
        tinygltf::Value::Object attributes;
        attributes["TRANSLATION"] =
            tinygltf::Value(addFloatAccessor(translations, TINYGLTF_TYPE_VEC3, 0));
        attributes["ROTATION"] = tinygltf::Value(addFloatAccessor(rotations, TINYGLTF_TYPE_VEC4, 0));
        attributes["SCALE"] = tinygltf::Value(addFloatAccessor(scales, TINYGLTF_TYPE_VEC3, 0));
        if (!allWhite) {
            attributes["_COLOR_0"] = tinygltf::Value(addFloatAccessor(colors, TINYGLTF_TYPE_VEC4, 0));
        }
        return tinygltf::Value(tinygltf::Value::Object{
            {"attributes", tinygltf::Value(std::move(attributes))}});
    }

    void write() {
        const bool binary = std::filesystem::path(m_path).extension() == ".glb";
        tinygltf::TinyGLTF writer;
        // embedImages: no images are written; embedBuffers false: a .gltf gets "<stem>.bin".
        if (!writer.WriteGltfSceneToFile(&m_model, m_path, false, false, true, binary)) {
            throw Error("exportGltf " + m_path + ": cannot write the file (or its .bin)");
        }
    }

    std::string m_path;
    ExportOptions m_options;
    tinygltf::Model m_model;
    std::vector<Material> m_materials;  ///< parallel to m_model.materials
    using MeshKey = std::vector<std::pair<const MeshGeometry*, int>>;
    std::map<MeshKey, int> m_meshes;
};

} // namespace

void exportGltf(const SceneNode& root, const std::string& path, const ExportOptions& options) {
    Exporter(path, options).run(root);
}

} // namespace myriad::gltf
