"""Preflight for a slime job, run on the cluster before the real one (seconds, not after the models load).

    python3 -m integrations.slime.preflight --args-file args.json [--min-sglang 0.5.0] [--json-out report.json]

``args.json`` is the generated slime argument list (a JSON array of strings, as the launch preview shows it
without ``python3 train_async.py``; a plain text file is split with shlex). Checks, all of them, each problem
printed as one ``PREFLIGHT PROBLEM:`` line, exit status 1 if there is any:

1. the installed slime imports;
2. slime's own parser accepts the list: ``slime.utils.arguments.parse_args()`` with ``sys.argv`` set to it (the
   real entry point of ``train.py``/``train_async.py``; argparse errors and slime/Megatron validation errors
   are reported, including the fork's ``hf_validate_args``);
3. every ``--flag`` is known to that slime (upstream slime parses with ``parse_known_args`` and drops unknown
   flags silently, e.g. the fork's ``--prm-*``);
4. the checkpoint's ``config.json`` against the architecture arguments, with the comparisons of the fork's
   ``hf_validate_args`` (``slime/slime/utils/arguments.py:1888-1915`` @0d034dd) plus KV heads, head dim and
   vocabulary; all mismatches, not just the first;
5. an HF directory as ``--load``/``--ref-load`` needs ``--megatron-to-hf-mode bridge`` where that flag exists
   (fork ``slime/slime/backends/megatron_utils/checkpoint.py:130``);
6. GPUs per node (Ray's view of the cluster when ``ray`` is importable and a cluster is reachable, else
   ``torch.cuda.device_count()``, else ``nvidia-smi -L``) against ``--num-gpus-per-node``;
7. the SGLang version (``importlib.metadata``, else ``sglang.__version__``) against ``--min-sglang``.

Standard library only; slime, torch and ray are imported if present.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import json
import os
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

# Megatron's defaults for the architecture flags when absent (Megatron-LM/megatron/training/arguments.py).
ARCH_FLAGS: dict[str, tuple[str, Any]] = {
    # flag: (kind, default)
    "--num-layers": ("int", None),
    "--hidden-size": ("int", None),
    "--ffn-hidden-size": ("int", None),
    "--num-attention-heads": ("int", None),
    "--num-query-groups": ("int", 1),
    "--kv-channels": ("int", None),
    "--vocab-size": ("int", None),
    "--norm-epsilon": ("float", 1e-5),
    "--rotary-base": ("int", 10000),
    "--untie-embeddings-and-output-weights": ("flag", False),
    "--group-query-attention": ("flag", False),
}

# (HF config key, flag, how to compare, what the fork/upstream do with it)
ARCH_CHECKS: list[tuple[str, str, str]] = [
    ("hidden_size", "--hidden-size", "eq"),
    ("num_attention_heads", "--num-attention-heads", "eq"),
    ("num_hidden_layers", "--num-layers", "eq"),
    ("intermediate_size", "--ffn-hidden-size", "eq"),
    ("tie_word_embeddings", "--untie-embeddings-and-output-weights", "not"),
    ("rms_norm_eps", "--norm-epsilon", "eq"),
    ("rope_theta", "--rotary-base", "eq"),
    # Not compared by slime, but wrong values load garbage or fail later in Megatron:
    ("num_key_value_heads", "--num-query-groups", "eq"),
    ("head_dim", "--kv-channels", "eq"),
    ("vocab_size", "--vocab-size", "eq"),
]


@dataclass
class Report:
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def problem(self, msg: str) -> None:
        self.problems.append(msg)

    def ok(self, msg: str) -> None:
        self.notes.append(msg)


# ------------------------------------------------------------------------------------------ argv helpers


def load_args_file(path: str) -> list[str]:
    with open(path, encoding="utf-8") as f:
        text = f.read()
    stripped = text.strip()
    if stripped.startswith("["):
        data = json.loads(stripped)
        if not isinstance(data, list) or not all(isinstance(x, str) for x in data):
            raise ValueError(f"{path}: expected a JSON array of strings")
        argv = data
    else:
        argv = shlex.split(text, comments=True)
    # Tolerate a leading interpreter/script (the launch preview's "python3 train_async.py ...").
    while argv and not argv[0].startswith("-"):
        argv = argv[1:]
    return argv


def flag_values(argv: Sequence[str]) -> dict[str, list[str]]:
    """``--flag v1 v2`` → {"--flag": ["v1", "v2"]}; ``--flag=v`` handled; bare flags map to []. Last wins."""
    out: dict[str, list[str]] = {}
    i = 0
    while i < len(argv):
        tok = argv[i]
        if tok.startswith("--"):
            if "=" in tok:
                name, value = tok.split("=", 1)
                out[name] = [value]
                i += 1
                continue
            vals = []
            j = i + 1
            while j < len(argv) and not (argv[j].startswith("--") and len(argv[j]) > 2):
                vals.append(argv[j])
                j += 1
            out[tok] = vals
            i = j
        else:
            i += 1
    return out


def _num(kind: str, raw: str) -> Any:
    return int(raw) if kind == "int" else float(raw)


def arch_value(flags: dict[str, list[str]], flag: str) -> Any:
    kind, default = ARCH_FLAGS[flag]
    if flag not in flags:
        return default
    if kind == "flag":
        return True
    vals = flags[flag]
    if not vals:
        return default
    try:
        return _num(kind, vals[0])
    except ValueError:
        return vals[0]


# ------------------------------------------------------------------------------------------- the checks


def check_import(report: Report) -> Any:
    try:
        mod = importlib.import_module("slime.utils.arguments")
    except Exception as err:  # ImportError, or a dependency failing at import time
        report.problem(f"cannot import slime.utils.arguments ({type(err).__name__}: {err}); is slime installed on this node?")
        return None
    report.ok(f"slime imported from {getattr(mod, '__file__', '?')}")
    return mod


def check_parse(report: Report, mod: Any, argv: list[str]) -> Any:
    """Run slime's own parse_args on argv; return the namespace or None."""
    entry = getattr(mod, "parse_args", None)
    if entry is None:
        report.problem("slime.utils.arguments has no parse_args: unsupported slime version")
        return None
    old_argv = sys.argv
    sys.argv = ["train_async.py", *argv]
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            ns = entry()
        report.ok("slime's parse_args accepted the argument list")
        return ns
    except SystemExit as exc:
        lines = [ln for ln in err.getvalue().splitlines() if ln.strip()]
        report.problem(f"slime's parser rejected the arguments (exit {exc.code}): {lines[-1] if lines else 'no message'}")
    except Exception as exc:
        report.problem(f"slime's parse_args failed: {type(exc).__name__}: {exc}")
    finally:
        sys.argv = old_argv
    return None


