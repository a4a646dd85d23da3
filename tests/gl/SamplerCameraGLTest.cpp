// glTF samplers and cameras on screen (issue 26): a material's TextureSampler reaches GL (wrap
// modes at pixels worked out by hand, nearest against mipmapped minification of a checker,
// mip levels made only when some material asks for them), and a scene imported with a camera
// is seen through it as the file says.
#include "support/GlCallLog.h"
#include "support/GlTest.h"
#include "gltf/TestFiles.h"

#include <glad/gl.h>

#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/Renderer.h"
#include "myriad/gltf/GltfImporter.h"

#include <memory>
#include <set>
#include <vector>

using namespace myriad;
using namespace myriad::test;

namespace {

/** A 2 x 2 quad filling orthoCamera()'s view, u running 0..@p uMax left to right (v 0..1 top
 *  to bottom, as shapes::quad). */
std::shared_ptr<const MeshGeometry> wideUvQuad(float uMax) {
    MeshData data = shapes::quad(2.0f, 2.0f);
    for (glm::vec2& uv : data.uv0) {
        uv.x *= uMax;
    }
    return MeshGeometry::create(std::move(data), "uv-quad");
}

/** 2 x 1: texel 0 red, texel 1 green (sRGB bytes). */
std::shared_ptr<Image> redGreen() {
    auto image = std::make_shared<Image>();
    image->width = 2;
    image->height = 1;
    image->pixels = {255, 0, 0, 255, 0, 255, 0, 255};
    return image;
}

/** @p side x @p side, 1-texel squares: texel (i, j) white where i + j is even, else black. */
std::shared_ptr<Image> checker(std::uint32_t side) {
    auto image = std::make_shared<Image>();
    image->width = side;
    image->height = side;
    for (std::uint32_t j = 0; j < side; ++j) {
        for (std::uint32_t i = 0; i < side; ++i) {
            const std::uint8_t v = (i + j) % 2 == 0 ? 255 : 0;
            image->pixels.insert(image->pixels.end(), {v, v, v, 255});
        }
    }
    return image;
}

Material textured(std::shared_ptr<const Image> image, const TextureSampler& sampler) {
    Material material = unlit();
    material.baseColorTexture = std::move(image);
    material.sampler = sampler;
    return material;
}

/** GL_TEXTURE_IMMUTABLE_LEVELS of the texture bound to unit 0 by the last glBindTextureUnit. */
GLint levelsOfLastBoundTexture(const GlCallLog& log) {
    GLuint texture = 0;
    for (const GlCall& call : log.callsTo("glBindTextureUnit")) {
        if (call.argument<GLuint>(0) == 0 && call.argument<GLuint>(1) != 0) {
            texture = call.argument<GLuint>(1);
        }
    }
    REQUIRE(texture != 0);
    GLint levels = 0;
    glGetTextureParameteriv(texture, GL_TEXTURE_IMMUTABLE_LEVELS, &levels);
    return levels;
}

} // namespace

