#!/usr/bin/env bash
# The demos load gltfpack output of every shared model (issue 26): each .gltf / .glb under the
# shared assets is packed by gltfpack twice (default: KHR_mesh_quantization; -cc: also
# EXT_meshopt_compression), and 07-gallery draws each, 02-field scatters each -cc file, 03-crowd
# animates each one that has morph targets. A demo that fails, or draws nothing ("0 instances"),
# fails the test.
# Usage: gltfpack-demos.sh GLTFPACK ASSETS_DIR EXAMPLES_DIR OUT_DIR
set -u
gltfpack=$1 assets=$2 examples=$3 out=$4
if [ -z "$gltfpack" ]; then
    if [ -n "${CI:-}${MYRIAD_CI:-}" ]; then
        echo "gltfpack not found under CI; install the Debian package gltfpack" >&2
        exit 1
    fi
    echo "SKIPPED: gltfpack not found (Debian package gltfpack)"
    exit 77
fi
mkdir -p "$out"
failures=0 runs=0 unreadable=0
run() {  # run NAME COMMAND...: the command must exit 0 and draw something
    local name=$1
    shift
    runs=$((runs + 1))
    local output
    if ! output=$("$@" 2>&1) || ! printf '%s\n' "$output" | grep -Eq "summary: .*[1-9][0-9]* instances"; then
        printf 'FAILED: %s\n%s\n' "$name" "$output" >&2
        failures=$((failures + 1))
    else
        printf 'ok: %s: %s\n' "$name" "$(printf '%s\n' "$output" | grep -E '^summary:' | tail -n 1)"
    fi
}
while IFS= read -r model; do
    base=$(basename "${model%.*}")
    for flags in "" "-cc"; do
        packed="$out/$base${flags:+-cc}.glb"
        if ! "$gltfpack" -i "$model" -o "$packed" $flags > "$packed.log" 2>&1; then
            # gltfpack 0.18's reader (cgltf) refuses simple-instancing.glb ("invalid GLTF"),
            # which myriad and glTF-Validator read: nothing packed, nothing for a demo to load.
            if grep -q "^Error loading $model: invalid GLTF" "$packed.log"; then
                printf 'not packed: gltfpack cannot read %s (%s)\n' "$model" "$(cat "$packed.log")"
                unreadable=$((unreadable + 1))
                continue
            fi
            printf 'FAILED: gltfpack %s %s\n' "$flags" "$model" >&2
            cat "$packed.log" >&2
            failures=$((failures + 1))
            continue
        fi
        run "07-gallery $base $flags" "$examples/07-gallery" --headless --frames 1 --count 9 \
            --width 96 --height 64 --quiet --model "$packed"
        if [ "$flags" = "-cc" ]; then
            run "02-field $base -cc" "$examples/02-field" --headless --frames 1 --count 50 \
                --width 96 --height 64 --quiet --model "$packed"
            if grep -q '"targets"' "$model" 2>/dev/null || grep -aq '"targets"' "$model"; then
                run "03-crowd $base -cc" "$examples/03-crowd" --headless --frames 1 --count 9 \
                    --width 96 --height 64 --quiet --model "$packed"
            fi
        fi
    done
done < <(find "$assets" \( -name '*.gltf' -o -name '*.glb' \) | sort)
echo "$runs demo runs, $failures failed; $unreadable packings skipped (gltfpack cannot read the original)"
[ "$failures" -eq 0 ]
