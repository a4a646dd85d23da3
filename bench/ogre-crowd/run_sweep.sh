#!/usr/bin/env bash
# The README's figures: every mode at N=1000 and N=10000, REPS repetitions interleaved
# (rep 1 of everything, then rep 2, ...), default frames (5 warm-up + 30 timed), 256x256.
# Usage (from anywhere): bench/ogre-crowd/run_sweep.sh BINARY [OUT]   (OUT default results/raw.txt)
# Run it under xvfb-run, e.g.  xvfb-run -a -s "-screen 0 640x480x24" bench/ogre-crowd/run_sweep.sh build/bench/ogre-crowd/ogre_crowd_bench
set -euo pipefail
bin=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
out=$(realpath -m "${2:-$here/results/raw.txt}")
reps=${REPS:-3}
mkdir -p "$(dirname "$out")"
work=$(mktemp -d)   # Ogre writes its log into the working folder
: > "$out"
for rep in $(seq "$reps"); do
    for n in 1000 10000; do
        for mode in hwvtf hwvtf-lut vtf naive; do
            line=$(cd "$work" && "$bin" --mode "$mode" -n "$n" | grep '^RESULT') || line="FAILED mode=$mode n=$n"
            echo "$line rep=$rep" | tee -a "$out"
        done
    done
done
rm -rf "$work"
