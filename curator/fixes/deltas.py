"""Exact, reversible fixes: line edits on one file against the sha256 it expects.

The plan `curator fix` shows is saved (`save_plan`) and `--apply` makes exactly that
plan, or nothing when any file's content changed since it was shown (fail closed).
Every applied change is journaled, before the file changes, with a copy of the file as
it was, so `curator fix --undo` can put it back, again only if nobody changed it since.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from difflib import unified_diff
from pathlib import Path
from typing import Any

from curator import clock
from curator.errors import UserError
from curator.findings import atomic
from curator.findings.ulid import new_ulid
from curator.fixes import recovery, replacing
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
        # Lines as the edits count them: at `\n` only (a CR or a VT inside a line is
        # part of it, shown escaped).
        before = p.path.read_bytes().decode("utf-8") if p.path.exists() else ""
        after = mask(apply_edits(before, p.edits))
        before = mask(before)
        name = display.get(p.path, str(p.path))
        out.extend(
            unified_diff(
                _lines(before),
                _lines(after),
                fromfile=f"a/{name}",
                tofile=f"b/{name}",
            )
        )
    return "".join(line if line.endswith("\n") else line + "\n" for line in out)


def _lines(text: str) -> list[str]:
    """Lines at `\n` only, with their ends; a CRLF shown as a plain line end."""
    lines = text.split("\n")
    ends = [line.removesuffix("\r") + "\n" for line in lines[:-1]]
    return ends + ([lines[-1]] if lines[-1] else [])


PLAN_VERSION = 1


@dataclass
class SavedPlan:
    """The plan `curator fix` showed: what it was asked for, and every file's edits."""

    scope: dict[str, Any]
    plans: list[FilePlan]


def save_plan(path: Path, plans: list[FilePlan], scope: dict[str, Any]) -> None:
    """Keep the plan just shown, so `--apply` makes exactly these changes: each file's
    sha256 as shown, and its edits as line ranges and the lines that replace them."""
    files = [
        {
            "path": str(p.path),
            "base_sha256": p.base_sha256,
            "edits": [[e.start_line, e.end_line, e.content] for e in p.edits],
            "descriptions": p.descriptions,
        }
        for p in plans
    ]
    entry = {"version": PLAN_VERSION, "shown_at": clock.now().isoformat(), "scope": scope,
             "files": files}  # fmt: skip
    atomic.write_json(path, entry)


def load_plan(path: Path) -> SavedPlan | None:
    """The saved plan, None when there is none; a damaged one is an error (exit 2)."""
    if not path.exists():
        return None
    data = atomic.read_json(path)
    try:
        if not isinstance(data, dict) or data.get("version") != PLAN_VERSION:
            raise ValueError
        scope = data["scope"]
        if not isinstance(scope, dict):
            raise ValueError
        plans = []
        for item in data["files"]:
            edits = [Edit(int(a), int(b), str(c)) for a, b, c in item["edits"]]
            if any(e.start_line < 1 or e.end_line < e.start_line for e in edits):
                raise ValueError
            descriptions = [str(d) for d in item["descriptions"]]
            plans.append(
                FilePlan(Path(item["path"]), str(item["base_sha256"]), edits, descriptions)
            )
    except (KeyError, TypeError, ValueError):
        raise UserError("the saved fix plan is damaged; run `curator fix` to review a new one",
                        path) from None  # fmt: skip
    return SavedPlan(scope, plans)


def moved_on(plans: list[FilePlan]) -> list[tuple[Path, str]]:
    """The planned files that are no longer as planned, each with why."""
    found = []
    for p in plans:
        try:
            data = p.path.read_bytes()
        except OSError as exc:
            found.append((p.path, f"cannot read: {exc.strerror or exc}"))
            continue
        if sha256_bytes(data) != p.base_sha256:
            found.append((p.path, "changed since the diff was shown"))
    return found


Staged = tuple[FilePlan, Path, bytes, str, str]  # plan, file written, its bytes, before, after


