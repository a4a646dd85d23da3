#!/usr/bin/env bash
# Builds the libFuzzer targets (clang-14; ASan + UBSan + coverage over the whole library, in
# build/fuzz) and runs each one for SECONDS (default 60, the CI smoke length), seeded with the
# shared glTF models and their images plus tests/fuzz/seeds and tests/fuzz/regressions.
# Exits non-zero when a fuzzer found a crash, a sanitizer report, a leak, an out-of-memory or a
# timeout; the input that did it lands in build/fuzz/crashes/ (reproduce: run the fuzzer binary
# with that file as its only argument). See docs/reliability.md.
#
# Usage: scripts/fuzz.sh [SECONDS] [gltf|image ...]      (default: both fuzzers)
# Environment: MYRIAD_ASSETS_DIR (default ../shared/assets/gltf), MYRIAD_FUZZ_CC/CXX
# (default clang-14 / clang++-14), MYRIAD_FUZZ_ARGS (extra libFuzzer flags),
# MYRIAD_FUZZ_RUNS (stop each fuzzer after that many inputs, SECONDS still the cap) and
# MYRIAD_FUZZ_SEED (libFuzzer's -seed; default 0, a new random seed each run).
# With both set and an empty corpus the run is reproducible: the same inputs in the same order
# on every machine, which is how CI runs it (.ci/run): a random walk would make CI fail at
# random on findings nobody has seen yet. Explore with plain SECONDS runs (docs/reliability.md).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
scripts/install-deps.sh

seconds=${1:-60}
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || [ "$seconds" -eq 0 ]; then
    echo "fuzz.sh: SECONDS must be a positive whole number, got '$seconds'" >&2
    exit 2
fi
runs_limit=${MYRIAD_FUZZ_RUNS:-}
seed=${MYRIAD_FUZZ_SEED:-0}
if [ -n "$runs_limit" ] && ! [[ "$runs_limit" =~ ^[1-9][0-9]*$ ]]; then
    echo "fuzz.sh: MYRIAD_FUZZ_RUNS must be a positive whole number, got '$runs_limit'" >&2
    exit 2
fi
if ! [[ "$seed" =~ ^[0-9]+$ ]]; then
    echo "fuzz.sh: MYRIAD_FUZZ_SEED must be a whole number, got '$seed'" >&2
    exit 2
fi
limits=(-max_total_time="$seconds" -seed="$seed")
if [ -n "$runs_limit" ]; then
    limits+=(-runs="$runs_limit")
fi
shift || true
fuzzers=("$@")
if [ ${#fuzzers[@]} -eq 0 ]; then
    fuzzers=(gltf image)
fi
for name in "${fuzzers[@]}"; do
    case "$name" in
        gltf | image) ;;
        *) echo "fuzz.sh: unknown fuzzer '$name' (gltf or image)" >&2; exit 2 ;;
    esac
done

cc=${MYRIAD_FUZZ_CC:-clang-14}
cxx=${MYRIAD_FUZZ_CXX:-clang++-14}
build=build/fuzz
assets=${MYRIAD_ASSETS_DIR:-$root/../shared/assets/gltf}

# ---- Is libFuzzer usable? (clang-14 + libclang-rt-14-dev on Debian 12) ----
if ! "$cxx" --version >/dev/null 2>&1; then
    echo "fuzz.sh: '$cxx --version' failed: install clang-14 (scripts/install-deps.sh does)" >&2
    exit 1
fi
probe_dir=$(mktemp -d)
trap 'rm -rf "$probe_dir"' EXIT
printf 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }\n' \
    >"$probe_dir/probe.cpp"
if ! "$cxx" -fsanitize=fuzzer,address,undefined "$probe_dir/probe.cpp" -o "$probe_dir/probe" \
        >"$probe_dir/probe.log" 2>&1 || ! "$probe_dir/probe" -runs=1 >>"$probe_dir/probe.log" 2>&1; then
    cat "$probe_dir/probe.log" >&2
    echo "fuzz.sh: '$cxx -fsanitize=fuzzer' does not link or run: install libclang-rt-14-dev" >&2
    exit 1
fi

# ---- Build: the library with sanitizers + coverage, the fuzzers with libFuzzer's main ----
# -O1 -g without NDEBUG: asserts stay on, stacks stay readable, runs stay fast enough.
sanitize="-fsanitize=address,undefined,fuzzer-no-link -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
cmake -S . -B "$build" -G Ninja \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_FLAGS="$sanitize" -DCMAKE_CXX_FLAGS="$sanitize" \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" \
    -DMYRIAD_BUILD_FUZZERS=ON -DMYRIAD_BUILD_EXAMPLES=OFF -DMYRIAD_BUILD_BENCHMARKS=OFF \
    -DMYRIAD_WITH_GLFW=OFF -DMYRIAD_ASSETS_DIR="$assets" >/dev/null
