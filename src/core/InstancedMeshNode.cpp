#include "myriad/core/InstancedMeshNode.h"

#include "core/RecordPass.h"
#include "core/Validate.h"
#include "myriad/util/Error.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace myriad {

static_assert(InstancedMeshNode::maxLaneCount == streams::kMaxLanes, "one limit for the node and its stream");

namespace {

void checkLaneCount(std::size_t count, const char* function) {
    if (count > InstancedMeshNode::maxLaneCount) {
        throw OutOfRange(std::string(function) + ": " + std::to_string(count) + " lanes; at most " +
                         std::to_string(InstancedMeshNode::maxLaneCount));
    }
}

/** Writes the node-from-instance matrix @p m (glm: column-major, m[column][row]) into
 *  @p record as its three rows, and @p color. On SSE2 a 4x4 transpose in registers and four
 *  stores: building the record by value went through the stack, eight more memory operations
 *  on the release + acquire path, where every store counts (see acquire()). */
void storeTransform(InstanceRecord& record, const glm::mat4& m, const glm::vec4& color) noexcept {
#if defined(__SSE2__)
    const float* f = &m[0][0];
    const __m128 c0 = _mm_loadu_ps(f), c1 = _mm_loadu_ps(f + 4), c2 = _mm_loadu_ps(f + 8), c3 = _mm_loadu_ps(f + 12);
    const __m128 t0 = _mm_unpacklo_ps(c0, c1);  // c0x c1x c0y c1y
    const __m128 t1 = _mm_unpacklo_ps(c2, c3);  // c2x c3x c2y c3y
    const __m128 t2 = _mm_unpackhi_ps(c0, c1);  // c0z c1z c0w c1w
    const __m128 t3 = _mm_unpackhi_ps(c2, c3);  // c2z c3z c2w c3w
    auto* out = reinterpret_cast<float*>(&record);  // 16 floats, rows then colour (InstanceRecord.h)
    _mm_storeu_ps(out, _mm_movelh_ps(t0, t1));       // row 0: c0x c1x c2x c3x
    _mm_storeu_ps(out + 4, _mm_movehl_ps(t1, t0));   // row 1
    _mm_storeu_ps(out + 8, _mm_movelh_ps(t2, t3));   // row 2
    _mm_storeu_ps(out + 12, _mm_loadu_ps(&color[0]));
#else
    record = {glm::vec4(m[0][0], m[1][0], m[2][0], m[3][0]), glm::vec4(m[0][1], m[1][1], m[2][1], m[3][1]),
              glm::vec4(m[0][2], m[1][2], m[2][2], m[3][2]), color};
#endif
}

glm::mat4 unpackTransform(const InstanceRecord& r) noexcept {
    return {glm::vec4(r.row0.x, r.row1.x, r.row2.x, 0.0f),
            glm::vec4(r.row0.y, r.row1.y, r.row2.y, 0.0f),
            glm::vec4(r.row0.z, r.row1.z, r.row2.z, 0.0f),
            glm::vec4(r.row0.w, r.row1.w, r.row2.w, 1.0f)};
}

bool isMirrored(const InstanceRecord& r) noexcept {
    // det of the 3x3 rows = row0 . (row1 x row2)
    return glm::dot(glm::vec3(r.row0), glm::cross(glm::vec3(r.row1), glm::vec3(r.row2))) < 0.0f;
}

/** Words a refused transform (out of line: the accept path stays short): the batch, the first
 *  element that is not finite with its column, row and value, or the bottom row that is not
 *  (0, 0, 0, 1). */
[[noreturn]] [[gnu::noinline]] void refuseTransform(const glm::mat4& transform, const char* function,
                                                     const std::string& batch) {
    const std::string where = std::string(function) + ": batch '" + batch + "': ";
    for (int column = 0; column < 4; ++column) {
        for (int row = 0; row < 4; ++row) {
            if (!std::isfinite(transform[column][row])) {
                throw InvalidArgument(where + "transform has NaN or Inf (column " + std::to_string(column) + ", row " +
                                      std::to_string(row) + " is " + std::to_string(transform[column][row]) + ")");
            }
        }
    }
    throw InvalidArgument(where + "matrix is not affine (bottom row must be 0, 0, 0, 1; it is " +
                          std::to_string(transform[0][3]) + ", " + std::to_string(transform[1][3]) + ", " +
                          std::to_string(transform[2][3]) + ", " + std::to_string(transform[3][3]) + ")");
}

void checkTransform(const glm::mat4& transform, const char* function, const std::string& batch) {
    // One branch-free pass accepts the usual good matrix (x * 0 is 0 exactly when x is finite;
    // the bottom row within detail::kAffineTolerance); the detailed checks run only to word a
    // refusal. setTransform and acquire run this once per call, so it is kept short: four
    // columns at once, no chain of dependent adds (a long chain holds the out-of-order window
    // that a release + acquire pair needs for overlapping its cache misses).
    constexpr float kTolerance = detail::kAffineTolerance;
    const float* f = &transform[0][0];
#if defined(__SSE2__)
    const __m128 zero = _mm_setzero_ps();
    const __m128 c0 = _mm_loadu_ps(f), c1 = _mm_loadu_ps(f + 4), c2 = _mm_loadu_ps(f + 8), c3 = _mm_loadu_ps(f + 12);
    const __m128 sum = _mm_add_ps(_mm_add_ps(_mm_mul_ps(c0, zero), _mm_mul_ps(c1, zero)),
                                  _mm_add_ps(_mm_mul_ps(c2, zero), _mm_mul_ps(c3, zero)));
    // The bottom row is element 3 of each column: (c0.w, c1.w, c2.w, c3.w) - (0, 0, 0, 1).
    const __m128 bottom = _mm_movehl_ps(_mm_unpackhi_ps(c2, c3), _mm_unpackhi_ps(c0, c1));
    const __m128 offset = _mm_andnot_ps(_mm_set1_ps(-0.0f), _mm_sub_ps(bottom, _mm_setr_ps(0.0f, 0.0f, 0.0f, 1.0f)));
    // A NaN fails both comparisons, so it takes the detailed path too.
    const __m128 good = _mm_and_ps(_mm_cmpeq_ps(sum, zero), _mm_cmple_ps(offset, _mm_set1_ps(kTolerance)));
    if (_mm_movemask_ps(good) == 0xF) {
        return;
    }
#else
    float zero[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int column = 0; column < 4; ++column) {
        for (int row = 0; row < 4; ++row) {
            zero[row] += f[column * 4 + row] * 0.0f;
        }
    }
    if ((zero[0] + zero[1]) + (zero[2] + zero[3]) == 0.0f && detail::isAffine(transform)) {
        return;
    }
#endif
    refuseTransform(transform, function, batch);  // only a bad matrix leaves the accept path
}

/** requireFinite() for a colour, with the short accept path of checkTransform(). */
void checkColor(const glm::vec4& color, const char* function) {
#if defined(__SSE2__)
    const __m128 zero = _mm_setzero_ps();
    if (_mm_movemask_ps(_mm_cmpeq_ps(_mm_mul_ps(_mm_loadu_ps(&color[0]), zero), zero)) == 0xF) {
        return;
    }
#endif
    detail::requireFinite(color, function, "color");
}

void checkCapacity(std::size_t capacity, const char* function) {
    if (capacity > InstancedMeshNode::maxCapacity) {
        throw CapacityError(std::string(function) + ": capacity " + std::to_string(capacity) +
                            " > maxCapacity " + std::to_string(InstancedMeshNode::maxCapacity));
    }
}

bool touches(const Aabb& box, const Aabb& bounds) noexcept {
    for (int axis = 0; axis < 3; ++axis) {
        if (box.min[axis] <= bounds.min[axis] || box.max[axis] >= bounds.max[axis]) {
            return true;
        }
    }
    return false;
}

} // namespace

