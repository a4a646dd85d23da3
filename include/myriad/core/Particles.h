#pragma once
/** @file
 *  Particles: a pool of camera-facing quads (sparks, smoke, embers) kept as per-particle
 *  streams, drawn in one instanced draw, and a CPU emitter that fills it.
 *
 *  A particle fades by its alpha, never by darkening its colour: alpha-blended pools composite
 *  premultiplied colour in linear light ("over"), additive pools add colour * alpha. Layouts,
 *  bytes and materials: docs/particles.md. */
#include "myriad/core/Bounds.h"
#include "myriad/core/Image.h"
#include "myriad/core/InstanceStream.h"
#include "myriad/core/SceneNode.h"
#include "myriad/core/SurfaceShader.h"

#include <glm/vec3.hpp>
#include <glm/vec4.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace myriad {

struct ParticleCurves;

/** Indices of a ParticlePool's streams (ParticlePool::streams()). Structure of arrays at vec4
 *  granularity: each stream is one array of vec4 rows, 16 bytes per particle, 64 in all. */
namespace ParticleStreamId {
inline constexpr std::size_t PositionSize = 0;  ///< world position xyz (m), half-width (m)
inline constexpr std::size_t ColorAlpha = 1;    ///< linear RGB, alpha 0..1 (a real opacity)
inline constexpr std::size_t VelocitySpin = 2;  ///< velocity xyz (m/s), spin (radians)
inline constexpr std::size_t AgeSeedFrameHeight = 3;  ///< age 0..1, seed 0..1, frame, half-height
inline constexpr std::size_t Count = 4;  ///< number of streams (valid ids are 0..Count-1)
} // namespace ParticleStreamId

namespace streams {
/** Stream ParticleStreamId::PositionSize: world position xyz (m), half-width (m; default 0.1).
 *  The four particle streams are bound together as one RGBA32F buffer texture on unit 2 (four
 *  planes of capacity texels each; see docs/particles.md). */
extern const InstanceStreamDesc kParticlePositionSize;
/** Stream ParticleStreamId::ColorAlpha: linear RGB, alpha 0..1 (default white, opaque). */
extern const InstanceStreamDesc kParticleColorAlpha;
/** Stream ParticleStreamId::VelocitySpin: velocity xyz (world, m/s), spin (radians; default 0). */
extern const InstanceStreamDesc kParticleVelocitySpin;
/** Stream ParticleStreamId::AgeSeedFrameHeight: age 0..1, seed 0..1, flipbook frame,
 *  half-height (m; 0 = as tall as wide; default all 0). */
extern const InstanceStreamDesc kParticleAgeSeedFrameHeight;
} // namespace streams

/** One particle as spawn() takes it and particle() returns it. Defaults: at the origin, half-width
 *  0.1 m, white, opaque, still, no spin, age 0, seed 0, frame 0, as tall as wide. */
struct Particle {
    glm::vec3 position{0.0f};  ///< world space, metres (the pool node's transform does not apply)
    float size = 0.1f;         ///< metres from the centre to an edge (the quad spans twice this)
    glm::vec3 color{1.0f};     ///< linear RGB
    float alpha = 1.0f;        ///< opacity 0..1
    glm::vec3 velocity{0.0f};  ///< world space, m/s: what a streak stretches along
    float spin = 0.0f;         ///< radians of roll about the particle's own view axis
    float age = 0.0f;          ///< share of this particle's own life, 0..1
    float seed = 0.0f;         ///< per-particle randomness, 0..1
    float frame = 0.0f;        ///< flipbook cell (whole part) and blend toward the next (fraction)
    float height = 0.0f;       ///< half-height in metres; 0: as tall as wide
};

/** How a particle's quad is shaped. */
enum class ParticleShape : std::uint8_t {
    Billboard,  ///< faces the camera, rolled by spin, half-width size and half-height height
    Streak,     ///< stretched along the screen-projected velocity: half-length size + speed *
                ///< streakSeconds / 2, half-width size; spin and height ignored
};

/** How a particle's colour reaches the target. */
enum class ParticleBlend : std::uint8_t {
    Alpha,     ///< premultiplied "over" in linear light: ONE, ONE_MINUS_SRC_ALPHA of rgb * alpha
    Additive,  ///< light added: ONE, ONE of rgb * alpha (order-independent)
};

