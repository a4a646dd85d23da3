#include "myriad/gl/Renderer.h"

#include "gl/GlCommon.h"
#include "gl/StagingRing.h"
#include "myriad/core/Camera.h"
#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/MeshNode.h"
#include "myriad/core/Scene.h"
#include "myriad/gl/Buffer.h"
#include "myriad/gl/Draw.h"
#include "myriad/gl/Loader.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/Program.h"
#include "myriad/gl/Texture.h"
#include "myriad/gl/VertexArray.h"
#include "myriad/util/Error.h"
#include "myriad/util/Log.h"

#include <glm/geometric.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

namespace myriad::gl {
namespace {

constexpr std::uint64_t kKeepUnusedFrames = 120;
constexpr std::uint32_t kVertexBinding = 0;
constexpr std::uint32_t kInstanceBinding = 1;

/** Interleaved per-vertex data as uploaded: 48 bytes. */
struct GpuVertex {
    glm::vec3 position;  ///< location 0
    glm::vec3 normal;    ///< location 1
    glm::vec2 uv0;       ///< location 2
    glm::vec4 color;     ///< location 3
};
static_assert(sizeof(GpuVertex) == 48);

/** The layout of a mesh's vertex buffer, plus (for batches) the instance record binding. */
VertexLayoutDesc meshLayout(bool instanced, std::string_view label) {
    VertexLayoutDesc desc;
    desc.bindings.push_back({kVertexBinding, sizeof(GpuVertex), 0});
    desc.attributes = {
        {location::kPosition, AttributeFormat::Float3, offsetof(GpuVertex, position), kVertexBinding},
        {location::kNormal, AttributeFormat::Float3, offsetof(GpuVertex, normal), kVertexBinding},
        {location::kUv0, AttributeFormat::Float2, offsetof(GpuVertex, uv0), kVertexBinding},
        {location::kColor, AttributeFormat::Float4, offsetof(GpuVertex, color), kVertexBinding},
    };
    if (instanced) {
        desc.bindings.push_back({kInstanceBinding, sizeof(InstanceRecord), 1});
        desc.attributes.push_back({location::kInstanceRow0, AttributeFormat::Float4,
                                   offsetof(InstanceRecord, row0), kInstanceBinding});
        desc.attributes.push_back({location::kInstanceRow1, AttributeFormat::Float4,
                                   offsetof(InstanceRecord, row1), kInstanceBinding});
        desc.attributes.push_back({location::kInstanceRow2, AttributeFormat::Float4,
                                   offsetof(InstanceRecord, row2), kInstanceBinding});
        desc.attributes.push_back({location::kInstanceColor, AttributeFormat::Float4,
                                   offsetof(InstanceRecord, color), kInstanceBinding});
    }
    desc.label = label;
    return desc;
}

struct SurfaceUniforms {
    int viewProjection = -1;
    int model = -1;
    int baseColor = -1;
    int hasTexture = -1;
    int lit = -1;
    int alphaCutoff = -1;
    int opaque = -1;
    int lightDirection = -1;
    int lightColor = -1;
    int ambient = -1;
    int tint = -1;
    int discardBackFaces = -1;
    int morphTargetCount = -1;
    int vertexCount = -1;
    int morphWeights = -1;
    int instancesPerRow = -1;
    int baseInstance = -1;