def known_options(mod: Any, backend: str) -> set[str] | None:
    """Every option string slime would register for this backend (None if it cannot be built here)."""
    provider_factory = getattr(mod, "get_slime_extra_args_provider", None)
    if provider_factory is None:
        return None
    opts: set[str] = set()
    try:
        p = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
        if backend == "megatron":
            margs = importlib.import_module("megatron.training.arguments")
            margs.add_megatron_arguments(p)
        else:
            fsdp = importlib.import_module("slime.backends.fsdp_utils.arguments")
            import dataclasses

            for f in dataclasses.fields(fsdp.FSDPArgs):
                opts.add("--" + f.name.replace("_", "-"))
        provider_factory()(p)
        opts |= set(p._option_string_actions)
    except Exception:
        return None
    # Upstream slime parses SGLang's flags and a few mode flags in separate parsers (parse_known_args).
    if hasattr(mod, "_pre_parse_mode"):
        opts |= {"--train-backend", "--debug-rollout-only", "--debug-train-only", "--load-debug-rollout-data"}
    if not any(o.startswith("--sglang-") and o not in ("--sglang-router-ip", "--sglang-router-port") for o in opts):
        try:
            sg = importlib.import_module("slime.backends.sglang_utils.arguments")
            q = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
            sg.add_sglang_arguments(q)
            opts |= set(q._option_string_actions)
        except Exception:
            pass
    return opts


def check_unknown(report: Report, mod: Any, argv: list[str]) -> None:
    flags = flag_values(argv)
    backend = (flags.get("--train-backend") or ["megatron"])[0]
    opts = known_options(mod, backend)
    if opts is None:
        report.ok("could not rebuild slime's option list here; unknown-flag check skipped")
        return
    unknown = [f for f in flags if f not in opts]
    for f in unknown:
        report.problem(f"{f} is not an argument of this slime ({backend} backend): it would be rejected or silently ignored")
    if not unknown:
        report.ok(f"all {len(flags)} flags are known to this slime")