TEST_CASE("wrap modes: Repeat, ClampToEdge and MirroredRepeat past u = 1, at pixels worked out by hand",
          "[textures][samplers][pixels]") {
    RenderFixture fixture;  // 64 x 64, x in [-1, 1]
    const auto image = redGreen();
    const auto mesh = wideUvQuad(2.0f);
    // Column x samples u = (x + 0.5) / 64 * 2: texel 0 (red) for u in [0, 0.5), texel 1 (green)
    // for [0.5, 1). Past 1, repeat takes u - 1 (red, green again), clamp the edge texel (green,
    // green), mirrored repeat 2 - u (green, red). Nearest filtering: exact colours.
    struct Case {
        TextureWrap wrap;
        std::array<Rgba, 4> bands;  // columns 0-15, 16-31, 32-47, 48-63
    };
    const Case cases[] = {
        {TextureWrap::Repeat, {kRed, kGreen, kRed, kGreen}},
        {TextureWrap::ClampToEdge, {kRed, kGreen, kGreen, kGreen}},
        {TextureWrap::MirroredRepeat, {kRed, kGreen, kGreen, kRed}},
    };
    GlCallLog log;
    MYRIAD_GL_CALL_LOG_HOOK(log, glBindSampler);
    std::set<GLuint> samplers;
    for (const Case& c : cases) {
        INFO("wrapS " << static_cast<int>(c.wrap));
        Scene scene;
        scene.root().emplace<MeshNode>(mesh, textured(image, TextureSampler::nearest(c.wrap, TextureWrap::ClampToEdge)),
                                       "quad");
        log.clear();
        const Image pixels = fixture.render(scene);
        for (std::uint32_t band = 0; band < 4; ++band) {
            for (const std::uint32_t x : {band * 16 + 1, band * 16 + 8, band * 16 + 14}) {
                MYRIAD_CHECK_PIXEL(pixels, x, 32, c.bands[band]);
            }
        }
        REQUIRE_FALSE(log.callsTo("glBindSampler").empty());
        const auto sampler = log.callsTo("glBindSampler").front().argument<GLuint>(1);
        GLint wrapS = 0;
        glGetSamplerParameteriv(sampler, GL_TEXTURE_WRAP_S, &wrapS);
        CHECK(wrapS == (c.wrap == TextureWrap::Repeat           ? GL_REPEAT
                        : c.wrap == TextureWrap::ClampToEdge    ? GL_CLAMP_TO_EDGE
                                                                : GL_MIRRORED_REPEAT));
        samplers.insert(sampler);
    }
    CHECK(samplers.size() == 3);  // one sampler object per distinct sampling

    SECTION("materials with equal samplers share one sampler object") {
        Scene scene;
        const TextureSampler clamp = TextureSampler::nearest(TextureWrap::ClampToEdge, TextureWrap::ClampToEdge);
        auto& a = scene.root().emplace<MeshNode>(mesh, textured(image, clamp), "a");
        auto& b = scene.root().emplace<MeshNode>(mesh, textured(image, clamp), "b");
        b.material().name = "another";
        a.setPosition({0.0, 0.0, 0.5});
        log.clear();
        (void)fixture.render(scene);
        std::vector<GLuint> bound;  // the draws' binds; the exit state unbinds with 0
        for (const GlCall& call : log.callsTo("glBindSampler")) {
            if (call.argument<GLuint>(1) != 0) {
                bound.push_back(call.argument<GLuint>(1));
            }
        }
        // Both draws share a texture and a sampler: one multi-draw call, one bind.
        REQUIRE(bound.size() == 1);
        CHECK(fixture.renderer.lastFrameStats().drawCommands == 2);
        CHECK(samplers.count(bound[0]) == 1);  // the clamp one made above
    }
}

