#include "myriad/core/InstanceStream.h"

#include "myriad/core/InstanceRecord.h"
#include "myriad/core/MorphTargets.h"
#include "myriad/util/Error.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <new>
#include <string>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace myriad {

namespace {

/** The cursor of @p consumer in @p cursors (ChangeLog's or MoveLog's fixed slots): its own,
 *  else a free one, else the one furthest behind, evicted (its next read fails, as its cursor
 *  is below the log's new base, and it starts over). */
template <class Cursors>
auto* cursorSlot(Cursors& cursors, std::uint64_t consumer) noexcept {
    for (auto& cursor : cursors) {
        if (cursor.consumer == consumer) {
            return &cursor;
        }
    }
    for (auto& cursor : cursors) {
        if (cursor.consumer == 0) {
            return &cursor;
        }
    }
    return &*std::min_element(cursors.begin(), cursors.end(),
                              [](const auto& a, const auto& b) { return a.version < b.version; });
}

} // namespace

void mergeIndexRanges(std::vector<IndexRange>& ranges, std::size_t gap) {
    std::sort(ranges.begin(), ranges.end(),
              [](const IndexRange& a, const IndexRange& b) { return a.begin < b.begin; });
    std::size_t out = 0;
    for (std::size_t i = 1; i < ranges.size(); ++i) {
        if (ranges[i].begin <= ranges[out].end + gap) {
            ranges[out].end = std::max(ranges[out].end, ranges[i].end);
        } else {
            ranges[++out] = ranges[i];
        }
    }
    ranges.resize(ranges.empty() ? 0 : out + 1);
}

// ---- large arrays --------------------------------------------------------------------------

namespace detail {

void* allocateLargeArray(std::size_t bytes) {
    constexpr std::size_t kAlignment = 64;
    const std::size_t rounded = (std::max<std::size_t>(bytes, 1) + kAlignment - 1) / kAlignment * kAlignment;
    void* pointer = std::aligned_alloc(kAlignment, rounded);
    if (pointer == nullptr) {
        throw std::bad_alloc();
    }
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (bytes >= kLargeArrayBytes) {
        // Only the pages wholly inside the block; advice, so a refusal changes nothing.
        const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
        const auto begin = (reinterpret_cast<std::uintptr_t>(pointer) + page - 1) / page * page;
        const auto end = (reinterpret_cast<std::uintptr_t>(pointer) + rounded) / page * page;
        if (end > begin) {
            (void)madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
        }
    }
#endif
    return pointer;
}

void freeLargeArray(void* pointer) noexcept { std::free(pointer); }

} // namespace detail

// ---- ChangeLog ---------------------------------------------------------------------------

void ChangeLog::addSlow(std::size_t begin, std::size_t end, std::uint64_t version) noexcept {
    if (begin >= end) {
        return;
    }
    try {
        m_entries.push_back({begin, end, version});
    } catch (const std::bad_alloc&) {
        // No memory for one more entry. The write being logged has already happened (a node
        // logs after it changes its rows), so the log must not throw: it widens its newest
        // entry over this range too (clean rows between may be re-sent, a dirty one never
        // missed), or, holding none, moves its base past this version, so that every consumer
        // behind re-sends the whole stream, as an evicted one does.
        if (m_entries.empty()) {
            m_base = std::max(m_base, version);
        } else {
            Entry& newest = m_entries.back();
            newest.begin = std::min(newest.begin, begin);
            newest.end = std::max(newest.end, end);
            newest.version = version;
        }
        return;
    }
    if (m_entries.size() > kMaxEntries) {
        // Bounded: merge with ever wider gaps, each merged entry keeping its newest version,
        // so a consumer may re-send clean rows but never misses a changed one. Down to an
        // eighth, so the O(n log n) merge runs once per 3,584 scattered writes, not per 2,048.
        std::size_t gap = kDirtyRangeMergeGap;
        while (m_entries.size() > kMaxEntries / 8) {
            gap *= 4;
            std::sort(m_entries.begin(), m_entries.end(),
                      [](const Entry& a, const Entry& b) { return a.begin < b.begin; });
            std::size_t out = 0;
            for (std::size_t i = 1; i < m_entries.size(); ++i) {
                Entry& kept = m_entries[out];
                if (m_entries[i].begin <= kept.end + gap) {
                    kept.end = std::max(kept.end, m_entries[i].end);
                    kept.version = std::max(kept.version, m_entries[i].version);
                } else {
                    m_entries[++out] = m_entries[i];
                }
            }
            m_entries.resize(out + 1);
        }
    }
}

