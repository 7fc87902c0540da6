"""Generic pattern rule: every match of the rule's patterns in a memory body is a hit.

The match is available to the message as `match`, named groups by their names.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from curator.interpreter import patterns
from curator.models import Hit

if TYPE_CHECKING:
    from curator.interpreter.context import Context
    from curator.models import Rule

PARAMS: dict[str, Any] = {"include_frontmatter": False, "max_per_file": 20}
# The detail keys of its diagnostics, by mode: what a message template may use.
DETAIL: dict[str, dict[str, str]] = {
    "": {"match": "the matched text (and each named group of the pattern, by its name)"}
}


def check(rule: Rule, ctx: Context) -> Iterator[Hit]:
    for memory in ctx.memories(rule):
        first = 1 if rule.params["include_frontmatter"] else memory.body_line
        if first > len(memory.lines):
            continue
        start_offset = memory.line_starts[first - 1]
        count = 0
        for pattern in rule.patterns:
            for match in patterns.finditer(pattern, memory.text, pos=start_offset):
                line, column = memory.locate(match.start())
                end_line, end_column = memory.locate(match.end())
                groups = {k: v for k, v in match.groupdict().items() if v is not None}
                detail = {"match": match.group(0), **groups}
                yield Hit(memory.path, line, column, end_line, end_column, detail=detail)
                count += 1
                if count >= rule.params["max_per_file"]:
                    break