TEST_CASE("minification: nearest and linear keep a checker's texels, a mipmapped filter averages it",
          "[textures][samplers][pixels]") {
    context();
    gl::Renderer renderer;
    // 4 x 4 pixels over a 12 x 12 checker: each pixel spans 3 x 3 texels and its centre falls on
    // the centre of texel (3x + 1, 3y + 1), which is white where x + y is even. Without mip
    // levels (Nearest, Linear) that texel is what the pixel shows; trilinear reads levels 1
    // (6 x 6) and 2 (3 x 3), where every texel is the mean of white and black: linear 0.5, sRGB
    // byte 188.
    gl::OffscreenTarget target(4, 4, "minification");
    const Camera camera = orthoCamera();
    const auto image = checker(12);
    const auto mesh = wideUvQuad(1.0f);
    Scene scene;
    auto& quad = scene.root().emplace<MeshNode>(mesh, textured(image, {.minFilter = MinFilter::Nearest}), "checker");

    GlCallLog log;
    MYRIAD_GL_CALL_LOG_HOOK(log, glBindTextureUnit);
    MYRIAD_GL_CALL_LOG_HOOK(log, glGenerateTextureMipmap);
    auto exactTexels = [&](const char* what) {
        INFO(what);
        renderer.render(scene, camera, target);
        const Image pixels = target.readPixels();
        for (std::uint32_t y = 0; y < 4; ++y) {
            for (std::uint32_t x = 0; x < 4; ++x) {
                MYRIAD_CHECK_PIXEL(pixels, x, y, (x + y) % 2 == 0 ? kWhite : kBlack);
            }
        }
    };
    exactTexels("Nearest");
    // No material drawn with the image asks for mip levels: its copy has one, none generated.
    CHECK(levelsOfLastBoundTexture(log) == 1);
    CHECK(log.callsTo("glGenerateTextureMipmap").empty());

    quad.material().sampler.minFilter = MinFilter::Linear;
    exactTexels("Linear");
    CHECK(levelsOfLastBoundTexture(log) == 1);

    // The first material with a mipmap filter: the copy is made again, with every level.
    log.clear();
    quad.material().sampler.minFilter = MinFilter::LinearMipmapLinear;
    renderer.render(scene, camera, target);
    const Image averaged = target.readPixels();
    for (std::uint32_t y = 0; y < 4; ++y) {
        for (std::uint32_t x = 0; x < 4; ++x) {
            MYRIAD_CHECK_PIXEL(averaged, x, y, Rgba{188, 188, 188, 255});
        }
    }
    CHECK(levelsOfLastBoundTexture(log) == 4);  // 12, 6, 3, 1
    CHECK(log.callsTo("glGenerateTextureMipmap").size() == 1);

    // And it stays so: back to Nearest, the mipmapped copy serves (nothing made again).
    log.clear();
    quad.material().sampler.minFilter = MinFilter::Nearest;
    exactTexels("Nearest again");
    CHECK(levelsOfLastBoundTexture(log) == 4);
    CHECK(log.callsTo("glGenerateTextureMipmap").empty());

    SECTION("nearestFilter, the deprecated convenience, still forces unfiltered sampling") {
        quad.material().sampler.minFilter = MinFilter::LinearMipmapLinear;
        quad.material().nearestFilter = true;
        exactTexels("nearestFilter over a trilinear sampler");
    }
}

// ---- Cameras ----