InstancedMeshNode::InstancedMeshNode(std::shared_ptr<const MeshGeometry> mesh, Material material,
                                     std::size_t capacity, std::string name,
                                     const InstancedMeshOptions& options)
    : MeshNode(std::move(mesh), std::move(material), std::move(name), NodeKind::InstancedMesh),
      m_growth(options.growth), m_uploadMode(options.uploadMode) {
    checkCapacity(capacity, "InstancedMeshNode");
    checkLaneCount(options.laneCount, "InstancedMeshNode");
    m_streams[InstanceStreamId::Lanes].reshape(streams::lanes(std::max<std::size_t>(options.laneCount, 1)), {});
    m_laneCount = options.laneCount;
    m_streams[InstanceStreamId::Record].allocate(capacity);
    m_handleOfRecord.assign(capacity, kNoHandle);
    m_capacity = capacity;
    refreshInstanceMeshBox();
}

void InstancedMeshNode::checkIndex(std::size_t index, const char* function) const {
    if (index >= m_count) {
        throw OutOfRange(std::string(function) + ": index " + std::to_string(index) +
                         " >= count " + std::to_string(m_count));
    }
}

Aabb InstancedMeshNode::instanceBox(const InstanceRecord& record) const noexcept {
    // Arvo's box transform straight from the stored rows: each output axis is one row's dot
    // with the centre, and |row| . half-extent. No matrix is unpacked; this runs for every
    // instance on a bounds recompute.
    const Aabb& mesh = m_instanceMeshBox;
    const glm::vec3 c = mesh.centre();
    const glm::vec3 e = mesh.halfExtent();
    const glm::vec3 centre(glm::dot(glm::vec3(record.row0), c) + record.row0.w,
                           glm::dot(glm::vec3(record.row1), c) + record.row1.w,
                           glm::dot(glm::vec3(record.row2), c) + record.row2.w);
    const glm::vec3 extent(glm::dot(glm::abs(glm::vec3(record.row0)), e),
                           glm::dot(glm::abs(glm::vec3(record.row1)), e),
                           glm::dot(glm::abs(glm::vec3(record.row2)), e));
    return {centre - extent, centre + extent};
}

void InstancedMeshNode::refreshInstanceMeshBox() const noexcept {
    // One box for every instance: the mesh morphed by any weight vector inside the per-target
    // range [low, high] spanned by the node's weights and every drawn instance's own weights.
    // Conservative (an instance may get a box larger than its own morphed mesh), but writes
    // stay O(1) and a recompute is O(count * targets), with no per-instance box stored.
    const std::span<const float> node = morphWeights();
    const std::size_t targets = node.size();
    std::copy(node.begin(), node.end(), m_morphWeightLow.begin());
    std::copy(node.begin(), node.end(), m_morphWeightHigh.begin());
    if (m_ownWeights > 0) {
        for (std::size_t i = 0; i < m_count; ++i) {
            if (!hasOwnWeights(i)) {
                continue;
            }
            const std::span<const float> row = m_streams[InstanceStreamId::MorphWeights].row(i);
            for (std::size_t t = 0; t < targets; ++t) {
                m_morphWeightLow[t] = std::min(m_morphWeightLow[t], row[t]);
                m_morphWeightHigh[t] = std::max(m_morphWeightHigh[t], row[t]);
            }
        }
    }
    m_instanceMeshBox = primitivesBounds({m_morphWeightLow.data(), targets}, {m_morphWeightHigh.data(), targets});
    m_instanceMeshBoxVersion = meshBoundsVersion();
}

void InstancedMeshNode::setMorphWeights(std::size_t index, std::span<const float> weights) {
    refuseIfStatic("InstancedMeshNode::setMorphWeights");
    checkIndex(index, "InstancedMeshNode::setMorphWeights");
    const std::size_t targets = mesh()->morphTargetCount();
    if (weights.size() > targets) {
        throw InvalidArgument("InstancedMeshNode::setMorphWeights: " + std::to_string(weights.size()) +
                              " weights for a mesh with " + std::to_string(targets) +
                              " morph targets (kMaxMorphTargets is " +
                              std::to_string(kMaxMorphTargets) + ")");
    }
    for (float w : weights) {
        if (!std::isfinite(w)) {
            throw InvalidArgument("InstancedMeshNode::setMorphWeights: a weight is NaN or Inf");
        }
    }
    writeMorphRows(index, 1, weights, weights.size());
}

