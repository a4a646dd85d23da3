#version 450 core
// One mip level of the GGX-prefiltered specular map of an Environment (src/renderer/EnvironmentMap.cpp,
// docs/lighting.md "Image-based ambient"), drawn over the level with tonemap.vert's full-screen
// triangle. Each texel, looking along its direction d of the equirectangular mapping
// (myriad::Environment::uvToDirection), holds the radiance around d weighted by the GGX lobe of
// roughness u_roughness with n = v = d, by importance sampling (Karis, "Real Shading in Unreal
// Engine 4", SIGGRAPH 2013 course notes: Hammersley points, GGX half vectors, weights n.l) from
// the source image's mip chain at the level whose texels match each sample's solid angle
// (Colbert and Krivanek, "GPU-Based Importance Sampling", GPU Gems 3, chapter 20), so few
// samples leave no speckles.
in vec2 v_uv;
out vec4 o_color;

layout(binding = MYRIAD_UNIT_ENVIRONMENT) uniform sampler2D u_source;  // the radiance image, full mip chain
uniform float u_roughness;  // perceptual; alpha = roughness^2
uniform int u_samples;      // importance samples per texel
uniform float u_texelSolidAngle;  // 4 pi / (width * height) of the source's level 0

const float PI = 3.14159265358979;

vec3 directionOf(vec2 uv) {
    float theta = PI * uv.y;
    float phi = 2.0 * PI * (uv.x - 0.5);
    return vec3(sin(theta) * sin(phi), cos(theta), -sin(theta) * cos(phi));
}

vec2 uvOf(vec3 d) {
    return vec2(0.5 + (d.x == 0.0 && d.z == 0.0 ? 0.0 : atan(d.x, -d.z)) * (0.5 / PI), acos(clamp(d.y, -1.0, 1.0)) * (1.0 / PI));
}

// Hammersley point i of n: (i / n, the radical inverse of i in base 2).
vec2 hammersley(uint i, uint n) {
    return vec2(float(i) / float(n), float(bitfieldReverse(i)) * 2.3283064365386963e-10);
}

void main() {
    vec3 n = directionOf(v_uv);
    if (u_roughness == 0.0) {
        o_color = vec4(textureLod(u_source, v_uv, 0.0).rgb, 1.0);  // a mirror: the image itself
        return;
    }
    float a = u_roughness * u_roughness;
    float a2 = a * a;
    // A tangent frame around n (any: the lobe is symmetric about it).
    vec3 up = abs(n.y) < 0.999 ? vec3(0.0, 1.0, 0.0) : vec3(1.0, 0.0, 0.0);
    vec3 tangentX = normalize(cross(up, n));
    vec3 tangentY = cross(n, tangentX);
    vec3 sum = vec3(0.0);
    float weight = 0.0;
    uint count = uint(u_samples);
    for (uint i = 0u; i < count; ++i) {
        vec2 xi = hammersley(i, count);
        // GGX half vector (Karis' ImportanceSampleGGX): cos^2 theta_h = (1 - x) / (1 + (a^2 - 1) x).
        float phi = 2.0 * PI * xi.x;
        float cosTheta = sqrt((1.0 - xi.y) / (1.0 + (a2 - 1.0) * xi.y));
        float sinTheta = sqrt(1.0 - cosTheta * cosTheta);
        vec3 h = tangentX * (sinTheta * cos(phi)) + tangentY * (sinTheta * sin(phi)) + n * cosTheta;
        vec3 l = 2.0 * dot(n, h) * h - n;  // v = n
        float nDotL = dot(n, l);
        if (nDotL <= 0.0) {
            continue;
        }
        // The sample's pdf over l: D(h) (n.h) / (4 v.h) = D(h) / 4 with v = n; the solid angle
        // it stands for, 1 / (samples * pdf), picks the source level.
        float d = cosTheta * cosTheta * (a2 - 1.0) + 1.0;
        float pdf = a2 / (PI * d * d) * 0.25;
        float sampleSolidAngle = 1.0 / (float(count) * pdf + 1.0e-6);
        float level = max(0.5 * log2(sampleSolidAngle / u_texelSolidAngle) + 1.0, 0.0);
        sum += textureLod(u_source, uvOf(l), level).rgb * nDotL;
        weight += nDotL;
    }
    o_color = vec4(sum / max(weight, 1.0e-6), 1.0);
}
