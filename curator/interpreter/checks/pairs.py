"""The pair sweep's findings: pairs of memories a model judged `contradict` or `redundant`.

The rule's `verdict` param picks which verdict it reports; everything else (candidate
knobs, group size, prompt) drives the shared sweep in `curator.llm.pair_sweep`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from curator.llm.answers import VERDICTS
from curator.llm.asking import get_asker
from curator.llm.pair_sweep import PARAMS as SWEEP_PARAMS
from curator.llm.pair_sweep import sweep
from curator.llm.prompt_text import body_hash
from curator.models import Hit

if TYPE_CHECKING:
    from curator.interpreter.context import Context
    from curator.models import Rule

PARAMS: dict[str, Any] = dict(SWEEP_PARAMS)
# The detail keys of its diagnostics, by mode: what a message template may use.
DETAIL: dict[str, dict[str, str]] = {
    "": {
        "other_file": "the other memory of the pair",
        "verdict": "the model's verdict",
        "rationale": "the model's reason",
        "body_sha256_a": "this memory's body hash",
        "body_sha256_b": "the other memory's body hash",
    }
}


def validate(params: dict[str, Any]) -> str | None:
    """The word lists must be words: markers and concepts lists of strings, stopwords
    lists of strings per language (an unquoted `no` or `on` in YAML is a boolean)."""
    for key in ("positive_markers", "negative_markers"):
        if not _words(params[key]):
            return f"param '{key}' must be a list of strings"
    stopwords = params["stopwords"]
    if not all(isinstance(k, str) and _words(v) for k, v in stopwords.items()):
        return "param 'stopwords' must map a language to a list of strings (quote no, on, off)"
    if not all(_words(group) and group for group in params["concepts"]):
        return "param 'concepts' must be a list of non-empty lists of strings"
    return None


def _words(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(w, str) and w for w in value)


def check(rule: Rule, ctx: Context) -> Iterator[Hit]:
    if rule.params["verdict"] not in VERDICTS:
        _note(ctx, f"{rule.code} {rule.name} skipped: param verdict must be one of {VERDICTS}")
        ctx.skipped.add(rule.code)
        return
    budget = int(ctx.config.get("llm.max_pairs"))
    result = sweep(rule, ctx, budget)
    if result.skipped:
        _note(ctx, f"{rule.code} {rule.name} skipped: {result.skipped}")
        ctx.skipped.add(rule.code)  # did not run: its findings stay as they are
        return
    if result.not_evaluated:
        _note(
            ctx,
            f"pair sweep: {result.not_evaluated} of {result.requests} requests not evaluated "
            f"(llm.max_pairs={budget}); the next sweep continues",
        )
    for note in get_asker(ctx).notes("pair sweep"):
        _note(ctx, note)
    for v in result.verdicts:
        if v.verdict != rule.params["verdict"]:
            continue
        detail = {
            "other_file": v.b.rel,
            "verdict": v.verdict,
            "rationale": v.rationale,
            "body_sha256_a": body_hash(v.a),
            "body_sha256_b": body_hash(v.b),
        }
        line = min(v.a.body_line, max(1, len(v.a.lines)))  # an empty body: the last line
        yield Hit(v.a.path, line, detail=detail, memory_files=(v.a.rel, v.b.rel))


def _note(ctx: Context, note: str) -> None:
    if note not in ctx.notes:
        ctx.notes.append(note)
