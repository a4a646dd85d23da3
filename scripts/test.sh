#!/usr/bin/env bash
# Builds myriad and runs every test (CPU, GL pixel tests on headless EGL, examples headless).
# Usage: scripts/test.sh            (build in build/test, RelWithDebInfo)
#        MYRIAD_SANITIZE=1 scripts/test.sh   (AddressSanitizer + UBSan, in build/asan)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh

jobs=$(nproc 2>/dev/null || echo 2)
# ccache, when installed, lets several checkouts of the same tree share compiled objects.
launcher=()
if command -v ccache >/dev/null 2>&1; then
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
if [ "${MYRIAD_SANITIZE:-0}" = "1" ]; then
    build=build/asan
    cmake --preset asan "${launcher[@]}"
    # LeakSanitizer is off for the GL driver's sake: Mesa keeps process-lifetime allocations.
    export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
    export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
else
    build=build/test
    cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}"
fi
cmake --build "$build" -j "$jobs"
ctest --test-dir "$build" --output-on-failure -j "$jobs"
