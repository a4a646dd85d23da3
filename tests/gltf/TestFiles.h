#pragma once
// Helpers for the glTF tests: small .gltf files with an embedded buffer, written to a temporary
// folder, and a capture of myriad's log.
#include "myriad/util/Log.h"

#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/quaternion.hpp>
#include <glm/mat4x4.hpp>

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <fstream>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace myriad::test::gltf {

namespace fs = std::filesystem;

// ---- Helpers to write small .gltf files with an embedded buffer ----

inline std::string base64(std::span<const std::uint8_t> bytes) {
    static constexpr char kAlphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    for (std::size_t i = 0; i < bytes.size(); i += 3) {
        const std::size_t left = bytes.size() - i;
        const std::uint32_t chunk = (std::uint32_t{bytes[i]} << 16) |
                                    (left > 1 ? std::uint32_t{bytes[i + 1]} << 8 : 0u) |
                                    (left > 2 ? std::uint32_t{bytes[i + 2]} : 0u);
        out += kAlphabet[(chunk >> 18) & 63];
        out += kAlphabet[(chunk >> 12) & 63];
        out += left > 1 ? kAlphabet[(chunk >> 6) & 63] : '=';
        out += left > 2 ? kAlphabet[chunk & 63] : '=';
    }
    return out;
}

/** Little-endian binary data for one glTF buffer; each block starts 4-byte aligned. */
struct Blob {
    std::vector<std::uint8_t> bytes;

    template <class T>
    std::size_t add(std::initializer_list<T> values) {
        while (bytes.size() % 4 != 0) {
            bytes.push_back(0);
        }
        const std::size_t offset = bytes.size();
        bytes.resize(offset + values.size() * sizeof(T));
        std::memcpy(bytes.data() + offset, std::data(values), values.size() * sizeof(T));
        return offset;
    }
};

/** A glTF document put together from JSON fragments. */
struct Doc {
    Blob buffer;
    std::string bufferViews = "[]";
    std::string accessors = "[]";
    std::string meshes = "[]";
    std::string nodes = R"([{"mesh": 0}])";
    std::string scenes = R"([{"nodes": [0]}])";
    std::string extra;  ///< more top-level members, each followed by a comma

    [[nodiscard]] std::string json() const {
        return R"({"asset": {"version": "2.0"}, )" + extra + R"("scene": 0, "scenes": )" + scenes +
               R"(, "nodes": )" + nodes + R"(, "meshes": )" + meshes + R"(, "accessors": )" +
               accessors + R"(, "bufferViews": )" + bufferViews +
               R"(, "buffers": [{"byteLength": )" + std::to_string(buffer.bytes.size()) +
               R"(, "uri": "data:application/octet-stream;base64,)" + base64(buffer.bytes) +
               R"("}]})";
    }
};

/** Replaces the one occurrence of @p from in @p text; fails the test when it is not there. */
inline void replaceOnce(std::string& text, const std::string& from, const std::string& to) {
    const std::size_t at = text.find(from);
    REQUIRE(at != std::string::npos);
    REQUIRE(text.find(from, at + 1) == std::string::npos);
    text.replace(at, from.size(), to);
}

/** The minimal triangle (0,0,0) (1,0,0) (0,1,0): accessor 0 POSITION, accessor 1 indices. */
inline Doc triangle() {
    Doc doc;
    doc.buffer.add<float>({0, 0, 0, 1, 0, 0, 0, 1, 0});
    doc.buffer.add<std::uint16_t>({0, 1, 2});
    doc.bufferViews = R"([{"buffer": 0, "byteOffset": 0, "byteLength": 36},
                          {"buffer": 0, "byteOffset": 36, "byteLength": 6}])";
    doc.accessors = R"([{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
                         "min": [0, 0, 0], "max": [1, 1, 0]},
                        {"bufferView": 1, "componentType": 5123, "count": 3, "type": "SCALAR"}])";
    doc.meshes = R"([{"name": "tri",
                      "primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}])";
    return doc;
}

