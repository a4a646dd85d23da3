#pragma once
// gltfpack (Debian package gltfpack) run by a test at test time (issue 26): its output goes into
// the build folder, so no converted file is checked in. Needs MYRIAD_GLTFPACK (the program's
// path, empty when CMake did not find it) and MYRIAD_GLTFPACK_OUT (the folder), which
// tests/CMakeLists.txt defines for the binaries that use it.
//
// Without gltfpack a test prints why and exits with 77, which ctest reports as skipped; under
// CI (CI or MYRIAD_CI set) that is a failure instead, as tests/shaders/check-variants.sh does
// for glslangValidator.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <iostream>
#include <string>

namespace myriad::test {

/** Runs gltfpack on @p input (a path) with @p flags, writing MYRIAD_GLTFPACK_OUT/@p output
 *  (its log beside it, output + ".log"); returns the written file's path. */
inline std::string gltfpack(const std::string& input, const std::string& output, const std::string& flags = "") {
    const std::string program = MYRIAD_GLTFPACK;
    if (program.empty()) {
        if (std::getenv("CI") != nullptr || std::getenv("MYRIAD_CI") != nullptr) {
            FAIL("gltfpack not found under CI; install the Debian package gltfpack (scripts/install-deps.sh)");
        }
        std::cout << "SKIPPED: gltfpack not found (Debian package gltfpack); configure again after installing it\n";
        std::exit(77);
    }
    const std::string out = std::string(MYRIAD_GLTFPACK_OUT) + "/" + output;
    const std::string command =
        "'" + program + "' -i '" + input + "' -o '" + out + "' " + flags + " > '" + out + ".log' 2>&1";
    INFO(command);
    REQUIRE(std::system(command.c_str()) == 0);
    return out;
}

} // namespace myriad::test
