#pragma once
// Internal to myriad_gl: the tone-mapping pass's two stages (ToneMapPass, myriad/gl/ToneMapping.h)
// as the pass compiles them, for tests/shaders/DumpShaderVariants (the glslang check).
#include "myriad/gl/Program.h"

#include <array>

namespace myriad::gl::detail {

/** tonemap.vert and tonemap.frag, the fragment stage with myriad_encodeSrgb() (kEncodeSrgbGlsl)
 *  inserted after its \#version line. Views into static text: valid for the process. No GL. */
[[nodiscard]] std::array<ShaderSource, 2> toneMapProgramSources();

} // namespace myriad::gl::detail
