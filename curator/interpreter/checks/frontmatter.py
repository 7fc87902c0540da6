"""Frontmatter structure: present and valid YAML, required fields, and write dates
(`modified`, `promoted_at`, `created_at`) that can be one.

The rule's `mode` picks what it checks: `invalid` or `missing_field`. (Whether the type
is a known one is the `types` check: it counts across the store.)
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from curator.interpreter.checks.index import link_graph
from curator.interpreter.write_dates import frontmatter_date_problems
from curator.models import Hit, Memory
from curator.store import frontmatter

if TYPE_CHECKING:
    from curator.interpreter.context import Context
    from curator.models import Rule

PARAMS: dict[str, Any] = {
    "mode": "invalid",
    "required": ["name", "description", "type"],
    # A file without frontmatter that nothing reaches is an orphan (CUR011). One the index
    # reaches is a note the agent opens by name, unless more than `framed_share` of the
    # store's other memories have frontmatter: then it is a memory that lost its fields.
    # `require_frontmatter: true` reports every file without frontmatter.
    "require_frontmatter": False,
    "framed_share": 0.5,
}
# The detail keys of its diagnostics, by mode: what a message template may use.
DETAIL: dict[str, dict[str, str]] = {
    "invalid": {"problem": "what is wrong with the frontmatter"},
    "missing_field": {"field": "the missing field"},
    "strict": {"key": "the key on the line strict YAML fails at"},
}


def check(rule: Rule, ctx: Context) -> Iterator[Hit]:
    mode = rule.params["mode"]
    unframed = _unframed_memories(rule, ctx) if mode == "invalid" else {}
    for memory in ctx.memories(rule):
        if mode == "invalid":
            yield from _invalid(rule, memory, unframed)
            yield from _bad_write_dates(memory, ctx)
        elif not memory.has_frontmatter:
            continue  # a note, or an orphan: not a memory with fields to check
        elif mode == "missing_field":
            yield from _missing(rule, memory)
        elif mode == "strict" and memory.frontmatter_error is None:
            yield from _strict(memory)


def _unframed_memories(rule: Rule, ctx: Context) -> dict[str, str]:
    """Files without frontmatter to report, each with why: reached by the index in a store
    whose other memories mostly have frontmatter (or every one, when required)."""
    files = ctx.memory_files()
    framed = sum(m.has_frontmatter for m in files)
    if rule.params["require_frontmatter"]:
        return {m.rel: "the file has no frontmatter" for m in files if not m.has_frontmatter}
    if ctx.store.index is None:
        return {}
    reachable = link_graph(ctx).reachable
    found = {}
    for memory in files:
        others = len(files) - 1
        if memory.has_frontmatter or memory.rel not in reachable or others < 1:
            continue
        if framed > rule.params["framed_share"] * others:
            found[memory.rel] = (
                f"the file has no frontmatter, unlike {framed} of the store's {others} other"
                " memories, so Claude Code's recall sees no name, description or type;"
                " add them"
            )
    return found


def _invalid(rule: Rule, memory: Memory, unframed: dict[str, str]) -> Iterator[Hit]:
    if not memory.has_frontmatter:
        if memory.rel in unframed:
            yield Hit(memory.path, 1, detail={"problem": unframed[memory.rel]})
    elif memory.frontmatter_error is not None:
        line, problem = memory.frontmatter_error
        line = min(max(line, 1), len(memory.lines) or 1)
        text = memory.lines[line - 1] if memory.lines else ""
        yield Hit(memory.path, line, 1, end_column=len(text) + 1, detail={"problem": problem})


def _strict(memory: Memory) -> Iterator[Hit]:
    """Frontmatter that Claude Code reads only through its retry: other YAML readers
    (editors, static-site generators, scripts) reject it."""
    block = memory.lines[1 : memory.body_line - 2]
    if frontmatter.simple_block(block):
        return
    found = frontmatter.strict_problem(block)
    if found is None:
        return
    line, key = found
    text = memory.lines[line - 1] if 0 < line <= len(memory.lines) else ""
    yield Hit(memory.path, line, 1, end_column=len(text) + 1, detail={"key": key or "?"})


def _bad_write_dates(memory: Memory, ctx: Context) -> Iterator[Hit]:
    """`modified: 2026-02-30`: not a write date; the next source is used instead."""
    for key, problem in frontmatter_date_problems(memory, ctx.today):
        line = key_line(memory, key) or 1
        text = memory.lines[line - 1] if memory.lines else ""
        detail = {"problem": f"{problem}; the write date comes from the next source"}
        yield Hit(memory.path, line, 1, end_column=len(text) + 1, detail=detail)


def _missing(rule: Rule, memory: Memory) -> Iterator[Hit]:
    for key in rule.params["required"]:
        value = memory.frontmatter.get(key)
        if value is None or (isinstance(value, str) and not value.strip()):
            line = key_line(memory, key) or 1
            yield Hit(memory.path, line, detail={"field": key})


def key_line(memory: Memory, key: str) -> int | None:
    """The frontmatter line that sets `key`, if one does."""
    pattern = re.compile(rf"^\s*{re.escape(key)}\s*:")
    for number in range(2, memory.body_line):
        if pattern.match(memory.lines[number - 1]):
            return number
    return None
