"""Pair-candidate generation on synthetic stores: time, pairs scored, requests planned.

    python bench/pairs.py [--sizes 100,500,1000,2000,10000] [--seed 7]

Each synthetic memory picks a topic (one per ~20 memories) and mixes topic words with
words from a Zipf-distributed shared vocabulary, so common words are really common.
The figures that matter: `pairs scored` against the N² / 2 a naive sweep would score,
and the requests a full sweep makes, per memory and at most per memory.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from curator.interpreter.rulebook import load_rules
from curator.llm.pair_sweep import plan
from curator.llm.similarity import candidates
from curator.store.reading import read_store

SYLLABLES = [a + b for a in "bcdfghklmnprstvz" for b in ("a", "e", "i", "o", "u", "ai", "ou")]


def word(rng: random.Random) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4)))


def write_store(root: Path, n: int, rng: random.Random) -> None:
    shared = [word(rng) for _ in range(4000)]
    weights = [1 / (rank + 1) for rank in range(len(shared))]
    topics = [[word(rng) for _ in range(12)] for _ in range(max(1, n // 20))]
    types = ("user", "feedback", "project", "reference")
    for i in range(n):
        topic = rng.choice(topics)
        body = rng.choices(shared, weights, k=40) + rng.sample(topic, 5)
        rng.shuffle(body)
        text = (
            f"---\nname: {' '.join(rng.sample(topic, 3))}\n"
            f"description: {' '.join(rng.choices(shared, weights, k=8))}\n"
            f"type: {types[i % 4]}\n---\n\n{' '.join(body)}.\n"
        )
        (root / f"memory_{i:05d}.md").write_text(text, encoding="utf-8")


def measure(n: int, seed: int) -> dict[str, object]:
    rule = next(r for r in load_rules() if r.code == "CUR401")
    with tempfile.TemporaryDirectory(prefix="curator-bench-pairs-") as tmp:
        root = Path(tmp)
        write_store(root, n, random.Random(seed))
        store = read_store(root)
        start = time.perf_counter()
        found = candidates(store.memories, rule.params)
        middle = time.perf_counter()
        groups = plan(found, rule.params)
        end = time.perf_counter()
    appearances = Counter(m.rel for g in groups for m in g.members)
    return {
        "memories": n,
        "candidate_seconds": round(middle - start, 3),
        "grouping_seconds": round(end - middle, 3),
        "pairs_scored": found.stats.pairs_examined,
        "all_pairs": n * (n - 1) // 2,
        "ranked_candidates": len(found.ranked),
        "requests_planned": len(groups),
        "requests_per_memory": round(len(groups) / n, 3),
        "most_requests_one_memory_is_in": max(appearances.values(), default=0),
        "skipped_common_tokens": found.stats.skipped_common_tokens,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,500,1000,2000,10000")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    for n in (int(s) for s in args.sizes.split(",")):
        row = measure(n, args.seed)
        share = row["pairs_scored"] / row["all_pairs"]  # type: ignore[operator]
        print(
            f"{n:>6} memories: candidates in {row['candidate_seconds']:.2f}s "
            f"(+{row['grouping_seconds']:.2f}s grouping), {row['pairs_scored']:,} pairs scored "
            f"of {row['all_pairs']:,} ({share:.2%}), {row['requests_planned']} requests planned "
            f"({row['requests_per_memory']} per memory; one memory is in at most "
            f"{row['most_requests_one_memory_is_in']})"
        )
        print(json.dumps(row))


if __name__ == "__main__":
    main()
