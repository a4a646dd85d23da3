#version 450 core
// The fragment stage of every MeshNode and InstancedMeshNode: the surface function decides base
// colour and alpha, then optional Lambert + ambient lighting, all in linear light. The output
// is linear: the framebuffer encodes it once (GL_FRAMEBUFFER_SRGB on an sRGB target) or stores
// it as is (a float target). Feature switches:
//   MYRIAD_LIT               Lambert from the scene's directional light, plus ambient
//   MYRIAD_ALPHA_MASK        discard below u_alphaCutoff (glTF alphaMode MASK)
//   MYRIAD_BLEND             alpha is written (alpha-blended pass); otherwise 1
//   MYRIAD_MIXED_MIRRORING   back faces culled here, per instance (a batch mixing mirrored and
//                            ordinary instances cannot use fixed-function culling)
//   MYRIAD_DEPTH_ONLY        depth-only view: the surface runs for its discards only
//   MYRIAD_USER_SURFACE      the material's SurfaceShader replaces the built-in surface
in vec3 v_normal;
in vec2 v_uv0;
in vec4 v_color;
in vec3 v_relativePosition;
flat in float v_handedness;
flat in int v_instanceIndex;
flat in vec4 v_lanes[4];

uniform vec4 u_baseColor;        // linear RGBA, the material's factor
uniform int u_hasTexture;        // 1: multiply by u_baseColorTexture
layout(binding = 0) uniform sampler2D u_baseColorTexture;  // sRGB texture: reads linear
uniform float u_alphaCutoff;
uniform vec4 u_tint;             // the node's tint: multiplies colour and opacity
uniform vec3 u_eye;              // world position of the eye (float; the rest is relative)
uniform vec3 u_lightDirection;   // world space, normalised, the way light travels
uniform vec3 u_lightColor;       // linear RGB * intensity
uniform vec3 u_ambient;          // linear RGB
uniform int u_materialIndex;     // the material's index in the renderer's identity table

// The renderer's material table, indexed by material index (0: no material), std430, the
// same buffer compute passes can bind (Renderer::kMaterialTableBuffer). Row layout, 32 bytes:
// base colour (linear RGBA), alpha cutoff, shading (0 lit, 1 unlit), alpha mode (0 opaque,
// 1 mask, 2 blend), flags (1 double-sided, 2 textured).
struct MyriadMaterial {
    vec4 baseColor;
    float alphaCutoff;
    int shading;
    int alphaMode;
    int flags;
};
layout(std430, binding = 0) readonly buffer MyriadMaterialTable {
    MyriadMaterial myriad_materialTable[];
};
MyriadMaterial myriad_material(int index) { return myriad_materialTable[index]; }

out vec4 o_color;

// What a surface function receives. All colours linear.
struct SurfaceInput {
    vec2 uv;              // first texture coordinate set
    vec4 color;           // vertex colour * instance colour
    vec3 normal;          // world space, unit length, on the side facing the viewer
    vec3 worldPosition;   // world space (float)
    vec3 viewDirection;   // world space, unit length, from the surface towards the eye
    int instanceIndex;    // index of the instance in its batch; 0 for a MeshNode
    vec2 screenPosition;  // window coordinates in pixels (gl_FragCoord.xy)
    vec4 lanes[4];        // shader data: the instance's (or MeshNode's) four lanes, exact;
                          // (0, 0, 0, 0) where never given. myriad gives them no meaning.
    int materialIndex;    // the material's index in the renderer's identity table (0: none);
                          // the same in every fragment of a draw
};

// What a surface function returns: base colour (linear RGB) and alpha (opacity 0..1).
struct SurfaceOutput {
    vec3 baseColor;
    float alpha;
};

// The material's base colour factor times its texture at uv (linear RGBA).
vec4 myriad_materialColor(vec2 uv) {
    vec4 color = u_baseColor;
    if (u_hasTexture != 0) {
        color *= texture(u_baseColorTexture, uv);
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

void main() {
    // A mirrored transform turns a front face clockwise on screen; its true side is
    // gl_FrontFacing flipped by the handedness.
    bool front = gl_FrontFacing == (v_handedness > 0.0);
#ifdef MYRIAD_MIXED_MIRRORING
    if (!front) {
        discard;
    }
#endif
    vec3 normal = normalize(v_normal);
    if (!front) {
        normal = -normal;  // two-sided materials light their back faces too
    }
    SurfaceInput s;
    s.uv = v_uv0;
    s.color = v_color;
    s.normal = normal;
    s.worldPosition = v_relativePosition + u_eye;
    s.viewDirection = normalize(-v_relativePosition);
    s.instanceIndex = v_instanceIndex;
    s.screenPosition = gl_FragCoord.xy;
    s.lanes = v_lanes;
    s.materialIndex = u_materialIndex;
    SurfaceOutput surfaceOut = surface(s);
    vec4 albedo = vec4(surfaceOut.baseColor, surfaceOut.alpha) * u_tint;
#ifdef MYRIAD_ALPHA_MASK
    if (albedo.a < u_alphaCutoff) {
        discard;
    }
#endif
#ifdef MYRIAD_DEPTH_ONLY
    o_color = vec4(0.0);
#else
    vec3 rgb = albedo.rgb;
#ifdef MYRIAD_LIT
    float lambert = max(dot(normal, -u_lightDirection), 0.0);
    rgb *= u_ambient + u_lightColor * lambert;
#endif
#ifdef MYRIAD_BLEND
    o_color = vec4(rgb, albedo.a);
#else
    o_color = vec4(rgb, 1.0);
#endif
#endif
}
