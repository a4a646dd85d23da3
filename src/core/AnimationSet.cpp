#include "myriad/core/AnimationSet.h"

#include "myriad/core/MeshData.h"
#include "myriad/util/Error.h"

#include <glm/mat4x4.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <string>

namespace myriad {
namespace {

std::uint64_t nextAnimationSetSerial() noexcept {
    static std::atomic<std::uint64_t> serial{0};
    return ++serial;
}

/** Skin matrix of joint @p joint at frame @p frame from the baked rows (fourth row 0, 0, 0, 1). */
glm::mat4 bakedMatrix(std::span<const glm::vec4> rows, std::size_t jointCount, std::size_t frame, std::size_t joint) {
    const std::size_t texel = (frame * jointCount + joint) * 3;
    return glm::transpose(glm::mat4(rows[texel], rows[texel + 1], rows[texel + 2], glm::vec4(0, 0, 0, 1)));
}

} // namespace

AnimationSet::AnimationSet(std::shared_ptr<const Skeleton> skeleton,
                           std::span<const std::shared_ptr<const AnimationClip>> clips, const MeshGeometry& mesh,
                           const AnimationBakeOptions& options)
    : m_id(nextAnimationSetSerial()), m_skeleton(std::move(skeleton)), m_framesPerSecond(options.framesPerSecond) {
    const std::string where = "AnimationSet";
    if (m_skeleton == nullptr) {
        throw InvalidArgument(where + ": the skeleton is null");
    }
    if (clips.empty() || clips.size() > kMaxBakedClips) {
        throw InvalidArgument(where + ": " + std::to_string(clips.size()) + " clips; 1 to kMaxBakedClips (" +
                              std::to_string(kMaxBakedClips) + ") can be baked together");
    }
    if (!(options.framesPerSecond > 0.0f) || options.framesPerSecond > 240.0f) {
        throw InvalidArgument(where + ": framesPerSecond is " + std::to_string(options.framesPerSecond) +
                              "; it must be in (0, 240]");
    }
    const SkinBounds skinBounds(mesh, *m_skeleton);  // throws for a mesh this skeleton cannot skin
    const std::size_t joints = m_skeleton->jointCount();
    std::uint64_t totalFrames = 0;
    for (std::size_t c = 0; c < clips.size(); ++c) {
        if (clips[c] == nullptr) {
            throw InvalidArgument(where + ": clip " + std::to_string(c) + " is null");
        }
        const AnimationClip& clip = *clips[c];
        if (clip.targetCount() > joints) {
            throw InvalidArgument(where + ": clip '" + clip.name() + "' drives joint " +
                                  std::to_string(clip.targetCount() - 1) + ", past skeleton '" + m_skeleton->name() +
                                  "''s " + std::to_string(joints) + " joints");
        }
        for (std::size_t other = 0; other < c; ++other) {
            if (clips[other]->name() == clip.name()) {
                throw InvalidArgument(where + ": two clips are named '" + clip.name() + "'");
            }
        }
        const double frames = std::max(1.0, std::round(double{clip.duration()} * options.framesPerSecond)) + 1.0;
        totalFrames += static_cast<std::uint64_t>(frames);
    }
    for (const std::string& once : options.playOnce) {
        if (std::none_of(clips.begin(), clips.end(), [&](const auto& clip) { return clip->name() == once; })) {
            throw InvalidArgument(where + ": playOnce names '" + once + "', which is not one of the clips");
        }
    }
    if (totalFrames * joints * 12 >= (std::uint64_t{1} << 31)) {
        throw InvalidArgument(where + ": " + std::to_string(totalFrames) + " frames of " + std::to_string(joints) +
                              " joints pass 2^31 floats; bake at fewer framesPerSecond");
    }
    m_frameCount = static_cast<std::uint32_t>(totalFrames);
    m_bakedMeshId = mesh.id();
    m_rows.resize(totalFrames * joints * 3);

    std::vector<JointTransform> pose;
    std::vector<glm::mat4> modelFromJoint(joints);
    std::vector<glm::mat4> skin(joints);
    std::uint32_t frame = 0;
    for (const auto& clipPointer : clips) {
        const AnimationClip& clip = *clipPointer;
        BakedClip baked;
        baked.name = clip.name();
        baked.duration = clip.duration();
        baked.firstFrame = frame;
        baked.frameCount = static_cast<std::uint32_t>(
            std::max(1.0, std::round(double{clip.duration()} * options.framesPerSecond)) + 1.0);
        baked.loops = std::find(options.playOnce.begin(), options.playOnce.end(), clip.name()) == options.playOnce.end();
        for (std::uint32_t f = 0; f < baked.frameCount; ++f) {
            const float seconds = clip.duration() * static_cast<float>(f) / static_cast<float>(baked.frameCount - 1);
            pose = m_skeleton->restPose();
            clip.sample(seconds, pose);
            m_skeleton->jointMatrices(pose, modelFromJoint);
            m_skeleton->skinMatrices(modelFromJoint, skin);
            baked.bounds.extend(skinBounds.posedBounds(modelFromJoint));
            for (std::size_t j = 0; j < joints; ++j) {
                const glm::mat4 rows = glm::transpose(skin[j]);  // rows as columns: rows[r] is row r
                const std::size_t texel = (std::size_t{frame} * joints + j) * 3;
                m_rows[texel] = rows[0];
                m_rows[texel + 1] = rows[1];
                m_rows[texel + 2] = rows[2];
            }
            ++frame;
        }
        m_bounds.extend(baked.bounds);
        m_clips.push_back(std::move(baked));
    }
}

std::shared_ptr<const AnimationSet> AnimationSet::bake(std::shared_ptr<const Skeleton> skeleton,
                                                       std::span<const std::shared_ptr<const AnimationClip>> clips,
                                                       const MeshGeometry& mesh, const AnimationBakeOptions& options) {
    return std::make_shared<const AnimationSet>(std::move(skeleton), clips, mesh, options);
}

Aabb AnimationSet::boundsFor(const MeshGeometry& mesh) const {
    if (mesh.id() == m_bakedMeshId) {
        return m_bounds;  // baked for this mesh: the same boxes, already united
    }
    const SkinBounds skinBounds(mesh, *m_skeleton);
    const std::size_t joints = jointCount();
    // modelFromJoint = skin * inverse(inverseBind): the joint matrices, from the baked rows.
    std::vector<glm::mat4> bindFromJoint(joints);
    for (std::size_t j = 0; j < joints; ++j) {
        bindFromJoint[j] = glm::inverse(m_skeleton->joints()[j].inverseBind);
    }
    std::vector<glm::mat4> modelFromJoint(joints);
    Aabb bounds;
    for (std::size_t frame = 0; frame < m_frameCount; ++frame) {
        for (std::size_t j = 0; j < joints; ++j) {
            modelFromJoint[j] = bakedMatrix(m_rows, joints, frame, j) * bindFromJoint[j];
        }
        bounds.extend(skinBounds.posedBounds(modelFromJoint));
    }
    return bounds;
}

std::int32_t AnimationSet::findClip(std::string_view name) const noexcept {
    for (std::size_t c = 0; c < m_clips.size(); ++c) {
        if (m_clips[c].name == name) {
            return static_cast<std::int32_t>(c);
        }
    }
    return -1;
}

float AnimationSet::clipTime(std::uint32_t clip, float batchTime, float startTime, float speed) const {
    if (clip >= m_clips.size()) {
        throw InvalidArgument("AnimationSet::clipTime: clip " + std::to_string(clip) + " of " +
                              std::to_string(m_clips.size()));
    }
    const BakedClip& baked = m_clips[clip];
    // The same float operations as skin_palette.comp's framePair().
    const float local = (batchTime - startTime) * speed;
    if (!(baked.duration > 0.0f)) {
        return 0.0f;
    }
    if (baked.loops) {
        return local - baked.duration * std::floor(local / baked.duration);
    }
    return std::clamp(local, 0.0f, baked.duration);
}

void AnimationSet::skinMatricesAt(const InstanceAnimation& animation, float batchTime, std::span<glm::mat4> skin) const {
    const std::size_t joints = jointCount();
    if (skin.size() != joints) {
        throw InvalidArgument("AnimationSet::skinMatricesAt: " + std::to_string(skin.size()) + " matrices for " +
                              std::to_string(joints) + " joints");
    }
    const bool fading = animation.fadeFromClip != InstanceAnimation::kNoFade;
    if (animation.clip >= m_clips.size() || (fading && animation.fadeFromClip >= m_clips.size())) {
        throw InvalidArgument("AnimationSet::skinMatricesAt: clip " + std::to_string(animation.clip) +
                              (fading ? " (from " + std::to_string(animation.fadeFromClip) + ")" : std::string()) +
                              " of " + std::to_string(m_clips.size()));
    }
    // Per clip: the frame pair around its local time and the blend between them.
    auto frames = [&](std::uint32_t clip, float start, float speed, std::size_t& f0, std::size_t& f1, float& t) {
        const BakedClip& baked = m_clips[clip];
        const float local = clipTime(clip, batchTime, start, speed);
        const float position = baked.duration > 0.0f
                                   ? local / baked.duration * static_cast<float>(baked.frameCount - 1)
                                   : 0.0f;
        const float whole = std::min(std::floor(position), static_cast<float>(baked.frameCount - 1));
        f0 = baked.firstFrame + static_cast<std::size_t>(whole);
        f1 = baked.firstFrame + std::min<std::size_t>(static_cast<std::size_t>(whole) + 1, baked.frameCount - 1);
        t = position - whole;
    };
    std::size_t a0 = 0, a1 = 0, b0 = 0, b1 = 0;
    float ta = 0.0f, tb = 0.0f, weight = 1.0f;
    frames(animation.clip, animation.startTime, animation.speed, a0, a1, ta);
    if (fading) {
        frames(animation.fadeFromClip, animation.fadeFromStartTime, animation.fadeFromSpeed, b0, b1, tb);
        weight = animation.fadeDuration > 0.0f
                     ? std::clamp((batchTime - animation.fadeStart) / animation.fadeDuration, 0.0f, 1.0f)
                     : (batchTime >= animation.fadeStart ? 1.0f : 0.0f);
    }
    for (std::size_t j = 0; j < joints; ++j) {
        glm::mat4 m = bakedMatrix(m_rows, joints, a0, j) * (1.0f - ta) + bakedMatrix(m_rows, joints, a1, j) * ta;
        if (fading) {
            const glm::mat4 from = bakedMatrix(m_rows, joints, b0, j) * (1.0f - tb) + bakedMatrix(m_rows, joints, b1, j) * tb;
            m = m * weight + from * (1.0f - weight);
        }
        m[0][3] = m[1][3] = m[2][3] = 0.0f;
        m[3][3] = 1.0f;
        skin[j] = m;
    }
}

} // namespace myriad
