"""Top-K distillation loss for slime (method ``topk``):
``--loss-type custom_loss --custom-loss-function-path integrations.slime.topk_loss.topk_distillation_loss_function
--distill-topk K --disable-compute-advantages-and-returns``.

Follows OpenClaw-RL's ``openclaw-opd/topk_distillation_loss.py`` (Gen-Verse/OpenClaw-RL @
0d034dd5e65399fc1cc7c266feb9eddbb4c8c3a5, after SDFT arXiv 2601.19897 / SDPO arXiv 2601.20802): per response
token, the reverse KL D_KL(student || teacher) over the teacher's top-K tokens plus one "tail" bin holding the
remaining probability mass,

    S_k = log p_student(i_k),  T_k = log p_teacher(i_k)           (k = 1..K, i_k = teacher's top-K ids)
    S_tail = log(1 - sum_k exp S_k),  T_tail = log(1 - sum_k exp T_k)   (logsumexp clamped to <= -1e-7)
    kl_t = sum_{j in K+tail} exp(S_j) * (S_j - T_j)

reduced with slime's ``sum_of_sample_mean``; minus ``entropy_coef`` x the entropy of the (K+1)-bin student
distribution when that coefficient is non-zero. The batch must carry ``teacher_topk_log_probs`` and
``teacher_topk_indices`` ([T, K] per sample, the fork's field names,
``slime/slime/backends/megatron_utils/actor.py:253-290``). Megatron backend only: the fork's FSDP actor never
calls custom losses (``slime/slime/backends/fsdp_utils/actor.py:530-537``).

torch, Megatron and slime are imported inside the function, so this module loads (and its pure part is tested)
without them, like ``combine_loss.py``. Not run on GPUs here.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

#: Upper clamp of log(sum of the top-K probabilities), so the tail stays finite (the reference's value).
LOG_MASS_MAX = -1e-7


def _logsumexp(xs: Sequence[float]) -> float:
    m = max(xs)
    if m == -math.inf:
        return -math.inf
    return m + math.log(sum(math.exp(x - m) for x in xs))


def with_tail(topk_logps: Sequence[float]) -> list[float]:
    """The K log-probs plus the tail bin log(1 − Σ exp), as the reference computes it."""
    log_mass = min(_logsumexp(topk_logps), LOG_MASS_MAX)
    return list(topk_logps) + [math.log(-math.expm1(log_mass))]


def topk_tail_kl(student_topk: Sequence[Sequence[float]], teacher_topk: Sequence[Sequence[float]]) -> list[float]:
    """Per-token KL(student || teacher) over K+tail bins (pure Python; one row of K log-probs per token)."""
    if len(student_topk) != len(teacher_topk):
        raise ValueError(f"{len(student_topk)} student rows for {len(teacher_topk)} teacher rows")
    out = []
    for s_row, t_row in zip(student_topk, teacher_topk):
        if len(s_row) != len(t_row):
            raise ValueError(f"K differs: {len(s_row)} vs {len(t_row)}")
        s, t = with_tail(s_row), with_tail(t_row)
        out.append(sum(math.exp(a) * (a - b) for a, b in zip(s, t)))
    return out


def topk_tail_entropy(student_topk: Sequence[Sequence[float]]) -> list[float]:
    """Per-token entropy of the student's K+tail distribution."""
    return [-sum(math.exp(a) * a for a in with_tail(row)) for row in student_topk]


def _missing_fields(batch: dict) -> list[str]:
    return [k for k in ("teacher_topk_log_probs", "teacher_topk_indices") if not batch.get(k)]


def topk_distillation_loss_function(args: Any, batch: dict, logits: Any, sum_of_sample_mean: Callable[[Any], Any]) -> tuple[Any, dict]:
    import torch  # type: ignore[import-not-found]
    from megatron.core import mpu  # type: ignore[import-not-found]
    from slime.backends.megatron_utils.loss import get_responses  # type: ignore[import-not-found]
    from slime.utils.ppo_utils import compute_log_probs  # type: ignore[import-not-found]

    missing = _missing_fields(batch)
    if missing:
        raise RuntimeError(
            f"top-K distillation needs {', '.join(missing)} in the batch ([T, K] per sample): the rollout must attach "
            "the teacher's top-K log-probs and token ids to each Sample, and --distill-topk must be > 0"
        )
    k_top = int(args.distill_topk)
    if k_top <= 0:
        raise RuntimeError("--distill-topk must be > 0 for integrations.slime.topk_loss")
    tp_group = mpu.get_tensor_model_parallel_group()

    student_rows, teacher_rows = [], []
    for i, (logits_chunk, _tokens) in enumerate(
        get_responses(
            logits,
            args=args,
            unconcat_tokens=batch["unconcat_tokens"],
            total_lengths=batch["total_lengths"],
            response_lengths=batch["response_lengths"],
            max_seq_lens=batch.get("max_seq_lens"),
        )
    ):
        t_logps = batch["teacher_topk_log_probs"][i].to(device=logits_chunk.device)
        t_idx = batch["teacher_topk_indices"][i].to(device=logits_chunk.device)
        if t_logps.shape[-1] < k_top:
            raise RuntimeError(f"sample {i} carries {t_logps.shape[-1]} teacher log-probs per token, --distill-topk is {k_top}")
        need_clone = torch.is_grad_enabled()
        cols = []
        for k in range(k_top):
            # compute_log_probs handles vocab-parallel logits (TP); it may modify its input in place.
            lp = compute_log_probs(logits_chunk.clone() if need_clone else logits_chunk, t_idx[:, k], tp_group)
            cols.append(lp.squeeze(-1))
        student_rows.append(torch.stack(cols, dim=-1))
        teacher_rows.append(t_logps[:, :k_top])

    student = torch.cat(student_rows, dim=0)
    teacher = torch.cat(teacher_rows, dim=0)

    def tail(x: Any) -> Any:
        log_mass = torch.clamp(torch.logsumexp(x, dim=-1, keepdim=True), max=LOG_MASS_MAX)
        return torch.cat([x, torch.log(-torch.expm1(log_mass))], dim=-1)

    s_all, t_all = tail(student), tail(teacher)
    per_token_kl = (torch.exp(s_all) * (s_all - t_all)).sum(dim=-1)
    kl_loss = sum_of_sample_mean(per_token_kl)
    loss = kl_loss
    entropy_loss = torch.tensor(0.0, device=logits.device)
    if args.entropy_coef != 0.0:
        entropy_loss = sum_of_sample_mean(-(torch.exp(s_all) * s_all).sum(dim=-1))
        loss = loss - args.entropy_coef * entropy_loss
    if per_token_kl.numel() == 0:
        # Keeps every rank in the backward pass when it has no loss token.
        loss = loss + 0 * logits.sum()
    return loss, {"loss": loss.clone().detach(), "kl_loss": kl_loss.clone().detach(), "entropy_loss": entropy_loss.clone().detach()}
