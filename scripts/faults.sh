#!/usr/bin/env bash
# Fault tests of `mrtd serve` under load, a few minutes at most:
#
#   (a) kill -9 under load, restart on the same data directory (SQLite): every scan
#       acknowledged with retain_hours > 0 is still readable.
#   (b) PostgreSQL stopped and started under load: meanwhile requests fail fast with a clear
#       "scan store is unavailable" tool error (no timeout, no crash, no backend details);
#       afterwards new scans and reads succeed and every scan acknowledged before, during
#       and after the outage is readable.
#
#   scripts/faults.sh [kill|postgres|all]     (default all)
#
# (b) runs its own PostgreSQL cluster through scripts/postgres.sh (MRTD_PG_DIR under the
# temporary directory, port FAULTS_PG_PORT, default a free one) so that stopping it disturbs
# nothing else; it is destroyed at the end.
# Server settings: --rate-limit 0 and --scan-wait-secs 120 (one driver is one caller).
set -euo pipefail
source "$(dirname "$0")/../crates/loadtest/scripts/common.sh"

WHICH="${1:-all}"
CONNECTIONS=16
RESULTS=()
record() { RESULTS+=("$1: $2"); [[ "$1" == PASS ]] || OVERALL=1; }
OVERALL=0

build_binaries

kill_test() {
    say "(a) kill -9 under load"
    local data="$WORK/kill-data"
    start_server kill-1 --data-dir "$data" "${LOAD_SERVER_ARGS[@]}"
    local victim="$SERVER_PID" url="$SERVER_URL"
    load run --url "$url" --connections "$CONNECTIONS" --duration-secs 14 --timeout-secs 10 \
        --mix scan=2,get=1,list=1 --retain-hours 1 --ids-out "$WORK/kill-ids" --allow-failures \
        >"$WORK/kill-load.out" &
    local driver=$!
    STARTED_PIDS+=("$driver")
    sleep 7
    local before
    before="$(wc -l <"$WORK/kill-ids")"
    say "kill -9 $victim after $before acknowledged scans"
    kill -9 "$victim"
    wait "$victim" 2>/dev/null || true
    wait "$driver" || true
    cat "$WORK/kill-load.out"
    local acknowledged failed
    acknowledged="$(wc -l <"$WORK/kill-ids")"
    failed="$(result_field "$WORK/kill-load.out" failed)"
    say "restarting on the same data directory"
    start_server kill-2 --data-dir "$data" "${LOAD_SERVER_ARGS[@]}"
    if [[ "$acknowledged" -gt 0 && "${failed:-0}" -gt 0 ]] \
        && load verify --url "$SERVER_URL" --ids "$WORK/kill-ids"; then
        record PASS "(a) kill -9: all $acknowledged acknowledged scans readable after restart ($failed requests failed while the server was dead)"
    else
        record FAIL "(a) kill -9: acknowledged $acknowledged, failed after kill ${failed:-?}, verify above"
    fi
    stop_server "$SERVER_PID"
}

