// myriad_soak: hours of a game's life in minutes. Renders headless, for --seconds N (default 300),
// a batch of 100,000 small quads of which 10% are released and re-acquired by handle every frame,
// recoloured with setColor, frustum-culled part of the time, next to a second batch that leaves
// the view for seconds at a time (the renderer keeps its GPU copy and, when it returns, sends only
// what changed meanwhile). It checks:
//
//  - every frame: FrameStats (draw calls, instances, culled nodes) against the batches that
//    should be in view, instances being the live handle count of each drawn batch;
//  - every second: the whole CPU state (every handle live, finding its record, the record at its
//    cell with its colour), and resident memory (VmRSS): after a warm-up (the first 20% of the
//    run) it must stay within max(5%, 8 MiB) of its level at the end of the warm-up;
//  - at the end: three zoomed renders of 32 x 32 cells each, every cell's centre pixel against
//    the colour the CPU state says is there (or the clear colour for an empty cell).
//
// Each frame is read back before the next (one frame in flight), so RSS measures myriad and not
// how far llvmpipe's rasterisation lagged behind; --no-sync lets frames run free.
// Exits 0 with a summary, 1 with "myriad_soak: FAIL: ..." on the first failed check, 2 on bad
// arguments. Results of the 5-minute run are in docs/reliability.md.
#include "myriad/core/Camera.h"
#include "myriad/core/InstancedMeshNode.h"
#include "myriad/core/Material.h"
#include "myriad/core/MeshData.h"
#include "myriad/core/Scene.h"
#include "myriad/core/Shapes.h"
#include "myriad/egl/HeadlessContext.h"
#include "myriad/gl/FrameStats.h"
#include "myriad/gl/LiveObjects.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/Renderer.h"
#include "myriad/util/Error.h"

#include <glm/gtc/matrix_transform.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#if defined(__SANITIZE_ADDRESS__)
#define MYRIAD_SOAK_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MYRIAD_SOAK_ASAN 1
#endif
#endif

namespace myriad::soak {
namespace {

using Clock = std::chrono::steady_clock;

/** A failed check: main() prints it and exits 1. */
class Failure : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

[[noreturn]] void fail(const std::string& what) { throw Failure(what); }

struct Options {
    double seconds = 300.0;
    std::size_t instances = 100'000;
    std::uint32_t seed = 1;
    /** Read the frame back after each render, so at most one frame is in flight. Without it,
     *  llvmpipe allocates another binning scene (~30 MiB here) whenever rasterisation falls
     *  behind and keeps it, and RSS steps up at moments that depend on the machine's load:
     *  driver memory, bounded, but it hides whether myriad itself holds steady. */
    bool syncEachFrame = true;
};

constexpr std::uint32_t kTargetSize = 256;
constexpr std::uint32_t kWindowCells = 32;  // final check: 32 x 32 cells, 8 x 8 pixels each
constexpr float kQuadSize = 0.8f;           // cells are 1 apart: a 0.2 gap of clear colour
constexpr double kAwayX = 100'000.0;        // where the camera looks when batch A is culled
constexpr double kBatchBAwayX = 50'000.0;   // where batch B goes when it leaves the view

/** Instance colours: linear 0 or 1 per channel, so the sRGB bytes read back are exactly 0 or
 *  255 and a pixel check needs no tolerance for colour conversion. */
constexpr std::array<glm::vec4, 6> kPalette{{{1, 0, 0, 1}, {0, 1, 0, 1}, {0, 0, 1, 1},
                                             {1, 1, 0, 1}, {0, 1, 1, 1}, {1, 0, 1, 1}}};

/** VmRSS of this process in MiB, from /proc/self/status. */
double residentMiB() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("VmRSS:", 0) == 0) {
            std::istringstream fields(line.substr(6));
            double kib = 0.0;
            fields >> kib;
            return kib / 1024.0;
        }
    }
    fail("cannot read VmRSS from /proc/self/status");
}

/** Bytes the C heap holds for live allocations, and bytes it keeps free (fragmentation), in
 *  MiB; both 0 where glibc's mallinfo2 is missing. They tell a leak (in use grows) from memory
 *  the allocator or the driver keeps (RSS grows, in use does not). llvmpipe's buffers and
 *  textures are heap allocations too. */
struct HeapUse {
    double inUse = 0.0;
    double free = 0.0;
};

