#pragma once
/** @file
 *  User shading functions of a material: GLSL that replaces the fragment stage's surface
 *  function, the vertex stage's vertex function, or both.
 *
 *  The surface function receives what the surface knows at a fragment and returns what the
 *  lighting uses (docs/shaders.md has the interface and a worked example):
 *
 *      SurfaceOutput surface(SurfaceInput s) {
 *          vec4 c = s.color * myriad_materialColor(s.uv);  // the built-in surface
 *          return SurfaceOutput(c.rgb, c.a);
 *      }
 *
 *  It may `discard`. The vertex function (docs/shaders.md, "Vertex functions") receives a
 *  vertex in object and world space with its instance index, lanes, record and the scene's
 *  time, and returns where it is drawn, in world space:
 *
 *      VertexOutput vertex(VertexInput v) {
 *          vec3 p = v.position + vec3(0.2 * v.position.y * v.position.y * sin(v.time), 0.0, 0.0);
 *          return VertexOutput(myriad_objectToWorld(p), v.worldNormal);  // wind bends grass
 *      }
 *
 *  One object holds both, as Godot's shader holds vertex() and fragment(): a material names one
 *  shader, the renderer keys one program per (shader, feature set), and the vertex function
 *  also runs in the shadow and depth passes, so a displaced vertex casts its shadow where it
 *  is drawn. They are separate texts (each spliced into its own stage, each named in its own
 *  errors), because a text compiled as both stages could use neither stage's own built-ins
 *  (discard, derivatives). Both work on MeshNode and InstancedMeshNode alike (every path:
 *  CPU- or GPU-culled, table-driven, skinned, morphed, populations); particles and scatter run
 *  surface functions only. The renderer compiles one program variant per (shader, feature set)
 *  ahead of the frame that needs it.
 *
 *  A shader may also replace lighting (docs/shaders.md, "Lighting and fragment functions"), in
 *  the style of Godot's light() and fragment(): a lighting function is called once for every
 *  light that reaches a lit fragment and returns the radiance it reflects towards the eye,
 *  instead of myriad's BRDF:
 *
 *      vec3 lighting(ShadedSurface s, LightSample l) {
 *          float band = dot(s.normal, l.direction) > 0.0 ? 1.0 : 0.2;  // two-band toon
 *          return s.baseColor * l.radiance * band / 3.14159265;
 *      }
 *
 *  or a fragment function replaces the whole lit part of the fragment stage: given the
 *  surface and myriad's helpers (the lights reaching the fragment, the sun's shadow, the
 *  ambient), it returns the linear RGBA that fog, encoding and blending then use:
 *
 *      vec4 fragment(ShadedSurface s) {
 *          return vec4(vec3(float(myriad_lightCount(s)) / 8.0), 1.0);  // lights per fragment
 *      }
 *
 *  Both run on lit materials only (Shading::Lit and MetallicRoughness, MeshNode,
 *  InstancedMeshNode and ScatterNode, every draw path); an Unlit material draws its shader's
 *  surface and vertex functions and ignores them. Particles refuse them (InvalidArgument from
 *  Renderer::render()). */
#include <cstdint>
#include <memory>
#include <string>

