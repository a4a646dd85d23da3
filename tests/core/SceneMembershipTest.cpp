// Issue 25: SceneNode::scene(), the attach / detach hooks, and subtreeBounds() cached on
// versions (with subtreeAlwaysDrawn, ownBounds and ownBoundsAreCullable).
#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/MeshNode.h"
#include "myriad/core/Particles.h"
#include "myriad/core/Scene.h"
#include "myriad/util/Error.h"

#include "support/CoreTest.h"

#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

using namespace myriad;
using myriad::test::at;

namespace {

/** Records every hook call as "+name" (attached) or "-name" (detached), with the scene seen. */
struct HookLog {
    std::vector<std::string> events;
    std::vector<const Scene*> scenes;
};

class Registering : public SceneNode {
public:
    Registering(std::string name, HookLog& log) : SceneNode(std::move(name)), m_log(log) {}

protected:
    void onAttachedToScene(Scene& scene) noexcept override {
        m_log.events.push_back("+" + name());
        m_log.scenes.push_back(&scene);
        sceneDuringAttach = this->scene();
    }
    void onDetachedFromScene(Scene& scene) noexcept override {
        m_log.events.push_back("-" + name());
        m_log.scenes.push_back(&scene);
        sceneDuringDetach = this->scene();
    }

public:
    Scene* sceneDuringAttach = nullptr;
    Scene* sceneDuringDetach = nullptr;

private:
    HookLog& m_log;
};

/** A node that draws a box of its own (in its node space) and counts how often its bounds are
 *  asked for, so a test sees what a cached subtreeBounds() recomputes. */
class Boxed : public SceneNode {
public:
    explicit Boxed(std::string name, int* calls) : SceneNode(std::move(name)), m_calls(calls) {}
    [[nodiscard]] Aabb ownBounds() const override {
        ++*m_calls;
        return m_box.transformed(worldMatrix());
    }
    void setBox(const Aabb& box) {
        m_box = box;
        subtreeChanged();
    }

private:
    int* m_calls;
    Aabb m_box{glm::vec3(-0.5f), glm::vec3(0.5f)};
};

std::vector<std::string> joined(std::initializer_list<const char*> items) { return {items.begin(), items.end()}; }

/** subtreeBounds() worked out from scratch: the union of every node's ownBounds(). */
Aabb bruteForceBounds(const SceneNode& node) {
    Aabb bounds;
    node.traverse([&](const SceneNode& n) { bounds.extend(n.ownBounds()); });
    return bounds;
}

bool bruteForceAlwaysDrawn(const SceneNode& node) {
    bool always = false;
    node.traverse([&](const SceneNode& n) { always = always || !n.ownBoundsAreCullable(); });
    return always;
}

} // namespace

TEST_CASE("scene(): the root is in its scene, a detached tree in none", "[scene][hooks]") {
    Scene scene;
    CHECK(scene.root().scene() == &scene);
    SceneNode loose("loose");
    CHECK(loose.scene() == nullptr);
    SceneNode& child = scene.root().emplace<SceneNode>("child");
    SceneNode& grandchild = child.emplace<SceneNode>("grandchild");
    CHECK(child.scene() == &scene);
    CHECK(grandchild.scene() == &scene);
    std::unique_ptr<SceneNode> removed = scene.root().remove(child);
    CHECK(removed->scene() == nullptr);
    CHECK(grandchild.scene() == nullptr);
}

