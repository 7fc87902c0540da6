"""`curator review`: walk through open findings one by one, in a terminal.

For each finding it shows the kind, the message, the detail and an excerpt of the
memory, then offers: prune, edit (in $EDITOR), reclassify (change the type),
acknowledge, defer, quit. Every change is checked against the file as shown and backed up.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from curator.commands.common import config_from, config_option, user_errors
from curator.commands.findings import STORE, STORE_ARGUMENT, change_status, one_store, project_of
from curator.commands.terminal import echo
from curator.errors import UserError
from curator.findings.project import ProjectDir
from curator.findings.store import Finding, load
from curator.fixes.memory_edits import (
    StaleFile,
    expect,
    file_sha,
    inside_store,
    prune,
    set_type,
)
from curator.fixes.memory_edits import backup as take_backup
from curator.models import MEMORY_TYPES
from curator.reporters.printable import visible
from curator.store.masking import mask, mask_value
from curator.store.reading import INDEX_NAME

CONTEXT_LINES = 3
ACTIONS = {
    "p": "prune",
    "e": "edit",
    "r": "reclassify",
    "a": "acknowledge",
    "d": "defer",
    "q": "quit",
}


def excerpt(path: Path, line: int) -> str:
    """Numbered lines around `line`, the finding's line marked with `>`; secrets masked."""
    try:
        text = mask(path.read_bytes().decode("utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        return f"    (cannot read {visible(path.name)}: {exc})"
    # Lines as the finding counts them: at `\n` only (a CR or a VT is part of its line).
    lines = [line.removesuffix("\r") for line in text.removesuffix("\n").split("\n")]
    first, last = max(1, line - CONTEXT_LINES), min(len(lines), line + CONTEXT_LINES)
    width = len(str(last))
    return "\n".join(
        f"  {'>' if n == line else ' '} {n:>{width}} | {lines[n - 1]}"
        for n in range(first, last + 1)
    )


def show(finding: Finding, number: int, total: int, path: Path | None) -> None:
    echo("")
    click.secho(f"[{number}/{total}] {finding.code} {finding.kind}", bold=True)
    # Findings are stored masked; masking again covers any kept before secrets were.
    echo(f"  {visible(mask(finding.message))}")
    where = f"{finding.file}:{finding.line}" if finding.file else ", ".join(finding.memory_files)
    echo(f"  at {visible(where)}")
    for key, value in sorted(mask_value(finding.detail).items()):
        echo(f"    {key}: {visible(str(value))}")
    if path is not None and path.is_file():
        echo(excerpt(path, finding.line))


def memory_rel(finding: Finding) -> str | None:
    """The memory file a finding is about (not MEMORY.md), when there is exactly one."""
    candidates = [f for f in finding.memory_files if f != INDEX_NAME] or (
        [finding.file] if finding.file and finding.file != INDEX_NAME else []
    )
    return candidates[0] if len(candidates) == 1 else None


@click.command()
@STORE_ARGUMENT
@STORE
@config_option
@user_errors
def review(named_store: Path | None, store_path: Path | None, config_path: Path | None) -> None:
    """Walk through the open findings of STORE (default: the current project's store):
    prune, edit, reclassify, acknowledge or defer each."""
    project = project_of(one_store(named_store, store_path), config_path)
    types = (*MEMORY_TYPES, *config_from(config_path).get("types.extra"))
    pending = load(project).sorted("open")
    if not pending:
        echo("curator: no open findings.")
        return
    legend = "  ".join(
        f"[{key}]{name[1:]}" if name[0] == key else name for key, name in ACTIONS.items()
    )
    done: dict[str, int] = {}
    try:
        _walk(pending, legend, project, types, done)
    except click.exceptions.Abort:  # stdin ended (piped answers ran out) or Ctrl-C
        left = len(pending) - sum(done.values())
        summary = ", ".join(f"{n} {what}" for what, n in sorted(done.items())) or "nothing done"
        echo(
            f"\ncurator: review stopped: no more input; {summary}; "
            f"{left} finding(s) left as they were.",
            err=True,
        )
        sys.exit(1)
    summary = ", ".join(f"{n} {what}" for what, n in sorted(done.items())) or "nothing done"
    echo(f"\ncurator: review finished: {summary}.")


def _walk(
    pending: list[Finding],
    legend: str,
    project: ProjectDir,
    types: tuple[str, ...],
    done: dict[str, int],
) -> None:
    """Each finding in turn, until the last or `quit`; `done` counts the outcomes."""
    for number, finding in enumerate(pending, start=1):
        store = Path(finding.store)
        shown_file = (store / finding.file) if finding.file else None
        if shown_file is not None and not shown_file.resolve().is_relative_to(store.resolve()):
            shown_file = None
        show(finding, number, len(pending), shown_file)
        rel = memory_rel(finding)
        shown_sha = file_sha(store / rel) if rel else None
        index_sha = file_sha(store / INDEX_NAME)
        choice = click.prompt(
            f"  {legend}", type=click.Choice(list(ACTIONS)), show_choices=False, default="d"
        )
        action = ACTIONS[choice]
        if action == "quit":
            break
        try:
            outcome = act(action, finding, project, store, rel, shown_sha, index_sha, types)
        except StaleFile as exc:
            click.secho(f"  skipped: {visible(exc.message)}", fg="yellow")
            outcome = "skipped"
        except UserError as exc:
            click.secho(f"  not done: {visible(exc.message)}", fg="yellow")
            outcome = "skipped"
        except click.ClickException as exc:  # the editor could not be started
            click.secho(f"  not done: {visible(exc.format_message())}", fg="yellow")
            outcome = "skipped"
        done[outcome] = done.get(outcome, 0) + 1


def act(
    action: str,
    finding: Finding,
    project: ProjectDir,
    store: Path,
    rel: str | None,
    shown_sha: str | None,
    index_sha: str | None,
    types: tuple[str, ...] = MEMORY_TYPES,
) -> str:
    """Carry out one chosen action; returns what to count it as."""
    if action == "defer":
        return "deferred"
    if action == "acknowledge":
        reason = click.prompt("  reason", default="", show_default=False)
        change_status(project, [finding.id], "acknowledged", reason or None)
        echo("  acknowledged")
        return "acknowledged"
    if rel is None:
        raise UserError(f"this finding is not about one memory file; {action} it by hand")
    if action == "prune":
        if not click.confirm(f"  delete {visible(rel)} and its MEMORY.md line?", default=False):
            return "deferred"
        if index_sha is not None or (store / INDEX_NAME).exists():
            expect(store / INDEX_NAME, index_sha)  # prune rewrites the index too
        backup, lines = prune(project, store, rel, shown_sha)
        change_status(
            project, [finding.id], "resolved", f"pruned {rel}", by="review", action="prune"
        )
        removed = f", removed MEMORY.md line {', '.join(map(str, lines))}" if lines else ""
        echo(f"  pruned {rel}{removed} (backup in {backup})")
        return "pruned"
    if action == "edit":
        path = inside_store(store, rel)
        expect(path, shown_sha)
        folder = take_backup(project, store, [path])
        click.edit(filename=str(path))
        changed = file_sha(path) != shown_sha
        note = "edited; the next scan re-checks it" if changed else "unchanged"
        echo(f"  {note} (backup in {folder})")
        return "edited" if changed else "deferred"
    if action == "reclassify":
        new_type = click.prompt("  new type", type=click.Choice(types))
        folder = set_type(project, store, rel, shown_sha, new_type)
        reason = f"{rel} is now type {new_type}"
        change_status(project, [finding.id], "resolved", reason, by="review", action="reclassify")
        echo(f"  {reason} (backup in {folder})")
        return "reclassified"
    raise AssertionError(action)
