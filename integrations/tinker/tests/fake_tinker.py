"""A fake of the Tinker SDK calls the bridge uses, as documented at tinker-docs.thinkingmachines.ai:
ServiceClient().create_lora_training_client(base_model=, rank=) → TrainingClient with get_tokenizer(),
forward_backward(data, loss_fn) and optim_step(AdamParams) returning futures (.result()), and
save_weights_and_get_sampling_client(name=); types.Datum / ModelInput.from_ints / TensorData / AdamParams.
It checks what the real service would reject (misaligned loss inputs, unknown losses) and records calls."""

from __future__ import annotations

import types as pytypes
from dataclasses import dataclass, field
from typing import Any

LOSSES = {"cross_entropy", "importance_sampling", "ppo", "cispo", "dro"}


@dataclass
class ModelInput:
    tokens: list

    @classmethod
    def from_ints(cls, tokens):
        return cls(list(tokens))

    @property
    def length(self):
        return len(self.tokens)


@dataclass
class TensorData:
    data: list
    dtype: str
    shape: list


@dataclass
class Datum:
    model_input: ModelInput
    loss_fn_inputs: dict


@dataclass
class AdamParams:
    learning_rate: float = 1e-4


@dataclass
class Future:
    value: Any

    def result(self):
        return self.value


@dataclass
class ForwardBackwardOutput:
    loss_fn_outputs: list
    metrics: dict = field(default_factory=dict)


class SamplingClient:
    def __init__(self, model_path):
        self.model_path = model_path


class TrainingClient:
    def __init__(self, service, base_model, rank, tokenizer):
        self.service, self.base_model, self.rank, self.tokenizer = service, base_model, rank, tokenizer

    def get_tokenizer(self):
        return self.tokenizer

    def forward_backward(self, data, loss_fn):
        if loss_fn not in LOSSES:
            raise ValueError(f"unknown loss {loss_fn}")
        for d in data:
            n = d.model_input.length
            for name in ("target_tokens", "logprobs", "advantages"):
                t = d.loss_fn_inputs[name]
                if len(t.data) != n or t.shape != [n]:
                    raise ValueError(f"{name} has {len(t.data)} entries for a {n}-token input")
        self.service.calls.append(("forward_backward", loss_fn, data))
        return Future(ForwardBackwardOutput(loss_fn_outputs=[{} for _ in data], metrics={"loss:sum": 1.5}))

    def optim_step(self, params):
        self.service.calls.append(("optim_step", params.learning_rate))
        return Future({})

    def save_weights_and_get_sampling_client(self, name):
        self.service.calls.append(("save_weights_and_get_sampling_client", name))
        return SamplingClient(f"tinker://fake/{name}")


def make_module(tokenizer):
    service_state = pytypes.SimpleNamespace(calls=[], created=[])

    class ServiceClient:
        def __init__(self):
            self.calls = service_state.calls

        def create_lora_training_client(self, base_model, rank=32):
            service_state.created.append((base_model, rank))
            return TrainingClient(self, base_model, rank, tokenizer)

    module = pytypes.ModuleType("tinker")
    module.ServiceClient = ServiceClient
    module.types = pytypes.SimpleNamespace(Datum=Datum, ModelInput=ModelInput, TensorData=TensorData, AdamParams=AdamParams)
    return module, service_state