/** Whether a pool's particles are sorted back to front for each view before drawing. Additive
 *  pools are never sorted, whatever this says: adding light is order-independent, so a sort
 *  would cost its time for the same pixels. */
enum class ParticleSort : std::uint8_t {
    Auto,         ///< sorted when the blend is Alpha (the default)
    BackToFront,  ///< sorted when the blend is Alpha (as Auto; additive pools are never sorted)
    None,         ///< drawn in stream order
};

/** How a pool looks. A value type, copied into the pool. The named constructors give the four
 *  materials of the issue: billboard, additive, streak, sprite. */
struct ParticleMaterial {
    std::string name;  ///< free text, used in GL labels
    ParticleShape shape = ParticleShape::Billboard;  ///< quad shape: camera-facing or streak
    ParticleBlend blend = ParticleBlend::Alpha;      ///< premultiplied "over" or additive
    ParticleSort sort = ParticleSort::Auto;          ///< back-to-front sorting per view (sorted())
    /** Flipbook atlas (sRGB RGBA8, straight alpha; rows top to bottom); null: a plain quad. */
    std::shared_ptr<const Image> atlas;
    std::uint32_t atlasColumns = 1;  ///< cells across the atlas
    std::uint32_t atlasRows = 1;     ///< cells down the atlas
    /** Blend a cell with the next by the fraction of frame (smooth flipbooks). */
    bool blendFrames = false;
    /** Fade the quad to a disc (alpha *= smooth falloff from the centre): round sparks with no
     *  texture. */
    bool round = false;
    /** Streaks: seconds of travel one streak spans (length from speed). */
    float streakSeconds = 0.05f;
    /** User GLSL deciding colour and alpha (docs/shaders.md); s.uv is the quad's 0..1
     *  coordinate (v = 0 at the top), myriad_materialColor(uv) reads the flipbook; null:
     *  colour * atlas. Its surface function only: a shader with a vertex, lighting or fragment
     *  function (hasVertex(), hasLighting(), hasFragment()) makes render() throw InvalidArgument. */
    std::shared_ptr<const SurfaceShader> surface;

    /** Whether the renderer sorts this material's pools: alpha-blended ones unless sort is None;
     *  additive ones never (order-independent). A sorted pool whose particles and view did not
     *  move since its last sort keeps that order (no sort, no upload that frame). */
    [[nodiscard]] bool sorted() const noexcept {
        return blend == ParticleBlend::Alpha && sort != ParticleSort::None;
    }
    /** Camera-facing quad, alpha-blended (premultiplied "over"), sorted back to front: the
     *  default material. */
    [[nodiscard]] static ParticleMaterial billboard() { return {}; }
    /** As billboard(), but additive (ONE, ONE of rgb * alpha): order-independent, not sorted. */
    [[nodiscard]] static ParticleMaterial additive() {
        ParticleMaterial m;
        m.blend = ParticleBlend::Additive;
        return m;
    }
    /** Additive quad stretched along the screen-projected velocity, spanning @p streakSeconds
     *  of travel (half-length size + speed * streakSeconds / 2); a still particle is a square.
     *  Not checked here; a pool's setMaterial() refuses a negative or non-finite value. */
    [[nodiscard]] static ParticleMaterial streak(float streakSeconds = 0.05f) {
        ParticleMaterial m;
        m.shape = ParticleShape::Streak;
        m.blend = ParticleBlend::Additive;
        m.streakSeconds = streakSeconds;
        return m;
    }
    /** @throws InvalidArgument if @p atlas is null or a grid side is 0. */
    [[nodiscard]] static ParticleMaterial sprite(std::shared_ptr<const Image> atlas, std::uint32_t columns,
                                                 std::uint32_t rows, bool blendFrames = false);
};

/** A node holding up to capacity() particles, count() of them live, as four streams (structure
 *  of arrays of vec4 rows: ParticleStreamId). Drawn in one instanced draw after the opaque
 *  and blended meshes, depth-tested against the opaque scene without writing depth.
 *
 *  Spawn appends; kill swap-removes in O(1) (the last live particle moves into the hole). Games
 *  may write the streams directly (rows()) and call markChanged(); the renderer uploads only
 *  rows changed since its own last upload, and only live ones.
 *
 *  Positions are world space: the node's transform does not move live particles (an emitter
 *  moving through the world leaves its smoke behind). The node's visibility and layer mask
 *  apply; the node is not frustum-culled (the GPU clips).
 *  Ownership: owns its rows. Thread safety: as SceneNode; no writes while the renderer draws. */
