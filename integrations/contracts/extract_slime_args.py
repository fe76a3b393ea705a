#!/usr/bin/env python3
"""Extract slime's command-line contract (flag names, dests, types, actions, choices, defaults) from its source.

Standard library only: the source is read with ``ast``, never imported, so neither torch, Megatron,
SGLang nor slime need be installed. It follows the same call graph slime's ``parse_args`` does:

* Megatron-LM ``megatron/training/arguments.py``: ``add_megatron_arguments`` and every ``_add_*`` helper
  it calls, including the dataclass-driven groups built by ``ArgumentGroupFactory(Config).build_group``
  (emulated from ``megatron/training/argument_utils.py``: Optional[T] -> T, list[T] -> nargs '+',
  Literal -> choices, Enum -> choices by member name, bool -> store_true when the default is False and
  ``--no-x``/``--disable-x`` store_false otherwise, ``argparse_meta`` metadata last);
* slime ``slime/utils/arguments.py``: ``get_slime_extra_args_provider`` with its nested ``add_*``
  helpers, ``reset_arg`` (changes the default of an existing flag, adds it otherwise), and what it pulls
  in from other slime modules (``add_sglang_arguments`` ...);
* the fork's FSDP backend: the ``FSDPArgs`` dataclass as ``parse_fsdp_cli`` turns it into flags.

SGLang's own ``ServerArgs.add_cli_args`` (re-exported by slime as ``--sglang-<flag>``) and the SGLang
router's ``RouterArgs.add_cli_args`` live in other repositories; they are recorded as *external* blocks
(with slime's skip list), not expanded.

Sources are read from a git directory at a commit (``git archive``), optionally with a patch applied
(upstream slime's Docker image patches Megatron-LM). Two profiles exist:

  python3 integrations/contracts/extract_slime_args.py openclaw-rl-fork \
      --git-dir <path-to-checkout>/OpenClaw-RL/.git --commit <sha> --out tests/fixtures/slime/openclaw-rl-fork.json
  python3 integrations/contracts/extract_slime_args.py upstream-slime \
      --git-dir <path-to-checkout>/slime/.git --commit <sha> \
      --megatron-git-dir <path-to-checkout>/Megatron-LM/.git --megatron-commit <sha from docker/Dockerfile> \
      --out tests/fixtures/slime/upstream-slime.json

The fixture records the repository, commit, files and the exact command in its ``header``. This script is
the command line and the fixture's header; the work is in three modules beside it: slime_sources.py (a
commit's files, a patch applied), slime_parsers.py (each profile's parsers from their entry points) and
argparse_walker.py (how argparse calls are read from the sources).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import tempfile
from typing import Any

from slime_parsers import fork_parsers, upstream_parsers
from slime_sources import git_rev

PROFILES = {"openclaw-rl-fork": fork_parsers, "upstream-slime": upstream_parsers}


def extract(ns: argparse.Namespace, argv: list[str]) -> dict[str, Any]:
    commit = git_rev(ns.git_dir, ns.commit)
    profile = PROFILES[ns.profile](ns, commit, tempfile.mkdtemp(prefix="slime-args-"))
    return {
        "header": {
            "profile": ns.profile,
            "generated_by": "integrations/contracts/extract_slime_args.py (stdlib ast; the sources are read, not imported)",
            "command": ns.command or " ".join(shlex.quote(a) for a in ["python3", "integrations/contracts/extract_slime_args.py", *argv]),
            "sources": profile.sources,
            "notes": profile.notes
            + [
                "external blocks (SGLang ServerArgs.add_cli_args / RouterArgs.add_cli_args) are not expanded: "
                "their flags come from the installed sglang / sglang_router and are checked by the preflight.",
                "'default' is null with default_literal=false when the source default is an expression (see default_expr).",
            ],
        },
        "parsers": profile.parsers,
    }


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("profile", choices=["openclaw-rl-fork", "upstream-slime"])
    ap.add_argument("--git-dir", required=True, help="git directory of the slime (or OpenClaw-RL) repository")
    ap.add_argument("--commit", default="HEAD")
    ap.add_argument("--repo", default=None, help="owner/name recorded in the header")
    ap.add_argument("--megatron-git-dir", help="upstream profile: NVIDIA/Megatron-LM git directory")
    ap.add_argument("--megatron-commit", help="upstream profile: the commit slime's docker/Dockerfile pins")
    ap.add_argument("--megatron-patch", default=None, help="upstream profile: path (in the slime repo) of the Megatron patch to apply")
    ap.add_argument("--command", default=None, help="override the command recorded in the header")
    ap.add_argument("--out", required=True)
    ns = ap.parse_args(argv)
    data = extract(ns, argv)
    os.makedirs(os.path.dirname(os.path.abspath(ns.out)), exist_ok=True)
    with open(ns.out, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1, sort_keys=False)
        f.write("\n")
    for name, p in data["parsers"].items():
        print(f"{ns.profile}/{name}: {p['count']} args, {len(p.get('conflicts', []))} conflicts, {len(p.get('external', []))} external", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
