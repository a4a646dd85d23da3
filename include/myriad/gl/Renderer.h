#pragma once
/** @file
 *  Draws a Scene with OpenGL 4.5: one instanced draw per batch, into any framebuffer,
 *  from one or several views per frame. */
#include "myriad/gl/FrameStats.h"
#include "myriad/gl/GpuData.h"
#include "myriad/gl/ShadowMap.h"
#include "myriad/gl/View.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace myriad {
class MeshGeometry;
class Scene;
class Camera;
class InstancedMeshNode;
class GpuParticleSystem;
struct Particle;
} // namespace myriad

namespace myriad::gl {

class OffscreenTarget;

/** Creation parameters. Defaults: no debug callback, documented exit state (not the caller's),
     *  a staging ring that starts at 4 MiB and may grow to 64 MiB, no program binary cache. */
struct RendererDesc {
    /** Route KHR_debug messages to myriad::log (GL_DEBUG_OUTPUT on). A callback the game had
     *  installed keeps receiving every message (myriad's forwards to it), and is put back when
     *  the renderer is destroyed. */
    bool debugOutput = false;
    /** Read the caller's GL state on entry to render() and put all of it back on exit (one
     *  snapshot per render() whatever the views and draws: about 85 glGet / glIsEnabled calls,
     *  a driver round trip each on some platforms). Off: render() leaves the documented exit
     *  state (see the class comment) and a steady frame reads nothing back from GL. */
    bool preserveState = false;
    /** Starting bytes of the persistently mapped upload ring every staged upload goes
     *  through (at least 64). The ring grows from here (back to it only on trim()) to what a frame
     *  really sends: a frame whose uploads outgrow it moves to a ring that holds the rest
     *  (instead of waiting for the GPU once per chunk), and a frame that filled more than half
     *  of it grows it to four frames of that size. Uploads larger than the ring, at its bound,
     *  are chunked and wait for the GPU's copies as they wrap (FrameStats::uploadWaits).
     *  @throws InvalidArgument (from the constructor) if below 64 bytes. */
    std::size_t stagingBytes = std::size_t{4} << 20;
    /** The bound the upload ring grows to, in bytes: persistently mapped memory the driver
     *  keeps (host-visible, often in system memory). Below stagingBytes: the ring stays at
     *  stagingBytes. If the driver refuses a larger ring, it stays at the size it has. 64 MiB
     *  holds a first upload of a million-instance batch (64-byte records) in one frame. */
    std::size_t maxStagingBytes = std::size_t{64} << 20;
    /** Opt-in: a folder (created if missing) where the renderer keeps every shader program it
     *  links as a glProgramBinary file, one per program, named by a hash of GL_VENDOR,
     *  GL_RENDERER, GL_VERSION and the program's full sources; a later renderer (this run or the
     *  next) loads the binary instead of compiling. A file that is not exactly this driver's
     *  binary for those sources (stale, truncated, foreign, corrupt, or refused by
     *  glProgramBinary) is ignored, the program compiled and the file written again; writes go
     *  through a temporary file and a rename. Empty (default): no cache. Ignored when the driver
     *  has no program binary format. Several renderers and processes may share one folder. */
    std::filesystem::path programCacheFolder{};
    /** Count what batches with InstanceCulling::Gpu really drew, into FrameStats::gpuCulled,
     *  a frame or more late. After each frame's draws the renderer copies the instance count
     *  of every indirect draw (4 bytes each, one glMemoryBarrier, one fence) into a small
     *  persistently mapped buffer; a later frame reads it once the GPU has passed the fence,
     *  polled with a zero timeout, so nothing waits and no glGet* is issued. If the GPU falls
     *  three frames behind, frames are skipped rather than waited for. Off: no copies, and
     *  FrameStats::gpuCulled stays zero. */
    bool gpuCullingCounts = false;
    /** Occlusion culling on the CPU (View::occlusionCulling): the software depth buffer's
     *  height in pixels, 1..4096; its width follows each view's viewport aspect (height x
     *  width / height, rounded, 1..4096), so a 2:1 view gets 256 x 128. Here and not on View
     *  because it is the renderer's memory and CPU budget, set once like stagingBytes, while
     *  what a view decides is only whether to cull. Higher: fewer false "visible" near
     *  occluder edges and for distant small objects, at a cost linear in pixels.
     *  @throws InvalidArgument (from the constructor) if 0 or above 4096. */
    std::uint32_t occlusionBufferHeight = 128;
    /** Occluder triangles rasterised per view and frame at most: candidates (MeshNodes, and
     *  instances of batches up to maxOccluderInstances) are ranked by projected size and
     *  rasterised largest first; one that no longer fits the budget is skipped and smaller
     *  ones still tried. 0: nothing occludes. */
    std::uint32_t occluderTriangleBudget = 8192;
    /** An occluding InstancedMeshNode with more drawn instances than this occludes nothing:
     *  ranking its instances costs a pass over its records per view and frame, and large
     *  batches are props too small to hide much. Raise it for batches of buildings. */
    std::uint32_t maxOccluderInstances = 1024;
    /** The size of the clustered light list's grid (lightClusters). */
    struct LightClusterGrid {
        std::uint32_t tilesAcross = 16;  ///< columns of tiles across the viewport
        std::uint32_t tilesUp = 9;       ///< rows of tiles up the viewport
        std::uint32_t slices = 24;       ///< depth slices, nearest lamp edge to farthest
    };
    /** The clustered light list's grid (docs/lighting.md): each colour view's viewport split
     *  into tilesAcross x tilesUp tiles and the depth its lamps span into slices, exponentially.
     *  A fragment loops over its cluster's lamps only; finer grids cost more CPU and upload per
     *  frame (16 bytes a cluster) and fewer lamps per fragment. {1, 1, 1}: every fragment
     *  tests every lamp in view (a reference to compare against).
     *  @throws InvalidArgument (from the constructor) unless each is within 1..128 and their
     *  product (the clusters, 16 bytes each per view with lamps) at most 16384. */
    LightClusterGrid lightClusters{};
    /** Where a lamp of infinite range (LightNode::range() 0) ends: the distance at which its
     *  brightest channel gives this many lux (LightNode::effectiveRange()); the range window
     *  then fades it to 0 there. Lower reaches further and lists each lamp in more clusters.
     *  @throws InvalidArgument (from the constructor) unless finite and > 0. */
    float lightCutoffIlluminance = 0.01f;
};

/** A range of a GL buffer: where Renderer::instanceRecords() says a batch's records are. */
struct InstanceBufferRange {
    std::uint32_t buffer = 0;      ///< GL buffer name; 0: none yet
    std::size_t offsetBytes = 0;   ///< where record 0 starts
    std::size_t sizeBytes = 0;     ///< bytes of the batch's place, from offsetBytes
};

/** Draws scenes into any framebuffer: the game's (HDR float or sRGB, after its own passes, with
 *  or without clearing), a window's back buffer, or an OffscreenTarget.
 *
 *  **A frame** is one render() call with one or more Views: (1) a pass per view collects and
 *  culls the scene (opaque and alpha-mask nodes in tree order, then alpha-blend nodes back to
 *  front by bounds centre); (2) prepare: every program the views need and the renderer lacks is
 *  started (all compiles of the frame before any wait, so a driver with
 *  GL_KHR_parallel_shader_compile builds them on its threads during the uploads), every changed
 *  instance stream of every batch any view draws is uploaded once (FrameStats::bytesUploaded
 *  counts it once), then render() waits for all the programs: a frame draws every node with its
 *  own variant or throws, never skips one that is not ready (a shader that does not compile
 *  throws here, before anything is drawn); (3) each view clears what it asks and draws.
 *  prepare(scene, views) runs (1) and (2) ahead of the first frame, so that frame compiles
 *  nothing. Each InstancedMeshNode is one
 *  glDrawElementsInstancedBaseInstance over its drawn range; each MeshNode one draw of one
 *  instance. Colour is linear light throughout (lighting, blending); what is stored depends on
 *  View::output and the target's encoding (View::targetEncoding, queried once per framebuffer
 *  name and remembered until forgetFramebuffer()): GL_FRAMEBUFFER_SRGB lets an sRGB target
 *  encode it once, a float target stores it linear, and for a linear 8-bit target (GL_RGBA8,
 *  a window without an sRGB pixel format) the shaders encode it (ColorOutput::Display, the
 *  default; blended draws then blend encoded values).
 *
 *  **GPU copies** of meshes, textures and batches are made on first use and live as long as
 *  what they copy: a destroyed node's, mesh's or image's copy is freed at the end of the next
 *  frame; a batch out of view keeps its copy and sends only what changed when it returns;
 *  trim() frees everything the last frame did not draw. Each renderer keeps its own upload
 *  cursor per stream, so two renderers drawing one scene each send only their own changes.
 *
 *  **GL state contract** (docs/gl-state.md): render() assumes nothing. Before drawing it sets
 *  everything its draws depend on: draw framebuffer, viewport, scissor off (the box set to a
 *  view's viewport for its clear), colour mask all on,
 *  depth test/function/mask, depth range 0..1, clip control per view, blend enable/function/
 *  equation ADD, face culling and front face CCW, polygon mode FILL, polygon offset, stencil,
 *  logic op, alpha-to-coverage, sample mask, rasterizer discard, primitive restart, depth
 *  clamp and clip distances 0-7 off, multisample on, GL_FRAMEBUFFER_SRGB on for views into an
 *  sRGB target (off for others), program pipeline 0, program, vertex array, texture units 0-3, 5-17
 *  and 19-21 (the shadow map on 8, docs/shadows.md; the light list on 11, material textures on
 *  12-15, a lightmap on 16, the environment map on 17, lamp shadows on 19 and 20 and instance light channels on 21,
 *  docs/lighting.md) and their sampler objects, shader storage binding 0 (the material table), storage bindings 1-5 and
 *  the draw indirect buffer (GPU culling), unpack alignment 4 with no row length or skips and no pixel unpack
 *  buffer. It never touches pack state, the stencil or any other texture unit.
 *  With shadows on (ShadowSettings), the light's depth-only views (one per cascade) are drawn
 *  first into the renderer's own depth texture.
 *  On exit, also when it throws: with RendererDesc::preserveState every one of those values is
 *  the caller's again; without, they are GL's initial values (framebuffer 0, program 0, vertex
 *  array 0, depth test, blend, cull and GL_FRAMEBUFFER_SRGB off, depth function LESS, depth
     *  mask on, clip control lower-left/-1..1, units 0-3, 5-17 and 19-21 unbound (every target) with no sampler, storage bindings 0-5 and the draw indirect buffer empty, unpack alignment
     *  4, clear colour 0 and depth 1), except the viewport (the last view's), the scissor box (the
     *  last clearing view's viewport) and the active texture unit (the caller's).
 *
 *  Ownership: owns its GPU copies; must be destroyed while its context is current.
 *  Thread safety: call only on the context's thread. */
class Renderer {
public:
    /** Reads the GL limits the renderer checks, once (docs/architecture.md, "Limits the
     *  renderer checks"): draw with it only on this context or others of its share group and
     *  driver. Compiles (or loads from desc.programCacheFolder) the two plain surface variants.
     *  With GL_KHR_parallel_shader_compile (or ARB_) it sets the context's compiler thread hint
     *  to the driver's maximum (glMaxShaderCompilerThreadsKHR(0xFFFFFFFF)), once.
     *  @throws GlError if GL is not loaded or no GL 4.5 context is current;
     *  ShaderError if a built-in shader fails to compile (a driver bug); InvalidArgument if
     *  desc.programCacheFolder names a file, or a folder that cannot be created. */
    explicit Renderer(const RendererDesc& desc = {});
    ~Renderer();
    Renderer(const Renderer&) = delete;
    Renderer& operator=(const Renderer&) = delete;

