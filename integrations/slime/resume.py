"""Restart a bridge-mode slime job from its latest saved checkpoint, not from the base weights.

In the fork, ``--megatron-to-hf-mode bridge`` (how a Hugging Face ``--ref-load`` is loaded) sets
``args.load = args.ref_load or args.hf_checkpoint`` when ``--load`` is absent and always
``args.start_rollout_id = 0`` (``slime/slime/utils/arguments.py:1815-1818`` @f48ac35), so a restarted job
would train the base weights again. ``load_checkpoint`` loads a Megatron checkpoint whenever ``args.load``
holds ``latest_checkpointed_iteration.txt`` (``slime/slime/backends/megatron_utils/checkpoint.py``), so:

* ``python3 -m integrations.slime.resume train_async.py <args>`` (the generated entrypoint in bridge mode with
  ``--save``) runs ``python3 train_async.py <args>`` plus ``--load <save>`` once ``--save`` holds a checkpoint;
* the rollout function numbers its rollouts on from that checkpoint (``rollout_offset``): slime restarts them
  at 0, the checkpoint saved after rollout ``k`` says ``k``, and leases, acknowledgements and metrics go on
  from ``k + 1``.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Callable, Sequence

MARKER = "latest_checkpointed_iteration.txt"


def _value(argv: Sequence[str], flag: str) -> str | None:
    """The value of the last ``flag`` (argparse keeps the last occurrence)."""
    found = None
    for i, a in enumerate(argv[:-1]):
        if a == flag:
            found = argv[i + 1]
    return found


def saved_iteration(save_dir: str | None, read: Callable[[str], str | None] | None = None) -> int | None:
    """The iteration of the latest checkpoint under ``save_dir`` (Megatron's marker file), or None."""
    if not save_dir:
        return None
    path = os.path.join(save_dir, MARKER)
    if read is None:
        if not os.path.isfile(path):
            return None
        with open(path, encoding="utf-8") as f:
            text: str | None = f.read()
    else:
        text = read(path)
    try:
        return int((text or "").strip())
    except ValueError:
        return None  # "release" or unreadable: not a training checkpoint of this job


def resume_argv(argv: Sequence[str], read: Callable[[str], str | None] | None = None) -> list[str]:
    """``argv`` with ``--load <save>`` when it trains in bridge mode and ``--save`` holds a checkpoint."""
    out = list(argv)
    save = _value(out, "--save")
    if _value(out, "--megatron-to-hf-mode") != "bridge" or "--load" in out:
        return out
    return out + ["--load", save] if saved_iteration(save, read) is not None else out


def rollout_offset(args: Any, read: Callable[[str], str | None] | None = None) -> int:
    """How far to shift slime's rollout ids: ``k + 1`` when a bridge-mode job resumed from the checkpoint of
    rollout ``k`` (slime itself restarts at 0), else 0."""
    if getattr(args, "megatron_to_hf_mode", None) != "bridge" or int(getattr(args, "start_rollout_id", 0) or 0) != 0:
        return 0
    load, save = getattr(args, "load", None), getattr(args, "save", None)
    if not load or load != save:
        return 0
    iteration = saved_iteration(save, read)
    return iteration + 1 if iteration is not None else 0


def main(argv: list[str] | None = None) -> int:
    args = resume_argv(sys.argv[1:] if argv is None else argv)
    os.execvp(sys.executable, [sys.executable, *args])
    return 0  # not reached


if __name__ == "__main__":
    sys.exit(main())
