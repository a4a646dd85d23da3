#pragma once
/** @file What one Renderer::render call did. */
#include <cstdint>

namespace myriad::gl {

/** Counters for one frame, reset at the start of each Renderer::render. */
struct FrameStats {
    std::uint32_t drawCalls = 0;        ///< glDraw* calls issued
    std::uint64_t instances = 0;        ///< instances drawn, summed over draws (a MeshNode is 1)
    std::uint64_t triangles = 0;        ///< triangles submitted (index count / 3 * instances)
    std::uint64_t bytesUploaded = 0;    ///< bytes sent to GPU buffers and textures this frame
    std::uint32_t batches = 0;          ///< InstancedMeshNodes drawn
    std::uint32_t meshNodes = 0;        ///< MeshNodes drawn
    std::uint32_t programBinds = 0;     ///< glUseProgram calls (redundant ones are skipped)
    std::uint32_t vertexArrayBinds = 0; ///< glBindVertexArray calls
    std::uint32_t culledNodes = 0;      ///< mesh nodes and batches outside the view frustum
    std::uint32_t uploadRanges = 0;     ///< GPU copies of instance ranges (after merging)
    std::uint64_t uploadWaits = 0;      ///< times the upload ring waited for the GPU (stalls)
};

} // namespace myriad::gl