    /** Draws @p scene for every view in @p views, in order, uploading each batch once.
     *  A view with an empty viewport (a minimised window) draws nothing, and so does a view into
     *  framebuffer 0 of a context that has none (EGL surfaceless: GL_FRAMEBUFFER_UNDEFINED,
     *  asked once), which every clear and draw would answer with GL_INVALID_FRAMEBUFFER_OPERATION;
     *  a warning is logged the first time.
     *  With scene.light.shadow.enabled, the light's shadow views (one per cascade) are drawn
     *  first (counted in FrameStats::views; docs/shadows.md).
     *  @throws InvalidArgument, before any GL call, if a view without a camera has a NaN or Inf
     *  in its matrices, or shadows are enabled with a ShadowSettings value out of its range, or
     *  scene.fog has a mode and a Fog value out of its range (docs/lighting.md, "Fog"), or
     *  scene.time is NaN or Inf, or scene.environmentIntensity is negative or not finite,
     *  scene.environmentRotation not finite or a scene.hemisphere colour negative or not finite
     *  (docs/lighting.md, "Image-based ambient"); InvalidArgument while compiling (after GL calls, nothing drawn)
     *  if a particle pool's or scatter node's material has a vertex function; GlError if no context is current; ShaderError naming file and line if a
     *  program the frame needs does not compile (nothing is drawn then, and the state contract
     *  holds); CapacityError, before anything of the frame is drawn and with the state contract
     *  kept, if a stream, list or dispatch exceeds a GL limit (GL_MAX_TEXTURE_BUFFER_SIZE for
     *  records read by per-instance culling, sorting, LOD or GPU culling, visible-index lists
     *  with their LOD slots, side streams, morph deltas, particle streams and GPU particle
     *  states and orders; GL_MAX_SHADER_STORAGE_BLOCK_SIZE and GL_MAX_COMPUTE_WORK_GROUP_COUNT
     *  for GPU culling and GPU particle systems; GL_MAX_TEXTURE_BUFFER_SIZE for the frame's clustered
     *  light list, docs/lighting.md; GL_MAX_TEXTURE_SIZE for scene.environment's width),
     *  naming the node, the stream or list and the limit with its value (docs/errors.md).
     *  A steady frame (nothing to compile or resize) makes no glGet, glGetUniformLocation or
     *  framebuffer-status call (docs/gl-state.md, "What render() reads"). */
    void render(const Scene& scene, std::span<const View> views);
    /** One view. @throws as above. */
    void render(const Scene& scene, const View& view);
    /** Everything render(scene, views) would do before its first draw, and nothing after: builds
     *  the same draw lists (culling, LOD selection, sorting and the shadow fit with these views'
     *  cameras; the light's shadow views when shadows are on), compiles every program variant
     *  they need (waiting for all of them: all started first, in parallel where the driver
     *  can), and uploads what changed (meshes, textures, instance streams, the material table,
     *  particles; GPU particle systems' buffers and compute programs). It draws nothing, clears
     *  nothing, writes no framebuffer and dispatches no GPU culling and no GPU particle step
     *  (a GpuParticleSystem's steps wait for the next render()). Call it during a loading screen: a render() with the same scene and views
     *  then compiles nothing (FrameStats::programsCompiled 0) and uploads only what changed
     *  since. Views that differ later (another camera, a node that comes into view, a new
     *  material) may still need programs or uploads then. lastFrameStats() afterwards counts
     *  this call (programs, uploads; no draws or views). GL state: as render() (the state
     *  contract above).
     *  @throws as render(scene, views), before any draw (there are none). */
    void prepare(const Scene& scene, std::span<const View> views);
    /** One view. @throws as above. */
    void prepare(const Scene& scene, const View& view);
    /** The one-call façade: clears @p target to scene.clearColor and draws @p scene seen from
     *  @p camera. @throws InvalidArgument if the target is empty (moved from); as above. */
    void render(const Scene& scene, const Camera& camera, const OffscreenTarget& target);
    /** The same into the default framebuffer (a window's back buffer) of @p width x @p height
     *  pixels; 0 x 0 (a minimised window) draws nothing. */
    void render(const Scene& scene, const Camera& camera, std::uint32_t width, std::uint32_t height);

