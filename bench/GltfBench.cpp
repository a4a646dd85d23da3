// glTF import benchmark (issue 26, docs/performance.md): prints a table, asserts nothing.
// For Fox and each Kenney platformer .glb, as shipped and through gltfpack (its defaults, which
// quantize: KHR_mesh_quantization; and -cc, which also compresses: EXT_meshopt_compression):
//   - the file's bytes;
//   - importScene() time, the median of --runs runs (after one untimed import);
//   - the vertex and index bytes of the GPU copy, summed over the distinct meshes
//     (vertexCount x vertexLayout().strideBytes + indexCount x 2 or 4), and the same with every
//     attribute widened to float (the layout MeshGeometry gives a float mesh), to show the saving;
//   - FrameStats::bytesUploaded of the first frame of a fresh renderer drawing the model into a
//     64x64 target (vertices, indices, textures, records, tables: everything that frame sent).
// Ratio columns are against the original model of the same run.
// gltfpack (Debian package gltfpack) runs at bench time into a temporary folder, removed at exit.
//   myriad_gltf_bench [--runs N] [--adaptive-malloc] (--help describes them)
#include "BenchSupport.h"

#include "myriad/core/Camera.h"
#include "myriad/core/MeshData.h"
#include "myriad/core/MeshNode.h"
#include "myriad/core/Scene.h"
#include "myriad/egl/HeadlessContext.h"
#include "myriad/gl/OffscreenTarget.h"
#include "myriad/gl/Renderer.h"
#include "myriad/gltf/GltfImporter.h"
#include "myriad/util/Log.h"

#include <glm/geometric.hpp>
#include <glm/trigonometric.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <malloc.h>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <system_error>
#include <unistd.h>
#include <vector>

using namespace myriad;
namespace fs = std::filesystem;