class ParticlePool : public SceneNode {
public:
    static constexpr std::size_t maxCapacity = std::size_t{1} << 24;  ///< 16 Mi particles
    static constexpr std::size_t bytesPerParticle = 64;  ///< four vec4 rows of 16 bytes (CPU and GPU)

    /** @throws CapacityError if capacity > maxCapacity. @throws InvalidArgument as
     *  setMaterial(). */
    ParticlePool(std::size_t capacity, ParticleMaterial material, std::string name = {});

    /** Rows allocated in each stream, fixed at construction: the most particles live at once. */
    [[nodiscard]] std::size_t capacity() const noexcept { return m_capacity; }
    /** Live particles: rows [0, count()) of every stream. */
    [[nodiscard]] std::size_t count() const noexcept { return m_count; }
    /** The pool's own copy of its material (set by the constructor or setMaterial()). */
    [[nodiscard]] const ParticleMaterial& material() const noexcept { return m_material; }
    /** @throws InvalidArgument if the atlas grid is 0 or streakSeconds is negative or not
     *  finite; nothing changes then. */
    void setMaterial(ParticleMaterial material);

    /** Appends a live particle and returns its index (count() before the call). O(1).
     *  @throws CapacityError if the pool is full; InvalidArgument on NaN/Inf or a negative
     *  size or height; nothing changes then. */
    std::size_t spawn(const Particle& particle);
    /** Kills particle @p index: the last live particle moves into its row. O(1).
     *  @throws OutOfRange if index >= count(). */
    void kill(std::size_t index);
    /** Kills every particle (keeps the capacity). */
    void clear() noexcept;
    /** Makes the first @p count rows live (whatever they hold); rows entering the live range are
     *  marked changed. @throws CapacityError if count > capacity(). */
    void setCount(std::size_t count);

    /** @throws OutOfRange if index >= count(). */
    [[nodiscard]] Particle particle(std::size_t index) const;
    /** @throws OutOfRange if index >= count(); InvalidArgument as spawn(). */
    void setParticle(std::size_t index, const Particle& particle);

    /** Stream @p stream (a ParticleStreamId) as capacity() vec4 rows, for bulk writes; call
     *  markChanged() after. Not checked. @throws OutOfRange if stream >= Count. */
    [[nodiscard]] std::span<glm::vec4> rows(std::size_t stream);
    /** Read-only view of stream @p stream as capacity() vec4 rows (rows at and past count() are
     *  not live); valid while the pool lives. @throws OutOfRange if stream >= Count. */
    [[nodiscard]] std::span<const glm::vec4> rows(std::size_t stream) const;
    /** Marks rows [first, first + count) of every stream changed (all live rows by default).
     *  @throws OutOfRange if the range runs past capacity(). */
    void markChanged(std::size_t first = 0, std::size_t count = SIZE_MAX);
    /** Marks rows of one stream changed (a game that moves particles but never recolours them
     *  uploads positions only). @throws OutOfRange as markChanged() or if stream >= Count. */
    void markStreamChanged(std::size_t stream, std::size_t first = 0, std::size_t count = SIZE_MAX);
    /** The four streams, indexed by ParticleStreamId; each with its change log and one cursor
     *  per renderer. */
    [[nodiscard]] std::span<const InstanceStream> streams() const noexcept { return m_streams; }

    /** How renderers send the streams to the GPU (UploadMode). Default Automatic: changed rows
     *  through the staging ring until three frames in a row each changed at least half the
     *  live rows (an emitter rewrites every row every frame), then Streaming: each frame with a
     *  change writes the live rows of the changed streams straight into the next third of a
     *  persistently mapped buffer, after the fence of the last frame that read that third
     *  (GPU memory: 3 * capacity() * uploadBytesPerParticle() bytes). Staged keeps the ring
     *  (capacity() * uploadBytesPerParticle() bytes), right for pools a game writes sparsely. */
    [[nodiscard]] UploadMode uploadMode() const noexcept { return m_uploadMode; }
    /** Sets uploadMode(); takes effect at each renderer's next upload (a change of mode sends
     *  every live row once). */
    void setUploadMode(UploadMode mode) noexcept { m_uploadMode = mode; }

