"""The checks: the interpreter's extension point.

A check is a module with `PARAMS` (its parameters and their defaults, used to validate
and fill a rule's `params`), `DETAIL` (the detail keys its hits carry, by mode, with what
each means: what a rule's message template may use, shown by `curator rule CODE`) and
`check(rule, ctx)`, a generator of Hits. The registry is
explicit; modules are imported only when a selected rule uses them, so a check's heavy
library costs nothing to a run that does not need it.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Protocol, cast

if TYPE_CHECKING:
    from curator.interpreter.context import Context
    from curator.models import Hit, Rule


class Check(Protocol):
    PARAMS: dict[str, Any]
    DETAIL: dict[str, dict[str, str]]

    def check(self, rule: Rule, ctx: Context) -> Iterable[Hit]: ...


CHECKS: dict[str, str] = {
    "files": "curator.interpreter.checks.files",
    "frontmatter": "curator.interpreter.checks.frontmatter",
    "types": "curator.interpreter.checks.types",
    "index": "curator.interpreter.checks.index",
    "dates": "curator.interpreter.checks.dates",
    "snapshots": "curator.interpreter.checks.snapshots",
    "pattern": "curator.interpreter.checks.pattern",
    "metric": "curator.interpreter.checks.metric",
    "paths": "curator.interpreter.checks.paths",
    "symbols": "curator.interpreter.checks.symbols",
    "commands": "curator.interpreter.checks.commands",
    "plans": "curator.interpreter.checks.plans",
    "mismatch": "curator.interpreter.checks.mismatch",
    "urls": "curator.interpreter.checks.urls",
    "usage": "curator.interpreter.checks.usage",
    "engine": "curator.interpreter.checks.engine",
    "pairs": "curator.interpreter.checks.pairs",
    "index_pairs": "curator.interpreter.checks.index_pairs",
    "llm": "curator.interpreter.checks.llm",
    "secrets": "curator.interpreter.checks.secrets",
}

# Checks whose hits about a memory depend on that memory alone (plus the day, the config
# and the repository), so their results can be cached per memory file. A check that
# reads the index or compares memories must not be listed.
MEMORY_SCOPED: frozenset[str] = frozenset({"dates", "frontmatter", "metric", "pattern"})


def get_check(name: str) -> Check:
    return cast(Check, importlib.import_module(CHECKS[name]))


# Values every message template has besides the detail keys (`engine.to_diagnostic`).
TEMPLATE_VALUES: dict[str, str] = {
    "code": "the rule's code",
    "name": "the rule's name",
    "file": "the memory file, relative to the store",
}


def detail_keys(rule: Rule) -> dict[str, str]:
    """The detail keys a rule's diagnostics carry, and what each means: its check's
    declaration for the rule's mode (the engine's own rules: for the rule's name)."""
    table = get_check(rule.check).DETAIL
    mode = str(rule.params.get("mode", ""))
    return table.get(mode) or table.get(rule.name) or table.get("", {})
