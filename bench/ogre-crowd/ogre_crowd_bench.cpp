// ogre_crowd_bench: a crowd of skinned, animated glTF foxes drawn with Ogre 1.12's
// skeletal instancing techniques on the GL3Plus render system (llvmpipe under Xvfb here),
// plus a naive "one Entity + one SceneNode per fox" mode. It is the Ogre side of a
// comparison with myriad's instanced skinning; see README.md for the scene definition.
//
// Written for this comparison with Ogre's public API only; its frame loop, phase timer and
// RESULT line follow ../shared/peers/ogre/ogre_inst_bench.cpp (ours too).
//
// Modes (--mode):
//   hwvtf      InstanceManager::HWInstancingVTF (InstanceBatchHW_VTF): one instanced draw per
//              batch; every frame Ogre evaluates each visible instance's skeleton on the CPU and
//              writes its bone matrices (already multiplied by the instance's world matrix) into
//              a float RGBA vertex texture; the shader fetches them (VTF).
//   hwvtf-lut  the same with IM_VTFBONEMATRIXLOOKUP: at most --lut-size distinct animation
//              states per batch, shared by the instances (instance k of a batch uses the
//              skeleton of instance k mod lut-size); the texture then holds bone matrices in
//              model space and each instance's own world matrix travels in the instance buffer.
//   vtf        InstanceManager::TextureVTF (InstanceBatchVTF): no hardware instancing; the mesh
//              is replicated instances-per-batch times in one vertex buffer, each copy carrying
//              the texture coordinates of its own bone matrices; same per-frame texture upload.
//   naive      N ordinary skinned Entities, each on its own SceneNode, hardware skinning in our
//              vertex shader (bone matrices as a uniform array, one draw call each).
//
// Output: a human-readable block and one machine-readable line starting "RESULT".

#include <Ogre.h>
#include <OgreInstanceManager.h>
#include <OgreInstanceBatch.h>
#include <OgreInstancedEntity.h>
#include <OgreHighLevelGpuProgramManager.h>
#include <OgreRenderTexture.h>
#include <OgreHardwarePixelBuffer.h>
#include <OgreSkeletonManager.h>
#include <OgreTagPoint.h>

#define TINYGLTF_IMPLEMENTATION
#define TINYGLTF_NO_STB_IMAGE
#define TINYGLTF_NO_STB_IMAGE_WRITE
#define TINYGLTF_NO_EXTERNAL_IMAGE
#include <tiny_gltf.h>

#include <GL/gl.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#ifndef BENCH_OGRE_PLUGIN_DIR
#define BENCH_OGRE_PLUGIN_DIR "/usr/lib/x86_64-linux-gnu/OGRE"
#endif

using Clock = std::chrono::steady_clock;

namespace {

struct Options {
    std::string mode = "hwvtf";  // hwvtf | hwvtf-lut | vtf | naive
    size_t n = 1000;
    int width = 256, height = 256;
    int warmup = 5, frames = 30;
    size_t perBatch = 0;         // 0 = auto
    size_t lutSize = 16;
    bool oneWeight = false;
    float zoom = 1.0f;
    std::string model = "/work/shared/assets/gltf/Fox/Fox.glb";
    std::string shot;
    bool verbose = false;
};

void usage(FILE* f) {
    std::fprintf(f,
        "usage: ogre_crowd_bench [options]\n"
        "  --mode M        hwvtf | hwvtf-lut | vtf | naive (default hwvtf)\n"
        "                    hwvtf     InstanceManager::HWInstancingVTF, each instance its own animation\n"
        "                    hwvtf-lut HWInstancingVTF + IM_VTFBONEMATRIXLOOKUP: instances share --lut-size\n"
        "                              animation states per batch (bone matrix lookup table)\n"
        "                    vtf       InstanceManager::TextureVTF (mesh replicated per instance, no HW instancing)\n"
        "                    naive     one skinned Entity + one SceneNode per fox (hardware skinning)\n"
        "  -n, --n N       number of foxes (default 1000)\n"
        "  --res S         square render target SxS (default 256)\n"
        "  --size WxH      render target size (default 256x256)\n"
        "  --warmup W      untimed frames first (default 5)\n"
        "  --frames F      timed frames (default 30)\n"
        "  --per-batch P   instances per batch, 0 = auto: hwvtf* min(N, Ogre's maximum), vtf min(N, 512)\n"
        "                  (default 0)\n"
        "  --lut-size L    hwvtf-lut: distinct animation states per batch (default 16)\n"
        "  --one-weight    IM_FORCEONEWEIGHT: one bone per vertex (the heaviest) instead of 4 (default off)\n"
        "  --model PATH    glTF/GLB file (default /work/shared/assets/gltf/Fox/Fox.glb)\n"
        "  --zoom Z        camera Z times closer to the grid centre than the fitting distance (default 1)\n"
        "  --shot OUT.png  write the last frame to a PNG (default: none)\n"
        "  --verbose       Ogre log to stdout as well as to ogre_crowd_bench.log (default off)\n"
        "  -h, --help      this text\n");
}

bool parseArgs(int argc, char** argv, Options& o) {
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto next = [&](const char* what) -> const char* {
            if (i + 1 >= argc) { std::fprintf(stderr, "ogre_crowd_bench: missing value for %s\n", what); std::exit(2); }
            return argv[++i];
        };
        if (a == "--mode") o.mode = next("--mode");
        else if (a == "-n" || a == "--n") o.n = std::strtoull(next("-n"), nullptr, 10);
        else if (a == "--res") { o.width = o.height = std::atoi(next("--res")); }
        else if (a == "--size") {
            const char* s = next("--size");
            if (std::sscanf(s, "%dx%d", &o.width, &o.height) != 2) {
                std::fprintf(stderr, "ogre_crowd_bench: --size takes WxH, got %s\n", s);
                return false;
            }
        }
        else if (a == "--warmup") o.warmup = std::atoi(next("--warmup"));
        else if (a == "--frames") o.frames = std::atoi(next("--frames"));
        else if (a == "--per-batch") o.perBatch = std::strtoull(next("--per-batch"), nullptr, 10);
        else if (a == "--lut-size") o.lutSize = std::strtoull(next("--lut-size"), nullptr, 10);
        else if (a == "--one-weight") o.oneWeight = true;
        else if (a == "--model") o.model = next("--model");
        else if (a == "--zoom") o.zoom = float(std::atof(next("--zoom")));
        else if (a == "--shot") o.shot = next("--shot");
        else if (a == "--verbose") o.verbose = true;
        else if (a == "-h" || a == "--help") { usage(stdout); std::exit(0); }
        else { std::fprintf(stderr, "ogre_crowd_bench: unknown argument '%s'\n", a.c_str()); usage(stderr); return false; }
    }
    if (o.mode == "vtf-lut") {
        // Tried: TextureVTF + IM_VTFBONEMATRIXLOOKUP builds and draws, but every instance keeps its
        // own animation state: InstanceManager::buildNewBatch calls setBoneMatrixLookup only for
        // HWInstancingVTF (OgreMain/src/OgreInstanceManager.cpp), as OgreInstanceBatchVTF.h says.
        std::fprintf(stderr, "ogre_crowd_bench: --mode vtf-lut: Ogre 1.12 applies the bone matrix lookup "
                             "(IM_VTFBONEMATRIXLOOKUP) only to HWInstancingVTF; use --mode hwvtf-lut\n");
        return false;
    }
    if (o.mode != "hwvtf" && o.mode != "hwvtf-lut" && o.mode != "vtf" && o.mode != "naive") {
        std::fprintf(stderr, "ogre_crowd_bench: unknown --mode '%s'\n", o.mode.c_str());
        return false;
    }
    if (o.n == 0 || o.width <= 0 || o.height <= 0 || o.frames <= 0 || o.warmup < 0 || o.lutSize == 0 ||
        !(o.zoom > 0.0f)) {
        std::fprintf(stderr, "ogre_crowd_bench: N, sizes, frames, lut size and zoom must be positive\n");
        return false;
    }
    return true;
}

