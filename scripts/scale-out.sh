#!/usr/bin/env bash
# Scale-out test: two `mrtd serve` replicas on different ports sharing one PostgreSQL and one
# request-state key, behind nginx (round-robin, deploy/nginx/mrtd.conf.template), all on
# loopback.
#
#   scripts/scale-out.sh [SECONDS]    (SECONDS: length of each load step, default 20)
#
# Checks, directly against each replica and through nginx:
#   - a scan kept through one replica is read and deleted through the other;
#   - an input_required round trip (a photo without an MRZ, from a client that declares the
#     elicitation capability) started on one replica completes on the other;
# then measures scan throughput of one replica against two behind nginx and runs a mixed
# load through nginx with no failure allowed, counting requests per replica.
#
# Needs nginx (Debian package `nginx`, installed when missing if run as root) and PostgreSQL
# (scripts/postgres.sh; a throwaway cluster on port SCALE_PG_PORT, default 54349).
# Server settings: --rate-limit 0 and --scan-wait-secs 120 (one driver is one caller).
set -euo pipefail
source "$(dirname "$0")/../crates/loadtest/scripts/common.sh"

STEP_SECONDS="${1:-20}"
CONNECTIONS=16
STATUS=0

ensure_nginx() {
    NGINX="$(command -v nginx || true)"
    [[ -z "$NGINX" && -x /usr/sbin/nginx ]] && NGINX=/usr/sbin/nginx
    [[ -n "$NGINX" ]] && return 0
    [[ $EUID -eq 0 ]] || fail "nginx is not installed; install the Debian package 'nginx' or run as root"
    say "installing nginx from Debian packages"
    # The package would start a system-wide nginx on port 80; a policy file stops that.
    local policy=/usr/sbin/policy-rc.d added=""
    if [[ ! -e "$policy" ]]; then
        printf '#!/bin/sh\nexit 101\n' >"$policy"
        chmod +x "$policy"
        added=1
    fi
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nginx >/dev/null
    [[ -n "$added" ]] && rm -f "$policy"
    NGINX="$(command -v nginx || echo /usr/sbin/nginx)"
    [[ -x "$NGINX" ]] || fail "nginx did not install"
}

free_port() {
    local port
    for port in $(seq "$1" $(($1 + 200))); do
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            echo "$port"
            return 0
        fi
    done
    fail "no free port from $1"
}

build_binaries
ensure_nginx
say "nginx: $("$NGINX" -v 2>&1)"

