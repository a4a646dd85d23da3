#include "common/Lanterns.h"

#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Shapes.h"

#include <glm/gtc/matrix_transform.hpp>

#include <algorithm>

namespace myriad::examples {

LanternPosts addLanternPosts(Scene& scene, std::span<const glm::vec3> feet, const LanternStyle& style) {
    Material pole;
    pole.name = "lantern pole";
    pole.shading = Shading::MetallicRoughness;
    pole.baseColor = glm::vec4(0.05f, 0.05f, 0.06f, 1.0f);
    pole.metallic = 1.0f;
    pole.roughness = 0.4f;
    Material globe;
    globe.name = "lantern globe";
    globe.shading = Shading::MetallicRoughness;
    globe.baseColor = glm::vec4(1.0f, 0.8f, 0.5f, 1.0f);
    globe.emissive = style.color;
    globe.emissiveStrength = 2.0f;
    const std::size_t capacity = std::max<std::size_t>(feet.size(), 1);
    auto& poles = scene.root().emplace<InstancedMeshNode>(MeshGeometry::create(shapes::box(1.0f), "pole"), pole,
                                                          capacity, "lantern poles");
    auto& globes = scene.root().emplace<InstancedMeshNode>(
        MeshGeometry::create(shapes::uvSphere(0.18f, 16, 8), "globe"), globe, capacity, "lantern globes");
    LanternPosts posts;
    for (std::size_t i = 0; i < feet.size(); ++i) {
        const glm::vec3 foot = feet[i];
        poles.addInstance(glm::translate(glm::mat4(1.0f), foot + glm::vec3(0.0f, style.height * 0.48f, 0.0f)) *
                          glm::scale(glm::mat4(1.0f), glm::vec3(0.08f, style.height * 0.96f, 0.08f)));
        globes.addInstance(glm::translate(glm::mat4(1.0f), foot + glm::vec3(0.0f, style.height + 0.05f, 0.0f)));
        const bool spot = style.spots && i % 2 == 0;
        auto& lamp = scene.root().emplace<LightNode>(spot ? LightType::Spot : LightType::Point, "lantern");
        lamp.setPosition(glm::dvec3(foot) + glm::dvec3(0.0, style.height, 0.0));
        lamp.lookAt(glm::dvec3(foot), glm::vec3(0.0f, 0.0f, 1.0f));  // straight down
        lamp.setColor(style.color);
        lamp.setIntensity(spot ? style.spotIntensity : style.pointIntensity);
        lamp.setRange(spot ? style.spotRange : style.pointRange);
        lamp.setConeAngles(0.5f, 0.85f);
        lamp.setChannels(style.channels);
        posts.lamps.push_back(&lamp);
    }
    return posts;
}

} // namespace myriad::examples