TEST_CASE("attach hooks run once per node, parents first, and detach hooks children first", "[scene][hooks]") {
    HookLog log;
    Scene scene;
    // Built outside any scene: no hook yet.
    auto a = std::make_unique<Registering>("a", log);
    auto& b = a->emplace<Registering>("b", log);
    b.emplace<Registering>("c", log);
    a->emplace<Registering>("d", log);
    CHECK(log.events.empty());

    Registering& aRef = scene.root().add(std::move(a));
    CHECK(log.events == joined({"+a", "+b", "+c", "+d"}));
    for (const Scene* seen : log.scenes) {
        CHECK(seen == &scene);
    }
    CHECK(aRef.sceneDuringAttach == &scene);  // scene() is set before the hook runs

    log.events.clear();
    std::unique_ptr<SceneNode> removed = scene.root().remove(aRef);
    CHECK(log.events == joined({"-c", "-b", "-d", "-a"}));
    CHECK(aRef.sceneDuringDetach == &scene);  // still the scene during the hook
    CHECK(aRef.scene() == nullptr);           // and none after it

    log.events.clear();
    scene.root().add(std::move(removed));
    CHECK(log.events == joined({"+a", "+b", "+c", "+d"}));  // once per attach, every time
}

TEST_CASE("moving a node within its scene calls no hook, and between scenes it leaves, then enters", "[scene][hooks]") {
    HookLog log;
    Scene first;
    Scene second;
    SceneNode& left = first.root().emplace<SceneNode>("left");
    SceneNode& right = first.root().emplace<SceneNode>("right");
    Registering& mover = left.emplace<Registering>("mover", log);
    mover.emplace<Registering>("child", log);
    log.events.clear();

    right.attach(mover);  // same scene
    CHECK(log.events.empty());
    CHECK(mover.parent() == &right);

    SceneNode& elsewhere = second.root().emplace<SceneNode>("elsewhere");
    log.scenes.clear();
    elsewhere.attach(mover);
    CHECK(log.events == joined({"-child", "-mover", "+mover", "+child"}));
    REQUIRE(log.scenes.size() == 4);
    CHECK(log.scenes[0] == &first);
    CHECK(log.scenes[1] == &first);
    CHECK(log.scenes[2] == &second);
    CHECK(log.scenes[3] == &second);
    CHECK(mover.scene() == &second);
}

TEST_CASE("a refused add or attach calls no hook and changes nothing", "[scene][hooks]") {
    HookLog log;
    Scene scene;
    Registering& a = scene.root().emplace<Registering>("a", log);
    Registering& b = a.emplace<Registering>("b", log);
    log.events.clear();
    CHECK_THROWS_AS(b.attach(a), InvalidArgument);  // a cycle
    CHECK_THROWS_AS(b.add(std::unique_ptr<SceneNode>()), InvalidArgument);
    CHECK(log.events.empty());
    CHECK(a.parent() == &scene.root());
    CHECK(b.scene() == &scene);
}

TEST_CASE("destroying a scene detaches every node once, children first", "[scene][hooks]") {
    HookLog log;
    {
        Scene scene;
        Registering& a = scene.root().emplace<Registering>("a", log);
        a.emplace<Registering>("b", log);
        scene.root().emplace<Registering>("c", log);
        log.events.clear();
    }
    CHECK(log.events == joined({"-b", "-a", "-c"}));
}

