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
import resource
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


def time_runs(
    command: list[str], payload: str, env: dict[str, str], runs: int, edit: Path | None = None
) -> tuple[list[tuple[float, float]], str]:
    """(wall ms, cpu ms) per run; cpu is the hook's and git's, less noisy when shared."""
    rows, output = [], ""
    for i in range(runs):
        if edit is not None:
            with edit.open("a", encoding="utf-8") as handle:
                handle.write(f"Edited in run {i}.\n")
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        out = subprocess.run(
            command, input=payload, env=env, capture_output=True, text=True, check=True
        )
        wall = (time.perf_counter() - start) * 1000
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        rows.append((wall, cpu * 1000))
        output = out.stdout.strip()
    return rows, output


def against_bare_python(
    command: list[str], payload: str, env: dict[str, str], runs: int = 7
) -> tuple[float, float]:
    """Median wall ms of the hook on an unchanged store and of `python -c pass`, the two
    interleaved run by run so that both see the same machine."""
    hook, bare = [], []
    for _ in range(runs):
        bare_python = [sys.executable, "-c", "pass"]
        for rows, cmd, stdin in ((bare, bare_python, ""), (hook, command, payload)):
            start = time.perf_counter()
            subprocess.run(cmd, input=stdin, env=env, capture_output=True, text=True, check=True)
            rows.append((time.perf_counter() - start) * 1000)
    return statistics.median(hook), statistics.median(bare)


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
    # An installed curator has its bytecode compiled (pip does it); so does this run.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    payload = json.dumps({"session_id": "bench", "cwd": str(repo), "source": "startup"})
    # The console script, as Claude Code runs the hook (`curator hook session-start`).
    script = Path(sys.executable).with_name("curator")
    entry = [str(script)] if script.is_file() else [sys.executable, "-m", "curator"]
    command = [*entry, "hook", "session-start"]
    unchanged, output = time_runs(command, payload, env, args.runs)
    hook_ms, bare_ms = against_bare_python(command, payload, env)
    # Each run after one memory was edited: the signature misses, the rules re-run.
    victim = next((root / "claude" / "projects" / slug / "memory").glob("project_*.md"))
    changed, _ = time_runs(command, payload, env, args.runs, victim)
    log = root / "onlooker" / "logs" / "onlooker-events.jsonl"
    last = [json.loads(x) for x in log.read_text().splitlines()][-1]["payload"]
    print(f"memories: {args.memories}, runs: {args.runs}")
    print(f"first run (creates every finding): {unchanged[0][0]:.0f} ms wall")
    for label, rows in (("unchanged store", unchanged[1:]), ("one memory edited", changed)):
        wall = [w for w, _ in rows]
        cpu = [c for _, c in rows]
        print(
            f"{label:>18}: wall best {min(wall):.0f} ms, median {statistics.median(wall):.0f}"
            f" ms; cpu best {min(cpu):.0f} ms, median {statistics.median(cpu):.0f} ms"
        )
    print(f"unchanged store vs `python -c pass`, median of 7 interleaved: {hook_ms:.0f} ms / "
          f"{bare_ms:.0f} ms = {hook_ms / bare_ms:.1f}x")  # fmt: skip
    print(f"last run: outcome={last['outcome']} skip_reason={last['skip_reason']} "
          f"open={last['findings_open']} in-process={last['duration_ms']} ms")  # fmt: skip
    print(f"hook output: {output}")


if __name__ == "__main__":
    main()
