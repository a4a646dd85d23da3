// Per-instance frustum culling and back-to-front ordering on the CPU. The hot loop
// is cullInstanceSpheres(): structure-of-arrays spheres, six planes, no branches inside a block,
// so GCC and Clang vectorise it (built with -O3 for that, see src/CMakeLists.txt); bench/
// measures it against the 100-million-instances-per-second-per-core target.
#include "myriad/core/InstanceCulling.h"

#include "myriad/core/InstancedMeshNode.h"

#include <glm/geometric.hpp>
#include <glm/matrix.hpp>

#include <algorithm>
#include <bit>
#include <cstring>

namespace myriad {

FrustumPlanes nodeSpacePlanes(const FrustumPlanes& planes, const glm::mat3& worldLinear,
                              const glm::dvec3& worldTranslation, const glm::dvec3& eye) noexcept {
    const glm::vec3 offset(worldTranslation - eye);  // small near the camera: float is enough
    FrustumPlanes out{};
    for (std::size_t p = 0; p < planes.size(); ++p) {
        const glm::vec3 normal(planes[p]);
        out[p] = glm::vec4(glm::transpose(worldLinear) * normal, planes[p].w + glm::dot(normal, offset));
    }
    return out;
}

void InstanceSpheres::update(const InstancedMeshNode& batch) {
    const std::size_t count = batch.count();
    const InstanceStream& records = batch.streams()[InstanceStreamId::Record];
    const InstanceStream& weights = batch.streams()[InstanceStreamId::MorphWeights];
    const Aabb& mesh = batch.meshBounds();
    const bool sameMesh = m_meshId == batch.mesh()->id() && m_meshMin == mesh.min && m_meshMax == mesh.max;
    const bool sameWeights = !batch.hasInstanceMorphWeights() || weights.version() == m_weightsVersion;
    const std::size_t held = m_x.size();
    m_x.resize(count);
    m_y.resize(count);
    m_z.resize(count);
    m_radius.resize(count);
    m_ranges.clear();
    const bool partial = sameMesh && sameWeights && m_recordVersion != 0 &&
                         (m_recordVersion == records.version() || records.changes().collect(m_recordVersion, m_ranges));
    if (!partial) {
        compute(batch, 0, count);
    } else {
        // Rows entering [0, count) are logged as changed, so rows past what was held are among
        // the ranges; computing them once more is harmless.
        if (count > held) {
            m_ranges.push_back({held, count});
        }
        for (const IndexRange& range : m_ranges) {
            compute(batch, std::min(range.begin, count), std::min(range.end, count));
        }
    }
    m_recordVersion = records.version();
    m_weightsVersion = weights.version();
    m_meshId = batch.mesh()->id();
    m_meshMin = mesh.min;
    m_meshMax = mesh.max;
}

void InstanceSpheres::compute(const InstancedMeshNode& batch, std::size_t begin, std::size_t end) {
    const MeshGeometry& geometry = *batch.mesh();
    const bool ownWeights = batch.hasInstanceMorphWeights();
    const Aabb& nodeBox = batch.meshBounds();
    for (std::size_t i = begin; i < end; ++i) {
        const InstanceRecord& record = batch.record(i);
        Aabb box = nodeBox;  // grown by the node's cull margin already
        if (ownWeights) {
            box = geometry.morphedBounds(batch.morphWeightsOf(i));
            box.min -= glm::vec3(batch.cullMargin());  // MeshNode::setCullMargin
            box.max += glm::vec3(batch.cullMargin());
        }
        // Rows of the record are rows of the matrix; glm::mat3 takes columns.
        const glm::mat3 linear = glm::transpose(glm::mat3(glm::vec3(record.row0), glm::vec3(record.row1),
                                                          glm::vec3(record.row2)));
        const glm::vec3 centre = linear * box.centre() + glm::vec3(record.row0.w, record.row1.w, record.row2.w);
        m_x[i] = centre.x;
        m_y[i] = centre.y;
        m_z[i] = centre.z;
        m_radius[i] = box.transformedRadius(linear);
    }
    m_recomputed += end - begin;
}

namespace {

constexpr std::size_t kBlock = 256;  // a multiple of every vector width; mask stays in L1

/** 1 where sphere i of the block meets every plane. Branch-free: vectorised. */
void testBlock(const float* __restrict x, const float* __restrict y, const float* __restrict z,
               const float* __restrict r, const FrustumPlanes& planes, const float* scale,
               std::uint8_t* __restrict mask, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
        bool inside = true;
        for (std::size_t p = 0; p < 6; ++p) {
            const float distance = planes[p].x * x[i] + planes[p].y * y[i] + planes[p].z * z[i] + planes[p].w;
            inside = inside & (distance >= -r[i] * scale[p]);
        }
        mask[i] = static_cast<std::uint8_t>(inside);
    }
}

} // namespace

std::size_t cullInstanceSpheres(const InstanceSpheres& spheres, IndexRange range, const FrustumPlanes& planes,
                                std::vector<std::uint32_t>& out) {
    const std::size_t end = std::min(range.end, spheres.size());
    const std::size_t begin = std::min(range.begin, end);
    float scale[6];
    for (std::size_t p = 0; p < 6; ++p) {
        scale[p] = glm::length(glm::vec3(planes[p]));
    }
    const std::size_t first = out.size();
    out.resize(first + (end - begin));  // room for all; trimmed below (no allocation once warm)
    std::uint32_t* write = out.data() + first;
    std::uint8_t mask[kBlock];
    for (std::size_t block = begin; block < end; block += kBlock) {
        const std::size_t n = std::min(kBlock, end - block);
        testBlock(spheres.x().data() + block, spheres.y().data() + block, spheres.z().data() + block,
                  spheres.radius().data() + block, planes, scale, mask, n);
        for (std::size_t i = 0; i < n; ++i) {
            *write = static_cast<std::uint32_t>(block + i);  // always written, kept when visible
            write += mask[i];
        }
    }
    out.resize(static_cast<std::size_t>(write - out.data()));
    return end - begin;
}

void sortBackToFront(const InstanceSpheres& spheres, const glm::vec3& nodeDepthAxis, std::span<std::uint32_t> indices,
                     std::vector<std::uint64_t>& scratch) {
    scratch.resize(indices.size());
    for (std::size_t k = 0; k < indices.size(); ++k) {
        const std::uint32_t i = indices[k];
        const float depth = nodeDepthAxis.x * spheres.x()[i] + nodeDepthAxis.y * spheres.y()[i] +
                            nodeDepthAxis.z * spheres.z()[i];
        // Float bits made to sort as unsigned (flip all bits of negatives, the sign bit of the
        // rest), then inverted for decreasing depth; the index below breaks ties in record order.
        std::uint32_t bits = std::bit_cast<std::uint32_t>(depth + 0.0f);  // -0 -> +0
        bits = (bits & 0x80000000u) != 0 ? ~bits : bits | 0x80000000u;
        scratch[k] = (std::uint64_t{~bits} << 32) | i;
    }
    std::sort(scratch.begin(), scratch.end());
    for (std::size_t k = 0; k < indices.size(); ++k) {
        indices[k] = static_cast<std::uint32_t>(scratch[k]);
    }
}

} // namespace myriad
