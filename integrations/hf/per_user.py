"""hf-local per user (``HF_PER_USER=1``, set by the console for a per-user experiment): one LoRA per end user on the
shared frozen base, each trained from that user's leased batches only and written as a PEFT folder per version.

Loop: lease (the console hands a per-user experiment's samples out one user at a time, naming the user:
``server/personalization/leases.ts``) → swap that user's adapter (and their optimizer state) into the model's
training adapter → the same step as the shared trainer (``train.Trainer.step``: π_old is the user's current
adapter) → keep the user's new weights → write ``<save dir>/<run>/users/<user hash>/v<version>`` in PEFT's layout
(``peft_folder.py``) → acknowledge the lease with that folder, which registers it as the user's next served version
(SGLang / vLLM load it per user through the proxy) → repeat.

Privacy: a lease without an end user, or a sample of another user in a user's batch, is refused before anything
trains; each user's weights and Adam moments are their own, and a user with no served version starts from the same
fresh adapter (B = 0: exactly the base). Folder names carry a hash of the user id, not the id.

Restarts: weights and Adam moments live in this process, so on a user's first batch in a process the lease's
``adapter`` (the console's account of the user's versions) says where they stand: their served (PROMOTED) folder is
read back (``read_peft_folder``) into the training adapter, with the Adam moments saved beside the folder
(``moments.py``: a PEFT folder holds none), and their version numbers continue past the console's latest (any
state), so a folder is never named after an earlier version. A folder that already exists is never written over (``save`` refuses it): one
at the next version's name that the console does not know (written by a process that died before acknowledging it)
is kept and the version takes the next free name (``free_version``). The run's step numbers continue past its last
recorded step (``leases.resume_point``), as the shared trainer's do.

The hf-local process still serves the frozen base for the judge and the teacher (``/base/...``, the run's PRM); the
users' adapters are served by the engine the experiment names (``policy.loraAdapters``), not by this process.
"""

from __future__ import annotations

import copy
import hashlib
import logging
import os
import time
from typing import Any, Mapping, Sequence

import torch

from integrations.slime.leases import LeaseBook, user_batches

from .model import TRAIN, ChatModel
from .moments import load_moments, save_moments
from .peft_folder import lora_config, read_peft_folder, write_peft_folder

log = logging.getLogger("openclaw.hf.per_user")


def user_adapter_dir(save_dir: str, run_id: str, end_user_id: str, version: int) -> str:
    """The folder of a user's version: unique per run, user and version number (numbers continue past the console's
    latest after a restart, and ``UserAdapters.save`` refuses a folder that exists, so none is ever overwritten)."""
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in run_id)
    digest = hashlib.sha256(end_user_id.encode("utf-8")).hexdigest()[:16]
    return os.path.join(save_dir, safe, "users", digest, f"v{version:06d}")


def free_version(save_dir: str, run_id: str, end_user_id: str, version: int) -> int:
    """``version``, or the first later number whose folder does not exist yet. The console numbers a user's versions
    itself (the folder's number is this trainer's), so skipping a name costs nothing, while writing into a folder
    could destroy weights the console serves; a folder past the console's latest was never acknowledged."""
    while os.path.exists(user_adapter_dir(save_dir, run_id, end_user_id, version)):
        log.warning("a version folder of this user exists but the console does not know it (written, never acknowledged): kept; numbering past it")
        version += 1
    return version


