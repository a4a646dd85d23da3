#include "myriad/core/SceneNode.h"
#include "myriad/util/Error.h"

#include <catch2/catch.hpp>
#include <glm/gtc/matrix_transform.hpp>

#include <vector>

using namespace myriad;

namespace {

void checkNear(const glm::mat4& a, const glm::mat4& b) {
    for (int c = 0; c < 4; ++c) {
        for (int r = 0; r < 4; ++r) {
            CHECK(a[c][r] == Approx(b[c][r]).margin(1e-5));
        }
    }
}

} // namespace

TEST_CASE("children: add, find, traverse, remove", "[scene]") {
    SceneNode root("root");
    auto& a = root.emplace<SceneNode>("a");
    auto& b = a.emplace<SceneNode>("b");
    root.emplace<SceneNode>("c");
    CHECK(root.childCount() == 2);
    CHECK(&root.child(0) == &a);
    CHECK(b.parent() == &a);
    CHECK(root.findByName("b") == &b);
    CHECK(root.findByName("nope") == nullptr);
    CHECK_THROWS_AS(root.child(5), OutOfRange);

    std::vector<std::string> order;
    root.traverse([&](SceneNode& node) { order.push_back(node.name()); });
    CHECK(order == std::vector<std::string>{"root", "a", "b", "c"});

    std::unique_ptr<SceneNode> removed = b.removeFromParent();
    CHECK(removed.get() == &b);
    CHECK(b.parent() == nullptr);
    CHECK(a.childCount() == 0);
    CHECK_THROWS_AS(b.removeFromParent(), InvalidArgument);
    SceneNode stranger("stranger");
    CHECK_THROWS_AS(root.remove(stranger), InvalidArgument);
}

TEST_CASE("adding a node that has a parent, or an ancestor, is refused", "[scene]") {
    SceneNode root("root");
    auto& a = root.emplace<SceneNode>("a");
    auto owned = std::make_unique<SceneNode>("x");
    SceneNode& x = a.add(std::move(owned));
    std::unique_ptr<SceneNode> detached = x.removeFromParent();
    root.add(std::move(detached));
    CHECK(x.parent() == &root);
    CHECK_THROWS_AS(a.add(std::unique_ptr<SceneNode>()), InvalidArgument);
    CHECK_THROWS_AS(a.attach(root), InvalidArgument);  // would make a cycle
}

TEST_CASE("world matrix = parent world * local, cached with a version", "[scene]") {
    SceneNode root("root");
    auto& parent = root.emplace<SceneNode>("parent");
    auto& child = parent.emplace<SceneNode>("child");
    parent.setPosition(glm::vec3(10, 0, 0));
    parent.setRotation(glm::angleAxis(glm::radians(90.0f), glm::vec3(0, 1, 0)));
    child.setPosition(glm::vec3(1, 0, 0));
    const glm::vec3 world(child.worldMatrix()[3]);
    CHECK(world.x == Approx(10.0f).margin(1e-5));
    CHECK(world.z == Approx(-1.0f).margin(1e-5));  // +X turned 90 degrees about Y points to -Z

    const auto version = child.worldVersion();
    CHECK(child.worldVersion() == version);  // nothing changed: no recompute
    parent.setPosition(glm::vec3(20, 0, 0));  // an ancestor moved
    CHECK(child.worldVersion() != version);
    CHECK(child.worldMatrix()[3].x == Approx(20.0f).margin(1e-5));

    child.setScale(glm::vec3(2, 3, 4));
    checkNear(child.localMatrix(), glm::translate(glm::mat4(1.0f), glm::vec3(1, 0, 0)) *
                                       glm::scale(glm::mat4(1.0f), glm::vec3(2, 3, 4)));
    child.setVisible(false);
    CHECK_FALSE(child.visible());
}

TEST_CASE("setLocalMatrix decomposes, bad values are refused and change nothing", "[scene]") {
    SceneNode node("n");
    const glm::mat4 m = glm::translate(glm::mat4(1.0f), glm::vec3(1, 2, 3)) *
                        glm::rotate(glm::mat4(1.0f), 0.5f, glm::vec3(1, 0, 0)) *
                        glm::scale(glm::mat4(1.0f), glm::vec3(2, 2, 2));
    node.setLocalMatrix(m);
    checkNear(node.localMatrix(), m);
    const glm::mat4 before = node.localMatrix();
    glm::mat4 nan = m;
    nan[1][1] = std::numeric_limits<float>::quiet_NaN();
    CHECK_THROWS_AS(node.setLocalMatrix(nan), InvalidArgument);
    CHECK_THROWS_AS(node.setPosition(glm::vec3(std::numeric_limits<float>::infinity())), InvalidArgument);
    CHECK_THROWS_AS(node.setRotation(glm::quat(0, 0, 0, 0)), InvalidArgument);
    CHECK(node.localMatrix() == before);
}

TEST_CASE("attach keeps the world transform", "[scene]") {
    SceneNode root("root");
    auto& a = root.emplace<SceneNode>("a");
    auto& b = root.emplace<SceneNode>("b");
    a.setPosition(glm::vec3(5, 0, 0));
    b.setPosition(glm::vec3(0, 3, 0));
    b.setRotation(glm::angleAxis(0.3f, glm::vec3(0, 0, 1)));
    auto& leaf = a.emplace<SceneNode>("leaf");
    leaf.setPosition(glm::vec3(1, 1, 1));
    const glm::mat4 worldBefore = leaf.worldMatrix();
    b.attach(leaf);
    CHECK(leaf.parent() == &b);
    checkNear(leaf.worldMatrix(), worldBefore);

    auto loose = std::make_unique<SceneNode>("loose");
    loose->setPosition(glm::vec3(7, 7, 7));
    SceneNode& attached = a.attach(std::move(loose));
    CHECK(glm::vec3(attached.worldMatrix()[3]).x == Approx(7.0f).margin(1e-5));
}

