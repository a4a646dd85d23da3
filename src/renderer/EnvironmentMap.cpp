#include "renderer/EnvironmentMap.h"

#include "gl/Bindings.h"
#include "myriad/gl/Loader.h"
#include "myriad/util/Error.h"
#include "renderer/GlLimits.h"
#include "renderer/ShaderLibrary.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

namespace myriad::gl::detail {
namespace {

bool finiteNonNegative(const glm::vec3& v) noexcept {
    return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z) && v.x >= 0.0f && v.y >= 0.0f && v.z >= 0.0f;
}

/** Importance samples per texel of level @p level (>= 1): more for the rougher, smaller
 *  levels, so every level costs about the same and the widest lobes are smooth. */
int samplesOf(std::uint32_t level) noexcept { return static_cast<int>(std::min<std::uint32_t>(1024u, 32u << level)); }

} // namespace

std::array<ShaderSource, 2> environmentPrefilterSources() {
    return {ShaderSource{ShaderStage::Vertex, "tonemap.vert", embeddedShaderText("tonemap.vert")},
            ShaderSource{ShaderStage::Fragment, "environment_prefilter.frag", embeddedShaderText("environment_prefilter.frag")}};
}

std::array<glm::vec3, 9> hemisphereSh(const HemisphereAmbient& hemisphere) noexcept {
    std::array<glm::vec3, 9> sh{};
    sh[0] = (hemisphere.sky + hemisphere.ground) * (0.5f / 0.282095f);
    sh[1] = (hemisphere.sky - hemisphere.ground) * (0.5f / 0.488603f);
    return sh;
}

void validateAmbient(const Scene& scene) {
    if (!std::isfinite(scene.environmentIntensity) || scene.environmentIntensity < 0.0f) {
        throw InvalidArgument("gl::Renderer::render: scene.environmentIntensity " +
                              std::to_string(scene.environmentIntensity) + " is not a finite number >= 0");
    }
    if (!std::isfinite(scene.environmentRotation)) {
        throw InvalidArgument("gl::Renderer::render: scene.environmentRotation is NaN or infinite");
    }
    if (scene.hemisphere && (!finiteNonNegative(scene.hemisphere->sky) || !finiteNonNegative(scene.hemisphere->ground))) {
        throw InvalidArgument("gl::Renderer::render: scene.hemisphere's sky or ground has a negative, NaN or "
                              "infinite component (linear RGB radiance, >= 0)");
    }
}

std::uint32_t ambientFeatures(std::uint32_t features, const FrameAmbient& ambient) noexcept {
    return ambient.image && (features & kLit) != 0 ? kImageAmbient : 0u;
}

void setAmbientUniforms(const Program& program, const SurfaceUniforms& uniforms, const FrameAmbient& ambient) {
    if (uniforms.ambientSh < 0 && uniforms.environment < 0) {
        return;  // not a kImageAmbient variant
    }
    glProgramUniform3fv(program.id(), uniforms.ambientSh, 9, &ambient.sh[0].x);
    program.setUniform(uniforms.environment, ambient.environment);
}

EnvironmentMaps::~EnvironmentMaps() { trim(); }

void EnvironmentMaps::destroyFramebuffer() noexcept {
    if (m_framebuffer != 0) {
        glDeleteFramebuffers(1, &m_framebuffer);
        countObject(ObjectKind::Framebuffer, -1);
        m_framebuffer = 0;
    }
    if (m_vertexArray != 0) {
        glDeleteVertexArrays(1, &m_vertexArray);
        countObject(ObjectKind::VertexArray, -1);
        m_vertexArray = 0;
    }
}

void EnvironmentMaps::trim() noexcept {
    m_maps.clear();
    destroyFramebuffer();
    m_program = Program();
}

