#!/usr/bin/env bash
# Runs every fuzz target for a bounded time each, on stable Rust.
#
#   scripts/fuzz.sh [SECONDS]     seconds per target (default 20)
#   scripts/fuzz.sh --build-only  build the targets and run none
#   MRTD_FUZZ_TARGETS="parse_text read_image" scripts/fuzz.sh 15     only these targets
#   MRTD_FUZZ_JOBS=1              targets run at once (default: one per core)
#
# The targets are in one crate, fuzz/ (its own workspace): parse_text and decode_cells
# (mrtd-mrz), read_image and half_jpeg (mrtd-engine), http_body and trace_context
# (mrtd-server), verify, trust_store, ber and active_authentication (mrtd-chip).
#
# The targets are libFuzzer binaries (libfuzzer-sys) built with the same sanitizer-coverage
# instrumentation `cargo fuzz` uses, without AddressSanitizer (which needs nightly); safe Rust
# has no memory errors for it to find, and panics, overflows and debug assertions still abort.
# `cargo fuzz run TARGET -s none` on a nightly toolchain runs the same targets.
#
# Seeds are committed under fuzz/corpus/TARGET and never written to; what a run discovers goes
# to $MRTD_FUZZ_DIR/corpus/TARGET (default target/fuzz), which CI may cache so later runs start
# from it. A crash leaves its input in $MRTD_FUZZ_DIR/artifacts and fails the script; rerun it
# with: BINARY ARTIFACT.
#
# Cost: a cold build takes several CPU-minutes (the server targets link the whole HTTP front);
# with $MRTD_FUZZ_DIR/build kept between runs it takes seconds and the step is about
# 10 x SECONDS divided by the cores (each target runs on one). CI builds in the background
# while the other steps run (--build-only).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
build_only=0
if [ "${1:-}" = --build-only ]; then
    build_only=1
    shift
fi
seconds="${1:-20}"
jobs="${MRTD_FUZZ_JOBS:-$(nproc)}"
fuzz_dir="${MRTD_FUZZ_DIR:-$root/target/fuzz}"
# Absolute, so that the paths a failure prints (log, artifact) work from any folder.
mkdir -p "$fuzz_dir"
fuzz_dir=$(cd "$fuzz_dir" && pwd)
host=$(rustc -vV | sed -n 's/^host: //p')

# The instrumented build has its own target directory: these flags differ from the main
# workspace's, and sharing one would rebuild both every time.
export CARGO_TARGET_DIR="$fuzz_dir/build"
export RUSTFLAGS="-Cpasses=sancov-module \
-Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters \
-Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares \
--cfg fuzzing -Cdebug-assertions -Coverflow-checks"
export CARGO_TERM_COLOR=never

mkdir -p "$fuzz_dir/corpus" "$fuzz_dir/artifacts" "$fuzz_dir/logs"
start=$(date +%s)
# --target keeps the instrumentation off build scripts and proc macros, which run inside the
# compiler and cannot link the coverage hooks.
cargo build --quiet --release --target "$host" --bins --manifest-path fuzz/Cargo.toml
echo "built the fuzz targets in $(( $(date +%s) - start ))s"
[ "$build_only" = 1 ] && exit 0

# One target: runs it for $seconds and prints one verdict (with the log's tail on failure).
run_target() {
    local target="$1"
    local binary="$CARGO_TARGET_DIR/$host/release/$target"
    local corpus="$fuzz_dir/corpus/$target"
    local seeds="fuzz/corpus/$target"
    local log="$fuzz_dir/logs/$target.log"
    mkdir -p "$corpus" "$seeds"
    if "$binary" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 \
        -max_len=65536 -print_final_stats=1 \
        -artifact_prefix="$fuzz_dir/artifacts/$target-" \
        "$corpus" "$seeds" >"$log" 2>&1; then
        local runs
        runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
        echo "ok   $target: ${runs:-?} runs in ${seconds}s, corpus $(ls "$corpus" | wc -l) files"
    else
        # One write, so that a verdict printed meanwhile does not land inside it.
        { echo "FAIL $target (log: $log)"; tail -n 40 "$log"; } | cat >&2
        return 1
    fi
}

# The targets run $jobs at a time; each uses one core.
targets="${MRTD_FUZZ_TARGETS:-$(sed -n '/^\[\[bin\]\]/,/^path/s/^name = "\(.*\)"/\1/p' fuzz/Cargo.toml)}"
failed=0
running=0
for target in $targets; do
    if [ "$running" -ge "$jobs" ]; then
        wait -n || failed=1
        running=$((running - 1))
    fi
    run_target "$target" &
    running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
    wait -n || failed=1
    running=$((running - 1))
done
exit "$failed"
