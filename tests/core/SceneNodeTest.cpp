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

TEST_CASE("setLocalMatrix decomposes; bad values are refused and change nothing", "[scene]") {
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
