"""A store that talks about another repository: one finding instead of hundreds.

Counts, over the whole store, the paths and identifiers the path and symbol rules found
(their own params decide what counts as one): how many resolve in the repository today,
and how many the repository never had, not even in its history. When the never-had ones
are many and most of what the store names, the store is most likely mapped to the wrong
repository, and that is the one thing to fix.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from curator.interpreter.checks import paths, symbols
from curator.models import Hit
from curator.store.reading import INDEX_NAME

if TYPE_CHECKING:
    from curator.interpreter.context import Context
    from curator.models import Rule

PARAMS: dict[str, Any] = {
    "path_rule": "path_broken",
    "symbol_rule": "symbol_missing",
    "min_unknown": 20,
    "max_resolved_share": 0.4,
    "examples": 5,
}
# Ranges narrower than the rule loader's default (`rulebook.PARAM_RANGE`), both ends included.
RANGES: dict[str, tuple[float, float]] = {"max_resolved_share": (0, 1)}
# The detail keys of its diagnostics, by mode: what a message template may use.
DETAIL: dict[str, dict[str, str]] = {
    "": {
        "unknown": "how many references were never in the repository",
        "total": "how many references were checked",
        "resolved": "how many were found in it",
        "examples": "some of the unknown ones",
        "repository": "the repository checked against",
    }
}


def check(rule: Rule, ctx: Context) -> Iterator[Hit]:
    if ctx.repo_root is None:
        return
    by_name = {r.name: r for r in ctx.rules}
    unknown: list[str] = []
    resolved = 0
    for name, module in ((rule.params["path_rule"], paths), (rule.params["symbol_rule"], symbols)):
        counted = by_name.get(name)
        if counted is None:
            continue
        examined = module.examine(counted, ctx)
        if examined is None:
            ctx.skipped.add(rule.code)  # the census is incomplete: say nothing, resolve nothing
            return
        unknown.extend(examined.unknown)
        resolved += examined.resolved
    total = len(unknown) + resolved
    if (
        len(unknown) < rule.params["min_unknown"]
        or resolved > total * rule.params["max_resolved_share"]
    ):
        return
    shown = ", ".join(f"'{u}'" for u in unknown[: rule.params["examples"]])
    detail = {
        "unknown": len(unknown),
        "total": total,
        "resolved": resolved,
        "examples": shown,
        "repository": str(ctx.repo_root),
    }
    yield Hit(ctx.store.root / INDEX_NAME, 1, detail=detail, memory_files=(INDEX_NAME,))
