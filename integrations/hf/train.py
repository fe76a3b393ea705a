"""The ``hf-local`` trainer: one process that serves, judges, teaches and trains one checkpoint.

    python3 -m integrations.hf.train

Loop (one step per leased batch): lease (the console's batch API, ``integrations/slime/client.py`` and
``leases.py``) → render each sample with the policy's own template and keep the recorded token ids
(``integrations/slime/convert.sample_fields``) → recompute π_old with the training adapter → loss
(``losses.py``) → optimizer step → save the adapter → swap it into serving (``AdapterSlots.publish``: serving
never pauses) → acknowledge the lease with the checkpoint path → repeat until the console stops the run.

Environment (the control plane sets it, ``server/runs/backends/hfLocal/backend.ts``): CONTROL_PLANE_URL,
RUN_ID, CONTROL_PLANE_API_KEY; HF_MODEL (``tiny`` or a local Hugging Face checkpoint), HF_DEVICE (cuda when
available), HF_DTYPE (bfloat16), HF_SERVE_HOST (127.0.0.1), HF_SERVE_PORT (0 = any), HF_SERVE_URL,
HF_SAVE_DIR, HF_MAX_BATCH (8); OPENCLAW_METHOD (grpo | opd | combine | topk), HF_OPD_ESTIMATOR (sampled |
topk | full), HF_TOPK (50), OPENCLAW_HINT_SELECTION (shortest | token_optimal | sequence_optimal), HF_LEARNING_RATE (1e-5), HF_BATCH_SIZE (16), HF_MICRO_BATCH (4), HF_LORA_RANK
(16), HF_LORA_ALPHA (32), HF_EPS_CLIP (0.2), HF_EPS_CLIP_HIGH (0.28), HF_DUAL_CLIP (0 = off),
OPENCLAW_OPD_ADV_CLAMP (0 = off), OPENCLAW_COMBINE_W_OPD / _W_RL (1), HF_NORMALIZE_ADVANTAGES (0),
HF_GRAD_CLIP (1), HF_TOKEN_MEAN (0: slime's per-sample mean), HF_GRADIENT_CHECKPOINTING (1); HF_FINETUNE
(lora: a peft adapter is trained, served and saved; full: the whole model is, with a second frozen copy for the
judge and the teacher, and each checkpoint is a whole model folder); HF_PER_USER (1: a per-user experiment, one LoRA
per end user from per-user leases, written as PEFT folders: ``per_user.py``).
"""

from __future__ import annotations

import logging
import os
import sys
import time
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import torch

from integrations.slime.client import ControlPlaneClient, ControlPlaneError, Settings
from integrations.slime.convert import sample_fields
from integrations.slime.leases import Heartbeat, LeaseBook, RunStopped, resume_point

from . import losses
from .chat import hinted_messages, normalize
from .generate import BatchQueue
from .model import TRAIN, AdapterSlots, ChatModel
from .moments import load_moments, save_moments
from .per_user import UserAdapters, train_per_user
from .serve import HfServer

log = logging.getLogger("openclaw.hf")


def _flag(v: str | None, default: bool) -> bool:
    return default if v in (None, "") else v.lower() in ("1", "true", "yes", "on")


