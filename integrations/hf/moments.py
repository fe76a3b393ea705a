"""A LoRA checkpoint's Adam moments, kept in a file beside its folder so a restarted trainer resumes the optimizer too
(the shared trainer's checkpoints and each user's version folders alike)."""

from __future__ import annotations

import os
from typing import Any, Mapping

import torch


def moments_file(checkpoint: str) -> str:
    """Where a LoRA checkpoint's Adam moments are kept: a file beside its folder, not in it (the folder is what SGLang,
    vLLM and PEFT load, and holds only the adapter), so a restarted trainer resumes the optimizer too."""
    return checkpoint.rstrip(os.sep) + ".adam.pt"


def save_moments(optimizer_state: Mapping[str, Any], checkpoint: str) -> None:
    tmp = moments_file(checkpoint) + ".tmp"
    torch.save(optimizer_state, tmp)
    os.replace(tmp, moments_file(checkpoint))


def load_moments(checkpoint: str) -> dict[str, Any] | None:
    """The moments saved beside ``checkpoint``, or None (none saved: a checkpoint from before, or full fine-tuning)."""
    path = moments_file(checkpoint)
    return torch.load(path, map_location="cpu") if os.path.exists(path) else None
