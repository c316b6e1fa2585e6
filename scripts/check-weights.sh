#!/usr/bin/env bash
# Retrains the reader's classifier with the documented defaults (scripts/train-model.sh's
# command) and compares the result byte for byte with the committed weights. Training is
# deterministic on any number of cores.
#
#   scripts/check-weights.sh [PATH-TO-mrtd-train]   (built in debug when not given)
set -euo pipefail
cd "$(dirname "$0")/.."
target_dir="${CARGO_TARGET_DIR:-$(pwd)/target}"
train="${1:-}"
if [ -z "$train" ]; then
    cargo build --quiet -p mrtd-synth --bin mrtd-train
    train="$target_dir/debug/mrtd-train"
fi
out="$(mktemp "${TMPDIR:-/tmp}/mrtd-retrained.XXXXXX")"
trap 'rm -f "$out"' EXIT
"$train" --out "$out"
cmp "$out" crates/engine/model/mrz-cells.bin
echo "ok: the committed weights are what the training command makes"
