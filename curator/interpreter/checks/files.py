"""Files in the store that could not be read as memories: binary, huge, not UTF-8,
unreadable (a symlink loop among them), a FIFO, socket or device, or a symlink leading
out of the store."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from curator.models import Hit

if TYPE_CHECKING:
    from curator.interpreter.context import Context
    from curator.models import Rule

PARAMS: dict[str, Any] = {
    "reasons": ["binary", "huge", "encoding", "unreadable", "symlink", "special"]
}
# The detail keys of its diagnostics, by mode: what a message template may use.
DETAIL: dict[str, dict[str, str]] = {
    "": {
        "reason": "why the file is not a memory (binary, too large, not UTF-8, ...)",
        "problem": "the same, in words",
    }
}


def check(rule: Rule, ctx: Context) -> Iterator[Hit]:
    for problem in ctx.store.problems:
        if problem.reason in rule.params["reasons"]:
            detail = {"reason": problem.reason, "problem": problem.message}
            yield Hit(problem.path, 1, detail=detail, memory_files=(problem.rel,))
