#version 450 core
// Surface shading shared by MeshNode and InstancedMeshNode: base colour x texture x vertex
// colour x instance colour, Lambert + ambient from one directional light, sRGB-encoded output.
in vec3 v_normal;
in vec2 v_uv0;
in vec4 v_color;
flat in float v_handedness;

uniform vec4 u_baseColor;            // linear RGBA
uniform int u_hasTexture;            // 1: multiply by u_baseColorTexture
layout(binding = 0) uniform sampler2D u_baseColorTexture;  // sRGB texture: reads linear
uniform int u_lit;                   // 1: Lambert + ambient; 0: unlit
uniform float u_alphaCutoff;         // discard below; negative: never
uniform int u_opaque;                // 1: write alpha 1
uniform vec4 u_tint;                 // the node's tint: multiplies colour and opacity
uniform int u_discardBackFaces;      // 1: cull here, per instance (mixed mirrored batches)
uniform vec3 u_lightDirection;       // world space, normalised, the way light travels
uniform vec3 u_lightColor;           // linear RGB * intensity
uniform vec3 u_ambient;              // linear RGB

out vec4 o_color;

// IEC 61966-2-1 sRGB transfer function: the targets are plain RGBA8, so encode here.
vec3 linearToSrgb(vec3 c) {
    c = clamp(c, 0.0, 1.0);
    return mix(c * 12.92, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, step(vec3(0.0031308), c));
}

void main() {
    // A mirrored transform turns a front face clockwise on screen; its true side is
    // gl_FrontFacing flipped by the handedness.
    bool front = gl_FrontFacing == (v_handedness > 0.0);
    if (u_discardBackFaces != 0 && !front) {
        discard;
    }
    vec4 albedo = u_baseColor * v_color * u_tint;
    if (u_hasTexture != 0) {
        albedo *= texture(u_baseColorTexture, v_uv0);
    }
    if (albedo.a < u_alphaCutoff) {
        discard;
    }
    vec3 rgb = albedo.rgb;
    if (u_lit != 0) {
        vec3 n = normalize(v_normal);
        if (!front) {
            n = -n;  // two-sided materials light their back faces too
        }
        float lambert = max(dot(n, -u_lightDirection), 0.0);
        rgb *= u_ambient + u_lightColor * lambert;
    }
    o_color = vec4(linearToSrgb(rgb), u_opaque != 0 ? 1.0 : albedo.a);
}
