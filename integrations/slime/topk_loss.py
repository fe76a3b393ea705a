"""Top-K on-policy distillation loss for slime, on the fork's in-job teacher: method ``topk`` (OPD only) and the
hybrid (method combine with the topk estimator: w_rl x GRPO + w_opd x top-K OPD, one teacher pass per hint
candidate): ``--advantage-estimator grpo --disable-rewards-normalization --loss-type custom_loss
--custom-loss-function-path integrations.slime.topk_loss.topk_opd_loss_function --distill-topk K
--distill-subset-mode student [--hint-m M --hint-selection …] --prm-teacher-load … --prm-teacher-num-gpus N``.

Follows OpenClaw-RL's hybrid top-K OPD (Gen-Verse/OpenClaw-RL PRs #99/#109 @ f48ac35,
``openclaw-combine/hint_opd_loss.py`` ``_opd_one_sample`` / ``hint_opd_loss_function``, and
``openclaw_topk_select_loss.py`` with its candidate-selection helpers from ``hint_opd_select_loss.py``; knobs named
as there). Where the inputs come from (``train_async.py`` and the Megatron actor, recorded in
tests/fixtures/slime/sample-contract.json ``topk`` and ``hybrid``): per rollout, the actor's old policy emits each
response token's top-K ids (``compute_student_topk``); the PRM-teacher actor runs the samples' ``teacher_tokens``
(hinted prompt + response) and gathers its log-probs at those ids (``gather_at_indices``); the actor's training pass
re-emits the student's top-K log-probs. The batch then carries ``topk_indices`` / ``topk_log_probs`` (student,
old policy) and ``prm_teacher_topk_indices`` / ``prm_teacher_topk_log_probs`` (teacher, [R, K] per sample).

When the samples carry ``teacher_tokens_candidates`` (the hybrid: every accepted hint, shortest first), the actor
runs the teacher once per candidate (K_max passes; a sample with fewer candidates reuses them cyclically,
``k % K_i``) and the batch carries ``prm_teacher_topk_log_probs_cand`` / ``prm_teacher_topk_indices_cand`` and
``prm_teacher_native_topk_indices_cand`` (each candidate's own top-K), [K_max, R, K] per sample. Per token the loss
picks the candidate k*(t) by ``--hint-selection``, with O[k, t] = |student top-K ∩ candidate k's native top-K|:

    k*(t) = 0                          shortest (candidate 0 is the shortest hint)
          = argmax_k O[k, t]           token_optimal
          = argmax_k sum_t O[k, t]     sequence_optimal (per sample, or per step span when the batch has them)

and trains on that candidate's log-probs at the student's top-K (the student subset).

Per response token t and candidate v in S_t (the student's top-K; with another subset mode, its intersection
with the teacher's top-K):

    w_v    = softmax over S_t of ell_old(v)                         (detached importance weight)
    diff_v = clamp(ell_T(v) - ell_old(v), -c, +c)                   (the advantage-difference clip, c =
                                                                     OPENCLAW_TOPK_ADV_DIFF_CLIP; <= 0: off)
    A_v    = diff_v * w_v                                           (detached)
    rho_v  = exp(ell_cur(v) - ell_old(v))                           (global log-probs, gradient via ell_cur)
    L_t    = sum_{v in S_t} max(-A_v rho_v, -A_v clip(rho_v, 1-eps, 1+eps_high))

reduced with slime's ``sum_of_sample_mean``; loss = w_rl x GRPO's clipped surrogate on the sampled tokens +
w_opd x OPD (OPENCLAW_TOPK_W_RL / OPENCLAW_TOPK_W_OPD; method ``topk`` runs w_rl 0), minus entropy_coef x
entropy, plus kl_loss_coef x KL to the reference.

``opd_token_loss``, ``overlap_counts`` and ``select_k_star`` are the same arithmetic in pure Python (tested by
hand); torch, Megatron and slime are imported inside the training-time functions, so the module loads without them.
The torch path has run on CPU only (torch 1.13, TP world 1, stand-ins for slime's functions; no GPU, no slime
install): see docs/slime.md, "Unverified on real hardware".
"""

from __future__ import annotations

import math
import os
from typing import Any, Callable, Mapping, Sequence

