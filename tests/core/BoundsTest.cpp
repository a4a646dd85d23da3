#include "myriad/core/Bounds.h"

#include <catch2/catch.hpp>
#include <glm/gtc/matrix_transform.hpp>

using namespace myriad;

TEST_CASE("Aabb starts empty and grows", "[bounds]") {
    Aabb box;
    CHECK(box.empty());
    box.extend(glm::vec3(1, 2, 3));
    CHECK_FALSE(box.empty());
    CHECK(box.min == glm::vec3(1, 2, 3));
    box.extend(Aabb{});  // empty changes nothing
    CHECK(box.max == glm::vec3(1, 2, 3));
    box.extend(Aabb{glm::vec3(-1), glm::vec3(0)});
    CHECK(box.min == glm::vec3(-1));
    CHECK(box.contains(Aabb{glm::vec3(0), glm::vec3(1)}));
    CHECK_FALSE(box.contains(Aabb{glm::vec3(0), glm::vec3(4)}));
}

TEST_CASE("Aabb::transformed contains every transformed corner", "[bounds]") {
    const Aabb box{glm::vec3(-1, -2, -3), glm::vec3(1, 2, 3)};
    const glm::mat4 m = glm::translate(glm::mat4(1.0f), glm::vec3(10, 0, 0)) *
                        glm::rotate(glm::mat4(1.0f), 0.6f, glm::vec3(0.3f, 1, 0.2f)) *
                        glm::scale(glm::mat4(1.0f), glm::vec3(2, -1, 0.5f));
    const Aabb t = box.transformed(m);
    Aabb corners;
    for (int i = 0; i < 8; ++i) {
        const glm::vec3 corner((i & 1) ? box.max.x : box.min.x, (i & 2) ? box.max.y : box.min.y,
                               (i & 4) ? box.max.z : box.min.z);
        corners.extend(glm::vec3(m * glm::vec4(corner, 1.0f)));
    }
    for (int axis = 0; axis < 3; ++axis) {
        CHECK(t.min[axis] == Approx(corners.min[axis]).margin(1e-4));
        CHECK(t.max[axis] == Approx(corners.max[axis]).margin(1e-4));
    }
    CHECK(Aabb{}.transformed(m).empty());
}
