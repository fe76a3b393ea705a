#!/usr/bin/env python3
"""Extract the Tinker SDK's ``Datum`` layout: what a training example sent to ``forward_backward`` may hold.

From ``src/tinker/types/`` of thinking-machines-lab/tinker at a commit (``git show`` + ``ast``; nothing is
imported):

* ``datum``: the ``Datum`` dataclass fields (``types/datum.py``) and ``_KEY_TO_TYPE``, the wire dtype of each
  ``loss_fn_inputs`` key given as a plain list (``_maybe_convert_array`` indexes it, so any other key given as
  a list raises ``KeyError``);
* ``tensor_data``: the parameters of ``TensorData.__init__`` (``types/tensor_data.py``);
* ``model_input``: the methods of ``ModelInput`` (``types/_pydantic_types/model_input.py``);
* ``loss_fn_types``: the choices of ``LossFnType`` (``types/loss_fn_type.py``);
* ``sampling_client``: the public methods of ``SamplingClient`` and their parameters
  (``lib/public_interfaces/sampling_client.py``: what the bridge's endpoint calls to sample and to score);
* ``training_client`` and ``service_client``: the same for ``TrainingClient`` and ``ServiceClient``
  (``lib/public_interfaces/training_client.py``, ``service_client.py``: what the bridge trains, saves and resumes with);
* ``types``: for each SDK type the bridge builds (``AdamParams``, ``SamplingParams``) or reads (the responses of
  ``forward_backward``, ``optim_step``, ``save_state``, ``save_weights_for_sampler``, ``sample``), its fields (what a
  constructor takes) and its attributes (the public fields and properties: what a reader may read), from the file
  that defines the class.

The bridge's stand-in SDK (integrations/tinker/tests/fake_tinker.py) reads its dtypes and losses from here.

  python3 integrations/contracts/extract_tinker_datum.py --git-dir <tinker>/.git \\
      --commit d595dc2ba62a1494aa0f452fe1d0dbb7b321b870 --out tests/fixtures/tinker/datum-contract.json
"""

from __future__ import annotations

import argparse
import ast
import json
import shlex
import subprocess
import sys
from typing import Any

TYPES = "src/tinker/types/"
SAMPLING_CLIENT = "src/tinker/lib/public_interfaces/sampling_client.py"
TRAINING_CLIENT = "src/tinker/lib/public_interfaces/training_client.py"
SERVICE_CLIENT = "src/tinker/lib/public_interfaces/service_client.py"


def show(git_dir: str, commit: str, path: str) -> str:
    return subprocess.run(["git", "-C", git_dir, "show", f"{commit}:{path}"], check=True, capture_output=True, text=True).stdout


def rev(git_dir: str, commit: str) -> str:
    return subprocess.run(["git", "-C", git_dir, "rev-parse", commit + "^{commit}"], check=True, capture_output=True, text=True).stdout.strip()


def _class(tree: ast.Module, name: str) -> ast.ClassDef:
    return next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name)


def datum(source: str) -> dict[str, Any]:
    tree = ast.parse(source)
    key_to_type = next(
        ast.literal_eval(n.value) for n in tree.body if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "_KEY_TO_TYPE" for t in n.targets)
    )
    fields = [n.target.id for n in _class(tree, "Datum").body if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)]
    return {"fields": fields, "key_to_type": key_to_type}


def init_params(source: str, cls: str) -> list[str]:
    init = next(n for n in _class(ast.parse(source), cls).body if isinstance(n, ast.FunctionDef) and n.name == "__init__")
    return [a.arg for a in init.args.args[1:] + init.args.kwonlyargs]


def methods(source: str, cls: str) -> list[str]:
    return [n.name for n in _class(ast.parse(source), cls).body if isinstance(n, ast.FunctionDef) and not n.name.startswith("_")]


