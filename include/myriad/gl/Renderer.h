#pragma once
/** @file Draws a Scene from a Camera with OpenGL 4.5: one instanced draw per batch. */
#include "myriad/gl/FrameStats.h"

#include <cstdint>
#include <memory>

namespace myriad {
class Scene;
class Camera;
class InstancedMeshNode;
} // namespace myriad

namespace myriad::gl {

class OffscreenTarget;

/** Creation parameters. Defaults: debug output on in debug builds (NDEBUG unset). */
struct RendererDesc {
#ifdef NDEBUG
    bool debugOutput = false;  ///< route KHR_debug messages to myriad::log
#else
    bool debugOutput = true;
#endif
    /** Instances per row of a batch's morph-weights texture; 0: the batch's capacity, up to
     *  GL_MAX_TEXTURE_SIZE / 2 (rows wrap beyond). Small values exercise the wrapping. */
    std::uint32_t morphWeightsInstancesPerRow = 0;
};

/** Draws scenes into the current context's default framebuffer or an OffscreenTarget.
 *
 *  Per frame: opaque and alpha-mask nodes in tree order, then alpha-blend nodes sorted back to
 *  front by node origin. Each InstancedMeshNode is one glDrawElementsInstanced with its records
 *  bound as four vec4 attributes of divisor 1 (locations 4-7) and the node's world matrix set
 *  once; its records are uploaded only when its dataVersion changed, and only the drawn ones.
 *  Each MeshNode is one glDrawElements-equivalent (an instanced draw of 1). Hidden subtrees,
 *  empty batches and count-0 batches are skipped.
 *
 *  GPU copies of meshes, batches and textures are created on first use and kept in caches keyed
 *  by their never-reused ids; entries unused for 120 frames are released (releaseUnused() drops
 *  them at once).
 *
 *  State: render() sets what it needs (depth test, culling, blending, viewport, framebuffer) and
 *  puts back the GL defaults (program 0, VAO 0, framebuffer 0, blend and cull off, depth test
 *  off, depth mask on) before it returns, so nothing leaks into the caller's GL code.
 *  Ownership: owns its GPU caches; must be destroyed while its context is current.
 *  Thread safety: call only on the context's thread. */
class Renderer {
public:
    /** @throws GlError if GL is not loaded or no GL 4.5 context is current;
     *  ShaderError if a built-in shader fails to compile (a driver bug). */
    explicit Renderer(const RendererDesc& desc = {});
    ~Renderer();
    Renderer(const Renderer&) = delete;
    Renderer& operator=(const Renderer&) = delete;

    /** Clears @p target to scene.clearColor and draws @p scene seen from @p camera.
     *  @throws GlError if no context is current. */
    void render(const Scene& scene, const Camera& camera, const OffscreenTarget& target);
    /** The same into the default framebuffer (a window's back buffer) of size
     *  @p width x @p height pixels. */
    void render(const Scene& scene, const Camera& camera, std::uint32_t width, std::uint32_t height);

    /** Counters of the last render() call. */
    [[nodiscard]] const FrameStats& lastFrameStats() const noexcept;
    /** Releases every cached GPU copy not used by the last frame. */
    void releaseUnused();
    /** The GL name of @p batch's per-instance record buffer in this renderer (capacity x 64
     *  bytes, InstanceRecord layout, written only by GPU copies), or 0 while the batch has not
     *  been drawn by it. The renderer owns it; valid until the batch is released from its cache
     *  or its buffer is re-created (capacity grew, mesh changed). For interop and tests. */
    [[nodiscard]] std::uint32_t instanceBuffer(const InstancedMeshNode& batch) const noexcept;
    /** The GL name of @p batch's per-instance morph-weights texture (RGBA32F,
     *  kMaxMorphTargets / 4 texels per instance, rows of morphWeightsInstancesPerRow), or 0
     *  while the batch has no weights of its own or has not been drawn. For interop and tests. */
    [[nodiscard]] std::uint32_t instanceMorphWeightsTexture(const InstancedMeshNode& batch) const noexcept;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace myriad::gl
