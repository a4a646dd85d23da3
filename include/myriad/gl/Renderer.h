#pragma once
/** @file
 *  Draws a Scene with OpenGL 4.5: one instanced draw per batch, into any framebuffer,
 *  from one or several views per frame. */
#include "myriad/gl/FrameStats.h"
#include "myriad/gl/View.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

namespace myriad {
class Scene;
class Camera;
class InstancedMeshNode;
} // namespace myriad

namespace myriad::gl {

class OffscreenTarget;

/** Creation parameters. Defaults: no debug callback, documented exit state (not the caller's),
 *  a 4 MiB staging ring. */
struct RendererDesc {
    /** Route KHR_debug messages to myriad::log (GL_DEBUG_OUTPUT on). A callback the game had
     *  installed keeps receiving every message (myriad's forwards to it), and is put back when
     *  the renderer is destroyed. */
    bool debugOutput = false;
    /** Read the caller's GL state on entry to render() and put all of it back on exit (about
     *  60 glGet calls per frame: a driver round trip each on some platforms). Off: render()
     *  leaves the documented exit state (see the class comment). */
    bool preserveState = false;
    /** Bytes of the persistently mapped upload ring (fixed; larger uploads are chunked). */
    std::size_t stagingBytes = std::size_t{4} << 20;
};

/** Draws scenes into any framebuffer: the game's (HDR float or sRGB, after its own passes, with
 *  or without clearing), a window's back buffer, or an OffscreenTarget.
 *
 *  **A frame** is one render() call with one or more Views: (1) a pass per view collects and
 *  culls the scene (opaque and alpha-mask nodes in tree order, then alpha-blend nodes back to
 *  front by bounds centre); (2) prepare: every program the views need is compiled (a shader that
 *  does not compile throws here, before anything is drawn), and every changed instance stream
 *  of every batch any view draws is uploaded once (FrameStats::bytesUploaded counts it once);
 *  (3) each view clears what it asks and draws. Each InstancedMeshNode is one
 *  glDrawElementsInstancedBaseInstance over its drawn range; each MeshNode one draw of one
 *  instance. Colour is linear light throughout (lighting, blending); GL_FRAMEBUFFER_SRGB lets an
 *  sRGB target encode it once, a float target stores it linear.
 *
 *  **GPU copies** of meshes, textures and batches are made on first use and live as long as
 *  what they copy: a destroyed node's, mesh's or image's copy is freed at the end of the next
 *  frame; a batch out of view keeps its copy and sends only what changed when it returns;
 *  trim() frees everything the last frame did not draw. Each renderer keeps its own upload
 *  cursor per stream, so two renderers drawing one scene each send only their own changes.
 *
 *  **GL state contract** (docs/gl-state.md): render() assumes nothing. Before drawing it sets
 *  everything its draws depend on: draw framebuffer, viewport, scissor off, colour mask all on,
 *  depth test/function/mask, depth range 0..1, clip control per view, blend enable/function/
 *  equation ADD, face culling and front face CCW, polygon mode FILL, polygon offset, stencil,
 *  logic op, alpha-to-coverage, rasterizer discard, primitive restart and depth clamp off,
 *  GL_FRAMEBUFFER_SRGB on, program pipeline 0, program, vertex array, texture units 0-2, 6 and 7 and
 *  their sampler objects, unpack alignment 4 with no row length or skips and no pixel unpack
 *  buffer. It never touches pack state, the stencil or any other texture unit.
 *  On exit, also when it throws: with RendererDesc::preserveState every one of those values is
 *  the caller's again; without, they are GL's initial values (framebuffer 0, program 0, vertex
 *  array 0, depth test, blend, cull and GL_FRAMEBUFFER_SRGB off, depth function LESS, depth
 *  mask on, clip control lower-left/-1..1, units 0-2, 6, 7 unbound with no sampler, unpack alignment
 *  4, clear colour 0 and depth 1), except the viewport (the last view's) and the active texture
 *  unit (the caller's).
 *
 *  Ownership: owns its GPU copies; must be destroyed while its context is current.
 *  Thread safety: call only on the context's thread. */
class Renderer {
public:
    /** @throws GlError if GL is not loaded or no GL 4.5 context is current;
     *  ShaderError if a built-in shader fails to compile (a driver bug). */
    explicit Renderer(const RendererDesc& desc = {});
    ~Renderer();
    Renderer(const Renderer&) = delete;
    Renderer& operator=(const Renderer&) = delete;

    /** Draws @p scene for every view in @p views, in order, uploading each batch once.
     *  A view with an empty viewport (a minimised window) draws nothing.
     *  @throws GlError if no context is current; ShaderError naming file and line if a program
     *  the frame needs does not compile (nothing is drawn then, and the state contract holds);
     *  GlError if a stream exceeds a GL limit. */
    void render(const Scene& scene, std::span<const View> views);
    /** One view. @throws as above. */
    void render(const Scene& scene, const View& view);
    /** The one-call façade: clears @p target to scene.clearColor and draws @p scene seen from
     *  @p camera. @throws InvalidArgument if the target is empty (moved from); as above. */
    void render(const Scene& scene, const Camera& camera, const OffscreenTarget& target);
    /** The same into the default framebuffer (a window's back buffer) of @p width x @p height
     *  pixels; 0 x 0 (a minimised window) draws nothing. */
    void render(const Scene& scene, const Camera& camera, std::uint32_t width, std::uint32_t height);

    /** Counters of the last render() call (all its views). */
    [[nodiscard]] const FrameStats& lastFrameStats() const noexcept;
    /** Frees every GPU copy (mesh, texture, batch) the last frame did not use, and programs
     *  of destroyed surface functions. */
    void trim();

    /** The GL name of @p batch's record buffer (capacity() records of 64 bytes) in this
     *  renderer, or 0 before it first drew the batch. For interop and tests. */
    [[nodiscard]] std::uint32_t instanceBuffer(const InstancedMeshNode& batch) const noexcept;
    /** The GL name of @p batch's per-instance morph-weights buffer texture (RGBA32F,
     *  kMaxMorphTargets / 4 texels per instance, read by instance index), or 0 while the batch
     *  has no weights of its own or has not been drawn. For interop and tests. */
    [[nodiscard]] std::uint32_t instanceMorphWeightsTexture(const InstancedMeshNode& batch) const noexcept;
    /** Shader programs compiled so far (one per feature set and surface function in use). */
    [[nodiscard]] std::size_t programCount() const noexcept;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace myriad::gl