void InstancedMeshNode::setMorphWeights(std::size_t first, std::span<const float> weights,
                                        std::size_t weightsPerInstance) {
    refuseIfStatic("InstancedMeshNode::setMorphWeights");
    constexpr const char* kFunction = "InstancedMeshNode::setMorphWeights";
    const std::size_t targets = mesh()->morphTargetCount();
    if (weightsPerInstance == 0 || weightsPerInstance > targets) {
        throw InvalidArgument(std::string(kFunction) + ": " + std::to_string(weightsPerInstance) +
                              " weights per instance for a mesh with " + std::to_string(targets) +
                              " morph targets (need 1 to " + std::to_string(targets) + ")");
    }
    if (weights.size() % weightsPerInstance != 0) {
        throw InvalidArgument(std::string(kFunction) + ": " + std::to_string(weights.size()) +
                              " weights are not whole rows of " + std::to_string(weightsPerInstance));
    }
    const std::size_t rows = weights.size() / weightsPerInstance;
    if (first > m_count || rows > m_count - first) {
        throw OutOfRange(std::string(kFunction) + ": instances [" + std::to_string(first) + ", +" +
                         std::to_string(rows) + ") run past count " + std::to_string(m_count));
    }
    for (std::size_t i = 0; i < weights.size(); ++i) {
        if (!std::isfinite(weights[i])) {
            throw InvalidArgument(std::string(kFunction) + ": weight " + std::to_string(i % weightsPerInstance) +
                                  " of instance " + std::to_string(first + i / weightsPerInstance) +
                                  " is NaN or Inf");
        }
    }
    if (rows != 0) {
        writeMorphRows(first, rows, weights, weightsPerInstance);
    }
}

void InstancedMeshNode::writeMorphRows(std::size_t first, std::size_t rows, std::span<const float> weights,
                                       std::size_t weightsPerInstance) {
    const std::size_t targets = mesh()->morphTargetCount();
    InstanceStream& stream = m_streams[InstanceStreamId::MorphWeights];
    stream.allocate(m_capacity);  // may throw: nothing changed
    bool outside = false;
    std::size_t gained = 0;
    for (std::size_t k = 0; k < rows; ++k) {
        gained += hasOwnWeights(first + k) ? 0 : 1;
        const std::span<float> row = stream.row(first + k);
        const std::span<const float> given = weights.subspan(k * weightsPerInstance, weightsPerInstance);
        std::copy(given.begin(), given.end(), row.begin());
        std::fill(row.begin() + static_cast<std::ptrdiff_t>(weightsPerInstance), row.end(), 0.0f);
        for (std::size_t t = 0; t < targets; ++t) {
            outside = outside || row[t] < m_morphWeightLow[t] || row[t] > m_morphWeightHigh[t];
        }
    }
    if (outside) {
        m_boundsValid = false;  // outside the range the instance box covers: recompute
    }
    stream.markChanged(first, first + rows);
    m_ownWeights += gained;
    ++m_dataVersion;
    subtreeChanged();
}

void InstancedMeshNode::clearMorphWeights(std::size_t index) {
    refuseIfStatic("InstancedMeshNode::clearMorphWeights");
    checkIndex(index, "InstancedMeshNode::clearMorphWeights");
    if (hasOwnWeights(index)) {
        m_streams[InstanceStreamId::MorphWeights].reset(index);
        --m_ownWeights;
        ++m_dataVersion;
        subtreeChanged();
    }
}

std::span<const float> InstancedMeshNode::morphWeightsOf(std::size_t index) const {
    checkIndex(index, "InstancedMeshNode::morphWeightsOf");
    if (hasOwnWeights(index)) {
        return m_streams[InstanceStreamId::MorphWeights].row(index).first(mesh()->morphTargetCount());
    }
    return morphWeights();
}

void InstancedMeshNode::checkLane(std::size_t lane, const char* function) const {
    if (lane >= m_laneCount) {
        throw OutOfRange(std::string(function) + ": lane " + std::to_string(lane) + " >= laneCount " +
                         std::to_string(m_laneCount) + " of '" + name() + "' (setLaneCount)");
    }
}

void InstancedMeshNode::setLaneCount(std::size_t count) {
    checkLaneCount(count, "InstancedMeshNode::setLaneCount");
    refuseIfStatic("InstancedMeshNode::setLaneCount");
    if (count == m_laneCount) {
        return;
    }
    InstanceStream& stream = m_streams[InstanceStreamId::Lanes];
    const InstanceStreamDesc& desc = streams::lanes(std::max<std::size_t>(count, 1));
    InstanceStream::Storage rows;
    if (stream.allocated() && count != 0) {
        // The new rows first (the only step that can throw), the lanes both widths have kept.
        const std::size_t oldWidth = stream.desc().floatsPerInstance;
        const std::size_t newWidth = desc.floatsPerInstance;
        const std::size_t kept = std::min(oldWidth, newWidth);
        rows.assign(m_capacity * newWidth, 0.0f);
        const std::span<const float> old = stream.data();
        for (std::size_t i = 0; i < m_capacity; ++i) {
            std::copy_n(old.data() + i * oldWidth, kept, rows.data() + i * newWidth);
        }
    }
    // A stream never allocated stays so; 0 lanes frees it (hasLanes() is then false).
    const bool wasAllocated = stream.allocated();
    stream.reshape(desc, std::move(rows));
    m_laneCount = count;
    if (wasAllocated) {
        ++m_dataVersion;
        subtreeChanged();
    }
}

void InstancedMeshNode::setLane(std::size_t index, std::size_t lane, const glm::vec4& value) {
    refuseIfStatic("InstancedMeshNode::setLane");
    checkIndex(index, "InstancedMeshNode::setLane");
    checkLane(lane, "InstancedMeshNode::setLane");
    detail::requireFinite(value, "InstancedMeshNode::setLane", "value");
    InstanceStream& stream = m_streams[InstanceStreamId::Lanes];
    if (!stream.allocated()) {
        stream.allocate(m_capacity);  // may throw: nothing changed; a renderer's first
    }                                 // upload of a new stream sends every drawn row
    const std::span<float> row = stream.row(index);
    for (int k = 0; k < 4; ++k) {
        row[lane * 4 + static_cast<std::size_t>(k)] = value[k];
    }
    stream.markChanged(index, index + 1);
    ++m_dataVersion;
    subtreeChanged();
}

glm::vec4 InstancedMeshNode::lane(std::size_t index, std::size_t lane) const {
    checkIndex(index, "InstancedMeshNode::lane");
    checkLane(lane, "InstancedMeshNode::lane");
    const InstanceStream& stream = m_streams[InstanceStreamId::Lanes];
    if (!stream.allocated()) {
        return glm::vec4(0.0f);
    }
    const std::span<const float> row = stream.row(index);
    return {row[lane * 4], row[lane * 4 + 1], row[lane * 4 + 2], row[lane * 4 + 3]};
}

void InstancedMeshNode::clearLanes(std::size_t index) {
    refuseIfStatic("InstancedMeshNode::clearLanes");
    checkIndex(index, "InstancedMeshNode::clearLanes");
    if (m_streams[InstanceStreamId::Lanes].allocated()) {
        m_streams[InstanceStreamId::Lanes].reset(index);
        ++m_dataVersion;
        subtreeChanged();
    }
}