namespace {

constexpr int kDefaultRuns = 20;

void printUsage(const char* program) {
    std::printf("usage: %s [--runs N] [--adaptive-malloc] [--help]\n"
                "Import time and GPU bytes of the shared glTF models (Fox, the Kenney platformer kit),\n"
                "as shipped and through gltfpack (default flags, and -cc); a Markdown table on stdout,\n"
                "progress on stderr.\n"
                "  --runs N  timed importScene() calls per model and variant, the median reported\n"
                "            (N >= 1; default %d; one untimed import comes first)\n"
                "  --adaptive-malloc  keep glibc's adaptive mmap threshold (default: fixed at 64 MiB, so\n"
                "            a decoded texture is not mapped and faulted in afresh on some imports\n"
                "            and not others, by the allocator's history)\n"
                "  --help    this text\n"
                "gltfpack: %s\nmodels:   %s\n",
                program, kDefaultRuns, MYRIAD_GLTFPACK[0] != '\0' ? MYRIAD_GLTFPACK : "(not found at configure time)",
                MYRIAD_ASSETS_DIR);
}

/** A gltfpack run: none for the original file. */
struct Variant {
    const char* name;   ///< the table's label
    const char* flags;  ///< gltfpack flags after -i/-o; nullptr: the original file
    const char* suffix; ///< output file name suffix
};

constexpr Variant kVariants[] = {
    {"original", nullptr, ""},
    {"gltfpack", "", "-default"},
    {"gltfpack -cc", "-cc", "-cc"},
};

struct Measurement {
    bool ok = false;
    std::string error;
    std::uintmax_t fileBytes = 0;
    double importMs = 0.0;
    std::uint64_t vertices = 0;
    std::uint64_t vertexBytes = 0;  ///< of packedBytes, the vertex buffers
    std::uint64_t packedBytes = 0;  ///< vertex + index bytes as uploaded
    std::uint64_t floatBytes = 0;   ///< the same with every attribute Float32
    std::uint64_t uploadedBytes = 0;
    std::string encodings;  ///< the distinct storages, position/normal/uv0/colour, ", " between
};

/** Stride of the layout MeshGeometry gives @p mesh's values with every attribute Float32 (the
 *  library's answer: 48 bytes, absent attributes included). */
std::uint32_t floatStride(const MeshGeometry& mesh) {
    MeshData data = mesh.data();
    data.encoding = VertexEncoding{};
    return MeshGeometry(std::move(data)).vertexLayout().strideBytes;
}

/** Sums vertex and index bytes over the distinct meshes drawn under @p root. */
void countMeshBytes(const SceneNode& root, Measurement& m) {
    std::set<std::uint64_t> seen;
    std::set<std::string> encodings;
    root.traverse([&](const SceneNode& node) {
        if (node.kind() != NodeKind::Mesh && node.kind() != NodeKind::InstancedMesh) {
            return;
        }
        const auto& meshNode = static_cast<const MeshNode&>(node);
        for (std::size_t p = 0; p < meshNode.primitiveCount(); ++p) {
            const MeshGeometry& mesh = *meshNode.primitiveMesh(p);
            if (!seen.insert(mesh.id()).second) {
                continue;
            }
            const std::uint64_t indexBytes =
                std::uint64_t{mesh.indexCount()} * (mesh.indexType() == IndexType::UInt16 ? 2u : 4u);
            const PackedVertexLayout& layout = mesh.vertexLayout();
            encodings.insert(std::string(toString(layout.position.storage)) + "/" + toString(layout.normal.storage) +
                             "/" + (mesh.data().uv0.empty() ? "-" : toString(layout.uv0.storage)) + "/" +
                             (mesh.hasColors() ? toString(layout.color.storage) : "-"));
            m.vertices += mesh.vertexCount();
            m.vertexBytes += std::uint64_t{mesh.vertexCount()} * mesh.vertexLayout().strideBytes;
            m.packedBytes += std::uint64_t{mesh.vertexCount()} * mesh.vertexLayout().strideBytes + indexBytes;
            m.floatBytes += std::uint64_t{mesh.vertexCount()} * floatStride(mesh) + indexBytes;
        }
    });
    for (const std::string& encoding : encodings) {
        m.encodings += (m.encodings.empty() ? "" : ", ") + encoding;
    }
}

/** A camera that sees the whole of @p bounds (world space) from the front and above. */
Camera framingCamera(const Aabb& bounds) {
    const glm::vec3 centre = bounds.empty() ? glm::vec3(0.0f) : bounds.centre();
    const float radius = bounds.empty() ? 1.0f : std::max(glm::length(bounds.halfExtent()), 1e-3f);
    Camera camera;
    camera.setPerspective(glm::radians(60.0f), 1.0f, radius * 0.05f, radius * 10.0f);
    camera.lookAt(glm::dvec3(centre) + glm::dvec3(0.0, radius * 0.8, radius * 2.2), glm::dvec3(centre));
    return camera;
}

Measurement measure(const std::string& path, const std::string& label, int runs, const gl::OffscreenTarget& target) {
    Measurement m;
    std::error_code error;
    m.fileBytes = fs::file_size(path, error);
    if (error) {
        m.error = "cannot read " + path + ": " + error.message();
        return m;
    }
    try {
        std::fprintf(stderr, "[%s] importing %d+1 times\n", label.c_str(), runs);
        gltf::ImportedScene imported = gltf::importScene(path);  // untimed: fills the file cache
        std::vector<double> times;
        for (int r = 0; r < runs; ++r) {
            const auto start = bench::Clock::now();
            const gltf::ImportedScene again = gltf::importScene(path);
            times.push_back(bench::millisecondsSince(start));
        }
        m.importMs = bench::median(times);
        countMeshBytes(*imported.root, m);

        std::fprintf(stderr, "[%s] first frame\n", label.c_str());
        Scene scene;
        scene.root().add(std::move(imported.root));
        const Camera camera = framingCamera(scene.root().subtreeBounds());
        gl::Renderer renderer;
        renderer.render(scene, camera, target);
        m.uploadedBytes = renderer.lastFrameStats().bytesUploaded;
        m.ok = true;
    } catch (const std::exception& e) {
        m.error = e.what();
    }
    return m;
}

/** "1.00" style ratio of @p value to @p reference; "-" without a reference. */
std::string ratio(double value, double reference) {
    if (reference <= 0.0) {
        return "-";
    }
    char text[32];
    std::snprintf(text, sizeof text, "%.2f", value / reference);
    return text;
}

/** Single-quoted for /bin/sh. */
std::string shellQuoted(const std::string& text) {
    std::string out = "'";
    for (const char c : text) {
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    }
    return out + "'";
}

/** Removes the temporary folder on every way out of main(). */
struct TemporaryFolder {
    fs::path path;
    ~TemporaryFolder() {
        std::error_code ignored;
        fs::remove_all(path, ignored);
    }
};

} // namespace

