"""`curator fix`: show (default) or apply the exact fixes the rules propose, or undo."""

from __future__ import annotations

import sys
from datetime import date
from pathlib import Path

import click

from curator import clock
from curator.commands.common import (
    EXIT_CLEAN,
    EXIT_FINDINGS,
    config_from,
    config_option,
    repo_root_option,
    split_codes,
    today_option,
    user_errors,
)
from curator.findings.onlooker import storage_root
from curator.fixes import deltas
from curator.interpreter.rulebook import load_rules
from curator.interpreter.selection import select_rules, validate_tokens
from curator.linting import lint, resolve_targets
from curator.reporters import display_path


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--apply", "apply_", is_flag=True, help="Make the changes (default: show a diff).")
@click.option("--undo", is_flag=True, help="Put back the files of the last applied fix.")
@click.option("--select", multiple=True, help="Only fixes of these rules (codes, prefixes, names).")
@click.option("--ignore", multiple=True, help="No fixes of these rules.")
@config_option
@today_option
@repo_root_option
@user_errors
def fix(
    paths: tuple[Path, ...],
    apply_: bool,
    undo: bool,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    config_path: Path | None,
    today: date | None,
    repo_root: Path | None,
) -> None:
    """Fixes are exact line edits: on MEMORY.md, drop a line whose link is broken or
    repeated, add a line for a memory the index never links; in any memory, replace a
    secret with `<redacted: rotate this credential>` (the diff shows it masked). Each is
    checked against the file's sha256 when applied, and journaled so `--undo` can put it
    back (a secret stays masked: curator keeps no copy of one).

    Exit status: with the diff, 1 when there is something to fix; with --apply or --undo,
    1 when a file had changed and was left alone.
    """
    cwd = Path.cwd()
    config = config_from(config_path)
    journal = storage_root(config) / "curator" / "journal"
    if undo:
        outcome = deltas.undo(journal)
        if outcome.journal is None:
            click.echo("curator: no applied fix to undo", err=True)
        for path in outcome.applied:
            kept = " (its secrets stay masked: curator keeps no copy of them)"
            note = kept if path in outcome.masked else ""
            click.echo(f"restored {display_path(path, cwd)}{note}")
        _report_refused(outcome, cwd)
        sys.exit(EXIT_FINDINGS if outcome.refused else EXIT_CLEAN)

    rules = load_rules(config)
    tokens = {"--select": split_codes(select), "--ignore": split_codes(ignore)}
    for option, given in tokens.items():
        validate_tokens(rules, given, option)
    selected = select_rules(rules, tokens["--select"] or None, None, tokens["--ignore"])
    targets = resolve_targets(list(paths), config, cwd, repo_root=repo_root)
    result = lint(targets, rules, selected, config, today or clock.today())
    plans = deltas.plan(result.diagnostics)
    if not plans:
        click.echo("Nothing to fix.")
        sys.exit(EXIT_CLEAN)
    if not apply_:
        click.echo(deltas.render_diff(plans, {p.path: display_path(p.path, cwd) for p in plans}),
                   nl=False)  # fmt: skip
        count = sum(len(p.descriptions) for p in plans)
        click.echo(f"{count} fixes in {len(plans)} files; apply with `curator fix --apply`.",
                   err=True)  # fmt: skip
        sys.exit(EXIT_FINDINGS)
    outcome = deltas.apply(plans, journal)
    for p in plans:
        if p.path in outcome.applied:
            for change in p.descriptions:
                click.echo(f"{display_path(p.path, cwd)}: {change}")
    if outcome.applied:
        click.echo("Undo with `curator fix --undo`.", err=True)
    _report_refused(outcome, cwd)
    sys.exit(EXIT_FINDINGS if outcome.refused else EXIT_CLEAN)


def _report_refused(outcome: deltas.Outcome, cwd: Path) -> None:
    for path, reason in outcome.refused:
        click.echo(f"curator: {display_path(path, cwd)}: {reason}", err=True)