// ---- per-instance light channels -------------------------------------------------------------

void InstancedMeshNode::setInstanceLightChannels(std::size_t index, std::uint32_t mask) {
    refuseIfStatic("InstancedMeshNode::setInstanceLightChannels");
    checkIndex(index, "InstancedMeshNode::setInstanceLightChannels");
    InstanceStream& stream = m_streams[InstanceStreamId::LightChannels];
    if (!stream.allocated()) {
        stream.allocate(m_capacity);  // may throw: nothing changed
    }
    // Two 16-bit halves as whole floats: exact, and never a NaN bit pattern (which a float
    // buffer texture need not keep).
    const std::span<float> row = stream.row(index);
    row[0] = static_cast<float>(mask & 0xFFFFu);
    row[1] = static_cast<float>(mask >> 16u);
    stream.markChanged(index, index + 1);
    ++m_dataVersion;
    subtreeChanged();
}

void InstancedMeshNode::setInstanceLightChannels(InstanceHandle handle, std::uint32_t mask) {
    checkHandle(handle, "InstancedMeshNode::setInstanceLightChannels");
    setInstanceLightChannels(m_handleSlots[handle.slot].index, mask);
}

std::uint32_t InstancedMeshNode::instanceLightChannels(std::size_t index) const {
    checkIndex(index, "InstancedMeshNode::instanceLightChannels");
    const InstanceStream& stream = m_streams[InstanceStreamId::LightChannels];
    if (!stream.allocated()) {
        return 0xFFFFFFFFu;
    }
    const std::span<const float> row = stream.row(index);
    return static_cast<std::uint32_t>(row[0]) | (static_cast<std::uint32_t>(row[1]) << 16u);
}

// ---- skinned crowds --------------------------------------------------------------------------

namespace {

/** InstanceAnimation as its stream row (streams::kAnimation). */
std::array<float, 8> animationRow(const InstanceAnimation& a) noexcept {
    const float from = a.fadeFromClip == InstanceAnimation::kNoFade ? -1.0f : static_cast<float>(a.fadeFromClip);
    return {static_cast<float>(a.clip), a.startTime, a.speed, a.fadeStart, from, a.fadeFromStartTime, a.fadeFromSpeed,
            a.fadeDuration};
}

} // namespace

void InstancedMeshNode::checkAnimation(const InstanceAnimation& animation, const char* function) const {
    if (m_animationSet == nullptr) {
        throw InvalidArgument(std::string(function) + ": '" + name() + "' plays no AnimationSet (setAnimationSet first)");
    }
    const std::size_t clips = m_animationSet->clips().size();
    if (animation.clip >= clips ||
        (animation.fadeFromClip != InstanceAnimation::kNoFade && animation.fadeFromClip >= clips)) {
        throw InvalidArgument(std::string(function) + ": '" + name() + "': clip " + std::to_string(animation.clip) +
                              (animation.fadeFromClip != InstanceAnimation::kNoFade
                                   ? " fading from clip " + std::to_string(animation.fadeFromClip)
                                   : std::string()) +
                              ", but the set has " + std::to_string(clips) + " clips");
    }
    for (float value : {animation.startTime, animation.speed, animation.fadeFromStartTime, animation.fadeFromSpeed,
                        animation.fadeStart, animation.fadeDuration}) {
        if (!std::isfinite(value)) {
            throw InvalidArgument(std::string(function) + ": '" + name() + "': a time, speed or duration is NaN or Inf");
        }
    }
}

void InstancedMeshNode::setAnimationSet(std::shared_ptr<const AnimationSet> set) {
    refuseIfStatic("InstancedMeshNode::setAnimationSet");
    InstanceStream& stream = m_streams[InstanceStreamId::Animation];
    if (set == nullptr) {
        setAnimationBounds(nullptr);
        m_animationSet.reset();
        stream.reshape(streams::kAnimation, {});  // freed; a renderer drops its copy
        ++m_dataVersion;
        return;
    }
    const std::size_t oldClips = m_animationSet != nullptr ? m_animationSet->clips().size() : 0;
    const bool keep = stream.allocated() && set->clips().size() >= oldClips;
    InstanceStream::Storage fresh;
    if (!keep) {
        fresh.assign(m_capacity * streams::kAnimation.floatsPerInstance, 0.0f);  // may throw: nothing changed
        for (std::size_t i = 0; i < m_capacity; ++i) {
            std::copy_n(streams::kAnimation.defaultRow.begin(), streams::kAnimation.floatsPerInstance,
                        fresh.begin() + static_cast<std::ptrdiff_t>(i * streams::kAnimation.floatsPerInstance));
        }
    }
    setAnimationBounds(set);  // checks every primitive; throws with nothing changed
    if (!keep) {
        stream.reshape(streams::kAnimation, std::move(fresh));
    }
    m_animationSet = std::move(set);
    ++m_dataVersion;
}

void InstancedMeshNode::setAnimation(std::size_t index, const InstanceAnimation& animation) {
    refuseIfStatic("InstancedMeshNode::setAnimation");
    checkIndex(index, "InstancedMeshNode::setAnimation");
    checkAnimation(animation, "InstancedMeshNode::setAnimation");
    InstanceStream& stream = m_streams[InstanceStreamId::Animation];
    const std::array<float, 8> row = animationRow(animation);
    std::copy(row.begin(), row.end(), stream.row(index).begin());
    stream.markChanged(index, index + 1);
    ++m_dataVersion;
}

void InstancedMeshNode::setAnimation(InstanceHandle handle, const InstanceAnimation& animation) {
    checkHandle(handle, "InstancedMeshNode::setAnimation");
    setAnimation(m_handleSlots[handle.slot].index, animation);
}

void InstancedMeshNode::setAnimations(std::size_t first, std::span<const InstanceAnimation> animations) {
    refuseIfStatic("InstancedMeshNode::setAnimations");
    if (first > m_count || animations.size() > m_count - first) {
        throw OutOfRange("InstancedMeshNode::setAnimations: instances " + std::to_string(first) + ".." +
                         std::to_string(first + animations.size()) + " pass count " + std::to_string(m_count));
    }
    for (const InstanceAnimation& animation : animations) {
        checkAnimation(animation, "InstancedMeshNode::setAnimations");
    }
    if (animations.empty()) {
        return;
    }
    InstanceStream& stream = m_streams[InstanceStreamId::Animation];
    for (std::size_t i = 0; i < animations.size(); ++i) {
        const std::array<float, 8> row = animationRow(animations[i]);
        std::copy(row.begin(), row.end(), stream.row(first + i).begin());
    }
    stream.markChanged(first, first + animations.size());
    ++m_dataVersion;
}

