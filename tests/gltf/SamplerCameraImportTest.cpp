// glTF samplers (3.8.4, 5.26) and cameras (3.10, 5.12) on the CPU: every field read, the
// defaults, and an ImportError naming the sampler or camera for each value the spec rules out.
#include "gltf/TestFiles.h"
#include "myriad/core/Material.h"
#include "myriad/gltf/GltfImporter.h"
#include "myriad/util/Error.h"

#include <catch2/catch.hpp>

#include <glm/gtc/matrix_transform.hpp>

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

namespace Catch {
/** Failures print the four fields, not {?}. */
template <>
struct StringMaker<myriad::TextureSampler> {
    static std::string convert(const myriad::TextureSampler& s) {
        return "{mag " + std::to_string(static_cast<int>(s.magFilter)) + ", min " +
               std::to_string(static_cast<int>(s.minFilter)) + ", wrapS " + std::to_string(static_cast<int>(s.wrapS)) +
               ", wrapT " + std::to_string(static_cast<int>(s.wrapT)) + "}";
    }
};
} // namespace Catch

using Catch::Matchers::Contains;
using myriad::ImportError;
using myriad::MagFilter;
using myriad::Material;
using myriad::MinFilter;
using myriad::TextureSampler;
using myriad::TextureWrap;
using myriad::gltf::CameraProjection;
using myriad::gltf::ImportedCamera;
using myriad::gltf::ImportedScene;
using myriad::gltf::importModel;
using myriad::gltf::importScene;
using namespace myriad::test::gltf;

namespace {

/** A 2x1 RGBA PNG (red, green with alpha 128), as in GltfImportTest.cpp. */
constexpr const char* kTinyPng = "iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAYAAAD0In+KAAAAD0lEQVR4nGP4z8Dw"
                                 "HwgbABB5A359Y87XAAAAAElFTkSuQmCC";

/** triangle() with one primitive, material and texture per entry of @p samplers (a JSON
 *  object each, "" for a texture without a sampler), all on the one image. */
Doc texturedTriangles(const std::vector<std::string>& samplers) {
    Doc doc = triangle();
    std::string primitives;
    std::string materials;
    std::string textures;
    std::string samplerList;
    int samplerCount = 0;
    for (std::size_t i = 0; i < samplers.size(); ++i) {
        const std::string comma = i == 0 ? "" : ", ";
        primitives += comma + R"({"attributes": {"POSITION": 0}, "indices": 1, "material": )" +
                      std::to_string(i) + "}";
        materials += comma + R"({"pbrMetallicRoughness": {"baseColorTexture": {"index": )" +
                     std::to_string(i) + "}}}";
        if (samplers[i].empty()) {
            textures += comma + R"({"source": 0})";
        } else {
            textures += comma + R"({"source": 0, "sampler": )" + std::to_string(samplerCount) + "}";
            samplerList += (samplerCount == 0 ? "" : ", ") + samplers[i];
            ++samplerCount;
        }
    }
    doc.meshes = R"([{"primitives": [)" + primitives + "]}]";
    doc.extra = R"("materials": [)" + materials + R"(], "textures": [)" + textures +
                R"(], "samplers": [)" + samplerList + R"(], "images": [{"uri": "data:image/png;base64,)" +
                kTinyPng + R"("}],)";
    return doc;
}

std::string modelError(const std::string& path) {
    try {
        (void)importModel(path);
    } catch (const ImportError& e) {
        return e.what();
    }
    return "(no ImportError thrown)";
}

std::string sceneError(const std::string& path) {
    try {
        (void)importScene(path);
    } catch (const ImportError& e) {
        return e.what();
    }
    return "(no ImportError thrown)";
}

bool nearMatrix(const glm::mat4& a, const glm::mat4& b, float tolerance = 1e-4f) {
    for (int c = 0; c < 4; ++c) {
        for (int r = 0; r < 4; ++r) {
            const float scale = std::max(1.0f, std::abs(b[c][r]));
            if (std::abs(a[c][r] - b[c][r]) > tolerance * scale) {
                return false;
            }
        }
    }
    return true;
}

} // namespace

