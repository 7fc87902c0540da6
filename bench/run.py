"""Time `curator lint` as a whole process on stores of 200, 2,000 and 10,000 memories.

    python bench/run.py [--sizes 200,2000,10000] [--repeat 3] [--corpus DIR] [--select CODES]
                        [--lint-args ARGS]

Stores are written to a temporary folder outside any git repository, so the path and
symbol rules are skipped (their cost is measured by bench/refs.py). By default the
memories are synthetic (bench/synth.py); with `--corpus DIR` (e.g. ../shared/corpus/real)
they are the real memory files found under DIR, repeated until the size is reached.
`--select CUR101,CUR102` times those rules alone (e.g. the date checks).
"""

from __future__ import annotations

import argparse
import itertools
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synth import make_store

OUT = Path(__file__).resolve().parent / "out"


def corpus_store(root: Path, corpus: Path, count: int) -> Path:
    """`count` memory files copied, round-robin, from the real stores under `corpus`."""
    files = sorted(p for p in corpus.rglob("*.md") if p.name != "MEMORY.md")
    if not files:
        raise SystemExit(f"no memory files under {corpus}")
    root.mkdir(parents=True)
    index = ["# Memory", ""]
    for i, source in zip(range(count), itertools.cycle(files)):
        name = f"m{i:05d}_{source.name}"
        shutil.copyfile(source, root / name)
        index.append(f"- [{source.stem}]({name})")
    (root / "MEMORY.md").write_text("\n".join(index) + "\n", encoding="utf-8")
    return root


def time_command(args: list[str], repeat: int) -> tuple[float, int]:
    best, code = float("inf"), 0
    for _ in range(repeat):
        start = time.perf_counter()
        done = subprocess.run(args, capture_output=True, check=False)
        best = min(best, time.perf_counter() - start)
        code = done.returncode
    return best, code


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="200,2000,10000")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--corpus", type=Path, help="copy real memory files from here")
    parser.add_argument(
        "--lint-args", default="", help="more `curator lint` arguments, e.g. '--ignore CUR5'"
    )
    parser.add_argument("--select", help="rule codes to run, as `curator lint --select`")
    args = parser.parse_args()
    kind = f"corpus {args.corpus}" if args.corpus else "synthetic"
    results = []
    with tempfile.TemporaryDirectory(prefix="curator-bench-") as tmp:
        for size in (int(s) for s in args.sizes.split(",")):
            store = Path(tmp) / f"store-{size}" / "memory"
            if args.corpus:
                corpus_store(store, args.corpus, size)
            else:
                make_store(store, size)
            megabytes = sum(p.stat().st_size for p in store.iterdir()) / 1e6
            cmd = [
                sys.executable,
                "-m",
                "curator",
                "lint",
                str(store),
                "--output-format",
                "concise",
                "--today",
                "2026-11-30",
                "--exit-zero",
                *args.lint_args.split(),
                *(["--select", args.select] if args.select else []),
            ]
            seconds, code = time_command(cmd, args.repeat)
            results.append(
                {
                    "memories": size,
                    "megabytes": round(megabytes, 1),
                    "kind": kind,
                    "select": args.select or "default",
                    "lint_seconds": round(seconds, 3),
                    "exit": code,
                }
            )
            print(
                f"curator lint, {size:>6} memories ({megabytes:5.1f} MB, {kind}): "
                f"{seconds * 1000:8.0f} ms (best of {args.repeat})"
            )
    baseline, _ = time_command([sys.executable, "-c", "pass"], args.repeat)
    print(f"python startup alone: {baseline * 1000:8.0f} ms")
    OUT.mkdir(exist_ok=True)
    (OUT / "results.json").write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
