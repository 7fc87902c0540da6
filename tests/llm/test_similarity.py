"""Pair candidates: ranking, the inverted index's bounds, and the requests' groups."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from curator.interpreter.rulebook import load_rules
from curator.llm.grouping import plan_groups
from curator.llm.similarity import candidates
from curator.store.reading import read_store
from tests.conftest import memory

# Two labelled contradictions that share few words, two redundant pairs (one across
# languages), and filler on other topics.
STORE = {
    "project_redux.md": memory(
        "New shared client state gets a Redux Toolkit slice under `src/store/slices/`.\n",
        name="Redux for global state",
        description="Global client state lives in Redux Toolkit slices",
    ),
    "project_zustand.md": memory(
        "We are phasing Redux out; new shared client state goes into Zustand stores.\n",
        name="Moving to Zustand",
        description="New shared state goes into small Zustand stores",
    ),
    "feedback_functional.md": memory(
        "Prefer functional patterns: pure functions and immutable data over classes.\n",
        name="Functional style",
        description="The user prefers functional patterns over classes",
        type="feedback",
    ),
    "feedback_hot_path.md": memory(
        "For the ingest hot path the class-based approach was right: a mutable buffer class.\n",
        name="Class-based ingest hot path",
        description="The ingest hot path uses a class with mutable state",
        type="feedback",
    ),
    "feedback_english.md": memory(
        "Write commit messages in English.\n",
        name="English commit messages",
        description="Commit messages are written in English",
        type="feedback",
    ),
    "feedback_commits_en.md": memory(
        "Commit messages must be in English, even for German tickets.\n",
        name="Commits in English",
        description="Commit messages in English",
        type="feedback",
    ),
    "user_role.md": memory(
        "The user is a product manager; explain changes by customer impact.\n",
        name="User is a PM",
        description="User is a product manager",
        type="user",
    ),
    "reference_grafana.md": memory(
        "Latency dashboards are in Grafana under the Payments folder.\n",
        name="Grafana dashboards",
        description="Where the latency dashboards are",
        type="reference",
    ),
}
TARGETS = [
    ("project_redux.md", "project_zustand.md"),
    ("feedback_functional.md", "feedback_hot_path.md"),
    ("feedback_commits_en.md", "feedback_english.md"),
]


def rule_params(code: str = "CUR401", **overrides: Any) -> dict[str, Any]:
    return {**next(r for r in load_rules() if r.code == code).params, **overrides}


def test_labelled_pairs_rank_above_unrelated_ones(make_store: Callable[..., Path]) -> None:
    store = read_store(make_store(STORE))
    found = candidates(store.memories, rule_params())
    ranked = [tuple(sorted((c.a.rel, c.b.rel))) for c in found.ranked]
    for pair in TARGETS:
        assert tuple(sorted(pair)) in ranked
    # unrelated memories share no indexed token, so they are never scored
    assert not any("user_role.md" in pair and "reference_grafana.md" in pair for pair in ranked)
    groups = plan_groups(found.ranked, 10)
    for a, b in TARGETS:
        assert any(g.covers(a, b) for g in groups)


def test_group_size_caps_each_request(make_store: Callable[..., Path]) -> None:
    store = read_store(make_store(STORE))
    found = candidates(store.memories, rule_params())
    for group in plan_groups(found.ranked, 2):
        assert len(group.members) == 2
    assert all(len(g.members) <= 3 for g in plan_groups(found.ranked, 3))


def test_groups_cover_a_topic_in_few_requests_and_cap_each_memory(
    make_store: Callable[..., Path],
) -> None:
    # eight memories on one topic, each pair sharing a word of its own: 28 candidate pairs
    files = {
        f"m{i}.md": memory(
            " ".join(f"w{min(i, j)}x{max(i, j)}" for j in range(8) if j != i) + "\n",
            name=f"topic {i}",
        )
        for i in range(8)
    }
    files.update({f"other{i}.md": memory(f"other words{i}\n", name=f"o{i}") for i in range(40)})
    store = read_store(make_store(files))
    found = candidates(store.memories, rule_params(per_memory=8))
    assert len(found.ranked) == 28
    groups = plan_groups(found.ranked, 4)
    assert all(any(g.covers(c.a.rel, c.b.rel) for g in groups) for c in found.ranked)
    assert len(groups) <= 8  # one request per pair would be 28
    assert [g.score for g in groups] == sorted((g.score for g in groups), reverse=True)
    capped = plan_groups(found.ranked, 4, max_groups_per_memory=2)
    assert max(Counter(m.rel for g in capped for m in g.members).values()) == 2


def test_markers_boost_without_gating(make_store: Callable[..., Path]) -> None:
    files = {
        "a.md": memory("Always squash merge pull requests into main.\n", name="squash"),
        "b.md": memory("Never squash merge pull requests; keep the history.\n", name="no squash"),
        "c.md": memory("Squash merge pull requests into main after review.\n", name="squash rev"),
    }
    store = read_store(make_store(files))
    plain = candidates(store.memories, rule_params(marker_boost=1.0))
    boosted = candidates(store.memories, rule_params(marker_boost=3.0))
    score = {frozenset((c.a.rel, c.b.rel)): c.score for c in plain.ranked}
    score_boosted = {frozenset((c.a.rel, c.b.rel)): c.score for c in boosted.ranked}
    ab, ac = frozenset(("a.md", "b.md")), frozenset(("a.md", "c.md"))
    assert score_boosted[ab] > score[ab]
    assert score_boosted[ac] == score[ac]  # no opposing markers: still a candidate


def test_work_per_memory_is_bounded(make_store: Callable[..., Path]) -> None:
    # 60 memories that all share one word and each a private pair of words
    files = {
        f"m{i:02d}.md": memory(f"shared topic word{i // 2} extra{i}\n", name=f"n{i}")
        for i in range(60)
    }
    store = read_store(make_store(files))
    params = {"max_postings": 10, "probe_limit": 5, "always_index_up_to": 2, "max_df": 0.01}
    found = candidates(store.memories, params)
    assert found.stats.skipped_common_tokens >= 1  # "shared", "topic" are not indexed
    assert found.stats.pairs_examined <= 60 * (5 + 10)
    ranked = {frozenset((c.a.rel, c.b.rel)) for c in found.ranked}
    assert frozenset(("m00.md", "m01.md")) in ranked


def test_both_pair_rules_share_one_sweep() -> None:
    """CUR401 and CUR402 read the same verdicts only while their params agree."""
    contradiction, redundant = rule_params("CUR401"), rule_params("CUR402")
    assert (contradiction.pop("verdict"), redundant.pop("verdict")) == ("contradict", "redundant")
    assert contradiction == redundant
