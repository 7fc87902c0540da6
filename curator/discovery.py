"""Where things are: Claude Code's config folder, the project's repository root, its store."""

from __future__ import annotations

import json
import os
import re
import subprocess
from functools import lru_cache
from pathlib import Path

from curator.config import Config
from curator.store import INDEX_NAME

_SLUG_UNSAFE = re.compile(r"[^A-Za-z0-9]")
SLUG_MAX = 200


def claude_config_dir() -> Path:
    configured = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(configured).expanduser() if configured else Path.home() / ".claude"


def project_slug(root: Path | str) -> str:
    """Claude Code's folder name for a project: every non-alphanumeric character becomes `-`."""
    return _SLUG_UNSAFE.sub("-", str(root))


@lru_cache(maxsize=64)
def repo_root(start: Path) -> Path | None:
    """The main checkout of the git repository holding `start` (worktrees share it).

    A submodule's common dir lives inside the superproject's `.git/modules/`, so there
    the submodule's own top level is the root.
    """
    folder = start if start.is_dir() else start.parent
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--path-format=absolute", "--git-common-dir", "--show-toplevel"],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None
    parts = out.stdout.splitlines()
    if len(parts) < 2:  # a bare repository or a .git folder: no work tree
        return None
    common, toplevel = Path(parts[0]), Path(parts[1])
    if common.name == ".git":
        return common.parent.resolve()
    return toplevel.resolve()


def _settings_memory_dir() -> Path | None:
    """Claude Code's `autoMemoryDirectory` setting, when the user set one."""
    settings = claude_config_dir() / "settings.json"
    try:
        data = json.loads(settings.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    value = data.get("autoMemoryDirectory") if isinstance(data, dict) else None
    return Path(value).expanduser() if isinstance(value, str) and value else None


def project_store(cwd: Path, configured: Path | None = None) -> Path | None:
    """The memory store Claude Code uses for the project at `cwd`, if it exists.

    Order: config `memory_store`, the `autoMemoryDirectory` setting, then
    `<config>/projects/<slug of repo root, else cwd>/memory` (long slugs match by prefix).
    """
    for explicit in (configured, _settings_memory_dir()):
        if explicit is not None:
            return explicit if explicit.is_dir() else None
    root = repo_root(cwd.resolve()) or cwd.resolve()
    projects = claude_config_dir() / "projects"
    slug = project_slug(root)
    candidate = projects / slug / "memory"
    if candidate.is_dir():
        return candidate
    if len(slug) > SLUG_MAX and projects.is_dir():
        prefix = slug[:SLUG_MAX]
        for entry in sorted(projects.iterdir()):
            if entry.name.startswith(prefix) and (entry / "memory").is_dir():
                return entry / "memory"
    return None


def all_stores(projects: Path | None = None) -> list[Path]:
    """Every `memory/` folder under `<config>/projects/` (or the given folder)."""
    base = projects or claude_config_dir() / "projects"
    if not base.is_dir():
        return []
    return sorted(p for p in base.glob("*/memory") if p.is_dir())


def store_of(path: Path) -> Path:
    """The store a memory file belongs to: the nearest folder up with a MEMORY.md,
    else a folder named `memory`, else the file's own folder."""
    folder = path.parent
    for candidate in (folder, *folder.parents[:2]):
        if (candidate / INDEX_NAME).is_file() or candidate.name == "memory":
            return candidate
    return folder


def repo_root_for(store: Path, config: Config, override: Path | None, cwd: Path) -> Path | None:
    """The repository whose files a store's memories talk about.

    `--repo-root` or config `repo_root` first; then the repository that holds the store;
    then the current project's repository when the store is that project's store.
    """
    explicit = override or config.path("repo_root")
    if explicit is not None:
        return explicit.resolve()
    holder = repo_root(store)
    if holder is not None:
        return holder
    here = repo_root(cwd.resolve())
    if here is not None and store.parent.name.startswith(project_slug(here)[:200]):
        return here
    return None
