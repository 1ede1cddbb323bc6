"""Exports a sentence-transformers BERT model (safetensors) to the ONNX folder layout transformers.js loads.

Usage: export_onnx.py SOURCE_FOLDER TARGET_FOLDER

The graph is traced by torch.onnx.export from the Hugging Face `transformers` model itself, then checked: onnxruntime
(the engine onnxruntime-node wraps) must give the same mean-pooled embeddings as torch.
"""
import json
import shutil
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime
import torch
from transformers import AutoModel, AutoTokenizer

# Files transformers.js reads next to onnx/model.onnx.
SIDE_FILES = ["config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt"]
TRACE_TEXTS = ["Vitamin D deficiency is associated with an increased risk of fractures.", "short"]
# Checked at another batch size and length than the trace, so frozen shapes would show.
CHECK_TEXTS = [
    "ACH returns: how to handle R01 insufficient funds before the settlement window closes on the next business day.",
    "Which enzyme converts angiotensin I to angiotensin II?",
    "a",
    "Kinases phosphorylate substrates; phosphatases remove the phosphate groups again.",
]


def mean_pool(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Mean of the token vectors where the attention mask is 1, L2-normalised, as sentence-transformers pools."""
    weights = mask[..., None].astype(np.float32)
    pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
    return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)


class Encoder(torch.nn.Module):
    """The model with a fixed positional signature (transformers reorders `forward`'s optional arguments between versions)."""

    def __init__(self, model: torch.nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor, token_type_ids: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids).last_hidden_state


def main(source: Path, target: Path) -> None:
    tokenizer = AutoTokenizer.from_pretrained(source)
    # Eager attention traces to plain MatMul/Softmax; SDPA's Python-side branches would be frozen into the graph.
    model = Encoder(AutoModel.from_pretrained(source, attn_implementation="eager")).eval()
    (target / "onnx").mkdir(parents=True, exist_ok=True)
    onnx_path = target / "onnx" / "model.onnx"

    trace = tokenizer(TRACE_TEXTS, padding=True, return_tensors="pt")
    inputs = (trace["input_ids"], trace["attention_mask"], trace["token_type_ids"])
    dynamic = {0: "batch", 1: "sequence"}
    # The TorchScript exporter (dynamo=False) gives the plain opset-17 graph transformers.js' BERT models use.
    torch.onnx.export(
        model,
        inputs,
        str(onnx_path),
        input_names=["input_ids", "attention_mask", "token_type_ids"],
        output_names=["last_hidden_state"],
        dynamic_axes={"input_ids": dynamic, "attention_mask": dynamic, "token_type_ids": dynamic, "last_hidden_state": dynamic},
        opset_version=17,
        dynamo=False,
    )
    onnx.checker.check_model(str(onnx_path))

    sample = tokenizer(CHECK_TEXTS, padding=True, return_tensors="pt")
    inputs = (sample["input_ids"], sample["attention_mask"], sample["token_type_ids"])
    with torch.no_grad():
        expected = mean_pool(model(*inputs).numpy(), sample["attention_mask"].numpy())
    feeds = {"input_ids": inputs[0].numpy(), "attention_mask": inputs[1].numpy(), "token_type_ids": inputs[2].numpy()}
    (hidden,) = onnxruntime.InferenceSession(str(onnx_path)).run(None, feeds)
    actual = mean_pool(hidden, sample["attention_mask"].numpy())
    worst = float(np.abs(actual - expected).max())
    if worst > 1e-4:
        raise SystemExit(f"ONNX export differs from torch by {worst} (limit 1e-4)")

    for name in SIDE_FILES:
        if (source / name).exists():
            shutil.copyfile(source / name, target / name)
    (target / "export.json").write_text(json.dumps({"source": str(source), "max_abs_diff": worst}, indent=2) + "\n")
    print(f"exported {onnx_path} ({onnx_path.stat().st_size // 1_000_000} MB), max |onnx - torch| = {worst:.2e}", file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit("usage: export_onnx.py SOURCE_FOLDER TARGET_FOLDER")
    main(Path(sys.argv[1]), Path(sys.argv[2]))
