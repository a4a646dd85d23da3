#pragma once
/** @file
 *  Counts of GL objects myriad holds right now, for leak checks.
 *
 *  Every RAII type of myriad_gl (Buffer, VertexArray, Program, Texture2D, OffscreenTarget) and the
 *  Renderer's internal upload ring count their creations and deletions here, so a test can
 *  assert that destroying a Renderer, a node or a batch gives back everything it made.
 *  Thread safety: the counters are atomic; read them from any thread. */
#include <cstdint>

namespace myriad::gl {

/** Number of live GL objects of each kind that myriad created. Value type. */
struct LiveObjectCounts {
    std::int64_t buffers = 0;  ///< Buffers, including the Renderer's own
    std::int64_t vertexArrays = 0;  ///< VertexArrays
    std::int64_t programs = 0;  ///< Programs
    std::int64_t textures = 0;  ///< Texture2Ds
    std::int64_t framebuffers = 0;  ///< OffscreenTargets (each with two renderbuffers)
    std::int64_t syncs = 0;         ///< fences of the upload ring and of streaming batches
    std::int64_t samplers = 0;      ///< sampler objects (one per filtering mode a renderer used)

    /** Sum of every count: 0 again once everything myriad made is destroyed. */
    [[nodiscard]] std::int64_t total() const noexcept {
        return buffers + vertexArrays + programs + textures + framebuffers + syncs + samplers;
    }
    /** Equal when every count is equal: compare a snapshot before and after. */
    friend bool operator==(const LiveObjectCounts&, const LiveObjectCounts&) = default;
};

/** The GL objects myriad created and has not deleted yet, process-wide. */
[[nodiscard]] LiveObjectCounts liveObjectCounts() noexcept;

} // namespace myriad::gl