    /** Forgets the colour encoding queried for @p framebuffer (View::targetEncoding Query), so
     *  the next view into it asks GL again. Call it after attaching a different colour format
     *  to that framebuffer, or after deleting it (GL may give its name to the next one); the
     *  renderer cannot see either without a query every frame. A name never drawn is ignored.
     *  For framebuffer 0 it also forgets whether the context has one (a window or pbuffer made
     *  current since). Makes no GL call. */
    void forgetFramebuffer(std::uint32_t framebuffer) noexcept;

    /** Counters of the last render() call (all its views). */
    [[nodiscard]] const FrameStats& lastFrameStats() const noexcept;
    /** Frees every GPU copy (mesh, texture, batch) the last frame did not use, and programs
     *  of destroyed surface functions, and gives back a staging ring grown past
     *  RendererDesc::stagingBytes (the next big frame grows it again). */
    void trim();

    /** The GL name of the buffer holding @p batch's records in this renderer, or 0 before it
     *  first drew the batch; where in it: instanceRecords(). A staged batch of at most 16,384
     *  records shares the renderer's record arena with other small batches (the table-driven
     *  draw path draws many of them in one call, docs/architecture.md); a larger one has a
     *  buffer of capacity() records of its own, offset 0. For a batch in UploadMode::Streaming,
     *  the streaming buffer: three parts of capacity() records rounded up to a multiple of 4,
     *  the part drawn moving on with each frame that changed the records. The name changes when
     *  the batch's capacity grows or shrinks past its place, or the arena grows (the buffer is
     *  re-made). For interop and tests. */
    [[nodiscard]] std::uint32_t instanceBuffer(const InstancedMeshNode& batch) const noexcept;
    /** Where @p batch's records are this frame: a buffer name (instanceBuffer()), the byte
     *  offset of record 0 (a multiple of 256) and the bytes of its place (its capacity, rounded
     *  up to a multiple of 4 records in the arena or streaming). All zero before the renderer
     *  first drew the batch. */
    [[nodiscard]] InstanceBufferRange instanceRecords(const InstancedMeshNode& batch) const noexcept;
    /** How many shadow passes the last render() drew before the views it was given: the
     *  sun's cascades (when its shadow map was drawn), then the lamp shadow tiles' passes (one
     *  per tile, and one more per tile whose static cache was redrawn that frame). 0 without
     *  shadows; it can change from frame to frame. readGpuCulledInstances() numbers passes
     *  from them: the given view k is pass shadowPassCount() + k. */
    [[nodiscard]] std::size_t shadowPassCount() const noexcept;
    /** The record indices @p batch was drawn with in the last render() by its pass number
     *  @p view, as the GPU culling pass wrote them (InstanceCulling::Gpu): in no particular
     *  order (compare sorted). Passes are numbered in the order render() drew them: first the
     *  shadow passes (shadowPassCount() of them; they cull batches too, so their lists can be
     *  read here), then the views given, counting only those with a non-empty viewport: the
     *  given view k is pass shadowPassCount() + k, and without shadows pass k is view k.
     *  (readGpuParticleOrder() counts the given views only.)
     *  Reads the GPU's list back, so it waits for the GPU: for tests and tools, never per frame.
     *  A batch with a LOD chain has one list per level: @p lodLevel picks it (the instances
     *  the GPU drew with that level's mesh); 0 for a batch without a chain. A fading chain's
     *  entries are as written, a fade code in the top byte (lodFadeEntry(), myriad/core/Lod.h;
     *  the record is entry & kLodFadeIndexMask). A batch that view
     *  culled with occlusion (View::occlusionCulling) has two lists: 0, the instances drawn
     *  before the depth pyramid (visible last frame), and 1, those drawn after it (visible
     *  now, not drawn before); together, the instances drawn.
     *  @return nullopt when that view did not cull @p batch on the GPU in the last frame, or
     *  @p lodLevel is not below the chain's level count (1 without a chain, 2 with occlusion).
     *  @throws GlError with no current context. */
    [[nodiscard]] std::optional<std::vector<std::uint32_t>> readGpuCulledInstances(const InstancedMeshNode& batch,
                                                                                 std::size_t view,
                                                                                 std::size_t lodLevel = 0) const;
    /** @p system's live particles as this renderer's GPU copy holds them after the last
     *  render() (GpuParticles.h), in no particular order (the GPU compacts survivors in any
     *  order; each particle's seed tells it apart). Reads the GPU's buffers back, so it waits
     *  for the GPU: for tests and tools, never per frame.
     *  @return nullopt when this renderer has not drawn @p system (it holds no copy).
     *  @throws GlError with no current context. */
    [[nodiscard]] std::optional<std::vector<Particle>> readGpuParticles(const GpuParticleSystem& system) const;
    /** The order in which view @p view (counting only views with a non-empty viewport, in the
     *  order given) of the last render() drew @p system: particle indices into
     *  readGpuParticles()'s list, farthest first, as the GPU sorted them. Waits for the GPU:
     *  tests and tools.
     *  @return nullopt when that view did not sort @p system (an additive material, a
     *  ParticleSort::None one, or no such view).
     *  @throws GlError with no current context. */
    [[nodiscard]] std::optional<std::vector<std::uint32_t>> readGpuParticleOrder(const GpuParticleSystem& system,
                                                                               std::size_t view) const;
    /** The GL name of @p batch's per-instance morph-weights buffer texture (RGBA32F,
     *  kMaxMorphTargets / 4 texels per instance, read by instance index): the design card's
     *  instanceMorphWeights, the texture the instanced vertex stage of this renderer reads. 0
     *  while no instance of the batch has weights of its own (never given, or all cleared) or
     *  the batch has not been drawn. For interop and tests. */
    [[nodiscard]] std::uint32_t instanceMorphWeightsTexture(const InstancedMeshNode& batch) const noexcept;
    /** Shader programs this renderer holds (one per feature set and surface function in use),
     *  compiled or loaded from the program cache. */
    [[nodiscard]] std::size_t programCount() const noexcept;
    /** The directional light's shadow map as the last render() drew it (docs/shadows.md):
     *  texture, size, each cascade's box and matrix, draws into it. The reference lives as long
     *  as the renderer; its values change with each render() and trim(). */
    [[nodiscard]] const ShadowMapInfo& shadowMap() const noexcept;

