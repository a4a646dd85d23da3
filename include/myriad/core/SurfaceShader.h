#pragma once
/** @file
 *  A user surface function: GLSL that decides a material's base colour and alpha.
 *
 *  The function receives what the surface knows at a fragment and returns what the lighting
 *  uses (docs/shaders.md has the interface and a worked example):
 *
 *      SurfaceOutput surface(SurfaceInput s) {
 *          vec4 c = s.color * myriad_materialColor(s.uv);  // the built-in surface
 *          return SurfaceOutput(c.rgb, c.a);
 *      }
 *
 *  It may `discard`. It works on MeshNode and InstancedMeshNode alike; the renderer compiles
 *  one program variant per (surface function, feature set) ahead of the frame that needs it. */
#include <cstdint>
#include <memory>
#include <string>

namespace myriad {

/** Immutable GLSL text with a name for error messages and an id for program caches.
 *  Ownership: shared (std::shared_ptr) by the materials that use it. Thread safety: immutable. */
class SurfaceShader {
public:
    /** @param name what compile errors call it ("dissolve.glsl"); errors read "name:line: ...".
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

    /** The name given at creation (or the path, from fromFile()): what compile errors and GL
     *  program labels call this surface. */
    [[nodiscard]] const std::string& name() const noexcept { return m_name; }
    /** The GLSL text as given, without a `#version` line (the renderer adds its own). */
    [[nodiscard]] const std::string& source() const noexcept { return m_source; }
    /** Unique in the process, never reused. */
    [[nodiscard]] std::uint64_t id() const noexcept { return m_id; }

private:
    SurfaceShader(std::string name, std::string source);
    std::string m_name;
    std::string m_source;
    std::uint64_t m_id;
};

} // namespace myriad
