#pragma once
// Lantern posts for the examples: a dark metal pole, a glowing globe (emission) and a lamp
// (LightNode) on top, every other one a spot pointing down. Shared by 02-field, 03-crowd and
// 09-night so the lamps look alike wherever they stand.
#include "myriad/core/LightNode.h"
#include "myriad/core/Scene.h"

#include <glm/vec3.hpp>

#include <cstdint>
#include <span>
#include <vector>

namespace myriad::examples {

/** How the posts look and shine. Lamps in KHR_lights_punctual units (candela, metres). */
struct LanternStyle {
    float height = 2.5f;                   ///< metres from the foot to the lamp
    glm::vec3 color{1.0f, 0.72f, 0.42f};   ///< the lamps' linear colour (warm, about 2700 K)
    float spotIntensity = 60.0f;           ///< candela of the spot lamps
    float pointIntensity = 25.0f;          ///< candela of the bare bulbs
    float spotRange = 9.0f;                ///< metres
    float pointRange = 7.0f;               ///< metres
    bool spots = true;                     ///< false: every lamp a bare bulb (point)
    std::uint32_t channels = 0xFFFFFFFFu;  ///< the light channels the lamps reach
};

/** The lamps of addLanternPosts(), one per foot, in the order of the feet. */
struct LanternPosts {
    std::vector<LightNode*> lamps;  ///< owned by the scene
};

/** Adds a post at each of @p feet (world space, on the ground): two instanced batches (poles
 *  and globes, one draw each) and one LightNode per post under the scene's root. */
LanternPosts addLanternPosts(Scene& scene, std::span<const glm::vec3> feet, const LanternStyle& style = {});

} // namespace myriad::examples
