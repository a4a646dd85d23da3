#include "myriad/gl/Renderer.h"

#include "gl/Bindings.h"
#include "gl/GlCommon.h"
#include "renderer/DepthPyramid.h"
#include "renderer/DrawTable.h"
#include "renderer/Fog.h"
#include "renderer/LampShadowPass.h"  // lamp shadows
#include "renderer/LightList.h"
#include "renderer/GlLimits.h"
#include "renderer/GlState.h"
#include "renderer/GpuCulling.h"
#include "renderer/GpuCullingCounts.h"
#include "renderer/GpuPopulations.h"
#include "renderer/GpuResources.h"
#include "renderer/InstanceVisibility.h"
#include "renderer/LodSelection.h"
#include "renderer/MaterialTable.h"
#include "renderer/ParticlePass.h"  // particles and scatter
#include "renderer/GpuParticlePass.h"  // GPU particle systems
#include "myriad/core/GpuParticles.h"
#include "renderer/ShaderLibrary.h"
#include "renderer/PhaseTimer.h"
#include "renderer/ShadowPass.h"  // shadows
#include "renderer/SkinPalettePass.h"  // skinned crowds
#include "renderer/SurfacePass.h"
#include "renderer/ViewPass.h"
#include "core/Validate.h"  // allFinite
#include "myriad/core/Camera.h"
#include "myriad/core/Image.h"  // linearToSrgb
#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/MeshNode.h"
#include "myriad/core/Scene.h"
#include "myriad/gl/Draw.h"
#include "myriad/gl/Loader.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/util/Error.h"
#include "myriad/util/Log.h"

#include <glm/geometric.hpp>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace myriad::gl {
namespace {

std::atomic<std::uint64_t> g_nextRendererId{1};

using detail::PhaseTimer;

LogLevel levelOf(GLenum severity) {
    switch (severity) {
    case GL_DEBUG_SEVERITY_HIGH: return LogLevel::Error;
    case GL_DEBUG_SEVERITY_MEDIUM: return LogLevel::Warning;
    case GL_DEBUG_SEVERITY_LOW: return LogLevel::Info;
    default: return LogLevel::Debug;
    }
}

/** The game's KHR_debug callback, if it had one, so messages reach it too. */
struct DebugChain {
    GLDEBUGPROC previous = nullptr;
    const void* previousUser = nullptr;
};

void GLAD_API_PTR debugMessage(GLenum source, GLenum type, GLuint id, GLenum severity, GLsizei length,
                               const GLchar* message, const void* user) {
    std::string text = "GL debug #" + std::to_string(id) + ": ";
    text.append(message, length >= 0 ? static_cast<std::size_t>(length) : std::strlen(message));
    log(levelOf(severity), text);
    const auto* chain = static_cast<const DebugChain*>(user);
    if (chain != nullptr && chain->previous != nullptr) {
        chain->previous(source, type, id, severity, length, message, chain->previousUser);
    }
}

/** How @p framebuffer's colour attachment 0 (or framebuffer 0's back, else front, left buffer)
 *  stores colour, asked of GL: two or three glGetNamedFramebufferAttachmentParameteriv. DSA
 *  queries: no binding changes. @p defaultExists: framebuffer 0 exists (asked once by the
 *  caller). */
TargetEncoding queryTargetEncoding(GLuint framebuffer, bool defaultExists) {
    GLenum attachment = GL_COLOR_ATTACHMENT0;
    GLint objectType = GL_NONE;
    if (framebuffer == 0) {
        // EGL surfaceless or pbuffer-less contexts have no default framebuffer: nothing drawn
        // there is kept, so there is nothing to encode (and nothing is drawn, see render()).
        if (!defaultExists) {
            return TargetEncoding::Float;
        }
        attachment = GL_BACK_LEFT;
        glGetNamedFramebufferAttachmentParameteriv(0, attachment, GL_FRAMEBUFFER_ATTACHMENT_OBJECT_TYPE, &objectType);
        if (objectType == GL_NONE) {
            attachment = GL_FRONT_LEFT;  // a single-buffered window or pbuffer
            glGetNamedFramebufferAttachmentParameteriv(0, attachment, GL_FRAMEBUFFER_ATTACHMENT_OBJECT_TYPE, &objectType);
        }
    } else {
        glGetNamedFramebufferAttachmentParameteriv(framebuffer, attachment, GL_FRAMEBUFFER_ATTACHMENT_OBJECT_TYPE,
                                                   &objectType);
    }
    if (objectType == GL_NONE) {
        return TargetEncoding::Float;  // no colour: nothing to encode
    }
    GLint encoding = GL_LINEAR;
    GLint componentType = GL_UNSIGNED_NORMALIZED;
    glGetNamedFramebufferAttachmentParameteriv(framebuffer, attachment, GL_FRAMEBUFFER_ATTACHMENT_COLOR_ENCODING,
                                               &encoding);
    glGetNamedFramebufferAttachmentParameteriv(framebuffer, attachment, GL_FRAMEBUFFER_ATTACHMENT_COMPONENT_TYPE,
                                               &componentType);
    if (encoding == GL_SRGB) {
        return TargetEncoding::Srgb;
    }
    // Only unsigned-normalized storage is a display format to encode for; float keeps linear
    // light, and integer or signed formats are not pictures.
    return componentType == GL_UNSIGNED_NORMALIZED ? TargetEncoding::Linear : TargetEncoding::Float;
}

} // namespace