TEST_CASE("yaw, pitch, roll order and lookAt / setLocalForward point -Z", "[scene]") {
    SceneNode node("n");
    node.setRotationYawPitchRoll(glm::radians(90.0f), 0.0f, 0.0f);
    // Yaw 90 degrees about +Y turns -Z (forward) to -X.
    const glm::vec3 forward = node.rotation() * glm::vec3(0, 0, -1);
    CHECK(forward.x == Approx(-1.0f).margin(1e-5));
    // Yaw then pitch: pitch turns about the already-yawed X axis.
    node.setRotationYawPitchRoll(glm::radians(90.0f), glm::radians(90.0f), 0.0f);
    const glm::vec3 up = node.rotation() * glm::vec3(0, 0, -1);
    CHECK(up.y == Approx(1.0f).margin(1e-5));

    SceneNode root("root");
    auto& parent = root.emplace<SceneNode>("parent");
    parent.setRotation(glm::angleAxis(glm::radians(30.0f), glm::vec3(0, 1, 0)));
    parent.setPosition(glm::dvec3(1, 0, 0));
    auto& looker = parent.emplace<SceneNode>("looker");
    looker.lookAt(glm::dvec3(1, 0, -10));  // straight down world -Z from (1, 0, 0)
    const glm::vec3 worldForward = glm::mat3(looker.worldMatrix()) * glm::vec3(0, 0, -1);
    CHECK(worldForward.z == Approx(-1.0f).margin(1e-4));
    CHECK_THROWS_AS(looker.lookAt(glm::dvec3(1, 0, 0)), InvalidArgument);  // target at the node

    looker.setLocalForward(glm::vec3(1, 0, 0));
    const glm::vec3 localForward = looker.rotation() * glm::vec3(0, 0, -1);
    CHECK(localForward.x == Approx(1.0f).margin(1e-5));
}

TEST_CASE("read*, translate, uniform scale, inverse and normal matrices, mirroring", "[scene]") {
    SceneNode root("root");
    auto& node = root.emplace<SceneNode>("n");
    node.setPosition(glm::dvec3(1, 2, 3));
    node.translate(glm::vec3(1, 0, 0));
    glm::vec3 position;
    node.readPosition(position);
    CHECK(position == glm::vec3(2, 2, 3));
    node.setUniformScale(2.0f);
    glm::vec3 scale;
    node.readScale(scale);
    CHECK(scale == glm::vec3(2.0f));
    glm::dvec3 world;
    root.setPosition(glm::dvec3(100, 0, 0));
    node.readWorldPosition(world);
    CHECK(world.x == Approx(102.0));
    checkNear(node.inverseWorldMatrix() * node.worldMatrix(), glm::mat4(1.0f));
    node.setScale(glm::vec3(3, 1, 1));
    const glm::mat3 normal = node.worldNormalMatrix();
    CHECK(normal[0][0] == Approx(1.0f / 3.0f));
    CHECK_FALSE(node.worldIsMirrored());
    node.setScale(glm::vec3(-1, 1, 1));
    CHECK(node.worldIsMirrored());
    root.setScale(glm::vec3(1, -1, 1));  // two mirrors make an ordinary transform
    CHECK_FALSE(node.worldIsMirrored());
}

TEST_CASE("far from the origin the world translation keeps double precision", "[scene]") {
    SceneNode root("root");
    root.setPosition(glm::dvec3(1.0e7, 0.0, 0.0));  // 10,000 km
    auto& child = root.emplace<SceneNode>("child");
    child.setPosition(glm::dvec3(0.001, 0.0, 0.0));  // a millimetre
    CHECK(child.worldTranslation().x - 1.0e7 == Approx(0.001).margin(1e-9));
}

TEST_CASE("flags: visibleInHierarchy, layer mask, tint, shadows, culling", "[scene]") {
    SceneNode root("root");
    auto& group = root.emplace<SceneNode>("group");
    auto& leaf = group.emplace<SceneNode>("leaf");
    CHECK(leaf.visibleInHierarchy());
    group.setVisible(false);
    CHECK(leaf.visible());
    CHECK_FALSE(leaf.visibleInHierarchy());
    CHECK(leaf.layerMask() == 1u);
    leaf.setLayerMask(0b100);
    CHECK(leaf.layerMask() == 4u);
    CHECK_FALSE(leaf.isTinted());
    leaf.setTint(glm::vec4(1, 0.5f, 1, 1));
    CHECK(leaf.isTinted());
    CHECK_THROWS_AS(leaf.setTint(glm::vec4(-1.0f)), InvalidArgument);
    CHECK(leaf.tint() == glm::vec4(1, 0.5f, 1, 1));
    CHECK(leaf.castsShadow());
    leaf.setCastsShadow(false);
    CHECK_FALSE(leaf.castsShadow());
    CHECK(leaf.frustumCulled());
    CHECK(leaf.childrenView().empty());
    CHECK(root.childrenView().size() == 1);
}
