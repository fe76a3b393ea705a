"""Test doubles: a character-level tokenizer with a ChatML-like template, and stand-ins for the two
slime modules the rollout function imports (slime.utils.types.Sample, slime.rollout.base_types)."""

from __future__ import annotations

import enum
import sys
import types
from dataclasses import dataclass, field
from typing import Any


class CharTokenizer:
    """Token id = code point; the template renders `<|role|>content\\n` per message."""

    def apply_chat_template(self, conversation, tools=None, tokenize=False, add_generation_prompt=False):
        text = "".join(f"<|{m['role']}|>{m.get('content') or ''}\n" for m in conversation)
        if tools:
            text = f"<|tools|>{len(tools)}\n" + text
        return text + ("<|assistant|>" if add_generation_prompt else "")

    def __call__(self, text, add_special_tokens=False):
        return {"input_ids": [ord(c) for c in text]}

    def decode(self, ids):
        return "".join(chr(i) for i in ids)


@dataclass
class FakeSample:
    class Status(enum.Enum):
        PENDING = "pending"
        COMPLETED = "completed"

    group_index: int | None = None
    index: int | None = None
    prompt: Any = ""
    tokens: list = field(default_factory=list)
    response: str = ""
    response_length: int = 0
    reward: Any = None
    loss_mask: list | None = None
    weight_versions: list = field(default_factory=list)
    rollout_log_probs: list | None = None
    teacher_log_probs: list | None = None
    status: Any = None
    metadata: dict = field(default_factory=dict)
    session_id: str | None = None


@dataclass
class FakeTrainOutput:
    samples: list
    metrics: dict | None = None


def install_fake_slime() -> None:
    modules = {name: types.ModuleType(name) for name in ("slime", "slime.utils", "slime.utils.types", "slime.rollout", "slime.rollout.base_types")}
    modules["slime.utils.types"].Sample = FakeSample
    modules["slime.rollout.base_types"].RolloutFnTrainOutput = FakeTrainOutput
    sys.modules.update(modules)