struct Renderer::Impl {
    RendererDesc desc;
    std::uint64_t id;
    // Read once, here: every size checked against a limit in a frame compares with this record,
    // never with a glGet (docs/architecture.md, "Limits the renderer checks").
    const detail::GlLimits limits = detail::GlLimits::query();
    detail::GpuResources resources;
    detail::ShaderLibrary shaders;
    detail::MaterialTable materials;
    detail::GpuPopulations populations{limits};
    detail::InstanceVisibility instanceVisibility{limits};  // visible-index lists (per-instance culling, sorting)
    detail::GpuCulling gpuCulling{limits};  // InstanceCulling::Gpu: compute-written lists, indirect draws
    detail::GpuCullingCounts gpuCullingCounts;  // RendererDesc::gpuCullingCounts: their counts, read late
    detail::DepthPyramid depthPyramid{limits};  // View::occlusionCulling: per view, after its opaque draws
    std::uint64_t frames = 0;  // render() calls so far: FrameStats::frame
    std::vector<detail::ViewPass> passes;
    /** The frame's views with View::targetEncoding resolved (what the passes point at). */
    std::vector<View> resolvedViews;
    /** Per pass: the position in render()'s list of the view it draws, for a View::velocity
     *  view (its previous view-projection is kept by that position); SIZE_MAX otherwise. */
    std::vector<std::size_t> passVelocityView;
    /** Each framebuffer name's encoding as queried (TargetEncoding::Query views), until
     *  forgetFramebuffer(). */
    std::unordered_map<std::uint32_t, TargetEncoding> targetEncodings;
    std::optional<bool> defaultFramebufferExists;  // hasDefaultFramebuffer(), once asked
    bool warnedNoDefaultFramebuffer = false;
    detail::ParticlePass particles{id, limits};  // particles and scatter (docs/particles.md)
    detail::GpuParticlePass gpuParticles{id, limits};  // GPU particle systems (docs/particles.md, "GPU path")
    detail::SkinPalettePass skinPalettes{limits};  // skinned crowds' per-instance palettes (docs/skinning.md)
    detail::ShadowPass shadow{limits};  // the directional light's shadow map (docs/shadows.md)
    detail::LampShadowPass lampShadow{limits, desc.lightCutoffIlluminance};  // lamp shadows (docs/lighting.md)
    std::size_t lampShadowViews = 0;  // this frame's lamp shadow passes, after the sun's
    std::size_t sunShadowViews = 0;   // this frame's cascade passes, first
    std::size_t firstUserPass = 0;    // the first pass of the caller's views
    detail::DrawTable table{limits};    // the table-driven path: opaque draws in multi-draw calls
    detail::EnvironmentMaps environments{limits};  // image-based ambient's prefiltered maps (docs/lighting.md)
    detail::LightList lights{{desc.lightClusters.tilesAcross, desc.lightClusters.tilesUp, desc.lightClusters.slices},
                             desc.lightCutoffIlluminance};  // the clustered light list (docs/lighting.md)
    std::unique_ptr<DebugChain> debugChain;
    FrameStats stats;
    /** The surface draws: which variant each needs, their state and calls (SurfacePass.h). */
    detail::SurfacePass surfaces{{.stats = stats,
                                  .shaders = shaders,
                                  .resources = resources,
                                  .materials = materials,
                                  .shadow = shadow,
                                  .table = table,
                                  .gpuCulling = gpuCulling,
                                  .instanceVisibility = instanceVisibility,
                                  .gpuCullingCounts = gpuCullingCounts,
                                  .populations = populations,
                                  .skinPalettes = skinPalettes,
                                  .lights = lights,
                                  .countGpuCulled = desc.gpuCullingCounts,
                                  .lampShadow = &lampShadow}};

