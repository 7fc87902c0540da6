"""Single-memory LLM questions. `mode: type_drift` asks which of the four memory types
fits a memory and reports when the answer differs from its `type` with at least
`min_confidence`. Each memory is one question, at most `max_calls` per run; answers are
cached by model, prompt and body hash."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from curator import templates
from curator.llm.answers import TYPE_SCHEMA, TYPE_TOOL, memory_type
from curator.llm.asking import get_asker, progress
from curator.llm.prompt_text import body_hash, prompt_values
from curator.llm.question import Request
from curator.models import MEMORY_TYPES, Hit

if TYPE_CHECKING:
    from curator.interpreter.context import Context
    from curator.models import Rule

PARAMS: dict[str, Any] = {
    "mode": "type_drift",
    "min_confidence": 0.8,
    "max_calls": 50,
    "max_body_chars": 6000,
    "system_prompt": "",
}
# Ranges narrower than the rule loader's default (`rulebook.PARAM_RANGE`), both ends included.
RANGES: dict[str, tuple[float, float]] = {"min_confidence": (0, 1)}
# The detail keys of its diagnostics, by mode: what a message template may use.
DETAIL: dict[str, dict[str, str]] = {
    "type_drift": {
        "current_type": "the memory's type",
        "suggested_type": "the type the model finds fits",
        "confidence": "the model's confidence, 0 to 1",
        "rationale": "the model's reason",
        "body_sha256": "the body hash the answer is about",
    }
}


def check(rule: Rule, ctx: Context) -> Iterator[Hit]:
    if rule.params["mode"] != "type_drift":
        raise ValueError(f"{rule.name}: unknown mode {rule.params['mode']!r}")
    asker = get_asker(ctx)
    if not asker.available:
        ctx.notes.append(f"{rule.code} {rule.name} skipped: no LLM provider")
        ctx.skipped.add(rule.code)  # did not run: its findings stay as they are
        return
    memories = [m for m in ctx.memories(rule) if m.type in MEMORY_TYPES]
    before = asker.stats.not_evaluated
    for memory in progress(memories, f"curator: {rule.name}"):
        values = prompt_values((memory,), int(rule.params["max_body_chars"]))["memories"][0]
        prompt = templates.render(rule.prompt or "", {"memory": values})
        request = Request(
            model=asker.model,
            prompt=prompt,
            tool=TYPE_TOOL,
            schema=TYPE_SCHEMA,
            system=str(rule.params["system_prompt"]).strip(),
        )
        answer = asker.ask(
            rule.code,
            request,
            (memory.rel,),
            [body_hash(memory)],
            memory_type,
            int(rule.params["max_calls"]),
        )
        if answer is None:
            continue
        suggested, confidence, rationale = answer
        if suggested != memory.type and confidence >= rule.params["min_confidence"]:
            detail = {
                "current_type": memory.type,
                "suggested_type": suggested,
                "confidence": round(confidence, 2),
                "rationale": rationale,
                "body_sha256": body_hash(memory),
            }
            yield Hit(memory.path, _type_line(memory), detail=detail)
    skipped = asker.stats.not_evaluated - before
    if skipped:
        ctx.notes.append(
            f"{rule.code} {rule.name}: {skipped} memories not evaluated "
            f"(max_calls={rule.params['max_calls']}); the next sweep continues"
        )
    ctx.notes.extend(n for n in asker.notes(rule.code) if n not in ctx.notes)


def _type_line(memory: Any) -> int:
    """The line of `type:` in the frontmatter (or of `node_type`-style nesting), else 1."""
    for number, line in enumerate(memory.lines[: memory.body_line], start=1):
        if line.lstrip().startswith("type:"):
            return number
    return 1
