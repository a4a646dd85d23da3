#pragma once
/** @file
 *  GLSL programs, compiled from text with errors reported as file:line. */
#include <glm/mat4x4.hpp>
#include <glm/vec2.hpp>
#include <glm/vec3.hpp>
#include <glm/vec4.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace myriad::gl {

namespace detail {
class ProgramBuild;
} // namespace detail

/** Which pipeline stage a ShaderSource is compiled for. */
enum class ShaderStage : std::uint8_t { Vertex, Fragment, Compute };

/** One stage's source. The text must start with a `#version` line; myriad inserts its layout
 *  #defines (MYRIAD_LOCATION_POSITION ... MYRIAD_LOCATION_INSTANCE_COLOR, see InstanceRecord.h)
 *  after it, followed by `#line 2`, so compiler line numbers match the file. */
struct ShaderSource {
    ShaderStage stage = ShaderStage::Vertex;  ///< the stage this text is compiled as
    std::string_view name;     ///< the file name shown in errors, e.g. "surface.vert"
    std::string_view text;     ///< GLSL 4.50 source; copied during compilation
    std::string_view defines{};  ///< extra lines ("#define X 1\n") inserted after \#version
    /** The name compile errors give to text marked `#line N 1` inside @p text: a user's file
     *  spliced into a built-in shader (a surface function) is reported as "includedName:line".
     *  Several spliced files: their names one per line ("surface.glsl\ntoon.glsl"), the k-th
     *  (from 1) numbered from k * 100000 + 1 as source string k (gl/ShaderText.h,
     *  kIncludedLineBase); an empty line for a file not spliced. */
    std::string_view includedName{};
};

/** A linked GLSL program. Uniforms are set with glProgramUniform* (DSA: no bind needed).
 *  GL calls: glCreateShader, glShaderSource, glCompileShader, glCreateProgram, glLinkProgram,
 *  glProgramUniform*, glUseProgram, glObjectLabel. The constructor waits for the driver's
 *  compile and link; the renderer's own variants instead start all of a frame's compiles before
 *  waiting for any (GL_KHR_parallel_shader_compile where the driver has it; docs/shaders.md).
 *  Ownership: move-only RAII. Thread safety: call only on the context's thread. */
class Program {
public:
    Program() noexcept = default;
    /** Compiles and links @p stages. @p captureVaryings, when given, are recorded by transform
     *  feedback (glTransformFeedbackVaryings, interleaved), e.g. {"gl_Position"} to read back
     *  what a vertex stage computed.
     *  @throws ShaderError "name:line: message" for each error line of the compile log, or the
     *  link log; InvalidArgument if a text lacks a \#version line; GlError with no context. */
    Program(std::span<const ShaderSource> stages, std::string_view label,
            std::span<const char* const> captureVaryings = {});
    /** A program from shaders embedded in the library at build time (shaders/ folder), by file
     *  name, e.g. {"surface.vert", "surface.frag"}.
     *  @throws InvalidArgument for an unknown name; ShaderError as above. */
    [[nodiscard]] static Program fromEmbedded(std::string_view vertexName,
                                              std::string_view fragmentName,
                                              std::string_view label,
                                              std::string_view defines = {});
    ~Program();
    /** Takes over the GL object of @p other, which is left empty (destructible without a context). */
    Program(Program&& other) noexcept;
    /** Deletes this object's GL object, then takes over that of @p other, which is left empty. */
    Program& operator=(Program&& other) noexcept;
    Program(const Program&) = delete;
    Program& operator=(const Program&) = delete;

    /** glUseProgram(id()). */
    void use() const;
    /** Uniform location, or -1 when the program has no active uniform of that name (cached by
     *  the driver; call once and keep it). */
    [[nodiscard]] int uniformLocation(const char* name) const;
    /** Sets the uniform at @p location (from uniformLocation()) with glProgramUniform*; no bind
     *  needed. A location of -1 is ignored, as GL does. @throws GlError with no current context. */
    ///@{
    void setUniform(int location, float value) const;
    void setUniform(int location, int value) const;
    void setUniform(int location, const glm::vec2& value) const;
    void setUniform(int location, const glm::vec3& value) const;
    void setUniform(int location, const glm::vec4& value) const;
    void setUniform(int location, const glm::mat4& value) const;
    ///@}
    /** A float array uniform (uniform float name[N]) from its first element's location. */
    void setUniform(int location, std::span<const float> values) const;

    /** The GL name of the program; 0 when empty. */
    [[nodiscard]] std::uint32_t id() const noexcept { return m_id; }
    /** The label given to glObjectLabel. */
    [[nodiscard]] const std::string& label() const noexcept { return m_label; }

private:
    friend class detail::ProgramBuild;  // wraps programs it linked or loaded from a binary
    Program(std::uint32_t id, std::string label) noexcept : m_id(id), m_label(std::move(label)) {}

    std::uint32_t m_id = 0;
    std::string m_label;
};

/** The text of an embedded shader file by name (as in shaders/), or throws InvalidArgument. */
[[nodiscard]] std::string_view embeddedShaderText(std::string_view name);

} // namespace myriad::gl
