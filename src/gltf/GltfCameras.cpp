#include "gltf/GltfCameras.h"

#include "myriad/util/Error.h"
#include "myriad/util/Log.h"

#include <glm/geometric.hpp>
#include <glm/mat3x3.hpp>

#include <cmath>
#include <numbers>
#include <sstream>

namespace myriad::gltf {
namespace detail {
namespace {

/** @p value as a person would write it: 0, -1, 0.5, 1e+300. */
std::string number(double value) {
    std::ostringstream out;
    out.precision(9);
    out << value;
    return out.str();
}

} // namespace

ImportedCamera importedCamera(const tinygltf::Camera& source, int index, const std::string& path) {
    ImportedCamera camera;
    camera.gltfCamera = index;
    camera.name = source.name.empty() ? "camera" + std::to_string(index) : source.name;
    const std::string what = path + ": camera " + std::to_string(index) +
                             (source.name.empty() ? "" : " ('" + source.name + "')");
    auto refuse = [&](const std::string& problem) { throw ImportError(what + ": " + problem); };
    // Read in double, as in the file; each value must also be a finite float.
    auto value = [&](const char* field, double given) {
        const auto single = static_cast<float>(given);
        if (!std::isfinite(given) || !std::isfinite(single)) {
            refuse(std::string(field) + " " + number(given) + " is not a finite number");
        }
        return single;
    };
    if (source.type == "perspective") {
        const tinygltf::PerspectiveCamera& p = source.perspective;
        camera.projection = CameraProjection::Perspective;
        camera.yfov = value("yfov", p.yfov);
        camera.znear = value("znear", p.znear);
        if (!(camera.yfov > 0.0f) || !(camera.yfov < 3.14159f)) {
            refuse("yfov " + number(p.yfov) + " is not in (0, pi) radians (myriad: below 3.14159)");
        }
        if (!(camera.znear > 0.0f)) {
            refuse("znear " + number(p.znear) + " is not above 0");
        }
        if (p.aspectRatio != 0.0) {  // tinygltf: 0 when absent
            camera.aspectRatio = value("aspectRatio", p.aspectRatio);
            if (!(*camera.aspectRatio > 0.0f)) {
                refuse("aspectRatio " + number(p.aspectRatio) + " is not above 0");
            }
        }
        if (p.zfar != 0.0) {  // tinygltf: 0 when absent, which is an infinite far plane
            camera.zfar = value("zfar", p.zfar);
        }
    } else {  // tinygltf refuses any other type while parsing
        const tinygltf::OrthographicCamera& o = source.orthographic;
        camera.projection = CameraProjection::Orthographic;
        camera.xmag = value("xmag", o.xmag);
        camera.ymag = value("ymag", o.ymag);
        camera.znear = value("znear", o.znear);
        camera.zfar = value("zfar", o.zfar);
        if (camera.xmag == 0.0f || camera.ymag == 0.0f) {
            refuse("xmag " + number(o.xmag) + " and ymag " + number(o.ymag) +
                   ": neither may be 0");
        }
        if (!(camera.znear >= 0.0f)) {
            refuse("znear " + number(o.znear) + " is below 0");
        }
        if (camera.xmag < 0.0f || camera.ymag < 0.0f) {
            log(LogLevel::Warning, what + ": a negative xmag or ymag asks for a mirrored view, which "
                                          "is not drawn: ImportedCamera::makeCamera uses the magnitude");
        }
    }
    if (camera.zfar && !(*camera.zfar > camera.znear)) {
        refuse("zfar " + number(*camera.zfar) + " is not above znear " + number(camera.znear));
    }
    return camera;
}

} // namespace detail

Camera ImportedCamera::makeCamera(float viewportAspect, float farWhenInfinite) const {
    if (node == nullptr) {
        throw InvalidArgument("gltf::ImportedCamera::makeCamera: camera '" + name + "' has no node");
    }
    if (!(viewportAspect > 0.0f) || !std::isfinite(viewportAspect)) {
        throw InvalidArgument("gltf::ImportedCamera::makeCamera: viewport aspect " +
                              std::to_string(viewportAspect) + " is not a finite number above 0");
    }
    if (farWhenInfinite != 0.0f && (!(farWhenInfinite > znear) || !std::isfinite(farWhenInfinite))) {
        throw InvalidArgument("gltf::ImportedCamera::makeCamera: farWhenInfinite " +
                              std::to_string(farWhenInfinite) + " is neither 0 nor a finite distance above znear " +
                              std::to_string(znear));
    }
    Camera camera;
    if (projection == CameraProjection::Perspective) {
        const float far = zfar ? *zfar : (farWhenInfinite != 0.0f ? farWhenInfinite : znear * 1.0e6f);
        camera.setPerspective(yfov, aspectRatio.value_or(viewportAspect), znear, far);
    } else {
        const float x = std::abs(xmag);
        const float y = std::abs(ymag);
        camera.setOrthographic(-x, x, -y, y, znear, zfar.value_or(znear + 1.0f));
    }
    // 3.10.1: looking down the node's -Z, +Y up. Only the axes' directions count (no scale).
    const glm::mat3 axes = node->worldLinear();
    const glm::vec3 back = axes[2];
    const glm::vec3 up = axes[1];
    if (!(glm::length(back) > 0.0f) || !(glm::length(up) > 0.0f)) {
        throw InvalidArgument("gltf::ImportedCamera::makeCamera: the world transform of node '" +
                              node->name() + "' (camera '" + name + "') has a zero axis");
    }
    const glm::dvec3 eye = node->worldTranslation();
    camera.lookAt(eye, eye - glm::dvec3(glm::normalize(back)), up);  // throws on parallel axes
    return camera;
}

} // namespace myriad::gltf
