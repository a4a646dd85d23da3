#include "myriad/core/Camera.h"
#include "myriad/util/Error.h"

#include <catch2/catch.hpp>

using namespace myriad;

TEST_CASE("Camera projects the target to the centre and refuses bad parameters", "[camera]") {
    Camera camera;
    camera.setPerspective(1.0f, 2.0f, 0.1f, 100.0f);
    camera.lookAt(glm::vec3(3, 4, 5), glm::vec3(1, 1, 1));
    const glm::vec4 clip = camera.viewProjection() * glm::vec4(1, 1, 1, 1);
    CHECK(clip.x / clip.w == Approx(0.0f).margin(1e-5));
    CHECK(clip.y / clip.w == Approx(0.0f).margin(1e-5));
    CHECK(camera.position() == glm::vec3(3, 4, 5));

    const glm::mat4 before = camera.projection();
    CHECK_THROWS_AS(camera.setPerspective(0.0f, 1.0f, 0.1f, 10.0f), InvalidArgument);
    CHECK_THROWS_AS(camera.setPerspective(1.0f, 1.0f, 1.0f, 0.5f), InvalidArgument);
    CHECK_THROWS_AS(camera.lookAt(glm::vec3(1), glm::vec3(1)), InvalidArgument);
    CHECK_THROWS_AS(camera.lookAt(glm::vec3(0, 5, 0), glm::vec3(0)), InvalidArgument);
    CHECK(camera.projection() == before);

    camera.setOrthographic(-1, 1, -1, 1, 0.1f, 10.0f);
    CHECK(camera.isOrthographic());
    CHECK_THROWS_AS(camera.setOrthographic(1, -1, -1, 1, 0.1f, 10.0f), InvalidArgument);
}