TEST_CASE("subtreeBounds is cached: nothing recomputed while nothing moved", "[scene][bounds]") {
    int calls = 0;
    SceneNode root("root");
    // A chain 50 deep with a box at every level, and a wide row of 50 boxes under the root.
    SceneNode* tip = &root;
    for (int i = 0; i < 50; ++i) {
        tip = &tip->emplace<Boxed>("chain" + std::to_string(i), &calls);
        tip->setPosition(glm::dvec3(1.0, 0.0, 0.0));
    }
    std::vector<Boxed*> row;
    for (int i = 0; i < 50; ++i) {
        row.push_back(&root.emplace<Boxed>("row" + std::to_string(i), &calls));
        row.back()->setPosition(glm::dvec3(0.0, 0.0, -2.0 * i));
    }
    const Aabb first = root.subtreeBounds();
    CHECK(calls == 100);  // every node once
    CHECK(first.max.x == Approx(50.5f));
    CHECK(first.min.z == Approx(-98.5f));

    calls = 0;
    for (int frame = 0; frame < 1000; ++frame) {
        (void)root.subtreeBounds();
    }
    CHECK(calls == 0);  // a thousand calls with nothing moved ask no node for its bounds

    // One node of the row moves: only it and the root are asked again.
    calls = 0;
    row[7]->setPosition(glm::dvec3(0.0, 10.0, 0.0));
    CHECK(root.subtreeBounds().max.y == Approx(10.5f));
    CHECK(calls == 1);  // row[7] (the root is a group: its own bounds cost no call here)

    // The deepest box changes size: the chain above it is stale, the row is not.
    calls = 0;
    static_cast<Boxed*>(tip)->setBox(Aabb{glm::vec3(-3.0f), glm::vec3(3.0f)});
    CHECK(root.subtreeBounds().max.x == Approx(53.0f));
    CHECK(calls == 50);

    // The root moves: every world box below it moves, so everything is recomputed.
    calls = 0;
    root.setPosition(glm::dvec3(100.0, 0.0, 0.0));
    CHECK(root.subtreeBounds().max.x == Approx(153.0f));
    CHECK(calls == 100);

    // A subtree's own cache sees a move above it through its world version.
    SceneNode& middle = *root.findByName("chain10");
    calls = 0;
    const float before = middle.subtreeBounds().min.x;
    root.setPosition(glm::dvec3(0.0, 0.0, 0.0));
    CHECK(middle.subtreeBounds().min.x == Approx(before - 100.0f));
}

TEST_CASE("subtreeBounds matches the union of ownBounds after any sequence of changes", "[scene][bounds]") {
    // Random edits against a from-scratch union after each: transforms at every depth, meshes,
    // instances added, moved and removed, bounds overrides, children added and removed,
    // frustum-culling flags. The fault this catches: a change that does not mark its ancestors.
    std::mt19937 random(25);
    std::uniform_real_distribution<float> coordinate(-20.0f, 20.0f);
    Scene scene;
    SceneNode& root = scene.root();
    std::vector<SceneNode*> nodes{&root};
    std::vector<InstancedMeshNode*> batches;
    const auto mesh = test::quadMesh(1.0f);
    const auto bigger = test::quadMesh(3.0f);
    for (int step = 0; step < 600; ++step) {
        const int action = static_cast<int>(random() % 9);
        SceneNode& target = *nodes[random() % nodes.size()];
        switch (action) {
        case 0:
            nodes.push_back(&target.emplace<SceneNode>("group"));
            break;
        case 1:
            nodes.push_back(&target.emplace<MeshNode>(mesh, Material{}, "mesh"));
            break;
        case 2: {
            auto& batch = target.emplace<InstancedMeshNode>(mesh, Material{}, 16);
            batch.addInstance(at(coordinate(random), coordinate(random), coordinate(random)));
            nodes.push_back(&batch);
            batches.push_back(&batch);
            break;
        }
        case 3:
            if (&target != &root) {
                target.setPosition(glm::dvec3(coordinate(random), coordinate(random), coordinate(random)));
            }
            break;
        case 4:
            if (!batches.empty()) {
                InstancedMeshNode& batch = *batches[random() % batches.size()];
                if (batch.count() < batch.capacity()) {
                    batch.addInstance(at(coordinate(random), coordinate(random), coordinate(random)));
                } else {
                    batch.setTransform(random() % batch.count(), at(coordinate(random), 0.0f, coordinate(random)));
                }
            }
            break;
        case 5:
            if (!batches.empty()) {
                InstancedMeshNode& batch = *batches[random() % batches.size()];
                if (batch.count() > 0) {
                    batch.setCount(batch.count() - 1);
                }
            }
            break;
        case 6:
            if (!batches.empty()) {
                InstancedMeshNode& batch = *batches[random() % batches.size()];
                if (batch.hasBoundsOverride()) {
                    batch.clearBoundsOverride();
                } else {
                    batch.setBoundsOverride(Aabb{glm::vec3(-30.0f), glm::vec3(coordinate(random) + 31.0f)});
                }
            }
            break;
        case 7:
            if (auto* meshNode = asMeshNode(target); meshNode != nullptr) {
                const_cast<MeshNode*>(meshNode)->setMesh(random() % 2 == 0 ? bigger : mesh);
            }
            target.setFrustumCulled(random() % 3 != 0);
            break;
        case 8:
            if (&target != &root && target.childCount() == 0) {
                // Removing a leaf keeps the bookkeeping simple: no descendant pointers dangle.
                std::erase(nodes, &target);
                std::erase_if(batches, [&](const InstancedMeshNode* batch) { return static_cast<const SceneNode*>(batch) == &target; });
                (void)target.removeFromParent();
            }
            break;
        }
        // A subtree in the middle is asked now and then too, so caches below the root are warm
        // when a change arrives (what a culler walking the tree would do).
        SceneNode& probe = *nodes[random() % nodes.size()];
        if (step % 3 == 0) {
            const Aabb expected = bruteForceBounds(probe);
            const Aabb& cached = probe.subtreeBounds();
            REQUIRE(cached.empty() == expected.empty());
            if (!expected.empty()) {
                REQUIRE(cached.min == expected.min);
                REQUIRE(cached.max == expected.max);
            }
            REQUIRE(probe.subtreeAlwaysDrawn() == bruteForceAlwaysDrawn(probe));
        }
        const Aabb expected = bruteForceBounds(root);
        const Aabb& cached = root.subtreeBounds();
        INFO("step " << step << ", action " << action);
        REQUIRE(cached.empty() == expected.empty());
        if (!expected.empty()) {
            REQUIRE(cached.min == expected.min);
            REQUIRE(cached.max == expected.max);
        }
        REQUIRE(root.subtreeAlwaysDrawn() == bruteForceAlwaysDrawn(root));
    }
}

