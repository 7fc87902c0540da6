"""Stale paths: files and folders a memory names that the repository no longer has.

Candidates come from inline code spans, markdown link targets and prose (the rule's
patterns find paths in prose). A candidate is cleaned (`file.py:12` → `file.py`,
punctuation and anchors dropped), filtered through the rule's skip lists (URLs, globs,
templates, versions, fractions, dates, build folders), then resolved lexically against
the allowed roots: the repository, the memory store, and the home folder for `~/`.
Only a path that lands inside an allowed root is ever stat'ed; one that climbs out
(`../../etc/passwd`) is reported as out of bounds, unprobed.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from curator import patterns, references, repo_files
from curator.models import Hit, Memory, Severity

if TYPE_CHECKING:
    from curator.engine import Context
    from curator.models import Rule

PARAMS: dict[str, Any] = {
    "in_code": True,
    "in_links": True,
    "in_prose": True,
    "skip_fenced": True,
    "extensions": [],
    "skip_patterns": [],
    "skip_dirs": [],
    "check_home": True,
    "outside_severity": "info",
    "max_per_file": 50,
}

NO_REPO_NOTE = (
    "path and symbol rules (CUR201, CUR202) skipped: no repository root found for the "
    "store; pass --repo-root or set repo_root in .curator.yaml"
)
_LEAD = "\"'([*"
_TRAIL = "\"'),;:!?*]."
# `file.py:12`, `file.py:12-30`, `file.py:func()`, `doc.md#anchor`, `page.html?x=1`
_LINE_SUFFIX = re.compile(r"(?::[^/]*|[#?].*)$")


@dataclass(frozen=True)
class Candidate:
    text: str  # the cleaned path
    start: int  # offset in memory.text
    explicit: bool  # surely meant as a path: a link, an extension, ./, ../, ~/, /, trailing /


def check(rule: Rule, ctx: Context) -> Iterator[Hit]:
    root = ctx.repo_root
    if root is None or not root.is_dir():
        if NO_REPO_NOTE not in ctx.notes:
            ctx.notes.append(NO_REPO_NOTE)
        return
    resolver = _Resolver(root, ctx.store.root, rule.params)
    outside = Severity.parse(rule.params["outside_severity"])
    for memory in ctx.memories(rule):
        count = 0
        for candidate in _candidates(rule, memory):
            status = resolver.status(candidate, memory)
            if status is None:
                continue
            line, column = memory.locate(candidate.start)
            end_line, end_column = memory.locate(candidate.start + len(candidate.text))
            detail = {"path": candidate.text, "problem": _PROBLEMS[status]}
            severity = outside if status == "outside" else None
            yield Hit(
                memory.path, line, column, end_line, end_column, detail=detail, severity=severity
            )
            count += 1
            if count >= rule.params["max_per_file"]:
                break


_PROBLEMS = {
    "missing": "does not exist",
    "outside": "points outside the repository and the store (not checked)",
}


def _candidates(rule: Rule, memory: Memory) -> Iterator[Candidate]:
    params = rule.params
    scan = references.scan(memory, params["skip_fenced"])
    found: list[Candidate] = []
    if params["in_code"]:
        for ref in scan.code:
            words = references.tokens(ref)
            for token in words:
                cleaned = _clean(token.text, token.start, link=False, params=params)
                # In a command (`adb pull x > file.png`) only a slash path is a claim.
                found.extend(c for c in cleaned if len(words) == 1 or "/" in c.text)
    if params["in_links"]:
        for ref in scan.links:
            found.extend(_clean(ref.text, ref.start, link=True, params=params))
    if params["in_prose"]:
        for ref in scan.prose:
            for pattern in rule.patterns:
                for match in patterns.finditer(pattern, ref.text):
                    group = "path" if "path" in match.groupdict() else 0
                    start = ref.start + match.start(group)
                    found.extend(_clean(match.group(group), start, link=False, params=params))
    seen: set[int] = set()
    for candidate in sorted(found, key=lambda c: c.start):
        if candidate.start not in seen:
            seen.add(candidate.start)
            yield candidate


def _clean(raw: str, start: int, link: bool, params: dict[str, Any]) -> list[Candidate]:
    """Zero or one candidate: the path inside `raw`, or nothing when it is not a path."""
    text = raw
    stripped = len(text) - len(text.lstrip(_LEAD))
    text, start = text[stripped:], start + stripped
    if not link and (text.startswith("-") or "=" in text.split("/", 1)[0]):
        if "=" not in text:
            return []  # a command-line flag
        cut = text.index("=") + 1
        text, start = text[cut:], start + cut
        stripped = len(text) - len(text.lstrip(_LEAD))
        text, start = text[stripped:], start + stripped
    text = text.rstrip(_TRAIL) if not text.endswith(("./", "../")) else text
    text = _LINE_SUFFIX.sub("", text).rstrip(_TRAIL)
    if not text or not any(ch.isalnum() for ch in text):
        return []
    if any(patterns.search(p, text) for p in _compiled(tuple(params["skip_patterns"]))):
        return []
    segments = [s for s in text.split("/") if s]
    skip_dirs = set(params["skip_dirs"])
    if any(s in skip_dirs for s in segments):
        return []
    has_extension = _has_extension(segments[-1], params["extensions"])
    if "/" not in text and not has_extension:
        return []
    if not link and text.endswith("/") and len(segments) == 1 and text[0] not in "./~":
        return []  # a lone `logs/` says too little about where it is
    # An extensionless `a/b` is checked only when its folder exists (see _Resolver).
    explicit = (
        link or has_extension or text.startswith(("./", "../", "~/", "/")) or text.endswith("/")
    )
    return [Candidate(text, start, explicit)]


def _has_extension(name: str, extensions: list[str]) -> bool:
    if "." not in name.strip("."):
        return False
    return name.rsplit(".", 1)[1].lower() in {e.lower() for e in extensions}


@lru_cache(maxsize=32)
def _compiled(sources: tuple[str, ...]) -> tuple[Any, ...]:
    return tuple(patterns.compile_pattern(s) for s in sources)


class _Resolver:
    """Resolves candidates lexically and stats only what lands inside an allowed root."""

    def __init__(self, repo: Path, store: Path, params: dict[str, Any]) -> None:
        self.repo = repo.resolve()
        self.store = store.resolve()
        self.home = Path.home().resolve() if params["check_home"] else None

    def _inside(self, path: Path) -> bool:
        """Inside the repository or the store (the home folder is only for `~/` paths)."""
        return path.is_relative_to(self.repo) or path.is_relative_to(self.store)

    def status(self, candidate: Candidate, memory: Memory) -> str | None:
        """None when the path is live or not checkable, else 'missing' or 'outside'."""
        text = candidate.text
        if text.startswith("~"):
            if self.home is None or not text.startswith("~/"):
                return None
            target = _normal(self.home / text[2:])
            if not target.is_relative_to(self.home):
                return "outside"
            return None if os.path.lexists(target) else "missing"
        if text.startswith("/"):
            target = _normal(Path(text))
            if not self._inside(target):
                return None  # another machine's or the system's file: not ours to check
            return None if os.path.lexists(target) else "missing"
        bases = [self.repo, memory.path.parent, self.store]
        first, _, rest = text.partition("/")
        tries = [_normal(base / text) for base in bases]
        if first == self.repo.name and rest:
            tries.append(_normal(self.repo / rest))  # `<repo>/...` is relative to its parent
        inside = [t for t in tries if self._inside(t)]
        if not inside:
            return "outside"
        if any(os.path.lexists(t) for t in inside):
            return None
        if "/" not in text.rstrip("/"):
            return None if text.rstrip("/") in repo_files.basenames(self.repo) else "missing"
        if repo_files.has_suffix(self.repo, _without_parents(text)):
            return None  # written relative to a subfolder: `core/overlay.ts` for app/core/...
        shorter = _normal(self.repo / rest)
        if "/" in rest and shorter.is_relative_to(self.repo) and os.path.lexists(shorter):
            return None  # written from a parent checkout: `mobile-app/lib/x.dart`
        folder = _normal(self.repo / text).parent
        if not candidate.explicit and not (self._inside(folder) and folder.is_dir()):
            return None  # `application/json`, `feature/login`: not a path in this repo
        if self._slash_list(text):
            return None
        return "missing"

    def _slash_list(self, text: str) -> bool:
        """`README/ARCHITECTURE/CLAUDE.md` names several files, not one path."""
        parts = text.split("/")
        if len(parts) < 2 or not all(p not in ("", ".", "..") for p in parts):
            return False
        if (self.repo / parts[0]).is_dir():
            return False
        if all("." in p.strip(".") for p in parts):
            return True  # `vehicles.ide/carcols.dat/handling.cfg`: every part is a file
        names = repo_files.basenames(self.repo)
        stems = repo_files.stems(self.repo)
        # The last member alone existing elsewhere means a moved file, not a list.
        return any(p in names or p in stems for p in parts[:-1])


def _without_parents(text: str) -> str:
    while text.startswith(("../", "./")):
        text = text.split("/", 1)[1]
    return text


def _normal(path: Path) -> Path:
    return Path(os.path.normpath(path))
