#pragma once
/** @file
 *  What one Renderer::render call did, and to_string / operator<< to print it. */
#include <array>
#include <cstdint>
#include <iosfwd>
#include <string>

namespace myriad::gl {

/** What the GPU-culled draws of one earlier frame drew, as the GPU counted it
 *  (RendererDesc::gpuCullingCounts). All zero until the first such frame has been read. */
struct GpuCulledCounts {
    /** The FrameStats::frame these counts are of; 0: none read yet. */
    std::uint64_t frame = 0;
    /** Instances the GPU-culled draws of that frame drew, summed over draws as `instances` is
     *  (a batch of two primitives counts each visible instance twice), its views included. */
    std::uint64_t instances = 0;
    /** What that frame's `instances` counted for the same draws (their tested instances): the
     *  frame's exact count is `instances - upperBound + gpuCulled.instances`. */
    std::uint64_t upperBound = 0;
    std::uint64_t triangles = 0;            ///< triangles those draws submitted, by the GPU's counts
    std::uint64_t trianglesUpperBound = 0;  ///< what that frame's `triangles` counted for them
    /** Of the instances occlusion-culled batches tested that frame (View::occlusionCulling on
     *  the GPU path, counted by the second phase, once per view and batch): those outside the
     *  frustum. Batches culled by the frustum alone are not counted here (their culled count
     *  is what `upperBound - instances` leaves). */
    std::uint64_t frustumCulled = 0;
    /** Of the same instances: those inside the frustum but hidden behind the view's depth (the
     *  depth pyramid), not drawn. */
    std::uint64_t occlusionCulled = 0;
};

/** Counters for one frame, reset at the start of each Renderer::render (and Renderer::prepare,
 *  which fills what it did: compiles and uploads). Print them with
 *  to_string() or operator<< (below). */
struct FrameStats {
    /** This renderer's render() call number, 1 for the first (every call counts, also one
     *  that drew nothing or threw; Renderer::prepare() keeps the last render()'s number).
     *  GpuCulledCounts::frame refers to it. */
    std::uint64_t frame = 0;
    std::uint32_t views = 0;            ///< views drawn (views with an empty viewport skip; the light's shadow views count, and each lamp shadow tile pass drawn: a static one the cache holds is not)
    std::uint32_t drawCalls = 0;        ///< glDraw* calls issued, all views (particles and scatter included)
    /** Draws those calls made: a glMultiDrawElementsIndirect of the table-driven path counts
     *  each of its commands (one per batch or MeshNode it draws), any other draw call one. So
     *  `drawCommands - drawCalls` draws were saved by multi-draw (docs/architecture.md). */
    std::uint32_t drawCommands = 0;
    /** Of drawCalls, the table-driven path's glMultiDrawElementsIndirect calls (one per group
     *  of draws that share a program variant, texture, sampler and face culling, per view). */
    std::uint32_t multiDrawCalls = 0;
    /** Instances drawn by mesh draws, summed over draws (a MeshNode is 1; a batch of two
     *  primitives counts each instance twice, one per draw; scatter blades and populations
     *  count here). Particles do not: they are in `particles` only, so `instances + particles`
     *  is everything instanced that was drawn. GPU-culled batches count their tested
     *  instances per draw (an upper bound, see instancesGpuCulled and gpuCulled). */
    std::uint64_t instances = 0;
    /** Triangles submitted (index count / 3 * instances per draw, particles' two per particle
     *  included; an upper bound for GPU-culled draws likewise). */
    std::uint64_t triangles = 0;
    std::uint64_t bytesUploaded = 0;    ///< bytes sent to GPU buffers and textures this frame
    /** Of bytesUploaded, the records of UploadMode::Streaming batches rewritten in bulk that
     *  were copied before culling, by the one pass that also derives their bounds (a batch
     *  drawn last frame); the rest of a streaming batch's bytes went in prepare, after a bounds
     *  pass of their own. */
    std::uint64_t bytesStreamedAhead = 0;
    /** Draws of InstancedMeshNodes: one per primitive and LOD level drawn, summed over views
     *  (a batch of two primitives seen in one view counts 2). */
    std::uint32_t batches = 0;
    std::uint32_t meshNodes = 0;        ///< draws of MeshNodes: one per primitive, summed over views
    std::uint32_t programBinds = 0;     ///< glUseProgram calls (redundant ones are skipped)
    std::uint32_t vertexArrayBinds = 0; ///< glBindVertexArray calls
    /** Mesh nodes, batches and particle pools with draw bounds (ParticlePool::setDrawBounds)
     *  outside the view frustum. */
    std::uint32_t culledNodes = 0;
    /** Copies of row ranges towards the GPU (after merging): through the staging ring, or
     *  straight into a streaming part (one per plane or order written). */
    std::uint32_t uploadRanges = 0;
    /** Times the upload ring waited for the GPU (stalls): a wrap onto copies not yet done, or
     *  more unsignalled fences than it keeps. A ring that has not reached
     *  RendererDesc::maxStagingBytes grows instead of waiting on its own frame's copies. */
    std::uint64_t uploadWaits = 0;
    /** Of bytesUploaded, the bytes written straight into streaming parts (UploadMode::Streaming
     *  batches and particle pools, or Automatic ones that switched; sort orders): shows which
     *  way a pool or batch is sent. */
    std::uint64_t bytesStreamed = 0;
    /** Bytes of the upload ring after this frame: RendererDesc::stagingBytes, or what it grew
     *  to (at most RendererDesc::maxStagingBytes). */
    std::uint64_t stagingBytes = 0;
    /** Instances tested one by one against a frustum (batches with InstanceCulling::Cpu or
     *  InstanceCulling::Gpu; for Cpu the drawn ones are counted in `instances`). */
    std::uint64_t instancesTested = 0;
    /** Instances drawn per LOD level (index = level, myriad::kMaxLodLevels entries), summed over
     *  views, for batches with a LOD chain (InstancedMeshNode::setLodChain()); an instance
     *  inside a fade band (LodChain::fadeBand) counts in both levels it is drawn by, and an
     *  instance of a several-primitive batch once per level, not per primitive. Each non-empty
     *  level is one draw call and one `batches` count per primitive. Other batches count nothing here, nor
     *  does a LOD batch with InstanceCulling::Gpu: its levels are picked on the GPU and the
     *  counts stay there (it draws every level, one draw call each; `instances` counts its
     *  tested instances once). */
    std::array<std::uint64_t, 8> lodInstances{};
    /** Of instancesTested, those tested on the GPU (InstanceCulling::Gpu), once per view and
     *  batch. How many of them were drawn is counted on the GPU: `instances` and `triangles`
     *  count every tested one as drawn, in each of the batch's draws, so for a frame with
     *  GPU-culled batches both are upper bounds. For the drawn counts, opt in to
     *  RendererDesc::gpuCullingCounts and read `gpuCulled`, a frame or more later. */
    std::uint64_t instancesGpuCulled = 0;
    /** Instances left out by the frustum, per view, exact: the instances tested one by one
     *  on the CPU (InstanceCulling::Cpu) and found outside, plus the drawn instances of every
     *  node culled whole by the frustum (a MeshNode counts 1, a batch its drawn range, once,
     *  not per primitive). Batches with InstanceCulling::Gpu count only when culled whole: what
     *  their dispatch leaves out stays on the GPU. Particles are not counted. */
    std::uint64_t instancesFrustumCulled = 0;
    /** Instances left out by occlusion (View::occlusionCulling), per view, exact: those of
     *  InstanceCulling::Cpu batches whose sphere was hidden (after the frustum test), plus the
     *  drawn instances of every node hidden whole (as instancesFrustumCulled counts them). */
    std::uint64_t instancesOcclusionCulled = 0;
    /** Nodes hidden whole by occlusion, per view: MeshNodes and batches whose sphere was
     *  hidden, and InstanceCulling::Cpu batches whose every instance was culled with at least
     *  one hidden by occlusion. Not in culledNodes (which stays the frustum's). */
    std::uint32_t nodesOcclusionCulled = 0;
    /** Occluder triangles rasterised into the views' occlusion buffers (before near-plane
     *  clipping), summed over views; at most RendererDesc::occluderTriangleBudget per view. */
    std::uint64_t occluderTriangles = 0;
    /** With RendererDesc::gpuCullingCounts: the newest GPU-culled counts the GPU had finished
     *  when this frame began, of frame `gpuCulled.frame` (an earlier one: at least one frame
     *  late, more when the GPU runs behind; the same counts repeat until a newer frame's are
     *  done). Read from a mapped copy without waiting. All zero without the option, and in a
     *  frame that drew nothing (no view with a viewport). */
    GpuCulledCounts gpuCulled;
    std::uint64_t particles = 0;        ///< particles drawn, summed over views (not in `instances`)
    std::uint64_t particlesSorted = 0;  ///< particles sorted back to front, summed over views
    /** Time steps GPU particle systems (GpuParticles.h) ran on the GPU, summed over systems.
     *  Their particles are in no count: the CPU never learns how many live. */
    std::uint32_t gpuParticleSteps = 0;
    /** Compute dispatches of GPU particle systems: 2 or 3 a step, and a sorted system's sort
     *  per view (1 + the stages past 2,048 pairs, with their passes). */
    std::uint32_t gpuParticleDispatches = 0;
    /** Compute dispatches that blended skinned crowds' per-instance palettes
     *  (docs/skinning.md, "Crowds"): one per batch whose clock, animation stream or count
     *  changed since its last (more for a batch past the driver's work-group count). */
    std::uint32_t skinPaletteDispatches = 0;
    /** GPU occlusion culling (View::occlusionCulling, docs/visibility.md): depth pyramids built,
     *  one per view with at least one occlusion-culled batch in view (each a dispatch per
     *  pyramid level). */
    std::uint32_t pyramidBuilds = 0;
    /** GPU occlusion culling's second-phase dispatches: one per (view, occlusion-culled batch)
     *  with instances to test (the first phase is the batch's ordinary cull dispatch). */
    std::uint32_t occlusionDispatches = 0;
    /** Point and spot lamps in the frame's clustered light lists, summed over the colour views:
     *  those whose range reaches into the view's frustum (docs/lighting.md). Renderer::prepare()
     *  builds the lists too, so it counts them as render() would. */
    std::uint32_t lampsListed = 0;
    /** Shader programs this call compiled from source (variants no earlier frame needed).
     *  0 in a frame after Renderer::prepare() with the same scene and views. */
    std::uint32_t programsCompiled = 0;
    /** Shader programs this call made from RendererDesc::programCacheFolder's binaries instead
     *  of compiling them. */
    std::uint32_t programsLoaded = 0;
    /** Distinct shader programs this call's draws and dispatches made current (glUseProgram):
     *  every surface variant (feature set x SurfaceShader, docs/shaders.md) drawn in any view,
     *  shadow views included, plus each compute program dispatched (GPU culling, occlusion's
     *  depth pyramid, skin palettes, GPU particle kernels), each once however many binds and
     *  views used it. 0 from Renderer::prepare() (it draws and dispatches nothing). Not
     *  counted: Renderer::dispatch()'s compute and the GL-state restore. */
    std::uint32_t programsUsed = 0;

