#pragma once
/** @file
 *  What one Renderer::render call did. */
#include <array>
#include <cstdint>

namespace myriad::gl {

/** Counters for one frame, reset at the start of each Renderer::render. */
struct FrameStats {
    std::uint32_t views = 0;            ///< views drawn (views with an empty viewport skip; the light's shadow views count)
    std::uint32_t drawCalls = 0;        ///< glDraw* calls issued, all views
    /** Instances drawn, summed over draws (a MeshNode is 1); GPU-culled batches count their
     *  tested instances (an upper bound, see instancesGpuCulled). */
    std::uint64_t instances = 0;
    std::uint64_t triangles = 0;        ///< triangles submitted (index count / 3 * instances; upper bound likewise)
    std::uint64_t bytesUploaded = 0;    ///< bytes sent to GPU buffers and textures this frame
    /** Of bytesUploaded, the records of UploadMode::Streaming batches rewritten in bulk that
     *  were copied before culling, by the one pass that also derives their bounds (a batch
     *  drawn last frame); the rest of a streaming batch's bytes went in prepare, after a bounds
     *  pass of their own. */
    std::uint64_t bytesStreamedAhead = 0;
    std::uint32_t batches = 0;          ///< InstancedMeshNodes drawn
    std::uint32_t meshNodes = 0;        ///< MeshNodes drawn
    std::uint32_t programBinds = 0;     ///< glUseProgram calls (redundant ones are skipped)
    std::uint32_t vertexArrayBinds = 0; ///< glBindVertexArray calls
    std::uint32_t culledNodes = 0;      ///< mesh nodes and batches outside the view frustum
    std::uint32_t uploadRanges = 0;     ///< GPU copies of instance ranges (after merging)
    /** Times the upload ring waited for the GPU (stalls): a wrap onto copies not yet done, or
     *  more unsignalled fences than it keeps. A ring that has not reached
     *  RendererDesc::maxStagingBytes grows instead of waiting on its own frame's copies. */
    std::uint64_t uploadWaits = 0;
    /** Bytes of the upload ring after this frame: RendererDesc::stagingBytes, or what it grew
     *  to (at most RendererDesc::maxStagingBytes). */
    std::uint64_t stagingBytes = 0;
    /** Instances tested one by one against a frustum (batches with InstanceCulling::Cpu or
     *  InstanceCulling::Gpu; for Cpu the drawn ones are counted in `instances`). */
    std::uint64_t instancesTested = 0;
    /** Instances drawn per LOD level (index = level, myriad::kMaxLodLevels entries), summed over
     *  views, for batches with a LOD chain (InstancedMeshNode::setLodChain()); each non-empty
     *  level is one draw call and one `batches` count. Other batches count nothing here, nor
     *  does a LOD batch with InstanceCulling::Gpu: its levels are picked on the GPU and the
     *  counts stay there (it draws every level, one draw call each; `instances` counts its
     *  tested instances once). */
    std::array<std::uint64_t, 8> lodInstances{};
    /** Of instancesTested, those tested on the GPU (InstanceCulling::Gpu). How many of them were
     *  drawn stays on the GPU (no readback): `instances` and `triangles` count every one of them
     *  as drawn, so for a frame with GPU-culled batches both are upper bounds, and
     *  `instances - instancesGpuCulled` is the exact count of the rest. */
    std::uint64_t instancesGpuCulled = 0;
    std::uint64_t particles = 0;        ///< particles drawn, summed over views
    std::uint64_t particlesSorted = 0;  ///< particles sorted back to front, summed over views

    // CPU time of this render() call by phase, milliseconds (steady clock). myriad's own work is
    // cullMs + uploadMs + submitMs - drawMs. drawMs is the time inside glDraw* calls, and the
    // rest of frameMs (clear, fences, flushes) is the driver's too: a software driver such as
    // llvmpipe runs vertex shading there. None of it waits for the GPU (no glFinish).
    /** Walking the tree, layer masks, frustum culling, sorting, and issuing the GPU culling
     *  dispatches (their GPU time is not in here). */
    double cullMs = 0.0;
    double uploadMs = 0.0;  ///< copying changed records (and textures, meshes) towards the GPU
    double submitMs = 0.0;  ///< the draw loop: state, uniforms, binds and the draw calls
    double drawMs = 0.0;    ///< inside the glDraw* calls (part of submitMs)
    double sortMs = 0.0;    ///< sorting particles back to front per view (part of uploadMs)
    double frameMs = 0.0;   ///< the whole render() call

    /** myriad's own CPU time in this frame, driver work excluded. */
    [[nodiscard]] double myriadMs() const noexcept { return cullMs + uploadMs + submitMs - drawMs; }
};

} // namespace myriad::gl
