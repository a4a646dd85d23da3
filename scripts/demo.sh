#!/usr/bin/env bash
# Builds the field demo in Release and runs it headless: writes field.png (or the path given).
# Usage: scripts/demo.sh [OUT.png] [extra 02-field flags, e.g. --count 50000]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh

out=${1:-field.png}
shift || true
build=build/release
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMYRIAD_BUILD_TESTS=OFF \
    -DMYRIAD_BUILD_BENCHMARKS=OFF
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" --target 02-field
"$build/examples/02-field" --headless --frames 30 --out "$out" "$@"
