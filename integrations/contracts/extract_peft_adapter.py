#!/usr/bin/env python3
"""Extract the PEFT LoRA adapter folder contract from huggingface/peft's source: what a folder must hold for
``PeftModel.from_pretrained`` (and the engines that read PEFT folders: SGLang, vLLM) to load it.

hf-local writes one such folder per end user and version (``integrations/hf/peft_folder.py``) without peft
installed, so its layout is held to these facts, read with the standard library's ``ast`` (nothing is imported):

- file names: ``CONFIG_NAME``, ``SAFETENSORS_WEIGHTS_NAME``, ``WEIGHTS_NAME`` (``utils/constants.py``);
- the safetensors metadata ``PeftModel.save_pretrained`` writes (``peft_model.py``, the ``safe_save_file`` call), and
  that a non-default adapter is saved into a subfolder named after it (``output_dir = ...``);
- the weight keys: the PeftModel prefix (``possible_prefixes`` in ``utils/save_and_load.py``, the first one) and the
  adapter name dropped from saved keys (``get_peft_model_state_dict``'s docstring example);
- ``adapter_config.json`` fields: ``PeftConfigMixin``/``PeftConfig``/``LoraConfig`` dataclass fields with their literal
  defaults (``config.py``, ``tuners/lora/config.py``), and the ``PeftType.LORA`` / ``TaskType.CAUSAL_LM`` values.

  python3 integrations/contracts/extract_peft_adapter.py --git-dir <peft>/.git \\
      --commit 5d602fdbff04c33c1c4de55cda9d4ae1d7cb7e40 --out tests/fixtures/peft/lora_adapter.json
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import shlex
import subprocess
import sys
from typing import Any

REPOSITORY = "huggingface/peft"
FILES = {
    "constants": "src/peft/utils/constants.py",
    "config": "src/peft/config.py",
    "lora_config": "src/peft/tuners/lora/config.py",
    "save_and_load": "src/peft/utils/save_and_load.py",
    "peft_model": "src/peft/peft_model.py",
    "peft_types": "src/peft/utils/peft_types.py",
}


def read(git_dir: str, commit: str, path: str) -> str:
    return subprocess.run(["git", "--git-dir", git_dir, "show", f"{commit}:{path}"], check=True, capture_output=True, text=True).stdout


def literal(node: ast.AST) -> Any:
    try:
        return ast.literal_eval(node)
    except ValueError:
        return "<not a literal>"


def string_constants(tree: ast.Module, names: list[str]) -> dict[str, str]:
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and node.targets[0].id in names:
            out[node.targets[0].id] = literal(node.value)
    missing = set(names) - set(out)
    if missing:
        raise ValueError(f"constants not found: {sorted(missing)}")
    return out


def find_class(tree: ast.Module, name: str) -> ast.ClassDef:
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == name:
            return node
    raise ValueError(f"class {name} not found")


def dataclass_fields(cls: ast.ClassDef) -> dict[str, Any]:
    """Annotated class attributes: the literal default (``field(default=...)`` or a plain value), ``<factory>`` for a
    ``default_factory``, ``<required>`` without a default."""
    out: dict[str, Any] = {}
    for node in cls.body:
        if not (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)):
            continue
        v = node.value
        if v is None:
            out[node.target.id] = "<required>"
        elif isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == "field":
            kw = {k.arg: k.value for k in v.keywords}
            out[node.target.id] = literal(kw["default"]) if "default" in kw else "<factory>" if "default_factory" in kw else "<required>"
        else:
            out[node.target.id] = literal(v)
    return out


def enum_value(tree: ast.Module, cls: str, member: str) -> str:
    for node in find_class(tree, cls).body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name) and node.targets[0].id == member:
            return literal(node.value)
    raise ValueError(f"{cls}.{member} not found")


def safetensors_metadata(tree: ast.Module) -> dict[str, str]:
    """The ``metadata=`` of ``safe_save_file(...)`` inside ``PeftModel.save_pretrained``."""
    save = next(n for n in ast.walk(find_class(tree, "PeftModel")) if isinstance(n, ast.FunctionDef) and n.name == "save_pretrained")
    for node in ast.walk(save):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "safe_save_file":
            for k in node.keywords:
                if k.arg == "metadata" and isinstance(k.value, ast.Dict):
                    return literal(k.value)
    raise ValueError("safe_save_file(..., metadata={...}) not found in PeftModel.save_pretrained")


def subfolder_rule(source: str) -> str:
    m = re.search(r"output_dir = (os\.path\.join\(save_directory, adapter_name\) if adapter_name != \"default\" else save_directory)", source)
    if not m:
        raise ValueError("the output_dir rule of PeftModel.save_pretrained changed")
    return m.group(1)


def key_prefix(tree: ast.Module) -> str:
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name) and node.targets[0].id == "possible_prefixes":
            return literal(node.value)[0]
    raise ValueError("possible_prefixes not found in save_and_load.py")


def adapter_name_removal(tree: ast.Module) -> dict[str, str]:
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "get_peft_model_state_dict")
    doc = ast.get_docstring(fn) or ""
    m = re.search(r"original key is\s+`'([^']+)'`, the returned key will be `'([^']+)'`", doc)
    if not m:
        raise ValueError("get_peft_model_state_dict's docstring example changed")
    return {"inModel": m.group(1), "saved": m.group(2)}


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--git-dir", required=True)
    ap.add_argument("--commit", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    src = {k: read(args.git_dir, args.commit, p) for k, p in FILES.items()}
    trees = {k: ast.parse(v) for k, v in src.items()}
    fields: dict[str, Any] = {}
    for cls in ("PeftConfigMixin", "PeftConfig"):
        fields.update(dataclass_fields(find_class(trees["config"], cls)))
    fields.update(dataclass_fields(find_class(trees["lora_config"], "LoraConfig")))
    fixture = {
        "header": {
            "repository": REPOSITORY,
            "commit": args.commit,
            "files": list(FILES.values()),
            "command": "python3 integrations/contracts/extract_peft_adapter.py --git-dir <peft>/.git "
            + shlex.join(["--commit", args.commit, "--out", args.out]),
        },
        "files": string_constants(trees["constants"], ["CONFIG_NAME", "SAFETENSORS_WEIGHTS_NAME", "WEIGHTS_NAME"]),
        "safetensorsMetadata": safetensors_metadata(trees["peft_model"]),
        "savedIntoSubfolder": subfolder_rule(src["peft_model"]),
        "keyPrefix": key_prefix(trees["save_and_load"]),
        "adapterNameRemoval": adapter_name_removal(trees["save_and_load"]),
        "peftTypeLora": enum_value(trees["peft_types"], "PeftType", "LORA"),
        "taskTypeCausalLm": enum_value(trees["peft_types"], "TaskType", "CAUSAL_LM"),
        "configFields": dict(sorted(fields.items())),
    }
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(fixture, f, indent=2, sort_keys=False, default=str)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
