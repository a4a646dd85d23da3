#include "gl/ShadowPass.h"

#include "gl/InstanceVisibility.h"
#include "gl/ShaderLibrary.h"
#include "myriad/core/Camera.h"
#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/SceneNode.h"
#include "myriad/util/Error.h"

#include <glm/ext/matrix_clip_space.hpp>
#include <glm/ext/matrix_double3x3.hpp>
#include <glm/ext/matrix_double4x4.hpp>
#include <glm/ext/matrix_transform.hpp>
#include <glm/geometric.hpp>
#include <glm/matrix.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

namespace myriad::gl::detail {
namespace {

bool finite(const glm::dvec3& v) noexcept {
    return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z);
}

struct Sphere {
    glm::dvec3 centre{0.0};
    double radius = -1.0;  ///< negative: empty
};

/** The smallest sphere holding @p a and @p b. */
Sphere unite(const Sphere& a, const Sphere& b) noexcept {
    if (a.radius < 0.0) {
        return b;
    }
    const double d = glm::length(b.centre - a.centre);
    if (d + b.radius <= a.radius) {
        return a;
    }
    if (d + a.radius <= b.radius) {
        return b;
    }
    const double radius = 0.5 * (d + a.radius + b.radius);
    return {a.centre + (b.centre - a.centre) * ((radius - a.radius) / d), radius};
}

/** A sphere (world space) around @p view's frustum from its near plane up to @p distance along
 *  its forward axis, or nothing for a degenerate projection. The centre is the mean of the
 *  slice's eight corners, which moves rigidly with the camera, so the sphere's size does not
 *  change as the camera turns: with texel snapping that keeps the shadow edges still
 *  (Microsoft, "Common Techniques to Improve Shadow Depth Maps", "Moving the light in
 *  texel-sized increments"). */
Sphere viewSlice(const View& view, const ViewCamera& camera, double distance) {
    const glm::dmat3 rotation(view.camera != nullptr ? glm::mat3(view.camera->viewRotation()) : glm::mat3(view.viewMatrix));
    const glm::dvec3 forward = glm::normalize(-glm::dvec3(rotation[0][2], rotation[1][2], rotation[2][2]));
    const glm::dmat4 inverse = glm::inverse(glm::dmat4(camera.viewProjection));
    double nearZ = view.clipDepth == ClipDepth::ZeroToOne ? 0.0 : -1.0;
    double farZ = 1.0;
    if (view.reversedDepth) {
        std::swap(nearZ, farZ);
    }
    std::array<glm::dvec3, 8> corners{};
    for (int c = 0; c < 4; ++c) {
        const double x = (c & 1) != 0 ? 1.0 : -1.0;
        const double y = (c & 2) != 0 ? 1.0 : -1.0;
        const glm::dvec4 nearClip = inverse * glm::dvec4(x, y, nearZ, 1.0);
        const glm::dvec4 farClip = inverse * glm::dvec4(x, y, farZ, 1.0);
        const glm::dvec3 nearPoint = glm::dvec3(nearClip) / nearClip.w;
        if (!finite(nearPoint)) {
            return {};
        }
        const double nearDepth = glm::dot(nearPoint, forward);
        glm::dvec3 farPoint = glm::dvec3(farClip) / farClip.w;
        if (!finite(farPoint) || farClip.w <= 0.0) {
            // An infinite far plane: along the ray from the eye (the origin) through the near corner.
            farPoint = nearPoint * (distance / std::max(nearDepth, 1e-9));
        }
        const double farDepth = glm::dot(farPoint, forward);
        if (farDepth > distance && farDepth > nearDepth) {
            const double t = std::clamp((distance - nearDepth) / (farDepth - nearDepth), 0.0, 1.0);
            farPoint = nearPoint + (farPoint - nearPoint) * t;
        }
        corners[static_cast<std::size_t>(c)] = nearPoint;
        corners[static_cast<std::size_t>(c) + 4] = farPoint;
    }
    glm::dvec3 centre(0.0);
    for (const glm::dvec3& corner : corners) {
        centre += corner / 8.0;
    }
    double radius = 0.0;
    for (const glm::dvec3& corner : corners) {
        radius = std::max(radius, glm::length(corner - centre));
    }
    return {camera.eye + centre, radius};
}

void requireRange(bool ok, const std::string& what) {
    if (!ok) {
        throw InvalidArgument("gl::Renderer::render: scene.light.shadow." + what);
    }
}

} // namespace

