"""slime's parsers, walked from their entry points in the sources (argparse_walker.py reads the calls), per
profile: the OpenClaw-RL fork (Megatron and FSDP backends, unknown flags fatal) and upstream slime (three
parsers whose unknown flags are ignored). Standard library only."""

from __future__ import annotations

import argparse
import ast
import os
import subprocess
from typing import Any, NamedTuple

from argparse_walker import Arg, NonLiteral, Parser, Tree, Walker
from slime_sources import apply_patch, git_archive, git_rev


class Profile(NamedTuple):
    parsers: dict[str, Any]
    sources: list[dict[str, Any]]
    notes: list[str]


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


def fork_parsers(ns: argparse.Namespace, commit: str, tmp: str) -> Profile:
    """OpenClaw-RL: its ``slime/`` and vendored ``Megatron-LM/``; one parser per ``--train-backend``."""
    sources: list[dict[str, Any]] = []
    parsers: dict[str, Any] = {}
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
    return Profile(parsers, sources, [])


def upstream_parsers(ns: argparse.Namespace, commit: str, tmp: str) -> Profile:
    """THUDM/slime with the Megatron-LM its Dockerfile pins (and patches); three parsers, unknown flags ignored."""
    sources: list[dict[str, Any]] = []
    parsers: dict[str, Any] = {}
    notes: list[str] = []
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
    return Profile(parsers, sources, notes)
