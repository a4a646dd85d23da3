#!/usr/bin/env bash
# Builds the API reference from the public headers with Doxygen, failing on any warning.
# Usage: scripts/docs.sh   -> build/test/docs/html/index.html
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
build=build/test
if [ ! -f "$build/CMakeCache.txt" ]; then
    cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
fi
cmake --build "$build" --target myriad_docs
echo "API reference: $build/docs/html/index.html"
