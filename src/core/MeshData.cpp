#include "myriad/core/MeshData.h"

#include "core/Validate.h"
#include "myriad/util/Error.h"

#include <glm/common.hpp>
#include <glm/geometric.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <string>
#include <utility>

namespace myriad {
namespace {

std::uint64_t nextMeshSerial() noexcept {
    static std::atomic<std::uint64_t> counter{0};
    return ++counter;
}

template <class Index>
void checkIndices(const std::vector<Index>& indices, std::size_t vertexCount,
                  const std::string& where) {
    for (std::size_t i = 0; i < indices.size(); ++i) {
        if (indices[i] >= vertexCount) {
            throw OutOfRange(where + ": index " + std::to_string(i) + " is " +
                             std::to_string(indices[i]) + ", past the vertex count " +
                             std::to_string(vertexCount));
        }
    }
}

template <class Index>
std::vector<glm::vec3> smoothNormals(const std::vector<glm::vec3>& positions,
                                     const std::vector<Index>& indices) {
    std::vector<glm::vec3> normals(positions.size(), glm::vec3(0.0f));
    for (std::size_t i = 0; i + 2 < indices.size(); i += 3) {
        const glm::vec3& a = positions[indices[i]];
        const glm::vec3& b = positions[indices[i + 1]];
        const glm::vec3& c = positions[indices[i + 2]];
        const glm::vec3 faceNormal = glm::cross(b - a, c - a);  // length = 2 * area: weights
        normals[indices[i]] += faceNormal;
        normals[indices[i + 1]] += faceNormal;
        normals[indices[i + 2]] += faceNormal;
    }
    for (glm::vec3& n : normals) {
        const float length = glm::length(n);
        n = length > 0.0f ? n / length : glm::vec3(0.0f, 1.0f, 0.0f);
    }
    return normals;
}

/** What each VertexStorage is, in enumerator order: its name, bytes per component, the smallest
 *  and largest integer it stores (0, 0 for Float32), and whether the vertex fetch normalizes. */
struct StorageInfo {
    const char* name;
    std::uint32_t bytes;
    float low;
    float high;
    bool normalized;
};
constexpr StorageInfo kStorages[] = {
    {"Float32", 4, 0.0f, 0.0f, false},         {"UNorm8", 1, 0.0f, 255.0f, true},
    {"SNorm8", 1, -128.0f, 127.0f, true},      {"UNorm16", 2, 0.0f, 65535.0f, true},
    {"SNorm16", 2, -32768.0f, 32767.0f, true}, {"UScaled8", 1, 0.0f, 255.0f, false},
    {"SScaled8", 1, -128.0f, 127.0f, false},   {"UScaled16", 2, 0.0f, 65535.0f, false},
    {"SScaled16", 2, -32768.0f, 32767.0f, false},
};
static_assert(std::size(kStorages) == static_cast<std::size_t>(VertexStorage::SScaled16) + 1);

const StorageInfo& infoOf(VertexStorage storage) noexcept {
    const auto index = static_cast<std::size_t>(storage);
    return kStorages[index < std::size(kStorages) ? index : 0];
}

/** The integer @p value is stored as: round(v x max) for a normalized storage (max 255, 127,
 *  65535 or 32767; so -1 is -127, never -128), the value itself for a scaled one. */
float storedInteger(float value, VertexStorage storage) noexcept {
    const StorageInfo& info = infoOf(storage);
    return info.normalized ? std::round(value * info.high) : value;
}

/** @p value in as few digits as give it back ("2.5", "65535", "nan"). */
std::string shortest(float value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.9g", static_cast<double>(value));
    return text;
}

/** Checks @p values against @p storage and, for a normalized one, rounds each to its step (the
 *  value the GPU will read back). Throws InvalidArgument naming the attribute and vertex. */
template <glm::length_t N>
void encodeInPlace(std::vector<glm::vec<N, float>>& values, VertexStorage storage, const char* attribute,
                   const std::string& where) {
    if (storage == VertexStorage::Float32) {
        return;
    }
    const StorageInfo& info = infoOf(storage);
    const bool normalized = info.normalized;
    const float low = normalized ? (info.low < 0.0f ? -1.0f : 0.0f) : info.low;
    const float high = normalized ? 1.0f : info.high;
    for (std::size_t i = 0; i < values.size(); ++i) {
        for (glm::length_t c = 0; c < N; ++c) {
            float& v = values[i][c];
            const bool fits = v >= low && v <= high && (normalized || v == std::round(v));
            if (!fits) {  // NaN fails too
                throw InvalidArgument(where + ": " + attribute + " " + std::to_string(i) + " component " +
                                      std::to_string(c) + " is " + shortest(v) + ", which " + toString(storage) +
                                      " cannot hold (" + (normalized ? "a value" : "an integer") + " in [" +
                                      shortest(low) + ", " + shortest(high) + "])");
            }
            if (normalized) {
                v = std::max(storedInteger(v, storage) / info.high, -1.0f);
            }
        }
    }
}

void checkStorage(VertexStorage storage, std::initializer_list<VertexStorage> allowed, const char* attribute,
                  const std::string& where) {
    if (std::find(allowed.begin(), allowed.end(), storage) == allowed.end()) {
        std::string names;
        for (VertexStorage each : allowed) {
            names += (names.empty() ? "" : ", ") + std::string(toString(each));
        }
        throw InvalidArgument(where + ": encoding." + attribute + " is " + toString(storage) +
                              ", which a " + attribute + " cannot use (one of " + names + ")");
    }
}

PackedVertexLayout layoutOf(const MeshData& data) noexcept {
    PackedVertexLayout layout;
    // An absent attribute's constant fits UNorm8; an all-Float32 mesh keeps the one float
    // layout, so that every float mesh shares one vertex arena and one multi-draw group.
    const bool packs = data.encoding != VertexEncoding{};
    const VertexStorage absent = packs ? VertexStorage::UNorm8 : VertexStorage::Float32;
    std::uint32_t offset = 0;
    auto place = [&](PackedVertexLayout::Attribute& attribute, VertexStorage storage, std::uint32_t floatComponents,
                     std::uint32_t packedComponents) {
        attribute.storage = storage;
        attribute.components = storage == VertexStorage::Float32 ? floatComponents : packedComponents;
        attribute.offsetBytes = offset;
        offset += (attribute.components * componentBytes(storage) + 3) / 4 * 4;
    };
    place(layout.position, data.encoding.position, 3, 4);
    place(layout.normal, data.encoding.normal, 3, 4);
    place(layout.uv0, data.uv0.empty() ? absent : data.encoding.uv0, 2, 2);
    place(layout.color, data.colors.empty() ? absent : data.encoding.color, 4, 4);
    if (!data.joints.empty()) {  // a skinned mesh: its own layout (and arena), others unchanged
        place(layout.joints, VertexStorage::UScaled16, 4, 4);
        place(layout.weights, VertexStorage::Float32, 4, 4);
    }
    // Optional attributes as the skin's: only meshes that have them carry them (their own
    // layout and arena), so every other mesh keeps its 48-byte float layout.
    if (!data.uv1.empty()) {
        place(layout.uv1, VertexStorage::Float32, 2, 2);
    }
    if (!data.tangents.empty()) {
        place(layout.tangent, VertexStorage::Float32, 4, 4);
    }
    layout.strideBytes = offset;
    return layout;
}

/** Writes @p value as @p attribute says: its components, then, when the attribute stores more
 *  (a vec3 as four 8- or 16-bit components), @p pad in the last one. */
template <glm::length_t N>
void writeAttribute(std::byte* out, const glm::vec<N, float>& value, const PackedVertexLayout::Attribute& attribute,
                    float pad = 0.0f) {
    const StorageInfo& info = infoOf(attribute.storage);
    const bool isSigned = info.low < 0.0f;
    for (glm::length_t c = 0; static_cast<std::uint32_t>(c) < attribute.components; ++c) {
        const float v = c < N ? value[c] : pad;
        std::byte* component = out + info.bytes * static_cast<std::uint32_t>(c);
        // Values were checked to fit (encodeInPlace), so each cast is in range.
        const float stored = storedInteger(v, attribute.storage);
        if (attribute.storage == VertexStorage::Float32) {
            std::memcpy(component, &v, 4);
        } else if (info.bytes == 1) {
            const auto byte = isSigned ? static_cast<std::uint8_t>(static_cast<std::int8_t>(stored))
                                       : static_cast<std::uint8_t>(stored);
            std::memcpy(component, &byte, 1);
        } else {
            const auto half = isSigned ? static_cast<std::uint16_t>(static_cast<std::int16_t>(stored))
                                       : static_cast<std::uint16_t>(stored);
            std::memcpy(component, &half, 2);
        }
    }
}

} // namespace

std::uint32_t componentBytes(VertexStorage storage) noexcept { return infoOf(storage).bytes; }

const char* toString(VertexStorage storage) noexcept { return infoOf(storage).name; }

MeshGeometry::MeshGeometry(MeshData data, std::string name)
    : m_name(std::move(name)), m_id(nextMeshSerial()) {
    const std::string where = "MeshGeometry('" + m_name + "')";
    const std::size_t vertexCount = data.positions.size();
    if (vertexCount == 0) {
        throw InvalidArgument(where + ": mesh has no positions");
    }
    if (vertexCount > 0xFFFFFFFFu) {
        throw InvalidArgument(where + ": more than 2^32 vertices");
    }
    const bool has16 = !data.indices16.empty();
    const bool has32 = !data.indices32.empty();
    if (!has16 && !has32) {
        throw InvalidArgument(where + ": mesh has no indices (set indices16 or indices32)");
    }
    if (has16 && has32) {
        throw InvalidArgument(where + ": both indices16 and indices32 are set; use one");
    }
    const std::size_t indexCount = has16 ? data.indices16.size() : data.indices32.size();
    if (indexCount % 3 != 0) {
        throw InvalidArgument(where + ": index count " + std::to_string(indexCount) +
                              " is not a multiple of 3 (triangle lists only)");
    }
    auto checkSize = [&](std::size_t size, const char* field) {
        if (size != 0 && size != vertexCount) {
            throw InvalidArgument(where + ": " + field + " has " + std::to_string(size) +
                                  " entries, expected 0 or the vertex count " +
                                  std::to_string(vertexCount));
        }
    };
    checkSize(data.normals.size(), "normals");
    checkSize(data.uv0.size(), "uv0");
    checkSize(data.colors.size(), "colors");
    checkSize(data.joints.size(), "joints");
    checkSize(data.weights.size(), "weights");
    checkSize(data.uv1.size(), "uv1");
    checkSize(data.tangents.size(), "tangents");
    for (std::size_t i = 0; i < data.uv1.size(); ++i) {
        if (!detail::allFinite(data.uv1[i])) {
            throw InvalidArgument(where + ": uv1 " + std::to_string(i) + " has NaN or Inf");
        }
    }
    for (std::size_t i = 0; i < data.tangents.size(); ++i) {
        if (!detail::allFinite(data.tangents[i]) || data.tangents[i].w == 0.0f) {
            throw InvalidArgument(where + ": tangent " + std::to_string(i) +
                                  " has NaN or Inf, or handedness (w) 0; w must be +1 or -1");
        }
    }
    if (data.joints.size() != data.weights.size()) {
        throw InvalidArgument(where + ": " + std::to_string(data.joints.size()) + " joints and " +
                              std::to_string(data.weights.size()) + " weights; a skin needs both, one per vertex");
    }
    for (std::size_t i = 0; i < data.weights.size(); ++i) {
        glm::vec4& w = data.weights[i];
        const float sum = w.x + w.y + w.z + w.w;
        if (!detail::allFinite(w) || w.x < 0.0f || w.y < 0.0f || w.z < 0.0f || w.w < 0.0f || !(sum > 0.0f)) {
            throw InvalidArgument(where + ": vertex " + std::to_string(i) + " has skin weights (" + shortest(w.x) +
                                  ", " + shortest(w.y) + ", " + shortest(w.z) + ", " + shortest(w.w) +
                                  "); weights must be finite, >= 0 and not all 0");
        }
        w /= sum;  // glTF 3.7.3.3: they must sum to 1; a file's rounding error is taken out here
        for (glm::length_t k = 0; k < 4; ++k) {
            if (w[k] > 0.0f) {
                m_skinJointCount = std::max<std::size_t>(m_skinJointCount, std::size_t{data.joints[i][k]} + 1);
            }
        }
    }
    if (has16) {
        checkIndices(data.indices16, vertexCount, where);
    } else {
        checkIndices(data.indices32, vertexCount, where);
    }
    for (std::size_t i = 0; i < vertexCount; ++i) {
        if (!detail::allFinite(data.positions[i])) {
            throw InvalidArgument(where + ": position " + std::to_string(i) + " has NaN or Inf");
        }
    }
    using enum VertexStorage;
    const std::pair<VertexStorage, const char*> storages[] = {{data.encoding.position, "position"},
                                                              {data.encoding.normal, "normal"},
                                                              {data.encoding.uv0, "uv0"},
                                                              {data.encoding.color, "color"}};
    for (const auto& [storage, attribute] : storages) {
        if (static_cast<std::size_t>(storage) >= std::size(kStorages)) {
            throw InvalidArgument(where + ": encoding." + attribute + " is " +
                                  std::to_string(static_cast<int>(storage)) + ", not a VertexStorage");
        }
    }
    checkStorage(data.encoding.normal, {Float32, SNorm8, SNorm16}, "normal", where);
    checkStorage(data.encoding.color, {Float32, UNorm8, UNorm16}, "color", where);
    // Rounded before the bounds are taken, so the box holds what the GPU draws.
    encodeInPlace(data.positions, data.encoding.position, "position", where);
    encodeInPlace(data.uv0, data.encoding.uv0, "uv0", where);
    encodeInPlace(data.colors, data.encoding.color, "color", where);
    for (const glm::vec3& position : data.positions) {
        m_bounds.extend(position);
    }
    if (data.morphTargets.size() > kMaxMorphTargets) {
        throw InvalidArgument(where + ": " + std::to_string(data.morphTargets.size()) +
                              " morph targets, more than kMaxMorphTargets (" +
                              std::to_string(kMaxMorphTargets) + ")");
    }
    for (std::size_t t = 0; t < data.morphTargets.size(); ++t) {
        const MorphTarget& target = data.morphTargets[t];
        const std::string which = where + ": morph target " + std::to_string(t);
        if (target.positionDeltas.size() != vertexCount) {
            throw InvalidArgument(which + " has " + std::to_string(target.positionDeltas.size()) +
                                  " position deltas, expected the vertex count " +
                                  std::to_string(vertexCount));
        }
        if (!target.normalDeltas.empty() && target.normalDeltas.size() != vertexCount) {
            throw InvalidArgument(which + " has " + std::to_string(target.normalDeltas.size()) +
                                  " normal deltas, expected 0 or the vertex count");
        }
        for (const auto* deltas : {&target.positionDeltas, &target.normalDeltas}) {
            for (const glm::vec3& d : *deltas) {
                if (!detail::allFinite(d)) {
                    throw InvalidArgument(which + " has a NaN or Inf delta");
                }
            }
        }
        Aabb deltaBounds;
        for (const glm::vec3& d : target.positionDeltas) {
            deltaBounds.extend(d);
        }
        m_morphDeltaBounds.push_back(deltaBounds);  // vertexCount > 0: never empty
    }
    if (data.morphWeights.size() > data.morphTargets.size()) {
        throw InvalidArgument(where + ": " + std::to_string(data.morphWeights.size()) +
                              " default morph weights for " +
                              std::to_string(data.morphTargets.size()) + " targets");
    }
    for (float w : data.morphWeights) {
        if (!std::isfinite(w)) {
            throw InvalidArgument(where + ": a default morph weight is NaN or Inf");
        }
    }
    data.morphWeights.resize(data.morphTargets.size(), 0.0f);
    if (data.normals.empty()) {
        data.normals = has16 ? smoothNormals(data.positions, data.indices16)
                             : smoothNormals(data.positions, data.indices32);
    }
    if (data.encoding.normal != Float32) {
        // A normal of any length worked as float (the shader normalizes): one that does not fit
        // [-1, 1] is made unit length first, keeping its direction. One that fits is kept as it
        // is, so a quantized file's normals keep their integers exactly.
        for (glm::vec3& normal : data.normals) {
            const float largest = glm::max(glm::abs(normal.x), glm::max(glm::abs(normal.y), glm::abs(normal.z)));
            if (largest > 1.0f && std::isfinite(largest)) {
                normal /= glm::length(normal);
                normal = glm::clamp(normal, -1.0f, 1.0f);  // a unit vector's component can round past 1
            }
        }  // NaN and Inf are refused below
    }
    encodeInPlace(data.normals, data.encoding.normal, "normal", where);
    m_layout = layoutOf(data);
    m_data = std::move(data);
}

std::vector<std::byte> MeshGeometry::packedVertices() const {
    const PackedVertexLayout& layout = m_layout;
    std::vector<std::byte> bytes(static_cast<std::size_t>(vertexCount()) * layout.strideBytes, std::byte{0});
    const glm::vec2 noUv(0.0f);
    const glm::vec4 white(1.0f);
    for (std::size_t i = 0; i < vertexCount(); ++i) {
        std::byte* vertex = bytes.data() + i * layout.strideBytes;
        // w = 1, as GL fills in for a three-component attribute read as vec4 (section 10.2.1).
        writeAttribute(vertex + layout.position.offsetBytes, m_data.positions[i], layout.position, 1.0f);
        writeAttribute(vertex + layout.normal.offsetBytes, m_data.normals[i], layout.normal);
        writeAttribute(vertex + layout.uv0.offsetBytes, m_data.uv0.empty() ? noUv : m_data.uv0[i], layout.uv0);
        writeAttribute(vertex + layout.color.offsetBytes, m_data.colors.empty() ? white : m_data.colors[i],
                       layout.color);
        if (layout.joints.components != 0) {
            const glm::vec4 joints(m_data.joints[i]);  // each index fits UScaled16 exactly
            writeAttribute(vertex + layout.joints.offsetBytes, joints, layout.joints);
            writeAttribute(vertex + layout.weights.offsetBytes, m_data.weights[i], layout.weights);
        }
        if (layout.uv1.components != 0) {
            writeAttribute(vertex + layout.uv1.offsetBytes, m_data.uv1[i], layout.uv1);
        }
        if (layout.tangent.components != 0) {
            writeAttribute(vertex + layout.tangent.offsetBytes, m_data.tangents[i], layout.tangent);
        }
    }
    return bytes;
}

std::shared_ptr<const MeshGeometry> MeshGeometry::create(MeshData data, std::string name) {
    return std::make_shared<const MeshGeometry>(std::move(data), std::move(name));
}

Aabb MeshGeometry::morphedBounds(std::span<const float> weights) const noexcept {
    return morphedBounds(weights, weights);
}

Aabb MeshGeometry::morphedBounds(std::span<const float> lowWeights,
                                 std::span<const float> highWeights) const noexcept {
    Aabb bounds = m_bounds;
    for (std::size_t t = 0; t < m_morphDeltaBounds.size(); ++t) {
        const float low = t < lowWeights.size() ? lowWeights[t] : 0.0f;
        const float high = t < highWeights.size() ? highWeights[t] : 0.0f;
        if (low == 0.0f && high == 0.0f) {
            continue;
        }
        // Interval product [low, high] x [deltaMin, deltaMax], per axis: the extremes are
        // among the four end products (R. E. Moore, "Interval Analysis", 1966).
        const Aabb& delta = m_morphDeltaBounds[t];
        const glm::vec3 a = low * delta.min;
        const glm::vec3 b = low * delta.max;
        const glm::vec3 c = high * delta.min;
        const glm::vec3 d = high * delta.max;
        bounds.min += glm::min(glm::min(a, b), glm::min(c, d));
        bounds.max += glm::max(glm::max(a, b), glm::max(c, d));
    }
    return bounds;
}

std::uint32_t MeshGeometry::indexCount() const noexcept {
    return static_cast<std::uint32_t>(m_data.indices16.empty() ? m_data.indices32.size()
                                                               : m_data.indices16.size());
}

} // namespace myriad
