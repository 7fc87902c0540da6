"""Time the history index (CUR201/CUR202/CUR206's evidence): cold build, warm open, update.

    python bench/history.py [--commits 5000] [--repo PATH ...] [--runs 5] [--memories 200]

Generates a repository of `--commits` commits with `git fast-import` (code files that
grow, change, get renamed and deleted; a Makefile whose targets come and go), then times
on it, and on each `--repo` given (e.g. the largest corpus repository): a cold build, a
warm open (HEAD unchanged), and an incremental update after 50 new commits (generated
repository only); best of 3. Then, on the generated repository, the ratios the index is
held to (medians of `--runs`, interleaved, CPU of curator and its git children):

- cold / git: a cold build against git's own time to print the same history (the
  `git log` passes the build runs, with the same arguments, to /dev/null, one after the
  other);
- warm lint / one commit: `curator lint` of a store of `--memories` memories naming
  paths, identifiers and make targets (live and gone), with the index built, against
  the same lint on a repository of one commit holding the same tree.

Not part of the test suite: timings on shared machines are noisy.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from curator.repo import history
from curator.repo.history import open_index

EXCLUDE = ("*.md", "*.lock", "*.min.js")
MAKE_TARGETS = [f"task{i}" for i in range(12)]


def generate(repo: Path, commits: int, start: int = 0, seed: int = 7) -> None:
    """Append `commits` commits to `repo` (created when missing) through fast-import."""
    rng = random.Random(seed + start)
    make_rng = random.Random(seed * 31 + start)  # its own: the code history stays as it was
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
        if make_rng.random() < 0.02:  # a Makefile whose targets come and go
            targets = sorted(make_rng.sample(MAKE_TARGETS, 6))
            text = "".join(f"{t}:\n\t@echo {t} {make_rng.randrange(3)}\n" for t in targets)
            ops.append(b"M 100644 inline Makefile")
            ops.append(b"data %d\n" % len(text) + text.encode())
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


def cpu_of(run: Callable[[], object]) -> tuple[float, float]:
    """(wall, CPU seconds of this process and its children) of one call."""
    before = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    run()
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = sum(
        a.ru_utime + a.ru_stime - b.ru_utime - b.ru_stime
        for a, b in zip(after, before, strict=True)
    )
    return wall, cpu


def git_passes(repo: Path) -> list[list[str]]:
    """The `git log` passes a cold build runs, as it runs them (history._fill)."""
    config = ["-c", f"diff.renameLimit={history._RENAME_LIMIT}", "-c", "core.quotePath=off"]
    name_status = ["log", "--format=" + history._HEADER, "-z", "--name-status", "-M"]
    first_parent = [*name_status, "--first-parent", "--diff-merges=first-parent"]
    patch = ["log", "-p", "--unified=0", "--no-color", "-M", "--format=" + history._HEADER]
    return [["git", "-C", str(repo), *config, *args, "HEAD"] for args in
            ([*name_status, "--diff-filter=ADR"], first_parent, patch)]  # fmt: skip


def git_alone(repo: Path) -> None:
    for args in git_passes(repo):
        subprocess.run(
            args, stdout=subprocess.DEVNULL, check=True, env={**os.environ, "LC_ALL": "C"}
        )


def make_lint_store(store: Path, repo: Path, count: int, seed: int = 3) -> None:
    """Memories naming files of the repository (live and deleted), identifiers its code
    defines and lost, and make targets (live and removed)."""
    rng = random.Random(seed)
    live = subprocess.run(["git", "-C", str(repo), "ls-files"], capture_output=True, text=True,
                          check=True).stdout.split()  # fmt: skip
    log = subprocess.run(["git", "-C", str(repo), "log", "--format=", "--diff-filter=D",
                          "--name-only"], capture_output=True, text=True,
                         check=True)  # fmt: skip
    gone = [p for p in log.stdout.split() if p.endswith(".py")] or live
    store.mkdir(parents=True, exist_ok=True)
    index = ["# Memory", ""]
    for i in range(count):
        n = rng.randrange(5000)
        body = (
            f"The handler lives in `{rng.choice(live)}`; the old `{rng.choice(gone)}` is gone.\n"
            f"`func_{n}_{rng.randrange(3)}` wraps `Helper{rng.randrange(500)}`.\n"
            f"Run `make {rng.choice(MAKE_TARGETS)}` before pushing.\n"
        )
        name = f"project_{i}.md"
        (store / name).write_text(
            f"---\nname: memory {i}\ndescription: synthetic {i}\ntype: project\n---\n\n{body}",
            encoding="utf-8",
        )
        index.append(f"- [memory {i}]({name}) — synthetic")
    (store / "MEMORY.md").write_text("\n".join(index) + "\n", encoding="utf-8")


def one_commit_copy(repo: Path, target: Path) -> None:
    """A repository of one commit holding `repo`'s tree at HEAD."""
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(repo), "archive", "HEAD"], capture_output=True,
                             check=True).stdout  # fmt: skip
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.com",
           "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@example.com"}  # fmt: skip
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "tree"]):
        subprocess.run(["git", *args], cwd=target, env=env, check=True)