    explicit SurfaceUniforms(const Program& program)
        : viewProjection(program.uniformLocation("u_viewProjection")),
          model(program.uniformLocation("u_model")),
          baseColor(program.uniformLocation("u_baseColor")),
          hasTexture(program.uniformLocation("u_hasTexture")),
          lit(program.uniformLocation("u_lit")),
          alphaCutoff(program.uniformLocation("u_alphaCutoff")),
          opaque(program.uniformLocation("u_opaque")),
          lightDirection(program.uniformLocation("u_lightDirection")),
          lightColor(program.uniformLocation("u_lightColor")),
          ambient(program.uniformLocation("u_ambient")),
          tint(program.uniformLocation("u_tint")),
          discardBackFaces(program.uniformLocation("u_discardBackFaces")),
          morphTargetCount(program.uniformLocation("u_morphTargetCount")),
          vertexCount(program.uniformLocation("u_vertexCount")),
          morphWeights(program.uniformLocation("u_morphWeights")),
          instancesPerRow(program.uniformLocation("u_instancesPerRow")),
          baseInstance(program.uniformLocation("u_baseInstance")) {}
};

float srgbEncode(float c) {
    c = std::clamp(c, 0.0f, 1.0f);
    return c <= 0.0031308f ? c * 12.92f : 1.055f * std::pow(c, 1.0f / 2.4f) - 0.055f;
}

LogLevel levelOf(GLenum severity) {
    switch (severity) {
    case GL_DEBUG_SEVERITY_HIGH: return LogLevel::Error;
    case GL_DEBUG_SEVERITY_MEDIUM: return LogLevel::Warning;
    case GL_DEBUG_SEVERITY_LOW: return LogLevel::Info;
    default: return LogLevel::Debug;
    }
}

void GLAD_API_PTR debugMessage(GLenum /*source*/, GLenum /*type*/, GLuint id, GLenum severity,
                               GLsizei length, const GLchar* message, const void* /*user*/) {
    std::string text = "GL debug #" + std::to_string(id) + ": ";
    text.append(message, length >= 0 ? static_cast<std::size_t>(length) : std::strlen(message));
    log(levelOf(severity), text);
}

std::string labelFor(const SceneNode& node, std::string_view role) {
    return (node.name().empty() ? "node#" + std::to_string(node.id()) : node.name()) + "/" +
           std::string(role);
}

/** The six planes of a view-projection matrix (Gribb and Hartmann, "Fast Extraction of Viewing
 *  Frustum Planes from the World-View-Projection Matrix", 2001), normalised so a plane's
 *  dot with (point, 1) is a signed distance. */
struct Frustum {
    glm::vec4 planes[6];

    explicit Frustum(const glm::mat4& m) {
        const glm::vec4 row0(m[0][0], m[1][0], m[2][0], m[3][0]);
        const glm::vec4 row1(m[0][1], m[1][1], m[2][1], m[3][1]);
        const glm::vec4 row2(m[0][2], m[1][2], m[2][2], m[3][2]);
        const glm::vec4 row3(m[0][3], m[1][3], m[2][3], m[3][3]);
        planes[0] = row3 + row0;
        planes[1] = row3 - row0;
        planes[2] = row3 + row1;
        planes[3] = row3 - row1;
        planes[4] = row3 + row2;
        planes[5] = row3 - row2;
        for (glm::vec4& plane : planes) {
            const float length = glm::length(glm::vec3(plane));
            plane = length > 0.0f ? plane / length : plane;
        }
    }

    [[nodiscard]] bool intersectsSphere(const glm::vec3& centre, float radius) const noexcept {
        for (const glm::vec4& plane : planes) {
            if (glm::dot(glm::vec3(plane), centre) + plane.w < -radius) {
                return false;
            }
        }
        return true;
    }
};

/** Adds the lifetime of the timer to a FrameStats field, in milliseconds. */
class PhaseTimer {
public:
    explicit PhaseTimer(double& total) noexcept : m_total(total), m_start(std::chrono::steady_clock::now()) {}
    ~PhaseTimer() {
        m_total += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - m_start).count();
    }
    PhaseTimer(const PhaseTimer&) = delete;
    PhaseTimer& operator=(const PhaseTimer&) = delete;

private:
    double& m_total;
    std::chrono::steady_clock::time_point m_start;
};

} // namespace

struct Renderer::Impl {
    struct MeshGpu {
        std::shared_ptr<const MeshGeometry> mesh;  // keeps the id from being reused
        Buffer vertices;
        Buffer indices;
        VertexArray vertexArray;
        Buffer morphDeltas;                   // 2 RGBA32F texels per (target, vertex)
        detail::TextureHandle morphTargets;   // GL_TEXTURE_BUFFER view of morphDeltas
        std::uint64_t lastUsedFrame = 0;
    };
    struct BatchGpu {
        std::weak_ptr<const void> node;  // expires with the node: its GPU copy goes at once
        std::uint64_t meshId = 0;
        std::size_t capacity = 0;
        Buffer instances;
        VertexArray vertexArray;
        std::uint64_t uploadedVersion = 0;
        std::size_t uploadedCount = 0;
        std::uint64_t lastUsedFrame = 0;
        detail::TextureHandle morphWeights;  // made when the batch first has its own weights
        std::size_t weightsCapacity = 0;
        std::uint32_t instancesPerRow = 0;
        std::uint64_t uploadedWeightsVersion = 0;
    };
    struct TextureGpu {
        std::shared_ptr<const Image> image;
        Texture2D texture;
        std::uint64_t lastUsedFrame = 0;
    };
    struct DrawItem {
        const MeshNode* node = nullptr;
        float distance = 0.0f;  ///< camera to node origin, for back-to-front blending
    };

