"""Running git: one helper, so every caller fails the same quiet way."""

from __future__ import annotations

import subprocess
from pathlib import Path

TIMEOUT_SECONDS = 60


def git_output(cwd: Path, *args: str, timeout: float = TIMEOUT_SECONDS) -> bytes | None:
    """stdout of `git -C cwd ARGS`, or None when git is missing, fails or times out."""
    try:
        done = subprocess.run(
            ["git", "-C", str(cwd), *args], capture_output=True, timeout=timeout, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None