#: The batch keys this loss reads (checked against its source): each is one upstream's ``hint_opd_loss_function`` or
#: ``openclaw_topk_select_loss_function`` reads (tests/fixtures/slime/sample-contract.json
#: ``topk.reference_loss.batch_keys``, ``hybrid.loss.batch_keys``) and is in the fork's ``train_one_step``
#: ``get_batch`` list, or added by ``get_batch`` itself (``unconcat_tokens``). Upstream's ``rollout_log_probs`` (a
#: logged metric only) is left out.
BATCH_KEYS_READ = (
    "response_lengths", "total_lengths", "max_seq_lens", "unconcat_tokens", "log_probs", "advantages",
    "topk_log_probs", "topk_indices", "prm_teacher_topk_log_probs", "prm_teacher_topk_indices",
    "prm_teacher_topk_log_probs_cand", "prm_teacher_topk_indices_cand", "prm_teacher_native_topk_indices_cand",
    "step_wise_step_token_spans", "ref_log_probs",
)
#: The student's and the teacher's top-K, which the fork puts in the batch only on the in-job teacher path.
TOPK_KEYS = ("topk_log_probs", "topk_indices", "prm_teacher_topk_log_probs", "prm_teacher_topk_indices")
#: The same with one teacher pass per hint candidate (the actor's ``*_cand`` keys, sample-contract.json
#: ``hybrid.actor.cand_keys``); the native top-K is the selection signal of token_optimal / sequence_optimal.
CAND_KEYS = ("topk_log_probs", "topk_indices", "prm_teacher_topk_log_probs_cand", "prm_teacher_topk_indices_cand")
NATIVE_CAND_KEY = "prm_teacher_native_topk_indices_cand"
#: ``--hint-selection`` choices (the fork's arguments.py); the fork's default is shortest.
HINT_SELECTIONS = ("shortest", "token_optimal", "sequence_optimal")

#: Upstream's names (openclaw_topk_select_loss.py) and defaults when unset.
ENV_DEFAULTS = {"OPENCLAW_TOPK_W_RL": "1.0", "OPENCLAW_TOPK_W_OPD": "1.0", "OPENCLAW_TOPK_ADV_DIFF_CLIP": "2.0"}
#: verl-style guard on the log-ratio before exp() (upstream's _PPO_KL_CLAMP).
PPO_KL_CLAMP = 20.0


def knobs(env: Mapping[str, str] | None = None) -> dict[str, float | None]:
    """w_rl, w_opd and the diff clip (None = off: a value <= 0, as upstream's ``_adv_diff_clip``)."""
    env = os.environ if env is None else env
    read = lambda name: float(env.get(name) or ENV_DEFAULTS[name])  # noqa: E731
    clip = read("OPENCLAW_TOPK_ADV_DIFF_CLIP")
    return {"w_rl": read("OPENCLAW_TOPK_W_RL"), "w_opd": read("OPENCLAW_TOPK_W_OPD"), "diff_clip": clip if clip > 0 else None}


def opd_token_loss(
    student_idx: Sequence[int],
    old_lp: Sequence[float],
    cur_lp: Sequence[float],
    teacher_idx: Sequence[int],
    teacher_lp: Sequence[float],
    eps_lo: float,
    eps_hi: float,
    diff_clip: float | None,
) -> tuple[float, float, float, bool]:
    """One token of ``_opd_one_sample`` in pure Python: (surrogate summed over S_t, fraction of S_t clipped,
    w-weighted |diff|, S_t non-empty). ``old_lp``/``cur_lp`` are global log-probs at ``student_idx``."""
    if not (len(student_idx) == len(old_lp) == len(cur_lp)) or len(teacher_idx) != len(teacher_lp):
        raise ValueError("each index list needs one log-prob per index")
    where = {v: k for k, v in enumerate(teacher_idx)}
    mask = [v in where for v in student_idx]
    if not any(mask):
        return 0.0, 0.0, 0.0, False
    m = max(lp for lp, on in zip(old_lp, mask) if on)
    z = sum(math.exp(lp - m) for lp, on in zip(old_lp, mask) if on)
    pg_sum = clipped = monitor = 0.0
    for v, old, cur, on in zip(student_idx, old_lp, cur_lp, mask):
        if not on:
            continue
        w = math.exp(old - m) / z
        diff = teacher_lp[where[v]] - old
        if diff_clip is not None:
            diff = max(-diff_clip, min(diff_clip, diff))
        adv = diff * w
        ratio = math.exp(-max(-PPO_KL_CLAMP, min(PPO_KL_CLAMP, old - cur)))
        pg1, pg2 = -ratio * adv, -max(1 - eps_lo, min(1 + eps_hi, ratio)) * adv
        pg_sum += max(pg1, pg2)
        clipped += 1.0 if pg2 > pg1 else 0.0
        monitor += abs(diff) * w
    return pg_sum, clipped / sum(mask), monitor, True


