#pragma once
// Internal to myriad_gl: the scene's fog (Scene::fog, docs/lighting.md "Fog") for the surface,
// scatter and particle programs: its check, its feature switch (kFog) and its uniforms.
#include "renderer/ShaderLibrary.h"
#include "myriad/core/Scene.h"

namespace myriad::gl::detail {

/** Checks @p fog before any GL call: nothing when its mode is None.
 *  @throws InvalidArgument naming the field ("gl::Renderer::render: scene.fog.end ...") when a
 *  value is NaN, infinite or out of its range (Fog's field comments). */
void validateFog(const Fog& fog);

/** kFog when @p fog has a mode, else 0 (a pass's fog is None in depth-only and shadow views). */
[[nodiscard]] inline std::uint32_t fogFeatures(const Fog& fog) noexcept {
    return fog.mode != FogMode::None ? kFog : 0u;
}

/** Gives @p program (a kFog variant; nothing otherwise) the uniforms of @p fog: the mode, colour,
 *  (start, end, density, 1 / (end - start)) and (height, heightFalloff). */
void setFogUniforms(const Program& program, const SurfaceUniforms& uniforms, const Fog& fog);

} // namespace myriad::gl::detail
