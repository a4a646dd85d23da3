#include "core/RecordPass.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace myriad::detail {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

/** Running minima, maxima and mirrored count of the scalar path (and of the SIMD path's tail). */
struct Scalar {
    float minX = kInf, minY = kInf, minZ = kInf, maxX = -kInf, maxY = -kInf, maxZ = -kInf;
    std::size_t negative = 0;
};

// The reference arithmetic, also the tail of the SIMD path. Every expression below is mirrored
// lane for lane in the SIMD path: keep them in step.
template <bool kBounds, bool kMirrored>
inline void scalarRecord(const float* r, const glm::vec3& c, const glm::vec3& e, Scalar& s) noexcept {
    const float a0 = r[0], a1 = r[1], a2 = r[2], a3 = r[3];
    const float b0 = r[4], b1 = r[5], b2 = r[6], b3 = r[7];
    const float d0 = r[8], d1 = r[9], d2 = r[10], d3 = r[11];
    if constexpr (kBounds) {
        const float cx = a0 * c.x + a1 * c.y + a2 * c.z + a3;
        const float cy = b0 * c.x + b1 * c.y + b2 * c.z + b3;
        const float cz = d0 * c.x + d1 * c.y + d2 * c.z + d3;
        const float ex = std::abs(a0) * e.x + std::abs(a1) * e.y + std::abs(a2) * e.z;
        const float ey = std::abs(b0) * e.x + std::abs(b1) * e.y + std::abs(b2) * e.z;
        const float ez = std::abs(d0) * e.x + std::abs(d1) * e.y + std::abs(d2) * e.z;
        s.minX = std::min(s.minX, cx - ex);
        s.minY = std::min(s.minY, cy - ey);
        s.minZ = std::min(s.minZ, cz - ez);
        s.maxX = std::max(s.maxX, cx + ex);
        s.maxY = std::max(s.maxY, cy + ey);
        s.maxZ = std::max(s.maxZ, cz + ez);
    }
    if constexpr (kMirrored) {
        // det of the 3x3 rows = row0 . (row1 x row2), as InstancedMeshNode's isMirrored().
        const float det = a0 * (b1 * d2 - b2 * d1) + a1 * (b2 * d0 - b0 * d2) + a2 * (b0 * d1 - b1 * d0);
        s.negative += det < 0.0f ? 1 : 0;
    }
}

#if defined(__SSE2__)

/** Columns of four rows: out[k] holds element k of rows r0..r3 (one lane per record). */
inline void transpose(__m128 r0, __m128 r1, __m128 r2, __m128 r3, __m128 out[4]) noexcept {
    const __m128 t0 = _mm_unpacklo_ps(r0, r1);  // r0x r1x r0y r1y
    const __m128 t1 = _mm_unpacklo_ps(r2, r3);  // r2x r3x r2y r3y
    const __m128 t2 = _mm_unpackhi_ps(r0, r1);  // r0z r1z r0w r1w
    const __m128 t3 = _mm_unpackhi_ps(r2, r3);  // r2z r3z r2w r3w
    out[0] = _mm_movelh_ps(t0, t1);
    out[1] = _mm_movehl_ps(t1, t0);
    out[2] = _mm_movelh_ps(t2, t3);
    out[3] = _mm_movehl_ps(t3, t2);
}

