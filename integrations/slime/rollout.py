"""slime rollout function: trains on batches the control plane has collected from live conversations.

``--rollout-function-path integrations.slime.rollout.generate_rollout``. slime calls
``generate_rollout(args, rollout_id, data_source, evaluation=False)`` in its RolloutManager process and
expects a ``RolloutFnTrainOutput(samples=list[list[Sample]], metrics=dict)``. Each call here:

1. acknowledges the leases of rollouts whose training step is over. ``train_async.py`` starts rollout
   k+2 right after train(k) and its weight update, so rollout k is acknowledged when rollout k+2 starts;
   ``train.py`` (colocated) trains k before rollout k+1, so the lag there is one;
2. leases a full batch of ``--rollout-batch-size`` samples, waiting (and heartbeating) until the
   control plane has that many ready;
3. converts them to slime ``Sample``s (tokens, response_length, loss_mask, reward, rollout_log_probs,
   teacher_log_probs) and returns them, one sample per group (``--n-samples-per-prompt 1``).

On the first call it reports the rollout engine's URL (slime's SGLang router), which the control
plane's proxy then forwards the run's chat traffic to, and starts a heartbeat thread that keeps the run
alive and renews held leases. With OpenClaw-RL's ``--prm-enable`` it also reports the PRM engines' router
(``prmUrl``: ``http://<args.prm_router_ip>:<args.prm_router_port>``, SGLang's native ``/generate`` API,
started by the fork's RolloutManager, ``slime/slime/ray/rollout.py:53-55`` @0d034dd, which hands this
function the same ``args``) and, if one is known, a separate PRM teacher's (``prmTeacherUrl``), so the
judge can score that run's turns on the GPUs the job reserved. ``prmModelPath`` names the PRM model. Environment: CONTROL_PLANE_URL, RUN_ID,
OPENCLAW_API_KEY_FILE or CONTROL_PLANE_API_KEY (the run's key: client.Settings.from_env),
OPENCLAW_METHOD (grpo|opd|combine|topk; topk samples carry ``teacher_tokens``); optional OPENCLAW_ROLLOUT_URL (when the router is reachable from
the control plane under another address), OPENCLAW_LEASE_SECONDS, OPENCLAW_HEARTBEAT_S,
OPENCLAW_LEASE_STATE (state file; default <--save>/openclaw_leases.json), OPENCLAW_LEASE_MAX_WAIT_S,
OPENCLAW_PRM_URL / OPENCLAW_PRM_TEACHER_URL (the PRM / PRM-teacher routers under another address),
OPENCLAW_COMBINE_OPD_TEACHER_SOURCE (``megatron``: samples carry ``teacher_tokens`` for the in-job PRM teacher);
OPENCLAW_TOPK_MAX_CAND (combine with the topk estimator: samples also carry ``teacher_tokens_candidates``, one per
accepted hint, at most this many).

An environment experiment's job (OPENCLAW_LEASE_UNIT=episodes, set by the console's track job) leases finished
episode groups instead: ``--rollout-batch-size`` groups of ``--n-samples-per-prompt`` episodes, each episode one
Sample with its step spans and step scores for ``--advantage-estimator step_wise`` (episodes.py). The console ran
those episodes through its proxy against this job's router, so every step is a recorded turn on the dashboard.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from typing import Any, Callable

from .client import DEFAULT_LEASE_SECONDS, ControlPlaneClient, ControlPlaneError, Settings
from .combine_loss import teacher_source
from .convert import sample_fields
from .episodes import make_groups
from .leases import Heartbeat, LeaseBook
from .resume import rollout_offset

log = logging.getLogger("openclaw.slime")


def _default_tokenizer(args: Any) -> Any:
    try:
        from slime.utils.processing_utils import load_tokenizer  # type: ignore[import-not-found]

        return load_tokenizer(args.hf_checkpoint, trust_remote_code=True)
    except ImportError:
        from transformers import AutoTokenizer  # type: ignore[import-not-found]

        return AutoTokenizer.from_pretrained(args.hf_checkpoint, trust_remote_code=True)


#: How the policy tokenizer is loaded (replaceable, e.g. by tests).
TOKENIZER_LOADER: Callable[[Any], Any] = _default_tokenizer


def _slime_types() -> tuple[Any, Any]:
    from slime.rollout.base_types import RolloutFnTrainOutput  # type: ignore[import-not-found]
    from slime.utils.types import Sample  # type: ignore[import-not-found]

    return Sample, RolloutFnTrainOutput


class _Job:
    """Per-process state: slime loads the rollout function once per RolloutManager."""

    def __init__(self, args: Any, env: dict[str, str]):
        self.client = ControlPlaneClient(Settings.from_env(env))
        self.method = env.get("OPENCLAW_METHOD", "combine")
        self.teacher_source = teacher_source(env)
        # The hybrid (combine + top-K): one teacher sequence per hint candidate, at most this many (upstream's name).
        self.max_cand = int(env["OPENCLAW_TOPK_MAX_CAND"]) if env.get("OPENCLAW_TOPK_MAX_CAND") else None
        save_dir = getattr(args, "save", None)
        state = env.get("OPENCLAW_LEASE_STATE") or (os.path.join(save_dir, "openclaw_leases.json") if save_dir else None)
        self.episodes = env.get("OPENCLAW_LEASE_UNIT", "samples") == "episodes"
        self.book = LeaseBook(
            self.client,
            state_path=state,
            lease_seconds=int(env.get("OPENCLAW_LEASE_SECONDS", DEFAULT_LEASE_SECONDS)),
            episodes=self.episodes,
        )
        self.max_wait_s = float(env["OPENCLAW_LEASE_MAX_WAIT_S"]) if env.get("OPENCLAW_LEASE_MAX_WAIT_S") else None
        self.tokenizer = TOKENIZER_LOADER(args)
        self.next_index = 0
        self.status = "starting"
        self.heartbeat = Heartbeat(self.book, interval_s=float(env.get("OPENCLAW_HEARTBEAT_S", "30")), message=lambda: self.status)
        self.rollout_url = env.get("OPENCLAW_ROLLOUT_URL") or _router_url(args)
        self.endpoints = prm_endpoints(args, env)
        # A bridge-mode job resumed from its checkpoint restarts slime's rollout ids at 0 (resume.py).
        self.offset = rollout_offset(args)

    def start(self, args: Any) -> None:
        recovered = self.book.recover(int(getattr(args, "start_rollout_id", 0) or 0) + self.offset)
        if recovered:
            log.info("acknowledged %d lease(s) trained before the restart", len(recovered))
        try:
            self.client.report(rollout_url=self.rollout_url, message="rollout function loaded", endpoints=self.endpoints)
        except ControlPlaneError as err:
            # The proxy keeps its previous upstream until a later report gets through.
            log.warning("could not report the rollout URL %s: %s", self.rollout_url, err)
        self.heartbeat.start()


def _router_url(args: Any) -> str | None:
    ip, port = getattr(args, "sglang_router_ip", None), getattr(args, "sglang_router_port", None)
    return f"http://{ip}:{port}/v1" if ip and port else None


def _base_url(args: Any, ip_attr: str, port_attr: str) -> str | None:
    ip, port = getattr(args, ip_attr, None), getattr(args, port_attr, None)
    return f"http://{ip}:{port}" if ip and port else None


def prm_endpoints(args: Any, env: dict[str, str]) -> dict[str, str]:
    """The PRM routers this job runs, as report fields (absent when there are none).

    ``prmUrl``: the PRM engines' router, only with ``--prm-enable`` and PRM GPUs (the fork leaves
    ``prm_router_ip`` unset otherwise). ``prmTeacherUrl``: a separate PRM teacher's router; OpenClaw-RL's
    4-way split (PR #85) computes teacher log-probs in Megatron inside the job, with no endpoint, so this is
    only sent when given (``OPENCLAW_PRM_TEACHER_URL``, or ``prm_teacher_router_ip/port`` on ``args``).
    """
    out: dict[str, str] = {}
    prm_on = bool(getattr(args, "prm_enable", False)) and int(getattr(args, "prm_num_gpus", 0) or 0) > 0
    prm = env.get("OPENCLAW_PRM_URL") or (_base_url(args, "prm_router_ip", "prm_router_port") if prm_on else None)
    if prm:
        out["prmUrl"] = prm
        model = getattr(args, "prm_model_path", None) or (getattr(args, "hf_checkpoint", None) if prm_on else None)
        if model:
            out["prmModelPath"] = str(model)
    teacher = env.get("OPENCLAW_PRM_TEACHER_URL") or _base_url(args, "prm_teacher_router_ip", "prm_teacher_router_port")
    if teacher:
        out["prmTeacherUrl"] = teacher
    return out


_job: _Job | None = None
_job_lock = threading.Lock()


def _get_job(args: Any) -> _Job:
    global _job
    with _job_lock:
        if _job is None:
            job = _Job(args, dict(os.environ))
            job.start(args)
            _job = job
        return _job


def _mean(xs: list[float]) -> float:
    return sum(xs) / len(xs) if xs else 0.0


def batch_metrics(leased: list[dict[str, Any]], waited_s: float, available: int) -> dict[str, float]:
    staleness = [float(s["staleness"]) for s in leased if s.get("staleness") is not None]
    return {
        "rollout/raw_reward": _mean([float(s.get("reward", 0.0)) for s in leased]),
        "rollout/response_len": _mean([float(len(s.get("responseTokenIds") or [])) for s in leased]),
        "openclaw/staleness_mean": _mean(staleness),
        "openclaw/lease_wait_s": waited_s,
        "openclaw/pool_left": float(available),
        "openclaw/opd_samples": float(sum(1 for s in leased if s.get("kind") != "RL")),
    }


def make_samples(sample_cls: Any, leased: list[dict[str, Any]], tokenizer: Any, method: str, first_index: int, teacher_source: str = "inference", max_cand: int | None = None) -> list[Any]:
    """slime ``Sample``s (completed) for leased samples, indexed from ``first_index``."""
    out = []
    for i, item in enumerate(leased):
        sample = sample_cls()
        for name, value in sample_fields(item, tokenizer, method, first_index + i, teacher_source, max_cand).items():
            setattr(sample, name, value)
        sample.status = sample_cls.Status.COMPLETED
        out.append(sample)
    return out


def generate_rollout(args: Any, rollout_id: int, data_source: Any, evaluation: bool = False) -> Any:
    if evaluation:
        # There is no evaluation dataset: conversations are the data. slime wraps a dict as RolloutFnEvalOutput.
        return {}
    job = _get_job(args)
    rollout_id += job.offset
    lag = 1 if getattr(args, "colocate", False) else 2
    job.book.acknowledge_through(rollout_id - lag)

    if job.episodes:
        return _episode_rollout(job, args, rollout_id)
    size = int(args.rollout_batch_size) * int(getattr(args, "n_samples_per_prompt", 1) or 1)
    started = time.monotonic()
    job.status = f"rollout {rollout_id}: waiting for {size} samples"

    def on_wait(res: dict[str, Any]) -> None:
        job.status = "paused" if res.get("paused") else f"rollout {rollout_id}: waiting for {size} samples ({res.get('available', 0)} ready)"

    lease = job.book.acquire(rollout_id, size, max_wait_s=job.max_wait_s, on_wait=on_wait)
    waited = time.monotonic() - started
    leased = lease["samples"]

    Sample, RolloutFnTrainOutput = _slime_types()
    samples = [[s] for s in make_samples(Sample, leased, job.tokenizer, job.method, job.next_index, job.teacher_source, job.max_cand)]
    job.next_index += len(samples)

    metrics = batch_metrics(leased, waited, int(lease.get("available", 0)))
    job.status = f"rollout {rollout_id}: training on {len(samples)} samples"
    try:
        job.client.report(metrics=metrics, step=rollout_id + 1, message=job.status, renew_lease_ids=job.book.outstanding())
    except ControlPlaneError as err:
        log.warning("could not report rollout metrics: %s", err)
    return RolloutFnTrainOutput(samples=samples, metrics=metrics)


def episode_metrics(groups: list[dict[str, Any]], waited_s: float, available: int) -> dict[str, float]:
    episodes = [e for g in groups for e in g["episodes"]]
    return {
        "rollout/raw_reward": _mean([float(e["outcome"]) for e in episodes]),
        "openclaw/episode_steps_mean": _mean([float(len(e["steps"])) for e in episodes]),
        "openclaw/episodes_failed": float(sum(int(g.get("failed", 0)) for g in groups)),
        "openclaw/lease_wait_s": waited_s,
        "openclaw/groups_left": float(available),
    }


def _episode_rollout(job: _Job, args: Any, rollout_id: int) -> Any:
    """One rollout of an environment experiment: ``--rollout-batch-size`` finished groups, n episodes each."""
    size = int(args.rollout_batch_size)
    n = int(getattr(args, "n_samples_per_prompt", 1) or 1)
    started = time.monotonic()
    job.status = f"rollout {rollout_id}: waiting for {size} episode groups"

    def on_wait(res: dict[str, Any]) -> None:
        job.status = "paused" if res.get("paused") else f"rollout {rollout_id}: waiting for {size} episode groups ({res.get('available', 0)} ready)"

    lease = job.book.acquire(rollout_id, size, max_wait_s=job.max_wait_s, on_wait=on_wait)
    waited = time.monotonic() - started
    Sample, RolloutFnTrainOutput = _slime_types()
    samples = make_groups(Sample, lease["groups"], job.tokenizer, n, job.next_index)
    job.next_index += sum(len(g) for g in samples)
    metrics = episode_metrics(lease["groups"], waited, int(lease.get("available", 0)))
    job.status = f"rollout {rollout_id}: training on {len(samples)} episode groups"
    try:
        job.client.report(metrics=metrics, step=rollout_id + 1, message=job.status, renew_lease_ids=job.book.outstanding())
    except ControlPlaneError as err:
        log.warning("could not report rollout metrics: %s", err)
    return RolloutFnTrainOutput(samples=samples, metrics=metrics)