    /** Compact upload: colour, alpha and size over life are evaluated in the vertex stage
     *  from @p curves (baked into a 256-sample texture per pool, sampled by age and
     *  interpolated linearly, so a key between samples is met within 1/255 of life), and
     *  renderers send 32 bytes a particle instead of 64: PositionSize (the half-width used
     *  when curves.sizeOverLife is empty) and (age, seed, frame, spin) gathered from the
     *  AgeSeedFrameHeight and VelocitySpin streams. The ColorAlpha stream, velocity and
     *  half-height are not sent: quads are square, and a ParticleEmitter stops evaluating
     *  the curves on the CPU (ColorAlpha keeps each particle's spawn value). Pass the emitter's own curves
     *  with ParticleCurves::from(emitter.desc()) to draw what the CPU path draws.
     *  Where the idea comes from: Godot's and Unity's particle shaders evaluate over-life
     *  curves from a texture on the GPU; issue 24's measured upload was 64 bytes a particle.
     *  @throws InvalidArgument if the material's shape is Streak (it needs the velocity), or
     *  a key's time is outside [0, 1] or out of order, or a value is not finite, or a size
     *  or alpha is negative; nothing changes then. */
    void setCurves(const ParticleCurves& curves);
    /** Back to sending all four streams (64 bytes a particle); the next upload sends every live
     *  row. */
    void clearCurves() noexcept;
    /** The curves of setCurves(), or null (all four streams are sent). Valid until the next
     *  setCurves() or clearCurves(). */
    [[nodiscard]] const ParticleCurves* curves() const noexcept { return m_curves.get(); }
    /** Bumped by every setCurves() and clearCurves(): renderers re-bake their curve texture
     *  when it changes. */
    [[nodiscard]] std::uint64_t curvesVersion() const noexcept { return m_curvesVersion; }
    /** A world-space box the game promises holds every live particle (Godot's visibility
     *  AABB of GPUParticles3D, Unity's custom bounds): the pool is then drawn among the
     *  view's blended meshes, ordered back to front by the distance from the eye to the box's
     *  centre like a mesh by its bounds' centre, and skipped (FrameStats::culledNodes) when
     *  the box is outside the view's frustum. Particles outside the box are still drawn where
     *  the pool is, but may be culled with it or composited in the wrong order. Without a box
     *  (the default) the pool draws after every blended mesh and is never culled: the
     *  renderer does not read a million positions to find one.
     *  @throws InvalidArgument if the box is empty or not finite; nothing changes then. */
    void setDrawBounds(const Aabb& worldBounds);
    /** Back to no box: drawn after the blended meshes, never culled. */
    void clearDrawBounds() noexcept { m_hasDrawBounds = false; }
    /** The box of setDrawBounds(), or null when there is none. Valid while the pool lives. */
    [[nodiscard]] const Aabb* drawBounds() const noexcept { return m_hasDrawBounds ? &m_drawBounds : nullptr; }

    /** Bytes a renderer sends per live particle: bytesPerParticle (64), or 32 with curves(). */
    [[nodiscard]] std::size_t uploadBytesPerParticle() const noexcept {
        return m_curves ? bytesPerParticle / 2 : bytesPerParticle;
    }

private:
    void check(const Particle& particle, const char* function) const;
    void write(std::size_t index, const Particle& particle) noexcept;

    std::array<InstanceStream, ParticleStreamId::Count> m_streams{
        InstanceStream(streams::kParticlePositionSize), InstanceStream(streams::kParticleColorAlpha),
        InstanceStream(streams::kParticleVelocitySpin), InstanceStream(streams::kParticleAgeSeedFrameHeight)};
    std::size_t m_capacity = 0;
    std::size_t m_count = 0;
    ParticleMaterial m_material;
    UploadMode m_uploadMode = UploadMode::Automatic;
    std::shared_ptr<const ParticleCurves> m_curves;
    std::uint64_t m_curvesVersion = 0;
    Aabb m_drawBounds;
    bool m_hasDrawBounds = false;
};