// Plain stores for the copy: non-temporal ones (_mm_stream_ps) measured 1.34-1.71x memcpy for
// the whole pass at 1M records on the reference VM against 1.05-1.10x with plain stores
// (docs/performance.md); write-combined GPU memory combines plain stores anyway.
template <bool kBounds, bool kMirrored, bool kCopy>
void simdPass(const float* records, std::size_t count, const glm::vec3& c, const glm::vec3& e, float* out,
              Scalar& s) noexcept {
    const __m128 cx = _mm_set1_ps(c.x), cy = _mm_set1_ps(c.y), cz = _mm_set1_ps(c.z);
    const __m128 ex = _mm_set1_ps(e.x), ey = _mm_set1_ps(e.y), ez = _mm_set1_ps(e.z);
    const __m128 signBit = _mm_set1_ps(-0.0f);
    const __m128 zero = _mm_setzero_ps();
    __m128 minX = _mm_set1_ps(kInf), minY = minX, minZ = minX;
    __m128 maxX = _mm_set1_ps(-kInf), maxY = maxX, maxZ = maxX;
    __m128i negative = _mm_setzero_si128();
    const std::size_t steps = count / 4;
    const float* r = records;
    float* w = out;
    for (std::size_t step = 0; step < steps; ++step, r += 64, w += 64) {
        __m128 v[16];
        for (int k = 0; k < 16; ++k) {
            v[k] = _mm_loadu_ps(r + 4 * k);
        }
        if constexpr (kCopy) {
            for (int k = 0; k < 16; ++k) {
                _mm_storeu_ps(w + 4 * k, v[k]);
            }
        }
        // Row k of record j is v[4 * j + k]; transposed, A[i] holds element i of row 0 of the
        // four records, one record per lane.
        __m128 A[4], B[4], D[4];
        transpose(v[0], v[4], v[8], v[12], A);
        transpose(v[1], v[5], v[9], v[13], B);
        transpose(v[2], v[6], v[10], v[14], D);
        if constexpr (kBounds) {
            // As scalarRecord(): ((x0 * c.x + x1 * c.y) + x2 * c.z) + x3, and the same for |x|.
            const __m128 centreX = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(A[0], cx), _mm_mul_ps(A[1], cy)), _mm_mul_ps(A[2], cz)), A[3]);
            const __m128 centreY = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(B[0], cx), _mm_mul_ps(B[1], cy)), _mm_mul_ps(B[2], cz)), B[3]);
            const __m128 centreZ = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(D[0], cx), _mm_mul_ps(D[1], cy)), _mm_mul_ps(D[2], cz)), D[3]);
            const __m128 extentX = _mm_add_ps(_mm_add_ps(_mm_mul_ps(_mm_andnot_ps(signBit, A[0]), ex), _mm_mul_ps(_mm_andnot_ps(signBit, A[1]), ey)),
                                              _mm_mul_ps(_mm_andnot_ps(signBit, A[2]), ez));
            const __m128 extentY = _mm_add_ps(_mm_add_ps(_mm_mul_ps(_mm_andnot_ps(signBit, B[0]), ex), _mm_mul_ps(_mm_andnot_ps(signBit, B[1]), ey)),
                                              _mm_mul_ps(_mm_andnot_ps(signBit, B[2]), ez));
            const __m128 extentZ = _mm_add_ps(_mm_add_ps(_mm_mul_ps(_mm_andnot_ps(signBit, D[0]), ex), _mm_mul_ps(_mm_andnot_ps(signBit, D[1]), ey)),
                                              _mm_mul_ps(_mm_andnot_ps(signBit, D[2]), ez));
            // std::min(acc, x) is (x < acc ? x : acc), which is _mm_min_ps(x, acc): a NaN x keeps
            // acc in both. Likewise for max.
            minX = _mm_min_ps(_mm_sub_ps(centreX, extentX), minX);
            minY = _mm_min_ps(_mm_sub_ps(centreY, extentY), minY);
            minZ = _mm_min_ps(_mm_sub_ps(centreZ, extentZ), minZ);
            maxX = _mm_max_ps(_mm_add_ps(centreX, extentX), maxX);
            maxY = _mm_max_ps(_mm_add_ps(centreY, extentY), maxY);
            maxZ = _mm_max_ps(_mm_add_ps(centreZ, extentZ), maxZ);
        }
        if constexpr (kMirrored) {
            const __m128 x = _mm_sub_ps(_mm_mul_ps(B[1], D[2]), _mm_mul_ps(B[2], D[1]));
            const __m128 y = _mm_sub_ps(_mm_mul_ps(B[2], D[0]), _mm_mul_ps(B[0], D[2]));
            const __m128 z = _mm_sub_ps(_mm_mul_ps(B[0], D[1]), _mm_mul_ps(B[1], D[0]));
            const __m128 det = _mm_add_ps(_mm_add_ps(_mm_mul_ps(A[0], x), _mm_mul_ps(A[1], y)), _mm_mul_ps(A[2], z));
            // A true lane is all ones (-1 as an integer): subtracting it counts one.
            negative = _mm_sub_epi32(negative, _mm_castps_si128(_mm_cmplt_ps(det, zero)));
        }
    }
    alignas(16) float lanes[4];
    auto fold = [&](__m128 v, float& into, bool isMin) {
        _mm_store_ps(lanes, v);
        for (const float lane : lanes) {
            into = isMin ? std::min(into, lane) : std::max(into, lane);
        }
    };
    if constexpr (kBounds) {
        fold(minX, s.minX, true);
        fold(minY, s.minY, true);
        fold(minZ, s.minZ, true);
        fold(maxX, s.maxX, false);
        fold(maxY, s.maxY, false);
        fold(maxZ, s.maxZ, false);
    }
    if constexpr (kMirrored) {
        alignas(16) std::int32_t counts[4];
        _mm_store_si128(reinterpret_cast<__m128i*>(counts), negative);
        s.negative += static_cast<std::size_t>(counts[0]) + static_cast<std::size_t>(counts[1]) +
                      static_cast<std::size_t>(counts[2]) + static_cast<std::size_t>(counts[3]);
    }
    // At most three records left: the scalar arithmetic, plain stores.
    const std::size_t done = steps * 4;
    for (std::size_t i = done; i < count; ++i) {
        scalarRecord<kBounds, kMirrored>(records + i * 16, c, e, s);
    }
    if constexpr (kCopy) {
        if (count > done) {
            std::memcpy(out + done * 16, records + done * 16, (count - done) * 16 * sizeof(float));
        }
    }
}