def overlap_counts(student_idx: Sequence[Sequence[int]], cand_idx: Sequence[Sequence[Sequence[int]]]) -> list[list[int]]:
    """O[k][t] = |student top-K at t ∩ candidate k's top-K at t| (upstream's ``_overlap_count_per_token``), pure
    Python: ``student_idx`` [R][K_q], ``cand_idx`` [K][R][K_p]."""
    return [[len(set(s) & set(c)) for s, c in zip(student_idx, cand)] for cand in cand_idx]


def select_k_star(overlap: Sequence[Sequence[int]] | None, hint_selection: str, rows: int, step_token_spans: Sequence[Sequence[int]] | None = None) -> list[int]:
    """k*(t) for each of ``rows`` response tokens (upstream's ``_select_k_star_per_token``), pure Python. Ties go
    to the lower candidate (torch's argmax: the first maximum), i.e. the shorter hint."""
    if hint_selection not in HINT_SELECTIONS:
        raise ValueError(f"unknown --hint-selection {hint_selection!r}: expected one of {', '.join(HINT_SELECTIONS)}")
    if hint_selection == "shortest":
        return [0] * rows
    if overlap is None:
        raise ValueError(f"--hint-selection {hint_selection} needs the overlap counts")
    if len(overlap) == 1:
        return [0] * rows
    argmax = lambda scores: max(range(len(scores)), key=lambda k: (scores[k], -k))  # noqa: E731
    if hint_selection == "token_optimal":
        return [argmax([o[t] for o in overlap]) for t in range(rows)]
    if not step_token_spans:
        return [argmax([sum(o) for o in overlap])] * rows
    out = [0] * rows
    for span in step_token_spans:
        t0 = max(0, min(int(span[0]), rows))
        t1 = max(t0, min(int(span[1]), rows))
        if t1 > t0:
            out[t0:t1] = [argmax([sum(o[t0:t1]) for o in overlap])] * (t1 - t0)
    return out


def missing_topk_keys(batch: Mapping[str, Any], keys: Sequence[str] = TOPK_KEYS) -> list[str]:
    out = []
    for key in keys:
        value = batch.get(key)
        if value is None or len(value) == 0:
            out.append(key)
    return out


def _tp_functions() -> tuple[Any, Any]:
    """Upstream's TP-aware autograd pieces: raw logits gathered at global vocab ids, and the global
    log-sum-exp over the (TP-sharded) vocabulary. Built on first use (torch is imported here)."""
    import torch  # type: ignore[import-not-found]
    import torch.distributed as dist  # type: ignore[import-not-found]

    class GatherRaw(torch.autograd.Function):
        @staticmethod
        def forward(ctx, logits, idx_global, tp_group, tp_world, tp_rank):  # type: ignore[override]
            v_local = logits.size(-1)
            lo = tp_rank * v_local
            in_shard = (idx_global >= lo) & (idx_global < lo + v_local)
            idx_local = (idx_global - lo).clamp(min=0, max=v_local - 1)
            got = torch.where(in_shard, torch.gather(logits, -1, idx_local), torch.zeros((), dtype=logits.dtype, device=logits.device))
            if tp_world > 1:
                dist.all_reduce(got, op=dist.ReduceOp.SUM, group=tp_group)
            ctx.save_for_backward(idx_local, in_shard)
            ctx.shape, ctx.dtype = logits.shape, logits.dtype
            return got

        @staticmethod
        def backward(ctx, grad_out):  # type: ignore[override]
            idx_local, in_shard = ctx.saved_tensors
            grad = torch.zeros(ctx.shape, dtype=ctx.dtype, device=grad_out.device)
            grad.scatter_add_(-1, idx_local, torch.where(in_shard, grad_out, torch.zeros_like(grad_out)).to(ctx.dtype))
            return grad, None, None, None, None

    class GlobalLse(torch.autograd.Function):
        @staticmethod
        def forward(ctx, logits, tp_group, tp_world):  # type: ignore[override]
            x = logits.float()
            row_max = x.max(dim=-1, keepdim=True).values
            if tp_world > 1:
                dist.all_reduce(row_max, op=dist.ReduceOp.MAX, group=tp_group)
            sum_exp = (x - row_max).exp().sum(dim=-1, keepdim=True)
            if tp_world > 1:
                dist.all_reduce(sum_exp, op=dist.ReduceOp.SUM, group=tp_group)
            lse = row_max + sum_exp.clamp_min(1e-30).log()
            ctx.save_for_backward(logits, lse)
            return lse

        @staticmethod
        def backward(ctx, grad_out):  # type: ignore[override]
            logits, lse = ctx.saved_tensors
            return (grad_out * (logits.float() - lse).exp()).to(logits.dtype), None, None

    def global_log_probs_at(logits_chunk, indices, tp_group):
        world = dist.get_world_size(group=tp_group) if dist.is_initialized() else 1
        rank = dist.get_rank(group=tp_group) if dist.is_initialized() else 0
        raw = GatherRaw.apply(logits_chunk, indices, tp_group, world, rank).float()
        return raw - GlobalLse.apply(logits_chunk, tp_group, world)

    return torch, global_log_probs_at