/** A piecewise-linear curve over a particle's life (0..1): keys sorted by time; before the first
 *  key the first value, after the last the last. Empty: the value at spawn is kept. */
template <class T>
struct LifeCurve {
    /** One point of the curve: the value at a share of life. */
    struct Key {
        float time;  ///< share of life, 0..1
        T value;     ///< value at that time (units of the curve's quantity)
    };
    std::vector<Key> keys;  ///< points, sorted by time ascending (not checked)
    /** Whether the curve has no keys (then the emitter keeps the spawn value). */
    [[nodiscard]] bool empty() const noexcept { return keys.empty(); }
    /** The value at share of life @p time (0..1), linear between the neighbouring keys, clamped
     *  to the first and last values outside them. Requires !empty() (not checked). */
    [[nodiscard]] T at(float time) const noexcept {
        if (time <= keys.front().time) {
            return keys.front().value;
        }
        for (std::size_t i = 1; i < keys.size(); ++i) {
            if (time <= keys[i].time) {
                const float span = keys[i].time - keys[i - 1].time;
                const float t = span > 0.0f ? (time - keys[i - 1].time) / span : 1.0f;
                return keys[i - 1].value + (keys[i].value - keys[i - 1].value) * t;
            }
        }
        return keys.back().value;
    }
};

/** What an emitter spawns and how its particles move. Units: metres, seconds, radians.
 *
 *  The defaults are neutral, so a preset or a game sets only what it means: 10 white, opaque
 *  particles a second of half-width 0.1 m, born at the origin, living 1 s, leaving up (+Y)
 *  within 0.3 rad at 1 m/s in a straight line: no gravity, no drag, no spin, no flipbook and
 *  no curves (colour, alpha and size stay as born). Gravity in particular defaults to 0, not
 *  -9.81: embers and smoke rise, and a falling default had to be undone by every rising effect.
 *
 *  The named presets (embers(), smoke(), sparks()) are starting points at the origin, sized
 *  for a campfire; set position (and spawnExtent, rate) for the scene. Each says which
 *  ParticleMaterial it is made for. */
struct EmitterDesc {
    glm::vec3 position{0.0f};       ///< world space: where particles are born
    glm::vec3 spawnExtent{0.0f};    ///< half-size of the box around position they are born in
    float rate = 10.0f;             ///< particles per second (fractions carry over)
    float lifetimeMin = 1.0f;       ///< seconds; each particle picks one in [min, max]
    float lifetimeMax = 1.0f;       ///< seconds; at least lifetimeMin
    glm::vec3 direction{0.0f, 1.0f, 0.0f};  ///< axis of the initial velocity cone (unit or not)
    float coneAngle = 0.3f;         ///< half-angle of the cone, radians
    float speedMin = 1.0f;          ///< initial speed, m/s, picked in [min, max]
    float speedMax = 1.0f;          ///< m/s; upper end of the initial speed range
    glm::vec3 gravity{0.0f};        ///< m/s^2, world space (default none; sparks() uses -9.81 in y)
    float drag = 0.0f;              ///< 1/s: velocity *= exp(-drag * dt)
    float spinSpeed = 0.0f;         ///< radians/s, signed by the seed (half turn each way)
    float frameRate = 0.0f;         ///< flipbook cells per second of life (0: frame stays)
    float frameCount = 1.0f;        ///< cells in the flipbook (frame wraps)
    glm::vec3 color{1.0f};          ///< linear RGB when colorOverLife is empty
    float alpha = 1.0f;             ///< opacity 0..1 when alphaOverLife is empty
    float size = 0.1f;              ///< half-width when sizeOverLife is empty
    float height = 0.0f;            ///< half-height, 0: square
    LifeCurve<glm::vec3> colorOverLife;  ///< linear RGB over life; empty: color kept
    LifeCurve<float> alphaOverLife;      ///< opacity 0..1 over life; empty: alpha kept
    LifeCurve<float> sizeOverLife;       ///< half-width (m) over life; empty: size kept

