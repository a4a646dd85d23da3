#version 450 core
// One instance of an InstancedMeshNode. The record arrives as four divisor-1 attributes: three
// rows of the node-from-instance 3x4 matrix, then a colour (see InstanceRecord.h).
layout(location = MYRIAD_LOCATION_POSITION) in vec3 a_position;
layout(location = MYRIAD_LOCATION_NORMAL) in vec3 a_normal;
layout(location = MYRIAD_LOCATION_UV0) in vec2 a_uv0;
layout(location = MYRIAD_LOCATION_COLOR) in vec4 a_color;
layout(location = MYRIAD_LOCATION_INSTANCE_ROW0) in vec4 i_row0;
layout(location = MYRIAD_LOCATION_INSTANCE_ROW1) in vec4 i_row1;
layout(location = MYRIAD_LOCATION_INSTANCE_ROW2) in vec4 i_row2;
layout(location = MYRIAD_LOCATION_INSTANCE_COLOR) in vec4 i_color;

#ifdef MYRIAD_MORPH
// Morph targets, read by vertex id so the vertex layout does not depend on their number:
// texel 2 * (target * u_vertexCount + gl_VertexID) is the position delta, the next the normal
// delta (glTF 2.0 section 3.7.2.2: morphed = base + sum of weight * delta).
layout(binding = 1) uniform samplerBuffer u_morphTargets;
uniform int u_morphTargetCount;
uniform int u_vertexCount;
uniform float u_morphWeights[MYRIAD_MAX_MORPH_TARGETS];  // the node's weights
#ifdef MYRIAD_INSTANCE_MORPH_WEIGHTS
// Per-instance weights: MYRIAD_MAX_MORPH_TARGETS / 4 RGBA32F texels per instance, rows wrapped
// at u_instancesPerRow instances so no count hits the maximum texture width. A first weight of
// -1e30 means "this instance uses the node's weights".
layout(binding = 2) uniform sampler2D u_instanceMorphWeights;
uniform int u_instancesPerRow;
uniform int u_baseInstance;  // added to gl_InstanceID: GL 4.5 has no gl_BaseInstance
#endif

float morphWeight(int target) {
#ifdef MYRIAD_INSTANCE_MORPH_WEIGHTS
    const int texelsPerInstance = MYRIAD_MAX_MORPH_TARGETS / 4;
    int instance = gl_InstanceID + u_baseInstance;
    ivec2 first = ivec2((instance % u_instancesPerRow) * texelsPerInstance, instance / u_instancesPerRow);
    if (texelFetch(u_instanceMorphWeights, first, 0).x > -1.0e29) {
        return texelFetch(u_instanceMorphWeights, first + ivec2(target / 4, 0), 0)[target % 4];
    }
#endif
    return u_morphWeights[target];
}

void morph(inout vec3 position, inout vec3 normal) {
    for (int target = 0; target < u_morphTargetCount; ++target) {
        float weight = morphWeight(target);
        if (weight != 0.0) {
            int texel = 2 * (target * u_vertexCount + gl_VertexID);
            position += weight * texelFetch(u_morphTargets, texel).xyz;
            normal += weight * texelFetch(u_morphTargets, texel + 1).xyz;
        }
    }
}
#endif

uniform mat4 u_viewProjection;  // camera-relative world to clip (the eye is at the origin)
uniform mat4 u_model;           // node world matrix minus the eye position, once per batch

out vec3 v_normal;  // world space, not normalised
out vec2 v_uv0;
out vec4 v_color;   // vertex colour * instance colour, linear
flat out float v_handedness;  // +1, or -1 for a mirrored (negative determinant) transform

// Normals transform by the cofactor of the 3x3 part (det * inverse transpose): exact under
// non-uniform scale with no per-vertex inverse. Its sign is flipped for mirrored (det < 0)
// matrices so the normal keeps pointing out of the surface.
vec3 transformNormal(mat3 m, vec3 n) {
    mat3 cofactor = mat3(cross(m[1], m[2]), cross(m[2], m[0]), cross(m[0], m[1]));
    return cofactor * n * sign(determinant(m));
}

void main() {
    vec3 position = a_position;
    vec3 normal = a_normal;
#ifdef MYRIAD_MORPH
    morph(position, normal);
#endif
    vec4 p = vec4(position, 1.0);
    vec3 nodePosition = vec3(dot(i_row0, p), dot(i_row1, p), dot(i_row2, p));
    gl_Position = u_viewProjection * (u_model * vec4(nodePosition, 1.0));
    // GLSL's mat3 constructor takes columns; the record stores rows, hence the transpose.
    mat3 instanceLinear = transpose(mat3(i_row0.xyz, i_row1.xyz, i_row2.xyz));
    mat3 linear = mat3(u_model) * instanceLinear;
    v_normal = transformNormal(linear, normal);
    v_handedness = determinant(linear) < 0.0 ? -1.0 : 1.0;
    v_uv0 = a_uv0;
    v_color = a_color * i_color;
}
