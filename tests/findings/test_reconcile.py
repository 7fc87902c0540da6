"""Which findings a run may resolve: only those of the store it linted, and only those
whose every memory it re-checked."""

from __future__ import annotations

import hashlib
import json
import subprocess
from collections.abc import Callable
from pathlib import Path

from curator.findings.project import ProjectDir
from curator.findings.reconcile import record
from curator.interpreter.rulebook import load_rules
from curator.models import Diagnostic, Severity
from curator.store.discovery import project_slug
from tests.conftest import Run, git, write_files
from tests.helpers.hook_env import FREEZE, INDEX

REMOTE = "https://example.com/team/app.git"


def test_linting_one_clone_resolves_nothing_of_the_other_clones_store(
    tmp_path: Path, git_repo: Callable[..., Path], run_curator: Callable[..., Run]
) -> None:
    """Two clones of one remote share a project key (one findings folder); each has its
    own store. A clean store in one clone says nothing about the other's findings."""
    first = git_repo({"src/app.py": "x = 1\n"}, name="first")
    git(first, "remote", "add", "origin", REMOTE)
    second = tmp_path / "second"
    subprocess.run(["git", "clone", "-q", str(first), str(second)], check=True)
    git(second, "remote", "set-url", "origin", REMOTE)
    second = second.resolve()
    claude = tmp_path / "claude" / "projects"
    write_files(claude / project_slug(first) / "memory", {"MEMORY.md": INDEX, "freeze.md": FREEZE})
    clean = "# Memory\n- [Freeze](freeze.md) — the merge freeze\n"
    write_files(claude / project_slug(second) / "memory", {"MEMORY.md": clean, "freeze.md": FREEZE})

    def lint(repo: Path) -> Run:
        run = run_curator(
            "lint", "--persist", "--select", "CUR010", "--today", "2026-06-01", cwd=repo
        )
        assert run.code in (0, 1), run.stderr
        return run

    assert lint(first).code == 1
    assert lint(second).code == 0
    key = hashlib.sha256(f"remote:{REMOTE}".encode()).hexdigest()[:12]
    folder = tmp_path / "onlooker" / "curator" / key / "findings"
    found = [json.loads(p.read_text()) for p in folder.glob("*.json")]
    assert [(f["code"], f["status"]) for f in found] == [("CUR010", "open")]
    assert found[0]["store"] == str(claude / project_slug(first) / "memory")


def test_a_single_file_run_resolves_no_finding_over_a_memory_it_did_not_recheck(
    tmp_path: Path,
) -> None:
    """A finding over two memories (a contradicting pair) is resolved only by a run that
    re-checked both: linting one of them alone leaves it open."""
    rules = {r.code: r for r in load_rules()}
    code = next(c for c, r in rules.items() if r.name == "contradiction")
    root = tmp_path / "store"
    pair = Diagnostic(
        code, "contradiction", Severity.WARNING, root / "a.md", 5, 1, 5, 1,
        "a.md contradicts b.md", store=root, memory_files=("a.md", "b.md"),
    )  # fmt: skip
    project = ProjectDir(tmp_path / "project")
    assert [f.status for f in record(project, root, [pair], rules, {code}).open] == ["open"]

    alone = record(project, root, [], rules, {code}, only={"a.md"})
    assert (alone.resolved, [f.memory_files for f in alone.open]) == ([], [["a.md", "b.md"]])
    both = record(project, root, [], rules, {code}, only={"a.md", "b.md"})
    assert ([f.memory_files for f in both.resolved], both.open) == ([["a.md", "b.md"]], [])