bool keepShadowCasters(const InstancedMeshNode& batch, DrawItem& item) {
    const std::span<const std::uint8_t> mask = batch.shadowMask();
    std::vector<std::uint32_t>& indices = item.visible->indices;
    if (!mask.empty()) {
        std::erase_if(indices, [&](std::uint32_t index) { return mask[index] != 0; });
    }
    item.instanceCount = static_cast<std::uint32_t>(indices.size());
    return !indices.empty();
}

ShadowPass::ShadowPass() { glGetIntegerv(GL_MAX_TEXTURE_SIZE, &m_maxTextureSize); }

ShadowPass::~ShadowPass() { release(); }

void ShadowPass::validate(const ShadowSettings& s) const {
    if (!s.enabled) {
        return;
    }
    const auto limit = static_cast<std::uint32_t>(std::min<GLint>(8192, m_maxTextureSize));
    requireRange(s.mapSize >= 16 && s.mapSize <= limit,
                 "mapSize " + std::to_string(s.mapSize) + " is outside 16.." + std::to_string(limit));
    requireRange(std::isfinite(s.distance) && s.distance > 0.0f,
                 "distance " + std::to_string(s.distance) + " is not finite and > 0");
    requireRange(std::isfinite(s.bias) && s.bias >= 0.0f, "bias " + std::to_string(s.bias) + " is not finite and >= 0");
    requireRange(std::isfinite(s.slopeBias) && s.slopeBias >= 0.0f,
                 "slopeBias " + std::to_string(s.slopeBias) + " is not finite and >= 0");
    requireRange(std::isfinite(s.normalOffset) && s.normalOffset >= 0.0f,
                 "normalOffset " + std::to_string(s.normalOffset) + " is not finite and >= 0");
    requireRange(s.filterRadius <= 4, "filterRadius " + std::to_string(s.filterRadius) + " is above 4");
}

