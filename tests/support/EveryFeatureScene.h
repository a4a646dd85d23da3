#pragma once
// A scene with every feature of the renderer on, for the steady-frame checks (tests and bench):
// shadows, a lit morphing MeshNode, a GPU-culled batch, a CPU-culled batch with a LOD chain,
// a blended batch sorted back to front with lanes, a batch and a MeshNode of two primitives,
// a sorted particle pool, a sorted pool that streams (rewritten every frame) with curves on the
// GPU and draw bounds among the blended meshes, scatter with wind,
// a GPU population with lanes, drawn into two views side by side. And the GL calls a steady
// frame must not make: every glGet* variant myriad's sources use (and the rest of the family
// glad loads), glIsEnabled, glGetUniformLocation, glCheck*FramebufferStatus.
// Needs a current GL context (myriad::egl::HeadlessContext) before build().
#include "support/CoreTest.h"
#include "support/GlCallLog.h"

#include "myriad/core/AnimationSet.h"
#include "myriad/core/Camera.h"
#include "myriad/core/GpuParticles.h"
#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Lod.h"
#include "myriad/core/Material.h"
#include "myriad/core/MeshNode.h"
#include "myriad/core/Particles.h"
#include "myriad/core/Scatter.h"
#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/gl/GpuData.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/Renderer.h"
#include "myriad/gl/View.h"

#include <glm/gtc/matrix_transform.hpp>

#include <array>
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

namespace myriad::test {

/** Hooks every state and object query: the calls that wait for the driver (a round trip, a
 *  pipeline flush on some) and that a steady frame must not make. */
inline void hookRoundTrips(GlCallLog& log) {
    MYRIAD_GL_CALL_LOG_HOOK(log, glGetBooleanv);
    MYRIAD_GL_CALL_LOG_HOOK(log, glGetBooleani_v);
    MYRIAD_GL_CALL_LOG_HOOK(log, glGetIntegerv);
    MYRIAD_GL_CALL_LOG_HOOK(log, glGetIntegeri_v);
    MYRIAD_GL_CALL_LOG_HOOK(log, glGetInteger64v);
    MYRIAD_GL_CALL_LOG_HOOK(log, glGetInteger64i_v);
    MYRIAD_GL_CALL_LOG_HOOK(log, glGetFloatv);
    MYRIAD_GL_CALL_LOG_HOOK(log, glGetFloati_v);
    MYRIAD_GL_CALL_LOG_HOOK(log, glGetDoublev);
    MYRIAD_GL_CALL_LOG_HOOK(log, glGetPointerv);
    MYRIAD_GL_CALL_LOG_HOOK(log, glGetString);
    MYRIAD_GL_CALL_LOG_HOOK(log, glGetStringi);
    MYRIAD_GL_CALL_LOG_HOOK(log, glGetError);
    MYRIAD_GL_CALL_LOG_HOOK(log, glIsEnabled);
    MYRIAD_GL_CALL_LOG_HOOK(log, glIsEnabledi);
    MYRIAD_GL_CALL_LOG_HOOK(log, glGetUniformLocation);
    MYRIAD_GL_CALL_LOG_HOOK(log, glGetProgramiv);
    MYRIAD_GL_CALL_LOG_HOOK(log, glGetShaderiv);
    MYRIAD_GL_CALL_LOG_HOOK(log, glGetProgramInfoLog);
    MYRIAD_GL_CALL_LOG_HOOK(log, glGetShaderInfoLog);
    MYRIAD_GL_CALL_LOG_HOOK(log, glGetNamedBufferSubData);
    MYRIAD_GL_CALL_LOG_HOOK(log, glGetNamedBufferParameteriv);
    MYRIAD_GL_CALL_LOG_HOOK(log, glGetTextureLevelParameteriv);
    MYRIAD_GL_CALL_LOG_HOOK(log, glGetTextureParameteriv);
    MYRIAD_GL_CALL_LOG_HOOK(log, glGetObjectLabel);
    MYRIAD_GL_CALL_LOG_HOOK(log, glGetSynciv);
    MYRIAD_GL_CALL_LOG_HOOK(log, glCheckFramebufferStatus);
    MYRIAD_GL_CALL_LOG_HOOK(log, glCheckNamedFramebufferStatus);
}

/** The hooked calls in @p log (all of them are round trips). */
inline std::size_t roundTrips(const GlCallLog& log) { return log.calls().size(); }

/** The scene, its renderer's target and two views (left and right halves), all alive together. */
struct EveryFeatureScene {
    static constexpr std::uint32_t kWidth = 128;
    static constexpr std::uint32_t kHeight = 64;
    Scene scene;
    Camera left;
    Camera right;
    gl::OffscreenTarget target{2 * kWidth, kHeight, "every-feature-target"};
    std::array<gl::View, 2> views;
    ParticlePool* pool = nullptr;
    ParticlePool* streamingPool = nullptr;  ///< UploadMode::Streaming, curves, draw bounds; rewritten by render()
    GpuParticleSystem* gpuParticles = nullptr;  ///< sorted; steps every render(), its particles still

