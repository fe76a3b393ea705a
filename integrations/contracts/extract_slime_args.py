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
      --git-dir /work/.mirror/Gen-Verse+OpenClaw-RL/repo --commit <sha> --out tests/fixtures/slime/openclaw-rl-fork.json
  python3 integrations/contracts/extract_slime_args.py upstream-slime \
      --git-dir /work/.mirror/THUDM+slime/repo --commit <sha> \
      --megatron-git-dir /work/.mirror/NVIDIA+Megatron-LM/repo --megatron-commit <sha from docker/Dockerfile> \
      --out tests/fixtures/slime/upstream-slime.json

The fixture records the repository, commit, files and the exact command in its ``header``. How argparse
calls are read from the sources is argparse_walker.py; this script picks the sources and entry points.
"""

from __future__ import annotations

import argparse
import ast
import io
import json
import os
import shlex
import subprocess
import sys
import tarfile
import tempfile
from typing import Any

from argparse_walker import Arg, NonLiteral, Parser, Tree, Walker

# --------------------------------------------------------------------------------------------- sources


def git_archive(git_dir: str, commit: str, subdir: str, dest: str) -> None:
    """Materialise ``<commit>:<subdir>`` (its Python files) into ``dest``."""
    treeish = f"{commit}:{subdir}" if subdir else commit
    data = subprocess.run(["git", "-C", git_dir, "archive", "--format=tar", treeish], check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        members = [m for m in tar.getmembers() if m.isdir() or m.name.endswith((".py", ".patch"))]
        tar.extractall(dest, members=members)


def git_rev(git_dir: str, commit: str) -> str:
    return subprocess.run(["git", "-C", git_dir, "rev-parse", commit + "^{commit}"], check=True, capture_output=True, text=True).stdout.strip()


def apply_patch(root: str, patch_text: str) -> list[str]:
    """Apply the hunks of ``patch_text`` that touch Python files present under ``root``; return those files."""
    touched = []
    for line in patch_text.splitlines():
        if line.startswith("diff --git a/"):
            path = line.split(" ")[2][2:]
            if path.endswith(".py") and os.path.isfile(os.path.join(root, path)):
                touched.append(path)
    if touched:
        cmd = ["git", "apply", "-p1"] + [f"--include={p}" for p in touched] + ["-"]
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        subprocess.run(cmd, input=patch_text, text=True, cwd=root, check=True, capture_output=True, env=env)
    return touched


# -------------------------------------------------------------------------------------- entry points


def megatron_parser(mtree: Tree, parser: Parser) -> Walker:
    w = Walker([mtree], parser)
    path = mtree.module_path("megatron.training.arguments")
    fn = next(n for n in mtree.parse(path).body if isinstance(n, ast.FunctionDef) and n.name == "add_megatron_arguments")
    w.walk_function(mtree, path, fn)
    return w


def slime_extra_args(stree: Tree, parser: Parser) -> Walker:
    w = Walker([stree], parser)
    path = stree.module_path("slime.utils.arguments")
    fn = next(n for n in stree.parse(path).body if isinstance(n, ast.FunctionDef) and n.name == "get_slime_extra_args_provider")
    inner = next(n for n in fn.body if isinstance(n, ast.FunctionDef) and n.name == "add_slime_arguments")
    w.walk_function(stree, path, inner, [{n.name: n for n in fn.body if isinstance(n, ast.FunctionDef)}])
    return w


def fsdp_dataclass(stree: Tree, parser: Parser) -> Walker:
    """The fork's parse_fsdp_cli: ``--<field>`` for each FSDPArgs field; bool -> store_true; else type=T."""
    w = Walker([stree], parser)
    path = stree.module_path("slime.backends.fsdp_utils.arguments")
    cls = next(n for n in stree.parse(path).body if isinstance(n, ast.ClassDef) and n.name == "FSDPArgs")
    parser.add(Arg(["--config"], "config", "value", "str", None, None, None, None, True, False, w.cite(stree, path, cls), "argparse"))
    for f in w.dataclass_fields(stree, path, cls):
        if f["name"] == "config":
            continue
        try:
            t = w.infer_type(f["ann"], None)["type"]
        except ValueError:
            t = "str"
        name = "--" + f["name"].replace("_", "-")
        if t == "bool":
            parser.add(Arg([name], f["name"], "flag", None, "store_true", None, None, False, True, False, f["source"], "dataclass:FSDPArgs"))
        else:
            d = f["default"]
            parser.add(Arg([name], f["name"], "value", t, None, None, None, d, not isinstance(d, NonLiteral), False, f["source"], "dataclass:FSDPArgs"))
    return w


def pinned_rev(git_dir: str, commit: str) -> str:
    return git_rev(git_dir, commit)