    // ---- material identity (docs/lanes.md) ----------------------------------------------------

    /** The identity table as of the last render(): slots by material name (Material::name) and
     *  one row per renderable (node, slot, index, material) and per population. A name gets an
     *  index the first time this renderer draws with it (in tree order, then populations) and
     *  keeps it while some renderable of the rendered scene (visible, culled or not) or some
     *  population holds it; a name nobody held in a frame leaves the table and its index goes to
     *  the next new name, lowest first. A material with an empty name is "no material": index 0.
     *  Two materials with one name share an index (the first holder's parameters fill the GPU
     *  table row). The reference is valid until the next render(). */
    [[nodiscard]] const MaterialIdentity& materialIdentity() const;
    /** The index of material @p name (0 for ""), or nullopt while it is not in the table. */
    [[nodiscard]] std::optional<std::uint32_t> materialIndex(std::string_view name) const;
    /** The GL name of the material table: a std430 storage buffer of 32-byte rows indexed by
     *  material index (base colour RGBA, alpha cutoff, shading, alpha mode, flags; see
     *  shaders/surface.frag, MyriadMaterial), bound at storage binding 0 while drawing; 0 before
     *  the first render(). Compute passes bind it by the name kMaterialTableBuffer. */
    [[nodiscard]] std::uint32_t materialTableBuffer() const noexcept;
    /** The buffer name dispatch() resolves to the material table. */
    static constexpr std::string_view kMaterialTableBuffer = "myriad.materials";

