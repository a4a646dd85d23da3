#!/usr/bin/env bash
# Builds and runs two small games that use myriad the ways a game can (tests/consumer/):
#   installed     find_package(myriad CONFIG) on a prefix that `cmake --install` filled, plus the
#                 same main.cpp built with nothing but `pkg-config --cflags --libs myriad`
#   subdirectory  add_subdirectory(<myriad> build-myriad) from outside myriad's tree, then the
#                 same build folder switched to FetchContent (SOURCE_DIR: no download)
# None of the four sets a C++ standard: C++20 comes from myriad's targets and myriad.pc.
# myriad is built once, in Release with tests, examples and benchmarks off, into
# build/consumers/; the prefix is a temporary folder removed at exit. CI (.ci/run) runs this.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh

jobs=$(nproc 2>/dev/null || echo 2)
launcher=()
if command -v ccache >/dev/null 2>&1; then
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
build=build/consumers
prefix=$(mktemp -d "${TMPDIR:-/tmp}/myriad-prefix.XXXXXX")
trap 'rm -rf "$prefix"' EXIT

step() { printf '\n== consumers: %s\n' "$*"; }

step "myriad, Release, installed into $prefix"
cmake -S . -B "$build/myriad" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMYRIAD_BUILD_TESTS=OFF \
    -DMYRIAD_BUILD_EXAMPLES=OFF -DMYRIAD_BUILD_BENCHMARKS=OFF "${launcher[@]}"
cmake --build "$build/myriad" -j "$jobs"
cmake --install "$build/myriad" --prefix "$prefix"
# Nothing private may leak into the installed interface.
if [ -d "$prefix/include/glad" ] || find "$prefix/include" -name '*.cpp' | grep -q .; then
    echo "consumers: private files were installed under $prefix/include" >&2
    exit 1
fi
if grep -rqE '#include *"(gl|core|egl|util)/' "$prefix/include/myriad"; then
    echo "consumers: an installed header includes a private src/ header" >&2
    exit 1
fi

step "installed: find_package(myriad CONFIG)"
cmake -S tests/consumer/installed -B "$build/installed" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$prefix" "${launcher[@]}"
cmake --build "$build/installed" -j "$jobs"
"$build/installed/consumer"

step "installed: pkg-config myriad"
mkdir -p "$build/pkg-config"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
pkg-config --modversion myriad
# No -std here: myriad.pc's Cflags carry -std=c++20 (g++ 12 defaults to gnu++17, too old for
# the headers), as the consumers' CMake builds above set no standard and rely on cxx_std_20.
# shellcheck disable=SC2046  # the flags are meant to split into words
c++ -O1 tests/consumer/main.cpp -o "$build/pkg-config/consumer" \
    $(pkg-config --cflags --libs myriad)
"$build/pkg-config/consumer"

step "subdirectory: add_subdirectory(<myriad> build-myriad)"
cmake -S tests/consumer/subdirectory -B "$build/subdirectory" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release -DCONSUMER_USE_FETCHCONTENT=OFF "${launcher[@]}"
cmake --build "$build/subdirectory" -j "$jobs"
"$build/subdirectory/consumer"

step "subdirectory: FetchContent (same build folder)"
cmake -S tests/consumer/subdirectory -B "$build/subdirectory" -DCONSUMER_USE_FETCHCONTENT=ON
cmake --build "$build/subdirectory" -j "$jobs"
"$build/subdirectory/consumer"

step "all consumers OK"
