"""Benchmark the usage check (CUR301/CUR300) on many large transcripts.

Generates a repository, a 200-memory store and `--count` transcripts of `--size-mb` MB
each in Claude Code's shape (mostly big tool results, some Reads of repository files and
of memories) in a temporary folder, then times `curator lint --select CUR3` as a whole
process: once with an empty transcript cache (every file streamed) and once more with the
cache warm (nothing re-read). Reports wall time, throughput and the lint process's peak
RSS. The files sit in the OS page cache after generation, so the cold run measures
parsing, not the disk.

    python bench/usage.py [--count 200] [--size-mb 5] [--keep]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from curator.store.discovery import project_slug
from tests.helpers.transcript_fixtures import (
    tool_result_line,
    tool_use_line,
    user_line,
)

MEMORIES = 200
TODAY = "2026-06-01"
STAMP = "2026-05-25T10:00:00.000Z"
LINT = [sys.executable, "-m", "curator", "lint", "--select", "CUR3", "--output-format", "json"]
LINT += ["--exit-zero"]


def git(cwd: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.com"}
    env |= {"GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@example.com"}
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


def make_store(store: Path) -> None:
    store.mkdir(parents=True)
    index = []
    for i in range(MEMORIES):
        name = f"project_note_{i:03d}"
        text = (
            f"---\nname: {name}\ndescription: note {i}\ntype: project\n"
            f"modified: 2026-01-10\n---\nSomething worth remembering, number {i}.\n"
        )
        (store / f"{name}.md").write_text(text, encoding="utf-8")
        index.append(f"- [{name}]({name}.md) — note {i}\n")
    (store / "MEMORY.md").write_text("".join(index), encoding="utf-8")


def make_transcripts(folder: Path, repo: Path, store: Path, count: int, size: int) -> None:
    """`count` transcripts of about `size` bytes: a shared pool of lines plus a few reads each."""
    rng = random.Random(7)
    cwd = str(repo)
    pool = []
    for i in range(64):
        kind = i % 4
        if kind == 0:
            pool.append(user_line(cwd, STAMP, f"please look at module {i} " * 20))
        elif kind == 1:
            pool.append(tool_use_line(cwd, STAMP, "Read", f"{cwd}/src/module_{i}.py"))
        else:
            body = "".join(rng.choice("abcdefghij \n") for _ in range(rng.randint(1000, 12000)))
            pool.append(tool_result_line(cwd, STAMP, body))
    block = "\n".join(pool) + "\n"
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(count):
        # Half the memories are read somewhere; the other half are reported as unused.
        reads = [
            tool_use_line(cwd, STAMP, "Read", str(store / f"project_note_{(n + k) % 100:03d}.md"))
            for k in range(3)
        ]
        with (folder / f"session-{n:04d}.jsonl").open("w", encoding="utf-8") as fh:
            written = 0
            while written < size:
                fh.write(block)
                written += len(block)
            fh.write("\n".join(reads) + "\n")


def lint(repo: Path, env: dict[str, str]) -> tuple[float, float, list[dict[str, object]]]:
    """(wall seconds, CPU seconds, diagnostics) of one `curator lint` process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run(
        [*LINT, "--today", TODAY], cwd=repo, env=env, capture_output=True, text=True, check=True
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, json.loads(out.stdout)


def check_alone(repo: Path, store: Path, cache: Path) -> list[tuple[float, float]]:
    """(wall, CPU) seconds of the CUR301 check itself in-process: empty cache, then warm."""
    from curator.config import Config
    from curator.interpreter.checks.usage import check
    from curator.interpreter.context import Context
    from curator.interpreter.rulebook import load_rules
    from curator.store.reading import read_store
    from curator.usage import measure

    rule = next(r for r in load_rules() if r.code == "CUR301")
    ctx = Context(store=read_store(store), config=Config(), today=date.fromisoformat(TODAY))
    ctx = replace(ctx, repo_root=repo)
    times = []
    cache.unlink(missing_ok=True)
    for _ in range(2):
        measure._MEMO.clear()  # the per-process memo would hide the second run
        start, cpu = time.perf_counter(), time.process_time()
        list(check(rule, ctx))
        times.append((time.perf_counter() - start, time.process_time() - cpu))
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--size-mb", type=float, default=5.0)
    parser.add_argument("--keep", action="store_true", help="keep the generated folder")
    args = parser.parse_args()

    base = Path(tempfile.mkdtemp(prefix="curator-bench-usage-")).resolve()
    try:
        repo = base / "repo"
        repo.mkdir()
        (repo / "README.md").write_text("bench\n", encoding="utf-8")
        git(repo, "init", "-q", "-b", "main")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "init")
        projects = base / "claude" / "projects"
        store = projects / project_slug(repo) / "memory"
        make_store(store)
        start = time.perf_counter()
        size = int(args.size_mb * 1024 * 1024)
        make_transcripts(projects / project_slug(repo), repo, store, args.count, size)
        mib = sum(p.stat().st_size for p in projects.glob("*/*.jsonl")) / 1024 / 1024
        generated = time.perf_counter() - start
        env = {
            **os.environ,
            "HOME": str(base / "home"),
            "CLAUDE_CONFIG_DIR": str(base / "claude"),
            "ONLOOKER_DIR": str(base / "onlooker"),
            "XDG_CONFIG_HOME": str(base / "xdg"),
        }
        cold, cold_cpu, found = lint(repo, env)
        peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        warm, warm_cpu, again = lint(repo, env)
        assert found == again, "the cached run must report the same diagnostics"
        os.environ.update({k: env[k] for k in ("CLAUDE_CONFIG_DIR", "ONLOOKER_DIR")})
        cache = base / "onlooker" / "curator" / "cache" / "usage-transcripts.json"
        (alone_cold, alone_cold_cpu), (alone_warm, alone_warm_cpu) = check_alone(repo, store, cache)
        unused = sum(1 for d in found if d["code"] == "CUR301")
        results = {
            "transcripts": args.count,
            "total_mib": round(mib, 1),
            "generate_s": round(generated, 2),
            "lint_cold_s": round(cold, 3),
            "lint_cold_cpu_s": round(cold_cpu, 3),
            "lint_cached_s": round(warm, 3),
            "lint_cached_cpu_s": round(warm_cpu, 3),
            "check_cold_s": round(alone_cold, 3),
            "check_cold_cpu_s": round(alone_cold_cpu, 3),
            "check_cold_mib_per_cpu_s": round(mib / alone_cold_cpu, 1),
            "check_cached_s": round(alone_warm, 4),
            "check_cached_cpu_s": round(alone_warm_cpu, 4),
            "peak_rss_mib": round(peak_kib / 1024, 1),
            "memories": MEMORIES,
            "unused_reported": unused,
        }
        print(
            f"{args.count} transcripts, {mib:,.0f} MiB (generated in {generated:.1f} s), "
            f"{MEMORIES} memories, CUR301 for {unused}\n"
            f"curator lint --select CUR3, empty cache: {cold:.2f} s wall, {cold_cpu:.2f} s CPU, "
            f"peak RSS {peak_kib / 1024:.0f} MiB\n"
            f"curator lint --select CUR3, cached:      {warm:.2f} s wall, {warm_cpu:.2f} s CPU\n"
            f"the check alone, empty cache: {alone_cold:.2f} s wall, {alone_cold_cpu:.2f} s CPU "
            f"({mib / alone_cold_cpu:,.0f} MiB per CPU second)\n"
            f"the check alone, cached:      {alone_warm * 1000:.1f} ms wall, "
            f"{alone_warm_cpu * 1000:.1f} ms CPU"
        )
        print(json.dumps(results))
    finally:
        if args.keep:
            print(f"kept {base}")
        else:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