    /** One program per shader variant, compiled on first use: a scene without morphing never
     *  compiles the morph variants. Index: instanced | morph << 1 | per-instance weights << 2. */
    struct ProgramVariant {
        Program program;
        SurfaceUniforms uniforms;
        std::uint64_t frameUniformsFrame = 0;  ///< the frame whose camera and light it holds
        explicit ProgramVariant(Program p) : program(std::move(p)), uniforms(program) {}
    };
    std::array<std::unique_ptr<ProgramVariant>, 8> variants;
    RendererDesc desc;
    std::unordered_map<std::uint64_t, MeshGpu> meshes;
    std::unordered_map<std::uint64_t, BatchGpu> batches;
    std::unordered_map<const Image*, TextureGpu> textures;
    std::vector<DrawItem> opaqueItems;
    std::vector<DrawItem> blendItems;
    std::vector<IndexRange> uploadRanges;  // scratch, reused: no per-frame allocation
    detail::StagingRing ring;  // fixed 4 MiB; big uploads stream through it in chunks
    glm::dvec3 eye{0.0};
    glm::vec3 lightDirection{0.0f, -1.0f, 0.0f};  ///< normalised once per frame
    std::uint32_t cameraMask = 0xFFFFFFFFu;
    FrameStats stats;
    std::uint64_t frame = 0;
    const Program* boundProgram = nullptr;

    explicit Impl(const RendererDesc& rendererDesc) : desc(rendererDesc) {
        // The two plain variants up front, so a broken driver fails at construction.
        (void)variant(false, false, false);
        (void)variant(true, false, false);
    }

    ProgramVariant& variant(bool instanced, bool morph, bool instanceWeights) {
        const std::size_t index = (instanced ? 1u : 0u) | (morph ? 2u : 0u) | (instanceWeights ? 4u : 0u);
        if (!variants[index]) {
            std::string defines;
            std::string label = instanced ? "myriad/InstancedMeshNode.program" : "myriad/MeshNode.program";
            if (morph) {
                defines += "#define MYRIAD_MORPH 1\n";
                label += "+morph";
            }
            if (instanceWeights) {
                defines += "#define MYRIAD_INSTANCE_MORPH_WEIGHTS 1\n";
                label += "+instance-weights";
            }
            variants[index] = std::make_unique<ProgramVariant>(Program::fromEmbedded(
                instanced ? "instanced_mesh.vert" : "mesh.vert", "mesh.frag", label, defines));
        }
        return *variants[index];
    }

    MeshGpu& meshGpu(const std::shared_ptr<const MeshGeometry>& mesh) {
        auto it = meshes.find(mesh->id());
        if (it == meshes.end()) {
            it = meshes.emplace(mesh->id(), createMeshGpu(mesh)).first;
        }
        it->second.lastUsedFrame = frame;
        return it->second;
    }

