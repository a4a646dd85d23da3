#include "renderer/LightList.h"

#include "gl/Bindings.h"
#include "gl/StagingRing.h"
#include "renderer/GlLimits.h"
#include "renderer/GpuResources.h"
#include "renderer/ShaderLibrary.h"
#include "renderer/ViewPass.h"
#include "myriad/core/Camera.h"
#include "myriad/core/LightEvaluation.h"  // spotConeScaleOffset
#include "myriad/core/LightNode.h"
#include "myriad/core/Scene.h"
#include "myriad/util/Error.h"

#include <glm/geometric.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>

namespace myriad::gl::detail {

namespace {

std::uint32_t bits(float value) noexcept { return std::bit_cast<std::uint32_t>(value); }

glm::uvec4 floatTexel(const glm::vec3& xyz, float w) noexcept {
    return {bits(xyz.x), bits(xyz.y), bits(xyz.z), bits(w)};
}

/** Whether @p light lights anything at all. */
bool contributes(const LightNode& light) noexcept {
    return light.visibleInHierarchy() && light.channels() != 0 && light.intensity() > 0.0f &&
           std::max({light.color().r, light.color().g, light.color().b}) > 0.0f;
}

/** Appends @p light's four texels; @p relative: its position minus the eye. */
void packLight(const LightNode& light, const glm::vec3& relative, float range, std::vector<glm::uvec4>& texels,
               std::span<const LightNode* const> shadowed = {}) {
    const float type = light.type() == LightType::Directional ? 0.0f : light.type() == LightType::Point ? 1.0f : 2.0f;
    texels.push_back(floatTexel(light.type() == LightType::Directional ? glm::vec3(0.0f) : relative,
                                light.type() == LightType::Directional ? 0.0f : range));
    texels.push_back(floatTexel(light.color() * light.intensity(), type));
    const glm::vec3 direction = light.worldDirection();
    texels.push_back({bits(direction.x), bits(direction.y), bits(direction.z), light.channels()});
    // KHR_lights_punctual's spot attenuation: clamp(cos * scale + offset, 0, 1)^2 (a point
    // lamp: scale 0, offset 1, whatever the angle).
    const glm::vec2 cone = spotConeScaleOffset(light);
    const float inverseRangeSquared = range > 0.0f ? 1.0f / (range * range) : 0.0f;
    // Lamp shadows: the lamp's slot + 1 in the shadow records (0: none).
    const auto slot = std::find(shadowed.begin(), shadowed.end(), &light);
    const float shadowSlot = slot == shadowed.end() ? 0.0f : static_cast<float>(slot - shadowed.begin() + 1);
    texels.push_back(floatTexel(glm::vec3(cone.x, cone.y, inverseRangeSquared), shadowSlot));
}

} // namespace

ViewLights buildViewLights(std::span<LightNode* const> lights, const glm::dvec3& eye, const glm::mat4& viewProjection,
                           const glm::mat3& rotation, bool orthographic, ClipDepth clipDepth,
                           const Viewport& viewport, const glm::uvec3& grid, float cutoffLux,
                           std::vector<glm::uvec4>& texels, LightScratch& scratch,
                           std::span<const LightNode* const> shadowed) {
    ViewLights view;
    view.base = static_cast<std::int32_t>(texels.size());
    const glm::vec3 forward = -glm::vec3(rotation[0][2], rotation[1][2], rotation[2][2]);
    view.viewAxis = glm::vec4(-forward, orthographic ? 1.0f : 0.0f);
    for (const LightNode* light : lights) {
        if (light->type() == LightType::Directional && contributes(*light)) {
            packLight(*light, glm::vec3(0.0f), 0.0f, texels);
            ++view.directional;
        }
    }
    // The lamps whose sphere reaches into the frustum, and the depth range they span.
    std::vector<LightScratch::Lamp>& lamps = scratch.lamps;
    lamps.clear();
    const Frustum frustum(viewProjection, clipDepth);
    float nearest = INFINITY;
    float farthest = -INFINITY;
    for (const LightNode* light : lights) {
        if (light->type() == LightType::Directional || !contributes(*light)) {
            continue;
        }
        const glm::vec3 relative(light->worldPosition() - eye);
        const float range = light->effectiveRange(cutoffLux);
        if (!frustum.intersectsSphere(relative, range)) {
            continue;
        }
        const float depth = glm::dot(relative, forward);
        lamps.push_back({light, relative, range, depth});
        nearest = std::min(nearest, depth - range);
        farthest = std::max(farthest, depth + range);
    }
    view.lamps = static_cast<std::int32_t>(lamps.size());
    for (const LightScratch::Lamp& lamp : lamps) {
        packLight(*lamp.light, lamp.relative, lamp.range, texels, shadowed);
    }
    if (lamps.empty()) {
        return view;  // no clusters: the shader looks none up (u_lightCounts.y == 0)
    }
    if (!orthographic) {
        // Nothing visible lies behind the eye's plane in perspective: slices start there at the
        // nearest, not behind it where a big lamp's sphere reaches.
        nearest = std::max(nearest, 0.0f);
    }
    const glm::uvec3 cells = glm::max(grid, glm::uvec3(1));
    view.grid = glm::ivec4(cells, 0);
    view.viewport = glm::vec4(static_cast<float>(viewport.x), static_cast<float>(viewport.y),
                              static_cast<float>(cells.x) / static_cast<float>(std::max(viewport.width, 1u)),
                              static_cast<float>(cells.y) / static_cast<float>(std::max(viewport.height, 1u)));
    // Slices: depth d maps to log2(max(d - nearest, 0) + delta), split evenly between
    // log2(delta) and log2(farthest - nearest + delta): exponential from the nearest lamp's
    // edge, so near clusters are thin and far ones deep, whatever the projection (an
    // orthographic view's depths may be negative).
    const float span = lamps.empty() ? 1.0f : std::max(farthest - nearest, 1.0e-4f);
    const float delta = span / 1024.0f;
    const float scale = static_cast<float>(cells.z) / (std::log2(span + delta) - std::log2(delta));
    view.forward = glm::vec4(forward, lamps.empty() ? 0.0f : nearest);
    view.slices = glm::vec2(delta, scale);
    auto sliceOf = [&](float depth) {
        const float s = (std::log2(std::max(depth - nearest, 0.0f) + delta) - std::log2(delta)) * scale;
        return static_cast<std::uint32_t>(std::clamp(s, 0.0f, static_cast<float>(cells.z - 1)));
    };
    // Each lamp's box of clusters: its slices from its sphere's depth range, its tiles from
    // the screen rectangle of its view-space box's eight corners (the hull of their
    // projections holds the sphere's projection while every corner is in front of the eye;
    // otherwise every tile).
    const std::size_t clusterCount = std::size_t{cells.x} * cells.y * cells.z;
    std::vector<LightScratch::Box>& boxes = scratch.boxes;
    boxes.resize(lamps.size());
    std::vector<std::uint32_t>& counts = scratch.counts;
    counts.assign(clusterCount, 0u);
    const glm::mat3 toWorld = glm::transpose(rotation);
    for (std::size_t i = 0; i < lamps.size(); ++i) {
        const LightScratch::Lamp& lamp = lamps[i];
        const glm::vec3 centre = rotation * lamp.relative;  // view space
        glm::vec2 low(1.0f);
        glm::vec2 high(-1.0f);
        bool whole = false;
        for (int corner = 0; corner < 8 && !whole; ++corner) {
            const glm::vec3 offset((corner & 1) != 0 ? lamp.range : -lamp.range, (corner & 2) != 0 ? lamp.range : -lamp.range,
                                   (corner & 4) != 0 ? lamp.range : -lamp.range);
            const glm::vec4 clip = viewProjection * glm::vec4(toWorld * (centre + offset), 1.0f);
            if (!(clip.w > 1.0e-6f)) {
                whole = true;
                break;
            }
            const glm::vec2 ndc = glm::vec2(clip) / clip.w;
            low = glm::min(low, ndc);
            high = glm::max(high, ndc);
        }
        if (whole) {
            low = glm::vec2(-1.0f);
            high = glm::vec2(1.0f);
        }
        auto tile = [](float ndc, std::uint32_t tiles) {
            const float t = (std::clamp(ndc, -1.0f, 1.0f) * 0.5f + 0.5f) * static_cast<float>(tiles);
            return std::min(static_cast<std::uint32_t>(t), tiles - 1);
        };
        LightScratch::Box& box = boxes[i];
        box.low = glm::uvec3(tile(low.x, cells.x), tile(low.y, cells.y), sliceOf(lamp.depth - lamp.range));
        box.high = glm::uvec3(tile(high.x, cells.x), tile(high.y, cells.y), sliceOf(lamp.depth + lamp.range));
        for (std::uint32_t z = box.low.z; z <= box.high.z; ++z) {
            for (std::uint32_t y = box.low.y; y <= box.high.y; ++y) {
                for (std::uint32_t x = box.low.x; x <= box.high.x; ++x) {
                    ++counts[(std::size_t{z} * cells.y + y) * cells.x + x];
                }
            }
        }
    }
    const std::size_t clustersTexel = texels.size();
    std::uint32_t total = 0;
    for (std::size_t c = 0; c < clusterCount; ++c) {
        texels.push_back({total, counts[c], 0u, 0u});
        total += counts[c];
    }
    const std::size_t indicesTexel = texels.size();
    view.grid.w = static_cast<std::int32_t>(indicesTexel - static_cast<std::size_t>(view.base));
    texels.resize(indicesTexel + (total + 3) / 4, glm::uvec4(0));
    std::fill(counts.begin(), counts.end(), 0u);  // now: how many written per cluster
    for (std::size_t i = 0; i < lamps.size(); ++i) {
        const LightScratch::Box& box = boxes[i];
        for (std::uint32_t z = box.low.z; z <= box.high.z; ++z) {
            for (std::uint32_t y = box.low.y; y <= box.high.y; ++y) {
                for (std::uint32_t x = box.low.x; x <= box.high.x; ++x) {
                    const std::size_t c = (std::size_t{z} * cells.y + y) * cells.x + x;
                    const std::uint32_t at = texels[clustersTexel + c].x + counts[c]++;
                    texels[indicesTexel + at / 4][at % 4] = static_cast<std::uint32_t>(i);
                }
            }
        }
    }
    return view;
}

void LightList::trim() noexcept {
    m_buffer = Buffer();
    m_texture.reset();
    m_capacityTexels = 0;
    m_uploaded.clear();
    m_uploaded.shrink_to_fit();
}

LightList::LightList(const glm::uvec3& grid, float cutoffLux) : m_grid(grid), m_cutoffLux(cutoffLux) {}

LightList::~LightList() = default;

void LightList::prepare(const Scene& scene, std::span<const ViewPass> passes, GpuResources& resources,
                        const GlLimits& limits, std::span<const LightNode* const> shadowed) {
    m_texels.clear();
    m_views.assign(passes.size(), ViewLights{});
    m_lampsListed = 0;
    m_bytesUploaded = 0;
    for (std::size_t p = 0; p < passes.size(); ++p) {
        const ViewPass& pass = passes[p];
        if (pass.view().depthOnly) {
            continue;
        }
        const View& view = pass.view();
        const glm::mat4 projection = view.camera != nullptr ? view.camera->projection() : view.projectionMatrix;
        // A perspective projection puts -z (or z) into w; an orthographic one leaves w = 1.
        const bool orthographic = projection[2][3] == 0.0f && projection[3][3] != 0.0f;
        m_views[p] = buildViewLights(scene.lights(), pass.camera().eye, pass.camera().viewProjection,
                                     viewRotation(view), orthographic, view.clipDepth, view.viewport, m_grid,
                                     m_cutoffLux, m_texels, m_scratch, shadowed);
        m_lampsListed += static_cast<std::uint64_t>(m_views[p].lamps);
    }
    if (m_texels.empty()) {
        // No light in any view: nothing to send and nothing is read (every count is 0), so a
        // scene without LightNodes makes no buffer and uploads no byte.
        m_uploaded.clear();
        return;
    }
    if (static_cast<std::int64_t>(m_texels.size()) > limits.maxTextureBufferTexels) {
        throw CapacityError("Renderer::render: the frame's light list needs " + std::to_string(m_texels.size()) +
                            " texels, more than GL_MAX_TEXTURE_BUFFER_SIZE (" +
                            std::to_string(limits.maxTextureBufferTexels) +
                            "): fewer lamps, shorter ranges or a coarser RendererDesc::lightClusters");
    }
    if (m_texels.size() > m_capacityTexels) {
        const std::size_t capacity =
            grownCapacity(m_texels.size(), static_cast<std::size_t>(limits.maxTextureBufferTexels));
        m_buffer = Buffer({.sizeBytes = capacity * sizeof(glm::uvec4), .label = "myriad/Renderer.light-list"});
        if (m_texture.id() == 0) {
            m_texture = TextureHandle(GL_TEXTURE_BUFFER);
            setLabel(GL_TEXTURE, m_texture.id(), "myriad/Renderer.light-list-texture");
        }
        glTextureBuffer(m_texture.id(), GL_RGBA32UI, m_buffer.id());
        m_capacityTexels = capacity;
        m_uploaded.clear();  // new storage holds nothing defined
    }
    if (m_texels != m_uploaded) {
        // Only what changed would be less, but a changed camera moves every cluster: the lot.
        const std::size_t bytes = m_texels.size() * sizeof(glm::uvec4);
        resources.ring().copy(m_buffer.id(), 0, m_texels.data(), bytes);
        m_uploaded = m_texels;
        m_bytesUploaded = bytes;
    }
}

void LightList::bind() const noexcept {
    // With no light at all, texture 0 (nothing): the counts are 0, so no lit program fetches.
    glBindTextureUnit(kLightListUnit, m_texels.empty() ? 0 : m_texture.id());
    if (m_ambient.map != 0) {
        glBindTextureUnit(kEnvironmentUnit, m_ambient.map);  // image-based ambient (EnvironmentMap.h)
        glBindSampler(kEnvironmentUnit, 0);                  // the map's own filtering
    }
}

void LightList::setViewUniforms(const SurfaceProgram& chosen, std::size_t passIndex, const Scene& scene) const {
    const Program& program = chosen.program;
    const SurfaceUniforms& u = chosen.uniforms;
    const glm::vec3 direction = glm::length(scene.light.direction) > 0.0f ? glm::normalize(scene.light.direction)
                                                                          : glm::vec3(0.0f, -1.0f, 0.0f);
    program.setUniform(u.lightDirection, direction);
    program.setUniform(u.lightColor, scene.light.color * scene.light.intensity);
    program.setUniform(u.ambient, scene.ambient);
    program.setUniform(u.sunChannels, static_cast<int>(scene.light.channels));
    setAmbientUniforms(program, u, m_ambient);  // kImageAmbient variants only
    if (passIndex >= m_views.size()) {
        return;
    }
    const ViewLights& view = m_views[passIndex];
    program.setUniform(u.viewAxis, view.viewAxis);  // every colour program: SurfaceInput::viewDirection
    if (u.lightBase < 0) {
        return;  // unlit or depth-only: no list
    }
    program.setUniform(u.lightBase, view.base);
    glProgramUniform2i(program.id(), u.lightCounts, view.directional, view.lamps);
    glProgramUniform4i(program.id(), u.lightGrid, view.grid.x, view.grid.y, view.grid.z, view.grid.w);
    program.setUniform(u.lightViewport, view.viewport);
    program.setUniform(u.lightForward, view.forward);
    program.setUniform(u.lightSlices, view.slices);
}

} // namespace myriad::gl::detail