TEST_CASE("a scene imported with a glTF camera is seen through it, objects at the pixels worked out by hand",
          "[gltf][cameras][pixels]") {
    context();
    // Two unit quads facing +x (the triangle fan of a 1 x 1 square in the yz plane): the red one
    // at the origin, the green one at (0, 0, -5). A perspective camera at (10, 0, 0) turned
    // +90 degrees about y looks down world -x (its -Z), its right (+X) along world -z; yfov
    // 90 degrees and no aspect (the viewport's, 1). At depth 10 the view is 20 wide, so the
    // origin is the centre pixel and (0, 0, -5) sits at ndc x = 5 / 10 = 0.5: column 48 of 64.
    // An orthographic camera (xmag 10, ymag 10) at (0, 0, 20) looking down -z sees the red quad
    // edge-on (nothing) and the green one edge-on too; so it is given its own blue quad facing
    // +z at (5, 5, 0): ndc (0.5, 0.5), pixel (48, 16).
    using myriad::test::gltf::Doc;
    using myriad::test::gltf::writeDoc;
    Doc doc;
    doc.buffer.add<float>({0, -0.5f, -0.5f, 0, -0.5f, 0.5f, 0, 0.5f, 0.5f, 0, 0.5f, -0.5f,      // yz square
                           -0.5f, -0.5f, 0, 0.5f, -0.5f, 0, 0.5f, 0.5f, 0, -0.5f, 0.5f, 0});  // xy square
    doc.buffer.add<std::uint16_t>({0, 1, 2, 0, 2, 3});
    doc.bufferViews = R"([{"buffer": 0, "byteOffset": 0, "byteLength": 48},
                          {"buffer": 0, "byteOffset": 48, "byteLength": 48},
                          {"buffer": 0, "byteOffset": 96, "byteLength": 12}])";
    doc.accessors = R"([{"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3",
                         "min": [0, -0.5, -0.5], "max": [0, 0.5, 0.5]},
                        {"bufferView": 1, "componentType": 5126, "count": 4, "type": "VEC3",
                         "min": [-0.5, -0.5, 0], "max": [0.5, 0.5, 0]},
                        {"bufferView": 2, "componentType": 5123, "count": 6, "type": "SCALAR"}])";
    doc.meshes = R"([{"primitives": [{"attributes": {"POSITION": 0}, "indices": 2, "material": 0}]},
                     {"primitives": [{"attributes": {"POSITION": 0}, "indices": 2, "material": 1}]},
                     {"primitives": [{"attributes": {"POSITION": 1}, "indices": 2, "material": 2}]}])";
    doc.nodes = R"([{"name": "red", "mesh": 0},
                    {"name": "green", "mesh": 1, "translation": [0, 0, -5]},
                    {"name": "blue", "mesh": 2, "translation": [5, 5, 0]},
                    {"name": "rig", "translation": [10, 0, 0], "children": [4]},
                    {"name": "eye", "camera": 0, "rotation": [0, 0.70710678, 0, 0.70710678]},
                    {"name": "above", "camera": 1, "translation": [0, 0, 20]}])";
    doc.scenes = R"([{"nodes": [0, 1, 2, 3, 5]}])";
    doc.extra = R"("extensionsUsed": ["KHR_materials_unlit"],
        "materials": [
          {"pbrMetallicRoughness": {"baseColorFactor": [1, 0, 0, 1]}, "doubleSided": true, "extensions": {"KHR_materials_unlit": {}}},
          {"pbrMetallicRoughness": {"baseColorFactor": [0, 1, 0, 1]}, "doubleSided": true, "extensions": {"KHR_materials_unlit": {}}},
          {"pbrMetallicRoughness": {"baseColorFactor": [0, 0, 1, 1]}, "doubleSided": true, "extensions": {"KHR_materials_unlit": {}}}],
        "cameras": [{"type": "perspective", "perspective": {"yfov": 1.5707963, "znear": 0.1}},
                    {"type": "orthographic", "orthographic": {"xmag": 10, "ymag": 10, "znear": 1, "zfar": 40}}],)";
    myriad::gltf::ImportedScene imported = myriad::gltf::importScene(writeDoc("camera-scene.gltf", doc));
    REQUIRE(imported.cameras.size() == 2);
    const myriad::gltf::ImportedCamera perspective = imported.cameras[0];
    const myriad::gltf::ImportedCamera orthographic = imported.cameras[1];
    Scene scene;
    scene.clearColor = {0.0f, 0.0f, 0.0f, 1.0f};
    scene.root().add(std::move(imported.root));  // the camera nodes stay valid

    constexpr std::uint32_t kSize = 64;
    gl::Renderer renderer;
    gl::OffscreenTarget target(kSize, kSize, "camera-target");
    renderer.render(scene, perspective.makeCamera(1.0f), target);
    Image image = target.readPixels();
    MYRIAD_CHECK_PIXEL(image, 32, 32, kRed);    // the origin, straight ahead
    MYRIAD_CHECK_PIXEL(image, 48, 32, kGreen);  // (0, 0, -5): to the camera's right
    MYRIAD_CHECK_PIXEL(image, 16, 32, kBlack);  // (0, 0, 5): nothing there
    // The quads are 1 wide at depth 10: 1 / 20 of the view, 3.2 pixels; row 40 is 0.25 of the
    // half-height (2.5 world units) below the centre: empty.
    MYRIAD_CHECK_PIXEL(image, 32, 40, kBlack);

    // Moving the rig moves the camera: 5 units toward the quads, the green one now at ndc
    // x = 5 / 5 = 1, the right edge; the red still in the centre.
    perspective.node->parent()->setPosition({5.0, 0.0, 0.0});
    renderer.render(scene, perspective.makeCamera(1.0f), target);
    image = target.readPixels();
    MYRIAD_CHECK_PIXEL(image, 32, 32, kRed);
    MYRIAD_CHECK_PIXEL(image, 48, 32, kBlack);

    renderer.render(scene, orthographic.makeCamera(1.0f), target);
    image = target.readPixels();
    MYRIAD_CHECK_PIXEL(image, 48, 16, kBlue);   // (5, 5): ndc (0.5, 0.5)
    MYRIAD_CHECK_PIXEL(image, 16, 48, kBlack);  // (-5, -5)
    MYRIAD_CHECK_PIXEL(image, 32, 32, kBlack);  // the red and green quads, edge-on
}