    explicit Impl(const RendererDesc& rendererDesc)
        : desc(rendererDesc), id(g_nextRendererId.fetch_add(1)),
          resources(id, rendererDesc.stagingBytes, rendererDesc.maxStagingBytes, limits),
          shaders(rendererDesc.programCacheFolder) {
        // The plain variants up front, so a broken driver fails at construction.
        shaders.request(detail::kLit, nullptr);
        shaders.request(detail::kLit | detail::kInstanced, nullptr);
        shaders.finishPending();
        if (desc.debugOutput) {
            debugChain = std::make_unique<DebugChain>();
            void* previous = nullptr;
            glGetPointerv(GL_DEBUG_CALLBACK_FUNCTION, &previous);
            glGetPointerv(GL_DEBUG_CALLBACK_USER_PARAM, const_cast<void**>(&debugChain->previousUser));
            debugChain->previous = reinterpret_cast<GLDEBUGPROC>(previous);
            GLint flags = 0;
            glGetIntegerv(GL_CONTEXT_FLAGS, &flags);
            glEnable(GL_DEBUG_OUTPUT);
            if ((flags & GL_CONTEXT_FLAG_DEBUG_BIT) != 0) {
                glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS);  // messages arrive inside the offending call
            }
            glDebugMessageCallback(debugMessage, debugChain.get());
        }
    }

    ~Impl() {
        if (debugChain) {
            glDebugMessageCallback(debugChain->previous, debugChain->previousUser);
        }
    }

    /** @p view's encoding: as stated, else the one queried for its framebuffer (once per name). */
    TargetEncoding targetEncoding(const View& view) {
        if (view.targetEncoding != TargetEncoding::Query) {
            return view.targetEncoding;
        }
        auto it = targetEncodings.find(view.framebuffer);
        if (it == targetEncodings.end()) {
            const bool defaultExists = view.framebuffer != 0 || hasDefaultFramebuffer();
            it = targetEncodings.emplace(view.framebuffer, queryTargetEncoding(view.framebuffer, defaultExists)).first;
        }
        return it->second;
    }

    /** Whether the context has a framebuffer 0 (a window or pbuffer; an EGL surfaceless context
     *  has none, GL_FRAMEBUFFER_UNDEFINED): one glCheckNamedFramebufferStatus, remembered until
     *  forgetFramebuffer(0). */
    bool hasDefaultFramebuffer() {
        if (!defaultFramebufferExists) {
            defaultFramebufferExists = glCheckNamedFramebufferStatus(0, GL_DRAW_FRAMEBUFFER) != GL_FRAMEBUFFER_UNDEFINED;
        }
        return *defaultFramebufferExists;
    }

    /** Refuses, before anything is drawn, a draw whose data a buffer texture cannot hold:
     *  morph deltas (2 texels per target and vertex) before they are uploaded; a batch drawn
     *  through the indexed path (culling, sorting, LOD, GPU culling), whose records it reads as
     *  4 texels per instance, and its CPU visible-index list, once batch() has sized them. */
    void requireMorphFits(const detail::DrawItem& item) const {
        const MeshGeometry& mesh = *detail::drawnMesh(item);
        const std::uint64_t texels = std::uint64_t{2} * mesh.morphTargetCount() * mesh.vertexCount();
        if (texels > static_cast<std::uint64_t>(limits.maxTextureBufferTexels)) {  // 0 without targets
            detail::requireTextureBufferTexels(
                limits, texels, *item.node,
                "morph targets of mesh '" + mesh.name() + "' (a buffer texture, 2 texels per target and vertex)",
                "use fewer targets or split the mesh");
        }
    }
    void requireIndexedFits(const detail::DrawItem& item, const detail::BatchGpu& batch) const {
        if (item.visible == nullptr && item.gpuCulled == nullptr) {
            return;  // divisor-1 attributes: no buffer texture
        }
        const char* advice = "lower its capacity or split it into several batches";
        detail::requireTextureBufferTexels(limits, batch.recordSource().bytes / 16, *item.node,
                                           "record stream (read as a buffer texture by per-instance culling, "
                                           "sorting or LOD: 4 texels per instance of its capacity)",
                                           advice);
        if (item.visible != nullptr) {
            detail::requireTextureBufferTexels(limits, item.visible->indices.size(), *item.node,
                                               "visible-index list (a buffer texture, 1 texel per instance drawn)",
                                               advice);
        }
    }

    /** Compiles every program and uploads every stream the passes need, before any draw.
     *  Every missing program is started first (loaded from the binary cache, or compiled and
     *  linked without waiting), then the uploads run while a driver with parallel compile works
     *  on them, then it waits for all of them at once.
     *  @throws CapacityError when a stream or list is larger than a GL limit allows. */
    void prepare() {
        const std::uint64_t compiledBefore = shaders.compiledCount();
        const std::uint64_t loadedBefore = shaders.loadedCount();
        {
            const PhaseTimer timer(stats.compileMs);
            for (const detail::ViewPass& pass : passes) {
                for (const auto& population : populations.populations()) {
                    shaders.request(surfaces.featuresOf(*population, pass), population->material.surface);
                }
                // Opaque draws wait for the table (below): it decides which variant each needs.
                for (const detail::DrawItem& item : pass.blended()) {
                    shaders.request(surfaces.featuresOf(item, pass), item.node->primitiveMaterial(item.primitive).surface);
                }
            }
        }
        for (const auto& population : populations.populations()) {
            (void)resources.texture(population->material);
            (void)populations.vertexArray(resources, *population);
        }
        for (const detail::ViewPass& pass : passes) {
            for (const auto* list : {&pass.opaque(), &pass.blended()}) {
                for (const detail::DrawItem& item : *list) {
                    const Material& material = item.node->primitiveMaterial(item.primitive);
                    requireMorphFits(item);
                    const PhaseTimer timer(stats.uploadMs);
                    (void)resources.mesh(detail::drawnMesh(item));  // a LOD level's mesh too
                    (void)resources.texture(material);
                    (void)resources.materialTextures(material, *detail::drawnMesh(item));  // their final copies before the first draw
                    if (item.instanced) {
                        requireIndexedFits(item, resources.batch(static_cast<const InstancedMeshNode&>(*item.node)));
                        if (detail::drawsAnimated(item)) {  // its palettes, blended before the draws
                            skinPalettes.note(static_cast<const InstancedMeshNode&>(*item.node));
                        }
                    }
                }
            }
        }
        {
            // The table-driven path: each pass's opaque draws into groups (their programs
            // requested), the rest requested as they are; then the changed rows and the commands.
            const PhaseTimer timer(stats.uploadMs);
            table.beginFrame(passes.size());
            for (const detail::ViewPass& pass : passes) {
                table.place(pass, resources);  // the record arena's size for the frame, before any build
            }
            for (std::size_t p = 0; p < passes.size(); ++p) {
                const detail::ViewPass& pass = passes[p];
                table.build(p, pass, resources, materials, shaders,
                            [&](const detail::DrawItem& item) { return surfaces.featuresOf(item, pass); });
                for (const detail::DrawItem* item : table.rest(p)) {
                    shaders.request(surfaces.featuresOf(*item, pass), item->node->primitiveMaterial(item->primitive).surface);
                }
            }
            table.upload(resources, stats);
        }
        {
            // particles and scatter: programs (requested), uploads and per-view sorts, before any draw
            const PhaseTimer timer(stats.uploadMs);
            particles.prepare(passes, shaders, resources);
            gpuParticles.prepare(passes, shaders, resources);  // programs, buffers, limits; no dispatch
        }
        resources.countRingWaits();  // the frame's uploads are done: its ring waits into gpuWaitMs
        {
            // The frame needs every one of them: wait for all together (a ShaderError throws here,
            // before anything is drawn), rather than drawing without a variant.
            const PhaseTimer timer(stats.compileMs);
            shaders.finishPending();
        }
        stats.programsCompiled = static_cast<std::uint32_t>(shaders.compiledCount() - compiledBefore);
        stats.programsLoaded = static_cast<std::uint32_t>(shaders.loadedCount() - loadedBefore);
    }

    void drawView(const detail::ViewPass& pass, const Scene& scene) {
        const View& view = pass.view();
        const auto passIndex = static_cast<std::size_t>(&pass - passes.data());
        const bool velocity = passVelocityView[passIndex] != SIZE_MAX;
        surfaces.beginView(pass, passIndex, passVelocityView[passIndex], stats.frame, scene.time);
        ++stats.views;
        glBindFramebuffer(GL_FRAMEBUFFER, view.framebuffer);
        glViewport(view.viewport.x, view.viewport.y, static_cast<GLsizei>(view.viewport.width),
                   static_cast<GLsizei>(view.viewport.height));
        glClipControl(GL_LOWER_LEFT, view.clipDepth == ClipDepth::ZeroToOne ? GL_ZERO_TO_ONE : GL_NEGATIVE_ONE_TO_ONE);
        // GL's encoding only where the target is sRGB: it changes nothing on a conforming
        // driver's linear or float target, and some drivers encode a default framebuffer that
        // reports GL_LINEAR anyway (twice encoded where the shader encodes, encoded where the
        // view asked for linear values).
        if (view.targetEncoding == TargetEncoding::Srgb) {
            glEnable(GL_FRAMEBUFFER_SRGB);
        } else {
            glDisable(GL_FRAMEBUFFER_SRGB);
        }
        const GLboolean colorWrites = view.depthOnly ? GL_FALSE : GL_TRUE;
        glColorMask(colorWrites, colorWrites, colorWrites, colorWrites);
        if (!velocity) {
            // A view without velocity into a framebuffer that has a velocity attachment (an
            // overlay into a velocity target): its shaders write no output 1, which would leave
            // attachment 1 undefined (OpenGL 4.5 section 17.4.1), and its colour clear would
            // write the clear colour there. Masked, attachment 1 keeps what it holds.
            glColorMaski(1, GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);
        }
        glDepthMask(GL_TRUE);
        GLbitfield clearBits = 0;
        if ((static_cast<unsigned>(view.clear) & static_cast<unsigned>(ClearFlags::Color)) != 0 && !view.depthOnly) {
            // Linear: with GL_FRAMEBUFFER_SRGB on, GL encodes the clear colour of an sRGB target;
            // for a linear 8-bit one that the shaders encode for, it is encoded here.
            glm::vec4 color = view.clearColor.value_or(scene.clearColor);
            if (detail::encodesInShader(view)) {
                color = {linearToSrgb(color.r), linearToSrgb(color.g), linearToSrgb(color.b), color.a};
            }
            glClearColor(color.r, color.g, color.b, color.a);
            clearBits |= GL_COLOR_BUFFER_BIT;
        }
        if ((static_cast<unsigned>(view.clear) & static_cast<unsigned>(ClearFlags::Depth)) != 0) {
            glClearDepth(view.reversedDepth ? 0.0 : 1.0);
            clearBits |= GL_DEPTH_BUFFER_BIT;
        }
        if (clearBits != 0) {
            // The clear is limited to the viewport, so split-screen views do not erase each other.
            glEnable(GL_SCISSOR_TEST);
            glScissor(view.viewport.x, view.viewport.y, static_cast<GLsizei>(view.viewport.width),
                      static_cast<GLsizei>(view.viewport.height));
            glClear(clearBits);
            if (velocity && (clearBits & GL_COLOR_BUFFER_BIT) != 0) {
                // Motion vectors: attachment 1 to zero, not to the clear colour (draw buffer 1).
                static constexpr std::array<GLfloat, 4> kZero{};
                glClearBufferfv(GL_COLOR, 1, kZero.data());
            }
            glDisable(GL_SCISSOR_TEST);
        }
        glEnable(GL_DEPTH_TEST);
        glDepthFunc(view.reversedDepth ? GL_GREATER : GL_LESS);
        glDisable(GL_BLEND);
        surfaces.drawOpaque(passIndex, pass, scene);  // with velocity: every one of them writes it
        if (gpuCulling.hasOcclusion(passIndex)) {
            // Occlusion culling's second phase: the pyramid of what the opaque draws left in
            // depth, every occlusion-culled instance tested against it, then those that became
            // visible drawn, before anything else of the view (scatter, particles, blended).
            {
                const PhaseTimer timer(stats.cullMs);
                const detail::DepthPyramidLevels& pyramid = depthPyramid.build(passIndex, view, stats);
                gpuCulling.dispatchOcclusion(passIndex, pyramid, pass.camera().viewProjection, view, resources, stats);
            }
            surfaces.forgetProgram();
            surfaces.drawOcclusionPhase2(passIndex, pass, scene);
        }
        if (velocity) {
            // Everything after writes no velocity (scatter, populations, blended draws,
            // particles): draw buffer 1 masked, so it keeps the cleared zero (docs/gl-state.md).
            glColorMaski(1, GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);
        }
        particles.drawScatter(passIndex, pass, shaders, resources, scene, lights);  // particles and scatter
        surfaces.forgetProgram();
        surfaces.drawPopulations(pass, scene, false);
        glEnable(GL_BLEND);
        glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
        glDepthMask(GL_FALSE);
        surfaces.drawBlended(pass, scene, [&](const ParticlePool& pool) {
            if (particles.drawPool(passIndex, pass, shaders, resources, pool)) {
                glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
            }
        });
        surfaces.drawPopulations(pass, scene, true);
        glDepthMask(GL_TRUE);
        particles.drawParticles(passIndex, pass, shaders, resources);  // particles and scatter
        gpuParticles.draw(passIndex, pass, shaders, resources);  // GPU particle systems, after the pools
        surfaces.forgetProgram();
    }

    /** A frame: @p draw false stops after prepare() (Renderer::prepare). */
    void render(const Scene& scene, std::span<const View> views, bool draw = true) {
        const auto frameStart = std::chrono::steady_clock::now();
        stats = FrameStats{};
        stats.frame = draw ? ++frames : frames;  // prepare() is no frame: it keeps the last number
        // Views with nothing to draw into are skipped before any GL call; raw matrices are
        // checked first, so a NaN draws nothing rather than a frame culled by NaN planes.
        std::size_t drawable = 0;
        for (std::size_t v = 0; v < views.size(); ++v) {
            const View& view = views[v];
            if (view.camera == nullptr && (!myriad::detail::allFinite(view.viewMatrix) || !myriad::detail::allFinite(view.projectionMatrix))) {
                throw InvalidArgument("gl::Renderer::render: view " + std::to_string(v) +
                                      " has no camera and a NaN or Inf in its view or projection matrix");
            }
            drawable += (view.viewport.width != 0 && view.viewport.height != 0) ? 1 : 0;
        }
        shadow.validate(scene.light.shadow);  // shadows: bad settings throw before any GL call
        lampShadow.validate(scene);           // lamp shadows: likewise
        detail::validateFog(scene.fog);       // fog: likewise
        detail::validateAmbient(scene);       // image-based ambient: likewise
        const glm::vec3& light = scene.light.direction;
        if (!myriad::detail::allFinite(light)) {
            throw InvalidArgument("gl::Renderer::render: the scene's light direction has a NaN or Inf");
        }
        if (!std::isfinite(scene.time)) {
            throw InvalidArgument("gl::Renderer::render: the scene's time is NaN or Inf (Scene::time)");
        }
        if (drawable == 0) {
            return;
        }
        requireCurrentContext("gl::Renderer::render");
        if (desc.gpuCullingCounts && draw) {
            gpuCullingCounts.beginFrame(stats.frame);
            gpuCullingCounts.collect(stats.gpuCulled);  // an earlier frame's, if the GPU is done with it
        }
        // Every view's target encoding, before the passes point at the copies (and before any
        // state is changed: the queries are DSA and bind nothing).
        resolvedViews.assign(views.begin(), views.end());
        for (View& view : resolvedViews) {
            if (!view.depthOnly && view.viewport.width != 0 && view.viewport.height != 0) {
                view.targetEncoding = targetEncoding(view);
            }
        }
        // A view into framebuffer 0 of a context that has none (EGL surfaceless) would clear and
        // draw into an incomplete framebuffer, GL_INVALID_FRAMEBUFFER_OPERATION for every call
        // (GL 4.5 section 9.4.4), and nothing drawn would be kept: it is skipped like a view
        // with an empty viewport.
        drawable = 0;
        for (View& view : resolvedViews) {
            if (view.viewport.width != 0 && view.viewport.height != 0 && view.framebuffer == 0 && !hasDefaultFramebuffer()) {
                if (!warnedNoDefaultFramebuffer) {
                    log(LogLevel::Warning, "gl::Renderer::render: a view draws into framebuffer 0, which this context "
                                           "does not have (EGL surfaceless?): skipped; draw into an OffscreenTarget");
                    warnedNoDefaultFramebuffer = true;
                }
                view.viewport.width = 0;
                view.viewport.height = 0;
            }
            drawable += (view.viewport.width != 0 && view.viewport.height != 0) ? 1 : 0;
        }
        if (drawable == 0) {
            return;
        }
        const std::uint64_t waitsBefore = resources.stagingWaits();
        resources.beginFrame(stats);
        instanceVisibility.beginFrame();
        gpuCulling.beginFrame();
        surfaces.forgetProgram();
        {
            // Streaming batches rewritten in bulk: copy + bounds in one pass before culling reads them.
            const PhaseTimer timer(stats.uploadMs);
            resources.streamAhead();
        }
        // Shadows: fit the light's views. After streamAhead: the fit reads every batch's bounds,
        // and before it a bulk-rewritten streaming batch would run a bounds pass of its own here
        // and then a plain copy in prepare, reading its records twice.
        const std::size_t sunViews = shadow.begin(scene, views);
        lampShadowViews = lampShadow.begin(scene, views);  // lamp shadows: their tiles' views
        stats.shadowedLamps = static_cast<std::uint32_t>(lampShadow.shadowed().size());
        const std::size_t shadowViews = sunViews + lampShadowViews;
        sunShadowViews = sunViews;
        firstUserPass = shadowViews;
        {
            const PhaseTimer timer(stats.cullMs);
            if (passes.size() < drawable + shadowViews) {
                passes.resize(drawable + shadowViews);
            }
            std::size_t p = 0;
            for (std::size_t c = 0; c < sunViews; ++c) {  // shadows: the light's views first
                passes[p].setInstanceVisibility(&instanceVisibility, p);
                passes[p].setShadowCaster(&shadow.camera(c), detail::ViewPass::CasterSet::All,
                                          scene.light.shadow.directionalCasterFaces);
                // GPU culling against the light's box too; a batch with instances masked out of
                // shadows takes the CPU list, which leaves them out (ViewPass::collect).
                passes[p].setGpuCulling(&gpuCulling);
                passes[p++].build(scene, shadow.view(c), stats);
            }
            for (std::size_t l = 0; l < lampShadowViews; ++l) {  // lamp shadows: each tile's pass
                passes[p].setInstanceVisibility(&instanceVisibility, p);
                passes[p].setShadowCaster(&lampShadow.camera(l), lampShadow.casterSet(l), scene.light.shadow.casterFaces);
                passes[p].setGpuCulling(&gpuCulling);
                passes[p].build(scene, lampShadow.view(l), stats);
                lampShadow.built(l, passes[p++]);
            }
            for (const View& view : resolvedViews) {
                if (view.viewport.width != 0 && view.viewport.height != 0) {
                    passes[p].setInstanceVisibility(&instanceVisibility, p);
                    passes[p].setGpuCulling(&gpuCulling);
                    passes[p].setShadowCaster(nullptr);
                    passes[p].setOcclusion({.bufferHeight = desc.occlusionBufferHeight,
                                            .triangleBudget = desc.occluderTriangleBudget,
                                            .maxOccluderInstances = desc.maxOccluderInstances});
                    passes[p++].build(scene, view, stats);
                }
            }
            passes.resize(drawable + shadowViews);
            passVelocityView.assign(passes.size(), SIZE_MAX);
            std::size_t userPass = shadowViews;
            for (std::size_t v = 0; v < resolvedViews.size(); ++v) {
                const View& view = resolvedViews[v];
                if (view.viewport.width != 0 && view.viewport.height != 0) {
                    if (view.velocity && !view.depthOnly) {
                        passVelocityView[userPass] = v;
                    }
                    ++userPass;
                }
            }
        }
        // Whatever happens from here, the caller's state (or the documented one) comes back and
        // the frame's uploads are fenced.
        const detail::GlStateSnapshot exitState =
            desc.preserveState ? detail::GlStateSnapshot::capture() : detail::documentedExitState();
        struct Restore {
            const detail::GlStateSnapshot& state;
            detail::GpuResources& resources;
            detail::InstanceVisibility& visibility;
            detail::ParticlePass& particles;
            detail::GpuParticlePass& gpuParticles;
            detail::GpuCulling& gpuCulling;
            detail::DepthPyramid& depthPyramid;
            detail::SkinPalettePass& skinPalettes;
            FrameStats& stats;
            std::uint64_t waitsBefore;
            ~Restore() {
                state.apply();
                resources.endFrame();
                visibility.endFrame();
                gpuCulling.endFrame();
                depthPyramid.endFrame();
                particles.endFrame();
                gpuParticles.endFrame();
                skinPalettes.endFrame();
                // After endFrame(): its waits (too many fences alive) are this frame's too, and
                // the ring may have grown for the next frame.
                stats.uploadWaits = resources.stagingWaits() - waitsBefore;
                stats.stagingBytes = resources.ring().capacity();
            }
        } restore{exitState,   resources,    instanceVisibility, particles, gpuParticles,
                  gpuCulling,  depthPyramid, skinPalettes,       stats,     waitsBefore};
        detail::applyRenderState();
        {
            // The identity table: every renderable of the scene (visible, culled or not) and
            // every population, before any draw reads an index.
            const PhaseTimer timer(stats.uploadMs);
            const std::uint64_t tableBytes = materials.bytesUploaded();
            // Compute writes since the last frame land before anything reads them: the table's
            // glNamedBufferSubData (a dispatch may bind it by kMaterialTableBuffer and write it:
            // buffer update), and the draws, which read records (attributes), lanes (texture
            // fetches) and storage. One barrier, issued only after a dispatch.
            populations.barrier(GL_BUFFER_UPDATE_BARRIER_BIT | GL_VERTEX_ATTRIB_ARRAY_BARRIER_BIT |
                                GL_TEXTURE_FETCH_BARRIER_BIT | GL_SHADER_STORAGE_BARRIER_BIT);
            materials.begin();
            materials.holdScene(scene);
            for (const auto& population : populations.populations()) {
                materials.hold(population->material, population->name, 0, population->id);
            }
            materials.end();
            stats.bytesUploaded += materials.bytesUploaded() - tableBytes;
            materials.bind();
            // The clustered light list of every colour view (docs/lighting.md).
            lights.prepare(scene, std::span(passes.data(), passes.size()), resources, limits, lampShadow.shadowed());
            lampShadow.upload(resources);  // lamp shadows: the tiles' records
            stats.bytesUploaded += lights.bytesUploaded();
            stats.lampsListed = static_cast<std::uint32_t>(lights.lampsListed());
            // Image-based ambient: the environment's prefiltered map, built on its first frame
            // (docs/lighting.md, "Image-based ambient"), before any program is chosen.
            lights.setAmbient(environments.prepare(scene));
            particles.setImageAmbient(lights.ambient().image);
        }
        // Motion vectors: batches keep their previous records in draw frames with a velocity view.
        resources.setVelocityFrame(draw && std::any_of(passVelocityView.begin(), passVelocityView.end(),
                                                       [](std::size_t v) { return v != SIZE_MAX; })
                                       ? stats.frame
                                       : 0);
        prepare();
        if (!draw) {
            gpuCulling.prepareProgram();  // the programs render() would compile after prepare
            for (std::size_t p = 0; p < passes.size(); ++p) {
                if (gpuCulling.hasOcclusion(p)) {
                    depthPyramid.prepareProgram();
                    break;
                }
            }
            stats.frameMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - frameStart).count();
            return;
        }
        {
            // Every (view, batch) culled on the GPU, before the first draw: compute, one barrier, draws.
            const PhaseTimer timer(stats.cullMs);
            gpuCulling.dispatch(resources, stats, table.tabledCulling());
            gpuParticles.simulate(passes, stats);  // GPU particle steps and sorts, then their barrier
            skinPalettes.dispatch(resources, stats);  // skinned crowds' palettes, then their barrier
        }
        const auto submitStart = std::chrono::steady_clock::now();
        const std::size_t firstLampPass = sunShadowViews;
        for (std::size_t p = 0; p < passes.size(); ++p) {
            const detail::ViewPass& pass = passes[p];
            if (lampShadowViews != 0 && p == firstLampPass + lampShadowViews) {
                lampShadow.bind();  // lamp shadows: every tile drawn, the colour views read them
            }
            if (p >= firstLampPass && p < firstLampPass + lampShadowViews &&
                !lampShadow.beforeDraw(p - firstLampPass, stats)) {
                continue;  // a static tile the cache holds
            }
            const FrameStats before = stats;
            drawView(pass, scene);
            shadow.afterDraw(pass, before, stats);  // shadows: binds the map once it is drawn
        }
        populations.noteFrameDrawn();  // the next dispatch() waits for these draws' reads
        if (desc.gpuCullingCounts) {
            gpuCullingCounts.copy();  // after the last indirect draw: copies and a fence, no wait
        }
        stats.submitMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - submitStart).count();
        surfaces.forgetProgram();
        stats.frameMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - frameStart).count();
    }
};

