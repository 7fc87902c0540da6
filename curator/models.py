"""The plain values that flow through the pipeline: memories, rules, diagnostics."""

from __future__ import annotations

import bisect
import os
from dataclasses import dataclass, field
from datetime import date
from enum import IntEnum
from functools import cached_property
from pathlib import Path
from typing import Any, NamedTuple


class Severity(IntEnum):
    """Ordered so that `severity >= fail_on` reads naturally."""

    INFO = 1
    WARNING = 2
    ERROR = 3

    @classmethod
    def parse(cls, text: str) -> Severity:
        return cls[text.upper()]

    def __str__(self) -> str:
        return self.name.lower()


MEMORY_TYPES = ("user", "feedback", "project", "reference")
# Store layouts (see `store.layout`): Claude Code's auto-memory, an OpenClaw workspace.
LAYOUTS = ("claude", "openclaw")


@dataclass(frozen=True)
class Memory:
    """One memory file, read and split into frontmatter and body."""

    path: Path  # absolute
    rel: str  # store-relative, posix separators: the name users see
    text: str
    lines: tuple[str, ...]  # without line endings; lines[0] is line 1
    sha256: str
    frontmatter: dict[str, Any]
    frontmatter_error: tuple[int, str] | None  # (line, message) when not valid YAML
    has_frontmatter: bool
    body_line: int  # 1-based line where the body starts
    mtime: float  # its write date: `interpreter.write_dates.write_date`: frontmatter, git, mtime

    @property
    def type(self) -> str | None:
        value = self.frontmatter.get("type")
        return value if isinstance(value, str) else None

    @property
    def name(self) -> str | None:
        value = self.frontmatter.get("name")
        return value if isinstance(value, str) else None

    @property
    def description(self) -> str | None:
        value = self.frontmatter.get("description")
        return value if isinstance(value, str) else None

    def body(self) -> str:
        return "\n".join(self.lines[self.body_line - 1 :])

    @cached_property
    def line_starts(self) -> tuple[int, ...]:
        """Offset in `text` where each line starts; line_starts[0] is line 1."""
        starts = [0]
        find = self.text.find
        position = find("\n")
        while position != -1:
            starts.append(position + 1)
            position = find("\n", position + 1)
        return tuple(starts[: len(self.lines)] or [0])

    def locate(self, offset: int) -> tuple[int, int]:
        """(1-based line, 1-based column) of an offset in `text`."""
        line = bisect.bisect_right(self.line_starts, offset)
        return line, offset - self.line_starts[line - 1] + 1

    @cached_property
    def fenced_lines(self) -> frozenset[int]:
        """Line numbers inside ``` or ~~~ fences (the fence lines included)."""
        if "```" not in self.text and "~~~" not in self.text:
            return frozenset()
        inside, fenced = False, set()
        for number, line in enumerate(self.lines, start=1):
            opens = line.lstrip().startswith(("```", "~~~"))
            if inside or opens:
                fenced.add(number)
            if opens:
                inside = not inside
        return frozenset(fenced)


class IndexEntry(NamedTuple):
    """One link found in MEMORY.md."""

    line: int
    column: int  # 1-based, where the link starts
    end_column: int
    title: str
    target: str  # as written, anchor and angle brackets removed
    is_url: bool
    wikilink: bool = False  # `[[name]]`: `target` is the name with `.md` added


@dataclass(frozen=True)
class Index:
    """MEMORY.md: its text, lines and the links found in it."""

    path: Path
    text: str
    lines: tuple[str, ...]
    sha256: str
    entries: tuple[IndexEntry, ...]

    @cached_property
    def links_per_line(self) -> dict[int, int]:
        """How many links each line holds (counted once: a fix asks for every entry)."""
        counts: dict[int, int] = {}
        for entry in self.entries:
            counts[entry.line] = counts.get(entry.line, 0) + 1
        return counts

    @cached_property
    def resolved(self) -> tuple[tuple[IndexEntry, str | None, str], ...]:
        """Each local link as (entry, store-relative name or None when it leaves the store,
        lexically normalized absolute path). URLs are left out. Never touches the disk."""
        root = str(self.path.parent)
        prefix = os.path.join(root, "")
        out = []
        for entry in self.entries:
            if entry.is_url:
                continue
            absolute = os.path.normpath(os.path.join(root, entry.target))
            inside = absolute.startswith(prefix)
            rel = absolute[len(prefix) :].replace(os.sep, "/") if inside else None
            out.append((entry, rel, absolute))
        return tuple(out)


