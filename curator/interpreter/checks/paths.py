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

from curator.interpreter import patterns
from curator.models import Hit, Memory, Severity
from curator.repo import references, tree

if TYPE_CHECKING:
    from curator.interpreter.context import Context
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

_ROOTED = ("./", "../", "~/", "/")
_LEAD = "\"'([*"
_TRAIL = "\"'),;:!?*]."
# `file.py:12`, `file.py:12-30`, `file.py:func()`, `doc.md#anchor`, `page.html?x=1`
_LINE_SUFFIX = re.compile(r"(?::[^/]*|[#?].*)$")


@dataclass(frozen=True)
class Candidate:
    text: str  # the cleaned path
    start: int  # offset in memory.text
    explicit: bool  # surely meant as a path: a link, an extension, ./, ../, ~/, /, trailing /


def validate(params: dict[str, Any]) -> str | None:
    """A problem with the params, said in one line, or None (called by the rule loader)."""
    try:
        _skip_pattern(tuple(params["skip_patterns"]))
    except Exception as exc:  # regex.error and friends
        return f"bad skip_patterns regex: {exc}"
    if params["outside_severity"] not in ("error", "warning", "info"):
        return "outside_severity must be error, warning or info"
    return None


def check(rule: Rule, ctx: Context) -> Iterator[Hit]:
    root = ctx.repo_root
    if root is None or not root.is_dir():
        return  # linting.lint drops this rule for such stores and says why, once
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
    skip = _skip_pattern(tuple(params["skip_patterns"]))
    if skip is not None and patterns.search(skip, text):
        return []
    segments = [s for s in text.split("/") if s]
    skip_dirs = set(params["skip_dirs"])
    if any(s in skip_dirs for s in segments):
        return []
    has_extension = _has_extension(segments[-1], params["extensions"])
    if "/" not in text and not has_extension:
        return []
    if not link and text.endswith("/") and len(segments) == 1 and not text.startswith(_ROOTED):
        return []  # a lone `logs/` says too little about where it is
    # An extensionless `a/b` is checked only when its folder exists (see _Resolver).
    explicit = link or has_extension or text.startswith(_ROOTED) or text.endswith("/")
    return [Candidate(text, start, explicit)]


def _has_extension(name: str, extensions: list[str]) -> bool:
    if "." not in name.strip("."):
        return False
    return name.rsplit(".", 1)[1].lower() in _lowered(tuple(extensions))


@lru_cache(maxsize=32)
def _lowered(words: tuple[str, ...]) -> frozenset[str]:
    return frozenset(w.lower() for w in words)


@lru_cache(maxsize=32)
def _skip_pattern(sources: tuple[str, ...]) -> Any:
    """The rule's skip patterns as one alternation: one search per candidate."""
    if not sources:
        return None
    return patterns.compile_pattern("|".join(f"(?:{s})" for s in sources))


class _Resolver:
    """Resolves candidates lexically and stats only what lands inside an allowed root.

    Works on strings (os.path), not Path objects: a store has thousands of candidates.
    """

    def __init__(self, repo: Path, store: Path, params: dict[str, Any]) -> None:
        self.repo_path = repo.resolve()
        self.repo = str(self.repo_path)
        self.store = str(store.resolve())
        self.home = str(Path.home().resolve()) if params["check_home"] else None
        self.repo_name = self.repo_path.name
        self._seen: dict[tuple[str, str], str | None] = {}

    def _inside(self, path: str) -> bool:
        """Inside the repository or the store (the home folder is only for `~/` paths)."""
        return _within(path, self.repo) or _within(path, self.store)

    def status(self, candidate: Candidate, memory: Memory) -> str | None:
        """None when the path is live or not checkable, else 'missing' or 'outside'."""
        key = (
            candidate.text if candidate.explicit else "\0" + candidate.text,
            str(memory.path.parent),
        )
        if key not in self._seen:
            self._seen[key] = self._status(candidate, key[1])
        return self._seen[key]

    def _status(self, candidate: Candidate, folder: str) -> str | None:
        text = candidate.text
        join, normal, lexists = os.path.join, os.path.normpath, os.path.lexists
        if text.startswith("~"):
            if self.home is None or not text.startswith("~/"):
                return None
            target = normal(join(self.home, text[2:]))
            if not _within(target, self.home):
                return "outside"
            return None if lexists(target) else "missing"
        if text.startswith("/"):
            target = normal(text)
            if not self._inside(target):
                return None  # another machine's or the system's file: not ours to check
            return None if lexists(target) else "missing"
        first, _, rest = text.partition("/")
        tries = [normal(join(base, text)) for base in (self.repo, folder, self.store)]
        if first == self.repo_name and rest:
            tries.append(normal(join(self.repo, rest)))  # `<repo>/...` is relative to its parent
        inside = [t for t in tries if self._inside(t)]
        if not inside:
            return "outside"
        if any(lexists(t) for t in inside):
            return None
        if "/" not in text.rstrip("/"):
            return None if text.rstrip("/") in tree.basenames(self.repo_path) else "missing"
        if tree.has_suffix(self.repo_path, _without_parents(text)):
            return None  # written relative to a subfolder: `core/overlay.ts` for app/core/...
        shorter = normal(join(self.repo, rest))
        if "/" in rest and _within(shorter, self.repo) and lexists(shorter):
            return None  # written from a parent checkout: `mobile-app/lib/x.dart`
        parent = os.path.dirname(normal(join(self.repo, text.rstrip("/"))))
        if not candidate.explicit and not (self._inside(parent) and os.path.isdir(parent)):
            return None  # `application/json`, `feature/login`: not a path in this repo
        if self._slash_list(text):
            return None
        return "missing"

    def _slash_list(self, text: str) -> bool:
        """`README/ARCHITECTURE/CLAUDE.md` names several files, not one path."""
        parts = text.split("/")
        if len(parts) < 2 or not all(p not in ("", ".", "..") for p in parts):
            return False
        if os.path.isdir(os.path.join(self.repo, parts[0])):
            return False
        if all("." in p.strip(".") for p in parts):
            return True  # `vehicles.ide/carcols.dat/handling.cfg`: every part is a file
        names = tree.basenames(self.repo_path)
        stems = tree.stems(self.repo_path)
        # The last member alone existing elsewhere means a moved file, not a list.
        return any(p in names or p in stems for p in parts[:-1])


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _without_parents(text: str) -> str:
    while text.startswith(("../", "./")):
        text = text.split("/", 1)[1]
    return text
