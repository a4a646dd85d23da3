#pragma once
// Shared pieces of the benchmark suite: timing, a Markdown report that goes to stdout and a
// file at once, peak memory, and the reference scene (Ogre's InstanceManager test).
#include "myriad/core/Camera.h"
#include "myriad/egl/HeadlessContext.h"
#include "myriad/gl/Draw.h"
#include "myriad/util/Error.h"

#include <glm/gtc/matrix_transform.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace myriad::bench {

using Clock = std::chrono::steady_clock;

inline double millisecondsSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

/** Median of @p values (copied). */
inline double median(std::vector<double> values) {
    if (values.empty()) {
        return 0.0;
    }
    std::nth_element(values.begin(), values.begin() + static_cast<long>(values.size() / 2), values.end());
    return values[values.size() / 2];
}

/** Peak resident memory of the process so far (VmHWM), MiB. */
inline double peakMemoryMiB() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("VmHWM:", 0) == 0) {
            return std::stod(line.substr(6)) / 1024.0;
        }
    }
    return 0.0;
}

/** Writes every line to stdout and to the report file (if open). */
class Report {
public:
    explicit Report(const std::string& path) {
        if (!path.empty()) {
            m_file.open(path);
        }
    }
    void blank() { line("%s", ""); }
    void line(const char* format, ...) __attribute__((format(printf, 2, 3))) {
        char buffer[2048];
        va_list args;
        va_start(args, format);
        std::vsnprintf(buffer, sizeof buffer, format, args);
        va_end(args);
        std::printf("%s\n", buffer);
        std::fflush(stdout);
        if (m_file) {
            m_file << buffer << "\n";
        }
    }

private:
    std::ofstream m_file;
};

/** Issue 5's reference scene: a grid of side ceil(sqrt N), spacing 2, on the XZ plane. */
inline std::size_t gridSide(std::size_t n) {
    return static_cast<std::size_t>(std::ceil(std::sqrt(static_cast<double>(n))));
}

inline glm::vec3 gridPosition(std::size_t i, std::size_t side) {
    return {static_cast<float>(i % side) * 2.0f, 0.0f, static_cast<float>(i / side) * 2.0f};
}

/** A camera that sees the whole grid. */
inline Camera gridCamera(std::size_t side) {
    const float extent = std::max(static_cast<float>(side) * 2.0f, 2.0f);
    Camera camera;
    camera.setPerspective(glm::radians(60.0f), 1.0f, 0.5f, extent * 5.0f);
    camera.lookAt(glm::dvec3(extent * 0.5, extent * 0.9, extent * 1.3),
                  glm::dvec3(extent * 0.5, 0.0, extent * 0.5));
    return camera;
}

/** The flags of a benchmark that scales one count over timed frames: --COUNT N, --frames F,
 *  --out FILE.md, --help (prints @p usage and exits 0). */
struct CountFramesOut {
    std::size_t count = 0;
    int frames = 10;
    std::string out;
};

/** Parses those flags (@p countFlag: "--props"; @p defaults: the values when not given).
 *  @throws InvalidArgument on an unknown flag, a missing value or a count or frames not
 *  above 0. */
inline CountFramesOut parseCountFramesOut(int argc, char** argv, const std::string& countFlag, CountFramesOut defaults,
                                          const char* usage) {
    CountFramesOut options = std::move(defaults);
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) {
                throw InvalidArgument(flag + " needs a value");
            }
            return argv[++i];
        };
        if (flag == countFlag) {
            options.count = std::stoul(value());
        } else if (flag == "--frames") {
            options.frames = std::stoi(value());
        } else if (flag == "--out") {
            options.out = value();
        } else if (flag == "--help" || flag == "-h") {
            std::fputs(usage, stdout);
            std::exit(0);
        } else {
            throw InvalidArgument("unknown flag " + flag + " (see --help)");
        }
    }
    if (options.count == 0 || options.frames <= 0) {
        throw InvalidArgument(countFlag + " and --frames must be positive");
    }
    return options;
}

/** A cheap integer hash to 0..1 (the lowbias32 finaliser), so benchmark scenes are scattered
 *  the same way every run without a random engine's state. */
inline float hash01(std::uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return static_cast<float>(x & 0xFFFFFFU) / static_cast<float>(0x1000000U);
}

/** The driver the numbers come from, one line: "GL_VENDOR / GL_RENDERER / GL_VERSION", marked
 *  when it renders in software (llvmpipe's numbers are CPU numbers). */
inline std::string driverLine(const egl::HeadlessContext& context) {
    return context.vendor() + " / " + context.renderer() + " / " + context.version() +
           (context.isSoftware() ? " (software rendering)" : "");
}

inline const char* verdict(bool pass) { return pass ? "PASS" : "MISS"; }

/** The `key=value` fields of every line of @p path that starts with "RESULT" (the Ogre peers'
 *  machine-readable lines, ../shared/peers/ogre and bench/ogre-crowd), in file order. A file
 *  that cannot be read gives none. */
inline std::vector<std::map<std::string, std::string>> readResultLines(const std::string& path) {
    std::vector<std::map<std::string, std::string>> lines;
    std::ifstream file(path);
    std::string line;
    while (std::getline(file, line)) {
        if (line.rfind("RESULT", 0) != 0) {
            continue;
        }
        std::map<std::string, std::string> fields;
        std::istringstream words(line.substr(6));
        std::string word;
        while (words >> word) {
            const std::size_t equals = word.find('=');
            if (equals != std::string::npos) {
                fields[word.substr(0, equals)] = word.substr(equals + 1);
            }
        }
        lines.push_back(std::move(fields));
    }
    return lines;
}

} // namespace myriad::bench
