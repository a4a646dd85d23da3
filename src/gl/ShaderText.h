#pragma once
// Internal to myriad_gl: the exact text a stage is compiled from, built without a GL context,
// so a tool can write out what the driver is given (tests/shaders/ checks every variant with
// glslangValidator; docs/shaders.md).
#include "myriad/gl/Program.h"

#include <string>

namespace myriad::gl::detail {

/** Text spliced into a stage from a user's file (a surface or vertex function) is numbered from
 *  kIncludedLineBase + 1, as GLSL source string 1: a compile error on its line n reads
 *  n + kIncludedLineBase whichever source-string number the driver reports with it (Mesa gives
 *  the next string's number to an error found on the text's last token), and is named by the
 *  user's file and line n. The stages' own files are far shorter. A stage with several user
 *  texts (a surface and a lighting function) numbers the k-th (from 1) as source string k from
 *  k * kIncludedLineBase + 1, and names them in ShaderSource::includedName one per line. */
inline constexpr long kIncludedLineBase = 100000;

/** The GLSL that glShaderSource receives for @p source: its text up to and including the
 *  `#version` line, the layout #defines (MYRIAD_LOCATION_*, MYRIAD_MAX_MORPH_TARGETS),
 *  `source.defines`, a `#line` that restores the file's own numbering, then the rest.
 *  Program compiles exactly this. @throws InvalidArgument if the text has no `#version` line. */
[[nodiscard]] std::string compiledStageText(const ShaderSource& source);

} // namespace myriad::gl::detail