class UserAdapters:
    """Each user's adapter weights and optimizer state, swapped into the trainer's adapter for that user's step."""

    def __init__(self, trainer: Any):
        self.trainer = trainer
        self.model: ChatModel = trainer.model
        self._fresh = self._snapshot()
        self._users: dict[str, tuple[list[torch.Tensor], dict[str, Any]]] = {}
        # Each user's newest version number: this process's, or past the console's latest (a lease's adapter).
        self.versions: dict[str, int] = {}
        self.loaded: str | None = None

    def resume(self, end_user_id: str, adapter: Mapping[str, Any] | None) -> int | None:
        """A user this process has not trained yet: their served folder's weights (the lease's ``adapter.served``),
        with the Adam moments saved beside it (fresh when none were); none served (or a version of no folder): the
        fresh adapter. Returns the version resumed from. A served folder that cannot be read fails loudly rather than
        silently training from scratch."""
        served = (adapter or {}).get("served") or {}
        path = served.get("path")
        if not path:
            return None
        try:
            weights, _ = read_peft_folder(path)
            self.model.load_lora_state(TRAIN, weights)
        except (OSError, ValueError) as err:
            raise RuntimeError(f"cannot resume a user from their served version {served.get('version')} at {path}: {err}") from err
        moments = load_moments(path)
        self._users[end_user_id] = ([p.detach().to("cpu", copy=True) for p in self.model.trainable_parameters()], moments if moments is not None else self._fresh[1])
        log.info("resumed a user from their served version %s (Adam moments %s)", served.get("version"), "too" if moments is not None else "fresh: none saved")
        self.loaded = None  # the training adapter holds their weights, the optimizer not yet their (fresh) moments
        return int(served["version"])

    def _load(self, end_user_id: str) -> None:
        weights, optim = self._users.get(end_user_id, self._fresh)
        with torch.no_grad():
            for p, w in zip(self.model.trainable_parameters(), weights):
                p.copy_(w)
        # A copy: some torch versions keep same-device tensors of the given state, which the step updates in place.
        self.trainer.optimizer.load_state_dict(copy.deepcopy(optim))
        self.loaded = end_user_id

    def step(self, end_user_id: str, items: Sequence[Mapping[str, Any]], adapter: Mapping[str, Any] | None = None) -> dict[str, float]:
        """One optimizer step of this user's adapter on this user's samples only; ``adapter``: the lease's account of
        the user's versions (resumed from on their first batch here; numbered past on every batch)."""
        for item in items:
            if item.get("endUserId") != end_user_id:
                raise ValueError(f"sample {item.get('sampleId')!r} is not {end_user_id!r}'s: refused for their adapter")
        if end_user_id not in self._users:
            self.resume(end_user_id, adapter)
        self._load(end_user_id)
        metrics = self.trainer.step(items)
        self._users[end_user_id] = self._snapshot()
        latest = int((adapter or {}).get("latestVersion") or 0)
        self.versions[end_user_id] = max(self.versions.get(end_user_id, 0), latest) + 1
        return metrics

    def _snapshot(self) -> tuple[list[torch.Tensor], dict[str, Any]]:
        """The training adapter's weights and Adam moments, kept on the CPU: only the user being trained occupies the
        GPU (load_state_dict moves the moments back to the parameters' device)."""
        weights = [p.detach().to("cpu", copy=True) for p in self.model.trainable_parameters()]
        optim = self.trainer.optimizer.state_dict()
        state = {k: {n: (v.to("cpu", copy=True) if torch.is_tensor(v) else copy.deepcopy(v)) for n, v in st.items()} for k, st in optim["state"].items()}
        return weights, {"state": state, "param_groups": copy.deepcopy(optim["param_groups"])}

    def save(self, end_user_id: str, path: str, base_model: str, rank: int, alpha: float) -> None:
        """The user's newest weights as a new PEFT folder (an existing one is refused: FileExistsError)."""
        if self.loaded != end_user_id:
            self._load(end_user_id)
        weights, targets = self.model.lora_state(TRAIN)
        write_peft_folder(path, weights, lora_config(base_model, rank, alpha, targets), exist_ok=False)
        save_moments(self._users[end_user_id][1], path)


def train_per_user(
    adapters: UserAdapters,
    book: LeaseBook,
    run_id: str,
    save_dir: str,
    base_model: str,
    rank: int,
    alpha: float,
    max_steps: int | None = None,
    poll_s: float = 2.0,
    start: int = 0,
) -> int:
    """Lease one user's batch → train their adapter → write its folder → acknowledge (registers the version). Steps
    are numbered past ``start`` (the run's last recorded step); returns how many this process took."""
    steps = 0
    for step, user, samples, adapter in user_batches(book, "HF_PER_USER", max_steps, poll_s, start):
        started = time.monotonic()
        metrics = adapters.step(user, samples, adapter)
        adapters.versions[user] = free_version(save_dir, run_id, user, adapters.versions[user])
        path = user_adapter_dir(save_dir, run_id, user, adapters.versions[user])
        adapters.save(user, path, base_model, rank, alpha)
        metrics["train/step_time_s"] = time.monotonic() - started
        book.acknowledge_through(step, metrics=metrics, checkpoint_path=path, duration_ms=int((time.monotonic() - started) * 1000))
        log.info("step %d: user %s… version %d", step + 1, path.split(os.sep)[-2][:6], adapters.versions[user])
        steps += 1
    return steps
