"""The index against its memories: MEMORY.md lines a model judged to contradict the
memory they link (or, for the index's own content, the memory they speak of). The
sweep itself is `curator.llm.index_sweep`; this turns its verdicts into diagnostics at
the index line."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from curator.hashing import sha256_text
from curator.llm.asking import get_asker
from curator.llm.index_sweep import PARAMS as SWEEP_PARAMS
from curator.llm.index_sweep import sweep
from curator.llm.prompt_text import body_hash
from curator.models import Hit
from curator.store.masking import mask

if TYPE_CHECKING:
    from curator.interpreter.context import Context
    from curator.models import Rule

PARAMS: dict[str, Any] = dict(SWEEP_PARAMS)
# The detail keys of its diagnostics, by mode: what a message template may use.
DETAIL: dict[str, dict[str, str]] = {
    "": {
        "other_file": "the memory the index line is judged against",
        "index_line": "the index line as the agent reads it (links as their titles)",
        "verdict": "the model's verdict",
        "rationale": "the model's reason",
        "index_sha256": "the index line's hash",
        "body_sha256": "the memory's body hash",
    }
}


def check(rule: Rule, ctx: Context) -> Iterator[Hit]:
    result = sweep(rule, ctx)
    if result.skipped:
        _note(ctx, f"{rule.code} {rule.name} skipped: {result.skipped}")
        ctx.skipped.add(rule.code)  # did not run: its findings stay as they are
        return
    if result.not_evaluated:
        _note(
            ctx,
            f"{rule.code} {rule.name}: {result.not_evaluated} of {result.requests} requests "
            f"not evaluated (max_calls={rule.params['max_calls']}); the next sweep continues",
        )
    for note in get_asker(ctx).notes(rule.code):
        _note(ctx, note)
    index = ctx.store.index
    for v in result.verdicts:
        if v.verdict != "contradict" or index is None:
            continue
        detail = {
            "other_file": v.memory.rel,
            "index_line": mask(v.text),  # never a secret the line holds
            "verdict": v.verdict,
            "rationale": v.rationale,
            "index_sha256": sha256_text(v.text),
            "body_sha256": body_hash(v.memory),
        }
        yield Hit(
            index.path, v.line, v.column, detail=detail, memory_files=("MEMORY.md", v.memory.rel)
        )


def _note(ctx: Context, note: str) -> None:
    if note not in ctx.notes:
        ctx.notes.append(note)