    MeshGpu createMeshGpu(const std::shared_ptr<const MeshGeometry>& mesh) {
        const MeshData& data = mesh->data();
        std::vector<GpuVertex> vertices(data.positions.size());
        for (std::size_t i = 0; i < vertices.size(); ++i) {
            vertices[i].position = data.positions[i];
            vertices[i].normal = data.normals[i];
            vertices[i].uv0 = data.uv0.empty() ? glm::vec2(0.0f) : data.uv0[i];
            vertices[i].color = data.colors.empty() ? glm::vec4(1.0f) : data.colors[i];
        }
        const std::string name = mesh->name().empty() ? "mesh#" + std::to_string(mesh->id())
                                                      : mesh->name();
        MeshGpu gpu;
        gpu.mesh = mesh;
        gpu.vertices = Buffer({.initialData = std::as_bytes(std::span(vertices)),
                               .label = name + "/MeshGeometry.vertices"});
        const std::span<const std::byte> indexBytes =
            mesh->indexType() == IndexType::UInt16 ? std::as_bytes(std::span(data.indices16))
                                                   : std::as_bytes(std::span(data.indices32));
        gpu.indices = Buffer({.initialData = indexBytes, .label = name + "/MeshGeometry.indices"});
        gpu.vertexArray = VertexArray(meshLayout(false, name + "/MeshGeometry.vertex-array"));
        gpu.vertexArray.setVertexBuffer(kVertexBinding, gpu.vertices);
        gpu.vertexArray.setIndexBuffer(gpu.indices, mesh->indexType(), mesh->vertexCount() - 1);
        stats.bytesUploaded += gpu.vertices.sizeBytes() + gpu.indices.sizeBytes();
        if (mesh->morphTargetCount() > 0) {
            std::vector<glm::vec4> deltas(2 * mesh->morphTargetCount() * mesh->vertexCount(), glm::vec4(0.0f));
            for (std::size_t t = 0; t < mesh->morphTargetCount(); ++t) {
                const MorphTarget& target = data.morphTargets[t];
                for (std::size_t v = 0; v < mesh->vertexCount(); ++v) {
                    const std::size_t texel = 2 * (t * mesh->vertexCount() + v);
                    deltas[texel] = glm::vec4(target.positionDeltas[v], 0.0f);
                    if (!target.normalDeltas.empty()) {
                        deltas[texel + 1] = glm::vec4(target.normalDeltas[v], 0.0f);
                    }
                }
            }
            gpu.morphDeltas = Buffer({.initialData = std::as_bytes(std::span(deltas)),
                                      .label = name + "/MeshGeometry.morph-targets"});
            gpu.morphTargets = detail::TextureHandle(GL_TEXTURE_BUFFER);
            glTextureBuffer(gpu.morphTargets.id(), GL_RGBA32F, gpu.morphDeltas.id());
            detail::setLabel(GL_TEXTURE, gpu.morphTargets.id(), name + "/MeshGeometry.morph-texture");
            stats.bytesUploaded += gpu.morphDeltas.sizeBytes();
        }
        return gpu;
    }

    BatchGpu& batchGpu(const InstancedMeshNode& node, MeshGpu& mesh) {
        BatchGpu& batch = batches[node.id()];
        batch.lastUsedFrame = frame;
        if (batch.node.expired()) {
            batch.node = node.lifetime();
        }
        if (batch.meshId != node.mesh()->id() || batch.capacity < node.capacity()) {
            // First use, a new mesh, or a grown batch: a new buffer of the full capacity, so
            // later growth within it costs no reallocation. Written only by GPU copies from the
            // staging ring, never mapped: the GPU may be reading it.
            batch.instances = Buffer({.sizeBytes = node.capacity() * sizeof(InstanceRecord),
                                      .label = labelFor(node, "InstancedMeshNode.instances")});
            batch.vertexArray =
                VertexArray(meshLayout(true, labelFor(node, "InstancedMeshNode.vertex-array")));
            batch.vertexArray.setVertexBuffer(kVertexBinding, mesh.vertices);
            batch.vertexArray.setVertexBuffer(kInstanceBinding, batch.instances);
            batch.vertexArray.setIndexBuffer(mesh.indices, node.mesh()->indexType(),
                                             node.mesh()->vertexCount() - 1);
            batch.meshId = node.mesh()->id();
            batch.capacity = node.capacity();
            batch.uploadedVersion = 0;
            batch.uploadedCount = 0;
        }
        if (batch.uploadedVersion != node.dataVersion()) {
            upload(node, batch);
        }
        return batch;
    }

    // Sends what changed since this renderer's last upload: the dirty ranges when the node's
    // change log starts at the version uploaded here, else every drawn record.
    void upload(const InstancedMeshNode& node, BatchGpu& batch) {
        const PhaseTimer timer(stats.uploadMs);
        const std::size_t count = node.count();
        uploadRanges.clear();
        if (batch.uploadedVersion != 0 && batch.uploadedVersion == node.dirtyBaseVersion()) {
            for (const IndexRange& range : node.dirtyRanges()) {
                const std::size_t end = std::min(range.end, count);
                if (range.begin < end) {
                    uploadRanges.push_back({range.begin, end});
                }
            }
            mergeIndexRanges(uploadRanges, kDirtyRangeMergeGap);
        } else if (count > 0) {
            uploadRanges.push_back({0, count});
        }
        std::size_t bytes = 0;
        for (const IndexRange& range : uploadRanges) {
            bytes += (range.end - range.begin) * sizeof(InstanceRecord);
        }
        if (bytes > 0) {
            const std::byte* records = node.instanceBytes().data();
            for (const IndexRange& range : uploadRanges) {
                ring.copy(batch.instances.id(), range.begin * sizeof(InstanceRecord),
                          records + range.begin * sizeof(InstanceRecord),
                          (range.end - range.begin) * sizeof(InstanceRecord));
            }
            stats.bytesUploaded += bytes;
            stats.uploadRanges += static_cast<std::uint32_t>(uploadRanges.size());
        }
        batch.uploadedVersion = node.dataVersion();
        batch.uploadedCount = count;
        node.uploadDone();
    }


