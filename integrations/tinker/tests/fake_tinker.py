"""A fake of the Tinker SDK calls the bridge uses, rebuilt from the SDK's source:
thinking-machines-lab/tinker @ d595dc2ba62a1494aa0f452fe1d0dbb7b321b870

- ``src/tinker/lib/public_interfaces/service_client.py``: ``ServiceClient.create_lora_training_client(base_model,
  rank=32, seed=None, train_mlp=True, train_attn=True, train_unembed=True, user_metadata=None)``,
  ``create_sampling_client(model_path=None, base_model=None, retry_config=None)`` (ValueError if neither).
- ``src/tinker/lib/public_interfaces/training_client.py``: ``forward_backward(data, loss_fn, loss_fn_config=None)``,
  ``optim_step(adam_params)`` → futures; ``save_weights_for_sampler(name, ttl_seconds=None)`` → future of
  ``SaveWeightsForSamplerResponse(path)``; ``save_weights_and_get_sampling_client(name=None, retry_config=None)``
  whose ``name`` is deprecated, has no effect and warns (DeprecationWarning), the weights being ephemeral;
  ``create_sampling_client(model_path, retry_config=None)``; ``get_tokenizer()``; ``save_state(name, ttl_seconds=None,
  overwrite=False)`` → future of ``SaveWeightsResponse(path)`` (``types/save_weights_response.py``), a
  ``tinker://<run-id>/weights/<name>`` path that ``ServiceClient.create_training_client_from_state_with_optimizer(path,
  base_model=None, user_metadata=None, weights_access_token=None)`` resumes a training client from (weights and Adam
  moments; the fake carries the optimizer steps taken, so a resumed client is visibly the saved one).
- ``src/tinker/lib/public_interfaces/sampling_client.py``: ``SamplingClient`` has **no** ``model_path`` attribute
  (``model_path`` is only a create-time argument); ``sample(prompt, num_samples, sampling_params,
  include_prompt_logprobs=False, topk_prompt_logprobs=0)`` → future of ``SampleResponse``.
- ``src/tinker/types/_pydantic_types/sampling_params.py``: ``SamplingParams(max_tokens=None, seed=None, stop=None,
  temperature=1, top_k=-1, top_p=1)``; ``types/sample_response.py``: ``SampleResponse(sequences, ...)``;
  ``types/sampled_sequence.py``: ``SampledSequence(stop_reason: "length" | "stop", tokens, logprobs)``. The fake
  "model" answers ``answer from <weights>`` (the sampler's model path or base model), token by token as the
  tokenizer encodes it, ending with the first int stop token unless max_tokens cuts it: which weights answered
  is visible in the text.
- ``src/tinker/types/``: ``ModelInput(chunks=[EncodedTextChunk(tokens)])`` with ``from_ints``/``to_ints``/``length``;
  ``TensorData(data, dtype, shape=None)`` (dtype required, shape checked); ``Datum(model_input, loss_fn_inputs)``
  (frozen, lists coerced by key: target_tokens int64, advantages/logprobs/weights float32);
  ``AdamParams(learning_rate=1e-4, beta1=0.9, beta2=0.95, eps=1e-12, weight_decay=0.0, grad_clip_norm=0.0)``
  (strict: unknown fields rejected); ``ForwardBackwardOutput(loss_fn_output_type, loss_fn_outputs, metrics)`` (no
  ``loss`` field); ``OptimStepResponse(metrics=None)``; ``LossFnType`` = cross_entropy | importance_sampling | ppo
  | cispo | dro.

The ``Datum`` layout (its fields, each ``loss_fn_inputs`` key's dtype), ``TensorData``'s parameters, ``ModelInput``'s
methods and the ``LossFnType`` choices are not copied by hand: they are read from
tests/fixtures/tinker/datum-contract.json, extracted from the SDK at that commit by
integrations/contracts/extract_tinker_datum.py. A loss input the SDK does not know is refused (the real ``Datum``
raises ``KeyError`` for it given as a list; given as ``TensorData`` no loss function would read it). The types the
bridge builds (``AdamParams``, ``SamplingParams``) and the responses it reads are held to the ``types`` section of the
same fixture (each class's fields and readable attributes, test_bridge.py): a field the SDK's class lacks fails there.

Sampler paths follow the CLI's documented shape ``tinker://<run-id>/sampler_weights/<name>``
(``src/tinker/cli/AGENTS.md``). The fake checks what the real service would reject and records calls.
"""