MRTD_PG_DIR="$(mktemp -d "${TMPDIR:-/tmp}/mrtd-scale-pg.XXXXXX")"
export MRTD_PG_DIR MRTD_PG_PORT="${SCALE_PG_PORT:-54349}"
on_exit 'scripts/postgres.sh destroy >/dev/null 2>&1'
PG_URL="$(scripts/postgres.sh start)"
say "PostgreSQL at ${PG_URL/:mrtd@/:***@}"
# The shared key goes to the replicas in a file, never on their command lines.
KEY_FILE="$WORK/request-state.key"
(umask 077 && head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$KEY_FILE")

# nginx connects from loopback and names the client in X-Forwarded-For.
start_server replica-a --data-dir "$WORK/a" --database-url "$PG_URL" \
    --request-state-key-file "$KEY_FILE" --trusted-proxy 127.0.0.1/32 "${LOAD_SERVER_ARGS[@]}"
A_PID="$SERVER_PID" A_URL="$SERVER_URL"
start_server replica-b --data-dir "$WORK/b" --database-url "$PG_URL" \
    --request-state-key-file "$KEY_FILE" --trusted-proxy 127.0.0.1/32 "${LOAD_SERVER_ARGS[@]}"
B_PID="$SERVER_PID" B_URL="$SERVER_URL"
A_ADDR="${A_URL#http://}" A_ADDR="${A_ADDR%/mcp}"
B_ADDR="${B_URL#http://}" B_ADDR="${B_ADDR%/mcp}"

# nginx's workers drop to an unprivileged user when started as root: they must reach PREFIX.
chmod 711 "$WORK"
PREFIX="$WORK/nginx"
mkdir -m 755 "$PREFIX"
NGINX_PORT="$(free_port 18080)"
sed -e "s|@PREFIX@|$PREFIX|g" -e "s|@LISTEN@|127.0.0.1:$NGINX_PORT|g" \
    -e "s|@UPSTREAMS@|server $A_ADDR; server $B_ADDR;|" \
    deploy/nginx/mrtd.conf.template >"$PREFIX/nginx.conf"
say "starting nginx on 127.0.0.1:$NGINX_PORT -> $A_ADDR, $B_ADDR (round-robin)"
"$NGINX" -t -q -e "$PREFIX/error.log" -p "$PREFIX" -c "$PREFIX/nginx.conf"
"$NGINX" -e "$PREFIX/error.log" -p "$PREFIX" -c "$PREFIX/nginx.conf" &
NGINX_PID=$!
STARTED_PIDS+=("$NGINX_PID")
PROXY_URL="http://127.0.0.1:$NGINX_PORT/mcp"
for _ in $(seq 100); do
    [[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$NGINX_PORT/healthz")" == 200 ]] && break
    sleep 0.1
done

echo
say "hand-offs between the replicas, directly and through nginx"
load handoff --first "$A_URL" --second "$B_URL" --via "$PROXY_URL" | tee "$WORK/handoff.out" || STATUS=1

echo
say "scan throughput: one replica directly, then two behind nginx ($CONNECTIONS connections, $STEP_SECONDS s each)"
load run --url "$A_URL" --connections "$CONNECTIONS" --duration-secs "$STEP_SECONDS" --mix scan=1 \
    --retain-hours 0 --server-pid "$A_PID" | tee "$WORK/one.out" || STATUS=1
: >"$PREFIX/access.log"
load run --url "$PROXY_URL" --connections "$CONNECTIONS" --duration-secs "$STEP_SECONDS" --mix scan=1 \
    --retain-hours 0 --server-pid "$A_PID" --server-pid "$B_PID" | tee "$WORK/two.out" || STATUS=1
ONE="$(result_field "$WORK/one.out" scan_rps)"
TWO="$(result_field "$WORK/two.out" scan_rps)"
SCAN_SPLIT="$(sed -n 's/.*upstream=\([^ ]*\)$/\1/p' "$PREFIX/access.log" | sort | uniq -c | tr -s ' ' | paste -sd, -)"

echo
say "mixed load through nginx (scan, get_scan, tools/list), no failure allowed"
: >"$PREFIX/access.log"
load run --url "$PROXY_URL" --connections "$CONNECTIONS" --duration-secs "$STEP_SECONDS" \
    --mix scan=1,get=4,list=1 --retain-hours 1 --server-pid "$A_PID" --server-pid "$B_PID" \
    | tee "$WORK/mixed.out" || STATUS=1
MIXED_SPLIT="$(sed -n 's/.*upstream=\([^ ]*\)$/\1/p' "$PREFIX/access.log" | sort | uniq -c | tr -s ' ' | paste -sd, -)"
for addr in "$A_ADDR" "$B_ADDR"; do
    grep -q "upstream=$addr\$" "$PREFIX/access.log" || { echo "replica $addr served nothing"; STATUS=1; }
done

echo
say "summary"
echo "replica A $A_URL (pid $A_PID), replica B $B_URL (pid $B_PID), nginx $PROXY_URL, one PostgreSQL"
grep '^RESULT' "$WORK/handoff.out" || true
echo "scan throughput: one replica $ONE scans/s, two replicas behind nginx $TWO scans/s:" \
    "x$(ratio "$TWO" "$ONE") on $(nproc) cores (both replicas share the cores, so little gain is expected here)"
echo "requests per replica (count upstream): scan-only [$SCAN_SPLIT]; mixed [$MIXED_SPLIT]"
echo "mixed load through nginx: $(grep '^requests:' "$WORK/mixed.out")"
if [[ "$STATUS" -eq 0 ]]; then
    echo "PASS: scale-out.sh"
else
    echo "FAIL: scale-out.sh (see FAIL and VIOLATION lines above)"
    exit 1
fi
