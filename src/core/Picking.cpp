// Scene::pick() and pickAll(): rays against node boxes, or per instance against each
// instance's box and then the mesh's triangles in that instance's space.
//
// Working in each instance's own space keeps every transform exact: the ray is taken through
// the inverse of the node's world matrix and then of the instance matrix, both affine, so the
// ray parameter t means the same point in every space. Distances come out in world units
// without mapping points back, and mirrored, sheared and non-uniformly scaled instances need
// no special case.
#include "myriad/core/Camera.h"
#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/MeshNode.h"
#include "myriad/core/Scene.h"
#include "myriad/util/Error.h"

#include <glm/ext/matrix_double3x3.hpp>
#include <glm/ext/matrix_double4x4.hpp>
#include <glm/geometric.hpp>
#include <glm/matrix.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace myriad {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

struct LocalRay {
    glm::dvec3 origin;
    glm::dvec3 direction;
};

/** The entry parameter of @p ray into @p box (slab method; 0 when it starts inside), or
 *  nothing when it misses or the box lies behind. */
std::optional<double> enterBox(const LocalRay& ray, const Aabb& box) {
    if (box.empty()) {
        return std::nullopt;
    }
    double enter = 0.0;
    double leave = kInfinity;
    for (int axis = 0; axis < 3; ++axis) {
        const double o = ray.origin[axis];
        const double d = ray.direction[axis];
        const double low = box.min[axis];
        const double high = box.max[axis];
        if (d == 0.0) {
            if (o < low || o > high) {
                return std::nullopt;
            }
            continue;
        }
        double t0 = (low - o) / d;
        double t1 = (high - o) / d;
        if (t0 > t1) {
            std::swap(t0, t1);
        }
        enter = std::max(enter, t0);
        leave = std::min(leave, t1);
        if (enter > leave) {
            return std::nullopt;
        }
    }
    return enter;
}

/** enterBox() against @p node's world box (drawBounds() under its world matrix), computed
 *  relative to the ray's origin: the box under the linear part alone (small numbers, float
 *  is enough) moved by (translation - origin) in double. worldBounds() is float in absolute
 *  world coordinates, where a node 1e7 units out is rounded to whole units. */
std::optional<double> enterWorldBox(const LocalRay& ray, const MeshNode& node) {
    const Aabb& local = node.drawBounds();
    if (local.empty()) {
        return std::nullopt;
    }
    const Aabb linear = local.transformed(glm::mat4(node.worldLinear()));
    const glm::dvec3 offset = node.worldTranslation() - ray.origin;
    Aabb relative;  // still float, but of sizes near the distance from the ray's origin
    relative.min = glm::vec3(offset + glm::dvec3(linear.min));
    relative.max = glm::vec3(offset + glm::dvec3(linear.max));
    return enterBox(LocalRay{glm::dvec3(0.0), ray.direction}, relative);
}

/** Moller-Trumbore, both faces: the ray parameter of the hit, or nothing. */
std::optional<double> hitTriangle(const LocalRay& ray, const glm::dvec3& a, const glm::dvec3& b,
                                  const glm::dvec3& c) {
    const glm::dvec3 edge1 = b - a;
    const glm::dvec3 edge2 = c - a;
    const glm::dvec3 p = glm::cross(ray.direction, edge2);
    const double det = glm::dot(edge1, p);
    // Relative to the triangle and ray sizes, so tiny and huge meshes behave alike.
    const double scale = glm::length(edge1) * glm::length(edge2) * glm::length(ray.direction);
    if (std::abs(det) <= 1e-12 * scale || scale == 0.0) {
        return std::nullopt;  // parallel to the plane, or a degenerate triangle
    }
    const double inverse = 1.0 / det;
    const glm::dvec3 s = ray.origin - a;
    const double u = glm::dot(s, p) * inverse;
    if (u < 0.0 || u > 1.0) {
        return std::nullopt;
    }
    const glm::dvec3 q = glm::cross(s, edge1);
    const double v = glm::dot(ray.direction, q) * inverse;
    if (v < 0.0 || u + v > 1.0) {
        return std::nullopt;
    }
    const double t = glm::dot(edge2, q) * inverse;
    return t >= 0.0 ? std::optional<double>(t) : std::nullopt;
}