    // The batch's per-instance morph weights as an RGBA32F texture, rows wrapped at
    // instancesPerRow; only rows holding changed instances are sent.
    void uploadMorphWeights(const InstancedMeshNode& node, BatchGpu& batch) {
        const PhaseTimer timer(stats.uploadMs);
        constexpr std::size_t kTexelsPerInstance = kMaxMorphTargets / 4;
        const std::span<const float> weights = node.instanceMorphWeightData();
        const std::size_t capacity = node.capacity();
        bool full = batch.uploadedWeightsVersion == 0 ||
                    batch.uploadedWeightsVersion != node.dirtyMorphWeightsBaseVersion();
        if (batch.morphWeights.id() == 0 || batch.weightsCapacity < capacity) {
            GLint maxSize = 0;
            glGetIntegerv(GL_MAX_TEXTURE_SIZE, &maxSize);
            const std::size_t widest = static_cast<std::size_t>(maxSize) / kTexelsPerInstance;
            std::size_t perRow = desc.morphWeightsInstancesPerRow != 0 ? desc.morphWeightsInstancesPerRow : capacity;
            perRow = std::clamp<std::size_t>(perRow, 1, widest);
            const std::size_t rows = (capacity + perRow - 1) / perRow;
            if (rows > static_cast<std::size_t>(maxSize)) {
                throw GlError("gl::Renderer: batch '" + node.name() + "' needs a " + std::to_string(rows) +
                              "-row morph-weights texture, above GL_MAX_TEXTURE_SIZE " + std::to_string(maxSize));
            }
            batch.morphWeights = detail::TextureHandle(GL_TEXTURE_2D);
            glTextureStorage2D(batch.morphWeights.id(), 1, GL_RGBA32F,
                               static_cast<GLsizei>(perRow * kTexelsPerInstance), static_cast<GLsizei>(rows));
            glTextureParameteri(batch.morphWeights.id(), GL_TEXTURE_MIN_FILTER, GL_NEAREST);
            glTextureParameteri(batch.morphWeights.id(), GL_TEXTURE_MAG_FILTER, GL_NEAREST);
            detail::setLabel(GL_TEXTURE, batch.morphWeights.id(), labelFor(node, "InstancedMeshNode.morph-weights"));
            batch.weightsCapacity = capacity;
            batch.instancesPerRow = static_cast<std::uint32_t>(perRow);
            full = true;
        }
        const std::size_t perRow = batch.instancesPerRow;
        const std::size_t rowFloats = perRow * kMaxMorphTargets;
        auto sendRows = [&](std::size_t firstRow, std::size_t endRow) {
            // Whole rows, except a last row that the CPU array ends inside.
            const std::size_t fullEnd = std::min(endRow, capacity / perRow);
            if (firstRow < fullEnd) {
                glTextureSubImage2D(batch.morphWeights.id(), 0, 0, static_cast<GLint>(firstRow),
                                    static_cast<GLsizei>(perRow * kTexelsPerInstance),
                                    static_cast<GLsizei>(fullEnd - firstRow), GL_RGBA, GL_FLOAT,
                                    weights.data() + firstRow * rowFloats);
                stats.bytesUploaded += (fullEnd - firstRow) * rowFloats * sizeof(float);
            }
            const std::size_t partialRow = std::max(firstRow, fullEnd);
            if (partialRow < endRow) {
                const std::size_t instances = capacity - partialRow * perRow;
                glTextureSubImage2D(batch.morphWeights.id(), 0, 0, static_cast<GLint>(partialRow),
                                    static_cast<GLsizei>(instances * kTexelsPerInstance), 1, GL_RGBA,
                                    GL_FLOAT, weights.data() + partialRow * rowFloats);
                stats.bytesUploaded += instances * kMaxMorphTargets * sizeof(float);
            }
        };
        glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
        const std::size_t rows = (capacity + perRow - 1) / perRow;
        if (full) {
            sendRows(0, rows);
        } else {
            for (const IndexRange& range : node.dirtyMorphWeightRanges()) {
                const std::size_t end = std::min(range.end, capacity);
                if (range.begin < end) {
                    sendRows(range.begin / perRow, (end - 1) / perRow + 1);
                }
            }
        }
        batch.uploadedWeightsVersion = node.morphWeightsVersion();
        node.morphWeightsUploadDone();
    }

