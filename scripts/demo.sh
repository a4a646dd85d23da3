#!/usr/bin/env bash
# Builds the field demo in Release and runs it headless: writes field.png (or the path given).
# Usage: scripts/demo.sh [OUT.png] [extra 02-field flags, e.g. --count 50000]
set -euo pipefail
out=${1:-field.png}
shift || true
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac  # relative to where you ran it from
mkdir -p "$(dirname "$out")"
cd "$(dirname "$0")/.."
scripts/install-deps.sh

build=build/release
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMYRIAD_BUILD_TESTS=OFF -DMYRIAD_BUILD_EXAMPLES=ON \
    -DMYRIAD_BUILD_BENCHMARKS=OFF
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" --target 02-field
"$build/examples/02-field" --headless --frames 30 --out "$out" "$@"