def opd_one_sample(logits_chunk, *, student_indices, student_old_lp, teacher_indices, teacher_lp, eps_lo, eps_hi, diff_clip, tp_group, policy_loss):
    """Upstream's ``_opd_one_sample`` ([R, K] tensors; ``policy_loss`` is slime's ``compute_policy_loss``):
    per-token surrogate, clip fraction, w-weighted |diff| and S_t non-empty, each [R]."""
    torch, global_log_probs_at = _tp_functions()
    rows = student_indices.size(0)
    if rows == 0:
        z = student_indices.new_zeros((0,), dtype=torch.float32)
        return z, z, z, student_indices.new_zeros((0,), dtype=torch.bool)
    if torch.equal(student_indices, teacher_indices):
        mask, ell_t = torch.ones_like(student_indices, dtype=torch.bool), teacher_lp.float()
    else:
        eq = student_indices.unsqueeze(-1) == teacher_indices.unsqueeze(-2)
        mask, ell_t = eq.any(dim=-1), (eq.float() * teacher_lp.unsqueeze(-2).float()).sum(dim=-1)
    valid = mask.any(dim=-1)
    mask_f = mask.float()
    ell_cur = global_log_probs_at(logits_chunk, student_indices, tp_group)
    ell_old = student_old_lp.float()
    masked = torch.where(mask, ell_old, torch.full_like(ell_old, float("-inf")))
    w = torch.nan_to_num(torch.softmax(masked, dim=-1), nan=0.0).detach()
    diff = (ell_t - ell_old).detach()
    if diff_clip is not None:
        diff = diff.clamp(min=-diff_clip, max=diff_clip)
    advantage = (diff * w).detach()
    pg, clip = policy_loss((ell_old - ell_cur).clamp(min=-PPO_KL_CLAMP, max=PPO_KL_CLAMP), advantage, eps_lo, eps_hi)
    valid_f = valid.float()
    per_pg = (pg * mask_f).sum(dim=-1)
    per_clip = (clip * mask_f).sum(dim=-1) / mask_f.sum(dim=-1).clamp(min=1.0)
    per_diff = (diff.abs() * w).sum(dim=-1)
    return per_pg * valid_f, per_clip * valid_f, per_diff * valid_f, valid


