#!/usr/bin/env bash
# Builds the field demo in Release and runs it headless: writes field.png (or the path given).
# Usage: scripts/demo.sh [OUT.png|OUT.jpg] [02-field flags, e.g. --count 50000 --model PATH.glb]
#        scripts/demo.sh --help   (answers at once: installs, configures and builds nothing)
# Paths (OUT, --out, --model) are taken relative to where you run the script from.
set -euo pipefail
here=$PWD
root=$(cd "$(dirname "$0")/.." && pwd)
absolute() { case "$1" in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$here/$1" ;; esac; }

usage() {
    cat <<'EOF'
Usage: scripts/demo.sh [OUT] [02-field flags]
Builds the field demo (examples/02-field, Release, in build/release) and runs it headless for
30 frames. The first run installs missing Debian packages (scripts/install-deps.sh) and builds.
  OUT              the image written: .png, or .jpg/.jpeg for a JPEG (default field.png);
                   relative to where you run the script. Same as --out OUT.
  02-field flags   passed on unchanged, e.g. --count 50000 --model PATH.glb --mode churn
                   --width 640 --height 360 (--model PATH relative to where you run the script)
  -h, --help       print this and exit
EOF
    field="$root/build/release/examples/02-field"
    if [ -x "$field" ]; then
        printf '\n02-field flags (%s --help):\n' "build/release/examples/02-field"
        "$field" --help
    else
        echo "02-field lists its own flags with --help once a first run has built it:"
        echo "  build/release/examples/02-field --help"
    fi
}

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
        -h|--help) usage; exit 0 ;;
        *) flags+=("$1"); shift ;;
    esac
done
out=$(absolute "$out")
if [ "${MYRIAD_DEMO_DRY_RUN:-0}" = 1 ]; then  # print the demo's arguments, build nothing (tests)
    printf '%s\n' "--out $out ${flags[*]+${flags[*]}}"
    exit 0
fi
mkdir -p "$(dirname "$out")"
cd "$root"
scripts/install-deps.sh

build=build/release
launcher=()  # as test.sh and bench.sh: a warm ccache makes a fresh checkout's build short
command -v ccache >/dev/null 2>&1 && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMYRIAD_BUILD_TESTS=OFF -DMYRIAD_BUILD_EXAMPLES=ON \
    -DMYRIAD_BUILD_BENCHMARKS=OFF ${launcher[@]+"${launcher[@]}"}
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" --target 02-field
"$build/examples/02-field" --headless --frames 30 --out "$out" ${flags[@]+"${flags[@]}"}