/** Nearest triangle hit of @p mesh under @p weights (one per morph target, may be short). */
std::optional<double> hitMesh(const LocalRay& ray, const MeshGeometry& mesh, std::span<const float> weights,
                              double limit) {
    const MeshData& data = mesh.data();
    bool morphed = false;
    for (float w : weights) {
        morphed = morphed || w != 0.0f;
    }
    auto position = [&](std::uint32_t vertex) {
        glm::dvec3 p(data.positions[vertex]);
        if (morphed) {
            for (std::size_t t = 0; t < weights.size() && t < data.morphTargets.size(); ++t) {
                if (weights[t] != 0.0f) {
                    p += double(weights[t]) * glm::dvec3(data.morphTargets[t].positionDeltas[vertex]);
                }
            }
        }
        return p;
    };
    auto index = [&](std::size_t i) -> std::uint32_t {
        return data.indices16.empty() ? data.indices32[i] : data.indices16[i];
    };
    const std::size_t indexCount = mesh.indexCount();
    std::optional<double> best;
    for (std::size_t i = 0; i + 2 < indexCount; i += 3) {
        const auto t = hitTriangle(ray, position(index(i)), position(index(i + 1)), position(index(i + 2)));
        if (t && *t <= limit && (!best || *t < *best)) {
            best = t;
        }
    }
    return best;
}

/** Takes @p ray through the inverse of the affine map x -> linear * x + translation; nothing
 *  when the map is singular (nothing can be hit then). */
std::optional<LocalRay> intoSpace(const LocalRay& ray, const glm::dmat3& linear, const glm::dvec3& translation) {
    const double det = glm::determinant(linear);
    if (!(std::abs(det) > 0.0) || !std::isfinite(det)) {
        return std::nullopt;
    }
    const glm::dmat3 inverse = glm::inverse(linear);
    return LocalRay{inverse * (ray.origin - translation), inverse * ray.direction};
}

class Picker {
public:
    Picker(const Ray& ray, bool nearestOnly) : m_nearestOnly(nearestOnly) {
        const double length = glm::length(ray.direction);
        if (!std::isfinite(length) || length == 0.0 || !std::isfinite(ray.origin.x) ||
            !std::isfinite(ray.origin.y) || !std::isfinite(ray.origin.z)) {
            throw InvalidArgument("Scene::pick: the ray needs a finite origin and a finite, non-zero direction");
        }
        m_world = LocalRay{ray.origin, ray.direction / length};
    }

    void visit(const SceneNode& node) {
        if (!node.visible()) {
            return;
        }
        if (const MeshNode* drawn = asMeshNode(node)) {
            const MeshNode& mesh = *drawn;
            if (node.kind() == NodeKind::InstancedMesh &&
                static_cast<const InstancedMeshNode&>(node).visibility().pickMode == PickMode::Instances) {
                pickInstances(static_cast<const InstancedMeshNode&>(node));
            } else if (const auto t = enterWorldBox(m_world, mesh)) {
                add(PickHit{&mesh, std::nullopt, {}, *t, {}});
            }
        }
        for (const auto& child : node.childrenView()) {
            visit(*child);
        }
    }

    std::vector<PickHit> take() {
        std::stable_sort(m_hits.begin(), m_hits.end(),
                         [](const PickHit& a, const PickHit& b) { return a.distance < b.distance; });
        for (PickHit& hit : m_hits) {
            hit.point = m_world.origin + hit.distance * m_world.direction;
        }
        return std::move(m_hits);
    }

private:
    /** Hits farther than this cannot matter (only the nearest is kept in pick()). */
    [[nodiscard]] double limit() const noexcept {
        return m_nearestOnly && !m_hits.empty() ? m_hits.front().distance : kInfinity;
    }

    void add(const PickHit& hit) {
        if (!m_nearestOnly) {
            m_hits.push_back(hit);
        } else if (m_hits.empty()) {
            m_hits.push_back(hit);
        } else if (hit.distance < m_hits.front().distance) {
            m_hits.front() = hit;
        }
    }

