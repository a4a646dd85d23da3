#include "renderer/ParticlePass.h"
#include "renderer/ProgramUse.h"

#include "renderer/LightList.h"
#include "renderer/ShadingFactors.h"
#include "renderer/Fog.h"

#include "myriad/core/Camera.h"
#include "myriad/core/InstanceRecord.h"
#include "myriad/core/Material.h"
#include "myriad/core/Scene.h"
#include "myriad/gl/Draw.h"
#include "myriad/util/Error.h"

#include <glm/geometric.hpp>
#include <glm/mat3x3.hpp>

#include <algorithm>
#include <chrono>
#include <cstring>
#if defined(__SSE2__) || defined(_M_X64)
#define MYRIAD_PARTICLES_SSE2 1
#include <immintrin.h>
#endif
#include <limits>
#include <string>

namespace myriad::gl::detail {
namespace {

constexpr std::size_t kRowBytes = 16;  // one vec4 row of a particle stream
/** A streaming part's version of a stream before anything was written into it. */
constexpr std::uint64_t kNothingHeld = ~std::uint64_t{0};

} // namespace

void sortBackToFront(std::span<const glm::vec4> positions, std::size_t count, const glm::vec3& eye,
                     const glm::vec3& forward, std::vector<std::uint32_t>& order, ParticleSortScratch& scratch) {
    // Why not 3 passes of 11 bits on the float's bits (what this was): each scatter pass wrote
    // into 2,048 places of an 8 MB array at once, one 4 KiB page each, so nearly every store
    // missed the TLB (38.7 ms of issue 24's 108). 256 buckets of 8-byte items keep the pages
    // written at once inside the second-level TLB and the lines inside L1.
    order.resize(count);
    scratch.depth.resize(count);
    scratch.keys.resize(count);
    scratch.packed.resize(count);
    // 1. Depth along the view axis, the one read of the positions, with its range.
    float* depth = scratch.depth.data();
    const glm::vec4* p = positions.data();
    const float fx = forward.x, fy = forward.y, fz = forward.z;
    const float base = -glm::dot(eye, forward);
    float lo = std::numeric_limits<float>::infinity();
    float hi = -std::numeric_limits<float>::infinity();
    for (std::size_t i = 0; i < count; ++i) {
        const float d = p[i].x * fx + p[i].y * fy + p[i].z * fz + base;
        depth[i] = d;
        lo = std::min(lo, d);
        hi = std::max(hi, d);
    }
    // 2. 16-bit keys quantised over [lo, hi], farthest first (key 0), and both digits'
    //    histograms. NaN (rows written without checks) goes first; a zero range keys all 0.
    const float scale = hi > lo ? 65535.0f / (hi - lo) : 0.0f;
    std::uint16_t* keys = scratch.keys.data();
    std::array<std::uint32_t, 256> low{};
    std::array<std::uint32_t, 256> high{};
    for (std::size_t i = 0; i < count; ++i) {
        float t = (hi - depth[i]) * scale;
        t = t > 0.0f ? t : 0.0f;
        t = t < 65535.0f ? t : 65535.0f;
        const auto key = static_cast<std::uint16_t>(t);
        keys[i] = key;
        ++low[key & 255u];
        ++high[key >> 8];
    }
    std::uint32_t lowSum = 0;
    std::uint32_t highSum = 0;
    for (std::size_t b = 0; b < 256; ++b) {
        const std::uint32_t l = low[b];
        const std::uint32_t h = high[b];
        low[b] = lowSum;
        high[b] = highSum;
        lowSum += l;
        highSum += h;
    }
    // 3. By the low digit: (key, index) pairs packed in 8 bytes, one store each.
    std::uint64_t* packed = scratch.packed.data();
    for (std::size_t i = 0; i < count; ++i) {
        const std::uint32_t key = keys[i];
        packed[low[key & 255u]++] = (std::uint64_t{key} << 32) | static_cast<std::uint32_t>(i);
    }
    // 4. By the high digit, stable: only the index is kept.
    std::uint32_t* out = order.data();
    for (std::size_t i = 0; i < count; ++i) {
        const std::uint64_t item = packed[i];
        out[high[(item >> 40) & 255u]++] = static_cast<std::uint32_t>(item);
    }
}

ParticlePass::ParticlePass(std::uint64_t consumer, const GlLimits& limits) : m_consumer(consumer), m_limits(limits) {}

ParticlePass::~ParticlePass() {
    for (auto& [id, gpu] : m_pools) {
        forget(gpu);
    }
    for (auto& [id, gpu] : m_scatter) {
        forget(gpu);
    }
}

void ParticlePass::forget(PoolGpu& gpu) noexcept {
    if (!gpu.alive.expired() && gpu.node != nullptr) {
        for (const InstanceStream& stream : gpu.node->streams()) {
            stream.changes().forget(m_consumer);
        }
    }
}

void ParticlePass::forget(ScatterGpu& gpu) noexcept {
    if (!gpu.alive.expired() && gpu.node != nullptr) {
        gpu.node->stream().changes().forget(m_consumer);
    }
}

void ParticlePass::endFrame() noexcept {
    std::erase_if(m_pools, [](const auto& entry) { return entry.second.alive.expired(); });
    std::erase_if(m_scatter, [](const auto& entry) { return entry.second.alive.expired(); });
}

void ParticlePass::trim() {
    for (auto it = m_pools.begin(); it != m_pools.end();) {
        if (it->second.uploadedFrame != m_frame) {
            forget(it->second);
            it = m_pools.erase(it);
        } else {
            ++it;
        }
    }
    for (auto it = m_scatter.begin(); it != m_scatter.end();) {
        if (it->second.uploadedFrame != m_frame) {
            forget(it->second);
            it = m_scatter.erase(it);
        } else {
            ++it;
        }
    }
}

std::uint32_t particleFeatures(const ViewPass& pass) {
    return kParticle | outputFeatures(pass.view()) | fogFeatures(pass.fog());
}

Material atlasMaterial(const ParticleMaterial& material) {
    Material atlas;
    atlas.name = material.name;
    atlas.baseColorTexture = material.atlas;
    return atlas;
}

void prepareParticleDraw(const ViewPass& pass, ShaderLibrary& shaders, GpuResources& resources,
                         const ParticleMaterial& material) {
    shaders.request(particleFeatures(pass), material.surface);  // waited for by the renderer
    if (material.atlas) {
        (void)resources.texture(atlasMaterial(material));
    }
}

void beginParticleDraw(const ViewPass& pass, ShaderLibrary& shaders, GpuResources& resources,
                       const ParticleMaterial& material, const glm::vec4& tint, std::size_t planeTexels, bool compact,
                       bool sorted) {
    glEnable(GL_BLEND);
    glBlendEquation(GL_FUNC_ADD);
    glDepthMask(GL_FALSE);
    glDisable(GL_CULL_FACE);  // a rolled or streaked quad may face either way
    if (material.blend == ParticleBlend::Additive) {
        glBlendFuncSeparate(GL_ONE, GL_ONE, GL_ZERO, GL_ONE);
    } else {
        glBlendFuncSeparate(GL_ONE, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
    }
    SurfaceProgram& chosen = shaders.get(particleFeatures(pass), material.surface);
    const Program& program = chosen.program;
    const SurfaceUniforms& u = chosen.uniforms;
    useCounted(program, chosen.usedFrame, resources.stats());
    ++resources.stats().programBinds;
    const ViewCamera& camera = pass.camera();
    const glm::mat3 rotation = viewRotation(pass.view());
    program.setUniform(u.viewProjection, camera.viewProjection);
    program.setUniform(u.eye, glm::vec3(camera.eye));
    program.setUniform(u.tint, tint);
    program.setUniform(u.particle.cameraRight, glm::vec3(rotation[0][0], rotation[1][0], rotation[2][0]));
    program.setUniform(u.particle.cameraUp, glm::vec3(rotation[0][1], rotation[1][1], rotation[2][1]));
    program.setUniform(u.particle.capacity, static_cast<int>(planeTexels));
    // Always set: CPU pools and GPU systems share the program, and a compact pool leaves it 1.
    program.setUniform(u.particle.compact, compact ? 1 : 0);
    program.setUniform(u.particle.sorted, sorted ? 1 : 0);
    program.setUniform(u.particle.streak, material.shape == ParticleShape::Streak ? 1 : 0);
    program.setUniform(u.particle.streakSeconds, material.streakSeconds);
    program.setUniform(u.particle.atlasGrid,
                       glm::vec2(static_cast<float>(material.atlasColumns), static_cast<float>(material.atlasRows)));
    program.setUniform(u.particle.blendFrames, material.blendFrames ? 1 : 0);
    program.setUniform(u.particle.round, material.round ? 1 : 0);
    setFogUniforms(program, u, pass.fog());  // fog (docs/lighting.md): additive light fades, alpha mixes
    if (u.fog.additive >= 0) {
        program.setUniform(u.fog.additive, material.blend == ParticleBlend::Additive ? 1 : 0);
    }
    const Texture2D* texture = nullptr;
    if (material.atlas) {
        const Material atlas = atlasMaterial(material);
        texture = resources.texture(atlas);
        texture->bind(kParticleAtlasUnit);
        glBindSampler(kParticleAtlasUnit, resources.sampler(atlas));
    }
    program.setUniform(u.hasTexture, texture != nullptr ? 1 : 0);
}

std::uint32_t ParticlePass::scatterFeatures(const ScatterNode& node, const ViewPass& pass) const {
    const View& view = pass.view();
    std::uint32_t features = kScatter | fogFeatures(pass.fog());
    if (node.material().alphaMode == AlphaMode::Mask) {
        features |= kAlphaMask;
    }
    if (view.depthOnly) {
        features |= kDepthOnly;
    } else if (node.material().shading == Shading::Lit) {
        features |= kLit;
    } else if (node.material().shading == Shading::MetallicRoughness) {
        features |= kLit | kMetallicRoughness;
    }
    if (m_imageAmbient && (features & kLit) != 0) {
        features |= kImageAmbient;  // image-based ambient (renderer/EnvironmentMap.h)
    }
    return features | outputFeatures(view);
}

void ParticlePass::prepare(std::span<const ViewPass> passes, ShaderLibrary& shaders, GpuResources& resources) {
    ++m_frame;
    if (m_emptyVertexArray.id() == 0) {
        VertexLayoutDesc empty;
        empty.label = "myriad/Renderer.particle-vertex-array";
        m_emptyVertexArray = VertexArray(empty);
    }
    for (std::size_t p = 0; p < passes.size(); ++p) {
        const ViewPass& pass = passes[p];
        for (const SceneNode* node : pass.particleNodes()) {
            if (node->kind() == NodeKind::Particles) {
                const auto& pool = static_cast<const ParticlePool&>(*node);
                if (pool.count() == 0 || pass.view().depthOnly) {
                    continue;
                }
                prepareParticleDraw(pass, shaders, resources, pool.material());
                PoolGpu& gpu = m_pools[pool.id()];
                if (gpu.uploadedFrame != m_frame) {
                    uploadPool(pool, gpu, resources);
                }
                if (pool.material().sorted()) {
                    uploadOrder(p, pass, pool, gpu, resources);
                }
            } else if (node->kind() == NodeKind::Scatter) {  // GpuParticles: GpuParticlePass
                const auto& scatter = static_cast<const ScatterNode&>(*node);
                if (scatter.count() == 0) {
                    continue;
                }
                shaders.request(scatterFeatures(scatter, pass), scatter.material().surface);
                (void)resources.mesh(scatter.mesh());
                (void)resources.texture(scatter.material());
                ScatterGpu& gpu = m_scatter[scatter.id()];
                if (gpu.uploadedFrame != m_frame) {
                    uploadScatter(scatter, gpu, resources);
                }
            }
        }
    }
}

void ParticlePass::StreamingParts::create(std::size_t bytesPerPart, GLenum format, const std::string& label) {
    buffer = Buffer({.sizeBytes = kParts * bytesPerPart, .usage = BufferUsage::PersistentMapped, .label = label});
    for (std::size_t p = 0; p < kParts; ++p) {
        textures[p] = TextureHandle(GL_TEXTURE_BUFFER);
        glTextureBufferRange(textures[p].id(), format, buffer.id(), static_cast<GLintptr>(p * bytesPerPart),
                             static_cast<GLsizeiptr>(bytesPerPart));
        setLabel(GL_TEXTURE, textures[p].id(), label + "-texture#" + std::to_string(p));
    }
    readFrame = {};
    partBytes = bytesPerPart;
    part = kParts - 1;
}

namespace {

/** Rows per plane of a streaming copy: a multiple of 16, so every plane and part starts at a
 *  multiple of 256 bytes (GL_TEXTURE_BUFFER_OFFSET_ALIGNMENT is at most 256). */
std::size_t streamingRows(std::size_t capacity) noexcept { return (capacity + 15) / 16 * 16; }

/** A compact pool's second plane: (age, seed, frame, spin) of rows [begin, end). */
void gatherAgeSeedFrameSpin(const ParticlePool& pool, std::size_t begin, std::size_t end, glm::vec4* out) noexcept {
    const glm::vec4* life = pool.rows(ParticleStreamId::AgeSeedFrameHeight).data();
    const glm::vec4* velocitySpin = pool.rows(ParticleStreamId::VelocitySpin).data();
    for (std::size_t i = begin; i < end; ++i) {
        out[i - begin] = glm::vec4(life[i].x, life[i].y, life[i].z, velocitySpin[i].w);
    }
}

/** The same into memory the GPU reads (a streaming part), with non-temporal stores where the
 *  CPU has them: where the mapping is ordinary cached memory (llvmpipe's, some integrated
 *  GPUs') the part was last written three frames ago and is in no cache, and plain stores
 *  would first read every line they fill; where it is write-combined (a discrete GPU's usual
 *  write-only mapping) they cost the same as plain stores. glibc's memcpy, which writes the
 *  other planes, goes non-temporal itself above a few megabytes. @p out is 16-byte aligned
 *  (a part starts at a multiple of 256 bytes). */
void streamAgeSeedFrameSpin(const ParticlePool& pool, std::size_t count, glm::vec4* out) noexcept {
#if defined(MYRIAD_PARTICLES_SSE2)
    const float* life = &pool.rows(ParticleStreamId::AgeSeedFrameHeight).data()->x;
    const float* velocitySpin = &pool.rows(ParticleStreamId::VelocitySpin).data()->x;
    float* destination = &out->x;
    for (std::size_t i = 0; i < count; ++i) {
        const __m128 l = _mm_loadu_ps(life + 4 * i);          // age, seed, frame, height
        const __m128 v = _mm_loadu_ps(velocitySpin + 4 * i);  // velocity xyz, spin
        const __m128 zw = _mm_shuffle_ps(l, v, _MM_SHUFFLE(3, 3, 2, 2));   // frame, frame, spin, spin
        _mm_stream_ps(destination + 4 * i, _mm_shuffle_ps(l, zw, _MM_SHUFFLE(2, 0, 1, 0)));  // age, seed, frame, spin
    }
    _mm_sfence();  // streaming stores are weakly ordered: done before the draw is issued
#else
    gatherAgeSeedFrameSpin(pool, 0, count, out);
#endif
}

/** The CPU streams GPU plane @p plane is made from: one, or for a compact pool's second plane
 *  two (AgeSeedFrameHeight and VelocitySpin). */
std::span<const std::size_t> planeSources(bool compact, std::size_t plane) noexcept {
    static constexpr std::array<std::size_t, 4> kFull{ParticleStreamId::PositionSize, ParticleStreamId::ColorAlpha,
                                                      ParticleStreamId::VelocitySpin,
                                                      ParticleStreamId::AgeSeedFrameHeight};
    static constexpr std::array<std::size_t, 2> kCompactLife{ParticleStreamId::AgeSeedFrameHeight,
                                                             ParticleStreamId::VelocitySpin};
    if (compact && plane == 1) {
        return kCompactLife;
    }
    return std::span<const std::size_t>(kFull).subspan(plane, 1);
}

} // namespace

void ParticlePass::bakeCurves(const ParticlePool& pool, PoolGpu& gpu) {
    if (gpu.curves.id() != 0 && gpu.curvesVersion == pool.curvesVersion()) {
        return;
    }
    constexpr int kSamples = 256;
    const ParticleCurves& curves = *pool.curves();
    std::vector<glm::vec4> texels(2 * kSamples);
    for (int i = 0; i < kSamples; ++i) {
        const float age = static_cast<float>(i) / static_cast<float>(kSamples - 1);
        const glm::vec3 color = curves.colorOverLife.empty() ? curves.color : curves.colorOverLife.at(age);
        const float alpha = curves.alphaOverLife.empty() ? curves.alpha : curves.alphaOverLife.at(age);
        texels[static_cast<std::size_t>(i)] = glm::vec4(color, alpha);
        texels[static_cast<std::size_t>(kSamples + i)] =
            curves.sizeOverLife.empty() ? glm::vec4(0.0f) : glm::vec4(curves.sizeOverLife.at(age), 1.0f, 0.0f, 0.0f);
    }
    if (gpu.curves.id() == 0) {
        gpu.curves = TextureHandle(GL_TEXTURE_2D);
        glTextureStorage2D(gpu.curves.id(), 1, GL_RGBA32F, kSamples, 2);
        setLabel(GL_TEXTURE, gpu.curves.id(), labelFor(pool, "ParticlePool.curves"));
    }
    // Copied out of texels before the call returns (OpenGL 4.5 section 8.6, client memory):
    // no fence needed. A pool's curves change rarely (setCurves), never in a steady frame.
    glTextureSubImage2D(gpu.curves.id(), 0, 0, 0, kSamples, 2, GL_RGBA, GL_FLOAT, texels.data());
    gpu.curvesVersion = pool.curvesVersion();
}

void ParticlePass::uploadPool(const ParticlePool& pool, PoolGpu& gpu, GpuResources& resources) {
    if (gpu.alive.expired()) {
        gpu.alive = pool.lifetime();
        gpu.node = &pool;
    }
    gpu.uploadedFrame = m_frame;
    const bool compact = pool.curves() != nullptr;
    if (compact) {
        bakeCurves(pool, gpu);
    }
    const bool relayout = gpu.compact != compact;
    gpu.compact = compact;
    const UploadMode mode = pool.uploadMode();
    const bool stream = mode == UploadMode::Streaming || (mode == UploadMode::Automatic && gpu.denseUploads >= 3);
    if (stream) {
        if (relayout) {
            gpu.streaming.reset();  // remade with the new plane count
        }
        if (gpu.buffer.id() != 0) {  // the staged copy is not used: its GPU memory given back
            gpu.buffer = Buffer();
            gpu.texture = TextureHandle();
        }
        uploadPoolStreaming(pool, gpu, resources);
        return;
    }
    const bool full = relayout || gpu.streaming != nullptr || gpu.buffer.id() == 0;
    gpu.streaming.reset();
    const std::size_t sent = uploadPoolStaged(pool, gpu, resources, full);
    if (mode == UploadMode::Automatic) {
        gpu.denseUploads = sent * 2 >= pool.count() && sent != 0 ? gpu.denseUploads + 1 : 0;
    }
}

std::size_t ParticlePass::uploadPoolStaged(const ParticlePool& pool, PoolGpu& gpu, GpuResources& resources,
                                           bool full) {
    FrameStats& stats = resources.stats();
    const std::size_t planes = gpu.planes();
    if (full || gpu.capacity < pool.capacity()) {
        requireTextureBufferTexels(m_limits, std::uint64_t{planes} * pool.capacity(), pool,
                                   "particle streams (4 texels per particle, 2 with curves)", "lower the pool's capacity");
        gpu.buffer = Buffer({.sizeBytes = planes * pool.capacity() * kRowBytes, .label = labelFor(pool, "ParticlePool.streams")});
        gpu.texture = TextureHandle(GL_TEXTURE_BUFFER);
        glTextureBuffer(gpu.texture.id(), GL_RGBA32F, gpu.buffer.id());
        setLabel(GL_TEXTURE, gpu.texture.id(), labelFor(pool, "ParticlePool.streams-texture"));
        gpu.capacity = pool.capacity();
        full = true;
    }
    const std::size_t live = pool.count();
    std::size_t positionRows = 0;
    for (std::size_t plane = 0; plane < planes; ++plane) {
        const std::span<const std::size_t> sources = planeSources(gpu.compact, plane);
        bool changed = full;
        for (const std::size_t s : sources) {
            changed = changed || gpu.cursors[s] != pool.streams()[s].version();
        }
        if (!changed) {
            continue;
        }
        m_ranges.clear();
        bool whole = full;
        for (const std::size_t s : sources) {
            const InstanceStream& stream = pool.streams()[s];
            whole = whole || gpu.cursors[s] == 0 ||
                    (gpu.cursors[s] != stream.version() && !stream.changes().collect(gpu.cursors[s], m_ranges));
        }
        if (whole) {
            m_ranges.assign(1, IndexRange{0, live});
        } else if (sources.size() > 1) {
            // Two streams' ranges: in order and merged, so no row is sent twice.
            std::sort(m_ranges.begin(), m_ranges.end(),
                      [](const IndexRange& a, const IndexRange& b) { return a.begin < b.begin; });
            std::size_t kept = 0;
            for (const IndexRange& range : m_ranges) {
                if (kept != 0 && range.begin <= m_ranges[kept - 1].end) {
                    m_ranges[kept - 1].end = std::max(m_ranges[kept - 1].end, range.end);
                } else {
                    m_ranges[kept++] = range;
                }
            }
            m_ranges.resize(kept);
        }
        const std::size_t planeOffset = plane * gpu.capacity * kRowBytes;
        for (const IndexRange& range : m_ranges) {
            const std::size_t end = std::min(range.end, live);  // only live particles
            if (range.begin >= end) {
                continue;
            }
            const std::size_t bytes = (end - range.begin) * kRowBytes;
            const void* source = nullptr;
            if (sources.size() == 1) {
                source = pool.rows(sources[0]).data() + range.begin;
            } else {
                m_gather.resize(end - range.begin);
                gatherAgeSeedFrameSpin(pool, range.begin, end, m_gather.data());
                source = m_gather.data();
            }
            resources.ring().copy(gpu.buffer.id(), planeOffset + range.begin * kRowBytes, source, bytes);
            stats.bytesUploaded += bytes;
            ++stats.uploadRanges;
            positionRows += plane == 0 ? end - range.begin : 0;
        }
    }
    for (std::size_t s = 0; s < ParticleStreamId::Count; ++s) {
        const InstanceStream& stream = pool.streams()[s];
        gpu.cursors[s] = stream.version();
        stream.changes().acknowledge(m_consumer, stream.version());
    }
    return positionRows;
}

void ParticlePass::uploadPoolStreaming(const ParticlePool& pool, PoolGpu& gpu, GpuResources& resources) {
    FrameStats& stats = resources.stats();
    const std::size_t planes = gpu.planes();
    const std::size_t rows = streamingRows(pool.capacity());
    if (!gpu.streaming || gpu.capacity != rows) {
        requireTextureBufferTexels(m_limits, std::uint64_t{planes} * rows, pool,
                                   "particle streams (4 texels per particle, 2 with curves)", "lower the pool's capacity");
        auto parts = std::make_unique<StreamingParts>();
        parts->create(planes * rows * kRowBytes, GL_RGBA32F, labelFor(pool, "ParticlePool.streams-streaming"));
        gpu.streaming = std::move(parts);
        gpu.capacity = rows;
        for (auto& held : gpu.partVersions) {
            held.fill(kNothingHeld);
        }
    }
    StreamingParts& parts = *gpu.streaming;
    std::array<std::uint64_t, ParticleStreamId::Count> versions{};
    for (std::size_t s = 0; s < ParticleStreamId::Count; ++s) {
        versions[s] = pool.streams()[s].version();
    }
    const auto planeCurrent = [&](std::size_t part, std::size_t plane) {
        for (const std::size_t s : planeSources(gpu.compact, plane)) {
            if (gpu.partVersions[part][s] != versions[s]) {
                return false;
            }
        }
        return true;
    };
    bool changed = false;
    for (std::size_t plane = 0; plane < planes && !changed; ++plane) {
        changed = !planeCurrent(parts.part, plane);
    }
    if (changed) {
        // The next part: the GPU may still read it for the last frame that drew it (drawn
        // unchanged any number of frames since): wait for that frame's fence. Then only the
        // planes that part holds an older version of, every live row each (one copy a plane,
        // into memory the GPU reads: no staging copy, no GPU copy).
        const std::size_t next = (parts.part + 1) % StreamingParts::kParts;
        resources.waitForStreamingPart(parts.readFrame[next]);
        parts.part = next;
        const std::size_t live = pool.count();
        std::byte* base = parts.mapped(next);
        for (std::size_t plane = 0; plane < planes; ++plane) {
            if (planeCurrent(next, plane) || live == 0) {
                continue;
            }
            auto* destination = reinterpret_cast<glm::vec4*>(base + plane * rows * kRowBytes);
            const std::span<const std::size_t> sources = planeSources(gpu.compact, plane);
            if (sources.size() == 1) {
                std::memcpy(destination, pool.rows(sources[0]).data(), live * kRowBytes);
            } else {
                streamAgeSeedFrameSpin(pool, live, destination);
            }
            stats.bytesUploaded += live * kRowBytes;
            stats.bytesStreamed += live * kRowBytes;
            ++stats.uploadRanges;
        }
        gpu.partVersions[next] = versions;
    }
    for (std::size_t s = 0; s < ParticleStreamId::Count; ++s) {
        gpu.cursors[s] = versions[s];
        pool.streams()[s].changes().acknowledge(m_consumer, versions[s]);
    }
}

void ParticlePass::uploadOrder(std::size_t passIndex, const ViewPass& pass, const ParticlePool& pool, PoolGpu& gpu,
                               GpuResources& resources) {
    FrameStats& stats = resources.stats();
    if (gpu.orders.size() <= passIndex) {
        gpu.orders.resize(passIndex + 1);
    }
    OrderGpu& order = gpu.orders[passIndex];
    const std::size_t count = pool.count();
    const glm::mat3 rotation = viewRotation(pass.view());
    const glm::vec3 forward = -glm::vec3(rotation[0][2], rotation[1][2], rotation[2][2]);
    const glm::vec3 eye(pass.camera().eye);
    const std::uint64_t version = pool.streams()[ParticleStreamId::PositionSize].version();
    if (order.positionsVersion != 0 && order.capacity >= pool.capacity() && order.positionsVersion == version &&
        order.count == count && order.eye == eye && order.forward == forward) {
        order.sorted = true;  // neither the camera nor a particle moved: last frame's order holds
        return;
    }
    const auto start = std::chrono::steady_clock::now();
    sortBackToFront(pool.rows(ParticleStreamId::PositionSize), count, eye, forward, m_order, m_scratch);
    stats.sortMs += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    stats.particlesSorted += count;
    if (order.capacity < pool.capacity()) {
        // Rows a multiple of 64, so each part starts 256-byte aligned.
        const std::size_t rows = (pool.capacity() + 63) / 64 * 64;
        requireTextureBufferTexels(m_limits, rows, pool, "back-to-front order (1 texel per particle)",
                                   "lower the pool's capacity");
        order.parts.create(rows * sizeof(std::uint32_t), GL_R32UI,
                           labelFor(pool, "ParticlePool.order-" + std::to_string(passIndex)));
        order.capacity = rows;
    }
    // Rewritten whole at every sort: straight into the next part (sequential stores; the
    // sort's own scattered last pass stays in cached memory, not in write-combined mapping).
    StreamingParts& parts = order.parts;
    const std::size_t next = (parts.part + 1) % StreamingParts::kParts;
    resources.waitForStreamingPart(parts.readFrame[next]);
    parts.part = next;
    const std::size_t bytes = count * sizeof(std::uint32_t);
    std::memcpy(parts.mapped(next), m_order.data(), bytes);
    stats.bytesUploaded += bytes;
    stats.bytesStreamed += bytes;
    ++stats.uploadRanges;
    order.sorted = true;
    order.eye = eye;
    order.forward = forward;
    order.positionsVersion = version;
    order.count = count;
}

void ParticlePass::uploadScatter(const ScatterNode& node, ScatterGpu& gpu, GpuResources& resources) {
    FrameStats& stats = resources.stats();
    if (gpu.alive.expired()) {
        gpu.alive = node.lifetime();
        gpu.node = &node;
    }
    gpu.uploadedFrame = m_frame;
    const InstanceStream& stream = node.stream();
    const std::size_t rowBytes = stream.desc().floatsPerInstance * sizeof(float);
    bool full = gpu.cursor == 0;
    if (gpu.capacity < stream.capacity()) {
        gpu.buffer = Buffer({.sizeBytes = stream.capacity() * rowBytes, .label = labelFor(node, "ScatterNode.scatter")});
        gpu.capacity = stream.capacity();
        gpu.meshId = 0;  // the vertex array points at the old buffer
        full = true;
    }
    if (gpu.meshId != node.mesh()->id()) {
        const MeshGpu& mesh = resources.mesh(node.mesh());
        const std::string label = labelFor(node, "ScatterNode.vertex-array");  // the layout keeps a view of it
        VertexLayoutDesc layout = meshVertexLayout(node.mesh()->vertexLayout(), label);
        const InstanceStreamDesc& desc = streams::kScatter;
        layout.bindings.push_back({kInstanceBinding, static_cast<std::uint32_t>(rowBytes), 1});
        for (std::uint32_t k = 0; k < desc.floatsPerInstance / 4; ++k) {
            layout.attributes.push_back({desc.location + k, AttributeFormat::Float4,
                                         static_cast<std::uint32_t>(k * 4 * sizeof(float)), kInstanceBinding});
        }
        gpu.vertexArray = VertexArray(layout);
        gpu.vertexArray.setVertexBuffer(kVertexBinding, mesh.vertices);
        gpu.vertexArray.setIndexBuffer(mesh.indices, node.mesh()->indexType(), node.mesh()->vertexCount() - 1);
        gpu.vertexArray.setVertexBuffer(kInstanceBinding, gpu.buffer);
        gpu.meshId = node.mesh()->id();
    }
    if (!full && gpu.cursor == stream.version()) {
        return;
    }
    m_ranges.clear();
    if (full || !stream.changes().collect(gpu.cursor, m_ranges)) {
        m_ranges.assign(1, IndexRange{0, node.count()});
    }
    const float* data = stream.data().data();
    for (const IndexRange& range : m_ranges) {
        const std::size_t end = std::min(range.end, node.count());
        if (range.begin >= end) {
            continue;
        }
        const std::size_t bytes = (end - range.begin) * rowBytes;
        resources.ring().copy(gpu.buffer.id(), range.begin * rowBytes, data + range.begin * 8, bytes);
        stats.bytesUploaded += bytes;
        ++stats.uploadRanges;
    }
    gpu.cursor = stream.version();
    stream.changes().acknowledge(m_consumer, stream.version());
}

void ParticlePass::drawScatter(std::size_t passIndex, const ViewPass& pass, ShaderLibrary& shaders,
                               GpuResources& resources, const Scene& scene, const LightList& lights) {
    FrameStats& stats = resources.stats();
    for (const SceneNode* node : pass.particleNodes()) {
        if (node->kind() != NodeKind::Scatter) {
            continue;
        }
        const auto& scatter = static_cast<const ScatterNode&>(*node);
        const auto found = m_scatter.find(scatter.id());
        if (scatter.count() == 0 || found == m_scatter.end()) {
            continue;
        }
        const Material& material = scatter.material();
        SurfaceProgram& chosen = shaders.get(scatterFeatures(scatter, pass), material.surface);
        const Program& program = chosen.program;
        const SurfaceUniforms& u = chosen.uniforms;
        useCounted(program, chosen.usedFrame, stats);
        ++stats.programBinds;
        const ViewCamera& camera = pass.camera();
        program.setUniform(u.viewProjection, camera.viewProjection);
        program.setUniform(u.eye, glm::vec3(camera.eye));
        lights.setViewUniforms(chosen, passIndex, scene);  // sun, ambient, the view's light list
        program.setUniform(u.lightChannels, static_cast<int>(scatter.lightChannels()));
        const ShadingFactors factors = shadingFactors(material);
        program.setUniform(u.metallicRoughness, factors.metallicRoughness);
        program.setUniform(u.emissive, factors.emission);
        setFogUniforms(program, u, pass.fog());
        glm::mat4 model(scatter.worldLinear());
        model[3] = glm::vec4(glm::vec3(scatter.worldTranslation() - camera.eye), 1.0f);
        program.setUniform(u.model, model);
        program.setUniform(u.tint, scatter.tint());
        program.setUniform(u.baseColor, material.baseColor);
        program.setUniform(u.alphaCutoff, material.alphaCutoff);
        const Texture2D* texture = resources.texture(material);
        if (texture != nullptr) {
            texture->bind(kParticleAtlasUnit);
            glBindSampler(kParticleAtlasUnit, resources.sampler(material));
        }
        program.setUniform(u.hasTexture, texture != nullptr ? 1 : 0);
        const WindField& wind = scatter.wind;
        glm::vec3 windDirection(wind.direction.x, 0.0f, wind.direction.z);
        windDirection = glm::length(windDirection) > 0.0f ? glm::normalize(windDirection) : glm::vec3(1, 0, 0);
        program.setUniform(u.wind.meshHeight, std::max(scatter.mesh()->localBounds().max.y, 1e-6f));
        program.setUniform(u.wind.time, wind.time);
        program.setUniform(u.wind.direction, windDirection);
        program.setUniform(u.wind.strength, wind.strength);
        program.setUniform(u.wind.gustStrength, wind.gustStrength);
        program.setUniform(u.wind.gustScale, wind.gustScale);
        program.setUniform(u.wind.gustSpeed, wind.gustSpeed);
        if (material.doubleSided) {
            glDisable(GL_CULL_FACE);
        } else {
            glEnable(GL_CULL_FACE);
            glCullFace(scatter.worldIsMirrored() ? GL_FRONT : GL_BACK);
        }
        const MeshGeometry& geometry = *scatter.mesh();
        const auto count = static_cast<std::uint32_t>(scatter.count());
        drawElementsInstanced(found->second.vertexArray, PrimitiveMode::Triangles, geometry.indexCount(),
                              geometry.indexType(), 0, count);
        ++stats.drawCalls;
        ++stats.drawCommands;
        ++stats.vertexArrayBinds;
        stats.instances += count;
        stats.triangles += std::uint64_t{geometry.triangleCount()} * count;
    }
}

void ParticlePass::drawParticles(std::size_t passIndex, const ViewPass& pass, ShaderLibrary& shaders,
                                 GpuResources& resources) {
    if (pass.view().depthOnly) {
        return;  // particles write no depth
    }
    bool drawn = false;
    for (const SceneNode* node : pass.particleNodes()) {
        if (node->kind() != NodeKind::Particles) {
            continue;
        }
        const auto& pool = static_cast<const ParticlePool&>(*node);
        if (pool.drawBounds() == nullptr) {  // with bounds: drawn among the blended meshes
            drawn = drawPool(passIndex, pass, shaders, resources, pool) || drawn;
        }
    }
    if (drawn) {
        glDepthMask(GL_TRUE);
    }
    for (auto& [id, gpu] : m_pools) {  // every pool of this pass is drawn by now
        if (passIndex < gpu.orders.size()) {
            gpu.orders[passIndex].sorted = false;
        }
    }
}

bool ParticlePass::drawPool(std::size_t passIndex, const ViewPass& pass, ShaderLibrary& shaders,
                            GpuResources& resources, const ParticlePool& pool) {
    const auto found = m_pools.find(pool.id());
    if (pool.count() == 0 || found == m_pools.end() || pass.view().depthOnly) {
        return false;
    }
    FrameStats& stats = resources.stats();
    PoolGpu& gpu = found->second;
    const ParticleMaterial& material = pool.material();
    const bool sorted = material.sorted() && passIndex < gpu.orders.size() && gpu.orders[passIndex].sorted;
    beginParticleDraw(pass, shaders, resources, material, pool.tint(), gpu.capacity, gpu.compact, sorted);
    glBindTextureUnit(kParticleStreamsUnit, gpu.drawTexture());
    const std::uint64_t frame = resources.frameNumber();
    if (gpu.streaming) {
        gpu.streaming->readFrame[gpu.streaming->part] = frame;  // fenced at endFrame()
        resources.noteStreamingRead();
    }
    if (gpu.compact) {
        glBindTextureUnit(kParticleCurvesUnit, gpu.curves.id());
    }
    if (sorted) {
        // An unsorted pool reads no order (u_sorted 0), so the unit is left as it is:
        // glBindTextureUnit(unit, 0) would empty every target of it, the host's too.
        StreamingParts& order = gpu.orders[passIndex].parts;
        glBindTextureUnit(kParticleOrderUnit, order.textures[order.part].id());
        order.readFrame[order.part] = frame;
        resources.noteStreamingRead();
    }
    const auto count = static_cast<std::uint32_t>(pool.count());
    drawArraysInstanced(m_emptyVertexArray, PrimitiveMode::Triangles, 0, 6, count);
    ++stats.drawCalls;
    ++stats.drawCommands;
    ++stats.vertexArrayBinds;
    stats.particles += count;  // not in stats.instances: particles are counted apart
    stats.triangles += 2ull * count;
    return true;
}

} // namespace myriad::gl::detail
