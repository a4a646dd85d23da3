#version 450 core
// The tone-mapping pass (src/renderer/ToneMapping.cpp, include/myriad/gl/ToneMapping.h,
// docs/lighting.md "Tone mapping and exposure"): the source's linear light times u_exposure,
// through one operator, encoded once. myriad_encodeSrgb() (the sRGB OETF of IEC 61966-2-1) is
// inserted before this text by the pass, the same function the renderer's MYRIAD_ENCODE_SRGB
// variants use.
layout(binding = MYRIAD_UNIT_TONEMAP_SOURCE) uniform sampler2D u_source;

uniform int u_operator;     // 0 clamp, 1 Khronos PBR Neutral, 2 ACES (ToneMapOperator's order)
uniform float u_exposure;   // linear multiplier, finite and above 0 (checked on the CPU)
uniform int u_encodeSrgb;   // 1: a linear 8-bit destination, encode here; 0: GL encodes or none wanted

in vec2 v_uv;
layout(location = 0) out vec4 fragColor;

// Khronos PBR Neutral, as the reference GLSL of github.com/KhronosGroup/ToneMapping
// (PBR_Neutral/pbrNeutral.glsl), constants and steps unchanged.
vec3 myriad_pbrNeutral(vec3 color) {
    const float startCompression = 0.8 - 0.04;
    const float desaturation = 0.15;

    float x = min(color.r, min(color.g, color.b));
    float offset = x < 0.08 ? x - 6.25 * x * x : 0.04;
    color -= offset;

    float peak = max(color.r, max(color.g, color.b));
    if (peak < startCompression) return color;

    const float d = 1.0 - startCompression;
    float newPeak = 1.0 - d * d / (peak + d - startCompression);
    color *= newPeak / peak;

    float g = 1.0 - 1.0 / (desaturation * (peak - newPeak) + 1.0);
    return mix(color, newPeak * vec3(1.0), g);
}

// Stephen Hill's fit of the ACES RRT + sRGB ODT (BakingLab ACES.hlsl, "ACESFitted"). GLSL
// matrices are column-major: each vec3 below is a column, i.e. the HLSL rows transposed.
vec3 myriad_acesFitted(vec3 color) {
    // sRGB => XYZ => D65_2_D60 => AP1 => RRT_SAT
    const mat3 inputMatrix = mat3(vec3(0.59719, 0.07600, 0.02840),
                                  vec3(0.35458, 0.90834, 0.13383),
                                  vec3(0.04823, 0.01566, 0.83777));
    // ODT_SAT => XYZ => D60_2_D65 => sRGB
    const mat3 outputMatrix = mat3(vec3(1.60475, -0.10208, -0.00327),
                                   vec3(-0.53108, 1.10813, -0.07276),
                                   vec3(-0.07367, -0.00605, 1.07602));
    vec3 v = inputMatrix * color;
    vec3 a = v * (v + 0.0245786) - 0.000090537;
    vec3 b = v * (0.983729 * v + 0.4329510) + 0.238081;
    return clamp(outputMatrix * (a / b), 0.0, 1.0);
}

void main() {
    vec4 source = texture(u_source, v_uv);
    // Both curves are defined for non-negative input (the Khronos text says so); a float
    // target can hold negatives (a subtractive blend, a user pass).
    vec3 color = max(source.rgb, vec3(0.0)) * u_exposure;
    if (u_operator == 1) {
        color = myriad_pbrNeutral(color);
    } else if (u_operator == 2) {
        color = myriad_acesFitted(color);
    }
    color = clamp(color, 0.0, 1.0);
    if (u_encodeSrgb != 0) {
        color = myriad_encodeSrgb(color);
    }
    fragColor = vec4(color, clamp(source.a, 0.0, 1.0));
}
