"""Finishing what a killed `curator fix --apply` left: the lock and the pending marks.

An apply holds its project's fix lock from the moment it reads the plan, so a second
apply or undo on the same store refuses at once. Before it writes anything it leaves a
mark in `<storage>/curator/pending/` naming its journal entry, and it removes the mark
once every file is written. A mark whose lock nobody holds is an apply that was killed:
the next `curator lint`, `scan`, `fix` or hook rolls it back from the journal (which holds
every file's old bytes), removes its temporary files and says so on stderr.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from curator.config import Config
from curator.errors import UserError
from curator.findings import atomic
from curator.findings.onlooker import storage_root
from curator.fixes import replacing
from curator.hashing import sha256_bytes

PENDING = "pending"


def pending_folder(storage: Path) -> Path:
    return storage / "curator" / PENDING


def lock_path(journal_dir: Path) -> Path:
    return journal_dir.parent / "fix.lock"


def temp_candidates(journal_dir: Path, store: Path | None) -> list[Path]:
    """Where an apply writes its temporary files: the project's state folder first,
    then the folder beside the store (both outside the store)."""
    own = journal_dir.parent / "tmp"
    own.mkdir(parents=True, exist_ok=True)
    return [own] + ([store.resolve().parent] if store is not None else [])


@contextmanager
def fix_lock(journal_dir: Path, where: str) -> Iterator[None]:
    """Hold the project's fix lock, or refuse at once (exit 2) when another curator
    is applying or undoing a fix there."""
    path = lock_path(journal_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        if not atomic.try_lock(fd):
            raise UserError(
                f"another curator is applying or undoing a fix in {where}; nothing done, "
                "run it again when that one ends"
            ) from None
        _clear_temps(journal_dir.parent / "tmp")
        yield
    finally:
        os.close(fd)


def _clear_temps(folder: Path) -> None:
    """Remove what a killed apply or undo left in the project's temporary folder: every
    writer of it holds the fix lock, which this process now has (review's own files,
    written without it, are left be)."""
    with contextlib.suppress(OSError):
        for name in os.listdir(folder):
            if not name.startswith("review."):
                with contextlib.suppress(OSError):
                    os.unlink(folder / name)


# How older versions named the temporary file they wrote beside a memory, and how the
# last-resort fallback beside the file names one now.
_STORE_TEMP = re.compile(r"^\.(?:curator-.+|.+\.[0-9a-f]{12})\.tmp$")


def sweep_store(store: Path) -> int:
    """Remove the temporary files a killed `curator fix` of an older version left in the
    store (they were written beside the file then); how many. Call holding the lock."""
    removed = 0
    with contextlib.suppress(OSError):
        for path in store.rglob(".*.tmp"):
            if _STORE_TEMP.match(path.name) and path.is_file() and not path.is_symlink():
                with contextlib.suppress(OSError):
                    path.unlink()
                    removed += 1
    return removed


def mark(journal_dir: Path, entry_id: str, journal: Path) -> Path:
    """Leave the mark of an apply about to change files (fsynced), in the pending folder
    of the storage that holds the project's journal (`<storage>/curator/<key>/journal`)."""
    path = journal_dir.parent.parent / PENDING / f"{entry_id}.json"
    atomic.write_json(path, {"journal": str(journal)}, durable=True)
    return path


def recover(storage: Path) -> list[str]:
    """Roll back every apply that was killed; one line per apply, for stderr."""
    folder = pending_folder(storage)
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []  # none pending: the usual case, one failed listdir
    said = []
    for name in names:
        marker = folder / name
        data = atomic.read_json(marker)
        journal = Path(data["journal"]) if isinstance(data, dict) and "journal" in data else None
        if journal is None:
            with contextlib.suppress(OSError):
                marker.unlink()
            continue
        try:
            with fix_lock(journal.parent, str(journal.parent)):
                said.extend(_roll_back(journal))
                marker.unlink(missing_ok=True)
        except UserError:
            continue  # its apply is still running
        except OSError as exc:  # the mark stays: the next command tries again
            cause = exc.strerror or str(exc)
            said.append(f"curator: a `curator fix --apply` was interrupted and could not be "
                        f"rolled back yet: {exc.filename}: {cause}")  # fmt: skip
    return said


def _roll_back(journal: Path) -> list[str]:
    entry = atomic.read_json(journal)
    if not isinstance(entry, dict):
        # Killed before its journal entry was written: no file was changed.
        with contextlib.suppress(OSError):
            shutil.rmtree(journal.with_suffix(""))
        return []
    if entry.get("state") != "applying":
        return []  # killed after its last write: the apply is whole, and can be undone
    restored, kept = 0, []
    items = [i for i in entry.get("files", []) if isinstance(i, dict)]
    for item in items:
        with contextlib.suppress(OSError, KeyError, TypeError):
            os.unlink(item["temp"])
    for item in items:
        path = Path(item["path"]).resolve()
        try:
            current = sha256_bytes(path.read_bytes())
        except OSError:
            current = None
        if current == item.get("before_sha256"):
            continue
        if current != item.get("after_sha256"):
            kept.append(str(item["path"]))
            continue
        temp = replacing.temp_path(path, replacing.temp_folder(path, temp_candidates(
            journal.parent, None)), f"{entry.get('id')}.undo")  # fmt: skip
        replacing.replace(path, Path(item["backup"]).read_bytes(), temp)
        restored += 1
    journal.rename(journal.with_suffix(".rolledback"))
    said = [
        f"curator: a `curator fix --apply` was interrupted; rolled back: {restored} of "
        f"{len(items)} files put back as they were, temporary files removed"
    ]
    said.extend(f"curator: {p}: changed since the interrupted fix; left as it is" for p in kept)
    return said


def report_recovered(config: Config) -> None:
    """Roll back any killed apply under the configured storage, saying so on stderr."""
    for line in recover(storage_root(config)):
        print(line, file=sys.stderr, flush=True)
