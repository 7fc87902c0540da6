"""Per-run speed: whole-process `curator lint` on small stores, cold and warm, beside the
peer linter when it is installed.

Stores of 10, 50, 200 and 1,000 synthetic memories (`bench/synth.py`), or real stores
given with `--store` (copy them out of their repositories first). Cold: the cache folder
removed before the run (no compiled rulebook, no results). Warm: the caches of the
previous run. The peer, claude-memory-lint 0.4.0, is timed as `claude-memory-lint check
--format json DIR` when `--peer` names its executable (install it in a venv of its own;
it is never a curator dependency); its column is left out otherwise. All commands are
interleaved run by run so they see the same machine; medians of `--runs`.

    python bench/per_run.py [--runs 11] [--peer PATH] [--store DIR ...]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synth import make_store

SIZES = (10, 50, 200, 1000)


def wall_ms(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--peer", help="the claude-memory-lint executable, when installed")
    parser.add_argument("--store", type=Path, action="append", help="a real store folder")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="curator-per-run-") as tmp:
        root = Path(tmp)
        stores = [s.resolve() for s in args.store or []]
        if not stores:
            for size in SIZES:
                stores.append(make_store(root / f"store-{size}", size))
        run(stores, root, args)


def run(stores: list[Path], root: Path, args: argparse.Namespace) -> None:
    onlooker = root / "onlooker"
    env = {**os.environ, "ONLOOKER_DIR": str(onlooker), "XDG_CONFIG_HOME": str(root / "xdg")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed curator has its bytecode
    # The console script, as a user runs it (and as the peer's is run); `-m` otherwise.
    script = Path(sys.executable).with_name("curator")
    entry = [str(script)] if script.is_file() else [sys.executable, "-m", "curator"]
    curator = [*entry, "lint", "--output-format", "json"]
    times: dict[tuple[Path, str], list[float]] = {}
    for _ in range(args.runs):
        for store in stores:
            shutil.rmtree(onlooker / "curator" / "cache", ignore_errors=True)
            times.setdefault((store, "cold"), []).append(wall_ms([*curator, str(store)], env))
            times.setdefault((store, "warm"), []).append(wall_ms([*curator, str(store)], env))
            if args.peer:
                peer = [args.peer, "check", "--format", "json", str(store)]
                times.setdefault((store, "peer"), []).append(wall_ms(peer, env))
    header = "| store | memories | cold | warm |" + (" peer | warm / peer |" if args.peer else "")
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    for store in stores:
        count = sum(1 for p in store.rglob("*.md") if p.name != "MEMORY.md")
        cold = statistics.median(times[(store, "cold")])
        warm = statistics.median(times[(store, "warm")])
        row = f"| {store.name} | {count} | {cold:.0f} ms | {warm:.0f} ms |"
        if args.peer:
            peer = statistics.median(times[(store, "peer")])
            row += f" {peer:.0f} ms | {warm / peer:.2f} |"
        print(row)


if __name__ == "__main__":
    main()