    /** Glowing bits carried up by hot air off a fire: 250 a second from a 0.6 x 0.1 x 0.6 m
     *  box, 0.8 to 2 s lives, up within 0.45 rad at 2 to 4.5 m/s, buoyed up (gravity +1.5 m/s^2
     *  in y) against drag 0.8/s, half-width 0.02 m; cooling from yellow-white (linear
     *  (4, 2.2, 0.6), brighter than 1 for additive glow) through orange to dull red, fading out
     *  over the last 30% of life. Made for ParticleMaterial::streak(0.06f) with round = true
     *  (additive, so the colour adds light). What 04-embers draws as its sparks. */
    [[nodiscard]] static EmitterDesc embers() {
        EmitterDesc d;
        d.spawnExtent = glm::vec3(0.3f, 0.05f, 0.3f);
        d.rate = 250.0f;
        d.lifetimeMin = 0.8f;
        d.lifetimeMax = 2.0f;
        d.coneAngle = 0.45f;
        d.speedMin = 2.0f;
        d.speedMax = 4.5f;
        d.gravity = glm::vec3(0.0f, 1.5f, 0.0f);
        d.drag = 0.8f;
        d.size = 0.02f;
        d.colorOverLife.keys = {{0.0f, glm::vec3(4.0f, 2.2f, 0.6f)}, {0.6f, glm::vec3(2.0f, 0.6f, 0.1f)},
                                {1.0f, glm::vec3(0.8f, 0.15f, 0.02f)}};
        d.alphaOverLife.keys = {{0.0f, 1.0f}, {0.7f, 0.8f}, {1.0f, 0.0f}};
        return d;
    }
    /** A slow column of grey smoke: 40 puffs a second from a 0.5 x 0.2 x 0.5 m box, 4 to 6 s
     *  lives, up within 0.25 rad at 0.6 to 1 m/s, buoyant (+0.15 m/s^2 in y) with drag 0.3/s
     *  and a slow spin (0.3 rad/s); growing from half-width 0.3 to 1.6 m, warm grey darkening
     *  to cool grey, fading in to alpha 0.55 by 15% of life and out to 0 at the end. Made for
     *  ParticleMaterial::sprite() with a soft puff atlas (alpha-blended, sorted); for a
     *  flipbook set frameRate and frameCount (the preset keeps frame 0). Add x or z to
     *  gravity for a breeze. 04-embers' smoke. */
    [[nodiscard]] static EmitterDesc smoke() {
        EmitterDesc d;
        d.spawnExtent = glm::vec3(0.25f, 0.1f, 0.25f);
        d.rate = 40.0f;
        d.lifetimeMin = 4.0f;
        d.lifetimeMax = 6.0f;
        d.coneAngle = 0.25f;
        d.speedMin = 0.6f;
        d.speedMax = 1.0f;
        d.gravity = glm::vec3(0.0f, 0.15f, 0.0f);
        d.drag = 0.3f;
        d.spinSpeed = 0.3f;
        d.colorOverLife.keys = {{0.0f, glm::vec3(0.35f, 0.3f, 0.28f)}, {1.0f, glm::vec3(0.2f, 0.2f, 0.22f)}};
        d.alphaOverLife.keys = {{0.0f, 0.0f}, {0.15f, 0.55f}, {1.0f, 0.0f}};
        d.sizeOverLife.keys = {{0.0f, 0.3f}, {1.0f, 1.6f}};
        return d;
    }
    /** Hot sparks thrown up and falling back (a grinder, a hit, a firework's tail): 200 a
     *  second from a point, 0.6 to 1.2 s lives, up within 0.8 rad at 2 to 4 m/s, falling
     *  under gravity (-9.81 m/s^2 in y) with drag 0.5/s, half-width 0.015 m; yellow-white
     *  cooling to orange, fading out over the last half of life. Every spark older than 0.5 s
     *  is falling. Made for ParticleMaterial::streak() (additive). */
    [[nodiscard]] static EmitterDesc sparks() {
        EmitterDesc d;
        d.rate = 200.0f;
        d.lifetimeMin = 0.6f;
        d.lifetimeMax = 1.2f;
        d.coneAngle = 0.8f;
        d.speedMin = 2.0f;
        d.speedMax = 4.0f;
        d.gravity = glm::vec3(0.0f, -9.81f, 0.0f);
        d.drag = 0.5f;
        d.size = 0.015f;
        d.colorOverLife.keys = {{0.0f, glm::vec3(4.0f, 3.0f, 1.2f)}, {1.0f, glm::vec3(1.5f, 0.4f, 0.05f)}};
        d.alphaOverLife.keys = {{0.0f, 1.0f}, {0.5f, 1.0f}, {1.0f, 0.0f}};
        return d;
    }
};

