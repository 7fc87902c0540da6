"""Time `curator lint` as a whole process on synthetic stores.

python bench/run.py [--sizes 200,2000,10000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synth import make_store

OUT = Path(__file__).resolve().parent / "out"


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
    args = parser.parse_args()
    results = []
    for size in (int(s) for s in args.sizes.split(",")):
        store = OUT / f"store-{size}"
        if not (store / "MEMORY.md").exists():
            make_store(store, size)
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
        ]
        seconds, code = time_command(cmd, args.repeat)
        results.append({"memories": size, "lint_seconds": round(seconds, 3), "exit": code})
        print(f"curator lint, {size:>6} memories: {seconds * 1000:8.0f} ms (best of {args.repeat})")
    baseline, _ = time_command([sys.executable, "-c", "pass"], args.repeat)
    print(f"python startup alone:            {baseline * 1000:8.0f} ms")
    OUT.mkdir(exist_ok=True)
    (OUT / "results.json").write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