FrameAmbient EnvironmentMaps::prepare(const Scene& scene) {
    std::erase_if(m_maps, [](const Entry& entry) { return entry.source.expired(); });
    FrameAmbient ambient;
    if (scene.environment) {
        const Environment& environment = *scene.environment;
        auto found = std::ranges::find_if(m_maps, [&](const Entry& entry) { return entry.id == environment.id(); });
        if (found == m_maps.end()) {
            m_maps.push_back(build(scene.environment));
            found = m_maps.end() - 1;
        }
        const float intensity = scene.environmentIntensity;
        for (std::size_t k = 0; k < 9; ++k) {
            ambient.sh[k] = environment.irradianceSh()[k] * (intensity / std::numbers::pi_v<float>);
        }
        ambient.image = true;
        ambient.map = found->map.id();
        ambient.environment = {static_cast<float>(found->levels - 1), std::cos(scene.environmentRotation),
                               std::sin(scene.environmentRotation), intensity};
    } else if (scene.hemisphere) {
        ambient.image = true;
        ambient.sh = hemisphereSh(*scene.hemisphere);
        ambient.environment = {-1.0f, 1.0f, 0.0f, 1.0f};  // x < 0: no map
    }
    return ambient;
}

EnvironmentMaps::Entry EnvironmentMaps::build(const std::shared_ptr<const Environment>& environment) {
    const std::uint32_t width = environment->width();
    const std::uint32_t height = environment->height();
    if (static_cast<std::int64_t>(width) > m_limits.maxTextureSize) {
        throw CapacityError("gl::Renderer::render: scene.environment is " + std::to_string(width) + " texels wide, more than GL_MAX_TEXTURE_SIZE (" +
                            std::to_string(m_limits.maxTextureSize) + " on this driver); scale the image down");
    }
    if (m_program.id() == 0) {
        const std::array<ShaderSource, 2> stages = environmentPrefilterSources();
        Program program(stages, "myriad/Renderer.environment-prefilter");  // throws ShaderError: nothing made yet
        m_locationRoughness = program.uniformLocation("u_roughness");
        m_locationSamples = program.uniformLocation("u_samples");
        m_locationTexelSolidAngle = program.uniformLocation("u_texelSolidAngle");
        m_program = std::move(program);
    }
    if (m_framebuffer == 0) {
        glCreateFramebuffers(1, &m_framebuffer);
        countObject(ObjectKind::Framebuffer, 1);
        setLabel(GL_FRAMEBUFFER, m_framebuffer, "myriad/Renderer.environment-prefilter.framebuffer");
        // No attributes: tonemap.vert's triangle comes from gl_VertexID, but a core context
        // draws only with a vertex array bound.
        glCreateVertexArrays(1, &m_vertexArray);
        countObject(ObjectKind::VertexArray, 1);
        setLabel(GL_VERTEX_ARRAY, m_vertexArray, "myriad/Renderer.environment-prefilter.vao");
    }
    // The source: the image with its full mip chain (the samples' filtered levels). RGBA16F:
    // glGenerateTextureMipmap needs a colour-renderable format, which RGB16F need not be (GL 4.5
    // table 8.12); half floats hold radiance to 65504 at 3 digits.
    const auto sourceLevels = static_cast<GLsizei>(std::bit_width(width));
    TextureHandle source(GL_TEXTURE_2D);
    setLabel(GL_TEXTURE, source.id(), "myriad/Renderer.environment-source");
    glTextureStorage2D(source.id(), sourceLevels, GL_RGBA16F, static_cast<GLsizei>(width), static_cast<GLsizei>(height));
    // Clamped to the largest half float: GL converts a larger value (an HDR sun's disc) to
    // infinity, which the mip chain and the prefilter's sums would spread as Inf and NaN.
    std::vector<float> clamped(environment->pixels().begin(), environment->pixels().end());
    for (float& value : clamped) {
        value = std::min(value, 65504.0f);
    }
    glTextureSubImage2D(source.id(), 0, 0, 0, static_cast<GLsizei>(width), static_cast<GLsizei>(height), GL_RGB, GL_FLOAT,
                        clamped.data());  // rows of 3 floats: unpack alignment 4 holds (applyRenderState)
    glGenerateTextureMipmap(source.id());
    glTextureParameteri(source.id(), GL_TEXTURE_MIN_FILTER, GL_LINEAR_MIPMAP_LINEAR);
    glTextureParameteri(source.id(), GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTextureParameteri(source.id(), GL_TEXTURE_WRAP_S, GL_REPEAT);  // around the horizon
    glTextureParameteri(source.id(), GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);

    Entry entry;
    entry.source = environment;
    entry.id = environment->id();
    // The coarsest level keeps at least 8 rows (16 x 8 texels): a coarser one would put its few
    // texel centres far from the directions it is read at.
    // Signed: an image of 1 to 3 rows has bit_width - 3 <= 0, and gets the mirror level only.
    entry.levels = static_cast<std::uint32_t>(
        std::clamp<int>(static_cast<int>(std::bit_width(height)) - 3, 1, static_cast<int>(kMaxLevels)));
    entry.map = TextureHandle(GL_TEXTURE_2D);
    setLabel(GL_TEXTURE, entry.map.id(), "myriad/Renderer.environment-map");
    glTextureStorage2D(entry.map.id(), static_cast<GLsizei>(entry.levels), GL_RGBA16F, static_cast<GLsizei>(width),
                       static_cast<GLsizei>(height));
    glTextureParameteri(entry.map.id(), GL_TEXTURE_MIN_FILTER, GL_LINEAR_MIPMAP_LINEAR);
    glTextureParameteri(entry.map.id(), GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTextureParameteri(entry.map.id(), GL_TEXTURE_WRAP_S, GL_REPEAT);
    glTextureParameteri(entry.map.id(), GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glTextureParameteri(entry.map.id(), GL_TEXTURE_MAX_LEVEL, static_cast<GLint>(entry.levels - 1));

    // One full-screen triangle per level. The state the draws need is set here; the views set
    // theirs again after (framebuffer, viewport, program, vertex array, depth, blend, culling),
    // and render()'s exit puts everything back (docs/gl-state.md).
    glNamedFramebufferTexture(m_framebuffer, GL_COLOR_ATTACHMENT0, entry.map.id(), 0);
    if (const GLenum status = glCheckNamedFramebufferStatus(m_framebuffer, GL_FRAMEBUFFER);
        status != GL_FRAMEBUFFER_COMPLETE) {  // once per Environment, never in a steady frame
        glNamedFramebufferTexture(m_framebuffer, GL_COLOR_ATTACHMENT0, 0, 0);
        throw GlError("gl::Renderer::render: the environment map's framebuffer is incomplete (status " +
                      std::to_string(status) + "): RGBA16F is not colour-renderable on this driver");
    }
    glBindFramebuffer(GL_FRAMEBUFFER, m_framebuffer);
    // The views set clip control themselves; this pass draws before them, so it sets the
    // contract's value too: under the caller's GL_UPPER_LEFT the map would be written upside
    // down (OpenGL 4.5 section 13.5) and kept so for the Environment's life.
    glClipControl(GL_LOWER_LEFT, GL_NEGATIVE_ONE_TO_ONE);
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_BLEND);
    glDisable(GL_CULL_FACE);
    glUseProgram(m_program.id());
    glBindVertexArray(m_vertexArray);
    glBindTextureUnit(kEnvironmentUnit, source.id());
    glBindSampler(kEnvironmentUnit, 0);
    const float texelSolidAngle = 4.0f * std::numbers::pi_v<float> / static_cast<float>(std::uint64_t{width} * height);
    m_program.setUniform(m_locationTexelSolidAngle, texelSolidAngle);
    for (std::uint32_t level = 0; level < entry.levels; ++level) {
        glNamedFramebufferTexture(m_framebuffer, GL_COLOR_ATTACHMENT0, entry.map.id(), static_cast<GLint>(level));
        const GLsizei levelWidth = std::max<GLsizei>(1, static_cast<GLsizei>(width >> level));
        const GLsizei levelHeight = std::max<GLsizei>(1, static_cast<GLsizei>(height >> level));
        glViewport(0, 0, levelWidth, levelHeight);
        const float roughness = entry.levels > 1 ? static_cast<float>(level) / static_cast<float>(entry.levels - 1) : 0.0f;
        m_program.setUniform(m_locationRoughness, roughness);
        glProgramUniform1i(m_program.id(), m_locationSamples, level == 0 ? 1 : samplesOf(level));
        glDrawArrays(GL_TRIANGLES, 0, 3);
    }
    // Rendered texels are visible to later texture fetches without glMemoryBarrier (that orders
    // image and buffer stores, not framebuffer writes); the map is no longer attached, so
    // sampling it is no feedback loop (OpenGL 4.5 section 9.3).
    glNamedFramebufferTexture(m_framebuffer, GL_COLOR_ATTACHMENT0, 0, 0);
    glBindTextureUnit(kEnvironmentUnit, 0);
    glBindVertexArray(0);
    glUseProgram(0);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    ++m_built;
    return entry;
}

} // namespace myriad::gl::detail
