"""What one Tinker training step needs, for the single-policy bridge (bridge.py) and the per-user one (per_user.py):
the bridge's settings, each response token's advantage, the ``Datum`` a leased sample becomes, and the step's metrics.
Its own module so that the two trainers share it without importing each other."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping


@dataclass
class BridgeConfig:
    base_model: str
    lora_rank: int = 32
    learning_rate: float = 1e-4
    batch_size: int = 16
    loss: str = "importance_sampling"
    method: str = "combine"
    w_opd: float = 1.0
    w_rl: float = 1.0

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> "BridgeConfig":
        if not env.get("TINKER_BASE_MODEL"):
            raise SystemExit("TINKER_BASE_MODEL is not set: the control plane passes the experiment's policy model")
        return cls(
            base_model=env["TINKER_BASE_MODEL"],
            lora_rank=int(env.get("TINKER_LORA_RANK", "32")),
            learning_rate=float(env.get("TINKER_LEARNING_RATE", "1e-4")),
            batch_size=int(env.get("TINKER_BATCH_SIZE", "16")),
            loss=env.get("TINKER_LOSS", "importance_sampling"),
            method=env.get("OPENCLAW_METHOD", "combine"),
            w_opd=float(env.get("OPENCLAW_COMBINE_W_OPD", "1")),
            w_rl=float(env.get("OPENCLAW_COMBINE_W_RL", "1")),
        )


def token_advantages(fields: Mapping[str, Any], method: str, w_opd: float, w_rl: float) -> list[float]:
    """Advantage per response token (see the module docstring), zero where the loss mask is 0."""
    n = fields["response_length"]
    reward = float(fields["reward"])
    behaviour = fields["rollout_log_probs"]
    teacher = fields.get("teacher_log_probs")  # absent when there is no teacher (GRPO)
    out = []
    for t in range(n):
        gap = (teacher[t] - behaviour[t]) if teacher is not None else 0.0
        if method == "grpo":
            a = reward
        elif method == "opd":
            a = gap
        else:
            a = w_rl * reward + w_opd * gap
        out.append(a * fields["loss_mask"][t])
    return out


def build_datum(types: Any, fields: Mapping[str, Any], advantages: list[float]) -> Any:
    """Next-token alignment: position i of the input predicts token i+1, so response token t of a sequence
    with prompt length P is the target at position P+t−1; prompt positions get zero advantage."""
    tokens = fields["tokens"]
    n = fields["response_length"]
    prompt_len = len(tokens) - n
    if prompt_len < 1:
        raise ValueError("a sample needs at least one prompt token")
    pad = [0.0] * (prompt_len - 1)
    targets = tokens[1:]
    logprobs = pad + [float(x) for x in fields["rollout_log_probs"]]
    advs = pad + advantages

    def tensor(data: list, dtype: str) -> Any:
        return types.TensorData(data=data, dtype=dtype, shape=[len(data)])

    return types.Datum(
        model_input=types.ModelInput.from_ints(tokens[:-1]),
        loss_fn_inputs={"target_tokens": tensor(targets, "int64"), "logprobs": tensor(logprobs, "float32"), "advantages": tensor(advs, "float32")},
    )


def step_metrics(*results: Any) -> dict[str, float]:
    """ForwardBackwardOutput.metrics (e.g. ``loss:sum``) and OptimStepResponse.metrics; neither has a ``loss`` field."""
    metrics: dict[str, Any] = {}
    for r in results:
        metrics.update(getattr(r, "metrics", None) or {})
    return {f"tinker/{k}" if "/" not in k else k: v for k, v in metrics.items() if isinstance(v, (int, float))}
