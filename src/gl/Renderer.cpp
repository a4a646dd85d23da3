#include "myriad/gl/Renderer.h"

#include "gl/GlCommon.h"
#include "gl/GlState.h"
#include "gl/GpuResources.h"
#include "gl/ParticlePass.h"  // particles and scatter
#include "gl/ShaderLibrary.h"
#include "gl/ViewPass.h"
#include "myriad/core/Camera.h"
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
#include <cstring>
#include <string>
#include <vector>

namespace myriad::gl {
namespace {

std::atomic<std::uint64_t> g_nextRendererId{1};

/** Adds the lifetime of the timer to a FrameStats field, in milliseconds. */
class PhaseTimer {
public:
    explicit PhaseTimer(double& total) noexcept : m_total(total), m_start(std::chrono::steady_clock::now()) {}
    ~PhaseTimer() {
        m_total += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - m_start).count();
    }
    PhaseTimer(const PhaseTimer&) = delete;
    PhaseTimer& operator=(const PhaseTimer&) = delete;

private:
    double& m_total;
    std::chrono::steady_clock::time_point m_start;
};

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

} // namespace

struct Renderer::Impl {
    RendererDesc desc;
    std::uint64_t id;
    detail::GpuResources resources;
    detail::ShaderLibrary shaders;
    std::vector<detail::ViewPass> passes;
    detail::ParticlePass particles{id};  // particles and scatter (docs/particles.md)
    std::unique_ptr<DebugChain> debugChain;
    FrameStats stats;
    std::uint64_t viewSerial = 0;
    const detail::SurfaceProgram* boundProgram = nullptr;