// ---------------------------------------------------------------------------
// glTF: the skinned mesh, skeleton and clips, read with tinygltf.

struct GltfJoint {
    std::string name;
    int node = -1;
    int parent = -1;                 // index into joints, -1 = root joint
    Ogre::Vector3 t = Ogre::Vector3::ZERO, s = Ogre::Vector3::UNIT_SCALE;
    Ogre::Quaternion r = Ogre::Quaternion::IDENTITY;
    Ogre::Matrix4 inverseBind = Ogre::Matrix4::IDENTITY;
};

struct GltfChannelData {
    std::vector<float> times;
    std::vector<float> values;       // 3 or 4 per key
    int comps = 3;
};

struct GltfClip {
    std::string name;
    float duration = 0.0f;
    // per joint: translation, rotation, scale channels (empty = rest value)
    std::vector<GltfChannelData> t, r, s;
};

struct GltfCrowdModel {
    std::vector<Ogre::Vector3> positions, normals;
    std::vector<std::array<uint16_t, 4>> joints;
    std::vector<std::array<float, 4>> weights;
    std::vector<uint32_t> indices;
    std::vector<GltfJoint> skel;
    std::vector<GltfClip> clips;
    Ogre::Matrix4 rootAncestors = Ogre::Matrix4::IDENTITY;  // non-joint ancestors of the root joint(s)
};

const unsigned char* accessorData(const tinygltf::Model& m, int accIdx, size_t& stride) {
    const tinygltf::Accessor& acc = m.accessors.at(accIdx);
    const tinygltf::BufferView& bv = m.bufferViews.at(acc.bufferView);
    stride = acc.ByteStride(bv);
    return m.buffers.at(bv.buffer).data.data() + bv.byteOffset + acc.byteOffset;
}

// Reads accessor element i, component c as float (normalised integers as glTF defines them).
float readComp(const tinygltf::Model& m, int accIdx, size_t i, int c) {
    size_t stride = 0;
    const unsigned char* p = accessorData(m, accIdx, stride);
    const tinygltf::Accessor& acc = m.accessors[accIdx];
    p += i * stride;
    switch (acc.componentType) {
    case TINYGLTF_COMPONENT_TYPE_FLOAT: { float v; std::memcpy(&v, p + 4 * c, 4); return v; }
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: { float v = p[c]; return acc.normalized ? v / 255.0f : v; }
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: {
        uint16_t v; std::memcpy(&v, p + 2 * c, 2); return acc.normalized ? v / 65535.0f : float(v); }
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT: { uint32_t v; std::memcpy(&v, p + 4 * c, 4); return float(v); }
    default: throw std::runtime_error("unsupported accessor component type");
    }
}

Ogre::Matrix4 nodeLocal(const tinygltf::Node& n) {
    if (n.matrix.size() == 16) {
        Ogre::Matrix4 mm;
        for (int r = 0; r < 4; ++r)
            for (int c = 0; c < 4; ++c) mm[r][c] = Ogre::Real(n.matrix[c * 4 + r]);  // column-major
        return mm;
    }
    Ogre::Vector3 t = n.translation.size() == 3 ? Ogre::Vector3(n.translation[0], n.translation[1], n.translation[2])
                                                : Ogre::Vector3::ZERO;
    Ogre::Quaternion r = n.rotation.size() == 4
        ? Ogre::Quaternion(n.rotation[3], n.rotation[0], n.rotation[1], n.rotation[2])
        : Ogre::Quaternion::IDENTITY;
    Ogre::Vector3 s = n.scale.size() == 3 ? Ogre::Vector3(n.scale[0], n.scale[1], n.scale[2]) : Ogre::Vector3::UNIT_SCALE;
    Ogre::Matrix4 mm;
    mm.makeTransform(t, s, r);
    return mm;
}

bool noImageLoader(tinygltf::Image*, const int, std::string*, std::string*, int, int, const unsigned char*, int,
                   void*) {
    return true;  // textures are not used
}