def apply(plans: list[FilePlan], journal_dir: Path, store: Path | None = None) -> Outcome:
    """Make the planned changes, all or none: when any file's content moved on since it
    was planned (or is a symlink that leaves `store`), every file is left alone and the
    ones that moved are reported.

    Call it holding the project's fix lock (`recovery.fix_lock`). A pending mark, the
    backups and the journal entry are on disk (fsynced) before the first file changes
    and the mark goes once the last one has: a crash at any point leaves the next
    curator command what it needs to roll the apply back. A write that fails (a full
    disk) puts back the files already changed and raises.
    """
    outcome = Outcome()
    staged: list[Staged] = []
    for p in plans:
        target = replacing.write_through(p.path, store or p.path.parent)
        if target is None:
            outcome.refused.append((p.path, "a symlink to a file outside the store; not changed"))
            continue
        try:
            data = target.read_bytes()
        except OSError as exc:
            outcome.refused.append((p.path, f"cannot read: {exc.strerror or exc}"))
            continue
        if sha256_bytes(data) != p.base_sha256:
            outcome.refused.append((p.path, "changed since it was checked; run curator again"))
            continue
        try:
            before = data.decode("utf-8").removeprefix("\ufeff")
        except UnicodeDecodeError:
            outcome.refused.append((p.path, "not UTF-8 text"))
            continue
        staged.append((p, target, data, before, apply_edits(before, p.edits)))
    if outcome.refused or not staged:
        return outcome
    entry_id = new_ulid()
    journal = journal_dir / f"{entry_id}.json"
    marker = recovery.mark(journal_dir, entry_id, journal)
    done: list[tuple[Path, bytes, Path]] = []
    try:
        entry, temps = _journal(staged, journal, store)
        for number, (p, target, data, _, after) in enumerate(staged):
            replacing.replace(target, after.encode("utf-8"), temps[number], f"fix:temp:{number}")
            done.append((target, data, temps[number]))
            outcome.applied.append(p.path)
            atomic.kill_point(f"fix:file:{number}")
        atomic.write_json(journal, {**entry, "state": "applied"}, durable=True)
        atomic.kill_point("fix:applied")
    except OSError:
        with contextlib.suppress(OSError):  # else the next curator command rolls it back
            for target, data, temp in reversed(done):  # the old bytes are still in memory
                replacing.replace(target, data, temp)
            if journal.exists():
                journal.rename(journal.with_suffix(".rolledback"))
            marker.unlink()
        raise
    marker.unlink()
    outcome.journal = journal
    return outcome


def _journal(
    staged: list[Staged], journal: Path, store: Path | None
) -> tuple[dict[str, Any], list[Path]]:
    """Write every file's backup, then the journal entry (state `applying`), fsynced;
    the entry, and the temporary file each new version is written to."""
    entry_id = journal.stem
    candidates = recovery.temp_candidates(journal.parent, store)
    files, temps = [], []
    for number, (p, target, data, before, after) in enumerate(staged):
        backup = journal.parent / entry_id / f"{number}.orig"
        # curator keeps no copy of a secret: the backup has them masked, so undoing a fix
        # on a file that holds one brings the file back with the secret still masked.
        masked = mask(before)
        atomic.write_bytes(backup, data if masked == before else masked.encode("utf-8"),
                           durable=True)  # fmt: skip
        temps.append(replacing.temp_path(target, replacing.temp_folder(target, candidates),
                                         f"{entry_id}.{number}"))  # fmt: skip
        files.append(
            {
                "path": str(p.path),
                "before_sha256": p.base_sha256,
                "after_sha256": sha256_bytes(after.encode("utf-8")),
                "backup": str(backup),
                "temp": str(temps[-1]),
                "secrets_masked": masked != before,
                "changes": p.descriptions,
            }
        )
    atomic.kill_point("fix:backups")
    entry = {"id": entry_id, "applied_at": clock.now().isoformat(), "files": files}
    atomic.write_json(journal, {**entry, "state": "applying"}, durable=True)
    atomic.kill_point("fix:journal")
    return entry, temps


def undo(journal_dir: Path, within: Path | None = None) -> Outcome:
    """Put back the files of the newest applied fix, each only if it is still as left.

    `within` considers only fixes whose files all lie in that folder (the one journal
    of older versions, shared by every project). A file the fix never reached (a crash
    stopped it first) is still as it was and is left be.
    """
    outcome = Outcome()
    entries = sorted(journal_dir.glob("*.json")) if journal_dir.is_dir() else []
    for newest in reversed(entries):
        data = atomic.read_json(newest)
        if not isinstance(data, dict) or not isinstance(data.get("files"), list):
            raise UserError("the fix journal entry is damaged; nothing restored", newest)
        items = [i for i in data["files"] if isinstance(i, dict) and "path" in i]
        if within is None or all(Path(i["path"]).is_relative_to(within) for i in items):
            break
    else:
        return outcome
    for item in items:
        path = Path(item["path"])
        try:
            current = sha256_bytes(path.read_bytes())
        except OSError:
            current = None
        if current == item.get("before_sha256"):
            continue  # the fix never got to this file
        if current != item.get("after_sha256"):
            outcome.refused.append((path, "changed since the fix; not restored"))
            continue
        target = path.resolve()
        folder = replacing.temp_folder(target, recovery.temp_candidates(journal_dir, None))
        temp = replacing.temp_path(target, folder, f"{newest.stem}.undo")
        replacing.replace(target, Path(item["backup"]).read_bytes(), temp)
        outcome.applied.append(path)
        if item.get("secrets_masked"):
            outcome.masked.append(path)
    newest.rename(newest.with_suffix(".undone"))
    outcome.journal = newest
    return outcome
