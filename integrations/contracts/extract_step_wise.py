#!/usr/bin/env python3
"""Run the fork's ``step_wise`` reward post-processing on fixed cases and record what it returns.

``RolloutManager._post_process_step_wise_rewards`` (``slime/slime/ray/rollout.py``) is plain Python over
``Sample`` objects: this script takes that one method's source out of the commit with ``git show`` + ``ast``,
defines it against a stand-in ``Sample`` (the attributes it reads: ``metadata``, ``group_index``, ``index``,
``loss_mask``, ``remove_sample``) and an ``args`` with ``rewards_normalization`` and ``dynamic_history``,
and runs it on the cases below. The TypeScript port (``server/environments/advantages/stepWise.ts``) is
tested against the output. Standard library only; no third-party source is committed, only the results.

  python3 integrations/contracts/extract_step_wise.py --git-dir /work/.mirror/toininoi+openclaw-rl/repo \\
      --commit f48ac358adf9873b5cb2210f1cb234a52ed8a8a3 --out tests/fixtures/stepwise/fork-cases.json
"""

from __future__ import annotations

import argparse
import ast
import json
import logging
import shlex
import subprocess
import sys
import textwrap
from types import SimpleNamespace
from typing import Any

ROLLOUT = "slime/slime/ray/rollout.py"
METHOD = "_post_process_step_wise_rewards"


def s(group, scores, spans=None, **kw):
    """A case's sample: step scores with default spans [2i, 2i+2) unless given."""
    d = {"group": group, "stepScores": scores, "stepTokenSpans": spans or [[2 * i, 2 * i + 2] for i in range(len(scores))]}
    d.update(kw)
    return d


CASES: list[dict[str, Any]] = [
    {"name": "singleton bucket keeps its raw value", "samples": [s(0, [0.5, 1.0]), s(0, [0.0])]},
    {"name": "groups normalise apart", "samples": [s(0, [2]), s(1, [10]), s(0, [0]), s(1, [4])]},
    {"name": "constant bucket dropped", "samples": [s(1, [1, 0.2]), s(1, [1, -0.2])]},
    {"name": "sample losing every step removed", "samples": [s(2, [0.3]), s(2, [0.3]), s(0, [1]), s(0, [0])]},
    {"name": "all buckets constant: first kept", "samples": [s(3, [1, 5]), s(3, [1, 5])]},
    {
        "name": "outcome-composed scores, explicit indices, a bad span",
        "samples": [
            s(0, [9, 9, 9], spans=[[None, 1], [0, 2], [2, 4]], stepScoresWithOutcome=[1, 2, 3], stepIndices=[0, 2, 4]),
            s(0, [9, 9], stepScoresWithOutcome=[3, 0], stepIndices=[0, 2]),
        ],
    },
    {"name": "empty outcome scores fall back", "samples": [s(0, [0.3], stepScoresWithOutcome=[]), s(0, [0.7])]},
    {"name": "no group index", "samples": [s(None, [1.0, 2.0]), s(None, [3.0, 2.0]), s(None, [])]},
    {"name": "normalisation off", "normalize": False, "samples": [s(0, [0.3]), s(0, [0.3])]},
    {
        "name": "a GRPO group of four, three steps, uneven lengths",
        "samples": [s(5, [0.1, 0.9, -1.0]), s(5, [0.4, 0.9]), s(5, [0.7, 0.9, 1.0, 0.2]), s(5, [1.0])],
    },
]


def show(git_dir: str, commit: str, path: str) -> str:
    return subprocess.run(["git", "-C", git_dir, "show", f"{commit}:{path}"], check=True, capture_output=True, text=True).stdout


def rev(git_dir: str, commit: str) -> str:
    return subprocess.run(["git", "-C", git_dir, "rev-parse", commit + "^{commit}"], check=True, capture_output=True, text=True).stdout.strip()


class Sample:  # the stand-in: only what the method reads and writes
    def __init__(self, index: int, group_index: int | None, metadata: dict[str, Any]):
        self.index = index
        self.group_index = group_index
        self.metadata = metadata
        self.loss_mask = None
        self.remove_sample = False


def load_method(source: str):
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == METHOD:
            code = textwrap.dedent(ast.get_source_segment(source, node))
            ns: dict[str, Any] = {"Sample": Sample, "logger": logging.getLogger("step_wise")}
            exec(compile("from __future__ import annotations\n" + code, f"{ROLLOUT}::{METHOD}", "exec"), ns)
            return ns[METHOD]
    raise SystemExit(f"{METHOD} not found in {ROLLOUT}")


def run_case(method, case: dict[str, Any]) -> dict[str, Any]:
    samples = []
    for i, c in enumerate(case["samples"]):
        meta: dict[str, Any] = {"step_scores": c["stepScores"], "step_token_spans": c["stepTokenSpans"]}
        if "stepScoresWithOutcome" in c:
            meta["step_scores_with_outcome"] = c["stepScoresWithOutcome"]
        if "stepIndices" in c:
            meta["step_indices"] = c["stepIndices"]
        samples.append(Sample(i, c["group"], {"step_wise": meta}))
    manager = SimpleNamespace(args=SimpleNamespace(rewards_normalization=case.get("normalize", True), dynamic_history=False))
    rewards, spans, indices, groups = method(manager, samples)
    return {
        "rewards": rewards,
        "spans": spans,
        "indices": indices,
        "groups": groups,
        "removed": [bool(x.remove_sample) for x in samples],
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--git-dir", required=True)
    ap.add_argument("--commit", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    commit = rev(a.git_dir, a.commit)
    method = load_method(show(a.git_dir, commit, ROLLOUT))
    out = {
        "header": {
            "repository": "toininoi/openclaw-rl (the OpenClaw-RL fork of slime)",
            "commit": commit,
            "source": f"{ROLLOUT}::RolloutManager.{METHOD}",
            "command": "python3 integrations/contracts/extract_step_wise.py "
            + " ".join(shlex.quote(x) for x in ["--git-dir", "<clone>", "--commit", commit, "--out", a.out]),
        },
        "cases": [{**case, "normalize": case.get("normalize", True), "expected": run_case(method, case)} for case in CASES],
    }
    with open(a.out, "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print(f"wrote {len(CASES)} cases to {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