    const Texture2D* texture(const Material& material) {
        if (!material.baseColorTexture) {
            return nullptr;
        }
        auto it = textures.find(material.baseColorTexture.get());
        if (it == textures.end()) {
            TextureGpu gpu;
            gpu.image = material.baseColorTexture;
            gpu.texture = Texture2D(*material.baseColorTexture,
                                    {.srgb = true,
                                     .nearestFilter = material.nearestFilter,
                                     .label = material.name + "/Material.baseColorTexture"});
            stats.bytesUploaded += material.baseColorTexture->pixels.size();
            it = textures.emplace(material.baseColorTexture.get(), std::move(gpu)).first;
        }
        it->second.lastUsedFrame = frame;
        return &it->second.texture;
    }

    void collect(const SceneNode& node, const Frustum& frustum) {
        if (!node.visible()) {
            return;
        }
        if (node.kind() != NodeKind::Group && (node.layerMask() & cameraMask) != 0) {
            const auto& meshNode = static_cast<const MeshNode&>(node);
            const bool empty = node.kind() == NodeKind::InstancedMesh &&
                               static_cast<const InstancedMeshNode&>(node).count() == 0;
            if (!empty) {
                // The whole batch is one sphere around every instance (never the mesh's own
                // sphere at the node origin), tested camera-relative in float.
                const glm::vec3 centre(meshNode.worldBoundsCentre() - eye);
                if (meshNode.frustumCulled() &&
                    !frustum.intersectsSphere(centre, meshNode.worldBoundsRadius())) {
                    ++stats.culledNodes;
                } else {
                    DrawItem item{&meshNode, glm::length(centre)};
                    (meshNode.drawsTransparent() ? blendItems : opaqueItems).push_back(item);
                }
            }
        }
        for (const auto& child : node.childrenView()) {
            collect(*child, frustum);
        }
    }

    void useProgram(const Program& program) {
        if (boundProgram != &program) {
            program.use();
            boundProgram = &program;
            ++stats.programBinds;
        }
    }

    // Back faces: fixed-function culling when every drawn copy has the same handedness (GL_FRONT
    // for mirrored ones, whose front faces wind clockwise on screen), per-fragment when a batch
    // mixes mirrored and ordinary instances, none for double-sided materials.
    void setFaceCulling(const MeshNode& node, bool instanced, const Program& program,
                        const SurfaceUniforms& u) {
        bool discardBackFaces = false;
        if (node.material().doubleSided) {
            glDisable(GL_CULL_FACE);
        } else {
            bool mirrored = node.worldIsMirrored();
            bool mixed = false;
            if (instanced) {
                const auto& batch = static_cast<const InstancedMeshNode&>(node);
                const std::size_t mirroredInstances = batch.mirroredCount();
                mixed = mirroredInstances != 0 && mirroredInstances != batch.count();
                mirrored = mirrored != (mirroredInstances != 0 && !mixed);
            }
            if (mixed) {
                glDisable(GL_CULL_FACE);
                discardBackFaces = true;
            } else {
                glEnable(GL_CULL_FACE);
                glCullFace(mirrored ? GL_FRONT : GL_BACK);
            }
        }
        program.setUniform(u.discardBackFaces, discardBackFaces ? 1 : 0);
    }

