#!/bin/sh
# Fetches the PP-OCRv4 text networks from the wheel PyPI publishes them in and rewrites
# crates/text/model/ byte for byte (see its README.md): the two ONNX files and the
# recogniser's symbols. Needs python3 with pip; installs `onnx` into a throwaway venv.
set -eu
cd "$(dirname "$0")/.."
wheel_sha256=971d7d5f223a7a808662229df1ef69893809d8457d834e6373d3854bc1782cbf
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/venv"
"$work/venv/bin/pip" -q install onnx==1.17.0
"$work/venv/bin/pip" -q download --no-deps -d "$work" rapidocr_onnxruntime==1.4.4
echo "$wheel_sha256  $work/rapidocr_onnxruntime-1.4.4-py3-none-any.whl" | sha256sum -c -
"$work/venv/bin/python" - "$work/rapidocr_onnxruntime-1.4.4-py3-none-any.whl" <<'PY'
import sys, zipfile, onnx
wheel = zipfile.ZipFile(sys.argv[1])
models = "rapidocr_onnxruntime/models/"
for name, out in [("ch_PP-OCRv4_det_infer.onnx", "ppocr-v4-det.onnx"),
                  ("ch_PP-OCRv4_rec_infer.onnx", "ppocr-v4-rec.onnx")]:
    with open("crates/text/model/" + out, "wb") as f:
        f.write(wheel.read(models + name))
rec = onnx.load("crates/text/model/ppocr-v4-rec.onnx", load_external_data=False)
keys = [p.value for p in rec.metadata_props if p.key == "character"][0]
with open("crates/text/model/ppocr-v4-keys.txt", "w", encoding="utf-8") as f:
    f.write(keys if keys.endswith("\n") else keys + "\n")
PY
sha256sum crates/text/model/ppocr-v4-det.onnx crates/text/model/ppocr-v4-rec.onnx
