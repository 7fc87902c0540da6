"""`curator fix`: show (default) or apply the exact fixes the rules propose, or undo."""

from __future__ import annotations

import sys
from contextlib import ExitStack
from datetime import date
from pathlib import Path
from typing import Any

import click

from curator import clock
from curator.commands.common import (
    EXIT_CLEAN,
    EXIT_FINDINGS,
    config_from,
    config_option,
    repo_root_option,
    split_codes,
    store_option,
    today_option,
    user_errors,
)
from curator.commands.terminal import echo
from curator.config import Config
from curator.errors import UserError
from curator.findings.onlooker import storage_root
from curator.findings.project import ProjectDir, project_dir
from curator.fixes import deltas
from curator.fixes.recovery import fix_lock, report_recovered, sweep_store
from curator.interpreter.rulebook import load_rules
from curator.interpreter.selection import select_rules, validate_tokens
from curator.linting import Target, lint, resolve_targets
from curator.reporters import display_path


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@store_option
@click.option("--apply", "apply_", is_flag=True, help="Make the changes shown last.")
@click.option("--undo", is_flag=True, help="Put back the files of this project's last applied fix.")
@click.option("--select", multiple=True, help="Only fixes of these rules (codes, prefixes, names).")
@click.option("--ignore", multiple=True, help="No fixes of these rules.")
@config_option
@today_option
@repo_root_option
@user_errors
def fix(
    paths: tuple[Path, ...],
    store_paths: tuple[Path, ...],
    apply_: bool,
    undo: bool,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    config_path: Path | None,
    today: date | None,
    repo_root: Path | None,
) -> None:
    """Fixes are exact line edits: on MEMORY.md, drop a line whose link is broken or
    repeated, add a line for a memory the index never links; in any memory, rewrite a
    path the repository's history shows moved to where it went (CUR201), and replace a
    secret with `<redacted: rotate this credential>` (the diff shows it masked).

    `curator fix` shows the diff and saves it as the project's plan; `--apply` makes
    exactly that plan, or nothing when any file changed since (run `curator fix` again),
    and journals it so `--undo` can put back this project's last fix (a secret stays
    masked: curator keeps no copy of one).

    Exit status: with the diff, 1 when there is something to fix; with --apply or --undo,
    1 when a file had changed and was left alone; 2 for --apply with no plan shown, and
    for --apply or --undo while another one runs on the store.
    """
    paths = paths + store_paths  # `--store S` names a store as `S` does
    cwd = Path.cwd()
    config = config_from(config_path)
    report_recovered(config)
    targets = resolve_targets(list(paths), config, cwd, repo_root=repo_root)
    projects = [(t, project_dir(config, t.repo.root, t.store)) for t in targets]
    if undo:
        _undo(config, projects, cwd)
    scope = {
        "select": sorted(split_codes(select)),
        "ignore": sorted(split_codes(ignore)),
        "only": {str(t.store): sorted(map(str, t.only)) if t.only is not None else None
                 for t in targets},
    }  # fmt: skip
    if apply_:
        _apply(projects, scope, cwd)

    rules = load_rules(config)
    tokens = {"--select": split_codes(select), "--ignore": split_codes(ignore)}
    for option, given in tokens.items():
        validate_tokens(rules, given, option)
    selected = select_rules(rules, tokens["--select"] or None, None, tokens["--ignore"])
    result = lint(targets, rules, selected, config, today or clock.today())
    plans = deltas.plan(result.diagnostics)
    for target, project in projects:
        # Saved even when empty: a store with nothing to fix beside one with fixes must
        # not stop `--apply`, and an old plan must not outlive a review that found none.
        mine = [p for p in plans if _store_of(p.path, targets) == target.store]
        deltas.save_plan(project.fix_plan, mine, scope)
    if not plans:
        echo("Nothing to fix.")
        sys.exit(EXIT_CLEAN)
    echo(deltas.render_diff(plans, {p.path: display_path(p.path, cwd) for p in plans}),
         nl=False)  # fmt: skip
    count = sum(len(p.descriptions) for p in plans)
    echo(f"{count} fixes in {len(plans)} files; apply this diff with `curator fix --apply`.",
         err=True)  # fmt: skip
    sys.exit(EXIT_FINDINGS)