    void pickInstances(const InstancedMeshNode& batch) {
        // Cheap rejection first: the node's box holds every drawn instance.
        const auto nodeEnter = enterWorldBox(m_world, batch);
        if (!nodeEnter || *nodeEnter > limit()) {
            return;
        }
        const auto nodeRay = intoSpace(m_world, glm::dmat3(batch.worldLinear()), batch.worldTranslation());
        if (!nodeRay) {
            return;
        }
        const MeshGeometry& mesh = *batch.mesh();
        const bool morphs = mesh.morphTargetCount() > 0;
        // A skinned batch (its pose, or baked clips per instance) draws triangles the CPU does
        // not have: each instance is picked by the box of every pose it may take.
        const bool skinned = mesh.isSkinned() && (batch.animationSet() != nullptr || batch.skeleton() != nullptr);
        const IndexRange drawn = batch.drawnInstances();
        for (std::size_t i = drawn.begin; i < drawn.end; ++i) {
            const InstanceRecord& record = batch.record(i);
            // The record holds rows; glm matrices are built from columns.
            const glm::dmat3 linear = glm::transpose(
                glm::dmat3(glm::dvec3(record.row0), glm::dvec3(record.row1), glm::dvec3(record.row2)));
            const glm::dvec3 translation(record.row0.w, record.row1.w, record.row2.w);
            const auto ray = intoSpace(*nodeRay, linear, translation);
            if (!ray) {
                continue;
            }
            const std::span<const float> weights = morphs ? batch.morphWeightsOf(i) : std::span<const float>();
            const Aabb box = skinned ? batch.meshBounds() : morphs ? mesh.morphedBounds(weights) : mesh.localBounds();
            const auto enter = enterBox(*ray, box);
            if (!enter || *enter > limit()) {
                continue;
            }
            if (skinned) {  // posed on the GPU: picked by the box of its poses (docs/skinning.md)
                add(PickHit{&batch, i, batch.handleAt(i), *enter, {}});
                continue;
            }
            if (const auto t = hitMesh(*ray, mesh, weights, limit())) {
                add(PickHit{&batch, i, batch.handleAt(i), *t, {}});
            }
        }
    }

    LocalRay m_world{};
    bool m_nearestOnly;
    std::vector<PickHit> m_hits;
};

} // namespace

std::optional<PickHit> Scene::pick(const Ray& ray) const {
    Picker picker(ray, true);
    picker.visit(root());
    std::vector<PickHit> hits = picker.take();
    if (hits.empty()) {
        return std::nullopt;
    }
    return hits.front();
}

std::vector<PickHit> Scene::pickAll(const Ray& ray) const {
    Picker picker(ray, false);
    picker.visit(root());
    return picker.take();
}

InstanceHandle InstancedMeshNode::handleAt(std::size_t index) const {
    checkIndex(index, "InstancedMeshNode::handleAt");
    if (index >= m_handleOfRecord.size() || m_handleOfRecord[index] == kNoHandle) {
        return {};
    }
    const std::uint32_t slot = m_handleOfRecord[index];
    return {id(), slot, m_handleSlots[slot].generation};
}

Ray rayThroughPixel(const Camera& camera, double x, double y, std::uint32_t width, std::uint32_t height) {
    if (width == 0 || height == 0) {
        throw InvalidArgument("rayThroughPixel: the picture is " + std::to_string(width) + " x " +
                              std::to_string(height) + " pixels; both must be at least 1");
    }
    if (!std::isfinite(x) || !std::isfinite(y)) {
        throw InvalidArgument("rayThroughPixel: pixel (" + std::to_string(x) + ", " + std::to_string(y) +
                              ") is not finite");
    }
    const double ndcX = (x + 0.5) / static_cast<double>(width) * 2.0 - 1.0;
    const double ndcY = 1.0 - (y + 0.5) / static_cast<double>(height) * 2.0;
    const glm::dmat4 clipToEyeRelative = glm::inverse(glm::dmat4(camera.projection()) * glm::dmat4(camera.viewRotation()));
    glm::dvec4 nearPoint = clipToEyeRelative * glm::dvec4(ndcX, ndcY, -1.0, 1.0);
    glm::dvec4 farPoint = clipToEyeRelative * glm::dvec4(ndcX, ndcY, 1.0, 1.0);
    nearPoint /= nearPoint.w;
    farPoint /= farPoint.w;
    return Ray{camera.positionDouble() + glm::dvec3(nearPoint), glm::dvec3(farPoint - nearPoint)};
}

} // namespace myriad
