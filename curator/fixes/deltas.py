"""Exact, reversible fixes: line edits on one file against the sha256 it expects.

A fix never touches a file whose content changed since it was planned (fail closed).
Every applied change is journaled with a copy of the file as it was, so
`curator fix --undo` can put it back, again only if nobody changed it since.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from difflib import unified_diff
from pathlib import Path

from curator import clock
from curator.findings import atomic
from curator.findings.ulid import new_ulid
from curator.hashing import sha256_bytes
from curator.models import Diagnostic, Edit, Fix
from curator.store.masking import mask


@dataclass
class FilePlan:
    """Every edit planned for one file, all against the same base content."""

    path: Path
    base_sha256: str
    edits: list[Edit] = field(default_factory=list)
    descriptions: list[str] = field(default_factory=list)


@dataclass
class Outcome:
    applied: list[Path] = field(default_factory=list)
    refused: list[tuple[Path, str]] = field(default_factory=list)
    journal: Path | None = None
    masked: list[Path] = field(default_factory=list)  # restored with their secrets masked


def plan(diagnostics: Iterable[Diagnostic], unsafe: bool = False) -> list[FilePlan]:
    """Group the diagnostics' fixes by file; identical edits once, overlapping ones dropped."""
    plans: dict[Path, FilePlan] = {}
    for d in diagnostics:
        fix: Fix | None = d.fix
        if fix is None or (not fix.safe and not unsafe):
            continue
        current = plans.setdefault(fix.path, FilePlan(fix.path, fix.base_sha256))
        if current.base_sha256 != fix.base_sha256:
            continue  # planned against another version of the file: never mix
        for edit in fix.edits:
            if edit in current.edits or any(_overlap(edit, e) for e in current.edits):
                continue
            current.edits.append(edit)
        current.descriptions.append(fix.description)
    return [p for p in sorted(plans.values(), key=lambda p: str(p.path)) if p.edits]


def _overlap(a: Edit, b: Edit) -> bool:
    return a.start_line < b.end_line and b.start_line < a.end_line


def apply_edits(text: str, edits: list[Edit]) -> str:
    """The text with every edit made; line numbers are those of `text`."""
    ends_with_newline = text.endswith("\n")
    lines = text.split("\n")
    if ends_with_newline:
        lines.pop()
    crlf = bool(lines) and lines[0].endswith("\r")
    # Bottom-up, so earlier line numbers stay valid; same-place inserts keep their order.
    order = sorted(enumerate(edits), key=lambda item: (item[1].start_line, item[0]), reverse=True)
    for _, edit in order:
        new = edit.content.split("\n") if edit.content else []
        if edit.content.endswith("\n"):
            new.pop()
        if crlf:
            new = [line + "\r" for line in new]
        lines[edit.start_line - 1 : edit.end_line - 1] = new
    if not lines:
        return ""
    return "\n".join(lines) + "\n"


def render_diff(plans: list[FilePlan], display: dict[Path, str]) -> str:
    """A unified diff of every planned change, as `git diff` would show it, with every
    secret masked on both sides: a redaction's `-` line shows `ghp_…(40)`, not the token."""
    out: list[str] = []
    for p in plans:
        before = p.path.read_text(encoding="utf-8") if p.path.exists() else ""
        after = mask(apply_edits(before, p.edits))
        before = mask(before)
        name = display.get(p.path, str(p.path))
        out.extend(
            unified_diff(
                before.splitlines(keepends=True),
                after.splitlines(keepends=True),
                fromfile=f"a/{name}",
                tofile=f"b/{name}",
            )
        )
    return "".join(line if line.endswith("\n") else line + "\n" for line in out)


def apply(plans: list[FilePlan], journal_dir: Path) -> Outcome:
    """Make the planned changes; a file whose content moved on is refused, untouched."""
    outcome = Outcome()
    entry_id = new_ulid()
    backups = journal_dir / entry_id
    files = []
    for number, p in enumerate(plans):
        try:
            data = p.path.read_bytes()
        except OSError as exc:
            outcome.refused.append((p.path, f"cannot read: {exc.strerror or exc}"))
            continue
        if sha256_bytes(data) != p.base_sha256:
            outcome.refused.append((p.path, "changed since it was checked; run curator again"))
            continue
        before = data.decode("utf-8").removeprefix("\ufeff")
        after = apply_edits(before, p.edits)
        backup = backups / f"{number}.orig"
        backup.parent.mkdir(parents=True, exist_ok=True)
        # curator keeps no copy of a secret: the backup has them masked, so undoing a fix
        # on a file that holds one brings the file back with the secret still masked.
        masked = mask(before)
        backup.write_bytes(data if masked == before else masked.encode("utf-8"))
        atomic.write_text(p.path, after)
        files.append(
            {
                "path": str(p.path),
                "before_sha256": p.base_sha256,
                "after_sha256": sha256_bytes(p.path.read_bytes()),
                "backup": str(backup),
                "secrets_masked": masked != before,
                "changes": p.descriptions,
            }
        )
        outcome.applied.append(p.path)
    if files:
        outcome.journal = journal_dir / f"{entry_id}.json"
        entry = {"id": entry_id, "applied_at": clock.now().isoformat(), "files": files}
        atomic.write_json(outcome.journal, entry)
    return outcome


def undo(journal_dir: Path) -> Outcome:
    """Put back the files of the newest applied fix, each only if it is still as left."""
    outcome = Outcome()
    entries = sorted(journal_dir.glob("*.json")) if journal_dir.is_dir() else []
    if not entries:
        return outcome
    newest = entries[-1]
    data = json.loads(newest.read_text(encoding="utf-8"))
    for item in data.get("files", []):
        path = Path(item["path"])
        try:
            current = sha256_bytes(path.read_bytes())
        except OSError:
            current = None
        if current != item["after_sha256"]:
            outcome.refused.append((path, "changed since the fix; not restored"))
            continue
        atomic.write_bytes(path, Path(item["backup"]).read_bytes())
        outcome.applied.append(path)
        if item.get("secrets_masked"):
            outcome.masked.append(path)
    newest.rename(newest.with_suffix(".undone"))
    outcome.journal = newest
    return outcome
