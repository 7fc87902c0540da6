"""Time the real `curator hook session-start` on a synthetic 200-memory store.

Whole process, as Claude Code runs it: a fresh interpreter per run, JSON on stdin, a
real git repository. The rate gate is off so every run scans. Prints the best and the
median of N runs; not part of the test suite (shared machines are noisy).

    python bench/hook.py [--memories 200] [--runs 15]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TYPES = ("user", "feedback", "project", "reference")
SENTENCES = (
    "Merge freeze begins 2026-03-05 for the payments team.",
    "The ingest job moved to `scripts/ingest.py` in the spring.",
    "Prefer small pull requests; the reviewers asked for it on 2026-02-11.",
    "Backup completed 2026-06-20 without errors.",
    "Release cut planned for Q3 2026, see the roadmap.",
    "Run `make test` before pushing; CI is slow on Fridays.",
    "The API client retries three times with exponential backoff.",
    "Use the staging cluster for load tests, never production.",
)


def make_store(root: Path, count: int) -> Path:
    rng = random.Random(7)
    store = root / "memory"
    store.mkdir(parents=True)
    index = ["# Memory"]
    for i in range(count):
        kind = TYPES[i % len(TYPES)]
        name = f"{kind}_topic_{i:04d}.md"
        body = "\n\n".join(" ".join(rng.sample(SENTENCES, 4)) for _ in range(3))
        text = (
            f"---\nname: topic {i}\ndescription: synthetic memory {i}\ntype: {kind}\n---\n"
            f"# Topic {i}\n\n{body}\n"
        )
        (store / name).write_text(text, encoding="utf-8")
        if i % 10:  # every tenth memory is an orphan
            index.append(f"- [Topic {i}]({name}) — synthetic memory {i}")
    index.append("- [Gone](gone_memory.md) — a broken link")
    (store / "MEMORY.md").write_text("\n".join(index) + "\n", encoding="utf-8")
    return store


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=200)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--keep", type=Path, help="Build in this empty folder and keep it.")
    args = parser.parse_args()
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=False)
        run(args, args.keep.resolve())
        return

    with tempfile.TemporaryDirectory(prefix="curator-bench-") as tmp:
        run(args, Path(tmp).resolve())


def run(args: argparse.Namespace, root: Path) -> None:
    if True:
        repo = root / "repo"
        (repo / "scripts").mkdir(parents=True)
        (repo / "scripts" / "ingest.py").write_text("print('ingest')\n")
        git_env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@x",
                   "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@x"}  # fmt: skip
        for cmd in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "init"]):
            subprocess.run(["git", *cmd], cwd=repo, env=git_env, check=True)
        slug = "".join(c if c.isalnum() else "-" for c in str(repo.resolve()))
        make_store(root / "claude" / "projects" / slug, args.memories)
        config = root / "xdg" / "curator" / "config.yaml"
        config.parent.mkdir(parents=True)
        config.write_text("cheap:\n  skip_if_session_age_under_seconds: 0\n")
        env = {
            **os.environ,
            "HOME": str(root / "home"),
            "CLAUDE_CONFIG_DIR": str(root / "claude"),
            "XDG_CONFIG_HOME": str(root / "xdg"),
            "ONLOOKER_DIR": str(root / "onlooker"),
        }
        env.pop("ONLOOKER_EVENTS_LOG", None)
        payload = json.dumps({"session_id": "bench", "cwd": str(repo), "source": "startup"})
        command = [sys.executable, "-m", "curator", "hook", "session-start"]
        timings, output = [], ""
        for _ in range(args.runs):
            start = time.perf_counter()
            out = subprocess.run(
                command, input=payload, env=env, capture_output=True, text=True, check=True
            )
            timings.append((time.perf_counter() - start) * 1000)
            output = out.stdout.strip()
        log = root / "onlooker" / "logs" / "onlooker-events.jsonl"
        last = [json.loads(x) for x in log.read_text().splitlines()][-1]["payload"]
        print(f"memories: {args.memories}, runs: {args.runs}")
        print(f"first run (creates findings): {timings[0]:.0f} ms")
        print(f"best: {min(timings):.0f} ms, median: {statistics.median(timings):.0f} ms")
        print(f"last run: outcome={last['outcome']} skip_reason={last['skip_reason']} "
              f"open={last['findings_open']} in-process={last['duration_ms']} ms")  # fmt: skip
        print(f"hook output: {output}")


if __name__ == "__main__":
    main()