int main(int argc, char** argv) {
    int runs = kDefaultRuns;
    bool adaptiveMalloc = false;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
            printUsage(argv[0]);
            return 0;
        }
        if (std::strcmp(argv[i], "--adaptive-malloc") == 0) {
            adaptiveMalloc = true;
            continue;
        }
        if (std::strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
            char* end = nullptr;
            const long value = std::strtol(argv[++i], &end, 10);
            if (end == argv[i] || *end != '\0' || value < 1 || value > 1'000'000) {
                std::fprintf(stderr, "%s: --runs takes a whole number from 1 to 1000000, not '%s'\n", argv[0], argv[i]);
                return 2;
            }
            runs = static_cast<int>(value);
            continue;
        }
        std::fprintf(stderr, "%s: unknown or incomplete argument '%s' (see --help)\n", argv[0], argv[i]);
        return 2;
    }

    // glibc serves a block above its mmap threshold (128 KiB at first, raised to the size of each
    // mapped block freed) with a fresh mapping, faulted in page by page: whether Fox's 4 MiB
    // decoded texture is mapped anew on an import then depends on what the models before it
    // freed (on the shared VM, 8 ms against 40 ms for the same file). A fixed threshold keeps
    // every import on the heap, so the variants compare the importer's work.
    if (!adaptiveMalloc) {
        mallopt(M_MMAP_THRESHOLD, 64 << 20);
        mallopt(M_TRIM_THRESHOLD, 256 << 20);
    }
    const std::string gltfpack = MYRIAD_GLTFPACK;
    if (gltfpack.empty() || !fs::exists(gltfpack)) {
        std::fprintf(stderr,
                     "%s: gltfpack %s; install the Debian package gltfpack and configure again "
                     "(cmake finds it as MYRIAD_GLTFPACK_EXECUTABLE)\n",
                     argv[0], gltfpack.empty() ? "was not found at configure time" : ("is missing: " + gltfpack).c_str());
        return 1;
    }
    const fs::path assets = MYRIAD_ASSETS_DIR;
    std::vector<fs::path> models = {assets / "Fox" / "Fox.glb"};
    for (const char* name : {"character", "coin", "grass", "grass-small"}) {
        models.push_back(assets / "KenneyPlatformerKit" / (std::string(name) + ".glb"));
    }
    for (const fs::path& model : models) {
        if (!fs::exists(model)) {
            std::fprintf(stderr, "%s: model %s not found (MYRIAD_ASSETS_DIR is %s)\n", argv[0], model.c_str(),
                         MYRIAD_ASSETS_DIR);
            return 1;
        }
    }

    // The importer warns about the same things (Fox's skin and animations) on every import: each
    // distinct warning once.
    std::mutex logMutex;
    std::set<std::string> warned;
    setLogCallback([&](LogLevel level, std::string_view message) {
        if (level < LogLevel::Warning) {
            return;
        }
        const std::lock_guard lock(logMutex);
        if (warned.emplace(message).second) {
            std::fprintf(stderr, "%s (shown once)\n", std::string(message).c_str());
        }
    });

    TemporaryFolder temporary{fs::temp_directory_path() / ("myriad-gltf-bench-" + std::to_string(::getpid()))};
    fs::create_directories(temporary.path);

    std::optional<egl::HeadlessContext> context;
    try {
        context.emplace();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: no GL context: %s\n", argv[0], e.what());
        return 1;
    }
    std::printf("Driver: %s\n", bench::driverLine(*context).c_str());
    std::printf("gltfpack: %s; importScene() median of %d runs (malloc: %s); first frame into 64x64\n\n",
                gltfpack.c_str(), runs, adaptiveMalloc ? "glibc's adaptive mmap threshold" : "mmap threshold 64 MiB");
    const gl::OffscreenTarget target(64, 64);

    std::printf("| model | variant | file bytes | x | import ms | x | vertices | position/normal/uv/colour | bytes/vertex | vertex+index bytes | x "
                "| as float | saved | first-frame upload bytes | x |\n");
    std::printf("|---|---|--:|--:|--:|--:|--:|---|--:|--:|--:|--:|--:|--:|--:|\n");
    bool failed = false;
    for (const fs::path& model : models) {
        const std::string stem = model.stem().string();
        Measurement original;
        for (const Variant& variant : kVariants) {
            const std::string label = stem + " " + variant.name;
            std::string path = model.string();
            Measurement m;
            if (variant.flags != nullptr) {
                const fs::path out = temporary.path / (stem + variant.suffix + ".glb");
                const fs::path logFile = temporary.path / (stem + variant.suffix + ".log");
                const std::string command = shellQuoted(gltfpack) + " -i " + shellQuoted(model.string()) + " -o " +
                                            shellQuoted(out.string()) + " " + variant.flags + " > " +
                                            shellQuoted(logFile.string()) + " 2>&1";
                std::fprintf(stderr, "[%s] %s\n", label.c_str(), command.c_str());
                if (std::system(command.c_str()) != 0) {
                    m.error = "gltfpack failed (" + command + ")";
                }
                path = out.string();
            }
            if (m.error.empty()) {
                m = measure(path, label, runs, target);
            }
            if (variant.flags == nullptr) {
                original = m;
            }
            if (!m.ok) {
                failed = true;
                std::fprintf(stderr, "[%s] FAILED: %s\n", label.c_str(), m.error.c_str());
                std::printf("| %s | %s | failed: %s |||||||||||||\n", stem.c_str(), variant.name, m.error.c_str());
                continue;
            }
            std::printf("| %s | %s | %ju | %s | %.2f | %s | %ju | %s | %.1f | %ju | %s | %ju | %.0f%% | %ju | %s |\n",
                        stem.c_str(), variant.name, m.fileBytes,
                        ratio(static_cast<double>(m.fileBytes), original.ok ? static_cast<double>(original.fileBytes) : 0.0).c_str(),
                        m.importMs, ratio(m.importMs, original.ok ? original.importMs : 0.0).c_str(),
                        static_cast<std::uintmax_t>(m.vertices), m.encodings.c_str(),
                        m.vertices > 0 ? static_cast<double>(m.vertexBytes) / static_cast<double>(m.vertices) : 0.0,
                        static_cast<std::uintmax_t>(m.packedBytes),
                        ratio(static_cast<double>(m.packedBytes), original.ok ? static_cast<double>(original.packedBytes) : 0.0).c_str(),
                        static_cast<std::uintmax_t>(m.floatBytes),
                        m.floatBytes > 0 ? 100.0 * (1.0 - static_cast<double>(m.packedBytes) / static_cast<double>(m.floatBytes)) : 0.0,
                        static_cast<std::uintmax_t>(m.uploadedBytes),
                        ratio(static_cast<double>(m.uploadedBytes), original.ok ? static_cast<double>(original.uploadedBytes) : 0.0).c_str());
        }
    }
    std::printf("\nx: against the original model in this run. vertex+index bytes: the distinct meshes' GPU copy "
                "(vertexCount x stride + indices); as float: the same with every attribute Float32; saved: 1 - "
                "vertex+index / as float. first-frame upload: FrameStats::bytesUploaded of a fresh renderer's first "
                "frame (meshes, textures, records, tables).\n");
    return failed ? 1 : 0;
}
