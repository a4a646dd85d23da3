#version 450 core
// The vertex stage of every MeshNode and InstancedMeshNode. Feature switches (#defines the
// renderer inserts after #version, one program per combination, see src/renderer/ShaderLibrary.cpp):
//   MYRIAD_INSTANCED               per-instance streams are declared (generated, see below)
//   MYRIAD_MORPH                   the mesh has morph targets (read by gl_VertexID)
//   MYRIAD_INSTANCE_MORPH_WEIGHTS  some instance has morph weights of its own
//   MYRIAD_INSTANCE_LANES          the batch has a lanes stream (read by surface.frag, not here)
//   MYRIAD_DEPTH_ONLY              depth-only view
//   MYRIAD_SKIN                    linear blend skinning: joints and weights per vertex, the
//                                  matrices from u_skin (docs/skinning.md)
//   MYRIAD_SKIN_ANIMATED           with MYRIAD_SKIN: each instance's own palette, blended from
//                                  the batch's baked clips at its own time (skin_palette.comp)
//   MYRIAD_TABLED                  the table-driven path (src/renderer/DrawTable.h): the draw's
//                                  constants come from its row of the draw table, found through
//                                  a_draw (declared with the streams), not from uniforms; with
//                                  MYRIAD_INDEXED, a GPU-culled batch's pairs and records
//   MYRIAD_LOD_FADE                with MYRIAD_INDEXED: a fading LOD level's draw; the list
//                                  entry's fade code goes to surface.frag as v_lodFade
//   MYRIAD_VELOCITY                motion vectors (View::velocity): the clip position the point
//                                  had in the previous frame, from the previous view-projection,
//                                  node matrix and (instanced) record, for surface.frag's
//                                  second output (docs/visibility.md, "Motion vectors")
//   MYRIAD_MATERIAL_TEXTURES       the material's extra textures (docs/lighting.md, "Material
//                                  textures"): the second texture coordinate set is passed on
//                                  (v_uv1; (0, 0) for a mesh without), and the vertex colour's
//                                  red and green for a lightmap read there (v_vertexColorUv,
//                                  "Lightmaps")
//   MYRIAD_TANGENT_FRAME           with it: the mesh's tangents, to world space, as v_tangent
//   MYRIAD_USER_VERTEX             (not a feature bit: the material's SurfaceShader has a
//                                  vertex function) the user's vertex() moves each vertex and
//                                  its normal, spliced in at MYRIAD_VERTEX_FUNCTION below
//                                  (docs/shaders.md, "Vertex functions")
// The per-instance stream declarations are generated from each stream's InstanceStreamDesc
// (one declaration drives the GL binding and the GLSL): the record stream arrives as
// myriad_record_0..3 (divisor-1 attributes: three rows of the node-from-instance matrix, then
// the colour); a buffer-texture stream S as samplerBuffer myriad_S, read by myriad_S_read().
layout(location = MYRIAD_LOCATION_POSITION) in vec3 a_position;
layout(location = MYRIAD_LOCATION_NORMAL) in vec3 a_normal;
layout(location = MYRIAD_LOCATION_UV0) in vec2 a_uv0;
layout(location = MYRIAD_LOCATION_COLOR) in vec4 a_color;

