"""Pair candidates for the LLM sweep: which memories are worth asking a model about.

Every memory becomes a TF-IDF vector over its name, description and body (the tokens of
`curator.llm.tokens`: words, identifier parts, concept tokens), name and description
weighted above the body, cut to its `top_k` heaviest tokens. Pairs are found through an
inverted index over those tokens: only memories that share an indexed token are ever
scored, tokens held by more than `max_df` of the store are not indexed, and each memory
keeps its `per_memory` best neighbours. A pair's score is the cosine of the two vectors,
times `same_type_boost` when both have the same type and `marker_boost` when one says
always/prefer and the other never/avoid. Markers boost; they never gate: real
contradictions rarely carry them.
"""

from __future__ import annotations

import heapq
import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import regex

from curator.llm.tokens import Lexicon, compound_parts, lexicon, tokens
from curator.models import Memory

# The schema of the candidate params and neutral defaults; the values, word lists
# included, are set in the pair rules' YAML (rules/semantics/contradiction.yaml).
DEFAULTS: dict[str, Any] = {
    "top_k": 32,
    "max_df": 0.05,
    "always_index_up_to": 10,
    "max_postings": 200,
    "probe_limit": 100,
    "per_memory": 2,
    "min_score": 0.02,
    "name_weight": 2.0,
    "description_weight": 1.5,
    "same_type_boost": 1.0,
    "marker_boost": 1.0,
    "positive_markers": [],
    "negative_markers": [],
    "stopwords": {},
    "concepts": [],
    "compound_min_length": 0,
    # Named things (an identifier, a file, a path, an ID): memories that name the same
    # rare one are a candidate pair whatever else they share (`Candidates.named`); a name
    # in more than `named_max_df` memories does not count.
    "named_shapes": [],
    "named_max_df": 0,
}


@dataclass(frozen=True)
class Candidate:
    """Two memories worth a verdict, with the score that ranked them."""

    a: Memory
    b: Memory
    score: float
    shared: tuple[str, ...]  # the indexed tokens both hold, heaviest first


@dataclass
class CandidateStats:
    memories: int = 0
    pairs_examined: int = 0  # (memory, neighbour) scorings; bounded by N x probe_limit
    indexed_tokens: int = 0
    skipped_common_tokens: int = 0


@dataclass
class Candidates:
    ranked: list[Candidate] = field(default_factory=list)
    # pairs that name the same rare thing, best first, whether or not they are in `ranked`
    named: list[Candidate] = field(default_factory=list)
    stats: CandidateStats = field(default_factory=CandidateStats)


def params_with_defaults(params: dict[str, Any]) -> dict[str, Any]:
    return {**DEFAULTS, **{k: v for k, v in params.items() if k in DEFAULTS}}


def _marker_pattern(words: Sequence[str]) -> Any:
    alternatives = "|".join(regex.escape(w.casefold()) for w in words) or "(?!)"
    return regex.compile(rf"(?<!\w)(?:{alternatives})(?!\w)")


def _text(memory: Memory) -> str:
    return "\n".join((memory.name or "", memory.description or "", memory.body()))


def _vectors(
    memories: Sequence[Memory], params: dict[str, Any], lex: Lexicon
) -> list[dict[str, float]]:
    counts: list[dict[str, float]] = []  # weighted term counts (a name word counts 2.0)
    for m in memories:
        bag: dict[str, float] = defaultdict(float)
        for text, weight in (
            (m.name or "", params["name_weight"]),
            (m.description or "", params["description_weight"]),
            (m.body(), 1.0),
        ):
            for token in tokens(text, lex):
                bag[token] += weight
        counts.append(bag)
    counts = compound_parts(counts, lex)
    df: Counter[str] = Counter()
    for bag in counts:
        df.update(bag.keys())
    n = len(memories)
    vectors = []
    for bag in counts:
        weights = {
            t: (1 + math.log(c)) * (math.log((n + 1) / (df[t] + 1)) + 1) for t, c in bag.items()
        }
        top = sorted(weights.items(), key=lambda item: (-item[1], item[0]))[: params["top_k"]]
        norm = math.sqrt(sum(w * w for _, w in top)) or 1.0
        vectors.append({t: w / norm for t, w in top})
    return vectors


