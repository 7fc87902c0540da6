"""Where things are: Claude Code's config folder, the project's repository root, its store."""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from curator.git import git_output
from curator.store.reading import INDEX_NAME

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
    out = git_output(folder, "rev-parse", "--path-format=absolute", "--git-common-dir",
                     "--show-toplevel", timeout=10)  # fmt: skip
    if out is None:
        return None
    parts = out.decode("utf-8", "surrogateescape").splitlines()
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


@dataclass(frozen=True)
class FoundStore:
    """A project's store and how it was found: `memory_store` (config),
    `autoMemoryDirectory` (Claude Code's setting) or `project` (the slug folder)."""

    path: Path
    how: str


def project_store(cwd: Path, configured: Path | None = None) -> FoundStore | None:
    """The memory store Claude Code uses for the project at `cwd`, if it exists.

    Order: config `memory_store`, the `autoMemoryDirectory` setting, then
    `<config>/projects/<slug of repo root, else cwd>/memory` (long slugs match by prefix).
    """
    explicit = ((configured, "memory_store"), (_settings_memory_dir(), "autoMemoryDirectory"))
    for folder, how in explicit:
        if folder is not None:
            return FoundStore(folder, how) if folder.is_dir() else None
    root = repo_root(cwd.resolve()) or cwd.resolve()
    projects = claude_config_dir() / "projects"
    slug = project_slug(root)
    if len(slug) <= SLUG_MAX:
        candidate = projects / slug / "memory"
        return FoundStore(candidate, "project") if candidate.is_dir() else None
    if projects.is_dir():  # a long slug is cut and suffixed with a hash: match the prefix
        prefix = slug[:SLUG_MAX]
        for entry in sorted(projects.iterdir()):
            if entry.name.startswith(prefix) and (entry / "memory").is_dir():
                return FoundStore(entry / "memory", "project")
    return None


def slug_matches(name: str, root: Path) -> bool:
    """Whether a projects folder `name` is Claude Code's slug for `root` (long slugs by prefix)."""
    slug = project_slug(root)
    if len(slug) > SLUG_MAX:
        return name.startswith(slug[:SLUG_MAX])
    return name == slug


def path_for_slug(slug: str, root: Path = Path("/")) -> Path | None:
    """The existing folder whose slug is `slug`, when exactly one is; else None.

    A slug loses the difference between `/`, `-`, `.` and `_`, so the search follows only
    folders whose slug is a prefix of it; two matches are ambiguous and give None. Long,
    hashed slugs and non-POSIX slugs cannot be decoded.
    """
    if len(slug) > SLUG_MAX or not slug.startswith("-"):
        return None
    found: list[Path] = []

    def walk(folder: Path, prefix: str) -> None:
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            return
        for name in names:
            here = f"{prefix}-{_SLUG_UNSAFE.sub('-', name)}"
            if len(found) > 1 or not slug.startswith(here):
                continue
            path = folder / name
            if here == slug and path.is_dir():
                found.append(path)
            elif slug.startswith(here + "-") and path.is_dir():
                walk(path, here)  # every step eats a name, so the depth is bounded

    walk(root, project_slug(root).rstrip("-"))
    return found[0] if len(found) == 1 else None


# Folders never searched for stores (hidden ones are skipped too): dependencies, builds.
_PRUNE = frozenset({"node_modules", "__pycache__", "site-packages", "venv", "dist", "build"})


def all_stores(base: Path | None = None) -> list[Path]:
    """Every store under `<config>/projects/` (`*/memory`), or under the given folder.

    Under a given folder (a dotfiles repository, a project) every `memory/` folder that
    looks like a store counts: one holding a MEMORY.md, one at `projects/<slug>/memory`,
    one at `.claude/memory`. Hidden folders other than `.claude` are not searched.
    """
    if base is None:
        projects = claude_config_dir() / "projects"
        if not projects.is_dir():
            return []
        return sorted(p for p in projects.glob("*/memory") if p.is_dir())
    if not base.is_dir():
        return []
    found: list[Path] = []
    for folder, dirs, _files in os.walk(base):
        here = Path(folder)
        if _looks_like_store(here, base):
            found.append(here)
            dirs.clear()  # a store's subfolders belong to it
            continue
        dirs[:] = sorted(
            d for d in dirs if d not in _PRUNE and (not d.startswith(".") or d == ".claude")
        )
    return sorted(found)


def _looks_like_store(folder: Path, base: Path) -> bool:
    if folder.name != "memory":
        return False
    return (
        (folder / INDEX_NAME).is_file()
        or folder.parent.parent.name == "projects"
        or folder.parent.parent == base
        or folder == base
        or folder.parent.name in (".claude", "claude")
    )


def store_of(path: Path) -> Path:
    """The store a memory file belongs to: the nearest folder up holding a MEMORY.md or
    named `memory`, not above the repository's top; else the file's own folder."""
    folder = path.parent
    for candidate in (folder, *folder.parents):
        if (candidate / INDEX_NAME).is_file() or candidate.name == "memory":
            return candidate
        if (candidate / ".git").exists():
            break
    return folder
