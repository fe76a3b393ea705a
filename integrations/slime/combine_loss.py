"""Combine loss for slime (``--loss-type custom_loss --custom-loss-function-path
integrations.slime.combine_loss.combine_loss_function``), for method ``combine``.

One PPO-clipped objective over a batch that mixes RL and OPD samples, with the per-token advantage

    A_t = w_opd * (teacher_logp_t - old_logp_t) + w_rl * A_grpo_t

where A_grpo is slime's GRPO advantage (the reward broadcast over the turn's tokens, with
``--disable-rewards-normalization``), old_logp the actor's recomputed log-probs, and teacher_logp the
sample's ``teacher_log_probs`` (the behaviour log-probs for RL-only samples, so their OPD term is ~0).
With the in-job PRM teacher (OpenClaw-RL PR #85's 4-way split: ``--prm-teacher-load``, and
OPENCLAW_COMBINE_OPD_TEACHER_SOURCE=megatron as upstream's launcher exports) the teacher is the batch's
``prm_teacher_log_probs``, which the fork's Megatron PRM teacher computes from each sample's
``teacher_tokens`` (the hinted prompt + the response), as upstream's ``combine_loss.py`` reads it.
w_opd / w_rl come from OPENCLAW_COMBINE_W_OPD / OPENCLAW_COMBINE_W_RL (the reference's names; the
control plane sets them from the experiment). OPENCLAW_OPD_ADV_CLAMP (0 = off) caps |teacher - old| as the
embedded trainer's advClamp does; ``--eps-clip-c`` (dual-clip) is passed on to slime's policy loss.

Needs torch and a slime whose training batch carries ``teacher_log_probs`` (OpenClaw-RL's slime does):
imported inside the function, so this module loads, and its pure parts are tested, without either.
Not run on GPUs here.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Sequence


def combine_weights(env: dict[str, str] | None = None) -> tuple[float, float]:
    env = dict(os.environ) if env is None else env
    return float(env.get("OPENCLAW_COMBINE_W_OPD", "1")), float(env.get("OPENCLAW_COMBINE_W_RL", "1"))


def opd_adv_clamp(env: dict[str, str] | None = None) -> float:
    env = dict(os.environ) if env is None else env
    return float(env.get("OPENCLAW_OPD_ADV_CLAMP", "0"))


#: The batch keys this loss reads; each is in the fork's ``train_one_step`` ``get_batch`` list
#: (tests/fixtures/slime/sample-contract.json ``batch_keys``), or added by ``get_batch`` itself
#: (``unconcat_tokens``: fork ``slime/slime/backends/megatron_utils/data.py``).
BATCH_KEYS_READ = (
    "advantages", "log_probs", "rollout_log_probs", "ref_log_probs", "total_lengths", "response_lengths",
    "max_seq_lens", "teacher_log_probs", "prm_teacher_log_probs",
)
GET_BATCH_ADDS = ("unconcat_tokens",)


def teacher_source(env: dict[str, str] | None = None) -> str:
    """``megatron`` (the in-job PRM teacher) or ``inference`` (log-probs shipped with the samples)."""
    env = dict(os.environ) if env is None else env
    source = env.get("OPENCLAW_COMBINE_OPD_TEACHER_SOURCE", "inference").strip().lower()
    if source not in ("inference", "megatron"):
        raise ValueError(f"OPENCLAW_COMBINE_OPD_TEACHER_SOURCE must be 'inference' or 'megatron', not {source!r}")
    return source


def teacher_log_probs(batch: dict, source: str) -> Any:
    """The teacher's per-sample log-probs from the batch: the in-job PRM teacher's under ``megatron`` (an
    error when missing: the run would otherwise train GRPO plus nothing), the shipped ones otherwise."""
    if source == "megatron":
        found = batch.get("prm_teacher_log_probs")
        if found is None or len(found) == 0:
            raise RuntimeError("OPENCLAW_COMBINE_OPD_TEACHER_SOURCE=megatron needs batch['prm_teacher_log_probs']: pass --prm-teacher-load")
        return found
    found = batch.get("teacher_log_probs")
    return found if found is not None and len(found) > 0 else None


def combined_advantages(
    teacher: Sequence[Any] | None, old: Sequence[Any], grpo: Any, w_opd: float, w_rl: float, clamp: float = 0.0
) -> Any:
    """w_opd·clamp(teacher − old) + w_rl·grpo over the batch's concatenated response tokens.

    ``teacher`` and ``old`` hold one sequence per sample (tensors in slime, float lists in tests);
    ``grpo`` is slime's already concatenated GRPO advantage. Without teacher log-probs the OPD term is zero.
    ``clamp`` > 0 caps the gap at ±clamp.
    """
    if isinstance(grpo, list) and not isinstance(grpo, _Vector):
        grpo = _Vector(grpo)
    if teacher is None:
        return grpo * w_rl
    if len(teacher) != len(old):
        raise ValueError(f"{len(teacher)} teacher log-prob sequences for {len(old)} samples")
    opd = [(_Vector(t) if isinstance(t, list) else t) - o for t, o in zip(teacher, old)]
    if clamp > 0:
        opd = [g.clamp(-clamp, clamp) for g in opd]
    return _concat(opd) * w_opd + grpo * w_rl


def _concat(parts: list[Any]) -> Any:
    first = parts[0] if parts else None
    if first is not None and hasattr(first, "new_tensor"):
        import torch  # type: ignore[import-not-found]

        return torch.cat(parts, dim=0)
    return _Vector([x for p in parts for x in p])


class _Vector(list):
    """A list with element-wise + − * (the pure-Python stand-in for a 1-D tensor)."""

    def _zip(self, other: Any, op: Callable[[float, float], float]) -> "_Vector":
        if isinstance(other, (int, float)):
            return _Vector(op(a, other) for a in self)
        if len(other) != len(self):
            raise ValueError(f"length {len(self)} vs {len(other)}")
        return _Vector(op(a, b) for a, b in zip(self, other))

    def __add__(self, other: Any) -> "_Vector":  # type: ignore[override]
        return self._zip(other, lambda a, b: a + b)

    __radd__ = __add__

    def __sub__(self, other: Any) -> "_Vector":
        return self._zip(other, lambda a, b: a - b)

    def __mul__(self, other: Any) -> "_Vector":  # type: ignore[override]
        return self._zip(other, lambda a, b: a * b)

    def clamp(self, low: float, high: float) -> "_Vector":
        return _Vector(min(high, max(low, a)) for a in self)

    __rmul__ = __mul__


def combine_loss_function(args: Any, batch: dict, logits: Any, sum_of_sample_mean: Callable[[Any], Any]) -> tuple[Any, dict]:
    import torch  # type: ignore[import-not-found]
    from slime.backends.megatron_utils.loss import get_log_probs_and_entropy  # type: ignore[import-not-found]
    from slime.utils.ppo_utils import compute_approx_kl, compute_policy_loss  # type: ignore[import-not-found]

    w_opd, w_rl = combine_weights()
    grpo = torch.cat(batch["advantages"], dim=0)
    old_list = batch["rollout_log_probs"] if getattr(args, "use_rollout_logprobs", False) else batch["log_probs"]
    old = torch.cat(old_list, dim=0)

    want_entropy = args.entropy_coef != 0.0
    _, out = get_log_probs_and_entropy(
        logits,
        args=args,
        unconcat_tokens=batch["unconcat_tokens"],
        total_lengths=batch["total_lengths"],
        response_lengths=batch["response_lengths"],
        with_entropy=want_entropy,
        max_seq_lens=batch.get("max_seq_lens"),
    )
    new = torch.cat(out["log_probs"], dim=0)

    device = new.device
    teacher = teacher_log_probs(batch, teacher_source())
    teacher = [t.to(device) for t in teacher] if teacher is not None else None
    advantages = combined_advantages(
        teacher, [s.to(device) for s in batch["log_probs"]], grpo.to(device), w_opd, w_rl, opd_adv_clamp()
    )

    ppo_kl = old - new
    pg_loss, pg_clipfrac = compute_policy_loss(
        ppo_kl, advantages, args.eps_clip, args.eps_clip_high, getattr(args, "eps_clip_c", None)
    )
    pg_loss = sum_of_sample_mean(pg_loss)
    loss = pg_loss
    metrics = {
        "pg_loss": pg_loss.detach(),
        "pg_clipfrac": sum_of_sample_mean(pg_clipfrac).detach(),
        "ppo_kl": sum_of_sample_mean(ppo_kl).detach(),
    }
    if want_entropy:
        entropy = sum_of_sample_mean(torch.cat(out["entropy"], dim=0))
        loss = loss - args.entropy_coef * entropy
        metrics["entropy_loss"] = entropy.detach()
    if getattr(args, "use_kl_loss", False) and batch.get("ref_log_probs") is not None:
        kl = sum_of_sample_mean(compute_approx_kl(new, torch.cat(batch["ref_log_probs"], dim=0), kl_loss_type=args.kl_loss_type))
        loss = loss + args.kl_loss_coef * kl
        metrics["kl_loss"] = kl.detach()
    if teacher is not None:
        metrics["opd_teacher_student_abs_gap"] = sum_of_sample_mean((torch.cat(teacher, dim=0) - old).abs()).detach()
    if new.numel() == 0:
        # Keeps every rank in the backward pass when it has no loss token.
        loss = loss + 0 * logits.sum()
    metrics["loss"] = loss.detach()
    return loss, metrics