/** Colour, alpha and size over a particle's life for a pool's compact upload
 *  (ParticlePool::setCurves): what the vertex stage evaluates in place of the ColorAlpha
 *  stream and the half-width. Values as in EmitterDesc: linear RGB, opacity 0..1, half-width
 *  in metres; life as a share 0..1. */
struct ParticleCurves {
    glm::vec3 color{1.0f};               ///< linear RGB when colorOverLife is empty
    float alpha = 1.0f;                  ///< opacity 0..1 when alphaOverLife is empty
    LifeCurve<glm::vec3> colorOverLife;  ///< linear RGB over life; empty: color
    LifeCurve<float> alphaOverLife;      ///< opacity over life; empty: alpha
    LifeCurve<float> sizeOverLife;       ///< half-width (m) over life; empty: each particle's own
    /** The curves an emitter applies on the CPU, so a compact pool draws what the CPU path
     *  draws (within the texture's sampling). */
    [[nodiscard]] static ParticleCurves from(const EmitterDesc& desc) {
        return ParticleCurves{desc.color, desc.alpha, desc.colorOverLife, desc.alphaOverLife, desc.sizeOverLife};
    }
};

/** A CPU simulation helper: ages, moves, recolours and kills a pool's particles and spawns new
 *  ones at a rate and in bursts. One update() is O(count), writes every live row of every
 *  stream and marks them changed once (no change-log entry per particle). Dead particles are
 *  compacted in order (stable), so neighbours stay neighbours and a sort stays nearly sorted.
 *  Deterministic for a given seed: every random value of the k-th particle the emitter spawns
 *  is a hash of (seed, k, which value), so a GpuParticleSystem (GpuParticles.h) with the same
 *  desc and seed, advanced by the same steps, spawns the same particles. Thread safety: none. */
class ParticleEmitter {
public:
    /** @throws InvalidArgument if a lifetime is not positive, min > max, a value is not finite,
     *  the rate, size or height is negative, or frameCount < 1 with a frame rate (the checks
     *  GpuParticleSystem makes too). */
    explicit ParticleEmitter(EmitterDesc desc, std::uint32_t seed = 1);
    /** The emitter's own copy of its description. */
    [[nodiscard]] const EmitterDesc& desc() const noexcept { return m_desc; }
    /** Editable between updates (move the emitter, change the rate). Not re-validated. */
    [[nodiscard]] EmitterDesc& desc() noexcept { return m_desc; }
    /** Spawns @p count particles at the next update() (on top of the rate). */
    void burst(std::size_t count) noexcept { m_pendingBurst += count; }
    /** Advances @p pool by @p seconds (>= 0): kills particles at the end of their life,
     *  integrates gravity and drag, applies the curves, then spawns (rate and bursts) while the
     *  pool has room; spawns beyond capacity are dropped (counted in dropped()).
     *  @throws InvalidArgument if seconds is negative or not finite. */
    void update(ParticlePool& pool, float seconds);
    /** Spawns that found the pool full, in all. */
    [[nodiscard]] std::uint64_t dropped() const noexcept { return m_dropped; }
    /** Spawns so far, dropped ones included: the spawn index of the next particle, whose random
     *  values are a hash of (seed, index mod 2^32, which value). */
    [[nodiscard]] std::uint64_t spawned() const noexcept { return m_spawned; }

private:
    bool spawnOne(ParticlePool& pool, std::uint32_t spawnIndex, float ageSeconds);
    [[nodiscard]] float random(std::uint32_t spawnIndex, std::uint32_t which) const noexcept;  // [0, 1)

    EmitterDesc m_desc;
    std::uint32_t m_seed = 1;
    std::uint64_t m_spawned = 0;
    double m_carry = 0.0;
    std::size_t m_pendingBurst = 0;
    std::uint64_t m_dropped = 0;
};

} // namespace myriad