HeapUse heapUse() {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33)
    const struct mallinfo2 info = mallinfo2();
    constexpr double kMiB = 1024.0 * 1024.0;
    return {static_cast<double>(info.uordblks + info.hblkhd) / kMiB,
            static_cast<double>(info.fordblks) / kMiB};
#else
    return {};
#endif
}

/** A batch whose instances sit on a side x side grid of unit cells, at most one per cell, all
 *  placed by handle, and the CPU-side record of what it should hold: which cell each live
 *  handle occupies and each occupied cell's palette colour. */
class GridBatch {
public:
    GridBatch(SceneNode& parent, std::shared_ptr<const MeshGeometry> mesh,
              const Material& material, std::uint32_t side, std::size_t count, std::string name,
              std::mt19937& random)
        : m_node(parent.emplace<InstancedMeshNode>(std::move(mesh), material, count,
                                                   std::move(name))),
          m_side(side),
          m_occupant(std::size_t{side} * side, kEmpty),
          m_colorOfCell(std::size_t{side} * side, 0) {
        if (count > m_occupant.size()) {
            fail("more instances than grid cells");
        }
        m_freeCells.reserve(m_occupant.size());
        for (std::uint32_t cell = 0; cell < m_occupant.size(); ++cell) {
            m_freeCells.push_back(cell);
        }
        m_live.reserve(count);
        m_cellOfLive.reserve(count);
        for (std::size_t k = 0; k < count; ++k) {
            m_order.push_back(static_cast<std::uint32_t>(k));
            m_live.emplace_back();
            m_cellOfLive.push_back(0);
            place(static_cast<std::uint32_t>(k), random);
        }
    }

    [[nodiscard]] InstancedMeshNode& node() noexcept { return m_node; }
    [[nodiscard]] std::size_t liveCount() const noexcept { return m_live.size(); }

    /** Releases @p changes distinct live instances by handle, then acquires as many into random
     *  free cells, each coloured with setColor: the come-and-go of shots or sparks. */
    void churn(std::size_t changes, std::mt19937& random) {
        changes = std::min(changes, m_live.size());
        // Partial Fisher-Yates: the first `changes` entries of m_order become a random pick of
        // distinct live positions, in O(changes).
        for (std::size_t i = 0; i < changes; ++i) {
            std::uniform_int_distribution<std::size_t> pick(i, m_order.size() - 1);
            std::swap(m_order[i], m_order[pick(random)]);
        }
        for (std::size_t i = 0; i < changes; ++i) {
            const std::uint32_t k = m_order[i];
            m_node.release(m_live[k]);  // swap-remove: the last record moves into the hole
            const std::uint32_t cell = m_cellOfLive[k];
            m_occupant[cell] = kEmpty;
            m_freeCells.push_back(cell);
        }
        if (m_node.count() != m_live.size() - changes) {
            fail(m_node.name() + ": count " + std::to_string(m_node.count()) + " after " +
                 std::to_string(changes) + " releases, expected " +
                 std::to_string(m_live.size() - changes));
        }
        for (std::size_t i = 0; i < changes; ++i) {
            place(m_order[i], random);
        }
    }

    /** Gives @p changes random live instances a new colour, found through their handles. */
    void recolour(std::size_t changes, std::mt19937& random) {
        std::uniform_int_distribution<std::size_t> pick(0, m_live.size() - 1);
        std::uniform_int_distribution<unsigned> colour(0, kPalette.size() - 1);
        for (std::size_t i = 0; i < changes; ++i) {
            const std::size_t k = pick(random);
            const auto c = static_cast<std::uint8_t>(colour(random));
            m_node.setColor(m_node.indexOf(m_live[k]), kPalette[c]);
            m_colorOfCell[m_cellOfLive[k]] = c;
        }
    }