TEST_CASE("TextureSampler: the default is what myriad always did, and nearestFilter overrides the filters",
          "[gltf][samplers]") {
    const TextureSampler plain;
    CHECK(plain.magFilter == MagFilter::Linear);
    CHECK(plain.minFilter == MinFilter::LinearMipmapLinear);
    CHECK(plain.wrapS == TextureWrap::Repeat);
    CHECK(plain.wrapT == TextureWrap::Repeat);
    CHECK(plain.usesMipmaps());
    CHECK_FALSE(TextureSampler::nearest().usesMipmaps());
    CHECK_FALSE(TextureSampler{.minFilter = MinFilter::Linear}.usesMipmaps());
    CHECK(TextureSampler{.minFilter = MinFilter::NearestMipmapNearest}.usesMipmaps());

    Material material;
    CHECK(material.sampling() == TextureSampler{});
    material.sampler = {MagFilter::Linear, MinFilter::LinearMipmapNearest, TextureWrap::ClampToEdge,
                        TextureWrap::MirroredRepeat};
    CHECK(material.sampling() == material.sampler);
    material.nearestFilter = true;  // the deprecated convenience: both filters Nearest, wraps kept
    CHECK(material.sampling() ==
          TextureSampler{MagFilter::Nearest, MinFilter::Nearest, TextureWrap::ClampToEdge, TextureWrap::MirroredRepeat});
}

TEST_CASE("samplers: every filter and wrap value is read, absent ones take the defaults", "[gltf][samplers]") {
    const std::vector<std::string> samplers = {
        "",    // 0: no sampler: the defaults
        "{}",  // 1: a sampler with nothing in it: the defaults
        R"({"magFilter": 9728, "minFilter": 9728, "wrapS": 33071, "wrapT": 33648, "name": "pixels"})",
        R"({"minFilter": 9984})",
        R"({"minFilter": 9985, "wrapS": 33648})",
        R"({"minFilter": 9986, "wrapT": 33071})",
        R"({"minFilter": 9987, "magFilter": 9729, "wrapS": 10497, "wrapT": 10497})",
        R"({"minFilter": 9729, "magFilter": 9728})",
        R"({"minFilter": 9728})",
    };
    const auto model = importModel(writeDoc("samplers.gltf", texturedTriangles(samplers)));
    REQUIRE(model.primitives.size() == samplers.size());
    auto sampler = [&](std::size_t i) { return model.primitives.at(i).material.sampler; };
    auto nearest = [&](std::size_t i) { return model.primitives.at(i).material.nearestFilter; };
    CHECK(sampler(0) == TextureSampler{});
    CHECK(sampler(1) == TextureSampler{});
    CHECK(sampler(2) ==
          TextureSampler{MagFilter::Nearest, MinFilter::Nearest, TextureWrap::ClampToEdge, TextureWrap::MirroredRepeat});
    CHECK(sampler(3) == TextureSampler{.minFilter = MinFilter::NearestMipmapNearest});
    CHECK(sampler(4) == TextureSampler{.minFilter = MinFilter::LinearMipmapNearest, .wrapS = TextureWrap::MirroredRepeat});
    CHECK(sampler(5) == TextureSampler{.minFilter = MinFilter::NearestMipmapLinear, .wrapT = TextureWrap::ClampToEdge});
    CHECK(sampler(6) == TextureSampler{});
    CHECK(sampler(7) == TextureSampler{.magFilter = MagFilter::Nearest, .minFilter = MinFilter::Linear});
    CHECK(sampler(8) == TextureSampler{.minFilter = MinFilter::Nearest});  // magFilter absent: Linear
    // nearestFilter only where both filters are NEAREST, so code reading it stays right.
    for (std::size_t i = 0; i < samplers.size(); ++i) {
        INFO("primitive " << i);
        CHECK(nearest(i) == (i == 2));
        CHECK(model.primitives[i].material.sampling() == sampler(i));
    }
}

