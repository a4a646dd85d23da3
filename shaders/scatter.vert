#version 450 core
// The vertex stage of every ScatterNode (docs/particles.md), linked with surface.frag. Each
// instance is one plant from the 32-byte scatter stream (generated declaration):
//   myriad_scatter_0 = (position xyz in node space, yaw), myriad_scatter_1 = (scale, bend,
//   colour variation, seed).
// Wind bends each vertex by its height share h = y / u_meshHeight (root at y = 0): the offset
// grows with h^2, so the root stays put and the tip moves most, then the vertex is pulled down
// a little so the blade keeps roughly its length.
layout(location = MYRIAD_LOCATION_POSITION) in vec3 a_position;
layout(location = MYRIAD_LOCATION_NORMAL) in vec3 a_normal;
layout(location = MYRIAD_LOCATION_UV0) in vec2 a_uv0;
layout(location = MYRIAD_LOCATION_COLOR) in vec4 a_color;

uniform mat4 u_viewProjection;  // camera-relative world to clip
uniform mat4 u_model;           // node world matrix minus the eye position
uniform vec3 u_eye;
uniform float u_meshHeight;     // metres from root to tip in the mesh (> 0)
uniform float u_windTime;       // seconds
uniform vec3 u_windDirection;   // world, normalised horizontal
uniform float u_windStrength;   // lean of a bend-1 blade, metres per metre of height
uniform float u_gustStrength;   // share of strength
uniform float u_gustScale;      // metres between gusts
uniform float u_gustSpeed;      // m/s

out vec3 v_normal;
out vec2 v_uv0;
out vec4 v_color;
out vec3 v_relativePosition;
flat out float v_handedness;
flat out int v_instanceIndex;

// Smooth 1D value noise (no texture): gusts as bands travelling with the wind.
float hash(float n) { return fract(sin(n) * 43758.5453); }
float noise(float x) {
    float i = floor(x);
    float f = fract(x);
    return mix(hash(i), hash(i + 1.0), f * f * (3.0 - 2.0 * f));
}

void main() {
    vec3 place = myriad_scatter_0.xyz;
    float yaw = myriad_scatter_0.w;
    float scale = myriad_scatter_1.x;
    float bend = myriad_scatter_1.y;
    float variation = myriad_scatter_1.z;
    float seed = myriad_scatter_1.w;
    float c = cos(yaw);
    float s = sin(yaw);
    mat3 turn = mat3(c, 0.0, -s, 0.0, 1.0, 0.0, s, 0.0, c);  // about +Y (columns)
    vec3 local = turn * a_position * scale;
    vec4 relative = u_model * vec4(place + local, 1.0);

    // Wind, in world space after the node's transform.
    float h = clamp(a_position.y / max(u_meshHeight, 1e-6), 0.0, 1.0);
    vec3 world = relative.xyz + u_eye;
    float along = dot(world, u_windDirection);
    float gust = u_gustStrength * (2.0 * noise((along - u_windTime * u_gustSpeed) / max(u_gustScale, 1e-3)) - 1.0);
    float sway = 0.25 * sin(u_windTime * 2.1 + seed * 6.2831853);
    float height = u_meshHeight * scale;
    float lean = u_windStrength * bend * (1.0 + gust + sway) * height * h * h;
    relative.xyz += u_windDirection * lean;
    relative.y -= 0.5 * lean * lean / max(height, 1e-6) * h;

    gl_Position = u_viewProjection * relative;
    v_relativePosition = relative.xyz;
    mat3 linear = mat3(u_model) * turn;
    v_normal = linear * a_normal;
    v_handedness = determinant(mat3(u_model)) < 0.0 ? -1.0 : 1.0;
    v_uv0 = a_uv0;
    v_color = vec4(a_color.rgb * max(1.0 + 0.5 * variation, 0.0), a_color.a);
    v_instanceIndex = gl_InstanceID;  // surface.frag gives a scatter node no lanes (zeros)
}
