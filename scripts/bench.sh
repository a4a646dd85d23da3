#!/usr/bin/env bash
# Builds the benchmark suite in Release, runs it, and writes bench-results.md and
# bench-plot.png (CPU ms per frame against N, instanced vs one draw per node, log-log).
# Usage: scripts/bench.sh [--quick] [--only SECTIONS] [--help]
# About 2 minutes on 2 cores after the Release build; --quick stops the scene tables at 10k.
# Ogre's InstanceManager (the peer benchmark in ../shared/peers/ogre, or $MYRIAD_OGRE_PEER) is
# built once into the build folder and run in the same run, under xvfb-run; its per-phase
# figures are printed beside myriad's. MYRIAD_SKIP_OGRE=1 leaves it out.
# --only SECTIONS (digits, as myriad_suite takes them) runs those sections alone: the Ogre peer
# only when section 1 (the scenes it is compared with) runs, the plot only when section 2 (its
# data) runs; the other flags go to myriad_suite as they are.
set -euo pipefail
cd "$(dirname "$0")/.."
only=""
args=("$@")
for ((i = 0; i < ${#args[@]}; ++i)); do
    case ${args[i]} in
        --only)
            if [ $((i + 1)) -ge ${#args[@]} ] || ! [[ ${args[i + 1]} =~ ^[0-9]+$ ]]; then
                echo "myriad: --only takes section digits, e.g. --only 4 or --only 14" >&2
                exit 2
            fi
            only=${args[i + 1]} ;;
        --help|-h)
            sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'
            exit 0 ;;
    esac
done
wants() { [ -z "$only" ] || [[ $only == *"$1"* ]]; }
# install_missing WHAT PACKAGE...: apt-installs the packages not yet installed, and xvfb-run's
# (xvfb, xauth) when it is missing, saying what they are for.
install_missing() {
    local what=$1 missing=() package
    shift
    for package in "$@"; do
        dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
    done
    command -v xvfb-run >/dev/null 2>&1 || missing+=(xvfb xauth)
    if [ ${#missing[@]} -gt 0 ]; then
        echo "myriad: installing ${missing[*]} for $what"
        local sudo_cmd=()
        [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
        "${sudo_cmd[@]}" apt-get update -qq
        DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
    fi
}
scripts/install-deps.sh
if ! command -v gnuplot >/dev/null 2>&1; then
    echo "myriad: installing gnuplot-nox for the plot"
    sudo_cmd=()
    [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
    "${sudo_cmd[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends gnuplot-nox
fi

build=build/bench
launcher=()
command -v ccache >/dev/null 2>&1 && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMYRIAD_BUILD_TESTS=OFF -DMYRIAD_BUILD_EXAMPLES=OFF \
    -DMYRIAD_BUILD_BENCHMARKS=ON "${launcher[@]}"
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" --target myriad_suite myriad_crowd_bench myriad_occlusion_bench myriad_lights_bench myriad_lamp_shadows_bench

# ---- Ogre 1.12 InstanceManager (HWInstancingBasic), the same scene, in this run ----------------
ogre_args=()
peer=${MYRIAD_OGRE_PEER:-../shared/peers/ogre}
if ! wants 1; then
    echo "myriad: Ogre peer not run: it is compared with section 1, which --only $only leaves out"
elif [ "${MYRIAD_SKIP_OGRE:-0}" != 1 ] && [ -f "$peer/ogre_inst_bench.cpp" ]; then
    install_missing "the Ogre peer" libogre-1.12-dev libgl-dev
    # Built once into our own build folder (the peer's folder is read-only); cmake skips it after.
    cmake -S "$peer" -B "$build/ogre-peer" -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" >/dev/null
    cmake --build "$build/ogre-peer" -j "$(nproc 2>/dev/null || echo 2)"
    ogre_bin="$(pwd)/$build/ogre-peer/ogre_inst_bench"
    ogre_results="$(pwd)/$build/ogre-results.txt"
    mkdir -p "$build/ogre-run"   # Ogre writes its log into the working folder
    : > "$ogre_results"
    sizes=(1000 10000 100000)
    case " $* " in *" --quick "*) sizes=(1000 10000) ;; esac
    for n in "${sizes[@]}"; do
        case $n in 1000) frames="--warmup 5 --frames 30" ;; 10000) frames="--warmup 3 --frames 10" ;; *) frames="--warmup 2 --frames 5" ;; esac
        for motion in static anim; do
            # shellcheck disable=SC2086
            (cd "$build/ogre-run" && xvfb-run -a -s "-screen 0 640x480x24" "$ogre_bin" --mode hw --motion "$motion" \
                -n "$n" --res 64 $frames 2>&1 | grep "^RESULT" >> "$ogre_results") || echo "myriad: the Ogre peer failed at N=$n $motion"
        done
    done
    ogre_args=(--ogre "$ogre_results")
else
    echo "myriad: Ogre peer not run (MYRIAD_SKIP_OGRE=1, or no $peer): Ogre's figures are the ones typed in (not measured here)"
fi

# ---- Ogre 1.12 skeletal instancing (HWInstancingVTF, ...), the Fox crowd, in this run -----------
# bench/ogre-crowd (see its README): built once into $build/ogre-crowd, run for N=1000 and 10000 in
# every mode; its RESULT lines go to $build/ogre-crowd-results.txt. Same conditions as the peer above.
crowd_src=bench/ogre-crowd
if ! wants 1; then
    echo "myriad: Ogre crowd not run: it runs with section 1, which --only $only leaves out"
elif [ "${MYRIAD_SKIP_OGRE:-0}" != 1 ] && [ -f "$crowd_src/ogre_crowd_bench.cpp" ]; then
    install_missing "the Ogre crowd" libogre-1.12-dev libgl-dev libtinygltf-dev nlohmann-json3-dev
    cmake -S "$crowd_src" -B "$build/ogre-crowd" -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" >/dev/null
    cmake --build "$build/ogre-crowd" -j "$(nproc 2>/dev/null || echo 2)"
    crowd_bin="$(pwd)/$build/ogre-crowd/ogre_crowd_bench"
    crowd_results="$(pwd)/$build/ogre-crowd-results.txt"
    mkdir -p "$build/ogre-crowd-run"   # Ogre writes its log into the working folder
    : > "$crowd_results"
    for n in 1000 10000; do
        case $n in 1000) frames="--warmup 5 --frames 30" ;; *) frames="--warmup 2 --frames 10" ;; esac
        for mode in hwvtf hwvtf-lut vtf naive; do
            # shellcheck disable=SC2086
            (cd "$build/ogre-crowd-run" && xvfb-run -a -s "-screen 0 640x480x24" "$crowd_bin" --mode "$mode" \
                -n "$n" $frames 2>&1 | grep "^RESULT" >> "$crowd_results") || echo "myriad: the Ogre crowd failed at N=$n $mode"
        done
    done
    echo "myriad: Ogre crowd figures in $crowd_results"
else
    echo "myriad: Ogre crowd not run (MYRIAD_SKIP_OGRE=1, or no $crowd_src)"
fi

"$build/bench/myriad_suite" "$@" "${ogre_args[@]}" --out bench-results.md --plot-data "$build/bench-plot.dat"

# Skinned crowds (issue 21): Fox x N as one animated batch and as N skinned MeshNodes, with the
# Ogre crowd's RESULT lines of this run beside them; appended to bench-results.md.
crowd_args=()
[ -s "$build/ogre-crowd-results.txt" ] && crowd_args=(--ogre "$build/ogre-crowd-results.txt")
case " $* " in *" --quick "*) crowd_args+=(--counts 1000) ;; esac
if wants 1; then
    "$build/bench/myriad_crowd_bench" "${crowd_args[@]}" --out "$build/crowd-results.md"
    { echo; cat "$build/crowd-results.md"; } >> bench-results.md
