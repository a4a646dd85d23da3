// Environmental errors: shaders that do not compile, no current context, bad targets.
#include "renderer/ShaderLibrary.h"
#include "support/GlTest.h"

#include "myriad/core/Scene.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/Program.h"
#include "myriad/gl/Renderer.h"
#include "myriad/gl/Texture.h"
#include "myriad/util/Error.h"

using namespace myriad;
using namespace myriad::test;

TEST_CASE("a shader that does not compile reports file and line", "[errors]") {
    context();
    const char* broken = "#version 450 core\n"
                         "out vec4 o_color;\n"
                         "void main() {\n"
                         "    o_color = vec4(1.0) * undefinedThing;\n"
                         "}\n";
    const char* vertex = "#version 450 core\nvoid main() { gl_Position = vec4(0.0); }\n";
    const gl::ShaderSource stages[] = {{gl::ShaderStage::Vertex, "ok.vert", vertex},
                                       {gl::ShaderStage::Fragment, "broken.frag", broken}};
    try {
        gl::Program program(stages, "broken");
        FAIL("a broken shader compiled");
    } catch (const ShaderError& e) {
        INFO(e.what());
        CHECK_THAT(e.what(), Catch::Contains("broken.frag:4:"));
        CHECK_THAT(e.what(), Catch::Contains("undefinedThing"));
    }
    const gl::ShaderSource noVersion[] = {{gl::ShaderStage::Vertex, "nov.vert", "void main() {}"}};
    CHECK_THROWS_AS(gl::Program(noVersion, "no-version"), InvalidArgument);
    CHECK_THROWS_AS(gl::Program::fromEmbedded("nope.vert", "surface.frag", "x"), InvalidArgument);
}

TEST_CASE("the embedded shaders are in the library and compile", "[errors]") {
    context();
    CHECK_THAT(std::string(gl::embeddedShaderText("surface.vert")), Catch::Contains("MYRIAD_INSTANCED"));
    CHECK_THAT(std::string(gl::embeddedShaderText("surface.frag")), Catch::Contains("SurfaceInput"));
    // surface.vert reads streams through declarations generated from their InstanceStreamDesc.
    const std::uint32_t features = gl::detail::kInstanced | gl::detail::kLit;
    const std::string fragmentDefines = gl::detail::ShaderLibrary::featureDefines(features);
    const std::string vertexDefines = fragmentDefines + gl::detail::ShaderLibrary::streamDeclarations(features);
    const gl::ShaderSource stages[] = {
        {gl::ShaderStage::Vertex, "surface.vert", gl::embeddedShaderText("surface.vert"), vertexDefines},
        {gl::ShaderStage::Fragment, "surface.frag", gl::embeddedShaderText("surface.frag"), fragmentDefines}};
    gl::Program program(stages, "p");
    CHECK(program.id() != 0);
    CHECK(program.uniformLocation("u_model") >= 0);
}

TEST_CASE("a Renderer with no current context throws GlError", "[errors]") {
    egl::HeadlessContext& ctx = context();
    ctx.releaseCurrent();
    CHECK_THROWS_AS(gl::Renderer(), GlError);
    ctx.makeCurrent();
    gl::Renderer renderer;
    Scene scene;
    Camera camera;
    ctx.releaseCurrent();
    gl::OffscreenTarget empty;
    CHECK_THROWS_AS(renderer.render(scene, camera, 16, 16), GlError);
    ctx.makeCurrent();
    CHECK_THROWS_AS(renderer.render(scene, camera, empty), InvalidArgument);
}

TEST_CASE("targets and textures refuse bad sizes", "[errors]") {
    context();
    CHECK_THROWS_AS(gl::OffscreenTarget(0, 16), InvalidArgument);
    CHECK_THROWS_AS(gl::OffscreenTarget(16, 100000), InvalidArgument);
    Image shortImage;
    shortImage.width = 4;
    shortImage.height = 4;
    shortImage.pixels.resize(10);
    CHECK_THROWS_AS(gl::Texture2D(shortImage, {}), InvalidArgument);
    CHECK_THROWS_AS(gl::Texture2D(Image{}, {}), InvalidArgument);
}
