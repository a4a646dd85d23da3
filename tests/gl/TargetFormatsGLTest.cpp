// Depth and filtering choices on screen (issue 19, fault 9): reversed-Z resolves two surfaces
// a hair apart far away only with a float depth buffer (OffscreenTarget DepthFormat::Depth32Float),
// and Material::maxAnisotropy keeps detail across a surface seen at a grazing angle, with the
// sampler's anisotropy clamped to the driver's maximum.
#include "support/GlCallLog.h"
#include "support/GlTest.h"

#include <glad/gl.h>

#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/Renderer.h"

#include <cmath>
#include <cstring>
#include <memory>

using namespace myriad;
using namespace myriad::test;

namespace {

constexpr std::uint32_t kSize = 64;
constexpr GLenum kTextureMaxAnisotropy = 0x84FE;     // GL 4.6, ARB/EXT_texture_filter_anisotropic
constexpr GLenum kMaxTextureMaxAnisotropy = 0x84FF;

/** The driver's GL_MAX_TEXTURE_MAX_ANISOTROPY, or 1 without the extension (or GL 4.6). */
float driverMaxAnisotropy() {
    GLint major = 0;
    GLint minor = 0;
    glGetIntegerv(GL_MAJOR_VERSION, &major);
    glGetIntegerv(GL_MINOR_VERSION, &minor);
    bool supported = major > 4 || (major == 4 && minor >= 6);
    GLint count = 0;
    glGetIntegerv(GL_NUM_EXTENSIONS, &count);
    for (GLint i = 0; i < count && !supported; ++i) {
        const auto* name = reinterpret_cast<const char*>(glGetStringi(GL_EXTENSIONS, static_cast<GLuint>(i)));
        supported = std::strcmp(name, "GL_ARB_texture_filter_anisotropic") == 0 ||
                    std::strcmp(name, "GL_EXT_texture_filter_anisotropic") == 0;
    }
    GLfloat most = 1.0f;
    if (supported) {
        glGetFloatv(kMaxTextureMaxAnisotropy, &most);
    }
    return most;
}

/** A reversed-Z perspective projection for ClipDepth::ZeroToOne: window depth
 *  n (f - d) / (d (f - n)) at view distance d, 1 at the near plane, 0 at the far one. */
glm::mat4 reversedPerspective(float nearPlane, float farPlane) {
    glm::mat4 projection(0.0f);
    projection[0][0] = 1.0f;  // 90 degrees, square
    projection[1][1] = 1.0f;
    projection[2][2] = nearPlane / (farPlane - nearPlane);
    projection[2][3] = -1.0f;
    projection[3][2] = nearPlane * farPlane / (farPlane - nearPlane);
    return projection;
}

/** Black and white stripes four texels wide across a 256 x 256 image (detail along u only). */
std::shared_ptr<Image> stripes() {
    auto image = std::make_shared<Image>();
    image->width = 256;
    image->height = 256;
    image->pixels.resize(256 * 256 * 4);
    for (std::uint32_t y = 0; y < 256; ++y) {
        for (std::uint32_t x = 0; x < 256; ++x) {
            const std::uint8_t v = (x / 4) % 2 == 0 ? 0 : 255;
            std::uint8_t* p = image->pixels.data() + (y * 256 + x) * 4;
            p[0] = p[1] = p[2] = v;
            p[3] = 255;
        }
    }
    return image;
}

/** Mean absolute difference of neighbouring pixels' red along row @p y: the stripes' contrast. */
double rowContrast(const Image& image, std::uint32_t y) {
    double sum = 0.0;
    for (std::uint32_t x = 1; x < image.width; ++x) {
        sum += std::abs(pixelAt(image, x, y)[0] - pixelAt(image, x - 1, y)[0]);
    }
    return sum / (image.width - 1);
}

} // namespace

