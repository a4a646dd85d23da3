#pragma once
// An evening sky for the examples' image-based ambient (Scene::environment), made in memory so
// no image file need ship with them: a deep blue zenith fading to a warm horizon, the sun's glow
// around its direction (but not its disc: Scene::light is the sun), and dark ground below.
// --sky PATH loads a real .hdr instead (image::readEnvironmentFile).
#include "myriad/core/Environment.h"

#include <glm/vec3.hpp>

#include <cstdint>
#include <memory>
#include <string>

namespace myriad::examples {

/** Linear radiance of the evening sky towards the unit world direction @p direction, with the
 *  sun's light travelling along @p sunTravel (Scene::light.direction, unit length). Units of
 *  Scene::ambient: the upper hemisphere averages about 0.2. */
glm::vec3 eveningSkyRadiance(glm::vec3 direction, glm::vec3 sunTravel);

/** The evening sky as a @p height x 2 @p height equirectangular Environment (its irradiance
 *  computed on the way). */
std::shared_ptr<const Environment> eveningSky(glm::vec3 sunTravel, std::uint32_t height = 128);

/** @p path read as a .hdr Environment when not empty, else eveningSky(@p sunTravel); prints
 *  which, prefixed by @p example. Throws what image::readEnvironmentFile() throws. */
std::shared_ptr<const Environment> skyFor(const std::string& example, const std::string& path, glm::vec3 sunTravel);

} // namespace myriad::examples