class FileProblem(NamedTuple):
    """A file the reader could not take as a memory (binary, huge, not UTF-8, escaping symlink)."""

    path: Path
    rel: str
    reason: str
    message: str


@dataclass(frozen=True)
class Store:
    """A memory store as read: its index, its memories and the files it could not read."""

    root: Path
    index: Index | None
    memories: tuple[Memory, ...]
    problems: tuple[FileProblem, ...]
    layout: str = "claude"  # one of LAYOUTS, told by the folder's content

    def memory(self, rel: str) -> Memory | None:
        for memory in self.memories:
            if memory.rel == rel:
                return memory
        return None


@dataclass(frozen=True)
class RuleTest:
    """One case of a rule file's `tests:`: the files it writes and what it expects."""

    name: str
    files: dict[str, str | bytes]
    expect: tuple[dict[str, Any], ...]
    today: date | None
    params: dict[str, Any]
    repo: dict[str, str] | None
    line: int
    config: dict[str, Any] = field(default_factory=dict)  # .curator.yaml keys for the case
    # Commits that build the case's repository as a real git history (dated, in order):
    # {date, message, files: {path: text}, delete: [path], rename: {old: new}}.
    history: tuple[dict[str, Any], ...] = ()
    llm_answers: tuple[Any, ...] = ()  # canned model answers for an llm-tier rule's case
    written: date | None = None  # the store files' mtime (noon UTC that day), else now


@dataclass(frozen=True)
class Rule:
    """A compiled rule file. `patterns` are compiled `regex` objects."""

    code: str
    name: str
    check: str
    tier: str
    severity: Severity
    summary: str
    message: str
    source: Path
    applies_to_types: tuple[str, ...] | None = None
    applies_to_layouts: tuple[str, ...] | None = None
    params: dict[str, Any] = field(default_factory=dict)
    patterns: tuple[Any, ...] = ()
    identity: tuple[str, ...] = ()
    prompt: str | None = None
    docs: str = ""
    fixable: bool = False
    persist: bool = True  # False: about curator's run, not a memory; never a finding
    # The finding event's own fields: design field name -> detail key (docs/events.md).
    event: dict[str, str] = field(default_factory=dict)
    opt_in: bool = False  # runs only when selected by its exact code or name
    tests: tuple[RuleTest, ...] = ()

    def applies_to(self, memory: Memory) -> bool:
        return self.applies_to_types is None or memory.type in self.applies_to_types

    def applies_to_layout(self, layout: str) -> bool:
        return self.applies_to_layouts is None or layout in self.applies_to_layouts


@dataclass(frozen=True)
class Hit:
    """What a check reports; the engine turns it into a Diagnostic."""

    path: Path
    line: int
    column: int = 1
    end_line: int | None = None
    end_column: int | None = None
    detail: dict[str, Any] = field(default_factory=dict)
    memory_files: tuple[str, ...] = ()
    severity: Severity | None = None  # overrides the rule's severity
    fix: Fix | None = None


@dataclass(frozen=True)
class Edit:
    """One exact change to one file: replace lines [start, end) with `content`."""

    start_line: int
    end_line: int
    content: str


@dataclass(frozen=True)
class Fix:
    """Exact edits to one file, planned against the content whose sha256 it holds."""

    kind: str  # ADD | REMOVE | REPLACE
    path: Path
    base_sha256: str
    edits: tuple[Edit, ...]
    safe: bool
    description: str


@dataclass(frozen=True)
class Diagnostic:
    """What curator reports: a rule's code and message at a place in a file."""

    code: str
    name: str
    severity: Severity
    path: Path
    line: int
    column: int
    end_line: int
    end_column: int
    message: str
    store: Path | None = None
    memory_files: tuple[str, ...] = ()
    detail: dict[str, Any] = field(default_factory=dict)
    fix: Fix | None = None

    def sort_key(self) -> tuple[str, int, int, str]:
        return (str(self.path), self.line, self.column, self.code)
