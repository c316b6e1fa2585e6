#!/bin/sh
# Retrains the MRZ cell classifier's two networks and writes crates/engine/model/mrz-cells.bin
# (the training's scenes as they are) and crates/engine/model/mrz-cells-faults.bin (with the
# handheld faults as well); the reader averages them.
# Needs Debian's fonts-ocr-b (apt-get install fonts-ocr-b). Deterministic for a
# given seed on any number of cores; two to ten minutes each on two. The committed
# weights are what it makes, byte for byte (scripts/test.sh checks it). It runs
# mrtd-train with its defaults: seed 9303, 2,000 scenes, 8 epochs.
set -eu
cd "$(dirname "$0")/.."
train="cargo run --release -p mrtd-synth --bin mrtd-train --"
$train --out crates/engine/model/mrz-cells.bin "$@"
$train --more-faults --out crates/engine/model/mrz-cells-faults.bin "$@"