GltfCrowdModel loadGltf(const std::string& path) {
    tinygltf::Model m;
    tinygltf::TinyGLTF loader;
    loader.SetImageLoader(noImageLoader, nullptr);
    std::string err, warn;
    const bool binary = path.size() > 4 && path.substr(path.size() - 4) == ".glb";
    const bool ok = binary ? loader.LoadBinaryFromFile(&m, &err, &warn, path)
                           : loader.LoadASCIIFromFile(&m, &err, &warn, path);
    if (!ok) throw std::runtime_error("cannot read " + path + ": " + err);
    if (m.skins.empty()) throw std::runtime_error(path + " has no skin");

    // the first node with a skinned mesh
    int meshNode = -1;
    for (size_t i = 0; i < m.nodes.size(); ++i)
        if (m.nodes[i].mesh >= 0 && m.nodes[i].skin >= 0) { meshNode = int(i); break; }
    if (meshNode < 0) throw std::runtime_error(path + " has no skinned mesh node");
    const tinygltf::Skin& skin = m.skins[m.nodes[meshNode].skin];
    const tinygltf::Mesh& mesh = m.meshes[m.nodes[meshNode].mesh];
    if (mesh.primitives.size() != 1) throw std::runtime_error("expected one primitive");
    const tinygltf::Primitive& prim = mesh.primitives[0];
    if (prim.mode != TINYGLTF_MODE_TRIANGLES) throw std::runtime_error("expected a triangle list");

    GltfCrowdModel out;
    auto attr = [&](const char* name) {
        auto it = prim.attributes.find(name);
        if (it == prim.attributes.end()) throw std::runtime_error(std::string("missing attribute ") + name);
        return it->second;
    };
    const int aPos = attr("POSITION"), aJ = attr("JOINTS_0"), aW = attr("WEIGHTS_0");
    const size_t nv = m.accessors[aPos].count;
    out.positions.resize(nv);
    out.joints.resize(nv);
    out.weights.resize(nv);
    for (size_t v = 0; v < nv; ++v) {
        out.positions[v] = Ogre::Vector3(readComp(m, aPos, v, 0), readComp(m, aPos, v, 1), readComp(m, aPos, v, 2));
        for (int c = 0; c < 4; ++c) {
            out.joints[v][c] = uint16_t(readComp(m, aJ, v, c));
            out.weights[v][c] = readComp(m, aW, v, c);
        }
    }
    if (prim.indices >= 0) {
        const size_t ni = m.accessors[prim.indices].count;
        out.indices.resize(ni);
        for (size_t i = 0; i < ni; ++i) out.indices[i] = uint32_t(readComp(m, prim.indices, i, 0));
    } else {
        out.indices.resize(nv);
        for (size_t i = 0; i < nv; ++i) out.indices[i] = uint32_t(i);
    }

    // Smooth, area-weighted normals: vertices at the same position (the mesh is non-indexed, so
    // every triangle has its own three) are welded; each gets the sum of the unnormalised face
    // normals (cross products, |cross| = 2 x area) of the triangles that touch that position.
    {
        struct Key { float x, y, z; bool operator==(const Key& k) const { return x == k.x && y == k.y && z == k.z; } };
        struct KeyHash { size_t operator()(const Key& k) const {
            uint32_t a, b, c; std::memcpy(&a, &k.x, 4); std::memcpy(&b, &k.y, 4); std::memcpy(&c, &k.z, 4);
            return size_t(a) * 73856093u ^ size_t(b) * 19349663u ^ size_t(c) * 83492791u; } };
        std::unordered_map<Key, size_t, KeyHash> weld;
        std::vector<size_t> group(nv);
        std::vector<Ogre::Vector3> acc;
        for (size_t v = 0; v < nv; ++v) {
            Key k{out.positions[v].x, out.positions[v].y, out.positions[v].z};
            auto it = weld.find(k);
            if (it == weld.end()) { it = weld.emplace(k, acc.size()).first; acc.push_back(Ogre::Vector3::ZERO); }
            group[v] = it->second;
        }
        for (size_t t = 0; t + 2 < out.indices.size(); t += 3) {
            const uint32_t i0 = out.indices[t], i1 = out.indices[t + 1], i2 = out.indices[t + 2];
            const Ogre::Vector3 fn = (out.positions[i1] - out.positions[i0]).crossProduct(out.positions[i2] - out.positions[i0]);
            acc[group[i0]] += fn; acc[group[i1]] += fn; acc[group[i2]] += fn;
        }
        out.normals.resize(nv);
        for (size_t v = 0; v < nv; ++v) {
            Ogre::Vector3 nrm = acc[group[v]];
            out.normals[v] = nrm.squaredLength() > 0 ? nrm.normalisedCopy() : Ogre::Vector3::UNIT_Y;
        }
    }

    // Skeleton: one joint per skin joint, parents from the node tree.
    std::vector<int> nodeParent(m.nodes.size(), -1);
    for (size_t i = 0; i < m.nodes.size(); ++i)
        for (int c : m.nodes[i].children) nodeParent[c] = int(i);
    std::map<int, int> nodeToJoint;
    for (size_t j = 0; j < skin.joints.size(); ++j) nodeToJoint[skin.joints[j]] = int(j);
    out.skel.resize(skin.joints.size());
    for (size_t j = 0; j < skin.joints.size(); ++j) {
        GltfJoint& gj = out.skel[j];
        const tinygltf::Node& n = m.nodes[skin.joints[j]];
        gj.node = skin.joints[j];
        gj.name = n.name.empty() ? "joint" + std::to_string(j) : n.name;
        Ogre::Matrix4 local = nodeLocal(n);
        Ogre::Affine3(local).decomposition(gj.t, gj.s, gj.r);
        int p = nodeParent[gj.node];
        gj.parent = -1;
        while (p >= 0) {
            auto it = nodeToJoint.find(p);
            if (it != nodeToJoint.end()) { gj.parent = it->second; break; }
            p = nodeParent[p];
        }
        if (gj.parent < 0) {
            // transforms of the non-joint ancestors of a root joint are baked into it
            Ogre::Matrix4 anc = Ogre::Matrix4::IDENTITY;
            for (int q = nodeParent[gj.node]; q >= 0; q = nodeParent[q]) anc = nodeLocal(m.nodes[q]) * anc;
            out.rootAncestors = anc;
        }
        if (skin.inverseBindMatrices >= 0) {
            for (int r = 0; r < 4; ++r)
                for (int c = 0; c < 4; ++c)
                    gj.inverseBind[r][c] = readComp(m, skin.inverseBindMatrices, j, c * 4 + r);  // column-major
        }
    }
    // Parents must come before children for Ogre's bone creation order: glTF does not promise it.
    // (Bones are created in joint order and parented afterwards, so any order works.)

    // Clips.
    for (const tinygltf::Animation& a : m.animations) {
        GltfClip clip;
        clip.name = a.name;
        clip.t.resize(out.skel.size());
        clip.r.resize(out.skel.size());
        clip.s.resize(out.skel.size());
        for (const tinygltf::AnimationChannel& ch : a.channels) {
            auto it = nodeToJoint.find(ch.target_node);
            if (it == nodeToJoint.end()) continue;
            const tinygltf::AnimationSampler& sm = a.samplers[ch.sampler];
            if (!sm.interpolation.empty() && sm.interpolation != "LINEAR")
                throw std::runtime_error("only LINEAR samplers are supported (" + a.name + ")");
            GltfChannelData cd;
            cd.comps = ch.target_path == "rotation" ? 4 : 3;
            if (ch.target_path == "weights") continue;
            const size_t nk = m.accessors[sm.input].count;
            cd.times.resize(nk);
            cd.values.resize(nk * cd.comps);
            for (size_t k = 0; k < nk; ++k) {
                cd.times[k] = readComp(m, sm.input, k, 0);
                clip.duration = std::max(clip.duration, cd.times[k]);
                for (int c = 0; c < cd.comps; ++c) cd.values[k * cd.comps + c] = readComp(m, sm.output, k, c);
            }
            if (ch.target_path == "translation") clip.t[it->second] = std::move(cd);
            else if (ch.target_path == "rotation") clip.r[it->second] = std::move(cd);
            else if (ch.target_path == "scale") clip.s[it->second] = std::move(cd);
        }
        out.clips.push_back(std::move(clip));
    }
    return out;
}

