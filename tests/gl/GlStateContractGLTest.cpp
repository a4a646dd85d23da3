// The GL state contract (docs/gl-state.md, the Renderer class comment), one piece of state at a
// time: the host sets a value other than GL's initial one, a frame that touches every part of
// the renderer is drawn (textures, morph weights, lanes, CPU and GPU culling, shadows,
// blending), and the value is checked afterwards: the host's again with
// RendererDesc::preserveState, GL's initial value (or the documented exception) without.
#include "support/GlCallLog.h"  // integer()
#include "support/GlTest.h"

#include <glad/gl.h>

#include "myriad/core/Environment.h"
#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/LightNode.h"
#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/Renderer.h"

#include <array>
#include <functional>
#include <memory>
#include <string>
#include <vector>

using namespace myriad;
using namespace myriad::test;

namespace {

constexpr std::uint32_t kSize = 64;

std::array<GLint, 4> integers4(GLenum name) {
    std::array<GLint, 4> value{};
    glGetIntegerv(name, value.data());
    return value;
}

GLint indexedInteger(GLenum name, GLuint index) {
    GLint value = 0;
    glGetIntegeri_v(name, index, &value);
    return value;
}

GLint64 indexedInteger64(GLenum name, GLuint index) {
    GLint64 value = 0;
    glGetInteger64i_v(name, index, &value);
    return value;
}

/** The binding of @p query on texture unit @p unit (selects the unit, puts the active one back). */
GLint unitBinding(GLuint unit, GLenum query) {
    const GLint active = integer(GL_ACTIVE_TEXTURE);
    glActiveTexture(GL_TEXTURE0 + unit);
    const GLint value = integer(query);
    glActiveTexture(static_cast<GLenum>(active));
    return value;
}

/** A scene that makes render() use every piece of state it lists: a textured, morphed, laned,
 *  CPU-culled batch (units 0-3, 6, 7), a GPU-culled one (storage bindings 1-5, the indirect
 *  buffer, the culling program), a blended node, shadows (unit 8, the light's views), a
 *  shadowed lamp (unit 11, the light list; units 19 and 20, its shadow atlas and records), a node
 *  with material textures and a lightmap (units 12-16), an environment (unit 17, its prefiltered map) and
 *  per-instance light channels (unit 21). */
struct EverythingScene {
    Scene scene;
    const InstancedMeshNode* gpuBatch = nullptr;
    EverythingScene() {
        auto checker = std::make_shared<Image>();
        checker->width = 2;
        checker->height = 2;
        checker->pixels = {0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 255, 255, 0, 0, 0, 255};
        MeshData data = shapes::quad(0.3f, 0.3f);
        MorphTarget lift;
        lift.name = "lift";
        lift.positionDeltas.assign(4, glm::vec3(0.0f, 0.1f, 0.0f));
        data.morphTargets.push_back(lift);
        auto mesh = MeshGeometry::create(data, "lifting-quad");

        Material textured;
        textured.baseColorTexture = checker;
        auto& cpuCulled = scene.root().emplace<InstancedMeshNode>(mesh, textured, 4, "cpu-culled");
        cpuCulled.addInstance(at(-0.5f, 0.5f));
        cpuCulled.addInstance(at(5.0f, 0.5f));  // out of view
        const float weight[] = {1.0f};
        cpuCulled.setMorphWeights(0, std::span<const float>(weight));
        cpuCulled.setLane(0, 0, glm::vec4(1.0f));
        cpuCulled.setInstanceLightChannels(0, 0xFFFFFFFFu);  // unit 21, the per-instance channels
        cpuCulled.setInstanceCulling(InstanceCulling::Cpu);

        auto& gpuCulled = scene.root().emplace<InstancedMeshNode>(mesh, Material{}, 4, "gpu-culled");
        gpuCulled.addInstance(at(0.5f, 0.5f));
        gpuCulled.addInstance(at(-5.0f, 0.5f));
        gpuCulled.setInstanceCulling(InstanceCulling::Gpu);
        gpuBatch = &gpuCulled;

        Material glass = unlit(glm::vec4(0, 1, 0, 0.5f));
        glass.alphaMode = AlphaMode::Blend;
        auto& blended = scene.root().emplace<MeshNode>(MeshGeometry::create(shapes::quad(0.5f, 0.5f), "glass"), glass, "glass");
        blended.setPosition({0.0f, -0.5f, 0.5f});
        scene.light.direction = {0.0f, 0.0f, -1.0f};
        scene.light.shadow.enabled = true;
        // Material textures on units 12-15 and a lightmap on unit 16 (docs/lighting.md,
        // "Material textures", "Lightmaps").
        Material textures;
        textures.shading = Shading::MetallicRoughness;
        textures.metallicRoughnessTexture.image = checker;
        textures.normalTexture.image = checker;
        textures.occlusionTexture.image = checker;
        textures.emissiveTexture.image = checker;
        textures.lightmapTexture.image = checker;
        textures.lightmapTexture.uvSet = 0;
        auto& mapped = scene.root().emplace<MeshNode>(MeshGeometry::create(shapes::quad(0.3f, 0.3f), "mapped"), textures,
                                                      "mapped");
        mapped.setPosition({-0.5f, -0.5f, 0.0f});
        // A lamp in view: the clustered light list on unit 11 (docs/lighting.md).
        auto& lamp = scene.root().emplace<LightNode>(LightType::Point, "lamp");
        lamp.setPosition({0.0, 0.0, 1.0});
        lamp.setRange(3.0f);
        // An environment: its prefiltered map built in the frame (its own framebuffer, program
        // and vertex array) and bound on unit 17 (docs/lighting.md, "Image-based ambient").
        scene.environment = std::make_shared<const Environment>(32, 16, std::vector<float>(32 * 16 * 3, 0.5f));
        lamp.setCastsShadow(true);  // lamp shadows: the atlas on unit 19, the records on unit 20
    }
};

/** The host's GL objects the cases bind. */
struct HostObjects {
    GLuint drawFramebuffer = 0;
    GLuint readFramebuffer = 0;
    GLuint program = 0;
    GLuint pipeline = 0;
    GLuint vertexArray = 0;
    GLuint buffer = 0;       ///< 1 KiB, for every buffer binding
    GLuint texture2d = 0;
    GLuint textureBuffer = 0;
    GLuint texture2dArray = 0;  ///< the shadow map's target (unit 8)
    GLuint sampler = 0;
    HostObjects() {
        glCreateFramebuffers(1, &drawFramebuffer);
        glCreateFramebuffers(1, &readFramebuffer);
        const char* source = "#version 450 core\nout vec4 c;\nvoid main() { c = vec4(1.0); }\n";
        program = glCreateShaderProgramv(GL_FRAGMENT_SHADER, 1, &source);
        glCreateProgramPipelines(1, &pipeline);
        glCreateVertexArrays(1, &vertexArray);
        glCreateBuffers(1, &buffer);
        glNamedBufferStorage(buffer, 1024, nullptr, 0);
        glCreateTextures(GL_TEXTURE_2D, 1, &texture2d);
        glTextureStorage2D(texture2d, 1, GL_RGBA8, 1, 1);
        glCreateTextures(GL_TEXTURE_2D_ARRAY, 1, &texture2dArray);
        glTextureStorage3D(texture2dArray, 1, GL_RGBA8, 1, 1, 2);
        glCreateTextures(GL_TEXTURE_BUFFER, 1, &textureBuffer);
        glTextureBuffer(textureBuffer, GL_RGBA32F, buffer);
        glCreateSamplers(1, &sampler);
    }
    ~HostObjects() {
        glDeleteFramebuffers(1, &drawFramebuffer);
        glDeleteFramebuffers(1, &readFramebuffer);
        glDeleteProgram(program);
        glDeleteProgramPipelines(1, &pipeline);
        glDeleteVertexArrays(1, &vertexArray);
        glDeleteTextures(1, &texture2d);
        glDeleteTextures(1, &textureBuffer);
        glDeleteTextures(1, &texture2dArray);
        glDeleteBuffers(1, &buffer);
        glDeleteSamplers(1, &sampler);
    }
    HostObjects(const HostObjects&) = delete;
    HostObjects& operator=(const HostObjects&) = delete;
};

/** One piece of state: set to a host value, is it the host's, is it the documented exit value,
 *  put back to GL's initial value. */
struct StateCase {
    std::string name;
    std::function<void()> set;
    std::function<bool()> isHost;
    std::function<bool()> isExit;
    std::function<void()> reset;
};

StateCase capability(const char* name, GLenum capability) {
    return {name, [=] { glEnable(capability); }, [=] { return glIsEnabled(capability) == GL_TRUE; },
            [=] { return glIsEnabled(capability) == GL_FALSE; }, [=] { glDisable(capability); }};
}

StateCase value(std::string name, GLenum query, GLint host, GLint initial, std::function<void(GLint)> setter) {
    return {std::move(name), [=] { setter(host); }, [=] { return integer(query) == host; },
            [=] { return integer(query) == initial; }, [=] { setter(initial); }};
}

std::vector<StateCase> contractCases(const HostObjects& host) {
    const auto id = [](GLuint name) { return static_cast<GLint>(name); };
    const std::array<GLint, 4> lastView{0, 0, static_cast<GLint>(kSize), static_cast<GLint>(kSize)};
    std::vector<StateCase> cases;
    cases.push_back(value("draw framebuffer", GL_DRAW_FRAMEBUFFER_BINDING, id(host.drawFramebuffer), 0,
                          [](GLint f) { glBindFramebuffer(GL_DRAW_FRAMEBUFFER, static_cast<GLuint>(f)); }));
    cases.push_back(value("read framebuffer", GL_READ_FRAMEBUFFER_BINDING, id(host.readFramebuffer), 0,
                          [](GLint f) { glBindFramebuffer(GL_READ_FRAMEBUFFER, static_cast<GLuint>(f)); }));
    // The viewport and scissor box: the documented exit keeps the last view's rectangle.
    cases.push_back({"viewport", [] { glViewport(1, 2, 30, 40); },
                     [] { return integers4(GL_VIEWPORT) == std::array<GLint, 4>{1, 2, 30, 40}; },
                     [=] { return integers4(GL_VIEWPORT) == lastView; }, [] { glViewport(0, 0, kSize, kSize); }});
    cases.push_back(capability("scissor test", GL_SCISSOR_TEST));
    cases.push_back({"scissor box", [] { glScissor(0, 0, 8, 8); },
                     [] { return integers4(GL_SCISSOR_BOX) == std::array<GLint, 4>{0, 0, 8, 8}; },
                     [=] { return integers4(GL_SCISSOR_BOX) == lastView; }, [] { glScissor(0, 0, kSize, kSize); }});
    cases.push_back({"colour mask", [] { glColorMask(GL_TRUE, GL_FALSE, GL_TRUE, GL_FALSE); },
                     [] {
                         std::array<GLboolean, 4> mask{};
                         glGetBooleanv(GL_COLOR_WRITEMASK, mask.data());
                         return mask == std::array<GLboolean, 4>{GL_TRUE, GL_FALSE, GL_TRUE, GL_FALSE};
                     },
                     [] {
                         std::array<GLboolean, 4> mask{};
                         glGetBooleanv(GL_COLOR_WRITEMASK, mask.data());
                         return mask == std::array<GLboolean, 4>{GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE};
                     },
                     [] { glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE); }});
    // Draw buffer 1's mask: a velocity view masks it for the draws that write no velocity.
    const auto mask1 = [] {
        std::array<GLboolean, 4> mask{};
        glGetBooleani_v(GL_COLOR_WRITEMASK, 1, mask.data());
        return mask;
    };
    cases.push_back({"colour mask of draw buffer 1", [] { glColorMaski(1, GL_FALSE, GL_TRUE, GL_FALSE, GL_TRUE); },
                     [=] { return mask1() == std::array<GLboolean, 4>{GL_FALSE, GL_TRUE, GL_FALSE, GL_TRUE}; },
                     [=] { return mask1() == std::array<GLboolean, 4>{GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE}; },
                     [] { glColorMaski(1, GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE); }});
    cases.push_back(capability("depth test", GL_DEPTH_TEST));
    cases.push_back(value("depth function", GL_DEPTH_FUNC, GL_ALWAYS, GL_LESS,
                          [](GLint f) { glDepthFunc(static_cast<GLenum>(f)); }));
    cases.push_back(value("depth mask", GL_DEPTH_WRITEMASK, GL_FALSE, GL_TRUE,
                          [](GLint m) { glDepthMask(static_cast<GLboolean>(m)); }));
    cases.push_back({"depth range", [] { glDepthRange(0.25, 0.75); },
                     [] {
                         std::array<GLfloat, 2> range{};
                         glGetFloatv(GL_DEPTH_RANGE, range.data());
                         return range == std::array<GLfloat, 2>{0.25f, 0.75f};
                     },
                     [] {
                         std::array<GLfloat, 2> range{};
                         glGetFloatv(GL_DEPTH_RANGE, range.data());
                         return range == std::array<GLfloat, 2>{0.0f, 1.0f};
                     },
                     [] { glDepthRange(0.0, 1.0); }});
    cases.push_back({"clip control", [] { glClipControl(GL_UPPER_LEFT, GL_ZERO_TO_ONE); },
                     [] { return integer(GL_CLIP_ORIGIN) == GL_UPPER_LEFT && integer(GL_CLIP_DEPTH_MODE) == GL_ZERO_TO_ONE; },
                     [] { return integer(GL_CLIP_ORIGIN) == GL_LOWER_LEFT && integer(GL_CLIP_DEPTH_MODE) == GL_NEGATIVE_ONE_TO_ONE; },
                     [] { glClipControl(GL_LOWER_LEFT, GL_NEGATIVE_ONE_TO_ONE); }});
    cases.push_back(capability("blending", GL_BLEND));
    // Found by a driver engineer's review: a host's clip plane, sample mask or multisample off
    // changed what myriad drew (its shaders write no gl_ClipDistance) and was never reset.
    for (GLuint plane = 0; plane < 8; ++plane) {
        static const std::array<std::string, 8> names{"clip distance 0", "clip distance 1", "clip distance 2",
                                                      "clip distance 3", "clip distance 4", "clip distance 5",
                                                      "clip distance 6", "clip distance 7"};
        cases.push_back(capability(names[plane].c_str(), GL_CLIP_DISTANCE0 + plane));
    }
    cases.push_back(capability("sample mask", GL_SAMPLE_MASK));
    cases.push_back({"multisample", [] { glDisable(GL_MULTISAMPLE); },
                     [] { return glIsEnabled(GL_MULTISAMPLE) == GL_FALSE; },
                     [] { return glIsEnabled(GL_MULTISAMPLE) == GL_TRUE; }, [] { glEnable(GL_MULTISAMPLE); }});
    cases.push_back({"blend function", [] { glBlendFuncSeparate(GL_DST_COLOR, GL_ONE, GL_ZERO, GL_SRC_ALPHA); },
                     [] {
                         return integer(GL_BLEND_SRC_RGB) == GL_DST_COLOR && integer(GL_BLEND_DST_RGB) == GL_ONE &&
                                integer(GL_BLEND_SRC_ALPHA) == GL_ZERO && integer(GL_BLEND_DST_ALPHA) == GL_SRC_ALPHA;
                     },
                     [] {
                         return integer(GL_BLEND_SRC_RGB) == GL_ONE && integer(GL_BLEND_DST_RGB) == GL_ZERO &&
                                integer(GL_BLEND_SRC_ALPHA) == GL_ONE && integer(GL_BLEND_DST_ALPHA) == GL_ZERO;
                     },
                     [] { glBlendFunc(GL_ONE, GL_ZERO); }});
    cases.push_back({"blend equation", [] { glBlendEquationSeparate(GL_MAX, GL_MIN); },
                     [] { return integer(GL_BLEND_EQUATION_RGB) == GL_MAX && integer(GL_BLEND_EQUATION_ALPHA) == GL_MIN; },
                     [] { return integer(GL_BLEND_EQUATION_RGB) == GL_FUNC_ADD && integer(GL_BLEND_EQUATION_ALPHA) == GL_FUNC_ADD; },
                     [] { glBlendEquation(GL_FUNC_ADD); }});
    cases.push_back(capability("face culling", GL_CULL_FACE));
    cases.push_back(value("cull face mode", GL_CULL_FACE_MODE, GL_FRONT_AND_BACK, GL_BACK,
                          [](GLint m) { glCullFace(static_cast<GLenum>(m)); }));
    cases.push_back(value("front face", GL_FRONT_FACE, GL_CW, GL_CCW, [](GLint f) { glFrontFace(static_cast<GLenum>(f)); }));
    cases.push_back({"polygon mode", [] { glPolygonMode(GL_FRONT_AND_BACK, GL_LINE); },
                     [] {
                         GLint modes[2] = {};  // Mesa returns front and back, also in core profiles
                         glGetIntegerv(GL_POLYGON_MODE, modes);
                         return modes[0] == GL_LINE;
                     },
                     [] {
                         GLint modes[2] = {};
                         glGetIntegerv(GL_POLYGON_MODE, modes);
                         return modes[0] == GL_FILL;
                     },
                     [] { glPolygonMode(GL_FRONT_AND_BACK, GL_FILL); }});
    cases.push_back(capability("polygon offset fill", GL_POLYGON_OFFSET_FILL));
    cases.push_back(capability("stencil test", GL_STENCIL_TEST));
    cases.push_back(capability("logic op", GL_COLOR_LOGIC_OP));
    cases.push_back(capability("alpha to coverage", GL_SAMPLE_ALPHA_TO_COVERAGE));
    cases.push_back(capability("sample coverage", GL_SAMPLE_COVERAGE));
    cases.push_back(capability("rasterizer discard", GL_RASTERIZER_DISCARD));
    cases.push_back(capability("primitive restart", GL_PRIMITIVE_RESTART));
    cases.push_back(capability("primitive restart fixed index", GL_PRIMITIVE_RESTART_FIXED_INDEX));
    cases.push_back(capability("depth clamp", GL_DEPTH_CLAMP));
    cases.push_back(capability("GL_FRAMEBUFFER_SRGB", GL_FRAMEBUFFER_SRGB));
    cases.push_back({"clear colour", [] { glClearColor(0.25f, 0.5f, 0.75f, 0.125f); },
                     [] {
                         std::array<GLfloat, 4> c{};
                         glGetFloatv(GL_COLOR_CLEAR_VALUE, c.data());
                         return c == std::array<GLfloat, 4>{0.25f, 0.5f, 0.75f, 0.125f};
                     },
                     [] {
                         std::array<GLfloat, 4> c{};
                         glGetFloatv(GL_COLOR_CLEAR_VALUE, c.data());
                         return c == std::array<GLfloat, 4>{};
                     },
                     [] { glClearColor(0.0f, 0.0f, 0.0f, 0.0f); }});
    cases.push_back({"clear depth", [] { glClearDepth(0.25); },
                     [] {
                         GLfloat d = 0.0f;
                         glGetFloatv(GL_DEPTH_CLEAR_VALUE, &d);
                         return d == 0.25f;
                     },
                     [] {
                         GLfloat d = 0.0f;
                         glGetFloatv(GL_DEPTH_CLEAR_VALUE, &d);
                         return d == 1.0f;
                     },
                     [] { glClearDepth(1.0); }});
    cases.push_back(value("program", GL_CURRENT_PROGRAM, id(host.program), 0,
                          [](GLint p) { glUseProgram(static_cast<GLuint>(p)); }));
    cases.push_back(value("program pipeline", GL_PROGRAM_PIPELINE_BINDING, id(host.pipeline), 0,
                          [](GLint p) { glBindProgramPipeline(static_cast<GLuint>(p)); }));
    cases.push_back(value("vertex array", GL_VERTEX_ARRAY_BINDING, id(host.vertexArray), 0,
                          [](GLint v) { glBindVertexArray(static_cast<GLuint>(v)); }));
    // The active unit is the caller's in both modes.
    cases.push_back({"active texture unit", [] { glActiveTexture(GL_TEXTURE5); },
                     [] { return integer(GL_ACTIVE_TEXTURE) == GL_TEXTURE5; },
                     [] { return integer(GL_ACTIVE_TEXTURE) == GL_TEXTURE5; }, [] { glActiveTexture(GL_TEXTURE0); }});
    // Unit 10: the previous records of a velocity view's batches (motion vectors); unit 11: the
    // clustered light list (the scene's lamp); units 12-16: material textures and the lightmap; units 19 and 20:
    // the lamp shadow atlas and records. Unit 17: the scene's prefiltered environment map (and
    // the prefilter's source); unit 21: the CPU-culled batch's per-instance light channels.
    for (const GLuint unit : {0u, 1u, 2u, 3u, 6u, 7u, 8u, 10u, 11u, 12u, 13u, 14u, 15u, 16u, 17u, 19u, 20u, 21u}) {
        const std::string at = " on unit " + std::to_string(unit);
        const GLuint texture2d = host.texture2d;
        const GLuint textureBuffer = host.textureBuffer;
        const GLuint sampler = host.sampler;
        cases.push_back({"2D texture" + at, [=] { glBindTextureUnit(unit, texture2d); },
                         [=] { return unitBinding(unit, GL_TEXTURE_BINDING_2D) == static_cast<GLint>(texture2d); },
                         [=] { return unitBinding(unit, GL_TEXTURE_BINDING_2D) == 0; }, [=] { glBindTextureUnit(unit, 0); }});
        cases.push_back({"buffer texture" + at, [=] { glBindTextureUnit(unit, textureBuffer); },
                         [=] { return unitBinding(unit, GL_TEXTURE_BINDING_BUFFER) == static_cast<GLint>(textureBuffer); },
                         [=] { return unitBinding(unit, GL_TEXTURE_BINDING_BUFFER) == 0; }, [=] { glBindTextureUnit(unit, 0); }});
        const GLuint texture2dArray = host.texture2dArray;
        cases.push_back({"2D array texture" + at, [=] { glBindTextureUnit(unit, texture2dArray); },
                         [=] { return unitBinding(unit, GL_TEXTURE_BINDING_2D_ARRAY) == static_cast<GLint>(texture2dArray); },
                         [=] { return unitBinding(unit, GL_TEXTURE_BINDING_2D_ARRAY) == 0; }, [=] { glBindTextureUnit(unit, 0); }});
        cases.push_back({"sampler" + at, [=] { glBindSampler(unit, sampler); },
                         [=] { return unitBinding(unit, GL_SAMPLER_BINDING) == static_cast<GLint>(sampler); },
                         [=] { return unitBinding(unit, GL_SAMPLER_BINDING) == 0; }, [=] { glBindSampler(unit, 0); }});
    }
    const auto pixelStore = [](GLenum name) { return [=](GLint v) { glPixelStorei(name, v); }; };
    cases.push_back(value("unpack alignment", GL_UNPACK_ALIGNMENT, 1, 4, pixelStore(GL_UNPACK_ALIGNMENT)));
    cases.push_back(value("unpack row length", GL_UNPACK_ROW_LENGTH, 7, 0, pixelStore(GL_UNPACK_ROW_LENGTH)));
    cases.push_back(value("unpack image height", GL_UNPACK_IMAGE_HEIGHT, 7, 0, pixelStore(GL_UNPACK_IMAGE_HEIGHT)));
    cases.push_back(value("unpack skip pixels", GL_UNPACK_SKIP_PIXELS, 3, 0, pixelStore(GL_UNPACK_SKIP_PIXELS)));
    cases.push_back(value("unpack skip rows", GL_UNPACK_SKIP_ROWS, 3, 0, pixelStore(GL_UNPACK_SKIP_ROWS)));
    cases.push_back(value("unpack skip images", GL_UNPACK_SKIP_IMAGES, 3, 0, pixelStore(GL_UNPACK_SKIP_IMAGES)));
    const auto bindBuffer = [](GLenum target) { return [=](GLint b) { glBindBuffer(target, static_cast<GLuint>(b)); }; };
    cases.push_back(value("pixel unpack buffer", GL_PIXEL_UNPACK_BUFFER_BINDING, id(host.buffer), 0,
                          bindBuffer(GL_PIXEL_UNPACK_BUFFER)));
    cases.push_back(value("draw indirect buffer", GL_DRAW_INDIRECT_BUFFER_BINDING, id(host.buffer), 0,
                          bindBuffer(GL_DRAW_INDIRECT_BUFFER)));
    cases.push_back(value("dispatch indirect buffer", GL_DISPATCH_INDIRECT_BUFFER_BINDING, id(host.buffer), 0,
                          bindBuffer(GL_DISPATCH_INDIRECT_BUFFER)));
    cases.push_back(value("generic storage buffer", GL_SHADER_STORAGE_BUFFER_BINDING, id(host.buffer), 0,
                          bindBuffer(GL_SHADER_STORAGE_BUFFER)));
    const GLint64 alignment = std::max<GLint64>(integer(GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT), 1);
    for (const GLuint binding : {0u, 1u, 2u, 3u, 4u, 5u}) {
        // Odd bindings take a range (it must come back with its start and size), even ones the whole buffer.
        const bool range = binding % 2 == 1;
        const GLuint buffer = host.buffer;
        const GLint64 start = range ? alignment : 0;
        const GLint64 size = range ? 16 : 0;
        cases.push_back({"storage binding " + std::to_string(binding) + (range ? " (range)" : ""),
                         [=] {
                             if (range) {
                                 glBindBufferRange(GL_SHADER_STORAGE_BUFFER, binding, buffer, static_cast<GLintptr>(start), 16);
                             } else {
                                 glBindBufferBase(GL_SHADER_STORAGE_BUFFER, binding, buffer);
                             }
                             glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
                         },
                         [=] {
                             return indexedInteger(GL_SHADER_STORAGE_BUFFER_BINDING, binding) == static_cast<GLint>(buffer) &&
                                    indexedInteger64(GL_SHADER_STORAGE_BUFFER_START, binding) == start &&
                                    indexedInteger64(GL_SHADER_STORAGE_BUFFER_SIZE, binding) == size;
                         },
                         [=] { return indexedInteger(GL_SHADER_STORAGE_BUFFER_BINDING, binding) == 0; },
                         [=] { glBindBufferBase(GL_SHADER_STORAGE_BUFFER, binding, 0); }});
    }
    return cases;
}

} // namespace

