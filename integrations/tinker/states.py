"""The training state behind each sampler path the bridge acknowledges, so a restarted bridge resumes its weights.

The console records a version's sampler path (``tinker://…/sampler_weights/…``: what serving loads), and a Tinker
training client cannot be created from one: ``ServiceClient.create_training_client_from_state_with_optimizer(path)``
takes a path ``TrainingClient.save_state(name)`` returned (``tinker://…/weights/…``: the weights and Adam moments;
thinking-machines-lab/tinker @ d595dc2, ``lib/public_interfaces/{training,service}_client.py``, parameters in
tests/fixtures/tinker/datum-contract.json). So after each step the bridge saves the state too and keeps sampler path →
state path in a local JSON file (``TINKER_STATE_FILE``, default ``.tinker/states.json`` in the working directory; one
small entry per step). A restarted bridge looks up the run's newest version (per user: each user's served version)
there; a sampler path it has no state for (another machine, the file removed) trains on from a fresh LoRA, as before.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from typing import Any

log = logging.getLogger("openclaw.tinker.states")


class StateBook:
    def __init__(self, path: str):
        self.path = path
        self._lock = threading.Lock()

    def _read(self) -> dict[str, str]:
        try:
            with open(self.path, encoding="utf-8") as f:
                data = json.load(f)
            return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as err:
            log.warning("ignoring unreadable state book %s: %s", self.path, err)
            return {}

    def get(self, sampler_path: str | None) -> str | None:
        """The state saved with ``sampler_path``'s weights, or None."""
        return self._read().get(sampler_path) if sampler_path else None

    def put(self, sampler_path: str, state_path: str) -> None:
        with self._lock:
            data = self._read()
            data[sampler_path] = state_path
            os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
            tmp = f"{self.path}.tmp"
            with open(tmp, "w", encoding="utf-8") as f:
                json.dump(data, f, indent=0)
            os.replace(tmp, self.path)


def state_book(env: dict[str, str] | os._Environ) -> StateBook | None:
    """The bridge's book (TINKER_SAVE_STATE=0: none, no state saved per step and nothing resumed)."""
    if env.get("TINKER_SAVE_STATE", "1") == "0":
        return None
    return StateBook(env.get("TINKER_STATE_FILE") or os.path.join(os.getcwd(), ".tinker", "states.json"))


def resumed_client(service: Any, states: StateBook | None, sampler_path: str | None) -> Any:
    """A training client resumed from the state saved with ``sampler_path``'s weights, or None: no book,
    no path, or no state saved with it (then a fresh LoRA, and the log says why)."""
    if states is None or sampler_path is None:
        return None
    saved = states.get(sampler_path)
    if saved is None:
        log.warning("no training state saved with %s (another machine, or TINKER_SAVE_STATE=0): training on from the base", sampler_path)
        return None
    log.info("resuming from %s (the state saved with %s, Adam moments included)", saved, sampler_path)
    return service.create_training_client_from_state_with_optimizer(saved)