TEST_CASE("reversed-Z tells apart surfaces 0.1 apart at distance 1000 with 32F depth, not with 24-bit", "[depth][pixels]") {
    context();
    // A red wall at distance 1000, then (later in tree order) a green one 0.1 nearer. Window
    // depths 9.0001e-5 and 9.0011e-5 (near 0.1, far 10000): 1510.0 and 1510.2 steps of a 24-bit
    // buffer (one value: the green fails GREATER), a float tells them apart.
    Scene scene;
    const auto wall = MeshGeometry::create(shapes::quad(4000.0f, 4000.0f), "wall");
    scene.root().emplace<MeshNode>(wall, unlit(glm::vec4(1, 0, 0, 1)), "far").setPosition({0.0, 0.0, -1000.0});
    scene.root().emplace<MeshNode>(wall, unlit(glm::vec4(0, 1, 0, 1)), "near").setPosition({0.0, 0.0, -999.9});
    gl::Renderer renderer;
    gl::View view;
    view.projectionMatrix = reversedPerspective(0.1f, 10000.0f);
    view.viewport = {0, 0, kSize, kSize};
    view.clipDepth = gl::ClipDepth::ZeroToOne;
    view.reversedDepth = true;

    gl::OffscreenTarget float32(kSize, kSize, "depth32f", gl::TargetFormat::Srgb8Alpha8, gl::DepthFormat::Depth32Float);
    CHECK(float32.depthFormat() == gl::DepthFormat::Depth32Float);
    view.framebuffer = float32.framebufferId();
    renderer.render(scene, view);
    MYRIAD_CHECK_PIXEL(float32.readPixels(), kSize / 2, kSize / 2, kGreen);

    gl::OffscreenTarget fixed24(kSize, kSize, "depth24");
    CHECK(fixed24.depthFormat() == gl::DepthFormat::Depth24);
    view.framebuffer = fixed24.framebufferId();
    renderer.render(scene, view);
    MYRIAD_CHECK_PIXEL(fixed24.readPixels(), kSize / 2, kSize / 2, kRed);  // reversed-Z gained nothing
}

TEST_CASE("Material::maxAnisotropy sets the sampler's anisotropy, clamped to the driver's", "[textures][pixels]") {
    context();
    const float most = driverMaxAnisotropy();
    INFO("GL_MAX_TEXTURE_MAX_ANISOTROPY " << most);
    // A striped 2 x 2 floor on the XY plane seen from 0.05 above it, looking along +y: toward
    // the horizon a pixel spans about one texel across (u) and ten or more along the view (v).
    Scene scene;
    Material material = unlit();
    material.baseColorTexture = stripes();
    auto& floor = scene.root().emplace<MeshNode>(MeshGeometry::create(shapes::quad(2.0f, 2.0f), "floor"), material, "floor");
    Camera camera;
    camera.setPerspective(0.8f, 1.0f, 0.01f, 50.0f);
    camera.lookAt(glm::dvec3(0.0, -1.2, 0.05), glm::dvec3(0.0, 0.0, 0.0), glm::dvec3(0.0, 0.0, 1.0));
    gl::Renderer renderer;
    gl::OffscreenTarget target(kSize, kSize, "anisotropy");

    GlCallLog log;
    MYRIAD_GL_CALL_LOG_HOOK(log, glBindSampler);
    renderer.render(scene, camera, target);
    const Image isotropic = target.readPixels();
    const auto plainSampler = static_cast<GLuint>(log.callsTo("glBindSampler").front().arguments[1]);
    log.clear();

    floor.material().maxAnisotropy = 64.0f;  // above any driver's: clamped
    renderer.render(scene, camera, target);
    const Image anisotropic = target.readPixels();
    const auto sampler = static_cast<GLuint>(log.callsTo("glBindSampler").front().arguments[1]);
    if (most <= 1.0f) {
        CHECK(sampler == plainSampler);  // no anisotropic filtering on this driver: the plain sampler
        return;
    }
    CHECK(sampler != plainSampler);
    GLfloat set = 0.0f;
    glGetSamplerParameterfv(sampler, kTextureMaxAnisotropy, &set);
    CHECK(set == most);
    // Just below the horizon, isotropic filtering takes the mip level of the steep direction
    // (v) and greys the stripes out (contrast about 0 on llvmpipe); anisotropic takes that of
    // u, sampling several times along v, and keeps them (about 30).
    double before = 0.0;
    double after = 0.0;
    for (std::uint32_t row = kSize / 2; row < kSize / 2 + 5; ++row) {
        before += rowContrast(isotropic, row) / 5.0;
        after += rowContrast(anisotropic, row) / 5.0;
    }
    INFO("mean contrast of rows 32-36: isotropic " << before << ", anisotropic " << after);
    CHECK(after > before + 15.0);
}