    /** The full CPU check: every handle is live and finds a distinct record, which sits at the
     *  handle's cell with that cell's colour, and the batch draws exactly the live instances. */
    void verify() const {
        const std::string& name = m_node.name();
        if (m_node.count() != m_live.size() || m_node.liveHandleCount() != m_live.size()) {
            fail(name + ": count " + std::to_string(m_node.count()) + ", live handles " +
                 std::to_string(m_node.liveHandleCount()) + ", expected " +
                 std::to_string(m_live.size()));
        }
        std::vector<bool> seen(m_node.count(), false);
        for (std::size_t k = 0; k < m_live.size(); ++k) {
            if (!m_node.isLive(m_live[k])) {
                fail(name + ": handle " + std::to_string(k) + " is no longer live");
            }
            const std::size_t index = m_node.indexOf(m_live[k]);
            if (index >= seen.size() || seen[index]) {
                fail(name + ": handle " + std::to_string(k) + " finds record " +
                     std::to_string(index) + ", out of range or shared with another handle");
            }
            seen[index] = true;
            const std::uint32_t cell = m_cellOfLive[k];
            const glm::vec3 at(m_node.readTransform(index)[3]);
            if (at != cellCentre(cell)) {
                fail(name + ": handle " + std::to_string(k) + " (record " +
                     std::to_string(index) + ") is at (" + std::to_string(at.x) + ", " +
                     std::to_string(at.y) + "), its cell " + std::to_string(cell) + " is at (" +
                     std::to_string(cellCentre(cell).x) + ", " +
                     std::to_string(cellCentre(cell).y) + ")");
            }
            if (m_node.readColor(index) != kPalette[m_colorOfCell[cell]]) {
                fail(name + ": handle " + std::to_string(k) + " (record " +
                     std::to_string(index) + ") has the wrong colour");
            }
        }
    }

    /** The palette colour expected in cell (x, y), or nothing for an empty cell. */
    [[nodiscard]] std::optional<glm::vec4> expectedAt(std::uint32_t x, std::uint32_t y) const {
        const std::uint32_t cell = y * m_side + x;
        if (m_occupant[cell] == kEmpty) {
            return std::nullopt;
        }
        return kPalette[m_colorOfCell[cell]];
    }

    /** Node-space centre of @p cell: cells 1 apart, the grid centred on the node origin. */
    [[nodiscard]] glm::vec3 cellCentre(std::uint32_t cell) const {
        const float half = static_cast<float>(m_side) * 0.5f;
        return {static_cast<float>(cell % m_side) + 0.5f - half,
                static_cast<float>(cell / m_side) + 0.5f - half, 0.0f};
    }

private:
    static constexpr std::uint32_t kEmpty = 0xFFFFFFFFu;

    /** Acquires live instance @p k into a random free cell with a random colour. */
    void place(std::uint32_t k, std::mt19937& random) {
        std::uniform_int_distribution<std::size_t> pickFree(0, m_freeCells.size() - 1);
        const std::size_t slot = pickFree(random);
        const std::uint32_t cell = m_freeCells[slot];
        m_freeCells[slot] = m_freeCells.back();
        m_freeCells.pop_back();
        std::uniform_int_distribution<unsigned> colour(0, kPalette.size() - 1);
        const auto c = static_cast<std::uint8_t>(colour(random));
        // White at acquire, the colour through setColor: both write paths get exercised.
        m_live[k] = m_node.acquire({glm::translate(glm::mat4(1.0f), cellCentre(cell)),
                                    glm::vec4(1.0f)});
        m_node.setColor(m_node.indexOf(m_live[k]), kPalette[c]);
        m_occupant[cell] = k;
        m_cellOfLive[k] = cell;
        m_colorOfCell[cell] = c;
    }

    InstancedMeshNode& m_node;
    std::uint32_t m_side;
    std::vector<InstanceHandle> m_live;        // live instance k's handle
    std::vector<std::uint32_t> m_cellOfLive;   // live instance k's cell
    std::vector<std::uint32_t> m_order;        // live positions, shuffled by churn()
    std::vector<std::uint32_t> m_occupant;     // per cell: live position, or kEmpty
    std::vector<std::uint8_t> m_colorOfCell;   // per cell: palette index
    std::vector<std::uint32_t> m_freeCells;
};

/** Smallest square grid side with about 2% spare cells, so acquires always find a free one. */
std::uint32_t gridSide(std::size_t instances) {
    return static_cast<std::uint32_t>(
        std::ceil(std::sqrt(static_cast<double>(instances) * 1.02 + 16.0)));
}

/** An orthographic camera over world x in [centreX - half, centreX + half], same for y,
 *  looking down -Z from z = 10. */
Camera orthoOver(double centreX, double centreY, float half) {
    Camera camera;
    camera.setOrthographic(-half, half, -half, half, 0.1f, 20.0f);
    camera.lookAt(glm::dvec3(centreX, centreY, 10.0), glm::dvec3(centreX, centreY, 0.0));
    return camera;
}

std::string describeStats(const gl::FrameStats& s) {
    return "draw calls " + std::to_string(s.drawCalls) + ", instances " +
           std::to_string(s.instances) + ", culled " + std::to_string(s.culledNodes) +
           ", uploaded " + std::to_string(s.bytesUploaded) + " bytes";
}

