"""Frontmatter structure: present and valid YAML, required fields, and write dates
(`modified`, `promoted_at`, `created_at`) that can be one.

The rule's `mode` picks what it checks: `invalid` or `missing_field`. (Whether the type
is a known one is the `types` check: it counts across the store.)
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from curator.interpreter.write_dates import frontmatter_date_problems
from curator.models import Hit, Memory

if TYPE_CHECKING:
    from curator.interpreter.context import Context
    from curator.models import Rule

PARAMS: dict[str, Any] = {
    "mode": "invalid",
    "required": ["name", "description", "type"],
    "require_frontmatter": True,
}
# The detail keys of its diagnostics, by mode: what a message template may use.
DETAIL: dict[str, dict[str, str]] = {
    "invalid": {"problem": "what is wrong with the frontmatter"},
    "missing_field": {"field": "the missing field"},
}


def check(rule: Rule, ctx: Context) -> Iterator[Hit]:
    mode = rule.params["mode"]
    for memory in ctx.memories(rule):
        if mode == "invalid":
            yield from _invalid(rule, memory)
            yield from _bad_write_dates(memory, ctx)
        elif not memory.has_frontmatter:
            continue  # reported once, by the `invalid` rule
        elif mode == "missing_field":
            yield from _missing(rule, memory)


def _invalid(rule: Rule, memory: Memory) -> Iterator[Hit]:
    if not memory.has_frontmatter:
        if rule.params["require_frontmatter"]:
            yield Hit(memory.path, 1, detail={"problem": "the file has no frontmatter"})
    elif memory.frontmatter_error is not None:
        line, problem = memory.frontmatter_error
        line = min(max(line, 1), len(memory.lines) or 1)
        text = memory.lines[line - 1] if memory.lines else ""
        yield Hit(memory.path, line, 1, end_column=len(text) + 1, detail={"problem": problem})


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
