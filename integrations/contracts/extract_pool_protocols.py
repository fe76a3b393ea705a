#!/usr/bin/env python3
"""Extract the HTTP protocols of OpenClaw-RL's remote environment pools from the fork's source.

terminal-rl, swe-rl and gui-rl keep environments on other machines behind small HTTP servers; the console's
`remote-pool` provider speaks those protocols unchanged. This script reads each server with the standard
library's ``ast`` (nothing is imported, so no FastAPI/Flask/Docker is needed) at a pinned commit of a git
directory and writes, per route: method, path, the request fields the handler reads (with their default when
``data.get("x", default)`` gives one, and whether a missing one is answered 400), and every JSON response the
handler can return (its keys, the literal value of ``ok``, the HTTP status). A ``**result`` spread or a bare
``return jsonify(result)`` is resolved through the pool method that produced ``result``: the keys of the dict
literals it returns, or, for swe's pool, the exec server route it forwards to (``_post_exec(f"{...}/container/
exec", ...)``). Also recorded: the error codes of capacity refusals and the messages of unknown-lease errors,
which a client must recognise.

  python3 integrations/contracts/extract_pool_protocols.py --git-dir <toininoi/openclaw-rl>/.git \\
      --commit f48ac358adf9873b5cb2210f1cb234a52ed8a8a3 --out-dir tests/fixtures/pools
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shlex
import subprocess
import sys
from typing import Any

# Each protocol: the pool server (what the console talks to) and, for swe, the exec server behind it.
PROTOCOLS = {
    "terminal": {"server": "terminal-rl/remote/pool_server.py", "client": "terminal-rl/env_client.py"},
    "swe": {
        "server": "swe-rl/server/swe_env_pool_server.py",
        "client": "swe-rl/swe_env_client.py",
        "backend": "swe-rl/server/swe_exec_server.py",
    },
    "gui": {"server": "gui-rl/env_pool_server.py", "client": "gui-rl/env_client.py"},
}
ROUTE_DECORATORS = {"get", "post", "put", "delete"}
RESPONSE_CALLS = {"JSONResponse", "jsonify"}


def git_show(git_dir: str, commit: str, path: str) -> str:
    return subprocess.run(
        ["git", "--git-dir", git_dir, "show", f"{commit}:{path}"], check=True, capture_output=True, text=True
    ).stdout


def literal(node: ast.AST) -> Any:
    try:
        return ast.literal_eval(node)
    except ValueError:
        return {"expr": ast.unparse(node)}


def call_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Await):
        node = node.value
    if not isinstance(node, ast.Call):
        return None
    f = node.func
    if isinstance(f, ast.Name):
        return f.id
    if isinstance(f, ast.Attribute):
        return f.attr
    return None


def route_of(fn: ast.AST) -> tuple[str, str] | None:
    for d in getattr(fn, "decorator_list", []):
        if (
            isinstance(d, ast.Call)
            and isinstance(d.func, ast.Attribute)
            and d.func.attr in ROUTE_DECORATORS
            and isinstance(d.func.value, ast.Name)
            and d.func.value.id == "app"
            and d.args
            and isinstance(d.args[0], ast.Constant)
        ):
            return d.func.attr.upper(), d.args[0].value
    return None


def class_methods(tree: ast.Module) -> dict[str, ast.AST]:
    """Methods of every class in the module, by name (the pool classes; names do not collide in these files)."""
    out: dict[str, ast.AST] = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    out[item.name] = item
    return out


def request_fields(fn: ast.AST) -> dict[str, dict[str, Any]]:
    """``data.get("x"[, default])`` and ``data["x"]`` reads of the request body (also nested ``tool_call.get``)."""
    fields: dict[str, dict[str, Any]] = {}
    bound: dict[str, str] = {}  # local name -> field it holds
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            v = node.value
            if isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr == "get":
                owner = v.func.value
                if isinstance(owner, ast.Name) and v.args and isinstance(v.args[0], ast.Constant):
                    # `tool_name = tool_call.get("name")` reads a field nested in another one.
                    prefix = f"{bound[owner.id]}." if owner.id in bound else ""
                    bound[node.targets[0].id] = prefix + v.args[0].value
    for node in ast.walk(fn):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"):
            continue
        owner = node.func.value
        if not (isinstance(owner, ast.Name) and node.args and isinstance(node.args[0], ast.Constant)):
            continue
        name = node.args[0].value
        if owner.id == "data":
            key = name
        elif owner.id in bound:
            key = f"{bound[owner.id]}.{name}"
        else:
            continue
        entry = fields.setdefault(key, {"required": False})
        if len(node.args) > 1:
            entry["default"] = literal(node.args[1])
    # A field is required when a test on it leads to a 400 answer.
    for node in ast.walk(fn):
        if not isinstance(node, ast.If):
            continue
        if not any(status_of_return(r) == 400 for r in node.body if isinstance(r, ast.Return)):
            continue
        # `x is not None and not isinstance(x, dict)` checks an optional field's type, not its presence.
        optional = {
            c.left.id
            for c in ast.walk(node.test)
            if isinstance(c, ast.Compare)
            and isinstance(c.left, ast.Name)
            and isinstance(c.ops[0], ast.IsNot)
            and isinstance(c.comparators[0], ast.Constant)
            and c.comparators[0].value is None
        }
        for name in ast.walk(node.test):
            if isinstance(name, ast.Name) and name.id in optional:
                continue
            if isinstance(name, ast.Name) and name.id in bound:
                fields[bound[name.id]]["required"] = True
            if isinstance(name, ast.Name) and name.id in fields:
                fields[name.id]["required"] = True
    return dict(sorted(fields.items()))


def status_of_return(ret: ast.Return) -> int | None:
    v = ret.value
    if isinstance(v, ast.Dict):
        return 200  # FastAPI serialises a returned dict with 200
    if isinstance(v, ast.Tuple) and len(v.elts) == 2 and isinstance(v.elts[1], ast.Constant):
        return v.elts[1].value
    if isinstance(v, ast.Call) and call_name(v) == "JSONResponse":
        for kw in v.keywords:
            if kw.arg == "status_code" and isinstance(kw.value, ast.Constant):
                return kw.value.value
        return 200
    if isinstance(v, ast.Call) and call_name(v) == "jsonify":
        return 200
    return None


def dict_keys(d: ast.Dict) -> tuple[list[str], list[str], Any]:
    keys, spreads, ok = [], [], None
    for k, v in zip(d.keys, d.values):
        if k is None and isinstance(v, ast.Name):
            spreads.append(v.id)
        elif isinstance(k, ast.Constant):
            keys.append(k.value)
            if k.value == "ok":
                ok = literal(v)
    return keys, spreads, ok


def returned_dicts(method: ast.AST) -> list[list[str]]:
    out = []
    for node in ast.walk(method):
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Dict):
            out.append(sorted(dict_keys(node.value)[0]))
    return out


def forwarded_route(method: ast.AST) -> str | None:
    """The path of ``_post_exec(f"{node.url}/container/x", ...)`` a pool method returns (swe forwards)."""
    for node in ast.walk(method):
        if isinstance(node, ast.Return) and call_name(node.value) in {"_post_exec", "_get_exec"}:
            url = node.value.args[0]
            if isinstance(url, ast.JoinedStr) and isinstance(url.values[-1], ast.Constant):
                return url.values[-1].value
    return None


def responses(fn: ast.AST, methods: dict[str, ast.AST], backend: dict[str, Any] | None) -> list[dict[str, Any]]:
    produced: dict[str, str] = {}  # local name -> pool method that produced it
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = call_name(node.value)
            if name in methods:
                produced[node.targets[0].id] = name
    out: list[dict[str, Any]] = []
    for node in ast.walk(fn):
        if not isinstance(node, ast.Return):
            continue
        status = status_of_return(node)
        call = node.value.elts[0] if isinstance(node.value, ast.Tuple) else node.value
        if isinstance(call, ast.Dict):
            body: ast.AST = call
        elif call_name(call) in RESPONSE_CALLS and call.args:
            body = call.args[0]
        else:
            continue
        entry: dict[str, Any] = {"status": status}
        if isinstance(body, ast.Dict):
            keys, spreads, ok = dict_keys(body)
            for s in spreads:
                method = methods.get(produced.get(s, ""))
                shapes = returned_dicts(method) if method else []
                keys += sorted({k for shape in shapes for k in shape})
            entry.update({"ok": ok, "keys": sorted(set(keys))})
        elif isinstance(body, ast.Name) and body.id in produced:
            method = methods[produced[body.id]]
            target = forwarded_route(method)
            entry["forwarded_to"] = target
            if backend and target in backend:
                entry["keys"] = sorted({k for r in backend[target]["responses"] for k in r.get("keys", [])})
        out.append(entry)
    # One entry per distinct (status, ok, keys).
    unique = {json.dumps(e, sort_keys=True): e for e in out}
    return sorted(unique.values(), key=lambda e: (e["status"] or 0, json.dumps(e, sort_keys=True)))


def capacity_codes(tree: ast.Module) -> list[str]:
    codes = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and call_name(node.exc) == "CapacityError":
            codes.add(node.exc.args[0].value)
    return sorted(codes)


def capacity_messages(tree: ast.Module) -> list[str]:
    """swe and gui refuse a full pool with a RuntimeError (answered 500): the constant start of each one
    raised on the allocate path whose text says the pool is full or exhausted."""
    out = set()
    methods = class_methods(tree)
    for name in ("allocate", "_pick_and_reserve_node"):
        for node in ast.walk(methods.get(name, ast.Module(body=[], type_ignores=[]))):
            if isinstance(node, ast.Raise) and call_name(node.exc) == "RuntimeError" and node.exc.args:
                msg = node.exc.args[0]
                first = msg.values[0] if isinstance(msg, ast.JoinedStr) else msg
                if isinstance(first, ast.Constant) and any(w in first.value.lower() for w in ("full", "exhausted")):
                    out.add(first.value.strip())
    return sorted(out)


def unknown_lease_messages(tree: ast.Module) -> list[str]:
    """The constant start of every ``KeyError(f"...")`` message: what an expired or unknown lease answers."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and call_name(node.exc) == "KeyError" and node.exc.args:
            msg = node.exc.args[0]
            if isinstance(msg, ast.JoinedStr) and isinstance(msg.values[0], ast.Constant):
                out.add(msg.values[0].value.strip())
    return sorted(out)


