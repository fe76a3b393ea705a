"""Tinker bridge: trains a run on Tinker (remote LoRA training) from batches leased from the control plane.

    python3 -m integrations.tinker.bridge

One synchronous loop, like the reference's Tinker trainer: lease a full batch → build one ``Datum`` per
sample → ``forward_backward`` with a built-in RL loss → ``optim_step`` → ``save_weights_for_sampler(name)``
→ acknowledge the lease as the step with ``.result().path`` (a durable ``tinker://…/sampler_weights/<name>``
URI) as the policy version's checkpoint → repeat until the control plane says the run is over.

Against the SDK's source (thinking-machines-lab/tinker @ d595dc2, ``lib/public_interfaces/training_client.py``):
``save_weights_and_get_sampling_client`` saves ephemeral weights (its ``name`` is deprecated and ignored) and
returns a ``SamplingClient``, which has no ``model_path``; the durable path comes only from
``save_weights_for_sampler(name).result().path``. A sampling client for that path is
``ServiceClient().create_sampling_client(model_path=path)`` (``TINKER_SAMPLER=1`` makes the bridge create one
per step and keep it as ``train(...)``'s ``state.sampler``, for serving the trained weights).

Per response token t the advantage is w_rl·r + w_opd·(teacher_lp_t − behaviour_lp_t) (grpo: r; opd: the
teacher gap), masked by the loss mask; prompt positions carry zero advantage. ``logprobs`` are the
behaviour log-probs the proxy recorded, so importance_sampling / ppo / cispo correct for staleness.

Environment: CONTROL_PLANE_URL, RUN_ID, CONTROL_PLANE_API_KEY or OPENCLAW_API_KEY_FILE (set by the control plane), TINKER_API_KEY
(the user's own key, read by the SDK), TINKER_BASE_MODEL, TINKER_LORA_RANK (32), TINKER_LEARNING_RATE
(1e-4), TINKER_BATCH_SIZE (16), TINKER_LOSS (importance_sampling), OPENCLAW_METHOD (combine),
OPENCLAW_COMBINE_W_OPD / _W_RL (1); TINKER_SERVE_PORT (serve the trained weights through the proxy:
serve.py), TINKER_SERVE_HOST, TINKER_SERVE_URL; TINKER_PER_USER (1: a per-user experiment, one LoRA training client
per end user from per-user leases, each user's sampler loaded by name on the endpoint: per_user.py, serve.py);
TINKER_SAVE_STATE (1: save each step's training state too, so a restarted bridge resumes it: states.py),
TINKER_STATE_FILE (.tinker/states.json). The Tinker SDK (``pip install tinker``) is imported only here.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from dataclasses import dataclass
from typing import Any, Mapping

from integrations.slime.client import ControlPlaneClient, ControlPlaneError, Settings
from integrations.slime.convert import sample_fields
from integrations.slime.leases import Heartbeat, LeaseBook, RunStopped, resume_point
from integrations.tinker.states import StateBook, resumed_client, state_book
from integrations.tinker.step import BridgeConfig, build_datum, step_metrics, token_advantages
from integrations.tinker.serve import LoraSamplers, SamplerSlot, SamplingServer

log = logging.getLogger("openclaw.tinker")


@dataclass
class TrainState:
    """What the loop leaves behind: the last durable sampler path (and its sampling client, if asked for)."""

    checkpoint_path: str | None = None
    sampler: Any = None


def train(
    tinker: Any,
    book: LeaseBook,
    cfg: BridgeConfig,
    run_id: str,
    max_steps: int | None = None,
    poll_s: float = 2.0,
    state: TrainState | None = None,
    make_sampler: bool = False,
    slot: SamplerSlot | None = None,
    start: int = 0,
    states: StateBook | None = None,
    resume_from: str | None = None,
) -> int:
    """The training loop; returns the number of steps taken. Stops on RunStopped or after ``max_steps``.
    With a ``slot`` (the sampling endpoint's, serve.py), it holds the base model's sampler from the start and
    each step's sampler once the step's weights are saved. Steps are numbered past ``start``, the run's last
    recorded step (``leases.resume_point``), so a restarted bridge neither has its steps refused nor saves its
    sampler weights under an earlier version's name. With ``states`` each step's full training state is saved beside
    its sampler weights (states.py), and ``resume_from`` (the run's newest sampler path) resumes the training client
    from the state saved with it, Adam moments included."""
    types = tinker.types
    state = state if state is not None else TrainState()
    service = tinker.ServiceClient()
    training = resumed_client(service, states, resume_from) or service.create_lora_training_client(base_model=cfg.base_model, rank=cfg.lora_rank)
    tokenizer = training.get_tokenizer()
    if slot is not None:
        if resume_from is not None and states is not None and states.get(resume_from):
            # Resumed: the run's newest version serves until this process's first step replaces it.
            slot.set(service.create_sampling_client(model_path=resume_from), tokenizer, resume_from, start)
        else:
            slot.set(service.create_sampling_client(base_model=cfg.base_model), tokenizer, None, 0)
    steps = 0
    while max_steps is None or steps < max_steps:
        rollout = start + steps
        try:
            lease = book.acquire(rollout, cfg.batch_size, poll_s=poll_s)
        except RunStopped as stopped:
            log.info("stopping: %s", stopped)
            break
        started = time.monotonic()
        data = []
        for i, item in enumerate(lease["samples"]):
            fields = sample_fields(item, tokenizer, cfg.method, i)
            data.append(build_datum(types, fields, token_advantages(fields, cfg.method, cfg.w_opd, cfg.w_rl)))
        fwd_bwd = training.forward_backward(data, cfg.loss)
        optim = training.optim_step(types.AdamParams(learning_rate=cfg.learning_rate))
        result = fwd_bwd.result()
        optim_result = optim.result()
        # Durable sampler weights; the SDK's path is what the control plane records as the version's checkpoint.
        path = training.save_weights_for_sampler(sampler_name(run_id, rollout + 1)).result().path
        if states is not None:
            states.put(path, training.save_state(sampler_name(run_id, rollout + 1)).result().path)
        state.checkpoint_path = path
        if make_sampler or slot is not None:
            state.sampler = service.create_sampling_client(model_path=path)
            if slot is not None:
                slot.set(state.sampler, tokenizer, path, rollout + 1)
        metrics = step_metrics(result, optim_result)
        metrics["tinker/batch_size"] = float(len(data))
        book.acknowledge_through(
            rollout,
            metrics=metrics,
            checkpoint_path=path,
            duration_ms=int((time.monotonic() - started) * 1000),
        )
        steps += 1
    return steps


def sampler_name(run_id: str, step: int) -> str:
    """Unique per run and step, so a restarted run never overwrites an earlier version's weights."""
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in run_id)
    return f"{safe}-step-{step:06d}"


def start_serving(tinker: Any, client: ControlPlaneClient, cfg: BridgeConfig, env: Mapping[str, str], loras: LoraSamplers | None = None) -> SamplingServer | None:
    """With TINKER_SERVE_PORT set: the sampling endpoint (serve.py), reported as the run's rolloutUrl so the
    proxy forwards the run's traffic to the weights being trained. TINKER_SERVE_HOST (127.0.0.1) is where it
    listens and, unless TINKER_SERVE_URL says otherwise, the address reported."""
    if not env.get("TINKER_SERVE_PORT"):
        return None
    server = SamplingServer(tinker.types, SamplerSlot(), served_name=cfg.base_model, host=env.get("TINKER_SERVE_HOST", "127.0.0.1"), port=int(env["TINKER_SERVE_PORT"]), loras=loras)
    server.start()
    url = env.get("TINKER_SERVE_URL") or server.url
    try:
        client.report(rollout_url=url, message=f"serving the trained weights at {url}")
    except ControlPlaneError as err:
        # The proxy keeps the configured policy until a report with the URL gets through.
        log.warning("could not report the sampling endpoint %s: %s", url, err)
    log.info("sampling endpoint at %s", url)
    return server


def main() -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    try:
        import tinker  # type: ignore[import-not-found]
    except ImportError:
        print("the Tinker SDK is not installed: pip install tinker", file=sys.stderr)
        return 2
    if not os.environ.get("TINKER_API_KEY"):
        print("TINKER_API_KEY is not set: Tinker trains on your own account and needs your service key", file=sys.stderr)
        return 2
    cfg = BridgeConfig.from_env(os.environ)
    client = ControlPlaneClient(Settings.from_env())
    try:
        start, checkpoint = resume_point(client.report(message="starting on Tinker"))
    except ControlPlaneError as err:
        # Without the answer the run's last step is unknown: numbering from 1 would have every step refused.
        print(f"could not report to the console at {client.settings.url}: {err}", file=sys.stderr)
        return 2
    states = state_book(os.environ)
    book = LeaseBook(client)
    heartbeat = Heartbeat(book, interval_s=float(os.environ.get("OPENCLAW_HEARTBEAT_S", "30")), message=lambda: "training on Tinker")
    per_user = os.environ.get("TINKER_PER_USER") == "1"
    if per_user:
        from integrations.tinker.per_user import PerUserTinker, train_per_user

        users = PerUserTinker(tinker, cfg, client.settings.run_id, states=states)
    server = start_serving(tinker, client, cfg, os.environ, loras=LoraSamplers(users.service) if per_user else None)
    heartbeat.start()
    try:
        if per_user:
            if server:
                # Requests without an adapter (users served the base) sample from the base model.
                server.slot.set(users.service.create_sampling_client(base_model=cfg.base_model), users.tokenizer(), None, 0)
            steps = train_per_user(users, book, start=start)
        else:
            steps = train(tinker, book, cfg, client.settings.run_id, make_sampler=os.environ.get("TINKER_SAMPLER") == "1", slot=server.slot if server else None, start=start, states=states, resume_from=checkpoint)
    finally:
        heartbeat.stop()
        if server:
            server.close()
    log.info("finished after %d step(s)", steps)
    return 0


if __name__ == "__main__":
    sys.exit(main())
