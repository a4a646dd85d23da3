// Issue 21's crowd benchmark (docs/skinning.md, docs/performance.md): Fox x N walking and
// running, each at its own phase and speed, as one instanced batch playing baked clips (time
// advanced in the shader) and as N skinned MeshNodes posed on the CPU each frame; beside
// them, Ogre 1.12's HWInstancingVTF on the same scene (bench/ogre-crowd) when its RESULT
// lines are given. The scene is bench/ogre-crowd/README.md's, exactly.
//   myriad_crowd_bench [--counts 1000,10000] [--frames F] [--ogre RESULTS.txt] [--out FILE.md]
#include "BenchSupport.h"

#include "myriad/core/AnimationSet.h"
#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/MeshNode.h"
#include "myriad/core/Scene.h"
#include "myriad/egl/HeadlessContext.h"
#include "myriad/gl/Draw.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/Renderer.h"
#include "myriad/gltf/GltfImporter.h"
#include "myriad/util/Error.h"

#include <glm/gtc/matrix_transform.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

using namespace myriad;
using namespace myriad::bench;

namespace {

constexpr std::uint32_t kTargetSide = 256;
constexpr float kSpacing = 200.0f;  // model units, as the Ogre program

struct Options {
    std::vector<std::size_t> counts{1000, 10000};
    int frames = 5;
    std::string ogre;
    std::string out;
};

/** The scene's per-instance rule: grid place, yaw 0.7 i, Walk (even) or Run (odd), clip time
 *  t * speed + 0.137 i with speed 0.8 + 0.4 ((37 i) mod 100) / 100. */
struct Placement {
    glm::mat4 transform;
    float speed;
    float offset;  ///< clip seconds at t = 0
    bool run;
};
Placement placement(std::size_t i, std::size_t side) {
    const float half = 0.5f * static_cast<float>(side - 1) * kSpacing;
    const float x = static_cast<float>(i % side) * kSpacing - half;
    const float z = static_cast<float>(i / side) * kSpacing - half;
    const glm::mat4 transform = glm::rotate(glm::translate(glm::mat4(1.0f), glm::vec3(x, 0.0f, z)),
                                            0.7f * static_cast<float>(i), glm::vec3(0, 1, 0));
    return {transform, 0.8f + 0.4f * static_cast<float>((i * 37) % 100) / 100.0f, 0.137f * static_cast<float>(i),
            i % 2 == 1};
}

Camera crowdCamera(std::size_t side) {
    const float extent = static_cast<float>(side - 1) * kSpacing;
    const float radius = 0.5f * std::sqrt(2.0f) * extent + 100.0f;
    const float fov = glm::radians(45.0f);
    const float distance = radius / std::sin(fov / 2.0f);
    Camera camera;
    camera.setPerspective(fov, 1.0f, std::max(distance - 2.0f * radius, 1.0f), distance + 2.0f * radius);
    camera.lookAt(glm::normalize(glm::vec3(0.0f, 0.8f, 0.6f)) * distance, glm::vec3(0.0f));
    return camera;
}

struct Timing {
    double update = 0.0;  ///< the application's per-frame writes (clock, or every pose)
    double myriad = 0.0;  ///< FrameStats::myriadMs(): myriad's own CPU work in render()
    double frame = 0.0;   ///< the whole render() call
    double wall = 0.0;    ///< update + render + glFinish: llvmpipe's vertex work included
    std::uint64_t bytes = 0;  ///< uploaded in the last frame
    std::uint64_t draws = 0;
};

template <class Update>
Timing timeFrames(gl::Renderer& renderer, const Scene& scene, const Camera& camera, const gl::OffscreenTarget& target,
                  int frames, Update update) {
    std::vector<double> updates, myriadMs, frameMs, wall;
    Timing result;
    for (int f = -2; f < frames; ++f) {  // two warm-up frames: programs, uploads
        const float t = static_cast<float>(f + 2) / 60.0f;
        const auto start = Clock::now();
        update(t);
        const double updated = millisecondsSince(start);
        renderer.render(scene, camera, target);
        gl::finish();
        if (f >= 0) {
            updates.push_back(updated);
            wall.push_back(millisecondsSince(start));
            myriadMs.push_back(renderer.lastFrameStats().myriadMs());
            frameMs.push_back(renderer.lastFrameStats().frameMs);
        }
        std::fprintf(stderr, ".");
    }
    std::fprintf(stderr, "\n");
    result.update = median(updates);
    result.myriad = median(myriadMs);
    result.frame = median(frameMs);
    result.wall = median(wall);
    result.bytes = renderer.lastFrameStats().bytesUploaded;
    result.draws = renderer.lastFrameStats().drawCalls;
    return result;
}

/** (mode, N) -> the Ogre crowd program's RESULT fields; the last line of each wins (medians
 *  over its repetitions are its README's job). */
std::map<std::pair<std::string, std::size_t>, std::map<std::string, std::string>> readOgre(const std::string& path) {
    std::map<std::pair<std::string, std::size_t>, std::map<std::string, std::string>> runs;
    for (std::map<std::string, std::string>& fields : readResultLines(path)) {
        if (fields.count("mode") != 0 && fields.count("n") != 0) {
            runs[{fields["mode"], std::stoul(fields["n"])}] = std::move(fields);
        }
    }
    return runs;
}

Options parse(int argc, char** argv) {
    Options options;
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) {
                throw InvalidArgument(flag + " needs a value");
            }
            return argv[++i];
        };
        if (flag == "--counts") {
            options.counts.clear();
            std::stringstream list(value());
            std::string item;
            while (std::getline(list, item, ',')) {
                options.counts.push_back(std::stoul(item));
            }
        } else if (flag == "--frames") {
            options.frames = std::stoi(value());
        } else if (flag == "--ogre") {
            options.ogre = value();
        } else if (flag == "--out") {
            options.out = value();
        } else if (flag == "--help" || flag == "-h") {
            std::printf("usage: myriad_crowd_bench [--counts N,N,...] [--frames F] [--ogre RESULTS.txt] [--out FILE.md]\n"
                        "  --counts  foxes per run (default 1000,10000)\n"
                        "  --frames  timed frames per run, after 2 warm-up frames (default 5)\n"
                        "  --ogre    RESULT lines of bench/ogre-crowd's program, printed beside (default none)\n"
                        "  --out     also write the report to this Markdown file (default none)\n");
            std::exit(0);
        } else {
            throw InvalidArgument("unknown flag " + flag + " (see --help)");
        }
    }
    return options;
}

} // namespace