@dataclass
class TrainConfig:
    method: str = "combine"
    estimator: str = "sampled"
    topk: int = 50
    # Upstream's --hint-selection (OPENCLAW_HINT_SELECTION; the experiment's judge.hintSelection, longest → shortest).
    hint_selection: str = "shortest"
    lr: float = 1e-5
    batch_size: int = 16
    micro_batch: int = 4
    eps_clip: float = 0.2
    eps_clip_high: float = 0.28
    dual_clip: float = 0.0
    adv_clamp: float = 0.0
    w_opd: float = 1.0
    w_rl: float = 1.0
    normalize: bool = False
    grad_clip: float = 1.0
    token_mean: bool = False
    save_dir: str | None = None

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> "TrainConfig":
        g = env.get
        cfg = cls(
            method=g("OPENCLAW_METHOD", "combine"),
            estimator=g("HF_OPD_ESTIMATOR", "sampled"),
            topk=int(g("HF_TOPK", "50")),
            hint_selection=g("OPENCLAW_HINT_SELECTION", "shortest"),
            lr=float(g("HF_LEARNING_RATE", "1e-5")),
            batch_size=int(g("HF_BATCH_SIZE", "16")),
            micro_batch=int(g("HF_MICRO_BATCH", "4")),
            eps_clip=float(g("HF_EPS_CLIP", "0.2")),
            eps_clip_high=float(g("HF_EPS_CLIP_HIGH", "0.28")),
            dual_clip=float(g("HF_DUAL_CLIP", "0")),
            adv_clamp=float(g("OPENCLAW_OPD_ADV_CLAMP", "0")),
            w_opd=float(g("OPENCLAW_COMBINE_W_OPD", "1")),
            w_rl=float(g("OPENCLAW_COMBINE_W_RL", "1")),
            normalize=_flag(g("HF_NORMALIZE_ADVANTAGES"), False),
            grad_clip=float(g("HF_GRAD_CLIP", "1")),
            token_mean=_flag(g("HF_TOKEN_MEAN"), False),
            save_dir=g("HF_SAVE_DIR") or None,
        )
        if cfg.method == "topk":
            cfg.method, cfg.estimator = "opd", "topk"
        if cfg.method not in ("grpo", "opd", "combine"):
            raise SystemExit(f"OPENCLAW_METHOD: grpo, opd, combine or topk, not {cfg.method!r}")
        if cfg.estimator not in ("sampled", "topk", "full"):
            raise SystemExit(f"HF_OPD_ESTIMATOR: sampled, topk or full, not {cfg.estimator!r}")
        if cfg.hint_selection not in losses.HINT_SELECTIONS:
            raise SystemExit(f"OPENCLAW_HINT_SELECTION: {', '.join(losses.HINT_SELECTIONS)}, not {cfg.hint_selection!r}")
        return cfg


class TemplateTokenizer:
    """The Hugging Face tokenizer surface ``convert.sample_fields`` uses, over a ``ChatModel``."""

    def __init__(self, model: ChatModel):
        self.model = model

    def apply_chat_template(self, conversation: list[dict[str, Any]], tools: Any = None, tokenize: bool = False, add_generation_prompt: bool = True, **_: Any) -> str:
        return self.model.render(conversation, tools, add_generation_prompt)

    def __call__(self, text: str, **_: Any) -> dict[str, list[int]]:
        return {"input_ids": self.model.encode(text)}

    def decode(self, ids: Sequence[int]) -> str:
        return self.model.decode(ids)


@dataclass
class Prepared:
    tokens: list[int]
    n: int
    mask: torch.Tensor
    reward: float
    rollout: torch.Tensor
    teacher: torch.Tensor | None
    teacher_prompt: list[int] | None
    # Every hint candidate's teacher prompt (shortest first; [0] is teacher_prompt) under a train-time hint selection.
    teacher_prompts: list[list[int]] | None = None


def prepare(model: ChatModel, items: Sequence[Mapping[str, Any]], cfg: TrainConfig) -> list[Prepared]:
    tok = TemplateTokenizer(model)
    out = []
    for i, item in enumerate(items):
        f = sample_fields(dict(item), tok, cfg.method, i)
        n = f["response_length"]
        if any(not 0 <= t < model.vocab_size for t in f["tokens"]):
            # Recorded ids from another tokenizer (or a corrupted turn) would index past the embedding table.
            log.warning("skipping sample %s: a token id is outside the model's vocabulary of %d", item.get("sampleId"), model.vocab_size)
            continue
        hint = item.get("hint")
        teacher_prompt = teacher_prompts = None
        if cfg.method != "grpo" and item.get("kind", "RL") != "RL" and hint:
            def hinted(h: str) -> list[int]:
                return model.encode(model.render(hinted_messages(normalize(item.get("messages") or []), h), item.get("tools") or None, True))

            teacher_prompt = hinted(hint)
            candidates = item.get("hintCandidates") or []
            if cfg.hint_selection != "shortest" and len(candidates) > 1 and candidates[0] == hint:
                teacher_prompts = [teacher_prompt] + [hinted(h) for h in candidates[1:]]
        # Absent, not None, where convert leaves it out (grpo; the fork's Sample has no such field).
        teacher = f.get("teacher_log_probs")
        out.append(Prepared(
            tokens=f["tokens"], n=n, mask=torch.tensor(f["loss_mask"], dtype=torch.float32),
            reward=f["reward"], rollout=torch.tensor(f["rollout_log_probs"], dtype=torch.float32),
            teacher=None if teacher is None else torch.tensor(teacher, dtype=torch.float32), teacher_prompt=teacher_prompt,
            teacher_prompts=teacher_prompts,
        ))
    return out


