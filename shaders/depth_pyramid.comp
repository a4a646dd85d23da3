#version 450 core
// GPU occlusion culling's hierarchical depth pyramid (src/renderer/DepthPyramid.cpp,
// docs/visibility.md "GPU occlusion culling: the depth pyramid and the two phases"). One
// dispatch per level, one invocation per texel of that level:
// - level 0 copies the view's depth (View::depthTexture, texelFetch at the viewport's offset);
// - level k > 0 keeps the farthest value (max; min with reversed depth) of the level-(k-1)
//   texels it covers: 2x2, plus the extra column (row) below the last texel of a level whose
//   source has an odd width (height). So texel x of level k covers level-0 pixels
//   [x * 2^k, (x + 1) * 2^k), and the last texel everything to the edge: a pixel p is
//   covered at level k by texel min(p >> k, size_k - 1), which is what the cull pass fetches.
// Levels live one after the other in one R32F storage buffer (binding MYRIAD_BINDING_CULL_PYRAMID),
// row-major; the CPU puts a storage barrier between levels.
layout(local_size_x = 8, local_size_y = 8) in;

layout(std430, binding = MYRIAD_BINDING_CULL_PYRAMID) buffer MyriadDepthPyramid { float pyramid[]; };
layout(binding = MYRIAD_UNIT_PYRAMID_DEPTH) uniform sampler2D u_depth;

uniform int u_level;             // 0: copy the depth texture
uniform ivec2 u_viewportOrigin;  // level 0: the viewport's lower-left pixel in the depth texture
uniform ivec2 u_size;            // this level's texels
uniform ivec2 u_sourceSize;      // level k - 1's texels (k > 0)
uniform uint u_offset;           // this level's first value in the buffer
uniform uint u_sourceOffset;     // level k - 1's
uniform int u_reversedDepth;     // 1: nearer is larger, keep the min

void main() {
    ivec2 t = ivec2(gl_GlobalInvocationID.xy);
    if (t.x >= u_size.x || t.y >= u_size.y) {
        return;  // no barrier in this shader: an early return is fine
    }
    float value;
    if (u_level == 0) {
        // Clamped: a viewport reaching past the depth texture reads its edge, never past it
        // (an out-of-range texelFetch is undefined, GLSL 4.50 section 8.9.2).
        value = texelFetch(u_depth, min(u_viewportOrigin + t, textureSize(u_depth, 0) - 1), 0).r;
    } else {
        ivec2 first = 2 * t;
        ivec2 last = min(first + 1, u_sourceSize - 1);
        // The odd edge: the last texel also covers the source's last column (row).
        if (t.x == u_size.x - 1) {
            last.x = u_sourceSize.x - 1;
        }
        if (t.y == u_size.y - 1) {
            last.y = u_sourceSize.y - 1;
        }
        value = pyramid[u_sourceOffset + uint(first.y * u_sourceSize.x + first.x)];
        for (int y = first.y; y <= last.y; ++y) {
            for (int x = first.x; x <= last.x; ++x) {
                float v = pyramid[u_sourceOffset + uint(y * u_sourceSize.x + x)];
                value = u_reversedDepth != 0 ? min(value, v) : max(value, v);
            }
        }
    }
    pyramid[u_offset + uint(t.y * u_size.x + t.x)] = value;
}
