#include "myriad/core/Particles.h"

#include "core/ParticleRandom.h"
#include "core/ParticleRules.h"
#include "core/Validate.h"
#include "myriad/util/Error.h"

#include <glm/geometric.hpp>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

namespace myriad {

// ---- the particle streams ---------------------------------------------------------------
// Buffer textures, read together: the renderer puts the four streams into one GPU buffer as
// four planes and binds it once (unit 2), so a particle costs one texture unit, not four.

namespace streams {
const InstanceStreamDesc kParticlePositionSize{
    "particlePositionSize", 4, StreamBinding::BufferTexture, 0, kParticleStreamsUnit,
    {0, 0, 0, 0.1f}, "world position xyz (m), half-width (m)"};
const InstanceStreamDesc kParticleColorAlpha{
    "particleColorAlpha", 4, StreamBinding::BufferTexture, 0, kParticleStreamsUnit,
    {1, 1, 1, 1}, "linear RGB, alpha 0..1"};
const InstanceStreamDesc kParticleVelocitySpin{
    "particleVelocitySpin", 4, StreamBinding::BufferTexture, 0, kParticleStreamsUnit,
    {0, 0, 0, 0}, "velocity xyz (m/s), spin (radians)"};
const InstanceStreamDesc kParticleAgeSeedFrameHeight{
    "particleAgeSeedFrameHeight", 4, StreamBinding::BufferTexture, 0, kParticleStreamsUnit,
    {0, 0, 0, 0}, "age 0..1, seed 0..1, flipbook frame, half-height (m; 0 = square)"};
} // namespace streams

ParticleMaterial ParticleMaterial::sprite(std::shared_ptr<const Image> atlas, std::uint32_t columns,
                                          std::uint32_t rows, bool blendFrames) {
    if (!atlas || atlas->width == 0 || atlas->height == 0) {
        throw InvalidArgument("ParticleMaterial::sprite: the atlas is null or empty");
    }
    if (columns == 0 || rows == 0) {
        throw InvalidArgument("ParticleMaterial::sprite: the atlas grid has a side of 0 cells");
    }
    ParticleMaterial m;
    m.atlas = std::move(atlas);
    m.atlasColumns = columns;
    m.atlasRows = rows;
    m.blendFrames = blendFrames;
    return m;
}

// ---- ParticlePool -------------------------------------------------------------------------

ParticlePool::ParticlePool(std::size_t capacity, ParticleMaterial material, std::string name)
    : SceneNode(std::move(name), NodeKind::Particles) {
    if (capacity > maxCapacity) {
        throw CapacityError("ParticlePool: capacity " + std::to_string(capacity) + " is above maxCapacity " +
                            std::to_string(maxCapacity));
    }
    setMaterial(std::move(material));
    for (InstanceStream& stream : m_streams) {
        stream.allocate(capacity);
    }
    m_capacity = capacity;
}

void ParticlePool::setMaterial(ParticleMaterial material) {
    detail::checkParticleMaterial(material, "ParticlePool::setMaterial");
    if (m_curves && material.shape == ParticleShape::Streak) {
        throw InvalidArgument("ParticlePool::setMaterial: '" + name() +
                              "' has curves (a compact upload sends no velocity): a streak needs it; clearCurves() first");
    }
    m_material = std::move(material);
}

namespace {
template <class T>
void checkCurve(const LifeCurve<T>& curve, const char* what, bool nonNegative) {
    float previous = 0.0f;
    for (std::size_t k = 0; k < curve.keys.size(); ++k) {
        const auto& key = curve.keys[k];
        if (!std::isfinite(key.time) || key.time < 0.0f || key.time > 1.0f || key.time < previous) {
            throw InvalidArgument(std::string("ParticlePool::setCurves: ") + what + " key " + std::to_string(k) +
                                  " has time " + std::to_string(key.time) +
                                  " (keys need times in [0, 1], ascending)");
        }
        previous = key.time;
        const glm::vec3 value(key.value);
        if (!std::isfinite(value.x) || !std::isfinite(value.y) || !std::isfinite(value.z) ||
            (nonNegative && (value.x < 0.0f || value.y < 0.0f || value.z < 0.0f))) {
            throw InvalidArgument(std::string("ParticlePool::setCurves: ") + what + " key " + std::to_string(k) +
                                  (nonNegative ? " is negative or not finite" : " is not finite"));
        }
    }
}
} // namespace

void ParticlePool::setCurves(const ParticleCurves& curves) {
    if (m_material.shape == ParticleShape::Streak) {
        throw InvalidArgument("ParticlePool::setCurves: '" + name() +
                              "' is drawn as streaks, which need the velocity a compact upload does not send");
    }
    detail::requireFinite(glm::vec4(curves.color, curves.alpha), "ParticlePool::setCurves", "color or alpha");
    if (curves.alpha < 0.0f) {
        throw InvalidArgument("ParticlePool::setCurves: alpha must be >= 0");
    }
    checkCurve(curves.colorOverLife, "colorOverLife", false);
    checkCurve(curves.alphaOverLife, "alphaOverLife", true);
    checkCurve(curves.sizeOverLife, "sizeOverLife", true);
    m_curves = std::make_shared<const ParticleCurves>(curves);
    ++m_curvesVersion;
}

void ParticlePool::setDrawBounds(const Aabb& worldBounds) {
    // Empty first: a default Aabb (no point added) has infinite corners, and "not finite"
    // would not tell the game what it did.
    if (worldBounds.empty()) {
        throw InvalidArgument("ParticlePool::setDrawBounds: the box is empty (no point added, or a max below its min)");
    }
    detail::requireFinite(worldBounds.min, "ParticlePool::setDrawBounds", "min");
    detail::requireFinite(worldBounds.max, "ParticlePool::setDrawBounds", "max");
    m_drawBounds = worldBounds;
    m_hasDrawBounds = true;
}

void ParticlePool::clearCurves() noexcept {
    if (m_curves) {
        m_curves.reset();
        ++m_curvesVersion;
    }
}

void ParticlePool::check(const Particle& p, const char* function) const {
    detail::requireFinite(p.position, function, "position");
    detail::requireFinite(p.color, function, "color");
    detail::requireFinite(p.velocity, function, "velocity");
    detail::requireFinite(glm::vec4(p.size, p.alpha, p.spin, p.age), function, "size, alpha, spin or age");
    detail::requireFinite(glm::vec3(p.seed, p.frame, p.height), function, "seed, frame or height");
    if (p.size < 0.0f || p.height < 0.0f) {
        throw InvalidArgument(std::string(function) + ": size and height must be >= 0");
    }
}

void ParticlePool::write(std::size_t index, const Particle& p) noexcept {
    auto put = [&](std::size_t stream, const glm::vec4& v) {
        const std::span<float> row = m_streams[stream].row(index);
        row[0] = v.x;
        row[1] = v.y;
        row[2] = v.z;
        row[3] = v.w;
    };
    put(ParticleStreamId::PositionSize, glm::vec4(p.position, p.size));
    put(ParticleStreamId::ColorAlpha, glm::vec4(p.color, p.alpha));
    put(ParticleStreamId::VelocitySpin, glm::vec4(p.velocity, p.spin));
    put(ParticleStreamId::AgeSeedFrameHeight, glm::vec4(p.age, p.seed, p.frame, p.height));
}

std::size_t ParticlePool::spawn(const Particle& particle) {
    check(particle, "ParticlePool::spawn");
    if (m_count == m_capacity) {
        throw CapacityError("ParticlePool::spawn: '" + name() + "' is full (" + std::to_string(m_capacity) +
                            " particles)");
    }
    const std::size_t index = m_count++;
    write(index, particle);
    for (InstanceStream& stream : m_streams) {
        stream.markChanged(index, index + 1);
    }
    return index;
}

void ParticlePool::kill(std::size_t index) {
    if (index >= m_count) {
        throw OutOfRange("ParticlePool::kill: index " + std::to_string(index) + " >= count " +
                         std::to_string(m_count));
    }
    const std::size_t last = m_count - 1;
    for (InstanceStream& stream : m_streams) {
        stream.move(last, index);  // marks index changed; a no-op when index is the last
    }
    m_count = last;
}

void ParticlePool::clear() noexcept { m_count = 0; }

void ParticlePool::setCount(std::size_t count) {
    if (count > m_capacity) {
        throw CapacityError("ParticlePool::setCount: " + std::to_string(count) + " > capacity " +
                            std::to_string(m_capacity));
    }
    if (count > m_count) {
        for (InstanceStream& stream : m_streams) {
            stream.markChanged(m_count, count);
        }
    }
    m_count = count;
}

Particle ParticlePool::particle(std::size_t index) const {
    if (index >= m_count) {
        throw OutOfRange("ParticlePool::particle: index " + std::to_string(index) + " >= count " +
                         std::to_string(m_count));
    }
    const glm::vec4 a = rows(ParticleStreamId::PositionSize)[index];
    const glm::vec4 b = rows(ParticleStreamId::ColorAlpha)[index];
    const glm::vec4 c = rows(ParticleStreamId::VelocitySpin)[index];
    const glm::vec4 d = rows(ParticleStreamId::AgeSeedFrameHeight)[index];
    return Particle{glm::vec3(a), a.w, glm::vec3(b), b.w, glm::vec3(c), c.w, d.x, d.y, d.z, d.w};
}

void ParticlePool::setParticle(std::size_t index, const Particle& particle) {
    if (index >= m_count) {
        throw OutOfRange("ParticlePool::setParticle: index " + std::to_string(index) + " >= count " +
                         std::to_string(m_count));
    }
    check(particle, "ParticlePool::setParticle");
    write(index, particle);
    for (InstanceStream& stream : m_streams) {
        stream.markChanged(index, index + 1);
    }
}

std::span<glm::vec4> ParticlePool::rows(std::size_t stream) {
    if (stream >= ParticleStreamId::Count) {
        throw OutOfRange("ParticlePool::rows: stream " + std::to_string(stream) + " does not exist");
    }
    const std::span<float> data = m_streams[stream].data();
    return {reinterpret_cast<glm::vec4*>(data.data()), m_capacity};
}

std::span<const glm::vec4> ParticlePool::rows(std::size_t stream) const {
    if (stream >= ParticleStreamId::Count) {
        throw OutOfRange("ParticlePool::rows: stream " + std::to_string(stream) + " does not exist");
    }
    const std::span<const float> data = m_streams[stream].data();
    return {reinterpret_cast<const glm::vec4*>(data.data()), m_capacity};
}

void ParticlePool::markChanged(std::size_t first, std::size_t count) {
    for (std::size_t s = 0; s < ParticleStreamId::Count; ++s) {
        markStreamChanged(s, first, count);
    }
}

void ParticlePool::markStreamChanged(std::size_t stream, std::size_t first, std::size_t count) {
    if (stream >= ParticleStreamId::Count) {
        throw OutOfRange("ParticlePool::markStreamChanged: stream " + std::to_string(stream) + " does not exist");
    }
    if (count == SIZE_MAX) {
        count = first <= m_count ? m_count - first : 0;
    }
    if (first > m_capacity || count > m_capacity - first) {
        throw OutOfRange("ParticlePool::markChanged: rows [" + std::to_string(first) + ", +" +
                         std::to_string(count) + ") run past capacity " + std::to_string(m_capacity));
    }
    if (count > 0) {
        m_streams[stream].markChanged(first, first + count);
    }
}

// ---- ParticleEmitter ------------------------------------------------------------------------

ParticleEmitter::ParticleEmitter(EmitterDesc desc, std::uint32_t seed) : m_desc(std::move(desc)), m_seed(seed) {
    detail::checkEmitterDesc(m_desc, "ParticleEmitter");
}

namespace detail {

void checkEmitterDesc(const EmitterDesc& d, const char* function) {
    requireFinite(glm::vec4(d.rate, d.lifetimeMin, d.lifetimeMax, d.coneAngle), function, "rate, lifetime or cone angle");
    requireFinite(glm::vec4(d.speedMin, d.speedMax, d.drag, d.spinSpeed), function, "speed, drag or spin speed");
    requireFinite(glm::vec4(d.frameRate, d.frameCount, d.alpha, d.size), function, "frame rate, frame count, alpha or size");
    requireFinite(d.position, function, "position");
    requireFinite(d.spawnExtent, function, "spawnExtent");
    requireFinite(d.direction, function, "direction");
    requireFinite(d.gravity, function, "gravity");
    requireFinite(d.color, function, "color");
    if (d.lifetimeMin <= 0.0f || d.lifetimeMin > d.lifetimeMax) {
        throw InvalidArgument(std::string(function) + ": lifetimes must satisfy 0 < lifetimeMin <= lifetimeMax");
    }
    if (d.rate < 0.0f || d.size < 0.0f || d.height < 0.0f) {
        throw InvalidArgument(std::string(function) + ": rate, size and height must be >= 0");
    }
    if (d.frameRate > 0.0f && d.frameCount < 1.0f) {
        throw InvalidArgument(std::string(function) + ": frameCount must be >= 1 when frameRate is above 0");
    }
}

void checkParticleMaterial(const ParticleMaterial& material, const char* function) {
    if (material.atlasColumns == 0 || material.atlasRows == 0) {
        throw InvalidArgument(std::string(function) + ": the atlas grid has a side of 0 cells");
    }
    if (!std::isfinite(material.streakSeconds) || material.streakSeconds < 0.0f) {
        throw InvalidArgument(std::string(function) + ": streakSeconds must be finite and >= 0");
    }
}

ConeBasis coneBasis(const glm::vec3& direction) noexcept {
    const glm::vec3 axis = glm::length(direction) > 0.0f ? glm::normalize(direction) : glm::vec3(0, 1, 0);
    const glm::vec3 helper = std::abs(axis.y) < 0.99f ? glm::vec3(0, 1, 0) : glm::vec3(1, 0, 0);
    const glm::vec3 u = glm::normalize(glm::cross(helper, axis));
    return {axis, u, glm::cross(axis, u)};
}

} // namespace detail

float ParticleEmitter::random(std::uint32_t spawnIndex, std::uint32_t which) const noexcept {
    return detail::particleRandom(m_seed, spawnIndex, which);  // shaders/particle_sim.comp mirrors it
}

namespace {
// A particle's lifetime comes from its seed, so nothing beyond the four streams is kept.
float lifetimeOf(const EmitterDesc& d, float seed) noexcept {
    return d.lifetimeMin + (d.lifetimeMax - d.lifetimeMin) * seed;
}
} // namespace

bool ParticleEmitter::spawnOne(ParticlePool& pool, std::uint32_t spawnIndex, float ageSeconds) {
    if (pool.count() == pool.capacity()) {
        ++m_dropped;
        return false;
    }
    namespace value = detail::ParticleRandomValue;
    const EmitterDesc& d = m_desc;
    // A direction in the cone: uniform in solid angle around +Z, then rotated onto the axis.
    const float cosAngle = 1.0f - random(spawnIndex, value::ConeCos) * (1.0f - std::cos(d.coneAngle));
    const float sinAngle = std::sqrt(std::max(0.0f, 1.0f - cosAngle * cosAngle));
    const float phi = 2.0f * std::numbers::pi_v<float> * random(spawnIndex, value::ConePhi);
    const detail::ConeBasis cone = detail::coneBasis(d.direction);
    const glm::vec3 direction = cone.axis * cosAngle + (cone.u * std::cos(phi) + cone.v * std::sin(phi)) * sinAngle;
    const float speed = d.speedMin + (d.speedMax - d.speedMin) * random(spawnIndex, value::Speed);

    Particle p;
    p.seed = random(spawnIndex, value::Seed);
    p.position = d.position + d.spawnExtent * glm::vec3(2.0f * random(spawnIndex, value::BoxX) - 1.0f,
                                                        2.0f * random(spawnIndex, value::BoxY) - 1.0f,
                                                        2.0f * random(spawnIndex, value::BoxZ) - 1.0f);
    p.velocity = direction * speed;
    p.size = d.size;
    p.height = d.height;
    p.color = d.color;
    p.alpha = d.alpha;
    p.spin = 2.0f * std::numbers::pi_v<float> * random(spawnIndex, value::Spin);
    // Born part-way through this step: advance so a burst does not leave in one sheet.
    p.position += p.velocity * ageSeconds;
    p.age = ageSeconds / lifetimeOf(d, p.seed);
    const std::size_t index = pool.count();
    pool.setCount(index + 1);
    pool.rows(ParticleStreamId::PositionSize)[index] = glm::vec4(p.position, p.size);
    pool.rows(ParticleStreamId::ColorAlpha)[index] = glm::vec4(p.color, p.alpha);
    pool.rows(ParticleStreamId::VelocitySpin)[index] = glm::vec4(p.velocity, p.spin);
    pool.rows(ParticleStreamId::AgeSeedFrameHeight)[index] = glm::vec4(p.age, p.seed, 0.0f, p.height);
    return true;
}

void ParticleEmitter::update(ParticlePool& pool, float seconds) {
    if (!std::isfinite(seconds) || seconds < 0.0f) {
        throw InvalidArgument("ParticleEmitter::update: seconds must be finite and >= 0");
    }
    const EmitterDesc& d = m_desc;
    glm::vec4* ps = pool.rows(ParticleStreamId::PositionSize).data();
    glm::vec4* ca = pool.rows(ParticleStreamId::ColorAlpha).data();
    glm::vec4* vs = pool.rows(ParticleStreamId::VelocitySpin).data();
    glm::vec4* life = pool.rows(ParticleStreamId::AgeSeedFrameHeight).data();
    const float dragFactor = std::exp(-d.drag * seconds);
    const glm::vec3 gravityStep = d.gravity * seconds;
    const std::size_t count = pool.count();
    // A pool with curves evaluates colour, alpha and size in the vertex stage
    // (ParticlePool::setCurves): the loop then has no curve lookups, only arithmetic.
    const bool curvesOnGpu = pool.curves() != nullptr;
    const bool sizeCurve = !curvesOnGpu && !d.sizeOverLife.empty();
    const bool colorCurve = !curvesOnGpu && !d.colorOverLife.empty();
    const bool alphaCurve = !curvesOnGpu && !d.alphaOverLife.empty();
    const bool flipbook = d.frameRate > 0.0f;
    const float lifetimeSpan = d.lifetimeMax - d.lifetimeMin;
    // One pass: age, kill (stable compaction), integrate, curves. No branch on death: every
    // particle is written to row `out` (out <= i, so no row is read after it is overwritten)
    // and only a live one advances it; a dead one's row is overwritten or left past count.
    // The tests on the curves and the flipbook are the same for every particle (hoisted by
    // the compiler: -funswitch-loops at -O3).
    std::size_t out = 0;
    for (std::size_t i = 0; i < count; ++i) {
        const glm::vec4 l = life[i];
        const float lifetime = d.lifetimeMin + lifetimeSpan * l.y;
        const float age = l.x + seconds / lifetime;
        const std::size_t alive = age >= 1.0f ? 0 : 1;  // as before: a NaN age (unchecked rows) lives
        const glm::vec4 v = vs[i];
        const glm::vec3 velocity = (glm::vec3(v) + gravityStep) * dragFactor;
        glm::vec4 p = ps[i];
        p.x += velocity.x * seconds;
        p.y += velocity.y * seconds;
        p.z += velocity.z * seconds;
        const float spinSign = l.y < 0.5f ? -1.0f : 1.0f;
        const float spin = v.w + spinSign * d.spinSpeed * seconds;
        if (sizeCurve) {
            p.w = d.sizeOverLife.at(age);
        }
        glm::vec4 c = ca[i];
        if (colorCurve) {
            const glm::vec3 color = d.colorOverLife.at(age);
            c.x = color.x;
            c.y = color.y;
            c.z = color.z;
        }
        if (alphaCurve) {
            c.w = d.alphaOverLife.at(age);
        }
        float frame = l.z;
        if (flipbook) {
            frame = std::fmod(age * lifetime * d.frameRate, std::max(d.frameCount, 1.0f));
        }
        ps[out] = p;
        ca[out] = c;
        vs[out] = glm::vec4(velocity, spin);
        life[out] = glm::vec4(age, l.y, frame, l.w);
        out += alive;
    }
    pool.setCount(out);
    // Spawns: the rate's share of this step plus bursts, each born at a spread-out moment.
    m_carry += static_cast<double>(d.rate) * seconds;
    const auto fromRate = static_cast<std::size_t>(m_carry);
    m_carry -= static_cast<double>(fromRate);
    const std::size_t spawns = fromRate + m_pendingBurst;
    for (std::size_t k = 0; k < spawns; ++k) {
        // Spawn index: counted for dropped spawns too, so both paths number particles alike.
        const auto spawnIndex = static_cast<std::uint32_t>(m_spawned++);
        const float bornAgo = k < fromRate ? seconds * random(spawnIndex, detail::ParticleRandomValue::BornAgo) : 0.0f;
        if (spawnOne(pool, spawnIndex, bornAgo) && !curvesOnGpu) {
            // Curves apply from birth.
            const std::size_t index = pool.count() - 1;
            glm::vec4& row = pool.rows(ParticleStreamId::ColorAlpha)[index];
            const float age = pool.rows(ParticleStreamId::AgeSeedFrameHeight)[index].x;
            if (!d.colorOverLife.empty()) {
                row = glm::vec4(d.colorOverLife.at(age), row.w);
            }
            if (!d.alphaOverLife.empty()) {
                row.w = d.alphaOverLife.at(age);
            }
            if (!d.sizeOverLife.empty()) {
                pool.rows(ParticleStreamId::PositionSize)[index].w = d.sizeOverLife.at(age);
            }
        }
    }
    m_pendingBurst = 0;
    if (curvesOnGpu) {
        // ColorAlpha is not sent while the pool has curves (its rows keep their spawn values).
        pool.markStreamChanged(ParticleStreamId::PositionSize, 0, pool.count());
        pool.markStreamChanged(ParticleStreamId::VelocitySpin, 0, pool.count());
        pool.markStreamChanged(ParticleStreamId::AgeSeedFrameHeight, 0, pool.count());
    } else {
        pool.markChanged(0, pool.count());
    }
}

} // namespace myriad