def candidate_teacher(student_indices, cand_lp, native_cand_idx, hint_selection, step_token_spans=None):
    """The student subset's teacher for one sample of the multi-candidate batch (upstream's
    ``openclaw_topk_select_loss_function``, subset student): k*(t) from the overlap of the student's top-K with each
    candidate's native top-K, then candidate k*(t)'s log-probs at the student's ids. [R, K] tensors and k* [R]."""
    import torch  # type: ignore[import-not-found]

    rows = student_indices.size(0)
    if cand_lp.dim() != 3 or cand_lp.size(1) != rows:
        raise RuntimeError(f"teacher candidates {tuple(cand_lp.shape)} for {rows} response tokens: expected [K, R, K_p]")
    if hint_selection == "shortest" or cand_lp.size(0) == 1:
        k_star = torch.zeros(rows, dtype=torch.long, device=cand_lp.device)
    else:
        # O[k, t] = |S^q_t ∩ S^p_{t,k}| (upstream's _overlap_count_per_token).
        overlap = (student_indices.unsqueeze(0).unsqueeze(-1) == native_cand_idx.unsqueeze(-2)).any(dim=-1).sum(dim=-1)
        if hint_selection == "token_optimal":
            k_star = overlap.argmax(dim=0)
        elif not step_token_spans:
            k_star = torch.full((rows,), int(overlap.sum(dim=-1).argmax().item()), dtype=torch.long, device=cand_lp.device)
        else:
            k_star = torch.zeros(rows, dtype=torch.long, device=cand_lp.device)
            for span in step_token_spans:
                t0 = max(0, min(int(span[0]), rows))
                t1 = max(t0, min(int(span[1]), rows))
                if t1 > t0:
                    k_star[t0:t1] = int(overlap[:, t0:t1].sum(dim=-1).argmax().item())
    # cand[k*(t), t, :] (upstream's _gather_along_K).
    picked = torch.gather(cand_lp, 0, k_star.view(1, rows, 1).expand(1, rows, cand_lp.size(2))).squeeze(0)
    return picked, k_star


