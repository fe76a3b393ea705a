"""The training losses in torch, with slime's semantics and defaults (``slime/utils/ppo_utils.py``
``compute_policy_loss``; ``backends/megatron_utils/cp_utils.py`` ``get_sum_of_sample_mean``; OpenClaw-RL's
combine and top-K losses, ported in ``integrations/slime/combine_loss.py`` and ``topk_loss.py``).

- PPO clip: ratio = exp(new − old); loss = max(−ratio·A, −clip(ratio, 1−ε_low, 1+ε_high)·A); with the
  dual-clip constant c > 1, negative-advantage tokens are capped at −c·A. Defaults ε_low 0.2, ε_high 0.28.
- Reduction: slime's ``sum_of_sample_mean`` (each sample's masked token mean, summed) divided by the number of
  samples, as its train step divides by the global batch size; ``token_mean`` (slime's
  ``--calculate-per-token-loss``) averages over every loss token of the batch instead.
- Advantages per response token: grpo A = r; opd A = teacher − old; combine A = w_opd·(teacher − old) +
  w_rl·r, the gap optionally clamped to ±``clamp`` (0 = off).
- OPD estimators: ``sampled`` (the advantages above through the PPO loss), ``topk`` (reverse KL to the
  teacher over its top-K tokens plus one tail bin), ``full`` (reverse KL over the whole vocabulary).
- Hint selection among several hinted teachers (upstream ``--hint-selection``, OpenClaw-RL
  ``openclaw-combine/hint_opd_select_loss.py`` @f48ac35; the same rule as ``server/engine/hintSelection.ts``).
"""

from __future__ import annotations

from typing import Sequence

import torch

LOG_MASS_MAX = -1e-7


def policy_loss(ppo_kl: torch.Tensor, advantages: torch.Tensor, eps_clip: float = 0.2, eps_clip_high: float = 0.28, eps_clip_c: float | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-token PPO loss and clip indicator; ``ppo_kl`` = old − new log-probs (slime's argument)."""
    ratio = (-ppo_kl).exp()
    loss1 = -ratio * advantages
    loss2 = -ratio.clamp(1 - eps_clip, 1 + eps_clip_high) * advantages
    clipped = torch.maximum(loss1, loss2)
    clipfrac = torch.gt(loss2, loss1).float()
    if eps_clip_c is not None and eps_clip_c > 0:
        if eps_clip_c <= 1.0:
            raise ValueError(f"dual-clip constant must be above 1, got {eps_clip_c}")
        loss3 = -eps_clip_c * advantages
        clipped = torch.where(advantages < 0, torch.minimum(loss3, clipped), clipped)
    return clipped, clipfrac


def sample_mean(x: torch.Tensor, masks: Sequence[torch.Tensor]) -> torch.Tensor:
    """Mean over samples of each sample's masked token mean (``x`` is the samples' tokens concatenated)."""
    parts = x.split([len(m) for m in masks])
    total = sum((p * m).sum() / torch.clamp_min(m.sum(), 1) for p, m in zip(parts, masks))
    return total / max(len(masks), 1)


def token_mean(x: torch.Tensor, masks: Sequence[torch.Tensor]) -> torch.Tensor:
    mask = torch.cat(list(masks))
    return (x * mask).sum() / torch.clamp_min(mask.sum(), 1)


def advantages(method: str, rewards: Sequence[float], teacher: Sequence[torch.Tensor | None], old: Sequence[torch.Tensor], w_opd: float = 1.0, w_rl: float = 1.0, clamp: float = 0.0) -> torch.Tensor:
    """Per-token advantages, concatenated over samples. A sample without teacher log-probs has no OPD term."""
    out = []
    for r, t, o in zip(rewards, teacher, old):
        gap = torch.zeros_like(o) if t is None else (t.to(o) - o)
        if clamp > 0:
            gap = gap.clamp(-clamp, clamp)
        rl = torch.full_like(o, float(r))
        if method == "grpo":
            out.append(rl)
        elif method in ("opd", "topk"):
            out.append(gap)
        elif method == "combine":
            out.append(w_opd * gap + w_rl * rl)
        else:
            raise ValueError(f"unknown method {method!r}")
    return torch.cat(out) if out else torch.zeros(0)


def whiten(adv: torch.Tensor, masks: Sequence[torch.Tensor]) -> torch.Tensor:
    """slime --normalize-advantages: zero mean, unit variance over the batch's loss tokens."""
    mask = torch.cat(list(masks)).bool()
    if mask.sum() < 2:
        return adv
    sel = adv[mask]
    return (adv - sel.mean()) / (sel.std(unbiased=False) + 1e-8)


def with_tail(topk_logp: torch.Tensor) -> torch.Tensor:
    """[T, K] log-probs plus the tail bin log(1 − Σ exp) as the reference computes it: [T, K+1]."""
    log_mass = torch.clamp(torch.logsumexp(topk_logp, dim=-1, keepdim=True), max=LOG_MASS_MAX)
    return torch.cat([topk_logp, torch.log(-torch.expm1(log_mass))], dim=-1)


def topk_kl(student_logp: torch.Tensor, teacher_logp: torch.Tensor, k: int) -> torch.Tensor:
    """Per-token reverse KL(student ‖ teacher) over the teacher's top-``k`` tokens plus a tail bin.
    Both inputs are full [T, V] log-probs; the teacher's carry no gradient."""
    t_top, idx = teacher_logp.detach().topk(k, dim=-1)
    s_all, t_all = with_tail(student_logp.gather(-1, idx)), with_tail(t_top)
    return (s_all.exp() * (s_all - t_all)).sum(-1)


def full_kl(student_logp: torch.Tensor, teacher_logp: torch.Tensor) -> torch.Tensor:
    """Per-token reverse KL(student ‖ teacher) over the whole vocabulary."""
    return (student_logp.exp() * (student_logp - teacher_logp.detach())).sum(-1)


HINT_SELECTIONS = ("shortest", "token_optimal", "sequence_optimal")


def select_teacher(student_logp: torch.Tensor, teachers: Sequence[torch.Tensor], k: int, mode: str) -> torch.Tensor:
    """The teacher distribution per response token, from candidates ordered shortest hint first ([R, V] each).

    O[c, t] = |top-k(student_t) ∩ top-k(teacher_c,t)|; ``token_optimal`` takes argmax_c O[c, t] per token,
    ``sequence_optimal`` one argmax_c Σ_t O[c, t] for the response, ``shortest`` candidate 0. torch's argmax
    keeps the first maximum, so a tie keeps the shorter hint. No gradient flows through the choice."""
    if mode not in HINT_SELECTIONS:
        raise ValueError(f"hint selection: {', '.join(HINT_SELECTIONS)}, not {mode!r}")
    if mode == "shortest" or len(teachers) == 1:
        return teachers[0]
    t = torch.stack([x.detach() for x in teachers])  # [C, R, V]
    k = min(k, t.shape[-1])
    s_idx = student_logp.detach().topk(k, dim=-1).indices  # [R, k]
    t_idx = t.topk(k, dim=-1).indices  # [C, R, k]
    overlap = (s_idx[None, :, :, None] == t_idx[:, :, None, :]).any(-1).sum(-1)  # [C, R]
    rows = torch.arange(t.shape[1])
    if mode == "token_optimal":
        chosen = overlap.argmax(0)
    else:
        chosen = torch.full_like(rows, int(overlap.sum(-1).argmax()))
    return t[chosen, rows]
