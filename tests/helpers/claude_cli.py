"""The real Claude Code CLI for tests, installed once from npm at a pinned version.

`claude_binary()` returns the path of `claude` from `@anthropic-ai/claude-code` at
CLAUDE_CODE_VERSION, installed with npm into a cache folder shared by test runs
(`$CURATOR_TEST_CACHE`, else `~/.cache/curator-tests`); `.ci/run` installs it there
before the tests. Without node and npm the tests that need it are skipped, and say so.
`claude_env()` is the environment that points the CLI at a fake API on 127.0.0.1 and
keeps it off the network and out of the user's own Claude Code folder.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from pathlib import Path

import pytest

CLAUDE_CODE_VERSION = "2.1.328"
PACKAGE = "@anthropic-ai/claude-code"


def cache_root() -> Path:
    configured = os.environ.get("CURATOR_TEST_CACHE")
    return Path(configured) if configured else Path.home() / ".cache" / "curator-tests"


def install_dir() -> Path:
    return cache_root() / f"claude-code-{CLAUDE_CODE_VERSION}"


def claude_binary() -> Path:
    """The pinned CLI, installing it on first use; skips the test when node is absent.
    One install at a time: test workers (pytest-xdist) that all want it wait for it."""
    binary = install_dir() / "node_modules" / ".bin" / "claude"
    if binary.exists():
        return binary
    npm, node = shutil.which("npm"), shutil.which("node")
    if npm is None or node is None:
        pytest.skip("node/npm not installed: the real Claude Code CLI tests cannot run here")
    install_dir().mkdir(parents=True, exist_ok=True)
    with open(install_dir().parent / f"{install_dir().name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not binary.exists():  # another worker installed it while this one waited
            _install(npm, binary)
    return binary


def _install(npm: str, binary: Path) -> None:
    spec = f"{PACKAGE}@{CLAUDE_CODE_VERSION}"
    done = subprocess.run(
        [
            npm,
            "install",
            "--no-audit",
            "--no-fund",
            "--silent",
            "--prefix",
            str(install_dir()),
            spec,
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if done.returncode != 0 or not binary.exists():
        raise RuntimeError(f"npm install {spec} failed: {done.stderr}")


def claude_env(base_url: str, config_dir: Path, home: Path | None = None) -> dict[str, str]:
    """An environment for the CLI: the fake API, a test key, its own config folder."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE_"))}
    env.update(
        ANTHROPIC_BASE_URL=base_url,
        ANTHROPIC_API_KEY="sk-ant-test-key",
        CLAUDE_CONFIG_DIR=str(config_dir),
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        DISABLE_AUTOUPDATER="1",
        DISABLE_TELEMETRY="1",
        DISABLE_ERROR_REPORTING="1",
    )
    if home is not None:
        env["HOME"] = str(home)
    return env
