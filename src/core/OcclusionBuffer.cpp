// The software occlusion buffer (include/myriad/core/OcclusionBuffer.h): clip-space polygon
// clipping, a fixed-point edge-function rasteriser keeping the nearest conservative depth, and
// box tests through a max-depth pyramid.
#include "myriad/core/OcclusionBuffer.h"

#include "myriad/util/Error.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>

namespace myriad {
namespace {

constexpr float kEmpty = std::numeric_limits<float>::infinity();
constexpr std::int64_t kSubpixel = 256;  // vertices snap to 1/256 pixel (8 bits, as GPUs do)
constexpr float kGuardBand = 2.0f;       // NDC x, y kept within [-2, 2]: screen [-w/2, 1.5 w]
constexpr std::uint32_t kMaxSize = 4096;

/** A convex polygon in clip space, at most 3 vertices + one per clipping plane. */
struct Polygon {
    std::array<glm::vec4, 16> v;
    std::size_t n = 0;
};

/** Sutherland–Hodgman against one plane: keeps where @p distance(vertex) >= 0. */
template <typename Distance>
void clipPolygon(const Polygon& in, Polygon& out, Distance distance) {
    out.n = 0;
    for (std::size_t i = 0; i < in.n; ++i) {
        const glm::vec4& a = in.v[i];
        const glm::vec4& b = in.v[(i + 1) % in.n];
        const float da = distance(a);
        const float db = distance(b);
        if (da >= 0.0f) {
            out.v[out.n++] = a;
        }
        if ((da >= 0.0f) != (db >= 0.0f)) {
            const float t = da / (da - db);
            out.v[out.n++] = a + (b - a) * t;
        }
    }
}

} // namespace

void OcclusionBuffer::reset(std::uint32_t width, std::uint32_t height, const glm::mat4& clipFromRelative,
                            OcclusionDepth depth) {
    if (width == 0 || height == 0 || width > kMaxSize || height > kMaxSize) {
        throw InvalidArgument("OcclusionBuffer::reset: size " + std::to_string(width) + "x" + std::to_string(height) +
                              " is not within 1..4096 on each side");
    }
    for (int c = 0; c < 4; ++c) {
        for (int r = 0; r < 4; ++r) {
            if (!std::isfinite(clipFromRelative[c][r])) {
                throw InvalidArgument("OcclusionBuffer::reset: the matrix holds NaN or Inf");
            }
        }
    }
    m_width = width;
    m_height = height;
    m_clipFromRelative = clipFromRelative;
    m_depth = depth;
    // Level sizes: halved (rounded up) down to 1x1; vectors kept, so no allocation once warm.
    m_levelSizes.clear();
    glm::uvec2 size(width, height);
    m_levelSizes.push_back(size);
    while (size.x > 1 || size.y > 1) {
        size = glm::uvec2((size.x + 1) / 2, (size.y + 1) / 2);
        m_levelSizes.push_back(size);
    }
    m_levels.resize(m_levelSizes.size());
    for (std::size_t l = 0; l < m_levels.size(); ++l) {
        m_levels[l].assign(std::size_t{m_levelSizes[l].x} * m_levelSizes[l].y, kEmpty);
    }
    m_pyramidValid = true;  // all empty: every level already says so
}

float OcclusionBuffer::nearDistance(const glm::vec4& clip) const noexcept {
    if (m_depth.reversed) {
        return clip.w - clip.z;  // near maps to z/w = 1
    }
    return m_depth.zeroToOne ? clip.z : clip.z + clip.w;
}

template <typename Index>
std::size_t OcclusionBuffer::rasteriseIndexed(std::span<const glm::vec3> positions, std::span<const Index> indices,
                                              const glm::mat4& relativeFromModel) {
    if (indices.size() % 3 != 0) {
        throw InvalidArgument("OcclusionBuffer::rasterise: " + std::to_string(indices.size()) +
                              " indices is not a multiple of 3");
    }
    for (const Index index : indices) {
        if (index >= positions.size()) {
            throw InvalidArgument("OcclusionBuffer::rasterise: index " + std::to_string(index) + " is not below " +
                                  std::to_string(positions.size()) + " positions");
        }
    }
    if (m_width == 0) {
        return indices.size() / 3;  // never reset: nothing to draw into
    }
    const glm::mat4 clipFromModel = m_clipFromRelative * relativeFromModel;
    for (std::size_t i = 0; i < indices.size(); i += 3) {
        rasteriseClipTriangle(clipFromModel * glm::vec4(positions[indices[i]], 1.0f),
                              clipFromModel * glm::vec4(positions[indices[i + 1]], 1.0f),
                              clipFromModel * glm::vec4(positions[indices[i + 2]], 1.0f));
    }
    m_pyramidValid = false;
    return indices.size() / 3;
}

std::size_t OcclusionBuffer::rasterise(std::span<const glm::vec3> positions, std::span<const std::uint32_t> indices,
                                       const glm::mat4& relativeFromModel) {
    return rasteriseIndexed(positions, indices, relativeFromModel);
}

std::size_t OcclusionBuffer::rasterise(std::span<const glm::vec3> positions, std::span<const std::uint16_t> indices,
                                       const glm::mat4& relativeFromModel) {
    return rasteriseIndexed(positions, indices, relativeFromModel);
}

std::size_t OcclusionBuffer::rasterise(const MeshGeometry& mesh, const glm::mat4& relativeFromModel) {
    const MeshData& data = mesh.data();
    return data.indices32.empty()
               ? rasteriseIndexed(std::span<const glm::vec3>(data.positions), std::span<const std::uint16_t>(data.indices16),
                                  relativeFromModel)
               : rasteriseIndexed(std::span<const glm::vec3>(data.positions), std::span<const std::uint32_t>(data.indices32),
                                  relativeFromModel);
}

void OcclusionBuffer::rasteriseClipTriangle(const glm::vec4& a, const glm::vec4& b, const glm::vec4& c) {
    Polygon polygon;
    polygon.v[0] = a;
    polygon.v[1] = b;
    polygon.v[2] = c;
    polygon.n = 3;
    Polygon scratch;
    // The near plane, then the guard band (which also keeps w >= 0: x + 2w >= 0 and 2w - x >= 0).
    clipPolygon(polygon, scratch, [&](const glm::vec4& v) { return nearDistance(v); });
    clipPolygon(scratch, polygon, [](const glm::vec4& v) { return v.x + kGuardBand * v.w; });
    clipPolygon(polygon, scratch, [](const glm::vec4& v) { return kGuardBand * v.w - v.x; });
    clipPolygon(scratch, polygon, [](const glm::vec4& v) { return v.y + kGuardBand * v.w; });
    clipPolygon(polygon, scratch, [](const glm::vec4& v) { return kGuardBand * v.w - v.y; });
    if (scratch.n < 3) {
        return;
    }
    std::array<glm::dvec3, 16> screen;
    for (std::size_t i = 0; i < scratch.n; ++i) {
        const glm::vec4& v = scratch.v[i];
        if (!(v.w > 0.0f)) {
            return;  // on or behind the eye plane: skipped (never hides anything it should not)
        }
        const double x = (static_cast<double>(v.x) / v.w * 0.5 + 0.5) * m_width;
        const double y = (static_cast<double>(v.y) / v.w * 0.5 + 0.5) * m_height;
        // Snapped to 1/256 pixel; the edge functions below are exact integers on these.
        screen[i] = glm::dvec3(std::round(x * kSubpixel), std::round(y * kSubpixel), key(v.z / v.w));
    }
    for (std::size_t i = 1; i + 1 < scratch.n; ++i) {  // a fan
        const glm::dvec3 triangle[3] = {screen[0], screen[i], screen[i + 1]};
        drawScreenTriangle(triangle);
    }
}

void OcclusionBuffer::drawScreenTriangle(const glm::dvec3* in) {
    // Integer vertices in 1/256 pixel (|x| < 2^22 inside the guard band: products fit in int64).
    std::int64_t x[3], y[3];
    double d[3];
    for (int i = 0; i < 3; ++i) {
        x[i] = static_cast<std::int64_t>(in[i].x);
        y[i] = static_cast<std::int64_t>(in[i].y);
        d[i] = in[i].z;
    }
    std::int64_t area = (x[1] - x[0]) * (y[2] - y[0]) - (y[1] - y[0]) * (x[2] - x[0]);
    if (area == 0) {
        return;
    }
    if (area < 0) {  // both faces drawn: make it counter-clockwise
        std::swap(x[1], x[2]);
        std::swap(y[1], y[2]);
        std::swap(d[1], d[2]);
        area = -area;
    }
    // Depth plane d = d0 + a (px - x0) + b (py - y0), in pixels.
    const double e1x = static_cast<double>(x[1] - x[0]) / kSubpixel, e1y = static_cast<double>(y[1] - y[0]) / kSubpixel;
    const double e2x = static_cast<double>(x[2] - x[0]) / kSubpixel, e2y = static_cast<double>(y[2] - y[0]) / kSubpixel;
    const double det = e1x * e2y - e2x * e1y;
    const double a = ((d[1] - d[0]) * e2y - (d[2] - d[0]) * e1y) / det;
    const double b = ((d[2] - d[0]) * e1x - (d[1] - d[0]) * e2x) / det;
    const double slack = 0.5 * (std::abs(a) + std::abs(b));  // the plane's rise over half a pixel
    const double farthest = std::max({d[0], d[1], d[2]});
    // Edges i -> i+1; a centre exactly on an edge counts for one side only: inclusive where the
    // edge goes up, or along a horizontal going left (the opposite edge of a neighbour is then
    // exclusive, exactly: the functions are integers).
    std::int64_t bias[3];
    for (int i = 0; i < 3; ++i) {
        const int j = (i + 1) % 3;
        const std::int64_t dx = x[j] - x[i], dy = y[j] - y[i];
        bias[i] = (dy > 0 || (dy == 0 && dx < 0)) ? 0 : 1;
    }
    const std::int64_t minX = std::min({x[0], x[1], x[2]}), maxX = std::max({x[0], x[1], x[2]});
    const std::int64_t minY = std::min({y[0], y[1], y[2]}), maxY = std::max({y[0], y[1], y[2]});
    const std::int64_t px0 = std::max<std::int64_t>(0, minX / kSubpixel - 1);
    const std::int64_t px1 = std::min<std::int64_t>(m_width - 1, maxX / kSubpixel);
    const std::int64_t py0 = std::max<std::int64_t>(0, minY / kSubpixel - 1);
    const std::int64_t py1 = std::min<std::int64_t>(m_height - 1, maxY / kSubpixel);
    std::vector<float>& depth = m_levels[0];
    for (std::int64_t py = py0; py <= py1; ++py) {
        const std::int64_t cy = py * kSubpixel + kSubpixel / 2;
        for (std::int64_t px = px0; px <= px1; ++px) {
            const std::int64_t cx = px * kSubpixel + kSubpixel / 2;
            bool inside = true;
            for (int i = 0; i < 3; ++i) {
                const int j = (i + 1) % 3;
                const std::int64_t e = (x[j] - x[i]) * (cy - y[i]) - (y[j] - y[i]) * (cx - x[i]);
                inside = inside && e - bias[i] >= 0;
            }
            if (!inside) {
                continue;
            }
            const double centre = d[0] + a * ((static_cast<double>(cx - x[0])) / kSubpixel) +
                                  b * ((static_cast<double>(cy - y[0])) / kSubpixel);
            const float value = static_cast<float>(std::min(centre + slack, farthest));
            float& stored = depth[static_cast<std::size_t>(py) * m_width + static_cast<std::size_t>(px)];
            stored = std::min(stored, value);
        }
    }
}

void OcclusionBuffer::buildPyramid() {
    for (std::size_t l = 1; l < m_levels.size(); ++l) {
        const glm::uvec2 below = m_levelSizes[l - 1];
        const glm::uvec2 size = m_levelSizes[l];
        const std::vector<float>& src = m_levels[l - 1];
        std::vector<float>& dst = m_levels[l];
        for (std::uint32_t y = 0; y < size.y; ++y) {
            for (std::uint32_t x = 0; x < size.x; ++x) {
                // Texels past the edge of an odd-sized level do not exist: not counted.
                const std::uint32_t x0 = 2 * x, y0 = 2 * y;
                const std::uint32_t x1 = std::min(x0 + 1, below.x - 1), y1 = std::min(y0 + 1, below.y - 1);
                dst[std::size_t{y} * size.x + x] =
                    std::max(std::max(src[std::size_t{y0} * below.x + x0], src[std::size_t{y0} * below.x + x1]),
                             std::max(src[std::size_t{y1} * below.x + x0], src[std::size_t{y1} * below.x + x1]));
            }
        }
    }
    m_pyramidValid = true;
}

bool OcclusionBuffer::boxOccluded(const glm::vec3& centre, const glm::vec3& halfExtent) {
    if (m_width == 0) {
        return false;
    }
    const glm::vec4 c = m_clipFromRelative * glm::vec4(centre, 1.0f);
    const glm::vec4 ax = m_clipFromRelative[0] * halfExtent.x;
    const glm::vec4 ay = m_clipFromRelative[1] * halfExtent.y;
    const glm::vec4 az = m_clipFromRelative[2] * halfExtent.z;
    float minX = kEmpty, minY = kEmpty, maxX = -kEmpty, maxY = -kEmpty, nearest = kEmpty;
    for (int corner = 0; corner < 8; ++corner) {
        const glm::vec4 v = c + ((corner & 1) != 0 ? ax : -ax) + ((corner & 2) != 0 ? ay : -ay) +
                            ((corner & 4) != 0 ? az : -az);
        if (!(nearDistance(v) >= 0.0f) || !(v.w > 0.0f)) {
            return false;  // crosses the near plane (or the eye): visible
        }
        const float inverseW = 1.0f / v.w;
        const float x = v.x * inverseW, y = v.y * inverseW;
        minX = std::min(minX, x);
        maxX = std::max(maxX, x);
        minY = std::min(minY, y);
        maxY = std::max(maxY, y);
        nearest = std::min(nearest, key(v.z * inverseW));
    }
    // The pixel rectangle, grown by one pixel on each side, clipped to the buffer (floats
    // clamped before the conversion so huge projections stay defined).
    auto toPixel = [](float ndc, std::uint32_t size) {
        const float p = (ndc * 0.5f + 0.5f) * static_cast<float>(size);
        return static_cast<std::int64_t>(std::floor(std::clamp(p, -2.0f, static_cast<float>(size) + 2.0f)));
    };
    const std::int64_t x0 = std::max<std::int64_t>(0, toPixel(minX, m_width) - 1);
    const std::int64_t x1 = std::min<std::int64_t>(m_width - 1, toPixel(maxX, m_width) + 1);
    const std::int64_t y0 = std::max<std::int64_t>(0, toPixel(minY, m_height) - 1);
    const std::int64_t y1 = std::min<std::int64_t>(m_height - 1, toPixel(maxY, m_height) + 1);
    if (x0 > x1 || y0 > y1) {
        return false;  // off the buffer: for the frustum test to judge, not this one
    }
    if (!m_pyramidValid) {
        buildPyramid();
    }
    // The coarsest level where the rectangle spans at most 8 texels a side, then finer levels
    // while it fails (a coarse texel's maximum also covers pixels outside the rectangle).
    std::size_t level = 0;
    while (level + 1 < m_levels.size() && ((x1 >> level) - (x0 >> level) >= 8 || (y1 >> level) - (y0 >> level) >= 8)) {
        ++level;
    }
    for (;;) {
        const std::uint32_t rowWidth = m_levelSizes[level].x;
        const std::vector<float>& depth = m_levels[level];
        bool hidden = true;
        for (std::int64_t y = y0 >> level; hidden && y <= (y1 >> level); ++y) {
            for (std::int64_t x = x0 >> level; x <= (x1 >> level); ++x) {
                if (!(depth[static_cast<std::size_t>(y) * rowWidth + static_cast<std::size_t>(x)] < nearest)) {
                    hidden = false;
                    break;
                }
            }
        }
        if (hidden) {
            return true;
        }
        if (level == 0) {
            return false;
        }
        --level;
    }
}

bool OcclusionBuffer::covered(std::uint32_t x, std::uint32_t y) const {
    if (x >= m_width || y >= m_height) {
        throw OutOfRange("OcclusionBuffer::covered: pixel (" + std::to_string(x) + ", " + std::to_string(y) +
                         ") outside " + std::to_string(m_width) + "x" + std::to_string(m_height));
    }
    return m_levels[0][std::size_t{y} * m_width + x] != kEmpty;
}

float OcclusionBuffer::depthAt(std::uint32_t x, std::uint32_t y) const {
    if (x >= m_width || y >= m_height) {
        throw OutOfRange("OcclusionBuffer::depthAt: pixel (" + std::to_string(x) + ", " + std::to_string(y) +
                         ") outside " + std::to_string(m_width) + "x" + std::to_string(m_height));
    }
    const float stored = m_levels[0][std::size_t{y} * m_width + x];
    return m_depth.reversed ? -stored : stored;
}

std::size_t OcclusionBuffer::coveredPixels() const noexcept {
    return m_width == 0 ? 0 : static_cast<std::size_t>(std::count_if(m_levels[0].begin(), m_levels[0].end(),
                                                                      [](float v) { return v != kEmpty; }));
}

} // namespace myriad