TEST_CASE("samplers: a value glTF does not list is an ImportError naming the sampler and field",
          "[gltf][samplers]") {
    struct Case {
        const char* sampler;
        const char* expected;
    };
    const Case cases[] = {
        {R"({"magFilter": 9984, "name": "pixels"})", "sampler 1 ('pixels'): magFilter 9984"},
        {R"({"magFilter": 0})", "sampler 1: magFilter 0"},
        {R"({"minFilter": 9988})", "sampler 1: minFilter 9988"},
        {R"({"minFilter": 10497})", "sampler 1: minFilter 10497"},
        {R"({"wrapS": 9728})", "sampler 1: wrapS 9728"},
        {R"({"wrapT": 33072})", "sampler 1: wrapT 33072"},
    };
    for (const Case& c : cases) {
        INFO(c.sampler);
        // Sampler 0 is fine; the broken one is the second material's.
        const std::string path = writeDoc("bad-sampler.gltf", texturedTriangles({"{}", c.sampler}));
        const std::string message = modelError(path);
        CHECK_THAT(message, Contains(path) && Contains(c.expected) && Contains("is not a glTF value"));
    }
}

// ---- Cameras ----

namespace {

/** triangle() at node 0 and cameras on nodes 1.. as given. */
Doc withCameras(const std::string& cameras, const std::string& cameraNodes, const std::string& sceneNodes) {
    Doc doc = triangle();
    doc.nodes = R"([{"mesh": 0, "name": "tri"}, )" + cameraNodes + "]";
    doc.scenes = R"([{"nodes": [)" + sceneNodes + "]}]";
    doc.extra = R"("cameras": )" + cameras + ",";
    return doc;
}

} // namespace