def topk_opd_loss_function(args: Any, batch: dict, logits: Any, sum_of_sample_mean: Callable[[Any], Any]) -> tuple[Any, dict]:
    import torch  # type: ignore[import-not-found]
    from megatron.core import mpu  # type: ignore[import-not-found]
    from slime.backends.megatron_utils.loss import get_log_probs_and_entropy, get_responses  # type: ignore[import-not-found]
    from slime.utils.ppo_utils import compute_approx_kl, compute_policy_loss  # type: ignore[import-not-found]

    k = knobs()
    w_rl, w_opd, diff_clip = k["w_rl"], k["w_opd"], k["diff_clip"]
    eps_lo, eps_hi = float(args.eps_clip), float(args.eps_clip_high)
    # Old log-probs must be the Megatron old actor's (the student top-K comes from the same forward).
    if getattr(args, "use_rollout_logprobs", False):
        raise RuntimeError("top-K OPD needs the old policy's log-probs from Megatron: drop --use-rollout-logprobs")
    lengths = dict(total_lengths=batch["total_lengths"], response_lengths=batch["response_lengths"], max_seq_lens=batch.get("max_seq_lens"))
    entropy_coef = float(getattr(args, "entropy_coef", 0.0) or 0.0)
    _, lp_ent = get_log_probs_and_entropy(logits, args=args, unconcat_tokens=batch["unconcat_tokens"], with_entropy=entropy_coef != 0.0, **lengths)
    new_log_probs = torch.cat(lp_ent["log_probs"], dim=0)
    zero = lambda: torch.zeros((), device=logits.device, dtype=torch.float32)  # noqa: E731

    grpo_loss, grpo_clipfrac = zero(), zero()
    if w_rl != 0.0:
        ppo_kl = (torch.cat(batch["log_probs"], dim=0) - new_log_probs).clamp(min=-PPO_KL_CLAMP, max=PPO_KL_CLAMP)
        pg, clip = compute_policy_loss(ppo_kl, torch.cat(batch["advantages"], dim=0), eps_lo, eps_hi)
        grpo_loss, grpo_clipfrac = sum_of_sample_mean(pg), sum_of_sample_mean(clip)

    opd_loss, opd_clipfrac, diff_mean, k_star_mean = zero(), zero(), zero(), zero()
    # One teacher pass per hint candidate (samples carried teacher_tokens_candidates: the hybrid) or one (method topk).
    cand = bool(batch.get("prm_teacher_topk_log_probs_cand"))
    hint_selection = getattr(args, "hint_selection", "shortest")
    if cand and hint_selection not in HINT_SELECTIONS:
        raise ValueError(f"unknown --hint-selection {hint_selection!r}: expected one of {', '.join(HINT_SELECTIONS)}")
    spans = batch.get("step_wise_step_token_spans")
    if w_opd != 0.0:
        missing = missing_topk_keys(batch, CAND_KEYS if cand else TOPK_KEYS)
        if cand and hint_selection != "shortest" and not batch.get(NATIVE_CAND_KEY):
            missing.append(NATIVE_CAND_KEY)
        if missing:
            raise RuntimeError(
                f"top-K OPD needs {', '.join(missing)} in the batch: pass --distill-topk > 0 and --prm-teacher-load with "
                "PRM teacher GPUs (the fork's student top-K + teacher gather passes, train_async.py), and do not pass "
                "--disable-compute-advantages-and-returns (the actor merges the teacher's payload only when advantages are computed)"
            )
        tp_group = mpu.get_tensor_model_parallel_group()
        pgs, clips, diffs, k_stars = [], [], [], []
        for i, (chunk, _tokens) in enumerate(get_responses(logits, args=args, unconcat_tokens=batch["unconcat_tokens"], **lengths)):
            dev = chunk.device
            s_idx = batch["topk_indices"][i].to(device=dev, dtype=torch.long)
            if cand:
                native = batch.get(NATIVE_CAND_KEY)
                t_lp, k_star = candidate_teacher(
                    s_idx,
                    batch["prm_teacher_topk_log_probs_cand"][i].to(device=dev, dtype=torch.float32),
                    native[i].to(device=dev, dtype=torch.long) if native else None,
                    hint_selection,
                    spans[i] if spans is not None and i < len(spans) else None,
                )
                # The student subset: the candidates were gathered at the student's ids.
                t_idx = s_idx
                k_stars.append(k_star.float())
            else:
                t_idx = batch["prm_teacher_topk_indices"][i].to(device=dev, dtype=torch.long)
                t_lp = batch["prm_teacher_topk_log_probs"][i].to(device=dev, dtype=torch.float32)
            if s_idx.size(0) != chunk.size(0) or t_idx.size(0) != chunk.size(0):
                raise RuntimeError(f"sample {i}: top-K rows {s_idx.size(0)}/{t_idx.size(0)} for {chunk.size(0)} response tokens")
            pg, clip, diff, _valid = opd_one_sample(
                chunk,
                student_indices=s_idx,
                student_old_lp=batch["topk_log_probs"][i].to(device=dev, dtype=torch.float32),
                teacher_indices=t_idx,
                teacher_lp=t_lp,
                eps_lo=eps_lo,
                eps_hi=eps_hi,
                diff_clip=diff_clip,
                tp_group=tp_group,
                policy_loss=compute_policy_loss,
            )
            pgs.append(pg)
            clips.append(clip)
            diffs.append(diff)
        opd_loss = sum_of_sample_mean(torch.cat(pgs, dim=0))
        opd_clipfrac = sum_of_sample_mean(torch.cat(clips, dim=0))
        diff_mean = sum_of_sample_mean(torch.cat(diffs, dim=0))
        if k_stars:
            k_star_mean = sum_of_sample_mean(torch.cat(k_stars, dim=0))

    entropy_loss = sum_of_sample_mean(torch.cat(lp_ent["entropy"], dim=0)) if entropy_coef != 0.0 else zero()
    loss = w_rl * grpo_loss + w_opd * opd_loss - entropy_coef * entropy_loss
    kl_loss = zero()
    kl_coef = float(getattr(args, "kl_loss_coef", 0.0) or 0.0)
    if getattr(args, "use_kl_loss", False) and batch.get("ref_log_probs") is not None and kl_coef != 0.0:
        kl = compute_approx_kl(new_log_probs, torch.cat(batch["ref_log_probs"], dim=0), kl_loss_type=args.kl_loss_type)
        kl_loss = sum_of_sample_mean(kl)
        loss = loss + kl_coef * kl_loss
    if new_log_probs.numel() == 0:
        # Keeps every rank in the backward pass when it has no loss token.
        loss = loss + 0 * logits.sum()
    reported = {
        "loss": loss, "grpo_pg_loss": grpo_loss, "grpo_pg_clipfrac": grpo_clipfrac, "opd_loss": opd_loss,
        "opd_pg_clipfrac": opd_clipfrac, "opd_teacher_student_logp_topk_abs_mean": diff_mean,
        "entropy_loss": entropy_loss, "kl_loss": kl_loss, "sel_k_star_mean": k_star_mean,
    }
    return loss, {name: value.clone().detach() for name, value in reported.items()}
