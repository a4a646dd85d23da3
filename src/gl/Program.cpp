#include "myriad/gl/Program.h"

#include "gl/Bindings.h"
#include "gl/EmbeddedShaders.h"
#include "gl/GlCommon.h"
#include "gl/ProgramBuild.h"
#include "gl/ShaderText.h"
#include "myriad/core/InstanceRecord.h"
#include "myriad/core/MorphTargets.h"
#include "myriad/gl/Loader.h"
#include "myriad/util/Error.h"

#include <glm/gtc/type_ptr.hpp>

#include <algorithm>
#include <regex>
#include <sstream>
#include <utility>
#include <vector>

namespace myriad::gl {
namespace {

GLenum toGl(ShaderStage stage) noexcept {
    switch (stage) {
    case ShaderStage::Vertex: return GL_VERTEX_SHADER;
    case ShaderStage::Fragment: return GL_FRAGMENT_SHADER;
    case ShaderStage::Compute: return GL_COMPUTE_SHADER;
    }
    return GL_VERTEX_SHADER;
}

// The layout constants of InstanceRecord.h, as GLSL sees them: one source for both languages.
std::string layoutDefines() {
    std::ostringstream out;
    out << "#define MYRIAD_LOCATION_POSITION " << location::kPosition << "\n"
        << "#define MYRIAD_LOCATION_NORMAL " << location::kNormal << "\n"
        << "#define MYRIAD_LOCATION_UV0 " << location::kUv0 << "\n"
        << "#define MYRIAD_LOCATION_COLOR " << location::kColor << "\n"
        << "#define MYRIAD_LOCATION_INSTANCE_ROW0 " << location::kInstanceRow0 << "\n"
        << "#define MYRIAD_LOCATION_INSTANCE_ROW1 " << location::kInstanceRow1 << "\n"
        << "#define MYRIAD_LOCATION_INSTANCE_ROW2 " << location::kInstanceRow2 << "\n"
        << "#define MYRIAD_LOCATION_INSTANCE_COLOR " << location::kInstanceColor << "\n"
        << "#define MYRIAD_LOCATION_JOINTS " << location::kJoints << "\n"
        << "#define MYRIAD_LOCATION_WEIGHTS " << location::kWeights << "\n"
        << "#define MYRIAD_LOCATION_UV1 " << location::kUv1 << "\n"
        << "#define MYRIAD_LOCATION_TANGENT " << location::kTangent << "\n"
        << "#define MYRIAD_MAX_MORPH_TARGETS " << kMaxMorphTargets << "\n";
    return out.str();
}

std::string readLog(GLuint object, bool isProgram) {
    GLint length = 0;
    if (isProgram) {
        glGetProgramiv(object, GL_INFO_LOG_LENGTH, &length);
    } else {
        glGetShaderiv(object, GL_INFO_LOG_LENGTH, &length);
    }
    std::string log(static_cast<std::size_t>(std::max(length, 1)), '\0');
    if (isProgram) {
        glGetProgramInfoLog(object, length, nullptr, log.data());
    } else {
        glGetShaderInfoLog(object, length, nullptr, log.data());
    }
    log.resize(std::char_traits<char>::length(log.c_str()));
    return log;
}

/** Line @p k (from 1) of @p names, the names of the texts spliced into a stage; empty when
 *  there is no such line (k 0: the stage's own file). */
std::string_view includedLine(std::string_view names, long k) {
    for (long at = 1; k >= 1 && !names.empty(); ++at) {
        const std::size_t end = names.find('\n');
        const std::string_view line = names.substr(0, end);
        if (at == k) {
            return line;
        }
        if (end == std::string_view::npos) {
            break;
        }
        names.remove_prefix(end + 1);
    }
    return {};
}

// Rewrites driver log lines to "name:line: message". Mesa writes "0:12(5): error: ...",
// NVIDIA "0(12) : error C0000: ...", AMD/Intel Windows "ERROR: 0:12: ...". The leading number is
// the GLSL source-string number (#line's second argument): k >= 1, or a line past
// k * kIncludedLineBase, is text spliced in from line k of @p includedName (a user's surface,
// vertex, lighting or fragment function), anything else the stage's own file.
std::string formatCompileLog(std::string_view name, std::string_view includedName, const std::string& log) {
    static const std::regex mesa(R"(^\s*(\d+):(\d+)\(\d+\):\s*(.*)$)");
    static const std::regex nvidia(R"(^\s*(\d+)\((\d+)\)\s*:\s*(.*)$)");
    static const std::regex generic(R"(^\s*(?:ERROR|WARNING):\s*(\d+):(\d+):\s*(.*)$)");
    std::istringstream lines(log);
    std::string line;
    std::string result;
    while (std::getline(lines, line)) {
        if (line.empty()) {
            continue;
        }
        std::smatch match;
        if (std::regex_match(line, match, mesa) || std::regex_match(line, match, nvidia) ||
            std::regex_match(line, match, generic)) {
            // The user's text is numbered from kIncludedLineBase + 1 (gl/ShaderText.h): its
            // line numbers say where an error is, also when the driver names the wrong string.
            // Several texts (one name per line of @p includedName): the k-th numbered from
            // k * kIncludedLineBase + 1 as string k.
            long lineNumber = std::stol(match[2].str());
            long text = lineNumber > detail::kIncludedLineBase ? (lineNumber - 1) / detail::kIncludedLineBase
                                                                : std::stol(match[1].str());
            const std::string_view textName = includedLine(includedName, text);
            const bool included = !textName.empty();
            if (included && lineNumber > detail::kIncludedLineBase) {
                lineNumber -= text * detail::kIncludedLineBase;
            }
            result += std::string(included ? textName : name) + ":" + std::to_string(lineNumber) + ": " +
                      match[3].str() + "\n";
        } else {
            result += std::string(name) + ": " + line + "\n";
        }
    }
    return result;
}

} // namespace

namespace detail {

std::string compiledStageText(const ShaderSource& source) {
    const std::string_view text = source.text;
    const std::size_t versionAt = text.find("#version");
    if (versionAt == std::string_view::npos) {
        throw InvalidArgument("gl::Program: shader '" + std::string(source.name) +
                              "' has no #version line");
    }
    // Count the lines up to and including the #version line, so #line restores the numbering.
    const std::size_t versionEnd = text.find('\n', versionAt);
    const std::string_view head = text.substr(0, versionEnd == std::string_view::npos
                                                     ? text.size()
                                                     : versionEnd + 1);
    const auto linesBefore = static_cast<int>(std::count(head.begin(), head.end(), '\n'));
    std::string full(head);
    if (versionEnd == std::string_view::npos) {
        full += "\n";
    }
    full += layoutDefines() + bindingDefines();  // locations (InstanceRecord.h), units and bindings (gl/Bindings.h)
    full += source.defines;
    if (!source.defines.empty() && source.defines.back() != '\n') {
        full += "\n";
    }
    full += "#line " + std::to_string(linesBefore + 1) + "\n";
    if (versionEnd != std::string_view::npos) {
        full += text.substr(versionEnd + 1);
    }
    return full;
}

ProgramBuild::ProgramBuild(std::span<const ShaderSource> stages, std::span<const std::string> assembled,
                           std::string_view label, bool retrievable,
                           std::span<const char* const> captureVaryings)
    : m_label(label) {
    if (stages.size() != assembled.size()) {
        throw InvalidArgument("gl::ProgramBuild: " + std::to_string(stages.size()) + " stages but " +
                              std::to_string(assembled.size()) + " texts");
    }
    // Every glCompileShader and the glLinkProgram are issued before any status query: a driver
    // with parallel compile works on them (and on the other builds of the frame) on its own
    // threads, one without does the same work at the first query.
    m_stages.reserve(stages.size());
    for (std::size_t i = 0; i < stages.size(); ++i) {
        Stage stage;
        stage.shader = glCreateShader(gl::toGl(stages[i].stage));
        stage.name = std::string(stages[i].name);
        stage.includedName = std::string(stages[i].includedName);
        const char* pointer = assembled[i].c_str();
        const auto length = static_cast<GLint>(assembled[i].size());
        glShaderSource(stage.shader, 1, &pointer, &length);
        glCompileShader(stage.shader);
        m_stages.push_back(std::move(stage));
    }
    m_program = glCreateProgram();
    for (const Stage& stage : m_stages) {
        glAttachShader(m_program, stage.shader);
    }
    if (!captureVaryings.empty()) {
        glTransformFeedbackVaryings(m_program, static_cast<GLsizei>(captureVaryings.size()),
                                    captureVaryings.data(), GL_INTERLEAVED_ATTRIBS);
    }
    if (retrievable) {
        glProgramParameteri(m_program, GL_PROGRAM_BINARY_RETRIEVABLE_HINT, GL_TRUE);
    }
    glLinkProgram(m_program);
}

ProgramBuild::~ProgramBuild() { release(); }

ProgramBuild::ProgramBuild(ProgramBuild&& other) noexcept
    : m_stages(std::move(other.m_stages)), m_program(std::exchange(other.m_program, 0)),
      m_label(std::move(other.m_label)) {
    other.m_stages.clear();
}

ProgramBuild& ProgramBuild::operator=(ProgramBuild&& other) noexcept {
    if (this != &other) {
        release();
        m_stages = std::move(other.m_stages);
        other.m_stages.clear();
        m_program = std::exchange(other.m_program, 0);
        m_label = std::move(other.m_label);
    }
    return *this;
}

void ProgramBuild::release() noexcept {
    for (const Stage& stage : m_stages) {
        if (m_program != 0) {
            glDetachShader(m_program, stage.shader);
        }
        glDeleteShader(stage.shader);
    }
    m_stages.clear();
    if (m_program != 0) {
        glDeleteProgram(m_program);
        m_program = 0;
    }
}

Program ProgramBuild::finish() {
    // The first status query waits for the driver.
    for (const Stage& stage : m_stages) {
        GLint ok = GL_FALSE;
        glGetShaderiv(stage.shader, GL_COMPILE_STATUS, &ok);
        if (ok != GL_TRUE) {
            const std::string log = formatCompileLog(stage.name, stage.includedName, readLog(stage.shader, false));
            const std::string name = stage.name;
            release();
            throw ShaderError("shader '" + name + "' failed to compile:\n" + log);
        }
    }
    GLint ok = GL_FALSE;
    glGetProgramiv(m_program, GL_LINK_STATUS, &ok);
    if (ok != GL_TRUE) {
        const std::string log = readLog(m_program, true);
        release();
        throw ShaderError("program '" + m_label + "' failed to link:\n" + log);
    }
    for (const Stage& stage : m_stages) {
        setLabel(GL_SHADER, stage.shader, stage.name);  // labelled while alive: a debugger sees it
        glDetachShader(m_program, stage.shader);
        glDeleteShader(stage.shader);
    }
    m_stages.clear();
    return adopt(std::exchange(m_program, 0), m_label);
}

Program ProgramBuild::adopt(std::uint32_t program, std::string_view label) {
    countObject(ObjectKind::Program, 1);
    std::string name = labelOrDefault(label, "program", program);
    setLabel(GL_PROGRAM, program, name);
    return Program(program, std::move(name));
}

} // namespace detail

Program::Program(std::span<const ShaderSource> stages, std::string_view label,
                 std::span<const char* const> captureVaryings) {
    requireCurrentContext("gl::Program");
    std::vector<std::string> assembled;
    assembled.reserve(stages.size());
    for (const ShaderSource& stage : stages) {
        assembled.push_back(detail::compiledStageText(stage));
    }
    *this = detail::ProgramBuild(stages, assembled, label, false, captureVaryings).finish();
}

std::string_view embeddedShaderText(std::string_view name) {
    if (auto text = detail::embeddedShader(name)) {
        return *text;
    }
    throw InvalidArgument("gl::embeddedShaderText: no embedded shader named '" +
                          std::string(name) + "'");
}

Program Program::fromEmbedded(std::string_view vertexName, std::string_view fragmentName,
                              std::string_view label, std::string_view defines) {
    const ShaderSource stages[] = {
        {ShaderStage::Vertex, vertexName, embeddedShaderText(vertexName), defines},
        {ShaderStage::Fragment, fragmentName, embeddedShaderText(fragmentName), defines},
    };
    return Program(stages, label);
}

Program::~Program() {
    if (m_id != 0) {
        glDeleteProgram(m_id);
        detail::countObject(detail::ObjectKind::Program, -1);
    }
}

Program::Program(Program&& other) noexcept
    : m_id(std::exchange(other.m_id, 0)), m_label(std::move(other.m_label)) {}

Program& Program::operator=(Program&& other) noexcept {
    if (this != &other) {
        if (m_id != 0) {
            glDeleteProgram(m_id);
            detail::countObject(detail::ObjectKind::Program, -1);
        }
        m_id = std::exchange(other.m_id, 0);
        m_label = std::move(other.m_label);
    }
    return *this;
}

void Program::use() const { glUseProgram(m_id); }

int Program::uniformLocation(const char* name) const { return glGetUniformLocation(m_id, name); }

void Program::setUniform(int location, float value) const {
    glProgramUniform1f(m_id, location, value);
}
void Program::setUniform(int location, int value) const {
    glProgramUniform1i(m_id, location, value);
}
void Program::setUniform(int location, const glm::vec2& value) const {
    glProgramUniform2fv(m_id, location, 1, glm::value_ptr(value));
}
void Program::setUniform(int location, const glm::vec3& value) const {
    glProgramUniform3fv(m_id, location, 1, glm::value_ptr(value));
}
void Program::setUniform(int location, const glm::vec4& value) const {
    glProgramUniform4fv(m_id, location, 1, glm::value_ptr(value));
}
void Program::setUniform(int location, std::span<const float> values) const {
    if (!values.empty()) {
        glProgramUniform1fv(m_id, location, static_cast<GLsizei>(values.size()), values.data());
    }
}
void Program::setUniform(int location, const glm::mat4& value) const {
    glProgramUniformMatrix4fv(m_id, location, 1, GL_FALSE, glm::value_ptr(value));
}

} // namespace myriad::gl