TEST_CASE("cameras: perspective and orthographic, on their nodes, as myriad cameras", "[gltf][cameras]") {
    const std::string cameras = R"([
        {"name": "wide", "type": "perspective",
         "perspective": {"yfov": 1.0, "aspectRatio": 2.0, "znear": 0.5, "zfar": 50.0}},
        {"type": "perspective", "perspective": {"yfov": 1.5707963, "znear": 0.25}},
        {"name": "plan", "type": "orthographic",
         "orthographic": {"xmag": 4.0, "ymag": 3.0, "znear": 0.0, "zfar": 20.0}}])";
    // Node 1: camera 0 at (0, 0, 10), children 2 (camera 2, 5 up the parent's y) and none else.
    // Node 3: camera 1 at (10, 0, 0) turned +90 degrees about y, so it looks down world -x.
    const std::string nodes = R"({"name": "eye", "camera": 0, "translation": [0, 0, 10], "children": [2]},
        {"name": "top", "camera": 2, "translation": [0, 5, 0]},
        {"camera": 1, "translation": [10, 0, 0], "rotation": [0, 0.70710678, 0, 0.70710678]})";
    ImportedScene imported = importScene(writeDoc("cameras.gltf", withCameras(cameras, nodes, "0, 1, 3")));
    REQUIRE(imported.cameras.size() == 3);

    const ImportedCamera& wide = imported.cameras[0];
    CHECK(wide.name == "wide");
    CHECK(wide.gltfCamera == 0);
    CHECK(wide.gltfNode == 1);
    REQUIRE(wide.node != nullptr);
    CHECK(wide.node->name() == "eye");
    CHECK(wide.projection == CameraProjection::Perspective);
    CHECK(wide.yfov == Approx(1.0f));
    REQUIRE(wide.aspectRatio.has_value());
    CHECK(*wide.aspectRatio == Approx(2.0f));
    CHECK(wide.znear == Approx(0.5f));
    REQUIRE(wide.zfar.has_value());
    CHECK(*wide.zfar == Approx(50.0f));

    const ImportedCamera& top = imported.cameras[1];  // node order: node 2 comes under node 1
    CHECK(top.name == "plan");
    CHECK(top.gltfNode == 2);
    REQUIRE(top.node != nullptr);
    CHECK(top.node->name() == "top");
    CHECK(top.node->parent() == wide.node);
    CHECK(top.projection == CameraProjection::Orthographic);
    CHECK(top.xmag == Approx(4.0f));
    CHECK(top.ymag == Approx(3.0f));
    CHECK(top.znear == 0.0f);
    CHECK(top.zfar.value_or(0.0f) == Approx(20.0f));

    const ImportedCamera& side = imported.cameras[2];
    CHECK(side.name == "camera1");
    CHECK(side.gltfNode == 3);
    CHECK_FALSE(side.aspectRatio.has_value());
    CHECK_FALSE(side.zfar.has_value());  // infinite

    // The file's aspect wins over the viewport's; the view is the node's.
    const myriad::Camera a = wide.makeCamera(1.0f);
    CHECK(nearMatrix(a.projection(), glm::perspective(1.0f, 2.0f, 0.5f, 50.0f)));
    CHECK(nearMatrix(a.view(), glm::lookAt(glm::vec3(0, 0, 10), glm::vec3(0, 0, 9), glm::vec3(0, 1, 0))));
    CHECK_FALSE(a.isOrthographic());

    // Orthographic: +-xmag, +-ymag; the eye at the parent's (0, 0, 10) plus (0, 5, 0).
    const myriad::Camera b = top.makeCamera(1.0f);
    CHECK(b.isOrthographic());
    CHECK(nearMatrix(b.projection(), glm::ortho(-4.0f, 4.0f, -3.0f, 3.0f, 0.0f, 20.0f)));
    CHECK(glm::length(b.position() - glm::vec3(0, 5, 10)) < 1e-5f);

    // No aspect in the file: the viewport's. Infinite: znear x 10^6, or the far plane given.
    const myriad::Camera c = side.makeCamera(1.5f);
    CHECK(nearMatrix(c.projection(), glm::perspective(1.5707963f, 1.5f, 0.25f, 0.25e6f)));
    CHECK(nearMatrix(side.makeCamera(1.5f, 500.0f).projection(), glm::perspective(1.5707963f, 1.5f, 0.25f, 500.0f)));
    // Looking down world -x from (10, 0, 0): the origin is straight ahead, (0, 0, -5) half-way
    // to the right edge (yfov 90 degrees, so at depth 10 the view is 10 high, 15 wide: ndc
    // x = 5 / (10 * 1.5)).
    auto ndc = [&](const glm::vec3& p) {
        const glm::vec4 clip = c.viewProjection() * glm::vec4(p, 1.0f);
        return glm::vec3(clip) / clip.w;
    };
    CHECK(glm::length(glm::vec2(ndc({0, 0, 0}))) < 1e-5f);
    CHECK(ndc({0, 0, -5}).x == Approx(5.0f / 15.0f).margin(1e-5));
    CHECK(ndc({0, 0, -5}).y == Approx(0.0f).margin(1e-5));
    CHECK(ndc({0, 3, 0}).y == Approx(0.3f).margin(1e-5));

    // Moving the node moves the camera made next.
    side.node->setPosition({20.0, 0.0, 0.0});
    CHECK(glm::length(side.makeCamera(1.0f).position() - glm::vec3(20, 0, 0)) < 1e-5f);

    CHECK_THROWS_AS(side.makeCamera(0.0f), myriad::InvalidArgument);
    CHECK_THROWS_AS(side.makeCamera(NAN), myriad::InvalidArgument);
    CHECK_THROWS_AS(side.makeCamera(1.0f, 0.1f), myriad::InvalidArgument);  // below znear
    ImportedCamera loose = side;
    loose.node = nullptr;
    CHECK_THROWS_AS(loose.makeCamera(1.0f), myriad::InvalidArgument);
    side.node->setScale(glm::vec3(0.0f));
    CHECK_THROWS_AS(side.makeCamera(1.0f), myriad::InvalidArgument);  // zero axes
}

TEST_CASE("cameras: a camera used by no node of the scene is not listed, and importModel reads none", "[gltf][cameras]") {
    const std::string cameras = R"([{"type": "perspective", "perspective": {"yfov": 1.0, "znear": 0.1}}])";
    const std::string path = writeDoc("unused-camera.gltf", withCameras(cameras, R"({"camera": 0})", "0"));
    CHECK(importScene(path).cameras.empty());
    CHECK(importModel(path).primitives.size() == 1);
}