bool ChangeLog::collect(std::uint64_t since, std::vector<IndexRange>& out) const {
    if (since < m_base) {
        return false;
    }
    const std::size_t first = out.size();
    for (const Entry& entry : m_entries) {
        if (entry.version > since) {
            out.push_back({entry.begin, entry.end});
        }
    }
    if (out.size() - first > 1) {
        // Merge the appended tail in place: the caller's vector is reused frame to frame, so
        // collecting allocates nothing once it is warm.
        const auto tail = out.begin() + static_cast<std::ptrdiff_t>(first);
        std::sort(tail, out.end(), [](const IndexRange& a, const IndexRange& b) { return a.begin < b.begin; });
        std::size_t kept = first;
        for (std::size_t i = first + 1; i < out.size(); ++i) {
            if (out[i].begin <= out[kept].end + kDirtyRangeMergeGap) {
                out[kept].end = std::max(out[kept].end, out[i].end);
            } else {
                out[++kept] = out[i];
            }
        }
        out.resize(kept + 1);
    }
    return true;
}

void ChangeLog::acknowledge(std::uint64_t consumer, std::uint64_t version) {
    auto* slot = cursorSlot(m_cursors, consumer);
    slot->consumer = consumer;
    slot->version = version;
    trim();
}

void ChangeLog::forget(std::uint64_t consumer) noexcept {
    for (Cursor& cursor : m_cursors) {
        if (cursor.consumer == consumer) {
            cursor = Cursor{};
        }
    }
    trim();
}

void ChangeLog::trim() {
    std::uint64_t oldest = std::numeric_limits<std::uint64_t>::max();
    bool any = false;
    for (const Cursor& cursor : m_cursors) {
        if (cursor.consumer != 0) {
            oldest = std::min(oldest, cursor.version);
            any = true;
        }
    }
    if (!any) {
        return;  // nobody has uploaded yet: keep everything
    }
    m_base = std::max(m_base, oldest);
    std::erase_if(m_entries, [&](const Entry& entry) { return entry.version <= oldest; });
}

std::vector<IndexRange> ChangeLog::pendingRanges() const {
    std::vector<IndexRange> ranges;
    for (const Entry& entry : m_entries) {
        ranges.push_back({entry.begin, entry.end});
    }
    mergeIndexRanges(ranges, kDirtyRangeMergeGap);
    return ranges;
}

// ---- InstanceStream ------------------------------------------------------------------------

void InstanceStream::allocate(std::size_t capacity) {
    if (allocated() || capacity == 0) {
        return;
    }
    const std::size_t width = m_desc->floatsPerInstance;
    std::vector<float, detail::LargeArrayAllocator<float>> data(capacity * width);
    for (std::size_t i = 0; i < capacity; ++i) {
        std::copy_n(m_desc->defaultRow.begin(), width, data.begin() + static_cast<std::ptrdiff_t>(i * width));
    }
    m_data = std::move(data);
}

void InstanceStream::reserve(std::size_t capacity) {
    if (allocated()) {
        m_data.reserve(capacity * m_desc->floatsPerInstance);
    }
}

void InstanceStream::grow(std::size_t capacity) {
    const std::size_t old = this->capacity();
    if (!allocated() || capacity <= old) {
        return;
    }
    const std::size_t width = m_desc->floatsPerInstance;
    m_data.resize(capacity * width);
    for (std::size_t i = old; i < capacity; ++i) {
        std::copy_n(m_desc->defaultRow.begin(), width, m_data.begin() + static_cast<std::ptrdiff_t>(i * width));
    }
}

InstanceStream::Storage InstanceStream::shrunk(std::size_t capacity) const {
    if (!allocated()) {
        return {};
    }
    const std::size_t rows = std::min(capacity, this->capacity());
    const auto end = m_data.begin() + static_cast<std::ptrdiff_t>(rows * m_desc->floatsPerInstance);
    return Storage(m_data.begin(), end);
}

void InstanceStream::adopt(Storage rows) noexcept {
    if (!allocated()) {
        return;
    }
    m_data = std::move(rows);
    markChanged(0, capacity());
}

void InstanceStream::reshape(const InstanceStreamDesc& desc, Storage rows) noexcept {
    m_desc = &desc;
    m_data = std::move(rows);
    ++m_shapeVersion;
    // Every row changed, allocated or not: the version moves on either way, so no renderer
    // mistakes its copy of the old width for the current one.
    markChanged(0, capacity());
}

void InstanceStream::move(std::size_t from, std::size_t to) {
    if (!allocated() || from == to) {
        return;
    }
    const std::size_t width = m_desc->floatsPerInstance;
    std::copy_n(m_data.data() + from * width, width, m_data.data() + to * width);
    markChanged(to, to + 1);
}

void InstanceStream::reset(std::size_t index) {
    if (!allocated()) {
        return;
    }
    std::copy_n(m_desc->defaultRow.begin(), m_desc->floatsPerInstance,
                m_data.data() + index * m_desc->floatsPerInstance);
    markChanged(index, index + 1);
}

// ---- the built-in streams --------------------------------------------------------------

