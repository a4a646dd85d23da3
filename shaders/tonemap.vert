#version 450 core
// The tone-mapping pass's full-screen triangle (src/renderer/ToneMapping.cpp, docs/lighting.md
// "Tone mapping and exposure"): no vertex buffer, three vertices from gl_VertexID covering
// clip space [-1, 1]^2 and beyond. v_uv is 0..1 across the viewport, so at a pixel centre it
// is (i + 0.5) / size: the texel centre of a source of the viewport's size.
out vec2 v_uv;

void main() {
    vec2 corner = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));  // (0,0) (2,0) (0,2)
    v_uv = corner;
    gl_Position = vec4(corner * 2.0 - 1.0, 0.0, 1.0);
}
