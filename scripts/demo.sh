#!/usr/bin/env bash
# Builds the field demo in Release and runs it headless: writes field.png (or the path given).
# Usage: scripts/demo.sh [OUT.png|OUT.jpg] [02-field flags, e.g. --count 50000 --model PATH.glb]
# Paths (OUT, --out, --model) are taken relative to where you run the script from.
set -euo pipefail
here=$PWD
absolute() { case "$1" in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$here/$1" ;; esac; }

out=field.png
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then  # a first argument that is not a flag names the output
    out=$1
    shift
fi
flags=()
while [ $# -gt 0 ]; do
    case "$1" in
        --out|--model)
            if [ $# -lt 2 ]; then
                echo "demo.sh: $1 needs a value" >&2
                exit 2
            fi
            if [ "$1" = --out ]; then out=$2; else flags+=("$1" "$(absolute "$2")"); fi
            shift 2 ;;
        *) flags+=("$1"); shift ;;
    esac
done
out=$(absolute "$out")
if [ "${MYRIAD_DEMO_DRY_RUN:-0}" = 1 ]; then  # print the demo's arguments, build nothing (tests)
    printf '%s\n' "--out $out ${flags[*]+${flags[*]}}"
    exit 0
fi
mkdir -p "$(dirname "$out")"
cd "$(dirname "$0")/.."
scripts/install-deps.sh

build=build/release
launcher=()  # as test.sh and bench.sh: a warm ccache makes a fresh checkout's build short
command -v ccache >/dev/null 2>&1 && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMYRIAD_BUILD_TESTS=OFF -DMYRIAD_BUILD_EXAMPLES=ON \
    -DMYRIAD_BUILD_BENCHMARKS=OFF ${launcher[@]+"${launcher[@]}"}
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" --target 02-field
"$build/examples/02-field" --headless --frames 30 --out "$out" ${flags[@]+"${flags[@]}"}
