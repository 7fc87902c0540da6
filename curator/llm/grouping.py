"""Plan the pair sweep's requests: dense topical groups that cover the best pairs.

Real contradictions share few words, so a memory's true partner is often only its
fourth or sixth neighbour; asking pair by pair would spend the budget on the few best.
One request instead judges every pair inside a group of up to `group_size` memories.
Groups are grown greedily: start from the best candidate pair no request covers yet,
then add, one at a time, the memory with the most uncovered candidate weight to the
members so far, until the group is full or nothing links to it. Every candidate pair
inside it is then covered; the next group starts from the best pair left. A memory
joins at most `max_groups_per_memory` groups (fewer when `room` says so: the index
sweep's requests count against the same bound), so no memory's text is sent more often
than that. A pair the greedy left uncovered is then added to a group that holds one of
its memories and has a place left, when the other memory may still join one. Requests
come out in order, most promising first, so a budget cut keeps the best of them.
`fill_groups` then gives a group's places left to memories with a request to spare,
linked to its members, and drops a group another one asks all of.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
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
    ranked: list[Candidate],
    group_size: int,
    max_groups_per_memory: int = 0,
    room: Mapping[str, int] | None = None,
    max_chars: int = 0,
    chars: Mapping[str, int] | None = None,
) -> list[Group]:
    """Every request the sweep could make, most promising first. `max_groups_per_memory`
    0 means no cap; `room` lowers it for the memories it names (0: in no group). With
    `max_chars`, a group's memories hold at most that much text (`chars` of each, as the
    prompt shows it), whatever their number."""
    size = max(2, group_size)
    fits = _Fits(max_chars, chars or {})
    most = max_groups_per_memory if max_groups_per_memory > 0 else len(ranked) + 1
    caps: dict[str, int] = defaultdict(lambda: most)
    caps.update({rel: min(most, max(0, n)) for rel, n in (room or {}).items()})
    memory: dict[str, Memory] = {}
    links: dict[str, dict[str, float]] = defaultdict(dict)
    for c in ranked:
        memory[c.a.rel], memory[c.b.rel] = c.a, c.b
        links[c.a.rel][c.b.rel] = links[c.b.rel][c.a.rel] = c.score
    open_pairs = {_key(c.a.rel, c.b.rel) for c in ranked}
    joined: dict[str, int] = defaultdict(int)
    planned: list[tuple[list[str], float]] = []
    for c in ranked:
        if _key(c.a.rel, c.b.rel) not in open_pairs:
            continue
        if joined[c.a.rel] >= caps[c.a.rel] or joined[c.b.rel] >= caps[c.b.rel]:
            continue  # an end is spent: left for the repair below
        members = _grow([c.a.rel, c.b.rel], size, links, open_pairs, joined, caps, fits)
        for i, a in enumerate(members):
            joined[a] += 1
            for b in members[i + 1 :]:
                open_pairs.discard(_key(a, b))
        planned.append((members, c.score))
    _repair(ranked, planned, size, open_pairs, joined, caps, fits)
    return [
        Group(tuple(sorted((memory[m] for m in members), key=lambda m: m.rel)), score)
        for members, score in planned
    ]


def fill_groups(
    groups: list[Group],
    pairs: list[Candidate],
    group_size: int,
    room: Mapping[str, int],
    max_chars: int = 0,
    chars: Mapping[str, int] | None = None,
) -> list[Group]:
    """`groups` with their places left taken by memories that still have a request to
    spare (`room`, less the groups they are in), the one with the most candidate weight
    to the members first: a memory's partner is often a neighbour of its neighbours.
    Nothing is asked in more requests, and what each group covered stays covered."""
    size = max(2, group_size)
    fits = _Fits(max_chars, chars or {})
    links: dict[str, dict[str, float]] = defaultdict(dict)
    memory: dict[str, Memory] = {}
    for c in pairs:
        memory[c.a.rel], memory[c.b.rel] = c.a, c.b
        links[c.a.rel][c.b.rel] = links[c.b.rel][c.a.rel] = c.score
    joined: dict[str, int] = defaultdict(int)
    for group in groups:
        for member in group.members:
            joined[member.rel] += 1
            memory[member.rel] = member
    filled: list[list[str]] = []
    for group in groups:
        members = [m.rel for m in group.members]
        while len(members) < size:
            gain: dict[str, float] = defaultdict(float)
            for m in members:
                for other, score in links[m].items():
                    if other not in members and joined[other] < room.get(other, 0):
                        gain[other] += score
            fitting = [(g, o) for o, g in gain.items() if fits(members, o)]
            if not fitting:
                break
            _, best = max(fitting)
            members.append(best)
            joined[best] += 1
        filled.append(members)
    sets = [frozenset(members) for members in filled]
    out = []
    for number, (group, members) in enumerate(zip(groups, filled, strict=True)):
        if sets[number] in sets[:number] or any(sets[number] < other for other in sets):
            continue  # another request asks all this one would: not asked twice
        ordered = tuple(sorted((memory[m] for m in members), key=lambda m: m.rel))
        out.append(Group(ordered, group.score))
    return out


def _repair(
    ranked: list[Candidate],
    planned: list[tuple[list[str], float]],
    size: int,
    open_pairs: set[tuple[str, str]],
    joined: dict[str, int],
    caps: Mapping[str, int],
    fits: _Fits,
) -> None:
    """Cover the pairs left open where a group holds one memory of the pair and has a
    place left, and the other memory may still join a group; best pairs first."""
    for c in ranked:
        if _key(c.a.rel, c.b.rel) not in open_pairs:
            continue
        for held, other in ((c.a.rel, c.b.rel), (c.b.rel, c.a.rel)):
            if joined[other] >= caps[other]:
                continue
            home = next(
                (m for m, _ in planned if held in m and len(m) < size and fits(m, other)), None
            )
            if home is None:
                continue
            for member in home:
                open_pairs.discard(_key(member, other))
            home.append(other)
            joined[other] += 1
            break


def _grow(
    members: list[str],
    size: int,
    links: dict[str, dict[str, float]],
    open_pairs: set[tuple[str, str]],
    joined: dict[str, int],
    caps: Mapping[str, int],
    fits: _Fits,
) -> list[str]:
    """Add the best-linked memory until the group is full or nothing links to it."""
    while len(members) < size:
        gain: dict[str, float] = defaultdict(float)
        for m in members:
            for other, score in links[m].items():
                if (
                    other not in members
                    and joined[other] < caps[other]
                    and _key(m, other) in open_pairs
                    and fits(members, other)
                ):
                    gain[other] += score
        if not gain:
            break
        members.append(max(gain.items(), key=lambda item: (item[1], item[0]))[0])
    return members


class _Fits:
    """Whether one more memory keeps a group's text within `max_chars` (0: no bound);
    the first pair of a group always fits."""

    def __init__(self, max_chars: int, chars: Mapping[str, int]) -> None:
        self.max_chars, self.chars = max_chars, chars

    def __call__(self, members: list[str], other: str) -> bool:
        if self.max_chars <= 0 or len(members) < 2:
            return True
        used = sum(self.chars.get(m, 0) for m in members)
        return used + self.chars.get(other, 0) <= self.max_chars


def _key(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)
