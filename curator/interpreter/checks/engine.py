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


def check(rule: Rule, ctx: Context) -> Iterator[Hit]:
    return iter(())
