#version 450 core
// The vertex stage of every ParticlePool (docs/particles.md). No mesh: each instance is one
// particle, its quad made from gl_VertexID (two triangles, six vertices). The pool's four
// streams arrive as one RGBA32F buffer texture of four planes, u_particleCapacity texels each:
//   plane 0 (position xyz, half-width)   plane 1 (linear RGB, alpha)
//   plane 2 (velocity xyz, spin)         plane 3 (age, seed, frame, half-height)
// Sorted pools draw instance i as particle u_order[i] (back to front for this view).
// A compact pool (ParticlePool::setCurves, u_particleCompact 1) sends two planes only:
//   plane 0 (position xyz, half-width)   plane 1 (age, seed, frame, spin)
// and its colour, alpha and size over life come from u_particleCurves: 256 samples of life
// 0..1, row 0 (linear RGB, alpha), row 1 (half-width, 1 when there is a size curve).
layout(binding = MYRIAD_UNIT_PARTICLE_STREAMS) uniform samplerBuffer u_particles;
layout(binding = MYRIAD_UNIT_PARTICLE_ORDER) uniform usamplerBuffer u_order;
layout(binding = MYRIAD_UNIT_PARTICLE_CURVES) uniform sampler2D u_particleCurves;
uniform int u_particleCapacity;  // texels per plane
uniform int u_particleCompact;   // 1: two planes and the curves
uniform int u_sorted;           // 1: read u_order
uniform mat4 u_viewProjection;  // camera-relative world to clip (the eye at the origin)
uniform vec3 u_eye;             // world position of the eye (float)
uniform vec3 u_cameraRight;     // world, unit: the screen's +x
uniform vec3 u_cameraUp;        // world, unit: the screen's +y
uniform int u_streak;           // 1: stretch along the screen-projected velocity
uniform float u_streakSeconds;  // seconds of travel one streak spans
uniform vec2 u_atlasGrid;       // flipbook cells across, down (whole numbers)
uniform int u_blendFrames;      // 1: blend a cell with the next by the frame's fraction

out vec2 v_uv0;                 // the quad's 0..1 coordinate, v = 0 at the top
out vec4 v_color;               // linear RGB, alpha
out vec3 v_relativePosition;    // world position minus the eye
flat out int v_instanceIndex;   // the particle's index in its pool
flat out vec4 v_cells;          // atlas offsets of this cell (xy) and the next (zw), in cells
flat out float v_frameBlend;    // how far toward the next cell

const vec2 kCorners[6] = vec2[](vec2(-1.0, -1.0), vec2(1.0, -1.0), vec2(1.0, 1.0),
                                vec2(-1.0, -1.0), vec2(1.0, 1.0), vec2(-1.0, 1.0));

// The curves at share of life @p age, linear between the two nearest of 256 samples (what a
// linear filter gives, without a sampler object or its state).
vec4 curveAt(int row, float age) {
    // A NaN age (rows written without checks) reads life 0: int(NaN) is undefined.
    float x = isnan(age) ? 0.0 : clamp(age, 0.0, 1.0) * 255.0;
    int i = clamp(int(x), 0, 254);
    return mix(texelFetch(u_particleCurves, ivec2(i, row), 0), texelFetch(u_particleCurves, ivec2(i + 1, row), 0),
               x - float(i));
}

vec2 cellOffset(int cell) {
    ivec2 grid = ivec2(u_atlasGrid);
    int cells = grid.x * grid.y;
    cell = ((cell % cells) + cells) % cells;
    return vec2(cell % grid.x, cell / grid.x);  // across, then down from the top-left
}

void main() {
    int particle = u_sorted != 0 ? int(texelFetch(u_order, gl_InstanceID).r) : gl_InstanceID;
    vec4 positionSize = texelFetch(u_particles, particle);
    vec4 colorAlpha;
    vec4 velocitySpin;
    vec4 life;
    if (u_particleCompact != 0) {
        vec4 ageSeedFrameSpin = texelFetch(u_particles, u_particleCapacity + particle);
        colorAlpha = curveAt(0, ageSeedFrameSpin.x);
        vec4 size = curveAt(1, ageSeedFrameSpin.x);
        positionSize.w = size.y > 0.5 ? size.x : positionSize.w;
        velocitySpin = vec4(0.0, 0.0, 0.0, ageSeedFrameSpin.w);
        life = vec4(ageSeedFrameSpin.xyz, 0.0);  // square: no half-height
    } else {
        colorAlpha = texelFetch(u_particles, u_particleCapacity + particle);
        velocitySpin = texelFetch(u_particles, 2 * u_particleCapacity + particle);
        life = texelFetch(u_particles, 3 * u_particleCapacity + particle);
    }
    vec2 corner = kCorners[gl_VertexID];
    float halfWidth = positionSize.w;
    vec3 offset;
    if (u_streak != 0) {
        // Along the velocity as the screen sees it; a still spark is a square.
        vec2 screen = vec2(dot(velocitySpin.xyz, u_cameraRight), dot(velocitySpin.xyz, u_cameraUp));
        float speed = length(screen);
        vec2 along = speed > 1e-6 ? screen / speed : vec2(1.0, 0.0);
        vec2 across = vec2(-along.y, along.x);
        float halfLength = halfWidth + 0.5 * speed * u_streakSeconds;
        vec2 local = along * (corner.x * halfLength) + across * (corner.y * halfWidth);
        offset = u_cameraRight * local.x + u_cameraUp * local.y;
    } else {
        float halfHeight = life.w > 0.0 ? life.w : halfWidth;
        vec2 local = vec2(corner.x * halfWidth, corner.y * halfHeight);
        float c = cos(velocitySpin.w);
        float s = sin(velocitySpin.w);
        vec2 rolled = vec2(c * local.x - s * local.y, s * local.x + c * local.y);
        offset = u_cameraRight * rolled.x + u_cameraUp * rolled.y;
    }
    vec3 relative = positionSize.xyz - u_eye + offset;
    gl_Position = u_viewProjection * vec4(relative, 1.0);
    v_relativePosition = relative;
    v_uv0 = vec2(0.5 + 0.5 * corner.x, 0.5 - 0.5 * corner.y);
    v_color = colorAlpha;
    v_instanceIndex = particle;
    float frame = max(life.z, 0.0);
    int cell = int(floor(frame));
    v_cells = vec4(cellOffset(cell), cellOffset(cell + 1));
    v_frameBlend = u_blendFrames != 0 ? fract(frame) : 0.0;
}