def extract(ns: argparse.Namespace, argv: list[str]) -> dict[str, Any]:
    commit = git_rev(ns.git_dir, ns.commit)
    tmp = tempfile.mkdtemp(prefix="slime-args-")
    sources: list[dict[str, Any]] = []
    parsers: dict[str, Any] = {}
    notes: list[str] = []
    if ns.profile == "openclaw-rl-fork":
        repo = ns.repo or "Gen-Verse/OpenClaw-RL"
        sdir, mdir = os.path.join(tmp, "slime"), os.path.join(tmp, "megatron")
        git_archive(ns.git_dir, commit, "slime", sdir)
        git_archive(ns.git_dir, commit, "Megatron-LM", mdir)
        stree = Tree(sdir, "slime/")
        mtree = Tree(mdir, "Megatron-LM/")
        # --train-backend megatron: megatron.training.arguments.parse_args(extra_args_provider=add_slime_arguments)
        # with ignore_unknown_args=False (slime/slime/backends/megatron_utils/arguments.py) -> unknown flags are fatal.
        p = Parser("megatron")
        w1 = megatron_parser(mtree, p)
        w2 = slime_extra_args(stree, p)
        parsers["megatron"] = {
            "selected_by": "--train-backend megatron (default)",
            "unknown_args": "error",
            "allow_abbrev": False,
            "entry": "slime/slime/utils/arguments.py parse_args -> megatron.training.arguments.parse_args(extra_args_provider=...)",
            **p.to_json(),
        }
        # --train-backend fsdp: slime.backends.fsdp_utils.arguments.load_fsdp_args -> parser.parse_args()
        q = Parser("fsdp")
        w3 = fsdp_dataclass(stree, q)
        w4 = slime_extra_args(stree, q)
        parsers["fsdp"] = {
            "selected_by": "--train-backend fsdp",
            "unknown_args": "error",
            "allow_abbrev": True,
            "entry": "slime/slime/backends/fsdp_utils/arguments.py load_fsdp_args -> parse_fsdp_cli(extra_args_provider) -> parser.parse_args()",
            **q.to_json(),
        }
        files = sorted(w1.files | w2.files | w3.files | w4.files)
        sources.append({"repo": repo, "commit": commit, "files": files})
    elif ns.profile == "upstream-slime":
        repo = ns.repo or "THUDM/slime"
        sdir, mdir = os.path.join(tmp, "slime"), os.path.join(tmp, "megatron")
        git_archive(ns.git_dir, commit, "", sdir)
        mcommit = git_rev(ns.megatron_git_dir, ns.megatron_commit)
        git_archive(ns.megatron_git_dir, mcommit, "", mdir)
        patched: list[str] = []
        if ns.megatron_patch:
            patch = subprocess.run(["git", "-C", ns.git_dir, "show", f"{commit}:{ns.megatron_patch}"], check=True, capture_output=True, text=True).stdout
            patched = apply_patch(mdir, patch)
        stree = Tree(sdir, "")
        mtree = Tree(mdir, "")
        p = Parser("megatron")
        w1 = megatron_parser(mtree, p)
        w2 = slime_extra_args(stree, p)
        # _pre_parse_mode's flags are parsed separately and merged (slime/utils/arguments.py).
        pre = Parser("pre")
        w0 = Walker([stree], pre, skip_receivers=())
        spath = stree.module_path("slime.utils.arguments")
        fn = next(n for n in stree.parse(spath).body if isinstance(n, ast.FunctionDef) and n.name == "_pre_parse_mode")
        w0.walk_function(stree, spath, fn)
        sg = Parser("sglang")
        w5 = Walker([stree], sg)
        gpath = stree.module_path("slime.backends.sglang_utils.arguments")
        gfn = next(n for n in stree.parse(gpath).body if isinstance(n, ast.FunctionDef) and n.name == "sglang_parse_args")
        w5.walk_function(stree, gpath, gfn)
        parsers["pre"] = {
            "unknown_args": "ignored",
            "entry": "slime/utils/arguments.py _pre_parse_mode (parse_known_args)",
            **pre.to_json(),
        }
        parsers["sglang"] = {
            "unknown_args": "ignored",
            "entry": "slime/backends/sglang_utils/arguments.py sglang_parse_args (parse_known_args)",
            **sg.to_json(),
        }
        parsers["megatron"] = {
            "selected_by": "--train-backend megatron (the only choice upstream)",
            "unknown_args": "ignored",
            "allow_abbrev": False,
            "entry": "slime/backends/megatron_utils/arguments.py megatron_parse_args -> megatron.training.arguments.parse_args(..., ignore_unknown_args=True)",
            **p.to_json(),
        }
        notes.append(
            "Upstream parses three times with parse_known_args / ignore_unknown_args=True: a flag absent from "
            "all three parsers is silently ignored, not an error."
        )
        sources.append({"repo": repo, "commit": commit, "files": sorted(w0.files | w2.files | w5.files)})
        sources.append(
            {
                "repo": "NVIDIA/Megatron-LM",
                "commit": mcommit,
                "pinned_by": f"{repo}@{commit}:docker/Dockerfile (ARG MEGATRON_COMMIT)",
                "patch": f"{repo}@{commit}:{ns.megatron_patch}" if ns.megatron_patch else None,
                "patched_files": patched,
                "files": sorted(w1.files),
            }
        )
    else:
        raise SystemExit(f"unknown profile {ns.profile}")
    return {
        "header": {
            "profile": ns.profile,
            "generated_by": "integrations/contracts/extract_slime_args.py (stdlib ast; the sources are read, not imported)",
            "command": ns.command or " ".join(shlex.quote(a) for a in ["python3", "integrations/contracts/extract_slime_args.py", *argv]),
            "sources": sources,
            "notes": notes
            + [
                "external blocks (SGLang ServerArgs.add_cli_args / RouterArgs.add_cli_args) are not expanded: "
                "their flags come from the installed sglang / sglang_router and are checked by the preflight.",
                "'default' is null with default_literal=false when the source default is an expression (see default_expr).",
            ],
        },
        "parsers": parsers,
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