InstanceAnimation InstancedMeshNode::animation(std::size_t index) const {
    checkIndex(index, "InstancedMeshNode::animation");
    if (m_animationSet == nullptr) {
        throw InvalidArgument("InstancedMeshNode::animation: '" + name() + "' plays no AnimationSet");
    }
    const std::span<const float> row = m_streams[InstanceStreamId::Animation].row(index);
    InstanceAnimation a;
    a.clip = static_cast<std::uint32_t>(row[0]);
    a.startTime = row[1];
    a.speed = row[2];
    a.fadeStart = row[3];
    a.fadeFromClip = row[4] < 0.0f ? InstanceAnimation::kNoFade : static_cast<std::uint32_t>(row[4]);
    a.fadeFromStartTime = row[5];
    a.fadeFromSpeed = row[6];
    a.fadeDuration = row[7];
    return a;
}

void InstancedMeshNode::setAnimationTime(float seconds) {
    if (!std::isfinite(seconds)) {
        throw InvalidArgument("InstancedMeshNode::setAnimationTime: '" + name() + "': time is NaN or Inf");
    }
    m_animationTime = seconds;
}

void InstancedMeshNode::setLane(InstanceHandle handle, std::size_t lane, const glm::vec4& value) {
    checkHandle(handle, "InstancedMeshNode::setLane");
    setLane(m_handleSlots[handle.slot].index, lane, value);
}

glm::vec4 InstancedMeshNode::lane(InstanceHandle handle, std::size_t lane) const {
    checkHandle(handle, "InstancedMeshNode::lane");
    return this->lane(m_handleSlots[handle.slot].index, lane);
}

void InstancedMeshNode::clearLanes(InstanceHandle handle) {
    checkHandle(handle, "InstancedMeshNode::clearLanes");
    clearLanes(m_handleSlots[handle.slot].index);
}

void InstancedMeshNode::setCastsShadow(std::size_t index, bool casts) {
    refuseIfStatic("InstancedMeshNode::setCastsShadow");
    checkIndex(index, "InstancedMeshNode::setCastsShadow");
    if (m_shadowMask.empty()) {
        if (casts) {
            return;  // every instance casts already: nothing to allocate
        }
        m_shadowMask.assign(m_capacity, 0);  // may throw; nothing changed yet
    }
    const std::uint8_t masked = casts ? 0 : 1;
    m_shadowMasked = m_shadowMasked - m_shadowMask[index] + masked;
    m_shadowMask[index] = masked;
    ++m_dataVersion;
    subtreeChanged();
}

bool InstancedMeshNode::castsShadow(std::size_t index) const {
    checkIndex(index, "InstancedMeshNode::castsShadow");
    return m_shadowMask.empty() || m_shadowMask[index] == 0;
}

void InstancedMeshNode::setCastsShadow(InstanceHandle handle, bool casts) {
    checkHandle(handle, "InstancedMeshNode::setCastsShadow");
    setCastsShadow(m_handleSlots[handle.slot].index, casts);
}

bool InstancedMeshNode::castsShadow(InstanceHandle handle) const {
    checkHandle(handle, "InstancedMeshNode::castsShadow");
    return castsShadow(m_handleSlots[handle.slot].index);
}

void InstancedMeshNode::enterDrawn(std::size_t begin, std::size_t end) {
    // Rows entering [0, count()) must reach the GPU in every stream, whatever it held there
    // before (a row vacated by release() was reset on the CPU only).
    for (InstanceStream& stream : m_streams) {
        if (stream.allocated()) {
            stream.markChanged(begin, end);
        }
    }
}

void InstancedMeshNode::dropHandlesFrom(std::size_t index) noexcept {
    for (std::size_t i = index; i < m_count; ++i) {
        const std::uint32_t slot = m_handleOfRecord[i];
        if (slot != kNoHandle) {
            HandleSlot& handle = m_handleSlots[slot];
            handle.live = false;
            ++handle.generation;
            handle.index = m_freeSlot;
            m_freeSlot = slot;
            m_handleOfRecord[i] = kNoHandle;
            --m_liveHandles;
        }
    }
}

void InstancedMeshNode::setCount(std::size_t count) {
    refuseIfStatic("InstancedMeshNode::setCount");
    if (count > m_capacity) {
        throw CapacityError("InstancedMeshNode::setCount: count " + std::to_string(count) +
                            " > capacity " + std::to_string(m_capacity) +
                            "; call ensureCapacity() first");
    }
    for (std::size_t i = std::min(count, m_count); i < std::max(count, m_count); ++i) {
        if (hasOwnWeights(i)) {
            m_ownWeights = count > m_count ? m_ownWeights + 1 : m_ownWeights - 1;
        }
        if (!m_shadowMask.empty() && m_shadowMask[i] != 0) {
            m_shadowMasked = count > m_count ? m_shadowMasked + 1 : m_shadowMasked - 1;
        }
    }
    if (count > m_count) {
        const InstanceRecord* all = records();
        for (std::size_t i = m_count; i < count; ++i) {
            if (hasOwnWeights(i)) {
                m_boundsValid = false;  // the row's old weights may lie outside the range
            }
            if (m_boundsValid) {
                m_bounds.extend(instanceBox(all[i]));
            }
            if (m_mirroredValid && isMirrored(all[i])) {
                ++m_mirroredCount;
            }
        }
        enterDrawn(m_count, count);
        m_moves.added(m_count, count);
    } else if (count < m_count) {
        dropHandlesFrom(count);
        m_boundsValid = false;
        m_mirroredValid = false;
    }
    m_count = count;
    ++m_dataVersion;
    subtreeChanged();
}

void InstancedMeshNode::clear() {
    refuseIfStatic("InstancedMeshNode::clear");
    dropHandlesFrom(0);
    m_ownWeights = 0;  // rows keep their weights, as records keep theirs
    m_shadowMasked = 0;  // and their shadow mask
    m_count = 0;
    m_bounds = Aabb{};
    m_boundsValid = !m_hasBoundsOverride;
    m_mirroredCount = 0;
    m_mirroredValid = true;
    ++m_dataVersion;
    subtreeChanged();
}

