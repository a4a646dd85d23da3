#!/usr/bin/env bash
# Builds the benchmark suite in Release, runs it, and writes bench-results.md and
# bench-plot.png (CPU ms per frame against N, instanced vs one draw per node, log-log).
# Usage: scripts/bench.sh [--quick]
# About 2 minutes on 2 cores after the Release build; --quick stops the scene tables at 10k.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
if ! command -v gnuplot >/dev/null 2>&1; then
    echo "myriad: installing gnuplot-nox for the plot"
    sudo_cmd=()
    [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
    "${sudo_cmd[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends gnuplot-nox
fi

build=build/bench
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMYRIAD_BUILD_TESTS=OFF -DMYRIAD_BUILD_EXAMPLES=OFF \
    -DMYRIAD_BUILD_BENCHMARKS=ON
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" --target myriad_suite
"$build/bench/myriad_suite" "$@" --out bench-results.md --plot-data "$build/bench-plot.dat"

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