def timed_run(command: list[str], env: dict[str, str]) -> tuple[float, float, bytes]:
    """(wall, CPU of the process and its children, stdout) of one whole-process run."""
    done: list[bytes] = []
    wall, cpu = cpu_of(
        lambda: done.append(
            subprocess.run(command, capture_output=True, check=True, env=env).stdout
        )
    )
    return wall, cpu, done[0]


def lint_command(store: Path, repo: Path) -> list[str]:
    return [sys.executable, "-m", "curator", "lint", str(store), "--repo-root", str(repo),
            "--output-format", "concise", "--exit-zero", "--today", "2026-06-01"]  # fmt: skip


def ratios(root: Path, repo: Path, runs: int, memories: int) -> None:
    """Cold build against git alone, and a warm lint against a one-commit repository."""
    cache = root / "cache-ratio"

    def cold() -> None:
        shutil.rmtree(cache, ignore_errors=True)
        index = open_index(repo, cache, EXCLUDE)
        assert index is not None
        index.close()

    pairs = [(cpu_of(lambda: git_alone(repo)), cpu_of(cold)) for _ in range(runs)]
    git_wall = statistics.median(g[0] for g, _ in pairs)
    git_cpu = statistics.median(g[1] for g, _ in pairs)
    cold_wall = statistics.median(c[0] for _, c in pairs)
    cold_cpu = statistics.median(c[1] for _, c in pairs)
    print(
        f"git alone (the build's git log passes to /dev/null): {git_wall * 1000:.0f} ms wall, "
        f"{git_cpu * 1000:.0f} ms CPU; cold build {cold_wall * 1000:.0f} ms wall, "
        f"{cold_cpu * 1000:.0f} ms CPU; "
        f"cold / git: {statistics.median(c[0] / g[0] for g, c in pairs):.2f} wall, "
        f"{statistics.median(c[1] / g[1] for g, c in pairs):.2f} CPU (median of {runs} pairs)"
    )
    small = root / "one-commit"
    one_commit_copy(repo, small)
    store = root / "store" / "memory"
    make_lint_store(store, repo, memories)
    env = {**os.environ, "ONLOOKER_DIR": str(root / "onlooker")}
    commands = {"full": lint_command(store, repo), "one": lint_command(store, small)}
    for command in commands.values():  # build the indexes and the run cache: warm
        subprocess.run(command, capture_output=True, check=True, env=env)
    outputs: dict[str, bytes] = {}
    times: dict[str, list[tuple[float, float]]] = {"full": [], "one": []}
    for _ in range(runs):
        for key, command in commands.items():
            wall, cpu, outputs[key] = timed_run(command, env)
            times[key].append((wall, cpu))
    full = [t[1] for t in times["full"]]
    one = [t[1] for t in times["one"]]
    cpu_ratio = statistics.median(f / o for f, o in zip(full, one, strict=True))
    print(
        f"warm lint, {memories} memories: {statistics.median(full) * 1000:.0f} ms CPU "
        f"({statistics.median(t[0] for t in times['full']) * 1000:.0f} ms wall); "
        f"one-commit repository {statistics.median(one) * 1000:.0f} ms CPU "
        f"({statistics.median(t[0] for t in times['one']) * 1000:.0f} ms wall); "
        f"warm / one commit: {cpu_ratio:.2f} CPU, "
        f"{statistics.median(f[0] / o[0] for f, o in zip(*times.values(), strict=True)):.2f} wall"
    )
    print(
        f"  diagnostics: {outputs['full'].count(b'CUR2')} CUR2xx with history, "
        f"{outputs['one'].count(b'CUR2')} without"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--commits", type=int, default=5000)
    parser.add_argument("--repo", type=Path, action="append", default=[])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--memories", type=int, default=200)
    parser.add_argument("--ratios-only", action="store_true", help="skip the build/update times")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="curator-history-") as tmp:
        root = Path(tmp)
        repo = root / "repo"
        generate(repo, args.commits)
        ratios(root, repo, args.runs, args.memories)
        if args.ratios_only:
            return
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
