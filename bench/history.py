"""Time the history index (CUR201/CUR202's evidence): cold build, warm open, update.

    python bench/history.py [--commits 5000] [--repo PATH ...]

Generates a repository of `--commits` commits with `git fast-import` (code files that
grow, change, get renamed and deleted), then times on it, and on each `--repo` given
(e.g. the largest corpus repository): a cold build, a warm open (HEAD unchanged), and an
incremental update after 50 new commits (generated repository only). Each figure is the
best of 3. Not part of the test suite: timings on shared machines are noisy.
"""

from __future__ import annotations

import argparse
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from curator.repo.history import open_index

EXCLUDE = ("*.md", "*.lock", "*.min.js")


def generate(repo: Path, commits: int, start: int = 0, seed: int = 7) -> None:
    """Append `commits` commits to `repo` (created when missing) through fast-import."""
    rng = random.Random(seed + start)
    if not (repo / ".git").exists():
        subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    files = sorted(p.relative_to(repo).as_posix() for p in repo.rglob("*.py"))
    stream: list[bytes] = []
    parent = "refs/heads/main" if start else None
    for n in range(start, start + commits):
        lines = ["commit refs/heads/main", f"mark :{n + 1}"]
        when = 1_700_000_000 + n * 600
        lines += [f"committer Bench <b@example.com> {when} +0000"]
        message = f"change {n}".encode()
        body = [b"\n".join(x.encode() for x in lines), b"data %d" % len(message), message]
        if n == start and parent:
            body.append(b"from refs/heads/main^0")
        ops: list[bytes] = []
        for _ in range(rng.randint(1, 4)):
            roll = rng.random()
            if roll < 0.08 and len(files) > 20:
                gone = files.pop(rng.randrange(len(files)))
                ops.append(f"D {gone}".encode())
            elif roll < 0.14 and len(files) > 20:
                old = files.pop(rng.randrange(len(files)))
                new = f"pkg{rng.randrange(40)}/renamed_{n}.py"
                files.append(new)
                ops.append(f'R "{old}" "{new}"'.encode())
            else:
                name = f"pkg{rng.randrange(40)}/mod_{rng.randrange(2000)}.py"
                if name not in files:
                    files.append(name)
                code = "\n".join(
                    f"def func_{n}_{i}(value_{i}):\n"
                    f"    return Helper{rng.randrange(500)}(value_{i})"
                    for i in range(rng.randint(3, 12))
                ).encode()
                ops.append(f"M 100644 inline {name}".encode())
                ops.append(b"data %d\n" % len(code) + code)
        stream.append(b"\n".join(body + ops) + b"\n\n")
    subprocess.run(
        ["git", "-C", str(repo), "fast-import", "--quiet"],
        input=b"".join(stream),
        check=True,
    )
    subprocess.run(["git", "-C", str(repo), "reset", "-q", "--hard", "main"], check=True)


def best(run, repeat: int = 3) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return min(times)


def measure(repo: Path, cache: Path, label: str) -> None:
    def cold() -> None:
        shutil.rmtree(cache, ignore_errors=True)
        index = open_index(repo, cache, EXCLUDE)
        assert index is not None
        index.close()

    def warm() -> None:
        index = open_index(repo, cache, EXCLUDE)
        assert index is not None and index.stats.mode == "cached"
        index.close()

    count = subprocess.run(
        ["git", "-C", str(repo), "rev-list", "--count", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    print(f"{label} ({count} commits): cold {best(cold) * 1000:.0f} ms", end="")
    print(f", warm {best(warm) * 1000:.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--commits", type=int, default=5000)
    parser.add_argument("--repo", type=Path, action="append", default=[])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="curator-history-") as tmp:
        root = Path(tmp)
        repo = root / "repo"
        generate(repo, args.commits)
        measure(repo, root / "cache", "generated")
        updates = []
        work = root / "work"
        for round_ in range(3):
            shutil.rmtree(work, ignore_errors=True)
            shutil.rmtree(root / "cache-work", ignore_errors=True)
            shutil.copytree(repo, work)
            open_index(work, root / "cache-work", EXCLUDE)  # current with the base
            generate(work, 50, start=args.commits + round_ * 50)
            started = time.perf_counter()
            index = open_index(work, root / "cache-work", EXCLUDE)
            updates.append(time.perf_counter() - started)
            assert index is not None and index.stats.mode == "updated", index
            index.close()
        print(f"generated + 50 commits: incremental update {min(updates) * 1000:.0f} ms")
        for extra in args.repo:
            measure(extra.resolve(), root / f"cache-{extra.name}", str(extra))


if __name__ == "__main__":
    main()
