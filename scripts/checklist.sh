#!/usr/bin/env bash
# Runs a reference MCP checklist probe (a Python script that takes the endpoint URL and
# exits with the number of failed checks) against the conformance fixture, on a port the
# OS picks.
#
#   scripts/checklist.sh PATH-TO-mrtd-conformance PATH-TO-PROBE.py
set -euo pipefail
fixture_bin="$1"
probe="$2"
log="$(mktemp "${TMPDIR:-/tmp}/mrtd-checklist.XXXXXX")"
"$fixture_bin" --listen 127.0.0.1:0 >"$log" 2>/dev/null &
fixture=$!
trap 'kill "$fixture" 2>/dev/null || true; wait "$fixture" 2>/dev/null || true; rm -f "$log"' EXIT
url=""
for _ in $(seq 100); do
    url="$(sed -n 's/^listening on \(http:[^ ]*\)$/\1/p' "$log")"
    [ -n "$url" ] && break
    sleep 0.1
done
[ -n "$url" ] || { echo "checklist.sh: the fixture did not announce its address" >&2; exit 1; }
status=0
python3 "$probe" "$url" || status=$?
if [ "$status" -ne 0 ]; then
    echo "the checklist probe reported $status FAIL(s)" >&2
    exit 1
fi