fi

# Occlusion culling (issue 22): 100,000 props in a city seen from a street, four culling set-ups.
if wants 1; then
    "$build/bench/myriad_occlusion_bench" --out "$build/occlusion-results.md"
    { echo; cat "$build/occlusion-results.md"; } >> bench-results.md
fi

# Lamps (issue 20): a field of props under 0, 16 and 256 lamps, and 256 without clusters.
if wants 1; then
    "$build/bench/myriad_lights_bench" --out "$build/lights-results.md"
    { echo; cat "$build/lights-results.md"; } >> bench-results.md
fi

# Lamp shadows (issue 20): static casters cached against drawn every frame.
if wants 1; then
    "$build/bench/myriad_lamp_shadows_bench" --out "$build/lamp-shadows-results.md"
    { echo; cat "$build/lamp-shadows-results.md"; } >> bench-results.md
fi

if ! wants 2; then
    echo "wrote bench-results.md (no plot: it draws section 2, which --only $only leaves out)"
    exit 0
fi
rm -f bench-plot.png  # never leave an empty or stale plot behind a failed gnuplot
gnuplot <<PLOT
set terminal pngcairo size 900,600
set output "bench-plot.png"
set title "CPU ms per frame, one-triangle mesh, llvmpipe (solid: myriad + glDraw* calls; dashed: myriad alone)"
set logscale xy
set xrange [500:200000]
set xlabel "instances N"
set ylabel "CPU ms per frame"
set key top left
set grid
plot "$build/bench-plot.dat" using 1:2 with linespoints lw 2 lc 1 title "one InstancedMeshNode (1 draw call)", \
     "$build/bench-plot.dat" using 1:3 with linespoints lw 2 lc 2 title "N MeshNodes (N draw calls)", \
     "$build/bench-plot.dat" using 1:4 with linespoints lw 2 lc 1 dt 2 title "one InstancedMeshNode, myriad alone", \
     "$build/bench-plot.dat" using 1:5 with linespoints lw 2 lc 2 dt 2 title "N MeshNodes, myriad alone"
PLOT
echo "wrote bench-results.md and bench-plot.png"
