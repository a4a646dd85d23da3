#version 450 core
// The fragment stage of every ParticlePool: the surface function decides colour and alpha
// (built in: particle colour * flipbook cell), then the node's tint, then premultiplied output
// in linear light: rgb * alpha, alpha. Alpha pools blend ONE, ONE_MINUS_SRC_ALPHA ("over"),
// additive ones ONE, ONE, so both fade by alpha, never by darkening to a black square.
// Feature switches: MYRIAD_USER_SURFACE (the material's SurfaceShader replaces the built-in);
// MYRIAD_FOG (the scene's fog before the alpha weighting: myriad_applyFog(); docs/lighting.md);
// MYRIAD_ENCODE_SRGB (rgb encoded by myriad_encodeSrgb() before the alpha weighting, for a
// linear 8-bit target the view wants display-encoded: "over" and additive blending then mix
// encoded values).
in vec2 v_uv0;
in vec4 v_color;
in vec3 v_relativePosition;
flat in int v_instanceIndex;
flat in vec4 v_cells;
flat in float v_frameBlend;

uniform int u_hasTexture;        // 1: a flipbook atlas is bound
layout(binding = MYRIAD_UNIT_BASE_COLOR) uniform sampler2D u_baseColorTexture;  // sRGB atlas: reads linear
uniform vec2 u_atlasGrid;
uniform int u_round;             // 1: fade the quad to a disc
uniform vec4 u_tint;             // the node's tint: multiplies colour and opacity
uniform vec3 u_eye;

out vec4 o_color;

// What a surface function receives (the same struct as surface.frag). For particles: uv is the
// quad's 0..1 coordinate (v = 0 at the top), color the particle's RGB and alpha, normal faces
// the viewer, instanceIndex the particle's index in its pool, lanes zeros, materialIndex 0; so a
// function written for meshes (docs/shaders.md) compiles here too (myriad_material() excepted).
struct SurfaceInput {
    vec2 uv;
    vec4 color;
    vec3 normal;
    vec3 worldPosition;
    vec3 viewDirection;
    int instanceIndex;
    vec2 screenPosition;
    vec4 lanes[MYRIAD_MAX_LANES];  // particles carry no shader data: (0, 0, 0, 0)
    int materialIndex;   // 0: a particle material is in no identity table
};

struct SurfaceOutput {
    vec3 baseColor;
    float alpha;
};

// The flipbook at quad coordinate uv: this cell, blended toward the next by the frame's
// fraction when the material asks (straight alpha, linear colour). White with no atlas.
vec4 myriad_materialColor(vec2 uv) {
    if (u_hasTexture == 0) {
        return vec4(1.0);
    }
    vec2 grid = u_atlasGrid;
    vec4 color = texture(u_baseColorTexture, (v_cells.xy + uv) / grid);
    if (v_frameBlend > 0.0) {
        color = mix(color, texture(u_baseColorTexture, (v_cells.zw + uv) / grid), v_frameBlend);
    }
    return color;
}

#ifdef MYRIAD_USER_SURFACE
// MYRIAD_SURFACE_FUNCTION
#else
SurfaceOutput surface(SurfaceInput s) {
    vec4 color = s.color * myriad_materialColor(s.uv);
    return SurfaceOutput(color.rgb, color.a);
}
#endif

#ifdef MYRIAD_FOG
uniform int u_fogAdditive;  // 1: an additive material (ONE, ONE)
// Fog (docs/lighting.md, "Fog"), on the colour before it is weighted by alpha. Alpha ("over")
// pools: mix(fog colour, rgb, f), so the premultiplied output is rgb * alpha * f + fog colour *
// alpha * (1 - f): the particle covers alpha of what is behind with fogged colour. Additive
// pools: rgb * f: the light they add fades with the fog, and no fog colour is added (it would
// brighten the scene once per overlapping particle).
vec3 myriad_applyFog(vec3 rgb) {
    float f = myriad_fogFactor(v_relativePosition, u_eye.y);
    return u_fogAdditive != 0 ? rgb * f : mix(u_fogColor, rgb, f);
}
#endif

void main() {
    SurfaceInput s;
    s.uv = v_uv0;
    s.color = v_color;
    s.viewDirection = normalize(-v_relativePosition);  // towards the eye point, also in an orthographic view
    s.normal = s.viewDirection;
    s.worldPosition = v_relativePosition + u_eye;
    s.instanceIndex = v_instanceIndex;
    s.screenPosition = gl_FragCoord.xy;
    for (int lane = 0; lane < MYRIAD_MAX_LANES; ++lane) {
        s.lanes[lane] = vec4(0.0);
    }
    s.materialIndex = 0;
    SurfaceOutput surfaceOut = surface(s);
    vec4 albedo = vec4(surfaceOut.baseColor, clamp(surfaceOut.alpha, 0.0, 1.0)) * u_tint;
    if (u_round != 0) {
        float r = length(v_uv0 - 0.5) * 2.0;
        albedo.a *= 1.0 - smoothstep(0.6, 1.0, r);
    }
    vec3 rgb = albedo.rgb;
#ifdef MYRIAD_FOG
    rgb = myriad_applyFog(rgb);
#endif
#ifdef MYRIAD_ENCODE_SRGB
    rgb = myriad_encodeSrgb(rgb);
#endif
    o_color = vec4(rgb * albedo.a, albedo.a);
}