from __future__ import annotations

import json
import os
import types as pytypes
import uuid
import warnings
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

DATUM_CONTRACT_PATH = os.path.join(os.path.dirname(__file__), "..", "..", "..", "tests", "fixtures", "tinker", "datum-contract.json")
with open(DATUM_CONTRACT_PATH, encoding="utf-8") as _f:
    DATUM_CONTRACT = json.load(_f)

LOSSES = tuple(DATUM_CONTRACT["loss_fn_types"]["choices"])
_KEY_TO_TYPE = DATUM_CONTRACT["datum"]["key_to_type"]


@dataclass(frozen=True)
class EncodedTextChunk:
    tokens: List[int]

    @property
    def length(self) -> int:
        return len(self.tokens)


@dataclass(frozen=True)
class ModelInput:
    chunks: List[EncodedTextChunk]

    @classmethod
    def from_ints(cls, tokens: List[int]) -> "ModelInput":
        return cls(chunks=[EncodedTextChunk(tokens=list(tokens))])

    def to_ints(self) -> List[int]:
        return [t for c in self.chunks for t in c.tokens]

    @property
    def length(self) -> int:
        return sum(c.length for c in self.chunks)


class TensorData:
    __slots__ = ("data", "dtype", "shape")

    def __init__(self, data=None, dtype=None, shape=None):
        if dtype is None:
            raise TypeError("TensorData requires `dtype`")
        if dtype not in ("int64", "float32"):
            raise ValueError(f"unsupported dtype {dtype}")
        data = list(data or [])
        if shape is not None and list(shape) != [len(data)]:
            raise ValueError(f"shape {shape} does not match {len(data)} values")
        self.data, self.dtype, self.shape = data, dtype, (list(shape) if shape is not None else [len(data)])


@dataclass(frozen=True)
class Datum:
    model_input: ModelInput
    loss_fn_inputs: Dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        coerced = {}
        for key, value in self.loss_fn_inputs.items():
            if key not in _KEY_TO_TYPE:
                raise KeyError(f"{key!r} is not a loss input of Tinker's Datum ({', '.join(_KEY_TO_TYPE)})")
            if isinstance(value, TensorData):
                coerced[key] = value
            elif isinstance(value, list):
                coerced[key] = TensorData(data=value, dtype=_KEY_TO_TYPE[key])
            else:
                raise TypeError(f"{key}: unsupported loss input {type(value).__name__}")
        object.__setattr__(self, "loss_fn_inputs", coerced)


class AdamParams:
    _FIELDS = {"learning_rate": 1e-4, "beta1": 0.9, "beta2": 0.95, "eps": 1e-12, "weight_decay": 0.0, "grad_clip_norm": 0.0}

    def __init__(self, **kwargs):
        unknown = set(kwargs) - set(self._FIELDS)
        if unknown:
            raise ValueError(f"AdamParams: extra fields not permitted: {sorted(unknown)}")
        for k, v in {**self._FIELDS, **kwargs}.items():
            setattr(self, k, v)


@dataclass(frozen=True)
class ForwardBackwardOutput:
    loss_fn_output_type: str
    loss_fn_outputs: List[Dict[str, Any]]
    metrics: Dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class OptimStepResponse:
    metrics: Optional[Dict[str, float]] = None


@dataclass(frozen=True)
class SaveWeightsResponse:
    path: str
    type: Optional[str] = None


@dataclass(frozen=True)
class SaveWeightsForSamplerResponse:
    path: str
    type: Optional[str] = "save_weights_for_sampler"


class APIFuture:
    def __init__(self, value):
        self._value = value

    def result(self, timeout: float | None = None):
        return self._value