void InstancedMeshNode::ensureCapacity(std::size_t capacity) {
    refuseIfStatic("InstancedMeshNode::ensureCapacity");
    checkCapacity(capacity, "InstancedMeshNode::ensureCapacity");
    if (capacity > m_capacity) {
        // Every array grows or none: reserve all first (may throw), then resize (cannot).
        for (InstanceStream& stream : m_streams) {
            stream.reserve(capacity);
        }
        m_handleOfRecord.reserve(capacity);
        if (!m_shadowMask.empty()) {
            m_shadowMask.reserve(capacity);
        }
        // A batch made with capacity 0 has no record rows yet (allocation is strong).
        m_streams[InstanceStreamId::Record].allocate(capacity);
        for (InstanceStream& stream : m_streams) {
            stream.grow(capacity);
        }
        m_handleOfRecord.resize(capacity, kNoHandle);
        if (!m_shadowMask.empty()) {
            m_shadowMask.resize(capacity, 0);
        }
        m_capacity = capacity;
    }
}

void InstancedMeshNode::shrinkToFit(std::size_t minimumCapacity) {
    refuseIfStatic("InstancedMeshNode::shrinkToFit");
    // At least one row, so every allocated stream stays allocated (a stream's rows are its
    // allocation).
    const std::size_t capacity = std::max({m_count, minimumCapacity, std::size_t{1}});
    if (capacity >= m_capacity) {
        return;
    }
    // Every smaller array is made first (the only steps that can throw), then all are taken.
    std::array<InstanceStream::Storage, InstanceStreamId::Count> rows;
    for (std::size_t s = 0; s < m_streams.size(); ++s) {
        rows[s] = m_streams[s].shrunk(capacity);
    }
    decltype(m_handleOfRecord) handleOfRecord(m_handleOfRecord.begin(),
                                              m_handleOfRecord.begin() + static_cast<std::ptrdiff_t>(capacity));
    std::vector<std::uint8_t> shadowMask;
    if (!m_shadowMask.empty()) {
        shadowMask.assign(m_shadowMask.begin(), m_shadowMask.begin() + static_cast<std::ptrdiff_t>(capacity));
    }
    for (std::size_t s = 0; s < m_streams.size(); ++s) {
        m_streams[s].adopt(std::move(rows[s]));
    }
    m_handleOfRecord = std::move(handleOfRecord);
    m_shadowMask = std::move(shadowMask);
    m_capacity = capacity;
    ++m_dataVersion;
    subtreeChanged();
}

void InstancedMeshNode::prepareAppend(const char* function) {
    if (m_count < m_capacity) {
        return;
    }
    if (m_growth == Growth::Double) {
        const std::size_t grown = std::min(maxCapacity, std::max<std::size_t>(16, m_capacity * 2));
        if (grown > m_capacity) {
            ensureCapacity(grown);
            return;
        }
    }
    throw CapacityError(std::string(function) + ": batch '" + name() + "' is full (" +
                        std::to_string(m_count) + " of capacity " +
                        std::to_string(m_capacity) + "); call ensureCapacity() first");
}

std::size_t InstancedMeshNode::addInstance(const glm::mat4& transform, const glm::vec4& color) {
    refuseIfStatic("InstancedMeshNode::addInstance");
    checkTransform(transform, "InstancedMeshNode::addInstance", name());
    checkColor(color, "InstancedMeshNode::addInstance");
    prepareAppend("InstancedMeshNode::addInstance");
    appendUnchecked(transform, color, kNoHandle);
    return m_count - 1;
}

void InstancedMeshNode::appendUnchecked(const glm::mat4& transform, const glm::vec4& color, std::uint32_t handleSlot) {
    const std::size_t index = m_count;
    InstanceRecord& record = records()[index];
    storeTransform(record, transform, color);
    m_handleOfRecord[index] = handleSlot;
    if (hasSideRows()) {
        if (!m_shadowMask.empty()) {
            m_shadowMask[index] = 0;  // a new instance casts
        }
        // A new instance starts with every side stream's default (the node's morph weights,
        // ...), not what an earlier clear() or smaller count left in the row.
        for (std::size_t stream = InstanceStreamId::Record + 1; stream < m_streams.size(); ++stream) {
            if (m_streams[stream].allocated()) {
                m_streams[stream].reset(index);
            }
        }
    }
    if (m_boundsValid) {
        m_bounds.extend(instanceBox(record));
    }
    if (m_mirroredValid && isMirrored(record)) {
        ++m_mirroredCount;
    }
    ++m_count;
    // Rows entering the drawn range are marked in every stream (enterDrawn); the side streams
    // were marked by reset() above, so the record stream is the one left.
    m_streams[InstanceStreamId::Record].markChanged(index, index + 1);
    m_moves.added(index, index + 1);  // a new instance has no previous transform
    ++m_dataVersion;
    subtreeChanged();
}

bool InstancedMeshNode::hasSideRows() const noexcept {
    // Every stream past the record, whatever its kind: one listed by name here was forgotten
    // once (the animation stream), and its rows stayed behind when release() moved a record.
    return !m_shadowMask.empty() || std::any_of(m_streams.begin() + InstanceStreamId::Record + 1, m_streams.end(),
                                                [](const InstanceStream& stream) { return stream.allocated(); });
}

void InstancedMeshNode::noteMovedFrom(const Aabb& oldBox, const Aabb& newBox) noexcept {
    if (!m_boundsValid) {
        return;
    }
    // An instance that defined part of the boundary and now sits elsewhere may have been the
    // only one there: the bounds can only shrink by a full pass, done lazily on the next read.
    if (touches(oldBox, m_bounds) && !newBox.contains(oldBox)) {
        m_boundsValid = false;
        return;
    }
    m_bounds.extend(newBox);
}

void InstancedMeshNode::setTransform(std::size_t index, const glm::mat4& transform) {
    refuseIfStatic("InstancedMeshNode::setTransform");
    checkIndex(index, "InstancedMeshNode::setTransform");
    checkTransform(transform, "InstancedMeshNode::setTransform", name());
    InstanceRecord& record = records()[index];
    const Aabb oldBox = m_boundsValid ? instanceBox(record) : Aabb{};
    const bool wasMirrored = m_mirroredValid && isMirrored(record);
    storeTransform(record, transform, record.color);
    if (m_boundsValid) {
        noteMovedFrom(oldBox, instanceBox(record));
    }
    if (m_mirroredValid) {
        m_mirroredCount = m_mirroredCount - (wasMirrored ? 1 : 0) + (isMirrored(record) ? 1 : 0);
    }
    m_streams[InstanceStreamId::Record].markChanged(index, index + 1);
    ++m_dataVersion;
    subtreeChanged();
}

