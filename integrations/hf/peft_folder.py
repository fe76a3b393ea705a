"""A LoRA adapter folder in the layout PEFT writes and reads (and SGLang / vLLM load per user), without peft installed.

The layout is huggingface/peft's, extracted from its source into ``tests/fixtures/peft/lora_adapter.json``
(``integrations/contracts/extract_peft_adapter.py``, pinned commit in the fixture's header):

- ``adapter_config.json`` (``CONFIG_NAME``): ``LoraConfig`` fields — ``peft_type`` "LORA", ``task_type`` "CAUSAL_LM",
  ``r``, ``lora_alpha``, ``target_modules``, ``base_model_name_or_path`` — and no key LoraConfig lacks;
- ``adapter_model.safetensors`` (``SAFETENSORS_WEIGHTS_NAME``), metadata ``{"format": "pt"}`` as ``save_pretrained``
  writes it; keys ``base_model.model.<module>.lora_A.weight`` ([r, in]) and ``….lora_B.weight`` ([out, r]): the
  PeftModel prefix, the adapter's own name dropped (``get_peft_model_state_dict``);
- the folder itself holds the files: PEFT saves a non-default adapter into a subfolder named after it, which an engine
  given the folder would not find, so this writes the files where the path points.

safetensors (8-byte little-endian header length, a JSON header of dtype / shape / data offsets, then the raw
little-endian tensor bytes) is written and read here with torch alone; the package is not on every trainer host.
"""

from __future__ import annotations

import json
import os
import struct
from typing import Mapping, Sequence

import torch

CONFIG_NAME = "adapter_config.json"
SAFETENSORS_WEIGHTS_NAME = "adapter_model.safetensors"
KEY_PREFIX = "base_model.model."
METADATA = {"format": "pt"}

_DTYPES = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16"}
_BY_NAME = {v: k for k, v in _DTYPES.items()}
# Same-width integer views: numpy (behind .numpy()) has no bfloat16.
_RAW = {torch.float32: torch.int32, torch.float16: torch.int16, torch.bfloat16: torch.int16}


def save_safetensors(tensors: Mapping[str, torch.Tensor], filename: str, metadata: Mapping[str, str]) -> None:
    header: dict[str, object] = {"__metadata__": dict(metadata)}
    chunks, offset = [], 0
    for name in sorted(tensors):
        t = tensors[name].detach().cpu().contiguous()
        if t.dtype not in _DTYPES:
            raise ValueError(f"{name}: dtype {t.dtype} is not one of {sorted(_DTYPES.values())}")
        arr = t.view(_RAW[t.dtype]).numpy()
        data = arr.astype(arr.dtype.newbyteorder("<")).tobytes()
        header[name] = {"dtype": _DTYPES[t.dtype], "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        chunks.append(data)
        offset += len(data)
    raw = json.dumps(header, separators=(",", ":")).encode("utf-8")
    raw += b" " * (-len(raw) % 8)  # the buffer starts 8-byte aligned, as the reference writer pads it
    with open(filename, "wb") as f:
        f.write(struct.pack("<Q", len(raw)))
        f.write(raw)
        for c in chunks:
            f.write(c)


def load_safetensors(filename: str) -> tuple[dict[str, torch.Tensor], dict[str, str]]:
    with open(filename, "rb") as f:
        blob = f.read()
    (n,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8 : 8 + n])
    metadata = header.pop("__metadata__", {})
    body = blob[8 + n :]
    out = {}
    for name, h in header.items():
        dtype = _BY_NAME[h["dtype"]]
        begin, end = h["data_offsets"]
        raw = torch.frombuffer(bytearray(body[begin:end]), dtype=_RAW[dtype]) if end > begin else torch.empty(0, dtype=_RAW[dtype])
        out[name] = raw.view(dtype).reshape(h["shape"])
    return out, metadata


def lora_config(base_model: str, rank: int, alpha: float, target_modules: Sequence[str]) -> dict[str, object]:
    """adapter_config.json for an inference-ready causal-LM LoRA (LoraConfig's fields; the rest take their defaults)."""
    return {
        "peft_type": "LORA",
        "task_type": "CAUSAL_LM",
        "base_model_name_or_path": base_model,
        "r": rank,
        "lora_alpha": alpha,
        "target_modules": sorted(set(target_modules)),
        "lora_dropout": 0.0,
        "bias": "none",
        "fan_in_fan_out": False,
        "inference_mode": True,
    }


def peft_key(module: str, which: str) -> str:
    """``which``: "A" or "B"; ``module``: the adapted Linear's path in the base model (e.g. ``model.layers.0.self_attn.q_proj``)."""
    return f"{KEY_PREFIX}{module}.lora_{which}.weight"


def write_peft_folder(path: str, weights: Mapping[str, torch.Tensor], config: Mapping[str, object], exist_ok: bool = True) -> None:
    """Writes the folder (created if missing; with ``exist_ok=False`` an existing one is refused, FileExistsError);
    the weights file first, so a folder with a config is complete."""
    os.makedirs(path, exist_ok=exist_ok)
    save_safetensors(weights, os.path.join(path, SAFETENSORS_WEIGHTS_NAME), METADATA)
    with open(os.path.join(path, CONFIG_NAME), "w", encoding="utf-8") as f:
        json.dump(dict(config), f, indent=2)


def read_peft_folder(path: str) -> tuple[dict[str, torch.Tensor], dict[str, object]]:
    """The inverse of ``write_peft_folder``: the weights under PEFT's saved keys and the config. A folder that is not a
    complete LoRA adapter in this layout (no config, no safetensors weights, another peft_type) is refused."""
    with open(os.path.join(path, CONFIG_NAME), encoding="utf-8") as f:
        config = json.load(f)
    if config.get("peft_type") != "LORA":
        raise ValueError(f"{path}: peft_type {config.get('peft_type')!r} is not a LoRA adapter")
    weights, _ = load_safetensors(os.path.join(path, SAFETENSORS_WEIGHTS_NAME))
    stray = [k for k in weights if not k.startswith(KEY_PREFIX) or not k.endswith((".lora_A.weight", ".lora_B.weight"))]
    if stray:
        raise ValueError(f"{path}: {len(stray)} keys are not LoRA weights under {KEY_PREFIX!r}, e.g. {stray[0]!r}")
    return weights, config


@torch.no_grad()
def copy_lora_weights(params: Mapping[str, torch.Tensor], weights: Mapping[str, torch.Tensor]) -> None:
    """Copies a PEFT folder's weights into an adapter's parameters, both keyed by PEFT's saved keys; the key sets and
    every shape must match (a folder of another rank or another set of target modules is refused, nothing copied)."""
    missing, extra = sorted(set(params) - set(weights)), sorted(set(weights) - set(params))
    if missing or extra:
        raise ValueError(f"the adapter's keys differ from the folder's: {len(missing)} missing (e.g. {missing[:1]}), {len(extra)} not in the model (e.g. {extra[:1]})")
    for key, p in params.items():
        if tuple(p.shape) != tuple(weights[key].shape):
            raise ValueError(f"{key}: the folder's shape {list(weights[key].shape)} is not the adapter's {list(p.shape)}")
    for key, p in params.items():
        p.copy_(weights[key].to(device=p.device, dtype=p.dtype))
