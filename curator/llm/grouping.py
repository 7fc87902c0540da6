"""Plan the pair sweep's requests: topical groups first, then the best pairs between groups.

Real contradictions share few words, so the single best pairs of a store are mostly
near-duplicates. Measured on the labelled pairs (docs/llm.md), asking about a topical
group of up to `group_size` memories in one request covers far more of the pairs that
matter than the same number of one-pair requests. Groups are grown from the ranked
candidates, strongest link first, never past `group_size` (single linkage with a cap).
Requests left in the budget go to the best candidate pairs no group covers.
"""

from __future__ import annotations

from dataclasses import dataclass

from curator.llm.similarity import Candidate
from curator.models import Memory


@dataclass(frozen=True)
class Group:
    """The memories one request asks about, in a stable order; `score` ranks requests."""

    members: tuple[Memory, ...]
    score: float

    @property
    def pair_count(self) -> int:
        n = len(self.members)
        return n * (n - 1) // 2

    def covers(self, a: str, b: str) -> bool:
        rels = {m.rel for m in self.members}
        return a in rels and b in rels


def plan_groups(ranked: list[Candidate], group_size: int) -> list[Group]:
    """Every request the sweep could make, most promising first."""
    root: dict[str, str] = {}
    members: dict[str, list[Memory]] = {}
    best: dict[str, float] = {}

    def find(rel: str) -> str:
        while root.get(rel, rel) != rel:
            rel = root[rel]
        return rel

    for c in ranked:
        ra, rb = find(c.a.rel), find(c.b.rel)
        if ra == rb:
            continue
        ga, gb = members.get(ra, [c.a]), members.get(rb, [c.b])
        if len(ga) + len(gb) > max(2, group_size):
            continue
        root[rb] = ra
        members[ra] = ga + gb
        members.pop(rb, None)
        best[ra] = max(best.get(ra, 0.0), best.pop(rb, 0.0), c.score)

    groups = [
        Group(tuple(sorted(ms, key=lambda m: m.rel)), best[key]) for key, ms in members.items()
    ]
    groups.sort(key=lambda g: (-g.score, g.members[0].rel))
    for c in ranked:
        if find(c.a.rel) != find(c.b.rel):
            groups.append(Group(tuple(sorted((c.a, c.b), key=lambda m: m.rel)), c.score))
    return groups
