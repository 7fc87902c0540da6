"""Rules the engine reports itself (CUR900 rule failed, CUR901 unused suppression).

Their rule files give code, severity, message and docs; the engine decides when they fire.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from curator.interpreter.context import Context
    from curator.models import Hit, Rule

PARAMS: dict[str, Any] = {}
# The detail keys of its diagnostics, by mode: what a message template may use.
# The engine's own rules have no mode: their keys are by rule name.
DETAIL: dict[str, dict[str, str]] = {
    "unused_suppression": {"codes": "the codes the comment names", "line": "its line"},
    "rule_failed": {"rule": "the code of the rule that failed", "reason": "why"},
}


def check(rule: Rule, ctx: Context) -> Iterator[Hit]:
    return iter(())
