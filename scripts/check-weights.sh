#!/usr/bin/env bash
# Retrains the reader's classifier, both networks, with the documented defaults
# (scripts/train-model.sh's commands) and compares them byte for byte with the committed weights. Training is
# deterministic on any number of cores, so a trainer binary that already made the
# committed weights once makes them again: such a pass is remembered (by the SHA-256 of
# the binary and of the weights) and not repeated until either changes.
#
#   scripts/check-weights.sh [PATH-TO-mrtd-train]   (built in debug when not given)
#   MRTD_RETRAIN=1                                   retrain even when remembered
set -euo pipefail
cd "$(dirname "$0")/.."
target_dir="${CARGO_TARGET_DIR:-$(pwd)/target}"
train="${1:-}"
if [ -z "$train" ]; then
    cargo build --quiet -p mrtd-synth --bin mrtd-train
    train="$target_dir/debug/mrtd-train"
fi
weights=crates/engine/model/mrz-cells.bin
faults=crates/engine/model/mrz-cells-faults.bin
stamp="$target_dir/weights-verified"
fingerprint="$(sha256sum "$train" "$weights" "$faults" | cut -d' ' -f1 | tr '\n' ' ')"
if [ "${MRTD_RETRAIN:-0}" != 1 ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$fingerprint" ]; then
    echo "ok: this trainer binary made the committed weights before (MRTD_RETRAIN=1 retrains)"
    exit 0
fi
out="$(mktemp "${TMPDIR:-/tmp}/mrtd-retrained.XXXXXX")"
trap 'rm -f "$out"' EXIT
"$train" --out "$out"
cmp "$out" "$weights"
"$train" --more-faults --out "$out"
cmp "$out" "$faults"
printf '%s' "$fingerprint" >"$stamp"
echo "ok: the committed weights are what the training command makes"
