"""Changes to memory files that a person asked for in `curator review`.

Every change first checks that the file is still exactly what was shown (its sha256) and
copies it to `<project state>/backups/<ULID>/` before touching it. Nothing here runs
unless a person chose it.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from curator.errors import UserError
from curator.findings import atomic
from curator.findings.project import ProjectDir
from curator.findings.ulid import new_ulid
from curator.fixes.replacing import write_memory
from curator.hashing import sha256_bytes
from curator.models import Index
from curator.store.masking import mask
from curator.store.reading import INDEX_NAME, read_index

_TYPE_LINE = re.compile(r"^(?P<indent>\s*)type\s*:\s*(?P<value>.*?)\s*$")


class StaleFile(UserError):
    """The file changed after it was shown; the change was not made."""


def file_sha(path: Path) -> str | None:
    try:
        return sha256_bytes(path.read_bytes())
    except OSError:
        return None


def inside_store(store: Path, rel: str) -> Path:
    """The memory file `rel` of the store; refuses anything that leaves it."""
    path = (store / rel).resolve()
    if not path.is_relative_to(store.resolve()) or path == store.resolve():
        raise UserError(f"'{rel}' is not a file inside the store", store)
    return path


def expect(path: Path, sha: str | None) -> None:
    """Fail closed unless `path` exists and still has the sha256 that was shown."""
    if sha is None or not path.is_file():
        raise StaleFile(f"{path.name} no longer exists; nothing was done", path)
    if file_sha(path) != sha:
        raise StaleFile(f"{path.name} changed since it was shown; nothing was done", path)


def backup(project: ProjectDir, store: Path, paths: list[Path]) -> Path:
    """Copy files (store-relative layout kept) into a fresh backup folder; return it.

    curator keeps no copy of a secret: a file that holds one is backed up masked.
    """
    folder = project.backups / new_ulid()
    for path in paths:
        target = folder / path.relative_to(store.resolve())
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            text: str | None = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            text = None
        masked = mask(text) if text is not None else None
        if masked is not None and masked != text:
            atomic.write_text(target, masked)
        else:
            shutil.copy2(path, target)
    return folder


def prune(project: ProjectDir, store: Path, rel: str, sha: str | None) -> tuple[Path, list[int]]:
    """Delete a memory and the MEMORY.md lines that link to it.

    Returns the backup folder and the removed index line numbers.
    """
    path = inside_store(store, rel)
    if path.name == INDEX_NAME:
        raise UserError("MEMORY.md is the index, not a memory; edit it instead", path)
    expect(path, sha)
    index = read_index(store.resolve())
    index_lines: list[int] = []
    if isinstance(index, Index):
        rel = path.relative_to(store.resolve()).as_posix()
        index_lines = sorted({e.line for e, linked, _ in index.resolved if linked == rel})
    folder = backup(
        project, store, [path, *([store.resolve() / INDEX_NAME] if index_lines else [])]
    )
    if isinstance(index, Index) and index_lines:
        # Split on "\n" only, as the index's line numbers were counted.
        kept = [line for n, line in enumerate(index.text.split("\n"), 1) if n not in index_lines]
        write_memory(index.path, "\n".join(kept).encode("utf-8"), project.root / "tmp", store)
    path.unlink()
    return folder, index_lines


def set_type(project: ProjectDir, store: Path, rel: str, sha: str | None, new_type: str) -> Path:
    """Change the frontmatter `type` (flat or under `metadata:`); returns the backup folder."""
    path = inside_store(store, rel)
    expect(path, sha)
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        raise UserError("the memory has no frontmatter to change", path)
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
    if end is None:
        raise UserError("the memory's frontmatter is not closed", path)
    for i in range(1, end):
        match = _TYPE_LINE.match(lines[i].rstrip("\r\n"))
        if match:
            newline = lines[i][len(lines[i].rstrip("\r\n")) :]
            lines[i] = f"{match['indent']}type: {new_type}{newline or chr(10)}"
            break
    else:
        lines.insert(end, f"type: {new_type}\n")
    folder = backup(project, store, [path])
    write_memory(path, "".join(lines).encode("utf-8"), project.root / "tmp", store)
    return folder