def method_params(source: str, cls: str) -> dict[str, list[str]]:
    """Each public method's parameters after ``self`` (a staticmethod's all), positional then keyword-only, in order."""
    out: dict[str, list[str]] = {}
    for n in _class(ast.parse(source), cls).body:
        if isinstance(n, ast.FunctionDef) and not n.name.startswith("_"):
            static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in n.decorator_list)
            out[n.name] = [a.arg for a in n.args.args[(0 if static else 1) :] + n.args.kwonlyargs]
    return out


# The SDK types the bridge builds or reads, and the file under src/tinker/types/ that defines each (some are
# re-exported from _pydantic_types/).
TYPE_FILES = {
    "AdamParams": "optim_step_request.py",
    "SamplingParams": "_pydantic_types/sampling_params.py",
    "ForwardBackwardOutput": "forward_backward_output.py",
    "OptimStepResponse": "_pydantic_types/optim_step_response.py",
    "SaveWeightsResponse": "save_weights_response.py",
    "SaveWeightsForSamplerResponse": "_pydantic_types/save_weights_for_sampler_response.py",
    "SampledSequence": "sampled_sequence.py",
    "SampleResponse": "sample_response.py",
}


def type_layout(source: str, cls: str) -> dict[str, list[str]]:
    """A class's annotated fields (in order) and its public attributes: the fields without a leading underscore
    plus the ``property`` / ``cached_property`` methods."""
    body = _class(ast.parse(source), cls).body
    fields = [n.target.id for n in body if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)]
    props = [
        n.name
        for n in body
        if isinstance(n, ast.FunctionDef)
        and any((isinstance(d, ast.Name) and d.id in ("property", "cached_property")) for d in n.decorator_list)
    ]
    return {"fields": fields, "attributes": [f for f in fields if not f.startswith("_")] + props}


def literal_choices(source: str, alias: str) -> list[str]:
    for n in ast.parse(source).body:
        target = n.target if isinstance(n, ast.AnnAssign) else (n.targets[0] if isinstance(n, ast.Assign) else None)
        if isinstance(target, ast.Name) and target.id == alias and isinstance(n.value, ast.Subscript):
            elts = n.value.slice.elts if isinstance(n.value.slice, ast.Tuple) else [n.value.slice]
            return [ast.literal_eval(e) for e in elts]
    raise ValueError(f"no Literal alias {alias}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--git-dir", required=True)
    p.add_argument("--commit", required=True)
    p.add_argument("--repo", default="thinking-machines-lab/tinker")
    p.add_argument("--out", required=True)
    ns = p.parse_args(argv)
    g = lambda path: show(ns.git_dir, ns.commit, TYPES + path)  # noqa: E731
    data = {
        "header": {
            "repository": ns.repo,
            "commit": rev(ns.git_dir, ns.commit),
            "command": "python3 integrations/contracts/extract_tinker_datum.py " + " ".join(shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:])),
        },
        "datum": {"file": TYPES + "datum.py", **datum(g("datum.py"))},
        "tensor_data": {"file": TYPES + "tensor_data.py", "init": init_params(g("tensor_data.py"), "TensorData")},
        "model_input": {"file": TYPES + "_pydantic_types/model_input.py", "methods": methods(g("_pydantic_types/model_input.py"), "ModelInput")},
        "loss_fn_types": {"file": TYPES + "loss_fn_type.py", "choices": literal_choices(g("loss_fn_type.py"), "LossFnType")},
        "sampling_client": {"file": SAMPLING_CLIENT, "methods": method_params(show(ns.git_dir, ns.commit, SAMPLING_CLIENT), "SamplingClient")},
        "training_client": {"file": TRAINING_CLIENT, "methods": method_params(show(ns.git_dir, ns.commit, TRAINING_CLIENT), "TrainingClient")},
        "service_client": {"file": SERVICE_CLIENT, "methods": method_params(show(ns.git_dir, ns.commit, SERVICE_CLIENT), "ServiceClient")},
        "types": {cls: {"file": TYPES + f, **type_layout(g(f), cls)} for cls, f in TYPE_FILES.items()},
    }
    with open(ns.out, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