def _batch(model: ChatModel, seqs: list[list[int]]) -> tuple[torch.Tensor, torch.Tensor]:
    pad = getattr(model, "pad_id", 0)
    width = max(len(s) for s in seqs)
    ids = torch.tensor([[pad] * (width - len(s)) + s for s in seqs], device=model.device)
    mask = torch.tensor([[0] * (width - len(s)) + [1] * len(s) for s in seqs], device=model.device)
    return ids, mask


def response_logp(model: ChatModel, seqs: list[list[int]], ns: list[int], adapter: str | None, full: bool = False) -> list[torch.Tensor]:
    """Per sample: log-probs of its last ``n`` tokens ([n]), or the full distributions there ([n, V])."""
    ids, mask = _batch(model, seqs)
    logits = model.logits(ids, mask, adapter)
    width = ids.shape[1]
    out = []
    for b, n in enumerate(ns):
        # Left padding: the sequence ends at the last column; position p predicts token p+1. Only the
        # response rows go to fp32 (the vocabulary-sized rows are the memory that matters).
        rows = torch.log_softmax(logits[b, width - n - 1 : width - 1].float(), dim=-1)
        out.append(rows if full else rows.gather(-1, ids[b, width - n :, None])[:, 0])
    return out


class Trainer:
    def __init__(self, model: ChatModel, slots: AdapterSlots, cfg: TrainConfig):
        self.model, self.slots, self.cfg = model, slots, cfg
        self.optimizer = torch.optim.Adam(model.trainable_parameters(), lr=cfg.lr)

    def step(self, items: Sequence[Mapping[str, Any]]) -> dict[str, float]:
        cfg, model = self.cfg, self.model
        data = [p for p in prepare(model, items, cfg) if p.n > 0]
        skipped = float(len(items) - len(data))
        if not data:
            return {"train/samples": 0.0, "train/skipped_samples": skipped}
        mb = max(1, cfg.micro_batch)
        chunks = [data[i : i + mb] for i in range(0, len(data), mb)]
        device = model.device
        # π_old: the training adapter before this step (the weights that are being served).
        with torch.no_grad():
            old = [lp.cpu() for c in chunks for lp in response_logp(model, [p.tokens for p in c], [p.n for p in c], TRAIN)]
        masks = [p.mask for p in data]
        use_sampled = cfg.method == "grpo" or cfg.estimator == "sampled"
        rl_method = cfg.method if use_sampled else ("grpo" if cfg.method == "combine" else None)
        adv = None
        if rl_method:
            adv = losses.advantages(rl_method, [p.reward for p in data], [p.teacher for p in data], old, cfg.w_opd, cfg.w_rl, cfg.adv_clamp)
            if cfg.normalize:
                adv = losses.whiten(adv, masks)
        # Token weights so the micro-batches' losses add up to slime's reduction over the whole batch.
        total_tokens = float(sum(m.sum() for m in masks)) or 1.0
        weights = [m / total_tokens if cfg.token_mean else m / (len(data) * max(float(m.sum()), 1.0)) for m in masks]
        offsets = [0]
        for p in data:
            offsets.append(offsets[-1] + p.n)
        metrics = {"pg_loss": 0.0, "pg_clipfrac": 0.0, "ppo_kl": 0.0, "opd_kl": 0.0}
        self.optimizer.zero_grad(set_to_none=True)
        k = 0
        for c in chunks:
            need_full = not use_sampled
            new = response_logp(model, [p.tokens for p in c], [p.n for p in c], TRAIN, full=need_full)
            loss = torch.zeros((), device=device)
            for j, p in enumerate(c):
                i = k + j
                w = weights[i].to(device)
                new_lp = new[j].gather(-1, torch.tensor(p.tokens[-p.n :], device=device)[:, None])[:, 0] if need_full else new[j]
                ppo_kl = old[i].to(device) - new_lp
                if adv is not None:
                    a = adv[offsets[i] : offsets[i + 1]].to(device)
                    pg, clip = losses.policy_loss(ppo_kl, a, cfg.eps_clip, cfg.eps_clip_high, cfg.dual_clip or None)
                    scale = cfg.w_rl if (not use_sampled and cfg.method == "combine") else 1.0
                    loss = loss + scale * (pg * w).sum()
                    metrics["pg_loss"] += float((pg.detach() * w).sum())
                    metrics["pg_clipfrac"] += float((clip * w).sum())
                metrics["ppo_kl"] += float((ppo_kl.detach() * w).sum())
                if not use_sampled and p.teacher_prompt is not None:
                    with torch.no_grad():
                        prompts = p.teacher_prompts or [p.teacher_prompt]
                        teachers = response_logp(model, [q + p.tokens[-p.n :] for q in prompts], [p.n] * len(prompts), None, full=True)
                        # π_old's top-K: the step's single update comes after every micro-batch's backward.
                        teacher = losses.select_teacher(new[j], teachers, cfg.topk, cfg.hint_selection)
                    kl = losses.topk_kl(new[j], teacher, cfg.topk) if cfg.estimator == "topk" else losses.full_kl(new[j], teacher)
                    wo = cfg.w_opd if cfg.method == "combine" else 1.0
                    loss = loss + wo * (kl * w).sum()
                    metrics["opd_kl"] += float((kl.detach() * w).sum())
            k += len(c)
            if loss.requires_grad:
                model.backward(loss)
        params = model.trainable_parameters()
        grad_norm = torch.nn.utils.clip_grad_norm_(params, cfg.grad_clip) if cfg.grad_clip > 0 else torch.tensor(0.0)
        self.optimizer.step()
        mismatch = torch.cat([(p.rollout - o).abs() * p.mask for p, o in zip(data, old)]).sum() / total_tokens
        metrics.update({
            "train/loss": metrics["pg_loss"] + metrics["opd_kl"],
            "train/grad_norm": float(grad_norm),
            "train/samples": float(len(data)),
            "train/skipped_samples": skipped,
            "train/tokens": total_tokens,
            # Mean |behaviour − trainer| log-prob on the very ids served: how far serving and training disagree.
            "train/logprob_mismatch": float(mismatch),
        })
        return {(k if "/" in k else f"train/{k}"): v for k, v in metrics.items()}