def hf_config(path: str) -> dict[str, Any] | None:
    cfg_path = os.path.join(path, "config.json")
    if not os.path.isfile(cfg_path):
        return None
    with open(cfg_path, encoding="utf-8") as f:
        cfg = json.load(f)
    # Multimodal configs keep the language model under text_config (slime does the same).
    if isinstance(cfg.get("text_config"), dict):
        cfg = {**cfg, **cfg["text_config"]}
    rope = cfg.get("rope_parameters") or cfg.get("rope_scaling")
    if "rope_theta" not in cfg and isinstance(rope, dict) and "rope_theta" in rope:
        cfg["rope_theta"] = rope["rope_theta"]
    return cfg


def check_architecture(report: Report, argv: list[str]) -> None:
    flags = flag_values(argv)
    backend = (flags.get("--train-backend") or ["megatron"])[0]
    ckpt = (flags.get("--hf-checkpoint") or [None])[0]
    if not ckpt:
        report.problem("--hf-checkpoint is missing")
        return
    cfg = hf_config(ckpt)
    if cfg is None:
        report.problem(f"{ckpt}/config.json not found on this node (shared storage mounted at the same path?)")
        return
    if backend != "megatron":
        report.ok("FSDP backend: architecture is read from the checkpoint, no Megatron flags needed")
        return
    bad = 0
    for key, flag, how in ARCH_CHECKS:
        if key not in cfg:
            continue
        want = cfg[key]
        have = arch_value(flags, flag)
        if how == "not":
            ok = bool(want) != bool(have)
            expect = "absent" if want else "present"
            if not ok:
                bad += 1
                report.problem(f"config.json {key}={want} but {flag} is {'present' if have else 'absent'}: it must be {expect}")
            continue
        if isinstance(want, float) or isinstance(have, float):
            ok = have is not None and abs(float(want) - float(have)) <= 1e-12 * max(1.0, abs(float(want)))
        else:
            ok = want == have
        if not ok:
            bad += 1
            shown = f"{flag} {have}" if flag in flags else f"{flag} absent (Megatron default {have})"
            report.problem(f"config.json {key}={want} but {shown}: pass {flag} {want}")
    heads, groups = cfg.get("num_attention_heads"), cfg.get("num_key_value_heads")
    if heads and groups and heads != groups and "--group-query-attention" not in flags:
        bad += 1
        report.problem(f"config.json has {groups} KV heads for {heads} attention heads: pass --group-query-attention")
    if not bad:
        report.ok(f"architecture flags match {ckpt}/config.json")


def _is_megatron_checkpoint(path: str) -> bool:
    return os.path.isfile(os.path.join(path, "latest_checkpointed_iteration.txt")) or os.path.basename(path.rstrip("/")).startswith("iter_")


def check_load_mode(report: Report, mod: Any, argv: list[str]) -> None:
    flags = flag_values(argv)
    if (flags.get("--train-backend") or ["megatron"])[0] != "megatron":
        return
    opts = known_options(mod, "megatron") if mod is not None else None
    has_bridge_flag = opts is None or "--megatron-to-hf-mode" in opts
    if not has_bridge_flag:
        return  # upstream slime converts HF weights itself
    mode = (flags.get("--megatron-to-hf-mode") or ["raw"])[0]
    for flag in ("--load", "--ref-load"):
        path = (flags.get(flag) or [None])[0]
        if not path or not os.path.isdir(path):
            continue
        if not _is_megatron_checkpoint(path) and os.path.isfile(os.path.join(path, "config.json")) and mode != "bridge":
            report.problem(
                f"{flag} {path} is a Hugging Face directory: this slime loads it only with --megatron-to-hf-mode bridge "
                "(\"Only bridge mode is supported for loading HF checkpoint\"), or convert it to torch_dist"
            )


def ray_gpus_per_node() -> list[int] | None:
    try:
        ray = importlib.import_module("ray")
    except Exception:
        return None
    try:
        if not ray.is_initialized():
            ray.init(address=os.environ.get("RAY_ADDRESS", "auto"), log_to_driver=False, logging_level="ERROR")
        return [int(n.get("Resources", {}).get("GPU", 0)) for n in ray.nodes() if n.get("Alive")]
    except Exception:
        return None


def local_gpu_count() -> int | None:
    try:
        torch = importlib.import_module("torch")
        return int(torch.cuda.device_count())
    except Exception:
        pass
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=20)
        if out.returncode == 0:
            return sum(1 for ln in out.stdout.splitlines() if ln.startswith("GPU "))
    except Exception:
        pass
    return None


