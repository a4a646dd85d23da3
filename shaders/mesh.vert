#version 450 core
// A MeshNode: one mesh at the node's world matrix.
layout(location = MYRIAD_LOCATION_POSITION) in vec3 a_position;
layout(location = MYRIAD_LOCATION_NORMAL) in vec3 a_normal;
layout(location = MYRIAD_LOCATION_UV0) in vec2 a_uv0;
layout(location = MYRIAD_LOCATION_COLOR) in vec4 a_color;

#ifdef MYRIAD_MORPH
// Morph targets as in instanced_mesh.vert, with the node's weights only.
layout(binding = 1) uniform samplerBuffer u_morphTargets;
uniform int u_morphTargetCount;
uniform int u_vertexCount;
uniform float u_morphWeights[MYRIAD_MAX_MORPH_TARGETS];

void morph(inout vec3 position, inout vec3 normal) {
    for (int target = 0; target < u_morphTargetCount; ++target) {
        float weight = u_morphWeights[target];
        if (weight != 0.0) {
            int texel = 2 * (target * u_vertexCount + gl_VertexID);
            position += weight * texelFetch(u_morphTargets, texel).xyz;
            normal += weight * texelFetch(u_morphTargets, texel + 1).xyz;
        }
    }
}
#endif

uniform mat4 u_viewProjection;  // camera-relative world to clip (the eye is at the origin)
uniform mat4 u_model;           // node world matrix minus the eye position

out vec3 v_normal;
out vec2 v_uv0;
out vec4 v_color;
flat out float v_handedness;  // +1, or -1 for a mirrored transform

void main() {
    vec3 position = a_position;
    vec3 normal = a_normal;
#ifdef MYRIAD_MORPH
    morph(position, normal);
#endif
    gl_Position = u_viewProjection * (u_model * vec4(position, 1.0));
    mat3 m = mat3(u_model);
    mat3 cofactor = mat3(cross(m[1], m[2]), cross(m[2], m[0]), cross(m[0], m[1]));
    v_normal = cofactor * normal * sign(determinant(m));
    v_handedness = determinant(m) < 0.0 ? -1.0 : 1.0;
    v_uv0 = a_uv0;
    v_color = a_color;
}
