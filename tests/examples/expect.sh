#!/usr/bin/env bash
# Runs a command and checks its exit status and output (stdout and stderr together).
# Usage: expect.sh STATUS REGEX [--jpeg FILE] -- COMMAND...
# Fails, printing the output, unless COMMAND exits with STATUS and its output matches the
# extended regular expression REGEX; --jpeg FILE also requires FILE to start with JPEG's
# SOI marker (FF D8 FF).
set -u
status=$1
regex=$2
shift 2
jpeg=""
if [ "${1:-}" = --jpeg ]; then
    jpeg=$2
    rm -f "$jpeg"
    shift 2
fi
[ "${1:-}" = -- ] && shift
output=$("$@" 2>&1)
got=$?
printf '%s\n' "$output"
if [ "$got" -ne "$status" ]; then
    echo "expect.sh: exit status $got, expected $status" >&2
    exit 1
fi
if ! printf '%s\n' "$output" | grep -Eq -- "$regex"; then
    echo "expect.sh: output does not match: $regex" >&2
    exit 1
fi
if [ -n "$jpeg" ]; then
    magic=$(head -c 3 "$jpeg" 2>/dev/null | od -An -tx1 | tr -d ' \n')
    if [ "$magic" != ffd8ff ]; then
        echo "expect.sh: $jpeg is not a JPEG (starts with '$magic')" >&2
        exit 1
    fi
fi
exit 0
