#pragma once
/** @file
 *  Per-instance streams: one array per kind of per-instance data, with change tracking.
 *
 *  An instanced node keeps its per-instance data as streams: the 64-byte transform-and-colour
 *  record is the first, per-instance morph weights another, and later kinds (shader-data lanes,
 *  material index, particle attributes) are more. Every stream shares one implementation of
 *  growth, swap-remove moves, resets, dirty ranges and upload cursors, so a row that release(),
 *  setCount(), clear() or growth moves or vacates reaches the GPU in every stream alike.
 *  One InstanceStreamDesc per stream drives both the GL binding and the GLSL declaration
 *  (see docs/architecture.md, "Instance streams"). */
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace myriad {

/** How a renderer sends a batch's records (InstancedMeshNode::setUploadMode) or a particle
 *  pool's streams (ParticlePool::setUploadMode) to the GPU. Byte counts below are a batch's;
 *  a pool's are the same with its bytes per particle in place of 64. */
enum class UploadMode : std::uint8_t {
    /** Changed rows go through the renderer's staging ring into one GPU buffer (a batch's
     *  default; a particle pool's is Automatic):
     *  a static or sparsely changing batch costs nothing or only its changed rows. GPU memory:
     *  capacity() * 64 bytes. */
    Staged,
    /** For batches whose every instance moves every frame (a swarm, a crowd, debris): each
     *  frame the drawn records are written straight into the next third of a persistently
     *  mapped buffer of 3 * capacity() * 64 bytes, after waiting on the fence of the frame that
     *  last read that third (triple buffering, as in "Approaching Zero Driver Overhead", GDC
     *  2014). One CPU copy per frame instead of staging copy + GPU copy; a frame with no change
     *  sends nothing. GPU memory: 3 * capacity() * 64 bytes (a 1M-instance batch: 192 MiB). */
    Streaming,
    /** Staged until three frames in a row each changed at least half of the drawn records, then
     *  Streaming for the rest of the batch's life in that renderer (its memory cost then). */
    Automatic,
};


namespace detail {
/** Bytes from which an instance array asks the kernel for 2 MiB pages (one TLB entry per
 *  2 MiB instead of per 4 KiB). */
inline constexpr std::size_t kLargeArrayBytes = std::size_t{2} << 20;
/** Allocates @p bytes aligned to 64 (one record per cache line, never two); from
 *  kLargeArrayBytes on, also advises transparent huge pages for it (Linux madvise
 *  MADV_HUGEPAGE; elsewhere nothing). At a million instances a random handle, slot or record
 *  is a TLB miss on 4 KiB pages, which on a virtual machine costs a nested page walk.
 *  @throws std::bad_alloc. */
[[nodiscard]] void* allocateLargeArray(std::size_t bytes);
/** Frees what allocateLargeArray() returned (null: nothing). */
void freeLargeArray(void* pointer) noexcept;

/** std::allocator for the per-instance arrays (streams, handle tables): 64-byte aligned, huge
 *  pages when large (allocateLargeArray()). Stateless: every instance compares equal. */
template <class T>
struct LargeArrayAllocator {
    using value_type = T;
    LargeArrayAllocator() noexcept = default;
    template <class U>
    LargeArrayAllocator(const LargeArrayAllocator<U>&) noexcept {}  // NOLINT: rebinding converts implicitly
    [[nodiscard]] T* allocate(std::size_t n) { return static_cast<T*>(allocateLargeArray(n * sizeof(T))); }
    void deallocate(T* pointer, std::size_t) noexcept { freeLargeArray(pointer); }
    template <class U>
    friend bool operator==(const LargeArrayAllocator&, const LargeArrayAllocator<U>&) noexcept {
        return true;
    }
};
} // namespace detail

/** A half-open range of instance indices [begin, end). */
struct IndexRange {
    std::size_t begin = 0;  ///< first instance index in the range
    std::size_t end = 0;    ///< one past the last index; begin == end is an empty range
    /** Equal when both bounds are equal (two empty ranges at different places differ). */
    friend bool operator==(const IndexRange&, const IndexRange&) = default;
};

/** Dirty ranges closer than this many instances are uploaded as one: fewer GPU copies for
 *  clustered writes, a few clean rows re-sent for scattered ones. */
inline constexpr std::size_t kDirtyRangeMergeGap = 16;

/** Sorts @p ranges by begin and merges those that overlap or lie closer than @p gap rows.
 *  O(n log n), in place. */
void mergeIndexRanges(std::vector<IndexRange>& ranges, std::size_t gap);

/** How the GPU reads a stream. */
enum class StreamBinding : std::uint8_t {
    /** Divisor-1 vertex attributes, one vec4 per 4 floats, at consecutive locations from
     *  InstanceStreamDesc::location (ARB_instanced_arrays; honours a draw's base instance). */
    VertexAttributes,
    /** An RGBA32F buffer texture (samplerBuffer) on texture unit InstanceStreamDesc::unit,
     *  read by instance index (gl_InstanceID + the draw's first instance). For data too large or
     *  too rarely used to spend attribute locations on. */
    BufferTexture,
};

/** The one declaration of a stream: its shape, its default row and how GLSL reads it. */
struct InstanceStreamDesc {
    std::string_view name;            ///< GLSL-safe identifier, e.g. "record", "morphWeights"
    std::uint32_t floatsPerInstance;  ///< row width in floats, a multiple of 4 (whole vec4s)
    StreamBinding binding;            ///< vertex attributes or buffer texture; picks location or unit
    std::uint32_t location;           ///< first attribute location (VertexAttributes)
    std::uint32_t unit;               ///< texture unit (BufferTexture)
    std::array<float, 32> defaultRow; ///< what a new or vacated row holds (first floatsPerInstance)
    std::string_view description;     ///< one line for generated docs and GLSL comments
};

/** Which changes an upload consumer (a renderer) has not yet seen, for several consumers at
 *  once: each keeps its own cursor (the version it last uploaded), so two renderers drawing one
 *  node each send only what changed since their own last upload.
 *
 *  Entries are (range, version of its latest write); an entry is dropped once every known
 *  consumer has passed its version. At most kMaxConsumers cursors are kept: a further consumer
 *  evicts the one furthest behind, which then re-sends the stream in full (never too little).
 *  The list is bounded (kMaxEntries): past it, ranges merge with ever wider gaps, so an upload
 *  may carry clean rows along but never misses a dirty one. */
class ChangeLog {
public:
    /** Entries kept before ranges merge with wider gaps: bounds the log's memory
     *  (4096 * 24 bytes) and collect()'s work, whatever the write pattern. */
    static constexpr std::size_t kMaxEntries = 4096;
    /** Consumer cursors kept (renderers drawing the same node); a fifth evicts the one furthest
     *  behind, which then re-uploads the whole stream once. */
    static constexpr std::size_t kMaxConsumers = 4;

    /** Records that rows [begin, end) changed at @p version (> every earlier version).
     *  Inline fast path: a range that touches the newest entry, or the one before it (a
     *  release + acquire pair alternates between a hole and the last row), joins it.
     *  Never throws: a node logs after it has changed its rows, so out of memory for an entry
     *  widens the newest one, or makes every consumer re-send the whole stream. */
    void add(std::size_t begin, std::size_t end, std::uint64_t version) noexcept {
        const std::size_t n = m_entries.size();
        if (n != 0 && begin < end) {
            if (joins(m_entries[n - 1], begin, end, version) ||
                (n > 1 && joins(m_entries[n - 2], begin, end, version))) {
                return;
            }
        }
        addSlow(begin, end, version);
    }
    /** Appends to @p out the ranges changed after @p since, merged within kDirtyRangeMergeGap.
     *  @return false when the log no longer reaches back to @p since (a new or evicted
     *  consumer): send every row then. */
    [[nodiscard]] bool collect(std::uint64_t since, std::vector<IndexRange>& out) const;
    /** Consumer @p consumer (a non-zero id) has uploaded everything up to @p version; entries
     *  every consumer has seen are dropped. */
    void acknowledge(std::uint64_t consumer, std::uint64_t version);
    /** Forgets @p consumer's cursor (a renderer being destroyed). */
    void forget(std::uint64_t consumer) noexcept;
    /** Entries currently held (tests and benchmarks). */
    [[nodiscard]] std::size_t size() const noexcept { return m_entries.size(); }
    /** Ranges not yet seen by every consumer, newest writes included. */
    [[nodiscard]] std::vector<IndexRange> pendingRanges() const;

private:
    struct Entry {
        std::size_t begin;
        std::size_t end;
        std::uint64_t version;
    };
    struct Cursor {
        std::uint64_t consumer = 0;  ///< 0: free slot
        std::uint64_t version = 0;
    };
    static bool joins(Entry& entry, std::size_t begin, std::size_t end, std::uint64_t version) noexcept {
        if (begin <= entry.end + kDirtyRangeMergeGap && end + kDirtyRangeMergeGap >= entry.begin) {
            entry.begin = begin < entry.begin ? begin : entry.begin;
            entry.end = end > entry.end ? end : entry.end;
            entry.version = version;
            return true;
        }
        return false;
    }
    void addSlow(std::size_t begin, std::size_t end, std::uint64_t version) noexcept;
    void trim();

    std::vector<Entry> m_entries;
    std::uint64_t m_base = 0;  ///< changes at versions <= m_base are no longer in the log
    std::array<Cursor, kMaxConsumers> m_cursors{};
};

/** Where a batch's rows went, in order: each swap-remove move of release() (the last drawn row
 *  copied onto a freed one) and each range of rows that entered the drawn range new (an append,
 *  a larger setCount()). For a consumer that keeps a copy of an earlier frame's rows by index:
 *  a renderer's previous transforms for motion vectors (docs/visibility.md, "Motion vectors")
 *  applies the entries since it last looked, in order, so a moved instance keeps its own
 *  previous transform and a new one starts with none (previous = current).
 *
 *  Versioned like ChangeLog, with one cursor per consumer (at most kMaxConsumers; a further one
 *  evicts the one furthest behind). It records nothing until a consumer has acknowledged once
 *  (a batch no renderer tracks pays one branch per release or append), and holds at most
 *  kMaxEntries: past it the older half is dropped, and a consumer that had not seen them is told
 *  (since() returns false) to start again from the rows as they are. 32 bytes an entry, held
 *  only until every consumer has applied it (a frame's moves, in a renderer's use). Logging never
 *  throws: out of memory for an entry drops the log, and every consumer starts again. */
class MoveLog {
public:
    /** Entries kept before the older half is dropped. */
    static constexpr std::size_t kMaxEntries = 4096;
    /** Consumer cursors kept (renderers tracking the same batch). */
    static constexpr std::size_t kMaxConsumers = 4;
    /** Entry::from of a range of new rows. */
    static constexpr std::size_t kNew = ~std::size_t{0};
    /** One event: rows [from, from + count) copied onto [to, to + count) (a move; count 1 from
     *  release()), or with from == kNew, rows [to, to + count) new. */
    struct Entry {
        std::size_t from;   ///< first source row, or kNew for new rows
        std::size_t to;     ///< first destination (or new) row
        std::size_t count;  ///< rows
        std::uint64_t version;  ///< the log's version() after this entry
    };
    /** Row @p from was copied onto row @p to (swap-remove). Never throws. */
    void move(std::size_t from, std::size_t to) noexcept {
        if (m_active) {
            push({from, to, 1, m_version + 1});
        }
    }
    /** Rows [begin, end) entered the drawn range new. Joins the newest entry when it is a new
     *  range ending at @p begin that no consumer has seen. Never throws. */
    void added(std::size_t begin, std::size_t end) noexcept {
        if (!m_active || begin >= end) {
            return;
        }
        if (!m_entries.empty()) {
            Entry& last = m_entries.back();
            if (last.from == kNew && last.to + last.count == begin && last.version > m_newestSeen) {
                last.count += end - begin;
                return;
            }
        }
        push({kNew, begin, end - begin, m_version + 1});
    }
    /** Bumped by every entry (0 until the first). */
    [[nodiscard]] std::uint64_t version() const noexcept { return m_version; }
    /** Appends to @p out the entries after version @p since, oldest first.
     *  @return false when the log no longer reaches back to @p since (entries were dropped, or
     *  the consumer is new): the consumer must start again from the rows as they are now. */
    [[nodiscard]] bool since(std::uint64_t since, std::vector<Entry>& out) const;
    /** Consumer @p consumer (non-zero) has applied everything up to @p version; the first call
     *  of any consumer starts the log. Entries every consumer has applied are dropped. Consumer
     *  0 (a free cursor's mark) is ignored. Never throws. */
    void acknowledge(std::uint64_t consumer, std::uint64_t version) noexcept;
    /** Forgets @p consumer's cursor (a renderer being destroyed); the log stops recording when no
     *  consumer is left. */
    void forget(std::uint64_t consumer) noexcept;
    /** Entries currently held (tests). */
    [[nodiscard]] std::size_t size() const noexcept { return m_entries.size(); }

private:
    struct Cursor {
        std::uint64_t consumer = 0;  ///< 0: free slot
        std::uint64_t version = 0;
    };
    void push(const Entry& entry) noexcept;
    void trim() noexcept;

    std::vector<Entry> m_entries;  ///< grows up to kMaxEntries while active
    std::uint64_t m_version = 0;
    std::uint64_t m_base = 0;        ///< entries at versions <= m_base are no longer held
    std::uint64_t m_newestSeen = 0;  ///< the highest version any consumer has acknowledged
    bool m_active = false;
    std::array<Cursor, kMaxConsumers> m_cursors{};
};

/** One per-instance array: capacity() rows of desc().floatsPerInstance floats, allocated on
 *  first use (a stream a batch never uses allocates nothing), with a version bumped by every
 *  change and a ChangeLog of changed rows.
 *
 *  Ownership: owns its rows. Thread safety: none (one writer; the renderer reads between
 *  writes). Rows hold whatever was written; the stream gives them no meaning. */
class InstanceStream {
public:
    /** An unallocated stream of kind @p desc. Ownership: keeps a pointer to @p desc, which must
     *  outlive the stream (the descriptors in namespace streams are static). */
    explicit InstanceStream(const InstanceStreamDesc& desc) noexcept : m_desc(&desc) {}

    /** The stream's declaration (row width, binding, default row). */
    [[nodiscard]] const InstanceStreamDesc& desc() const noexcept { return *m_desc; }
    /** True once allocate() has run: rows exist (and are uploaded) only from then on. */
    [[nodiscard]] bool allocated() const noexcept { return !m_data.empty(); }
    /** Rows held (0 until allocated). */
    [[nodiscard]] std::size_t capacity() const noexcept {
        return m_data.size() / m_desc->floatsPerInstance;
    }
    /** Allocates @p capacity default rows if not yet allocated. Throws std::bad_alloc; nothing
     *  changes then. */
    void allocate(std::size_t capacity);
    /** Grows an allocated stream to @p capacity rows (new rows default); never shrinks.
     *  Throws std::bad_alloc with nothing changed. Call reserve() first for a no-throw grow. */
    void grow(std::size_t capacity);
    /** Reserves room for @p capacity rows (if allocated) so a later grow() cannot throw. */
    void reserve(std::size_t capacity);
    /** Row storage: what shrunk() hands to adopt(). */
    using Storage = std::vector<float, detail::LargeArrayAllocator<float>>;
    /** The first @p capacity rows (at most capacity()) in storage of exactly that size: the
     *  first half of a shrink, which may throw std::bad_alloc while nothing has changed yet.
     *  Empty when the stream is not allocated. */
    [[nodiscard]] Storage shrunk(std::size_t capacity) const;
    /** The second half: takes @p rows (from shrunk()) as the stream's rows and marks every row
     *  changed (a renderer holding a larger copy re-sends the whole stream). Never throws; a
     *  stream that was not allocated stays so. */
    void adopt(Storage rows) noexcept;
    /** Makes the stream one of kind @p desc holding @p rows (capacity() * the new width floats,
     *  or empty for an unallocated stream): how a node changes a stream's row width
     *  (InstancedMeshNode::setLaneCount). Build @p rows first (that may throw); this never
     *  throws. Bumps version() and shapeVersion() and marks every row changed, so a renderer
     *  holding rows of the old width (or of an allocation since freed) re-sends them all.
     *  Ownership: keeps a pointer to @p desc, which must outlive the stream. */
    void reshape(const InstanceStreamDesc& desc, Storage rows) noexcept;

    /** Row @p index: desc().floatsPerInstance floats. Unchecked: @p index must be below
     *  capacity() (the owning node checks). Writing through it does not mark the row changed:
     *  call markChanged(). Invalidated by grow() and reserve(). */
    [[nodiscard]] std::span<float> row(std::size_t index) noexcept {
        return {m_data.data() + index * m_desc->floatsPerInstance, m_desc->floatsPerInstance};
    }
    /** Row @p index, read-only; unchecked as the mutable overload. */
    [[nodiscard]] std::span<const float> row(std::size_t index) const noexcept {
        return {m_data.data() + index * m_desc->floatsPerInstance, m_desc->floatsPerInstance};
    }
    /** Every row, capacity() * desc().floatsPerInstance floats, row after row (empty until
     *  allocated). Writes through it need markChanged(); invalidated by grow() and reserve(). */
    [[nodiscard]] std::span<float> data() noexcept { return m_data; }
    /** Every row, read-only (what a renderer uploads). */
    [[nodiscard]] std::span<const float> data() const noexcept { return m_data; }

    /** Copies row @p from onto row @p to (swap-remove) and marks @p to changed. */
    void move(std::size_t from, std::size_t to);
    /** Puts row @p index back to the default row and marks it changed. */
    void reset(std::size_t index);
    /** Marks rows [begin, end) changed: bumps version(), logs the range. Inline: it runs once
     *  per setTransform and per stream on every release. */
    void markChanged(std::size_t begin, std::size_t end) noexcept {
        ++m_version;
        m_changes.add(begin, end, m_version);
    }

    /** Bumped by every change. */
    [[nodiscard]] std::uint64_t version() const noexcept { return m_version; }
    /** Bumped by every reshape(): a copy made at another shape version holds rows of another
     *  width, or of an allocation since freed, and must be made again in full. */
    [[nodiscard]] std::uint64_t shapeVersion() const noexcept { return m_shapeVersion; }
    /** The change log (mutable: a renderer acknowledges uploads of a const scene). */
    [[nodiscard]] ChangeLog& changes() const noexcept { return m_changes; }

private:
    const InstanceStreamDesc* m_desc;
    std::vector<float, detail::LargeArrayAllocator<float>> m_data;
    std::uint64_t m_version = 1;
    std::uint64_t m_shapeVersion = 0;
    mutable ChangeLog m_changes;
};

namespace streams {
/** Texture units of the buffer-texture streams below: the renderer's unit map
 *  (src/gl/Bindings.h) is built from these, and checks at compile time that they do not meet
 *  its other units. */
inline constexpr std::uint32_t kMorphWeightsUnit = 2;     ///< kMorphWeights (surface programs)
inline constexpr std::uint32_t kLanesUnit = 3;            ///< lanes() (surface programs)
inline constexpr std::uint32_t kParticleStreamsUnit = 2;  ///< the four particle planes (particle programs)
inline constexpr std::uint32_t kAnimationUnit = 4;        ///< kAnimation's nominal unit (the palette dispatch binds it itself)
inline constexpr std::uint32_t kLightChannelsUnit = 21;   ///< kLightChannels (surface programs)
/** The 64-byte transform-and-colour record (InstanceRecord): attribute locations 4-7. */
extern const InstanceStreamDesc kRecord;
/** Per-instance morph weights: kMaxMorphTargets floats, the first being
 *  InstancedMeshNode::kUseNodeMorphWeights for "use the node's weights"; buffer texture unit 2. */
extern const InstanceStreamDesc kMorphWeights;
/** What each instance of a skinned crowd plays (InstanceAnimation), 8 floats: (clip,
 *  startTime, speed, fadeStart), (fadeFromClip or -1, fadeFromStartTime, fadeFromSpeed,
 *  fadeDuration); default clip 0 from time 0 at speed 1, no fade; read by the renderer's palette
 *  dispatch (docs/skinning.md), not by the surface programs (its unit, 4, is nominal). */
extern const InstanceStreamDesc kAnimation;
/** The light channels each instance accepts (InstancedMeshNode::setInstanceLightChannels), 4
 *  floats: the mask's low 16 bits and high 16 bits as exact whole floats (0..65535), then two
 *  zeros; default every channel (65535, 65535); buffer texture unit 21. */
extern const InstanceStreamDesc kLightChannels;
/** Most shader-data lanes an instance can have (lanes(8): 32 floats, 128 bytes a row). */
inline constexpr std::size_t kMaxLanes = 8;
/** Per-instance shader data, @p count vec4 lanes (4 * count floats) a surface function reads as
 *  SurfaceInput::lanes[0..count-1]; default all zero; buffer texture unit 3. myriad gives them
 *  no meaning (see docs/lanes.md). One static descriptor per count, so the reference stays
 *  valid for the program's life. @throws OutOfRange unless 1 <= count <= kMaxLanes. */
[[nodiscard]] const InstanceStreamDesc& lanes(std::size_t count);
/** lanes(4), what a batch has unless told otherwise (InstancedMeshNode::defaultLaneCount). */
extern const InstanceStreamDesc& kLanes;
} // namespace streams

} // namespace myriad
