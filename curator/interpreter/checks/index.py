"""MEMORY.md against the store: broken and duplicate links, orphans, Claude Code's load limit.

The rule's `mode` picks one of: `broken`, `outside`, `orphan`, `duplicate`, `over_budget`,
`line_too_long`, `missing`. Links are resolved lexically; a link that leaves the store is
only stat'ed when it lands inside the repository root, and never read.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from curator.models import Edit, Fix, Hit, Index, IndexEntry, Memory

if TYPE_CHECKING:
    from curator.interpreter.context import Context
    from curator.models import Rule

PARAMS: dict[str, Any] = {
    "mode": "broken",
    "max_lines": 200,
    "max_chars": 25000,
    "max_line_chars": 200,
}


def check(rule: Rule, ctx: Context) -> Iterator[Hit]:
    index = ctx.store.index
    mode = rule.params["mode"]
    if index is None:
        if mode == "missing" and ctx.store.memories:
            root = ctx.store.root
            detail = {"count": len(ctx.store.memories)}
            yield Hit(root / "MEMORY.md", 1, detail=detail, memory_files=("MEMORY.md",))
        return
    if mode in ("broken", "outside"):
        yield from _links(rule, ctx, index, mode)
    elif mode == "orphan":
        yield from _orphans(ctx, index)
    elif mode == "duplicate":
        yield from _duplicates(ctx, index)
    elif mode == "over_budget":
        yield from _over_budget(rule, index)
    elif mode == "line_too_long":
        limit = rule.params["max_line_chars"]
        for number, line in enumerate(index.lines, start=1):
            if len(line) > limit:
                detail = {"length": len(line), "limit": limit}
                yield Hit(index.path, number, limit + 1, end_column=len(line) + 1, detail=detail)


def _hit(index: Index, entry: IndexEntry, fix: Fix | None = None, **detail: Any) -> Hit:
    return Hit(
        index.path,
        entry.line,
        entry.column,
        end_column=entry.end_column,
        detail={"target": entry.target, "title": entry.title, **detail},
        memory_files=("MEMORY.md",),
        fix=fix,
    )


def remove_line_fix(index: Index, entry: IndexEntry, why: str) -> Fix | None:
    """Drop the entry's line, only when the line holds that one link (a list item, not a
    table row or prose naming other memories)."""
    if sum(1 for e in index.entries if e.line == entry.line) != 1:
        return None
    edit = Edit(entry.line, entry.line + 1, "")
    return Fix("REMOVE", index.path, index.sha256, (edit,), True,
               f"remove MEMORY.md line {entry.line} ({why})")  # fmt: skip


def add_line_fix(index: Index, memory: Memory) -> Fix:
    """Append `- [Title](file.md) — description` for a memory the index never links."""
    title = " ".join((memory.name or Path(memory.rel).stem).split()).replace("]", ")")
    hook = " ".join((memory.description or "").split())
    hook = hook if len(hook) <= 150 else hook[:149].rstrip() + "…"
    line = f"- [{title}]({memory.rel})" + (f" — {hook}" if hook else "") + "\n"
    at = len(index.lines) + 1
    return Fix("ADD", index.path, index.sha256, (Edit(at, at, line),), True,
               f"add an index line for {memory.rel}")  # fmt: skip


def _links(rule: Rule, ctx: Context, index: Index, mode: str) -> Iterator[Hit]:
    repo = os.path.join(str(ctx.repo_root), "") if ctx.repo_root is not None else None
    for entry, rel, absolute in index.resolved:
        if not _looks_like_file(entry.target):
            continue
        if rel is None and repo is None and mode == "broken":
            # Cannot be judged without the repository: this rule did not run in full, so
            # its persisted findings must not be resolved by this run.
            ctx.skipped.add(rule.code)
        if rel is not None or (repo is not None and absolute.startswith(repo)):
            # inside the store, or inside the repository: stat'ed, never read
            if mode == "broken" and not os.path.exists(absolute):
                yield _hit(index, entry, remove_line_fix(index, entry, "missing file"))
        elif mode == "outside":
            yield _hit(index, entry, resolved=absolute)


def _looks_like_file(target: str) -> bool:
    """`notes.md`, `dir/`, `../x`: yes. A bare word such as `url` is prose, not a path."""
    return "." in target or "/" in target


def _linked(index: Index) -> set[str]:
    return {rel for _, rel, _ in index.resolved if rel is not None}


def _orphans(ctx: Context, index: Index) -> Iterator[Hit]:
    linked = _linked(index)
    for memory in ctx.store.memories:
        if memory.rel not in linked:
            detail = {"description": memory.description or ""}
            yield Hit(memory.path, 1, detail=detail, fix=add_line_fix(index, memory))


def _duplicates(ctx: Context, index: Index) -> Iterator[Hit]:
    first: dict[str, int] = {}
    for entry, rel, absolute in index.resolved:
        key = rel or absolute
        if key in first and first[key] != entry.line:
            fix = remove_line_fix(index, entry, f"duplicate of line {first[key]}")
            yield _hit(index, entry, fix, first_line=first[key])
        first.setdefault(key, entry.line)


def _over_budget(rule: Rule, index: Index) -> Iterator[Hit]:
    max_lines, max_chars = rule.params["max_lines"], rule.params["max_chars"]
    total = len(index.lines)
    if total > max_lines:
        detail = {
            "limit": f"{max_lines} lines",
            "size": f"{total} lines",
            "first_unseen": max_lines + 1,
        }
        yield Hit(index.path, max_lines + 1, detail=detail, memory_files=("MEMORY.md",))
    if len(index.text) > max_chars:
        seen = 0
        for number, line in enumerate(index.lines, start=1):
            seen += len(line) + 1
            if seen > max_chars:
                column = max(1, len(line) - (seen - max_chars) + 2)
                detail = {
                    "limit": f"{max_chars:,} characters",
                    "size": f"{len(index.text):,} characters",
                    "first_unseen": number,
                }
                yield Hit(index.path, number, column, detail=detail, memory_files=("MEMORY.md",))
                break
