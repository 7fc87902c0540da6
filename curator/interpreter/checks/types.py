"""Memory types: a `type` outside the known ones, told once per memory or once per store.

Known types are the rule's `types` plus config `types.extra` (a team's own: `decision`,
`procedure`, ...). A type that `store_min` or more memories share is used on purpose:
it is reported once, on the first of them, naming how many use it. Reads the whole
store, so its results are not cached per memory.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from curator import templates
from curator.interpreter.checks.frontmatter import key_line
from curator.models import Hit, Memory

if TYPE_CHECKING:
    from curator.interpreter.context import Context
    from curator.models import Rule

PARAMS: dict[str, Any] = {
    "types": ["user", "feedback", "project", "reference"],
    "store_min": 3,
    # Who uses the type, as the message says it: {one: ..., many: ...} (`count` known).
    "used_by": {"one": "this memory uses", "many": "{{ count }} memories use"},
}
# The detail keys of its diagnostics, by mode: what a message template may use.
DETAIL: dict[str, dict[str, str]] = {
    "": {
        "type": "the memory's type",
        "known": "the known types, comma-separated",
        "count": "how many memories of the store use the type",
        "used_by": "some of them, when the finding is once per store",
    }
}


def known_types(rule: Rule, ctx: Context) -> list[str]:
    extra = [t for t in ctx.config.get("types.extra") if t not in rule.params["types"]]
    return [*rule.params["types"], *extra]


def check(rule: Rule, ctx: Context) -> Iterator[Hit]:
    known = known_types(rule, ctx)
    by_type: dict[str, list[Memory]] = {}
    for memory in ctx.memories(rule):
        value = memory.frontmatter.get("type")
        if memory.has_frontmatter and value is not None and str(value) not in known:
            by_type.setdefault(str(value), []).append(memory)
    for value, memories in sorted(by_type.items()):
        shared = len(memories) >= rule.params["store_min"]
        for memory in memories[:1] if shared else memories:
            used_by = rule.params["used_by"]["many" if shared else "one"]
            detail = {
                "type": value,
                "known": ", ".join(known),
                "count": len(memories),
                "used_by": templates.render(str(used_by), {"count": len(memories)}),
            }
            files = tuple(m.rel for m in memories) if shared else ()
            yield _at_type(memory, detail, files)


def _at_type(memory: Memory, detail: dict[str, Any], files: tuple[str, ...]) -> Hit:
    line = key_line(memory, "type") or 1
    text = memory.lines[line - 1] if memory.lines else ""
    column = text.find(":") + 2 if ":" in text else 1
    column += len(text[column - 1 :]) - len(text[column - 1 :].lstrip())
    return Hit(memory.path, line, column, end_column=len(text.rstrip()) + 1, detail=detail,
               memory_files=files)  # fmt: skip
