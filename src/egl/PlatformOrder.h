#pragma once
// Internal to myriad_egl: which EGL platforms and devices HeadlessContext tries, in which order,
// and what counts as software rendering. No EGL types, so tests can drive it with made-up
// device lists (tests/gl/HeadlessGLTest.cpp).
#include <algorithm>
#include <cctype>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace myriad::egl::detail {

enum class CandidateKind { HardwareDevice, Surfaceless, SoftwareDevice, Default };

/** One display to try: a device of EGL_EXT_device_enumeration by index, Mesa's surfaceless
 *  platform, or eglGetDisplay(EGL_DEFAULT_DISPLAY). */
struct Candidate {
    CandidateKind kind = CandidateKind::Default;
    std::size_t device = 0;  ///< index into the enumerated devices (device kinds only)
    friend bool operator==(const Candidate&, const Candidate&) = default;
};

inline bool containsWord(std::string_view list, std::string_view word) {
    for (std::size_t at = list.find(word); at != std::string_view::npos; at = list.find(word, at + 1)) {
        const bool startOk = at == 0 || list[at - 1] == ' ';
        const std::size_t end = at + word.size();
        if (startOk && (end == list.size() || list[end] == ' ')) {
            return true;
        }
    }
    return false;
}

/** True for a device whose EGL_EXTENSIONS (eglQueryDeviceStringEXT) mark it as Mesa's software
 *  device (EGL_MESA_device_software). NVIDIA's devices list EGL_NV_device_cuda and
 *  EGL_EXT_device_drm, Mesa's GPU devices EGL_EXT_device_drm. */
inline bool isSoftwareDevice(std::string_view deviceExtensions) {
    return containsWord(deviceExtensions, "EGL_MESA_device_software");
}

/** True when GL_RENDERER names a software rasterizer: Mesa's llvmpipe, softpipe and swrast
 *  (also under zink: "zink (llvmpipe ...)"), Google's SwiftShader. Case-insensitive. */
inline bool isSoftwareRenderer(std::string_view renderer) {
    std::string lower(renderer);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    for (std::string_view name : {"llvmpipe", "softpipe", "swrast", "software rasterizer", "swiftshader"}) {
        if (lower.find(name) != std::string::npos) {
            return true;
        }
    }
    return false;
}

/** The order HeadlessContext tries displays in: every hardware device (enumeration order), then
 *  the surfaceless platform (when offered; Mesa picks a GPU it drives or falls back to
 *  llvmpipe), then every software device, then the default display. @p deviceExtensions: each
 *  enumerated device's EGL_EXTENSIONS string, in enumeration order. */
inline std::vector<Candidate> candidateOrder(std::span<const std::string> deviceExtensions, bool hasSurfaceless) {
    std::vector<Candidate> order;
    for (std::size_t i = 0; i < deviceExtensions.size(); ++i) {
        if (!isSoftwareDevice(deviceExtensions[i])) {
            order.push_back({CandidateKind::HardwareDevice, i});
        }
    }
    if (hasSurfaceless) {
        order.push_back({CandidateKind::Surfaceless, 0});
    }
    for (std::size_t i = 0; i < deviceExtensions.size(); ++i) {
        if (isSoftwareDevice(deviceExtensions[i])) {
            order.push_back({CandidateKind::SoftwareDevice, i});
        }
    }
    order.push_back({CandidateKind::Default, 0});
    return order;
}

/** "device 0 (hardware)", "surfaceless", "device 1 (software)", "default": for messages. */
inline std::string candidateName(const Candidate& candidate) {
    switch (candidate.kind) {
    case CandidateKind::HardwareDevice: return "device " + std::to_string(candidate.device) + " (hardware)";
    case CandidateKind::Surfaceless: return "surfaceless";
    case CandidateKind::SoftwareDevice: return "device " + std::to_string(candidate.device) + " (software)";
    case CandidateKind::Default: return "default";
    }
    return "?";
}

} // namespace myriad::egl::detail