uniform mat4 u_viewProjection;  // camera-relative world to clip (the eye is at the origin)
#ifdef MYRIAD_TABLED
// One row of MYRIAD_DRAW_ROW_TEXELS texels per draw (DrawTable.h has the layout), RGBA32UI so
// every bit arrives as written: the node's world matrix as
// three rows of its 3x3 part with the translation's high float in .w, the translation's low
// float, the tint, the material's base colour, (alpha cutoff, textured, material index, 0), then
// the four lanes (read by surface.frag through v_drawRow), the draw's record slot, (metallic,
// roughness, light channels, 0) and (emission, 0). a_draw = (row, instance index), one pair per record slot, so every command of
// a multi-draw finds its row through its base instance, with no gl_DrawID or gl_BaseInstance
// (ARB_shader_draw_parameters is not core in GL 4.5). u_drawTable and a_draw are declared with
// the streams (ShaderLibrary::streamDeclarations), which read the table too when GPU-culled.
uniform vec3 u_eyeHigh;  // the eye as two floats, high + low: the translation is made
uniform vec3 u_eyeLow;   // camera-relative from both halves, near double precision
vec4 myriad_drawRow(int texel) {
    return uintBitsToFloat(texelFetch(u_drawTable, int(a_draw.x) * MYRIAD_DRAW_ROW_TEXELS + texel));
}
flat out vec4 v_drawTint;
flat out vec4 v_drawBaseColor;
flat out vec4 v_drawMaterial;
flat out vec2 v_drawShading;        // metallic, roughness
flat out vec3 v_drawEmissive;
flat out uint v_drawLightChannels;  // as uint: a mask may be a NaN's bits, which a float may not keep
flat out int v_drawRow;  // surface.frag reads the row's lanes itself
#else
uniform mat4 u_model;           // node world matrix minus the eye position
#endif

#ifdef MYRIAD_MORPH
// Morph targets by vertex id, so the vertex layout does not depend on their number: texel
// 2 * (target * u_vertexCount + gl_VertexID) is the position delta, the next the normal delta
// (glTF 2.0 section 3.7.2.2: morphed = base + sum of weight * delta).
layout(binding = MYRIAD_UNIT_MORPH_TARGETS) uniform samplerBuffer u_morphTargets;
uniform int u_morphTargetCount;
uniform int u_vertexCount;
uniform float u_morphWeights[MYRIAD_MAX_MORPH_TARGETS];  // the node's weights