    void draw(const DrawItem& item, const Scene& scene, const glm::mat4& viewProjection) {
        const MeshNode& node = *item.node;
        const Material& material = node.material();
        const bool instanced = node.kind() == NodeKind::InstancedMesh;
        const MeshGeometry& geometry = *node.mesh();
        const bool morph = geometry.morphTargetCount() > 0;
        const bool instanceWeights =
            instanced && morph && static_cast<const InstancedMeshNode&>(node).hasInstanceMorphWeights();
        ProgramVariant& chosen = variant(instanced, morph, instanceWeights);
        const Program& program = chosen.program;
        const SurfaceUniforms& u = chosen.uniforms;
        useProgram(program);

        MeshGpu& mesh = meshGpu(node.mesh());
        if (morph) {
            glBindTextureUnit(1, mesh.morphTargets.id());
            program.setUniform(u.morphTargetCount, static_cast<int>(geometry.morphTargetCount()));
            program.setUniform(u.vertexCount, static_cast<int>(geometry.vertexCount()));
            program.setUniform(u.morphWeights, node.morphWeights());
        }
        const Texture2D* baseColorTexture = texture(material);
        if (baseColorTexture != nullptr) {
            baseColorTexture->bind(0);
        }
        if (chosen.frameUniformsFrame != frame) {
            // Camera and light are the same for every draw of the frame: once per program.
            program.setUniform(u.viewProjection, viewProjection);
            program.setUniform(u.lightDirection, lightDirection);
            program.setUniform(u.lightColor, scene.light.color * scene.light.intensity);
            program.setUniform(u.ambient, scene.ambient);
            chosen.frameUniformsFrame = frame;
        }
        glm::mat4 model(node.worldLinear());
        model[3] = glm::vec4(glm::vec3(node.worldTranslation() - eye), 1.0f);
        program.setUniform(u.model, model);
        program.setUniform(u.tint, node.tint());
        program.setUniform(u.baseColor, material.baseColor);
        program.setUniform(u.hasTexture, baseColorTexture != nullptr ? 1 : 0);
        program.setUniform(u.lit, material.shading == Shading::Lit ? 1 : 0);
        program.setUniform(u.alphaCutoff,
                           material.alphaMode == AlphaMode::Mask ? material.alphaCutoff : -1.0f);
        program.setUniform(u.opaque, node.drawsTransparent() ? 0 : 1);
        setFaceCulling(node, instanced, program, u);

        std::uint32_t instanceCount = 1;
        const VertexArray* vertexArray = &mesh.vertexArray;
        if (instanced) {
            const auto& batchNode = static_cast<const InstancedMeshNode&>(node);
            BatchGpu& batch = batchGpu(batchNode, mesh);
            if (instanceWeights) {
                if (batch.uploadedWeightsVersion != batchNode.morphWeightsVersion() ||
                    batch.weightsCapacity < batchNode.capacity()) {
                    uploadMorphWeights(batchNode, batch);
                }
                glBindTextureUnit(2, batch.morphWeights.id());
                program.setUniform(u.instancesPerRow, static_cast<int>(batch.instancesPerRow));
                program.setUniform(u.baseInstance, 0);
            }
            vertexArray = &batch.vertexArray;
            instanceCount = static_cast<std::uint32_t>(batchNode.count());
            ++stats.batches;
        } else {
            ++stats.meshNodes;
        }
        {
            const PhaseTimer timer(stats.drawMs);
            drawElementsInstanced(*vertexArray, PrimitiveMode::Triangles, geometry.indexCount(),
                                  geometry.indexType(), 0, instanceCount);
        }
        ++stats.vertexArrayBinds;
        ++stats.drawCalls;
        stats.instances += instanceCount;
        stats.triangles += std::uint64_t{geometry.triangleCount()} * instanceCount;
    }

    void render(const Scene& scene, const Camera& camera, GLuint framebuffer, std::uint32_t width,
                std::uint32_t height) {
        requireCurrentContext("gl::Renderer::render");
        const auto frameStart = std::chrono::steady_clock::now();
        ++frame;
        stats = FrameStats{};
        const std::uint64_t waitsBefore = ring.waits();
        boundProgram = nullptr;
        opaqueItems.clear();
        blendItems.clear();
        eye = camera.positionDouble();
        cameraMask = camera.layerMask();
        lightDirection = glm::length(scene.light.direction) > 0.0f ? glm::normalize(scene.light.direction)
                                                                   : glm::vec3(0.0f, -1.0f, 0.0f);
        // Camera-relative: positions reach float only after the eye is subtracted in double.
        const glm::mat4 viewProjection = camera.projection() * camera.viewRotation();
        {
            const PhaseTimer timer(stats.cullMs);
            collect(scene.root(), Frustum(viewProjection));
            std::stable_sort(blendItems.begin(), blendItems.end(),
                             [](const DrawItem& a, const DrawItem& b) { return a.distance > b.distance; });
        }

        glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);
        glViewport(0, 0, static_cast<GLsizei>(width), static_cast<GLsizei>(height));
        glDepthMask(GL_TRUE);
        glClearColor(srgbEncode(scene.clearColor.r), srgbEncode(scene.clearColor.g),
                     srgbEncode(scene.clearColor.b), scene.clearColor.a);
        glClearDepth(1.0);
        glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
        glEnable(GL_DEPTH_TEST);
        glDepthFunc(GL_LESS);
        glFrontFace(GL_CCW);
        glCullFace(GL_BACK);
        glDisable(GL_BLEND);