def candidates(memories: Sequence[Memory], params: dict[str, Any]) -> Candidates:
    """Rank pairs of memories by similarity without scoring every pair."""
    params = params_with_defaults(params)
    result = Candidates(stats=CandidateStats(memories=len(memories)))
    vectors = _vectors(memories, params, lexicon(params))
    postings: dict[str, list[int]] = defaultdict(list)
    for i, vector in enumerate(vectors):
        for token in vector:
            postings[token].append(i)
    # A token most of the store holds says nothing about a pair and would make this N².
    limit = max(params["always_index_up_to"], math.ceil(params["max_df"] * len(memories)))
    limit = min(limit, max(params["max_postings"], params["always_index_up_to"]))
    common = {t for t, docs in postings.items() if len(docs) > limit}
    result.stats.skipped_common_tokens = len(common)
    result.stats.indexed_tokens = len(postings) - len(common)

    has_positive = _marker_pattern(params["positive_markers"]).search
    has_negative = _marker_pattern(params["negative_markers"]).search
    texts = [_text(m).casefold() for m in memories]
    positive = [bool(has_positive(text)) for text in texts]
    negative = [bool(has_negative(text)) for text in texts]
    types = [m.type for m in memories]
    best: dict[tuple[int, int], float] = {}
    examined = 0
    probe_limit = params["probe_limit"]
    for i, vector in enumerate(vectors):
        # Rarest tokens first, stopping once `probe_limit` neighbours are found: rare
        # tokens carry most of the cosine, and this bounds the work per memory.
        indexed = sorted((t for t in vector if t not in common), key=lambda t: len(postings[t]))
        scores: dict[int, float] = defaultdict(float)
        for token in indexed:
            weight = vector[token]
            for j in postings[token]:
                if j != i:
                    scores[j] += weight * vectors[j][token]
            if len(scores) >= probe_limit:
                break
        examined += len(scores)
        for j, _ in _boosted(i, scores, types, positive, negative, params):
            # the kept neighbours get their exact score over all shared tokens
            exact = {j: sum(w * vectors[j].get(t, 0.0) for t, w in vector.items())}
            for _, score in _boosted(i, exact, types, positive, negative, params):
                key = (min(i, j), max(i, j))
                best[key] = max(best.get(key, 0.0), score)
    # each (memory, neighbour) scoring counts; a pair found from both sides counts twice
    result.stats.pairs_examined = examined
    for (i, j), score in sorted(best.items(), key=lambda item: (-item[1], item[0])):
        if score < params["min_score"]:
            break
        shared = sorted(set(vectors[i]) & set(vectors[j]), key=lambda t: -vectors[i][t])
        result.ranked.append(Candidate(memories[i], memories[j], round(score, 4), tuple(shared)))
    named = _named_pairs(memories, vectors, params)
    for (i, j), (name, score) in sorted(named.items(), key=lambda item: (-item[1][1], item[0])):
        result.named.append(Candidate(memories[i], memories[j], round(score, 4), (name,)))
    return result


def _named_pairs(
    memories: Sequence[Memory], vectors: list[dict[str, float]], params: dict[str, Any]
) -> dict[tuple[int, int], tuple[str, float]]:
    """Pairs of memories that name the same rare thing: (the name, their cosine). Linear:
    a name held by more than `named_max_df` memories is left out, so each name gives at
    most a handful of pairs."""
    most = int(params["named_max_df"])
    if most < 2 or not params["named_shapes"]:
        return {}
    shape = regex.compile("|".join(f"(?:{s})" for s in params["named_shapes"]))
    holders: dict[str, set[int]] = defaultdict(set)
    for i, m in enumerate(memories):
        for match in shape.finditer(_text(m)):
            holders[match.group(0).casefold().strip(".,:;")].add(i)
    pairs: dict[tuple[int, int], tuple[str, float]] = {}
    for name, held in sorted(holders.items()):
        if not 2 <= len(held) <= most:
            continue
        ordered = sorted(held)
        for k, i in enumerate(ordered):
            for j in ordered[k + 1 :]:
                if (i, j) not in pairs:
                    cosine = sum(w * vectors[j].get(t, 0.0) for t, w in vectors[i].items())
                    pairs[(i, j)] = (name, cosine)
    return pairs


def _boosted(
    i: int,
    scores: dict[int, float],
    types: list[str | None],
    positive: list[bool],
    negative: list[bool],
    params: dict[str, Any],
) -> Iterable[tuple[int, float]]:
    """Apply the boosts, then keep this memory's `per_memory` best neighbours."""
    same_type, marker = params["same_type_boost"], params["marker_boost"]
    kind, pos, neg = types[i], positive[i], negative[i]
    boosted = []
    for j, score in scores.items():
        if kind is not None and kind == types[j]:
            score *= same_type
        if (pos and negative[j]) or (neg and positive[j]):
            score *= marker
        boosted.append((j, score))
    return heapq.nsmallest(params["per_memory"], boosted, key=lambda item: (-item[1], item[0]))
