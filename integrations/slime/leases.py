"""The leases one trainer job holds, and when to acknowledge them.

A batch is leased for a rollout id and acknowledged once the step that trained it is over (slime:
step = rollout id + 1, so steps count from 1 as in the embedded trainer). Acknowledging is idempotent on
the control plane, so re-acknowledging after a restart never trains or counts a sample twice; a lease
the job never acknowledges (it died mid-step) expires and its samples return to the pool.

With a state file (slime: ``<save dir>/openclaw_leases.json``) a job restarted from a checkpoint
acknowledges the leases its checkpoint already trained on; the rest are left to expire.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
import uuid
from typing import Any, Callable, Iterator, Mapping

from .client import DEFAULT_LEASE_SECONDS, ControlPlaneClient, ControlPlaneError

log = logging.getLogger("openclaw.slime")


class RunStopped(RuntimeError):
    """The control plane says the run is over (stopped, finished, failed or crashed): stop training."""


class LeaseBook:
    def __init__(
        self,
        client: ControlPlaneClient,
        state_path: str | None = None,
        lease_seconds: int = DEFAULT_LEASE_SECONDS,
        instance_id: str | None = None,
        episodes: bool = False,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.client = client
        self.state_path = state_path
        self.lease_seconds = lease_seconds
        # Request keys are unique per process, so a retried request finds its lease and a restarted job never does.
        self.instance_id = instance_id or uuid.uuid4().hex[:12]
        # An environment experiment's job leases finished episode groups (``size`` counts groups), not samples.
        self.episodes = episodes
        self.pending: dict[int, str] = {}
        self.stop_requested = False
        self.paused = False
        self._lock = threading.Lock()
        self._sleep = sleep
        self._clock = clock

    # -- leasing ---------------------------------------------------------------------------------------

    def acquire(
        self,
        rollout_id: int,
        size: int,
        poll_s: float = 2.0,
        max_wait_s: float | None = None,
        on_wait: Callable[[dict[str, Any]], None] | None = None,
        min_size: int | None = None,
    ) -> dict[str, Any]:
        """Blocks until a full batch of ``size`` samples (episode groups, for an episode book) is leased for
        ``rollout_id``; returns the lease response. ``min_size``: take a smaller batch (a per-user trainer leaves
        how many a user's version trains on to the console's per-user rules)."""
        started = self._clock()
        key = f"{self.instance_id}:{rollout_id}"
        while True:
            if self.stop_requested:
                raise RunStopped("the control plane asked this trainer to stop")
            try:
                if self.episodes:
                    res = self.client.lease_episodes(groups=size, min_groups=size, lease_seconds=self.lease_seconds, request_key=key)
                else:
                    res = self.client.lease(size=size, min_size=min_size or size, lease_seconds=self.lease_seconds, request_key=key)
            except ControlPlaneError as err:
                if err.status == 409:
                    raise RunStopped(str(err)) from None
                if not err.retryable:
                    raise
                log.warning("lease failed, retrying: %s", err)
                res = None
            if res is not None:
                self.paused = bool(res.get("paused"))
                if res.get("leaseId"):
                    with self._lock:
                        self.pending[rollout_id] = res["leaseId"]
                    self._save()
                    return res
                if on_wait:
                    on_wait(res)
            if max_wait_s is not None and self._clock() - started > max_wait_s:
                raise TimeoutError(f"no batch of {size} {'episode groups' if self.episodes else 'samples'} within {max_wait_s:.0f}s")
            self._sleep(poll_s)

    def outstanding(self) -> list[str]:
        with self._lock:
            return list(self.pending.values())

    # -- acknowledging ---------------------------------------------------------------------------------

    def acknowledge_through(
        self,
        last_trained_rollout: int,
        metrics: dict[str, float] | None = None,
        checkpoint_path: str | None = None,
        duration_ms: int | None = None,
    ) -> list[dict[str, Any]]:
        """Acknowledges every pending lease whose rollout id is ≤ ``last_trained_rollout`` (the details
        given describe the latest step, so callers acknowledging one step at a time pass them)."""
        results = []
        with self._lock:
            due = sorted((r, lid) for r, lid in self.pending.items() if r <= last_trained_rollout)
        for rollout_id, lease_id in due:
            try:
                res = self.client.ack(
                    lease_id,
                    step=rollout_id + 1,
                    metrics=metrics,
                    weight_version=rollout_id + 1,
                    checkpoint_path=checkpoint_path,
                    duration_ms=duration_ms,
                )
            except ControlPlaneError as err:
                if err.retryable:
                    log.warning("acknowledging lease %s failed, will retry: %s", lease_id, err)
                    continue
                # 404/409: the control plane cannot take this acknowledgement (the step was recorded another
                # way, or the lease is gone); keeping it would only repeat the error.
                log.error("dropping lease %s of rollout %d: %s", lease_id, rollout_id, err)
                res = None
            with self._lock:
                self.pending.pop(rollout_id, None)
            if res is not None:
                results.append(res)
        if due:
            self._save()
        return results

    # -- restarts --------------------------------------------------------------------------------------

    def recover(self, start_rollout_id: int) -> list[dict[str, Any]]:
        """After a restart: acknowledges the previous process's leases its checkpoint trained (< start id)."""
        previous = self._load()
        if not previous:
            return []
        with self._lock:
            for r, lease_id in previous.items():
                if r < start_rollout_id:
                    self.pending[r] = lease_id
        return self.acknowledge_through(start_rollout_id - 1)

    def _save(self) -> None:
        if not self.state_path:
            return
        with self._lock:
            data = {"instance": self.instance_id, "pending": {str(r): lid for r, lid in self.pending.items()}}
        tmp = f"{self.state_path}.tmp"
        os.makedirs(os.path.dirname(os.path.abspath(self.state_path)), exist_ok=True)
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(data, f)
        os.replace(tmp, self.state_path)

    def _load(self) -> dict[int, str]:
        if not self.state_path or not os.path.exists(self.state_path):
            return {}
        try:
            with open(self.state_path, encoding="utf-8") as f:
                data = json.load(f)
            return {int(r): str(lid) for r, lid in data.get("pending", {}).items()}
        except (OSError, ValueError) as err:
            log.warning("ignoring unreadable lease state %s: %s", self.state_path, err)
            return {}