class SamplingParams:
    _FIELDS = {"max_tokens": None, "seed": None, "stop": None, "temperature": 1.0, "top_k": -1, "top_p": 1.0}

    def __init__(self, **kwargs):
        unknown = set(kwargs) - set(self._FIELDS)
        if unknown:
            raise ValueError(f"SamplingParams: unknown fields {sorted(unknown)}")
        for k, v in {**self._FIELDS, **kwargs}.items():
            setattr(self, k, v)


@dataclass(frozen=True)
class SampledSequence:
    stop_reason: str
    tokens: List[int]
    logprobs: Optional[List[float]] = None


@dataclass(frozen=True)
class SampleResponse:
    sequences: List[SampledSequence]


def fake_logprob(token: int) -> float:
    return -((token % 7) + 1) / 10


# How much likelier a sampler path makes every scored token than the base (compute_logprobs): a test names its
# candidates' skills here, or through FAKE_TINKER_SKILLS (JSON {path: offset}) for the served endpoint.
SKILLS: dict = {}


class SamplingClient:
    """Holds what the real one does (a sampling session); deliberately no ``model_path`` attribute."""

    __slots__ = ("_session", "_base_model", "_tokenizer", "prompts")

    def __init__(self, session: str, base_model: str, tokenizer=None):
        self._session, self._base_model, self._tokenizer = session, base_model, tokenizer
        self.prompts = []

    def get_base_model(self) -> str:
        return self._base_model

    def sample(self, prompt, num_samples, sampling_params, include_prompt_logprobs=False, topk_prompt_logprobs=0):
        if not isinstance(prompt, ModelInput):
            raise TypeError("sample takes a types.ModelInput prompt")
        if not isinstance(sampling_params, SamplingParams):
            raise TypeError("sample takes types.SamplingParams")
        if self._tokenizer is None:
            raise NotImplementedError("this fake sampler has no tokenizer to answer with")
        self.prompts.append(prompt.to_ints())
        reply = self._tokenizer(f"answer from {self._session}", add_special_tokens=False)["input_ids"]
        stops = [s for s in (sampling_params.stop or []) if isinstance(s, int)]
        limit = sampling_params.max_tokens
        seqs = []
        for _ in range(num_samples):
            tokens = list(reply) + stops[:1]
            reason = "stop"
            if limit is not None and len(tokens) > limit:
                tokens, reason = tokens[:limit], "length"
            seqs.append(SampledSequence(stop_reason=reason, tokens=tokens, logprobs=[fake_logprob(t) for t in tokens]))
        return APIFuture(SampleResponse(sequences=seqs))

    def compute_logprobs(self, prompt):
        """As the SDK's: one entry per prompt token, the first None (nothing precedes it to predict it)."""
        if not isinstance(prompt, ModelInput):
            raise TypeError("compute_logprobs takes a types.ModelInput prompt")
        ids = prompt.to_ints()
        skill = SKILLS.get(self._session, 0.0)
        return APIFuture([None] + [fake_logprob(t) + skill for t in ids[1:]])