void InstancedMeshNode::setColor(std::size_t index, const glm::vec4& color) {
    refuseIfStatic("InstancedMeshNode::setColor");
    checkIndex(index, "InstancedMeshNode::setColor");
    checkColor(color, "InstancedMeshNode::setColor");
    records()[index].color = color;
    m_streams[InstanceStreamId::Record].markChanged(index, index + 1);
    ++m_dataVersion;
    subtreeChanged();
}

glm::mat4 InstancedMeshNode::readTransform(std::size_t index) const {
    checkIndex(index, "InstancedMeshNode::readTransform");
    return unpackTransform(records()[index]);
}

glm::vec4 InstancedMeshNode::readColor(std::size_t index) const {
    checkIndex(index, "InstancedMeshNode::readColor");
    return records()[index].color;
}

const InstanceRecord& InstancedMeshNode::record(std::size_t index) const {
    checkIndex(index, "InstancedMeshNode::record");
    return records()[index];
}

InstanceHandle InstancedMeshNode::acquire(const InstanceDesc& desc) {
    refuseIfStatic("InstancedMeshNode::acquire");
    // At a million live instances a release + acquire pair waits on three or four cache misses;
    // what overlaps them is the out-of-order window, and every instruction and store of the
    // pair takes room in it. So the path is kept short: the checks are a few SIMD operations,
    // the record is written once, the slot is named while appending (docs/performance.md).
    checkTransform(desc.transform, "InstancedMeshNode::acquire", name());
    checkColor(desc.color, "InstancedMeshNode::acquire");
    if (m_count == m_capacity) {
        prepareAppend("InstancedMeshNode::acquire");  // grows, or throws with nothing changed
    }
    if (m_freeSlot == kNoHandle && m_handleSlots.size() == m_handleSlots.capacity()) {
        // The only allocation, made before anything changes; geometric, so acquiring N handles
        // costs O(N) in all (reserve(size + 1) would reallocate on every call).
        m_handleSlots.reserve(std::max<std::size_t>(16, m_handleSlots.capacity() * 2));
    }
    const std::size_t index = m_count;
    const bool reused = m_freeSlot != kNoHandle;
    const auto slot = reused ? m_freeSlot : static_cast<std::uint32_t>(m_handleSlots.size());
    appendUnchecked(desc.transform, desc.color, slot);  // checked above: no second check
    if (reused) {
        m_freeSlot = m_handleSlots[slot].index;
    } else {
        m_handleSlots.push_back({});  // reserved above: cannot throw
    }
    HandleSlot& handle = m_handleSlots[slot];
    handle.index = static_cast<std::uint32_t>(index);
    handle.live = true;
    ++m_liveHandles;
    return {id(), slot, handle.generation};
}

void InstancedMeshNode::checkHandle(InstanceHandle handle, const char* function) const {
    if (isLive(handle)) {
        return;
    }
    refuseHandle(handle, function);
}

void InstancedMeshNode::refuseHandle(InstanceHandle handle, const char* function) const {
    if (handle.isNull()) {
        throw InvalidArgument(std::string(function) + ": the handle is null");
    }
    if (handle.batch != id()) {
        throw InvalidArgument(std::string(function) + ": the handle belongs to another batch (id " +
                              std::to_string(handle.batch) + ", this is '" + name() + "' id " +
                              std::to_string(id()) + ")");
    }
    if (handle.slot >= m_handleSlots.size() || !m_handleSlots[handle.slot].live ||
        m_handleSlots[handle.slot].generation != handle.generation) {
        throw InvalidArgument(std::string(function) + ": the handle (slot " +
                              std::to_string(handle.slot) + ", generation " +
                              std::to_string(handle.generation) +
                              ") was released or is stale");
    }
    throw InvalidArgument(std::string(function) + ": the handle is not live");  // not reached
}

bool InstancedMeshNode::isLive(InstanceHandle handle) const noexcept {
    return !handle.isNull() && handle.batch == id() && handle.slot < m_handleSlots.size() &&
           m_handleSlots[handle.slot].live &&
           m_handleSlots[handle.slot].generation == handle.generation;
}

std::size_t InstancedMeshNode::indexOf(InstanceHandle handle) const {
    checkHandle(handle, "InstancedMeshNode::indexOf");
    return m_handleSlots[handle.slot].index;
}

void InstancedMeshNode::release(InstanceHandle handle) {
    refuseIfStatic("InstancedMeshNode::release");
    checkHandle(handle, "InstancedMeshNode::release");
    HandleSlot& released = m_handleSlots[handle.slot];
    const std::size_t index = released.index;
    const std::size_t last = m_count - 1;
    InstanceRecord* all = records();
    // The removed record is read only to keep valid bounds valid. With the bounds already
    // stale (a moving batch), the mirrored count goes stale too: the one recompute pass does
    // both, and the record is then only written, a store that does not wait for memory (at 1M
    // instances a random record read is a full cache and TLB miss, 300+ ns on a VM).
    if (m_boundsValid) {
        if (touches(instanceBox(all[index]), m_bounds)) {
            m_boundsValid = false;
        }
        if (m_mirroredValid && isMirrored(all[index])) {
            --m_mirroredCount;
        }
    } else {
        m_mirroredValid = false;
    }
    // Swap-remove in every stream alike: the last drawn row (and whatever names it) moves into
    // the hole, and the vacated row goes back to its default, marked changed like any other.
    // The record stream (always allocated) inline; streams never used are not touched, and a
    // batch without side rows skips them in one branch (the pair's path is kept short, see
    // acquire()).
    if (index != last) {
        all[index] = all[last];
        m_streams[InstanceStreamId::Record].markChanged(index, index + 1);
        m_moves.move(last, index);  // previous transforms follow the moved instance
    }
    if (hasSideRows()) {
        if (hasOwnWeights(index)) {
            --m_ownWeights;
        }
        if (!m_shadowMask.empty()) {
            // The mask moves with its instance like a stream row; the vacated row casts again.
            m_shadowMasked -= m_shadowMask[index];
            m_shadowMask[index] = m_shadowMask[last];
            m_shadowMask[last] = 0;
        }
        for (std::size_t s = InstanceStreamId::Record + 1; s < m_streams.size(); ++s) {
            InstanceStream& stream = m_streams[s];
            if (stream.allocated()) {
                if (index != last) {
                    stream.move(last, index);
                }
                stream.reset(last);
            }
        }
    }
    if (index != last) {
        const std::uint32_t movedSlot = m_handleOfRecord[last];
        m_handleOfRecord[index] = movedSlot;
        if (movedSlot != kNoHandle) {
            m_handleSlots[movedSlot].index = static_cast<std::uint32_t>(index);
        }
    }
    m_handleOfRecord[last] = kNoHandle;
    released.live = false;
    ++released.generation;
    released.index = m_freeSlot;
    m_freeSlot = handle.slot;
    --m_liveHandles;
    --m_count;
    ++m_dataVersion;
    subtreeChanged();
}