/** Renders three 32 x 32-cell windows of batch A (B away) and compares each cell's centre pixel
 *  with the CPU state. Returns the number of cells checked. */
std::size_t checkPixels(const Scene& scene, GridBatch& a, std::uint32_t side,
                        gl::Renderer& renderer, const gl::OffscreenTarget& target) {
    const std::uint32_t last = side - kWindowCells;
    const std::array<std::array<std::uint32_t, 2>, 3> windows{
        {{0, 0}, {(side - kWindowCells) / 2, (side - kWindowCells) / 2}, {last, last}}};
    const float half = static_cast<float>(side) * 0.5f;
    const std::uint32_t cellPixels = kTargetSize / kWindowCells;
    std::size_t checked = 0;
    for (const auto& [x0, y0] : windows) {
        // World x of the window's left edge is x0 - half; its centre half a window further.
        const double centreX = static_cast<double>(x0) - half + kWindowCells * 0.5;
        const double centreY = static_cast<double>(y0) - half + kWindowCells * 0.5;
        const Camera camera = orthoOver(centreX, centreY, kWindowCells * 0.5f);
        renderer.render(scene, camera, target);
        const gl::FrameStats& stats = renderer.lastFrameStats();
        if (stats.drawCalls != 1 || stats.instances != a.liveCount()) {
            fail("final frame: " + describeStats(stats) + "; expected 1 draw of " +
                 std::to_string(a.liveCount()) + " instances");
        }
        const Image image = target.readPixels();
        std::size_t wrong = 0;
        std::string firstWrong;
        std::size_t occupied = 0;
        for (std::uint32_t j = 0; j < kWindowCells; ++j) {      // rows of cells, bottom up
            for (std::uint32_t i = 0; i < kWindowCells; ++i) {  // columns, left to right
                const std::optional<glm::vec4> colour = a.expectedAt(x0 + i, y0 + j);
                occupied += colour ? 1 : 0;
                const glm::vec4 linear = colour.value_or(scene.clearColor);
                // Image rows run top to bottom, world y bottom to top.
                const std::uint32_t px = i * cellPixels + cellPixels / 2;
                const std::uint32_t py = (kWindowCells - 1 - j) * cellPixels + cellPixels / 2;
                const std::uint8_t* p = image.pixel(px, py);
                bool ok = true;
                for (int c = 0; c < 3; ++c) {
                    const int expected = linear[c] >= 0.5f ? 255 : 0;
                    ok = ok && std::abs(static_cast<int>(p[c]) - expected) <= 3;
                }
                if (!ok) {
                    if (wrong == 0) {
                        firstWrong = "cell (" + std::to_string(x0 + i) + ", " +
                                     std::to_string(y0 + j) + ") pixel (" + std::to_string(px) +
                                     ", " + std::to_string(py) + ") is (" +
                                     std::to_string(p[0]) + ", " + std::to_string(p[1]) + ", " +
                                     std::to_string(p[2]) + "), expected " +
                                     (colour ? "an instance" : "empty");
                    }
                    ++wrong;
                }
                ++checked;
            }
        }
        if (wrong != 0) {
            fail("final frame: " + std::to_string(wrong) + " of " +
                 std::to_string(kWindowCells * kWindowCells) + " cells wrong in the window at (" +
                 std::to_string(x0) + ", " + std::to_string(y0) + "); first: " + firstWrong);
        }
        if (occupied == 0) {
            fail("final frame: the window at (" + std::to_string(x0) + ", " + std::to_string(y0) +
                 ") has no instance: the check would prove nothing");
        }
    }
    return checked;
}

