// KHR_lights_punctual and the metallic-roughness factors on the CPU: every field read, the
// node that places a light, and an ImportError naming the light for each value the extension
// rules out (docs/gltf.md, docs/lighting.md).
#include "gltf/TestFiles.h"
#include "myriad/core/LightNode.h"
#include "myriad/core/Material.h"
#include "myriad/core/MeshNode.h"
#include "myriad/core/Scene.h"
#include "myriad/gltf/GltfImporter.h"
#include "myriad/util/Error.h"

#include <catch2/catch.hpp>

#include <string>

using Catch::Matchers::Contains;
using namespace myriad;
using namespace myriad::test::gltf;

namespace {

/** triangle() on node 0, plus nodes holding the file's @p lights (a JSON array) per @p nodes. */
Doc withLights(const std::string& lights, const std::string& nodes, const std::string& sceneNodes) {
    Doc doc = triangle();
    doc.nodes = nodes;
    doc.scenes = R"([{"nodes": )" + sceneNodes + "}]";
    doc.extra = R"("extensionsUsed": ["KHR_lights_punctual"], "extensions": {"KHR_lights_punctual": {"lights": )" + lights +
                "}},";
    return doc;
}

const SceneNode* findNamed(const SceneNode& node, const std::string& name) {
    return const_cast<SceneNode&>(node).findByName(name);  // findByName has no const overload
}

} // namespace

TEST_CASE("KHR_lights_punctual lights become LightNodes placed by their nodes", "[gltf][lights]") {
    const Doc doc = withLights(
        R"([{"type": "spot", "name": "torch", "color": [1.0, 0.5, 0.25], "intensity": 80.0, "range": 12.0,
             "spot": {"innerConeAngle": 0.2, "outerConeAngle": 0.6}},
            {"type": "directional", "intensity": 3.0},
            {"type": "point"}])",
        R"([{"mesh": 0, "name": "lamp post", "extensions": {"KHR_lights_punctual": {"light": 2}}},
            {"name": "torch holder", "translation": [1, 2, 3], "rotation": [0, 0.7071068, 0, 0.7071068],
             "extensions": {"KHR_lights_punctual": {"light": 0}}},
            {"name": "sun", "extensions": {"KHR_lights_punctual": {"light": 1}}}])",
        "[0, 1, 2]");
    const std::string path = writeDoc("lights.gltf", doc);
    gltf::ImportedScene imported = gltf::importScene(path);
    Scene scene;
    scene.root().add(std::move(imported.root));
    REQUIRE(scene.lights().size() == 3);

    const auto* torch = dynamic_cast<const LightNode*>(findNamed(scene.root(), "torch holder"));
    REQUIRE(torch != nullptr);  // a node with a light and no mesh is the light
    CHECK(torch->type() == LightType::Spot);
    CHECK(torch->color() == glm::vec3(1.0f, 0.5f, 0.25f));
    CHECK(torch->intensity() == 80.0f);
    CHECK(torch->range() == 12.0f);
    CHECK(torch->innerConeAngle() == Approx(0.2f));
    CHECK(torch->outerConeAngle() == Approx(0.6f));
    CHECK(torch->worldPosition().y == Approx(2.0));
    // Turned 90 degrees about +Y: its -Z axis points along -X.
    CHECK(torch->worldDirection().x == Approx(-1.0f).margin(1e-5));

    const auto* sun = dynamic_cast<const LightNode*>(findNamed(scene.root(), "sun"));
    REQUIRE(sun != nullptr);
    CHECK(sun->type() == LightType::Directional);
    CHECK(sun->intensity() == 3.0f);
    CHECK(sun->color() == glm::vec3(1.0f));  // the extension's defaults

    // A node with a mesh keeps its mesh; its light is a child at its origin.
    const auto* post = dynamic_cast<const MeshNode*>(findNamed(scene.root(), "lamp post"));
    REQUIRE(post != nullptr);
    const auto* bulb = dynamic_cast<const LightNode*>(findNamed(*post, "lamp post (light)"));
    REQUIRE(bulb != nullptr);
    CHECK(bulb->type() == LightType::Point);
    CHECK(bulb->range() == 0.0f);  // infinite
    CHECK(bulb->intensity() == 1.0f);
}

