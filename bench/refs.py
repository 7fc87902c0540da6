"""What the reference rules (CUR201-CUR203) cost: 2,000 memories against a synthetic repo.

    python bench/refs.py [--memories 2000 200] [--files 3000] [--runs 3]

Builds a git repository of `--files` Python files under bench/out/refs/ and a store of
synthetic memories, each naming a few paths (live and dead), code symbols and URLs. Times
`curator lint` as a whole process (best of `--runs`) with every cheap rule, with every
cheap rule but the reference rules, and with the reference rules alone, and prints the
difference: what the reference rules add. Figures go to stdout and to
bench/out/refs.json. Not a test: timings on a shared machine are noisy.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

OUT = Path(__file__).resolve().parent / "out" / "refs"
GIT_ENV = {
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
}


def make_repo(root: Path, files: int) -> list[tuple[str, str]]:
    """A committed repository; returns (path, class name) of every file."""
    if root.exists():
        shutil.rmtree(root)
    made = []
    for i in range(files):
        rel = f"src/pkg{i % 40}/module_{i}.py"
        name = f"Service{i}"
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            f'"""Module {i}."""\n\n\nclass {name}:\n    def handle_{i}(self) -> int:\n'
            f"        return {i}\n",
            encoding="utf-8",
        )
        made.append((rel, name))
    env = {**os.environ, **GIT_ENV}
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "bench"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True)
    return made


def make_store(root: Path, count: int, files: list[tuple[str, str]], seed: int = 1) -> None:
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    rng = random.Random(seed)
    index = ["# Memory", ""]
    for i in range(count):
        live_path, live_class = rng.choice(files)
        body = (
            f"The handler lives in `{live_path}`; `{live_class}` owns it and calls "
            f"`handle_{rng.randrange(len(files))}`.\n"
            f"The old `scripts/legacy_{i}.py` and `RemovedThing{i}` are gone.\n"
            f"See src/pkg{i % 40}/README.md and https://docs.example.com/page/{i}.\n"
            "Run `make test` before pushing; prefer `snake_case` names.\n"
        )
        name = f"project_{i}.md"
        text = (
            f"---\nname: memory {i}\ndescription: synthetic memory {i}\ntype: project\n---\n\n"
            + body
        )
        (root / name).write_text(text, encoding="utf-8")
        index.append(f"- [memory {i}]({name}) — synthetic")
    (root / "MEMORY.md").write_text("\n".join(index) + "\n", encoding="utf-8")


def time_lint(store: Path, repo: Path, select: list[str], ignore: list[str], runs: int) -> float:
    args = [sys.executable, "-m", "curator", "lint", str(store), "--repo-root", str(repo)]
    args += ["--output-format", "concise", "--exit-zero", "--today", "2026-06-01"]
    for code in select:
        args += ["--select", code]
    for code in ignore:
        args += ["--ignore", code]
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(args, capture_output=True, check=True)
        best = min(best, time.perf_counter() - started)
    return best * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, nargs="+", default=[2000, 200])
    parser.add_argument("--files", type=int, default=3000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    repo = OUT / "repo"
    files = make_repo(repo, args.files)
    refs = ["CUR201", "CUR202", "CUR203"]
    results = []
    for count in args.memories:
        store = OUT / f"store-{count}" / "memory"
        make_store(store, count, files)
        everything = time_lint(store, repo, [], [], args.runs)
        without = time_lint(store, repo, [], ["CUR2"], args.runs)
        only = time_lint(store, repo, refs, [], args.runs)
        row = {
            "memories": count,
            "repo_files": args.files,
            "all_cheap_ms": round(everything),
            "without_refs_ms": round(without),
            "refs_added_ms": round(everything - without),
            "refs_only_ms": round(only),
        }
        results.append(row)
        print(
            f"{count:>6} memories, {args.files} repo files: all cheap rules {everything:7.0f} ms, "
            f"without CUR2xx {without:7.0f} ms, reference rules add {everything - without:6.0f} ms "
            f"(alone, whole process: {only:6.0f} ms)"
        )
    (OUT / "refs.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
