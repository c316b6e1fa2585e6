#!/bin/sh
# Retrains the MRZ cell classifier and writes crates/engine/model/mrz-cells.bin.
# Needs Debian's fonts-ocr-b (apt-get install fonts-ocr-b). Deterministic for a
# given seed on any number of cores; two to ten minutes on two. The committed
# weights are what it makes, byte for byte (scripts/test.sh checks it). It runs
# mrtd-train with its defaults: seed 9303, 2,000 scenes, 8 epochs.
set -eu
cd "$(dirname "$0")/.."
cargo run --release -p mrtd-synth --bin mrtd-train -- \
    --out crates/engine/model/mrz-cells.bin "$@"
