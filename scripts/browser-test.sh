#!/usr/bin/env bash
# Drives the web page in a real browser against the real `mrtd serve` binary:
# uploads a sample photo, waits for the fields, checks the MRZ outline is drawn, verifies a
# chip's files (with Active Authentication) in both languages,
# that the keyboard reaches the file input, and that WebMCP tools are registered; reads the
# page's own sample with the key fields above the fold, checks country names, dates, the
# expiry badge, copying and downloading the JSON, errors in both languages, a phone's
# pickers, and runs axe-core on the result in both colour schemes.
#
# Needs Debian's chromium (installed with apt when missing, as root), and playwright-core and
# axe-core from npm (installed into the cache when missing); never downloads a browser.
# Usage: scripts/browser-test.sh            (builds `mrtd` with cargo first)
#        MRTD_BIN=path/to/mrtd scripts/browser-test.sh
#        SCREENSHOT_DIR=DIR scripts/browser-test.sh   (keeps the 1280 px (light and dark), 390 px
#                                                      (mouse and touch) and pt-BR screenshots)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/mrtd/browser"
playwright_version="1.65.1"
axe_version="4.14.1"
chromium_bin="${CHROMIUM:-/usr/bin/chromium}"

if [[ ! -x "$chromium_bin" ]]; then
    if [[ "$(id -u)" != 0 ]]; then
        echo "browser-test: $chromium_bin is missing; install Debian's chromium (apt-get install chromium)" >&2
        exit 1
    fi
    echo "browser-test: installing chromium with apt" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi
command -v node >/dev/null || { echo "browser-test: node (18 or later) is needed" >&2; exit 1; }

if [[ ! -f "$cache/node_modules/playwright-core/package.json" ]]; then
    echo "browser-test: installing playwright-core $playwright_version into $cache" >&2
    mkdir -p "$cache"
    (cd "$cache" && [[ -f package.json ]] || echo '{"private": true}' > package.json)
    PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --prefix "$cache" --no-audit --no-fund \
        --silent "playwright-core@$playwright_version" >&2
fi
if [[ ! -f "$cache/node_modules/axe-core/axe.min.js" ]]; then
    echo "browser-test: installing axe-core $axe_version into $cache" >&2
    mkdir -p "$cache"
    (cd "$cache" && [[ -f package.json ]] || echo '{"private": true}' > package.json)
    npm install --prefix "$cache" --no-audit --no-fund --silent "axe-core@$axe_version" >&2
fi

if [[ -z "${MRTD_BIN:-}" ]]; then
    (cd "$root" && cargo build -q -p mrtd)
    MRTD_BIN="${CARGO_TARGET_DIR:-$root/target}/debug/mrtd"
fi

work="$(mktemp -d)"
server_pids=()
cleanup() {
    for pid in "${server_pids[@]}"; do
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    rm -rf "$work"
}
trap cleanup EXIT

# Starts `mrtd serve` with a data directory and extra flags on port 0 (the server picks a
# free port and names it on stderr) and sets $url to its address.
start_server() {
    local name="$1"
    shift
    # The log exists before the server starts: the loop below may read it before the
    # background shell has opened it.
    : >"$work/$name.log"
    "$MRTD_BIN" serve --listen 127.0.0.1:0 --data-dir "$work/$name" "$@" 2>"$work/$name.log" &
    local pid=$!
    server_pids+=("$pid")
    url=""
    for _ in $(seq 1 100); do
        url="$(sed -n 's|.*serving MCP at \(http://[0-9.:]*\)/mcp.*|\1|p' "$work/$name.log" | head -n1)"
        [[ -n "$url" ]] && return 0
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    echo "browser-test: the $name server did not start" >&2
    cat "$work/$name.log" >&2
    exit 1
}

mkdir -p "${SCREENSHOT_DIR:-$work/screenshots}" "$work/csca"
# The open server trusts the CSCA of the chip fixtures the page's chip test sends.
cp "$root/crates/chip/tests/data/de/csca.pem" "$work/csca/"
start_server open --csca-dir "$work/csca"
open_url="$url"
# A second server that needs an API key, with one key made for the test.
mkdir -p "$work/keyed"
api_key="$("$MRTD_BIN" keys create browser --data-dir "$work/keyed" 2>/dev/null | head -n1)"
start_server keyed --auth api-key
keyed_url="$url"

MRTD_URL="$open_url" \
MRTD_KEYED_URL="$keyed_url" \
MRTD_API_KEY="$api_key" \
CHROMIUM="$chromium_bin" \
PLAYWRIGHT_CORE="$cache/node_modules/playwright-core" \
AXE_CORE="$cache/node_modules/axe-core" \
PROFILE_DIR="$work/profile" \
SAMPLES="$root/tests/data/images" \
SIDES="$root/tests/data/sides" \
CHIP_DATA="$root/crates/chip/tests/data" \
SCREENSHOT="${SCREENSHOT:-}" \
SCREENSHOT_DIR="${SCREENSHOT_DIR:-$work/screenshots}" \
    node "$root/tests/browser/page.test.cjs"
