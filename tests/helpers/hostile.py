"""Hostile input built for real (FIFOs, symlink loops, alias bombs, ...) and what every
run on it must show: an end (the subprocess timeout of `run_curator`), an exit code of
0–2, no traceback, and no file written outside the run's folders."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from tests.conftest import Run, memory, write_files

Snapshot = dict[str, tuple[int, int, int]]


def snapshot(root: Path, skip: tuple[Path, ...] = ()) -> Snapshot:
    """Every entry under `root` (symlinks not followed) with its type, size and mtime,
    except under the folders of `skip` (the run's own: its storage, its temp folder)."""
    found: Snapshot = {}
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if Path(folder, d) not in skip]
        for name in [*dirs, *names]:
            path = Path(folder, name)
            if path in skip:
                continue
            info = path.lstat()
            size = info.st_size if stat.S_ISREG(info.st_mode) else 0
            found[str(path.relative_to(root))] = (stat.S_IFMT(info.st_mode), size, info.st_mtime_ns)
    return found


def changed(before: Snapshot, after: Snapshot) -> list[str]:
    """Entries created, removed or modified between two snapshots."""
    return sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))


def assert_clean(run: Run, codes: tuple[int, ...] = (0, 1, 2)) -> None:
    """Ended with one of `codes` and printed no traceback."""
    assert run.code in codes, (run.code, run.stderr)
    assert "Traceback" not in run.stderr, run.stderr
    assert "Traceback" not in run.stdout


def add_fifo(folder: Path, name: str = "pipe.md") -> Path:
    path = folder / name
    os.mkfifo(path)
    return path


def add_symlink_loop(folder: Path) -> None:
    """`loop_a.md -> loop_b.md -> loop_a.md`: resolving either never ends."""
    os.symlink("loop_b.md", folder / "loop_a.md")
    os.symlink("loop_a.md", folder / "loop_b.md")


def dense_dates(lines: int = 6000) -> str:
    """About 330 KB: a deadline on every line (the date check's worst case)."""
    body = "".join(f"- Deadline for batch {i}: freeze until 2026-0{i % 9 + 1}-1{i % 9}.\n"
                   for i in range(lines))  # fmt: skip
    return memory(body, name="dense")


def long_index(lines: int = 30_000) -> str:
    """A MEMORY.md of `lines` lines under the 1 MiB read limit, most linking missing files."""
    return "".join(
        f"- [G{i}](g{i}.md) — x\n" if i % 2 else f"- [D](m_{i % 50}.md) — dup\n"
        for i in range(lines)
    )


def hostile_store(folder: Path) -> None:
    """One store holding the bad inputs of issue #17, items 2–5, at once."""
    write_files(
        folder,
        {
            "MEMORY.md": long_index(),
            "project_dense.md": dense_dates(),
            "project_feb30.md": memory(
                "Ship it next week.\n", extra="modified: 2026-02-30\ncreated_at: 2026-01-05"
            ),
            "project_far.md": memory("Ship.\n", extra="modified: 9999-12-31T23:59:59Z"),
            "project_zero.md": memory("Ship.\n", extra="modified: 0000-00-00"),
        },
    )
    add_fifo(folder)
    add_symlink_loop(folder)