    // ---- GPU buffers, populations and compute (docs/lanes.md) ---------------------------------

    /** Creates a named GPU buffer of desc.length elements (immutable storage, zero-filled, then
     *  desc.initialData copied to its start).
     *  @throws InvalidArgument if the name is empty, kMaterialTableBuffer or taken, the length is
     *  0 or above 2^40 bytes, or initialData is longer than the buffer; GlError with no context. */
    void createBuffer(const GpuBufferDesc& desc);
    /** Copies @p bytes into buffer @p name from element @p firstElement (after any pending
     *  compute write, so the order of writes holds). @throws InvalidArgument for an unknown
     *  name; OutOfRange if the bytes run past the end (nothing written). */
    void writeBuffer(std::string_view name, std::size_t firstElement, std::span<const std::byte> bytes);
    /** The whole buffer, read back (waits for the GPU: tests and tools, not frames).
     *  @throws InvalidArgument for an unknown name. */
    [[nodiscard]] std::vector<std::byte> readBuffer(std::string_view name);
    /** @throws InvalidArgument for an unknown name, or while a population draws from it. */
    void destroyBuffer(std::string_view name);
    /** The GL name of buffer @p name (for interop), or 0 if there is none. */
    [[nodiscard]] std::uint32_t bufferId(std::string_view name) const noexcept;

