#pragma once
// Internal to myriad_gl: the exact text a stage is compiled from, built without a GL context,
// so a tool can write out what the driver is given (tests/shaders/ checks every variant with
// glslangValidator; docs/shaders.md).
#include "myriad/gl/Program.h"

#include <string>

namespace myriad::gl::detail {

/** The GLSL that glShaderSource receives for @p source: its text up to and including the
 *  `#version` line, the layout #defines (MYRIAD_LOCATION_*, MYRIAD_MAX_MORPH_TARGETS),
 *  `source.defines`, a `#line` that restores the file's own numbering, then the rest.
 *  Program compiles exactly this. @throws InvalidArgument if the text has no `#version` line. */
[[nodiscard]] std::string compiledStageText(const ShaderSource& source);

} // namespace myriad::gl::detail
