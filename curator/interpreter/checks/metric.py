"""Thresholds on a memory's size: a hit when a measure exceeds the rule's `max`.

Measures: `file_bytes` (UTF-8, frontmatter included: what Claude Code's recall counts),
`body_lines`, `body_chars`, `description_chars`. Left alone (params): files without
frontmatter (notes the agent opens whole by name), journals by name (`journal_names`),
and tables or registries, whose body lines are mostly table rows (`table_share`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from curator.interpreter import patterns
from curator.models import Hit, Memory

if TYPE_CHECKING:
    from curator.interpreter.context import Context
    from curator.models import Rule

PARAMS: dict[str, Any] = {
    "metric": "body_lines",
    "max": 200,
    "skip_unframed": False,
    "journal_names": [],
    "table_share": None,
    "min_over": 1,  # a file a trim away from fitting is left alone
}
# The detail keys of its diagnostics, by mode: what a message template may use.
DETAIL: dict[str, dict[str, str]] = {
    "": {
        "metric": "the measure",
        "value": "its value",
        "max": "the limit",
        "unit": "the measure's unit (bytes, lines, characters)",
        "lines": "the file's lines",
        "unseen": "how much of the file recall does not show",
        "first_unseen": "the line where what recall does not show begins",
    }
}


def measure(memory: Memory, metric: str) -> int:
    if metric == "file_bytes":
        return len(memory.text.encode("utf-8", "surrogatepass"))
    if metric == "body_lines":
        return max(0, len(memory.lines) - memory.body_line + 1)
    if metric == "body_chars":
        return len(memory.body())
    if metric == "description_chars":
        return len(memory.description or "")
    raise ValueError(f"unknown metric {metric!r}")


def check(rule: Rule, ctx: Context) -> Iterator[Hit]:
    params = rule.params
    metric, limit = params["metric"], params["max"]
    journals = [patterns.compile_pattern(p) for p in params["journal_names"]]
    for memory in ctx.memories(rule):
        value = measure(memory, metric)
        if value - limit < max(1, params["min_over"]) or _long_by_nature(memory, params, journals):
            continue
        detail: dict[str, Any] = {"value": value, "max": limit, "metric": metric}
        detail["lines"] = len(memory.lines)
        detail["unit"] = _UNITS.get(metric, "")
        if metric == "file_bytes":
            detail.update(_unseen(memory, limit))
        else:
            detail.update(unseen=value - limit, first_unseen=memory.body_line + limit)
        yield Hit(memory.path, 1, detail=detail)


_UNITS = {"file_bytes": "bytes", "body_lines": "lines", "body_chars": "characters",
          "description_chars": "characters"}  # fmt: skip


def _long_by_nature(memory: Memory, params: dict[str, Any], journals: list[Any]) -> bool:
    if params["skip_unframed"] and not memory.has_frontmatter:
        return True  # a note the agent opens by name and reads whole
    name = memory.rel.rsplit("/", 1)[-1]
    if any(patterns.search(p, name) for p in journals):
        return True  # a log of past sessions: a record, read on demand
    share = params["table_share"]
    if share is not None:
        body = [line.strip() for line in memory.lines[memory.body_line - 1 :] if line.strip()]
        rows = sum(line.startswith("|") for line in body)
        return bool(body) and rows > share * len(body)  # a table or registry, looked up
    return False


def _unseen(memory: Memory, limit: int) -> dict[str, Any]:
    """What recall never shows: the bytes past `limit` and the line they start on."""
    seen = 0
    for number, line in enumerate(memory.lines, start=1):
        seen += len(line.encode("utf-8", "surrogatepass")) + 1
        if seen > limit:
            return {"first_unseen": number, "unseen": max(0, measure(memory, "file_bytes") - limit)}
    return {"first_unseen": len(memory.lines), "unseen": 0}