Renderer::Renderer(const RendererDesc& desc) {
    requireCurrentContext("gl::Renderer");
    if (desc.occlusionBufferHeight == 0 || desc.occlusionBufferHeight > 4096) {
        throw InvalidArgument("gl::Renderer: RendererDesc::occlusionBufferHeight " +
                              std::to_string(desc.occlusionBufferHeight) + " is not within 1..4096");
    }
    const RendererDesc::LightClusterGrid& grid = desc.lightClusters;
    const std::uint64_t clusters = std::uint64_t{grid.tilesAcross} * grid.tilesUp * grid.slices;
    for (const std::uint32_t cells : {grid.tilesAcross, grid.tilesUp, grid.slices}) {
        if (cells == 0 || cells > 128 || clusters > 16384) {
            throw InvalidArgument("gl::Renderer: RendererDesc::lightClusters {" + std::to_string(grid.tilesAcross) + ", " +
                                  std::to_string(grid.tilesUp) + ", " + std::to_string(grid.slices) +
                                  "}: each must be within 1..128, and at most 16384 clusters in all");
        }
    }
    if (!std::isfinite(desc.lightCutoffIlluminance) || !(desc.lightCutoffIlluminance > 0.0f)) {
        throw InvalidArgument("gl::Renderer: RendererDesc::lightCutoffIlluminance " +
                              std::to_string(desc.lightCutoffIlluminance) + " must be finite and > 0 (lux)");
    }
    m_impl = std::make_unique<Impl>(desc);
}