// Linear sampling of a channel at time t (clamped), slerp for rotations.
Ogre::Vector3 sampleVec3(const GltfChannelData& cd, float t, const Ogre::Vector3& rest) {
    if (cd.times.empty()) return rest;
    auto at = [&](size_t k) { return Ogre::Vector3(cd.values[3 * k], cd.values[3 * k + 1], cd.values[3 * k + 2]); };
    if (t <= cd.times.front()) return at(0);
    if (t >= cd.times.back()) return at(cd.times.size() - 1);
    const size_t k = size_t(std::upper_bound(cd.times.begin(), cd.times.end(), t) - cd.times.begin()) - 1;
    const float u = (t - cd.times[k]) / (cd.times[k + 1] - cd.times[k]);
    return at(k) + (at(k + 1) - at(k)) * u;
}

Ogre::Quaternion sampleQuat(const GltfChannelData& cd, float t, const Ogre::Quaternion& rest) {
    if (cd.times.empty()) return rest;
    auto at = [&](size_t k) {
        return Ogre::Quaternion(cd.values[4 * k + 3], cd.values[4 * k], cd.values[4 * k + 1], cd.values[4 * k + 2]);
    };
    if (t <= cd.times.front()) return at(0);
    if (t >= cd.times.back()) return at(cd.times.size() - 1);
    const size_t k = size_t(std::upper_bound(cd.times.begin(), cd.times.end(), t) - cd.times.begin()) - 1;
    const float u = (t - cd.times[k]) / (cd.times[k + 1] - cd.times[k]);
    Ogre::Quaternion q = Ogre::Quaternion::Slerp(u, at(k), at(k + 1), true);
    q.normalise();
    return q;
}

// ---------------------------------------------------------------------------
// Ogre resources: skeleton (bones, bind pose, one Animation per clip) and mesh.

struct BuiltModel {
    size_t weightsPerVertex = 0;   // after Ogre compiled the bone assignments
    size_t blendIndices = 0;       // bones referenced by the submesh (blendIndexToBoneIndexMap)
    double maxInverseBindError = 0;
    std::map<std::string, float> clipLength;
    float boundingRadius = 0;
};

BuiltModel buildOgreModel(const GltfCrowdModel& g, bool oneWeightLog) {
    using namespace Ogre;
    (void)oneWeightLog;
    BuiltModel bm;

    // Root joint: bake the non-joint ancestors' transform (uniform scale assumed) into it.
    Vector3 ancT, ancS;
    Quaternion ancR;
    Affine3(g.rootAncestors).decomposition(ancT, ancS, ancR);
    if (std::fabs(ancS.x - ancS.y) > 1e-4f || std::fabs(ancS.x - ancS.z) > 1e-4f)
        throw std::runtime_error("non-uniform scale above the root joint is not supported");
    const float ancScale = ancS.x;

    SkeletonPtr skel = SkeletonManager::getSingleton().create("crowd/skeleton", RGN_DEFAULT, true);
    std::vector<Bone*> bones(g.skel.size());
    for (size_t j = 0; j < g.skel.size(); ++j) bones[j] = skel->createBone(g.skel[j].name, ushort(j));
    std::vector<Vector3> restT(g.skel.size());
    std::vector<Quaternion> restR(g.skel.size());
    std::vector<Vector3> restS(g.skel.size());
    for (size_t j = 0; j < g.skel.size(); ++j) {
        const GltfJoint& gj = g.skel[j];
        if (gj.parent >= 0) {
            bones[gj.parent]->addChild(bones[j]);
            restT[j] = gj.t; restR[j] = gj.r; restS[j] = gj.s;
        } else {
            restT[j] = ancT + ancR * (gj.t * ancScale);
            restR[j] = ancR * gj.r;
            restS[j] = gj.s * ancScale;
        }
        bones[j]->setPosition(restT[j]);
        bones[j]->setOrientation(restR[j]);
        bones[j]->setScale(restS[j]);
    }
    skel->setBindingPose();

    // Check: Ogre's inverse bind (inverse of each bone's derived rest transform) against glTF's
    // inverseBindMatrices. They agree when the file's bind pose is its rest pose (true for Fox).
    for (size_t j = 0; j < g.skel.size(); ++j) {
        Matrix4 full;
        full.makeTransform(bones[j]->_getDerivedPosition(), bones[j]->_getDerivedScale(),
                           bones[j]->_getDerivedOrientation());
        const Matrix4 inv = full.inverse();
        for (int r = 0; r < 4; ++r)
            for (int c = 0; c < 4; ++c) {
                const double scale = c == 3 ? 100.0 : 1.0;  // translations are in model units (~100)
                bm.maxInverseBindError =
                    std::max(bm.maxInverseBindError, std::fabs(double(inv[r][c] - g.skel[j].inverseBind[r][c])) / scale);
            }
    }

    // Clips: keyframes at the union of the clip's sampler times; NodeAnimationTrack keyframes are
    // relative to the bone's initial (binding) state: position = initial + translate,
    // orientation = initial * rotate, scale = initial * scale (NodeAnimationTrack::applyToNode).
    for (const GltfClip& c : g.clips) {
        std::set<float> timesSet;
        for (size_t j = 0; j < g.skel.size(); ++j) {
            timesSet.insert(c.t[j].times.begin(), c.t[j].times.end());
            timesSet.insert(c.r[j].times.begin(), c.r[j].times.end());
            timesSet.insert(c.s[j].times.begin(), c.s[j].times.end());
        }
        timesSet.insert(0.0f);
        Animation* anim = skel->createAnimation(c.name, c.duration);
        bm.clipLength[c.name] = c.duration;
        for (size_t j = 0; j < g.skel.size(); ++j) {
            const GltfJoint& gj = g.skel[j];
            if (c.t[j].times.empty() && c.r[j].times.empty() && c.s[j].times.empty()) continue;
            NodeAnimationTrack* track = anim->createNodeTrack(ushort(j), bones[j]);
            for (float t : timesSet) {
                Vector3 T = sampleVec3(c.t[j], t, gj.t);
                Quaternion R = sampleQuat(c.r[j], t, gj.r);
                Vector3 S = sampleVec3(c.s[j], t, gj.s);
                if (gj.parent < 0) {
                    T = ancT + ancR * (T * ancScale);
                    R = ancR * R;
                    S = S * ancScale;
                }
                TransformKeyFrame* kf = track->createNodeKeyFrame(t);
                kf->setTranslate(T - restT[j]);
                kf->setRotation(restR[j].Inverse() * R);
                kf->setScale(S / restS[j]);
            }
        }
    }
    skel->load();

    // Mesh: position + normal (source 0), 32-bit indices, bone assignments -> Ogre compiles
    // them into a second source with blend indices (UBYTE4) and weights (FLOAT1..4).
    MeshPtr mesh = MeshManager::getSingleton().createManual("crowd/fox", RGN_DEFAULT);
    SubMesh* sub = mesh->createSubMesh();
    sub->useSharedVertices = false;
    sub->operationType = RenderOperation::OT_TRIANGLE_LIST;
    sub->vertexData = new VertexData();
    const size_t nv = g.positions.size();
    sub->vertexData->vertexCount = nv;
    VertexDeclaration* decl = sub->vertexData->vertexDeclaration;
    size_t off = 0;
    off += decl->addElement(0, off, VET_FLOAT3, VES_POSITION).getSize();
    off += decl->addElement(0, off, VET_FLOAT3, VES_NORMAL).getSize();
    HardwareVertexBufferSharedPtr vb = HardwareBufferManager::getSingleton().createVertexBuffer(
        off, nv, HardwareBuffer::HBU_STATIC_WRITE_ONLY, true);
    AxisAlignedBox box;
    {
        std::vector<float> data(nv * 6);
        for (size_t v = 0; v < nv; ++v) {
            std::memcpy(&data[v * 6], g.positions[v].ptr(), 12);
            std::memcpy(&data[v * 6 + 3], g.normals[v].ptr(), 12);
            box.merge(g.positions[v]);
            bm.boundingRadius = std::max(bm.boundingRadius, g.positions[v].length());
        }
        vb->writeData(0, vb->getSizeInBytes(), data.data(), true);
    }
    sub->vertexData->vertexBufferBinding->setBinding(0, vb);
    sub->indexData->indexCount = g.indices.size();
    sub->indexData->indexBuffer = HardwareBufferManager::getSingleton().createIndexBuffer(
        HardwareIndexBuffer::IT_32BIT, g.indices.size(), HardwareBuffer::HBU_STATIC_WRITE_ONLY, true);
    sub->indexData->indexBuffer->writeData(0, g.indices.size() * 4, g.indices.data(), true);

    mesh->_notifySkeleton(skel);
    for (size_t v = 0; v < nv; ++v) {
        float sum = 0;
        for (int c = 0; c < 4; ++c) sum += g.weights[v][c];
        for (int c = 0; c < 4; ++c) {
            if (g.weights[v][c] <= 0.0f) continue;
            VertexBoneAssignment vba;
            vba.vertexIndex = unsigned(v);
            vba.boneIndex = g.joints[v][c];
            vba.weight = g.weights[v][c] / sum;
            sub->addBoneAssignment(vba);
        }
    }
    sub->_compileBoneAssignments();  // Mesh::_compileBoneAssignments only compiles shared vertices
    // The animated foxes reach a little outside the rest pose: pad the bounds by 25%.
    const Vector3 c = box.getCenter(), h = box.getHalfSize() * 1.25f;
    mesh->_setBounds(AxisAlignedBox(c - h, c + h), false);
    mesh->_setBoundingSphereRadius(bm.boundingRadius * 1.25f);
    mesh->load();
    const VertexElement* we = sub->vertexData->vertexDeclaration->findElementBySemantic(VES_BLEND_WEIGHTS);
    bm.weightsPerVertex = we ? we->getSize() / sizeof(float) : 0;
    bm.blendIndices = sub->blendIndexToBoneIndexMap.size();
    return bm;
}