    // CPU time of this render() call by phase, milliseconds (steady clock). myriad's own work is
    // cullMs + uploadMs + submitMs - drawMs - skinPaletteMs. drawMs is the time inside glDraw*
    // calls, skinPaletteMs inside the skin palettes' glDispatchCompute calls, and the rest of
    // frameMs (clear, fences, flushes) is the driver's too: a software driver such as llvmpipe
    // runs vertex shading and compute there. None of it waits for the GPU (no glFinish).
    /** Walking the tree, layer masks, frustum culling, sorting, and issuing the GPU culling
     *  dispatches (their GPU time is not in here). */
    double cullMs = 0.0;
    double uploadMs = 0.0;  ///< copying changed records (and textures, meshes) towards the GPU
    double submitMs = 0.0;  ///< the draw loop: state, uniforms, binds and the draw calls
    double drawMs = 0.0;    ///< inside the glDraw* calls (part of submitMs)
    double sortMs = 0.0;    ///< sorting particles back to front per view (part of uploadMs)
    /** Of uploadMs: waiting on fences until the GPU finished reading memory about to be
     *  rewritten: a streaming part (a batch's or a particle pool's third, a sort order's) or
     *  the staging ring's range (the time its copies spent retiring fences, waiting or not).
     *  Not zero when the GPU runs behind the CPU (llvmpipe drawing earlier frames on the same
     *  cores); the rest of uploadMs is myriad's copying. */
    double gpuWaitMs = 0.0;
    /** Issuing GPU particle systems' compute (steps and sorts): the CPU's calls only, the
     *  GPU's work is not in here (part of cullMs). */
    double gpuParticlesMs = 0.0;
    /** Inside the glDispatchCompute calls that blend skinned crowds' palettes (part of cullMs):
     *  the driver's time (llvmpipe runs the compute there), not myriad's. */
    double skinPaletteMs = 0.0;
    /** Occlusion culling on the CPU: ranking and rasterising the occluders and testing
     *  spheres against the buffer, all views (part of cullMs). */
    double occlusionMs = 0.0;
    /** Starting the programs the frame lacked and waiting for them (compile and link, or
     *  glProgramBinary); the driver's compile threads run during the uploads in between. */
    double compileMs = 0.0;
    double frameMs = 0.0;   ///< the whole render() call
    /** Point and spot lamps whose shadow tiles this frame drew (LightNode::setCastsShadow(true),
     *  within Scene::lampShadows' budget; docs/lighting.md, "Lamp shadows"). */
    std::uint32_t shadowedLamps = 0;
    /** Lamp shadow tiles (a spot's one, a point lamp's six) whose cached static map was drawn
     *  this frame (LampShadowBudget::staticCache): the first frame, and frames where a static
     *  caster in the tile or the lamp changed. 0 in a steady frame. */
    std::uint32_t lampShadowStaticDraws = 0;

    /** myriad's own CPU time in this frame, driver work excluded. */
    [[nodiscard]] double myriadMs() const noexcept { return cullMs + uploadMs + submitMs - drawMs - skinPaletteMs; }
};

/** @p stats on one line, for logs and overlays: the frame number, the counters (views, draw
 *  calls and instances always, every other one only when not zero: what was drawn and culled,
 *  lodInstances as "lod level:count ...", then binds and uploads), then the phase times in milliseconds, e.g.
 *  "frame 12: 1 views, 3 draw calls, 2000 instances, 50 particles, 24000 triangles, 3 batches,
 *  gpu-culled drawn 812 of 2000 (frame 11), frame 0.410 ms (cull 0.020, upload 0.050,
 *  submit 0.300, draw 0.210, sort 0.000, compile 0.000)" (the "gpu-culled drawn" part only once
 *  gpuCulled holds a reading). No trailing newline. Throws only std::bad_alloc. */
[[nodiscard]] std::string to_string(const FrameStats& stats);

/** Writes to_string(@p stats) to @p out (no newline). */
std::ostream& operator<<(std::ostream& out, const FrameStats& stats);

} // namespace myriad::gl