namespace streams {

const InstanceStreamDesc kRecord{
    "record",
    16,
    StreamBinding::VertexAttributes,
    location::kInstanceRow0,
    0,
    {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 1, 1, 1},
    "three rows of the affine node-from-instance matrix, then linear RGBA",
};

const InstanceStreamDesc kMorphWeights{
    "morphWeights",
    kMaxMorphTargets,
    StreamBinding::BufferTexture,
    0,
    kMorphWeightsUnit,
    {-1.0e30f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    "per-instance morph-target weights; a first weight of -1e30 means the node's weights",
};

const InstanceStreamDesc kAnimation{
    "animation",
    8,
    StreamBinding::BufferTexture,
    0,
    kAnimationUnit,
    {0, 0, 1, 0, -1, 0, 1, 0},
    "per-instance clip playback: (clip, start time, speed, fade start), (fade-from clip or -1, its start time, its speed, fade duration)",
};

const InstanceStreamDesc kLightChannels{
    "lightChannels",
    4,
    StreamBinding::BufferTexture,
    0,
    kLightChannelsUnit,
    {65535, 65535, 0, 0},
    "the light channels an instance accepts: the mask's low and high 16 bits as whole floats, 0, 0",
};

namespace {
/** streams::lanes(count) for count 1..kMaxLanes, built once. */
constexpr std::array<InstanceStreamDesc, kMaxLanes> makeLaneDescs() {
    std::array<InstanceStreamDesc, kMaxLanes> descs{};
    for (std::size_t count = 1; count <= kMaxLanes; ++count) {
        descs[count - 1] = InstanceStreamDesc{
            "lanes",
            static_cast<std::uint32_t>(4 * count),
            StreamBinding::BufferTexture,
            0,
            kLanesUnit,
            {},
            "vec4 lanes of shader data per instance (the batch's laneCount); a lane never given reads (0, 0, 0, 0)",
        };
    }
    return descs;
}
constexpr std::array<InstanceStreamDesc, kMaxLanes> kLaneDescs = makeLaneDescs();
} // namespace

const InstanceStreamDesc& lanes(std::size_t count) {
    if (count == 0 || count > kMaxLanes) {
        throw OutOfRange("streams::lanes: " + std::to_string(count) + " lanes; 1.." + std::to_string(kMaxLanes) +
                         " are allowed");
    }
    return kLaneDescs[count - 1];
}

const InstanceStreamDesc& kLanes = kLaneDescs[3];

} // namespace streams

// ---- MoveLog ----------------------------------------------------------------------------------

void MoveLog::push(const Entry& entry) noexcept {
    if (m_entries.size() == kMaxEntries) {
        // Full: the older half goes; a consumer that had not applied it starts again (since()
        // returns false for it).
        const std::size_t dropped = kMaxEntries / 2;
        m_base = m_entries[dropped - 1].version;
        m_entries.erase(m_entries.begin(), m_entries.begin() + static_cast<std::ptrdiff_t>(dropped));
    }
    m_version = entry.version;
    try {
        m_entries.push_back(entry);
    } catch (const std::bad_alloc&) {
        // Logged after the node changed, so never thrown: every consumer starts again instead.
        m_entries.clear();
        m_base = m_version;
    }
}

bool MoveLog::since(std::uint64_t since, std::vector<Entry>& out) const {
    if (since < m_base) {
        return false;
    }
    for (const Entry& entry : m_entries) {
        if (entry.version > since) {
            out.push_back(entry);
        }
    }
    return true;
}

void MoveLog::acknowledge(std::uint64_t consumer, std::uint64_t version) noexcept {
    if (consumer == 0) {
        return;  // 0 marks a free cursor: it would switch logging on with no one to trim it
    }
    if (!m_active) {
        m_active = true;
        m_base = m_version;  // nothing before this was logged
    }
    auto* slot = cursorSlot(m_cursors, consumer);
    slot->consumer = consumer;
    slot->version = version;
    m_newestSeen = std::max(m_newestSeen, version);
    trim();
}

void MoveLog::forget(std::uint64_t consumer) noexcept {
    bool any = false;
    for (Cursor& cursor : m_cursors) {
        if (cursor.consumer == consumer) {
            cursor = Cursor{};
        }
        any = any || cursor.consumer != 0;
    }
    if (!any) {
        // Nobody follows the log: stop recording (and give the storage back).
        m_active = false;
        m_base = m_version;
        std::vector<Entry>().swap(m_entries);
        return;
    }
    trim();
}

void MoveLog::trim() noexcept {
    std::uint64_t oldest = std::numeric_limits<std::uint64_t>::max();
    for (const Cursor& cursor : m_cursors) {
        if (cursor.consumer != 0) {
            oldest = std::min(oldest, cursor.version);
        }
    }
    if (oldest == std::numeric_limits<std::uint64_t>::max()) {
        return;
    }
    // An evicted consumer's cursor may be behind entries already dropped: keep the base.
    m_base = std::max(m_base, std::min(oldest, m_version));
    std::erase_if(m_entries, [&](const Entry& entry) { return entry.version <= oldest; });
}

} // namespace myriad
