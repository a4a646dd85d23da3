#include "renderer/GpuResources.h"

#include "myriad/core/AnimationSet.h"
#include "myriad/core/InstanceRecord.h"
#include "myriad/core/Material.h"
#include "myriad/util/Error.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <string>
#include <unordered_map>

namespace myriad::gl::detail {
namespace {

constexpr std::size_t kStreamTexelBytes = 16;  // one RGBA32F texel

AttributeFormat attributeFormat(const PackedVertexLayout::Attribute& attribute) noexcept {
    const bool two = attribute.components == 2;
    switch (attribute.storage) {
    case VertexStorage::Float32:
        return attribute.components == 2 ? AttributeFormat::Float2
               : attribute.components == 3 ? AttributeFormat::Float3
                                           : AttributeFormat::Float4;
    case VertexStorage::UNorm8: return two ? AttributeFormat::UNorm8x2 : AttributeFormat::UNorm8x4;
    case VertexStorage::SNorm8: return two ? AttributeFormat::SNorm8x2 : AttributeFormat::SNorm8x4;
    case VertexStorage::UScaled8: return two ? AttributeFormat::UScaled8x2 : AttributeFormat::UScaled8x4;
    case VertexStorage::SScaled8: return two ? AttributeFormat::SScaled8x2 : AttributeFormat::SScaled8x4;
    case VertexStorage::UNorm16: return two ? AttributeFormat::UNorm16x2 : AttributeFormat::UNorm16x4;
    case VertexStorage::SNorm16: return two ? AttributeFormat::SNorm16x2 : AttributeFormat::SNorm16x4;
    case VertexStorage::UScaled16: return two ? AttributeFormat::UScaled16x2 : AttributeFormat::UScaled16x4;
    case VertexStorage::SScaled16: return two ? AttributeFormat::SScaled16x2 : AttributeFormat::SScaled16x4;
    }
    return AttributeFormat::Float4;
}

/** The mesh's vertex layout as @p vertex places it, plus (for batches) the record stream's
 *  attributes as its InstanceStreamDesc declares them: one vec4 per 4 floats, divisor 1. */
VertexLayoutDesc meshLayout(const PackedVertexLayout& vertex, bool instanced, std::string_view label) {
    VertexLayoutDesc desc;
    desc.bindings.push_back({kVertexBinding, vertex.strideBytes, 0});
    desc.attributes = {
        {location::kPosition, attributeFormat(vertex.position), vertex.position.offsetBytes, kVertexBinding},
        {location::kNormal, attributeFormat(vertex.normal), vertex.normal.offsetBytes, kVertexBinding},
        {location::kUv0, attributeFormat(vertex.uv0), vertex.uv0.offsetBytes, kVertexBinding},
        {location::kColor, attributeFormat(vertex.color), vertex.color.offsetBytes, kVertexBinding},
    };
    if (vertex.joints.components != 0) {  // a skinned mesh: joints read as integers
        desc.attributes.push_back({location::kJoints, AttributeFormat::UInt16x4, vertex.joints.offsetBytes, kVertexBinding});
        desc.attributes.push_back({location::kWeights, attributeFormat(vertex.weights), vertex.weights.offsetBytes,
                                   kVertexBinding});
    }
    if (vertex.uv1.components != 0) {  // only meshes that have them (MeshData::uv1, tangents)
        desc.attributes.push_back({location::kUv1, attributeFormat(vertex.uv1), vertex.uv1.offsetBytes, kVertexBinding});
    }
    if (vertex.tangent.components != 0) {
        desc.attributes.push_back({location::kTangent, attributeFormat(vertex.tangent), vertex.tangent.offsetBytes,
                                   kVertexBinding});
    }
    if (instanced) {
        const InstanceStreamDesc& record = streams::kRecord;
        desc.bindings.push_back({kInstanceBinding, static_cast<std::uint32_t>(record.floatsPerInstance * sizeof(float)), 1});
        for (std::uint32_t k = 0; k < record.floatsPerInstance / 4; ++k) {
            desc.attributes.push_back({record.location + k, AttributeFormat::Float4,
                                       static_cast<std::uint32_t>(k * 4 * sizeof(float)), kInstanceBinding});
        }
    }
    desc.label = label;
    return desc;
}

/** Erases the entries of @p map whose value @p erase picks, calling @p release on each first
 *  (std::erase_if hands its predicate a const value). */
template <class Map, class Erase, class Release>
void eraseReleasing(Map& map, Erase erase, Release release) {
    for (auto it = map.begin(); it != map.end();) {
        if (erase(it->second)) {
            release(it->second);
            it = map.erase(it);
        } else {
            ++it;
        }
    }
}

/** Waits until @p fence has signalled, flushing the first time so it can. */
bool waitForFence(GLsync fence) {
    GLenum result = glClientWaitSync(fence, 0, 0);
    if (signalled(result)) {
        return false;
    }
    while (true) {
        result = glClientWaitSync(fence, GL_SYNC_FLUSH_COMMANDS_BIT, 1'000'000'000);
        if (signalled(result)) {
            return true;
        }
        if (result == GL_WAIT_FAILED) {
            throw GlError("gl::Renderer: glClientWaitSync failed on a streaming batch");
        }
    }
}

} // namespace

VertexArray instancedVertexArray(const MeshGpu& mesh, const MeshGeometry& geometry, std::string_view label) {
    VertexArray vertexArray(meshLayout(geometry.vertexLayout(), true, label));
    vertexArray.setVertexBuffer(kVertexBinding, mesh.vertices);
    vertexArray.setIndexBuffer(mesh.indices, geometry.indexType(), geometry.vertexCount() - 1);
    return vertexArray;
}

// particles and scatter (src/renderer/ParticlePass.cpp)
VertexLayoutDesc meshVertexLayout(const PackedVertexLayout& vertex, std::string_view label) {
    return meshLayout(vertex, false, label);
}

VertexLayoutDesc instancedVertexLayout(const PackedVertexLayout& vertex, std::string_view label) {
    return meshLayout(vertex, true, label);
}

GpuResources::GpuResources(std::uint64_t consumer, std::size_t stagingBytes, std::size_t maxStagingBytes,
                           const GlLimits& limits)
    : m_consumer(consumer), m_limits(limits), m_ring(stagingBytes, maxStagingBytes) {
    // The two every scene has used since before TextureSampler; the rest are made on first use.
    m_samplers.reserve(4);
    m_samplers.push_back({{TextureSampler{}, 1.0f}, makeSampler(TextureSampler{}, 1.0f)});
    m_samplers.push_back({{TextureSampler::nearest(), 1.0f}, makeSampler(TextureSampler::nearest(), 1.0f)});
}

namespace {

GLint glFilter(MagFilter filter) { return filter == MagFilter::Nearest ? GL_NEAREST : GL_LINEAR; }

GLint glFilter(MinFilter filter) {
    switch (filter) {
    case MinFilter::Nearest: return GL_NEAREST;
    case MinFilter::Linear: return GL_LINEAR;
    case MinFilter::NearestMipmapNearest: return GL_NEAREST_MIPMAP_NEAREST;
    case MinFilter::LinearMipmapNearest: return GL_LINEAR_MIPMAP_NEAREST;
    case MinFilter::NearestMipmapLinear: return GL_NEAREST_MIPMAP_LINEAR;
    case MinFilter::LinearMipmapLinear: break;
    }
    return GL_LINEAR_MIPMAP_LINEAR;
}

GLint glWrap(TextureWrap wrap) {
    switch (wrap) {
    case TextureWrap::MirroredRepeat: return GL_MIRRORED_REPEAT;
    case TextureWrap::ClampToEdge: return GL_CLAMP_TO_EDGE;
    case TextureWrap::Repeat: break;
    }
    return GL_REPEAT;
}

const char* name(MagFilter filter) { return filter == MagFilter::Nearest ? "nearest" : "linear"; }

const char* name(MinFilter filter) {
    switch (filter) {
    case MinFilter::Nearest: return "nearest";
    case MinFilter::Linear: return "linear";
    case MinFilter::NearestMipmapNearest: return "nearest-mipmap-nearest";
    case MinFilter::LinearMipmapNearest: return "linear-mipmap-nearest";
    case MinFilter::NearestMipmapLinear: return "nearest-mipmap-linear";
    case MinFilter::LinearMipmapLinear: break;
    }
    return "linear-mipmap-linear";
}

const char* name(TextureWrap wrap) {
    switch (wrap) {
    case TextureWrap::MirroredRepeat: return "mirrored-repeat";
    case TextureWrap::ClampToEdge: return "clamp";
    case TextureWrap::Repeat: break;
    }
    return "repeat";
}

/** Linear within a level at both scales: the only sampling that takes anisotropy (see
 *  Material::maxAnisotropy). */
bool takesAnisotropy(const TextureSampler& sampling) {
    return sampling.magFilter == MagFilter::Linear &&
           (sampling.minFilter == MinFilter::Linear || sampling.minFilter == MinFilter::LinearMipmapNearest ||
            sampling.minFilter == MinFilter::LinearMipmapLinear);
}

} // namespace

GLuint GpuResources::makeSampler(const TextureSampler& sampling, float anisotropy) {
    GLuint sampler = 0;
    glCreateSamplers(1, &sampler);
    countObject(ObjectKind::Sampler, 1);
    glSamplerParameteri(sampler, GL_TEXTURE_MIN_FILTER, glFilter(sampling.minFilter));
    glSamplerParameteri(sampler, GL_TEXTURE_MAG_FILTER, glFilter(sampling.magFilter));
    glSamplerParameteri(sampler, GL_TEXTURE_WRAP_S, glWrap(sampling.wrapS));
    glSamplerParameteri(sampler, GL_TEXTURE_WRAP_T, glWrap(sampling.wrapT));
    std::string label = std::string("myriad/Renderer.sampler-") + name(sampling.magFilter) + "-" +
                        name(sampling.minFilter) + "-" + name(sampling.wrapS) + "-" + name(sampling.wrapT);
    if (anisotropy > 1.0f) {
        glSamplerParameterf(sampler, kTextureMaxAnisotropy, anisotropy);
        label += "-anisotropic-" + std::to_string(static_cast<int>(anisotropy));
    }
    setLabel(GL_SAMPLER, sampler, label);
    return sampler;
}

GpuResources::~GpuResources() {
    for (auto& [id, batch] : m_batches) {
        forgetBatch(batch);
    }
    for (const FrameFence& fence : m_frameFences) {
        glDeleteSync(fence.sync);
        countObject(ObjectKind::Sync, -1);
    }
    for (const auto& [key, sampler] : m_samplers) {
        glDeleteSamplers(1, &sampler);
        countObject(ObjectKind::Sampler, -1);
    }
}

void GpuResources::forgetBatch(BatchGpu& batch) noexcept {
    // A live node keeps change-log entries until every renderer has seen them: tell it this one
    // is gone, so its log does not wait for us.
    if (!batch.alive.expired() && batch.node != nullptr) {
        for (const InstanceStream& stream : batch.node->streams()) {
            stream.changes().forget(m_consumer);
        }
        if (batch.previous) {
            batch.node->moves().forget(m_consumer);
        }
    }
}

void GpuResources::beginFrame(FrameStats& stats) noexcept {
    m_stats = &stats;
    m_ringWaitMsBefore = m_ring.copyWaitMs();
    ++m_frame;
    m_used = {};
}

void GpuResources::noteRecordsRead(BatchGpu& batch) noexcept {
    if (batch.streaming) {
        batch.streaming->readFrame[batch.streaming->part] = m_frame;
        m_streamingReadThisFrame = true;
    }
}

void GpuResources::fenceFrame(bool wholeFrame) noexcept {
    m_frameFences.push_back({m_frame, glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0), wholeFrame});
    countObject(ObjectKind::Sync, 1);
}

bool GpuResources::waitForFrame(std::uint64_t frame) {
    if (frame <= m_completedFrame) {
        return false;
    }
    // The oldest fence after every command of that frame: a later frame's, or that frame's own
    // end-of-frame fence (fences signal in order). A fence issued in the middle of the frame
    // covers only what came before it.
    std::size_t covering = 0;
    while (covering < m_frameFences.size() &&
           (m_frameFences[covering].frame < frame ||
            (m_frameFences[covering].frame == frame && !m_frameFences[covering].wholeFrame))) {
        ++covering;
    }
    if (covering == m_frameFences.size()) {
        // Read earlier in this frame (not fenced at its end yet): fence what was issued so far.
        // Not reached by the three parts (a part written this frame was last read two frames
        // back at least), but the rule holds whatever calls this.
        fenceFrame(false);
    }
    const auto start = std::chrono::steady_clock::now();
    const bool waited = waitForFence(m_frameFences[covering].sync);
    m_stats->gpuWaitMs += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    // A fence issued in the middle of its frame covers what came before it, not the rest of
    // that frame: only the frames before are then known complete.
    m_completedFrame = m_frameFences[covering].frame - (m_frameFences[covering].wholeFrame ? 0 : 1);
    for (std::size_t i = 0; i <= covering; ++i) {  // it and every older one: done
        glDeleteSync(m_frameFences.front().sync);
        countObject(ObjectKind::Sync, -1);
        m_frameFences.pop_front();
    }
    return waited;
}

void GpuResources::endFrame() noexcept {
    m_ring.endFrame();
    // One fence after every command of a frame that read a streaming part (draws, record
    // textures, GPU culling): each part remembers the frame, so a part drawn unchanged for many
    // frames is covered by its last reader's fence, not only by the frame that wrote it.
    if (m_streamingReadThisFrame) {
        fenceFrame(true);
        m_streamingReadThisFrame = false;
    }
    // Bound how many stay alive without asking the GPU anything: the oldest goes unwaited,
    // and a later wait for its frame takes the next fence, issued after it.
    while (m_frameFences.size() > kMaxFrameFences) {
        glDeleteSync(m_frameFences.front().sync);
        countObject(ObjectKind::Sync, -1);
        m_frameFences.pop_front();
    }
    // A copy used this frame belongs to a live node or mesh (what was drawn was alive), so when
    // every copy was used there is nothing to look for: a steady frame that draws everything
    // touches no copy here (the scan of 10,000 batches was most of their per-batch cost).
    if (m_used.batches < m_batches.size()) {
        eraseReleasing(m_batches, [](const BatchGpu& batch) { return batch.alive.expired(); },
                       [&](BatchGpu& batch) { releaseArena(batch); });
    }
    if (m_used.nodeSlots < m_nodeSlots.size()) {
        eraseReleasing(m_nodeSlots, [](const NodeSlotGpu& slot) { return slot.alive.expired(); },
                       [&](NodeSlotGpu& slot) { releaseNodeSlot(slot); });
    }
    if (m_used.meshes < m_meshes.size()) {
        eraseReleasing(m_meshes, [](const MeshGpu& copy) { return copy.mesh.expired(); },
                       [&](MeshGpu& copy) { releaseMeshPlace(copy); });
    }
    std::erase_if(m_textures, [](const auto& entry) { return entry.second.image.expired(); });
    std::erase_if(m_linearTextures, [](const auto& entry) { return entry.second.image.expired(); });
    std::erase_if(m_skins, [](const auto& entry) { return entry.second.alive.expired(); });
    std::erase_if(m_animationSets, [](const auto& entry) { return entry.second.set.expired(); });
}

void GpuResources::trim() {
    m_ring.shrink();  // a ring grown for a big first upload goes back to its starting size
    auto unused = [&](const auto& entry) { return entry.second.lastUsedFrame != m_frame; };
    auto unusedCopy = [&](const auto& copy) { return copy.lastUsedFrame != m_frame; };
    eraseReleasing(m_batches, unusedCopy, [&](BatchGpu& batch) {
        forgetBatch(batch);
        releaseArena(batch);
    });
    eraseReleasing(m_nodeSlots, unusedCopy, [&](NodeSlotGpu& slot) { releaseNodeSlot(slot); });
    eraseReleasing(m_meshes, unusedCopy, [&](MeshGpu& copy) { releaseMeshPlace(copy); });
    std::erase_if(m_textures, unused);
    std::erase_if(m_linearTextures, unused);
    std::erase_if(m_skins, unused);
    std::erase_if(m_animationSets, unused);
}

SkinGpu& GpuResources::skinPalette(const MeshNode& node) {
    const std::span<const glm::mat4> skin = node.skinMatrices();
    auto it = m_skins.find(node.id());
    if (it == m_skins.end() || it->second.joints != skin.size() || it->second.alive.expired()) {
        requireTextureBufferTexels(m_limits, skin.size() * 3, node, "joint palette (a buffer texture)",
                                   "use a skeleton with fewer joints");
        SkinGpu gpu;
        gpu.alive = node.lifetime();
        gpu.palette = Buffer({.sizeBytes = std::max<std::size_t>(skin.size(), 1) * 3 * sizeof(glm::vec4),
                              .label = labelFor(node, "MeshNode.joint-palette")});
        gpu.texture = TextureHandle(GL_TEXTURE_BUFFER);
        glTextureBuffer(gpu.texture.id(), GL_RGBA32F, gpu.palette.id());
        setLabel(GL_TEXTURE, gpu.texture.id(), labelFor(node, "MeshNode.joint-palette-texture"));
        gpu.joints = skin.size();
        it = m_skins.insert_or_assign(node.id(), std::move(gpu)).first;
    }
    SkinGpu& gpu = it->second;
    gpu.lastUsedFrame = m_frame;
    if (gpu.poseVersion != node.poseVersion() && !skin.empty()) {
        // Through the ring: the palette may still be read by an earlier frame's draws (the
        // ring's copy runs in GPU order after them; a CPU write into it would not).
        m_scratchPalette.resize(skin.size() * 3);
        for (std::size_t j = 0; j < skin.size(); ++j) {
            const glm::mat4 rows = glm::transpose(skin[j]);
            m_scratchPalette[3 * j] = rows[0];
            m_scratchPalette[3 * j + 1] = rows[1];
            m_scratchPalette[3 * j + 2] = rows[2];
        }
        const std::size_t bytes = m_scratchPalette.size() * sizeof(glm::vec4);
        m_ring.copy(gpu.palette.id(), 0, m_scratchPalette.data(), bytes);
        m_stats->bytesUploaded += bytes;
        gpu.poseVersion = node.poseVersion();
    }
    return gpu;
}

AnimationSetGpu& GpuResources::animationSet(const std::shared_ptr<const AnimationSet>& set, const SceneNode& node) {
    auto it = m_animationSets.find(set->id());
    if (it == m_animationSets.end()) {
        const std::span<const glm::vec4> rows = set->rows();
        requireTextureBufferTexels(m_limits, rows.size(), node, "baked animation set (a buffer texture)",
                                   "bake at fewer framesPerSecond or fewer clips per set");
        AnimationSetGpu gpu;
        gpu.set = set;
        const std::string label = "AnimationSet#" + std::to_string(set->id());
        gpu.rows = Buffer({.initialData = std::as_bytes(rows), .label = label + ".frames"});
        gpu.texture = TextureHandle(GL_TEXTURE_BUFFER);
        glTextureBuffer(gpu.texture.id(), GL_RGBA32F, gpu.rows.id());
        setLabel(GL_TEXTURE, gpu.texture.id(), label + ".frames-texture");
        m_stats->bytesUploaded += rows.size_bytes();
        it = m_animationSets.emplace(set->id(), std::move(gpu)).first;
    }
    it->second.lastUsedFrame = m_frame;
    return it->second;
}

MeshGpu& GpuResources::mesh(const std::shared_ptr<const MeshGeometry>& geometry) {
    auto it = m_meshes.find(geometry->id());
    if (it == m_meshes.end()) {
        it = m_meshes.emplace(geometry->id(), createMesh(geometry)).first;
    }
    m_used.meshes += it->second.lastUsedFrame != m_frame ? 1 : 0;
    it->second.lastUsedFrame = m_frame;
    return it->second;
}

MeshGpu GpuResources::createMesh(const std::shared_ptr<const MeshGeometry>& geometry) {
    const MeshData& data = geometry->data();
    // As the mesh's encoding says (MeshGeometry::vertexLayout()): a quantized mesh's 8- and
    // 16-bit integers as they are, read back to float by the vertex fetch.
    const std::vector<std::byte> vertices = geometry->packedVertices();
    const std::string name = geometry->name().empty() ? "mesh#" + std::to_string(geometry->id())
                                                      : geometry->name();
    MeshGpu gpu;
    gpu.mesh = geometry;
    gpu.serial = ++m_meshSerial;
    gpu.vertices = Buffer({.initialData = std::span(vertices),
                           .label = name + "/MeshGeometry.vertices"});
    const std::span<const std::byte> indexBytes =
        geometry->indexType() == IndexType::UInt16 ? std::as_bytes(std::span(data.indices16))
                                                   : std::as_bytes(std::span(data.indices32));
    gpu.indices = Buffer({.initialData = indexBytes, .label = name + "/MeshGeometry.indices"});
    gpu.vertexArray = VertexArray(meshLayout(geometry->vertexLayout(), false, name + "/MeshGeometry.vertex-array"));
    gpu.vertexArray.setVertexBuffer(kVertexBinding, gpu.vertices);
    gpu.vertexArray.setIndexBuffer(gpu.indices, geometry->indexType(), geometry->vertexCount() - 1);
    m_stats->bytesUploaded += gpu.vertices.sizeBytes() + gpu.indices.sizeBytes();
    if (geometry->morphTargetCount() > 0) {
        const std::size_t vertexCount = geometry->vertexCount();
        std::vector<glm::vec4> deltas(2 * geometry->morphTargetCount() * vertexCount, glm::vec4(0.0f));
        for (std::size_t t = 0; t < geometry->morphTargetCount(); ++t) {
            const MorphTarget& target = data.morphTargets[t];
            for (std::size_t v = 0; v < vertexCount; ++v) {
                const std::size_t texel = 2 * (t * vertexCount + v);
                deltas[texel] = glm::vec4(target.positionDeltas[v], 0.0f);
                if (!target.normalDeltas.empty()) {
                    deltas[texel + 1] = glm::vec4(target.normalDeltas[v], 0.0f);
                }
            }
        }
        gpu.morphDeltas = Buffer({.initialData = std::as_bytes(std::span(deltas)),
                                  .label = name + "/MeshGeometry.morph-targets"});
        gpu.morphTargets = TextureHandle(GL_TEXTURE_BUFFER);
        glTextureBuffer(gpu.morphTargets.id(), GL_RGBA32F, gpu.morphDeltas.id());
        setLabel(GL_TEXTURE, gpu.morphTargets.id(), name + "/MeshGeometry.morph-texture");
        m_stats->bytesUploaded += gpu.morphDeltas.sizeBytes();
    }
    return gpu;
}

const Texture2D* GpuResources::texture(const Material& material) {
    return imageTexture(material.baseColorTexture, true, material.sampling().usesMipmaps(),
                        "/Material.baseColorTexture", material.name);
}

const Texture2D* GpuResources::imageTexture(const std::shared_ptr<const Image>& image, bool srgb, bool mipmaps,
                                            std::string_view slot, const std::string& materialName) {
    if (!image) {
        return nullptr;
    }
    // One copy per image and encoding: an image read as colour (sRGB) and as data (linear)
    // has two.
    auto& textures = srgb ? m_textures : m_linearTextures;
    auto it = textures.find(image.get());
    if (it != textures.end() && it->second.image.expired()) {
        textures.erase(it);  // an image freed and another allocated at the same address
        it = textures.end();
    }
    // Filtering and wrapping are the sampler's (sampler()), not the texture's: one copy per
    // image. Its mip chain is made only for a sampling that reads it; the first material that
    // does replaces a one-level copy with a mipmapped one (immutable storage cannot grow
    // levels), and the copy stays mipmapped from then on. The renderer asks for every drawn
    // material before the first draw of a frame, so within a frame every draw binds the final copy.
    if (it == textures.end() || (mipmaps && !it->second.mipmapped)) {
        // Every material image (base colour, the extra textures, a lightmap) goes through
        // here: refused before any GL call for it, while the frame has drawn nothing yet.
        if (static_cast<std::int64_t>(std::max(image->width, image->height)) > m_limits.maxTextureSize) {
            throw CapacityError("gl::Renderer::render: material '" + materialName + "': its " +
                                std::string(slot.substr(slot.find('.') + 1)) + " image is " +
                                std::to_string(image->width) + " x " + std::to_string(image->height) +
                                " texels, above GL_MAX_TEXTURE_SIZE (" + std::to_string(m_limits.maxTextureSize) +
                                " on this driver); scale the image down");
        }
        TextureGpu gpu;
        gpu.image = image;
        gpu.mipmapped = mipmaps;
        // TextureDesc::nearestFilter is what makes a one-level texture; its own filter
        // parameters are never used, the sampler object bound with it overrides them.
        gpu.texture = Texture2D(*image, {.srgb = srgb, .nearestFilter = !mipmaps,
                                         .label = materialName + std::string(slot)});
        m_stats->bytesUploaded += image->pixels.size();
        if (it == textures.end()) {
            it = textures.emplace(image.get(), std::move(gpu)).first;
        } else {
            it->second = std::move(gpu);
        }
    }
    it->second.lastUsedFrame = m_frame;
    return &it->second.texture;
}

MaterialTextures GpuResources::materialTextures(const Material& material, const MeshGeometry& mesh) {
    MaterialTextures result;
    if (!material.hasMaterialTextures()) {
        return result;
    }
    result.used = true;
    // Slot 0 is the base colour (its texture and sampler are texture() and sampler()'s).
    auto setSlot = [&](int slot, std::uint8_t uvSet, const TextureTransform& transform) {
        if (uvSet == 1) {
            result.uv1Mask |= 1 << slot;
        }
        // KHR_texture_transform: uv' = T * R * S * uv, as two rows over (u, v, 1).
        const float c = std::cos(transform.rotation);
        const float s = std::sin(transform.rotation);
        result.transform[2 * slot] = glm::vec3(c * transform.scale.x, s * transform.scale.y, transform.offset.x);
        result.transform[2 * slot + 1] = glm::vec3(-s * transform.scale.x, c * transform.scale.y, transform.offset.y);
    };
    setSlot(0, material.baseColorUvSet, material.baseColorTransform);
    const TextureSlot* slots[5] = {&material.metallicRoughnessTexture, &material.normalTexture,
                                   &material.occlusionTexture, &material.emissiveTexture, &material.lightmapTexture};
    static constexpr const char* kSlotLabels[5] = {"/Material.metallicRoughnessTexture", "/Material.normalTexture",
                                                   "/Material.occlusionTexture", "/Material.emissiveTexture",
                                                   "/Material.lightmapTexture"};
    for (int k = 0; k < 5; ++k) {
        const TextureSlot& slot = *slots[k];
        setSlot(k + 1, slot.uvSet, slot.transform);
        if (!slot) {
            continue;
        }
        // glTF: the emissive texture is sRGB, the others linear data; a lightmap is a colour
        // image (Image's bytes are sRGB-encoded), as three.js and Godot decode theirs.
        const bool srgb = k >= 3;
        result.textures[k] = imageTexture(slot.image, srgb, slot.sampler.usesMipmaps(), kSlotLabels[k], material.name);
        result.textureIds[k] = result.textures[k]->id();
        result.samplers[k] = sampler(slot.sampler, material.maxAnisotropy);
        result.slotMask |= 2 << k;
    }
    if (material.lightmapTexture && material.lightmapCoordinates == LightmapCoordinates::VertexColor) {
        result.coordinateFlags |= MaterialTextures::kLightmapFromVertexColor;
    }
    if (mesh.hasUv1()) {
        result.coordinateFlags |= MaterialTextures::kMeshHasUv1;
    }
    // NaN draws as the default, as the other factors (ShadingFactors.h).
    result.factors = glm::vec3(std::isfinite(material.normalScale) ? material.normalScale : 1.0f,
                               std::isfinite(material.occlusionStrength)
                                   ? std::clamp(material.occlusionStrength, 0.0f, 1.0f)
                                   : 1.0f,
                               std::isfinite(material.lightmapIntensity) ? std::max(material.lightmapIntensity, 0.0f)
                                                                         : 1.0f);
    return result;
}

GLuint GpuResources::sampler(const Material& material) {
    return sampler(material.sampling(), material.maxAnisotropy);
}

GLuint GpuResources::sampler(const TextureSampler& sampling, float maxAnisotropy) {
    // NaN fails the comparison and counts as 1, as documented on Material::maxAnisotropy.
    float anisotropy =
        maxAnisotropy > 1.0f ? std::min(maxAnisotropy, m_limits.maxTextureAnisotropy) : 1.0f;
    // Only a sampling linear at both scales takes anisotropy: EXT_texture_filter_anisotropic
    // lets a driver ignore the filters once anisotropy is above 1, which would filter a
    // texture meant to stay sharp.
    if (!takesAnisotropy(sampling)) {
        anisotropy = 1.0f;
    }
    const SamplerKey key{sampling, anisotropy};
    for (const auto& [known, sampler] : m_samplers) {
        if (known == key) {
            return sampler;
        }
    }
    const GLuint sampler = makeSampler(sampling, anisotropy);
    m_samplers.push_back({key, sampler});
    return sampler;
}

const BatchGpu* GpuResources::findBatch(const InstancedMeshNode& node) const noexcept {
    const auto it = m_batches.find(node.id());
    return it == m_batches.end() ? nullptr : &it->second;
}

BatchGpu* GpuResources::findBatch(const InstancedMeshNode& node) noexcept {
    const auto it = m_batches.find(node.id());
    return it == m_batches.end() ? nullptr : &it->second;
}

BatchGpu& GpuResources::batch(const InstancedMeshNode& node) {
    BatchGpu& batch = m_batches[node.id()];
    m_used.batches += batch.lastUsedFrame != m_frame ? 1 : 0;
    batch.lastUsedFrame = m_frame;
    if (batch.preparedFrame == m_frame) {
        return batch;  // once per frame, however many views and primitives draw it
    }
    batch.preparedFrame = m_frame;
    if (batch.alive.expired()) {
        batch.alive = node.lifetime();
        batch.node = &node;
    }
    const UploadMode mode = node.uploadMode();
    const bool streaming = mode == UploadMode::Streaming || (mode == UploadMode::Automatic && batch.denseUploads >= 3);
    if (!streaming && batch.streaming) {
        // Back to staged (the option changed): the staged copy re-sends everything.
        batch.streaming.reset();
        batch.streams[InstanceStreamId::Record] = StreamGpu{};
        batch.denseUploads = 0;
    }
    // Small staged batches keep their records in the shared arena, so that the table-driven
    // path can draw many of them in one call; a batch that grows past it, or starts streaming,
    // moves to a buffer of its own (and back), re-sending everything.
    const std::size_t arenaRows = StreamingRecords::partCapacity(node.capacity());
    const bool arenaWanted = !streaming && node.capacity() != 0 && node.capacity() <= RecordArena::kMaxRecords;
    if (batch.inArena() && (!arenaWanted || batch.arenaRows != arenaRows)) {
        releaseArena(batch);
        batch.streams[InstanceStreamId::Record] = StreamGpu{};
    }
    if (arenaWanted && !batch.inArena()) {
        const ArenaPlace place = placeInArena(arenaRows);
        batch.arenaFirst = place.first;
        batch.tableRow = place.tableRow;
        batch.arenaRows = arenaRows;
        batch.arena = &m_recordArena;
        batch.streams[InstanceStreamId::Record] = StreamGpu{};  // its own buffer goes; all is re-sent
    }
    if (batch.inArena()) {
        placePrimitives(batch.primitivePlaces, node.primitiveCount(), batch.arenaRows);
    }
    // Motion vectors: last frame's rows into the previous records before this frame's upload
    // overwrites them (a staged batch's only copy; a streaming batch's stay in last frame's part).
    const bool velocity = m_velocityFrame != 0 && node.streams()[InstanceStreamId::Record].allocated();
    const bool previousFromCurrent = velocity && beginPrevious(node, batch);
    for (std::size_t s = 0; s < InstanceStreamId::Count; ++s) {
        const InstanceStream& stream = node.streams()[s];
        if (!stream.allocated()) {
            continue;
        }
        if (s == InstanceStreamId::Record && streaming) {
            uploadStreaming(node, batch);
            continue;
        }
        const std::uint64_t before = batch.streams[s].cursor;
        const std::size_t rows = s == InstanceStreamId::Record && batch.inArena()
                                     ? uploadToArena(node, stream, batch)
                                     : uploadStream(node, stream, batch.streams[s]);
        if (s == InstanceStreamId::Record && mode == UploadMode::Automatic && before != batch.streams[s].cursor) {
            batch.denseUploads = rows * 2 >= node.count() && rows != 0 ? batch.denseUploads + 1 : 0;
        }
    }
    noteRecordsRead(batch);  // the draws of this frame read the current part (streaming)
    if (velocity) {
        finishPrevious(node, batch, previousFromCurrent);
    }
    // Its own vertex arrays are brought up to date by the draw that uses them
    // (syncVertexArrays): a batch drawn from the table-driven path's arenas never needs them.
    return batch;
}

void GpuResources::syncVertexArrays(BatchGpu& batch) {
    // One vertex array per primitive: its own mesh, the batch's one record buffer (staged, in
    // the arena, or this frame's part of the streaming buffer). Remade when the primitive's mesh
    // changed (setMesh) or a primitive was added; its record binding re-attached when the
    // records moved (growth, the arena grown by a later batch of the frame, the next third).
    const InstancedMeshNode& node = *batch.node;
    const std::size_t primitives = node.primitiveCount();
    batch.meshIds.resize(primitives, 0);
    batch.vertexArrays.resize(primitives);
    batch.recordBindings.resize(primitives, {0, 0});
    const BatchGpu::RecordSource source = batch.recordSource();
    for (std::size_t p = 0; p < primitives; ++p) {
        const std::shared_ptr<const MeshGeometry>& geometry = node.primitiveMesh(p);
        VertexArray& vertexArray = batch.vertexArrays[p];
        const MeshGpu& meshGpu = mesh(geometry);  // also marks it used this frame
        if (batch.meshIds[p] != geometry->id() || vertexArray.id() == 0) {
            vertexArray = VertexArray(meshLayout(geometry->vertexLayout(), true, labelFor(node, "InstancedMeshNode.vertex-array#" + std::to_string(p))));
            vertexArray.setVertexBuffer(kVertexBinding, meshGpu.vertices);
            vertexArray.setIndexBuffer(meshGpu.indices, geometry->indexType(), geometry->vertexCount() - 1);
            batch.meshIds[p] = geometry->id();
            batch.recordBindings[p] = {0, 0};
        }
        // Compared by serial, not GL name: a buffer deleted on growth may hand its name to the
        // next one, and the vertex array would keep reading the deleted object.
        if (source.buffer != 0) {
            const std::pair<std::uint64_t, std::size_t> wanted{batch.recordSerial(), source.offset};
            if (batch.recordBindings[p] != wanted) {
                vertexArray.setVertexBuffer(kInstanceBinding, batch.recordBuffer(), source.offset);
                batch.recordBindings[p] = wanted;
            }
        }
    }
}

void GpuResources::uploadStreaming(const InstancedMeshNode& node, BatchGpu& batch) {
    const InstanceStream& stream = node.streams()[InstanceStreamId::Record];
    if (!batch.streaming || batch.streaming->capacity != StreamingRecords::partCapacity(stream.capacity())) {
        // First use, grown or shrunk (shrinkToFit gives GPU memory back too): three parts of
        // the whole capacity. The old buffer's pending draws keep it alive (deferred deletion);
        // its fences go with it.
        auto fresh = std::make_unique<StreamingRecords>();
        const std::size_t capacity = StreamingRecords::partCapacity(stream.capacity());
        fresh->buffer = Buffer({.sizeBytes = StreamingRecords::kParts * capacity * InstancedMeshNode::strideInBytes,
                                .usage = BufferUsage::PersistentMapped,
                                .label = labelFor(node, "InstancedMeshNode.record-streaming")});
        fresh->capacity = capacity;
        fresh->part = StreamingRecords::kParts - 1;  // the first write goes to part 0
        fresh->serial = ++m_bufferSerial;
        batch.streaming = std::move(fresh);
        batch.streams[InstanceStreamId::Record] = StreamGpu{};  // the staged copy is not used
        if (std::find(m_streamingIds.begin(), m_streamingIds.end(), node.id()) == m_streamingIds.end()) {
            m_streamingIds.push_back(node.id());
        }
    }
    StreamingRecords& streaming = *batch.streaming;
    if (streaming.cursor == stream.version()) {
        return;  // nothing changed: keep drawing from the current part
    }
    const std::size_t next = (streaming.part + 1) % StreamingRecords::kParts;
    // The GPU may still read this part for the last frame that read it (drawn unchanged for
    // any number of frames since it was written): wait for that frame's fence.
    if (waitForFrame(streaming.readFrame[next])) {
        ++m_streamingWaits;
    }
    streaming.part = next;
    // Every drawn row, whatever changed: one straight copy into memory the GPU reads, which
    // also derives the bounds and mirrored count if they are stale (one read of each record).
    const std::size_t bytes = node.count() * InstancedMeshNode::strideInBytes;
    node.copyDrawnRecords(streaming.buffer.mapped().subspan(streaming.partOffset(), bytes));
    m_stats->bytesUploaded += bytes;
    m_stats->bytesStreamed += bytes;
    ++m_stats->uploadRanges;
    streaming.cursor = stream.version();
    stream.changes().acknowledge(m_consumer, stream.version());
}

void GpuResources::streamAhead() {
    // Before culling: a streaming batch drawn last frame whose records changed and whose bounds
    // or mirrored count are stale (a bulk rewrite) gets this frame's copy now, through the one
    // pass that also derives them, so culling finds the bounds current instead of running a
    // pass of its own before the upload's copy. A batch culled this frame after all has spent
    // a copy it did not need; one not drawn last frame waits for prepare(), as before.
    std::size_t kept = 0;
    for (const std::uint64_t id : m_streamingIds) {
        const auto it = m_batches.find(id);
        if (it == m_batches.end() || !it->second.streaming || it->second.alive.expired() || it->second.node == nullptr) {
            continue;  // gone or back to staged: forget it
        }
        m_streamingIds[kept++] = id;
        BatchGpu& batch = it->second;
        const InstancedMeshNode& node = *batch.node;
        if (batch.lastUsedFrame + 1 != m_frame || node.uploadMode() == UploadMode::Staged ||
            batch.streaming->capacity != StreamingRecords::partCapacity(node.capacity()) || !node.derivedStale()) {
            continue;
        }
        const std::uint64_t before = m_stats->bytesUploaded;
        uploadStreaming(node, batch);
        m_stats->bytesStreamedAhead += m_stats->bytesUploaded - before;
    }
    m_streamingIds.resize(kept);
}

std::size_t GpuResources::uploadStream(const InstancedMeshNode& node, const InstanceStream& stream,
                                       StreamGpu& gpu) {
    const InstanceStreamDesc& desc = stream.desc();
    const bool reshaped = gpu.capacity != stream.capacity() || gpu.shape != stream.shapeVersion();
    if (gpu.cursor == stream.version() && !reshaped) {
        return 0;  // nothing changed since this renderer's last upload
    }
    const std::size_t rowBytes = desc.floatsPerInstance * sizeof(float);
    bool full = gpu.cursor == 0;
    if (reshaped) {
        // First use, grown or shrunk (InstancedMeshNode::shrinkToFit), or reshaped (setLaneCount:
        // rows of another width, or freed and allocated again): a buffer of the whole stream, exactly, so the GPU copy gives memory
        // back when the batch does.
        if (desc.binding == StreamBinding::BufferTexture) {
            requireTextureBufferTexels(m_limits, stream.capacity() * rowBytes / kStreamTexelBytes, node,
                                       std::string(desc.name) + " stream (a buffer texture)",
                                       "lower the batch's capacity or split it into several batches");
        }
        Buffer buffer({.sizeBytes = stream.capacity() * rowBytes,
                       .label = labelFor(node, "InstancedMeshNode." + std::string(desc.name))});
        TextureHandle texture;
        if (desc.binding == StreamBinding::BufferTexture) {
            texture = TextureHandle(GL_TEXTURE_BUFFER);
            glTextureBuffer(texture.id(), GL_RGBA32F, buffer.id());
            setLabel(GL_TEXTURE, texture.id(), labelFor(node, "InstancedMeshNode." + std::string(desc.name) + "-texture"));
        }
        gpu.buffer = std::move(buffer);
        gpu.serial = ++m_bufferSerial;
        gpu.texture = std::move(texture);
        gpu.capacity = stream.capacity();
        gpu.shape = stream.shapeVersion();
        full = true;
    }
    const std::size_t sent = sendChangedRows(node, stream, gpu.cursor, full, gpu.buffer.id(), 0);
    gpu.cursor = stream.version();
    stream.changes().acknowledge(m_consumer, stream.version());
    return sent;
}

std::size_t GpuResources::uploadToArena(const InstancedMeshNode& node, const InstanceStream& stream, BatchGpu& batch) {
    StreamGpu& records = batch.streams[InstanceStreamId::Record];  // only its cursor: the place is the buffer
    if (records.cursor == stream.version()) {
        return 0;
    }
    const std::size_t sent = sendChangedRows(node, stream, records.cursor, records.cursor == 0, m_recordArena.records.id(),
                                             batch.arenaFirst * InstancedMeshNode::strideInBytes);
    records.cursor = stream.version();
    stream.changes().acknowledge(m_consumer, stream.version());
    return sent;
}

std::size_t GpuResources::sendChangedRows(const InstancedMeshNode& node, const InstanceStream& stream,
                                          std::uint64_t cursor, bool full, GLuint buffer, std::size_t baseOffset) {
    const InstanceStreamDesc& desc = stream.desc();
    const std::size_t rowBytes = desc.floatsPerInstance * sizeof(float);
    m_ranges.clear();
    if (full || !stream.changes().collect(cursor, m_ranges)) {
        m_ranges.assign(1, IndexRange{0, stream.capacity()});
    }
    // Only drawn rows: every row entering [0, count) is logged as changed in every stream, so
    // rows past count can wait until they are drawn.
    const std::size_t drawn = node.count();
    std::size_t sent = 0;
    const std::span<const float> data = stream.data();
    for (const IndexRange& range : m_ranges) {
        const std::size_t end = std::min(range.end, drawn);
        if (range.begin >= end) {
            continue;
        }
        const std::size_t bytes = (end - range.begin) * rowBytes;
        m_ring.copy(buffer, baseOffset + range.begin * rowBytes, data.data() + range.begin * desc.floatsPerInstance,
                    bytes);
        m_stats->bytesUploaded += bytes;
        ++m_stats->uploadRanges;
        sent += end - range.begin;
    }
    return sent;
}

// ---- the table-driven path's arenas ------------------------------------------------------------

namespace {

/** A buffer of @p bytes with the contents of @p old (if any) copied in on the GPU. */
Buffer grownBuffer(const Buffer& old, std::size_t bytes, const std::string& label) {
    Buffer grown({.sizeBytes = bytes, .label = label});
    if (old.id() != 0 && old.sizeBytes() != 0) {
        glCopyNamedBufferSubData(old.id(), grown.id(), 0, 0, static_cast<GLsizeiptr>(old.sizeBytes()));
    }
    return grown;
}

/** Doubles a capacity until @p needed more units fit (at least @p minimum). */
std::size_t grownCapacity(std::size_t capacity, std::size_t needed, std::size_t minimum) {
    std::size_t grown = std::max(capacity, minimum);
    while (grown < capacity + needed) {
        grown *= 2;
    }
    return grown;
}

} // namespace

std::uint32_t GpuResources::takeTableRow() {
    if (!m_freeTableRows.empty()) {
        const std::uint32_t row = m_freeTableRows.back();
        m_freeTableRows.pop_back();
        return row;
    }
    m_freeTableRows.reserve(m_nextTableRow + 1);  // release never allocates
    return m_nextTableRow++;
}

GpuResources::ArenaPlace GpuResources::placeInArena(std::size_t rows) {
    const std::uint32_t tableRow = takeTableRow();
    try {
        return {placeRecords(rows, tableRow), tableRow};
    } catch (...) {
        m_freeTableRows.push_back(tableRow);  // reserved by takeTableRow: no allocation
        throw;
    }
}

std::size_t GpuResources::placeRecords(std::size_t rows, std::uint32_t tableRow) {
    RecordArena& arena = m_recordArena;
    const std::size_t units = (rows + RecordArena::kUnit - 1) / RecordArena::kUnit;
    std::size_t unit = arena.slots.allocate(units);
    if (unit == RangeAllocator::npos) {
        // Full: twice the size (at least 256 units, 64 KiB of records), the old contents copied
        // on the GPU; what still reads the old buffer is re-pointed below.
        const std::size_t capacity = grownCapacity(arena.slots.capacity(), units, 256);
        const std::size_t slots = capacity * RecordArena::kUnit;
        Buffer records = grownBuffer(arena.records, slots * InstancedMeshNode::strideInBytes,
                                     "myriad/Renderer.record-arena");
        Buffer drawIds = grownBuffer(arena.drawIds, slots * 2 * sizeof(std::uint32_t), "myriad/Renderer.draw-ids");
        arena.records = std::move(records);
        arena.drawIds = std::move(drawIds);
        arena.serial = ++m_bufferSerial;
        arena.slots.grow(capacity);
        unit = arena.slots.allocate(units);
        // A vertex array or buffer texture still attached to the old buffer keeps it alive (GL
        // 4.5 sections 5.1.2-5.1.3): re-point every batch in the arena now, not only those
        // drawn again, so the old generation goes as soon as the GPU is done with it.
        for (auto& [id, other] : m_batches) {
            if (other.inArena()) {
                const std::size_t offset = other.arenaFirst * InstancedMeshNode::strideInBytes;
                for (std::size_t p = 0; p < other.vertexArrays.size(); ++p) {
                    if (other.vertexArrays[p].id() != 0) {
                        other.vertexArrays[p].setVertexBuffer(kInstanceBinding, arena.records, offset);
                        other.recordBindings[p] = {arena.serial, offset};
                    }
                }
                if (other.recordTexture.id() != 0) {
                    glTextureBuffer(other.recordTexture.id(), GL_RGBA32F, 0);
                    other.recordTextureSource = {~0ull, ~0ull, ~0ull};
                }
            }
        }
    }
    const std::size_t first = unit * RecordArena::kUnit;
    // Each slot's (draw-table row, instance index): how a vertex of a multi-draw command finds
    // its draw's row and its own index, with no gl_BaseInstance or gl_DrawID (not core in 4.5).
    std::vector<std::uint32_t>& pairs = m_scratchPairs;
    pairs.resize(units * RecordArena::kUnit * 2);
    for (std::size_t i = 0; i < pairs.size() / 2; ++i) {
        pairs[2 * i] = tableRow;
        pairs[2 * i + 1] = static_cast<std::uint32_t>(i);
    }
    m_ring.copy(arena.drawIds.id(), first * 2 * sizeof(std::uint32_t), pairs.data(), pairs.size() * sizeof(std::uint32_t));
    m_stats->bytesUploaded += pairs.size() * sizeof(std::uint32_t);
    return first;
}

void GpuResources::releasePlace(std::size_t first, std::size_t rows, std::uint32_t tableRow) noexcept {
    const std::size_t units = (rows + RecordArena::kUnit - 1) / RecordArena::kUnit;
    m_recordArena.slots.release(first / RecordArena::kUnit, units);
    m_freeTableRows.push_back(tableRow);  // reserved by takeTableRow: no allocation
}

void GpuResources::placePrimitives(std::vector<PrimitivePlace>& places, std::size_t primitives, std::size_t rows) {
    const std::size_t wanted = primitives > 1 ? primitives - 1 : 0;
    while (places.size() > wanted) {
        releasePlace(places.back().first, rows, places.back().tableRow);
        places.pop_back();
    }
    places.reserve(wanted);  // before any place is taken: a push_back below cannot throw
    while (places.size() < wanted) {
        const ArenaPlace place = placeInArena(rows);
        places.push_back({place.first, place.tableRow});
    }
}

void GpuResources::releasePrimitives(std::vector<PrimitivePlace>& places, std::size_t rows) noexcept {
    for (const PrimitivePlace& place : places) {
        releasePlace(place.first, rows, place.tableRow);
    }
    places.clear();
}

void GpuResources::releaseArena(BatchGpu& batch) noexcept {
    if (batch.inArena()) {
        releasePrimitives(batch.primitivePlaces, batch.arenaRows);
        releasePlace(batch.arenaFirst, batch.arenaRows, batch.tableRow);
        batch.arenaFirst = RangeAllocator::npos;
        batch.arenaRows = 0;
        batch.arena = nullptr;
    }
}

void GpuResources::releaseNodeSlot(NodeSlotGpu& slot) noexcept {
    if (slot.arenaFirst != RangeAllocator::npos) {
        releasePrimitives(slot.primitivePlaces, 1);
        releasePlace(slot.arenaFirst, 1, slot.tableRow);
        slot.arenaFirst = RangeAllocator::npos;
    }
}

void GpuResources::releaseMeshPlace(MeshGpu& mesh) noexcept {
    if (mesh.arena.placed()) {
        MeshArena& arena = m_meshArenas[mesh.arena.arena];
        arena.vertexSlots.release(mesh.arena.baseVertex, mesh.arena.vertexCount);
        arena.indexSlots.release(mesh.arena.firstIndex, mesh.arena.indexCount);
        mesh.arena = MeshArenaPlace{};
    }
}

NodeSlotGpu& GpuResources::nodeSlot(const MeshNode& node) {
    auto it = m_nodeSlots.find(node.id());
    if (it == m_nodeSlots.end()) {
        it = m_nodeSlots.emplace(node.id(), NodeSlotGpu{}).first;
    }
    NodeSlotGpu& slot = it->second;
    m_used.nodeSlots += slot.lastUsedFrame != m_frame ? 1 : 0;
    slot.lastUsedFrame = m_frame;
    if (slot.arenaFirst == RangeAllocator::npos) {  // first use (node ids are never reused)
        const ArenaPlace place = placeInArena(1);
        slot.arenaFirst = place.first;
        slot.tableRow = place.tableRow;
        slot.alive = node.lifetime();
        const InstanceRecord identity{};  // the identity matrix, white: the node's row does the rest
        m_ring.copy(m_recordArena.records.id(), slot.arenaFirst * InstancedMeshNode::strideInBytes, &identity,
                    sizeof(identity));
        m_stats->bytesUploaded += sizeof(identity);
    }
    placePrimitives(slot.primitivePlaces, node.primitiveCount(), 1);
    return slot;
}

MeshGpu& GpuResources::meshInArena(const std::shared_ptr<const MeshGeometry>& geometry) {
    MeshGpu& gpu = mesh(geometry);
    if (gpu.arena.placed()) {
        return gpu;
    }
    // The arena of the mesh's vertex layout: few exist (float, and one per packed layout in use).
    const PackedVertexLayout& layout = geometry->vertexLayout();
    auto found = std::find_if(m_meshArenas.begin(), m_meshArenas.end(),
                              [&](const MeshArena& each) { return each.layout == layout; });
    if (found == m_meshArenas.end()) {
        m_meshArenas.emplace_back().layout = layout;
        found = m_meshArenas.end() - 1;
    }
    MeshArena& arena = *found;
    const auto arenaIndex = static_cast<std::uint32_t>(found - m_meshArenas.begin());
    const std::size_t stride = layout.strideBytes;
    const std::size_t vertexCount = geometry->vertexCount();
    const std::size_t indexCount = geometry->indexCount();
    std::size_t baseVertex = arena.vertexSlots.allocate(vertexCount);
    std::size_t firstIndex = arena.indexSlots.allocate(indexCount);
    if (baseVertex == RangeAllocator::npos || firstIndex == RangeAllocator::npos) {
        // Grow both that need it (the GPU copies the old contents), then place again.
        if (baseVertex != RangeAllocator::npos) {
            arena.vertexSlots.release(baseVertex, vertexCount);
        }
        if (firstIndex != RangeAllocator::npos) {
            arena.indexSlots.release(firstIndex, indexCount);
        }
        const std::string suffix = arenaIndex == 0 ? "" : "#" + std::to_string(arenaIndex);
        if (baseVertex == RangeAllocator::npos) {
            const std::size_t capacity = grownCapacity(arena.vertexSlots.capacity(), vertexCount, 16384);
            arena.vertices = grownBuffer(arena.vertices, capacity * stride, "myriad/Renderer.vertex-arena" + suffix);
            arena.vertexSlots.grow(capacity);
        }
        if (firstIndex == RangeAllocator::npos) {
            const std::size_t capacity = grownCapacity(arena.indexSlots.capacity(), indexCount, 65536);
            arena.indices = grownBuffer(arena.indices, capacity * sizeof(std::uint32_t),
                                        "myriad/Renderer.index-arena" + suffix);
            arena.indexSlots.grow(capacity);
        }
        arena.serial = ++m_bufferSerial;
        baseVertex = arena.vertexSlots.allocate(vertexCount);
        firstIndex = arena.indexSlots.allocate(indexCount);
    }
    // Vertices: a GPU copy of the mesh's own buffer, whose layout is the arena's (packed ones
    // stay packed). Indices: widened to 32 bits, so every mesh of an arena shares one index
    // type and one multi-draw call covers them all.
    glCopyNamedBufferSubData(gpu.vertices.id(), arena.vertices.id(), 0, static_cast<GLintptr>(baseVertex * stride),
                             static_cast<GLsizeiptr>(vertexCount * stride));
    const MeshData& data = geometry->data();
    std::vector<std::uint32_t>& indices = m_scratchIndices;
    if (geometry->indexType() == IndexType::UInt16) {
        indices.assign(data.indices16.begin(), data.indices16.end());
    }
    const std::uint32_t* source = geometry->indexType() == IndexType::UInt16 ? indices.data() : data.indices32.data();
    m_ring.copy(arena.indices.id(), firstIndex * sizeof(std::uint32_t), source, indexCount * sizeof(std::uint32_t));
    m_stats->bytesUploaded += indexCount * sizeof(std::uint32_t);
    gpu.arena = {arenaIndex, baseVertex, vertexCount, firstIndex, indexCount};
    return gpu;
}

void bindRecordTexture(BatchGpu& gpu, GLuint unit) {
    const BatchGpu::RecordSource records = gpu.recordSource();  // Streaming: this frame's part
    const std::uint64_t serial = gpu.recordSerial();
    const std::array<std::uint64_t, 3> wanted{serial, records.offset, records.bytes};
    if (gpu.recordTexture.id() == 0) {
        gpu.recordTexture = TextureHandle(GL_TEXTURE_BUFFER);
        setLabel(GL_TEXTURE, gpu.recordTexture.id(), labelFor(*gpu.node, "InstancedMeshNode.record-texture"));
    }
    if (gpu.recordTextureSource != wanted) {
        if (records.buffer == 0 || records.bytes == 0) {
            glTextureBuffer(gpu.recordTexture.id(), GL_RGBA32F, 0);
        } else {
            glTextureBufferRange(gpu.recordTexture.id(), GL_RGBA32F, records.buffer,
                                 static_cast<GLintptr>(records.offset), static_cast<GLsizeiptr>(records.bytes));
        }
        gpu.recordTextureSource = wanted;
    }
    glBindTextureUnit(unit, gpu.recordTexture.id());
}

// ---- motion vectors: previous records (docs/visibility.md, "Motion vectors") -------------------

namespace {
/** Where a batch's records are drawn from now, as a key that survives the record arena's
 *  growth (which moves every batch's rows to a new buffer, contents kept): the arena's place,
 *  or the own or streaming buffer's serial and the part's offset. */
std::pair<std::uint64_t, std::size_t> drawnKey(const BatchGpu& batch) noexcept {
    if (batch.streaming) {
        return {batch.streaming->serial, batch.streaming->partOffset()};
    }
    if (batch.inArena()) {
        return {~0ull, batch.arenaFirst * InstancedMeshNode::strideInBytes};
    }
    return {batch.streams[InstanceStreamId::Record].serial, 0};
}
} // namespace

bool GpuResources::beginPrevious(const InstancedMeshNode& node, BatchGpu& batch) {
    constexpr std::size_t kStride = InstancedMeshNode::strideInBytes;
    const std::size_t capacity = StreamingRecords::partCapacity(node.capacity());
    m_scratchNewRows.clear();
    if (batch.previous && batch.previous->frame == m_velocityFrame) {
        return false;  // already this frame (a second prepare of the same frame number)
    }
    if (!batch.previous || batch.previous->capacity != capacity) {
        // First velocity frame, or the batch's capacity changed: a buffer of its capacity
        // (rounded up to 4 rows like a streaming part), previous = current for one frame.
        requireTextureBufferTexels(m_limits, capacity * 4, node, "previous records for motion vectors (a buffer texture, 4 texels a record)",
                                   "lower the batch's capacity or split it into several batches");
        auto made = std::make_unique<PreviousRecords>();
        made->buffer = Buffer({.sizeBytes = capacity * kStride, .label = labelFor(node, "InstancedMeshNode.previous-records")});
        made->texture = TextureHandle(GL_TEXTURE_BUFFER);
        glTextureBuffer(made->texture.id(), GL_RGBA32F, made->buffer.id());
        setLabel(GL_TEXTURE, made->texture.id(), labelFor(node, "InstancedMeshNode.previous-records-texture"));
        made->capacity = capacity;
        if (batch.previous) {
            made->moveCursor = batch.previous->moveCursor;
        }
        batch.previous = std::move(made);
        batch.previous->frame = 0;
    }
    PreviousRecords& previous = *batch.previous;
    // Where last frame's rows are: still in place for a staged batch (this frame's upload comes
    // after), in last frame's part for a streaming one (streamAhead may have written the next).
    GLuint source = 0;
    std::size_t sourceOffset = previous.drawnOffset;
    const std::pair<std::uint64_t, std::size_t> key = drawnKey(batch);
    if (previous.frame + 1 == m_velocityFrame && key.first == previous.drawnSerial &&
        (batch.streaming || key.second == previous.drawnOffset)) {
        source = batch.recordBuffer().id();
        if (batch.streaming) {
            // This frame's commands read that part too: the frame's fence covers it.
            batch.streaming->readFrame[previous.drawnOffset / (batch.streaming->capacity * kStride)] = m_frame;
            m_streamingReadThisFrame = true;
        }
    }
    m_scratchMoves.clear();
    if (source == 0 || !node.moves().since(previous.moveCursor, m_scratchMoves)) {
        return true;  // no usable last frame: previous = current after the upload
    }
    const std::size_t drawnRows = std::min(previous.drawnCount, capacity);
    if (drawnRows != 0) {
        glCopyNamedBufferSubData(source, previous.buffer.id(), static_cast<GLintptr>(sourceOffset), 0,
                                 static_cast<GLsizeiptr>(drawnRows * kStride));
    }
    // The moves since then, in order, as "row r now holds what row from[r] held last frame"
    // (kNew: a new instance). Each row is then copied from last frame's rows, which no command
    // has changed yet, so a chain of moves (a row moved twice) needs no order among the copies.
    std::unordered_map<std::size_t, std::size_t> from;
    for (const MoveLog::Entry& entry : m_scratchMoves) {
        for (std::size_t k = 0; k < entry.count; ++k) {
            if (entry.from == MoveLog::kNew) {
                from[entry.to + k] = MoveLog::kNew;
            } else {
                const auto found = from.find(entry.from + k);
                from[entry.to + k] = found != from.end() ? found->second : entry.from + k;
            }
        }
    }
    const std::size_t count = node.count();
    for (const auto& [row, was] : from) {
        if (row >= count || row == was) {
            continue;
        }
        if (was == MoveLog::kNew || was >= drawnRows) {
            m_scratchNewRows.emplace_back(row, row + 1);
        } else {
            glCopyNamedBufferSubData(source, previous.buffer.id(), static_cast<GLintptr>(sourceOffset + was * kStride),
                                     static_cast<GLintptr>(row * kStride), static_cast<GLsizeiptr>(kStride));
        }
    }
    if (count > drawnRows) {
        m_scratchNewRows.emplace_back(drawnRows, count);  // rows past last frame's count are new
    }
    return false;
}

void GpuResources::finishPrevious(const InstancedMeshNode& node, BatchGpu& batch, bool all) {
    constexpr std::size_t kStride = InstancedMeshNode::strideInBytes;
    PreviousRecords& previous = *batch.previous;
    if (previous.frame == m_velocityFrame) {
        return;
    }
    const BatchGpu::RecordSource current = batch.recordSource();
    const std::size_t count = std::min(node.count(), previous.capacity);
    if (all) {
        m_scratchNewRows.assign(1, {0, count});
    }
    for (const auto& [begin, end] : m_scratchNewRows) {
        if (begin < end && current.buffer != 0) {
            glCopyNamedBufferSubData(current.buffer, previous.buffer.id(), static_cast<GLintptr>(current.offset + begin * kStride),
                                     static_cast<GLintptr>(begin * kStride), static_cast<GLsizeiptr>((end - begin) * kStride));
        }
    }
    m_scratchNewRows.clear();
    const auto [serial, offset] = drawnKey(batch);
    previous.drawnSerial = serial;
    previous.drawnOffset = offset;
    previous.drawnCount = node.count();
    previous.frame = m_velocityFrame;
    MoveLog& moves = node.moves();
    previous.moveCursor = moves.version();
    moves.acknowledge(m_consumer, moves.version());
}

void GpuResources::bindPreviousRecords(const BatchGpu& batch, GLuint unit) noexcept {
    glBindTextureUnit(unit, batch.previous ? batch.previous->texture.id() : 0);
}

} // namespace myriad::gl::detail