float morphWeight(int target) {
#ifdef MYRIAD_INSTANCE_MORPH_WEIGHTS
    // A first weight of -1e30 means "this instance uses the node's weights".
    if (myriad_morphWeights_read(myriad_instanceIndex(), 0).x > -1.0e29) {
        return myriad_morphWeights_read(myriad_instanceIndex(), target / 4)[target % 4];
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

#ifdef MYRIAD_SKIN
// Linear blend skinning (glTF 2.0 section 3.7.3; Magnenat-Thalmann et al. 1988): a vertex is
// drawn at sum_k weight_k * skin[joint_k] * vertex, morph targets (never with a skin) aside.
// u_skin holds each joint's 3x4 skin matrix as three RGBA32F texels, its rows: the node's
// palette (jointCount x 3 texels), or with MYRIAD_SKIN_ANIMATED one palette per instance,
// blended for its own clip time by skin_palette.comp before the frame's first draw (instance i
// from texel i * jointCount * 3). A mat3x4 holds the three rows as its columns, so
// vec4(p, 1) * rows is the skinned point, and rows blend linearly as the matrices do.
layout(location = MYRIAD_LOCATION_JOINTS) in uvec4 a_joints;
layout(location = MYRIAD_LOCATION_WEIGHTS) in vec4 a_weights;
layout(binding = MYRIAD_UNIT_SKIN) uniform samplerBuffer u_skin;
#ifdef MYRIAD_SKIN_ANIMATED
uniform int u_jointCount;
#endif

mat3x4 myriad_skin() {
#ifdef MYRIAD_SKIN_ANIMATED
    int palette = myriad_instanceIndex() * u_jointCount * 3;
#else
    int palette = 0;
#endif
    mat3x4 rows = mat3x4(0.0);
    for (int k = 0; k < 4; ++k) {
        float weight = a_weights[k];
        if (weight > 0.0) {
            int texel = palette + int(a_joints[k]) * 3;
            rows += weight * mat3x4(texelFetch(u_skin, texel), texelFetch(u_skin, texel + 1), texelFetch(u_skin, texel + 2));
        }
    }
    return rows;
}
#endif

out vec3 v_normal;            // world space, not normalised
#ifdef MYRIAD_MATERIAL_TEXTURES
// A mesh without uv1 leaves its attribute disabled, which reads the context's current value
// (whatever a game set): u_textureSlots.z says whether the mesh has one, and (0, 0) is used if not.
layout(location = MYRIAD_LOCATION_UV1) in vec2 a_uv1;
uniform ivec3 u_textureSlots;  // x: slots with a texture, y: slots reading uv1, z: coordinate flags
const int MYRIAD_LIGHTMAP_FROM_VERTEX_COLOR = 1;  // MaterialTextures::kLightmapFromVertexColor
const int MYRIAD_MESH_HAS_UV1 = 2;                // MaterialTextures::kMeshHasUv1
out vec2 v_uv1;
out vec2 v_vertexColorUv;  // the vertex colour's red and green (surface.frag's lightmap, when it reads there)
#endif
#ifdef MYRIAD_TANGENT_FRAME
layout(location = MYRIAD_LOCATION_TANGENT) in vec4 a_tangent;  // model space xyz, handedness w
out vec4 v_tangent;  // world space xyz (not normalised), the mesh's handedness w
#endif
out vec2 v_uv0;
out vec4 v_color;             // vertex colour * instance colour, linear
out vec3 v_relativePosition;  // world position minus the eye
flat out float v_handedness;  // +1, or -1 for a mirrored (negative determinant) transform
// The instance's index in its batch, flat. The fragment stage reads the shader-data lanes by
// it (docs/lanes.md): up to eight vec4 would take half the 64 output components GL 4.5
// guarantees (GL_MAX_VERTEX_OUTPUT_COMPONENTS) as varyings, and a fetch per fragment costs
// only the fragments of surfaces that read them (unread lanes are never fetched).
flat out int v_instanceIndex;
#ifdef MYRIAD_LOD_FADE
flat out uint v_lodFade;  // the entry's top byte (lodFadeEntry(), myriad/core/Lod.h)
#endif

#ifdef MYRIAD_VELOCITY
uniform mat4 u_prevViewProjection;  // the view's previous, relative to the previous eye
uniform mat4 u_prevModel;           // the node's previous world matrix minus the previous eye
#ifdef MYRIAD_INSTANCED
// The batch's records as its previous frame drew them, 4 texels a record, by instance index
// (renderer/GpuResources.h PreviousRecords: moved along with release()'s swap-removes).
layout(binding = MYRIAD_UNIT_PREVIOUS_RECORD) uniform samplerBuffer u_prevRecords;
#endif
out vec4 v_currentClip;   // divided per fragment: the window positions are exact at every pixel
out vec4 v_previousClip;
#endif

// Normals transform by the cofactor of the 3x3 part (det * inverse transpose): exact under
// non-uniform scale with no per-vertex inverse. Its sign is flipped for mirrored (det < 0)
// matrices so the normal keeps pointing out of the surface.
vec3 transformNormal(mat3 m, vec3 n) {
    mat3 cofactor = mat3(cross(m[1], m[2]), cross(m[2], m[0]), cross(m[0], m[1]));
    return cofactor * n * sign(determinant(m));
}

#ifdef MYRIAD_USER_VERTEX
// The user's vertex function (SurfaceShader::vertexSource(), docs/shaders.md "Vertex
// functions"): what it receives, what it returns, and the helpers it may call.
uniform vec3 u_eye;    // world position of the eye (float; shared with surface.frag)
uniform float u_time;  // Scene::time, seconds
#ifdef MYRIAD_VELOCITY
uniform vec3 u_prevEye;     // the previous frame's eye, for its world positions
uniform float u_prevTime;   // the Scene::time the previous frame was drawn with
#endif

// Lane `lane` of this vertex's instance or node, as surface.frag's myriad_lane() reads it.
#if defined(MYRIAD_INSTANCE_LANES)
layout(binding = MYRIAD_UNIT_LANES) uniform samplerBuffer myriad_lanes;
uniform int myriad_lanes_vectors;
vec4 myriad_lane(int lane) {
    return lane < myriad_lanes_vectors ? texelFetch(myriad_lanes, myriad_instanceIndex() * myriad_lanes_vectors + lane)
                                       : vec4(0.0);
}
#elif defined(MYRIAD_TABLED)
vec4 myriad_lane(int lane) {
    return lane < 4 ? uintBitsToFloat(texelFetch(u_drawTable, int(a_draw.x) * MYRIAD_DRAW_ROW_TEXELS + MYRIAD_DRAW_ROW_LANES + lane))
                    : vec4(0.0);
}
#else
uniform vec4 u_lanes[4];  // a MeshNode's shader data, or zeros
vec4 myriad_lane(int lane) { return lane < 4 ? u_lanes[lane] : vec4(0.0); }
#endif

// What a vertex function receives.
struct VertexInput {
    vec3 position;       // object space (the mesh's model space), after morph targets and skin
    vec3 normal;         // object space, after morph targets and skin, not normalised
    vec3 worldPosition;  // world space (float): where the built-in stage would draw it
    vec3 worldNormal;    // world space, unit length
    vec2 uv;             // first texture coordinate set
    vec4 color;          // vertex colour * instance colour, linear
    int instanceIndex;   // index of the instance in its batch; 0 for a MeshNode
    vec4 lanes[MYRIAD_MAX_LANES];  // shader data, as SurfaceInput.lanes
    // The instance's record: rows 0..2 of its node-from-instance matrix (coordinate k of the
    // point in node space is dot(record[k], vec4(p, 1))), then its colour (linear RGBA).
    // A MeshNode's: the identity rows and (1, 1, 1, 1).
    vec4 record[4];
    float time;          // Scene::time, seconds
};

// What a vertex function returns: where the vertex is drawn, world space. The stage adds
// (worldPosition - input.worldPosition) to its camera-relative position, so a vertex left
// where it was stays exact far from the origin.
struct VertexOutput {
    vec3 worldPosition;
    vec3 worldNormal;  // any length (normalised per fragment)
};

// The transform of the call in progress (the current frame's, or the previous frame's for
// motion vectors): the camera-relative node matrix, the eye and the record's rows.
// (Initialised, so the compiler does not warn in the helpers that read them.)
mat4 myriad_vertexModel = mat4(1.0);
vec3 myriad_vertexEye = vec3(0.0);
vec4 myriad_vertexRecord[3] = vec4[3](vec4(1.0, 0.0, 0.0, 0.0), vec4(0.0, 1.0, 0.0, 0.0), vec4(0.0, 0.0, 1.0, 0.0));

// An object-space point to world space, through the record and the node matrix, as the
// built-in stage transforms v.position: myriad_objectToWorld(v.position) == v.worldPosition.
vec3 myriad_objectToWorld(vec3 p) {
    vec4 q = vec4(p, 1.0);
    vec3 nodePoint = vec3(dot(myriad_vertexRecord[0], q), dot(myriad_vertexRecord[1], q), dot(myriad_vertexRecord[2], q));
    return (myriad_vertexModel * vec4(nodePoint, 1.0)).xyz + myriad_vertexEye;
}

// An object-space normal to world space, unit length (the cofactor rule, as the built-in).
vec3 myriad_objectNormalToWorld(vec3 n) {
    mat3 linear = mat3(myriad_vertexModel) *
                  transpose(mat3(myriad_vertexRecord[0].xyz, myriad_vertexRecord[1].xyz, myriad_vertexRecord[2].xyz));
    return normalize(transformNormal(linear, n));
}

// MYRIAD_VERTEX_FUNCTION

// Runs vertex() for a vertex whose camera-relative position is @p relative (moved in place)
// under the transform in myriad_vertexModel/Eye/Record; returns its world normal.
vec3 myriad_runVertex(vec3 position, vec3 normal, inout vec3 relative, vec4 color, vec4 instanceColor, float time) {
    VertexInput v;
    v.position = position;
    v.normal = normal;
    v.worldPosition = relative + myriad_vertexEye;
    v.worldNormal = myriad_objectNormalToWorld(normal);
    v.uv = a_uv0;
    v.color = color;
    v.instanceIndex = myriad_instanceIndex();
    for (int lane = 0; lane < MYRIAD_MAX_LANES; ++lane) {
        v.lanes[lane] = myriad_lane(lane);  // the compiler drops the fetches a function never reads
    }
    v.record[0] = myriad_vertexRecord[0];
    v.record[1] = myriad_vertexRecord[1];
    v.record[2] = myriad_vertexRecord[2];
    v.record[3] = instanceColor;
    v.time = time;
    VertexOutput o = vertex(v);
    relative += o.worldPosition - v.worldPosition;
    return o.worldNormal;
}
#endif

void main() {
#ifdef MYRIAD_TABLED
    vec4 row0 = myriad_drawRow(0);
    vec4 row1 = myriad_drawRow(1);
    vec4 row2 = myriad_drawRow(2);
    // (high - eye high) + (low - eye low), in that order: precise keeps the compiler from
    // reassociating it into (high + low) - eye, which would lose the low halves.
    precise vec3 highPart = vec3(row0.w, row1.w, row2.w) - u_eyeHigh;
    precise vec3 lowPart = myriad_drawRow(3).xyz - u_eyeLow;
    precise vec3 translation = highPart + lowPart;
    mat4 model = mat4(vec4(row0.x, row1.x, row2.x, 0.0), vec4(row0.y, row1.y, row2.y, 0.0),
                      vec4(row0.z, row1.z, row2.z, 0.0), vec4(translation, 1.0));
    v_drawTint = myriad_drawRow(4);
    v_drawBaseColor = myriad_drawRow(5);
    v_drawMaterial = myriad_drawRow(6);
    uvec4 shading = texelFetch(u_drawTable, int(a_draw.x) * MYRIAD_DRAW_ROW_TEXELS + MYRIAD_DRAW_ROW_SHADING);
    v_drawShading = uintBitsToFloat(shading.xy);
    v_drawLightChannels = shading.z;
    v_drawEmissive = myriad_drawRow(MYRIAD_DRAW_ROW_SHADING + 1).xyz;
    v_drawRow = int(a_draw.x);
#else
    mat4 model = u_model;
#endif
    vec3 position = a_position;
    vec3 normal = a_normal;
#ifdef MYRIAD_MORPH
    morph(position, normal);
#endif
#ifdef MYRIAD_SKIN
    // The normal by the blended 3x3: exact for rotations and uniform scale, which is what
    // joints carry (a joint's non-uniform scale bends normals a little; docs/skinning.md).
    mat3x4 skin = myriad_skin();
    position = vec4(position, 1.0) * skin;
    normal = vec4(normal, 0.0) * skin;
#endif
    vec4 color = a_color;
#ifdef MYRIAD_MATERIAL_TEXTURES
    vec2 uv1 = (u_textureSlots.z & MYRIAD_MESH_HAS_UV1) != 0 ? a_uv1 : vec2(0.0);
    v_vertexColorUv = a_color.rg;
    if ((u_textureSlots.z & MYRIAD_LIGHTMAP_FROM_VERTEX_COLOR) != 0) {
        // The design card's lightmapped convention: the vertex colour is the place in the
        // lightmap, not a colour (Material::lightmapCoordinates).
        color = vec4(1.0);
    }
#endif
#ifdef MYRIAD_INSTANCED
    vec4 p = vec4(position, 1.0);
    vec3 nodePosition = vec3(dot(myriad_record_0, p), dot(myriad_record_1, p), dot(myriad_record_2, p));
    // GLSL's mat3 constructor takes columns; the record stores rows, hence the transpose.
    mat3 linear = mat3(model) * transpose(mat3(myriad_record_0.xyz, myriad_record_1.xyz, myriad_record_2.xyz));
    color *= myriad_record_3;
#else
    vec3 nodePosition = position;
    mat3 linear = mat3(model);
#endif
    vec4 relative = model * vec4(nodePosition, 1.0);
#ifdef MYRIAD_USER_VERTEX
    myriad_vertexModel = model;
    myriad_vertexEye = u_eye;
#ifdef MYRIAD_INSTANCED
    myriad_vertexRecord = vec4[3](myriad_record_0, myriad_record_1, myriad_record_2);
    vec4 instanceColor = myriad_record_3;
#else
    myriad_vertexRecord = vec4[3](vec4(1.0, 0.0, 0.0, 0.0), vec4(0.0, 1.0, 0.0, 0.0), vec4(0.0, 0.0, 1.0, 0.0));
    vec4 instanceColor = vec4(1.0);
#endif
    vec3 vertexRelative = relative.xyz;
    v_normal = myriad_runVertex(position, normal, vertexRelative, color, instanceColor, u_time);
    relative.xyz = vertexRelative;
#else
    v_normal = transformNormal(linear, normal);
#endif
    gl_Position = u_viewProjection * relative;
    v_relativePosition = relative.xyz;
    v_handedness = determinant(linear) < 0.0 ? -1.0 : 1.0;
    v_uv0 = a_uv0;
#ifdef MYRIAD_MATERIAL_TEXTURES
    v_uv1 = uv1;
#endif
#ifdef MYRIAD_TANGENT_FRAME
    // A tangent is a direction along the surface: it transforms by the linear part itself
    // (skinned by the blended rows, as the normal; morph targets leave it as it is).
    vec3 tangent = a_tangent.xyz;
#ifdef MYRIAD_SKIN
    tangent = vec4(tangent, 0.0) * skin;
#endif
    v_tangent = vec4(linear * tangent, a_tangent.w);
#endif
    v_color = color;
    v_instanceIndex = myriad_instanceIndex();
#ifdef MYRIAD_LOD_FADE
    v_lodFade = myriad_listEntry() >> 24u;
#endif
#ifdef MYRIAD_VELOCITY
    // The same vertex (morphed and skinned as now: a pose's own motion is not tracked) under the
    // previous frame's record, node matrix and view.
#ifdef MYRIAD_INSTANCED
    int previous = myriad_instanceIndex() * 4;
    vec3 prevNodePosition = vec3(dot(texelFetch(u_prevRecords, previous), p), dot(texelFetch(u_prevRecords, previous + 1), p),
                                 dot(texelFetch(u_prevRecords, previous + 2), p));
#else
    vec3 prevNodePosition = position;
#endif
    v_currentClip = gl_Position;
    vec4 prevRelative = u_prevModel * vec4(prevNodePosition, 1.0);
#ifdef MYRIAD_USER_VERTEX
    // The same vertex function under the previous transform and time (lanes as now).
    myriad_vertexModel = u_prevModel;
    myriad_vertexEye = u_prevEye;
#ifdef MYRIAD_INSTANCED
    myriad_vertexRecord = vec4[3](texelFetch(u_prevRecords, previous), texelFetch(u_prevRecords, previous + 1),
                                  texelFetch(u_prevRecords, previous + 2));
#endif
    vec3 prevVertexRelative = prevRelative.xyz;
    myriad_runVertex(position, normal, prevVertexRelative, color, instanceColor, u_prevTime);
    prevRelative.xyz = prevVertexRelative;
#endif
    v_previousClip = u_prevViewProjection * prevRelative;
#endif
}
