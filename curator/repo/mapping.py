"""Which repository a store's memories talk about.

A store in a project (`<repo>/.claude/memory/`) talks about the repository that holds it.
A store kept in a dotfiles repository (`dotfiles/claude/projects/<slug>/memory/`) does
not: its paths and symbols belong to the project named by its slug, somewhere else. Such
stores are mapped by config `repositories: {<slug or glob>: <repository root>}`, or are
the dotfiles repository itself when the slug's path ends inside it (the owner ran Claude
Code in the dotfiles checkout, or in its copy of `~/.claude`), or are found when the slug
names exactly one existing folder on this machine; otherwise the store has no
repository, and the rules that need one are skipped with a note.
"""

from __future__ import annotations

import re
from fnmatch import fnmatchcase
from pathlib import Path
from typing import NamedTuple

from curator.config import Config
from curator.store import discovery

# How a store was found when the project itself named it: it belongs to that project.
CONFIGURED_BY_PROJECT = frozenset({"memory_store", "autoMemoryDirectory"})

# Checks that resolve memory text against a repository's files; skipped without one.
REPOSITORY_CHECKS = frozenset({"paths", "symbols", "commands", "plans", "mismatch"})


class RepoChoice(NamedTuple):
    """A store's repository root, or None and why (`unmapped`, `missing`, `none`)."""

    root: Path | None
    reason: str = ""
    mapped_to: Path | None = None


def store_slug(store: Path) -> str | None:
    """The project slug of a `<...>/projects/<slug>/memory` store, else None."""
    if store.name == "memory" and store.parent.parent.name == "projects":
        return store.parent.name
    return None


def store_label(store: Path) -> str:
    """How a note names a store: its slug when it has one, else its path."""
    return store_slug(store) or str(store)


def mapping_for(store: Path, config: Config) -> tuple[bool, Path | None]:
    """(matched, root) from config `repositories`: an exact slug first, then globs in order.

    Only `projects/<slug>/memory` stores have a slug to map. A null value matches and means
    "no repository": the store's reference rules are skipped without a note.
    """
    slug = store_slug(store)
    if slug is None:
        return False, None
    entries = config.repositories()
    for pattern, root in entries:
        if pattern == slug:
            return True, root
    for pattern, root in entries:
        if fnmatchcase(slug, pattern):
            return True, root
    return False, None


def locate_repository(
    store: Path, config: Config, override: Path | None, cwd: Path, found: str = "argument"
) -> RepoChoice:
    """The repository for `store`, in order of how explicitly the user said so.

    `--repo-root`; config `repositories` (by slug or glob); config `repo_root`; the
    current project's repository when the project named the store itself (`found` is
    `memory_store` or `autoMemoryDirectory`); the repository holding the store, unless
    the store sits in a `projects/<slug>/memory` layout (a dotfiles repository, whose
    files the memories do not talk about); the current project's repository when the
    store's slug is that project's slug; the one existing folder the slug names on this
    machine; the dotfiles repository holding the store when the slug's path ends inside
    it.
    """
    if override is not None:
        return RepoChoice(override.resolve())
    matched, mapped = mapping_for(store, config)
    if matched:
        if mapped is None:
            return RepoChoice(None, "none")
        if not mapped.is_dir():
            return RepoChoice(None, "missing", mapped)
        return RepoChoice(mapped.resolve())
    configured = config.path("repo_root")
    if configured is not None:
        return RepoChoice(configured.resolve())
    if found in CONFIGURED_BY_PROJECT:
        project = discovery.repo_root(cwd.resolve())
        if project is not None:
            return RepoChoice(project)
    slug = store_slug(store)
    if slug is None:
        holder = discovery.repo_root(store)
        if holder is not None:
            return RepoChoice(holder)
    here = discovery.repo_root(cwd.resolve())
    if here is not None and discovery.slug_matches(store.parent.name, here):
        return RepoChoice(here)
    if slug is not None:
        decoded = discovery.path_for_slug(slug)
        if decoded is not None:
            return RepoChoice(decoded.resolve())
        holder = _holder_named(store, slug, config)
        if holder is not None:
            return RepoChoice(holder)
    return RepoChoice(None, "unmapped")


# A slug's home folder: `/Users/x`, `/home/x`, `/root`, `C:\Users\x`.
_HOME = re.compile(r"-(?:Users|home)-[A-Za-z0-9_]+|-root|[A-Za-z]--Users-[A-Za-z0-9_]+")


def _holder_named(store: Path, slug: str, config: Config) -> Path | None:
    found = dotfiles_checkout(store, slug, config)
    return found[0] if found is not None else None


def dotfiles_checkout(
    store: Path, slug: str, config: Config, holder: Path | None = None
) -> tuple[Path, str | None] | None:
    """The dotfiles repository holding `store` when the slug's path ends inside it, and
    where its owner keeps the checkout, as the slug of its home-relative path (`-code-dotfiles`
    for `~/code/dotfiles`; None when the slug does not say).

    The store sits at `<repo>/<folder>/projects/<slug>/memory`, so `<repo>/<folder>` is the
    repository's copy of `~/.claude`: a slug `<home>--claude[-sub]` names it (or a folder in
    it). The checkout itself is where nothing on this machine says; a slug that names a
    folder called as the checkout is (its folder name here, or `references.dotfiles_names`)
    followed by nothing or by a folder the repository has names it. `holder`: the
    repository holding the store, when the caller knows it (saves a git process).
    """
    holder = holder or discovery.repo_root(store)
    if holder is None:
        return None
    config_copy = store.parent.parent.parent.resolve()
    if not config_copy.is_relative_to(holder):
        return None
    names = {holder.name, *(str(n) for n in config.get("references.dotfiles_names") or [])}
    tries = [(config_copy, "--claude", True)]
    if config_copy != holder:  # a repository that is `~/.claude` itself has no other name
        tries += [(holder, "-" + discovery.project_slug(n), False) for n in sorted(names)]
    for base, head, at_home in tries:
        start = slug.find(head)
        while start > 0:
            tail = slug[start + len(head) :]
            home = _HOME.match(slug[:start])
            prefix_ok = home is not None and home.end() == start if at_home else True
            fits = prefix_ok and (tail == "" or tail.startswith("-"))
            if fits and discovery.folder_for_slug_tail(tail, base) is not None:
                in_home = slug[home.end() : start + len(head)] if home and not at_home else None
                return holder, in_home
            start = slug.find(head, start + 1)
    return None


def skip_notes(skipped: list[tuple[Path, RepoChoice]]) -> list[str]:
    """One stderr line per reason for the stores whose reference rules were skipped."""
    notes = []
    unmapped = [store_label(s) for s, c in skipped if c.reason == "unmapped"]
    if unmapped:
        count = "1 store" if len(unmapped) == 1 else f"{len(unmapped)} stores"
        notes.append(
            f"path and symbol rules skipped for {count} with no known repository "
            f"({_listing(unmapped)}); map them under `repositories:` in .curator.yaml "
            "or pass --repo-root"
        )
    missing = [(store_label(s), c.mapped_to) for s, c in skipped if c.reason == "missing"]
    if missing:
        listing = _listing([f"{label} -> {root}" for label, root in missing])
        notes.append(
            f"path and symbol rules skipped: mapped repository not found ({listing}); "
            "fix `repositories:` in .curator.yaml"
        )
    return notes


def _listing(items: list[str], limit: int = 5) -> str:
    shown = ", ".join(items[:limit])
    return shown if len(items) <= limit else f"{shown} and {len(items) - limit} more"
