#!/bin/sh
# Retrains the MRZ cell classifier and writes crates/engine/model/mrz-cells.bin.
# Needs Debian's fonts-ocr-b (apt-get install fonts-ocr-b). Deterministic for a
# given seed and thread count; three to ten minutes on two cores. The committed
# weights are what it made at commit b721b8e (crates/engine/README.md says why
# they were not replaced since).
set -eu
cd "$(dirname "$0")/.."
cargo run --release -p mrtd-engine --bin mrtd-train -- \
    --seed 9303 --scenes 2000 --epochs 8 --out crates/engine/model/mrz-cells.bin "$@"
