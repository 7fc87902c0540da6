"""When a memory is right to name something that is gone: it says so, or it is a journal.

History shows a path or identifier was here and is gone; the sentence around it can
still be right as written: "the old `debugState` store is gone (removed in the
refactor)", "`a.sh` -> `b.sh`", a dated session log of past work. The words, the arrow
shapes and what makes a memory a journal come from the rule's params; this module only
applies them to a memory's text, through `patterns` (the `regex` module, with a timeout).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from curator.interpreter import patterns
from curator.models import Memory

# Where a sentence ends inside a line: terminal punctuation followed by a space, or CJK
# terminal punctuation, but not the period of an abbreviation ("etc.", "e.g."). A line
# break always ends one (list items, table rows).
_SENTENCE_END = re.compile(
    r"(?<!\betc)(?<!\be\.g)(?<!\bi\.e)(?<!\bvs)(?<!\bcf)(?<!\bz\.B)(?<!\bbzw)(?<!\busw)"
    r"[.!?;:](?=\s)|[。！？；]"
)

# Code spans, link targets and path-like or file-like words: blanked before reading prose.
_CODE_LIKE = re.compile(r"`[^`\n]*`|\]\([^)\n]*\)|[\w.~-]*/[\w./~-]*|\b[\w-]+\.[A-Za-z0-9]{1,8}\b")


@dataclass(frozen=True)
class Narration:
    """A rule's idea of narration, compiled."""

    words: Any  # compiled patterns (the `regex` module), None when the param is empty
    arrow: Any  # matched right after the reference
    arrow_before: Any  # searched in the sentence before it (anchored at the reference)
    condition: Any  # "if `X` exists": says nothing about X being here
    journal_names: tuple[Any, ...]
    journal_values: dict[str, frozenset[str]]  # frontmatter key -> values that mean "journal"


def compile_narration(params: dict[str, Any]) -> Narration:
    flags = params.get("journal_frontmatter") or {}
    return _compiled(
        tuple(params.get("narration_words", ())),
        str(params.get("rename_arrow", "")),
        str(params.get("rename_arrow_before", "")),
        str(params.get("condition_pattern", "")),
        tuple(params.get("journal_names", ())),
        tuple(sorted((str(k), tuple(str(v).lower() for v in vs)) for k, vs in flags.items())),
    )


@lru_cache(maxsize=16)
def _compiled(
    words: tuple[str, ...],
    arrow: str,
    arrow_before: str,
    condition: str,
    names: tuple[str, ...],
    flags: tuple[tuple[str, tuple[str, ...]], ...],
) -> Narration:
    alternatives = []
    for word in sorted(words, key=len, reverse=True):
        escaped = re.escape(word).replace(r"\ ", r"\s+")
        # Latin words match whole; CJK words have no spaces around them.
        ascii_edges = word[:1].isascii() and word[-1:].isascii()
        alternatives.append(rf"(?<!\w){escaped}(?!\w)" if ascii_edges else escaped)
    joined = "|".join(alternatives)
    return Narration(
        words=patterns.compile_pattern(joined, ignore_case=True) if alternatives else None,
        arrow=patterns.compile_pattern(arrow) if arrow else None,
        arrow_before=patterns.compile_pattern(arrow_before) if arrow_before else None,
        condition=patterns.compile_pattern(condition) if condition else None,
        journal_names=tuple(patterns.compile_pattern(n) for n in names),
        journal_values={key: frozenset(values) for key, values in flags},
    )


def sentence(memory: Memory, start: int, end: int) -> tuple[int, int]:
    """Offsets of the sentence holding memory.text[start:end] (never past its line)."""
    text = memory.text
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    begin = line_start
    for match in _SENTENCE_END.finditer(text, line_start, start):
        begin = match.end()
    stop = _SENTENCE_END.search(text, end, line_end)
    return begin, stop.end() if stop else line_end


def narrated(rules: Narration, memory: Memory, start: int, end: int) -> str | None:
    """Why the reference at [start, end) is right as written, or None.

    `narrated 'removed'`: the sentence itself says the thing went away. `renamed (arrow)`:
    the reference stands on one side of a rename arrow whose other side names a path or
    an identifier too. `conditional`: the sentence only supposes it ("if X exists").
    """
    begin, stop = sentence(memory, start, end)
    text = memory.text
    if rules.arrow is not None and patterns.match(rules.arrow, text, end, stop) is not None:
        return "renamed (arrow)"
    before = rules.arrow_before
    if before is not None and patterns.search(before, text, begin, start) is not None:
        return "renamed (arrow)"
    # Only the prose counts: `docs/removed.md` (this reference or another) narrates nothing.
    around = _CODE_LIKE.sub(lambda m: " " * len(m.group(0)), text[begin:stop])
    if rules.words is not None:
        found = patterns.search(rules.words, around)
        if found is not None:
            return f"narrated '{found.group(0)}'"
    if rules.condition is not None and patterns.search(rules.condition, around):
        return "conditional"
    return None


def is_journal(rules: Narration, memory: Memory) -> bool:
    """A dated log of past work: its references are history, right as written."""
    name = memory.rel.rsplit("/", 1)[-1]
    if any(patterns.search(p, name) for p in rules.journal_names):
        return True
    # Keys under `metadata:` are lifted to the top when the store is read (`frontmatter`).
    for key, values in rules.journal_values.items():
        value = memory.frontmatter.get(key)
        if value is not None and str(value).strip().lower() in values:
            return True
    return False
