"""The sources the slime argument contract is read from: a commit of a git directory materialised with
``git archive`` (Python files only), optionally with a patch applied (upstream slime's Docker image patches
Megatron-LM). Standard library only."""

from __future__ import annotations

import io
import os
import subprocess
import tarfile


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
