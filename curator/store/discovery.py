"""Where things are: Claude Code's config folder, the project's repository root, its store."""

from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from curator.git import git_output
from curator.store import evidence, layout
from curator.store.claude_settings import claude_config_dir as claude_config_dir
from curator.store.claude_settings import memory_setting
from curator.store.layout import INDEX_NAME

_SLUG_UNSAFE = re.compile(r"[^A-Za-z0-9]")
SLUG_MAX = 200


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
    if not _git_may_be_above(folder):
        return None  # saves a git process: most often a store copied out of any repository
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


def _git_may_be_above(folder: Path) -> bool:
    """Whether git could find a work tree holding `folder`: a `.git` in it or a folder
    above, or `GIT_DIR` / `GIT_WORK_TREE` set. Git finds work trees no other way."""
    if os.environ.get("GIT_DIR") or os.environ.get("GIT_WORK_TREE"):
        return True
    for path in {os.path.abspath(folder), os.path.realpath(folder)}:  # a symlinked store
        here = Path(path)
        if any(os.path.lexists(os.path.join(p, ".git")) for p in (here, *here.parents)):
            return True
    return False


class FoundStore(NamedTuple):
    """A store and how it was found: `memory_store` (config), `autoMemoryDirectory`
    (Claude Code's setting), `project` (the slug folder), or, from `all_stores`, what
    made the folder look like a store."""

    path: Path
    how: str


def project_store(cwd: Path, configured: Path | None = None) -> FoundStore | None:
    """The memory store Claude Code uses for the project at `cwd`, if it exists.

    Order: config `memory_store`, Claude Code's `autoMemoryDirectory` setting (read as
    Claude Code reads it: `claude_settings`), then
    `<config>/projects/<slug of repo root, else cwd>/memory` (long slugs match by prefix).
    """
    if configured is not None:
        return FoundStore(configured, "memory_store") if configured.is_dir() else None
    root = repo_root(cwd.resolve()) or cwd.resolve()
    setting = memory_setting(root).directory
    if setting is not None:
        return FoundStore(setting, "autoMemoryDirectory") if setting.is_dir() else None
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
    return _folder_for(slug, root, project_slug(root).rstrip("-"))


def folder_for_slug_tail(tail: str, root: Path) -> Path | None:
    """The folder under `root` whose root-relative path, slugged, is `tail` (`-a-b` for
    `root/a/b`, `""` for `root` itself), when exactly one is; else None."""
    if not tail:
        return root
    if len(tail) > SLUG_MAX or not tail.startswith("-"):
        return None
    return _folder_for(tail, root, "")


def _folder_for(slug: str, root: Path, start: str) -> Path | None:
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

    walk(root, start)
    return found[0] if len(found) == 1 else None


# Folders never searched for stores: dependencies, builds, caches. Hidden folders are not
# searched either, except the two where agents keep memory; nor is a virtualenv.
_PRUNE = frozenset({"node_modules", "__pycache__", "site-packages", "venv", "dist", "build"})
_HIDDEN_SEARCHED = frozenset({".claude", ".openclaw"})
_VIRTUALENV_MARKERS = ("pyvenv.cfg", "conda-meta")


def all_stores(base: Path | None = None) -> list[FoundStore]:
    """Every store under `<config>/projects/` (`*/memory`), or under the given folder.

    Under a given folder (a dotfiles repository, a project, a folder of checkouts) a store
    is found by what it holds (`evidence.store_evidence`), whatever its name; the search
    honours each repository's .gitignore and never enters `.git`, `node_modules` or a
    virtualenv. A store's own subfolders belong to it and are not searched.
    """
    if base is None:
        projects = claude_config_dir() / "projects"
        if not projects.is_dir():
            return []
        found = sorted(p for p in projects.glob("*/memory") if p.is_dir())
        return [FoundStore(p, "Claude Code's projects/<slug>/memory") for p in found]
    if not base.is_dir():
        return []
    base = base.resolve()
    ignored = _GitIgnored()
    ignored.load(base)
    stores: list[FoundStore] = []
    for folder, dirs, _files in os.walk(base):
        here = Path(folder)
        if here != base and (here / ".git").exists():
            ignored.load(here)  # a repository inside: its own .gitignore
        why = evidence.store_evidence(here)
        if why is not None:
            stores.append(FoundStore(here, why))
            dirs.clear()
            continue
        dirs[:] = sorted(d for d in dirs if _searched(here / d) and not ignored(here / d))
    return sorted(stores, key=lambda s: s.path)


def _searched(folder: Path) -> bool:
    name = folder.name
    if name in _PRUNE or (name.startswith(".") and name not in _HIDDEN_SEARCHED):
        return False
    return not any((folder / marker).exists() for marker in _VIRTUALENV_MARKERS)


class _GitIgnored:
    """Folders the .gitignore of the repositories met so far leaves out (untracked ones)."""

    def __init__(self) -> None:
        self.folders: set[str] = set()
        self.loaded: set[str] = set()

    def load(self, folder: Path) -> None:
        top = git_output(folder, "rev-parse", "--show-toplevel", timeout=10)
        if top is None:
            return
        root = top.decode("utf-8", "surrogateescape").strip()
        if root in self.loaded:
            return
        self.loaded.add(root)
        listed = git_output(Path(root), "ls-files", "-z", "--others", "--ignored",
                            "--exclude-standard", "--directory", timeout=30)  # fmt: skip
        for rel in (listed or b"").decode("utf-8", "surrogateescape").split("\0"):
            if rel.endswith("/"):
                self.folders.add(os.path.normpath(os.path.join(root, rel)))

    def __call__(self, folder: Path) -> bool:
        return os.path.normpath(folder) in self.folders


def store_of(path: Path) -> Path:
    """The store a memory file belongs to: the OpenClaw workspace whose notes hold it, or
    the nearest folder up holding a MEMORY.md or named `memory`, not above the
    repository's top; else the file's own folder."""
    workspace = layout.workspace_of(path)
    if workspace is not None:
        return workspace
    folder = path.parent
    for candidate in (folder, *folder.parents):
        if (candidate / INDEX_NAME).is_file() or candidate.name == "memory":
            return candidate
        if (candidate / ".git").exists():
            break
    return folder