targets=()
for name in "${fuzzers[@]}"; do
    targets+=("myriad_${name}_fuzzer")
done
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" --target "${targets[@]}"

# ---- Seeds, rebuilt each run in the build tree (the shared assets are not committed) ----
seeds=$build/seeds
rm -rf "$seeds"
mkdir -p "$seeds/gltf" "$seeds/image" "$build/corpus" "$build/crashes" "$build/logs"
if [ -d "$assets" ]; then
    # .gltf files whose buffers and images are separate files get them inlined as data: URIs,
    # so the seed is one self-contained input that imports completely (the fuzzer writes each
    # input to a scratch folder where no .bin sits beside it).
    python3 - "$assets" "$seeds/gltf" <<'EOF'
import base64, json, mimetypes, pathlib, shutil, sys
assets, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
for path in sorted(assets.rglob("*")):
    name = "-".join(path.relative_to(assets).parts)
    if path.suffix == ".glb":
        shutil.copyfile(path, out / name)
    elif path.suffix == ".gltf":
        doc = json.loads(path.read_text())
        for item in doc.get("buffers", []) + doc.get("images", []):
            uri = item.get("uri")
            if uri and not uri.startswith("data:") and (path.parent / uri).is_file():
                mime = mimetypes.guess_type(uri)[0] or "application/octet-stream"
                data = base64.b64encode((path.parent / uri).read_bytes()).decode()
                item["uri"] = f"data:{mime};base64,{data}"
        (out / name).write_text(json.dumps(doc, separators=(",", ":")))
EOF
    find "$assets" -type f \( -iname '*.png' -o -iname '*.jpg' -o -iname '*.jpeg' \) \
        -exec cp {} "$seeds/image/" \;
else
    echo "fuzz.sh: warning: no shared assets at $assets; seeding with tests/fuzz/seeds only" >&2
fi
for kind in gltf image; do
    for dir in tests/fuzz/seeds/$kind tests/fuzz/regressions/$kind; do
        if [ -d "$dir" ]; then
            find "$dir" -maxdepth 1 -type f -exec cp {} "$seeds/$kind/" \;
        fi
    done
done

# ---- Run ----
symbolizer=$(command -v llvm-symbolizer-14 || command -v llvm-symbolizer || true)
if [ -n "$symbolizer" ]; then
    export ASAN_SYMBOLIZER_PATH=$symbolizer  # readable stacks in crash reports
fi
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
failed=()
for name in "${fuzzers[@]}"; do
    corpus=$build/corpus/$name
    log=$build/logs/$name.log
    mkdir -p "$corpus"
    dict=()
    if [ -f "tests/fuzz/$name.dict" ]; then
        dict=(-dict="tests/fuzz/$name.dict")
    fi
    before=$(find "$build/crashes" -type f | wc -l)
    echo "fuzz.sh: $name for ${runs_limit:+$runs_limit inputs or }${seconds}s, seed $seed (corpus $corpus, log $log)"
    started=$SECONDS
    set +e
    # New interesting inputs go to the first folder (the corpus kept between runs); the seeds
    # are only read. -timeout: one input taking 30 s is a denial of service for a game.
    # shellcheck disable=SC2086
    "$build/tests/fuzz/myriad_${name}_fuzzer" "${limits[@]}" -rss_limit_mb=2048 \
        -timeout=30 -print_final_stats=1 "${dict[@]}" \
        -artifact_prefix="$build/crashes/$name-" ${MYRIAD_FUZZ_ARGS:-} \
        "$corpus" "$seeds/$name" >"$log" 2>&1
    status=$?
    set -e
    after=$(find "$build/crashes" -type f | wc -l)
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    echo "fuzz.sh: $name: exit $status, ${runs:-?} executions in $((SECONDS - started))s, corpus $(find "$corpus" -type f | wc -l) inputs"
    grep -m1 "GltfFuzzer: note:" "$log" || true
    if [ "$status" -ne 0 ] || [ "$after" -gt "$before" ]; then
        failed+=("$name")
        echo "fuzz.sh: $name FOUND A PROBLEM; the end of $log:" >&2
        tail -n 60 "$log" >&2
        ls -1 "$build/crashes" >&2
    fi
done

if [ ${#failed[@]} -ne 0 ]; then
    echo "fuzz.sh: failed: ${failed[*]}; inputs in $build/crashes/ (minimise with -minimize_crash=1," \
         "then add them to tests/fuzz/regressions/, see docs/reliability.md)" >&2
    exit 1
fi
echo "fuzz.sh: no crash in ${fuzzers[*]} (${runs_limit:+at most $runs_limit inputs or }${seconds}s each)"