bool ShadowPass::begin(const Scene& scene, std::span<const View> views) {
    m_active = false;
    m_info.drawn = false;
    m_info.drawCalls = 0;
    m_info.instances = 0;
    m_settings = scene.light.shadow;
    if (!m_settings.enabled) {
        return false;
    }
    // One map for the frame, around every colour view (split screen shares it).
    Sphere bound;
    std::uint32_t layerMask = 0;
    for (const View& view : views) {
        if (view.viewport.width == 0 || view.viewport.height == 0 || view.depthOnly) {
            continue;
        }
        const ViewCamera camera = resolveCamera(view);
        const Sphere slice = viewSlice(view, camera, m_settings.distance);
        if (slice.radius >= 0.0 && std::isfinite(slice.radius) && finite(slice.centre)) {
            bound = unite(bound, slice);
            layerMask |= camera.layerMask;
        }
    }
    if (bound.radius < 0.0) {
        return false;
    }
    // A radius on a coarse grid (1/16 of its power of two): float noise as the camera turns
    // does not change the texel size, which would make every edge crawl.
    const double rawRadius = std::max(bound.radius, 1e-3);
    const double step = std::exp2(std::floor(std::log2(rawRadius)) - 4.0);
    const double radius = std::ceil(rawRadius / step) * step;

    const glm::vec3 light = scene.light.direction;
    const glm::dvec3 direction =
        glm::length(light) > 0.0f ? glm::normalize(glm::dvec3(light)) : glm::dvec3(0.0, -1.0, 0.0);
    const glm::dvec3 up = std::abs(direction.y) > 0.99 ? glm::dvec3(0.0, 0.0, -1.0) : glm::dvec3(0.0, 1.0, 0.0);
    const glm::dmat3 rotation(glm::lookAt(glm::dvec3(0.0), direction, up));  // world to light axes

    // Texel snapping: the box moves across the world in whole texels only, so a still caster
    // covers the same texels frame after frame.
    const std::uint32_t size = m_settings.mapSize;
    const double texel = 2.0 * radius / static_cast<double>(size);
    glm::dvec3 lightSpace = rotation * bound.centre;
    lightSpace.x = std::floor(lightSpace.x / texel + 0.5) * texel;
    lightSpace.y = std::floor(lightSpace.y / texel + 0.5) * texel;
    const glm::dvec3 centre = glm::transpose(rotation) * lightSpace;

    // Casters between the light and the sphere shadow it too: reach back to the scene's bounds.
    double reach = radius;
    const Aabb sceneBounds = scene.root().subtreeBounds();
    if (!sceneBounds.empty()) {
        for (int c = 0; c < 8; ++c) {
            const glm::dvec3 corner((c & 1) != 0 ? sceneBounds.max.x : sceneBounds.min.x,
                                    (c & 2) != 0 ? sceneBounds.max.y : sceneBounds.min.y,
                                    (c & 4) != 0 ? sceneBounds.max.z : sceneBounds.min.z);
            const double along = glm::dot(corner - centre, direction);
            if (std::isfinite(along)) {
                reach = std::max(reach, -along);
            }
        }
    }
    const double margin = 0.01 * radius + texel;
    reach += margin;
    const double depth = reach + radius + margin;
    const glm::dvec3 eye = centre - direction * reach;

    ensureTexture(size);
    const auto r = static_cast<float>(radius);
    const glm::mat4 projection = glm::orthoRH_ZO(-r, r, -r, r, 0.0f, static_cast<float>(depth));
    const glm::mat4 rotationOnly(glm::mat3{rotation});
    m_camera.eye = eye;
    m_camera.viewProjection = projection * rotationOnly;
    m_camera.layerMask = layerMask;

    m_view = View{};
    m_view.viewMatrix = rotationOnly;  // the depth axis; the eye comes from m_camera in double
    m_view.viewMatrix[3] = glm::vec4(glm::vec3(-(rotation * eye)), 1.0f);
    m_view.projectionMatrix = projection;
    m_view.framebuffer = m_framebuffer;
    m_view.viewport = {0, 0, size, size};
    m_view.clear = ClearFlags::Depth;
    m_view.layerMask = layerMask;
    m_view.clipDepth = ClipDepth::ZeroToOne;
    m_view.depthOnly = true;

    m_info.texture = m_texture.id();
    m_info.size = size;
    m_info.eye = eye;
    m_info.centre = centre;
    m_info.direction = glm::vec3(direction);
    m_info.radius = r;
    m_info.depth = static_cast<float>(depth);
    m_info.texelWorldSize = static_cast<float>(texel);
    m_info.clipFromEyeRelative = m_camera.viewProjection;
    m_active = true;
    return true;
}

std::uint32_t ShadowPass::receiveFeatures(std::uint32_t features, const SceneNode* node, const View& view) const noexcept {
    if (!m_active || view.depthOnly || (features & kLit) == 0 || (node != nullptr && !node->receivesShadow())) {
        return 0;
    }
    return kShadowReceive;
}

void ShadowPass::setReceiverUniforms(const SurfaceProgram& chosen, const ViewPass& pass) const {
    const SurfaceUniforms& u = chosen.uniforms;
    if (u.shadowMatrix < 0) {
        return;
    }
    // The map's (u, v, depth) from this view's camera-relative world: the eye difference is
    // taken in double, so it stays exact far from the origin.
    const glm::vec3 offset(pass.camera().eye - m_camera.eye);
    glm::mat4 toTexture(1.0f);
    toTexture[0][0] = 0.5f;
    toTexture[1][1] = 0.5f;
    toTexture[3] = glm::vec4(0.5f, 0.5f, 0.0f, 1.0f);
    const glm::mat4 matrix = toTexture * m_camera.viewProjection * glm::translate(glm::mat4(1.0f), offset);
    chosen.program.setUniform(u.shadowMatrix, matrix);
    const float texel = m_info.texelWorldSize;
    const float depth = m_info.depth;
    const auto radius = static_cast<float>(m_settings.filterRadius);
    const glm::vec4 params(1.0f / static_cast<float>(m_info.size), m_settings.normalOffset * texel,
                           m_settings.bias * texel / depth, m_settings.slopeBias * texel * (radius + 1.0f) / depth);
    chosen.program.setUniform(u.shadowParams, params);
    chosen.program.setUniform(u.shadowFilterRadius, static_cast<int>(m_settings.filterRadius));
}

