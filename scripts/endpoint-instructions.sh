#!/usr/bin/env bash
# Instructions each endpoint server spends per `tools/call`, counted by callgrind: the cost of
# our HTTP front (alone, and behind the guard `mrtd serve` adds) against rmcp alone and a bare
# axum handler, free of the scheduling noise that moves the throughput bench by ten percent on
# a small shared machine.
#
# Usage: scripts/endpoint-instructions.sh [FEW] [MANY]   (defaults 100 and 600 requests)
#
# MRTD_ENDPOINT_BIN=PATH counts that build of the bench (CI passes the test profile's, which
# its build step made, so nothing is built here) instead of building the bench profile's;
# MRTD_ENDPOINT_MAX_PERCENT=N fails the run when our front (`mrtd`, without the guard) spends
# more than N % of rmcp's instructions per call. In the test profile our front's share is
# about two points larger than in the optimised build (104.6-104.8 % against 102.9 % on
# 2026-12-06); CI allows it 106 % there.
#
# Each server runs alone under `valgrind --tool=callgrind` (the endpoint bench's `serve`
# mode) while an uninstrumented process sends it FEW, then in a fresh run MANY, requests one
# after another on one connection; (instructions(MANY) - instructions(FEW)) / (MANY - FEW) is
# what one request costs the server, start-up and first-request work cancelled out.
set -euo pipefail

few=${1:-100}
many=${2:-600}
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "endpoint-instructions: needs valgrind" >&2; exit 1; }

bin=${MRTD_ENDPOINT_BIN:-}
[ -n "$bin" ] || bin=$(cargo bench -p mrtd-server --bench endpoint --no-run --message-format=json 2>/dev/null |
    python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "endpoint" and m.get("executable"):
        print(m["executable"])')
[ -x "$bin" ] || { echo "endpoint-instructions: the bench did not build" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Total instructions one server spent serving `count` requests.
instructions() {
    local name=$1 count=$2 out="$work/$1-$2"
    mkfifo "$out.in"
    valgrind --tool=callgrind --callgrind-out-file="$out.cg" "$bin" serve "$name" \
        <"$out.in" >"$out.address" 2>"$out.log" &
    local server=$!
    exec {hold}>"$out.in"
    # Under callgrind, at the lowest priority beside a busy test run, starting takes a while.
    for _ in $(seq 3000); do
        [ -s "$out.address" ] && break
        sleep 0.2
    done
    [ -s "$out.address" ] || { echo "endpoint-instructions: $name did not start" >&2; cat "$out.log" >&2; exit 1; }
    "$bin" load "$(head -n1 "$out.address")" "$count"
    exec {hold}>&-
    wait "$server"
    awk '/^(summary|totals):/ { print $2; exit }' "$out.cg"
}

echo "server instructions per tools/call (callgrind, $few and $many requests on one connection)"
printf '%-6s %14s\n' server "instr/request"
declare -A per
for name in mrtd guarded rmcp bare; do
    a=$(instructions "$name" "$few")
    b=$(instructions "$name" "$many")
    per[$name]=$(( (b - a) / (many - few) ))
    printf '%-6s %14d\n' "$name" "${per[$name]}"
done
awk -v m="${per[mrtd]}" -v g="${per[guarded]}" -v r="${per[rmcp]}" -v b="${per[bare]}" 'BEGIN {
    printf "mrtd/rmcp %.1f%%   guarded/rmcp %.1f%%   rmcp/bare %.1f%%\n", 100 * m / r, 100 * g / r, 100 * r / b
    printf "front over rmcp: %d instructions per request, %d with the guard\n", m - r, g - r
}'
if [ -n "${MRTD_ENDPOINT_MAX_PERCENT:-}" ]; then
    awk -v m="${per[mrtd]}" -v r="${per[rmcp]}" -v limit="$MRTD_ENDPOINT_MAX_PERCENT" 'BEGIN {
        if (100 * m > limit * r) {
            printf "endpoint-instructions: our front costs %.1f %% of rmcp alone, over %s %%\n", 100 * m / r, limit > "/dev/stderr"
            exit 1
        }
    }'
fi