def lease_id_prefixes(tree: ast.Module) -> list[str]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr) and len(node.values) == 2 and isinstance(node.values[0], ast.Constant):
            v = node.values[0].value
            if v.endswith("-") and ("lease" in v or v == "run-"):
                out.add(v)
    return sorted(out)


def routes(source: str, backend: dict[str, Any] | None = None) -> tuple[dict[str, Any], ast.Module]:
    tree = ast.parse(source)
    methods = class_methods(tree)
    table: dict[str, Any] = {}
    for fn in tree.body:
        r = route_of(fn)
        if not r:
            continue
        method, path = r
        table[path] = {
            "method": method,
            "handler": fn.name,
            "request": request_fields(fn) if method == "POST" else {},
            "responses": responses(fn, methods, backend),
        }
    return table, tree


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--git-dir", required=True)
    p.add_argument("--commit", required=True)
    p.add_argument("--repo", default="toininoi/openclaw-rl")
    p.add_argument("--out-dir", required=True)
    ns = p.parse_args(argv)
    args = argv if argv is not None else sys.argv[1:]
    command = "python3 integrations/contracts/extract_pool_protocols.py " + " ".join(shlex.quote(a) for a in args)
    os.makedirs(ns.out_dir, exist_ok=True)
    for name, files in PROTOCOLS.items():
        backend = None
        data: dict[str, Any] = {
            "header": {
                "repository": ns.repo,
                "commit": ns.commit,
                "files": sorted(files.values()),
                "command": command,
            }
        }
        if "backend" in files:
            backend, _ = routes(git_show(ns.git_dir, ns.commit, files["backend"]))
            data["backend"] = {"file": files["backend"], "routes": backend}
        table, tree = routes(git_show(ns.git_dir, ns.commit, files["server"]), backend)
        data.update(
            {
                "server": files["server"],
                "routes": table,
                "capacity_codes": capacity_codes(tree),
                "capacity_messages": capacity_messages(tree),
                "unknown_lease_messages": unknown_lease_messages(tree),
                "lease_id_prefixes": lease_id_prefixes(tree),
            }
        )
        with open(os.path.join(ns.out_dir, f"{name}.json"), "w", encoding="utf-8") as f:
            json.dump(data, f, indent=1, sort_keys=False)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
