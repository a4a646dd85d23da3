#include "myriad/gl/FrameStats.h"

#include <cstdio>
#include <ostream>

namespace myriad::gl {
namespace {

/** Appends ", <value> <name>" when @p value is not zero (or @p always). */
void counter(std::string& out, std::uint64_t value, const char* name, bool always = false) {
    if (value != 0 || always) {
        out += ", ";
        out += std::to_string(value);
        out += ' ';
        out += name;
    }
}

} // namespace

std::string to_string(const FrameStats& stats) {
    std::string out = "frame " + std::to_string(stats.frame) + ": " + std::to_string(stats.views) + " views";
    counter(out, stats.drawCalls, "draw calls", true);
    counter(out, stats.drawCommands, "draw commands");
    counter(out, stats.multiDrawCalls, "multi-draw calls");
    counter(out, stats.instances, "instances", true);
    counter(out, stats.particles, "particles");
    counter(out, stats.triangles, "triangles");
    counter(out, stats.batches, "batches");
    counter(out, stats.meshNodes, "mesh nodes");
    counter(out, stats.culledNodes, "culled nodes");
    counter(out, stats.instancesTested, "instances tested");
    counter(out, stats.instancesGpuCulled, "gpu-culled");
    counter(out, stats.instancesFrustumCulled, "frustum-culled");
    counter(out, stats.instancesOcclusionCulled, "occlusion-culled");
    counter(out, stats.nodesOcclusionCulled, "occluded nodes");
    counter(out, stats.occluderTriangles, "occluder triangles");
    if (stats.gpuCulled.frame != 0) {
        out += ", gpu-culled drawn " + std::to_string(stats.gpuCulled.instances) + " of " +
               std::to_string(stats.gpuCulled.upperBound) + " (frame " + std::to_string(stats.gpuCulled.frame) + ")";
        counter(out, stats.gpuCulled.frustumCulled, "gpu frustum-culled");
        counter(out, stats.gpuCulled.occlusionCulled, "gpu occlusion-culled");
    }
    const char* lod = ", lod";  // written before the first level drawn, if any
    for (std::size_t level = 0; level < stats.lodInstances.size(); ++level) {
        if (stats.lodInstances[level] != 0) {
            out += lod;
            lod = "";
            out += ' ' + std::to_string(level) + ':' + std::to_string(stats.lodInstances[level]);
        }
    }
    counter(out, stats.particlesSorted, "particles sorted");
    counter(out, stats.gpuParticleSteps, "gpu particle steps");
    counter(out, stats.gpuParticleDispatches, "gpu particle dispatches");
    counter(out, stats.skinPaletteDispatches, "skin palette dispatches");
    counter(out, stats.pyramidBuilds, "depth pyramids");
    counter(out, stats.occlusionDispatches, "occlusion dispatches");
    counter(out, stats.lampsListed, "lamps listed");
    counter(out, stats.programBinds, "program binds");
    counter(out, stats.vertexArrayBinds, "vertex array binds");
    counter(out, stats.bytesUploaded, "bytes uploaded");
    counter(out, stats.bytesStreamed, "bytes streamed");
    counter(out, stats.bytesStreamedAhead, "bytes streamed ahead");
    counter(out, stats.uploadRanges, "upload ranges");
    counter(out, stats.uploadWaits, "upload waits");
    counter(out, stats.stagingBytes, "staging bytes");
    counter(out, stats.programsCompiled, "programs compiled");
    counter(out, stats.programsLoaded, "programs loaded");
    counter(out, stats.programsUsed, "programs used");
    char times[200];
    std::snprintf(times, sizeof times, ", frame %.3f ms (cull %.3f, upload %.3f, submit %.3f, draw %.3f, sort %.3f, compile %.3f)",
                  stats.frameMs, stats.cullMs, stats.uploadMs, stats.submitMs, stats.drawMs, stats.sortMs,
                  stats.compileMs);
    out += times;
    return out;
}

std::ostream& operator<<(std::ostream& out, const FrameStats& stats) { return out << to_string(stats); }

} // namespace myriad::gl
