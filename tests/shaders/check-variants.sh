#!/usr/bin/env bash
# Every GLSL program the renderer can build, checked by a second compiler: Khronos's reference
# front end (glslangValidator, Debian glslang-tools) as GLSL 4.50 core, the language the driver
# is given, so GLSL that only Mesa accepts fails here (docs/shaders.md).
# Usage: check-variants.sh DUMP_TOOL OUT_DIR [DUMP_TOOL ARGUMENTS...]
# Exit status: 0 all pass; 1 any error (each printed with its file), or no validator under CI; 77 (ctest: skipped) when
# glslangValidator is not installed.
set -euo pipefail
tool=$1
out=$2
shift 2
validator=${GLSLANG_VALIDATOR:-glslangValidator}
if ! command -v "$validator" >/dev/null 2>&1; then
    if [ -n "${CI:-}" ]; then  # CI installs it (scripts/install-deps.sh): missing there is a failure
        echo "FAILED: $validator not found under CI; install Debian glslang-tools"
        exit 1
    fi
    echo "SKIPPED: $validator not found; install Debian glslang-tools (scripts/install-deps.sh does)"
    exit 77
fi
echo "$("$validator" --version | head -n 1)"

rm -rf "$out"
"$tool" "$out" "$@"
cd "$out"

# Plain glslangValidator: GLSL semantics for the version each file declares (#version 450
# core), no SPIR-V. Not -G/--target-env opengl: that is GLSL for ARB_gl_spirv, which demands a
# layout(location) on every uniform and varying, a different language from what glShaderSource
# compiles. -l links a program's stages, so their interfaces are matched as GL's linker does.
jobs=$(nproc 2>/dev/null || echo 2)
# Runs the validator on "$@"; on failure prints only the files that have messages, each
# followed by its messages (the validator names every file it reads, good or not).
check() {
    local log
    if ! log=$("$validator" "$@" 2>&1); then
        printf '%s\n' "$log" | awk '
            /\.(vert|frag|comp)$/ && !/ / { file = $0; shown = 0; next }
            /^[[:space:]]*$/ { next }
            { if (!shown) { print "FAILED: " file; shown = 1 } print "    " $0 }'
        return 1
    fi
}
export -f check
export validator
status=0
# One program per link line; the compile-only files 64 to a run (the validator's start-up,
# built-in symbol tables, costs more than a file). Failures collect in failures.txt.
{
    sed -n 's/^link //p' programs.txt | xargs -P "$jobs" -L 1 bash -c 'check -l "$@"' _ || status=1
    sed -n 's/^compile //p' programs.txt | xargs -P "$jobs" -n 64 bash -c 'check "$@"' _ || status=1
} > failures.txt
if [ "$status" -ne 0 ]; then
    # One fault usually breaks many variants: each distinct message once (the variant's file
    # name taken out; the line is the shader file's own, thanks to #line, or the surface
    # function's), with how many files have it and the first of them; then the first files.
    echo "glslangValidator rejected $(grep -c '^FAILED: ' failures.txt) files; distinct errors:"
    awk '
        /^FAILED: / { file = substr($0, 9); next }
        # (skipped: the error counts, and the linker echoing a stage that did not compile)
        /^    ERROR: / && !/compilation (errors|terminated)/ && !/Missing entry point/ {
            message = $0; sub(/^    ERROR: /, "", message)
            if (index(message, file ":") == 1) { message = "line " substr(message, length(file) + 2) }
            else if (message ~ /^0:[0-9]+:/) { sub(/^0:/, "line ", message) }
            else if (message ~ /^1:[0-9]+:/) { sub(/^1:/, "surface function line ", message) }
            if (!(message in count)) { order[++n] = message; first[message] = file }
            ++count[message]
        }
        END { for (i = 1; i <= n; ++i) printf "  %d file(s), e.g. %s:\n    %s\n", count[order[i]], first[order[i]], order[i] }
    ' failures.txt
    echo "the first failing files in full (all: $out/failures.txt):"
    awk '/^FAILED: / && ++files > 5 { exit } { print }' failures.txt
    exit 1
fi
echo "all $(wc -l < programs.txt) checks passed ($out)"