postgres_test() {
    say "(b) PostgreSQL stopped and started under load"
    # Not under $WORK: as root the cluster runs as the postgres user, who must reach it.
    MRTD_PG_DIR="$(mktemp -d "${TMPDIR:-/tmp}/mrtd-faults-pg.XXXXXX")"
    # A free port unless one is given, so that two runs on one machine do not meet.
    MRTD_PG_PORT="${FAULTS_PG_PORT:-$(scripts/postgres.sh free-port)}"
    export MRTD_PG_DIR MRTD_PG_PORT
    on_exit 'scripts/postgres.sh destroy >/dev/null 2>&1'
    local pg_url
    pg_url="$(scripts/postgres.sh start)"
    say "PostgreSQL at ${pg_url/:mrtd@/:***@}"
    start_server pg --data-dir "$WORK/pg-data" --database-url "$pg_url" "${LOAD_SERVER_ARGS[@]}"
    local server="$SERVER_PID" url="$SERVER_URL" ok=1

    say "before the outage: 6 s of load, no failure allowed"
    load run --url "$url" --connections "$CONNECTIONS" --duration-secs 6 --mix scan=1,get=2,list=1 \
        --ids-out "$WORK/pg-ids-before" | tee "$WORK/pg-before.out" || ok=0

    say "during the outage: 20 s of load; PostgreSQL stops at 4 s and starts again at 12 s"
    # Backend details that must never reach a client.
    local forbid=(--forbid-text sqlx --forbid-text "pool timed out" --forbid-text "onnection refused"
        --forbid-text "$MRTD_PG_PORT" --forbid-text "error returned from database"
        --forbid-text "PoolTimedOut" --forbid-text "SQLSTATE")
    # A request counts as hung after 30 s. Scans wait longest: each holds a recognition slot
    # while its store write waits out the pool's acquire timeout, so the queue behind grows.
    load run --url "$url" --connections "$CONNECTIONS" --duration-secs 20 --timeout-secs 30 \
        --mix scan=1,get=2,list=1 --ids-out "$WORK/pg-ids-during" \
        --allow-error "scan store is unavailable" --expect-failures "${forbid[@]}" \
        >"$WORK/pg-during.out" &
    local driver=$!
    STARTED_PIDS+=("$driver")
    sleep 4
    scripts/postgres.sh stop
    say "PostgreSQL stopped; what a client sees now:"
    sleep 1
    local t0=$SECONDS
    local id
    id="$(head -n 1 "$WORK/pg-ids-before")"
    curl -sS -m 20 -X POST "$url" -H 'Content-Type: application/json' \
        -H 'Accept: application/json, text/event-stream' -H 'MCP-Protocol-Version: 2026-07-28' \
        -H 'Mcp-Method: tools/call' -H 'Mcp-Name: get_scan' \
        --data "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientInfo\":{\"name\":\"curl\",\"version\":\"1\"},\"io.modelcontextprotocol/clientCapabilities\":{}},\"name\":\"get_scan\",\"arguments\":{\"scan_id\":\"$id\"}}}" \
        | tee "$WORK/pg-probe.out"
    echo
    say "get_scan answered in $((SECONDS - t0)) s; GET /readyz: $(curl -s -o /dev/null -w '%{http_code}' -m 20 "${url%/mcp}/readyz")"
    grep -q 'scan store is unavailable' "$WORK/pg-probe.out" || ok=0
    sleep 6
    scripts/postgres.sh start >/dev/null
    say "PostgreSQL started again"
    wait "$driver" || ok=0
    cat "$WORK/pg-during.out"
    kill -0 "$server" 2>/dev/null || { say "the server died"; ok=0; }

    say "after the outage: 6 s of load, no failure allowed"
    load run --url "$url" --connections "$CONNECTIONS" --duration-secs 6 --mix scan=1,get=2,list=1 \
        --ids-out "$WORK/pg-ids-after" | tee "$WORK/pg-after.out" || ok=0
    for phase in before during after; do
        load verify --url "$url" --ids "$WORK/pg-ids-$phase" || ok=0
    done
    stop_server "$server"
    scripts/postgres.sh destroy
    if [[ "$ok" -eq 1 ]]; then
        record PASS "(b) PostgreSQL outage: clear 'scan store is unavailable' errors meanwhile, no timeouts or leaks, full recovery, every acknowledged scan readable"
    else
        record FAIL "(b) PostgreSQL outage: see the VIOLATION and verify lines above"
    fi
}

case "$WHICH" in
    kill) kill_test ;;
    postgres) postgres_test ;;
    all) kill_test; postgres_test ;;
    *) fail "unknown test '$WHICH' (expected kill, postgres or all)" ;;
esac

echo
say "summary"
printf '%s\n' "${RESULTS[@]}"
exit "$OVERALL"