void ShadowPass::afterDraw(const ViewPass& pass, const FrameStats& before, const FrameStats& after) {
    if (!m_active || &pass.view() != &m_view) {
        return;
    }
    // Bound only now: while the map was drawn it was an attachment, not a texture to read.
    glBindTextureUnit(kShadowMapUnit, m_texture.id());
    glBindSampler(kShadowMapUnit, 0);  // the texture's own compare and filter parameters
    m_info.drawn = true;
    m_info.drawCalls = after.drawCalls - before.drawCalls;
    m_info.instances = after.instances - before.instances;
}

void ShadowPass::trim() noexcept {
    if (!m_info.drawn) {
        release();
        m_info = ShadowMapInfo{};
    }
}

void ShadowPass::ensureTexture(std::uint32_t size) {
    if (m_textureSize == size && m_texture.id() != 0) {
        return;
    }
    release();
    const auto side = static_cast<GLsizei>(size);
    TextureHandle texture(GL_TEXTURE_2D);
    glTextureStorage2D(texture.id(), 1, GL_DEPTH_COMPONENT32F, side, side);
    glTextureParameteri(texture.id(), GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTextureParameteri(texture.id(), GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTextureParameteri(texture.id(), GL_TEXTURE_WRAP_S, GL_CLAMP_TO_BORDER);
    glTextureParameteri(texture.id(), GL_TEXTURE_WRAP_T, GL_CLAMP_TO_BORDER);
    const float border[4] = {1.0f, 1.0f, 1.0f, 1.0f};  // depth 1: outside the map is lit
    glTextureParameterfv(texture.id(), GL_TEXTURE_BORDER_COLOR, border);
    // Hardware percentage-closer filtering: each lookup compares the four nearest texels and
    // returns the bilinear weight of those that pass.
    glTextureParameteri(texture.id(), GL_TEXTURE_COMPARE_MODE, GL_COMPARE_REF_TO_TEXTURE);
    glTextureParameteri(texture.id(), GL_TEXTURE_COMPARE_FUNC, GL_LEQUAL);
    setLabel(GL_TEXTURE, texture.id(), "myriad/Renderer.shadow-map");
    GLuint framebuffer = 0;
    glCreateFramebuffers(1, &framebuffer);
    countObject(ObjectKind::Framebuffer, 1);
    glNamedFramebufferTexture(framebuffer, GL_DEPTH_ATTACHMENT, texture.id(), 0);
    glNamedFramebufferDrawBuffer(framebuffer, GL_NONE);
    glNamedFramebufferReadBuffer(framebuffer, GL_NONE);
    setLabel(GL_FRAMEBUFFER, framebuffer, "myriad/Renderer.shadow-framebuffer");
    const GLenum status = glCheckNamedFramebufferStatus(framebuffer, GL_FRAMEBUFFER);
    if (status != GL_FRAMEBUFFER_COMPLETE) {
        glDeleteFramebuffers(1, &framebuffer);
        countObject(ObjectKind::Framebuffer, -1);
        throw GlError("gl::Renderer::render: the shadow map's framebuffer is incomplete (status " +
                      std::to_string(status) + ")");
    }
    m_texture = std::move(texture);
    m_framebuffer = framebuffer;
    m_textureSize = size;
}

void ShadowPass::release() noexcept {
    if (m_framebuffer != 0) {
        glDeleteFramebuffers(1, &m_framebuffer);
        countObject(ObjectKind::Framebuffer, -1);
        m_framebuffer = 0;
    }
    m_texture.reset();
    m_textureSize = 0;
}

} // namespace myriad::gl::detail
