#pragma once
// Internal to myriad_gl: a program compiled and linked in two steps, so a frame can start every
// compile it needs before it waits for any (GL_KHR_parallel_shader_compile: the driver's
// threads work on them meanwhile), and programs loaded from a glProgramBinary blob. No GL
// header here (GL names as std::uint32_t): ShaderLibrary.h is included by tools without glad.
#include "gl/ShaderText.h"  // compiledStageText: the text each stage is compiled from
#include "myriad/gl/Program.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace myriad::gl::detail {

/** One program on its way: every stage handed to glCompileShader and the program to
 *  glLinkProgram, nothing waited for. finish() waits, checks, and hands the Program over.
 *  Move-only; destroying an unfinished build deletes its GL objects. Context thread only. */
class ProgramBuild {
public:
    /** Starts compiling @p stages (texts as compiledStageText() (gl/ShaderText.h) makes them: @p assembled[i] for
     *  stages[i]) and linking them under @p label. @p retrievable sets
     *  GL_PROGRAM_BINARY_RETRIEVABLE_HINT before the link, for a binary cache.
     *  @throws InvalidArgument if the counts differ. */
    ProgramBuild(std::span<const ShaderSource> stages, std::span<const std::string> assembled,
                 std::string_view label, bool retrievable = false,
                 std::span<const char* const> captureVaryings = {});
    ~ProgramBuild();
    ProgramBuild(ProgramBuild&& other) noexcept;
    ProgramBuild& operator=(ProgramBuild&& other) noexcept;
    ProgramBuild(const ProgramBuild&) = delete;
    ProgramBuild& operator=(const ProgramBuild&) = delete;

    /** Waits for the driver, then checks every stage and the link.
     *  @throws ShaderError "name:line: message" per error line of a stage's log, or the link
     *  log; the build is empty afterwards either way. */
    [[nodiscard]] Program finish();
    /** Wraps @p program, a linked program object (e.g. from glProgramBinary), labelling it. */
    [[nodiscard]] static Program adopt(std::uint32_t program, std::string_view label);

private:
    struct Stage {
        std::uint32_t shader = 0;
        std::string name;
        std::string includedName;
    };
    void release() noexcept;

    std::vector<Stage> m_stages;
    std::uint32_t m_program = 0;
    std::string m_label;
};

} // namespace myriad::gl::detail