def _store_of(path: Path, targets: list[Target]) -> Path:
    """The store a planned file belongs to: the deepest target folder holding it."""
    holding = [t.store for t in targets if path.is_relative_to(t.store)]
    return max(holding, key=lambda s: len(s.parts)) if holding else targets[0].store


def _locked(projects: list[tuple[Target, ProjectDir]], cwd: Path) -> ExitStack:
    """Every project's fix lock, or exit 2 when another curator holds one."""
    stack = ExitStack()
    with stack:
        for target, project in sorted(projects, key=lambda tp: str(tp[1].root)):
            where = display_path(target.store, cwd)
            stack.enter_context(fix_lock(project.journal, where))
            if removed := sweep_store(target.store):
                echo(f"curator: removed {removed} temporary files an interrupted "
                           f"`curator fix` left in {where}", err=True)  # fmt: skip
        return stack.pop_all()


def _apply(projects: list[tuple[Target, ProjectDir]], scope: dict[str, Any], cwd: Path) -> None:
    """Apply the saved plans of these stores, all of them or nothing; exits."""
    with _locked(projects, cwd):
        _apply_locked(projects, scope, cwd)


def _apply_locked(
    projects: list[tuple[Target, ProjectDir]], scope: dict[str, Any], cwd: Path
) -> None:
    saved = []
    for target, project in projects:
        plan = deltas.load_plan(project.fix_plan)
        if plan is None:
            raise UserError(
                f"no reviewed fix plan for {display_path(target.store, cwd)}; run `curator fix` "
                "first to see the diff, then `curator fix --apply` applies exactly that"
            )
        if plan.scope != scope:
            raise UserError(
                "the reviewed fix plan was shown for other paths or --select/--ignore; run "
                "`curator fix` with these options first, then apply"
            )
        saved.append((target, project, plan.plans))
    if not any(plans for _, _, plans in saved):
        for _, project, _ in saved:
            project.fix_plan.unlink(missing_ok=True)
        echo("Nothing to apply: the diff `curator fix` last showed was empty.")
        sys.exit(EXIT_CLEAN)
    moved = [m for _, _, plans in saved for m in deltas.moved_on(plans)]
    if moved:
        for path, reason in moved:
            echo(f"curator: {display_path(path, cwd)}: {reason}", err=True)
        echo("curator: nothing applied; run `curator fix` to review the diff again",
             err=True)  # fmt: skip
        sys.exit(EXIT_FINDINGS)
    refused = False
    for target, project, plans in saved:
        outcome = deltas.apply(plans, project.journal, target.store)
        for p in plans:
            if p.path in outcome.applied:
                for change in p.descriptions:
                    echo(f"{display_path(p.path, cwd)}: {change}")
        if outcome.applied or not plans:
            project.fix_plan.unlink(missing_ok=True)  # applied: never again
            echo("Undo with `curator fix --undo`.", err=True)
        _report_refused(outcome, cwd)
        refused = refused or bool(outcome.refused)
    sys.exit(EXIT_FINDINGS if refused else EXIT_CLEAN)


def _undo(config: Config, projects: list[tuple[Target, ProjectDir]], cwd: Path) -> None:
    """Put back each store's last applied fix; exits."""
    with _locked(projects, cwd):
        _undo_locked(config, projects, cwd)


def _undo_locked(config: Config, projects: list[tuple[Target, ProjectDir]], cwd: Path) -> None:
    legacy = storage_root(config) / "curator" / "journal"  # before journals were per project
    refused = False
    for target, project in projects:
        outcome = deltas.undo(project.journal)
        if outcome.journal is None:
            outcome = deltas.undo(legacy, within=target.store)
        if outcome.journal is None:
            echo(f"curator: no applied fix to undo for {display_path(target.store, cwd)}",
                 err=True)  # fmt: skip
        for path in outcome.applied:
            kept = " (its secrets stay masked: curator keeps no copy of them)"
            note = kept if path in outcome.masked else ""
            echo(f"restored {display_path(path, cwd)}{note}")
        _report_refused(outcome, cwd)
        refused = refused or bool(outcome.refused)
    sys.exit(EXIT_FINDINGS if refused else EXIT_CLEAN)


def _report_refused(outcome: deltas.Outcome, cwd: Path) -> None:
    for path, reason in outcome.refused:
        echo(f"curator: {display_path(path, cwd)}: {reason}", err=True)