template <bool kBounds, bool kMirrored>
void pass(const float* records, std::size_t count, const glm::vec3& c, const glm::vec3& e, float* out,
          Scalar& s) noexcept {
    if (out == nullptr) {
        simdPass<kBounds, kMirrored, false>(records, count, c, e, out, s);
    } else {
        simdPass<kBounds, kMirrored, true>(records, count, c, e, out, s);
    }
}

#else  // no SSE2: one record a step

template <bool kBounds, bool kMirrored>
void pass(const float* records, std::size_t count, const glm::vec3& c, const glm::vec3& e, float* out,
          Scalar& s) noexcept {
    for (std::size_t i = 0; i < count; ++i) {
        const float* r = records + i * 16;
        scalarRecord<kBounds, kMirrored>(r, c, e, s);
        if (out != nullptr) {
            std::memcpy(out + i * 16, r, 16 * sizeof(float));
        }
    }
}

#endif

} // namespace

void recordPass(const float* records, std::size_t count, bool bounds, bool mirrored, const glm::vec3& centre,
                const glm::vec3& halfExtent, void* destination, RecordPassResult& result) noexcept {
    auto* out = static_cast<float*>(destination);
    Scalar s;
    if (bounds && mirrored) {
        pass<true, true>(records, count, centre, halfExtent, out, s);
    } else if (bounds) {
        pass<true, false>(records, count, centre, halfExtent, out, s);
    } else if (mirrored) {
        pass<false, true>(records, count, centre, halfExtent, out, s);
    } else if (out != nullptr && count != 0) {
        std::memcpy(out, records, count * 16 * sizeof(float));  // nothing to derive: a plain copy
    }
    result.min = glm::vec3(s.minX, s.minY, s.minZ);
    result.max = glm::vec3(s.maxX, s.maxY, s.maxZ);
    result.mirrored = s.negative;
}

} // namespace myriad::detail
