#include "renderer/LampShadowPass.h"

#include "gl/Bindings.h"
#include "gl/StagingRing.h"
#include "renderer/GlLimits.h"
#include "renderer/GpuResources.h"
#include "renderer/LodSelection.h"  // drawnMesh
#include "renderer/ShaderLibrary.h"
#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/LightNode.h"
#include "myriad/core/MeshNode.h"
#include "myriad/core/Scene.h"
#include "myriad/util/Error.h"

#include <glm/ext/matrix_clip_space.hpp>
#include <glm/ext/matrix_transform.hpp>
#include <glm/geometric.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>

namespace myriad::gl::detail {
namespace {

/** Whether @p light lights anything at all (as the light list decides it). */
bool contributes(const LightNode& light) noexcept {
    return light.visibleInHierarchy() && light.channels() != 0 && light.intensity() > 0.0f &&
           std::max({light.color().r, light.color().g, light.color().b}) > 0.0f;
}

/** FNV-1a over the bytes of @p value, into @p hash. */
template <class T>
void mix(std::uint64_t& hash, const T& value) noexcept {
    std::array<unsigned char, sizeof(T)> bytes{};
    std::memcpy(bytes.data(), &value, sizeof(T));
    for (const unsigned char b : bytes) {
        hash = (hash ^ b) * 1099511628211ull;
    }
}

/** Cube-map face order (+X, -X, +Y, -Y, +Z, -Z): direction and up, as GL's cube maps lay them. */
constexpr std::array<std::pair<glm::vec3, glm::vec3>, 6> kCubeFaces{{
    {{1, 0, 0}, {0, -1, 0}},
    {{-1, 0, 0}, {0, -1, 0}},
    {{0, 1, 0}, {0, 0, 1}},
    {{0, -1, 0}, {0, 0, -1}},
    {{0, 0, 1}, {0, -1, 0}},
    {{0, 0, -1}, {0, -1, 0}},
}};

constexpr float kQuarterPi = 0.78539816339f;
constexpr float kMaxSpotHalfAngle = 1.48352986f;  // 85 degrees: a wider cone is shadowed out to here only

} // namespace

LampShadowPass::~LampShadowPass() { release(); }

void LampShadowPass::validate(const Scene& scene) const {
    bool casting = false;
    for (const LightNode* light : scene.lights()) {
        casting = casting || (light->type() != LightType::Directional && light->castsShadow());
    }
    if (!casting) {
        return;
    }
    const LampShadowBudget& b = scene.lampShadows;
    const auto limit = static_cast<std::uint32_t>(std::min<std::int64_t>(16384, m_limits.maxTextureSize));
    const auto fail = [](const std::string& what) {
        throw InvalidArgument("gl::Renderer::render: scene.lampShadows." + what);
    };
    if (b.atlasSize < 16 || b.atlasSize > limit) {
        fail("atlasSize " + std::to_string(b.atlasSize) + " is outside 16.." + std::to_string(limit) +
             " (GL_MAX_TEXTURE_SIZE is " + std::to_string(m_limits.maxTextureSize) + ")");
    }
    if (b.tileSize < 16 || b.tileSize > b.atlasSize || b.atlasSize % b.tileSize != 0) {
        fail("tileSize " + std::to_string(b.tileSize) + " must be within 16..atlasSize and divide atlasSize " +
             std::to_string(b.atlasSize));
    }
    // The records' buffer texture is at most 256 lamps x kRecordTexels texels, inside GL 4.5's
    // minimum GL_MAX_TEXTURE_BUFFER_SIZE (65536), so this cap is the limit check it needs.
    static_assert(256 * kRecordTexels <= 65536, "lamp shadow records past GL 4.5's minimum buffer texture size");
    if (b.maxLamps > 256) {
        fail("maxLamps " + std::to_string(b.maxLamps) + " is above 256");
    }
}

std::size_t LampShadowPass::begin(const Scene& scene, std::span<const View> views) {
    m_active = false;
    m_passes.clear();
    m_shadowed.clear();
    m_records.clear();
    const LampShadowBudget& budget = scene.lampShadows;
    // The first colour view ranks the lamps; every colour view's layers are drawn.
    const View* first = nullptr;
    std::uint32_t layerMask = 0;
    for (const View& view : views) {
        if (view.viewport.width != 0 && view.viewport.height != 0 && !view.depthOnly) {
            first = first == nullptr ? &view : first;
            layerMask |= resolveCamera(view).layerMask;
        }
    }
    if (first == nullptr || budget.maxLamps == 0) {
        return 0;
    }
    const ViewCamera colour = resolveCamera(*first);
    m_candidates.clear();
    const std::span<LightNode* const> lights = scene.lights();
    for (std::size_t i = 0; i < lights.size(); ++i) {
        const LightNode& light = *lights[i];
        if (light.type() == LightType::Directional || !light.castsShadow() || !contributes(light)) {
            continue;
        }
        // effectiveRange's cutoff does not matter for the ranking's stability; the light list's
        // range is used for the far plane below.
        const float range = light.effectiveRange(m_cutoffLux);
        const auto distance = static_cast<float>(glm::length(light.worldPosition() - colour.eye));
        m_candidates.emplace_back(std::max(distance - range, 0.0f), distance, i);
    }
    if (m_candidates.empty()) {
        return 0;
    }
    // Nearest sphere first, then nearest lamp, then registry order.
    std::sort(m_candidates.begin(), m_candidates.end());
    const std::uint32_t perSide = budget.atlasSize / budget.tileSize;
    const std::uint32_t tiles = perSide * perSide;
    std::uint32_t used = 0;
    for (const auto& [sphereDistance, distance, index] : m_candidates) {
        const std::uint32_t need = lights[index]->type() == LightType::Point ? 6u : 1u;
        if (m_shadowed.size() >= budget.maxLamps || used + need > tiles) {
            break;
        }
        m_shadowed.push_back(lights[index]);
        used += need;
    }
    if (m_shadowed.empty()) {
        return 0;
    }
    const bool cache = budget.staticCache;
    ensureAtlases(budget.atlasSize, cache);
    if (m_cachedSignatures.size() != tiles) {
        m_cachedSignatures.assign(tiles, 0);
    }
    LodProjection lodProjection = colour.lodProjection;
    lodProjection.fade = false;
    const CasterFaces faces = scene.light.shadow.casterFaces;
    std::uint32_t tile = 0;
    m_records.resize(m_shadowed.size() * kRecordTexels, glm::vec4(0.0f));
    for (std::size_t slot = 0; slot < m_shadowed.size(); ++slot) {
        const LightNode& light = *m_shadowed[slot];
        const LightNode::LampShadow& settings = light.shadow();
        const bool point = light.type() == LightType::Point;
        const std::uint32_t side = settings.resolution == 0 ? budget.tileSize : std::min(settings.resolution, budget.tileSize);
        const float halfFov = point ? kQuarterPi : std::min(light.outerConeAngle() + 0.02f, kMaxSpotHalfAngle);
        const float nearPlane = settings.nearPlane;
        const float farPlane = std::max(light.effectiveRange(m_cutoffLux), nearPlane * 2.0f);
        const glm::mat4 projection = glm::perspectiveRH_ZO(2.0f * halfFov, 1.0f, nearPlane, farPlane);
        glm::vec4* record = &m_records[slot * kRecordTexels];
        const std::uint32_t faceCount = point ? 6u : 1u;
        record[0] = glm::vec4(static_cast<float>(faceCount), settings.bias, settings.normalOffset,
                              static_cast<float>(settings.filterRadius));
        record[1] = glm::vec4(1.0f / static_cast<float>(budget.atlasSize),
                              2.0f * std::tan(halfFov) / static_cast<float>(side), 0.0f, 0.0f);
        const glm::dvec3 position = light.worldPosition();
        for (std::uint32_t f = 0; f < faceCount; ++f, ++tile) {
            glm::vec3 forward = point ? kCubeFaces[f].first : light.worldDirection();
            glm::vec3 up = point ? kCubeFaces[f].second
                                 : (std::abs(forward.y) > 0.99f ? glm::vec3(0.0f, 0.0f, -1.0f) : glm::vec3(0.0f, 1.0f, 0.0f));
            const glm::mat4 rotation = glm::lookAtRH(glm::vec3(0.0f), forward, up);  // world to the face's axes
            const glm::uvec2 corner((tile % perSide) * budget.tileSize, (tile / perSide) * budget.tileSize);
            const glm::mat4 clip = projection * rotation;
            for (int c = 0; c < 4; ++c) {
                record[2 + 5 * f + static_cast<std::uint32_t>(c)] = clip[c];
            }
            const float inverse = 1.0f / static_cast<float>(budget.atlasSize);
            record[2 + 5 * f + 4] = glm::vec4(static_cast<float>(corner.x) * inverse, static_cast<float>(corner.y) * inverse,
                                              static_cast<float>(side) * inverse, 0.0f);
            for (int pass = 0; pass < (cache ? 2 : 1); ++pass) {
                Pass& p = m_passes.emplace_back();
                p.set = !cache ? ViewPass::CasterSet::All : pass == 0 ? ViewPass::CasterSet::StaticOnly
                                                                      : ViewPass::CasterSet::DynamicOnly;
                p.tile = glm::uvec4(corner, side, tile);
                p.camera.eye = position;
                p.camera.lodEye = colour.eye;
                p.camera.lodProjection = lodProjection;
                p.camera.viewProjection = clip;
                p.camera.layerMask = layerMask;
                View& view = p.view;
                view.viewMatrix = rotation;
                view.viewMatrix[3] = glm::vec4(glm::vec3(-(glm::dmat3(rotation) * position)), 1.0f);
                view.projectionMatrix = projection;
                view.framebuffer = p.set == ViewPass::CasterSet::StaticOnly ? m_cacheFramebuffer : m_framebuffer;
                view.viewport = {static_cast<std::int32_t>(corner.x), static_cast<std::int32_t>(corner.y), side, side};
                view.clear = p.set == ViewPass::CasterSet::DynamicOnly ? ClearFlags::None : ClearFlags::Depth;
                view.layerMask = layerMask;
                view.clipDepth = ClipDepth::ZeroToOne;
                view.depthOnly = true;
                // What the cached tile depends on besides its casters: the lamp's view and faces.
                std::uint64_t hash = 1469598103934665603ull;
                mix(hash, &light);
                mix(hash, position);
                mix(hash, clip);
                mix(hash, p.tile);
                mix(hash, faces);
                p.signature = hash;
            }
        }
    }
    m_active = true;
    return m_passes.size();
}

void LampShadowPass::built(std::size_t i, const ViewPass& pass) {
    Pass& p = m_passes[i];
    if (p.set != ViewPass::CasterSet::StaticOnly) {
        return;
    }
    std::uint64_t hash = p.signature;
    for (const DrawItem& item : pass.opaque()) {
        const MeshNode& node = *item.node;
        mix(hash, item.node);
        mix(hash, node.worldVersion());
        mix(hash, drawnMesh(item).get());  // setMesh, a LOD level's mesh
        mix(hash, node.poseVersion());
        for (const float weight : node.morphWeights()) {
            mix(hash, weight);
        }
        mix(hash, node.castsShadowFromEveryFace());
        if (item.instanced) {
            mix(hash, static_cast<const InstancedMeshNode&>(node).dataVersion());
        }
        mix(hash, item.primitive);
        mix(hash, item.firstInstance);
        mix(hash, item.instanceCount);
        mix(hash, item.lodLevel);
    }
    p.signature = hash == 0 ? 1 : hash;
}

bool LampShadowPass::beforeDraw(std::size_t i, FrameStats& stats) {
    const Pass& p = m_passes[i];
    if (p.set == ViewPass::CasterSet::StaticOnly) {
        std::uint64_t& cached = m_cachedSignatures[p.tile.w];
        if (cached == p.signature) {
            return false;  // the cache atlas holds this tile as it would be drawn
        }
        cached = p.signature;
        ++stats.lampShadowStaticDraws;
        return true;
    }
    if (p.set == ViewPass::CasterSet::DynamicOnly) {
        // The static tile under the moving casters: framebuffer writes before a copy need no
        // barrier (GL 4.5 section 7.13.1 covers shader image and buffer writes only).
        const auto x = static_cast<GLint>(p.tile.x);
        const auto y = static_cast<GLint>(p.tile.y);
        const auto side = static_cast<GLsizei>(p.tile.z);
        glCopyImageSubData(m_cacheAtlas.id(), GL_TEXTURE_2D, 0, x, y, 0, m_atlas.id(), GL_TEXTURE_2D, 0, x, y, 0, side,
                           side, 1);
    }
    return true;
}

void LampShadowPass::upload(GpuResources& resources) {
    if (!m_active) {
        return;
    }
    const std::size_t texels = m_records.size();
    if (texels > m_recordCapacity) {
        const std::size_t capacity = std::max<std::size_t>(texels, kRecordTexels * 8);
        m_recordBuffer = Buffer({.sizeBytes = capacity * sizeof(glm::vec4), .label = "myriad/Renderer.lamp-shadow-records"});
        if (m_recordTexture.id() == 0) {
            m_recordTexture = TextureHandle(GL_TEXTURE_BUFFER);
            setLabel(GL_TEXTURE, m_recordTexture.id(), "myriad/Renderer.lamp-shadow-records-texture");
        }
        glTextureBuffer(m_recordTexture.id(), GL_RGBA32F, m_recordBuffer.id());
        m_recordCapacity = capacity;
        m_uploaded.clear();
    }
    if (m_records != m_uploaded) {
        resources.ring().copy(m_recordBuffer.id(), 0, m_records.data(), texels * sizeof(glm::vec4));
        m_uploaded = m_records;
    }
}

void LampShadowPass::bind() const noexcept {
    if (!m_active) {
        return;
    }
    // Bound only now: while the tiles were drawn the atlas was an attachment, not a texture to read.
    glBindTextureUnit(kLampShadowAtlasUnit, m_atlas.id());
    glBindSampler(kLampShadowAtlasUnit, 0);  // the texture's own compare and filter parameters
    glBindTextureUnit(kLampShadowRecordsUnit, m_recordTexture.id());
}

std::uint32_t LampShadowPass::receiveFeatures(std::uint32_t features, const SceneNode* node,
                                              const View& view) const noexcept {
    if (!m_active || view.depthOnly || (features & kLit) == 0 || (node != nullptr && !node->receivesShadow())) {
        return 0;
    }
    return kLampShadowReceive;
}

void LampShadowPass::trim() noexcept {
    if (!m_active) {
        release();
        m_recordBuffer = Buffer();
        m_recordTexture.reset();
        m_recordCapacity = 0;
        m_uploaded.clear();
    }
}

void LampShadowPass::ensureAtlases(std::uint32_t size, bool cache) {
    if (m_atlasSize == size && m_atlasHasCache == cache && m_atlas.id() != 0) {
        return;
    }
    release();
    const auto makeAtlas = [&](const char* label, bool compare) {
        TextureHandle texture(GL_TEXTURE_2D);
        glTextureStorage2D(texture.id(), 1, GL_DEPTH_COMPONENT32F, static_cast<GLsizei>(size), static_cast<GLsizei>(size));
        glTextureParameteri(texture.id(), GL_TEXTURE_MIN_FILTER, compare ? GL_LINEAR : GL_NEAREST);
        glTextureParameteri(texture.id(), GL_TEXTURE_MAG_FILTER, compare ? GL_LINEAR : GL_NEAREST);
        glTextureParameteri(texture.id(), GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
        glTextureParameteri(texture.id(), GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
        if (compare) {
            // Hardware percentage-closer filtering, as the sun's map.
            glTextureParameteri(texture.id(), GL_TEXTURE_COMPARE_MODE, GL_COMPARE_REF_TO_TEXTURE);
            glTextureParameteri(texture.id(), GL_TEXTURE_COMPARE_FUNC, GL_LEQUAL);
        }
        setLabel(GL_TEXTURE, texture.id(), label);
        return texture;
    };
    const auto makeFramebuffer = [&](GLuint texture, const char* label) {
        GLuint framebuffer = 0;
        glCreateFramebuffers(1, &framebuffer);
        countObject(ObjectKind::Framebuffer, 1);
        glNamedFramebufferTexture(framebuffer, GL_DEPTH_ATTACHMENT, texture, 0);
        glNamedFramebufferDrawBuffer(framebuffer, GL_NONE);
        glNamedFramebufferReadBuffer(framebuffer, GL_NONE);
        setLabel(GL_FRAMEBUFFER, framebuffer, label);
        return framebuffer;
    };
    m_atlas = makeAtlas("myriad/Renderer.lamp-shadow-atlas", true);
    m_framebuffer = makeFramebuffer(m_atlas.id(), "myriad/Renderer.lamp-shadow-framebuffer");
    if (cache) {
        m_cacheAtlas = makeAtlas("myriad/Renderer.lamp-shadow-cache", false);
        m_cacheFramebuffer = makeFramebuffer(m_cacheAtlas.id(), "myriad/Renderer.lamp-shadow-cache-framebuffer");
    }
    for (const GLuint framebuffer : {m_framebuffer, m_cacheFramebuffer}) {
        if (framebuffer != 0) {
            const GLenum status = glCheckNamedFramebufferStatus(framebuffer, GL_FRAMEBUFFER);
            if (status != GL_FRAMEBUFFER_COMPLETE) {
                release();
                throw GlError("gl::Renderer::render: the lamp shadow atlas's framebuffer is incomplete (status " +
                              std::to_string(status) + ")");
            }
        }
    }
    m_atlasSize = size;
    m_atlasHasCache = cache;
    m_cachedSignatures.clear();  // a new cache atlas holds nothing
}

void LampShadowPass::release() noexcept {
    for (GLuint* framebuffer : {&m_framebuffer, &m_cacheFramebuffer}) {
        if (*framebuffer != 0) {
            glDeleteFramebuffers(1, framebuffer);
            countObject(ObjectKind::Framebuffer, -1);
            *framebuffer = 0;
        }
    }
    m_atlas.reset();
    m_cacheAtlas.reset();
    m_atlasSize = 0;
    m_atlasHasCache = false;
    m_cachedSignatures.clear();
}

} // namespace myriad::gl::detail
