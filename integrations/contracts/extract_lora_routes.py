#!/usr/bin/env python3
"""Extract the LoRA serving contract of SGLang or vLLM: load/unload routes, their body fields, per-request selection.

Per-user adapters are served by a multi-LoRA engine: the control plane loads a user's adapter after each
training step, unloads it when retired, and names it on every request. What those requests may contain is
read here from the engine's own source with the standard library's ``ast`` (nothing is imported):

- routes: every function decorated with ``<app|router>.api_route(path, methods=[...])`` or
  ``<app|router>.post(path)`` whose path mentions ``lora``, with its body model (the annotation of its
  first parameter);
- models: each body model's fields (annotated class attributes; required = no default), inherited fields
  included when the base class is in the input;
- per-request selection: SGLang's request classes carry a ``lora_path`` field (``GenerateReqInput`` for
  ``/generate``, ``ChatCompletionRequest`` for ``/v1/chat/completions``); vLLM picks the adapter in
  ``_maybe_get_adapters`` by comparing a request attribute (``request.model``) with its loaded adapters;
- scoring (the per-user gate, server/personalization/engineGate.ts): SGLang ``GenerateReqInput``'s ``input_ids``,
  ``return_logprob``, ``logprob_start_len``; vLLM ``CompletionRequest`` (``prompt``, ``echo``, ``logprobs``,
  ``max_tokens``) and the ``/tokenize`` bodies and answer (``TokenizeChatRequest``, ``TokenizeCompletionRequest``,
  ``TokenizeResponse``);
- not loaded: the error a request naming an adapter the engine does not hold gets (SGLang's LoRA registry
  evicts least recently used adapters, so a proxy must recognise it and load again): the f-string's literal
  parts around the adapter's name, and its HTTP status where the source sets one (vLLM's ``_check_model``;
  SGLang raises a ValueError whose status its OpenAI layer decides, 400 or 500 depending on the version).

Input: either whole files (``--file REPO@COMMIT:PATH=LOCAL``, repeatable) or a snapshot of excerpts
(``--snapshot``; sections start with ``### REPO@COMMIT PATH``). The repositories are too large to fetch
here, so the committed fixtures come from the snapshots in ``lora_sources/``.

  python3 integrations/contracts/extract_lora_routes.py sglang \\
      --snapshot integrations/contracts/lora_sources/sglang.snapshot --out tests/fixtures/lora/sglang.json
  python3 integrations/contracts/extract_lora_routes.py vllm \\
      --snapshot integrations/contracts/lora_sources/vllm.snapshot --out tests/fixtures/lora/vllm.json
"""

from __future__ import annotations

import argparse
import ast
import http
import json
import re
import shlex
import sys
import textwrap
from typing import Any

SECTION = re.compile(r"^### (\S+?)@([0-9a-f]{40}) (\S+)(.*)$", re.M)
ROUTE_DECORATORS = {"api_route", "post", "put", "get", "delete"}
MODELS = {
    "sglang": ["LoadLoRAAdapterReqInput", "UnloadLoRAAdapterReqInput", "GenerateReqInput", "ChatCompletionRequest"],
    # The completion and tokenize bodies: the per-user gate scores held-out replies with an adapter (the adapter's
    # name as `model`, echo + logprobs), tokenizing the request with the server's chat template.
    "vllm": [
        "LoadLoRAAdapterRequest",
        "UnloadLoRAAdapterRequest",
        "CompletionRequest",
        "TokenizeCompletionRequest",
        "TokenizeChatRequest",
        "TokenizeResponse",
    ],
}


def sections_from_snapshot(text: str) -> list[dict[str, Any]]:
    marks = list(SECTION.finditer(text))
    if not marks:
        raise ValueError("snapshot has no '### repo@commit path' sections")
    out = []
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        out.append(
            {
                "repository": m.group(1),
                "commit": m.group(2),
                "path": m.group(3),
                "note": m.group(4).strip() or None,
                "source": textwrap.dedent(text[m.end() + 1 : end]),
            }
        )
    return out


def section_from_file(spec: str) -> dict[str, Any]:
    ref, _, local = spec.partition("=")
    m = re.fullmatch(r"(\S+?)@([0-9a-f]{40}):(\S+)", ref)
    if not m or not local:
        raise ValueError(f"--file wants REPO@COMMIT:PATH=LOCAL, got {spec!r}")
    with open(local, encoding="utf-8") as f:
        return {"repository": m.group(1), "commit": m.group(2), "path": m.group(3), "note": None, "source": f.read()}