// ---------------------------------------------------------------------------
// Shaders (GLSL 3.30 core), generated for the number of weights Ogre compiled.
// GL3Plus binds vertex attributes by name: vertex, normal, blendIndices, blendWeights, uv0..uv7.

const char* kLight = R"GLSL(
vec3 shade(vec3 n)
{
    float lambert = 0.35 + 0.65 * max(dot(normalize(n), normalize(vec3(0.3, 1.0, 0.5))), 0.0);
    return vec3(0.85, 0.55, 0.25) * lambert;
}
)GLSL";

const char* kFS = R"GLSL(#version 330 core
in vec3 vColour;
out vec4 fragColour;
void main()
{
    fragColour = vec4(vColour, 1.0);
}
)GLSL";

std::string weightExpr(size_t w, size_t weights) {
    return weights > 1 ? "blendWeights[" + std::to_string(w) + "]" : std::string("1.0");
}

// InstanceBatchHW_VTF (OgreMain/src/OgreInstanceBatchHW_VTF.cpp, createVertexSemantics and
// updateInstanceDataBuffer): per vertex, one float4 TEXCOORD per weight holding the U offsets
// (boneIdx*3 + row)/texWidth of the 3 rows of that bone's 3x4 matrix (4th component 0), then a
// float4 BLEND_WEIGHTS when weights > 1; per instance (step rate 1), a float2 TEXCOORD with the
// (u, v) of the instance's first texel (texel centre included), and with the lookup table three
// float4 TEXCOORDs: the rows of the instance's own world matrix.
std::string hwVtfVS(size_t weights, bool lut) {
    std::string s = "#version 330 core\nin vec4 vertex;\nin vec3 normal;\n";
    for (size_t w = 0; w < weights; ++w) s += "in vec4 uv" + std::to_string(w) + ";\n";
    if (weights > 1) s += "in vec4 blendWeights;\n";
    const std::string inst = "uv" + std::to_string(weights);
    s += "in vec2 " + inst + ";\n";
    if (lut)
        for (size_t k = 1; k <= 3; ++k) s += "in vec4 uv" + std::to_string(weights + k) + ";\n";
    s += "uniform sampler2D matrixTexture;\nuniform mat4 viewProjMatrix;\nout vec3 vColour;\n";
    s += kLight;
    s += "void main()\n{\n    vec3 p = vec3(0.0);\n    vec3 n = vec3(0.0);\n";
    for (size_t w = 0; w < weights; ++w) {
        const std::string uv = "uv" + std::to_string(w), ws = weightExpr(w, weights);
        s += "    {\n";
        for (int r = 0; r < 3; ++r)
            s += "        vec4 r" + std::to_string(r) + " = textureLod(matrixTexture, vec2(" + uv + "[" +
                 std::to_string(r) + "] + " + inst + ".x, " + inst + ".y), 0.0);\n";
        s += "        p += " + ws + " * vec3(dot(r0, vertex), dot(r1, vertex), dot(r2, vertex));\n";
        s += "        vec4 nn = vec4(normal, 0.0);\n";
        s += "        n += " + ws + " * vec3(dot(r0, nn), dot(r1, nn), dot(r2, nn));\n    }\n";
    }
    if (lut) {
        const std::string a = "uv" + std::to_string(weights + 1), b = "uv" + std::to_string(weights + 2),
                          c = "uv" + std::to_string(weights + 3);
        s += "    vec4 pp = vec4(p, 1.0), np = vec4(n, 0.0);\n";
        s += "    p = vec3(dot(" + a + ", pp), dot(" + b + ", pp), dot(" + c + ", pp));\n";
        s += "    n = vec3(dot(" + a + ", np), dot(" + b + ", np), dot(" + c + ", np));\n";
    }
    s += "    vColour = shade(n);\n    gl_Position = viewProjMatrix * vec4(p, 1.0);\n}\n";
    return s;
}

