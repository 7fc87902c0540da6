"""The suite's curator runs, forked from a warm interpreter (tests/helpers/forkserver.py),
end as the same command run by `subprocess.run` does: the same exit code (a signal
included), stdout and stderr, reading the same stdin, in the same folder, environment
and umask."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import memory, write_files
from tests.helpers import forkserver

STORE = {
    "MEMORY.md": "# Memory\n- [Gone](gone.md) — removed\n- [Log](log.md) — log\n",
    "log.md": memory("Merge freeze begins 2026-03-05.\n", name="log"),
    "orphan.md": memory("Prefer small PRs.\n", name="orphan"),
}


def both(args: list[str], tmp_path: Path, **kw: Any) -> tuple[Any, Any]:
    """The run forked, and the same run as a fresh process."""
    env = {**os.environ, "CURATOR_TODAY": "2026-06-01", **kw.pop("env", {})}
    forked = forkserver.run(args, cwd=tmp_path, env=env, timeout=120, **kw)
    spawned = subprocess.run(
        [sys.executable, "-m", "curator", *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=kw.get("text", True),
        input=kw.get("input"),
        timeout=120,
    )
    return forked, spawned


def same(forked: Any, spawned: Any) -> None:
    assert (forked.returncode, forked.stdout, forked.stderr) == (
        spawned.returncode,
        spawned.stdout,
        spawned.stderr,
    )


@pytest.mark.parametrize(
    "args",
    [
        ["lint", "memory", "--output-format", "json"],
        ["lint", "memory"],
        ["lint", "no-such-store"],
        ["fix", "memory"],
        ["--version"],
    ],
    ids=["json", "text", "error", "fix", "version"],
)
def test_a_forked_run_ends_as_a_fresh_process_does(tmp_path: Path, args: list[str]) -> None:
    write_files(tmp_path / "memory", STORE)
    forked, spawned = both(args, tmp_path)
    same(forked, spawned)
    assert forked.returncode in (0, 1, 2)


def test_the_environment_and_the_folder_are_the_runs_own(tmp_path: Path) -> None:
    write_files(tmp_path / "memory", STORE)
    for claude in ("one", "two"):
        env = {"CLAUDE_CONFIG_DIR": str(tmp_path / claude)}
        forked, spawned = both(["lint", "memory"], tmp_path, env=env)
        same(forked, spawned)
        assert f"not under {tmp_path / claude}/projects" in forked.stderr


def test_stdin_reaches_the_run(tmp_path: Path) -> None:
    payload = json.dumps({"session_id": "s", "cwd": str(tmp_path), "source": "startup"})
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    forked, spawned = both(["hook", "session-start"], tmp_path, env=env, input=payload)
    same(forked, spawned)
    broken, spawned_broken = both(["hook", "session-start"], tmp_path, env=env, input="{")
    same(broken, spawned_broken)


def test_a_run_killed_by_a_signal_says_so(tmp_path: Path) -> None:
    write_files(tmp_path / "memory", STORE)
    env = {"ONLOOKER_DIR": str(tmp_path / "storage")}
    forkserver.run(["fix", "memory"], cwd=tmp_path, env={**os.environ, **env})
    env["CURATOR_KILL_AT"] = "fix:journal"
    forked = forkserver.run(
        ["fix", "memory", "--apply"], cwd=tmp_path, env={**os.environ, **env}, text=False
    )
    assert forked.returncode == -9
    assert isinstance(forked.stdout, bytes)


def test_the_umask_is_the_callers(tmp_path: Path) -> None:
    write_files(tmp_path / "memory", STORE)
    env = {**os.environ, "ONLOOKER_DIR": str(tmp_path / "storage")}
    old = os.umask(0o077)
    try:
        forkserver.run(["scan", "memory", "--no-llm"], cwd=tmp_path, env=env)
    finally:
        os.umask(old)
    made = [p for p in (tmp_path / "storage").rglob("*") if p.is_file()]
    assert made
    assert all(p.stat().st_mode & 0o077 == 0 for p in made), [
        (p, oct(p.stat().st_mode)) for p in made
    ]


def test_a_startup_variable_runs_a_fresh_interpreter(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPROFILEIMPORTTIME": "1"}
    run = forkserver.run(["--version"], cwd=tmp_path, env=env)
    assert run.returncode == 0
    assert "import time:" in run.stderr and "| curator.cli" in run.stderr