TEST_CASE("cameras: a negative magnification is warned about and drawn unmirrored", "[gltf][cameras]") {
    const std::string cameras =
        R"([{"type": "orthographic", "orthographic": {"xmag": -2.0, "ymag": 1.0, "znear": 0.1, "zfar": 9.0}}])";
    const LogCapture log;
    const ImportedScene imported =
        importScene(writeDoc("mirrored-camera.gltf", withCameras(cameras, R"({"camera": 0})", "0, 1")));
    REQUIRE(imported.cameras.size() == 1);
    CHECK(imported.cameras[0].xmag == -2.0f);
    const auto warnings = log.warnings();
    REQUIRE(warnings.size() == 1);
    CHECK_THAT(warnings[0], Contains("camera 0") && Contains("mirrored"));
    CHECK(nearMatrix(imported.cameras[0].makeCamera(1.0f).projection(), glm::ortho(-2.0f, 2.0f, -1.0f, 1.0f, 0.1f, 9.0f)));
}

TEST_CASE("cameras: values out of range are an ImportError naming the camera", "[gltf][cameras]") {
    struct Case {
        const char* camera;
        const char* expected;
    };
    const Case cases[] = {
        {R"({"name": "lens", "type": "perspective", "perspective": {"yfov": 0.0, "znear": 0.1}})",
         "camera 0 ('lens'): yfov 0"},
        {R"({"type": "perspective", "perspective": {"yfov": -1.0, "znear": 0.1}})", "yfov -1"},
        {R"({"type": "perspective", "perspective": {"yfov": 3.2, "znear": 0.1}})", "not in (0, pi)"},
        {R"({"type": "perspective", "perspective": {"yfov": 1.0, "znear": 0.0}})", "znear 0"},
        {R"({"type": "perspective", "perspective": {"yfov": 1.0, "znear": -0.5}})", "znear -0.5"},
        {R"({"type": "perspective", "perspective": {"yfov": 1.0, "znear": 1.0, "zfar": 0.5}})",
         "zfar 0.5"},
        {R"({"type": "perspective", "perspective": {"yfov": 1.0, "znear": 1.0, "zfar": 1.0}})",
         "is not above znear"},
        {R"({"type": "perspective", "perspective": {"yfov": 1.0, "znear": 1.0, "aspectRatio": -2}})",
         "aspectRatio -2"},
        {R"({"type": "perspective", "perspective": {"yfov": 1e300, "znear": 1.0}})", "not a finite number"},
        {R"({"type": "orthographic", "orthographic": {"xmag": 0.0, "ymag": 1.0, "znear": 0.1, "zfar": 9}})",
         "neither may be 0"},
        {R"({"type": "orthographic", "orthographic": {"xmag": 1.0, "ymag": 0.0, "znear": 0.1, "zfar": 9}})",
         "neither may be 0"},
        {R"({"type": "orthographic", "orthographic": {"xmag": 1.0, "ymag": 1.0, "znear": -1, "zfar": 9}})",
         "znear -1"},
        {R"({"type": "orthographic", "orthographic": {"xmag": 1.0, "ymag": 1.0, "znear": 2, "zfar": 1}})",
         "zfar 1"},
    };
    for (const Case& c : cases) {
        INFO(c.camera);
        const std::string path =
            writeDoc("bad-camera.gltf", withCameras(std::string("[") + c.camera + "]", R"({"camera": 0})", "0, 1"));
        const std::string message = sceneError(path);
        CHECK_THAT(message, Contains(path) && Contains("camera 0") && Contains(c.expected));
    }
    SECTION("a node naming a camera that is not there") {
        const std::string path = writeDoc(
            "missing-camera.gltf",
            withCameras(R"([{"type": "perspective", "perspective": {"yfov": 1.0, "znear": 0.1}}])",
                        R"({"name": "rig", "camera": 3})", "0, 1"));
        CHECK_THAT(sceneError(path), Contains("node 1 ('rig'): camera 3 is out of range (1 cameras)"));
    }
}
