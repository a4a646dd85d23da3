#include "renderer/Fog.h"

#include "myriad/util/Error.h"

#include <cmath>
#include <string>

namespace myriad::gl::detail {
namespace {

template <class Message>
void requireFog(bool ok, const Message& what) {
    if (!ok) {
        throw InvalidArgument("gl::Renderer::render: scene.fog." + what());
    }
}

} // namespace

void validateFog(const Fog& fog) {
    if (fog.mode == FogMode::None) {
        return;
    }
    requireFog(static_cast<unsigned>(fog.mode) <= static_cast<unsigned>(FogMode::Height),
               [&] { return "mode " + std::to_string(static_cast<unsigned>(fog.mode)) + " is not a FogMode"; });
    const glm::vec3& c = fog.color;
    requireFog(std::isfinite(c.r) && std::isfinite(c.g) && std::isfinite(c.b) && c.r >= 0.0f && c.g >= 0.0f && c.b >= 0.0f,
               [] { return std::string("color has a NaN, Inf or negative channel"); });
    requireFog(std::isfinite(fog.start) && fog.start >= 0.0f,
               [&] { return "start " + std::to_string(fog.start) + " is not finite and >= 0"; });
    requireFog(std::isfinite(fog.end) && fog.end > fog.start, [&] {
        return "end " + std::to_string(fog.end) + " is not finite and > start (" + std::to_string(fog.start) + ")";
    });
    requireFog(std::isfinite(fog.density) && fog.density >= 0.0f,
               [&] { return "density " + std::to_string(fog.density) + " is not finite and >= 0"; });
    requireFog(std::isfinite(fog.height), [&] { return "height " + std::to_string(fog.height) + " is not finite"; });
    requireFog(std::isfinite(fog.heightFalloff) && fog.heightFalloff >= 0.0f, [&] {
        return "heightFalloff " + std::to_string(fog.heightFalloff) + " is not finite and >= 0";
    });
}

void setFogUniforms(const Program& program, const SurfaceUniforms& uniforms, const Fog& fog) {
    const SurfaceUniforms::Fog& u = uniforms.fog;
    if (u.mode < 0) {
        return;  // not a kFog variant (or the driver dropped the fog: then nothing reads it)
    }
    program.setUniform(u.mode, static_cast<int>(fog.mode));
    program.setUniform(u.color, fog.color);
    program.setUniform(u.params, glm::vec4(fog.start, fog.end, fog.density, 1.0f / (fog.end - fog.start)));
    program.setUniform(u.height, glm::vec2(fog.height, fog.heightFalloff));
}

} // namespace myriad::gl::detail
