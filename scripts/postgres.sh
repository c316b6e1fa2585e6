#!/usr/bin/env bash
# Runs a throwaway PostgreSQL server for mrtd's tests, on loopback only.
#
#   scripts/postgres.sh [start]   install if missing, initialise, start; print the URL
#   scripts/postgres.sh url       print the URL without starting anything
#   scripts/postgres.sh status    exit 0 when the server is running
#   scripts/postgres.sh stop      stop the server (the data directory is kept)
#   scripts/postgres.sh destroy   stop the server and delete its data directory
#   scripts/postgres.sh free-port a TCP port on 127.0.0.1 that nothing listens on now, for
#                                 MRTD_PG_PORT (so that two test runs on one machine do not meet)
#
# Typical use:
#   export MRTD_TEST_DATABASE_URL="$(scripts/postgres.sh)"
#   cargo test -p mrtd-store
#
# Only the URL goes to standard output; progress goes to standard error.
# Every step is idempotent, so running `start` again on a running server just prints the URL.
# PostgreSQL is installed from Debian's packages when no server binaries are found; that needs
# root. When run as root, the server runs as the `postgres` user, because initdb refuses root.
#
# Settings (environment):
#   MRTD_PG_DIR   where the cluster, socket and log live   (default /tmp/mrtd-pg)
#   MRTD_PG_PORT  the TCP port on 127.0.0.1                 (default 54329)
set -euo pipefail

PG_DIR="${MRTD_PG_DIR:-/tmp/mrtd-pg}"
PG_PORT="${MRTD_PG_PORT:-54329}"
DATA_DIR="$PG_DIR/data"
LOG_FILE="$PG_DIR/server.log"
DB_USER="mrtd"
DB_PASSWORD="mrtd"
DB_NAME="mrtd"
URL="postgres://$DB_USER:$DB_PASSWORD@127.0.0.1:$PG_PORT/$DB_NAME"

log() { printf 'postgres.sh: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# Prints the directory holding initdb and pg_ctl, preferring the newest Debian install.
find_bin_dir() {
    local candidate
    for candidate in $(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V -r); do
        if [[ -x "$candidate/initdb" && -x "$candidate/pg_ctl" ]]; then
            echo "$candidate"
            return 0
        fi
    done
    if command -v initdb >/dev/null && command -v pg_ctl >/dev/null; then
        dirname "$(readlink -f "$(command -v initdb)")"
        return 0
    fi
    return 1
}

install_postgres() {
    [[ $EUID -eq 0 ]] || die "PostgreSQL is not installed; run as root to install it, or install the 'postgresql' package"
    log "installing PostgreSQL from Debian packages"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq --no-install-recommends postgresql >&2
}

# Runs a command as the user that owns the cluster.
as_owner() {
    if [[ $EUID -eq 0 ]]; then
        # The postgres user may not be able to enter the caller's working directory.
        (cd "$PG_DIR" && runuser -u postgres -- "$@")
    else
        "$@"
    fi
}

is_running() {
    [[ -f "$DATA_DIR/PG_VERSION" ]] && as_owner "$BIN_DIR/pg_ctl" -D "$DATA_DIR" status >/dev/null 2>&1
}

# Runs SQL as the cluster's superuser over the Unix socket, which trusts local users.
psql_admin() {
    as_owner "$BIN_DIR/psql" -X -q -v ON_ERROR_STOP=1 -h "$PG_DIR" -p "$PG_PORT" -U postgres \
        -d postgres -tA "$@"
}

initialise_cluster() {
    local major_version
    major_version="$("$BIN_DIR/pg_ctl" --version | sed -E 's/.* ([0-9]+)(\.[0-9]+)*.*/\1/')"
    if [[ -f "$DATA_DIR/PG_VERSION" && "$(cat "$DATA_DIR/PG_VERSION")" == "$major_version" ]]; then
        return 0
    fi
    # A missing, half-made or other-version cluster is replaced: it only ever holds test data.
    log "initialising a cluster in $DATA_DIR"
    rm -rf "$DATA_DIR"
    mkdir -p "$DATA_DIR"
    if [[ $EUID -eq 0 ]]; then
        id postgres >/dev/null 2>&1 || useradd --system --no-create-home --home-dir "$PG_DIR" postgres
        chown -R postgres: "$PG_DIR"
    fi
    chmod 700 "$DATA_DIR"
    as_owner "$BIN_DIR/initdb" -D "$DATA_DIR" -U postgres -E UTF8 --locale=C \
        --auth-local=trust --auth-host=scram-sha-256 >/dev/null
    # The cluster is disposable, so durability is traded for speed.
    cat >>"$DATA_DIR/postgresql.conf" <<CONF

# Settings for mrtd's throwaway test cluster.
listen_addresses = '127.0.0.1'
port = $PG_PORT
unix_socket_directories = '$PG_DIR'
max_connections = 200
fsync = off
synchronous_commit = off
full_page_writes = off
CONF
}

start() {
    if [[ -z "${BIN_DIR:-}" ]]; then
        install_postgres
        BIN_DIR="$(find_bin_dir)" || die "PostgreSQL binaries not found after installing"
    fi
    mkdir -p "$PG_DIR"
    if [[ $EUID -eq 0 ]]; then
        id postgres >/dev/null 2>&1 || useradd --system --no-create-home --home-dir "$PG_DIR" postgres
        chown postgres: "$PG_DIR"
    fi
    if ! is_running; then
        initialise_cluster
        log "starting PostgreSQL on 127.0.0.1:$PG_PORT"
        if ! as_owner "$BIN_DIR/pg_ctl" -D "$DATA_DIR" -l "$LOG_FILE" -w -t 60 start >/dev/null; then
            tail -n 20 "$LOG_FILE" >&2 || true
            die "PostgreSQL did not start (see $LOG_FILE)"
        fi
    fi
    if [[ "$(psql_admin -c "SELECT 1 FROM pg_roles WHERE rolname = '$DB_USER'")" != "1" ]]; then
        psql_admin -c "CREATE ROLE $DB_USER LOGIN CREATEDB PASSWORD '$DB_PASSWORD'"
    fi
    if [[ "$(psql_admin -c "SELECT 1 FROM pg_database WHERE datname = '$DB_NAME'")" != "1" ]]; then
        psql_admin -c "CREATE DATABASE $DB_NAME OWNER $DB_USER"
    fi
    echo "$URL"
}

stop() {
    [[ -n "${BIN_DIR:-}" ]] || return 0
    if is_running; then
        log "stopping PostgreSQL"
        as_owner "$BIN_DIR/pg_ctl" -D "$DATA_DIR" -m fast -w stop >/dev/null
    fi
}

BIN_DIR="$(find_bin_dir || true)"
case "${1:-start}" in
    start) start ;;
    url) echo "$URL" ;;
    status) is_running ;;
    stop) stop ;;
    destroy) stop; rm -rf "$PG_DIR" ;;
    free-port)
        python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
        ;;
    *) die "unknown command '$1' (expected start, url, status, stop, destroy or free-port)" ;;
esac
