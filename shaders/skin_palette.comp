#version 450 core
// A skinned crowd's palettes (docs/skinning.md, "Crowds"; src/renderer/SkinPalettePass.cpp):
// once per frame and batch, before the first draw, one invocation per (drawn instance, joint)
// blends that joint's skin matrix for the instance's own clip time from the baked frames: the
// two frames around the time, and during a cross-fade the same for the clip faded from, then
// the two results by the fade weight. The vertex stage (surface.vert, MYRIAD_SKIN_ANIMATED)
// then reads three texels a joint influence, as a posed node's palette: the clip arithmetic and
// the frame blend run once an instance and joint, not once a vertex.
// AnimationSet::skinMatricesAt() does the same float steps on the CPU.
layout(local_size_x = 64) in;

// The baked frames: frame f, joint j, row r at texel (f * u_jointCount + j) * 3 + r.
layout(binding = 0) uniform samplerBuffer u_frames;
// The animation stream (streams::kAnimation), two texels an instance:
// (clip, start, speed, fade start), (fade-from clip or -1, its start, its speed, fade duration).
layout(binding = 1) uniform samplerBuffer u_animation;
// The palettes written: instance i, joint j, row r at element (i * u_jointCount + j) * 3 + r.
layout(std430, binding = MYRIAD_BINDING_SKIN_PALETTE) writeonly buffer MyriadSkinPalettes {
    vec4 rows[];
} u_palettes;

uniform uint u_instanceCount;                  // drawn instances (InstancedMeshNode::drawnInstances().end)
uniform uint u_first;                          // this dispatch's first invocation (dispatches of at most the work-group limit)
uniform int u_jointCount;
uniform float u_animationTime;                 // the batch clock, seconds
uniform vec4 u_clips[MYRIAD_MAX_BAKED_CLIPS];  // per clip: (first frame, frames, duration, loops)

// The first texel of the two baked frames around a clip's local time, and the blend between them.
struct FramePair {
    int texel0;
    int texel1;
    float t;
};
FramePair framePair(int clip, float startTime, float speed) {
    vec4 c = u_clips[clip];
    float duration = c.z;
    float local = (u_animationTime - startTime) * speed;
    float clipTime = 0.0;
    if (duration > 0.0) {
        clipTime = c.w > 0.5 ? local - duration * floor(local / duration) : clamp(local, 0.0, duration);
    }
    float position = duration > 0.0 ? clipTime / duration * (c.y - 1.0) : 0.0;
    float whole = min(floor(position), c.y - 1.0);
    int stride = u_jointCount * 3;
    return FramePair((int(c.x) + int(whole)) * stride, (int(c.x) + int(min(whole + 1.0, c.y - 1.0))) * stride,
                     position - whole);
}

mat3x4 frameRows(int texel) {
    return mat3x4(texelFetch(u_frames, texel), texelFetch(u_frames, texel + 1), texelFetch(u_frames, texel + 2));
}

mat3x4 blended(FramePair pair, int joint) {
    return frameRows(pair.texel0 + joint) * (1.0 - pair.t) + frameRows(pair.texel1 + joint) * pair.t;
}

void main() {
    uint invocation = u_first + gl_GlobalInvocationID.x;
    uint joints = uint(u_jointCount);
    if (invocation >= u_instanceCount * joints) {
        return;
    }
    int instance = int(invocation / joints);
    int joint = int(invocation % joints) * 3;
    vec4 play = texelFetch(u_animation, instance * 2);
    vec4 fade = texelFetch(u_animation, instance * 2 + 1);
    mat3x4 rows = blended(framePair(int(play.x), play.y, play.z), joint);
    if (fade.x >= 0.0) {
        float weight = fade.w > 0.0 ? clamp((u_animationTime - play.w) / fade.w, 0.0, 1.0)
                                    : (u_animationTime >= play.w ? 1.0 : 0.0);
        if (weight < 1.0) {
            rows = rows * weight + blended(framePair(int(fade.x), fade.y, fade.z), joint) * (1.0 - weight);
        }
    }
    uint element = invocation * 3u;
    u_palettes.rows[element] = rows[0];
    u_palettes.rows[element + 1u] = rows[1];
    u_palettes.rows[element + 2u] = rows[2];
}
