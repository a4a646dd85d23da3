#include "gltf/Meshopt.h"

#include "myriad/util/Error.h"

#include <meshoptimizer.h>
#include <nlohmann/json.hpp>

#include <limits>

namespace myriad::gltf::detail {
namespace {

/** a * b, or nullopt past 64 bits. */
std::optional<std::uint64_t> product(std::uint64_t a, std::uint64_t b) {
    if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a) {
        return std::nullopt;
    }
    return a * b;
}

const tinygltf::Value* meshoptObject(const tinygltf::ExtensionMap& extensions) {
    for (const auto& [name, value] : extensions) {
        if (isMeshoptExtension(name)) {
            return &value;
        }
    }
    return nullptr;
}

}  // namespace

bool isMeshoptExtension(std::string_view name) {
    return name == "EXT_meshopt_compression" || name == "MESHOPT_compression";
}

std::optional<std::string> withPlaceholderBuffers(const std::string& json, bool glb,
                                                  std::vector<bool>& placeholders) {
    placeholders.clear();
    nlohmann::json document = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
    if (document.is_discarded() || !document.is_object() || !document.contains("buffers") ||
        !document["buffers"].is_array()) {
        return std::nullopt;
    }
    bool changed = false;
    nlohmann::json& buffers = document["buffers"];
    placeholders.assign(buffers.size(), false);
    for (std::size_t i = 0; i < buffers.size(); ++i) {
        nlohmann::json& buffer = buffers[i];
        if (!buffer.is_object() || buffer.contains("uri") || (glb && i == 0)) {
            continue;
        }
        buffer["uri"] = "data:application/octet-stream;base64,AAAAAA==";  // 4 zero bytes
        buffer["byteLength"] = 4;
        placeholders[i] = true;
        changed = true;
    }
    if (!changed) {
        return std::nullopt;
    }
    return document.dump();
}