def check_gpus(report: Report, argv: list[str], cluster: Callable[[], list[int] | None] = ray_gpus_per_node, local: Callable[[], int | None] = local_gpu_count) -> None:
    flags = flag_values(argv)
    try:
        per_node = int((flags.get("--num-gpus-per-node") or ["8"])[0])
        actor = int((flags.get("--actor-num-nodes") or ["1"])[0]) * int((flags.get("--actor-num-gpus-per-node") or ["8"])[0])
        total = actor + int((flags.get("--rollout-num-gpus") or ["0"])[0]) + (int((flags.get("--prm-num-gpus") or ["0"])[0]) if "--prm-enable" in flags else 0)
        # The in-job PRM teacher (fork f48ac35: enabled by --prm-teacher-load, --prm-teacher-num-gpus default 1).
        total += int((flags.get("--prm-teacher-num-gpus") or ["1"])[0]) if "--prm-teacher-load" in flags else 0
    except ValueError as err:
        report.problem(f"GPU counts are not integers: {err}")
        return
    if "--colocate" in flags:
        total = actor
    nodes = cluster()
    if nodes:
        short = [i for i, n in enumerate(nodes) if n < per_node]
        if short:
            report.problem(f"--num-gpus-per-node {per_node} but Ray node(s) {short} have {[nodes[i] for i in short]} GPUs")
        if sum(nodes) < total:
            report.problem(f"the split needs {total} GPUs, the Ray cluster has {sum(nodes)} ({nodes})")
        if not short and sum(nodes) >= total:
            report.ok(f"Ray cluster GPUs per node {nodes} fit {total} GPUs at {per_node} per node")
        return
    n = local()
    if n is None:
        report.problem("cannot count GPUs on this node (no ray cluster, torch or nvidia-smi)")
    elif n < per_node:
        report.problem(f"--num-gpus-per-node {per_node} but this node has {n} GPU(s)")
    else:
        report.ok(f"this node has {n} GPU(s) (Ray cluster not reachable: other nodes not checked)")


def _version_tuple(v: str) -> tuple[int, ...]:
    parts = []
    for p in v.replace("-", ".").split("."):
        digits = "".join(ch for ch in p if ch.isdigit())
        if not digits:
            break
        parts.append(int(digits))
        if not p.isdigit():
            break
    return tuple(parts)


def sglang_version() -> str | None:
    try:
        from importlib import metadata

        return metadata.version("sglang")
    except Exception:
        pass
    try:
        return str(importlib.import_module("sglang").__version__)
    except Exception:
        return None


def check_sglang(report: Report, minimum: str | None, version: Callable[[], str | None] = sglang_version) -> None:
    v = version()
    if v is None:
        report.problem("SGLang is not installed on this node (the rollout and PRM engines need it)")
        return
    if minimum and _version_tuple(v) < _version_tuple(minimum):
        report.problem(f"SGLang {v} is older than the required {minimum}")
        return
    report.ok(f"SGLang {v}")


def run(argv: list[str], min_sglang: str | None = None) -> Report:
    report = Report()
    mod = check_import(report)
    if mod is not None:
        check_parse(report, mod, argv)
        check_unknown(report, mod, argv)
    check_architecture(report, argv)
    check_load_mode(report, mod, argv)
    check_gpus(report, argv)
    check_sglang(report, min_sglang)
    return report


def main(cli: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m integrations.slime.preflight", description=__doc__.split("\n\n")[0])
    ap.add_argument("--args-file", required=True, help="JSON array (or shell text) of the slime arguments to check")
    ap.add_argument("--min-sglang", default=None, help="lowest acceptable SGLang version, e.g. 0.5.0")
    ap.add_argument("--json-out", default=None, help="also write the report as JSON here")
    ns = ap.parse_args(cli)
    try:
        argv = load_args_file(ns.args_file)
    except (OSError, ValueError) as err:
        print(f"PREFLIGHT PROBLEM: cannot read {ns.args_file}: {err}")
        return 1
    report = run(argv, ns.min_sglang)
    for line in report.notes:
        print(f"PREFLIGHT OK: {line}")
    for line in report.problems:
        print(f"PREFLIGHT PROBLEM: {line}")
    print(f"PREFLIGHT {'FAILED' if report.problems else 'PASSED'}: {len(report.problems)} problem(s)")
    if ns.json_out:
        with open(ns.json_out, "w", encoding="utf-8") as f:
            json.dump({"ok": not report.problems, "problems": report.problems, "notes": report.notes}, f, indent=1)
    sys.stdout.flush()
    return 1 if report.problems else 0


if __name__ == "__main__":
    sys.exit(main())