Renderer::~Renderer() = default;

void Renderer::render(const Scene& scene, std::span<const View> views) { m_impl->render(scene, views); }

void Renderer::render(const Scene& scene, const View& view) { m_impl->render(scene, std::span(&view, 1)); }

void Renderer::prepare(const Scene& scene, std::span<const View> views) { m_impl->render(scene, views, false); }

void Renderer::prepare(const Scene& scene, const View& view) { m_impl->render(scene, std::span(&view, 1), false); }

void Renderer::render(const Scene& scene, const Camera& camera, const OffscreenTarget& target) {
    if (target.framebufferId() == 0) {
        throw InvalidArgument("gl::Renderer::render: the OffscreenTarget is empty");
    }
    render(scene, View::of(camera, target));
}

void Renderer::render(const Scene& scene, const Camera& camera, std::uint32_t width, std::uint32_t height) {
    render(scene, View::of(camera, width, height));
}

const FrameStats& Renderer::lastFrameStats() const noexcept { return m_impl->stats; }

void Renderer::trim() {
    m_impl->resources.trim();
    m_impl->instanceVisibility.trim();
    m_impl->gpuCulling.trim();
    m_impl->depthPyramid.trim();
    m_impl->lights.trim();  // the clustered light list's buffer
    m_impl->environments.trim();  // image-based ambient's maps (rebuilt on the next frame that needs one)
    m_impl->particles.trim();
    m_impl->gpuParticles.trim();
    m_impl->shadow.trim();
    m_impl->lampShadow.trim();
    m_impl->shaders.releaseExpired();
}

