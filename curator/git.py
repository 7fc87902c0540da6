"""Running git: one helper, so every caller fails the same quiet way.

(The history index streams its long `git log` passes itself: see `repo/history.py`.)
"""

from __future__ import annotations

import os
from pathlib import Path

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (the hook's path)
if TYPE_CHECKING:
    import subprocess

TIMEOUT_SECONDS = 60


def git_output(
    cwd: Path,
    *args: str,
    timeout: float = TIMEOUT_SECONDS,
    stdin: bytes | None = None,
    env: dict[str, str] | None = None,
) -> bytes | None:
    """stdout of `git -C cwd ARGS`, or None when git is missing, fails or times out.
    `env` adds to the environment (commit dates for rule self-tests)."""
    done = _run(cwd, args, timeout, stdin, env)
    return done.stdout if done is not None and done.returncode == 0 else None


def git_ok(cwd: Path, *args: str, timeout: float = TIMEOUT_SECONDS) -> bool:
    """Whether `git -C cwd ARGS` exits 0 (for questions git answers by status)."""
    done = _run(cwd, args, timeout, None, None)
    return done is not None and done.returncode == 0


def _run(
    cwd: Path,
    args: tuple[str, ...],
    timeout: float,
    stdin: bytes | None,
    env: dict[str, str] | None,
) -> subprocess.CompletedProcess[bytes] | None:
    import subprocess  # a store outside any repository runs no git at all

    try:
        return subprocess.run(
            ["git", "-C", str(cwd), *args],
            env={**os.environ, **env} if env else None,
            input=stdin if stdin is not None else None,
            stdin=None if stdin is not None else subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