int main(int argc, char** argv) try {
    const Options options = parse(argc, argv);
    egl::HeadlessContext context;
    Report report(options.out);
    report.line("# Crowd: Fox x N walking and running (issue 21)");
    report.blank();
    report.line("GL: %s / %s. Target %ux%u, one frame = update + render() + glFinish; medians of %d frames after 2 warm-up frames.",
                context.vendor().c_str(), context.renderer().c_str(), kTargetSide, kTargetSide, options.frames);
    const gltf::ImportedModel model = gltf::importModel(std::string(MYRIAD_ASSETS_DIR) + "/Fox/Fox.glb");
    if (model.skins.empty() || model.primitives.empty() || model.primitives[0].skin < 0) {
        throw InvalidArgument("Fox.glb imported without its skin");
    }
    const gltf::ImportedSkin& skin = model.skins[static_cast<std::size_t>(model.primitives[0].skin)];
    const std::shared_ptr<const MeshGeometry> mesh = model.primitives[0].mesh;
    const auto set = AnimationSet::bake(skin.skeleton, skin.clips, *mesh);
    const std::int32_t walk = set->findClip("Walk");
    const std::int32_t run = set->findClip("Run");
    if (walk < 0 || run < 0) {
        throw InvalidArgument("Fox.glb has no Walk or Run clip");
    }
    report.line("Fox: %u vertices, %zu joints, clips baked at %.0f frames/s: %u frames, **%zu bytes** of animation texture "
                "(48 bytes per joint and frame).",
                mesh->vertexCount(), set->jointCount(), static_cast<double>(set->framesPerSecond()), set->frameCount(),
                set->byteSize());
    report.blank();
    report.line("| N | how | app update ms | myriad CPU ms (FrameStats::myriadMs) | render() ms | wall ms | bytes uploaded a frame | draw calls |");
    report.line("|---:|---|---:|---:|---:|---:|---:|---:|");
    gl::OffscreenTarget target(kTargetSide, kTargetSide, "crowd-target");
    for (const std::size_t n : options.counts) {
        const auto side = static_cast<std::size_t>(std::ceil(std::sqrt(static_cast<double>(n))));
        const Camera camera = crowdCamera(side);
        Timing instanced;
        {
            std::fprintf(stderr, "instanced crowd, N=%zu ", n);
            Scene scene;
            auto& crowd = scene.root().emplace<InstancedMeshNode>(mesh, model.primitives[0].material, n, "crowd");
            crowd.setLocalMatrix(skin.placement);
            crowd.setAnimationSet(set);
            std::vector<InstanceAnimation> plays(n);
            for (std::size_t i = 0; i < n; ++i) {
                const Placement p = placement(i, side);
                crowd.addInstance(glm::inverse(skin.placement) * p.transform);
                // (T - start) * speed = T * speed + offset
                plays[i] = {.clip = static_cast<std::uint32_t>(p.run ? run : walk), .startTime = -p.offset / p.speed,
                            .speed = p.speed};
            }
            crowd.setAnimations(0, plays);
            gl::Renderer renderer;
            instanced = timeFrames(renderer, scene, camera, target, options.frames,
                                   [&](float t) { crowd.setAnimationTime(t); });
        }
        report.line("| %zu | myriad: one batch, baked clips, palettes blended on the GPU | %.3f | %.3f | %.2f | %.1f | %llu | %llu |", n,
                    instanced.update, instanced.myriad, instanced.frame, instanced.wall,
                    static_cast<unsigned long long>(instanced.bytes), static_cast<unsigned long long>(instanced.draws));
        Timing nodes;
        {
            std::fprintf(stderr, "skinned MeshNodes, N=%zu ", n);
            Scene scene;
            std::vector<MeshNode*> foxes;
            std::vector<Placement> placements;
            for (std::size_t i = 0; i < n; ++i) {
                const Placement p = placement(i, side);
                auto& fox = scene.root().emplace<MeshNode>(mesh, model.primitives[0].material, "fox");
                fox.setLocalMatrix(p.transform * skin.placement);
                fox.setSkeleton(skin.skeleton);
                foxes.push_back(&fox);
                placements.push_back(p);
            }
            const AnimationClip& walkClip = *skin.clips[static_cast<std::size_t>(walk)];
            const AnimationClip& runClip = *skin.clips[static_cast<std::size_t>(run)];
            gl::Renderer renderer;
            nodes = timeFrames(renderer, scene, camera, target, options.frames, [&](float t) {
                for (std::size_t i = 0; i < n; ++i) {
                    const AnimationClip& clip = placements[i].run ? runClip : walkClip;
                    foxes[i]->setPose(clip, clip.loopTime(double{t} * placements[i].speed + placements[i].offset));
                }
            });
        }
        report.line("| %zu | myriad: %zu skinned MeshNodes posed on the CPU | %.3f | %.3f | %.2f | %.1f | %llu | %llu |", n, n,
                    nodes.update, nodes.myriad, nodes.frame, nodes.wall, static_cast<unsigned long long>(nodes.bytes),
                    static_cast<unsigned long long>(nodes.draws));
        report.line("| %zu | ratio, MeshNodes / instanced (CPU: update + myriad) | %.0fx | | | %.2fx | | |", n,
                    (nodes.update + nodes.myriad) / std::max(instanced.update + instanced.myriad, 1e-6),
                    nodes.wall / std::max(instanced.wall, 1e-6));
    }
    const auto ogre = options.ogre.empty() ? decltype(readOgre("")){} : readOgre(options.ogre);
    if (!ogre.empty()) {
        report.blank();
        report.line("### Ogre 1.12 in this run (bench/ogre-crowd: the same scene, Xvfb, GL3Plus)");
        report.blank();
        report.line("Ogre's own CPU work is its update (setTimePosition) + pre + cull (where HWInstancingVTF evaluates every "
                    "skeleton and fills the vertex texture); draw and glFinish are llvmpipe's.");
        report.blank();
        report.line("| N | mode | update ms | pre ms | cull + animate ms | draw ms | glFinish ms | mean ms | draws |");
        report.line("|---:|---|---:|---:|---:|---:|---:|---:|---:|");
        for (const auto& [key, fields] : ogre) {
            auto field = [&](const char* name) {
                const auto it = fields.find(name);
                return it == fields.end() ? std::string("-") : it->second;
            };
            report.line("| %zu | %s | %s | %s | %s | %s | %s | %s | %s |", key.second, key.first.c_str(), field("update_ms").c_str(),
                        field("pre_ms").c_str(), field("cull_ms").c_str(), field("draw_ms").c_str(),
                        field("finish_ms").c_str(), field("mean_ms").c_str(), field("draws").c_str());
        }
    }
    return 0;
} catch (const std::exception& e) {
    std::fprintf(stderr, "myriad_crowd_bench: %s\n", e.what());
    return 1;
}