std::vector<std::optional<std::vector<std::uint8_t>>>
decodeMeshoptViews(const tinygltf::Model& model, const std::vector<bool>& placeholders,
                   const std::string& path) {
    std::vector<std::optional<std::vector<std::uint8_t>>> decoded(model.bufferViews.size());
    for (std::size_t v = 0; v < model.bufferViews.size(); ++v) {
        const tinygltf::BufferView& view = model.bufferViews[v];
        const tinygltf::Value* extension = meshoptObject(view.extensions);
        if (extension == nullptr) {
            continue;
        }
        const std::string what = path + ": buffer view " + std::to_string(v) + " (EXT_meshopt_compression)";
        auto fail = [&](const std::string& why) { throw ImportError(what + ": " + why); };
        if (!extension->IsObject()) {
            fail("the extension is not an object");
        }
        auto integer = [&](const char* field, bool required) -> std::uint64_t {
            if (!extension->Has(field)) {
                if (required) {
                    fail(std::string(field) + " is missing");
                }
                return 0;
            }
            const tinygltf::Value& value = extension->Get(field);
            if (!value.IsInt() || value.Get<int>() < 0) {
                fail(std::string(field) + " is not an integer of at least 0");
            }
            return static_cast<std::uint64_t>(value.Get<int>());
        };
        auto text = [&](const char* field, const char* absent) -> std::string {
            if (!extension->Has(field)) {
                if (absent == nullptr) {
                    fail(std::string(field) + " is missing");
                }
                return absent;
            }
            const tinygltf::Value& value = extension->Get(field);
            if (!value.IsString()) {
                fail(std::string(field) + " is not a string");
            }
            return value.Get<std::string>();
        };
        const std::uint64_t source = integer("buffer", true);
        const std::uint64_t byteOffset = integer("byteOffset", false);
        const std::uint64_t byteLength = integer("byteLength", true);
        const std::uint64_t stride = integer("byteStride", true);
        const std::uint64_t count = integer("count", true);
        const std::string mode = text("mode", nullptr);
        const std::string filter = text("filter", "NONE");

        if (view.byteStride != 0 && view.byteStride != stride) {
            fail("byteStride " + std::to_string(stride) + " differs from the buffer view's " +
                 std::to_string(view.byteStride));
        }
        const std::optional<std::uint64_t> size = product(count, stride);
        if (!size || *size != view.byteLength) {
            fail("count " + std::to_string(count) + " x byteStride " + std::to_string(stride) +
                 (size ? " = " + std::to_string(*size) : std::string(" overflows")) +
                 " is not the buffer view's byteLength " + std::to_string(view.byteLength));
        }
        // A lower bound on the compressed size of count elements, from the bitstreams
        // (Appendix A): checked before the output is allocated, so a short input cannot ask for
        // a large allocation. The decoders check the exact layout.
        std::uint64_t least = 0;
        if (mode == "ATTRIBUTES") {
            if (stride == 0 || stride % 4 != 0 || stride > 256) {
                fail("byteStride " + std::to_string(stride) +
                     " is not a multiple of 4 from 4 to 256 (mode ATTRIBUTES)");
            }
            // Header byte, 2 header bits per group of 16 per byte of the element, the tail.
            const std::uint64_t groups = (count + 15) / 16;
            least = 1 + stride * ((groups + 3) / 4) + stride;
        } else if (mode == "TRIANGLES" || mode == "INDICES") {
            if (stride != 2 && stride != 4) {
                fail("byteStride " + std::to_string(stride) + " is not 2 or 4 (mode " + mode + ")");
            }
            if (mode == "TRIANGLES" && count % 3 != 0) {
                fail("count " + std::to_string(count) + " is not a multiple of 3 (mode TRIANGLES)");
            }
            if (filter != "NONE") {
                fail("filter " + filter + " with mode " + mode + " (only ATTRIBUTES has filters)");
            }
            least = 1 + (mode == "TRIANGLES" ? count / 3 : count);  // a byte per triangle / index
        } else {
            fail("mode '" + mode + "' is not ATTRIBUTES, TRIANGLES or INDICES");
        }
        if (filter == "OCTAHEDRAL" && stride != 4 && stride != 8) {
            fail("filter OCTAHEDRAL needs byteStride 4 or 8, not " + std::to_string(stride));
        } else if (filter == "QUATERNION" && stride != 8) {
            fail("filter QUATERNION needs byteStride 8, not " + std::to_string(stride));
        } else if (filter == "EXPONENTIAL" && stride % 4 != 0) {
            fail("filter EXPONENTIAL needs a byteStride that is a multiple of 4, not " +
                 std::to_string(stride));
        } else if (filter != "NONE" && filter != "OCTAHEDRAL" && filter != "QUATERNION" &&
                   filter != "EXPONENTIAL") {
            fail("filter '" + filter + "' is not NONE, OCTAHEDRAL, QUATERNION or EXPONENTIAL");
        }
        if (source >= model.buffers.size()) {
            fail("buffer " + std::to_string(source) + " is out of range (" +
                 std::to_string(model.buffers.size()) + " buffers)");
        }
        if (source < placeholders.size() && placeholders[source]) {
            fail("buffer " + std::to_string(source) +
                 " has no data (a fallback buffer without a uri) to decode from");
        }
        const std::vector<unsigned char>& bytes = model.buffers[source].data;
        if (byteOffset > bytes.size() || byteLength > bytes.size() - byteOffset) {
            fail("the compressed range (" + std::to_string(byteLength) + " bytes at offset " +
                 std::to_string(byteOffset) + ") runs past buffer " + std::to_string(source) + " (" +
                 std::to_string(bytes.size()) + " bytes)");
        }
        if (count > 0 && byteLength < least) {
            fail(std::to_string(byteLength) + " compressed bytes cannot hold " + std::to_string(count) +
                 " elements of " + std::to_string(stride) + " bytes (at least " +
                 std::to_string(least) + " needed)");
        }
        std::vector<std::uint8_t> out(static_cast<std::size_t>(*size));
        if (count > 0) {
            const unsigned char* input = bytes.data() + byteOffset;
            const auto n = static_cast<std::size_t>(count);
            const auto s = static_cast<std::size_t>(stride);
            const auto length = static_cast<std::size_t>(byteLength);
            int rc = 0;
            const char* decoder = "meshopt_decodeVertexBuffer";
            if (mode == "ATTRIBUTES") {
                rc = meshopt_decodeVertexBuffer(out.data(), n, s, input, length);
            } else if (mode == "TRIANGLES") {
                decoder = "meshopt_decodeIndexBuffer";
                rc = meshopt_decodeIndexBuffer(out.data(), n, s, input, length);
            } else {
                decoder = "meshopt_decodeIndexSequence";
                rc = meshopt_decodeIndexSequence(out.data(), n, s, input, length);
            }
            if (rc != 0) {
                fail(std::string(decoder) + " failed (" + std::to_string(rc) +
                     "): the compressed data is corrupt, of an unknown version, or not " +
                     std::to_string(byteLength) + " bytes long");
            }
            if (filter == "OCTAHEDRAL") {
                meshopt_decodeFilterOct(out.data(), n, s);
            } else if (filter == "QUATERNION") {
                meshopt_decodeFilterQuat(out.data(), n, s);
            } else if (filter == "EXPONENTIAL") {
                meshopt_decodeFilterExp(out.data(), n, s);
            }
        }
        decoded[v] = std::move(out);
    }
    return decoded;
}

}  // namespace myriad::gltf::detail