// InstanceBatchVTF (OgreMain/src/OgreInstanceBatchVTF.cpp, createVertexSemantics): per vertex of
// each replicated copy, two float4 TEXCOORDs per weight: (u0, v0, u1, v1) and (u2, v2, 0, 0), the
// absolute texel centres of the 3 rows of that instance's bone matrix; then float4 BLEND_WEIGHTS.
std::string texVtfVS(size_t weights) {
    std::string s = "#version 330 core\nin vec4 vertex;\nin vec3 normal;\n";
    for (size_t w = 0; w < 2 * weights; ++w) s += "in vec4 uv" + std::to_string(w) + ";\n";
    if (weights > 1) s += "in vec4 blendWeights;\n";
    s += "uniform sampler2D matrixTexture;\nuniform mat4 viewProjMatrix;\nout vec3 vColour;\n";
    s += kLight;
    s += "void main()\n{\n    vec3 p = vec3(0.0);\n    vec3 n = vec3(0.0);\n";
    for (size_t w = 0; w < weights; ++w) {
        const std::string a = "uv" + std::to_string(2 * w), b = "uv" + std::to_string(2 * w + 1),
                          ws = weightExpr(w, weights);
        s += "    {\n";
        s += "        vec4 r0 = textureLod(matrixTexture, " + a + ".xy, 0.0);\n";
        s += "        vec4 r1 = textureLod(matrixTexture, " + a + ".zw, 0.0);\n";
        s += "        vec4 r2 = textureLod(matrixTexture, " + b + ".xy, 0.0);\n";
        s += "        p += " + ws + " * vec3(dot(r0, vertex), dot(r1, vertex), dot(r2, vertex));\n";
        s += "        vec4 nn = vec4(normal, 0.0);\n";
        s += "        n += " + ws + " * vec3(dot(r0, nn), dot(r1, nn), dot(r2, nn));\n    }\n";
    }
    s += "    vColour = shade(n);\n    gl_Position = viewProjMatrix * vec4(p, 1.0);\n}\n";
    return s;
}

// Ordinary Entity with hardware skinning: Ogre passes one 3x4 world matrix per blend index
// (ACT_WORLD_MATRIX_ARRAY_3x4, i.e. world x bone x inverse bind) and the mesh's blendIndices /
// blendWeights attributes.
std::string naiveVS(size_t weights, size_t bones) {
    std::string s = "#version 330 core\nin vec4 vertex;\nin vec3 normal;\nin vec4 blendIndices;\n";
    if (weights > 1) s += "in vec4 blendWeights;\n";
    s += "uniform vec4 worldMatrix3x4Array[" + std::to_string(3 * std::max<size_t>(bones, 1)) + "];\n";
    s += "uniform mat4 viewProjMatrix;\nout vec3 vColour;\n";
    s += kLight;
    s += "void main()\n{\n    vec3 p = vec3(0.0);\n    vec3 n = vec3(0.0);\n";
    for (size_t w = 0; w < std::max<size_t>(weights, 1); ++w) {
        const std::string ws = weightExpr(w, weights);
        s += "    {\n        int b = int(blendIndices[" + std::to_string(w) + "]) * 3;\n";
        s += "        vec4 r0 = worldMatrix3x4Array[b], r1 = worldMatrix3x4Array[b + 1], r2 = worldMatrix3x4Array[b + 2];\n";
        s += "        p += " + ws + " * vec3(dot(r0, vertex), dot(r1, vertex), dot(r2, vertex));\n";
        s += "        vec4 nn = vec4(normal, 0.0);\n";
        s += "        n += " + ws + " * vec3(dot(r0, nn), dot(r1, nn), dot(r2, nn));\n    }\n";
    }
    s += "    vColour = shade(n);\n    gl_Position = viewProjMatrix * vec4(p, 1.0);\n}\n";
    return s;
}

Ogre::HighLevelGpuProgramPtr makeProgram(const std::string& name, Ogre::GpuProgramType type, const std::string& src) {
    auto prog = Ogre::HighLevelGpuProgramManager::getSingleton().createProgram(name, Ogre::RGN_DEFAULT, "glsl", type);
    prog->setSource(src);
    prog->load();
    if (prog->hasCompileError())
        throw std::runtime_error("GLSL program " + name + " failed to compile (see ogre_crowd_bench.log):\n" + src);
    return prog;
}

// One material for the chosen mode. VTF materials need a texture unit named "InstancingVTF":
// BaseInstanceBatchVTF::setupMaterialToUseVTF points it at the batch's matrix texture (the
// material is cloned per batch), with point filtering and vertex binding.
std::string makeMaterial(const Options& o, const BuiltModel& bm) {
    using namespace Ogre;
    makeProgram("crowd/fs", GPT_FRAGMENT_PROGRAM, kFS);
    std::string vsSrc;
    const bool vtf = o.mode != "naive";
    const size_t weights = o.oneWeight ? 1 : bm.weightsPerVertex;
    if (o.mode == "hwvtf") vsSrc = hwVtfVS(weights, false);
    else if (o.mode == "hwvtf-lut") vsSrc = hwVtfVS(weights, true);
    else if (o.mode == "vtf") vsSrc = texVtfVS(weights);
    else vsSrc = naiveVS(bm.weightsPerVertex, bm.blendIndices);
    auto vs = makeProgram("crowd/vs", GPT_VERTEX_PROGRAM, vsSrc);
    if (!vtf) vs->setSkeletalAnimationIncluded(true);  // the Entity skins in hardware

    MaterialPtr m = MaterialManager::getSingleton().create("crowd/material", RGN_DEFAULT);
    Pass* p = m->getTechnique(0)->getPass(0);
    p->setLightingEnabled(false);
    p->setCullingMode(CULL_CLOCKWISE);
    p->setDepthCheckEnabled(true);
    p->setDepthWriteEnabled(true);
    p->setVertexProgram("crowd/vs");
    p->setFragmentProgram("crowd/fs");
    auto vp = p->getVertexProgramParameters();
    vp->setNamedAutoConstant("viewProjMatrix", GpuProgramParameters::ACT_VIEWPROJ_MATRIX);
    if (vtf) {
        TextureUnitState* tus = p->createTextureUnitState();
        tus->setName("InstancingVTF");
        vp->setNamedConstant("matrixTexture", 0);
    } else {
        vp->setNamedAutoConstant("worldMatrix3x4Array", GpuProgramParameters::ACT_WORLD_MATRIX_ARRAY_3x4);
    }
    m->load();
    if (o.verbose) std::printf("vertex shader:\n%s\n", vsSrc.c_str());
    return m->getName();
}

double ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

struct PhaseTimer : public Ogre::SceneManager::Listener {
    Clock::time_point preFind, postFind;
    void preFindVisibleObjects(Ogre::SceneManager*, Ogre::SceneManager::IlluminationRenderStage,
                               Ogre::Viewport*) override { preFind = Clock::now(); }
    void postFindVisibleObjects(Ogre::SceneManager*, Ogre::SceneManager::IlluminationRenderStage,
                                Ogre::Viewport*) override { postFind = Clock::now(); }
};

