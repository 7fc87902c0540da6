"""The pair sweep behind CUR401 and CUR402: candidates, requests, verdicts.

Both rules read the same verdicts. Rules with the same prompt and candidate params share
one sweep per run (memoized on the context), so selecting both costs one set of calls.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from curator import templates
from curator.hashing import sha256_text
from curator.llm import index_sweep
from curator.llm.answers import GROUP_SCHEMA, GROUP_TOOL, pair_verdicts
from curator.llm.asking import get_asker, progress
from curator.llm.grouping import Group, fill_groups, plan_groups
from curator.llm.prompt_text import body_hash, prompt_values
from curator.llm.question import Request
from curator.llm.similarity import DEFAULTS as SIMILARITY_DEFAULTS
from curator.llm.similarity import Candidate, Candidates, CandidateStats, candidates
from curator.models import Memory, Rule

PARAMS: dict[str, Any] = {
    **SIMILARITY_DEFAULTS,
    "group_size": 20,
    "max_group_chars": 30000,
    "max_groups_per_memory": 3,
    "verdict": "contradict",
    "max_body_chars": 3000,
    "system_prompt": "",
}
# Enough room for a group's verdicts with one-line rationales; a cut-off answer fails
# validation and is retried like any malformed one.
GROUP_MAX_TOKENS = 4096


@dataclass(frozen=True)
class PairVerdict:
    a: Memory
    b: Memory
    verdict: str
    rationale: str


@dataclass
class SweepResult:
    verdicts: list[PairVerdict] = field(default_factory=list)
    requests: int = 0  # requests planned
    asked: int = 0  # requests that got an answer (cache or provider)
    not_evaluated: int = 0
    pairs_covered: int = 0
    candidates: CandidateStats = field(default_factory=CandidateStats)
    skipped: str | None = None


def plan(
    found: Candidates,
    params: dict[str, Any],
    group_size: int = 0,
    taken: Mapping[str, int] | None = None,
) -> list[Group]:
    """The sweep's requests: groups over the topical candidates and the pairs that name
    the same rare thing, ranked together by their score, then filled. A memory is in at
    most `max_groups_per_memory` of them, less the requests `taken` counts for it (the
    index sweep's)."""
    size = group_size or int(params["group_size"])
    most = int(params["max_groups_per_memory"])
    room = {rel: most - n for rel, n in (taken or {}).items()}
    budget, limit = int(params["max_group_chars"]), int(params["max_body_chars"])
    topical = {frozenset((c.a.rel, c.b.rel)) for c in found.ranked}
    named = [c for c in found.named if frozenset((c.a.rel, c.b.rel)) not in topical]
    pairs = sorted(found.ranked + named, key=lambda c: -c.score)  # stable: ties keep order
    chars = {m.rel: _chars(m, limit) for m in _members(pairs)}
    groups = plan_groups(pairs, size, most, room, budget, chars)
    every = {m.rel: room.get(m.rel, most) for m in _members(pairs)}
    return fill_groups(groups, pairs, size, every, budget, chars)


def _chars(memory: Memory, limit: int) -> int:
    """The text of a memory in a prompt: name, description, body (cut at `limit`)."""
    body = len(memory.body().strip())
    shown = min(body, limit) if limit > 0 else body
    return len(memory.name or "") + len(memory.description or "") + shown


def _members(pairs: list[Candidate]) -> list[Memory]:
    return [m for c in pairs for m in (c.a, c.b)]


def index_requests(ctx: Any) -> dict[str, int]:
    """The requests each memory is in in the index sweep (CUR404) of this run, when its
    rule is loaded: the pair sweep leaves room for them."""
    taken: dict[str, int] = {}
    if ctx.store.index is None:
        return taken
    for rule in getattr(ctx, "rules", ()):
        if rule.check == "index_pairs":
            for rel, n in index_sweep.requests_per_memory(rule, ctx).items():
                taken[rel] = max(taken.get(rel, 0), n)
    return taken


def _memo_key(rule: Rule) -> str:
    params = {k: v for k, v in rule.params.items() if k != "verdict"}
    blob = json.dumps([rule.prompt, params, rule.applies_to_types], sort_keys=True, default=str)
    return "pairs:" + sha256_text(blob)


def sweep(rule: Rule, ctx: Any, budget: int) -> SweepResult:
    """Run (or reuse) the pair sweep for this rule's prompt and params."""
    key = _memo_key(rule)
    done = ctx.shared.get(key)
    if done is not None:
        return done  # type: ignore[no-any-return]
    result = SweepResult()
    ctx.shared[key] = result
    asker = get_asker(ctx)
    if not asker.available:
        result.skipped = "no LLM provider"
        return result
    memories = list(ctx.memories(rule))
    found = candidates(memories, rule.params)
    result.candidates = found.stats
    groups = plan(found, rule.params, taken=index_requests(ctx))
    result.requests = len(groups)
    before = asker.stats.not_evaluated
    if ctx.config.get("llm.batch"):
        # uncached groups beyond the budget are skipped inside prefetch
        questions = [_question(rule, g, asker.model) for g in groups]
        asker.prefetch("pair sweep", questions, budget)
    for group in progress(groups, f"curator: {rule.name} pair sweep"):
        answer = ask_group(rule, group, asker, budget)
        if answer is None:
            continue
        result.asked += 1
        result.pairs_covered += group.pair_count
        for a, b, verdict, rationale in answer:
            ma, mb = group.members[a - 1], group.members[b - 1]
            result.verdicts.append(PairVerdict(ma, mb, verdict, rationale))
    result.not_evaluated = asker.stats.not_evaluated - before
    return result


def _question(
    rule: Rule, group: Group, model: str = "", exhaustive: bool = False
) -> tuple[Request, list[str], Any]:
    values = prompt_values(group.members, int(rule.params["max_body_chars"]), exhaustive)
    prompt = templates.render(rule.prompt or "", values)
    request = Request(
        model=model,
        prompt=prompt,
        tool=GROUP_TOOL,
        schema=GROUP_SCHEMA,
        max_tokens=GROUP_MAX_TOKENS,
        system=str(rule.params["system_prompt"]).strip(),
    )
    size = len(group.members)
    return request, [body_hash(m) for m in group.members], lambda raw: pair_verdicts(raw, size)


def ask_group(rule: Rule, group: Group, asker: Any, budget: int, exhaustive: bool = False) -> Any:
    """Ask for the verdicts of one group; None when there is no usable answer."""
    request, hashes, validate = _question(rule, group, asker.model, exhaustive)
    subject = tuple(m.rel for m in group.members)
    return asker.ask("pair sweep", request, subject, hashes, validate, budget)