class Heartbeat(threading.Thread):
    """Reports every ``interval_s``: keeps the run alive, renews held leases, learns about stop/pause."""

    def __init__(self, book: LeaseBook, interval_s: float = 30.0, message: Callable[[], str] | None = None):
        super().__init__(name="openclaw-heartbeat", daemon=True)
        self.book = book
        self.interval_s = interval_s
        self.message = message
        self._stop_event = threading.Event()

    def beat(self) -> dict[str, Any] | None:
        try:
            res = self.book.client.report(
                renew_lease_ids=self.book.outstanding(),
                lease_seconds=self.book.lease_seconds,
                message=self.message() if self.message else None,
            )
        except ControlPlaneError as err:
            log.warning("heartbeat failed: %s", err)
            return None
        self.book.paused = bool(res.get("paused"))
        if res.get("stop"):
            self.book.stop_requested = True
        return res

    def run(self) -> None:
        while not self._stop_event.wait(self.interval_s):
            self.beat()

    def stop(self) -> None:
        self._stop_event.set()


# A per-user lease's size is the console's to decide (perUser.maxSamplesPerVersion, minSamples): ask for the most.
USER_LEASE_SIZE = 4096


def resume_point(answer: Mapping[str, Any] | None) -> tuple[int, str | None]:
    """From the console's answer to a trainer's first report: the run's last recorded step and the checkpoint of the
    newest version the run trained (None: none yet, or a per-user run, whose versions each lease names). A trainer
    numbers its steps past that step: the console records a step once, so a restarted process that counted from 1
    again would have every acknowledgement refused and its batches' training lost (and, on Tinker, would save its
    sampler weights under an earlier step's name)."""
    answer = answer or {}
    resume = answer.get("resume") or {}
    path = resume.get("checkpointPath")
    return int(answer.get("lastStep") or 0), path if isinstance(path, str) and path else None


def user_batches(
    book: LeaseBook, flag: str, max_steps: int | None = None, poll_s: float = 2.0, start: int = 0
) -> Iterator[tuple[int, str, list[Any], dict[str, Any] | None]]:
    """A per-user run's leases (hf-local and Tinker per user): each batch holds one end user's samples, yielded as
    (step, endUserId, samples, adapter) until the console stops the run or after ``max_steps``; ``adapter`` is the
    lease's account of the user's versions (``{"served": {"version", "path"} | None, "latestVersion"}``: what a
    restarted trainer resumes from and numbers past). The caller acknowledges step before asking for the next. A
    batch of no end user means the experiment is not per-user: ``flag`` names the setting that asked for per-user
    training. Steps are numbered from ``start`` (the run's last recorded step, ``resume_point``); ``max_steps``
    counts this process's."""
    step = start
    while max_steps is None or step < start + max_steps:
        try:
            lease = book.acquire(step, USER_LEASE_SIZE, poll_s=poll_s, min_size=1)
        except RunStopped as stopped:
            log.info("stopping: %s", stopped)
            return
        user = lease.get("endUserId")
        if not isinstance(user, str) or not user:
            raise SystemExit(f"{flag}=1 but the console leased a batch of no end user: is the experiment per-user?")
        yield step, user, lease["samples"], lease.get("adapter")
        step += 1