class TrainingClient:
    def __init__(self, service, base_model, rank, tokenizer, steps=0):
        self.service, self.base_model, self.rank, self.tokenizer = service, base_model, rank, tokenizer
        self.model_id = f"run-{uuid.uuid4().hex[:8]}"
        # Optimizer steps in these weights (a stand-in for the weights and Adam moments a saved state holds).
        self.steps = steps

    def get_tokenizer(self):
        return self.tokenizer

    def forward_backward(self, data, loss_fn, loss_fn_config=None):
        if loss_fn not in LOSSES:
            raise ValueError(f"unknown loss {loss_fn}")
        for d in data:
            if not isinstance(d, Datum):
                raise TypeError("forward_backward takes a list of types.Datum")
            n = d.model_input.length
            for name in ("target_tokens", "logprobs", "advantages"):
                t = d.loss_fn_inputs[name]
                if len(t.data) != n or t.shape != [n]:
                    raise ValueError(f"{name} has {len(t.data)} entries for a {n}-token input")
        self.service.calls.append(("forward_backward", loss_fn, data, self.model_id))
        return APIFuture(ForwardBackwardOutput(loss_fn_output_type="TensorData", loss_fn_outputs=[{} for _ in data], metrics={"loss:sum": 1.5}))

    def optim_step(self, adam_params):
        if not isinstance(adam_params, AdamParams):
            raise TypeError("optim_step takes types.AdamParams")
        self.service.calls.append(("optim_step", adam_params.learning_rate, self.model_id))
        self.steps += 1
        return APIFuture(OptimStepResponse(metrics=None))

    def save_state(self, name: str, ttl_seconds: int | None = None, overwrite: bool = False):
        path = f"tinker://{self.model_id}/weights/{name}"
        if path in self.service.states and not overwrite:
            raise ValueError(f"a state named {name} exists")
        self.service.states[path] = (self.base_model, self.rank, self.steps)
        self.service.calls.append(("save_state", name, self.model_id))
        return APIFuture(SaveWeightsResponse(path=path))

    def save_weights_for_sampler(self, name: str, ttl_seconds: int | None = None):
        if not name:
            raise ValueError("save_weights_for_sampler needs a name")
        self.service.calls.append(("save_weights_for_sampler", name, self.model_id))
        return APIFuture(SaveWeightsForSamplerResponse(path=f"tinker://{self.model_id}/sampler_weights/{name}"))

    def save_weights_and_get_sampling_client(self, name: str | None = None, retry_config=None):
        if name is not None:
            warnings.warn("The 'name' parameter of save_weights_and_get_sampling_client() is deprecated and has no effect", DeprecationWarning, stacklevel=2)
        self.service.calls.append(("save_weights_and_get_sampling_client", None))
        return SamplingClient(session=f"session-{uuid.uuid4().hex[:8]}", base_model=self.base_model)

    def create_sampling_client(self, model_path: str, retry_config=None):
        if not str(model_path).startswith("tinker://"):
            raise ValueError(f"not a tinker path: {model_path}")
        self.service.calls.append(("create_sampling_client", model_path))
        return SamplingClient(session=model_path, base_model=self.base_model, tokenizer=self.tokenizer)


def make_module(tokenizer):
    service_state = pytypes.SimpleNamespace(calls=[], created=[], states={})

    class ServiceClient:
        def __init__(self, user_metadata=None, project_id=None, **kwargs):
            self.calls = service_state.calls
            self.states = service_state.states

        def create_lora_training_client(self, base_model, rank=32, seed=None, train_mlp=True, train_attn=True, train_unembed=True, user_metadata=None):
            service_state.created.append((base_model, rank))
            return TrainingClient(self, base_model, rank, tokenizer)

        def create_training_client_from_state_with_optimizer(self, path, base_model=None, user_metadata=None, weights_access_token=None):
            if path not in service_state.states:
                raise ValueError(f"no saved state at {path}")
            saved_base, rank, steps = service_state.states[path]
            self.calls.append(("create_training_client_from_state_with_optimizer", path))
            return TrainingClient(self, base_model or saved_base, rank, tokenizer, steps=steps)

        def create_sampling_client(self, model_path=None, base_model=None, retry_config=None):
            if model_path is None and base_model is None:
                raise ValueError("Either model_path or base_model must be provided")
            self.calls.append(("create_sampling_client", model_path or base_model))
            return SamplingClient(session=model_path or base_model, base_model=base_model or "?", tokenizer=tokenizer)

    module = pytypes.ModuleType("tinker")
    module.ServiceClient = ServiceClient
    module.types = pytypes.SimpleNamespace(
        Datum=Datum, ModelInput=ModelInput, EncodedTextChunk=EncodedTextChunk, TensorData=TensorData, AdamParams=AdamParams,
        ForwardBackwardOutput=ForwardBackwardOutput, OptimStepResponse=OptimStepResponse, SaveWeightsForSamplerResponse=SaveWeightsForSamplerResponse, SaveWeightsResponse=SaveWeightsResponse,
        SamplingParams=SamplingParams, SampleResponse=SampleResponse, SampledSequence=SampledSequence,
    )
    return module, service_state