    /** Registers a population: @p mesh drawn desc.instanceCount times, every frame in every view,
     *  until removePopulation(). Instance i's record is element i of desc.transformBuffer (the
     *  64 bytes of a CPU-built batch: three rows of the world-from-instance matrix, then linear
     *  RGBA; docs/instance-record.md), its lanes row i of desc.laneBuffer (four vec4), or zeros
     *  without one. Drawn after the scene's opaque nodes (or after its blended ones, for a
     *  blending material), back faces culled as for unmirrored instances, no morphing. Culled
     *  by desc.bounds if given, else never culled. Buffers are read when drawn: rewriting them
     *  (writeBuffer, dispatch) changes the next frame with no re-registration.
     *  @throws InvalidArgument if the mesh is null, the count 0, a buffer is unknown, or a buffer
     *  is shorter than the count needs (the message names the buffer, its length and what was
     *  needed; nothing is registered); CapacityError naming the population, the lane buffer and
     *  the limit when its lanes (4 texels per instance) pass GL_MAX_TEXTURE_BUFFER_SIZE. */
    PopulationId drawInstanced(std::shared_ptr<const MeshGeometry> mesh, const PopulationDesc& desc);
    /** @throws InvalidArgument for an unknown id. */
    void removePopulation(PopulationId id);
    /** Populations registered. */
    [[nodiscard]] std::size_t populationCount() const noexcept;

    /** Runs @p program over groupsX * groupsY * groupsZ work groups with each of @p bindings'
     *  named buffers bound as the storage block at its binding. myriad issues the memory barrier
     *  each later reader needs (the next render(), dispatch(), writeBuffer() or readBuffer()), so
     *  the next frame draws this write. The current program and the storage bindings it used are
     *  put back (a range binding comes back whole). A count of 0 dispatches nothing.
     *  @throws InvalidArgument for an unknown buffer name; OutOfRange for a binding or group
     *  count above the GL limits (GL_MAX_SHADER_STORAGE_BUFFER_BINDINGS,
     *  GL_MAX_COMPUTE_WORK_GROUP_COUNT, as read when the renderer was made); GlError with no
     *  current context. */
    void dispatch(const ComputeProgram& program, std::span<const BufferBinding> bindings, std::uint32_t groupsX,
                  std::uint32_t groupsY = 1, std::uint32_t groupsZ = 1);

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace myriad::gl