void InstancedMeshNode::release(std::span<const InstanceHandle> handles) {
    refuseIfStatic("InstancedMeshNode::release");
    // Validate all first (strong guarantee): each checked handle is marked not live for the
    // check, so one given twice is refused as released; the marks are undone either way.
    std::size_t checked = 0;
    try {
        for (; checked < handles.size(); ++checked) {
            checkHandle(handles[checked], "InstancedMeshNode::release");
            m_handleSlots[handles[checked].slot].live = false;
        }
    } catch (...) {
        for (std::size_t i = 0; i < checked; ++i) {
            m_handleSlots[handles[i].slot].live = true;
        }
        throw;
    }
    for (const InstanceHandle& handle : handles) {
        m_handleSlots[handle.slot].live = true;
    }
    for (std::size_t i = 0; i < handles.size(); ++i) {
        // Memory-level parallelism: the slot of a handle a few ahead is fetched while this one
        // is removed (a release is a chain of dependent loads: handle -> slot -> record).
        constexpr std::size_t kAhead = 8;
        if (i + kAhead < handles.size()) {
            __builtin_prefetch(&m_handleSlots[handles[i + kAhead].slot], 1);
        }
        if (i + kAhead / 2 < handles.size()) {
            const HandleSlot& ahead = m_handleSlots[handles[i + kAhead / 2].slot];
            __builtin_prefetch(records() + ahead.index, 1);
            __builtin_prefetch(&m_handleOfRecord[ahead.index], 1);
        }
        release(handles[i]);
    }
}

std::span<float> InstancedMeshNode::instanceData() {
    refuseIfStatic("InstancedMeshNode::instanceData");
    return m_streams[InstanceStreamId::Record].data();
}

void InstancedMeshNode::refuseStatic(const char* function) const {
    throw StateError(std::string(function) + ": '" + name() +
                     "' is static (setStatic(true)): its instances cannot change; setStatic(false) first");
}

void InstancedMeshNode::setStatic(bool frozen) {
    if (frozen && !m_static) {
        (void)localBounds();  // computed once, now: nothing can make it stale while frozen
    }
    m_static = frozen;
}

std::span<const float> InstancedMeshNode::instanceData() const noexcept {
    return m_streams[InstanceStreamId::Record].data();
}

std::span<const std::byte> InstancedMeshNode::instanceBytes() const noexcept {
    return {reinterpret_cast<const std::byte*>(records()), m_count * strideInBytes};
}

void InstancedMeshNode::markInstancesChanged(std::size_t first, std::size_t count) {
    refuseIfStatic("InstancedMeshNode::markInstancesChanged");
    if (count == SIZE_MAX) {
        first = 0;
        count = m_count;
    }
    if (first > m_capacity || count > m_capacity - first) {
        throw OutOfRange("InstancedMeshNode::markInstancesChanged: records [" +
                         std::to_string(first) + ", " + std::to_string(first) + " + " +
                         std::to_string(count) + ") run past capacity " +
                         std::to_string(m_capacity));
    }
    m_streams[InstanceStreamId::Record].markChanged(first, first + count);
    m_boundsValid = false;
    m_mirroredValid = false;
    ++m_dataVersion;
    subtreeChanged();
}

void InstancedMeshNode::refreshDerived(std::byte* destination) const noexcept {
    // One pass over the records for whatever is stale: the bounds (Arvo's box per record, as
    // instanceBox()) and the mirrored count, and the copy a streaming renderer wants, so each
    // record is read once (src/core/RecordPass.cpp: SSE2, four records a step).
    const bool bounds = boundsStale();
    const bool mirrored = !m_mirroredValid;
    if (!bounds && !mirrored && destination == nullptr) {
        return;
    }
    if (bounds) {
        refreshInstanceMeshBox();  // the (morphed, every-primitive) mesh box of each instance
    }
    const Aabb& mesh = m_instanceMeshBox;
    detail::RecordPassResult result;
    detail::recordPass(m_streams[InstanceStreamId::Record].data().data(), m_count, bounds, mirrored, mesh.centre(),
                       mesh.halfExtent(), destination, result);
    if (bounds) {
        m_bounds = m_count == 0 ? Aabb{} : Aabb{result.min, result.max};
        m_boundsValid = true;
    }
    if (mirrored) {
        m_mirroredCount = result.mirrored;
        m_mirroredValid = true;
    }
}

void InstancedMeshNode::copyDrawnRecords(std::span<std::byte> destination) const {
    const std::size_t bytes = m_count * strideInBytes;
    if (destination.size() < bytes) {
        throw InvalidArgument("InstancedMeshNode::copyDrawnRecords: " + std::to_string(destination.size()) +
                              " bytes for " + std::to_string(m_count) + " records of " +
                              std::to_string(strideInBytes) + " bytes");
    }
    refreshDerived(destination.data());  // with no records, the pass copies nothing
}

const Aabb& InstancedMeshNode::localBounds() const {
    if (m_hasBoundsOverride) {
        return m_boundsOverride;
    }
    if (boundsStale()) {
        refreshDerived(nullptr);
    }
    return m_bounds;
}

std::size_t InstancedMeshNode::mirroredCount() const {
    if (!m_mirroredValid) {
        refreshDerived(nullptr);
    }
    return m_mirroredCount;
}

void InstancedMeshNode::setBoundsOverride(const Aabb& bounds) {
    if (bounds.empty() || !detail::allFinite(bounds.min) || !detail::allFinite(bounds.max)) {
        throw InvalidArgument("InstancedMeshNode::setBoundsOverride: the box is empty or has NaN/Inf");
    }
    m_boundsOverride = bounds;
    m_hasBoundsOverride = true;
    // Writes keep no computed bounds while overridden (they test m_boundsValid first).
    m_boundsValid = false;
    subtreeChanged();
}

void InstancedMeshNode::clearBoundsOverride() noexcept {
    m_hasBoundsOverride = false;
    m_boundsValid = false;  // recomputed on the next read
    subtreeChanged();
}

} // namespace myriad