const ShadowMapInfo& Renderer::shadowMap() const noexcept { return m_impl->shadow.info(); }

std::uint32_t Renderer::instanceBuffer(const InstancedMeshNode& batch) const noexcept {
    return instanceRecords(batch).buffer;
}

InstanceBufferRange Renderer::instanceRecords(const InstancedMeshNode& batch) const noexcept {
    const detail::BatchGpu* gpu = m_impl->resources.findBatch(batch);
    if (gpu == nullptr) {
        return {};
    }
    const detail::BatchGpu::RecordSource source = gpu->recordSource();
    return {source.buffer, source.offset, source.bytes};
}

std::uint32_t Renderer::instanceMorphWeightsTexture(const InstancedMeshNode& batch) const noexcept {
    const detail::BatchGpu* gpu = m_impl->resources.findBatch(batch);
    // The design card's instanceMorphWeights: none once no instance has weights of its own (the
    // texture may still exist; the vertex stage no longer reads it: no kInstanceMorphWeights).
    if (gpu == nullptr || !batch.hasInstanceMorphWeights()) {
        return 0u;
    }
    return gpu->streams[InstanceStreamId::MorphWeights].texture.id();
}

std::size_t Renderer::shadowPassCount() const noexcept { return m_impl->firstUserPass; }