int run(const Options& options) {
    egl::HeadlessContext context;
    gl::Renderer renderer;
    gl::OffscreenTarget target(kTargetSize, kTargetSize, "soak");
    std::printf("myriad_soak: %s, %.0f s, %zu instances, %s\n", context.description().c_str(),
                options.seconds, options.instances,
                options.syncEachFrame ? "each frame read back" : "free-running (--no-sync)");

    std::mt19937 random(options.seed);
    Material material;
    material.shading = Shading::Unlit;  // the pixel is the instance colour, exactly
    const auto quad = MeshGeometry::create(shapes::quad(kQuadSize, kQuadSize), "soak-quad");
    Scene scene;
    scene.clearColor = glm::vec4(0.0f, 0.0f, 0.0f, 1.0f);

    // A: the big churned batch. B: a small one that leaves the view for 8 s of every 16: its GPU
    // copy stays, and its upload cursor catches up on what changed when it returns.
    const auto setupStart = Clock::now();
    const std::uint32_t sideA = gridSide(options.instances);
    GridBatch a(scene.root(), quad, material, sideA, options.instances, "soak/A", random);
    const std::size_t countB = std::max<std::size_t>(options.instances / 100, 10);
    GridBatch b(scene.root(), quad, material, gridSide(countB), countB, "soak/B", random);
    // Shown because filling an empty batch by handle has been slow (see docs/reliability.md).
    std::printf("myriad_soak: setup: %zu + %zu instances acquired in %.2f s\n", options.instances,
                countB, std::chrono::duration<double>(Clock::now() - setupStart).count());
    std::fflush(stdout);
    const glm::dvec3 homeB(0.0, 0.0, 1.0);  // in front of A, over its centre
    const float halfA = static_cast<float>(sideA) * 0.5f + 1.0f;

    const double warmUp = options.seconds * 0.2;
    std::optional<double> baseline;
    double peak = 0.0;
    double lowest = 1e300;
    double last = 0.0;
    std::vector<double> samples;
    std::uint64_t frames = 0;
    std::uint64_t framesACulled = 0;
    std::uint64_t framesBCulled = 0;
    std::uint64_t framesBoth = 0;
    std::uint64_t totalUploaded = 0;
    gl::FrameStats lastStats;

    const auto start = Clock::now();
    double nextSample = 1.0;
    std::int64_t lastAwayCycle = -1;  // the last 10-second cycle in which A was culled
    for (;;) {
        const double t = std::chrono::duration<double>(Clock::now() - start).count();
        if (t >= options.seconds) {
            break;
        }
        // Culling schedule by time, so it happens whatever the frame rate: the camera looks
        // away from A during second 8 of every 10 (or, on a machine so slow that no frame
        // started in that second, the first frame after it); B is away during seconds 8-15 of
        // every 16.
        const double phaseA = std::fmod(t, 10.0);
        const auto cycleA = static_cast<std::int64_t>(t / 10.0);
        const bool aAway = (phaseA >= 8.0 && phaseA < 9.0) ||
                           (phaseA >= 9.0 && lastAwayCycle != cycleA);
        if (aAway) {
            lastAwayCycle = cycleA;
        }
        const bool bAway = std::fmod(t, 16.0) >= 8.0;

        a.churn(a.liveCount() / 10, random);
        a.recolour(a.liveCount() / 100, random);
        b.churn(std::max<std::size_t>(b.liveCount() / 10, 1), random);
        b.node().setPosition(bAway ? glm::dvec3(kBatchBAwayX, 0.0, 1.0) : homeB);
        const Camera camera = orthoOver(aAway ? kAwayX : 0.0, 0.0, halfA);

        renderer.render(scene, camera, target);
        if (options.syncEachFrame) {
            (void)target.readPixels();  // waits for the frame: one frame in flight at most
        }
        const gl::FrameStats& stats = renderer.lastFrameStats();
        const bool drawA = !aAway;
        const bool drawB = !aAway && !bAway;  // the away camera sees neither
        const std::uint64_t expectedInstances = (drawA ? a.node().liveHandleCount() : 0) +
                                                (drawB ? b.node().liveHandleCount() : 0);
        const std::uint32_t expectedDraws = (drawA ? 1u : 0u) + (drawB ? 1u : 0u);
        if (stats.instances != expectedInstances || stats.drawCalls != expectedDraws ||
            stats.culledNodes != 2 - expectedDraws) {
            fail("frame " + std::to_string(frames) + " at " + std::to_string(t) + " s (A " +
                 (drawA ? "in view" : "away") + ", B " + (drawB ? "in view" : "away") + "): " +
                 describeStats(stats) + "; expected " + std::to_string(expectedDraws) +
                 " draw(s) of " + std::to_string(expectedInstances) + " instances, " +
                 std::to_string(2 - expectedDraws) + " culled");
        }
        framesACulled += drawA ? 0 : 1;
        framesBCulled += drawB ? 0 : 1;
        framesBoth += drawA && drawB ? 1 : 0;
        totalUploaded += stats.bytesUploaded;
        lastStats = stats;
        ++frames;

        if (t >= nextSample) {
            nextSample = std::floor(t) + 1.0;
            a.verify();
            b.verify();
            const double rss = residentMiB();
            const HeapUse heap = heapUse();
            samples.push_back(rss);
            last = rss;
            // (heap 0.0 where mallinfo2 is unavailable or, under ASan, not the allocator used)
            std::printf("myriad_soak: %5.0f s  %7llu frames  RSS %7.1f MiB (heap %6.1f in use, "
                        "%5.1f free)  GL objects %3lld  draws %u  instances %6llu  "
                        "uploaded %5.2f MiB\n",
                        std::floor(t), static_cast<unsigned long long>(frames), rss, heap.inUse,
                        heap.free, static_cast<long long>(gl::liveObjectCounts().total()),
                        stats.drawCalls, static_cast<unsigned long long>(stats.instances),
                        static_cast<double>(stats.bytesUploaded) / (1024.0 * 1024.0));
            std::fflush(stdout);
            if (t >= warmUp) {
                if (!baseline) {
                    baseline = rss;
                }
                peak = std::max(peak, rss);
                lowest = std::min(lowest, rss);
#ifndef MYRIAD_SOAK_ASAN
                const double allowed = std::max(*baseline * 0.05, 8.0);
                if (rss > *baseline + allowed) {
                    fail("resident memory grew to " + std::to_string(rss) + " MiB at " +
                         std::to_string(t) + " s, more than " + std::to_string(allowed) +
                         " MiB above its post-warm-up level of " + std::to_string(*baseline) +
                         " MiB");
                }
#endif
            }
        }
    }

    // The culling schedule must actually have happened, or the checks above proved less.
    if (options.seconds >= 10.0 && (framesACulled == 0 || framesBCulled == 0 || framesBoth == 0)) {
        fail("the run never reached every culling state (A culled in " +
             std::to_string(framesACulled) + " frames, B in " + std::to_string(framesBCulled) +
             ", both drawn in " + std::to_string(framesBoth) + "): too slow for the schedule?");
    }

    b.node().setPosition(glm::dvec3(kBatchBAwayX, 0.0, 1.0));
    a.verify();
    const std::size_t cells = checkPixels(scene, a, sideA, renderer, target);

    std::printf("myriad_soak: PASS: %.0f s, %llu frames (%.1f per second), A culled in %llu, "
                "B culled in %llu; %.1f GiB uploaded; %zu cells checked in the final frames\n",
                options.seconds, static_cast<unsigned long long>(frames),
                static_cast<double>(frames) / options.seconds,
                static_cast<unsigned long long>(framesACulled),
                static_cast<unsigned long long>(framesBCulled),
                static_cast<double>(totalUploaded) / (1024.0 * 1024.0 * 1024.0), cells);
    if (baseline) {
        std::printf("myriad_soak: RSS after warm-up %.1f MiB; afterwards min %.1f, max %.1f, "
                    "last %.1f MiB (max drift %+.1f MiB, allowed %+.1f)%s\n",
                    *baseline, lowest, peak, last, peak - *baseline,
                    std::max(*baseline * 0.05, 8.0),
#ifdef MYRIAD_SOAK_ASAN
                    " [not enforced under AddressSanitizer: its quarantine and shadow grow RSS]"
#else
                    ""
#endif
        );
    }
    return 0;
}

