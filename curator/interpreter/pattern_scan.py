"""Run a rule's patterns over many memory bodies at once.

Calling a regex once per memory costs more than its scan on a short memory, and a rule
with twenty patterns over ten thousand memories makes two hundred thousand calls. Here
the bodies are joined into chunks of about `CHUNK_CHARS` (separated by a NUL line no
pattern crosses) and each pattern runs once per chunk, still under the pattern timeout.
Matches are handed back per memory, earlier patterns winning where two overlap, at most
`cap` per memory.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from curator.interpreter import patterns
from curator.models import Memory

CHUNK_CHARS = 64 * 1024  # small enough that a slow pattern stays inside its timeout
SEPARATOR = "\n\x00\n"


class Found(NamedTuple):
    """One match in a memory: its pattern, span (in the memory's text) and the match."""

    pattern: int
    start: int
    end: int
    match: Any

    @property
    def groups(self) -> dict[str, str | None]:
        return self.match.groupdict()  # type: ignore[no-any-return]


@dataclass
class MemoryMatches:
    found: list[Found] = field(default_factory=list)
    capped: bool = False  # more matches than the cap: the rest were not kept
    starts: list[int] = field(default_factory=list)
    ends: list[int] = field(default_factory=list)

    def add(self, item: Found, cap: int) -> None:
        starts, ends = self.starts, self.ends
        if not starts or item.start >= ends[-1]:
            at = len(starts)  # after everything kept so far: the common case
        else:
            at = bisect.bisect_right(starts, item.start)
            if (at and ends[at - 1] > item.start) or (at < len(starts) and starts[at] < item.end):
                return  # overlaps a match of an earlier pattern
        if len(self.found) >= cap:
            self.capped = True
            return
        starts.insert(at, item.start)
        ends.insert(at, item.end)
        self.found.append(item)


@dataclass(frozen=True)
class _Chunk:
    text: str
    bases: list[int]  # where each memory's text starts in `text`
    members: list[tuple[int, int, int]]  # (memory index, body start, text end) in `text`


def body_start(memory: Memory) -> int:
    """Offset in the memory's text where its body (after the frontmatter) starts."""
    if memory.body_line <= len(memory.lines):
        return memory.line_starts[memory.body_line - 1]
    return len(memory.text)


def scan(
    compiled: Sequence[Any],
    memories: Sequence[Memory],
    cap: int,
    accept: Callable[[Any], Callable[[Any], bool] | None] | None = None,
) -> list[MemoryMatches]:
    """Each memory's matches in its body, in pattern order. `accept(pattern)` may give a
    test that refuses a match (it then takes no room from later patterns)."""
    results = [MemoryMatches() for _ in memories]
    chunks = _chunks(memories)
    for index, pattern in enumerate(compiled):
        reaches_back = "(?<=" in pattern.pattern  # a group may open before the match
        test = accept(pattern) if accept is not None else None
        for chunk in chunks:
            bases, members = chunk.bases, chunk.members
            which, last = 0, len(bases) - 1
            for match in patterns.finditer(pattern, chunk.text):
                start, end = span(match) if reaches_back else match.span()
                while which < last and bases[which + 1] <= start:
                    which += 1  # matches come in order: walk to the memory holding this one
                member, body, limit = members[which]
                if start < body or end > limit:
                    continue  # in the frontmatter, or across a separator
                if test is not None and not test(match):
                    continue
                base = bases[which]
                results[member].add(Found(index, start - base, end - base, match), cap)
    return results


def span(match: Any) -> tuple[int, int]:
    """A match runs from its first captured group: a pattern may anchor on a literal and
    capture what comes before it in a lookbehind (`(?<=(?P<month>...) )(?P<year>...)`)."""
    start = match.start()
    for begins, _ in match.regs[1:]:
        if 0 <= begins < start:
            start = begins
    return start, match.end()


def _chunks(memories: Sequence[Memory]) -> list[_Chunk]:
    chunks: list[_Chunk] = []
    parts: list[str] = []
    bases: list[int] = []
    members: list[tuple[int, int, int]] = []
    size = 0
    for index, memory in enumerate(memories):
        if parts and size + len(memory.text) > CHUNK_CHARS:
            chunks.append(_Chunk("".join(parts), bases, members))
            parts, bases, members, size = [], [], [], 0
        bases.append(size)
        members.append((index, size + body_start(memory), size + len(memory.text)))
        parts.extend((memory.text, SEPARATOR))
        size += len(memory.text) + len(SEPARATOR)
    if parts:
        chunks.append(_Chunk("".join(parts), bases, members))
    return chunks
