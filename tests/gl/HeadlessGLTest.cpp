// Headless contexts choose a GPU over software (issue 19, fault 5): hardware EGL devices come
// before Mesa's surfaceless platform, which on a machine with NVIDIA's driver and Mesa both is
// llvmpipe; software renderers are recognised; requireHardware refuses software with a message
// that says what was found; the renderer is reported.
#include "support/GlTest.h"

#include "egl/PlatformOrder.h"
#include "myriad/gl/Loader.h"
#include "myriad/util/Error.h"

#include <cstdlib>
#include <string>
#include <vector>

using namespace myriad;
using namespace myriad::test;
using egl::detail::Candidate;
using egl::detail::CandidateKind;

TEST_CASE("headless contexts try hardware EGL devices before surfaceless, then software devices", "[headless]") {
    // Device 0 is Mesa's llvmpipe device, device 1 an NVIDIA GPU, device 2 a GPU Mesa drives.
    const std::vector<std::string> devices{
        "EGL_MESA_device_software",
        "EGL_NV_device_cuda EGL_EXT_device_drm EGL_EXT_device_drm_render_node",
        "EGL_EXT_device_drm EGL_EXT_device_drm_render_node",
    };
    const std::vector<Candidate> expected{
        {CandidateKind::HardwareDevice, 1}, {CandidateKind::HardwareDevice, 2}, {CandidateKind::Surfaceless, 0},
        {CandidateKind::SoftwareDevice, 0}, {CandidateKind::Default, 0},
    };
    const std::vector<Candidate> order = egl::detail::candidateOrder(devices, true);
    std::string names;
    for (const Candidate& c : order) {
        names += egl::detail::candidateName(c) + "; ";
    }
    INFO("order: " << names);
    CHECK(order == expected);

    // No surfaceless platform (NVIDIA's libEGL alone): devices, hardware first, then default.
    const std::vector<Candidate> noSurfaceless = egl::detail::candidateOrder(devices, false);
    REQUIRE(noSurfaceless.size() == 4);
    CHECK(noSurfaceless[0] == Candidate{CandidateKind::HardwareDevice, 1});
    CHECK(noSurfaceless[2] == Candidate{CandidateKind::SoftwareDevice, 0});
    CHECK(noSurfaceless[3] == Candidate{CandidateKind::Default, 0});
}

TEST_CASE("software renderers and Mesa's software EGL device are recognised", "[headless]") {
    CHECK(egl::detail::isSoftwareRenderer("llvmpipe (LLVM 15.0.6, 256 bits)"));
    CHECK(egl::detail::isSoftwareRenderer("softpipe"));
    CHECK(egl::detail::isSoftwareRenderer("Mesa X11 swrast"));
    CHECK(egl::detail::isSoftwareRenderer("zink Vulkan 1.3(llvmpipe (LLVM 15.0.6, 256 bits) (MESA_LLVMPIPE))"));
    CHECK(egl::detail::isSoftwareRenderer("Google SwiftShader"));
    CHECK_FALSE(egl::detail::isSoftwareRenderer("NVIDIA H200/PCIe/SSE2"));
    CHECK_FALSE(egl::detail::isSoftwareRenderer("AMD Radeon RX 7900 XTX (radeonsi, navi31, LLVM 15.0.7, DRM 3.54)"));
    CHECK_FALSE(egl::detail::isSoftwareRenderer("Mesa Intel(R) UHD Graphics 630 (CFL GT2)"));
    CHECK(egl::detail::isSoftwareDevice("EGL_EXT_device_drm EGL_MESA_device_software"));
    CHECK_FALSE(egl::detail::isSoftwareDevice("EGL_MESA_device_software_not EGL_EXT_device_drm"));
    CHECK_FALSE(egl::detail::isSoftwareDevice("EGL_NV_device_cuda EGL_EXT_device_drm"));
}

namespace {

/** requireHardware on this machine: where the default context is software (no GPU the driver
 *  can reach, as on CI's llvmpipe), it must throw naming what it found; on a GPU it must give
 *  a hardware context. */
void checkRequireHardware(const egl::HeadlessContext& shared, const egl::HeadlessContextDesc& desc) {
    if (shared.isSoftware()) {
        try {
            const egl::HeadlessContext hardware(desc);
            FAIL("requireHardware gave a context on " << hardware.renderer());
        } catch (const GlError& error) {
            const std::string message = error.what();
            INFO(message);
            CHECK(message.find("hardware OpenGL is required") != std::string::npos);
            CHECK(message.find("only software rendering is available") != std::string::npos);
            CHECK(message.find(shared.renderer()) != std::string::npos);  // e.g. "llvmpipe (LLVM ...)"
        }
        // The caller's context is current again after the refusal.
        CHECK_NOTHROW(gl::requireCurrentContext("HeadlessGLTest"));
    } else {
        const egl::HeadlessContext hardware(desc);
        CHECK_FALSE(hardware.isSoftware());
        CHECK_FALSE(egl::detail::isSoftwareRenderer(hardware.renderer()));
    }
}

} // namespace

TEST_CASE("a headless context reports its renderer, and requireHardware refuses software rendering", "[headless]") {
    egl::HeadlessContext& shared = context();
    INFO("GL_VENDOR " << shared.vendor() << ", GL_RENDERER " << shared.renderer() << ", GL_VERSION "
                      << shared.version() << ", platform " << shared.platform());
    CHECK_FALSE(shared.vendor().empty());
    CHECK_FALSE(shared.renderer().empty());
    CHECK(shared.renderer() != "?");
    CHECK(shared.version().find("4.") != std::string::npos);
    CHECK(shared.description() == shared.renderer() + " / " + shared.version());
    if (egl::detail::isSoftwareRenderer(shared.renderer())) {
        CHECK(shared.isSoftware());
    }

    egl::HeadlessContextDesc desc;
    desc.requireHardware = true;
    checkRequireHardware(shared, desc);

    // The environment variable does the same for a default desc (CI on a GPU runner).
    {
        struct Variable {  // unset again however the check ends
            Variable() { ::setenv("MYRIAD_EGL_REQUIRE_HARDWARE", "1", 1); }
            ~Variable() { ::unsetenv("MYRIAD_EGL_REQUIRE_HARDWARE"); }
        } variable;
        checkRequireHardware(shared, egl::HeadlessContextDesc{});
    }
    // Unset, the default accepts whatever there is.
    const egl::HeadlessContext any;
    CHECK(any.isSoftware() == shared.isSoftware());
    context();
}
