"""Per-user adapters on Tinker: one LoRA training client per end user on one shared base model, one sampler per user.

A Tinker training client is one LoRA on a frozen base (``ServiceClient.create_lora_training_client(base_model,
rank)``, thinking-machines-lab/tinker @ d595dc2, ``lib/public_interfaces/service_client.py``), so a client per user
is an adapter per user on a shared base that no user's step changes. Each user's step runs on that user's client
only (``forward_backward`` → ``optim_step`` → ``save_weights_for_sampler``), and that user's sampler is the one
``create_sampling_client(model_path=<their durable path>)`` returns; a user with no trained version samples from
the base (``create_sampling_client(base_model=...)``).

Privacy: samples are grouped by their ``endUserId`` before any Datum is built; a sample without one, or handed to
another user's step, is refused, never trained into someone's adapter. Sampler names carry a hash of the user id,
not the id itself, so Tinker's storage does not learn who the users are.

The bridge drives it per user (``TINKER_PER_USER=1``, ``train_per_user`` below): the console leases a per-user
experiment's samples one user at a time (``server/personalization/leases.ts``), each lease becomes a step of that
user's client, and its acknowledgement carries the user's new sampler path, which the console registers as the user's
next served version; the bridge's endpoint (serve.py ``LoraSamplers``) loads it when the proxy asks for that user.

Restarts: a user's clients live in this process. Version numbers (and so sampler names) continue past the console's
latest for the user (the lease's ``adapter.latestVersion``), so a restarted bridge never saves a sampler under an
earlier version's name. With a state book (states.py; on unless TINKER_SAVE_STATE=0) each version's full training
state is saved beside its sampler weights, and a user's first client in a new process resumes from the state saved
with their served version (the lease's ``adapter.served.path``), Adam moments included; without one (no book, or a
version trained elsewhere) the user's next version trains from a fresh LoRA on the base.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from typing import Any, Iterable, Mapping

import logging
import time

from integrations.slime.convert import sample_fields
from integrations.slime.leases import LeaseBook, user_batches
from integrations.tinker.step import BridgeConfig, build_datum, step_metrics, token_advantages
from integrations.tinker.states import StateBook, resumed_client

log = logging.getLogger("openclaw.tinker.per_user")


def user_sampler_name(run_id: str, end_user_id: str, version: int) -> str:
    """Unique per run, user and version; the user appears only as a hash."""
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in run_id)
    digest = hashlib.sha256(end_user_id.encode("utf-8")).hexdigest()[:16]
    return f"{safe}-u{digest}-v{version:06d}"


def group_by_user(items: Iterable[Mapping[str, Any]]) -> "OrderedDict[str, list[Mapping[str, Any]]]":
    """Samples per end user, in first-seen order; a sample without an end user is refused (it belongs to nobody's adapter)."""
    groups: "OrderedDict[str, list[Mapping[str, Any]]]" = OrderedDict()
    for item in items:
        user = item.get("endUserId")
        if not isinstance(user, str) or not user:
            raise ValueError(f"sample {item.get('sampleId')!r} has no endUserId: it cannot train a per-user adapter")
        groups.setdefault(user, []).append(item)
    return groups


class PerUserTinker:
    """Training clients and samplers per end user, created on first use and kept for the process's life."""

    def __init__(self, tinker: Any, cfg: BridgeConfig, run_id: str, states: StateBook | None = None):
        self.types = tinker.types
        self.states = states
        self.service = tinker.ServiceClient()
        self.cfg = cfg
        self.run_id = run_id
        self._clients: dict[str, Any] = {}
        self._samplers: dict[str, Any] = {}
        self._base_sampler: Any = None
        self._tokenizer: Any = None
        self.versions: dict[str, int] = {}
        self.paths: dict[str, str] = {}
        self.last_metrics: dict[str, float] = {}

    def tokenizer(self) -> Any:
        """The base model's tokenizer (the endpoint renders prompts with it): a training client's, as the SDK gives it,
        from one created for this once (it never trains) when no user has a client yet."""
        if self._tokenizer is None:
            client = next(iter(self._clients.values()), None) or self.service.create_lora_training_client(base_model=self.cfg.base_model, rank=self.cfg.lora_rank)
            self._tokenizer = client.get_tokenizer()
        return self._tokenizer

    def training_client(self, end_user_id: str, served_path: str | None = None) -> Any:
        """The user's client; a new one resumes from the state saved with ``served_path`` (their served version's
        sampler path) when the book has it, else starts a fresh LoRA."""
        client = self._clients.get(end_user_id)
        if client is None:
            client = resumed_client(self.service, self.states, served_path) or self.service.create_lora_training_client(base_model=self.cfg.base_model, rank=self.cfg.lora_rank)
            self._clients[end_user_id] = client
        return client

    def step(self, end_user_id: str, items: list[Mapping[str, Any]], latest_version: int = 0, served_path: str | None = None) -> str:
        """One optimizer step of this user's adapter on this user's samples; returns the new version's durable path,
        saved as a version past both this process's and ``latest_version`` (the console's latest for the user).
        ``served_path``: the user's served version (a new client resumes from the state saved with it)."""
        for item in items:
            if item.get("endUserId") != end_user_id:
                raise ValueError(f"sample {item.get('sampleId')!r} is not {end_user_id!r}'s: refused for their adapter")
        training = self.training_client(end_user_id, served_path)
        tokenizer = training.get_tokenizer()
        data = []
        for i, item in enumerate(items):
            fields = sample_fields(dict(item), tokenizer, self.cfg.method, i)
            data.append(build_datum(self.types, fields, token_advantages(fields, self.cfg.method, self.cfg.w_opd, self.cfg.w_rl)))
        fwd_bwd = training.forward_backward(data, self.cfg.loss)
        optim = training.optim_step(self.types.AdamParams(learning_rate=self.cfg.learning_rate))
        self.last_metrics = {**step_metrics(fwd_bwd.result(), optim.result()), "tinker/batch_size": float(len(data))}
        version = max(self.versions.get(end_user_id, 0), latest_version) + 1
        path = training.save_weights_for_sampler(user_sampler_name(self.run_id, end_user_id, version)).result().path
        if self.states is not None:
            self.states.put(path, training.save_state(user_sampler_name(self.run_id, end_user_id, version)).result().path)
        self.versions[end_user_id] = version
        self.paths[end_user_id] = path
        self._samplers[end_user_id] = self.service.create_sampling_client(model_path=path)
        return path

    def train(self, items: Iterable[Mapping[str, Any]]) -> dict[str, str]:
        """One step per user present in ``items`` (grouped first); returns each user's new path."""
        return {user: self.step(user, group) for user, group in group_by_user(items).items()}

    def sampler(self, end_user_id: str | None) -> tuple[Any, str | None]:
        """The user's newest sampler and its path, or the base's sampler (and None) for a user without a version."""
        if end_user_id is not None and end_user_id in self._samplers:
            return self._samplers[end_user_id], self.paths[end_user_id]
        if self._base_sampler is None:
            self._base_sampler = self.service.create_sampling_client(base_model=self.cfg.base_model)
        return self._base_sampler, None


def train_per_user(users: PerUserTinker, book: LeaseBook, max_steps: int | None = None, poll_s: float = 2.0, start: int = 0) -> int:
    """Lease one user's batch → a step of their client → acknowledge with their new sampler path (the console registers
    it as their version); until the console stops the run. A lease of no end user is refused: not a per-user run.
    Steps are numbered past ``start`` (the run's last recorded step); returns how many this process took."""
    steps = 0
    for step, user, samples, adapter in user_batches(book, "TINKER_PER_USER", max_steps, poll_s, start):
        started = time.monotonic()
        served = (adapter or {}).get("served") or {}
        path = users.step(user, samples, int((adapter or {}).get("latestVersion") or 0), served.get("path"))
        book.acknowledge_through(step, metrics=users.last_metrics, checkpoint_path=path, duration_ms=int((time.monotonic() - started) * 1000))
        steps += 1
    return steps
