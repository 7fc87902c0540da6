"""Thresholds on a memory's size: a hit when a measure exceeds the rule's `max`.

Measures: `body_lines`, `body_chars`, `description_chars`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from curator.models import Hit, Memory

if TYPE_CHECKING:
    from curator.interpreter.context import Context
    from curator.models import Rule

PARAMS: dict[str, Any] = {"metric": "body_lines", "max": 200}
# The detail keys of its diagnostics, by mode: what a message template may use.
DETAIL: dict[str, dict[str, str]] = {
    "": {"metric": "the measure", "value": "its value", "max": "the limit"}
}


def measure(memory: Memory, metric: str) -> int:
    if metric == "body_lines":
        return max(0, len(memory.lines) - memory.body_line + 1)
    if metric == "body_chars":
        return len(memory.body())
    if metric == "description_chars":
        return len(memory.description or "")
    raise ValueError(f"unknown metric {metric!r}")


def check(rule: Rule, ctx: Context) -> Iterator[Hit]:
    metric, limit = rule.params["metric"], rule.params["max"]
    for memory in ctx.memories(rule):
        value = measure(memory, metric)
        if value > limit:
            yield Hit(memory.path, 1, detail={"value": value, "max": limit, "metric": metric})
