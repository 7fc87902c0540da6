"""Index lines history removed: the commit that took a memory's pointer out of MEMORY.md.

An orphan whose line was removed on purpose (the file stayed) is a choice the owner left
half made: delete the file too, or restore the line. One `git log -p` of MEMORY.md, newest
commit first: the newest commit whose deleted lines name an orphan removed its pointer
(a commit that only reworded the line left it pointed to, so it is no orphan).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import NamedTuple

from curator.git import git_output

_MARK = "\x01"
GIT_SECONDS = 20.0


class Removal(NamedTuple):
    """The commit that removed a file's index line, and the line as it read."""

    short: str
    day: str  # YYYY-MM-DD, the commit's author date
    subject: str
    line: str


def removed_lines(
    repo: Path,
    index_path: Path,
    wanted: Iterable[str],
    names: Callable[[str], set[str]],
) -> dict[str, Removal]:
    """For each of `wanted` (store-relative memory paths, none of which MEMORY.md names
    today), the newest commit that removed a MEMORY.md line naming it; `names(text)` says
    which of `wanted` a text names. Empty when the index is not tracked in `repo` or git fails."""
    wanted = set(wanted)
    try:
        rel = index_path.resolve().relative_to(repo.resolve()).as_posix()
    except ValueError:
        return {}
    if not wanted:
        return {}
    out = git_output(
        repo, "log", "-p", "-U0", "--no-color", "--no-ext-diff", "--no-renames",
        f"--format={_MARK}%h%x00%as%x00%s", "--", rel, timeout=GIT_SECONDS,
    )  # fmt: skip
    if out is None:
        return {}
    found: dict[str, Removal] = {}
    for chunk in out.decode("utf-8", "replace").split(_MARK)[1:]:
        head, _, patch = chunk.partition("\n")
        parts = head.split("\x00")
        if len(parts) != 3:
            continue
        short, day, subject = parts
        removed = [
            line[1:]
            for line in patch.splitlines()
            if line.startswith("-") and not line.startswith(("--- a/", "--- /dev/null"))
        ]
        for text in removed:
            for memory in names(text) - found.keys():
                if memory in wanted:
                    found[memory] = Removal(short, day, subject, text)
        if wanted <= found.keys():
            break
    return found