    explicit Impl(const RendererDesc& rendererDesc)
        : desc(rendererDesc), id(g_nextRendererId.fetch_add(1)), resources(id, rendererDesc.stagingBytes) {
        // The plain variants up front, so a broken driver fails at construction.
        (void)shaders.get(detail::kLit, nullptr);
        (void)shaders.get(detail::kLit | detail::kInstanced, nullptr);
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

    /** The feature set a node needs in a view. */
    static std::uint32_t featuresOf(const detail::DrawItem& item, const View& view) {
        const MeshNode& node = *item.node;
        const Material& material = node.material();
        std::uint32_t features = 0;
        if (item.instanced) {
            features |= detail::kInstanced;
            const auto& batch = static_cast<const InstancedMeshNode&>(node);
            const std::size_t mirrored = batch.mirroredCount();
            if (!material.doubleSided && mirrored != 0 && mirrored != batch.count()) {
                features |= detail::kMixedMirroring;
            }
        }
        if (node.mesh()->morphTargetCount() > 0) {
            features |= detail::kMorph;
            if (item.instanced && static_cast<const InstancedMeshNode&>(node).hasInstanceMorphWeights()) {
                features |= detail::kInstanceMorphWeights;
            }
        }
        if (material.alphaMode == AlphaMode::Mask) {
            features |= detail::kAlphaMask;
        }
        if (view.depthOnly) {
            features |= detail::kDepthOnly;
        } else {
            if (material.shading == Shading::Lit) {
                features |= detail::kLit;
            }
            if (node.drawsTransparent()) {
                features |= detail::kBlend;
            }
        }
        return features;
    }

    /** Compiles every program and uploads every stream the passes need, before any draw. */
    void prepare() {
        for (const detail::ViewPass& pass : passes) {
            for (const auto* list : {&pass.opaque(), &pass.blended()}) {
                for (const detail::DrawItem& item : *list) {
                    (void)shaders.get(featuresOf(item, pass.view()), item.node->material().surface);
                    const PhaseTimer timer(stats.uploadMs);
                    (void)resources.mesh(item.node->mesh());
                    (void)resources.texture(item.node->material());
                    if (item.instanced) {
                        (void)resources.batch(static_cast<const InstancedMeshNode&>(*item.node));
                    }
                }
            }
        }
        // particles and scatter: programs, uploads and per-view sorts, before any draw
        const PhaseTimer timer(stats.uploadMs);
        particles.prepare(passes, shaders, resources);
    }

    void useProgram(const detail::SurfaceProgram& program) {
        if (boundProgram != &program) {
            program.program.use();
            boundProgram = &program;
            ++stats.programBinds;
        }
    }

    // Back faces: fixed-function culling when every drawn copy has the same handedness (GL_FRONT
    // for mirrored ones, whose front faces wind clockwise on screen), per fragment when a batch
    // mixes mirrored and ordinary instances (kMixedMirroring), none for double-sided materials.
    static void setFaceCulling(const detail::DrawItem& item, std::uint32_t features) {
        const MeshNode& node = *item.node;
        if (node.material().doubleSided || (features & detail::kMixedMirroring) != 0) {
            glDisable(GL_CULL_FACE);
            return;
        }
        bool mirrored = node.worldIsMirrored();
        if (item.instanced) {
            mirrored = mirrored != (static_cast<const InstancedMeshNode&>(node).mirroredCount() != 0);
        }
        glEnable(GL_CULL_FACE);
        glCullFace(mirrored ? GL_FRONT : GL_BACK);
    }

    void draw(const detail::DrawItem& item, const detail::ViewPass& pass, const Scene& scene) {
        const MeshNode& node = *item.node;
        const Material& material = node.material();
        const std::uint32_t features = featuresOf(item, pass.view());
        detail::SurfaceProgram& chosen = shaders.get(features, material.surface);
        const Program& program = chosen.program;
        const detail::SurfaceUniforms& u = chosen.uniforms;
        useProgram(chosen);
        if (chosen.viewSerial != viewSerial) {
            // Camera and light are the same for every draw of a view: once per program and view.
            const detail::ViewCamera& camera = pass.camera();
            program.setUniform(u.viewProjection, camera.viewProjection);
            program.setUniform(u.eye, glm::vec3(camera.eye));
            const glm::vec3 direction = glm::length(scene.light.direction) > 0.0f
                                            ? glm::normalize(scene.light.direction)
                                            : glm::vec3(0.0f, -1.0f, 0.0f);
            program.setUniform(u.lightDirection, direction);
            program.setUniform(u.lightColor, scene.light.color * scene.light.intensity);
            program.setUniform(u.ambient, scene.ambient);
            chosen.viewSerial = viewSerial;
        }

        const MeshGeometry& geometry = *node.mesh();
        detail::MeshGpu& mesh = resources.mesh(node.mesh());
        if ((features & detail::kMorph) != 0) {
            glBindTextureUnit(1, mesh.morphTargets.id());
            program.setUniform(u.morphTargetCount, static_cast<int>(geometry.morphTargetCount()));
            program.setUniform(u.vertexCount, static_cast<int>(geometry.vertexCount()));
            program.setUniform(u.morphWeights, node.morphWeights());
        }
        const Texture2D* baseColorTexture = resources.texture(material);
        if (baseColorTexture != nullptr) {
            baseColorTexture->bind(0);
            glBindSampler(0, resources.sampler(material));
        }
        glm::mat4 model(node.worldLinear());
        model[3] = glm::vec4(glm::vec3(node.worldTranslation() - pass.camera().eye), 1.0f);
        program.setUniform(u.model, model);
        program.setUniform(u.tint, node.tint());
        program.setUniform(u.baseColor, material.baseColor);
        program.setUniform(u.hasTexture, baseColorTexture != nullptr ? 1 : 0);
        program.setUniform(u.alphaCutoff, material.alphaCutoff);
        program.setUniform(u.baseInstance, static_cast<int>(item.firstInstance));
        setFaceCulling(item, features);

        const VertexArray* vertexArray = &mesh.vertexArray;
        if (item.instanced) {
            const auto& batchNode = static_cast<const InstancedMeshNode&>(node);
            detail::BatchGpu& batch = resources.batch(batchNode);  // uploaded in prepare(): no copy
            if ((features & detail::kInstanceMorphWeights) != 0) {
                glBindTextureUnit(2, batch.streams[InstanceStreamId::MorphWeights].texture.id());
            }
            vertexArray = &batch.vertexArray;
            ++stats.batches;
        } else {
            ++stats.meshNodes;
        }
        {
            const PhaseTimer timer(stats.drawMs);
            drawElementsInstancedBaseInstance(*vertexArray, PrimitiveMode::Triangles, geometry.indexCount(),
                                              geometry.indexType(), 0, item.instanceCount, item.firstInstance);
        }
        ++stats.vertexArrayBinds;
        ++stats.drawCalls;
        stats.instances += item.instanceCount;
        stats.triangles += std::uint64_t{geometry.triangleCount()} * item.instanceCount;
    }

    void drawView(const detail::ViewPass& pass, const Scene& scene) {
        const View& view = pass.view();
        ++viewSerial;
        ++stats.views;
        glBindFramebuffer(GL_FRAMEBUFFER, view.framebuffer);
        glViewport(view.viewport.x, view.viewport.y, static_cast<GLsizei>(view.viewport.width),
                   static_cast<GLsizei>(view.viewport.height));
        glClipControl(GL_LOWER_LEFT, view.clipDepth == ClipDepth::ZeroToOne ? GL_ZERO_TO_ONE : GL_NEGATIVE_ONE_TO_ONE);
        const GLboolean colorWrites = view.depthOnly ? GL_FALSE : GL_TRUE;
        glColorMask(colorWrites, colorWrites, colorWrites, colorWrites);
        glDepthMask(GL_TRUE);
        GLbitfield clearBits = 0;
        if ((static_cast<unsigned>(view.clear) & static_cast<unsigned>(ClearFlags::Color)) != 0 && !view.depthOnly) {
            // Linear: with GL_FRAMEBUFFER_SRGB on, GL encodes the clear colour of an sRGB target.
            const glm::vec4 color = view.clearColor.value_or(scene.clearColor);
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
            glDisable(GL_SCISSOR_TEST);
        }
        glEnable(GL_DEPTH_TEST);
        glDepthFunc(view.reversedDepth ? GL_GREATER : GL_LESS);
        glDisable(GL_BLEND);
        for (const detail::DrawItem& item : pass.opaque()) {
            draw(item, pass, scene);
        }
        const auto passIndex = static_cast<std::size_t>(&pass - passes.data());
        particles.drawScatter(passIndex, pass, shaders, resources, scene);  // particles and scatter
        boundProgram = nullptr;
        if (!pass.blended().empty()) {
            glEnable(GL_BLEND);
            glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
            glDepthMask(GL_FALSE);
            for (const detail::DrawItem& item : pass.blended()) {
                draw(item, pass, scene);
            }
            glDepthMask(GL_TRUE);
        }
        particles.drawParticles(passIndex, pass, shaders, resources);  // particles and scatter
        boundProgram = nullptr;
    }

    void render(const Scene& scene, std::span<const View> views) {
        const auto frameStart = std::chrono::steady_clock::now();
        stats = FrameStats{};
        // Views with nothing to draw into are skipped before any GL call.
        std::size_t drawable = 0;
        for (const View& view : views) {
            drawable += (view.viewport.width != 0 && view.viewport.height != 0) ? 1 : 0;
        }
        if (drawable == 0) {
            return;
        }
        requireCurrentContext("gl::Renderer::render");
        const std::uint64_t waitsBefore = resources.stagingWaits();
        resources.beginFrame(stats);
        boundProgram = nullptr;
        {
            const PhaseTimer timer(stats.cullMs);
            if (passes.size() < drawable) {
                passes.resize(drawable);
            }
            std::size_t p = 0;
            for (const View& view : views) {
                if (view.viewport.width != 0 && view.viewport.height != 0) {
                    passes[p++].build(scene, view, stats);
                }
            }
            passes.resize(drawable);
        }
        // Whatever happens from here, the caller's state (or the documented one) comes back and
        // the frame's uploads are fenced.
        const detail::GlStateSnapshot exitState =
            desc.preserveState ? detail::GlStateSnapshot::capture() : detail::documentedExitState();
        struct Restore {
            const detail::GlStateSnapshot& state;
            detail::GpuResources& resources;
            detail::ParticlePass& particles;
            ~Restore() {
                state.apply();
                resources.endFrame();
                particles.endFrame();
            }
        } restore{exitState, resources, particles};
        detail::applyRenderState();
        prepare();
        const auto submitStart = std::chrono::steady_clock::now();
        for (const detail::ViewPass& pass : passes) {
            drawView(pass, scene);
        }
        stats.submitMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - submitStart).count();
        boundProgram = nullptr;
        stats.uploadWaits = resources.stagingWaits() - waitsBefore;
        stats.frameMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - frameStart).count();
    }
};

Renderer::Renderer(const RendererDesc& desc) {
    requireCurrentContext("gl::Renderer");
    m_impl = std::make_unique<Impl>(desc);
}

Renderer::~Renderer() = default;

void Renderer::render(const Scene& scene, std::span<const View> views) { m_impl->render(scene, views); }

void Renderer::render(const Scene& scene, const View& view) { m_impl->render(scene, std::span(&view, 1)); }

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
    m_impl->particles.trim();
    m_impl->shaders.releaseExpired();
}

std::uint32_t Renderer::instanceBuffer(const InstancedMeshNode& batch) const noexcept {
    const detail::BatchGpu* gpu = m_impl->resources.findBatch(batch);
    return gpu == nullptr ? 0u : gpu->streams[InstanceStreamId::Record].buffer.id();
}

std::uint32_t Renderer::instanceMorphWeightsTexture(const InstancedMeshNode& batch) const noexcept {
    const detail::BatchGpu* gpu = m_impl->resources.findBatch(batch);
    return gpu == nullptr ? 0u : gpu->streams[InstanceStreamId::MorphWeights].texture.id();
}

std::size_t Renderer::programCount() const noexcept { return m_impl->shaders.size(); }

} // namespace myriad::gl