TEST_CASE("every piece of state in the contract comes back with preserveState and is GL's initial value without", "[state]") {
    context();
    const EverythingScene everything;
    const Camera camera = orthoCamera();
    // With a velocity attachment: the frame writes motion vectors (unit 10, draw buffer 1's mask).
    gl::OffscreenTarget target(kSize, kSize, "contract-target", gl::TargetFormat::Srgb8Alpha8, gl::DepthFormat::Depth24,
                               gl::VelocityFormat::Rg16Float);
    gl::Renderer preserving({.preserveState = true});
    gl::Renderer plain;
    const HostObjects host;
    // The frame really draws what the cases need (else a missing restore would go unseen).
    plain.render(everything.scene, camera, target);
    const gl::FrameStats& stats = plain.lastFrameStats();
    REQUIRE(plain.shadowMap().drawn);
    REQUIRE(plain.readGpuCulledInstances(*everything.gpuBatch, 0).has_value());
    REQUIRE(stats.drawCalls >= 3);

    for (const StateCase& state : contractCases(host)) {
        DYNAMIC_SECTION(state.name) {
            state.set();
            REQUIRE(state.isHost());
            preserving.render(everything.scene, camera, target);
            CHECK(state.isHost());
            state.reset();
            state.set();
            plain.render(everything.scene, camera, target);
            CHECK(state.isExit());
            state.reset();
            CHECK(glGetError() == GL_NO_ERROR);
        }
    }
}

TEST_CASE("with preserveState the host's scissor box comes back (issue 19)", "[state]") {
    context();
    const EverythingScene everything;
    gl::OffscreenTarget target(kSize, kSize, "scissor-target");
    gl::Renderer renderer({.preserveState = true});
    glEnable(GL_SCISSOR_TEST);
    glScissor(0, 0, 8, 8);
    renderer.render(everything.scene, orthoCamera(), target);
    CHECK(glIsEnabled(GL_SCISSOR_TEST) == GL_TRUE);
    CHECK(integers4(GL_SCISSOR_BOX) == std::array<GLint, 4>{0, 0, 8, 8});
    glDisable(GL_SCISSOR_TEST);
    glScissor(0, 0, kSize, kSize);
}