def checkpoint_dir(save_dir: str, run_id: str, step: int) -> str:
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in run_id)
    return os.path.join(save_dir, safe, f"step-{step:06d}")


def train(trainer: Trainer, book: LeaseBook, run_id: str, save_dir: str, max_steps: int | None = None, poll_s: float = 2.0, start: int = 0) -> int:
    """Lease → train → save → swap → ack, until the console stops the run (or ``max_steps``). Steps are numbered past
    ``start``, the run's last recorded step (``resume_point``); returns how many this process took."""
    steps = 0
    while max_steps is None or steps < max_steps:
        rollout = start + steps
        try:
            lease = book.acquire(rollout, trainer.cfg.batch_size, poll_s=poll_s)
        except RunStopped as stopped:
            log.info("stopping: %s", stopped)
            break
        started = time.monotonic()
        metrics = trainer.step(lease["samples"])
        # A folder of this name that exists was never acknowledged (the run's last step is below it): rewritten.
        path = checkpoint_dir(save_dir, run_id, rollout + 1)
        trainer.model.save_adapter(TRAIN, path)
        if not trainer.model.full:
            save_moments(trainer.optimizer.state_dict(), path)
        trainer.slots.publish(rollout + 1, path)
        metrics["train/step_time_s"] = time.monotonic() - started
        book.acknowledge_through(rollout, metrics=metrics, checkpoint_path=path, duration_ms=int((time.monotonic() - started) * 1000))
        log.info("step %d: %s", rollout + 1, {k: round(v, 5) for k, v in metrics.items()})
        steps += 1
    return steps


def resume(trainer: Trainer, step: int, checkpoint: str | None) -> None:
    """A restarted process of a run that already trained: the run's newest checkpoint into the training adapter and
    serving, and its Adam moments (saved beside it) into the optimizer. A checkpoint this process cannot read fails
    loudly rather than training on from the base under the run's later step numbers."""
    if checkpoint is None:
        if step:
            log.warning("the run recorded %d step(s) but no checkpoint to resume from: training on from the base", step)
        return
    try:
        trainer.model.load_adapter(TRAIN, checkpoint)
    except NotImplementedError as err:
        log.warning("not resuming %s (%s): training on from HF_MODEL", checkpoint, err)
        return
    except (OSError, ValueError) as err:
        raise RuntimeError(f"cannot resume the run from its checkpoint {checkpoint}: {err}") from err
    moments = load_moments(checkpoint)
    if moments is not None:
        trainer.optimizer.load_state_dict(moments)
    trainer.slots.publish(step, checkpoint)
    log.info("resumed from %s (the run's step %d; Adam moments %s)", checkpoint, step, "too" if moments is not None else "fresh: none saved")