double median(std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    const size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

double mean(const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return v.empty() ? 0.0 : s / double(v.size());
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    if (!parseArgs(argc, argv, o)) return 2;
    using namespace Ogre;

    GltfCrowdModel gltf;
    try {
        gltf = loadGltf(o.model);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "ogre_crowd_bench: %s\n", e.what());
        return 1;
    }

    auto* logMgr = new LogManager();
    logMgr->createLog("ogre_crowd_bench.log", true, o.verbose, false);

    auto* root = new Root("", "", "");
    const char* envDir = std::getenv("OGRE_PLUGIN_DIR");
    const std::string pluginDir = envDir && *envDir ? envDir : BENCH_OGRE_PLUGIN_DIR;
    root->loadPlugin(pluginDir + "/RenderSystem_GL3Plus");
    if (!o.shot.empty()) root->loadPlugin(pluginDir + "/Codec_STBI");
    RenderSystem* rs = root->getRenderSystemByName("OpenGL 3+ Rendering Subsystem");
    if (!rs) { std::fprintf(stderr, "GL3Plus render system not found\n"); return 1; }
    root->setRenderSystem(rs);
    rs->setConfigOption("Full Screen", "No");
    rs->setConfigOption("VSync", "No");
    root->initialise(false);

    NameValuePairList misc;
    misc["vsync"] = "false";
    misc["FSAA"] = "0";
    misc["gamma"] = "false";
    misc["hidden"] = "true";
    RenderWindow* win = root->createRenderWindow("ogre_crowd_bench", 64, 64, false, &misc);
    ResourceGroupManager::getSingleton().initialiseAllResourceGroups();

    SceneManager* sm = root->createSceneManager();
    PhaseTimer phases;
    sm->addListener(&phases);

    BuiltModel bm;
    std::string matName;
    try {
        bm = buildOgreModel(gltf, o.oneWeight);
        matName = makeMaterial(o, bm);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "ogre_crowd_bench: %s\n", e.what());
        return 1;
    }

    TexturePtr tex = TextureManager::getSingleton().createManual(
        "crowd/rtt", RGN_DEFAULT, TEX_TYPE_2D, o.width, o.height, 0, PF_BYTE_RGBA, TU_RENDERTARGET);
    RenderTarget* rt = tex->getBuffer()->getRenderTarget();
    rt->setAutoUpdated(true);
    win->setAutoUpdated(false);

    // Grid and camera (README "The crowd scene").
    const size_t side = size_t(std::ceil(std::sqrt(double(o.n))));
    const float spacing = 200.0f;
    auto gridPos = [&](size_t i) {
        const float off = (float(side) - 1.0f) * 0.5f;
        return Vector3((float(i % side) - off) * spacing, 0.0f, (float(i / side) - off) * spacing);
    };
    Camera* cam = sm->createCamera("cam");
    const float fovY = 45.0f;
    cam->setFOVy(Degree(fovY));
    const float radius = (float(side) - 1.0f) * spacing * 0.5f * std::sqrt(2.0f) + 100.0f;
    const float aspect = float(o.width) / float(o.height);
    const float halfFov = std::min(fovY, fovY * aspect) * 0.5f * float(M_PI) / 180.0f;
    const float fitDist = radius / std::sin(halfFov);
    const float dist = fitDist / o.zoom;
    cam->setNearClipDistance(std::max(1.0f, dist - radius - 100.0f));
    cam->setFarClipDistance(dist + radius + 100.0f);
    cam->setAutoAspectRatio(true);
    SceneNode* camNode = sm->getRootSceneNode()->createChildSceneNode();
    camNode->attachObject(cam);
    camNode->setPosition(Vector3(0.0f, 0.8f, 0.6f).normalisedCopy() * dist);
    camNode->lookAt(Vector3::ZERO, Node::TS_WORLD);

    Viewport* vp = rt->addViewport(cam);
    vp->setBackgroundColour(ColourValue(0.1f, 0.1f, 0.12f));
    vp->setOverlaysEnabled(false);
    vp->setSkiesEnabled(false);
    vp->setShadowsEnabled(false);

    // ---------------------------------------------------------------- crowd
    const std::string walk = "Walk", run = "Run";
    if (!bm.clipLength.count(walk) || !bm.clipLength.count(run)) {
        std::fprintf(stderr, "ogre_crowd_bench: the model needs clips 'Walk' and 'Run'\n");
        return 1;
    }
    std::vector<AnimationState*> states(o.n, nullptr);  // null: shares another instance's state
    std::vector<float> speed(o.n), phase0(o.n), clipLen(o.n);
    for (size_t i = 0; i < o.n; ++i) {
        speed[i] = 0.8f + 0.4f * float((i * 37) % 100) / 100.0f;
        phase0[i] = 0.137f * float(i);
        clipLen[i] = bm.clipLength[i % 2 ? run : walk];
    }

    const auto tBuild0 = Clock::now();
    InstanceManager* im = nullptr;
    size_t perBatch = 1, uniqueStates = 0;
    std::vector<InstancedEntity*> inst;
    try {
        if (o.mode != "naive") {
            InstanceManager::InstancingTechnique tech =
                o.mode == "vtf" ? InstanceManager::TextureVTF : InstanceManager::HWInstancingVTF;
            uint16 flags = IM_VTFBESTFIT;
            if (o.mode == "hwvtf-lut") flags |= IM_VTFBONEMATRIXLOOKUP;
            if (o.oneWeight) flags |= IM_FORCEONEWEIGHT;
            const size_t want = o.perBatch ? o.perBatch : (o.mode == "vtf" ? std::min<size_t>(o.n, 512) : o.n);
            // Ask Ogre for its limit for this mesh (texture width 4096, 65535 instances, ...).
            {
                InstanceManager probe("crowd/probe", sm, "crowd/fox", RGN_DEFAULT, tech, flags, want, 0);
                if (o.mode == "hwvtf-lut") probe.setMaxLookupTableInstances(o.lutSize);
                perBatch = std::min(want, probe.getMaxOrBestNumInstancesPerBatch(matName, want, flags));
            }
            if (perBatch == 0) {
                std::fprintf(stderr, "ogre_crowd_bench: Ogre reports 0 instances per batch for this technique "
                                     "(render system lacks VTF or instancing?)\n");
                return 1;
            }
            im = sm->createInstanceManager("crowd/im", "crowd/fox", RGN_DEFAULT, tech, perBatch, flags, 0);
            if (o.mode == "hwvtf-lut") im->setMaxLookupTableInstances(o.lutSize);
            im->setSetting(InstanceManager::CAST_SHADOWS, false);
            inst.reserve(o.n);
            std::set<AnimationStateSet*> seen;
            for (size_t i = 0; i < o.n; ++i) {
                InstancedEntity* e = im->createInstancedEntity(matName);
                e->setOrientation(Quaternion(Radian(0.7f * float(i)), Vector3::UNIT_Y), false);
                e->setPosition(gridPos(i), true);
                inst.push_back(e);
            }
            // With the lookup table, instances beyond the first lut-size of a batch share the
            // AnimationStateSet (and skeleton) of an earlier one: only the owner's time is set.
            for (size_t i = 0; i < o.n; ++i) {
                AnimationStateSet* set = inst[i]->getAllAnimationStates();
                if (!set || !seen.insert(set).second) continue;
                AnimationState* st = set->getAnimationState(i % 2 ? run : walk);
                st->setEnabled(true);
                st->setLoop(true);
                states[i] = st;
            }
            uniqueStates = seen.size();
        } else {
            for (size_t i = 0; i < o.n; ++i) {
                Entity* e = sm->createEntity("crowd/fox");
                e->setMaterialName(matName);
                e->setCastShadows(false);
                SceneNode* nd = sm->getRootSceneNode()->createChildSceneNode(
                    gridPos(i), Quaternion(Radian(0.7f * float(i)), Vector3::UNIT_Y));
                nd->attachObject(e);
                AnimationState* st = e->getAnimationState(i % 2 ? run : walk);
                st->setEnabled(true);
                st->setLoop(true);
                states[i] = st;
            }
            uniqueStates = o.n;
        }
    } catch (const Ogre::Exception& e) {
        std::fprintf(stderr, "ogre_crowd_bench: Ogre exception while building the crowd: %s\n",
                     e.getFullDescription().c_str());
        return 1;
    }
    const double buildMs = ms(Clock::now() - tBuild0);

    auto setTimes = [&](int f) {
        const float t = float(f) / 60.0f;
        for (size_t i = 0; i < o.n; ++i)
            if (states[i]) states[i]->setTimePosition(std::fmod(t * speed[i] + phase0[i], clipLen[i]));
    };

    // ---------------------------------------------------------------- frames
    std::vector<double> total, update, finish, pre, cull, draw;
    const int allFrames = o.warmup + o.frames;
    try {
        for (int f = 0; f < allFrames; ++f) {
            const auto t0 = Clock::now();
            setTimes(f);
            const auto t1 = Clock::now();
            root->renderOneFrame();
            const auto t2 = Clock::now();
            glFinish();
            const auto t3 = Clock::now();
            if (f >= o.warmup) {
                update.push_back(ms(t1 - t0));
                finish.push_back(ms(t3 - t2));
                pre.push_back(ms(phases.preFind - t1));
                cull.push_back(ms(phases.postFind - phases.preFind));
                draw.push_back(ms(t2 - phases.postFind));
                total.push_back(ms(t3 - t0));
            }
        }
    } catch (const Ogre::Exception& e) {
        std::fprintf(stderr, "ogre_crowd_bench: Ogre exception while rendering: %s\n", e.getFullDescription().c_str());
        return 1;
    }
    const size_t draws = rt->getStatistics().batchCount;
    const size_t tris = rt->getStatistics().triangleCount;
    size_t batchObjects = o.mode == "naive" ? o.n : 0;
    // Instances per batch as built: the most instances in one batch. (For TextureVTF Ogre cuts
    // the size asked for once more when it builds the batches: 434 where the query said 496.)
    size_t usedPerBatch = o.mode == "naive" ? 1 : 0;
    if (im) {
        auto mit = im->getInstanceBatchMapIterator();
        while (mit.hasMoreElements()) {
            const auto& vec = mit.getNext();
            batchObjects += vec.size();
            for (InstanceBatch* b : vec) {
                RenderOperation op;
                b->getRenderOperation(op);
                std::vector<InstancedEntity*> used;
                std::vector<Vector4> params;
                b->getInstancedEntitiesInUse(used, params);
                usedPerBatch = std::max(usedPerBatch, used.size());
                if (o.verbose)
                    std::printf("batch %s: %zu instances in use, %zu vertices, %zu indices, numberOfInstances %zu\n",
                                b->getName().c_str(), used.size(), op.vertexData ? op.vertexData->vertexCount : 0,
                                op.indexData ? op.indexData->indexCount : 0, size_t(op.numberOfInstances));
            }
        }
    }

    if (!o.shot.empty()) rt->writeContentsToFile(o.shot);

    const char* renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
    std::printf("ogre_crowd_bench  Ogre %d.%d.%d  GL3Plus  renderer: %s\n", OGRE_VERSION_MAJOR, OGRE_VERSION_MINOR,
                OGRE_VERSION_PATCH, renderer ? renderer : "?");
    std::printf("model %s: %zu vertices, %zu triangles, %zu joints (%zu used by the mesh), %zu weights/vertex%s, "
                "inverse-bind check max error %.2g\n",
                o.model.c_str(), gltf.positions.size(), gltf.indices.size() / 3, gltf.skel.size(), bm.blendIndices,
                bm.weightsPerVertex, o.oneWeight ? " (forced to 1)" : "", bm.maxInverseBindError);
    std::printf("mode=%s size=%dx%d n=%zu per_batch asked=%zu built=%zu batches=%zu animation states=%zu\n",
                o.mode.c_str(), o.width, o.height, o.n, perBatch, usedPerBatch, batchObjects, uniqueStates);
    std::printf("build: %.1f ms   warmup frames: %d   timed frames: %d\n", buildMs, o.warmup, o.frames);
    std::printf("ms/frame: mean %.3f  median %.3f  min %.3f  max %.3f\n", mean(total), median(total),
                *std::min_element(total.begin(), total.end()), *std::max_element(total.begin(), total.end()));
    std::printf("  app update (setTimePosition) %.3f, Ogre pre %.3f, cull+animate+upload %.3f, draw %.3f, glFinish %.3f (means)\n",
                mean(update), mean(pre), mean(cull), mean(draw), mean(finish));
    std::printf("draw calls (last frame): %zu   triangles: %zu\n", draws, tris);
    std::printf("RESULT mode=%s n=%zu size=%dx%d frames=%d mean_ms=%.4f median_ms=%.4f update_ms=%.4f pre_ms=%.4f "
                "cull_ms=%.4f draw_ms=%.4f finish_ms=%.4f draws=%zu tris=%zu build_ms=%.1f per_batch=%zu "
                "weights=%zu states=%zu\n",
                o.mode.c_str(), o.n, o.width, o.height, o.frames, mean(total), median(total), mean(update), mean(pre),
                mean(cull), mean(draw), mean(finish), draws, tris, buildMs, usedPerBatch,
                o.oneWeight ? size_t(1) : bm.weightsPerVertex, uniqueStates);
    std::fflush(stdout);

    rt = nullptr;
    tex.reset();  // release our reference while Ogre's managers still exist
    delete root;
    delete logMgr;
    return 0;
}