TEST_CASE("ownBounds, ownBoundsAreCullable and subtreeAlwaysDrawn per node kind", "[scene][bounds]") {
    SceneNode root("root");
    CHECK(root.subtreeBounds().empty());  // a group draws nothing
    CHECK(root.ownBoundsAreCullable());
    CHECK_FALSE(root.subtreeAlwaysDrawn());

    auto& mesh = root.emplace<MeshNode>(test::quadMesh(2.0f), Material{}, "mesh");
    mesh.setPosition(glm::dvec3(5.0, 0.0, 0.0));
    CHECK(mesh.ownBounds().min == mesh.worldBounds().min);
    CHECK(mesh.ownBounds().max == mesh.worldBounds().max);
    CHECK(root.subtreeBounds().max.x == Approx(6.0f));
    CHECK_FALSE(root.subtreeAlwaysDrawn());
    mesh.setFrustumCulled(false);
    CHECK_FALSE(mesh.ownBoundsAreCullable());
    CHECK(root.subtreeAlwaysDrawn());
    mesh.setFrustumCulled(true);
    CHECK_FALSE(root.subtreeAlwaysDrawn());

    // Particles are drawn without a frustum test: their subtree is always drawn, and their
    // extent (not tracked) adds nothing to the box.
    auto& group = root.emplace<SceneNode>("effects");
    group.emplace<ParticlePool>(16, ParticleMaterial{}, "sparks");
    CHECK(group.subtreeBounds().empty());
    CHECK(group.subtreeAlwaysDrawn());
    CHECK(root.subtreeAlwaysDrawn());

    // A batch covers its instances; with none, it adds nothing.
    auto& batch = root.emplace<InstancedMeshNode>(test::quadMesh(1.0f), Material{}, 4);
    CHECK(batch.ownBounds().empty());
    batch.addInstance(at(0.0f, -7.0f));
    CHECK(root.subtreeBounds().min.y == Approx(-7.5f));
}