def finetune_mode(env: Mapping[str, str]) -> bool:
    """True for full fine-tuning (HF_FINETUNE=full), False for LoRA (the default)."""
    mode = env.get("HF_FINETUNE") or "lora"
    if mode not in ("lora", "full"):
        raise SystemExit(f"HF_FINETUNE: lora or full, not {mode!r}")
    return mode == "full"


def load_model(env: Mapping[str, str]) -> ChatModel:
    name = env.get("HF_MODEL") or "tiny"
    full = finetune_mode(env)
    if name == "tiny":
        from .tiny import TinyChatModel

        return TinyChatModel(seed=int(env.get("HF_TINY_SEED", "0")), device=env.get("HF_DEVICE") or "cpu", full=full)
    from .hf_model import HfChatModel

    return HfChatModel.load(
        name,
        device=env.get("HF_DEVICE") or None,
        dtype=env.get("HF_DTYPE", "bfloat16"),
        full=full,
        rank=int(env.get("HF_LORA_RANK", "16")),
        alpha=int(env.get("HF_LORA_ALPHA", "32")),
        gradient_checkpointing=_flag(env.get("HF_GRADIENT_CHECKPOINTING"), True),
    )


def serve(model: ChatModel, env: Mapping[str, str], served_name: str) -> tuple[HfServer, AdapterSlots, BatchQueue]:
    slots = AdapterSlots(model)
    batcher = BatchQueue(model, slots, max_batch=int(env.get("HF_MAX_BATCH", "8"))).start()
    server = HfServer(model, slots, batcher, served_name, host=env.get("HF_SERVE_HOST", "127.0.0.1"), port=int(env.get("HF_SERVE_PORT", "0"))).start()
    return server, slots, batcher


def main() -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    env = os.environ
    cfg = TrainConfig.from_env(env)
    if _flag(env.get("HF_PER_USER"), False) and finetune_mode(env):
        raise SystemExit("HF_PER_USER=1 trains a LoRA per user: HF_FINETUNE must be lora")
    client = ControlPlaneClient(Settings.from_env())
    model = load_model(env)
    server, slots, batcher = serve(model, env, env.get("HF_MODEL") or "tiny")
    url = env.get("HF_SERVE_URL") or server.url
    base_url = url[: -len("/v1")] + "/base/v1" if url.endswith("/v1") else server.base_url
    per_user = _flag(env.get("HF_PER_USER"), False)
    try:
        # The policy goes to the proxy (per user: the users' adapters are the engine's to serve, not this process's);
        # the frozen base is the run's PRM (judge votes and teacher log-probs).
        answer = client.report(rollout_url=None if per_user else url, message="training per-user adapters" if per_user else f"serving at {url}", endpoints={"prmUrl": base_url, "prmModelPath": env.get("HF_MODEL") or "tiny"})
    except ControlPlaneError as err:
        # Without the answer the run's last step is unknown: numbering from 1 would have every step refused.
        server.close()
        batcher.close()
        raise SystemExit(f"could not report to the console at {client.settings.url}: {err}") from err
    start, checkpoint = resume_point(answer)
    book = LeaseBook(client)
    heartbeat = Heartbeat(book, interval_s=float(env.get("OPENCLAW_HEARTBEAT_S", "30")), message=lambda: "training per-user adapters" if per_user else f"serving version {slots.version}")
    heartbeat.start()
    save_dir = cfg.save_dir or os.path.join(os.getcwd(), ".hf-local")
    try:
        trainer = Trainer(model, slots, cfg)
        if per_user:
            rank, alpha = int(env.get("HF_LORA_RANK", "16")), float(env.get("HF_LORA_ALPHA", "32"))
            steps = train_per_user(UserAdapters(trainer), book, client.settings.run_id, save_dir, env.get("HF_MODEL") or "tiny", rank, alpha, start=start)
        else:
            resume(trainer, start, checkpoint)
            steps = train(trainer, book, client.settings.run_id, save_dir, start=start)
    finally:
        heartbeat.stop()
        server.close()
        batcher.close()
    log.info("finished after %d step(s)", steps)
    return 0


if __name__ == "__main__":
    sys.exit(main())
