#!/usr/bin/env python3
"""Extract how a slime weight update pauses SGLang: the body slime posts, and what SGLang does with it.

Before loading new weights, slime posts ``/pause_generation`` to every rollout engine and
``/continue_generation`` after (``SGLangEngine.pause_generation``/``continue_generation`` in the fork's
``slime/slime/backends/sglang_utils/sglang_engine.py``). SGLang reads that body as
``PauseGenerationReqInput`` (``python/sglang/srt/managers/io_struct.py``), whose ``mode`` field is a
``Literal`` of the pause modes with a default. The fixture records both sides and the mode they resolve to,
so the proxy's weight-update stand-in (tests/fakes/sglangPausable.ts) behaves as that mode does.

Standard library only (``ast``). The fork is read with ``git show`` at each commit; SGLang's source is too
large to clone here, so the input is a copy of ``io_struct.py`` (or of the class) read from the recorded
repository and commit.

  python3 integrations/contracts/extract_sglang_pause.py --git-dir <OpenClaw-RL>/.git \\
      --commit f48ac358adf9873b5cb2210f1cb234a52ed8a8a3 \\
      --io-struct <copy of python/sglang/srt/managers/io_struct.py> \\
      --sglang-commit 001067fffe33427bee0ed2f007fb7551a1d76b44 --out tests/fixtures/sglang/pause-contract.json
"""

from __future__ import annotations

import argparse
import ast
import json
import shlex
import subprocess
import sys
from typing import Any

ENGINE = "slime/slime/backends/sglang_utils/sglang_engine.py"
IO_STRUCT = "python/sglang/srt/managers/io_struct.py"


def show(git_dir: str, commit: str, path: str) -> str:
    return subprocess.run(["git", "-C", git_dir, "show", f"{commit}:{path}"], check=True, capture_output=True, text=True).stdout


def rev(git_dir: str, commit: str) -> str:
    return subprocess.run(["git", "-C", git_dir, "rev-parse", commit + "^{commit}"], check=True, capture_output=True, text=True).stdout.strip()


def pause_modes(source: str) -> dict[str, Any]:
    """``PauseGenerationReqInput.mode``: its ``Literal`` choices and its default."""
    tree = ast.parse(source)
    cls = next(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == "PauseGenerationReqInput")
    for node in cls.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == "mode":
            ann = node.annotation
            if not (isinstance(ann, ast.Subscript) and isinstance(ann.value, ast.Name) and ann.value.id == "Literal"):
                raise ValueError("PauseGenerationReqInput.mode is not a Literal")
            elts = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
            return {"class": cls.name, "choices": [ast.literal_eval(e) for e in elts], "default": ast.literal_eval(node.value)}
    raise ValueError("PauseGenerationReqInput has no mode field")


def engine_posts(source: str) -> dict[str, Any]:
    """Path and JSON body of the ``requests.post`` in ``pause_generation`` and ``continue_generation``."""
    out: dict[str, Any] = {}
    for fn in ast.walk(ast.parse(source)):
        if not (isinstance(fn, ast.FunctionDef) and fn.name in ("pause_generation", "continue_generation")):
            continue
        call = next(
            c
            for c in ast.walk(fn)
            if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and c.func.attr == "post" and isinstance(c.func.value, ast.Name) and c.func.value.id == "requests"
        )
        url = call.args[0]
        # f"http://{host}:{port}/pause_generation": the path is the last literal part.
        tail = url.values[-1] if isinstance(url, ast.JoinedStr) else url
        path = "/" + ast.literal_eval(tail).rsplit("/", 1)[-1]
        body = next((ast.literal_eval(k.value) for k in call.keywords if k.arg == "json"), None)
        out[fn.name] = {"path": path, "json": body, "line": fn.lineno}
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--git-dir", required=True, help="a clone of Gen-Verse/OpenClaw-RL (or its mirror toininoi/openclaw-rl)")
    p.add_argument("--commit", action="append", required=True)
    p.add_argument("--repo", default="Gen-Verse/OpenClaw-RL")
    p.add_argument("--io-struct", required=True, help="a copy of SGLang's io_struct.py (or of the class)")
    p.add_argument("--sglang-repo", default="sgl-project/sglang")
    p.add_argument("--sglang-commit", required=True)
    p.add_argument("--out", required=True)
    ns = p.parse_args(argv)
    with open(ns.io_struct, encoding="utf-8") as f:
        modes = pause_modes(f.read())
    commits = []
    for c in ns.commit:
        posts = engine_posts(show(ns.git_dir, c, ENGINE))
        sent = (posts["pause_generation"]["json"] or {}).get("mode")
        if sent is not None and sent not in modes["choices"]:
            raise ValueError(f"slime pauses with mode {sent!r}, not one of {modes['choices']}")
        commits.append({"commit": rev(ns.git_dir, c), "file": ENGINE, **posts, "resolved_mode": sent if sent is not None else modes["default"]})
    data = {
        "header": {
            "repository": ns.repo,
            "sglang": {"repository": ns.sglang_repo, "commit": ns.sglang_commit, "file": IO_STRUCT},
            "command": "python3 integrations/contracts/extract_sglang_pause.py " + " ".join(shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:])),
        },
        "sglang": modes,
        "slime": commits,
    }
    with open(ns.out, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
