"""Reads argparse definitions out of Python sources with ``ast`` (nothing is imported).

``Walker`` follows a function that builds an ``argparse`` parser (``add_argument`` calls, helper calls it
makes, imported helpers, ``reset_arg``, and Megatron's dataclass-driven ``ArgumentGroupFactory`` groups) and
records every flag into a ``Parser`` as ``Arg``s; ``Tree`` is a directory of sources it resolves modules in.
Used by slime_parsers.py (for extract_slime_args.py), which decides which sources and entry functions make up each slime parser.
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass, field
from typing import Any, Iterator


class Tree:
    """A directory of Python sources rooted where top-level packages live (``megatron/``, ``slime/``)."""

    def __init__(self, root: str, label: str):
        self.root = root
        self.label = label  # how paths are cited, e.g. "Gen-Verse/OpenClaw-RL@<sha>:Megatron-LM/"
        self._cache: dict[str, ast.Module] = {}

    def module_path(self, module: str) -> str | None:
        base = os.path.join(self.root, *module.split("."))
        for cand in (base + ".py", os.path.join(base, "__init__.py")):
            if os.path.isfile(cand):
                return cand
        return None

    def parse(self, path: str) -> ast.Module:
        if path not in self._cache:
            with open(path, encoding="utf-8") as f:
                self._cache[path] = ast.parse(f.read(), filename=path)
        return self._cache[path]

    def rel(self, path: str) -> str:
        return os.path.relpath(path, self.root)


# ---------------------------------------------------------------------------------------- literal eval


class NonLiteral:
    def __init__(self, src: str):
        self.src = src


def literal(node: ast.AST | None, consts: dict[str, Any] | None = None) -> Any:
    """A literal value, resolving names bound to literals in ``consts``; NonLiteral otherwise."""
    if node is None:
        return None
    try:
        return ast.literal_eval(node)
    except Exception:
        pass
    if consts is not None and isinstance(node, ast.Name) and node.id in consts:
        return consts[node.id]
    if isinstance(node, (ast.List, ast.Tuple)) and consts is not None:
        vals = [literal(e, consts) for e in node.elts]
        if not any(isinstance(v, NonLiteral) for v in vals):
            return vals
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v = literal(node.operand, consts)
        if isinstance(v, (int, float)):
            return -v
    return NonLiteral(ast.unparse(node))


def jsonable(v: Any) -> Any:
    if isinstance(v, NonLiteral):
        return {"expr": v.src}
    if isinstance(v, tuple):
        return [jsonable(x) for x in v]
    if isinstance(v, list):
        return [jsonable(x) for x in v]
    if isinstance(v, dict):
        return {str(k): jsonable(x) for k, x in v.items()}
    if isinstance(v, float) and (v != v or v in (float("inf"), float("-inf"))):
        return {"expr": repr(v)}
    return v


# -------------------------------------------------------------------------------------------- records


VALUELESS_ACTIONS = {"store_true", "store_false", "store_const", "count", "BooleanOptionalAction", "help", "version", "append_const"}


@dataclass
class Arg:
    option_strings: list[str]
    dest: str
    kind: str  # "flag" (takes no value) | "value" | "list" (nargs + / * / N) | "optional-value" (nargs ?)
    type: str | None
    action: str | None
    nargs: Any
    choices: Any
    default: Any
    default_literal: bool
    required: bool
    source: str
    origin: str  # "argparse" | "dataclass:<Class>" | "reset_arg"
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        d = {
            "option_strings": self.option_strings,
            "dest": self.dest,
            "kind": self.kind,
            "type": self.type,
            "action": self.action,
            "nargs": jsonable(self.nargs),
            "choices": jsonable(self.choices),
            "default": jsonable(self.default) if self.default_literal else None,
            "default_literal": self.default_literal,
            "required": self.required,
            "source": self.source,
            "origin": self.origin,
        }
        if not self.default_literal:
            d["default_expr"] = self.default.src if isinstance(self.default, NonLiteral) else repr(self.default)
        if self.notes:
            d["notes"] = self.notes
        return d


def kind_of(action: str | None, nargs: Any) -> str:
    if action in VALUELESS_ACTIONS:
        return "flag"
    if nargs == "?":
        return "optional-value"
    if nargs in ("+", "*") or isinstance(nargs, int) or isinstance(nargs, NonLiteral):
        return "list"
    return "value"


def type_name(node: ast.AST | None) -> str | None:
    if node is None:
        return None
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return ast.unparse(node)
    if isinstance(node, ast.Lambda):
        return "lambda"
    return ast.unparse(node)


def action_name(node: ast.AST | None) -> str | None:
    if node is None:
        return None
    if isinstance(node, ast.Constant):
        return str(node.value)
    if isinstance(node, ast.Attribute):
        return node.attr  # argparse.BooleanOptionalAction -> BooleanOptionalAction
    return ast.unparse(node)


def derive_dest(option_strings: list[str]) -> str:
    for o in option_strings:
        if o.startswith("--"):
            return o[2:].replace("-", "_")
    return option_strings[0].lstrip("-").replace("-", "_")


class Parser:
    """An argparse parser as built by the source: option string -> Arg, with conflict detection."""

    def __init__(self, name: str):
        self.name = name
        self.args: list[Arg] = []
        self.index: dict[str, Arg] = {}
        self.conflicts: list[str] = []
        self.set_defaults: dict[str, Any] = {}
        self.external: list[dict[str, Any]] = []

    def add(self, arg: Arg) -> None:
        clash = [o for o in arg.option_strings if o in self.index]
        if clash:
            self.conflicts.append(f"{', '.join(clash)} at {arg.source} already defined at {self.index[clash[0]].source}")
            return
        self.args.append(arg)
        for o in arg.option_strings:
            self.index[o] = arg

    def to_json(self) -> dict[str, Any]:
        args = sorted(self.args, key=lambda a: a.option_strings[0])
        out: dict[str, Any] = {"count": len(args), "args": [a.to_json() for a in args]}
        if self.set_defaults:
            out["set_defaults"] = {k: jsonable(v) for k, v in self.set_defaults.items()}
        if self.external:
            out["external"] = self.external
        if self.conflicts:
            out["conflicts"] = self.conflicts
        return out


# ------------------------------------------------------------------------------------ the walker


def module_consts(mod: ast.Module) -> dict[str, Any]:
    consts: dict[str, Any] = {}
    for node in mod.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            v = literal(node.value, consts)
            if not isinstance(v, NonLiteral):
                consts[node.targets[0].id] = v
    return consts


def import_map(nodes: list[ast.stmt], package: str) -> dict[str, tuple[str, str]]:
    """local name -> (module, name) for ``from X import Y [as Z]`` statements (relative ones resolved)."""
    out: dict[str, tuple[str, str]] = {}
    for node in nodes:
        if isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
                mod = ".".join(base + ([mod] if mod else []))
            for a in node.names:
                out[a.asname or a.name] = (mod, a.name)
    return out


class Walker:
    """Follows parser-building functions through nested defs and imports, collecting add_argument calls."""

    def __init__(self, trees: list[Tree], parser: Parser, skip_receivers: tuple[str, ...] = ("temp_parser",)):
        self.trees = trees
        self.parser = parser
        self.skip_receivers = skip_receivers
        self.visited: set[tuple[str, str]] = set()
        self.files: set[str] = set()

    # --- resolution
    def find_module(self, module: str) -> tuple[Tree, str] | None:
        for t in self.trees:
            p = t.module_path(module)
            if p:
                return t, p
        return None

    def package_of(self, tree: Tree, path: str) -> str:
        rel = tree.rel(path)[:-3].replace(os.sep, ".")
        return rel[: -len(".__init__")] if rel.endswith(".__init__") else rel.rsplit(".", 1)[0]

    def resolve_def(self, module: str, name: str, depth: int = 0) -> tuple[Tree, str, ast.AST] | None:
        """The def (function or class) ``name`` of ``module``, following re-exports."""
        found = self.find_module(module)
        if not found or depth > 8:
            return None
        tree, path = found
        mod = tree.parse(path)
        for node in mod.body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name == name:
                return tree, path, node
        imports = import_map(mod.body, self.package_of(tree, path))
        if name in imports:
            m, n = imports[name]
            return self.resolve_def(m, n, depth + 1)
        return None

    def cite(self, tree: Tree, path: str, node: ast.AST) -> str:
        self.files.add(tree.label + tree.rel(path))
        return f"{tree.label}{tree.rel(path)}:{getattr(node, 'lineno', 0)}"

    # --- walking
    def walk_function(self, tree: Tree, path: str, fn: ast.FunctionDef, scopes: list[dict[str, ast.FunctionDef]] | None = None) -> None:
        key = (path, f"{fn.name}:{fn.lineno}")
        if key in self.visited:
            return
        self.visited.add(key)
        mod = tree.parse(path)
        consts = module_consts(mod)
        imports = import_map(mod.body, self.package_of(tree, path))
        local_imports = import_map([n for n in ast.walk(fn) if isinstance(n, ast.ImportFrom)], self.package_of(tree, path))
        imports = {**imports, **local_imports}
        top = {n.name: n for n in mod.body if isinstance(n, ast.FunctionDef)}
        nested = {n.name: n for n in fn.body if isinstance(n, ast.FunctionDef)}
        scopes = [nested] + (scopes or []) + [top]
        local_consts = dict(consts)
        factories: dict[str, ast.Call] = {}
        for stmt in self._statements(fn):
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                v = literal(stmt.value, local_consts)
                if not isinstance(v, NonLiteral):
                    local_consts[stmt.targets[0].id] = v
                if isinstance(stmt.value, ast.Call) and type_name(stmt.value.func) == "ArgumentGroupFactory":
                    factories[stmt.targets[0].id] = stmt.value
            for call in self._calls(stmt):
                self.handle_call(tree, path, call, scopes, imports, local_consts, factories)

    def _statements(self, fn: ast.FunctionDef) -> Iterator[ast.stmt]:
        """Statements of ``fn`` in source order, descending into if/for/with/try but not nested defs."""

        def rec(body: list[ast.stmt]) -> Iterator[ast.stmt]:
            for s in body:
                if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    continue
                yield s
                for attr in ("body", "orelse", "finalbody"):
                    sub = getattr(s, attr, None)
                    if isinstance(sub, list) and sub and isinstance(sub[0], ast.stmt):
                        yield from rec(sub)
                for h in getattr(s, "handlers", []) or []:
                    yield from rec(h.body)

        return rec(fn.body)

    def _calls(self, stmt: ast.stmt) -> Iterator[ast.Call]:
        # Only the statement's own expression tree (its sub-statements are visited separately).
        parts: list[ast.AST] = []
        for name, value in ast.iter_fields(stmt):
            if name in ("body", "orelse", "finalbody", "handlers"):
                continue
            if isinstance(value, list):
                parts.extend(v for v in value if isinstance(v, ast.AST))
            elif isinstance(value, ast.AST):
                parts.append(value)
        calls = [n for p in parts for n in ast.walk(p) if isinstance(n, ast.Call)]
        calls.sort(key=lambda c: (c.lineno, c.col_offset))
        return iter(calls)

    def handle_call(self, tree: Tree, path: str, call: ast.Call, scopes, imports, consts, factories) -> None:
        func = call.func
        if isinstance(func, ast.Attribute):
            recv = ast.unparse(func.value)
            if func.attr == "add_argument":
                if recv in self.skip_receivers:
                    return
                self.add_argument(tree, path, call, consts, origin="argparse")
            elif func.attr == "set_defaults" and recv not in self.skip_receivers:
                for kw in call.keywords:
                    if kw.arg:
                        self.parser.set_defaults[kw.arg] = literal(kw.value, consts)
            elif func.attr == "build_group":
                fac = factories.get(recv) if isinstance(func.value, ast.Name) else (func.value if isinstance(func.value, ast.Call) else None)
                if fac is not None:
                    self.dataclass_group(tree, path, fac, imports, consts)
            elif func.attr == "add_cli_args":
                self.parser.external.append(
                    {
                        "call": ast.unparse(call),
                        "owner": recv,
                        "from": imports.get(recv, ("?", recv))[0],
                        "source": self.cite(tree, path, call),
                    }
                )
            return
        if isinstance(func, ast.Name):
            name = func.id
            if name == "reset_arg":
                self.reset_arg(tree, path, call, consts)
                return
            passes_parser = any(isinstance(a, ast.Name) and a.id in ("parser",) for a in call.args)
            for scope in scopes:
                if name in scope:
                    if passes_parser or name.startswith(("add_", "_add_", "get_slime_extra_args_provider")):
                        self.walk_function(tree, path, scope[name], scopes[1:-1])
                    return
            if name in imports and passes_parser:
                m, n = imports[name]
                found = self.resolve_def(m, n)
                if found and isinstance(found[2], ast.FunctionDef):
                    self.walk_function(found[0], found[1], found[2])

    # --- argparse calls
    def add_argument(self, tree: Tree, path: str, call: ast.Call, consts, origin: str, option_strings: list[str] | None = None) -> Arg | None:
        opts = option_strings or [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        if not opts or not opts[0].startswith("-"):
            return None
        kw = {k.arg: k.value for k in call.keywords if k.arg}
        arg = self.make_arg(tree, path, call, opts, kw, consts, origin)
        self.parser.add(arg)
        return arg

    def make_arg(self, tree, path, call, opts, kw, consts, origin) -> Arg:
        action = action_name(kw.get("action"))
        if action == "BooleanOptionalAction":
            opts = opts + [("--no-" + o[2:]) for o in opts if o.startswith("--")]
        nargs = literal(kw["nargs"], consts) if "nargs" in kw else None
        choices = literal(kw["choices"], consts) if "choices" in kw else None
        if "default" in kw:
            default = literal(kw["default"], consts)
        elif action == "store_true":
            default = False
        elif action == "store_false":
            default = True
        else:
            default = None
        dest = literal(kw["dest"], consts) if "dest" in kw else derive_dest(opts)
        typ = type_name(kw.get("type"))
        if typ is None and action not in VALUELESS_ACTIONS:
            typ = "str"
        return Arg(
            option_strings=opts,
            dest=dest if isinstance(dest, str) else derive_dest(opts),
            kind=kind_of(action, nargs),
            type=typ,
            action=action,
            nargs=nargs,
            choices=choices,
            default=default,
            default_literal=not isinstance(default, NonLiteral),
            required=bool(literal(kw["required"], consts)) if "required" in kw else False,
            source=self.cite(tree, path, call),
            origin=origin,
        )

    def reset_arg(self, tree: Tree, path: str, call: ast.Call, consts) -> None:
        if len(call.args) < 2:
            return
        name = literal(call.args[1], consts)
        if not isinstance(name, str):
            return
        kw = {k.arg: k.value for k in call.keywords if k.arg}
        existing = self.parser.index.get(name)
        if existing is not None:
            if "default" in kw:
                d = literal(kw["default"], consts)
                existing.default, existing.default_literal = d, not isinstance(d, NonLiteral)
                existing.notes.append(f"default reset by slime reset_arg at {self.cite(tree, path, call)}")
            return
        arg = self.make_arg(tree, path, call, [name], kw, consts, origin="reset_arg")
        self.parser.add(arg)

    # --- Megatron's ArgumentGroupFactory
    def dataclass_group(self, tree: Tree, path: str, fac: ast.Call, imports, consts) -> None:
        if not fac.args or not isinstance(fac.args[0], ast.Name):
            return
        cls_name = fac.args[0].id
        exclude: list[str] = []
        for k in fac.keywords:
            if k.arg == "exclude":
                v = literal(k.value, consts)
                exclude = list(v) if isinstance(v, (list, tuple)) else []
        mod = imports.get(cls_name)
        found = self.resolve_def(mod[0], mod[1]) if mod else None
        if not found:
            for t, p in [(tree, path)]:
                for n in t.parse(p).body:
                    if isinstance(n, ast.ClassDef) and n.name == cls_name:
                        found = (t, p, n)
        if not found:
            self.parser.conflicts.append(f"could not resolve dataclass {cls_name} at {self.cite(tree, path, fac)}")
            return
        for f in self.dataclass_fields(*found):
            if f["name"] in exclude or f["init"] is False:
                continue
            arg = self.field_arg(f, cls_name)
            if arg is not None:
                self.parser.add(arg)

    def dataclass_fields(self, tree: Tree, path: str, cls: ast.ClassDef, depth: int = 0) -> list[dict[str, Any]]:
        fields_: dict[str, dict[str, Any]] = {}
        mod = tree.parse(path)
        imports = import_map(mod.body, self.package_of(tree, path))
        for base in cls.bases:
            bname = type_name(base)
            if not bname or depth > 6 or bname in ("object",):
                continue
            found = None
            if bname in imports:
                found = self.resolve_def(*imports[bname])
            else:
                for n in mod.body:
                    if isinstance(n, ast.ClassDef) and n.name == bname:
                        found = (tree, path, n)
            if found and isinstance(found[2], ast.ClassDef):
                for f in self.dataclass_fields(found[0], found[1], found[2], depth + 1):
                    fields_[f["name"]] = f
        consts = module_consts(mod)
        for node in cls.body:
            if not (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)):
                continue
            ann = node.annotation
            if type_name(ann) in ("ClassVar", "typing.ClassVar") or (isinstance(ann, ast.Subscript) and type_name(ann.value) in ("ClassVar", "typing.ClassVar")):
                continue
            f: dict[str, Any] = {"name": node.target.id, "ann": ann, "init": True, "meta": None, "source": self.cite(tree, path, node), "tree": tree, "path": path}
            v = node.value
            if isinstance(v, ast.Call) and type_name(v.func) in ("field", "dataclasses.field"):
                kw = {k.arg: k.value for k in v.keywords if k.arg}
                if "default" in kw:
                    f["default"] = literal(kw["default"], consts)
                elif "default_factory" in kw:
                    fac = type_name(kw["default_factory"])
                    f["default"] = {"list": [], "dict": {}, "set": NonLiteral("set()")}.get(fac or "", NonLiteral(f"{fac}()"))
                else:
                    f["default"] = NonLiteral("<required>")
                if "init" in kw:
                    f["init"] = literal(kw["init"])
                if "metadata" in kw:
                    md = kw["metadata"]
                    if isinstance(md, ast.Dict):
                        for k2, v2 in zip(md.keys, md.values):
                            if isinstance(k2, ast.Constant) and k2.value == "argparse_meta" and isinstance(v2, ast.Dict):
                                f["meta"] = {literal(a): b for a, b in zip(v2.keys, v2.values)}
            elif v is None:
                f["default"] = NonLiteral("<required>")
            else:
                f["default"] = literal(v, consts)
            f["enum_choices"] = self.enum_members(tree, path, ann)
            fields_[f["name"]] = f
        return list(fields_.values())

    def enum_members(self, tree: Tree, path: str, ann: ast.AST) -> list[str] | None:
        """Member names when the (Optional-unwrapped) annotation is an Enum class."""
        node = ann
        if isinstance(node, ast.Subscript) and type_name(node.value) in ("Optional", "typing.Optional"):
            node = node.slice
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            node = node.left
        if not isinstance(node, ast.Name):
            return None
        mod = tree.parse(path)
        imports = import_map(mod.body, self.package_of(tree, path))
        found = self.resolve_def(*imports[node.id]) if node.id in imports else next(((tree, path, n) for n in mod.body if isinstance(n, ast.ClassDef) and n.name == node.id), None)
        if not found or not isinstance(found[2], ast.ClassDef):
            return None
        if not any("Enum" in (type_name(b) or "") for b in found[2].bases):
            return None
        return [t.id for s in found[2].body if isinstance(s, ast.Assign) for t in s.targets if isinstance(t, ast.Name)]

    def infer_type(self, ann: ast.AST, enum_choices) -> dict[str, Any]:
        """Megatron's ArgumentGroupFactory._extract_type on an annotation AST; raises ValueError when it would."""
        if enum_choices is not None:
            return {"type": "enum", "choices": enum_choices}
        if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
            ann = ast.parse(ann.value, mode="eval").body
        if isinstance(ann, (ast.Name, ast.Attribute)):
            return {"type": type_name(ann)}
        if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
            if isinstance(ann.right, ast.Constant) and ann.right.value is None:
                return self.infer_type(ann.left, None)
            raise ValueError(f"Unions not supported by argparse: {ast.unparse(ann)}")
        if isinstance(ann, ast.Subscript):
            origin = type_name(ann.value)
            elts = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
            if origin in ("Optional", "typing.Optional"):
                return self.infer_type(elts[0], None)
            if origin in ("Union", "typing.Union"):
                if len(elts) >= 2 and isinstance(elts[1], ast.Constant) and elts[1].value is None:
                    return self.infer_type(elts[0], None)
                raise ValueError(f"Unions not supported by argparse: {ast.unparse(ann)}")
            if origin in ("list", "List", "typing.List"):
                if len(elts) == 1:
                    d = self.infer_type(elts[0], None)
                    d["nargs"] = "+"
                    return d
                raise ValueError(f"Multi-type lists not supported: {ast.unparse(ann)}")
            if origin in ("Literal", "typing.Literal"):
                vals = [literal(e) for e in elts]
                return {"type": type(vals[0]).__name__, "choices": vals}
            raise ValueError(f"Unsupported type: {ast.unparse(ann)}")
        raise ValueError(f"Unsupported type: {ast.unparse(ann)}")

    def field_arg(self, f: dict[str, Any], cls_name: str) -> Arg | None:
        names = ["--" + f["name"].replace("_", "-")]
        kw: dict[str, Any] = {"dest": f["name"], "default": f["default"]}
        notes: list[str] = []
        meta = f["meta"]
        try:
            kw.update(self.infer_type(f["ann"], f["enum_choices"]))
            if kw.get("type") == "bool":
                kw["action"] = "store_true" if f["default"] is False else "store_false"
                kw.pop("type")
                if kw["action"] == "store_false":
                    names = ["--no-" + f["name"].replace("_", "-"), "--disable-" + f["name"].replace("_", "-")]
        except ValueError as e:
            if meta is None:
                notes.append(f"type inference fails without argparse_meta ({e}); Megatron would raise")
                kw["type"] = None
            else:
                notes.append(f"type from argparse_meta ({e})")
        if meta:
            for k, v in meta.items():
                if k == "arg_names":
                    names = literal(v)
                elif k in ("type",):
                    kw["type"] = type_name(v)
                elif k == "action":
                    kw["action"] = action_name(v)
                    if kw["action"] in VALUELESS_ACTIONS:
                        kw.pop("type", None)
                else:
                    kw[k] = literal(v)
        action = kw.get("action")
        if action == "BooleanOptionalAction":
            names = names + ["--no-" + n[2:] for n in names]
        default = kw.get("default")
        typ = kw.get("type")
        if typ is None and action not in VALUELESS_ACTIONS:
            typ = "str"
        return Arg(
            option_strings=list(names),
            dest=kw["dest"],
            kind=kind_of(action, kw.get("nargs")),
            type=typ,
            action=action,
            nargs=kw.get("nargs"),
            choices=kw.get("choices"),
            default=default,
            default_literal=not isinstance(default, NonLiteral),
            required=bool(kw.get("required", False)),
            source=f["source"],
            origin=f"dataclass:{cls_name}",
            notes=notes,
        )
