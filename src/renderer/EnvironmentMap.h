#pragma once
// Internal to myriad_gl: image-based ambient (Scene::environment, Scene::hemisphere;
// docs/lighting.md "Image-based ambient"). The prefiltered specular map of each Environment,
// built once on the GPU and kept while the Environment lives, and the frame's ambient
// uniforms for the lit programs (kImageAmbient).
#include "gl/GlCommon.h"
#include "myriad/core/Scene.h"
#include "myriad/gl/Program.h"

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

namespace myriad::gl::detail {

struct GlLimits;
struct SurfaceUniforms;

/** What the lit programs of a frame read for their ambient (kImageAmbient). */
struct FrameAmbient {
    bool image = false;    ///< an environment or a hemisphere: kImageAmbient variants
    GLuint map = 0;        ///< the prefiltered map (0: a hemisphere, nothing to bind)
    /** E / pi as nine L2 spherical harmonics, intensity included (Environment::irradianceSh()
     *  / pi; a hemisphere's exact two-term expansion). */
    std::array<glm::vec3, 9> sh{};
    glm::vec4 environment{0.0f};  ///< levels - 1 (-1: hemisphere, no map), cos and sin of the rotation, intensity
};

/** The prefilter program's stages: tonemap.vert's full-screen triangle and
 *  environment_prefilter.frag (also linked by tests/shaders/DumpShaderVariants). */
[[nodiscard]] std::array<ShaderSource, 2> environmentPrefilterSources();

/** The two coefficients of a hemisphere ambient's E / pi = (sky + ground) / 2 +
 *  (sky - ground) / 2 * n.y, on Environment::shBasis's Y_00 and Y_1-1; the others 0. */
[[nodiscard]] std::array<glm::vec3, 9> hemisphereSh(const HemisphereAmbient& hemisphere) noexcept;

/** Checks the scene's ambient settings before any GL call.
 *  @throws InvalidArgument naming the field ("gl::Renderer::render: scene.environmentIntensity
 *  ...") when environmentIntensity is negative, NaN or infinite, environmentRotation is NaN or
 *  infinite, or a hemisphere colour is negative, NaN or infinite. */
void validateAmbient(const Scene& scene);

/** kImageAmbient when @p features light (kLit) and @p ambient is an image, else 0. */
[[nodiscard]] std::uint32_t ambientFeatures(std::uint32_t features, const FrameAmbient& ambient) noexcept;

/** Gives @p program (a kImageAmbient variant; nothing otherwise) @p ambient's uniforms. */
void setAmbientUniforms(const Program& program, const SurfaceUniforms& uniforms, const FrameAmbient& ambient);

class EnvironmentMaps {
public:
    /** Levels of a map at most (roughness steps of 0.2); fewer for images under 256 rows, whose
     *  coarsest level keeps 8 rows (1 level, a mirror only, under 16 rows). */
    static constexpr std::uint32_t kMaxLevels = 6;

    explicit EnvironmentMaps(const GlLimits& limits) noexcept : m_limits(limits) {}
    ~EnvironmentMaps();
    EnvironmentMaps(const EnvironmentMaps&) = delete;
    EnvironmentMaps& operator=(const EnvironmentMaps&) = delete;

    /** The frame's ambient for @p scene: builds the prefiltered map of scene.environment if it
     *  has none yet (GL draws into its own framebuffer: call after applyRenderState(), before the
     *  views set their state), and forgets the maps of Environments destroyed since.
     *  @throws CapacityError if the image is wider than GL_MAX_TEXTURE_SIZE; ShaderError if the
     *  prefilter program does not build; GlError if the driver cannot render into RGBA16F (its
     *  framebuffer incomplete) (nothing kept then). */
    [[nodiscard]] FrameAmbient prepare(const Scene& scene);
    /** Maps built so far (a test's proof that a second frame builds none). */
    [[nodiscard]] std::uint64_t builtCount() const noexcept { return m_built; }
    /** Frees every map and the program (Renderer::trim()). */
    void trim() noexcept;

private:
    struct Entry {
        std::weak_ptr<const Environment> source;
        std::uint64_t id = 0;
        TextureHandle map;
        std::uint32_t levels = 0;
    };
    Entry build(const std::shared_ptr<const Environment>& environment);
    void destroyFramebuffer() noexcept;

    const GlLimits& m_limits;
    std::vector<Entry> m_maps;
    Program m_program;
    int m_locationRoughness = -1;
    int m_locationSamples = -1;
    int m_locationTexelSolidAngle = -1;
    GLuint m_vertexArray = 0;
    GLuint m_framebuffer = 0;
    std::uint64_t m_built = 0;
};

} // namespace myriad::gl::detail
