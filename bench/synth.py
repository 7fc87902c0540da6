"""Synthetic memory stores of realistic shape for the benchmarks."""

from __future__ import annotations

import random
from pathlib import Path

TYPES = ("user", "feedback", "project", "reference")
WORDS = (
    "deploy",
    "pipeline",
    "review",
    "tests",
    "integration",
    "billing",
    "queue",
    "retry",
    "cache",
    "schema",
    "migration",
    "release",
    "freeze",
    "hotfix",
    "dashboard",
    "latency",
    "owner",
    "team",
    "backend",
    "frontend",
    "database",
    "index",
    "config",
    "secrets",
    "token",
    "rotate",
    "alert",
    "oncall",
    "incident",
    "postmortem",
    "runbook",
    "staging",
    "prod",
)
SENTENCES = (
    "Merge freeze begins 2026-03-05; only hotfixes may merge until then.",
    "Backup completed 2026-06-20 without errors.",
    "See `src/{w}/{w2}.py` for the {w} logic; `{W}Handler` owns retries.",
    "Revisit the {w} budget next week with the {w2} team.",
    "The {w} release is planned for Q{q} 2026.",
    "- 2026-0{m}-1{d}: {w} {w2} done",
    "Prefer small PRs for {w} changes; never force-push to main.",
    "Dashboards: https://grafana.example.com/d/{w}-{w2}",
    "Since 2026-01-10 we deploy {w} with Argo.",
    "Ask the {w} owner before touching the {w2} schema.",
)


def _sentence(rng: random.Random) -> str:
    w, w2 = rng.choice(WORDS), rng.choice(WORDS)
    return rng.choice(SENTENCES).format(
        w=w, w2=w2, W=w.capitalize(), q=rng.randint(1, 4), m=rng.randint(1, 9), d=rng.randint(0, 9)
    )


def make_store(root: Path, count: int, seed: int = 7) -> Path:
    """Write `count` memories and a MEMORY.md (about 3% orphans, 1% broken links)."""
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    index = ["# Memory", ""]
    for i in range(count):
        kind = TYPES[i % 4]
        name = f"{kind}_{rng.choice(WORDS)}_{i}.md"
        body = "\n".join(_sentence(rng) for _ in range(rng.randint(4, 24)))
        text = (
            f"---\nname: {rng.choice(WORDS)} {i}\ndescription: How we handle "
            f"{rng.choice(WORDS)} for {rng.choice(WORDS)}\ntype: {kind}\n---\n\n{body}\n"
        )
        (root / name).write_text(text, encoding="utf-8")
        if rng.random() > 0.03:
            index.append(f"- [{name[:-3]}]({name}) — {rng.choice(WORDS)} {rng.choice(WORDS)}")
        if rng.random() < 0.01:
            index.append(f"- [gone {i}](gone_{i}.md) — deleted")
    (root / "MEMORY.md").write_text("\n".join(index) + "\n", encoding="utf-8")
    return root
