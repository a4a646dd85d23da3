#!/usr/bin/env bash
# Re-makes the README's screenshots: each example renders itself headless (EGL; llvmpipe is
# enough) and writes its last frame to docs/images/<example>.png.
# Usage: scripts/screenshots.sh [EXAMPLE...]   (default: all; e.g. scripts/screenshots.sh 03-crowd)
# Builds the examples in Release into build/release (ccache when installed). Sizes are modest
# (640 wide; the grass field 480, whose fine detail PNG compresses poorly) so each PNG stays
# under 300 KB. About two minutes on llvmpipe.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh

build=build/release
launcher=()
if command -v ccache >/dev/null 2>&1; then
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMYRIAD_BUILD_TESTS=OFF -DMYRIAD_BUILD_EXAMPLES=ON \
    -DMYRIAD_BUILD_BENCHMARKS=OFF ${launcher[@]+"${launcher[@]}"} >/dev/null

# name | image | flags (each example's own defaults otherwise; --help lists them)
shots=(
    "01-squares|01-squares.png|--width 640 --height 320"
    "02-field|02-field.png|--width 480 --height 270"
    "02-field|02-field-churn.png|--width 480 --height 270 --mode churn"
    "03-crowd|03-crowd.png|--width 640 --height 360"
    "04-embers|04-embers.png|--width 640 --height 360"
    "02-field|02-field-wind.png|--width 480 --height 270 --mode wind --count 200000"
    "05-dissolve|05-dissolve.png|--width 640 --height 360"
    "06-gpu-swarm|06-gpu-swarm.png|--width 640 --height 360 --frames 120"   # the ring has formed by then
    "07-gallery|07-gallery.png|--width 640 --height 360"
    "08-instanced-arrays|08-instanced-arrays.png|--width 640 --height 320"
    "09-night|09-night.png|--width 640 --height 360"
)

wanted=("$@")
selected() {
    [ ${#wanted[@]} -eq 0 ] && return 0
    local w
    for w in "${wanted[@]}"; do [ "$w" = "$1" ] && return 0; done
    return 1
}

targets=()
for shot in "${shots[@]}"; do
    name=${shot%%|*}
    if selected "$name"; then targets+=("$name"); fi
done
if [ ${#targets[@]} -eq 0 ]; then
    echo "screenshots.sh: no example named $* (known: 01-squares 02-field 03-crowd 04-embers 05-dissolve 06-gpu-swarm 07-gallery 08-instanced-arrays 09-night)" >&2
    exit 2
fi
mapfile -t targets < <(printf '%s\n' "${targets[@]}" | sort -u)
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" --target "${targets[@]}"

mkdir -p docs/images
for shot in "${shots[@]}"; do
    IFS='|' read -r name image flags <<<"$shot"
    selected "$name" || continue
    echo "== $name $flags -> docs/images/$image"
    # shellcheck disable=SC2086  # flags are words on purpose
    "$build/examples/$name" --headless --quiet $flags --out "docs/images/$image"
done
ls -l docs/images/*.png
