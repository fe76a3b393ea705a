#!/usr/bin/env python3
"""Extract sgl-router's HTTP route table from its ``src/server.rs`` (``build_app``).

slime starts an ``sglang_router`` in front of its rollout engines and, in OpenClaw-RL's fork, another in
front of the PRM engines (``slime/slime/ray/rollout.py``); the control plane reaches both. Which paths
that router serves is this table: every ``.route("<path>", <method>(<handler>))`` inside ``build_app``;
anything else goes to the ``.fallback(...)`` handler (``sink_handler``: 404).

The router's source is too large to clone here; the input is a copy of ``server.rs`` (or of its
``build_app`` function) read from the recorded repository and commit. Standard library only.

  python3 integrations/contracts/extract_router_routes.py --source <copy of sgl-router/src/server.rs> \\
      --repo sgl-project/sglang --commit 00eb5eb7213c7b75984ef44eae80bda2228d4cfd \\
      --path sgl-router/src/server.rs --out tests/fixtures/sglang/router-routes.json
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import sys
from typing import Any

ROUTE = re.compile(r"\.route\(\s*\"([^\"]+)\"\s*,\s*(get|post|put|delete|patch)\(\s*(\w+)\s*\)\s*,?\s*\)", re.S)
FALLBACK = re.compile(r"\.fallback\(\s*(\w+)\s*\)")


def build_app_body(source: str) -> str:
    """The text of ``fn build_app`` (brace-matched from its signature)."""
    start = source.index("fn build_app(")
    open_brace = source.index("{", source.index(")", start))
    depth = 0
    for i in range(open_brace, len(source)):
        depth += {"{": 1, "}": -1}.get(source[i], 0)
        if depth == 0:
            return source[open_brace : i + 1]
    raise ValueError("unbalanced build_app")


def routes(source: str) -> dict[str, Any]:
    body = build_app_body(source)
    table = [{"path": m.group(1), "method": m.group(2).upper(), "handler": m.group(3)} for m in ROUTE.finditer(body)]
    fallback = FALLBACK.search(body)
    handler = fallback.group(1) if fallback else None
    # sink_handler is `StatusCode::NOT_FOUND.into_response()`.
    return {"routes": table, "fallback": {"handler": handler, "status": 404 if handler == "sink_handler" else None}}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--source", required=True)
    p.add_argument("--repo", required=True)
    p.add_argument("--commit", required=True)
    p.add_argument("--path", required=True)
    p.add_argument("--out", required=True)
    ns = p.parse_args(argv)
    with open(ns.source, encoding="utf-8") as f:
        table = routes(f.read())
    args = argv if argv is not None else sys.argv[1:]
    data = {
        "header": {
            "repository": ns.repo,
            "commit": ns.commit,
            "file": ns.path,
            "function": "build_app",
            "command": "python3 integrations/contracts/extract_router_routes.py " + " ".join(shlex.quote(a) for a in args),
        },
        **table,
    }
    with open(ns.out, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