void usage() {
    std::fprintf(stderr, "usage: myriad_soak [--seconds N (default 300)] [--instances N "
                         "(default 100000)] [--seed N] [--no-sync]\n");
}

} // namespace
} // namespace myriad::soak

int main(int argc, char** argv) {
    using namespace myriad::soak;
    Options options;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--no-sync") {
            options.syncEachFrame = false;
            continue;
        }
        if (i + 1 >= argc) {
            usage();
            return 2;
        }
        const std::string value = argv[++i];
        try {
            if (arg == "--seconds") {
                options.seconds = std::stod(value);
            } else if (arg == "--instances") {
                options.instances = std::stoul(value);
            } else if (arg == "--seed") {
                options.seed = static_cast<std::uint32_t>(std::stoul(value));
            } else {
                usage();
                return 2;
            }
        } catch (const std::exception&) {
            usage();
            return 2;
        }
    }
    if (!(options.seconds > 0.0) || options.instances < 1000) {
        std::fprintf(stderr, "myriad_soak: --seconds must be > 0 and --instances >= 1000\n");
        return 2;
    }
    try {
        return run(options);
    } catch (const Failure& e) {
        std::fprintf(stderr, "myriad_soak: FAIL: %s\n", e.what());
    } catch (const myriad::Error& e) {
        std::fprintf(stderr, "myriad_soak: FAIL: myriad threw: %s\n", e.what());
    }
    return 1;
}
