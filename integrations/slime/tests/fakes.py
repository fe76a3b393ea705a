"""Test doubles: a character-level tokenizer with a ChatML-like template, and stand-ins for the two
slime modules the rollout function imports (slime.utils.types.Sample, built from the fields extracted from
the fork, and slime.rollout.base_types)."""

from __future__ import annotations

import enum
import json
import os
import sys
import types
from dataclasses import dataclass, field, make_dataclass
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


SAMPLE_CONTRACT = os.path.join(os.path.dirname(__file__), "..", "..", "..", "tests", "fixtures", "slime", "sample-contract.json")


def sample_contract() -> dict[str, Any]:
    """tests/fixtures/slime/sample-contract.json, extracted from the fork by integrations/contracts/extract_slime_sample.py."""
    with open(SAMPLE_CONTRACT, encoding="utf-8") as f:
        return json.load(f)


def _default(spec: Any, status: Any) -> Any:
    if isinstance(spec, dict) and str(spec.get("expr", "")).startswith("Status."):
        return field(default=status[spec["expr"].split(".", 1)[1]])
    if isinstance(spec, dict) and "factory" in spec:
        factory = {"list": list, "dict": dict}.get(spec["factory"], lambda: None)
        return field(default_factory=factory)
    if isinstance(spec, dict):  # an expression (a nested dataclass instance): not used by the rollout function
        return field(default=None)
    return field(default=spec)


def build_sample_class(commit: dict[str, Any]) -> type:
    """The fork's ``Sample`` at one extracted commit: the same fields, defaults and ``Status`` members.

    Like the real dataclass it accepts attributes that are not fields (they land in ``__dict__``), but only
    those ``RolloutManager`` ships to the trainer (``extras``): anything else would be silently lost, so the
    stand-in refuses it.
    """
    spec = commit["sample"]
    status = enum.Enum("Status", {s["name"]: s["value"] for s in spec["status"]})
    names = [f["name"] for f in spec["fields"]]
    allowed = set(names) | {e["name"] for e in commit["extras"]["names"]}

    def __setattr__(self: Any, name: str, value: Any) -> None:
        if name not in allowed:
            raise AttributeError(f"the fork's Sample ({commit['commit'][:7]}) has no field {name!r} and RolloutManager does not ship it")
        object.__setattr__(self, name, value)

    cls = make_dataclass("Sample", [(f["name"], Any, _default(f["default"], status)) for f in spec["fields"]], namespace={"__setattr__": __setattr__, "Status": status})
    cls.commit = commit["commit"]
    return cls


def train_data(samples: list[Any], commit: dict[str, Any]) -> dict[str, list[Any]]:
    """What the fork's RolloutManager ships for one rollout and what its Megatron actor then asserts.

    ``extras`` are shipped when the first sample carries them in ``__dict__``; each ``per_token`` key is then
    sliced by ``cp_utils.slice_log_prob_with_cp``, which asserts ``len(log_prob) == response_length``
    (``len(None)`` raises TypeError, the first-step crash of a GRPO run given ``teacher_log_probs=None``).
    """
    data: dict[str, list[Any]] = {
        "tokens": [s.tokens for s in samples],
        "response_lengths": [s.response_length for s in samples],
        "loss_masks": [s.loss_mask for s in samples],
    }
    if samples[0].rollout_log_probs is not None:
        data["rollout_log_probs"] = [s.rollout_log_probs for s in samples]
    for extra in commit["extras"]["names"]:
        if extra["name"] in samples[0].__dict__:
            data[extra["name"]] = [getattr(s, extra["name"]) for s in samples]
    for key in {k["name"] for k in commit["per_token"]["names"]}:
        for value, n in zip(data.get(key, []), data["response_lengths"]):
            assert len(value) == n, f"{key}: {len(value)} != response length {n}"
    return data


#: The fork's ``Sample`` at each extracted commit (pinned first), and the newest one.
SAMPLE_CLASSES = [build_sample_class(c) for c in sample_contract()["commits"]]
FakeSample = SAMPLE_CLASSES[-1]


@dataclass
class FakeTrainOutput:
    samples: list
    metrics: dict | None = None


def install_fake_slime() -> None:
    modules = {name: types.ModuleType(name) for name in ("slime", "slime.utils", "slime.utils.types", "slime.rollout", "slime.rollout.base_types")}
    modules["slime.utils.types"].Sample = FakeSample
    modules["slime.rollout.base_types"].RolloutFnTrainOutput = FakeTrainOutput
    sys.modules.update(modules)


class RolloutJobCase:
    """setUp/tearDown for tests that drive integrations.slime.rollout against the API: the fake slime, a character
    tokenizer, a fresh job with the test's environment (ROLLOUT_ENV), and the job's heartbeat stopped after."""

    ROLLOUT_ENV: dict[str, str] = {}

    def setUp(self) -> None:
        from integrations.slime import rollout

        install_fake_slime()
        rollout.TOKENIZER_LOADER = lambda args: CharTokenizer()
        rollout._job = None
        os.environ.update({"OPENCLAW_HEARTBEAT_S": "3600", "OPENCLAW_LEASE_MAX_WAIT_S": "20", **self.ROLLOUT_ENV})

    def tearDown(self) -> None:
        from integrations.slime import rollout

        if rollout._job is not None:
            rollout._job.heartbeat.stop()
        rollout._job = None

