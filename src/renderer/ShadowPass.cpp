#include "renderer/ShadowPass.h"

#include "core/Validate.h"  // allFinite
#include "renderer/ShaderLibrary.h"
#include "myriad/core/Camera.h"
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
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace myriad::gl::detail {
namespace {

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


bool viewFrustum(const View& view, const ViewCamera& camera, double distance, Frustum8& out) {
    const glm::dmat3 rotation(viewRotation(view));
    out.forward = glm::normalize(-glm::dvec3(rotation[0][2], rotation[1][2], rotation[2][2]));
    const glm::dmat4 inverse = glm::inverse(glm::dmat4(camera.viewProjection));
    double nearZ = view.clipDepth == ClipDepth::ZeroToOne ? 0.0 : -1.0;
    double farZ = 1.0;
    if (view.reversedDepth) {
        std::swap(nearZ, farZ);
    }
    out.nearDepth = std::numeric_limits<double>::infinity();
    for (std::size_t c = 0; c < 4; ++c) {
        const double x = (c & 1) != 0 ? 1.0 : -1.0;
        const double y = (c & 2) != 0 ? 1.0 : -1.0;
        const glm::dvec4 nearClip = inverse * glm::dvec4(x, y, nearZ, 1.0);
        const glm::dvec4 farClip = inverse * glm::dvec4(x, y, farZ, 1.0);
        const glm::dvec3 nearPoint = glm::dvec3(nearClip) / nearClip.w;
        if (!myriad::detail::allFinite(nearPoint)) {
            return false;
        }
        const double nearDepth = glm::dot(nearPoint, out.forward);
        glm::dvec3 farPoint = glm::dvec3(farClip) / farClip.w;
        if (!myriad::detail::allFinite(farPoint) || farClip.w <= 0.0) {
            // An infinite far plane: along the ray from the eye (the origin) through the near corner.
            farPoint = nearPoint * (distance / std::max(nearDepth, 1e-9));
        }
        out.nearCorners[c] = nearPoint;
        out.farCorners[c] = farPoint;
        out.nearDepth = std::min(out.nearDepth, nearDepth);
    }
    return true;
}

/** A sphere (world space) around the part of @p frustum between view depths @p from and @p to
 *  (clipped to the frustum's own near and far planes). The centre is the mean of the slice's
 *  eight corners, which moves rigidly with the camera, so the sphere's size does not change as
 *  the camera turns: with texel snapping that keeps the shadow edges still (Microsoft, "Common
 *  Techniques to Improve Shadow Depth Maps", "Moving the light in texel-sized increments"). */
Sphere viewSlice(const Frustum8& frustum, const glm::dvec3& eye, double from, double to) {
    std::array<glm::dvec3, 8> corners{};
    for (std::size_t c = 0; c < 4; ++c) {
        const glm::dvec3& n = frustum.nearCorners[c];
        const glm::dvec3& f = frustum.farCorners[c];
        const double dn = glm::dot(n, frustum.forward);
        const double df = glm::dot(f, frustum.forward);
        const auto at = [&](double depth) {
            const double t = df > dn ? std::clamp((depth - dn) / (df - dn), 0.0, 1.0) : 0.0;
            return n + (f - n) * t;
        };
        corners[c] = at(from);
        corners[c + 4] = at(to);
    }
    glm::dvec3 centre(0.0);
    for (const glm::dvec3& corner : corners) {
        centre += corner / 8.0;
    }
    double radius = 0.0;
    for (const glm::dvec3& corner : corners) {
        radius = std::max(radius, glm::length(corner - centre));
    }
    return {eye + centre, radius};
}

// The message is built only for a refusal: validate() runs every frame with shadows on, and
// building eight strings for settings that pass would allocate each frame.
template <class Message>
void requireRange(bool ok, const Message& what) {
    if (!ok) {
        throw InvalidArgument("gl::Renderer::render: scene.light.shadow." + what());
    }
}

} // namespace

ShadowPass::~ShadowPass() { release(); }

void ShadowPass::validate(const ShadowSettings& s) const {
    if (!s.enabled) {
        return;
    }
    const auto limit = static_cast<std::uint32_t>(std::min<std::int64_t>(8192, m_limits.maxTextureSize));
    requireRange(s.mapSize >= 16 && s.mapSize <= limit, [&] {
        return "mapSize " + std::to_string(s.mapSize) + " is outside 16.." + std::to_string(limit);
    });
    requireRange(std::isfinite(s.distance) && s.distance > 0.0f, [&] {
        return "distance " + std::to_string(s.distance) + " is not finite and > 0";
    });
    requireRange(std::isfinite(s.bias) && s.bias >= 0.0f, [&] {
        return "bias " + std::to_string(s.bias) + " is not finite and >= 0";
    });
    requireRange(std::isfinite(s.slopeBias) && s.slopeBias >= 0.0f, [&] {
        return "slopeBias " + std::to_string(s.slopeBias) + " is not finite and >= 0";
    });
    requireRange(std::isfinite(s.normalOffset) && s.normalOffset >= 0.0f, [&] {
        return "normalOffset " + std::to_string(s.normalOffset) + " is not finite and >= 0";
    });
    requireRange(s.filterRadius <= 4, [&] {
        return "filterRadius " + std::to_string(s.filterRadius) + " is above 4";
    });
    requireRange(s.cascades >= 1 && s.cascades <= kMaxCascades, [&] {
        return "cascades " + std::to_string(s.cascades) + " is outside 1..4";
    });
    requireRange(std::isfinite(s.cascadeSplit) && s.cascadeSplit >= 0.0f && s.cascadeSplit <= 1.0f, [&] {
        return "cascadeSplit " + std::to_string(s.cascadeSplit) + " is outside 0..1";
    });
}

std::size_t ShadowPass::begin(const Scene& scene, std::span<const View> views) {
    m_active = false;
    m_drawnCascades = 0;
    m_info.drawn = false;
    m_info.drawCalls = 0;
    m_info.instances = 0;
    m_settings = scene.light.shadow;
    if (!m_settings.enabled) {
        return 0;
    }
    // One map for the frame, around every colour view (split screen shares it).
    std::vector<std::pair<Frustum8, glm::dvec3>>& frusta = m_frusta;  // kept: no allocation once warm
    frusta.clear();
    std::uint32_t layerMask = 0;
    double nearest = std::numeric_limits<double>::infinity();
    for (const View& view : views) {
        if (view.viewport.width == 0 || view.viewport.height == 0 || view.depthOnly) {
            continue;
        }
        const ViewCamera camera = resolveCamera(view);
        Frustum8 frustum;
        if (viewFrustum(view, camera, m_settings.distance, frustum) && std::isfinite(frustum.nearDepth)) {
            if (frusta.empty()) {
                m_lodProjection = camera.lodProjection;  // LOD sizes as the first colour view measures them
                m_lodProjection.fade = false;            // one level in the map, no dither
            }
            frusta.emplace_back(frustum, camera.eye);
            layerMask |= camera.layerMask;
            nearest = std::min(nearest, frustum.nearDepth);
        }
    }
    if (frusta.empty()) {
        return 0;
    }
    // Slice ends along the views' depth: the practical split scheme (Zhang et al. 2006), a blend
    // of even and logarithmic splits between the nearest near plane and `distance`.
    const std::size_t count = m_settings.cascades;
    const double far = m_settings.distance;
    const double near = std::clamp(nearest, 1e-3, far * 0.5);
    std::array<double, kMaxCascades + 1> ends{};
    ends[0] = 0.0;
    for (std::size_t c = 1; c <= count; ++c) {
        const double fraction = static_cast<double>(c) / static_cast<double>(count);
        const double logarithmic = near * std::pow(far / near, fraction);
        const double even = near + (far - near) * fraction;
        ends[c] = m_settings.cascadeSplit * logarithmic + (1.0 - m_settings.cascadeSplit) * even;
    }
    ends[count] = far;

    const glm::vec3 light = scene.light.direction;
    const glm::dvec3 direction =
        glm::length(light) > 0.0f ? glm::normalize(glm::dvec3(light)) : glm::dvec3(0.0, -1.0, 0.0);
    const glm::dvec3 up = std::abs(direction.y) > 0.99 ? glm::dvec3(0.0, 0.0, -1.0) : glm::dvec3(0.0, 1.0, 0.0);
    const glm::dmat3 rotation(glm::lookAt(glm::dvec3(0.0), direction, up));  // world to light axes
    const glm::mat4 rotationOnly(glm::mat3{rotation});
    const std::uint32_t size = m_settings.mapSize;
    const Aabb sceneBounds = scene.root().subtreeBounds();
    ensureTexture(size, static_cast<std::uint32_t>(count));

    for (std::size_t c = 0; c < count; ++c) {
        Sphere bound;
        for (const auto& [frustum, eye] : frusta) {
            bound = unite(bound, viewSlice(frustum, eye, ends[c], ends[c + 1]));
        }
        // A radius on a coarse grid (1/16 of its power of two): float noise as the camera turns
        // does not change the texel size, which would make every edge crawl.
        const double rawRadius = std::max(bound.radius, 1e-3);
        const double step = std::exp2(std::floor(std::log2(rawRadius)) - 4.0);
        const double radius = std::ceil(rawRadius / step) * step;

        // Texel snapping: the box moves across the world in whole texels only, so a still
        // caster covers the same texels frame after frame.
        const double texel = 2.0 * radius / static_cast<double>(size);
        glm::dvec3 lightSpace = rotation * bound.centre;
        lightSpace.x = std::floor(lightSpace.x / texel + 0.5) * texel;
        lightSpace.y = std::floor(lightSpace.y / texel + 0.5) * texel;
        const glm::dvec3 centre = glm::transpose(rotation) * lightSpace;

        // Casters between the light and the sphere shadow it too: reach back to the scene's bounds.
        double reach = radius;
        if (!sceneBounds.empty()) {
            for (int k = 0; k < 8; ++k) {
                const glm::dvec3 corner((k & 1) != 0 ? sceneBounds.max.x : sceneBounds.min.x,
                                        (k & 2) != 0 ? sceneBounds.max.y : sceneBounds.min.y,
                                        (k & 4) != 0 ? sceneBounds.max.z : sceneBounds.min.z);
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

        const auto r = static_cast<float>(radius);
        const glm::mat4 projection = glm::orthoRH_ZO(-r, r, -r, r, 0.0f, static_cast<float>(depth));
        ViewCamera& camera = m_cameras[c];
        camera.eye = eye;
        camera.lodEye = frusta.front().second;  // LOD levels as the (first) colour view draws them
        camera.lodProjection = m_lodProjection;
        camera.viewProjection = projection * rotationOnly;
        camera.layerMask = layerMask;

        View& view = m_views[c];
        view = View{};
        view.viewMatrix = rotationOnly;  // the depth axis; the eye comes from the camera in double
        view.viewMatrix[3] = glm::vec4(glm::vec3(-(rotation * eye)), 1.0f);
        view.projectionMatrix = projection;
        view.framebuffer = m_framebuffers[c];
        view.viewport = {0, 0, size, size};
        view.clear = ClearFlags::Depth;
        view.layerMask = layerMask;
        view.clipDepth = ClipDepth::ZeroToOne;
        view.depthOnly = true;

        ShadowCascadeInfo& info = m_info.cascades[c];
        info.eye = eye;
        info.centre = centre;
        info.radius = r;
        info.depth = static_cast<float>(depth);
        info.texelWorldSize = static_cast<float>(texel);
        info.viewDepthEnd = static_cast<float>(ends[c + 1]);
        info.clipFromEyeRelative = camera.viewProjection;
    }
    for (std::size_t c = count; c < kMaxCascades; ++c) {
        m_info.cascades[c] = ShadowCascadeInfo{};
    }
    m_info.texture = m_texture.id();
    m_info.size = size;
    m_info.direction = glm::vec3(direction);
    m_info.cascadeCount = static_cast<std::uint32_t>(count);
    m_active = true;
    return count;
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
    // Per cascade, the map's (u, v, depth) from this view's camera-relative world: the eye
    // difference is taken in double, so it stays exact far from the origin.
    glm::mat4 toTexture(1.0f);
    toTexture[0][0] = 0.5f;
    toTexture[1][1] = 0.5f;
    toTexture[3] = glm::vec4(0.5f, 0.5f, 0.0f, 1.0f);
    std::array<glm::mat4, kMaxCascades> matrices{};
    std::array<glm::vec4, kMaxCascades> params{};
    glm::vec4 ends(std::numeric_limits<float>::max());
    const auto radius = static_cast<float>(m_settings.filterRadius);
    const std::size_t count = m_info.cascadeCount;
    for (std::size_t c = 0; c < count; ++c) {
        const ShadowCascadeInfo& cascade = m_info.cascades[c];
        const glm::vec3 offset(pass.camera().eye - m_cameras[c].eye);
        matrices[c] = toTexture * m_cameras[c].viewProjection * glm::translate(glm::mat4(1.0f), offset);
        const float texel = cascade.texelWorldSize;
        params[c] = glm::vec4(1.0f / static_cast<float>(m_info.size), m_settings.normalOffset * texel,
                              m_settings.bias * texel / cascade.depth,
                              m_settings.slopeBias * texel * (radius + 1.0f) / cascade.depth);
        if (c + 1 < count) {
            ends[static_cast<glm::length_t>(c)] = cascade.viewDepthEnd;
        }
    }
    const GLuint program = chosen.program.id();
    glProgramUniformMatrix4fv(program, u.shadowMatrix, static_cast<GLsizei>(count), GL_FALSE, &matrices[0][0][0]);
    glProgramUniform4fv(program, u.shadowParams, static_cast<GLsizei>(count), &params[0][0]);
    chosen.program.setUniform(u.shadowFilterRadius, static_cast<int>(m_settings.filterRadius));
    chosen.program.setUniform(u.shadowCascadeEnds, ends);
    // The view's forward axis picks the cascade.
    chosen.program.setUniform(u.shadowViewForward, glm::normalize(pass.depthAxis()));
}

void ShadowPass::afterDraw(const ViewPass& pass, const FrameStats& before, const FrameStats& after) {
    if (!m_active || m_drawnCascades >= m_info.cascadeCount || &pass.view() != &m_views[m_drawnCascades]) {
        return;
    }
    m_info.drawCalls += after.drawCalls - before.drawCalls;
    m_info.instances += after.instances - before.instances;
    if (++m_drawnCascades == m_info.cascadeCount) {
        // Bound only now: while the map was drawn its layers were attachments, not a texture to read.
        glBindTextureUnit(kShadowMapUnit, m_texture.id());
        glBindSampler(kShadowMapUnit, 0);  // the texture's own compare and filter parameters
        m_info.drawn = true;
    }
}

void ShadowPass::trim() noexcept {
    if (!m_info.drawn) {
        release();
        m_info = ShadowMapInfo{};
    }
}

void ShadowPass::ensureTexture(std::uint32_t size, std::uint32_t layers) {
    if (m_textureSize == size && m_textureLayers == layers && m_texture.id() != 0) {
        return;
    }
    release();
    const auto side = static_cast<GLsizei>(size);
    TextureHandle texture(GL_TEXTURE_2D_ARRAY);
    glTextureStorage3D(texture.id(), 1, GL_DEPTH_COMPONENT32F, side, side, static_cast<GLsizei>(layers));
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
    m_texture = std::move(texture);
    m_textureSize = size;
    m_textureLayers = layers;
    for (std::uint32_t layer = 0; layer < layers; ++layer) {
        GLuint framebuffer = 0;
        glCreateFramebuffers(1, &framebuffer);
        countObject(ObjectKind::Framebuffer, 1);
        m_framebuffers[layer] = framebuffer;  // released with the rest if a later step throws
        glNamedFramebufferTextureLayer(framebuffer, GL_DEPTH_ATTACHMENT, m_texture.id(), 0, static_cast<GLint>(layer));
        glNamedFramebufferDrawBuffer(framebuffer, GL_NONE);
        glNamedFramebufferReadBuffer(framebuffer, GL_NONE);
        setLabel(GL_FRAMEBUFFER, framebuffer, "myriad/Renderer.shadow-framebuffer#" + std::to_string(layer));
        const GLenum status = glCheckNamedFramebufferStatus(framebuffer, GL_FRAMEBUFFER);
        if (status != GL_FRAMEBUFFER_COMPLETE) {
            release();
            throw GlError("gl::Renderer::render: the shadow map's framebuffer is incomplete (status " +
                          std::to_string(status) + ")");
        }
    }
}

void ShadowPass::release() noexcept {
    for (GLuint& framebuffer : m_framebuffers) {
        if (framebuffer != 0) {
            glDeleteFramebuffers(1, &framebuffer);
            countObject(ObjectKind::Framebuffer, -1);
            framebuffer = 0;
        }
    }
    m_texture.reset();
    m_textureSize = 0;
    m_textureLayers = 0;
}

} // namespace myriad::gl::detail