/** A folder of its own under the system temp folder, removed when the test process ends. */
inline const fs::path& tempDir() {
    struct Dir {
        fs::path path;
        Dir() {
            path = fs::temp_directory_path() /
                   ("myriad-gltf-test-" +
                    std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
            fs::create_directories(path);
        }
        ~Dir() {
            std::error_code ec;
            fs::remove_all(path, ec);
        }
    };
    static const Dir dir;
    return dir.path;
}

inline std::string writeFile(const std::string& name, const std::string& text) {
    const fs::path path = tempDir() / name;
    std::ofstream(path, std::ios::binary) << text;
    return path.string();
}

inline std::string writeDoc(const std::string& name, const Doc& doc) {
    return writeFile(name, doc.json());
}

/** The bytes of the BIN chunk of a .glb (glTF 2.0 section 4.4). */
inline std::vector<std::uint8_t> glbBinChunk(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(file)),
                                          std::istreambuf_iterator<char>());
    REQUIRE(bytes.size() > 20);
    std::uint32_t jsonLength = 0;
    std::memcpy(&jsonLength, bytes.data() + 12, 4);
    const std::size_t bin = 20 + jsonLength;
    REQUIRE(bytes.size() >= bin + 8);
    std::uint32_t binLength = 0;
    std::memcpy(&binLength, bytes.data() + bin, 4);
    REQUIRE(bytes.size() >= bin + 8 + binLength);
    return {bytes.begin() + static_cast<std::ptrdiff_t>(bin + 8),
            bytes.begin() + static_cast<std::ptrdiff_t>(bin + 8 + binLength)};
}

template <glm::length_t N>
inline glm::vec<N, float> floatsAt(const std::vector<std::uint8_t>& bin, std::size_t offset) {
    glm::vec<N, float> v;
    REQUIRE(offset + sizeof(v) <= bin.size());
    std::memcpy(&v, bin.data() + offset, sizeof v);
    return v;
}

/** SimpleInstancing's instance i as the file stores it: T * R * S from bufferViews 3, 4 and 5
 *  (TRANSLATION VEC3 at byte 720, ROTATION VEC4 at 2220, SCALE VEC3 at 4220 of the BIN chunk,
 *  125 float vectors each, as the file's JSON declares), computed with glm, not the importer. */
inline glm::mat4 simpleInstancingRecord(const std::vector<std::uint8_t>& bin, std::size_t i) {
    const glm::vec3 t = floatsAt<3>(bin, 720 + i * 12);
    const glm::vec4 r = floatsAt<4>(bin, 2220 + i * 16);
    const glm::vec3 s = floatsAt<3>(bin, 4220 + i * 12);
    return glm::translate(glm::mat4(1.0f), t) *
           glm::mat4_cast(glm::normalize(glm::quat(r.w, r.x, r.y, r.z))) *
           glm::scale(glm::mat4(1.0f), s);
}

/** Collects log messages for the lifetime of the object. */
class LogCapture {
public:
    LogCapture() {
        myriad::setLogCallback([this](myriad::LogLevel level, std::string_view message) {
            std::lock_guard lock(m_mutex);
            if (level == myriad::LogLevel::Warning) {
                m_warnings.emplace_back(message);
            } else if (level == myriad::LogLevel::Info) {
                m_infos.emplace_back(message);
            }
        });
    }
    ~LogCapture() { myriad::setLogCallback({}); }
    LogCapture(const LogCapture&) = delete;
    LogCapture& operator=(const LogCapture&) = delete;

    [[nodiscard]] std::vector<std::string> warnings() const {
        std::lock_guard lock(m_mutex);
        return m_warnings;
    }
    [[nodiscard]] std::vector<std::string> infos() const {
        std::lock_guard lock(m_mutex);
        return m_infos;
    }

private:
    mutable std::mutex m_mutex;
    std::vector<std::string> m_warnings;
    std::vector<std::string> m_infos;
};

} // namespace myriad::test::gltf