        const auto submitStart = std::chrono::steady_clock::now();
        for (const DrawItem& item : opaqueItems) {
            draw(item, scene, viewProjection);
        }
        if (!blendItems.empty()) {
            glEnable(GL_BLEND);
            glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
            glDepthMask(GL_FALSE);
            for (const DrawItem& item : blendItems) {
                draw(item, scene, viewProjection);
            }
        }

        // Uploads happen inside the draw loop (on a batch's first draw of the frame): keep them
        // out of submitMs so the phases add up.
        stats.submitMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - submitStart).count() -
                         stats.uploadMs;
        // Back to GL defaults, so nothing leaks into the caller's GL code.
        glDepthMask(GL_TRUE);
        glDisable(GL_BLEND);
        glDisable(GL_CULL_FACE);
        glDisable(GL_DEPTH_TEST);
        glBindVertexArray(0);
        glUseProgram(0);
        glBindTextureUnit(0, 0);
        glBindTextureUnit(1, 0);
        glBindTextureUnit(2, 0);
        glBindFramebuffer(GL_FRAMEBUFFER, 0);
        glCullFace(GL_BACK);
        boundProgram = nullptr;
        ring.endFrame();
        stats.uploadWaits = ring.waits() - waitsBefore;
        releaseOlderThan(kKeepUnusedFrames);
        stats.frameMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - frameStart).count();
    }

    void releaseOlderThan(std::uint64_t frames) {
        auto stale = [&](const auto& entry) { return frame - entry.second.lastUsedFrame > frames; };
        std::erase_if(batches, [&](const auto& entry) { return stale(entry) || entry.second.node.expired(); });
        std::erase_if(meshes, stale);
        std::erase_if(textures, stale);
    }
};

Renderer::Renderer(const RendererDesc& desc) {
    requireCurrentContext("gl::Renderer");
    if (desc.debugOutput) {
        GLint flags = 0;
        glGetIntegerv(GL_CONTEXT_FLAGS, &flags);
        glEnable(GL_DEBUG_OUTPUT);
        if ((flags & GL_CONTEXT_FLAG_DEBUG_BIT) != 0) {
            glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS);  // messages arrive inside the offending call
        }
        glDebugMessageCallback(debugMessage, nullptr);
    }
    m_impl = std::make_unique<Impl>(desc);
}

Renderer::~Renderer() = default;

void Renderer::render(const Scene& scene, const Camera& camera, const OffscreenTarget& target) {
    if (target.framebufferId() == 0) {
        throw InvalidArgument("gl::Renderer::render: the OffscreenTarget is empty");
    }
    m_impl->render(scene, camera, target.framebufferId(), target.width(), target.height());
}

void Renderer::render(const Scene& scene, const Camera& camera, std::uint32_t width,
                      std::uint32_t height) {
    if (width == 0 || height == 0) {
        throw InvalidArgument("gl::Renderer::render: framebuffer size is 0");
    }
    m_impl->render(scene, camera, 0, width, height);
}

const FrameStats& Renderer::lastFrameStats() const noexcept { return m_impl->stats; }

void Renderer::releaseUnused() { m_impl->releaseOlderThan(0); }

std::uint32_t Renderer::instanceBuffer(const InstancedMeshNode& batch) const noexcept {
    const auto it = m_impl->batches.find(batch.id());
    return it == m_impl->batches.end() ? 0u : it->second.instances.id();
}

std::uint32_t Renderer::instanceMorphWeightsTexture(const InstancedMeshNode& batch) const noexcept {
    const auto it = m_impl->batches.find(batch.id());
    return it == m_impl->batches.end() ? 0u : it->second.morphWeights.id();
}

} // namespace myriad::gl
