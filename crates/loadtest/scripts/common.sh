# Shared helpers of scripts/load.sh, scripts/faults.sh and scripts/scale-out.sh.
# Sourced, not run. Everything listens on 127.0.0.1 only and is torn down on exit.
#
# Environment:
#   MRTD_BIN, MRTD_LOAD_BIN   use these binaries instead of building them
#   CARGO_TARGET_DIR          where the release build goes (default: target/ in the repository)

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
cd "$ROOT"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/mrtd-$(basename "$0" .sh).XXXXXX")"
STARTED_PIDS=()
ON_EXIT=()

say() { printf '== %s\n' "$*"; }
fail() { printf 'FAIL: %s\n' "$*"; exit 1; }

# on_exit COMMAND: evaluated on exit, before the started processes are stopped.
on_exit() { ON_EXIT+=("$1"); }

cleanup() {
    local pid hook
    for hook in "${ON_EXIT[@]}"; do
        eval "$hook" || true
    done
    for pid in "${STARTED_PIDS[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${STARTED_PIDS[@]}"; do
        wait "$pid" 2>/dev/null || true
    done
    if [[ -n "${KEEP_WORK:-}" ]]; then
        say "logs kept in $WORK"
    else
        rm -rf "$WORK"
    fi
}
trap cleanup EXIT

# Builds the server and the load driver unless MRTD_BIN and MRTD_LOAD_BIN are set: release by
# default; MRTD_LOAD_PROFILE=dev reuses the test suite's debug build (dependencies and the
# vision engine are optimised there too), which is enough for a CI smoke run.
build_binaries() {
    local target="${CARGO_TARGET_DIR:-$ROOT/target}"
    local flags=(--release) dir=release
    if [[ "${MRTD_LOAD_PROFILE:-release}" == dev ]]; then
        flags=() dir=debug
    fi
    if [[ -z "${MRTD_BIN:-}" ]]; then
        say "building: cargo build ${flags[*]} -p mrtd"
        cargo build "${flags[@]}" --quiet -p mrtd
        MRTD_BIN="$target/$dir/mrtd"
    fi
    if [[ -z "${MRTD_LOAD_BIN:-}" ]]; then
        say "building: cargo build ${flags[*]} -p mrtd-loadtest"
        cargo build "${flags[@]}" --quiet -p mrtd-loadtest
        MRTD_LOAD_BIN="$target/$dir/mrtd-load"
    fi
    [[ -x "$MRTD_BIN" ]] || fail "no server binary at $MRTD_BIN"
    [[ -x "$MRTD_LOAD_BIN" ]] || fail "no load driver at $MRTD_LOAD_BIN"
}

# start_server NAME ARGS...: runs `mrtd serve --listen 127.0.0.1:${PORT:-0} ARGS` in the
# background, waits until it listens and sets SERVER_PID and SERVER_URL (…/mcp).
# Its stderr goes to $WORK/NAME.log.
start_server() {
    local name="$1"
    shift
    local log="$WORK/$name.log"
    # Secrets are masked in what is printed: the shared state key and database passwords.
    say "starting $name: mrtd serve --listen 127.0.0.1:${PORT:-0} $*" \
        | sed -E 's/(--request-state-key )[0-9a-f]+/\1***/; s|(://[^:/@ ]+:)[^@ ]+@|\1***@|g'
    RUST_LOG="${RUST_LOG:-warn}" "$MRTD_BIN" serve --listen "127.0.0.1:${PORT:-0}" "$@" \
        </dev/null >/dev/null 2>"$log" &
    SERVER_PID=$!
    STARTED_PIDS+=("$SERVER_PID")
    local waited=0
    SERVER_URL=""
    while [[ -z "$SERVER_URL" ]]; do
        # The log may not exist yet: the background shell opens it after the fork.
        SERVER_URL="$(sed -n 's/.*serving MCP at \(http:[^ ]*\).*/\1/p' "$log" 2>/dev/null | head -n 1 || true)"
        [[ -n "$SERVER_URL" ]] && break
        if ! kill -0 "$SERVER_PID" 2>/dev/null; then
            cat "$log"
            fail "$name exited before it listened"
        fi
        ((waited++ < 600)) || fail "$name did not listen within 60 s"
        sleep 0.1
    done
    say "$name: pid $SERVER_PID at $SERVER_URL"
}

# stop_server PID: SIGTERM and wait.
stop_server() {
    kill "$1" 2>/dev/null || true
    wait "$1" 2>/dev/null || true
}

# load ARGS...: runs the load driver, printing the command first.
load() {
    printf '$ mrtd-load %s\n' "$*" | sed "s|$WORK|\$WORK|g"
    "$MRTD_LOAD_BIN" "$@"
}

# result_field FILE KEY: a value from the RESULT line of a saved mrtd-load output.
result_field() {
    sed -n "s/^RESULT .*\b$2=\([^ ]*\).*/\1/p" "$1" | tail -n 1
}

# ratio A B: A / B with two decimals.
ratio() {
    awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'
}

# The server settings a load test needs, said out loud: one client is one caller, so the
# per-caller rate limit (10/s by default) is switched off, and recognitions queue for up to
# two minutes for a slot instead of 10 s, so that 64 connections wait rather than get 503.
# All connections come from one address, so the per-address connection cap (64) is off
# too: the uploads step holds 64 connections and probes on another one meanwhile.
LOAD_SERVER_ARGS=(--rate-limit 0 --scan-wait-secs 120 --max-connections-per-address 0)