def _const_str(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def routes(tree: ast.AST) -> list[dict[str, Any]]:
    found = []
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for dec in fn.decorator_list:
            if not (isinstance(dec, ast.Call) and isinstance(dec.func, ast.Attribute)):
                continue
            if dec.func.attr not in ROUTE_DECORATORS or not dec.args:
                continue
            path = _const_str(dec.args[0])
            if path is None or "lora" not in path:
                continue
            methods = [dec.func.attr.upper()]
            for kw in dec.keywords:
                if kw.arg == "methods" and isinstance(kw.value, (ast.List, ast.Tuple)):
                    methods = [s for s in (_const_str(e) for e in kw.value.elts) if s]
            first = fn.args.args[0] if fn.args.args else None
            body = first.annotation.id if first and isinstance(first.annotation, ast.Name) else None
            found.append({"path": path, "methods": methods, "handler": fn.name, "body": body})
    return found


def classes(tree: ast.AST) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        fields = []
        for stmt in node.body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                fields.append(
                    {
                        "name": stmt.target.id,
                        "type": ast.unparse(stmt.annotation),
                        "required": stmt.value is None,
                    }
                )
        bases = [b.id for b in node.bases if isinstance(b, ast.Name)]
        out[node.name] = {"bases": bases, "fields": fields}
    return out


def resolve(name: str, table: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Own fields after inherited ones (a subclass's annotation overrides its base's)."""
    cls = table[name]
    merged: dict[str, dict[str, Any]] = {}
    for base in cls["bases"]:
        if base in table:
            for f in resolve(base, table):
                merged[f["name"]] = f
    for f in cls["fields"]:
        merged[f["name"]] = f
    return list(merged.values())


def adapter_selector(tree: ast.AST) -> dict[str, Any] | None:
    """vLLM: `if request.<attr> in self.models.<registry>:` inside `_maybe_get_adapters`."""
    for fn in ast.walk(tree):
        if not (isinstance(fn, ast.FunctionDef) and fn.name == "_maybe_get_adapters"):
            continue
        for node in ast.walk(fn):
            if (
                isinstance(node, ast.Compare)
                and isinstance(node.ops[0], ast.In)
                and isinstance(node.left, ast.Attribute)
                and isinstance(node.left.value, ast.Name)
                and node.left.value.id == "request"
                and isinstance(node.comparators[0], ast.Attribute)
            ):
                return {"requestField": node.left.attr, "registry": node.comparators[0].attr, "function": fn.name}
    return None


def not_loaded(tree: ast.AST) -> list[dict[str, Any]]:
    """Each f-string that reports an adapter as not loaded: its literal parts, the function, the status if set."""
    found = []
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(fn):
            if not isinstance(node, ast.Call):
                continue
            texts = [a for a in [*node.args, *(k.value for k in node.keywords if k.arg == "message")] if isinstance(a, ast.JoinedStr)]
            for js in texts:
                parts = [v.value for v in js.values if isinstance(v, ast.Constant)]
                joined = "".join(parts)
                if "not loaded" not in joined and "does not exist" not in joined:
                    continue
                status = None
                for k in node.keywords:
                    if k.arg == "status_code" and isinstance(k.value, ast.Attribute):
                        status = http.HTTPStatus[k.value.attr].value
                callee = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
                found.append({"function": fn.name, "raises": callee, "parts": parts, "status": status})
    return found


def extract(system: str, sections: list[dict[str, Any]]) -> dict[str, Any]:
    table: dict[str, dict[str, Any]] = {}
    found_routes: list[dict[str, Any]] = []
    selector = None
    missing = None
    origin: dict[str, int] = {}
    for i, sec in enumerate(sections):
        tree = ast.parse(sec["source"])
        for r in routes(tree):
            found_routes.append({**r, "source": i})
        for name, cls in classes(tree).items():
            table[name] = cls
            origin[name] = i
        selector = selector or (adapter_selector(tree) and {**adapter_selector(tree), "source": i})
        for m in not_loaded(tree):
            # The HTTP answer a client sees (vLLM's _check_model, with its status) over an internal raise.
            if missing is None or (missing["status"] is None and m["status"] is not None):
                missing = {**m, "source": i}
    models = {}
    for name in MODELS[system]:
        if name not in table:
            raise ValueError(f"{system}: class {name} not found in the input")
        models[name] = {"fields": resolve(name, table), "source": origin[name]}
    for r in found_routes:
        if r["body"] and r["body"] not in models and r["body"] in table:
            models[r["body"]] = {"fields": resolve(r["body"], table), "source": origin[r["body"]]}
    per_request: dict[str, Any]
    if system == "sglang":
        per_request = {
            "kind": "field",
            "field": "lora_path",
            "in": [n for n in ("GenerateReqInput", "ChatCompletionRequest") if any(f["name"] == "lora_path" for f in models[n]["fields"])],
        }
    else:
        if selector is None:
            raise ValueError("vllm: _maybe_get_adapters with `request.<field> in ...` not found")
        per_request = {"kind": "select-by-request-field", **selector}
    if missing is None:
        raise ValueError(f"{system}: the not-loaded error was not found in the input")
    return {"routes": found_routes, "models": models, "perRequest": per_request, "notLoaded": missing}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("system", choices=sorted(MODELS))
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--snapshot")
    src.add_argument("--file", action="append")
    p.add_argument("--out", required=True)
    ns = p.parse_args(argv)
    if ns.snapshot:
        with open(ns.snapshot, encoding="utf-8") as f:
            sections = sections_from_snapshot(f.read())
    else:
        sections = [section_from_file(s) for s in ns.file]
    data = extract(ns.system, sections)
    args = argv if argv is not None else sys.argv[1:]
    out = {
        "header": {
            "system": ns.system,
            "sources": [
                {"repository": s["repository"], "commit": s["commit"], "path": s["path"], "note": s["note"]} for s in sections
            ],
            "command": "python3 integrations/contracts/extract_lora_routes.py " + " ".join(shlex.quote(a) for a in args),
        },
        **data,
    }
    with open(ns.out, "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
