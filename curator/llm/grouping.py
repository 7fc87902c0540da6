"""Plan the pair sweep's requests: dense topical groups that cover the best pairs.

Real contradictions share few words, so a memory's true partner is often only its
fourth or sixth neighbour; asking pair by pair would spend the budget on the few best.
One request instead judges every pair inside a group of up to `group_size` memories.
Groups are grown greedily: start from the best candidate pair no request covers yet,
then add, one at a time, the memory with the most uncovered candidate weight to the
members so far, until the group is full or nothing links to it. Every candidate pair
inside it is then covered; the next group starts from the best pair left. A memory
joins at most `max_groups_per_memory` groups, so no memory's text is sent more often
than that. Requests come out in order, most promising first, so a budget cut keeps the
best of them.
"""

from __future__ import annotations

from collections import defaultdict
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


def plan_groups(
    ranked: list[Candidate], group_size: int, max_groups_per_memory: int = 0
) -> list[Group]:
    """Every request the sweep could make, most promising first. `max_groups_per_memory`
    0 means no cap."""
    size = max(2, group_size)
    cap = max_groups_per_memory if max_groups_per_memory > 0 else len(ranked) + 1
    memory: dict[str, Memory] = {}
    links: dict[str, dict[str, float]] = defaultdict(dict)
    for c in ranked:
        memory[c.a.rel], memory[c.b.rel] = c.a, c.b
        links[c.a.rel][c.b.rel] = links[c.b.rel][c.a.rel] = c.score
    open_pairs = {_key(c.a.rel, c.b.rel) for c in ranked}
    joined: dict[str, int] = defaultdict(int)
    groups: list[Group] = []
    for c in ranked:
        if _key(c.a.rel, c.b.rel) not in open_pairs:
            continue
        if joined[c.a.rel] >= cap or joined[c.b.rel] >= cap:
            open_pairs.discard(_key(c.a.rel, c.b.rel))  # both ends are spent
            continue
        members = _grow([c.a.rel, c.b.rel], size, links, open_pairs, joined, cap)
        for i, a in enumerate(members):
            joined[a] += 1
            for b in members[i + 1 :]:
                open_pairs.discard(_key(a, b))
        ordered = tuple(sorted((memory[m] for m in members), key=lambda m: m.rel))
        groups.append(Group(ordered, c.score))
    return groups


def plan_named(
    named: list[Candidate], groups: list[Group], group_size: int, max_groups_per_memory: int
) -> list[Group]:
    """Requests for the pairs that name the same rare thing and no group of `groups`
    covers yet, grown from those pairs alone; a memory joins at most
    `max_groups_per_memory` of them (0: none). The groups already planned are left as
    they are, so what they cover stays covered."""
    if max_groups_per_memory <= 0 or not named:
        return []
    covered: set[tuple[str, str]] = set()
    for group in groups:
        rels = [m.rel for m in group.members]
        covered.update(_key(a, b) for i, a in enumerate(rels) for b in rels[i + 1 :])
    rest = [c for c in named if _key(c.a.rel, c.b.rel) not in covered]
    return plan_groups(rest, group_size, max_groups_per_memory)


def _grow(
    members: list[str],
    size: int,
    links: dict[str, dict[str, float]],
    open_pairs: set[tuple[str, str]],
    joined: dict[str, int],
    cap: int,
) -> list[str]:
    """Add the best-linked memory until the group is full or nothing links to it."""
    while len(members) < size:
        gain: dict[str, float] = defaultdict(float)
        for m in members:
            for other, score in links[m].items():
                if other not in members and joined[other] < cap and _key(m, other) in open_pairs:
                    gain[other] += score
        if not gain:
            break
        members.append(max(gain.items(), key=lambda item: (item[1], item[0]))[0])
    return members


def _key(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)