TEST_CASE("KHR_lights_punctual values the extension rules out are ImportErrors naming the light", "[gltf][lights]") {
    auto fails = [](const std::string& light, const std::string& message) {
        const Doc doc = withLights("[" + light + "]", R"([{"extensions": {"KHR_lights_punctual": {"light": 0}}}])", "[0]");
        const std::string path = writeDoc("bad-light.gltf", doc);
        CHECK_THROWS_WITH(gltf::importScene(path), Contains("KHR_lights_punctual light 0") && Contains(message));
    };
    fails(R"({"type": "area"})", "type 'area'");
    fails(R"({"type": "point", "intensity": -1.0})", "intensity");
    fails(R"({"type": "point", "range": -3.0})", "range");
    fails(R"({"type": "point", "color": [1.0, 2.0]})", "color has 2");
    fails(R"({"type": "spot", "spot": {"innerConeAngle": 0.8, "outerConeAngle": 0.5}})", "inner");
    const Doc doc = withLights(R"([{"type": "point"}])", R"([{"extensions": {"KHR_lights_punctual": {"light": 4}}}])", "[0]");
    CHECK_THROWS_WITH(gltf::importScene(writeDoc("missing-light.gltf", doc)), Contains("light 4 is not one of the file's 1 lights"));
}

TEST_CASE("glTF materials import as metallic-roughness with their factors and emission", "[gltf][lights]") {
    Doc doc = triangle();
    doc.meshes = R"([{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1, "material": 0}]}])";
    doc.extra = R"("extensionsUsed": ["KHR_materials_emissive_strength"], "materials": [{"name": "lantern",
        "pbrMetallicRoughness": {"metallicFactor": 0.25, "roughnessFactor": 0.5}, "emissiveFactor": [1.0, 0.5, 0.0],
        "extensions": {"KHR_materials_emissive_strength": {"emissiveStrength": 4.0}}}],)";
    const gltf::ImportedScene imported = gltf::importScene(writeDoc("lantern.gltf", doc));
    const auto* node = dynamic_cast<const MeshNode*>(&imported.root->child(0));
    REQUIRE(node != nullptr);
    const Material& material = node->primitiveMaterial(0);
    CHECK(material.shading == Shading::MetallicRoughness);
    CHECK(material.metallic == 0.25f);
    CHECK(material.roughness == 0.5f);
    CHECK(material.emissive == glm::vec3(1.0f, 0.5f, 0.0f));
    CHECK(material.emissiveStrength == 4.0f);
    SECTION("glTF's defaults: fully metallic, fully rough, no emission") {
        Doc plain = triangle();
        plain.meshes = R"([{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1, "material": 0}]}])";
        plain.extra = R"("materials": [{}],)";
        const gltf::ImportedScene defaults = gltf::importScene(writeDoc("plain.gltf", plain));
        const Material& m = static_cast<const MeshNode&>(defaults.root->child(0)).primitiveMaterial(0);
        CHECK(m.metallic == 1.0f);
        CHECK(m.roughness == 1.0f);
        CHECK(m.emissive == glm::vec3(0.0f));
        CHECK(m.emissiveStrength == 1.0f);
    }
}

TEST_CASE("glTF material factors and emission the spec rules out are ImportErrors and a metal texture keeps its factor", "[gltf][lights]") {
    auto withMaterial = [](const std::string& material) {
        Doc doc = triangle();
        doc.meshes = R"([{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1, "material": 0}]}])";
        doc.extra = R"("materials": [)" + material + "],";
        return doc;
    };
    CHECK_THROWS_WITH(gltf::importScene(writeDoc("negative-strength.gltf", withMaterial(
                          R"({"extensions": {"KHR_materials_emissive_strength": {"emissiveStrength": -2.0}}})"))),
                      Contains("emissiveStrength"));
    CHECK_THROWS_WITH(gltf::importScene(writeDoc("metal-2.gltf", withMaterial(R"({"pbrMetallicRoughness": {"metallicFactor": 2.0}})"))),
                      Contains("metallicFactor"));
    // metallicFactor 1 (the default) with a metallicRoughnessTexture: the texture is read
    // (its blue channel times the factor), so the factor stays the file's.
    Doc textured = withMaterial(R"({"pbrMetallicRoughness": {"metallicRoughnessTexture": {"index": 0}}})");
    textured.extra += R"("textures": [{"source": 0}], "images": [{"uri": "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAYAAAD0In+KAAAAD0lEQVR4nGP4z8DwHwgbABB5A359Y87XAAAAAElFTkSuQmCC"}],)";
    const gltf::ImportedScene imported = gltf::importScene(writeDoc("metal-texture.gltf", textured));
    const Material& material = static_cast<const MeshNode&>(imported.root->child(0)).primitiveMaterial(0);
    CHECK(material.shading == Shading::MetallicRoughness);
    CHECK(material.metallic == 1.0f);
    CHECK(material.metallicRoughnessTexture);
}
