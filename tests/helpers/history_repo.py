"""Real git repositories with a dated history, for the history-backed reference rules."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.conftest import write_files


def git(repo: Path, *args: str, day: str | None = None) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    if day is not None:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = f"{day}T12:00:00+00:00"
    done = subprocess.run(
        ["git", *args], cwd=repo, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


def commit(
    repo: Path,
    message: str,
    day: str,
    *,
    files: dict[str, str] | None = None,
    delete: tuple[str, ...] = (),
    rename: dict[str, str] | None = None,
) -> str:
    """Make one commit at `day` (YYYY-MM-DD); returns its full sha. The repository is
    created on the first call."""
    if not (repo / ".git").exists():
        repo.mkdir(parents=True, exist_ok=True)
        git(repo, "init", "-q", "-b", "main")
    for old, new in (rename or {}).items():
        (repo / new).parent.mkdir(parents=True, exist_ok=True)
        git(repo, "mv", old, new)
    for gone in delete:
        git(repo, "rm", "-q", "-r", gone)
    write_files(repo, dict(files or {}))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", message, day=day)
    return git(repo, "rev-parse", "HEAD").strip()


def recording_git(folder: Path) -> tuple[Path, dict[str, str]]:
    """A `git` on PATH that writes each call's arguments down, then runs the real one:
    (the file of calls, one a line; the environment that puts it first on PATH)."""
    calls, wrapper = folder / "git-calls.txt", folder / "bin" / "git"
    wrapper.parent.mkdir(parents=True)
    real = subprocess.run(["sh", "-c", "command -v git"], capture_output=True, text=True)
    wrapper.write_text(f'#!/bin/sh\necho "$*" >> {calls}\nexec {real.stdout.strip()} "$@"\n')
    wrapper.chmod(0o755)
    return calls, {"PATH": f"{wrapper.parent}{os.pathsep}{os.environ['PATH']}"}
