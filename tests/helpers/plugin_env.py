"""What the plugin's tests share: the plugin's files, a PATH made of chosen programs, and a
project whose Claude Code store has findings to point at.

`tools_path()` builds a folder of links to the ordinary programs a shell script needs
(sh, sed, awk, ...) plus the ones a test chooses (`curator`, `uvx`, `pipx`), so a test
decides exactly what the launcher can find, whatever else this machine has installed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from curator.store.discovery import project_slug
from tests.conftest import CHECKOUT, git, write_files
from tests.helpers.hook_env import CHEAP, FREEZE, INDEX

LAUNCHER = CHECKOUT / "hooks" / "session-start.sh"
PLUGIN_JSON = CHECKOUT / ".claude-plugin" / "plugin.json"
MARKETPLACE_JSON = CHECKOUT / ".claude-plugin" / "marketplace.json"
VENV_BIN = Path(sys.executable).parent
INSTALL_LINE = (
    "`pipx install memory-curator` or `uv tool install memory-curator` (before its first "
    "release on PyPI: `pipx install git+https://github.com/curator-dev/curator`)"
)

# What the launcher, Claude Code's hook runner and the scripts uv and pipx write call: the
# ordinary programs of a system's PATH, none of them a curator, uv or pipx.
SYSTEM_TOOLS = (
    "sh", "bash", "env", "dirname", "basename", "realpath", "readlink", "sed", "awk", "grep",
    "head", "tail", "cat", "find", "mkdir", "rm", "cp", "mv", "ln", "ls", "tr", "uname", "id",
    "date", "touch", "chmod", "git",
)  # fmt: skip


def machine_env() -> dict[str, str]:
    """This machine's environment without anything that would point at a curator, a tool
    cache or a Claude Code folder: each test sets those itself."""
    drop = ("CLAUDE", "CURATOR", "ONLOOKER", "UV_", "PIPX_", "PIP_FIND", "VIRTUAL_ENV", "PYTHON")
    return {k: v for k, v in os.environ.items() if not k.startswith(drop)}


def plugin_version() -> str:
    return str(json.loads(PLUGIN_JSON.read_text(encoding="utf-8"))["version"])


def tools_path(folder: Path, **chosen: Path) -> str:
    """A PATH of one folder: links to SYSTEM_TOOLS and to `chosen` (name -> program)."""
    folder.mkdir(parents=True, exist_ok=True)
    programs = {name: shutil.which(name) for name in SYSTEM_TOOLS}
    programs.update({name: str(path) for name, path in chosen.items()})
    for name, target in programs.items():
        if target is not None and not (folder / name).exists():
            (folder / name).symlink_to(target)
    return str(folder)


def base_python() -> Path:
    """The interpreter this venv was made from: a python3 that has no curator installed."""
    return Path(sys.base_prefix) / "bin" / f"python{sys.version_info[0]}.{sys.version_info[1]}"


@dataclass
class Project:
    """A git repository whose store (under `claude`) has two open findings to point at."""

    root: Path
    repo: Path
    claude: Path

    def env(self) -> dict[str, str]:
        """What curator needs to find the store and keep its storage in the test."""
        return {
            "CLAUDE_CONFIG_DIR": str(self.claude),
            "ONLOOKER_DIR": str(self.root / "onlooker"),
            "XDG_CONFIG_HOME": str(self.root / "xdg"),
            "CURATOR_TODAY": "2026-06-01",
        }

    def payload(self) -> str:
        return json.dumps({"session_id": "s-1", "cwd": str(self.repo), "source": "startup"})


def make_project(root: Path, claude: Path | None = None) -> Project:
    repo = root / "project"
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "commit", "-q", "--allow-empty", "-m", "init")
    repo = repo.resolve()
    claude = claude or root / "claude"
    store = claude / "projects" / project_slug(repo) / "memory"
    write_files(store, {"MEMORY.md": INDEX, "freeze.md": FREEZE})
    # Tests must not depend on machine speed: no rate gate, a generous budget.
    write_files(
        root / "xdg" / "curator",
        {"config.yaml": CHEAP},
    )
    return Project(root, repo, claude)


@dataclass
class HookRun:
    code: int
    stdout: str
    stderr: str

    def json(self) -> dict[str, Any]:
        lines = self.stdout.splitlines()
        assert len(lines) == 1, self.stdout
        value = json.loads(lines[0])
        assert isinstance(value, dict)
        return value


def run_launcher(payload: str, env: dict[str, str], cwd: Path) -> HookRun:
    """The launcher as Claude Code runs it: `sh .../session-start.sh`, hook JSON on stdin,
    with this machine's environment (certificates, locale) but `env`'s PATH and tools."""
    done = subprocess.run(
        [shutil.which("sh") or "/bin/sh", str(LAUNCHER)],
        input=payload,
        env={**machine_env(), **env},
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return HookRun(done.returncode, done.stdout, done.stderr)
