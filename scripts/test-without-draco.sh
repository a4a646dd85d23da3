#!/usr/bin/env bash
# The glTF importer built with -DMYRIAD_DRACO=OFF (issue 26: the Draco option is off-able and
# tested both ways): a file that requires KHR_draco_mesh_compression is refused by name, and every
# other glTF test still passes. Builds only the glTF test binary, in build/no-draco (Release), and
# runs all its cases; the Draco-ON side is the ordinary suite (scripts/test.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh

launcher=()
if command -v ccache >/dev/null 2>&1; then
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
build=build/no-draco
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMYRIAD_DRACO=OFF \
    -DMYRIAD_BUILD_EXAMPLES=OFF -DMYRIAD_BUILD_BENCHMARKS=OFF "${launcher[@]}"
if grep -q '^MYRIAD_DRACO:BOOL=ON' "$build/CMakeCache.txt"; then
    echo "test-without-draco: MYRIAD_DRACO is still ON in $build" >&2
    exit 1
fi
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" --target myriad_gltf_tests
# Every case, the Draco-less refusal (GltfImportTest.cpp, MYRIAD_TEST_DRACO 0) among them.
"$build/tests/myriad_gltf_tests" --order lex