namespace myriad {

/** The texts of a SurfaceShader (SurfaceShader::create()); each stage's may be empty, not both. */
struct SurfaceShaderDesc {
    /** What compile errors of the surface function call it ("dissolve.glsl"): "name:line: ...".
     *  Also the shader's name() (GL program labels). */
    std::string name;
    /** GLSL 4.50 text defining `SurfaceOutput surface(SurfaceInput s)` (no `#version` line;
     *  helper functions and constants may come first). Empty: the built-in surface. */
    std::string surfaceSource;
    /** What compile errors of the vertex function call it ("wind.vert.glsl"); empty: @ref name. */
    std::string vertexName;
    /** GLSL 4.50 text defining `VertexOutput vertex(VertexInput v)` (no `#version` line;
     *  helpers may come first). Empty: no vertex function (the built-in transform). */
    std::string vertexSource;
    /** What compile errors of the lighting function call it ("toon.glsl"); empty: @ref name. */
    std::string lightingName;
    /** GLSL 4.50 text defining `vec3 lighting(ShadedSurface s, LightSample l)` (no `#version`
     *  line; helpers may come first), optionally with `#define MYRIAD_AMBIENT_FUNCTION` and
     *  `vec3 ambient(ShadedSurface s)`. Empty: myriad's BRDF. Not with @ref fragmentSource. */
    std::string lightingSource;
    /** What compile errors of the fragment function call it ("debug.glsl"); empty: @ref name. */
    std::string fragmentName;
    /** GLSL 4.50 text defining `vec4 fragment(ShadedSurface s)` (no `#version` line; helpers
     *  may come first). Empty: myriad's lighting (or @ref lightingSource). */
    std::string fragmentSource;
};

/** Immutable GLSL texts with names for error messages and an id for program caches.
 *  Ownership: shared (std::shared_ptr) by the materials that use it. Thread safety: immutable. */
class SurfaceShader {
public:
    /** A surface function only.
     *  @param name what compile errors call it ("dissolve.glsl"); errors read "name:line: ...".
     *  @param source GLSL 4.50 text defining `SurfaceOutput surface(SurfaceInput s)` (no
     *  `#version` line; helper functions and constants may come first).
     *  @throws InvalidArgument if @p source is empty. A source that does not compile is found
     *  when a renderer first needs it: Renderer::render throws ShaderError naming @p name and
     *  the line, before it draws or changes any GL state. */
    [[nodiscard]] static std::shared_ptr<const SurfaceShader> fromSource(std::string name,
                                                                         std::string source);
    /** Reads the GLSL from @p path (errors then name the path).
     *  @throws InvalidArgument if the file cannot be read or is empty. */
    [[nodiscard]] static std::shared_ptr<const SurfaceShader> fromFile(const std::string& path);
    /** A vertex function only (the built-in surface colours it): @p source defines
     *  `VertexOutput vertex(VertexInput v)`; compile errors read "name:line: ...".
     *  @throws InvalidArgument if @p source is empty. Compile errors: as fromSource(). */
    [[nodiscard]] static std::shared_ptr<const SurfaceShader> vertexFromSource(std::string name,
                                                                               std::string source);
    /** vertexFromSource() with the text of the file at @p path (errors then name the path).
     *  @throws InvalidArgument if the file cannot be read or is empty. */
    [[nodiscard]] static std::shared_ptr<const SurfaceShader> vertexFromFile(const std::string& path);
    /** A lighting function only (docs/shaders.md, "Lighting and fragment functions"): @p source
     *  defines `vec3 lighting(ShadedSurface s, LightSample l)`, returning the radiance (linear
     *  RGB) the surface reflects towards the eye from light @p l; compile errors read
     *  "name:line: ...". @throws InvalidArgument if @p source is empty. Compile errors: as
     *  fromSource(). */
    [[nodiscard]] static std::shared_ptr<const SurfaceShader> lightingFromSource(std::string name,
                                                                                 std::string source);
    /** lightingFromSource() with the text of the file at @p path (errors then name the path).
     *  @throws InvalidArgument if the file cannot be read or is empty. */
    [[nodiscard]] static std::shared_ptr<const SurfaceShader> lightingFromFile(const std::string& path);
    /** A fragment function only: @p source defines `vec4 fragment(ShadedSurface s)`, returning
     *  the fragment's linear RGBA before fog, encoding and blending; compile errors read
     *  "name:line: ...". @throws InvalidArgument if @p source is empty. */
    [[nodiscard]] static std::shared_ptr<const SurfaceShader> fragmentFromSource(std::string name,
                                                                                 std::string source);
    /** fragmentFromSource() with the text of the file at @p path (errors then name the path).
     *  @throws InvalidArgument if the file cannot be read or is empty. */
    [[nodiscard]] static std::shared_ptr<const SurfaceShader> fragmentFromFile(const std::string& path);
    /** Any of a surface, vertex, lighting or fragment function, from @p desc.
     *  @throws InvalidArgument if every source is empty, or if @p desc has both a lighting and
     *  a fragment function (the fragment function replaces lighting whole; it may call
     *  myriad_shadeLight() for myriad's). Compile errors: as fromSource(), each naming its own
     *  function's name. */
    [[nodiscard]] static std::shared_ptr<const SurfaceShader> create(SurfaceShaderDesc desc);

    /** The name given at creation (or the path, from fromFile()): what compile errors of the
     *  surface function and GL program labels call this shader. */
    [[nodiscard]] const std::string& name() const noexcept { return m_name; }
    /** The surface function's GLSL as given, without a `#version` line (the renderer adds its
     *  own); empty when the shader has none (the built-in surface is used). */
    [[nodiscard]] const std::string& source() const noexcept { return m_source; }
    /** True when source() is not empty: the fragment stage runs the user's surface(). */
    [[nodiscard]] bool hasSurface() const noexcept { return !m_source.empty(); }
    /** What compile errors of the vertex function call it (SurfaceShaderDesc::vertexName, or
     *  name() when that was empty). */
    [[nodiscard]] const std::string& vertexName() const noexcept { return m_vertexName; }
    /** The vertex function's GLSL as given; empty when the shader has none. */
    [[nodiscard]] const std::string& vertexSource() const noexcept { return m_vertexSource; }
    /** True when vertexSource() is not empty: the vertex stage runs the user's vertex(). */
    [[nodiscard]] bool hasVertex() const noexcept { return !m_vertexSource.empty(); }
    /** What compile errors of the lighting function call it (SurfaceShaderDesc::lightingName,
     *  or name() when that was empty). */
    [[nodiscard]] const std::string& lightingName() const noexcept { return m_lightingName; }
    /** The lighting function's GLSL as given; empty when the shader has none. */
    [[nodiscard]] const std::string& lightingSource() const noexcept { return m_lightingSource; }
    /** True when lightingSource() is not empty: lit draws call the user's lighting() per light. */
    [[nodiscard]] bool hasLighting() const noexcept { return !m_lightingSource.empty(); }
    /** What compile errors of the fragment function call it (SurfaceShaderDesc::fragmentName,
     *  or name() when that was empty). */
    [[nodiscard]] const std::string& fragmentName() const noexcept { return m_fragmentName; }
    /** The fragment function's GLSL as given; empty when the shader has none. */
    [[nodiscard]] const std::string& fragmentSource() const noexcept { return m_fragmentSource; }
    /** True when fragmentSource() is not empty: lit draws take their colour from the user's
     *  fragment(). */
    [[nodiscard]] bool hasFragment() const noexcept { return !m_fragmentSource.empty(); }
    /** Unique in the process, never reused. */
    [[nodiscard]] std::uint64_t id() const noexcept { return m_id; }

private:
    explicit SurfaceShader(SurfaceShaderDesc desc);
    std::string m_name;
    std::string m_source;
    std::string m_vertexName;
    std::string m_vertexSource;
    std::string m_lightingName;
    std::string m_lightingSource;
    std::string m_fragmentName;
    std::string m_fragmentSource;
    std::uint64_t m_id;
};

} // namespace myriad