    /** Builds the scene; @p renderer gets the population's buffers. */
    explicit EveryFeatureScene(gl::Renderer& renderer) {
        Material lit;
        lit.name = "lit";
        Material red = lit;
        red.name = "red";
        red.baseColor = glm::vec4(1, 0, 0, 1);
        scene.light.direction = glm::vec3(-0.3f, -1.0f, -0.2f);
        scene.light.shadow.enabled = true;
        scene.light.shadow.mapSize = 256;
        scene.light.shadow.distance = 40.0f;

        auto ground = MeshGeometry::create(shapes::box(1.0f), "ground");
        scene.root().emplace<MeshNode>(ground, lit, "ground").setLocalMatrix(
            glm::scale(glm::translate(glm::mat4(1.0f), glm::vec3(0, -1, 0)), glm::vec3(20, 0.2f, 20)));

        // A morphing MeshNode: one target, weight 0.5.
        MeshData morphing = shapes::box(0.5f);
        MorphTarget lift;
        lift.positionDeltas.assign(morphing.positions.size(), glm::vec3(0.0f, 0.3f, 0.0f));
        morphing.morphTargets.push_back(lift);
        morphing.morphWeights = {0.5f};
        scene.root().emplace<MeshNode>(MeshGeometry::create(std::move(morphing), "morphing-box"), red, "morphing")
            .setPosition({0.0f, 0.5f, 0.0f});

        auto cube = MeshGeometry::create(shapes::box(0.3f), "cube");
        auto& gpuCulled = scene.root().emplace<InstancedMeshNode>(cube, lit, 256, "gpu-culled");
        gpuCulled.setInstanceCulling(InstanceCulling::Gpu);
        auto& lod = scene.root().emplace<InstancedMeshNode>(cube, red, 256, "lod");
        LodChain chain;
        chain.levels = {{nullptr, 8.0f},
                        {MeshGeometry::create(shapes::box(0.2f), "cube-lod1"), 14.0f},
                        {MeshGeometry::create(shapes::box(0.1f), "cube-lod2"), 40.0f}};
        lod.setLodChain(chain);
        lod.setInstanceCulling(InstanceCulling::Cpu);
        auto& gpuLod = scene.root().emplace<InstancedMeshNode>(cube, lit, 128, "gpu-lod");
        gpuLod.setLodChain(chain);
        gpuLod.setInstanceCulling(InstanceCulling::Gpu);
        for (int i = 0; i < 256; ++i) {
            const float x = static_cast<float>(i % 16) - 7.5f;
            const float z = -static_cast<float>(i / 16) * 1.5f;
            gpuCulled.addInstance(glm::translate(glm::mat4(1.0f), glm::vec3(x, 0.0f, z)));
            lod.addInstance(glm::translate(glm::mat4(1.0f), glm::vec3(x, 1.0f, z)));
            if (i < 128) {
                gpuLod.addInstance(glm::translate(glm::mat4(1.0f), glm::vec3(x, 2.0f, z)));
            }
        }
        Material glass = lit;
        glass.name = "glass";
        glass.alphaMode = AlphaMode::Blend;
        glass.baseColor = glm::vec4(0.2f, 0.4f, 1.0f, 0.5f);
        auto& blended = scene.root().emplace<InstancedMeshNode>(cube, glass, 32, "glass");
        blended.setSortInstances(true);
        for (int i = 0; i < 32; ++i) {
            blended.addInstance(glm::translate(glm::mat4(1.0f), glm::vec3(static_cast<float>(i % 8) - 3.5f, 3.0f,
                                                                            -static_cast<float>(i / 8))));
            blended.setLane(static_cast<std::size_t>(i), 0, glm::vec4(static_cast<float>(i)));
        }

        // Several primitives on the table-driven path: primitive 1 with its own row and pairs.
        auto& twoPart = scene.root().emplace<InstancedMeshNode>(cube, lit, 16, "two-part");
        twoPart.addPrimitive(MeshGeometry::create(shapes::box(0.15f), "cap"), red);
        auto& twoPartNode = scene.root().emplace<MeshNode>(cube, red, "two-part-node");
        twoPartNode.addPrimitive(MeshGeometry::create(shapes::box(0.1f), "knob"), lit);
        twoPartNode.setPosition({2.0f, 0.5f, -1.0f});
        for (int i = 0; i < 16; ++i) {
            twoPart.addInstance(glm::translate(glm::mat4(1.0f), glm::vec3(static_cast<float>(i % 4) - 1.5f, 2.5f,
                                                                          -static_cast<float>(i / 4))));
        }

        pool = &scene.root().emplace<ParticlePool>(64, ParticleMaterial::billboard(), "smoke");
        for (int i = 0; i < 48; ++i) {
            Particle particle;
            particle.position = glm::vec3(static_cast<float>(i % 8) - 3.5f, 4.0f, -static_cast<float>(i / 8));
            particle.size = 0.3f;
            particle.alpha = 0.5f;
            pool->spawn(particle);
        }

        streamingPool = &scene.root().emplace<ParticlePool>(64, ParticleMaterial::billboard(), "streaming-smoke");
        streamingPool->setUploadMode(UploadMode::Streaming);
        ParticleCurves curves;
        curves.color = glm::vec3(0.6f);
        curves.alphaOverLife.keys = {{0.0f, 0.6f}, {1.0f, 0.0f}};
        curves.sizeOverLife.keys = {{0.0f, 0.2f}, {1.0f, 0.4f}};
        streamingPool->setCurves(curves);
        Aabb smokeBox;
        smokeBox.extend(glm::vec3(-4.0f, 4.0f, -7.0f));
        smokeBox.extend(glm::vec3(4.0f, 6.0f, 0.0f));
        streamingPool->setDrawBounds(smokeBox);
        for (int i = 0; i < 32; ++i) {
            Particle particle;
            particle.position = glm::vec3(static_cast<float>(i % 8) - 3.5f, 5.0f, -static_cast<float>(i / 8));
            particle.age = static_cast<float>(i) / 32.0f;
            streamingPool->spawn(particle);
        }

        // A GPU particle system, sorted (alpha), stepped by every render(): still particles (no
        // speed, gravity or curves) so every frame draws the same picture; distinct depths.
        EmitterDesc still;
        still.position = glm::vec3(0.0f, 3.0f, -4.0f);
        still.spawnExtent = glm::vec3(3.0f, 0.5f, 2.0f);
        still.rate = 0.0f;
        still.lifetimeMin = still.lifetimeMax = 1e6f;
        still.speedMin = still.speedMax = 0.0f;
        still.size = 0.2f;
        still.alpha = 0.5f;
        still.color = glm::vec3(0.2f, 0.4f, 1.0f);
        gpuParticles = &scene.root().emplace<GpuParticleSystem>(64, ParticleMaterial::billboard(), still, 1, "gpu-sparks");
        gpuParticles->burst(48);

        MeshData blade;
        blade.positions = {{-0.05f, 0.0f, 0.0f}, {0.05f, 0.0f, 0.0f}, {0.05f, 0.6f, 0.0f}, {-0.05f, 0.6f, 0.0f}};
        blade.normals = {{0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {0, 0, 1}};
        blade.indices16 = {0, 1, 2, 0, 2, 3};
        auto& grass = scene.root().emplace<ScatterNode>(MeshGeometry::create(std::move(blade), "blade"), lit, 64, "grass");
        for (int i = 0; i < 64; ++i) {
            grass.add(ScatterInstance{{static_cast<float>(i % 8) - 3.5f, -0.9f, -static_cast<float>(i / 8) * 0.5f}});
        }
        grass.wind.strength = 0.3f;

        // Skinning (docs/skinning.md): a posed node (its palette sent once) and a crowd playing
        // baked clips at the batch clock (nothing sent per frame), both casting shadows.
        std::vector<Joint> joints(2);
        joints[1].parent = 0;
        joints[1].rest.translation = {0.5f, 0.0f, 0.0f};
        joints[1].inverseBind[3] = glm::vec4(-0.5f, 0.0f, 0.0f, 1.0f);
        const auto skeleton = Skeleton::create(std::move(joints), "arm");
        auto arm = MeshGeometry::create(test::skinnedStrip(0.0f, 1.0f, 4, 0.5f, -0.1f, 0.1f), "arm");
        auto& posed = scene.root().emplace<MeshNode>(arm, lit, "posed-arm");
        posed.setPosition({-2.0, 1.0, -3.0});
        posed.setSkeleton(skeleton);
        std::vector<JointTransform> pose = skeleton->restPose();
        pose[1].rotation = glm::angleAxis(1.0f, glm::vec3(0.0f, 0.0f, 1.0f));
        posed.setPose(pose);
        AnimationChannel bend;
        bend.target = 1;
        bend.property = AnimatedProperty::Rotation;
        bend.times = {0.0f, 1.0f};
        const glm::quat bent = glm::angleAxis(1.5f, glm::vec3(0.0f, 0.0f, 1.0f));
        bend.values = {glm::vec4(0, 0, 0, 1), glm::vec4(bent.x, bent.y, bent.z, bent.w)};
        const std::shared_ptr<const AnimationClip> clips[] = {AnimationClip::create("bend", {bend})};
        auto& crowd = scene.root().emplace<InstancedMeshNode>(arm, red, 8, "arm-crowd");
        crowd.setAnimationSet(AnimationSet::bake(skeleton, clips, *arm));
        for (int i = 0; i < 8; ++i) {
            crowd.addInstance(glm::translate(glm::mat4(1.0f), glm::vec3(static_cast<float>(i) - 3.5f, 2.0f, -4.0f)));
            crowd.setAnimation(static_cast<std::size_t>(i), {.startTime = 0.1f * static_cast<float>(i)});
        }
        crowd.setAnimationTime(0.5f);

        // A population: 64 records and lanes in the renderer's named buffers.
        struct Record {
            glm::vec4 rows[3];
            glm::vec4 color;
        };
        std::vector<Record> records(64);
        for (std::size_t i = 0; i < records.size(); ++i) {
            const float x = static_cast<float>(i % 8) - 3.5f;
            const float z = -static_cast<float>(i / 8) - 2.0f;
            records[i] = {{glm::vec4(1, 0, 0, x), glm::vec4(0, 1, 0, 5.0f), glm::vec4(0, 0, 1, z)}, glm::vec4(1)};
        }
        std::vector<glm::vec4> lanes(4 * records.size(), glm::vec4(0.5f));
        gl::GpuBufferDesc recordBuffer;
        recordBuffer.name = "swarm-records";
        recordBuffer.elementType = gl::GpuElementType::InstanceRecord;
        recordBuffer.length = records.size();
        recordBuffer.initialData = std::as_bytes(std::span(records));
        renderer.createBuffer(recordBuffer);
        gl::GpuBufferDesc laneBuffer;
        laneBuffer.name = "swarm-lanes";
        laneBuffer.elementType = gl::GpuElementType::Lanes;
        laneBuffer.length = records.size();
        laneBuffer.initialData = std::as_bytes(std::span(lanes));
        renderer.createBuffer(laneBuffer);
        gl::PopulationDesc population;
        population.name = "swarm";
        population.transformBuffer = "swarm-records";
        population.laneBuffer = "swarm-lanes";
        population.instanceCount = records.size();
        population.material = lit;
        (void)renderer.drawInstanced(MeshGeometry::create(shapes::box(0.2f), "swarm-cube"), population);

        const float aspect = static_cast<float>(kWidth) / static_cast<float>(kHeight);
        left.setPerspective(0.9f, aspect, 0.1f, 100.0f);
        left.lookAt(glm::dvec3(-2.0, 4.0, 8.0), glm::dvec3(0.0, 0.0, -8.0));
        right.setPerspective(0.9f, aspect, 0.1f, 100.0f);
        right.lookAt(glm::dvec3(3.0, 6.0, 6.0), glm::dvec3(0.0, 0.0, -10.0));
        views = {gl::View::of(left, target), gl::View::of(right, target)};
        views[0].viewport = {0, 0, kWidth, kHeight};
        views[1].viewport = {static_cast<std::int32_t>(kWidth), 0, kWidth, kHeight};
    }

    /** Rewrites the streaming pool's rows (the same values: the picture stays): every frame
     *  writes a streaming part and sorts again. */
    void touchStreamingPool() { streamingPool->markChanged(); }
    void render(gl::Renderer& renderer) {
        touchStreamingPool();
        gpuParticles->advance(1.0f / 60.0f);
        renderer.render(scene, std::span<const gl::View>(views));
    }
    /** One view only (the left). */
    void renderOneView(gl::Renderer& renderer) {
        touchStreamingPool();
        gpuParticles->advance(1.0f / 60.0f);
        renderer.render(scene, views[0]);
    }
};

} // namespace myriad::test