std::optional<std::vector<std::uint32_t>> Renderer::readGpuCulledInstances(const InstancedMeshNode& batch,
                                                                           std::size_t view,
                                                                           std::size_t lodLevel) const {
    requireCurrentContext("gl::Renderer::readGpuCulledInstances");
    return m_impl->gpuCulling.readBack(view, batch, lodLevel);
}

void Renderer::forgetFramebuffer(std::uint32_t framebuffer) noexcept {
    m_impl->targetEncodings.erase(framebuffer);
    if (framebuffer == 0) {
        m_impl->defaultFramebufferExists.reset();
    }
}

std::size_t Renderer::programCount() const noexcept { return m_impl->shaders.size(); }

const MaterialIdentity& Renderer::materialIdentity() const { return m_impl->materials.identity(); }

std::optional<std::uint32_t> Renderer::materialIndex(std::string_view name) const {
    return m_impl->materials.find(name);
}

std::uint32_t Renderer::materialTableBuffer() const noexcept { return m_impl->materials.buffer().id(); }

void Renderer::createBuffer(const GpuBufferDesc& desc) {
    requireCurrentContext("gl::Renderer::createBuffer");
    m_impl->populations.createBuffer(desc);
}

void Renderer::writeBuffer(std::string_view name, std::size_t firstElement, std::span<const std::byte> bytes) {
    requireCurrentContext("gl::Renderer::writeBuffer");
    m_impl->populations.writeBuffer(name, firstElement, bytes);
}

std::vector<std::byte> Renderer::readBuffer(std::string_view name) {
    requireCurrentContext("gl::Renderer::readBuffer");
    return m_impl->populations.readBuffer(name);
}

void Renderer::destroyBuffer(std::string_view name) { m_impl->populations.destroyBuffer(name); }

std::uint32_t Renderer::bufferId(std::string_view name) const noexcept {
    const detail::NamedBuffer* buffer = m_impl->populations.find(name);
    return buffer == nullptr ? 0u : buffer->buffer.id();
}

PopulationId Renderer::drawInstanced(std::shared_ptr<const MeshGeometry> mesh, const PopulationDesc& desc) {
    requireCurrentContext("gl::Renderer::drawInstanced");
    return m_impl->populations.add(m_impl->resources, std::move(mesh), desc);
}

void Renderer::removePopulation(PopulationId id) { m_impl->populations.remove(id); }

std::size_t Renderer::populationCount() const noexcept { return m_impl->populations.populations().size(); }

void Renderer::dispatch(const ComputeProgram& program, std::span<const BufferBinding> bindings,
                        std::uint32_t groupsX, std::uint32_t groupsY, std::uint32_t groupsZ) {
    requireCurrentContext("gl::Renderer::dispatch");
    m_impl->populations.dispatch(program, bindings, {groupsX, groupsY, groupsZ}, m_impl->materials.buffer().id());
}

std::optional<std::vector<Particle>> Renderer::readGpuParticles(const GpuParticleSystem& system) const {
    requireCurrentContext("gl::Renderer::readGpuParticles");
    return m_impl->gpuParticles.readParticles(system);
}

std::optional<std::vector<std::uint32_t>> Renderer::readGpuParticleOrder(const GpuParticleSystem& system,
                                                                       std::size_t view) const {
    requireCurrentContext("gl::Renderer::readGpuParticleOrder");
    // The light's and the lamps' shadow views come first in the passes and never draw particles.
    const std::size_t shadowViews = m_impl->firstUserPass;
    return m_impl->gpuParticles.readOrder(system, view + shadowViews);
}

} // namespace myriad::gl
